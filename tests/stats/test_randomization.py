import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from pairedframe.errors import InsufficientSampleError
from pairedframe.stats.randomization import (sign_flip_pvalue_from_null, sign_flip_test,
                                             sign_flip_test_many)
from pairedframe.stats.resample import all_sign_patterns, sign_flip_chunks
from tests.reference import stats_reference as ref

finite = st.floats(-1, 1, allow_nan=False, allow_subnormal=False)
discrete = st.integers(-10, 10).map(lambda k: k / 10)
alternatives = st.sampled_from(["two-sided", "greater", "less"])


def _mean(x, axis=-1):
    return np.mean(x, axis=axis)


@settings(max_examples=30, deadline=None)
@given(d=arrays(np.float64, st.integers(2, 10), elements=st.one_of(finite, discrete)),
       alt=alternatives)
def test_exact_sign_flip_against_scipy_permutation_test(d, alt):
    stats = pytest.importorskip("scipy.stats")
    n = len(d)
    res = stats.permutation_test((d,), _mean, permutation_type="samples", vectorized=True,
                                 n_resamples=np.inf, alternative=alt)
    assert len(res.null_distribution) == 2 ** n
    ours = sign_flip_test(d, n_resamples=2 ** n, alternative=alt)
    assert ours.exact and ours.n_resamples == 2 ** n
    want = sign_flip_pvalue_from_null(res.null_distribution, res.statistic, alternative=alt,
                                      exact=True, scale=np.mean(np.abs(d)))
    assert ours.pvalue == pytest.approx(want, abs=1e-15)
    # the same null distribution as a multiset
    null = (all_sign_patterns(n) @ d) / n
    np.testing.assert_allclose(np.sort(null), np.sort(res.null_distribution), atol=1e-15)


def test_exact_one_sided_against_scipy_pvalue():
    stats = pytest.importorskip("scipy.stats")
    for seed in range(5):
        d = np.random.default_rng(seed).normal(0.3, 1, size=11)
        for alt in ("greater", "less"):
            res = stats.permutation_test((d,), _mean, permutation_type="samples",
                                         vectorized=True, n_resamples=np.inf, alternative=alt)
            assert sign_flip_test(d, n_resamples=4096, alternative=alt).pvalue == \
                pytest.approx(res.pvalue, abs=1e-15)


@settings(max_examples=30, deadline=None)
@given(d=arrays(np.float64, st.integers(1, 9), elements=st.one_of(finite, discrete)),
       alt=alternatives)
def test_exact_sign_flip_against_loop_reference(d, alt):
    pats = all_sign_patterns(len(d)).tolist()
    want = ref.sign_flip_p_loop(d.tolist(), pats, alt, exact=True)
    assert sign_flip_test(d, n_resamples=10_000, alternative=alt).pvalue == pytest.approx(
        want, abs=1e-15)


@settings(max_examples=30, deadline=None)
@given(d=arrays(np.float64, st.integers(8, 30), elements=st.one_of(finite, discrete)),
       b=st.integers(1, 120), seed=st.integers(0, 2**32), alt=alternatives)
def test_monte_carlo_sign_flip_against_loop_reference(d, b, seed, alt):
    assume(2 ** len(d) > b)              # fewer resamples than sign patterns: Monte Carlo, not exact
    signs = np.vstack(list(sign_flip_chunks(len(d), b, seed=seed))).tolist()
    want = ref.sign_flip_p_loop(d.tolist(), signs, alt, exact=False)
    res = sign_flip_test(d, n_resamples=b, alternative=alt, seed=seed)
    assert not res.exact and res.n_resamples == b
    assert res.pvalue == pytest.approx(want, abs=1e-15)
    assert 1 / (b + 1) <= res.pvalue <= 1


@settings(max_examples=30, deadline=None)
@given(d=arrays(np.float64, st.integers(1, 30), elements=st.one_of(finite, discrete)),
       b=st.integers(1, 300), seed=st.integers(0, 2**32))
def test_swap_against_negated_deltas(d, b, seed):
    r = sign_flip_test(d, n_resamples=b, seed=seed)
    s = sign_flip_test(-d, n_resamples=b, seed=seed)
    assert s.statistic == -r.statistic
    assert s.pvalue == r.pvalue
    g = sign_flip_test(d, n_resamples=b, seed=seed, alternative="greater")
    ls = sign_flip_test(-d, n_resamples=b, seed=seed, alternative="less")
    assert g.pvalue == ls.pvalue
    lo = 1 / (b + 1) if not r.exact else 1 / 2 ** len(d)
    assert lo <= r.pvalue <= 1 and lo <= g.pvalue <= 1


@settings(max_examples=25, deadline=None)
@given(D=arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(1, 5)),
                elements=st.one_of(finite, discrete)),
       b=st.integers(1, 400), seed=st.integers(0, 2**32), c1=st.integers(1, 500),
       c2=st.integers(1, 500), alt=alternatives)
def test_sign_flip_against_chunk_size_and_single_columns(D, b, seed, c1, c2, alt):
    m1 = sign_flip_test_many(D, n_resamples=b, seed=seed, chunk_size=c1, alternative=alt)
    m2 = sign_flip_test_many(D, n_resamples=b, seed=seed, chunk_size=c2, alternative=alt)
    np.testing.assert_array_equal(m1.pvalue, m2.pvalue)
    for c in range(D.shape[1]):
        one = sign_flip_test(D[:, c], n_resamples=b, seed=seed, chunk_size=c1, alternative=alt)
        assert one.pvalue == m1.pvalue[c]
        assert one.statistic == m1.statistic[c]


def test_sign_flip_against_degenerate_input():
    assert sign_flip_test(np.zeros(50), seed=0).pvalue == 1.0
    assert sign_flip_test(np.zeros(5)).pvalue == 1.0
    r = sign_flip_test(np.ones(50), n_resamples=999, seed=0)
    assert r.pvalue == pytest.approx(1 / 1000)  # never 0
    assert sign_flip_test([0.3], n_resamples=10).pvalue == 1.0  # n=1: two patterns, both tie
    with pytest.raises(InsufficientSampleError):
        sign_flip_test([])
    with pytest.raises(ValueError, match="alternative"):
        sign_flip_test([1.0, 2.0], alternative="two_sided")
    with pytest.raises(ValueError, match="d"):
        sign_flip_test([1.0, np.inf])
    with pytest.raises(TypeError, match="n_resamples"):
        sign_flip_test([1.0, 2.0], n_resamples=10.5)


def test_discrete_ties_against_exact_enumeration():
    # P@10-like deltas: many patterns tie exactly in real arithmetic
    d = np.array([0.1, 0.2, -0.1, 0.3, 0.1, -0.2, 0.1, 0.1, 0.2, -0.1, 0.3, 0.1])
    exact = sign_flip_test(d, n_resamples=2 ** len(d))
    assert exact.exact
    # count with exact integer arithmetic
    k = np.rint(d * 10).astype(int)
    null = all_sign_patterns(len(d)).astype(int) @ k
    want = np.count_nonzero(np.abs(null) >= abs(k.sum())) / 2 ** len(d)
    assert exact.pvalue == want
