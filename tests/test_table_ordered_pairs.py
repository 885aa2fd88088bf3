"""results_table and `pairedframe table` with pairs="ordered" (each pair compared both ways): a significant
pair is marked once, as with pairs="all", and no system is called the baseline."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app

DL19 = "llm_labels_dl/dl2019_runs"
RUNS = ("bm25base_p", "UNH_bm25", "p_bert")


def _ordered_table(per_query, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # "pairs='ordered' with a two-sided test ... conservative"
        return pf.results_table(per_query, pairs="ordered", n_resamples=999, seed=0, **kw)


def test_ordered_pairs_mark_each_significant_pair_once_against_the_holm_pvalues(four_systems_per_query):
    per_query = four_systems_per_query
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = pf.compare(per_query, pairs="ordered", n_resamples=999, seed=0)
    t = pf.results_table(per_query, cmp)
    letters = t.data.letters
    assert len(letters) == 4
    for row in t.table.iter_rows(named=True):
        wins = cmp.filter((pl.col("measure") == row["measure"]) & (pl.col("system") == row["system"])
                          & (pl.col("pvalue_holm") < 0.05) & (pl.col("delta") > 0))
        assert row["marks"] == "".join(sorted(letters[b] for b in wins["baseline"])), row
    assert any(t.table["marks"]), "no mark at all: the test would not see a repeated letter"


def test_ordered_pairs_label_no_system_the_baseline_and_say_both_ways(four_systems_per_query):
    t = _ordered_table(four_systems_per_query)
    for text in (t.to_markdown(), t.to_latex(), t.caption):
        assert "baseline" not in text.replace("delta", "")
    assert "each pair was compared both ways, and a significant pair is shown once" in t.caption
    plain = pf.results_table(four_systems_per_query, pairs="all", n_resamples=999, seed=0)
    assert "both ways" not in plain.caption


def test_cli_table_pairs_ordered_on_dl19_marks_each_pair_once_in_markdown_and_latex(shared_data):
    qrels = str(shared_data / "anserini_tools" / "qrels.dl19-passage.txt")
    runs = [str(shared_data / DL19 / f"input.{r}.gz") for r in RUNS]
    for fmt, want in (("markdown", ["<sup>b</sup>", "0.343 ", "<sup>ab</sup>"]),
                      ("latex", ["$^{\\mathrm{b}}$", "0.343\\hphantom", "$^{\\mathrm{ab}}$"])):
        res = CliRunner().invoke(app, ["table", qrels, *runs, "-m", "AP", "--pairs", "ordered", "-f", fmt])
        assert res.exit_code == 0, res.output
        rows = [line for line in res.stdout.splitlines() if line.startswith(("| (", "("))]
        assert len(rows) == 3 and all(w in r for w, r in zip(want, rows)), rows
        assert "baseline" not in res.stdout.replace("bm25base", "")


def test_ordered_pairs_beyond_26_systems_are_refused_before_comparing_or_evaluating(monkeypatch):
    """pairs="ordered" letters every system as "all" does, but only "all" was counted up front: 27 systems
    were compared (27 x 26 rows) before the letters failed."""
    import pairedframe.comparison
    import pairedframe.evaluation as evaluation

    def no_compare(*args, **kwargs):
        raise AssertionError("compared or evaluated before the letters were checked")
    monkeypatch.setattr(pairedframe.comparison, "compare", no_compare)
    monkeypatch.setattr(evaluation, "evaluate", no_compare)
    per_query = pl.DataFrame({"system": [f"s{i}" for i in range(27) for _ in range(3)],
                              "qid": [f"q{k}" for _ in range(27) for k in range(3)], "measure": "AP",
                              "value": [0.1 * (k + 1) for _ in range(27) for k in range(3)]})
    with pytest.raises(ValueError, match=r"pairs='ordered' letters every system .* at most 26 .* got 27"):
        pf.results_table(per_query, pairs="ordered")
    qrels, runs = pf.example.example_paths()
    named = [f"r{i}={runs[i % 2]}" for i in range(27)]
    res = CliRunner().invoke(app, ["table", str(qrels), *named, "-m", "AP", "--pairs", "ordered"])
    assert res.exit_code == 2 and "--pairs ordered letters every run" in res.output and "got 27 runs" in res.output
