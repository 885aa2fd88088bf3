"""p equal to alpha is never significant, at every confidence level (no float noise in 1 - level)."""

import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.stats.levels import decision_alpha

# (confidence_level, B): 30 positive deltas give the Monte-Carlo floor p = 1 / (B + 1) = alpha
AT_ALPHA = [(0.95, 19), (0.99, 99), (0.90, 9), (0.75, 3)]
RNG = np.random.default_rng(0)
A = RNG.uniform(0.1, 0.5, 30)
D = RNG.uniform(0.01, 0.2, 30)
FRAME = pl.DataFrame({"system": ["base"] * 30 + ["new"] * 30, "qid": [f"q{i}" for i in range(30)] * 2,
                      "measure": "nDCG@10", "value": np.r_[A, A + D]})


def test_decision_alpha_removes_float_noise():
    assert [decision_alpha(c) for c in (0.95, 0.99, 0.9, 0.75)] == [0.05, 0.01, 0.1, 0.25]


@pytest.mark.parametrize("cl,B", AT_ALPHA)
def test_pvalue_equal_to_alpha_is_not_significant_in_compare_pair(cl, B):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = pf.compare_pair(A, A + D, measure="nDCG@10", alternative="greater", n_resamples=B, confidence_level=cl)
    assert r.pvalue == pytest.approx(1 / (B + 1)) and r.pvalue == decision_alpha(cl)
    assert r.verdict == "inconclusive"


@pytest.mark.parametrize("cl,B", AT_ALPHA)
def test_pvalue_equal_to_alpha_is_not_significant_in_compare(cl, B):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = pf.compare(FRAME, baseline="base", alternative="greater", n_resamples=B, confidence_level=cl)
    assert c["verdict"].to_list() == ["inconclusive"]


@pytest.mark.parametrize("cl,B", AT_ALPHA)
def test_pvalue_equal_to_alpha_gives_no_mark_in_results_table(cl, B):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        md = pf.results_table(FRAME, baseline="base", alternative="greater", n_resamples=B,
                              confidence_level=cl).to_markdown()
    assert "<sup>†</sup>" not in md and "No cell is marked" in md


@pytest.mark.parametrize("cl,B", [(0.95, 20), (0.99, 100), (0.90, 10), (0.75, 4)])
def test_one_more_resample_than_at_alpha_is_significant(cl, B):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = pf.compare_pair(A, A + D, measure="nDCG@10", alternative="greater", n_resamples=B, confidence_level=cl)
    assert r.verdict == "better"


@pytest.mark.parametrize("cl,B,want", [(0.90, 9, 10), (0.95, 19, 20), (0.99, 99, 100)])
def test_too_few_resamples_advice_is_the_least_that_can_be_significant(cl, B, want):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = pf.compare_pair(A, A + D, measure="nDCG@10", alternative="greater", n_resamples=B, confidence_level=cl)
    advice = {int(s.split(">=")[1].split()[0].rstrip(";")) for s in r.verdict_note.split("n_resamples >= ")[1:]
              for s in ["n_resamples >= " + s]}
    assert advice == {want}
    assert pf.compare_pair(A, A + D, measure="nDCG@10", alternative="greater", n_resamples=want,
                           confidence_level=cl).verdict == "better"


def test_signflip_interval_at_alpha_holds_zero_in_compare_pair():
    """p = alpha is not significant, and the inverted interval holds every shift whose p is not below
    alpha, so it holds 0: interval and verdict agree, no note about a disagreement."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = pf.compare_pair(A, A + D, measure="nDCG@10", alternative="greater", n_resamples=19, confidence_level=0.95,
                            interval="signflip")
    assert r.pvalue == 0.05 and r.verdict == "inconclusive"
    assert r.confidence_interval.low <= 0
    assert "excludes 0" not in (r.verdict_note or "")


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_signflip_interval_at_alpha_holds_zero_in_compare(alternative):
    """B = 19 on 30 positive deltas: p = 1/20 = 0.05 = alpha at 95 % (no draw is as extreme)."""
    cl = 0.95
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = pf.compare(FRAME, baseline="base", alternative=alternative, n_resamples=19, confidence_level=cl,
                       interval="signflip", correction="none").row(0, named=True)
    assert c["pvalue"] == decision_alpha(cl) and c["verdict"] == "inconclusive"
    assert c["ci_low"] <= 0 <= c["ci_high"]


def test_segments_at_alpha_are_not_significant_and_their_interval_holds_zero():
    """compare_segments: one segment, B = 19, 30 positive deltas -> p = 0.05 = alpha: not significant
    (strictly below, as compare), its sign-flip interval holds 0, and it is resolution-limited (its p is
    its floor); with B = 20 it is significant and the interval excludes 0."""
    q = [f"q{i}" for i in range(30)]
    seg = pl.DataFrame({"qid": q, "segment_set": "all", "segment": "s"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        at = pf.compare_segments(FRAME, seg, baseline="base", n_resamples=19, alternative="greater").row(0, named=True)
        above = pf.compare_segments(FRAME, seg, baseline="base", n_resamples=20, alternative="greater").row(0, named=True)
    assert at["pvalue"] == 0.05 and at["pvalue_bh"] == 0.05
    assert at["significant"] is False and at["ci_low"] <= 0
    assert at["resolution_limited"] is True and at["min_discoveries"] is None
    assert above["significant"] is True and above["ci_low"] > 0


def test_segments_significance_at_alpha_two_sided_reproducer():
    """The reviewer's case: two-sided, B = 19, 30 gains: p = 1/20 = 0.05 = alpha at 95 %."""
    rng = np.random.default_rng(1)
    n = 30
    a = rng.uniform(0, .5, n)
    b = a + np.abs(rng.normal(.1, .05, n))
    q = [f"q{i}" for i in range(n)]
    df = pl.DataFrame({"system": ["a"] * n + ["b"] * n, "qid": q + q, "measure": "nDCG@10", "value": np.r_[a, b]})
    seg = pl.DataFrame({"qid": q, "segment_set": "all", "segment": "s"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = pf.compare_segments(df, seg, baseline="a", n_resamples=19).row(0, named=True)
    assert r["pvalue"] == 0.05
    assert r["significant"] is False and r["ci_low"] <= 0 <= r["ci_high"]


@pytest.mark.parametrize("alternative,cl,B", [("greater", 0.95, 19), ("two-sided", 0.95, 19), ("greater", 0.99, 99)])
def test_stats_sign_flip_interval_holds_a_shift_whose_p_equals_alpha(alternative, cl, B):
    """The kernels: p = decision_alpha(cl) exactly, and 0 is inside -- low <= 0 <= high iff p >= alpha,
    alpha without float noise (1 - 0.95 = 0.05000000000000004 excluded it)."""
    from pairedframe.stats.cluster_interval import cluster_sign_flip_interval_many
    from pairedframe.stats.signflip_interval import sign_flip_interval, sign_flip_interval_many

    one = sign_flip_interval(D, n_resamples=B, confidence_level=cl, alternative=alternative, seed=0)
    many = sign_flip_interval_many(np.c_[D, D], n_resamples=B, confidence_level=cl, alternative=alternative, seed=0)
    assert one.pvalue == decision_alpha(cl) and one.confidence_interval.low <= 0 <= one.confidence_interval.high
    assert np.all(many.pvalue == decision_alpha(cl)) and np.all(many.confidence_interval.low <= 0)
    cl_res = cluster_sign_flip_interval_many(D[:, None], np.arange(D.size), n_resamples=B, confidence_level=cl,
                                             alternative=alternative, seed=0)
    assert np.all(cl_res.pvalue == decision_alpha(cl)) and np.all(cl_res.confidence_interval.low <= 0)
