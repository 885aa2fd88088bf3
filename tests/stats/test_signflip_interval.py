"""The interval that inverts the sign-flip test (plain and clustered), the symmetric studentized interval and
the cluster-t interval: against plain reference implementations (hypothesis) and libraries where they exist."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from pairedframe.stats.cluster import cluster_sign_flip_test_many, cluster_summaries
from pairedframe.stats.cluster_interval import (cluster_robust_se, cluster_sign_flip_interval_many,
                                                cluster_t_interval)
from pairedframe.stats.levels import decision_alpha
from pairedframe.stats.randomization import sign_flip_test, sign_flip_test_many
from pairedframe.stats.resample import all_sign_patterns, bootstrap_index_chunks, sign_flip_chunks
from pairedframe.stats.signflip_interval import least_count, sign_flip_interval, sign_flip_interval_many
from pairedframe.stats.studentized import studentized_bootstrap_many
from tests.reference import stats_reference as ref

finite = st.floats(-1, 1, allow_nan=False, allow_subnormal=False)
discrete = st.integers(-10, 10).map(lambda k: k / 10)
alternatives = st.sampled_from(["two-sided", "greater", "less"])
values = st.one_of(finite, discrete)


@settings(max_examples=40, deadline=None)
@given(D=arrays(np.float64, st.tuples(st.integers(1, 20), st.integers(1, 4)), elements=values),
       alt=alternatives, B=st.sampled_from([5, 64, 300]), seed=st.integers(0, 2**32 - 1))
def test_pvalue_is_the_sign_flip_test_bit_for_bit(D, alt, B, seed):
    got = sign_flip_interval_many(D, n_resamples=B, alternative=alt, seed=seed)
    want = sign_flip_test_many(D, n_resamples=B, alternative=alt, seed=seed)
    np.testing.assert_array_equal(got.pvalue, want.pvalue)
    assert got.n_resamples == want.n_resamples
    np.testing.assert_array_equal(got.exact, want.exact)        # per column: few non-zero deltas enumerated
    np.testing.assert_array_equal(got.statistic, want.statistic)


@settings(max_examples=40, deadline=None)
@given(d=arrays(np.float64, st.integers(2, 9), elements=values), alt=alternatives,
       B=st.sampled_from([40, 99, 1000]), seed=st.integers(0, 2**32 - 1),
       level=st.sampled_from([0.8, 0.9, 0.95]))
def test_interval_against_the_definition(d, alt, B, seed, level):
    got = sign_flip_interval(d, n_resamples=B, alternative=alt, seed=seed, confidence_level=level)
    n = len(d)
    exact = 2 ** n <= B
    if exact:
        signs = all_sign_patterns(n).tolist()
    else:
        signs = np.concatenate(list(sign_flip_chunks(n, B, seed=np.random.default_rng(seed)))).tolist()
    low, high = ref.sign_flip_interval_loop(list(d), signs, level, alternative=alt, exact=exact)
    if math.isnan(low):      # the reference found no shift p >= alpha: cannot happen
        pytest.fail("reference interval empty")
    assert got.confidence_interval.low == pytest.approx(low, rel=1e-9, abs=1e-12)
    assert got.confidence_interval.high == pytest.approx(high, rel=1e-9, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(D=arrays(np.float64, st.tuples(st.integers(1, 25), st.integers(1, 3)), elements=values),
       alt=alternatives, B=st.sampled_from([19, 199, 5000]), seed=st.integers(0, 2**32 - 1),
       level=st.sampled_from([0.5, 0.9, 0.95, 0.99]))
def test_interval_excludes_zero_exactly_when_the_test_rejects(D, alt, B, seed, level):
    r = sign_flip_interval_many(D, n_resamples=B, alternative=alt, seed=seed, confidence_level=level)
    low, high = r.confidence_interval
    inside = (low <= 0) & (0 <= high)
    np.testing.assert_array_equal(inside, r.pvalue >= decision_alpha(level))   # alpha without float noise
    if alt == "two-sided":      # every pattern's set contains the mean (one-sided sets need not)
        assert np.all(low <= r.statistic + 1e-12) and np.all(r.statistic - 1e-12 <= high)


@settings(max_examples=20, deadline=None)
@given(D=arrays(np.float64, st.tuples(st.integers(10, 40), st.integers(1, 3)), elements=values),
       seed=st.integers(0, 2**32 - 1), chunk=st.integers(1, 97))
def test_interval_independent_of_chunk_size_and_of_other_columns(D, seed, chunk):
    full = sign_flip_interval_many(D, n_resamples=500, seed=seed)
    chunked = sign_flip_interval_many(D, n_resamples=500, seed=seed, chunk_size=chunk)
    np.testing.assert_array_equal(full.confidence_interval.low, chunked.confidence_interval.low)
    np.testing.assert_array_equal(full.confidence_interval.high, chunked.confidence_interval.high)
    one = sign_flip_interval(D[:, 0], n_resamples=500, seed=seed)
    assert one.confidence_interval.low == full.confidence_interval.low[0]
    assert one.pvalue == full.pvalue[0]


def test_exact_interval_on_a_grid_of_shifts():
    d = np.array([0.31, -0.05, 0.12, 0.4, 0.0, 0.22, -0.11, 0.09])
    r = sign_flip_interval(d, n_resamples=10_000)
    assert r.exact and r.n_resamples == 256
    for g in np.linspace(-0.2, 0.4, 601):
        p = sign_flip_test(d - g, n_resamples=10_000).pvalue
        if abs(g - r.confidence_interval.low) > 1e-9 and abs(g - r.confidence_interval.high) > 1e-9:
            assert (p >= 0.05) == (r.confidence_interval.low <= g <= r.confidence_interval.high), g


def test_degenerate_inputs():
    assert least_count(0.05, 256, True) == 13 and least_count(0.05, 999, False) == 49
    assert least_count(1 - 0.95, 999, False) == 50      # alpha = 0.05000000000000004 in floats
    z = sign_flip_interval(np.zeros(10))
    assert (z.pvalue, z.confidence_interval.low, z.confidence_interval.high) == (1.0, 0.0, 0.0)
    five = sign_flip_interval(np.full(5, 0.2))             # 2/32 > 0.05: nothing can be rejected
    assert tuple(five.confidence_interval) == (-math.inf, math.inf)
    six = sign_flip_interval(np.full(6, 0.2))
    assert six.confidence_interval.low == pytest.approx(0.2) and six.confidence_interval.high == pytest.approx(0.2)
    few = sign_flip_interval(np.array([0.1, 0.3, 0.2]), n_resamples=10)   # 1/(B+1) >= alpha
    assert tuple(few.confidence_interval) == (-math.inf, math.inf)


# ---------------------------------------------------------------- clusters

@settings(max_examples=30, deadline=None)
@given(data=st.data(), alt=alternatives, B=st.sampled_from([64, 500]), seed=st.integers(0, 2**32 - 1))
def test_cluster_interval_against_the_test_and_the_definition(data, alt, B, seed):
    G = data.draw(st.integers(2, 9))
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=G, max_size=G))
    n = sum(sizes)
    X = data.draw(arrays(np.float64, (n, 2), elements=values))
    labels = np.repeat(np.arange(G), sizes)
    got = cluster_sign_flip_interval_many(X, labels, n_resamples=B, alternative=alt, seed=seed)
    want = cluster_sign_flip_test_many(X, labels, n_resamples=B, alternative=alt, seed=seed)
    np.testing.assert_array_equal(got.pvalue, want.pvalue)
    sums, sz = cluster_summaries(X, labels)
    exact = 2 ** G <= B
    signs = (all_sign_patterns(G) if exact else
             np.concatenate(list(sign_flip_chunks(G, B, seed=np.random.default_rng(seed))))).tolist()
    for c in range(2):
        low, high = ref.sign_flip_interval_loop(list(sums[:, c]), signs, alternative=alt, exact=exact,
                                                weights=list(sz), p0=float(got.pvalue[c]))
        assert got.confidence_interval.low[c] == pytest.approx(low, rel=1e-9, abs=1e-12)
        assert got.confidence_interval.high[c] == pytest.approx(high, rel=1e-9, abs=1e-12)
    inside = (got.confidence_interval.low <= 0) & (0 <= got.confidence_interval.high)
    np.testing.assert_array_equal(inside, got.pvalue >= 0.05)


def test_cluster_t_interval_against_statsmodels_cluster_robust_ols():
    """Equal cluster sizes, where the CR2 SE is statsmodels' CR1 and Bell-McCaffrey's df are G - 1
    (unequal sizes: tests/test_clustered.py checks CR2 against explicit matrices)."""
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(5)
    sizes = np.full(12, 3)
    labels = np.repeat(np.arange(12), sizes)
    y = np.repeat(rng.normal(0, 0.1, 12), sizes) + rng.normal(0.03, 0.1, labels.size)
    fit = sm.OLS(y, np.ones(y.size)).fit(cov_type="cluster", cov_kwds={"groups": labels}, use_t=True)
    sums, sz = cluster_summaries(y, labels)
    se = cluster_robust_se(sums, sz)
    assert se == pytest.approx(fit.bse[0], rel=1e-12)
    ci = cluster_t_interval(sums.sum() / sz.sum(), se, 12)
    np.testing.assert_allclose([ci.low, ci.high], fit.conf_int(alpha=0.05)[0], rtol=1e-12)
    # one query per cluster: the CR1 SE is sd / sqrt(n) and cluster-t is scipy's one-sample t interval
    stats = pytest.importorskip("scipy.stats")
    s1, z1 = cluster_summaries(y, np.arange(y.size))
    ci1 = cluster_t_interval(y.mean(), cluster_robust_se(s1, z1), y.size)
    want = stats.ttest_1samp(y, 0).confidence_interval(0.95)
    np.testing.assert_allclose([ci1.low, ci1.high], [want.low, want.high], rtol=1e-12)


# ---------------------------------------------------------------- studentized

rounded = st.one_of(finite.map(lambda v: round(v, 9)), discrete)     # no squares underflowing to 0


@settings(max_examples=30, deadline=None)
@given(X=arrays(np.float64, st.tuples(st.integers(2, 12), st.integers(1, 3)), elements=rounded),
       alt=alternatives, seed=st.integers(0, 2**32 - 1), B=st.sampled_from([30, 199]))
def test_studentized_interval_against_plain_loops(X, alt, seed, B):
    """The default (resample SEs floored at half the sample's, quantile capped at 1.5 x scipy.stats.t's),
    each rule alone, and Hall's bootstrap-t, against loops."""
    from pairedframe.stats.studentized import zero_spread
    idx = np.concatenate(list(bootstrap_index_chunks(X.shape[0], B, seed=np.random.default_rng(seed))))
    flat = zero_spread(X)
    for floor, cap in ((0.5, 1.5), (None, 1.5), (0.5, None), (None, None)):
        got = studentized_bootstrap_many(X, n_resamples=B, alternative=alt, seed=seed, min_se_ratio=floor,
                                         max_quantile_ratio=cap)
        for c in range(X.shape[1]):
            if flat[c]:
                continue
            low, high = ref.studentized_interval_loop(list(X[:, c]), idx.tolist(), alternative=alt,
                                                      max_quantile_ratio=cap, min_se_ratio=floor)
            # near-constant resamples (values 1e-9 apart) amplify rounding into T*: 1e-6 relative
            assert got.confidence_interval.low[c] == pytest.approx(low, rel=1e-6, abs=1e-12)
            assert got.confidence_interval.high[c] == pytest.approx(high, rel=1e-6, abs=1e-12)


def test_studentized_is_symmetric_about_the_mean_and_wider_than_t_for_skewed_data():
    stats = pytest.importorskip("scipy.stats")
    x = np.random.default_rng(0).exponential(0.1, 25) - 0.05
    r = studentized_bootstrap_many(x[:, None], n_resamples=4000, seed=1)
    lo, hi = r.confidence_interval.low[0], r.confidence_interval.high[0]
    assert (lo + hi) / 2 == pytest.approx(x.mean(), abs=1e-15)
    t = stats.ttest_1samp(x, 0).confidence_interval(0.95)
    assert hi - lo > t.high - t.low
    assert r.standard_error[0] == pytest.approx(x.std(ddof=1) / 5, rel=1e-12)
