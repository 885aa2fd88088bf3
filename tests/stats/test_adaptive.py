"""Adaptive sign-flip machinery: the multi-unit kernel against a plain loop, the Clopper-Pearson
intervals against scipy, the decisions against statsmodels, and the certified-decision guarantee
against known p-values."""

from __future__ import annotations

import numpy as np
import pytest

from pairedframe.comparison.streams import row_seeds
from pairedframe.stats.adaptive import (AdaptiveSchedule, adaptive_sign_flip, clopper_pearson,
                                        family_rejections)
from pairedframe.stats.randomization import sign_flip_test
from pairedframe.stats.sign_flip_units import splitmix64, unit_flip_counts
from tests.reference.segments_reference import unit_flip_count_reference


def _units(sizes, seed=0, discrete=False):
    rng = np.random.default_rng(seed)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    d = rng.normal(0.05, 0.3, offsets[-1])
    if discrete:                       # P@10-like deltas: exact ties between patterns
        d = np.round(d * 10) / 10
    keys = rng.integers(0, 2**63, len(sizes), dtype=np.int64).astype(np.uint64)
    return d, offsets, keys


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("discrete", [False, True])
def test_unit_flip_counts_against_plain_loop_reference(alternative, discrete):
    sizes = [2, 7, 8, 9, 64, 65, 130]
    d, offsets, keys = _units(sizes, seed=3, discrete=discrete)
    units = np.arange(len(sizes))
    got = unit_flip_counts(d, offsets, units, keys, 5, 205, alternative=alternative)
    for u in units:
        du = d[offsets[u]:offsets[u + 1]]
        assert got[u] == unit_flip_count_reference(du, int(keys[u]), 5, 205, alternative=alternative), sizes[u]
    small = units[:4]
    got = unit_flip_counts(d, offsets, small, None, 0, 4, alternative=alternative, exact=True)
    for u in small:
        du = d[offsets[u]:offsets[u + 1]]
        assert got[u] == unit_flip_count_reference(du, None, 0, 4, alternative=alternative, exact=True)


def test_unit_flip_counts_do_not_depend_on_rounds_chunks_or_other_units():
    sizes = [30, 100, 101, 12, 64, 200, 5, 77]
    d, offsets, keys = _units(sizes, seed=5, discrete=True)
    units = np.arange(len(sizes))
    whole = unit_flip_counts(d, offsets, units, keys, 0, 3000)
    split = (unit_flip_counts(d, offsets, units, keys, 0, 256)
             + unit_flip_counts(d, offsets, units, keys, 256, 1111)
             + unit_flip_counts(d, offsets, units, keys, 1111, 3000))
    np.testing.assert_array_equal(whole, split)
    knobs = unit_flip_counts(d, offsets, units[::-1], keys[::-1], 0, 3000, group_budget=3, chunk_elements=50)
    np.testing.assert_array_equal(whole, knobs[::-1])
    for u in units:
        alone = unit_flip_counts(d, offsets, np.array([u]), keys[u:u + 1], 0, 3000)
        assert alone[0] == whole[u]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_unit_exact_counts_against_sign_flip_test_enumeration(alternative):
    sizes = [3, 10, 16, 17]
    d, offsets, _ = _units(sizes, seed=9, discrete=True)
    for u, n in enumerate(sizes):
        got = unit_flip_counts(d, offsets, np.array([u]), None, 0, 2**n, alternative=alternative, exact=True)
        ref = sign_flip_test(d[offsets[u]:offsets[u + 1]], n_resamples=2**n, alternative=alternative)
        assert ref.exact
        assert got[0] / 2**n == ref.pvalue


def test_pattern_word_zero_is_the_segment_row_stream():
    keys = np.array([1, 2**63 + 12345, 987654321], dtype=np.uint64)
    rows = np.arange(50)
    words = splitmix64(keys[None, :], rows[:, None].astype(np.uint64))
    np.testing.assert_array_equal((words >> np.uint64(32)).astype(np.uint32), row_seeds(keys, rows))


def test_unit_flip_counts_rejects_out_of_range_patterns():
    d, offsets, keys = _units([10], seed=1)
    with pytest.raises(ValueError, match="2\\*\\*n"):
        unit_flip_counts(d, offsets, np.array([0]), None, 0, 2**10 + 1, exact=True)
    with pytest.raises(ValueError, match="2\\*\\*40"):
        unit_flip_counts(d, offsets, np.array([0]), keys, 0, 2**40 + 1)


def test_clopper_pearson_against_scipy_binomtest():
    scipy_stats = pytest.importorskip("scipy.stats")
    for k, n, err in [(0, 10, 0.05), (3, 10, 0.05), (10, 10, 0.01), (7, 5000, 1e-6), (4999, 5000, 1e-8),
                      (40, 2**27, 1e-9)]:
        low, high = clopper_pearson(k, n, err)
        ci = scipy_stats.binomtest(k, n).proportion_ci(confidence_level=1 - err, method="exact")
        assert low == pytest.approx(ci.low, rel=1e-5, abs=1e-300)   # scipy's root finder: ~1e-6 relative
        assert high == pytest.approx(ci.high, rel=1e-5)
        # the definition: each bound leaves err/2 of binomial probability beyond the observed count
        if k > 0:
            assert scipy_stats.binom.sf(k - 1, n, low) == pytest.approx(err / 2, rel=1e-6)
        if k < n:
            assert scipy_stats.binom.cdf(k, n, high) == pytest.approx(err / 2, rel=1e-6)
    # one success in 2**27 (scipy's root finder returns 0 here): the closed form 1 - (1 - err/2)**(1/n)
    low, high = clopper_pearson(1, 2**27, 1e-9)
    assert low == pytest.approx(-np.expm1(np.log1p(-0.5e-9) / 2**27), rel=1e-9)


@pytest.mark.parametrize("correction,method", [("bh", "fdr_bh"), ("holm", "holm")])
def test_family_rejections_against_statsmodels(correction, method):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(2)
    for _ in range(20):
        p = np.concatenate([rng.uniform(size=40), rng.uniform(0, 0.002, size=10)])
        expected = multitest.multipletests(p, alpha=0.05, method=method)[0]
        np.testing.assert_array_equal(family_rejections(p, correction, 0.05), expected)
    p = np.array([0.01, 0.04, 0.2])
    np.testing.assert_array_equal(family_rejections(p, "none", 0.04), [True, True, False])
    np.testing.assert_array_equal(family_rejections(p, "none", 0.04, strict=True), [True, False, False])


def test_schedule_checkpoints_and_options():
    assert AdaptiveSchedule(initial=256, growth=2, max_resamples=3000).checkpoints().tolist() == \
        [256, 512, 1024, 2048, 3000]
    assert AdaptiveSchedule(initial=100, growth=4, max_resamples=1600).checkpoints().tolist() == [100, 400, 1600]
    with pytest.raises(ValueError, match="max_resamples"):
        AdaptiveSchedule(initial=256, max_resamples=100)
    with pytest.raises(ValueError, match="growth"):
        AdaptiveSchedule(growth=1)
    with pytest.raises(ValueError, match="correction"):
        adaptive_sign_flip([10], [0], None, None, correction="bonferroni")
    with pytest.raises(ValueError, match="decision_error"):
        adaptive_sign_flip([10], [0], None, None, decision_error=1.5)


class _KnownP:
    """Monte-Carlo counts of tests with known exact p-values: test i's patterns are Bernoulli(p_i)
    draws from its own sequential stream (so counts over successive ranges add up)."""

    def __init__(self, p, seed):
        self.p = np.asarray(p)
        self.streams = [np.random.default_rng([seed, i]) for i in range(len(p))]
        self.position = np.zeros(len(p), dtype=np.int64)

    def count(self, tests, start, stop):
        out = np.empty(len(tests), dtype=np.int64)
        for j, t in enumerate(tests):
            assert self.position[t] == start
            out[j] = self.streams[t].binomial(stop - start, self.p[t])
            self.position[t] = stop
        return out


def _near_threshold_family(rng, correction, m=200, q=0.05):
    """p-values with 10 clear signals and six more within 10-30 % of the next threshold."""
    p = rng.uniform(size=m)
    p[:10] = rng.uniform(1e-7, 1e-5, 10)
    threshold = q * 11 / m if correction == "bh" else q / (m - 10)
    p[10:16] = threshold * np.array([0.7, 0.8, 0.9, 1.1, 1.2, 1.3]) * rng.uniform(0.97, 1.03, 6)
    return p


@pytest.mark.parametrize("correction", ["bh", "holm"])
def test_certified_decisions_wrong_at_most_decision_error_against_known_p(correction):
    """Over seeded families with p-values near the thresholds, the share of families with any wrong
    certified decision stays below decision_error (plus 3 Monte-Carlo SE), and uncertified tests are rare."""
    rng = np.random.default_rng(2024)
    reps, eps = 40, 0.2
    wrong = uncertified = 0
    for rep in range(reps):
        p = _near_threshold_family(rng, correction)
        truth = family_rejections(p, correction, 0.05)
        sampler = _KnownP(p, seed=rep)
        res = adaptive_sign_flip(np.full(p.shape, 100), np.zeros(p.shape, dtype=int), sampler.count,
                                 None, correction=correction, level=0.05, decision_error=eps,
                                 schedule=AdaptiveSchedule(initial=64, max_resamples=2**24))
        assert np.all((res.pvalue_low <= res.pvalue) & (res.pvalue <= res.pvalue_high))
        np.testing.assert_array_equal(res.rejected, family_rejections(res.pvalue, correction, 0.05))
        wrong += bool(np.any(res.certified & (res.rejected != truth)))
        uncertified += int(np.count_nonzero(~res.certified))
        assert res.resamples[10:16].min() > 10_000     # the near-threshold tests did need many patterns
    assert wrong / reps <= eps + 3 * np.sqrt(eps * (1 - eps) / reps)
    assert uncertified <= reps          # fewer than one open decision per family on average


def test_exact_units_are_enumerated_and_decided_exactly():
    sizes = [6, 8, 40]
    d, offsets, keys = _units(sizes, seed=11)
    d[offsets[2]:offsets[3]] += 0.4

    def count_mc(tests, start, stop):
        return unit_flip_counts(d, offsets, tests, keys[tests], start, stop)

    def count_exact(tests, n):
        return unit_flip_counts(d, offsets, tests, None, 0, 2**n, exact=True)

    res = adaptive_sign_flip(sizes, [0, 0, 0], count_mc, count_exact, correction="bh", level=0.05,
                             schedule=AdaptiveSchedule(initial=256, max_resamples=2**16))
    assert res.exact.tolist() == [True, True, False]
    assert res.resamples[:2].tolist() == [64, 256]
    for u in (0, 1):
        ref = sign_flip_test(d[offsets[u]:offsets[u + 1]], n_resamples=2**sizes[u])
        assert res.pvalue[u] == res.pvalue_low[u] == res.pvalue_high[u] == ref.pvalue
    assert res.certified.all()
