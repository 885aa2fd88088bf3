"""LaTeX tables keep to an article's text width by their estimated width: the results table (pf.results_table's
to_latex) and segments -f latex take \\small / \\footnotesize when the text size would be too wide, and the
results table cuts long system names into lines when even \\footnotesize is; the oracle is pdflatex (its log's
overfull boxes, and the width it gives each tabular)."""

from __future__ import annotations

import re
import shutil
import subprocess
import warnings

import pytest

import pairedframe as pf
from pairedframe.report.table_latex import ARTICLE_TEXT_WIDTH, text_width, wrap_name

#: Realistic run names: a baseline, a long re-ranking pipeline name, a dense retriever's.
RUNS = {"p_bm25": "p_bm25", "bm25_rm3_monot5-3b_top1000": "p_f10_mt53b", "colbertv2_plaid_k1000": "p_tct1"}
MEASURES = ["nDCG@10", "AP", "RR(rel=2)", "P@10"]


def _compile(tmp_path, bodies, *, measure=False, packages=()):
    """pdflatex's log of ``bodies`` in a plain article (booktabs and ``packages``): (problem lines, width in pt
    of each tabular)."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed (apt-get install texlive-latex-base texlive-latex-recommended)")
    text = "\n\\clearpage\n".join(bodies)
    if measure:                                   # each tabular boxed and its width written to the log
        text = re.sub(r"^\\begin\{tabular\}", r"\\setbox0\\hbox{\\begin{tabular}", text, flags=re.M)
        text = re.sub(r"^\\end\{tabular\}%?$", r"\\end{tabular}}\\typeout{TABULAR \\the\\wd0}\\box0", text,
                      flags=re.M)
    doc = tmp_path / "tables.tex"
    uses = "".join(f"\\usepackage{{{name}}}\n" for name in ("booktabs", *packages))
    doc.write_text("\\documentclass{article}\n" + uses + "\\begin{document}\n" + text
                   + "\\end{document}\n", encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:]
    bad = [line for line in proc.stdout.splitlines() if re.search(r"Overfull|Underfull|too large|^! ", line)]
    return bad, [float(w) for w in re.findall(r"^TABULAR ([\d.]+)pt", proc.stdout, flags=re.M)]


@pytest.fixture(scope="module")
def dl21(shared_data):
    """A results table's evaluation of three DL-2021 runs under ``names`` (the dict form of pf.evaluate)."""
    folder = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"

    def evaluate(names=tuple(RUNS)):
        runs = {name: str(folder / "passages-runs" / f"{file}.gz") for name, file in zip(names, RUNS.values())}
        return pf.evaluate(runs, str(folder / "qrels-pass.txt"), measures=MEASURES)
    return evaluate


def _table(evaluation):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pf.TiedQueriesWarning)    # ties on RR(rel=2): not tested here
        return pf.results_table(evaluation, baseline="p_bm25", ci="range", n_resamples=999, seed=0)


@pytest.mark.shared_data
def test_results_table_latex_of_three_real_runs_fits_an_article_by_its_width(dl21, tmp_path):
    """Three DL-2021 runs with realistic names x 4 measures: at the text size (chosen by its 6 lines) the
    float was 16.9 pt too wide; its estimated width now picks \\footnotesize, and pdflatex finds no overfull
    box. The tabular's width pdflatex sets at each size is what the estimate says, never more."""
    t = _table(dl21())
    tex = t.to_latex()
    assert tex.splitlines()[2] == r"\footnotesize"
    assert r"bm25\_rm3\_monot5-3b\_top1000 & " in tex                  # fits whole: not cut into lines
    bad, _ = _compile(tmp_path, [tex])
    assert not bad, bad
    from pairedframe.report.table_latex import _column_widths, _widest, tabular_width
    labels, cells = [t._label(s) for s in t.data.systems], t._cells()
    widest = [_widest([row[j][2] for row in cells]) for j in range(len(MEASURES))]
    widths, fixed = _column_widths(labels, MEASURES, cells, widest, True)
    bodies = [tex.replace("\n\\footnotesize\n", f"\n{size}\n") for size in ("", r"\small", r"\footnotesize")]
    _, measured = _compile(tmp_path, bodies, measure=True)
    assert len(measured) == 3
    for size, width in zip(("", r"\small", r"\footnotesize"), measured):
        estimate = tabular_width(widths, size, fixed=fixed, tabcolsep=4.0)
        assert width <= estimate <= width * 1.02, (size, estimate, width)
    assert measured[0] > ARTICLE_TEXT_WIDTH > measured[2]               # the text size did not fit; \footnotesize does


@pytest.mark.shared_data
def test_results_table_latex_cuts_names_too_long_for_footnotesize_into_lines(dl21, tmp_path):
    """Names too wide even in \\footnotesize are cut after ``_`` / ``-`` / a blank (a piece with none, after
    any character) in the room the measures leave; the lines read back as the name, and pdflatex finds no
    overfull box, with the intervals below the numbers and with them beside (one measure: inline fits)."""
    names = ["p_bm25", "bm25_rm3_monot5-3b_top1000_doc2query-t5_expansion (fused)",
             "colbertv2_plaid_k1000_" + "X" * 40]
    evaluation = dl21(names)
    tex = _table(evaluation).to_latex()
    assert tex.splitlines()[2] == r"\footnotesize"
    rows = tex[tex.index("\\midrule\n") + 9:tex.index("\\bottomrule")].splitlines()
    firsts = [row.split(" & ")[0] for row in rows]
    assert firsts[2:5] == [r"bm25\_rm3\_monot5-3b\_", r"top1000\_doc2query-t5\_", "expansion (fused)"], firsts
    assert rows[4] == "expansion (fused) &  &  &  &  \\\\"          # a line of its own below the interval line
    assert "".join(firsts[5:]).replace("\\_", "_") == names[2]
    per_query = evaluation.per_query
    one = _table(per_query.filter(per_query["measure"] == "AP"))
    inline = one.to_latex(ci_layout="inline")
    assert "\n(fused) &  \\\\\n" in inline, inline      # a line of its own, inline too
    bad, _ = _compile(tmp_path, [tex, inline])
    assert not bad, bad


def test_wrap_name_breaks_after_separators_and_keeps_every_character():
    room = text_width("bm25_rm3_monot5")
    assert wrap_name("bm25_rm3_monot5-3b_top1000", room) == ["bm25_rm3_", "monot5-3b_", "top1000"]
    assert wrap_name("short name", room) == ["short name"]
    assert wrap_name("first second third", text_width("first second")) == ["first second", "third"]
    long = "x" * 60
    lines = wrap_name(long, room)
    assert "".join(lines) == long and all(text_width(line) <= room for line in lines) and len(lines) == 4


def test_results_table_latex_warns_when_the_measures_alone_are_too_wide():
    """Four measures with [low, high] intervals beside the numbers leave the names no room: names stay whole
    and the warning says by how much the table is too wide, and what would fit."""
    import numpy as np
    import polars as pl
    rng = np.random.default_rng(0)
    pq = pl.concat([pl.DataFrame({"system": s, "qid": [f"q{k}" for k in range(30)], "measure": m,
                                  "value": rng.uniform(0, 1, 30)}) for s in ("a", "b_long_name") for m in MEASURES])
    t = pf.results_table(pq, baseline="a", ci="range", n_resamples=99, seed=0)
    with pytest.warns(UserWarning, match=r"about \d+ pt wider than an article's text width .*ci_layout='stacked'"):
        inline = t.to_latex(ci_layout="inline")
    assert r"b\_long\_name & " in inline
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t.to_latex()                                   # stacked: fits


@pytest.mark.shared_data
def test_segments_latex_of_real_runs_fits_an_article_page(shared_data, tmp_path):
    """segments -f latex printed the table's 13 columns, 440 pt too wide for an article (three DL-2021 runs, two
    segment sets): a heading line per system and measure, then per segment its set, name, n, the delta with its
    interval below it, the p-value of --correction and significant; the raw and the other adjusted p are named in
    a comment, warnings and settings are comments, and pdflatex finds no overfull box."""
    from typer.testing import CliRunner

    from pairedframe.cli import app

    folder = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    qids = sorted({line.split()[0] for line in (folder / "qrels-pass.txt").read_text().splitlines() if line.strip()})
    segments = tmp_path / "segments.csv"
    segments.write_text("qid,segment_set,segment\n" + "".join(
        f"{q},length,{'short' if i % 2 else 'long'}\n{q},first_half,{i < len(qids) // 2}\n" for i, q in enumerate(qids)))
    runs = [f"{name}={folder / 'passages-runs' / f'{file}.gz'}" for name, file in RUNS.items()]
    bodies = []
    for correction in ("bh", "holm"):
        res = CliRunner().invoke(app, ["segments", str(folder / "qrels-pass.txt"), *runs, "-m", "nDCG@10", "-m", "AP",
                                       "--segments", str(segments), "-B", "299", "--correction", correction,
                                       "-f", "latex"])
        assert res.exit_code == 0, res.output
        tex = res.stdout
        header = tex.split(r"\begin{tabular}")[1].splitlines()[2]
        p = {"bh": "$p$ (BH)", "holm": "$p$ (Holm)"}[correction]
        assert header == rf"segment\_set & segment & $n$ & delta [95\% CI] & {p} & significant \\", header
        assert r"\multicolumn{6}{l}{bm25\_rm3\_monot5-3b\_top1000 / nDCG@10} \\" in tex
        left_out = {"bh": "pvalue, pvalue_holm", "holm": "pvalue, pvalue_bh"}[correction]
        assert f"\n% columns left out here (in -f csv / json): {left_out}\n" in tex and f"\n% correction: {correction}\n" in tex
        bodies.append("\\begin{table}[!t]\\centering\n" + tex + "\\end{table}\n")
    bad, _ = _compile(tmp_path, bodies)
    assert not bad, bad


def test_segments_latex_of_hostile_names_compiles_and_takes_a_smaller_size_when_wide(tmp_path):
    """Names holding LaTeX's special characters in the heading and the segment columns (a first cell starting
    with '['),
    a warning per segment of two queries, and segment names wide enough for \\footnotesize: no overfull box."""
    import numpy as np
    import polars as pl

    from pairedframe.cli.segments_latex import segments_latex

    rng = np.random.default_rng(1)
    systems = ["bm25|rm3", r"run\{x}_#7 $cheap & ~tilde^hat"]
    pq = pl.concat([pl.DataFrame({"system": s, "qid": [f"q{k:02d}" for k in range(24)], "measure": "nDCG@10",
                                  "value": rng.uniform(0, 1, 24)}) for s in systems])
    segments = pl.DataFrame({"qid": [f"q{k:02d}" for k in range(24)], "segment_set": "[set] 50% <off>",
                             "segment": [["[x]seg", "a--b''c", "question_type=description",
                                          "tiny"][min(k // 7, 3)] for k in range(24)]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # few and skewed queries: the warnings the rows carry
        result = pf.compare_segments(pq, segments, baseline=systems[0], test="t")
    assert result["warning"].is_not_null().any()
    tex = segments_latex(result, correction="bh", confidence_level=0.95, title="hostile % title",
                         settings={"baseline": systems[0]})
    assert "\\begingroup\\footnotesize" in tex and "\n{}[set] 50\\% " in tex and "\n% warning (" in tex
    bad, _ = _compile(tmp_path, ["\\begin{table}[!t]\\centering\n" + tex + "\\end{table}\n"])
    assert not bad, bad
    with pytest.raises(ValueError, match="`correction` must be one of"):
        segments_latex(result, correction="none", confidence_level=0.95)


#: The start every too-wide warning shares: the results table's, compare's and segments'.
TOO_WIDE = r"^the LaTeX table is about (\d+) pt wider than an article's text width \(345 pt\) even in \\footnotesize"


def test_compare_and_segments_latex_too_wide_warn_as_the_results_table_does(tmp_path):
    """compare -f latex and segments -f latex of names too long for an article even in \\footnotesize said nothing
    (the results table warns): each now warns, at the caller's line and worded as the results table's warning,
    by about as much as pdflatex finds the tabular too wide."""
    import polars as pl

    from pairedframe.cli.segments_latex import segments_latex
    from pairedframe.report.compare import format_comparison
    from tests.test_table_renderings import _per_query

    long = "rerank_" + "x" * 60
    pq = _per_query(names=["bm25", long]).filter(pl.col("measure") == "AP")
    qids = sorted(pq["qid"].unique())
    segments = pl.DataFrame({"qid": qids, "segment_set": "question_type_from_the_annotators",
                             "segment": [("description_of_a_thing_" + "y" * 30, "other")[i % 2] for i in range(len(qids))]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compared = pf.compare(pq, baseline="bm25", test="t")
        by_segment = pf.compare_segments(pq, segments, baseline="bm25", test="t")
    wide = {}
    with pytest.warns(UserWarning, match=TOO_WIDE + r": its name columns \(system, measure\) take \d+ pt: shorten") as c:
        wide["compare"] = format_comparison(compared, "latex")
    with pytest.warns(UserWarning, match=TOO_WIDE + r": its segment_set and segment columns take \d+ pt: shorten") as s:
        wide["segments"] = segments_latex(by_segment, correction="bh", confidence_level=0.95)
    for caught in (c, s):
        assert [w.filename for w in caught if "wider" in str(w.message)] == [__file__]
    overs = [float(re.search(TOO_WIDE, str(next(w for w in caught if "wider" in str(w.message)).message)).group(1))
             for caught in (c, s)]
    _, measured = _compile(tmp_path, ["\\begin{table}[!t]\\centering\n" + tex + "\\end{table}\n"
                                      for tex in wide.values()], measure=True)     # the width pdflatex sets
    assert len(measured) == 2
    for over, width in zip(overs, measured):
        assert width - ARTICLE_TEXT_WIDTH - 1 <= over <= (width - ARTICLE_TEXT_WIDTH) * 1.03 + 1, (over, width)
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # a narrow comparison does not warn
        format_comparison(compared.filter(pl.col("system") == "bm25"), "latex")


def _mixed_comparison(names):
    """pf.compare of systems ``names`` (baseline first) on two measures, one computed in one pass (10,500
    queries) and one resampled: the rows' interval and method differ."""
    import polars as pl

    from tests.test_mixed_methods_rendering import _per_query

    pq = _per_query(10_500).with_columns(pl.col("system").replace({"a": names[0], "b": names[1]}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pf.compare(pq, baseline=names[0], n_resamples=200, seed=0)


def test_compare_latex_of_rows_computed_differently_fits_an_article_with_a_ci_legend(tmp_path):
    """The interval and method columns of a comparison whose rows were computed differently made its LaTeX about
    30 pt wider than an article (in \\footnotesize, with a warning): one narrow CI column of letters and a
    legend below the tabular now fit it at the text size, names and methods escaped; pdflatex sets it inside
    the text width, without an overfull box."""
    from pairedframe.report.compare import format_comparison

    mixed = _mixed_comparison(["bm25_base", "rm3_&_t5#2"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # no width warning
        tex = format_comparison(mixed, "latex")
    assert "\\footnotesize\\setlength" not in tex and "& interval &" not in tex and "& method &" not in tex
    assert "system & measure & CI & $n$" in tex and "rm3\\_\\&\\_t5\\#2 & nDCG@10 & a &" in tex
    assert "{\\raggedright CI a: t interval, one-pass; b: studentized interval, resampling.}" in tex
    bad, measured = _compile(tmp_path, ["\\begin{table}[!t]\\centering\n" + tex + "\\end{table}\n"], measure=True)
    assert bad == [] and len(measured) == 1 and measured[0] <= ARTICLE_TEXT_WIDTH


def test_compare_latex_with_a_ci_legend_still_warns_when_too_wide_by_about_what_pdflatex_sets(tmp_path):
    """Names too long for the page still warn, the CI column counted: the estimate is pdflatex's width (up to 3 %
    wider, as the results table's)."""
    from pairedframe.report.compare import format_comparison

    with pytest.warns(UserWarning, match=TOO_WIDE + r": its name columns \(system, measure\) take") as caught:
        tex = format_comparison(_mixed_comparison(["bm25", "rerank_" + "x" * 60]), "latex")
    over = float(re.search(TOO_WIDE, str(caught[0].message)).group(1))
    _, measured = _compile(tmp_path, ["\\begin{table}[!t]\\centering\n" + tex + "\\end{table}\n"], measure=True)
    assert "& CI &" in tex and len(measured) == 1
    assert measured[0] - ARTICLE_TEXT_WIDTH - 1 <= over <= (measured[0] - ARTICLE_TEXT_WIDTH) * 1.03 + 1, (over, measured)


def test_compare_cli_latex_too_wide_prints_the_warning(tmp_path):
    from typer.testing import CliRunner

    from pairedframe.cli import app
    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    res = CliRunner().invoke(app, ["compare", str(qrels), f"bm25={runs[0]}", f"{'r' * 80}={runs[1]}", "-m", "AP",
                                   "-B", "200", "-f", "latex"])
    assert res.exit_code == 0, res.output
    assert re.search(TOO_WIDE.replace("^", "^pairedframe: warning: "), res.stderr, flags=re.M), res.stderr


def _page_lines(tmp_path) -> list[list[str]]:
    """The text lines of each page of tables.pdf, as pdftotext -layout places them (top to bottom)."""
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed (apt-get install poppler-utils)")
    text = subprocess.run(["pdftotext", "-layout", "tables.pdf", "-"], cwd=tmp_path, capture_output=True, text=True,
                          check=True, timeout=60).stdout
    return [[line.strip() for line in page.splitlines() if line.strip()] for page in text.split("\f") if page.strip()]


def test_compare_latex_ci_legend_sits_below_the_table_in_a_float_and_in_a_resizebox(tmp_path):
    """The CI legend followed the tabular after \\par\\smallskip, which does nothing in an LR box: in
    \\resizebox{\\linewidth}{!}{\\input{table.tex}} pdflatex set the legend beside the table. Now the legend is
    below the table both in a plain table float and in a \\resizebox (pdftotext's lines: the legend's line
    after every row's, holding nothing else), with no overfull box."""
    from pairedframe.report.compare import format_comparison

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tex = format_comparison(_mixed_comparison(["bm25_base", "rm3_&_t5#2"]), "latex")
    (tmp_path / "table.tex").write_text(tex, encoding="utf-8")
    bad, _ = _compile(tmp_path, ["\\begin{table}[!t]\\centering\n\\input{table.tex}\\end{table}\n",
                                 "\\begin{table}[!t]\\centering\n\\resizebox{\\linewidth}{!}{\\input{table.tex}}"
                                 "\\end{table}\n"], packages=("graphicx",))
    assert bad == []
    pages = _page_lines(tmp_path)
    assert len(pages) == 2
    for lines in pages:
        legend = [i for i, line in enumerate(lines) if "CI a: t interval" in line]
        rows = [i for i, line in enumerate(lines) if line.startswith("rm3 & t5#2") or ", 0.0" in line]
        assert len(legend) == 1 and len(rows) == 4, lines
        assert legend[0] > max(rows), lines
        assert lines[legend[0]].startswith("CI a: t interval, one-pass;"), lines
