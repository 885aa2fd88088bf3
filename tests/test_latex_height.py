"""LaTeX tables on an article's page, up and down: the estimated height of the results table's float and of compare's
and segments' tabulars is what pdflatex sets (the oracle: the box pdflatex builds), a table too tall even in
\\footnotesize warns as pdflatex's "Float too large for page" says, and in the stacked layout nothing on a number's
line (an underline, a name's descender) comes within 1.4 pt of the line below it (pdflatex's positions of the two
lines, \\pdfsavepos, and its boxes' heights and depths)."""

from __future__ import annotations

import re
import shutil
import subprocess
import warnings

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
import pairedframe.cli.segments_latex as segments_module
import pairedframe.report.compare as compare_module
import pairedframe.report.table_latex as table_latex
import pairedframe.report.table_latex_page as table_latex_page
from pairedframe.cli import app
from pairedframe.cli.segments_latex import segments_latex
from pairedframe.example import example_paths
from pairedframe.report.compare import format_comparison
from tests.test_table_renderings import NAMES, _per_query

#: A float measured as a box: its natural height + depth in the log (``\caption`` needs a float type).
_PREAMBLE = ("\\documentclass{article}\n\\usepackage{booktabs}\n"
             "\\makeatletter\\def\\tablebox{\\def\\@captype{table}}\\makeatother\n\\begin{document}\n")


def _pdflatex(tmp_path, body: str) -> str:
    """pdflatex's log of ``body`` in a plain article with booktabs."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed (apt-get install texlive-latex-base texlive-latex-recommended)")
    doc = tmp_path / "tables.tex"
    doc.write_text(_PREAMBLE + body + "\n\\end{document}\n", encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return (tmp_path / "tables.log").read_text(errors="replace")


def _in_float(tabular: str) -> str:
    """compare's / segments' tabular in the writer's float, under a one-line caption."""
    return "\\begin{table}[!t]\n\\centering\n\\caption{A caption.}\n" + tabular + "\\end{table}\n"


def _measured_heights(tmp_path, floats: list[str]) -> list[float]:
    """The height + depth pdflatex gives each ``table`` float's contents."""
    body = "\n".join(f.replace("\\begin{table}[!t]", "\\setbox0\\vbox{\\hsize\\textwidth\\tablebox")
                     .replace("\\end{table}", "}\\typeout{FLOAT \\the\\dimexpr\\ht0+\\dp0\\relax}") for f in floats)
    return [float(h) for h in re.findall(r"^FLOAT ([\d.]+)pt", _pdflatex(tmp_path, body), flags=re.M)]


def _estimated_height(monkeypatch, render) -> tuple[str, float]:
    """``render()``'s LaTeX and its estimated height: with the page 0 pt tall, its warning gives the height."""
    for module in (table_latex, table_latex_page, compare_module, segments_module):
        monkeypatch.setattr(module, "ARTICLE_TEXT_HEIGHT", 0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tex = render()
    heights = [re.search(r"about (\d+) pt taller than an article's text height \(0 pt\)", str(w.message))
               for w in caught]
    monkeypatch.undo()
    return tex, next(float(m.group(1)) for m in heights if m)


def _tables(n_systems: int, **kwargs) -> pf.ResultsTable:
    names = [f"system_{i}" for i in range(n_systems)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                 # too few resamples for Holm: not tested here
        return pf.results_table(_per_query(names=names), baseline=names[0], ci="range", **kwargs)


def _segments(n_segments: int, systems=("bm25", "dense", "rerank")) -> pl.DataFrame:
    pq = _per_query(names=list(systems)).filter(pl.col("measure").is_in(["AP", "nDCG@10"]))
    qids = sorted(pq["qid"].unique())
    segments = pl.DataFrame({"qid": qids, "segment_set": "length",
                             "segment": [f"bucket_{i % n_segments}" for i in range(len(qids))]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                 # few queries a segment
        return pf.compare_segments(pq, segments, baseline=systems[0], test="t")


def test_latex_height_estimate_is_pdflatexs_or_at_most_a_caption_line_more(tmp_path, monkeypatch):
    """The oracle is the box pdflatex sets: the estimate of each float (results tables of 3 to 30 systems, stacked
    and inline, with marks; compare's and segments' tabulars under a one-line caption) is never 1 pt under
    pdflatex's height and at most 15 pt over (a caption line counted in spare)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        marked = pf.results_table(_per_query(), baseline=NAMES[:3], ci="range", n_resamples=9999, seed=0)
        compared = pf.compare(_per_query(names=["bm25", "dense (v2)", "rerank"]), baseline="bm25", test="t")
    renders = [lambda t=t, layout=layout: t.to_latex(ci_layout=layout)
               for t in (_tables(3, test="t"), _tables(14, test="t"), _tables(30, test="t"), marked)
               for layout in ("stacked", "inline")]
    renders += [lambda: _in_float(format_comparison(compared, "latex")),
                lambda: _in_float(segments_latex(_segments(4), correction="bh", confidence_level=0.95))]
    floats, estimates = zip(*(_estimated_height(monkeypatch, render) for render in renders))
    assert {f.splitlines()[2] for f in floats[:8]} >= {r"\footnotesize", r"\small"}      # sizes the rule picked
    measured = _measured_heights(tmp_path, list(floats))
    assert len(measured) == len(floats)
    for tex, estimate, height in zip(floats, estimates, measured):
        assert height - 1 <= estimate <= height + 15, (estimate, height, tex[:300])


def test_results_table_latex_taller_than_a_page_warns_at_the_callers_line_as_pdflatex_finds(tmp_path):
    """32 systems with stacked intervals are about 100 pt taller than an article's 550 pt text height even in
    \\footnotesize (pdflatex: "Float too large for page by 100 pt"): a warning at the caller's line says how many
    rows and what to do; one line a system (ci_layout='inline') fits, and neither warns nor is too large."""
    table = _tables(32, test="t")
    with pytest.warns(UserWarning, match=r"^the LaTeX table is about (\d+) pt taller than an article's text height "
                      r"\(550 pt\) even in \\footnotesize: its 32 systems take 64 lines: show fewer systems per table "
                      r".*ci_layout='inline'.*longtable") as caught:
        tall = table.to_latex()
    assert [w.filename for w in caught if "taller" in str(w.message)] == [__file__]
    over = float(re.search(r"about (\d+) pt", str(caught[0].message)).group(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                 # the inline layout's width warning: not this test's
        inline = table.to_latex(ci_layout="inline")
    log = _pdflatex(tmp_path, tall + "\n\\clearpage\n" + inline)
    too_large = [float(m) for m in re.findall(r"Float too large for page by ([\d.]+)pt", log)]
    assert len(too_large) == 1 and too_large[0] <= over <= too_large[0] + 15, (too_large, over)
    with warnings.catch_warnings(record=True) as quiet:
        warnings.simplefilter("always")
        table.to_latex(ci_layout="inline")
    assert not [w for w in quiet if "taller" in str(w.message)]


def _example_args(tmp_path, copies: int) -> tuple[list[str], str]:
    """The example qrels and ``copies`` named copies of its two runs (``bm25`` the baseline), and a segments file."""
    qrels, runs = example_paths()
    named = [f"bm25={runs[0]}"] + [f"run_{i}={runs[i % 2]}" for i in range(1, copies)]
    qids = sorted({line.split()[0] for line in qrels.read_text().splitlines() if line.strip()})
    segments = tmp_path / "segments.csv"
    segments.write_text("qid,segment_set,segment\n" + "".join(f"{q},half,{i % 2}\n" for i, q in enumerate(qids)))
    return [str(qrels), *named], str(segments)


@pytest.mark.parametrize("command", ["compare", "segments"])
def test_compare_and_segments_latex_taller_than_a_page_warn_on_the_command_line(tmp_path, command):
    """compare -f latex of 9 runs x 4 measures (32 comparisons) and segments -f latex of 5 runs x 4 measures x 2
    segments are too tall for an article's page with a one-line caption even in \\footnotesize: a
    'pairedframe: warning:' line says so, as pdflatex's "Float too large for page" does."""
    args, segments = _example_args(tmp_path, 9 if command == "compare" else 5)
    extra = ["--segments", segments] if command == "segments" else []
    res = CliRunner().invoke(app, [command, *args, *extra, "-m", "AP", "-m", "nDCG@10", "-m", "P@10", "-m", "RR",
                                   "-B", "200", "-f", "latex"])
    assert res.exit_code == 0, res.output
    warned = re.search(r"^pairedframe: warning: the LaTeX table is about (\d+) pt taller than an article's text height "
                       r"\(550 pt\) even in \\footnotesize with a one-line caption: its 32 (comparisons|segment rows) "
                       r"take \d+ lines: .*longtable", res.stderr, flags=re.M)
    assert warned, res.stderr
    log = _pdflatex(tmp_path, _in_float(res.stdout))
    too_large = [float(m) for m in re.findall(r"Float too large for page by ([\d.]+)pt", log)]
    assert len(too_large) == 1 and too_large[0] <= float(warned.group(1)) <= too_large[0] + 15, (too_large, warned)


def _stacked_gaps(tmp_path, tex: str, columns: slice = slice(None)) -> list[float]:
    """The room (pt) pdflatex leaves between each cell of a stacked first line (in ``columns``) and the cell below it
    on the second line: the two baselines' distance (\\pdfsavepos) less the first cell's depth and the second's
    height (boxes: a minus sign's box reaches 0.7 pt below the baseline, its ink does not)."""
    lines, k = tex.split("\n"), 0
    end = re.compile(r" \\\\(\[-?[\d.]+pt\])?$")
    for i in range(len(lines) - 1):
        if not (re.search(r"\\\\\[-[\d.]+pt\]$|\\\\$", lines[i]) and "{\\footnotesize " in lines[i + 1]):
            continue
        (above, above_end), (below, below_end) = ((line[:m.start()].split(" & "), m.group(0))
                                                  for line, m in ((lines[j], end.search(lines[j])) for j in (i, i + 1)))
        for j, (a, b) in list(enumerate(zip(above, below)))[columns]:
            if a.strip() and b.strip() and b.strip() != "{\\footnotesize }":
                above[j] = (rf"\setbox2\hbox{{{a}}}\typeout{{DP {k} \the\dp2}}\pdfsavepos"
                            rf"\write-1{{POS {k} a \the\pdflastypos}}\box2")
                below[j] = (rf"\setbox2\hbox{{{b}}}\typeout{{HT {k} \the\ht2}}\pdfsavepos"
                            rf"\write-1{{POS {k} b \the\pdflastypos}}\box2")
                k += 1
        lines[i], lines[i + 1] = " & ".join(above) + above_end, " & ".join(below) + below_end
    log = _pdflatex(tmp_path, "\n".join(lines))
    dims = {(kind, int(n)): float(v) for kind, n, v in re.findall(r"^(DP|HT) (\d+) ([\d.]+)pt", log, flags=re.M)}
    pos = {(int(n), ab): int(v) / 65536 for n, ab, v in re.findall(r"^POS (\d+) (a|b) (\d+)", log, flags=re.M)}
    return [pos[n, "a"] - pos[n, "b"] - dims["DP", n] - dims["HT", n] for n in range(k)]


def test_stacked_underline_keeps_clear_of_the_interval_below_at_every_size(tmp_path):
    """An underlined (second best) number's rule touched its \\footnotesize interval in a \\footnotesize table
    (pdflatex: -0.5 pt between their boxes); now each underlined number's line is pulled up less, so at the text
    size, \\small and \\footnotesize every cell keeps at least 1.4 pt to the line below, and lines without an
    underline keep the 2 pt pull that ties an interval to its number."""
    tables = [_tables(n, test="t").to_latex() for n in (4, 14, 20)]
    assert [t.splitlines()[2] for t in tables] == [r"\setlength{\tabcolsep}{4pt}", r"\small", r"\footnotesize"]
    for size, tex in zip(("", r"\small", r"\footnotesize"), tables):
        underlined = [line for line in tex.splitlines() if "\\underline{" in line]
        assert underlined and r"\\[-2pt]" in tex
        assert all(line.endswith({"": r"\\[-2pt]", r"\small": r"\\[-1.5pt]"}.get(size, r" \\")) for line in underlined)
        gaps = _stacked_gaps(tmp_path, tex)
        assert len(gaps) >= 2 * len(underlined) and min(gaps) >= 1.4, (size, sorted(gaps)[:5])


def test_stacked_second_lines_keep_clear_of_a_names_descenders(tmp_path):
    """A name cut into lines (its descenders or parentheses above the next line) in the results table, and a
    system's name above its \\footnotesize 'vs baseline' line in compare -f latex, overlapped by 0.5 pt in
    \\footnotesize; now at least 1.4 pt apart."""
    names = ["p_bm25", "giggly_yappy_" + "(Xb)" * 12, "colbertv2_plaid_k1000_" + "X" * 40]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wrapped = pf.results_table(_per_query(names=names), baseline=names[0], ci="range", test="t").to_latex()
        versus = format_comparison(pf.compare(_per_query(names=["bl_bcai_p_nn_rt (qy)", "ielab-robertav2 (rerank)",
                                                                "Fast_ForwardP_2 (Qy)", "NLE_P_v1 (Gy)"]),
                                              pairs="all", test="t"), "latex")
    assert "(Xb)(Xb)" in wrapped.split("\\midrule")[1].splitlines()[4] and "{\\footnotesize vs " in versus
    for tex in (wrapped, "\\begin{table}[!t]\\centering\n" + versus + "\\end{table}\n"):
        gaps = _stacked_gaps(tmp_path, tex, slice(0, 1))             # the names' column
        assert gaps and min(gaps) >= 1.4, sorted(gaps)[:5]
