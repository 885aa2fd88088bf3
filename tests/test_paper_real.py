"""Issue 11 acceptance on TREC DL-2019 (17 runs of llm_labels_dl + the 3 ICT runs of syndl, NIST qrels,
LLM qrels): the data README's Kendall tau (.842 / .874 / .895 / .832) and kappa values, one call each."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import pairedframe as pf

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]

#: The four LLM label sets of the data README's tau sentence, and the file each one is.
LLM_LABELS = {
    "llama70b": "dl2019_test_4prompts_llama70b.txt",
    "4_prompts": "4_prompts_dl2019.txt",
    "flant5large": "dl2019_test_4prompts_flant5large.txt",
    "sun_then_decomposed": "dl2019_sun_then_decomposed_relavance_qrel.txt",
}
README_TAU = {"llama70b": 0.842, "4_prompts": 0.874, "flant5large": 0.895, "sun_then_decomposed": 0.832}
# kappa on 4 grades / on binary labels (grade >= 2), data README
README_KAPPA = {"llama70b": (0.167, 0.388), "4_prompts": (0.124, 0.213), "flant5large": (0.227, 0.322)}


def dl19_paths(root: Path) -> tuple[list[str], Path]:
    runs = sorted((root / "llm_labels_dl" / "dl2019_runs").glob("input.*.gz"))
    ict = root / "syndl" / "TREC-DLs-files" / "TREC-DL-2019" / "passages-runs"
    runs += [ict / r for r in ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50")]
    nist = root / "anserini_tools" / "qrels.dl19-passage.txt"
    if len(runs) != 20 or not all(r.exists() for r in runs) or not nist.exists():
        pytest.skip("DL-2019 runs or NIST qrels missing from the shared data")
    return [str(r) for r in runs], nist


@pytest.fixture(scope="module")
def dl19_judgment_sets(shared_data):
    runs, nist = dl19_paths(shared_data)
    labels = {name: shared_data / "llm_labels_dl" / "results" / f for name, f in LLM_LABELS.items()}
    if not all(p.exists() for p in labels.values()):
        pytest.skip("LLM label files missing from the shared data")
    return pf.evaluate_judgment_sets(runs, {"nist": nist, **labels}, "nDCG@10")


@pytest.mark.parametrize("name", sorted(README_TAU))
def test_dl19_kendall_tau_nist_vs_llm_labels_as_in_the_data_readme(dl19_judgment_sets, name):
    r = pf.rank_agreement(dl19_judgment_sets, measure="nDCG@10", judgments=("nist", name), n_resamples=2000)
    assert r.n_systems == 20 and r.n_queries == 43
    assert round(r.kendall_tau_b.statistic, 3) == README_TAU[name]
    low, high = r.kendall_tau_b.confidence_interval
    assert low < r.kendall_tau_b.statistic < high
    # 190 pairs; tau_b without ties = 1 - 2 * swapped / 190
    assert r.n_swapped == pytest.approx((1 - r.kendall_tau_b.statistic) / 2 * 190, abs=1.5)
    assert -1 <= r.tau_ap.statistic <= 1 and 0 <= r.rbo.statistic <= 1


@pytest.mark.parametrize("name", sorted(README_KAPPA))
def test_dl19_cohen_kappa_nist_vs_llm_labels_as_in_the_data_readme(shared_data, name):
    nist = shared_data / "anserini_tools" / "qrels.dl19-passage.txt"
    llm = shared_data / "llm_labels_dl" / "results" / LLM_LABELS[name]
    if not (nist.exists() and llm.exists()):
        pytest.skip("DL-2019 qrels missing from the shared data")
    la = pf.label_agreement(nist, llm, names=("nist", name), binary_at=2)
    assert (round(la.kappa, 3), round(la.kappa_binary, 3)) == README_KAPPA[name]
    assert la.n_common == 9260 and la.missing_from_a == 0 and la.missing_from_b == 0


def test_dl19_results_table_17_runs_two_baselines_latex_and_markdown(shared_data, tmp_path):
    runs = sorted((shared_data / "llm_labels_dl" / "dl2019_runs").glob("input.*.gz"))
    nist = shared_data / "anserini_tools" / "qrels.dl19-passage.txt"
    if len(runs) != 17 or not nist.exists():
        pytest.skip("DL-2019 runs or NIST qrels missing from the shared data")
    ev = pf.evaluate([str(r) for r in runs], nist, ["nDCG@10", "AP", "RR@10"])
    baselines = ["bm25base_p", "bm25base_ax_p"]
    cmp = pf.compare(ev, baseline=baselines, n_resamples=10_000, seed=0)
    table = pf.results_table(ev, cmp)
    frame = table.table
    assert frame.height == 17 * 3 and table.data.letters == {"bm25base_p": "a", "bm25base_ax_p": "b"}
    # every mark is a significant Holm-adjusted win (letters) or loss (letters after ‡) against that baseline,
    # and every such win and loss is marked
    for r in frame.iter_rows(named=True):
        sig = cmp.filter((pl.col("measure") == r["measure"]) & (pl.col("pvalue_holm") < 0.05))
        won = [*sig.filter((pl.col("system") == r["system"]) & (pl.col("delta") > 0))["baseline"],
               *sig.filter((pl.col("baseline") == r["system"]) & (pl.col("delta") < 0))["system"]]  # baselines: once
        lost = [*sig.filter((pl.col("system") == r["system"]) & (pl.col("delta") < 0))["baseline"],
                *sig.filter((pl.col("baseline") == r["system"]) & (pl.col("delta") > 0))["system"]]
        worse = "".join(sorted(table.data.letters[b] for b in lost if b in table.data.letters))
        assert r["marks"] == "".join(sorted(table.data.letters[b] for b in won if b in table.data.letters)) \
            + ("‡" + worse if worse else "")
    # trec_eval numbers (data README: idst_bert_p1 .7645, p_bert .7380, bm25base_p .5058 nDCG@10)
    nd = {r["system"]: r for r in frame.filter(pl.col("measure") == "nDCG@10").iter_rows(named=True)}
    assert (round(nd["idst_bert_p1"]["mean"], 4), round(nd["p_bert"]["mean"], 4), round(nd["bm25base_p"]["mean"], 4)) \
        == (0.7645, 0.7380, 0.5058)
    assert nd["idst_bert_p1"]["place"] == 1 and nd["idst_bert_p1"]["marks"] == "ab"
    markdown = table.to_markdown()
    assert sum(line.startswith("| ") and not line.startswith("| -") for line in markdown.splitlines()) == 1 + 17 and "| idst_bert_p1 " in markdown and "**0.764**<sup>ab</sup>" in markdown
    pytest.importorskip("great_tables")
    latex = table.to_latex()
    assert latex.count(r" \\" + "\n") == 1 + 17 and r"\textbf{0.764}\rlap{$^{\mathrm{ab}}$}" in latex
    assert "over 43 queries" in table.caption
