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


def test_signflip_interval_at_alpha_note_says_p_equals_alpha():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = pf.compare_pair(A, A + D, measure="nDCG@10", alternative="greater", n_resamples=19, confidence_level=0.95,
                            interval="signflip")
    assert r.verdict == "inconclusive" and "p = 0.05 equals alpha" in r.verdict_note
    assert "is not the set of shifts" not in r.verdict_note
