"""LaTeX of names holding line breaks (a system, measure, segment or baseline named ``a\\nb``): every ``%`` comment
stays one line and pdflatex prints the name with a blank for the break; and one p-value format for compare -f latex
and segments -f latex."""

from __future__ import annotations

import re
import shutil
import subprocess
import warnings

import polars as pl
import pytest

import pairedframe as pf
from pairedframe.cli.common import print_frame
from pairedframe.cli.segments_latex import segments_latex
from pairedframe.report.compare import format_comparison
from pairedframe.report.table_latex import latex_comment, latex_escape, pvalue_text
from tests.test_table_renderings import _per_query

#: Names with each kind of line break, and what LaTeX prints for them.
BROKEN = {"bm25\nrm3": "bm25 rm3", "dense\r\nv2": "dense v2", "zsplit\rrun": "zsplit run",
          "zform\x0cfeed": "zform feed", "zpara\u2028sep": "zpara sep"}


def _pdf_text(tmp_path, bodies: list[str]) -> str:
    """pdftotext of ``bodies`` compiled by pdflatex, which must find no error."""
    if shutil.which("pdflatex") is None or shutil.which("pdftotext") is None:
        pytest.skip("pdflatex or pdftotext not installed (texlive-latex-base, poppler-utils)")
    doc = tmp_path / "names.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + "\n\\clearpage\n".join(bodies)
                   + "\\end{document}\n", encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0 and not re.search(r"^! ", proc.stdout, flags=re.M), proc.stdout[-3000:]
    pdf = subprocess.run(["pdftotext", str(tmp_path / "names.pdf"), "-"], capture_output=True, text=True, check=True)
    return " ".join(pdf.stdout.split())


def _assert_one_line_each(tex: str) -> None:
    """No line break but ``\\n`` ends a line, and every line holding the start of a name holds all of it."""
    assert len(tex.splitlines()) == tex.count("\n"), [line for line in tex.splitlines() if "\r" in line][:3]
    for line in tex.split("\n"):
        for name, printed in BROKEN.items():
            head = name.split(printed.split()[1])[0].rstrip("\r\n\x0c\u2028")
            assert head not in line or printed in line.replace("\\_", "_"), (name, line)


def _frames():
    names = list(BROKEN)
    pq = _per_query(names=names).with_columns(pl.col("measure").replace({"AP": "my\nmeasure"}))
    qids = sorted(pq["qid"].unique())
    segments = pl.DataFrame({"qid": qids, "segment_set": "by\nlength",
                             "segment": [("long\nqueries", "short")[i % 2] for i in range(len(qids))]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                 # few queries a segment, skewed deltas: not tested here
        table = pf.results_table(pq, baseline=names[0], ci="range", test="t")
        compared = pf.compare(pq, baseline=names[0], test="t")
        by_segment = pf.compare_segments(pq.filter(pl.col("measure") == "my\nmeasure"), segments, baseline=names[0],
                                         test="t")
    return table, compared, by_segment


def test_latex_of_names_with_line_breaks_keeps_comments_on_one_line_and_compiles(tmp_path):
    """A name with a newline ended the ``% baseline:`` / ``% warning (...)`` comment and put the rest of the name
    into the document; a carriage return ended pdflatex's input line in a cell. Now each break is a blank: every
    line holding a name holds all of it, comments and captions included, and pdflatex prints the names."""
    table, compared, by_segment = _frames()
    results = table.to_latex()
    comparison = format_comparison(compared, "latex", title="paired\ncomparison")
    segments = segments_latex(by_segment, correction="bh", confidence_level=0.95, title="segments vs\r\nthe baseline",
                              settings={"baseline": "bm25\nrm3", "segments": ["long\nqueries", "short"]})
    assert "\n% baseline: bm25 rm3\n" in comparison and "\n% baseline: bm25 rm3\n" in segments
    assert comparison.startswith("% paired comparison\n") and segments.startswith("% segments vs the baseline\n")
    assert re.search(r"^% warning \(dense v2 / my measure / by length / long queries\): ", segments, flags=re.M)
    assert "bm25 rm3" in results[results.index("\\caption{"):results.index("\\begin{tabular}")]   # the caption's
    for tex in (results, comparison, segments):
        _assert_one_line_each(tex)
    text = _pdf_text(tmp_path, [results] + ["\\begin{table}[!t]\\centering\n" + t + "\\end{table}\n"
                                            for t in (comparison, segments)])
    for printed in BROKEN.values():
        assert text.count(printed) >= (2 if printed == "bm25 rm3" else 3), printed     # the baseline: no compare row
    assert "my measure" in text and "long queries" in text and "by length" in text


def test_latex_escape_and_comment_write_every_line_break_as_a_blank():
    for name, printed in BROKEN.items():
        assert latex_escape(name) == printed and latex_comment(name) == f"% {printed}"
    assert latex_escape("tab\there\x00nul") == "tab here nul"


def test_cli_latex_title_with_a_line_break_stays_a_comment():
    import io

    out = io.StringIO()
    print_frame(pl.DataFrame({"system": ["bm25\nrm3"], "AP": [0.25]}), "latex", title="runs\r\nof DL-19", file=out)
    tex = out.getvalue()
    assert tex.startswith("% runs of DL-19\n\\begin{tabular}") and "\nbm25 rm3 & 0.2500 \\\\\n" in tex
    assert len(tex.splitlines()) == tex.count("\n")


#: p-values and how both LaTeX renderings write them (4 decimals).
PVALUES = {0.0123: "0.0123", 3e-05: r"\textless{}0.0001", 0.0: r"\textless{}0.0001", 0.04999: "0.0500",
           1.0: "1.0000", 0.0001: "0.0001"}


def _p_cells(tex: str) -> list[str]:
    """The p-value cell (the fifth) of each number line: the line above a \\footnotesize interval line."""
    lines = tex.splitlines()
    return [line.split(" & ")[4] for line, below in zip(lines, lines[1:]) if "{\\footnotesize [" in below]


def test_compare_and_segments_latex_print_the_same_p_value_the_same_way():
    """compare -f latex wrote 3e-05 as 3.0e-05 (a number's own format), segments -f latex as 3.00e-05 and every other
    p of its column in scientific notation too (0.0123 as 1.23e-02). Both now write pvalue_text's format: 4 decimals,
    and <0.0001 below them."""
    names = ["bm25", "dense", "rerank", "fused"]
    pq = _per_query(names=names).filter(pl.col("measure").is_in(["AP", "nDCG@10"]))
    qids = sorted(pq["qid"].unique())
    segments = pl.DataFrame({"qid": qids, "segment_set": "half", "segment": [str(i % 2) for i in range(len(qids))]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compared = pf.compare(pq, baseline="bm25", test="t")
        by_segment = pf.compare_segments(pq.filter(pl.col("measure") == "AP"), segments, baseline="bm25", test="t")
    assert compared.height == by_segment.height == len(PVALUES)
    p = pl.Series(list(PVALUES))
    verdict_on = compared["verdict_on"][0]
    compare_cells = _p_cells(format_comparison(compared.with_columns(p.alias(verdict_on)), "latex"))
    segment_cells = _p_cells(segments_latex(by_segment.with_columns(p.alias("pvalue_bh")), correction="bh",
                                            confidence_level=0.95))
    assert compare_cells == segment_cells == list(PVALUES.values())
    assert [pvalue_text(v) for v in PVALUES] == [c.replace(r"\textless{}", "<") for c in PVALUES.values()]
    assert pvalue_text(None) == "" and pvalue_text(float("nan")) == "nan" and pvalue_text(3e-05, 3) == "<0.001"
