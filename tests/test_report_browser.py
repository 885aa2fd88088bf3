"""The HTML report and a results table, opened in a real browser (headless Chromium, Debian's package).

A probe script added to a copy of the page runs after the load event and writes what the browser
rendered into the DOM (rows, marks, figures and their decoded sizes, bounding boxes, computed styles);
``--dump-dom`` reads it back, ``--screenshot`` takes a picture.  No browser is downloaded: the tests
skip, saying why, where ``chromium`` is not installed (.ci/run installs it where apt-get runs as root).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import pairedframe as pf
from pairedframe.example import example_paths

pytest.importorskip("matplotlib", reason="the report draws with matplotlib (pip install '.[plot]')")
pytest.importorskip("great_tables", reason="the table renders through great_tables ('.[report]')")
Image = pytest.importorskip("PIL.Image", reason="Pillow reads the screenshots (it comes with matplotlib)")

#: Flags for a headless Chromium on a machine without network or display (no sandbox: CI runs as root).
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars", "--mute-audio", "--virtual-time-budget=10000"]


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if not found:
        pytest.skip("headless Chromium is not installed (apt-get install chromium; .ci/run does where apt-get "
                    "runs as root)")
    return found


def _browse(page: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    profile.mkdir()
    return subprocess.run([_chromium(), *FLAGS, f"--user-data-dir={profile}", *extra, page.as_uri()],
                          capture_output=True, text=True, timeout=240)


#: Runs after the load event (images decoded): writes the measurements as JSON into <pre id="pf-probe">.
PROBE = """<script>
window.addEventListener("load", () => {
  const rect = (el) => { const r = el.getBoundingClientRect(); return {x: r.left, y: r.top + window.scrollY,
                                                                       width: r.width, height: r.height}; };
  const style = (el) => { const s = getComputedStyle(el); return {color: s.color, background: s.backgroundColor,
      border: s.borderTopStyle, padding: s.paddingTop, margin: s.marginTop, font: s.fontFamily, size: s.fontSize,
      align: s.textAlign}; };
  const out = {};
  const table = document.querySelector("[id$='-results'] table, div[id^='pf-table-'] table");
  if (table) {
    out.table = rect(table);
    out.rows = table.querySelectorAll("tbody tr").length;
    out.row_names = [...table.querySelectorAll("tbody tr th, tbody tr td.gt_stub")].map(e => e.textContent.trim());
    out.marks = [...table.querySelectorAll("sup")].map(e => e.textContent);
    out.bold = table.querySelectorAll("strong").length;
  }
  out.images = [...document.querySelectorAll("figure img")].map(i => ({w: i.naturalWidth, h: i.naturalHeight,
                                                                       shown: i.getBoundingClientRect().width}));
  out.heat_cells = document.querySelectorAll("table.pf-heat td[title]").length;
  out.sections = [...document.querySelectorAll("section[id]")].map(s => s.id.replace(/^pf-report-[0-9a-f]+-/, ""));
  out.host = [...document.querySelectorAll(".host-probe")].map(style);
  out.page_width = document.documentElement.scrollWidth;
  out.overflowing = [...document.querySelectorAll(".pf-scroll")].filter(e => e.scrollWidth > e.clientWidth + 1)
                                                                .map(e => e.firstElementChild.id);
  out.heat_names = [...document.querySelectorAll("table.pf-heat th")].map(e => e.getBoundingClientRect().width);
  const pre = document.createElement("pre"); pre.id = "pf-probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def _probe(html: str, tmp_path: Path, name: str, *, width: int = 1280, script: str = PROBE) -> dict:
    page = tmp_path / name
    page.write_text(html.replace("</body>", script + "\n</body>"), encoding="utf-8")
    proc = _browse(page, tmp_path, f"--window-size={width},2000", "--dump-dom")
    found = re.search(r'<pre id="pf-probe">(.*?)</pre>', proc.stdout, flags=re.S)
    assert found, f"the probe did not run in Chromium: {proc.stderr[-1500:]}"
    import html as html_lib

    return json.loads(html_lib.unescape(found.group(1)))


def _screenshot(html_path: Path, tmp_path: Path, width: int = 1280, height: int = 1600):
    shot = tmp_path / f"{html_path.stem}.png"
    proc = _browse(html_path, tmp_path, f"--window-size={width},{height}", f"--screenshot={shot}")
    assert shot.exists(), f"no screenshot: {proc.stderr[-1500:]}"
    return Image.open(shot).convert("RGB")


def _ink_box(img, box=None) -> tuple[int, int, int, int] | None:
    """Bounding box of the pixels that are not near-white (in ``box`` when given)."""
    from PIL import ImageOps

    region = img.crop(box) if box else img
    return ImageOps.invert(region).point(lambda v: 255 if v > 24 else 0).getbbox()


@pytest.fixture(scope="module")
def example_report():
    qrels, runs = example_paths()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pf.report(runs, qrels, ["nDCG@10", "AP"], baseline="bm25", n_resamples=999, seed=0)


def _check_rendered_report(probe: dict, n_systems: int, n_images: int) -> None:
    assert probe["rows"] == n_systems
    assert probe["row_names"][0].endswith("(baseline)")
    assert probe["bold"] >= 1                                    # best per column
    assert len(probe["images"]) == n_images
    assert all(i["w"] > 100 and i["h"] > 100 and i["shown"] > 100 for i in probe["images"]), probe["images"]
    assert probe["sections"][:2] in (["warnings", "table"], ["table", "forest"])
    assert {"table", "forest", "deltas", "comparisons", "settings"} <= set(probe["sections"])
    assert probe["table"]["width"] > 200


def test_report_renders_in_chromium_with_table_marks_and_figures(example_report, tmp_path):
    path = example_report.save(tmp_path / "report.html")
    probe = _probe(path.read_text(encoding="utf-8"), tmp_path, "probe.html")
    # 2 systems; 2 forest plots + 1 bar chart per measure; no heatmap with one compared system
    _check_rendered_report(probe, n_systems=2, n_images=4)
    marks = "".join(probe["marks"])
    expected = "".join(example_report.table.table.filter(example_report.table.table["marks"] != "")["marks"])
    assert marks == expected
    img = _screenshot(path, tmp_path)
    table = probe["table"]
    assert img.width >= table["x"] + table["width"]              # the table fits the page: nothing cut off
    inside = _ink_box(img, (int(table["x"]), int(table["y"]), int(table["x"] + table["width"]),
                            int(min(img.height, table["y"] + table["height"]))))
    assert inside is not None and inside[2] - inside[0] > 0.8 * table["width"]   # the table was painted
    assert len(img.resize((64, 64)).getcolors(maxcolors=64 * 64)) > 8            # not a blank or one-colour page


def test_report_with_a_200_character_run_name_keeps_every_table_and_figure_inside_the_page(tmp_path):
    """A long run name (a config string) made the comparison tables scroll sideways, squeezed the
    heatmap and pushed the forest plot's row labels off its left edge, its legend off its right."""
    qrels, (bm25, reranker) = example_paths()
    long = "reranker_" + "monoT5-3B_maxlen512_window256_stride128_" * 5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = pf.report({"bm25": bm25, long: reranker, "reranker": reranker}, qrels, ["nDCG@10"],
                           baseline="bm25", n_resamples=999, seed=0)
    path = report.save(tmp_path / "long.html")
    probe = _probe(path.read_text(encoding="utf-8"), tmp_path, "probe.html")
    assert probe["page_width"] <= 1280 and probe["table"]["width"] <= 1200
    assert probe["overflowing"] == [], probe["overflowing"]            # no table scrolls sideways
    assert probe["heat_names"] and max(probe["heat_names"]) < 400       # the names column, not the cells, gives
    assert all(i["w"] <= 1000 for i in probe["images"])                 # figures keep their width
    from pairedframe.report.forest import legend_columns
    from pairedframe.report.plots import shortened

    assert shortened(long) == long[:20] + "…" + long[-19:] and len(shortened(long)) == 40
    assert shortened("bm25") == "bm25"
    assert legend_columns(["better (significant)", "worse (significant)",
                           "dashed: the interval contradicts the decision (see verdict_note)",
                           "arrow: the interval is unbounded on that side"]) == 2   # 3 columns overran 7 in
    assert legend_columns(["better (significant)", "not significant / inconclusive"]) == 2
    assert legend_columns(["x" * 120]) == 1


#: A host page styled by plain element selectors (as simple pages and notebook themes are): an embedded
#: stylesheet with an unscoped rule of the same kind (``td { border-style: none }``, ``p { margin: 0 }``)
#: would win over them, since it comes later in the page.
HOST = """<!DOCTYPE html><html><head><meta charset="utf-8"><style>
table { border-collapse: separate; }
td { color: rgb(10, 20, 30); background-color: rgb(255, 255, 0); border: 3px dotted black; padding: 7px;
     font-family: serif; font-size: 19px; text-align: center; }
tr { background-color: rgb(0, 128, 0); }
h2 { color: rgb(120, 0, 0); }
</style></head><body>
<h2 class="host-probe">Host heading</h2>
<p class="host-probe">A host paragraph keeps its margins.</p>
<table class="host"><tr class="host-probe"><td class="host-probe">host cell</td><td>2</td></tr></table>
EMBED
<table class="host"><tr><td class="host-probe">after</td></tr></table>
</body></html>"""


@pytest.mark.parametrize("what", ["results_table", "report"])
def test_embedded_html_keeps_the_host_page_style_in_chromium(example_report, tmp_path, what):
    """The host page's own table, rows, cells and headings keep their computed style when a results table
    (or the whole report) sits in the page; and the embedded table itself renders."""
    fragment = example_report.table.to_html() if what == "results_table" else example_report.fragment
    alone = _probe(HOST.replace("EMBED", ""), tmp_path, "host.html")
    hosted = _probe(HOST.replace("EMBED", fragment), tmp_path, "hosted.html")
    assert len(alone["host"]) == 5 and hosted["host"] == alone["host"]
    assert alone["host"][3]["background"] == "rgb(255, 255, 0)" and alone["host"][3]["border"] == "dotted"
    assert alone["host"][1]["margin"] != "0px"
    assert hosted["rows"] == 2 and hosted["table"]["width"] > 100
    page = tmp_path / "hosted-shot.html"
    page.write_text(HOST.replace("EMBED", fragment), encoding="utf-8")
    img = _screenshot(page, tmp_path)
    assert img.width >= hosted["table"]["x"] + hosted["table"]["width"]
    assert _ink_box(img) is not None


@pytest.mark.shared_data
@pytest.mark.slow
def test_report_of_63_dl2021_runs_is_one_file_under_5_mb_that_renders(shared_data, tmp_path):
    root = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    runs = sorted((root / "passages-runs").glob("*.gz"))
    if len(runs) != 63:
        pytest.skip(f"expected the 63 DL-2021 passage runs under {root}, found {len(runs)}")
    out = tmp_path / "dl21.html"
    proc = subprocess.run([sys.executable, "-c", "from pairedframe.cli import main; main()", "report",
                           str(root / "qrels-pass.txt"), *map(str, runs), "--baseline", "p_bm25", "-o", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert out.stat().st_size <= 5_000_000
    assert [p.name for p in tmp_path.iterdir()] == ["dl21.html"]
    probe = _probe(out.read_text(encoding="utf-8"), tmp_path, "probe.html")
    # 63 systems; per measure (nDCG@10, AP): a forest plot and 3 bar charts; heatmaps of 62 x 53 cells
    _check_rendered_report(probe, n_systems=63, n_images=8)
    assert probe["heat_cells"] == 2 * 62 * 53
    assert len(probe["marks"]) > 20
    img = _screenshot(out, tmp_path, height=3000)
    assert img.width >= probe["table"]["x"] + probe["table"]["width"]
    assert len(img.resize((64, 64)).getcolors(maxcolors=64 * 64)) > 8


#: Runs after the load event: for every cell of the report's tables, where the browser broke its text onto
#: a new line, as [character before, character after] (a character's box starting below the middle of the
#: previous one's is on a new line; a raised <sup> mark is not), with its column's header and its table.
LINE_BREAKS = """<script>
window.addEventListener("load", () => {
  const breaks = (cell) => {
    const found = []; let last = null, before = "";
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (let i = 0; i < node.length; i++) {
        const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
        const box = range.getClientRects()[0];
        if (!box) continue;
        if (last && box.top > (last.top + last.bottom) / 2) found.push([before, node.data[i]]);
        last = box; before = node.data[i];
      }
    }
    return found;
  };
  const short = (id) => id.replace(/^pf-(report|table)-[0-9a-f]+-?/, "");
  const cells = [];
  for (const table of document.querySelectorAll("table.pf-plain, table.gt_table")) {
    const heads = [...table.querySelectorAll("thead th")].map(th => th.textContent.trim());
    for (const row of table.querySelectorAll("tr")) {
      [...row.children].forEach((cell, k) => cells.push({
        table: table.classList.contains("gt_table") ? "results" : short(table.id),
        part: cell.closest("thead") ? "head" : cell.closest("tfoot") ? "foot" : "body",
        column: heads[k] ?? "", text: cell.textContent.trim(), breaks: breaks(cell)}));
    }
  }
  const out = {cells, page_width: document.documentElement.scrollWidth,
               scrolling: [...document.querySelectorAll(".pf-scroll")].filter(e => e.scrollWidth > e.clientWidth + 1)
                                                                       .map(e => short(e.firstElementChild.id))};
  const pre = document.createElement("pre"); pre.id = "pf-probe"; pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""

#: A number as a cell shows it: 0.2256, -0.0384, 1.00e-04, 43, ∞, or – for none.
NUMBER = re.compile(r"[-+]?(\d+(\.\d+)?(e[-+]\d+)?|∞)|–")
#: A results-table value with its interval: 0.506 [0.428, 0.584] or 0.506 ± 0.078.
WITH_INTERVAL = re.compile(r"\S+ (\[|± )")


def _inside_a_word(before: str, after: str) -> bool:
    """A line break between these two characters splits a token: not after a space, ``_``, ``/`` or ``-``,
    nor after a ``.`` before a letter (``qrels.`` / ``txt``)."""
    return not (before.isspace() or before in "_/-" or (before == "." and after.isalpha()))


def _split_cells(cells: list[dict]) -> list[tuple[str, str, str, list]]:
    """(table, column, text, breaks) of every cell broken where it must not be: a number or measure name
    at all, a results-table value other than between its mean and its interval, other text inside a word."""
    wrong = []
    for c in cells:
        if c["part"] == "body" and (NUMBER.fullmatch(c["text"]) or c["column"] == "measure"):
            bad = c["breaks"]
        elif c["table"] == "results" and c["part"] == "body" and WITH_INTERVAL.match(c["text"]):
            bad = [b for b in c["breaks"] if b not in ([" ", "["], [" ", "±"])]
        else:
            bad = [b for b in c["breaks"] if _inside_a_word(*b)]
        if bad:
            wrong.append((c["table"], c["column"], c["text"], bad))
    return wrong


@pytest.mark.parametrize("width", [1300, 700])
def test_report_numbers_and_names_are_never_split_across_lines_in_a_browser(example_report, tmp_path, width):
    """The tables' CSS broke any word anywhere: at 1300 px "Every comparison" showed 0.225 over 6,
    1.00e- over 04, nDCG@1 over 0 and n_queri over es.  Now numbers and measure names stay on one line,
    other names wrap only between their parts, and a table too wide for the window scrolls in its own box."""
    probe = _probe(example_report.html, tmp_path, f"breaks-{width}.html", width=width, script=LINE_BREAKS)
    cells = probe["cells"]
    assert {"comparisons-table", "settings-table", "results"} <= {c["table"] for c in cells}
    assert sum(bool(NUMBER.fullmatch(c["text"])) for c in cells if c["table"] == "comparisons-table") >= 20
    assert _split_cells(cells) == []
    assert probe["page_width"] <= width                          # the page itself never scrolls sideways
    if width < 1000:
        assert "comparisons-table" in probe["scrolling"]        # its numbers need more room than 700 px give


def test_results_table_cells_wrap_only_between_the_mean_and_its_interval_in_a_browser(tmp_path):
    """A results table of eight measures in a 500 px window: a cell may put its interval under its mean,
    never [0.428, over 0.584]."""
    qrels, runs = example_paths()
    measures = ["nDCG@10", "AP", "P@10", "RR", "R@100", "nDCG@100", "P@5", "Judged@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")                              # ties on RR: not the point here
        table = pf.results_table(pf.evaluate(runs, qrels, measures), baseline="bm25", n_resamples=199, ci="range")
    probe = _probe(f"<!DOCTYPE html><html><body>{table.to_html()}</body></html>", tmp_path, "results.html",
                   width=500, script=LINE_BREAKS)
    values = [c for c in probe["cells"] if c["part"] == "body" and c["column"] in measures]
    assert len(values) == 16 and any(c["breaks"] for c in values)     # the window is narrow enough to wrap
    split = _split_cells(probe["cells"])
    assert split == [], split[:8]


@pytest.mark.shared_data
def test_dl2019_report_numbers_are_never_split_across_lines_in_a_browser(shared_data, tmp_path):
    """The outside tester's report: six DL-2019 passage runs, nDCG@10 and AP(rel=2), at 1300 px."""
    folder = shared_data / "llm_labels_dl" / "dl2019_runs"
    names = ["bm25base_p", "idst_bert_p1", "p_bert", "runid2", "TUA1-1", "test1"]
    runs = [folder / f"input.{n}.gz" for n in names]
    qrels = shared_data / "anserini_tools" / "qrels.dl19-passage.txt"
    if not qrels.exists() or not all(r.exists() for r in runs):
        pytest.skip(f"the DL-2019 runs or qrels are missing under {shared_data}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = pf.report(runs, qrels, ["nDCG@10", "AP(rel=2)"], baseline="bm25base_p", n_resamples=999, seed=0)
    probe = _probe(report.html, tmp_path, "dl19.html", width=1300, script=LINE_BREAKS)
    assert len([c for c in probe["cells"] if c["table"] == "comparisons-table" and c["part"] == "body"]) == 10 * 16
    split = _split_cells(probe["cells"])
    assert split == [], split[:8]
