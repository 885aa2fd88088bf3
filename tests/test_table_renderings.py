"""Results-table renderings of hostile names: LaTeX that pdflatex prints as the names (no overfull box,
no vertical rule, marks inside the rules), markdown that a CommonMark parser renders back to the names,
HTML tables that share a page; the caption's counts and its reason for a table without marks; letter
marks refused before any work when they cannot name every system."""

from __future__ import annotations

import re
import shutil
import subprocess
import warnings
from html.parser import HTMLParser

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
import pairedframe.comparison
from pairedframe.cli import app
from pairedframe.report.table_latex import latex_escape, latex_number
from pairedframe.report.table_markdown import markdown_escape

SPECIALS = "|&%_#${}<>\\~^"
#: 20 names holding every LaTeX special character (and markdown's * ` " -- '' ~~) at the start, inside and
#: at the end of a name.
NAMES = ["bm25|rm3", "<dense-v2>", r"run\{x}", "a&b", "100%_drop", "#7 $cheap", "~tilde^hat", "x--y''z",
         "`tick`", "*star*", "_under_", "{braces}", "say \"hi\"", "50% <off>", "~~strike~~", "a^2|b",
         r"back\slash", "$5 & #6", "p_{1}", "c++ & c#"]
MEASURES = ["nDCG@10", "AP", "RR", "P@10"]


def _per_query(names=NAMES, n_queries=30, seed=0):
    """Per-query values with real differences between systems (so a comparison marks cells)."""
    rng = np.random.default_rng(seed)
    return pl.concat([pl.DataFrame({"system": s, "qid": [f"q{k:02d}" for k in range(n_queries)], "measure": m,
                                    "value": np.clip(rng.normal(0.3 + 0.02 * i, 0.15, n_queries), 0, 1)})
                      for i, s in enumerate(names) for m in MEASURES])


@pytest.fixture(scope="module")
def hostile_tables():
    """A 20-system x 4-measure table against one baseline (daggers) and one against three (letters),
    both with [low, high] intervals."""
    pq = _per_query()
    return [pf.results_table(pq, baseline=NAMES[0], ci="range", n_resamples=9999, seed=0),
            pf.results_table(pq, baseline=NAMES[:3], ci="range", n_resamples=9999, seed=0)]


def _compile(tmp_path, bodies):
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed (apt-get install texlive-latex-base texlive-latex-recommended)")
    doc = tmp_path / "tables.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                   + "\n\\clearpage\n".join(bodies) + "\\end{document}\n", encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:]
    return proc.stdout, tmp_path / "tables.pdf"


def test_latex_of_twenty_systems_and_four_measures_compiles_without_overfull_boxes(hostile_tables, tmp_path):
    assert any(hostile_tables[0].table["marks"]) and any(hostile_tables[1].table["marks"])   # marks to place
    log, _ = _compile(tmp_path, [t.to_latex() for t in hostile_tables])
    bad = [line for line in log.splitlines() if re.search(r"Overfull|Underfull|too large|^! ", line)]
    assert not bad, bad


def test_latex_of_twenty_real_run_names_with_a_long_caption_fits_the_page(tmp_path):
    """Twenty TREC DL-2021 run names (up to 26 characters with "(baseline)") under the caption of notes a
    real comparison gets: at the text size the float was 3 pt too wide and 42 pt too tall for the page."""
    names = ["Fast_ForwardP_2", "Fast_ForwardP_5", "Fast_Forward_3", "NLE_P_V1andV2", "NLE_P_quick", "NLE_P_v1",
             "TUW_DR_Base", "TUW_TAS-B_768", "TUW_TAS-B_ANN", "WLUPassage", "WLUPassage1", "bcai_p_mbert",
             "bcai_p_vbert", "bl_bcai_p_nn_rt", "bl_bcai_p_trad", "bl_bcai_wloo_p", "ielab-AD-uni", "ielab-TILDEv2",
             "ielab-robertav1", "ielab-robertav2"]
    pq = _per_query(names=names, n_queries=53).with_columns(pl.col("measure").replace({"RR": "RR@10", "P@10": "R@100"}))
    table = pf.results_table(pq, baseline=names[0], ci="range", n_resamples=999, seed=0)
    tex = table.to_latex()
    assert len(tex[tex.index(r"\caption{"):tex.index("\n", tex.index(r"\caption{"))]) > 600     # a caption of notes
    log, _ = _compile(tmp_path, [tex])
    bad = [line for line in log.splitlines() if re.search(r"Overfull|Underfull|too large|^! ", line)]
    assert not bad, bad
    # a short, narrow table keeps the text size (five systems x four measures are 348 pt wide at 10 pt: \small)
    short = pq.filter(pl.col("system").is_in(names[:5]), pl.col("measure") != "R@100")
    small = pf.results_table(short, baseline=names[0], ci="range", n_resamples=999, seed=0).to_latex()
    assert r"\small" not in small and r"\footnotesize" + "\n" not in small


def test_latex_escapes_every_special_character_in_names(hostile_tables, tmp_path):
    """The oracle is the PDF: pdftotext reads every name back as written (OT1 prints ~ and ^ as the
    accents ˜ ˆ and draws \\_ as a rule, which text extraction reads as a space; a bare ' printed ’)."""
    _, pdf = _compile(tmp_path, [hostile_tables[0].to_latex()])
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed (apt-get install poppler-utils) to read the PDF back")
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    text = " ".join(text.translate(str.maketrans({"˜": "~", "ˆ": "^"})).split())
    for name in NAMES:
        assert " ".join(name.replace("_", " ").split()) in text, name
    assert not set("—–¡¿’‘") & set(text)               # | as an em dash, < > as ¡ ¿, -- as an en dash, ' as ’
    assert hostile_tables[0].to_latex().count(r"\textbar{}") >= 2


@pytest.mark.parametrize("char", list(SPECIALS) + ["`", '"'])
def test_latex_escape_leaves_no_special_character_active(char):
    escaped = latex_escape(f"a{char}b")
    commands = re.sub(r"\\(text\w+|texttt)\{[^}]*\}|\\[&%_#${}]", "", escaped)   # the escapes themselves
    assert commands == "ab", (char, escaped)


def test_latex_breaks_the_dash_and_quote_ligatures():
    assert latex_escape("a--b") == "a-{}-b" and latex_escape("a-b") == "a-b"
    assert latex_escape("it''s") == r"it\textquotesingle{}\textquotesingle{}s"     # straight quotes, no ligature


def test_latex_composes_a_decomposed_accent_that_pdflatex_cannot_read():
    """e + U+0301 (combining acute) stops pdflatex's utf8 input; its NFC form, the same text, is é."""
    assert latex_escape("cafe\u0301_v2") == "caf\u00e9\\_v2"


#: The Greek alphabet (U+0391-U+03A9 but the unassigned U+03A2, U+03B1-U+03C9) and other symbols of run names.
GREEK = "".join(chr(c) for c in [*range(0x391, 0x3AA), *range(0x3B1, 0x3CA)] if c != 0x3A2)
SYMBOLS = "ϑϕϵϱϖµ±×≤≥≠≈∼→←↔⇒′°·÷√∞−–"
#: Greek letters with tonos or dialytika (Greek words: Ελλάδα).
ACCENTED = "άέήίόύώΐΰϊϋΆΈΉΊΌΎΏΪΫ"


def test_latex_writes_greek_letters_and_symbols_as_ascii_or_letters_ot1_prints():
    """pdflatex with booktabs only stops at a raw β ("Unicode character β (U+03B2) not set up for use with
    LaTeX"): every letter of the Greek alphabet and each symbol comes out ASCII; the accented Latin letters
    results_tables.md says print in OT1 stay as they are."""
    for ch in GREEK + SYMBOLS + ACCENTED:
        escaped = latex_escape(f"run{ch}{ch}x")
        assert escaped.isascii(), (ch, escaped)
    assert latex_escape("üéßøñ") == "üéßøñ"
    assert latex_escape("αβ πο ΑΒ") == r"$\alpha\beta$ $\pi o$ AB"     # one math span; \pi o, not \pio
    assert latex_escape("µ°°") == r"$\mu{}^{\circ}{}^{\circ}$"          # never a double superscript


def test_latex_of_greek_system_names_compiles_with_booktabs_only(tmp_path):
    """The oracle is pdflatex: the results table, compare -f latex and the CLI tables with Greek and symbol
    names compile in an article with booktabs only."""
    from pairedframe.cli.common import to_latex
    from pairedframe.report.compare import format_comparison

    names = ["α", "β", "γ-δ_λ", "ΔΩ", "Α=Β", "µ°→∞", "x≠y≤z", "πο", GREEK[:24], GREEK[24:], SYMBOLS, "Ελλάδα",
             ACCENTED]
    pq = _per_query(names=names).filter(pl.col("measure") == "AP")
    table = pf.results_table(pq, baseline=names[0], ci="range", n_resamples=999, seed=0).to_latex()
    cmp = pf.compare(pq, baseline=names[0], test="t")
    tex = format_comparison(cmp, "latex")
    cli = to_latex(cmp.select("system", "measure", "delta"))
    for text in (table, tex, cli):
        assert r"$\beta$" in text and r"\Omega" in text
    _compile(tmp_path, [table, "\\begin{table}[!t]\\centering\n" + tex + "\\end{table}\n", cli + "\n"])


def test_latex_has_no_vertical_rule_and_keeps_marks_inside_the_rules(hostile_tables):
    """Each number's marks sit in a space as wide as its column's widest marks (so they count in the
    table's width and stay inside the rules, last column included) and numbers stay aligned."""
    t = hostile_tables[1]
    tex = t.to_latex()
    spec = re.search(r"^\\begin\{tabular\}\{(.*)\}$", tex, flags=re.M).group(1)
    assert spec == "l" + "r" * 4                        # no vertical rule
    last = t.table.filter(pl.col("measure") == MEASURES[-1])
    widest = max(last["marks"], key=len)
    lines = tex.splitlines()
    rows = [line for line, below in zip(lines, lines[1:]) if "& {\\footnotesize [" in below]   # above their intervals
    assert len(rows) == 20
    for line, marks in zip(rows, last["marks"]):
        cell = re.sub(r" \\\\(\[-[\d.]+pt\])?$", "", line.split(" & ")[-1])
        mark = rf"\rlap{{$^{{\mathrm{{{marks}}}}}$}}" if marks else ""
        assert cell.endswith(mark + rf"\hphantom{{$^{{\mathrm{{{widest}}}}}$}}"), cell


def test_stacked_and_inline_interval_layouts(hostile_tables):
    t = hostile_tables[0]
    row = t.table.filter((pl.col("system") == NAMES[1]) & (pl.col("measure") == "AP")).row(0, named=True)
    interval = f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]"
    stacked, inline = t.to_latex(), t.to_latex(ci_layout="inline")
    number_line = next(line for line in stacked.splitlines() if line.startswith(latex_escape(NAMES[1])))
    thin = interval.replace(", ", r",\,")                # a thin space after the comma
    assert interval not in number_line and f"{{\\footnotesize {thin}}}" in stacked
    assert f"{row['mean']:.3f} {interval}" in inline
    with pytest.raises(ValueError, match="ci_layout"):
        t.to_latex(ci_layout="below")


def _markdown_cells(text: str) -> tuple[list[list[str]], list[str]]:
    """The table's cells and the paragraphs, as text, after a CommonMark + GFM-table parse."""
    markdown_it = pytest.importorskip("markdown_it", reason="markdown-it-py (a CommonMark parser) is not installed")
    tokens = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(text)

    def plain(token) -> str:
        return "".join(c.content for c in token.children if c.type in ("text", "code_inline"))
    rows, row, paragraphs = [], None, []
    for i, tok in enumerate(tokens):
        if tok.type == "tr_open":
            row = []
            rows.append(row)
        elif tok.type == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            row.append(plain(tok))
        elif tok.type == "inline" and tokens[i - 1].type == "paragraph_open":
            paragraphs.append(plain(tok))
    return rows, paragraphs


def test_markdown_names_title_and_caption_round_trip_through_a_commonmark_parser(hostile_tables):
    t = pf.results_table(_per_query(), baseline=NAMES[1], n_resamples=1999, seed=0, title="Runs <v2> & *all*")
    rows, paragraphs = _markdown_cells(t.to_markdown())
    assert [r[0] for r in rows[1:]] == [t._label(s) for s in t.data.systems]
    assert rows[0] == ["System", *MEASURES]
    assert paragraphs == ["Runs <v2> & *all*", t.caption]       # the title: bold text, then the caption
    # every cell's number and mark survive as well
    cell = t.table.filter((pl.col("system") == t.data.systems[3]) & (pl.col("measure") == "AP")).row(0, named=True)
    assert rows[4][2] == f"{cell['mean']:.3f}" + cell["marks"]


@pytest.mark.parametrize("name", ["<dense-v2>", r"run\{x}", "a|b", "*x*", "_x_", "`x`", "~~x~~", "&amp;", "$x$",
                                  "[x](y)", "a\nb", "bert_base", "p < 0.05"])
def test_markdown_escape_round_trips_one_name(name):
    rows, _ = _markdown_cells(f"| h |\n| --- |\n| {markdown_escape(name)} |\n")
    assert rows[1] == [name.replace("\n", "\n")], (name, markdown_escape(name))


class _Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.stubs, self.styles, self._in = [], [], [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.append(attrs["id"])
        self._in = "stub" if tag == "th" and "gt_stub" in (attrs.get("class") or "") else tag

    def handle_data(self, data):
        if self._in == "stub":
            self.stubs.append(data)
        elif self._in == "style":
            self.styles.append(data)

    def handle_endtag(self, tag):
        self._in = None


def test_two_html_tables_on_one_page_have_distinct_ids(hostile_tables):
    pytest.importorskip("great_tables")
    first, second = (t.to_html() for t in hostile_tables)
    page = _Ids()
    page.feed(f"<html><body><table><tr><td>host</td></tr></table>{first}{second}</body></html>")
    assert len(page.ids) == len(set(page.ids))            # no id twice on the page
    tops = [re.match(r'<div id="([^"]+)"', html).group(1) for html in (first, second)]
    assert tops[0] != tops[1] and all(re.fullmatch(r"pf-table-[0-9a-f]{12}", i) for i in tops)
    assert "pairedframe-results" not in first + second
    assert hostile_tables[0].to_html(table_id="results-1").startswith('<div id="results-1"')


def test_html_css_is_scoped_to_its_own_table(hostile_tables):
    """Every selector of the table's style starts with its id: a host page's own tbody, tr, td, th
    keep their style."""
    pytest.importorskip("great_tables")
    html = hostile_tables[0].to_html(table_id="t1")
    page = _Ids()
    page.feed(html)
    css = re.sub(r"\{[^{}]*\}", "{}", "".join(page.styles))
    selectors = [s.strip() for rule in css.split("{}") for s in rule.split(",") if s.strip()]
    assert len(selectors) > 20
    assert all(s == "#t1" or s.startswith(("#t1 ", "#t1.", "#t1:")) for s in selectors), \
        [s for s in selectors if not s.startswith("#t1")]
    assert {"#t1 tbody", "#t1 tr", "#t1 td", "#t1 th"} <= set(selectors)


def test_html_shows_every_name_as_written(hostile_tables):
    pytest.importorskip("great_tables")
    t = hostile_tables[1]
    page = _Ids()
    page.feed(t.to_html())
    assert page.stubs == [t._label(s) for s in t.data.systems]


def test_html_table_id_must_be_an_identifier(hostile_tables):
    pytest.importorskip("great_tables")
    for bad in ("", "1table", "a b", "x{y}", 'a"b'):
        with pytest.raises(ValueError, match="table_id"):
            hostile_tables[0].to_html(table_id=bad)


def test_caption_counts_one_comparison_in_the_singular():
    pq = _per_query(names=["a", "b"]).filter(pl.col("measure") == "AP")
    caption = pf.results_table(pq, baseline="a", n_resamples=199).caption
    assert "the one comparison of the call" in caption and "1 comparisons" not in caption
    several = pf.results_table(pq.vstack(_per_query(names=["c", "d", "e"]).filter(
        pl.col("measure") == "AP")), baseline="a", n_resamples=199).caption
    assert "4 comparisons" in several and "1 comparisons" not in several


def test_caption_says_why_a_table_has_no_marks():
    """Twelve clearly different systems, all pairs, 4 measures (264 comparisons) and 999 sign flips:
    every raw p is at the floor 1/1000, Holm makes the smallest 0.264, and the caption says so."""
    names = [f"s{i:02d}" for i in range(12)]
    rng = np.random.default_rng(1)
    pq = pl.concat([pl.DataFrame({"system": s, "qid": [f"q{k}" for k in range(40)], "measure": m,
                                  "value": 0.1 * i + rng.normal(0, 0.01, 40)})
                    for i, s in enumerate(names) for m in MEASURES])
    with pytest.warns(UserWarning, match="no comparison can be significant"):
        t = pf.results_table(pq, pairs="all", n_resamples=999, seed=0)
    cmp = pf.compare(pq, pairs="all", n_resamples=999, seed=0)
    assert not any(t.table["marks"]) and cmp["pvalue"].max() == pytest.approx(1 / 1000)
    assert (f"No cell is marked: the smallest Holm-adjusted p is {cmp['pvalue_holm'].min():.3g} ≥ α = 0.05. "
            "The raw p-values reach 0.001, the least 999 resamples can give: more resamples could mark cells.") \
        in t.caption
    t_test = pf.results_table(pq.with_columns(pl.lit(0.5).alias("value") + rng.normal(0, 0.1, pq.height)),
                              baseline="s00", test="t")
    assert "No cell is marked: the smallest Holm-adjusted p is" in t_test.caption
    assert "could mark" not in t_test.caption                       # no floor to blame
    marked = pf.results_table(pq, baseline="s00", n_resamples=9999, seed=0)
    assert any(marked.table["marks"]) and "No cell is marked" not in marked.caption


def test_pairs_all_beyond_26_systems_is_refused_before_comparing(monkeypatch):
    def no_compare(*args, **kwargs):
        raise AssertionError("compare ran before the letters were checked")
    monkeypatch.setattr(pairedframe.comparison, "compare", no_compare)
    pq = _per_query(names=[f"s{i}" for i in range(27)], n_queries=5)
    with pytest.raises(ValueError, match=r"pairs='all' letters every system .* at most 26 .* got 27"):
        pf.results_table(pq, pairs="all")
    with pytest.raises(ValueError, match=r"baseline= .*at most 26 fit, got 27"):
        pf.results_table(pq, baseline=[f"s{i}" for i in range(27)])
    with pytest.raises(ValueError, match="got 27"):
        pf.results_table(pq, pairs="all", systems=[f"s{i}" for i in range(27)])


def test_table_command_refuses_pairs_all_beyond_26_runs_before_evaluating(monkeypatch):
    import pairedframe.evaluation as evaluation

    def no_evaluate(*args, **kwargs):
        raise AssertionError("evaluated before the letters were checked")
    monkeypatch.setattr(evaluation, "evaluate", no_evaluate)    # the command imports it when it runs
    qrels, runs = pf.example.example_paths()
    named = [f"r{i}={runs[i % 2]}" for i in range(27)]
    res = CliRunner().invoke(app, ["table", str(qrels), *named, "-m", "AP", "--pairs", "all"])
    assert res.exit_code == 2 and "--pairs all letters every run" in res.output and "got 27 runs" in res.output
    res = CliRunner().invoke(app, ["table", str(qrels), *named, "-m", "AP", *(f for i in range(27) for f in ("-b", f"r{i}"))])
    assert res.exit_code == 2 and "several --baseline" in res.output and "got 27" in res.output
    # the count is of baselines, not of the runs given (63 runs with 27 -b said "give at most 26 runs")
    assert "got 27 baselines: give at most 26 baselines" in " ".join(res.output.split())


def test_compare_markdown_and_latex_escape_system_names():
    """format_comparison (compare --format markdown / latex) writes the same escapes as the results table."""
    from pairedframe.report.compare import format_comparison

    names = ["a|b", "<dense-v2>", r"run\{x}", "x_y^z~"]
    cmp = pf.compare(_per_query(names=names).filter(pl.col("measure") == "AP"), baseline=names[0],
                     n_resamples=99, seed=0)       # resampled: the tie rule with its |T*| is printed
    rows, paragraphs = _markdown_cells(format_comparison(cmp, "markdown"))
    assert [r[0] for r in rows[1:]] == names[1:] and rows[0][0] == "system"
    assert f"baseline: {names[0]}" in paragraphs                       # the footer's list, as text
    assert any(p.startswith("pvalue_tie_rule: sign-flip null statistics with |T*| >= |T| - 100*eps*max") for p in paragraphs)
    tex = format_comparison(cmp, "latex")
    for name in names[1:]:
        assert latex_escape(name) + " & " in tex
    assert "|" not in tex.split(r"\end{tabular}")[0].replace(r"\textbar{}", "")


def test_one_sided_interval_ends_print_as_infinity_in_latex_markdown_and_html(tmp_path):
    """compare --format latex / markdown and the HTML tables write an unbounded end (one-sided
    interval) as $\\infty$ / ∞, never the text inf; the LaTeX compiles and pdflatex prints ∞."""
    import math

    from pairedframe.report.compare import format_comparison
    from pairedframe.report.html_page import plain_table
    from pairedframe.report.results_table import _cell_parts
    from pairedframe.report.table_latex import render_latex

    per_query = _per_query(names=["base", "new"]).filter(pl.col("measure") == "AP")
    greater = pf.compare(per_query, baseline="base", test="t", alternative="greater")
    less = pf.compare(per_query, baseline="base", test="t", alternative="less")
    assert greater["ci_high"][0] == math.inf and less["ci_low"][0] == -math.inf
    rows, _ = _markdown_cells(format_comparison(pl.concat([greater, less]), "markdown"))
    header = rows[0]
    assert [r[header.index("ci_high")] for r in rows[1:]][0] == "∞"
    assert [r[header.index("ci_low")] for r in rows[1:]][1] == "-∞"
    tex = format_comparison(pl.concat([greater, less]), "latex")
    body = tex.split(r"\end{tabular}")[0]
    assert body.count(r",\,$\infty$)}") == 1 and body.count(r"{\footnotesize ($-\infty$,\,") == 1   # half-open
    assert not re.search(r"(?<![\\\w])-?inf\b", body)
    assert latex_escape("[−∞, 0.5]") == r"[$-\infty$, 0.5]" and latex_escape("∞−") == r"$\infty-$"
    cell = _cell_parts({"mean": 0.3, "ci_low": -math.inf, "ci_high": 0.45, "halfwidth": None}, 3, "range")
    assert cell == ("0.300", " (-∞, 0.450]")                  # the results table's cell text
    results = render_latex(["new"], ["AP"], [[(*cell, "", None)]], "One-sided.", ci_layout="stacked")
    assert r"($-\infty$,\,0.450]" in results
    html_table = plain_table(["ci_low", "ci_high"], [[-math.inf, math.inf]], table_id="t")
    assert ">-∞</td>" in html_table and ">∞</td>" in html_table and "inf" not in html_table
    _, pdf = _compile(tmp_path, ["\\begin{table}[!t]\\centering\n" + tex + "\\end{table}\n", results])
    if shutil.which("pdftotext") is not None:
        text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
        assert text.count("∞") >= 3 and "inf" not in text.replace("infinity", "")


def test_terminal_shows_names_that_look_like_rich_markup_as_written():
    names = ["[bold]a", "run[x]", "b\\[c]", "plain"]
    pq = _per_query(names=names).with_columns(pl.col("measure").replace({"AP": "AP[red]"}))
    t = pf.results_table(pq, baseline="plain", n_resamples=99, title="[i]title")
    for text in (t.to_terminal(), t.to_terminal(ansi=True)):
        plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
        rows = [line.split("│")[1].strip() for line in plain.splitlines() if line.startswith("│")]
        assert rows == ["plain (baseline)", *names[:3]]
        assert "AP[red]" in plain and "[i]title" in plain


def test_compare_and_evaluate_terminal_tables_show_bracketed_names_as_written(tmp_path):
    from pairedframe.report.compare import format_comparison

    names = ["base", "[bold]x", "run[y]"]
    cmp = pf.compare(_per_query(names=names).filter(pl.col("measure") == "AP"), baseline="base", test="t")
    text = format_comparison(cmp, "table")
    assert "[bold]x" in text and "run[y]" in text
    qrels, runs = pf.example.example_paths()
    res = CliRunner().invoke(app, ["evaluate", str(qrels), f"[bold]x={runs[0]}", f"run[y]={runs[1]}", "-m", "AP"])
    assert res.exit_code == 0 and "[bold]x" in res.stdout and "run[y]" in res.stdout


def test_terminal_tables_show_names_ending_in_a_backslash_as_written():
    """rich's escape() doubles a trailing backslash, so a system named c\\ printed as c\\\\ in the terminal
    (LaTeX and markdown were right): the results table, the comparison table and the CLI tables."""
    from pairedframe.report.compare import format_comparison

    names = ["base", "c\\", "d\\\\", "e\\[x]"]
    pq = _per_query(names=names)
    t = pf.results_table(pq, baseline="base", test="t", title="t\\")
    for text in (t.to_terminal(), t.to_terminal(ansi=True)):
        plain = re.sub(r"\x1b\[[0-9;]*m", "", text)
        rows = [line.split("│")[1].strip() for line in plain.splitlines() if line.startswith("│")]
        assert rows == ["base (baseline)", *names[1:]] and plain.splitlines()[0].strip() == "t\\"
    text = format_comparison(pf.compare(pq.filter(pl.col("measure") == "AP"), baseline="base", test="t"), "table")
    rows = [line.split("│")[1].strip() for line in text.splitlines() if line.startswith("│")]
    assert names[1:] == [r for r in rows if r in names], rows
    qrels, runs = pf.example.example_paths()
    res = CliRunner().invoke(app, ["evaluate", str(qrels), f"c\\={runs[0]}", f"run[y]={runs[1]}", "-m", "AP"])
    assert res.exit_code == 0 and re.search(r"│ c\\ +│", res.stdout), res.stdout


def test_cli_table_title_is_printed_as_written_not_read_as_rich_markup():
    """segments' title names the baseline: a baseline called "[bold]b" must print as such, not vanish."""
    import io

    from pairedframe.cli.common import print_frame

    out = io.StringIO()
    print_frame(pl.DataFrame({"system": ["x"], "AP": [0.5]}), "table", title="vs baseline [bold]b\\", file=out)
    assert " ".join(out.getvalue().split()).startswith("vs baseline [bold]b\\ ")  # rich wraps it to the table


def test_scope_css_keeps_statements_and_scopes_rules_inside_media_blocks():
    from pairedframe.report.table_html import scope_css

    css = ("<style>@import url('https://fonts.example/css?family=X');\n#t p { margin: 0; }\n tr { color: red; }\n"
           "@media (max-width: 600px) { .gt_table { width: 100%; } td, th { padding: 0 } }</style><p>tr { x }</p>")
    assert scope_css(css, "t") == (
        "<style>@import url('https://fonts.example/css?family=X');\n#t p { margin: 0; }\n #t tr { color: red; }\n"
        "@media (max-width: 600px) { #t .gt_table { width: 100%; } #t td, #t th { padding: 0 } }</style>"
        "<p>tr { x }</p>")                                   # text outside <style> untouched


def test_table_command_ci_layout_chooses_where_latex_puts_the_interval():
    qrels, runs = pf.example.example_paths()
    args = ["table", str(qrels), *map(str, runs), "-m", "AP", "-B", "99", "--ci", "range", "-f", "latex"]
    stacked, inline = (CliRunner().invoke(app, [*args, *extra]) for extra in ([], ["--ci-layout", "inline"]))
    assert stacked.exit_code == inline.exit_code == 0, stacked.output + inline.output
    assert r"{\footnotesize [" in stacked.stdout and r"\footnotesize" not in inline.stdout
    bad = CliRunner().invoke(app, [*args, "--ci-layout", "below"])
    assert bad.exit_code == 2 and "--ci-layout must be one of inline, stacked" in bad.output


def test_compare_and_segments_latex_protect_a_row_starting_with_a_bracket_or_star(tmp_path):
    """'[x]run' after \\midrule is read as its optional width (pdflatex: fatal 'Missing number'), '*star'
    after \\\\ as \\\\* (the star vanishes): compare's and the CLI tables' LaTeX put {} first, as the
    results table does; the document compiles."""
    from pairedframe.cli.common import to_latex
    from pairedframe.report.compare import format_comparison

    names = ["base", "[x]run", "*star"]
    cmp = pf.compare(_per_query(names=names).filter(pl.col("measure") == "AP"), baseline="base", test="t")
    tex = format_comparison(cmp, "latex")
    cli = to_latex(cmp.select("system", "measure", "delta"))
    for text in (tex, cli):
        assert "\n{}[x]run & " in text and "\n{}*star & " in text
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed")
    doc = tmp_path / "t.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                   + tex.split("\n%")[0] + "\n" + cli + "\n\\end{document}\n", encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_results_table_docstring_names_only_attributes_the_result_has():
    """help(pf.results_table) promised ``frame``, which raises (renamed ``table``)."""
    import re as _re

    returns = pf.results_table.__doc__.split("Returns")[1].split("Raises")[0]
    named = _re.findall(r"``(\w+)(?:\(\))?``", returns)
    assert "table" in named and "frame" not in named
    t = pf.results_table(_per_query(names=["base", "x"]), baseline="base", test="t")
    for name in named:
        assert getattr(t, name) is not None, name


def test_latex_label_with_a_character_latex_reads_as_markup_is_refused():
    """to_latex(label='tab:a_b#%') wrote \\label{tab:a_b#%}, which stops LaTeX; table_id was checked, label not."""
    t = pf.results_table(_per_query(names=["base", "x"]), baseline="base", test="t")
    assert r"\label{tab:main_1.a-b/c}" in t.to_latex(label="tab:main_1.a-b/c")
    for bad in ("tab:a_b#%", "tab a", "tab:{x}", "t$x$", "a\\b"):
        with pytest.raises(ValueError, match=r"`label` .* holds a blank or one of # % & \{ \} \\ ~ \$ \^"):
            t.to_latex(label=bad)


def test_cli_tables_write_unbounded_interval_ends_as_compare_does():
    """segments -f latex / markdown wrote 'inf' where compare's tables write ∞ and $\\infty$."""
    from pairedframe.cli.common import to_latex, to_markdown

    frame = pl.DataFrame({"segment": ["a"], "ci_low": [float("-inf")], "ci_high": [float("inf")], "pvalue": [0.5]})
    assert "| a | -∞ | ∞ | 0.5000 |" in to_markdown(frame)
    assert r"a & $-\infty$ & $\infty$ & 0.5000 \\" in to_latex(frame) and "inf " not in to_latex(frame)


def test_negative_numbers_and_minus_infinity_share_one_sign_per_format():
    """compare -f markdown wrote a one-sided interval's end as "−∞" (U+2212) beside "-0.0180" (hyphen-minus),
    and LaTeX wrote $-\\infty$ (math minus) beside a text hyphen.  Each format now has one sign: markdown,
    HTML and the terminal the hyphen-minus (a copied number still parses), LaTeX the math minus; csv keeps
    -inf and json a number."""
    import json
    import math

    from pairedframe.cli.common import to_latex, to_markdown
    from pairedframe.report.compare import format_comparison
    from pairedframe.report.html_page import plain_table
    from pairedframe.report.results_table import _cell_parts
    from pairedframe.report.table_latex import render_latex

    per_query = _per_query(names=["base", "new"]).filter(pl.col("measure") == "AP")
    less = pf.compare(per_query.with_columns(pl.when(pl.col("system") == "new").then(pl.col("value") - 0.2)
                                             .otherwise(pl.col("value")).alias("value")),
                      baseline="base", test="t", alternative="less")
    assert less["ci_low"][0] == -math.inf and less["delta"][0] < 0 and less["ci_high"][0] < 0
    rows, _ = _markdown_cells(format_comparison(less, "markdown"))
    cells = dict(zip(rows[0], rows[1]))
    assert cells["ci_low"] == "-∞" and cells["delta"].startswith("-0.") and cells["ci_high"].startswith("-0.")
    md = format_comparison(less, "markdown").split("\n\n")[0]
    assert "−" not in md
    tex = format_comparison(less, "latex").split(r"\end{tabular}")[0]
    assert r"($-\infty$,\,$-$0." in tex and re.search(r"& \$-\$0\.\d{4} &", tex)
    assert not re.search(r"(?<![$\w])-\d", tex.replace(r"\\[-2pt]", r"\\"))  # no text-mode hyphen before a digit
    assert "| -∞ | -0.5000 |" in to_markdown(pl.DataFrame({"lo": [-math.inf], "x": [-0.5]}))
    assert r"$-\infty$ & $-$0.5000 \\" in to_latex(pl.DataFrame({"lo": [-math.inf], "x": [-0.5]}))
    assert r"$-$1.0e-05" not in to_latex(pl.DataFrame({"x": [-0.00001]}))      # never an exponent's sign...
    assert r"e-05" in to_latex(pl.DataFrame({"x": [-0.00001]}))                  # ...which stays a hyphen
    html_table = plain_table(["lo", "x"], [[-math.inf, -0.5]], table_id="t")
    assert ">-∞</td>" in html_table and ">-0.5000</td>" in html_table
    cell = _cell_parts({"mean": -0.3, "ci_low": -math.inf, "ci_high": -0.1, "halfwidth": None}, 3, "range")
    assert cell == ("-0.300", " (-∞, -0.100]")
    results = render_latex(["new"], ["Z"], [[(*cell, "", None)]], "One-sided.", ci_layout="inline")
    assert r"$-$0.300 ($-\infty$, $-$0.100]" in results
    assert "-inf" in format_comparison(less, "csv") and json.loads(format_comparison(less, "json"))["rows"][0]["delta"] < 0


def test_letter_caption_explains_losses_only_when_a_cell_shows_one(hostile_tables):
    """The loss sentence made the 20-system LaTeX table 7 pt too tall for its page with no loss in any cell."""
    lettered = hostile_tables[1]
    assert not any("‡" in m for m in lettered.table["marks"])
    assert "‡" not in lettered.caption and "Letters: significantly better than the baseline" in lettered.caption


@pytest.mark.parametrize("level, n_resamples", [(0.95, 19), (0.9, 9), (0.95, 9)])
def test_caption_blames_the_floor_when_the_raw_p_is_alpha_or_above(level, n_resamples):
    """At 95 % with 19 resamples the raw p-values stop at 1/20 = alpha, which is no mark: the caption left out the
    hint that more resamples could mark cells exactly there (it gave it only for a floor below alpha)."""
    names = ["s0", "s1", "s2"]
    rng = np.random.default_rng(2)
    pq = pl.concat([pl.DataFrame({"system": s, "qid": [f"q{k}" for k in range(40)], "measure": "AP",
                                  "value": 0.2 * i + rng.normal(0, 0.01, 40)}) for i, s in enumerate(names)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = pf.results_table(pq, baseline="s0", n_resamples=n_resamples, confidence_level=level, seed=0)
    assert not any(t.table["marks"])
    assert f"the least {n_resamples:,} resamples can give: more resamples could mark cells." in t.caption


def test_compare_markdown_and_latex_say_what_delta_is_as_the_terminal_title_does():
    """compare -f markdown / latex dropped the terminal title "delta = system - baseline": a reader of the
    pasted table could not tell b - a from a - b. Markdown has it as pandoc's caption paragraph, LaTeX as the
    comment above the tabular."""
    from pairedframe.report.compare import format_comparison

    cmp = pf.compare(_per_query(names=["base", "new"]).filter(pl.col("measure") == "AP"), baseline="base", test="t")
    title = "paired comparison vs baseline (delta = system - baseline)"
    _, paragraphs = _markdown_cells(format_comparison(cmp, "markdown"))
    assert f"Table: {title}" in paragraphs
    assert format_comparison(cmp, "latex").startswith(f"% {title}\n\\begingroup")
    assert format_comparison(cmp, "latex", title="a\nb").startswith("% a b\n\\begingroup")
    assert title in format_comparison(cmp, "table").splitlines()[0]


def _overfull(tmp_path, bodies):
    log, _ = _compile(tmp_path, bodies)
    return [line for line in log.splitlines() if re.search(r"Overfull|Underfull|too large|^! ", line)]


@pytest.mark.shared_data
def test_compare_latex_of_real_runs_fits_an_article_page(shared_data, tmp_path):
    """compare -f latex printed 15 columns, 443 pt too wide for an article's 345 pt text width (three TREC DL
    2019 runs, nDCG@10 and AP): it keeps the comparison's columns (delta with its interval below it, the p the
    verdict follows, the verdict) and takes \\small / \\footnotesize when needed; pdflatex finds no overfull box,
    against one baseline and against several (--pairs all: each system's baseline below its name)."""
    dl19 = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2019"
    runs = [str(dl19 / "passages-runs" / name) for name in ("ICT-CKNRM_B", "ICT-BERT2", "ICT-CKNRM_B50")]
    bodies = []
    for extra in ([], ["--pairs", "all"]):
        res = CliRunner().invoke(app, ["compare", str(dl19 / "qrels-pass.txt"), *runs, "-m", "nDCG@10", "-m", "AP",
                                       "-B", "300", "-f", "latex", *extra])
        assert res.exit_code == 0, res.output
        header = res.stdout.split(r"\begin{tabular}")[1].splitlines()[2]
        assert header.startswith("system") and header.count("&") == 5, header   # 6 columns, not 15
        left_out = re.search(r"^% columns left out here \(in -f csv / json\): (.*)$", res.stdout, flags=re.M)
        assert left_out and {"baseline_mean", "system_mean", "pvalue", "wins", "losses", "ties", "mde"} <= \
            set(left_out.group(1).split(", ")), res.stdout
        bodies.append("\\begin{table}[!t]\\centering\n" + res.stdout + "\\end{table}\n")
    assert r"{\footnotesize vs ICT-BERT2}" in bodies[1] and "system (vs baseline)" in bodies[1]
    assert not _overfull(tmp_path, bodies)


def test_compare_latex_takes_a_smaller_size_only_when_the_text_size_would_not_fit(tmp_path):
    """The width rule (tabular_font_size, from text_width's estimate): short names keep the text size; names
    too wide for it get \\small or \\footnotesize, and pdflatex finds no overfull box in either."""
    from pairedframe.report.compare import format_comparison

    short = pf.compare(_per_query(names=["bm25", "dense", "rerank"]), baseline="bm25", test="t")
    wide = pf.compare(_per_query(names=["bl_bcai_p_nn_rt", "ielab-robertav2 (rerank)", "Fast_ForwardP_2", "NLE_P_v1"]),
                      pairs="all", test="t")
    size = {name: format_comparison(c, "latex").splitlines()[1] for name, c in (("short", short), ("wide", wide))}
    assert size["short"] == "\\begingroup\\setlength{\\tabcolsep}{4pt}%"
    assert size["wide"] in ("\\begingroup\\small\\setlength{\\tabcolsep}{4pt}%",
                            "\\begingroup\\footnotesize\\setlength{\\tabcolsep}{4pt}%")
    hostile = pf.compare(_per_query(names=NAMES[:8]).filter(pl.col("measure").is_in(["AP", "nDCG@10"])),
                         baseline=NAMES[0], test="t")
    bodies = ["\\begin{table}[!t]\\centering\n" + format_comparison(c, "latex") + "\\end{table}\n"
              for c in (short, wide, hostile)]
    assert not _overfull(tmp_path, bodies)


def test_text_width_estimates_what_pdflatex_sets(tmp_path):
    """The oracle is pdflatex's \\settowidth: text_width is at most 3 % wider (kerning, as in 'Fa', is not
    counted) and never 0.5 % narrower, for run names, measures and numbers at the text size and, times
    FOOTNOTESIZE, for the \\footnotesize interval line: a table it says fits does fit."""
    from pairedframe.report.table_latex import FOOTNOTESIZE, text_width

    texts = ["ICT-CKNRM_B50", "ielab-robertav2 (rerank)", "nDCG@10", "P(rel=2)@10", "-0.0467", "[-0.1057, 0.0122]",
             "inconclusive", "delta [95% CI]", "TUW_TAS-B_768", "Fast_ForwardP_2"]
    probes = "".join(rf"\settowidth\w{{{latex_number(t)}}}\typeout{{W \the\w}}"
                     rf"\settowidth\w{{\footnotesize {latex_number(t)}}}\typeout{{W \the\w}}" for t in texts)
    doc = tmp_path / "w.tex"
    doc.write_text("\\documentclass{article}\n\\newlength\\w\n\\begin{document}\n" + probes + "x\n\\end{document}\n")
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed")
    log = subprocess.run(["pdflatex", "-interaction=nonstopmode", doc.name], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120).stdout
    measured = [float(w) for w in re.findall(r"^W ([\d.]+)pt", log, flags=re.M)]
    assert len(measured) == 2 * len(texts)
    for text, normal, small in zip(texts, measured[::2], measured[1::2]):
        for estimate, width in ((text_width(text), normal), (FOOTNOTESIZE * text_width(text), small)):
            assert width * 0.995 <= estimate <= width * 1.03, (text, estimate, width)


@pytest.mark.parametrize("title, heading", [("Runs on DL-19 & <v2>", "Runs on DL-19 & <v2>."),
                                            ("Which run wins?", "Which run wins?")])
def test_latex_caption_starts_with_the_title_in_bold_as_the_other_renderings_show_it(tmp_path, title, heading):
    """title= headed the HTML, markdown and terminal renderings but not the LaTeX: it now starts the caption in
    bold (a full stop added unless it ends in one) and alone names the table in a list of tables; the oracle
    is the PDF (pdftotext reads the caption back) and pdflatex's .lot file."""
    t = pf.results_table(_per_query(names=["base", "new"]), baseline="base", n_resamples=99, seed=0, title=title)
    tex = t.to_latex()
    assert tex.count(latex_escape(title)) == 2, tex
    untitled = pf.results_table(_per_query(names=["base", "new"]), baseline="base", n_resamples=99, seed=0).to_latex()
    assert latex_escape(title) not in untitled and r"\textbf{" not in untitled.split(r"\caption{")[1].split("\n")[0]
    _, pdf = _compile(tmp_path, ["\\listoftables\n" + tex])
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed (apt-get install poppler-utils) to read the PDF back")
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    assert f"Table 1: {heading} {t.caption.split()[0]}" in text, text[:600]
    lot = (tmp_path / "tables.lot").read_text(encoding="utf-8")
    assert latex_escape(title).replace(" ", "") in lot.replace(" ", "") and t.caption.split()[0] not in lot, lot
