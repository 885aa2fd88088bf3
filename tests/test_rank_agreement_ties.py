"""rank_agreement's tie rule: means equal in exact arithmetic tie though float sums leave them an ulp
apart (values added in another order, 1/10 + 2/10 beside 3/20 + 3/20); oracles scipy's kendalltau /
spearmanr on the exact means (fractions) and the expected RBO over random tie-breaking."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
import scipy.stats as sps

import pairedframe as pf
from pairedframe.stats.rank_agreement import agreement_coefficients_many, rbo_orderings_many, tie_rounded
from pairedframe.stats.rbo import rbo

MEASURE = "nDCG@10"


def _table(values_by_system: dict[str, list]) -> pl.DataFrame:
    rows = [(system, f"q{i}", MEASURE, float(v)) for system, values in values_by_system.items()
            for i, v in enumerate(values)]
    return pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")


def _exact_means(values_by_system: dict[str, list]) -> dict[str, float]:
    """Each system's mean in exact rational arithmetic (of Fractions, or of the floats as given)."""
    return {s: float(sum(Fraction(v) for v in values) / len(values)) for s, values in values_by_system.items()}


def _agreement(a: dict, b: dict):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # few queries: SmallSampleWarning on the intervals
        return pf.rank_agreement(_table(a), _table(b), measure=MEASURE)


def _assert_matches_scipy(result, a: dict, b: dict) -> None:
    systems = sorted(a)
    ma, mb = _exact_means(a), _exact_means(b)
    x, y = [ma[s] for s in systems], [mb[s] for s in systems]
    assert result.kendall_tau_b.statistic == pytest.approx(sps.kendalltau(x, y).statistic, abs=1e-12)
    assert result.spearman_rho.statistic == pytest.approx(sps.spearmanr(x, y).statistic, abs=1e-12)
    swapped = {(sx, sy) for sx in systems for sy in systems if ma[sx] > ma[sy] and mb[sx] < mb[sy]}
    assert set(result.swapped.select("system_x", "system_y").rows()) == swapped


# Under b, X and Y hold the same values in another query order: 0.1 + 0.2 + 0.3 is 0.6000000000000001
# added in that order and 0.6 added backwards, so X's float mean is an ulp above Y's.
SAME_VALUES_OTHER_ORDER_A = {"W": [0.9, 0.9, 0.8], "X": [0.4, 0.5, 0.3], "Y": [0.5, 0.5, 0.5], "Z": [0.1, 0.2, 0.0]}
SAME_VALUES_OTHER_ORDER_B = {"W": [0.8, 0.9, 1.0], "X": [0.1, 0.2, 0.3], "Y": [0.3, 0.2, 0.1], "Z": [0.0, 0.1, 0.05]}


def test_rank_agreement_ties_means_summed_in_another_order_against_scipy():
    a, b = SAME_VALUES_OTHER_ORDER_A, SAME_VALUES_OTHER_ORDER_B
    assert sum(b["X"]) != sum(b["Y"])            # the float sums do split the tie
    r = _agreement(a, b)
    _assert_matches_scipy(r, a, b)
    assert r.n_swapped == 0                      # a orders Y above X, b ties them: no swap
    ranks = dict(zip(r.means["system"], r.means["rank_b"]))
    assert ranks["X"] == ranks["Y"] == 2


def test_rank_agreement_ties_means_equal_in_rational_arithmetic_against_scipy():
    # P@20-like values: 1/10 + 2/10 and 3/20 + 3/20 are both 3/10, but not in floats (0.30000000000000004)
    tenth, p20 = Fraction(1, 10), Fraction(3, 20)
    a = {"S": [1, 1], "T": [0.5, 0.75], "U": [0.25, 0.5], "V": [0, 0.25]}
    b = {"S": [1, 1], "T": [p20, p20], "U": [tenth, 2 * tenth], "V": [0, tenth]}
    assert float(tenth) + float(2 * tenth) != float(p20) + float(p20)
    r = _agreement(a, {s: [float(v) for v in vs] for s, vs in b.items()})
    _assert_matches_scipy(r, a, b)
    assert r.n_swapped == 0


def test_rank_agreement_rbo_averages_over_tied_means_against_expected_rbo():
    a, b = SAME_VALUES_OTHER_ORDER_A, SAME_VALUES_OTHER_ORDER_B
    r = _agreement(a, b)
    systems = sorted(a)
    ma, mb = _exact_means(a), _exact_means(b)
    expected = rbo_orderings_many([[ma[s] for s in systems]], [[mb[s] for s in systems]], p=0.9)[0]
    assert r.rbo.statistic == pytest.approx(expected, abs=1e-12)
    # either way of breaking the X-Y tie gives another value: the tie is what is averaged
    for b_order in (["W", "X", "Y", "Z"], ["W", "Y", "X", "Z"]):
        assert rbo(["W", "Y", "X", "Z"], b_order, p=0.9).rbo_ext != pytest.approx(expected, abs=1e-6)


def test_agreement_coefficients_tie_means_an_ulp_apart():
    exact = np.array([[0.9, 0.2, 0.2, 0.05]])
    split = exact.copy()
    split[0, 1] = np.nextafter(0.2, 1.0)
    reference = np.array([[0.85, 0.4, 0.5, 0.1]])
    tied, untied = (agreement_coefficients_many(reference, m) for m in (exact, split))
    for name, value in tied.items():
        assert untied[name] == pytest.approx(value, abs=1e-15), name
    assert tied["kendall_tau_b"][0] == pytest.approx(sps.kendalltau(reference[0], exact[0]).statistic)


def test_tie_rounded_keeps_distinct_means_in_order_and_ties_cancelled_zero():
    means = np.array([[0.3, 0.1 + 0.2, 0.30001, 1e-17, 0.0, -0.25]])
    rounded = tie_rounded(means)[0]
    assert rounded[0] == rounded[1] and rounded[3] == rounded[4] == 0.0
    assert rounded[2] > rounded[0] > rounded[3] > rounded[5]
    assert np.all(np.abs(rounded - means[0]) <= 1e-12)


DL19_RUNS = ["TUW19-p3-f", "bm25tuned_prf_p", "srchvrs_ps_run1", "idst_bert_p1", "p_exp_rm3_bert",
             "srchvrs_ps_run2", "bm25base_p"]


def test_rank_agreement_means_match_summary_and_ties_hold_on_dl2019(shared_data):
    """DL-2019 under NIST and Llama-3.3-70B labels, P@5: three runs have 41.6/43 relevant in the top 5
    under Llama, whose summary means differ in the last bit (0.9674418604651163 vs ...162)."""
    base = shared_data / "llm_labels_dl"
    runs = [base / "dl2019_runs" / f"input.{name}.gz" for name in DL19_RUNS]
    qrels = {"nist": shared_data / "anserini_tools" / "qrels.dl19-passage.txt",
             "llama": base / "results" / "dl2019_test_4prompts_llama70b.txt"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        js = pf.evaluate_judgment_sets([str(r) for r in runs], {k: str(v) for k, v in qrels.items()},
                                       measures=["P.5"])
        r = pf.rank_agreement(js, measure="P@5", judgments=("nist", "llama"))
    summary = js.summary()
    for side, column in (("nist", "mean_a"), ("llama", "mean_b")):
        expected = dict(summary.filter(pl.col("judgments") == side).select("system", "value").iter_rows())
        assert dict(zip(r.means["system"], r.means[column])) == expected      # bit for bit
    llama = dict(summary.filter(pl.col("judgments") == "llama").select("system", "value").iter_rows())
    assert llama["TUW19-p3-f"] != llama["bm25tuned_prf_p"]                  # the float means split the tie
    nist = dict(summary.filter(pl.col("judgments") == "nist").select("system", "value").iter_rows())
    systems = sorted(nist)
    # the oracle: the summary's means to 12 digits (P@5 over 43 queries is k / 215, far coarser)
    x, y = [round(nist[s], 12) for s in systems], [round(llama[s], 12) for s in systems]
    assert r.kendall_tau_b.statistic == pytest.approx(sps.kendalltau(x, y).statistic, abs=1e-12)
    assert r.spearman_rho.statistic == pytest.approx(sps.spearmanr(x, y).statistic, abs=1e-12)
    ranks = dict(zip(r.means["system"], r.means["rank_b"]))
    assert ranks["TUW19-p3-f"] == ranks["bm25tuned_prf_p"] == ranks["srchvrs_ps_run1"]
