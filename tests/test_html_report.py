"""pf.report / ``pairedframe report``: one self-contained HTML file whose numbers are the package's own,
with CSS that styles nothing outside it, and clear errors for bad input (tests/test_report_browser.py
opens it in a real browser)."""

from __future__ import annotations

import html
import math
import re
import subprocess
import sys
import warnings
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import pairedframe as pf
from pairedframe.example import example_paths

pytest.importorskip("matplotlib", reason="the agreement scatter draws with matplotlib (pip install '.[plot]')")
pytest.importorskip("great_tables", reason="the report's table renders through great_tables ('.[report]')")

CLI = [sys.executable, "-c", "from pairedframe.cli import main; main()"]


class _Page(HTMLParser):
    """Ids, tags with attributes, text of <style> blocks and every element's text, from an HTML string."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.styles: list[str] = []
        self._in_style = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if a.get("id"):
            self.ids.append(a["id"])
        self._in_style = tag == "style"

    def handle_endtag(self, tag):
        self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.styles.append(data)

    def count(self, tag: str, **attrs: str) -> int:
        return sum(t == tag and all(a.get(k) == v for k, v in attrs.items()) for t, a in self.tags)


def _selectors(css: str) -> list[str]:
    """Every selector of every rule (inside @media blocks too)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"@import[^;]*;", "", css)
    out = []
    for prelude in re.findall(r"([^{}]+)\{[^{}]*\}", css):
        prelude = prelude.strip()
        if prelude.startswith("@"):
            continue
        out += [s.strip() for s in prelude.split(",") if s.strip()]
    return out


@pytest.fixture(scope="module")
def example_report():
    qrels, runs = example_paths()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pf.report(runs, qrels, ["nDCG@10", "AP", "P@10"], baseline="bm25", n_resamples=999, seed=3)


def test_report_is_one_self_contained_document(example_report):
    text = example_report.html
    page = _Page(text)
    assert text.startswith("<!DOCTYPE html>")
    # nothing to fetch: no script, no link, every image a data URI, no url() or @import in the CSS
    assert page.count("script") == 0 and page.count("link") == 0 and page.count("iframe") == 0
    images = [a["src"] for t, a in page.tags if t == "img"]
    assert images and all(src.startswith(("data:image/svg+xml;base64,", "data:image/png;base64,")) for src in images)
    css = "".join(page.styles)
    assert "url(" not in css and "@import" not in css
    assert not re.search(r"""(src|href)=["']?(https?:|//)""", text)


def test_report_ids_are_unique_and_every_css_rule_is_scoped(example_report):
    page = _Page(example_report.fragment)
    assert len(page.ids) == len(set(page.ids))
    root = page.tags[0][1]["id"]
    assert page.tags[0][0] == "div" and re.fullmatch(r"pf-report-[0-9a-f]{12}", root)
    assert all(i.startswith(root) for i in page.ids)
    selectors = _selectors("".join(page.styles))
    assert selectors and all(s.startswith(f"#{root}") for s in selectors), \
        [s for s in selectors if not s.startswith(f"#{root}")]
    # two reports on one page never share an id
    other = pf.report(example_report.evaluation, baseline="bm25", n_resamples=99)
    assert not set(page.ids) & set(_Page(other.fragment).ids)


def test_report_tables_keep_numbers_and_measure_names_on_one_line_and_break_names_between_parts(example_report):
    """The stylesheet let the browser break any word anywhere (``overflow-wrap: anywhere``): 1.00e-04 showed
    as 1.00e- over 04.  tests/test_report_browser.py checks the rendering itself in Chromium."""
    from pairedframe.report.html_page import SHORT_NAME, breakable, plain_table

    root = _Page(example_report.fragment).tags[0][1]["id"]
    css = "".join(_Page(example_report.fragment).styles)
    assert "anywhere" not in css
    for cls in ("pf-num", "pf-whole"):
        assert re.search(rf"#{root} table\.pf-plain td\.{cls} {{[^}}]*white-space: nowrap", css), cls
    assert '<td class="pf-whole">nDCG@10</td>' in example_report.fragment      # the comparisons' measure column
    long = "reranker_monoT5-3B_maxlen512_" * 2
    assert len(long) > SHORT_NAME
    table = plain_table(["n_queries", "measure", "system"], [[43, "nDCG@10", "bm25_tuned"], [1e-5, "a b", long]],
                        table_id="t", whole=("measure",))
    assert '<th scope="col">n_<wbr>queries</th>' in table
    assert '<td class="pf-num">1.00e-05</td>' in table and '<td class="pf-num">43</td>' in table
    assert '<td class="pf-whole">nDCG@10</td>' in table and '<td class="pf-whole">a b</td>' in table
    assert '<td class="pf-whole">bm25_tuned</td>' in table                   # short: fits a cell whole
    assert f"<td>{breakable(long)}</td>" in table and breakable(long).count("<wbr>") == 5
    assert "<wbr>" not in breakable("0.95 1.00e-04 -0.0384 nDCG@10 AP(rel=2) v1.2.3", longer_than=0)
    assert breakable("/runs/input.bm25_rm3.gz", longer_than=0) == "/<wbr>runs/<wbr>input.<wbr>bm25_<wbr>rm3.<wbr>gz"
    assert breakable("a<b_c", longer_than=0) == "a&lt;b_<wbr>c"
    assert breakable(f"as trec_eval does: {long}") == f"as trec_eval does: {breakable(long)}"   # long words only


def test_report_shown_twice_repeats_no_id_and_each_copy_links_to_itself(example_report):
    """A notebook displaying the same Report twice put two copies of one fragment on a page: every id twice."""
    renderings = [example_report._repr_html_(), example_report._repr_html_(), example_report.fragment]
    pages = [_Page(text) for text in renderings]
    ids = [i for page in pages for i in page.ids]
    assert len(ids) == len(set(ids)) and len(ids) == 3 * len(pages[0].ids)
    for page in pages:
        targets = [a["href"][1:] for tag, a in page.tags if tag == "a" and (a.get("href") or "").startswith("#")]
        assert targets and set(targets) <= set(page.ids), set(targets) - set(page.ids)
    # the same report under another root: nothing else differs
    roots = [page.tags[0][1]["id"] for page in pages]
    assert renderings[1].replace(roots[1], roots[0]) == renderings[0]


def test_report_sections_hold_the_comparison_against_pf_compare(example_report):
    """The report's comparison, table and verdicts are pf.compare's and pf.results_table's, run alone."""
    ev = example_report.evaluation
    alone = pf.compare(ev, baseline="bm25", n_resamples=999, seed=3)
    assert example_report.comparison.equals(alone)
    table = pf.results_table(ev, alone, ci="range")
    assert example_report.table.table.sort("system", "measure").equals(table.table.sort("system", "measure"))
    page = _Page(example_report.fragment)
    root = page.tags[0][1]["id"]
    assert page.count("table", id=f"{root}-comparisons-table") == 1
    fragment = example_report.fragment
    for row in alone.iter_rows(named=True):      # each delta as the comparison table prints it
        assert f"{row['delta']:.4f}" in fragment
    assert "Mean nDCG@10, AP, P@10 over 60 queries." in fragment            # the table's caption
    assert "significantly better / worse than bm25" in fragment
    # one forest plot per measure; one bar chart per measure for the single compared system
    assert sum(i.startswith(f"{root}-forest-") for i in page.ids) == 3
    assert sum(i.startswith(f"{root}-delta-") for i in page.ids) == 3
    assert f"{root}-settings" in page.ids and f"{root}-versions" in page.ids


def _svgs(fragment: str, kind: str) -> list[str]:
    """The SVG documents of the report's figures whose id contains ``-<kind>-``, in order."""
    import base64

    found = re.findall(rf'<figure id="[^"]*-{kind}-[^"]*" class="pf-figure"><img src="data:image/svg\+xml;base64,'
                       r'([^"]+)"', fragment)
    return [base64.b64decode(b).decode("utf-8") for b in found]


def test_report_forest_rows_against_pf_compare(example_report):
    """Each forest plot holds one circle per system whose title is that row of pf.compare: delta,
    interval, verdict; coloured by the verdict (forest.COLOURS), in delta order from the bottom."""
    from pairedframe.report.forest import COLOURS

    alone = pf.compare(example_report.evaluation, baseline="bm25", n_resamples=999, seed=3)
    forests = _svgs(example_report.fragment, "forest")
    assert len(forests) == 3
    for svg, measure in zip(forests, ["nDCG@10", "AP", "P@10"]):
        assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
        marks = re.findall(r'<circle id="pf-segment-(\d+)"[^>]* fill="([^"]+)"><title>([^<]+)</title>', svg)
        rows = alone.filter(pl.col("measure") == measure).sort("delta")
        assert len(marks) == rows.height
        for (i, colour, title), row in zip(marks, rows.iter_rows(named=True)):
            assert title == (f"{row['system']}: delta {row['delta']:+.4f}, interval [{row['ci_low']:.4f}, "
                             f"{row['ci_high']:.4f}], {row['verdict']}")
            assert colour == COLOURS.get(row["verdict"], COLOURS["not significant"])


def test_report_delta_bars_against_compare_wins_losses_and_paired_per_query(example_report):
    """Each bar chart has one bar per paired query (title ``qid: delta`` as paired_per_query gives it),
    and as many blue / red / grey bars as pf.compare counts wins / losses / ties."""
    from pairedframe.report.plots import LOSS_COLOUR, TIE_COLOUR, WIN_COLOUR

    ev = example_report.evaluation
    alone = pf.compare(ev, baseline="bm25", n_resamples=999, seed=3)
    pairs = pf.paired_per_query(ev, baseline="bm25")
    charts = _svgs(example_report.fragment, "delta")
    assert len(charts) == 3
    for svg, measure in zip(charts, ["nDCG@10", "AP", "P@10"]):
        bars = re.findall(r'<rect id="pf-bar-\d+"[^>]* fill="([^"]+)"><title>([^<]+)</title>', svg)
        want = pairs.filter(pl.col("measure") == measure).sort("delta", "qid")
        assert [t for _, t in bars] == [f"{q}: {d:+.4f}" for q, d in want.select("qid", "delta").iter_rows()]
        row = alone.filter(pl.col("measure") == measure).row(0, named=True)
        colours = [c for c, _ in bars]
        assert (colours.count(WIN_COLOUR), colours.count(LOSS_COLOUR), colours.count(TIE_COLOUR)) == \
            (row["wins"], row["losses"], row["ties"])
        assert f"reranker better ({row['wins']})" in svg and f"tie ({row['ties']})" in svg


def test_delta_bars_of_a_lower_is_better_measure_count_a_lower_value_as_a_win():
    from pairedframe.report.html_svg import delta_bars_svg
    from pairedframe.report.plots import LOSS_COLOUR, WIN_COLOUR

    pairs = pl.DataFrame({"system": ["b"] * 3, "measure": ["FirstRelRank"] * 3, "qid": ["1", "2", "3"],
                          "a": [3.0, 1.0, 2.0], "b": [1.0, 4.0, 2.0], "delta": [-2.0, 3.0, 0.0]})
    svg = delta_bars_svg(pairs, baseline="a", system="b", measure="FirstRelRank")
    colours = dict((t.split(":")[0], c) for c, t in
                   re.findall(r'<rect id="pf-bar-\d+"[^>]* fill="([^"]+)"><title>([^<]+)</title>', svg))
    assert colours["1"] == WIN_COLOUR and colours["2"] == LOSS_COLOUR
    assert "(lower is better)" in svg
    with pytest.raises(ValueError, match="no paired query of 'c'"):
        delta_bars_svg(pairs, baseline="a", system="c", measure="FirstRelRank")


@given(low=st.floats(-1e3, 1e3), span=st.floats(1e-6, 1e3), most=st.integers(2, 10))
def test_nice_ticks_are_round_evenly_spaced_and_inside_the_range(low, span, most):
    from pairedframe.report.html_svg import nice_ticks

    high = low + span
    assume(high > low and span > 1e-9 * max(1.0, abs(low)))
    ticks = nice_ticks(low, high, most)
    assert 1 <= len(ticks) <= 2 * most
    assert all(low - 1e-9 * span <= t <= high + 1e-9 * span for t in ticks)
    if len(ticks) > 1:
        step = ticks[1] - ticks[0]
        mantissa = step / 10 ** math.floor(math.log10(step))
        assert min(abs(mantissa - f) for f in (1, 2, 5, 10)) < 1e-6
        assert all(math.isclose(b - a, step, rel_tol=1e-6, abs_tol=1e-9 * span) for a, b in zip(ticks, ticks[1:]))


def test_report_without_other_judgment_sets_does_not_import_matplotlib():
    """Only the agreement scatter draws with matplotlib (importing it costs seconds on a 63-run report)."""
    code = ("import sys, warnings, pairedframe as pf\nfrom pairedframe.example import example_paths\n"
            "warnings.simplefilter('ignore')\nq, r = example_paths()\n"
            "pf.report(r, q, 'nDCG@10', baseline='bm25', n_resamples=99)\nprint('matplotlib' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_report_heatmap_cells_against_paired_per_query(four_systems_per_query):
    from pairedframe.report.html_heatmap import heatmap_html

    frame = heatmap_html(four_systems_per_query, baseline="bm25", measure="AP", systems=["rm3", "bert_base", "t5"],
                         table_id="h")
    pairs = pf.paired_per_query(four_systems_per_query, baseline="bm25", measures="AP")
    rows = re.findall(r'<tr><th scope="row" title="([^"]+)">\1</th>(.*?)</tr>', frame)
    means = pairs.group_by("system").agg(pl.col("delta").mean()).sort("delta", descending=True)
    assert [r[0] for r in rows] == means["system"].to_list()              # largest mean gain on top
    for system, cells in rows:
        tips = dict(re.findall(r'title="([^:]+): ([^"]+)"', cells))
        want = pairs.filter(pl.col("system") == system)
        assert len(tips) == want.height == 30
        for qid, delta in want.select("qid", "delta").iter_rows():
            assert tips[qid] == f"{delta:+.4f}"


def test_report_heatmap_colours_follow_the_measure_direction():
    from pairedframe.report.html_heatmap import gain_colour

    assert gain_colour(0.0, 1.0) == "#ffffff"
    assert gain_colour(1.0, 1.0) == "#2166ac" and gain_colour(-1.0, 1.0) == "#b2182b"
    assert gain_colour(None, 1.0) == "#dddddd"
    half = gain_colour(0.5, 1.0)
    assert half not in ("#ffffff", "#2166ac")


def test_report_agreement_section_against_label_and_rank_agreement(tmp_path):
    qrels, runs = example_paths()
    lines = Path(qrels).read_text().splitlines()
    # another judgment set: every third label moved one grade (bounded to 0..3)
    other = tmp_path / "other.qrels"
    moved = []
    for i, line in enumerate(lines):
        q, it, d, r = line.split()
        g = int(r)
        moved.append(f"{q} {it} {d} {min(3, g + 1) if i % 3 == 0 else g}")
    other.write_text("\n".join(moved) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pf.report(runs, qrels, "nDCG@10", baseline="bm25", judgments={"moved": str(other)}, n_resamples=199)
    la = pf.label_agreement(qrels, str(other), names=("qrels", "moved"), binary_at=1)
    page = _Page(rep.fragment)
    root = page.tags[0][1]["id"]
    assert f"{root}-agreement" in page.ids and f"{root}-labels-0" in page.ids
    assert f"<td class=\"pf-num\">{la.kappa:.3f}</td>" in rep.fragment
    assert f"<td class=\"pf-num\">{la.n_common}</td>" in rep.fragment
    assert "--judgments moved=" in rep.settings["command"] if rep.settings["command"] else True


def test_report_grades_trec_eval_reaches_the_label_agreement_of_fractional_grades(tmp_path):
    """grades='trec_eval' with judgments: the label agreement read the files strictly and stopped the report
    at a grade such as 1.5 that the evaluation had just read as 1. Now both readings are trec_eval's, the kappa
    is label_agreement's of the tables read_qrels(grades='trec_eval') returns, and each file's warning comes once."""
    qrels, runs = example_paths()
    lines = Path(qrels).read_text().splitlines()
    half, other = tmp_path / "half.qrels", tmp_path / "other.qrels"
    fields = [line.split() for line in lines]
    half.write_text("".join(f"{q} {it} {d} {r}{'.5' if i % 7 == 0 else ''}\n" for i, (q, it, d, r) in enumerate(fields)))
    other.write_text("".join(f"{q} {it} {d} {min(3, int(r) + (i % 3 == 0))}{'.5' if i % 5 == 0 else ''}\n"
                             for i, (q, it, d, r) in enumerate(fields)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rep = pf.report(runs, str(half), "nDCG@10", baseline="bm25", judgments={"llm": str(other)}, n_resamples=99,
                        grades="trec_eval")
    read_as = [str(w.message) for w in caught if "read as" in str(w.message)]
    assert len(read_as) == 2 and any("half.qrels" in m for m in read_as) and any("other.qrels" in m for m in read_as)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        la = pf.label_agreement(pf.read_qrels(half, grades="trec_eval"), pf.read_qrels(other, grades="trec_eval"),
                                binary_at=1)
    assert f"<td class=\"pf-num\">{la.kappa:.3f}</td>" in rep.fragment
    assert f"<td class=\"pf-num\">{la.n_common}</td>" in rep.fragment


def _sections_list_in_order(fragment: str, names: list[str], measure: str) -> None:
    """The results table names the systems in ``names``' order, the comparisons the others (the baseline is
    first), and so does each forest plot's title; the forest's rows are drawn by delta, as documented."""
    import base64

    root = re.search(r'id="(pf-report-[0-9a-f]{12})"', fragment).group(1)
    for section, shown in (("table", names), ("comparisons", names[1:])):
        body = re.search(rf'<section id="{root}-{section}">(.*?)</section>', fragment, re.S).group(1)
        first = [body.index(n) for n in shown]
        assert first == sorted(first), (section, sorted(shown, key=lambda n: body.index(n)))
    forest = re.search(rf'<section id="{root}-forest">(.*?)</section>', fragment, re.S).group(1)
    svg = base64.b64decode(re.search(r"data:image/svg\+xml;base64,([^\"]+)", forest).group(1)).decode()
    assert f"{measure}: {', '.join(names[1:])} − baseline {names[0]}" in html.unescape(svg)


def test_report_lists_systems_in_the_order_given_as_table_does(tmp_path):
    """report sorted its systems by name (bm25base_p, UNH_bm25, p_bert) where table keeps the order given
    (bm25base_p, p_bert, UNH_bm25): the results table, forest plots, deltas and comparisons now follow the
    runs as given, from Python (a list of paths, a mapping) and from the command line alike."""
    from typer.testing import CliRunner

    from pairedframe.cli import app

    qrels, (bm25, reranker) = example_paths()
    order = ["zz_base", "mm_run", "aa_run"]                  # alphabetically the reverse
    paths = []
    for name, source in zip(order, (bm25, reranker, bm25)):
        path = tmp_path / f"input.{name}"
        lines = [line.split() for line in Path(source).read_text().splitlines()]
        flip = -1 if name == "aa_run" else 1                  # a third ranking: bm25's upside down
        path.write_text("".join(f"{q} Q0 {d} {r} {flip * float(score)} {name}\n" for q, _, d, r, score, _ in lines))
        paths.append(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        listed = pf.report(paths, qrels, ["AP", "nDCG@10"], baseline="zz_base", n_resamples=99)
        mapped = pf.report(dict(zip(order, paths)), qrels, "AP", baseline="zz_base", n_resamples=99)
    for rep in (listed, mapped):
        assert rep.evaluation.systems == order and rep.comparison["system"].unique(maintain_order=True).to_list() == order[1:]
        _sections_list_in_order(rep.fragment, order, "AP")
    out = tmp_path / "r.html"
    result = CliRunner().invoke(app, ["report", str(qrels), *map(str, paths), "-m", "AP", "-B", "99", "-o", str(out)])
    assert result.exit_code == 0, result.output
    _sections_list_in_order(out.read_text(), order, "AP")


def test_report_warnings_are_listed_and_point_at_the_caller():
    qrels, runs = example_paths()
    ev = pf.evaluate(runs, qrels, ["nDCG@10"])
    few = ev.per_query.filter(pl.col("qid").is_in(ev.per_query["qid"].unique().sort().head(8).to_list()))
    small = type(ev)(per_query=few, measures=ev.measures, settings=ev.settings, excluded=ev.excluded)
    with pytest.warns(pf.SmallSampleWarning) as caught:
        rep = pf.report(small, baseline="bm25", n_resamples=99)
    assert any(Path(w.filename).name == Path(__file__).name for w in caught)
    assert rep.warnings and any("queries" in m for m in rep.warnings)
    assert "pf-warnings" in rep.fragment


def test_report_and_results_table_show_themselves_in_a_notebook(example_report):
    shown, fragment = example_report._repr_html_(), example_report.fragment      # each display: a fresh root
    root_shown, root = (re.match(r'<div id="(pf-report-[0-9a-f]{12})"', t).group(1) for t in (shown, fragment))
    assert shown.replace(root_shown, root) == fragment
    html = example_report.table._repr_html_()
    assert html.startswith('<div id="pf-table-')


def test_report_of_one_system_has_the_table_only():
    qrels, runs = example_paths()
    rep = pf.report(runs[:1], qrels, "nDCG@10")
    assert rep.comparison.height == 0
    assert "-forest-" not in rep.fragment and "-comparisons" not in rep.fragment


def test_report_of_one_system_marks_no_best_and_its_caption_names_none(example_report):
    """A one-run report bolded the lone run's means and its caption said "Bold: best (systems equal ...)",
    although nothing was compared; the two-system report keeps both."""
    qrels, runs = example_paths()
    rep = pf.report(runs[:1], qrels, ["nDCG@10", "AP"])
    assert rep.table.data.frame["place"].is_null().all()
    assert "best" not in rep.table.caption and "<strong>" not in rep.fragment
    assert "Mean nDCG@10, AP over 60 queries." in rep.table.caption         # the rest of the caption stays
    assert "*x*: best" not in rep.table.to_markdown()
    assert "Bold: best" in example_report.table.caption and "<strong>" in example_report.fragment


def test_report_save_writes_the_page(example_report, tmp_path):
    out = example_report.save(tmp_path / "r.html")
    assert out.read_text(encoding="utf-8") == example_report.html
    with pytest.raises(ValueError, match="does not exist"):
        example_report.save(tmp_path / "missing" / "r.html")


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    (dict(baseline=None), ValueError, "name the `baseline`"),
    (dict(baseline="nope"), ValueError, r"`baseline` 'nope' is not one of the systems"),
    (dict(baseline=["bm25"]), TypeError, "`baseline` must be one system name"),
    (dict(baseline="bm25", measures=[]), ValueError, "`measures` is empty"),
    (dict(baseline="bm25", measures=["nDCG@x"]), pf.UnknownMeasureError, "nDCG@x"),
    (dict(baseline="bm25", judgments=["llm.txt"]), TypeError, "`judgments` must be a non-empty mapping"),
    (dict(baseline="bm25", judgments={"qrels": "x"}), ValueError, "names a set 'qrels'"),
    (dict(baseline="bm25", max_delta_plots=-1), ValueError, "`max_delta_plots` must be an integer >= 0"),
])
def test_report_bad_input_names_the_argument(kwargs, error, match):
    qrels, runs = example_paths()
    measures = kwargs.pop("measures", ["nDCG@10"])
    with pytest.raises(error, match=match):
        pf.report(runs, qrels, measures, **kwargs)


def test_report_refuses_an_evaluation_with_qrels_and_runs_without_qrels():
    qrels, runs = example_paths()
    ev = pf.evaluate(runs, qrels, ["nDCG@10"])
    with pytest.raises(ValueError, match="give an Evaluation alone"):
        pf.report(ev, qrels, baseline="bm25")
    with pytest.raises(ValueError, match="`qrels` is missing"):
        pf.report(runs, baseline="bm25")


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, "report", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_report_writes_one_html_file(tmp_path):
    qrels, runs = example_paths()
    out = tmp_path / "report.html"
    proc = _cli(str(qrels), *map(str, runs), "-m", "nDCG@10", "-B", "199", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    size = out.stat().st_size
    assert f"wrote {out} ({size / 1e3:.0f} kB)" in proc.stderr if size < 1e5 else f"wrote {out} (" in proc.stderr
    assert "(0.0 MB)" not in proc.stderr                                     # a small report said 0.0 MB
    text = out.read_text(encoding="utf-8")
    assert "reranker" in text and "bm25 (baseline)" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]     # nothing beside it
    assert "pairedframe report " in text and " -B 199 " in text              # the command that made it


@pytest.mark.parametrize(("args", "match"), [
    (["--baseline", "nope"], r"--baseline 'nope' is not one of the runs"),
    (["-o", "{tmp}/missing/r.html"], r"--output .*does not exist"),
    (["-o", "{tmp}/r.txt"], r"--output must end in .html"),
    (["-o", "{tmp}/folder.html"], r"--output .* is a folder"),
    (["-o", "{tmp}"], r"--output .* is a folder; name the file to write \(an .html file"),   # said "must end in .html, got 'tmp...'"
    (["--judgments", "llm"], r"--judgments 'llm': expected NAME=PATH"),
    (["--judgments", "llm={tmp}/none.qrels"], r"no such file"),
    (["--delta-plots", "-1"], r"--delta-plots must be an integer >= 0"),
    (["-m", "nDCG@x"], r"nDCG@x"),
    (["--test", "z"], r"--test"),
])
def test_cli_report_bad_input_exits_2_naming_the_option(tmp_path, args, match):
    (tmp_path / "folder.html").mkdir()
    qrels, runs = example_paths()
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if "-o" not in args:
        args += ["-o", str(tmp_path / "r.html")]
    proc = _cli(str(qrels), *map(str, runs), "-B", "99", *args)
    assert proc.returncode == 2, proc.stderr
    assert re.search(match, proc.stderr), proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_report_refuses_judgments_from_stdin_naming_the_option(tmp_path):
    """``--judgments NAME=-`` said "no such file: -"; as for QRELS, only a run is read from standard input."""
    qrels, runs = example_paths()
    out = tmp_path / "r.html"
    proc = subprocess.run([*CLI, "report", str(qrels), *map(str, runs), "-B", "99", "--judgments", "llm=-",
                           "-o", str(out)], capture_output=True, text=True, cwd=tmp_path,
                          input=qrels.read_text())                       # no file named '-' in tmp_path
    assert proc.returncode == 2, proc.stderr
    assert "--judgments 'llm=-': a judgment set cannot be read from standard input" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()


def test_cli_report_without_runs_is_a_usage_error(tmp_path):
    qrels, _ = example_paths()
    proc = _cli(str(qrels), "-o", str(tmp_path / "r.html"))
    assert proc.returncode == 2 and "runs" in proc.stderr.lower() and "Missing argument" in proc.stderr
    assert not (tmp_path / "r.html").exists()


def test_report_of_empty_or_disjoint_inputs_raises_saying_why(tmp_path):
    qrels, runs = example_paths()
    disjoint = tmp_path / "other.qrels"
    disjoint.write_text("q-none 0 d1 1\n")
    with pytest.raises(pf.EmptyResultError, match="no judged query in common"):
        pf.report(runs, str(disjoint), "nDCG@10", baseline="bm25")
    empty = tmp_path / "empty.run"
    empty.write_text("")
    with pytest.raises((pf.EmptyResultError, pf.InputFormatError), match="empty"):
        pf.report([str(empty)], qrels, "nDCG@10")
    proc = _cli(str(disjoint), *map(str, runs), "-o", str(tmp_path / "r.html"))
    assert proc.returncode == 2 and "no judged query in common" in proc.stderr, proc.stderr
    assert not (tmp_path / "r.html").exists()


def test_report_is_the_callable_package_and_its_modules_stay_reachable():
    import pairedframe.report.plots as plots
    from pairedframe.report.html_report import report

    assert callable(pf.report) and pf.report.plots is plots
    qrels, runs = example_paths()
    called = pf.report(runs, qrels, measures=["nDCG@10"], baseline="bm25", n_resamples=99, seed=0)
    direct = report(runs, qrels, measures=["nDCG@10"], baseline="bm25", n_resamples=99, seed=0)
    assert type(called) is type(direct) and called.comparison.equals(direct.comparison)


def test_cli_report_with_another_judgment_set_adds_the_agreement_section(tmp_path):
    qrels, runs = example_paths()
    other = tmp_path / "llm.qrels"
    other.write_text("".join(f"{q} 0 {d} {min(3, int(r) + 1)}\n" if i % 4 == 0 else f"{q} 0 {d} {r}\n"
                             for i, (q, _, d, r) in enumerate(line.split() for line in
                                                              Path(qrels).read_text().splitlines() if line.strip())))
    out = tmp_path / "r.html"
    proc = _cli(str(qrels), *map(str, runs), "-m", "nDCG@10", "-B", "99", "--judgments", f"llm={other}", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    page = _Page(out.read_text(encoding="utf-8"))
    root = page.tags[[t for t, _ in page.tags].index("div")][1]["id"]
    assert {f"{root}-agreement", f"{root}-labels-0", f"{root}-ranks-0"} <= set(page.ids)
    la = pf.label_agreement(qrels, str(other), names=("qrels", "llm"), binary_at=1)
    assert f'<td class="pf-num">{la.kappa:.3f}</td>' in out.read_text(encoding="utf-8")


def test_report_issues_each_warning_once_when_queries_are_left_out(tmp_path):
    """A run truncated to its top document has no FirstRelRank where it finds nothing relevant: the
    comparison warns once that queries are left out; drawing the per-query deltas does not warn again."""
    import warnings

    qrels, runs = example_paths()
    top1 = tmp_path / "input.bm25top1"
    top1.write_text("".join(line for line in open(runs[0]) if line.split()[3] == "1"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rep = pf.report([top1, runs[1]], qrels, ["FirstRelRank", "RR"], baseline="reranker", n_resamples=99)
    left_out = [str(w.message) for w in caught if "leave out queries" in str(w.message)]
    assert len(left_out) == 1 and left_out[0] in rep.warnings


@pytest.mark.parametrize("correction, column", [("bh", "pvalue_bh"), ("holm", "pvalue_holm"), ("none", "pvalue")])
def test_report_decides_by_its_correction_in_every_section(correction, column):
    """At alpha 0.065 the example's t-test p-values are significant after BH (0.060) but not after Holm
    (0.071): the verdicts, forest colours and the table's marks must all follow the chosen correction."""
    qrels, runs = example_paths()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pf.report(runs, qrels, ["nDCG@10", "AP"], baseline="bm25", test="t", correction=correction,
                        n_resamples=99, confidence_level=0.935)
    assert set(rep.comparison["verdict_on"]) == {column}
    alpha = 1 - 0.935
    for row in rep.comparison.iter_rows(named=True):
        assert (row["verdict"] == "better") == (row[column] < alpha)
        marked = rep.table.table.filter((pl.col("system") == row["system"]) & (pl.col("measure") == row["measure"]))
        assert ("bm25" in marked["better_than"][0]) == (row["verdict"] == "better")
    assert set(rep.comparison["verdict"]) == ({"inconclusive"} if correction == "holm" else {"better"})


def test_report_with_a_judgment_set_sharing_no_pair_renders_and_says_why(tmp_path):
    """A label set of other documents (no (qid, docno) in common with the qrels) leaves the rest of the
    report standing: the agreement section quotes why kappa cannot be computed, and a warning says so."""
    qrels, runs = example_paths()
    other = tmp_path / "elsewhere.qrels"
    other.write_text("".join(f"{q} 0 x{d} {r}\n" for q, _, d, r in
                             (line.split() for line in Path(qrels).read_text().splitlines() if line.strip())))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rep = pf.report(runs, qrels, "nDCG@10", baseline="bm25", judgments={"elsewhere": str(other)}, n_resamples=99)
    said = [str(w.message) for w in caught if issubclass(w.category, pf.errors.PartlyEmptyWarning)]
    assert any("no (qid, docno) pair is judged in both" in m and "'elsewhere'" in m for m in said), said
    assert "kappa cannot be computed for elsewhere: no (qid, docno) pair is judged in both" in rep.fragment
    assert rep.comparison.height == 1 and any(m.startswith("the label agreement (kappa)") for m in rep.warnings)


def test_report_settings_say_the_t_test_draws_no_resamples():
    """With test='t' "Every comparison" shows n_resamples None: Settings must not claim 10000 were used."""
    qrels, runs = example_paths()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pf.report(runs, qrels, "AP", baseline="bm25", test="t", n_resamples=777)
    assert rep.comparison["n_resamples"].to_list() == [None]
    settings = rep.fragment[rep.fragment.index("-settings-table"):]
    assert "<td>none: the t test and its t interval draw no resamples (777 asked)</td>" in settings
    assert "<td>777</td>" not in settings and "-B 777" in rep.fragment


def test_report_with_a_judgment_set_of_other_queries_renders_and_says_why(shared_data, tmp_path):
    """DL-2019 runs with the DL-2019 qrels, DL-2019 LLM labels and, by mistake, DL-2020 LLM labels (no
    query of the runs): the report renders, names the DL-2020 set and its file where its results
    would be and in a warning, and the DL-2019 labels' agreement tables are those of a report without
    the DL-2020 set; on the command line too (exit 0)."""
    dl = shared_data / "llm_labels_dl"
    runs = {name: str(dl / "dl2019_runs" / f"input.{name}.gz") for name in ("bm25base_p", "p_bert", "bm25tuned_rm3_p")}
    qrels = str(shared_data / "anserini_tools" / "qrels.dl19-passage.txt")
    llm19 = str(dl / "results" / "dl2019_test_4prompts_llama70b.txt")
    llm20 = str(dl / "results" / "dl2020_test_4prompts_llama70b.txt")
    options = dict(baseline="bm25base_p", n_resamples=99)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rep = pf.report(runs, qrels, "nDCG@10", judgments={"llm19": llm19, "llm20": llm20}, **options)
        alone = pf.report(runs, qrels, "nDCG@10", judgments={"llm19": llm19}, **options)
    why = f"judgment set 'llm20' ({llm20}) judges none of the runs' queries"
    said = [w for w in caught if str(w.message).startswith(why)]
    assert len(said) == 1 and said[0].category is pf.PartlyEmptyWarning and said[0].filename == __file__, said
    assert "no judged query in common" in str(said[0].message) and str(said[0].message) in rep.warnings
    # evaluate's reason says "the qrels": the note says those are this set, not the report's qrels
    assert "Evaluated against this set as the qrels, pairedframe says:" in str(said[0].message)
    page = _Page(rep.fragment)
    root = page.tags[0][1]["id"]
    assert f"{root}-no-results-1" in page.ids and f"{root}-ranks-1" not in page.ids
    note = re.search(rf'<p class="pf-note" id="{root}-no-results-1">(.*?)</p>', rep.fragment).group(1)
    assert note.startswith(why.replace("'", "&#x27;")), note

    def tables(report, k: int) -> list[str]:
        own = _Page(report.fragment).tags[0][1]["id"]
        return [re.search(rf'<table id="{own}-{kind}-{k}".*?</table>', report.fragment).group(0).replace(own, "")
                for kind in ("labels", "ranks")]

    assert tables(rep, 0) == tables(alone, 0)
    assert rep.comparison.equals(alone.comparison) and rep.evaluation.per_query.equals(alone.evaluation.per_query)
    out = tmp_path / "r.html"
    proc = _cli(qrels, *[f"{k}={v}" for k, v in runs.items()], "-m", "nDCG@10", "-B", "99", "--judgments",
                f"llm19={llm19}", "--judgments", f"llm20={llm20}", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert f"pairedframe: warning: {why}" in " ".join(proc.stderr.split()), proc.stderr
    html = out.read_text(encoding="utf-8")
    assert "-no-results-1" in html and why.replace("'", "&#x27;") in html


def test_report_of_a_measure_set_with_counts_and_gmap_plots_only_the_compared_measures(tmp_path):
    """'official' holds NumQ, NumRet, NumRel and GMAP, which compare leaves out with a warning: the report
    draws forests and delta bars for the compared measures only (it raised 'no comparison of NumQ')."""
    from typer.testing import CliRunner

    from pairedframe.cli import app

    qrels, runs = example_paths()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pf.report(runs, qrels, ["GMAP", "AP", "NumRet"], baseline="bm25", n_resamples=99)
        only = pf.report(runs, qrels, ["GMAP", "NumQ"], baseline="bm25", n_resamples=99)
    assert set(rep.comparison["measure"]) == {"AP"} and rep.fragment.count("forest plot of") == 1
    assert "GMAP" in rep.table.table["measure"].to_list()
    assert only.comparison.height == 0 and "-forest-" not in only.fragment
    assert any("no comparison in the report" in m for m in only.warnings)
    out = tmp_path / "r.html"
    res = CliRunner().invoke(app, ["report", str(qrels), *map(str, runs), "-m", "official", "-B", "99", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "left out of the comparison" in res.stderr and out.stat().st_size > 0


class _WarningItems(HTMLParser):
    """The text of each item of the report's Warnings list."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.items: list[str] = []
        self._in_list = self._in_item = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "ul" and dict(attrs).get("class") == "pf-warnings":
            self._in_list = True
        elif tag == "li" and self._in_list:
            self.items.append("")
            self._in_item = True

    def handle_endtag(self, tag):
        if tag == "li":
            self._in_item = False
        elif tag == "ul":
            self._in_list = False

    def handle_data(self, data):
        if self._in_item:
            self.items[-1] += data


def test_report_warnings_are_the_warnings_section_of_the_file(tmp_path):
    """A run without a ranking for a judged query: the file said "1 (system, query) pairs were left out of
    the evaluation" while Report.warnings lacked it; the two are now one list."""
    qrels, runs = example_paths()
    lines = Path(runs[0]).read_text().splitlines()
    first = lines[0].split()[0]
    short = tmp_path / "input.bm25"
    short.write_text("".join(f"{line}\n" for line in lines if line.split()[0] != first))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pf.report([short, runs[1]], qrels, "nDCG@10", baseline="bm25", n_resamples=99)
    assert rep.evaluation.excluded.height == 1
    assert any(m.startswith("1 (system, query) pairs were left out of the evaluation: judged by the qrels but not "
                            "retrieved by the run") for m in rep.warnings)
    assert _WarningItems(rep.fragment).items == list(rep.warnings)


def test_unjudged_retrieved_queries_are_a_settings_note_not_a_warning(tmp_path):
    """A query the qrels do not judge is left out by trec_eval's query-set rule on every DL evaluation; the
    report's Warnings opened with it ("314 ... 314 (retrieved but not judged (no qrels))", nested
    parentheses).  It is now one plain line of the settings, and no warning."""
    qrels, runs = example_paths()
    extra = tmp_path / "input.bm25"
    extra.write_text(Path(runs[0]).read_text() + "zz9 Q0 dX 1 1.0 x\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pf.report([extra, runs[1]], qrels, "nDCG@10", baseline="bm25", n_resamples=99)
    assert rep.evaluation.excluded["reason"].to_list() == ["retrieved but not judged (no qrels)"]
    assert not any("left out of the evaluation" in m or "not judged" in m for m in rep.warnings)
    note = rep.settings["unjudged"]
    assert note.startswith("1 (system, query) pair retrieved but not judged by the qrels, not evaluated") and "((" not in note
    settings = re.search(r'<table id="[^"]*-settings-table".*?</table>', rep.fragment, re.S).group(0)
    assert "evaluation: queries not judged" in settings and "the qrels judge, trec_eval" in settings


def test_report_with_a_one_query_run_reports_the_others_and_flags_it(tmp_path):
    """A run ranking one query stopped the whole report ("fewer than 2 common queries"); now the others are
    compared, marked and plotted as without it, and that comparison is named in the warnings, the table's
    caption, and nowhere among the comparisons."""
    qrels, runs = example_paths()
    first = Path(runs[1]).read_text().splitlines()[0].split()[0]
    one = tmp_path / "input.one"
    one.write_text("".join(f"{line}\n" for line in Path(runs[1]).read_text().splitlines() if line.split()[0] == first))
    with pytest.warns(pf.errors.PartlyEmptyWarning, match=r"one vs bm25 on nDCG@10 \(1 common query\)"):
        rep = pf.report([*runs, one], qrels, ["nDCG@10", "AP"], baseline="bm25", n_resamples=199)
    alone = pf.report(list(runs), qrels, ["nDCG@10", "AP"], baseline="bm25", n_resamples=199)
    from polars.testing import assert_frame_equal

    assert_frame_equal(rep.comparison, alone.comparison, check_exact=False, rtol=1e-12)   # the same family
    assert set(rep.comparison["system"]) == {"reranker"}
    assert any("comparison(s) left out, shown without a mark: one vs bm25 on nDCG@10" in m for m in rep.warnings)
    assert "Not compared, so not marked" in rep.table.caption
    assert rep.table.table.filter(pl.col("system") == "one")["marks"].to_list() == ["", ""]
    assert _WarningItems(rep.fragment).items == list(rep.warnings)


def test_report_of_two_one_query_runs_shows_means_and_says_no_comparison_is_possible(tmp_path):
    qrels, runs = example_paths()
    first = Path(runs[0]).read_text().splitlines()[0].split()[0]
    cut = []
    for run in runs:
        path = tmp_path / Path(run).name
        path.write_text("".join(f"{line}\n" for line in Path(run).read_text().splitlines() if line.split()[0] == first))
        cut.append(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pf.report(cut, qrels, "AP", baseline="bm25", n_resamples=99)
    assert rep.comparison.height == 0 and "No comparison is possible" in rep.table.caption
    assert any(m.startswith("no comparison is possible") for m in rep.warnings)
    assert "Forest plots" not in rep.fragment and "<table" in rep.fragment


def test_report_agreement_table_prints_a_dash_for_a_nan_interval(tmp_path):
    """The qrels against themselves: every leave-one-query-out kappa and tau_b is 1, so their jackknife
    intervals are NaN (no spread seen is no certainty); the tables print a dash, never "nan", and the
    warnings say why."""
    qrels, runs = example_paths()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pf.report(runs, qrels, "nDCG@10", baseline="bm25", judgments={"same": str(qrels)}, n_resamples=99)
    root = _Page(rep.fragment).tags[0][1]["id"]
    ranks = re.search(rf'<table id="{root}-ranks-0".*?</table>', rep.fragment, re.S).group(0)
    cells = re.findall(r"<td[^>]*>(.*?)</td>", ranks)
    assert "–" in cells and not any(c.lower() == "nan" for c in cells)
    assert not re.search(r">\s*nan\s*<", rep.fragment, re.I)
    assert any("NaN, not a point" in m for m in rep.warnings)


@pytest.mark.filterwarnings("ignore::pairedframe.errors.PartlyEmptyWarning", "ignore::pairedframe.errors.TiedQueriesWarning")
def test_one_run_report_names_one_system_says_nothing_is_compared_and_warns_of_few_queries_as_compare(
        shared_data, tmp_path):
    """``report qrels.test results.test``: the lead said "1 systems", the settings "baseline None", and
    the 3 queries went unwarned (compare warns below 20 queries; a one-run report calls no compare)."""
    from typer.testing import CliRunner

    from pairedframe.cli import app
    from pairedframe.errors import SmallSampleWarning

    folder = shared_data / "trec_eval"
    with pytest.warns(SmallSampleWarning, match=r"fewer than 20 queries.*n = 3, system=results.test"):
        rep = pf.report([str(folder / "results.test")], str(folder / "qrels.test"))
    text = re.sub(r"<[^>]+>", " ", rep.fragment)
    assert "1 system," in text and "1 systems" not in text and "nothing to compare" in text
    assert "None" not in re.sub(r"evaluation: depth\s+None", "", text)
    assert any("fewer than 20 queries" in w for w in rep.warnings)
    # the same words as compare's warning when two runs share so few queries
    with pytest.warns(SmallSampleWarning) as two:
        pf.compare(pf.evaluate([str(folder / "results.test"), str(folder / "results.trunc")], str(folder / "qrels.test")),
                   baseline="results.test", measures="AP")
    assert any("fewer than 20" in str(w.message) and "the fewest for trusted" in str(w.message) for w in two)
    out = tmp_path / "r1.html"
    res = CliRunner().invoke(app, ["report", str(folder / "qrels.test"), str(folder / "results.test"), "-o", str(out)])
    assert res.exit_code == 0 and "fewer than 20 queries" in out.read_text()


def test_report_leaves_out_the_binary_kappa_when_its_relevance_level_is_above_every_grade():
    """The report's binary kappa is at its rel_level; above every grade of both sets label_agreement
    refuses that binary_at, so the report warns and shows the other kappas instead of failing."""
    qrels, runs = example_paths()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rep = pf.report(runs, qrels, "nDCG@10", baseline="bm25", judgments={"same": str(qrels)}, n_resamples=99,
                        rel_level=4)
    said = [str(w.message) for w in caught if issubclass(w.category, pf.PartlyEmptyWarning)]
    assert any("leaves out the binary kappa" in m and "`binary_at=4` is above the highest grade" in m for m in said)
    assert "Cohen&#x27;s kappa (grades)" in rep.fragment or "Cohen's kappa (grades)" in rep.fragment
    assert "relevant = grade &gt;=" not in rep.fragment and "relevant = grade >=" not in rep.fragment


def test_report_reproduce_command_makes_the_same_report_from_every_option_that_has_a_flag(tmp_path):
    """pf.report(..., title=...) recorded a command without --title; the docs promise "the command that makes
    the same report". Every keyword of pf.report with a flag is set off its default here: the command's
    report has the same title and the same settings table."""
    import shlex

    from typer.testing import CliRunner

    from pairedframe.cli import app

    qrels, runs = example_paths()
    options = dict(baseline="reranker", n_resamples=99, seed=7, test="t", confidence_level=0.9, correction="bh",
                   max_delta_plots=1, title="My DL-19 runs", complete=True, rel_level=2, depth=50,
                   score_precision="float32", judged_only=True, grades="trec_eval")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pf.report(runs, qrels, ["nDCG@10", "P@5"], **options)
    command = re.search(r"<h3>Reproduce</h3><pre>(.*?)</pre>", rep.fragment, re.S).group(1)
    args = shlex.split(html.unescape(command))
    assert args[:2] == ["pairedframe", "report"] and args[-2] == "-o"
    out = tmp_path / "again.html"
    result = CliRunner().invoke(app, [*args[1:-1], str(out)])
    assert result.exit_code == 0, result.output
    again = out.read_text(encoding="utf-8")

    def settings_rows(page: str) -> list[str]:
        """The settings table's rows, the runs' row aside (the command line names each run: ``bm25: path``)."""
        table = re.search(r'<table[^>]*id="[^"]*-settings-table".*?</table>', page, re.S).group(0)
        return [row for row in re.findall(r"<tr>.*?</tr>", table, re.S) if "inputs: runs" not in row]
    assert settings_rows(again) == settings_rows(rep.fragment) and len(settings_rows(again)) > 15
    assert "My DL-19 runs" in again


def test_report_without_a_baseline_among_several_systems_is_refused_naming_the_argument():
    """The docs say pf.report needs baseline= with two or more systems (the CLI takes the first run)."""
    qrels, runs = example_paths()
    with pytest.raises(ValueError, match=r"`baseline`.*bm25"):
        pf.report(runs, qrels, ["AP"])


def test_one_run_report_settings_say_the_comparison_settings_were_not_used():
    """A one-run report listed test, correction and max_delta_plots as if a comparison had used them."""
    qrels, runs = example_paths()
    rep = pf.report(runs[:1], qrels, "nDCG@10", test="t", correction="bh")
    for asked in ("not used: nothing compared (t asked)", "not used: nothing compared (bh asked)"):
        assert asked in rep.fragment
    assert "not used" not in pf.report(runs, qrels, "nDCG@10", baseline="bm25", n_resamples=999).fragment
