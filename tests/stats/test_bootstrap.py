import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from pairedframe.errors import InsufficientSampleError
from pairedframe.stats.bootstrap import (bootstrap_mean, bootstrap_mean_many,
                                         bootstrap_means_matrix, percentile_interval)
from pairedframe.stats.resample import bootstrap_index_chunks
from tests.reference import stats_reference as ref

finite = st.floats(-1, 1, allow_nan=False, allow_subnormal=False)
deltas = arrays(np.float64, st.integers(2, 40), elements=finite)
# discrete IR-like deltas (P@10 steps) produce many exact ties in the bootstrap distribution
discrete = arrays(np.float64, st.integers(2, 40),
                  elements=st.integers(-10, 10).map(lambda k: k / 10))


@settings(max_examples=40, deadline=None)
@given(x=st.one_of(deltas, discrete), b=st.integers(2, 300), seed=st.integers(0, 2**32),
       batch=st.one_of(st.none(), st.integers(1, 300)), chunk=st.integers(1, 300),
       alt=st.sampled_from(["two-sided", "less", "greater"]),
       cl=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_percentile_bit_identical_against_scipy_bootstrap(x, b, seed, batch, chunk, alt, cl):
    stats = pytest.importorskip("scipy.stats")
    ours = bootstrap_mean(x, n_resamples=b, seed=np.random.default_rng(seed), chunk_size=chunk,
                          alternative=alt, confidence_level=cl)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = stats.bootstrap((x,), np.mean, n_resamples=b, rng=np.random.default_rng(seed),
                                 batch=batch, method="percentile", alternative=alt,
                                 confidence_level=cl)
    if np.ptp(x) == 0:
        # We pin constant data to a zero-width interval at the mean; scipy interpolates between
        # equal resampled means and can land a few ulps away (e.g. x = [4.93e-43, 4.93e-43]).
        low, their_low = ours.confidence_interval.low, theirs.confidence_interval.low
        assert low == -np.inf or low == np.mean(x)
        if low != -np.inf:
            np.testing.assert_allclose(low, their_low, rtol=8 * np.finfo(float).eps, atol=0)
    else:
        assert ours.confidence_interval.low == theirs.confidence_interval.low
        assert ours.confidence_interval.high == theirs.confidence_interval.high
        assert ours.standard_error == theirs.standard_error


@settings(max_examples=30, deadline=None)
@given(x=st.one_of(deltas, discrete), b=st.integers(50, 400), seed=st.integers(0, 2**32))
def test_bca_against_scipy_bootstrap(x, b, seed):
    stats = pytest.importorskip("scipy.stats")
    assume(np.ptp(x) > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = bootstrap_mean(x, n_resamples=b, seed=np.random.default_rng(seed), method="bca")
        theirs = stats.bootstrap((x,), np.mean, n_resamples=b, rng=np.random.default_rng(seed),
                                 method="BCa")
    lo, hi = ours.confidence_interval
    tlo, thi = theirs.confidence_interval
    # infinite bias correction: both give NaN, or ours is NaN where scipy's
    # rounding of a_hat lands on a finite value at the extreme quantile
    assume(not (np.isnan(tlo) or np.isnan(lo)))
    np.testing.assert_allclose([lo, hi], [tlo, thi], rtol=0, atol=1e-12)


def test_bca_against_scipy_bootstrap_large_skewed():
    stats = pytest.importorskip("scipy.stats")
    x = np.random.default_rng(3).exponential(size=200) - 0.8
    ours = bootstrap_mean(x, n_resamples=5000, seed=np.random.default_rng(1), method="bca")
    theirs = stats.bootstrap((x,), np.mean, n_resamples=5000, rng=np.random.default_rng(1),
                             method="BCa")
    np.testing.assert_allclose(tuple(ours.confidence_interval),
                               tuple(theirs.confidence_interval), rtol=0, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(x=deltas, b=st.integers(2, 60), seed=st.integers(0, 2**32))
def test_bootstrap_mean_against_loop_reference(x, b, seed):
    idx = np.random.default_rng(seed).integers(0, len(x), size=(b, len(x)))
    means = ref.bootstrap_means_loop(x, idx)
    lo, hi = ref.percentile_ci_loop(x, idx)
    res = bootstrap_mean(x, n_resamples=b, seed=seed)
    np.testing.assert_allclose([res.confidence_interval.low, res.confidence_interval.high],
                               [lo, hi], rtol=1e-12, atol=1e-13)
    if np.ptp(x) > 0:
        np.testing.assert_allclose(res.standard_error, ref.sd_loop(means), rtol=1e-9, atol=1e-14)
    # many-column matmul kernel on the same stream
    mat = bootstrap_means_matrix(np.c_[x, 2 * x], [idx[:1], idx[1:]])
    np.testing.assert_allclose(mat[:, 0], means, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(mat[:, 1], 2 * np.asarray(means), rtol=1e-12, atol=1e-13)


@settings(max_examples=25, deadline=None)
@given(x=deltas, b=st.integers(2, 200), seed=st.integers(0, 2**32),
       method=st.sampled_from(["percentile", "bca"]))
def test_swap_against_negated_deltas(x, b, seed, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        r = bootstrap_mean(x, n_resamples=b, seed=seed, method=method)
        s = bootstrap_mean(-x, n_resamples=b, seed=seed, method=method)
    assert s.statistic == -r.statistic
    assume(not np.isnan(r.confidence_interval.low))    # BCa's infinite bias correction
    np.testing.assert_allclose(s.confidence_interval.low, -r.confidence_interval.high,
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(s.confidence_interval.high, -r.confidence_interval.low,
                               rtol=1e-12, atol=1e-14)
    assert s.standard_error == pytest.approx(r.standard_error, rel=1e-12, abs=1e-15)


@settings(max_examples=25, deadline=None)
@given(x=deltas, b=st.integers(2, 200), seed=st.integers(0, 2**32),
       c1=st.integers(1, 250), c2=st.integers(1, 250),
       method=st.sampled_from(["percentile", "bca"]))
def test_bootstrap_against_chunk_size(x, b, seed, c1, c2, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        r1 = bootstrap_mean(x, n_resamples=b, seed=seed, chunk_size=c1, method=method)
        r2 = bootstrap_mean(x, n_resamples=b, seed=seed, chunk_size=c2, method=method)
        m1 = bootstrap_mean_many(np.c_[x, -x], n_resamples=b, seed=seed, chunk_size=c1,
                                 method=method)
        m2 = bootstrap_mean_many(np.c_[x, -x], n_resamples=b, seed=seed, chunk_size=c2,
                                 method=method)
    assert r1 == r2 or (np.isnan(r1.confidence_interval.low)
                        and np.isnan(r2.confidence_interval.low))
    np.testing.assert_array_equal(m1.confidence_interval.low, m2.confidence_interval.low)
    np.testing.assert_array_equal(m1.standard_error, m2.standard_error)


@settings(max_examples=25, deadline=None)
@given(X=arrays(np.float64, st.tuples(st.integers(2, 30), st.integers(1, 6)), elements=finite),
       b=st.integers(2, 200), seed=st.integers(0, 2**32))
def test_bootstrap_many_against_single_column(X, b, seed):
    many = bootstrap_mean_many(X, n_resamples=b, seed=seed)
    for c in range(X.shape[1]):
        one = bootstrap_mean(X[:, c], n_resamples=b, seed=seed)
        np.testing.assert_allclose(many.confidence_interval.low[c], one.confidence_interval.low,
                                   rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(many.confidence_interval.high[c], one.confidence_interval.high,
                                   rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(many.standard_error[c], one.standard_error, rtol=1e-9,
                                   atol=1e-14)


def test_bootstrap_against_degenerate_input():
    for method in ("percentile", "bca"):
        r = bootstrap_mean(np.full(10, 0.1), n_resamples=100, seed=0, method=method)
        assert r.confidence_interval.low == r.confidence_interval.high == r.statistic
        assert r.standard_error == 0.0
        m = bootstrap_mean_many(np.c_[np.full(10, 0.1), np.arange(10.0)], n_resamples=100, seed=0,
                                method=method)
        assert m.confidence_interval.low[0] == m.confidence_interval.high[0] == m.statistic[0]
        assert m.standard_error[0] == 0.0
    with pytest.raises(InsufficientSampleError):
        bootstrap_mean([1.0], seed=0)
    with pytest.raises(InsufficientSampleError):
        bootstrap_mean_many(np.ones((1, 3)), seed=0)
    with pytest.raises(ValueError, match="x"):
        bootstrap_mean([1.0, np.nan], seed=0)
    with pytest.raises(ValueError, match="method"):
        bootstrap_mean([1.0, 2.0], method="basic")
    with pytest.raises(ValueError, match="confidence_level"):
        bootstrap_mean([1.0, 2.0], confidence_level=95)
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_mean([1.0, 2.0], n_resamples=1)


def test_percentile_interval_against_numpy_quantile():
    tb = np.random.default_rng(0).normal(size=(3, 1001))
    ci = percentile_interval(tb, confidence_level=0.9)
    np.testing.assert_allclose(ci.low, np.quantile(tb, 0.05, axis=1), rtol=1e-13)
    np.testing.assert_allclose(ci.high, np.quantile(tb, 0.95, axis=1), rtol=1e-13)
    one = percentile_interval(tb[0], confidence_level=0.9, alternative="greater")
    assert one.high == np.inf
    assert one.low == pytest.approx(np.quantile(tb[0], 0.1), rel=1e-13)


def test_bootstrap_mean_many_is_scipy_exact_per_index_stream():
    stats = pytest.importorskip("scipy.stats")
    x = np.random.default_rng(2).normal(size=50)
    idx = np.vstack(list(bootstrap_index_chunks(50, 999, seed=7)))
    ours = bootstrap_mean(x, n_resamples=999, seed=7)
    theirs = stats.bootstrap((x,), np.mean, n_resamples=999, rng=np.random.default_rng(7),
                             method="percentile")
    assert tuple(ours.confidence_interval) == tuple(theirs.confidence_interval)
    np.testing.assert_array_equal(np.sort(x[idx].mean(axis=1)),
                                  np.sort(theirs.bootstrap_distribution))
