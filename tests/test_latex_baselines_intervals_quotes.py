"""An outside tester's LaTeX faults: compare's notes against several baselines named no baseline (two different notes
for ``p_bert / RR(rel=2)@10``), a one-sided interval printed a closed bracket at infinity (``[-0.0343, ∞]``), a measure
name's straight quote printed curly (``nDCG(dcg=’exp-log2’)@10``), and ``segments -f latex`` printed Python's
True / False and an empty line below each one-query segment."""

from __future__ import annotations

import math
import re
import warnings
from dataclasses import replace

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.cli.segments_latex import segments_latex
from pairedframe.report.compare import format_comparison
from pairedframe.report.table_latex import latex_escape
from tests.test_latex_height import _estimated_height, _in_float, _measured_heights
from tests.test_latex_names_and_pvalues import _pdf_text
from tests.test_table_renderings import _per_query

runner = CliRunner()
#: The outside tester's runs (TREC DL-2019 passage) compared with --pairs all.
DL19_RUNS = ("bm25base_p", "idst_bert_p1", "p_bert", "runid2", "srchvrs_ps_run2")


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                # few queries, skewed deltas: not tested here
        return call(*args, **kwargs)


def _note_names(text: str) -> list[str]:
    """The ``(...)`` of each ``note (...): `` line of a rendering (LaTeX ``%``, markdown ``-`` or the terminal)."""
    return re.findall(r"^(?:% |- )?note \((.*?)\): ", text, flags=re.M)


@pytest.mark.parametrize("fmt", ["latex", "markdown", "table"])
def test_compare_notes_name_the_baseline_against_several_baselines_and_not_against_one(fmt):
    pq = _per_query(names=["bm25", "dense", "rerank"]).filter(pl.col("measure").is_in(["AP", "RR"]))
    every_pair = _quiet(pf.compare, pq, pairs="all", test="t").with_columns(pl.lit("why").alias("verdict_note"))
    names = _note_names(format_comparison(every_pair, fmt))
    wanted = [f"{s} vs {b} / {m}" for s, b, m in every_pair.select("system", "baseline", "measure").iter_rows()]
    assert names == wanted and len(set(names)) == every_pair.height == 6      # each note says which comparison
    one_baseline = _quiet(pf.compare, pq, baseline="bm25", test="t").with_columns(pl.lit("why").alias("verdict_note"))
    assert _note_names(format_comparison(one_baseline, fmt)) == [
        f"{s} / {m}" for s, m in one_baseline.select("system", "measure").iter_rows()]   # the baseline is in settings


@pytest.mark.parametrize("fmt", ["latex", "markdown", "table"])
def test_compare_cli_notes_with_pairs_all_on_dl19_name_each_baseline_once(shared_data, fmt):
    """The tester's command: every note of ``--pairs all`` names its system, baseline and measure, and no two notes
    name the same comparison (``p_bert / RR(rel=2)@10`` had two, one against each of two baselines)."""
    runs = [str(shared_data / "llm_labels_dl" / "dl2019_runs" / f"input.{r}.gz") for r in DL19_RUNS]
    qrels = str(shared_data / "anserini_tools" / "qrels.dl19-passage.txt")
    result = runner.invoke(app, ["compare", qrels, *runs, "-m", "nDCG@10", "-m", "AP(rel=2)", "-m", "RR(rel=2)@10",
                                 "--pairs", "all", "-B", "500", "-f", fmt])
    assert result.exit_code == 0, result.output
    names = _note_names(result.stdout)
    assert len(names) >= 5 and len(set(names)) == len(names), names
    for name in names:
        pair, measure = name.split(" / ")
        system, baseline = pair.split(" vs ")
        assert {system, baseline} <= set(DL19_RUNS) and system != baseline and measure in (
            "nDCG@10", "AP(rel=2)", "RR(rel=2)@10"), name


QUOTED = "nDCG(dcg='exp-log2')@10"


def test_latex_prints_straight_quotes_and_backticks_in_names_against_pdftotext(tmp_path):
    """A bare ' prints a curly quote in pdflatex's OT1 font (nDCG(dcg=’exp-log2’)@10 in headers and captions), which
    pdftotext reads back as ’: compare's header, the results table's header and caption, and segments' heading line
    now print the straight quote (and a backtick) as written."""
    assert latex_escape("a'b`c") == r"a\textquotesingle{}b\textasciigrave{}c"
    pq = _per_query(names=["base", "new`s"]).filter(pl.col("measure") == "AP").with_columns(
        pl.lit(QUOTED).alias("measure"))
    qids = sorted(pq["qid"].unique())
    segments = pl.DataFrame({"qid": qids, "segment_set": "it's", "segment": [str(i % 2) for i in range(len(qids))]})
    compared = format_comparison(_quiet(pf.compare, pq, baseline="base", test="t"), "latex")
    by_segment = segments_latex(_quiet(pf.compare_segments, pq, segments, baseline="base", test="t"),
                                correction="bh", confidence_level=0.95)
    table = _quiet(pf.results_table, pq, baseline="base", ci="range", test="t")
    text = _pdf_text(tmp_path, [table.to_latex(), *("\\begin{table}[!t]\\centering\n" + t + "\\end{table}\n"
                                                      for t in (compared, by_segment))])
    assert text.count(QUOTED) >= 4, text             # results header and caption, compare's row, segments' heading
    assert "new`s" in text and "it's" in text
    assert not set("’‘") & set(text), text
