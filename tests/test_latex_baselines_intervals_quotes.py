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


def test_interval_text_is_half_open_at_an_unbounded_end():
    from pairedframe.report.table_latex import interval_text

    assert interval_text("-0.0343", "∞") == "[-0.0343, ∞)" and interval_text("-∞", "0.0795") == "(-∞, 0.0795]"
    assert interval_text("0.1", "0.2") == "[0.1, 0.2]" and interval_text("-∞", "∞") == "(-∞, ∞)"


def test_one_sided_intervals_print_half_open_in_compare_results_table_and_segments_against_pdftotext(tmp_path):
    """``[-0.0343, ∞]`` claimed the interval holds infinity: each rendering of an interval (compare -f latex, the
    results table's LaTeX, markdown, HTML and terminal cells, segments -f latex) now writes ``[low, ∞)`` and
    ``(-∞, high]``, as scipy's [low, inf); pdflatex prints them so."""
    pq = _per_query(names=["base", "new"]).filter(pl.col("measure") == "AP")
    qids = sorted(pq["qid"].unique())
    segments = pl.DataFrame({"qid": qids, "segment_set": "half", "segment": [str(i % 2) for i in range(len(qids))]})
    tex = []
    for alternative, open_end in (("greater", r",\,$\infty$)}"), ("less", r"{\footnotesize ($-\infty$,\,")):
        compared = _quiet(pf.compare, pq, baseline="base", test="t", alternative=alternative)
        by_segment = _quiet(pf.compare_segments, pq, segments, baseline="base", test="t", alternative=alternative)
        tex += [format_comparison(compared, "latex"),
                segments_latex(by_segment, correction="bh", confidence_level=0.95)]
        for body in tex[-2:]:
            body = body.split(r"\end{tabular}")[0]
            assert open_end in body and r"\infty$]" not in body and r"[$-\infty$" not in body, body
    table = _quiet(pf.results_table, pq, baseline="base", ci="range", test="t")
    one_sided = table.table.with_columns(pl.when(pl.col("system") == "new").then(math.inf).otherwise(pl.col("ci_high"))
                                         .alias("ci_high"),
                                         pl.when(pl.col("system") == "base").then(-math.inf).otherwise(pl.col("ci_low"))
                                         .alias("ci_low"))
    table = replace(table, data=replace(table.data, frame=one_sided))
    results = table.to_latex(ci_layout="stacked")
    assert r",\,$\infty$)}" in results and r"{\footnotesize ($-\infty$,\," in results
    assert re.search(r"\[\d\.\d{3}, ∞\)", table.to_markdown()) and re.search(r"\(-∞, \d\.\d{3}\]", table.to_markdown())
    html = _quiet(table.to_html)
    assert re.search(r"\[\d\.\d{3}, ∞\)", html) and re.search(r"\(-∞, \d\.\d{3}\]", html)
    terminal = table.to_terminal()
    assert re.search(r"\[\d\.\d{3}, ∞\)", terminal) and re.search(r"\(-∞, \d\.\d{3}\]", terminal)
    text = _pdf_text(tmp_path, [results, *("\\begin{table}[!t]\\centering\n" + t + "\\end{table}\n" for t in tex)])
    assert len(re.findall(r"\[−?\d\.\d{3,4}, ∞\)", text)) >= 4, text        # compare, 2 segments, results table
    assert len(re.findall(r"\(−∞, −?\d\.\d{3,4}\]", text)) >= 4, text
    assert not re.search(r"∞\]|\[−∞", text), text


def _one_query_segments(n_alone: int = 8) -> pl.DataFrame:
    """A segment comparison where ``n_alone`` segments hold one query (no interval, no p-value) and one the rest,
    which the new system wins clearly (significant)."""
    pq = _per_query(names=["base", "new"]).filter(pl.col("measure") == "AP")
    pq = pq.with_columns(pl.when(pl.col("system") == "new").then(pl.col("value") + 0.3).otherwise(pl.col("value"))
                         .alias("value"))
    qids = sorted(pq["qid"].unique())
    segments = pl.DataFrame({"qid": qids, "segment_set": "by query",
                             "segment": [q if i < n_alone else "rest" for i, q in enumerate(qids)]})
    return _quiet(pf.compare_segments, pq, segments, baseline="base", test="t")


def test_segments_latex_height_without_empty_interval_lines_is_pdflatexs(tmp_path, monkeypatch):
    """The height estimate counted two lines for each one-query segment, whose interval line is gone: the oracle is
    the box pdflatex sets, as for the other tables (never 1 pt under it, at most 15 pt over)."""
    by_segment = _one_query_segments(n_alone=20)
    tex, estimate = _estimated_height(monkeypatch, lambda: _in_float(
        segments_latex(by_segment, correction="bh", confidence_level=0.95)))
    (height,) = _measured_heights(tmp_path, [tex])
    assert height - 1 <= estimate <= height + 15, (estimate, height)


def test_segments_latex_writes_significant_as_yes_or_no_and_no_empty_line_below_a_one_query_segment(tmp_path):
    """segments -f latex printed Python's True / False in the significant column, and each one-query segment (no
    interval) left an empty second line. Now yes / no (empty without a p-value, as the p cell), a line only for
    an interval; pdflatex prints it."""
    by_segment = _one_query_segments()
    tex = segments_latex(by_segment, correction="bh", confidence_level=0.95)
    body = tex.split(r"\midrule", 1)[1].split(r"\bottomrule")[0]
    assert "True" not in body and "False" not in body
    rows = [line for line in body.splitlines() if line.startswith("by query & ")]
    assert len(rows) == by_segment.height == 9
    significant = [row.removesuffix(r"\\[-2pt]").removesuffix(r"\\").split(" & ")[-1].strip() for row in rows]
    assert significant == ["" if p is None else "yes" if s else "no"
                           for s, p in zip(by_segment["significant"], by_segment["pvalue_bh"])]
    assert significant.count("") == 8 and significant[-1] == "yes"
    assert not re.search(r"^(\s*&)+\s*\\\\$", body, flags=re.M), body       # no line of empty cells
    assert body.count(r"{\footnotesize [") == 1                              # the one interval, below "rest"
    text = _pdf_text(tmp_path, ["\\begin{table}[!t]\\centering\n" + tex + "\\end{table}\n"])
    assert " yes " in f" {text} " and "True" not in text and "False" not in text


def test_segments_cli_latex_prints_no_python_booleans(tmp_path):
    """The command itself: ``pairedframe segments -f latex`` on the example runs."""
    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    ev = pf.evaluate(runs, qrels, ["AP"])
    qids = ev.per_query["qid"].unique().sort().to_list()
    path = tmp_path / "segments.csv"
    pl.DataFrame({"qid": qids, "segment_set": "s", "segment": [q if i < 2 else "rest" for i, q in enumerate(qids)]}
                 ).write_csv(path)
    result = runner.invoke(app, ["segments", str(qrels), *map(str, runs), "--segments", str(path), "-m", "AP",
                                 "-B", "199", "-f", "latex"])
    assert result.exit_code == 0, result.output
    body = result.stdout.split(r"\end{tabular}")[0]
    assert "True" not in body and "False" not in body and re.search(r"& (yes|no) \\\\", body), body
    assert not re.search(r"^(\s*&)+\s*\\\\$", body, flags=re.M), body
