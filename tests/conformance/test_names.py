"""System names with ``| & % _ # $ { } < > \\ ~ ^`` survive every renderer: read back from each output
(LaTeX source decoded escape by escape, Markdown rendered by a CommonMark/GFM parser, HTML parsed,
CSV/JSON parsed, terminal text as printed), each name is itself. ``RENDERERS`` lists every output
format of every door that prints names; ``test_every_output_format_is_tried`` fails for a new one."""

from __future__ import annotations

import html.parser
import io
import json
import re
from pathlib import Path
from typing import Any, Callable

import polars as pl
import pytest

import pairedframe as pf
from pairedframe.report.analysis import ANALYSIS_FORMATS
from pairedframe.report.compare import FORMATS as COMPARE_FORMATS
from pairedframe.report.results_table import TABLE_FORMATS
from tests.conformance.doors import run_cli
from tests.conformance.inputs import PER_QUERY, QRELS, RUN, trec_qrels_text, trec_run_text

#: Every special character of LaTeX, Markdown and HTML in one name, and two names seen in the wild.
NAMES = ("zz|&%_#${}<>\\~^x", "<dense-v2>zz", "run\\{x}zz")
SEGMENTS_FORMATS = ("table", "json", "csv", "markdown", "latex")
EVALUATE_FORMATS = ("table", "csv", "json", "trec")


# ---- reading a name back from each format ------------------------------------------------------------

_LATEX_ESCAPES = [(r"\textbar{}", "|"), (r"\textless{}", "<"), (r"\textgreater{}", ">"), (r"\textbackslash{}", "\\"),
                  (r"\textasciitilde{}", "~"), (r"\textasciicircum{}", "^"), (r"\textbar", "|"), (r"\textless", "<"),
                  (r"\textgreater", ">"), (r"\textbackslash", "\\"), (r"\textasciitilde", "~"),
                  (r"\textasciicircum", "^"), (r"\&", "&"), (r"\%", "%"), (r"\_", "_"), (r"\#", "#"), (r"\$", "$"),
                  (r"\{", "{"), (r"\}", "}"), (r"\^{}", "^"), (r"\~{}", "~"), (r"$<$", "<"), (r"$>$", ">"),
                  (r"$\backslash$", "\\"), (r"$|$", "|")]
# characters LaTeX does not print as themselves in text (OT1/T1 print | < > as a dash and inverted marks)
_LATEX_SPECIAL = set("|&%_#${}<>\\~^")


def latex_text(cell: str) -> str:
    """What LaTeX prints for a cell's source: known escapes decoded; a raw special character fails."""
    out, i = [], 0
    cell = cell.strip()
    while i < len(cell):
        for escape, char in _LATEX_ESCAPES:
            if cell.startswith(escape, i):
                out.append(char)
                i += len(escape)
                break
        else:
            assert cell[i] not in _LATEX_SPECIAL, f"unescaped {cell[i]!r} at {i} in LaTeX cell {cell!r}"
            out.append(cell[i])
            i += 1
    return "".join(out)


class _Cells(html.parser.HTMLParser):
    """The text of every table cell of an HTML document."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[str] = []
        self._open = False

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag in ("td", "th"):
            self.cells.append("")
            self._open = True

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self._open = False

    def handle_data(self, data: str) -> None:
        if self._open:
            self.cells[-1] += data


def html_cells(source: str) -> list[str]:
    parser = _Cells()
    parser.feed(source)
    return [c.strip() for c in parser.cells]


def markdown_cells(source: str) -> list[str]:
    from markdown_it import MarkdownIt

    return html_cells(MarkdownIt("commonmark").enable("table").render(source))


def _label(cell: str) -> str:
    """A system's cell without the table's decorations: a letter ``(b) `` and `` (baseline)``."""
    return re.sub(r"^\([a-z]\)\s+", "", cell.strip()).removesuffix(" (baseline)").strip("*_ ")


def names_in(text: str, fmt: str) -> set[str]:
    """The system names a rendering shows, read back as its reader would."""
    if fmt == "latex":
        return {_label(latex_text(cell)) for cell in _latex_cells_all(text)}
    if fmt == "markdown":
        return {_label(c) for c in markdown_cells(text)}
    if fmt == "html":
        return {_label(c) for c in html_cells(text)}
    if fmt == "csv":
        frame = pl.read_csv(io.StringIO(text), infer_schema=False)
        return {v for c in frame.columns for v in frame[c].drop_nulls().to_list()}
    if fmt == "json":
        return set(_strings(json.loads(text)))
    return {name for name in NAMES if name in text}  # terminal text and trec_eval's text: as printed


def _latex_cells_all(source: str) -> list[str]:
    """The cells that hold a name (``zz``), outside comment lines (LaTeX prints nothing of a comment); a
    ``\\multicolumn`` heading line (segments: ``system / measure``) gives its parts."""
    cells = []
    for line in source.splitlines():
        if "zz" in line and not line.lstrip().startswith("%"):
            heading = re.fullmatch(r"\\multicolumn\{\d+\}\{l\}\{(.*)\} \\\\", line.rstrip())
            if heading:
                cells += [c for c in heading.group(1).split(" / ") if "zz" in c]
                continue
            cells += [c for c in re.split(r"(?<!\\)&", line.rstrip().removesuffix(r"\\")) if "zz" in c]
    return cells


def _strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


# ---- the renderers --------------------------------------------------------------------------------

def _per_query() -> pl.DataFrame:
    rename = dict(zip(["b", "c"], NAMES[:2]))
    table = PER_QUERY.with_columns(pl.col("system").replace(rename))
    extra = PER_QUERY.filter(pl.col("system") == "b").with_columns(pl.lit(NAMES[2]).alias("system"),
                                                                    (pl.col("value") * 0.8).round(4))
    return pl.concat([table, extra])


def _table(fmt: str) -> Callable[[Path], str]:
    return lambda tmp: pf.results_table(_per_query(), baseline="a", n_resamples=200).render(fmt)


def _runs(tmp: Path) -> tuple[list[str], str]:
    paths = []
    for i, name in enumerate(("a", *NAMES)):
        rows = RUN.filter(pl.col("system") == ("a" if i == 0 else "b"))
        if i == 3:
            rows = rows.with_columns(pl.col("score") * -1)
        (tmp / f"run{i}").write_bytes(trec_run_text(rows))
        paths.append(f"{name}={tmp / f'run{i}'}" if i else str(tmp / f"run{i}"))
    (tmp / "qrels").write_bytes(trec_qrels_text(QRELS))
    return paths, str(tmp / "qrels")


def _cli(command: str, fmt: str, *extra: str) -> Callable[[Path], str]:
    def render(tmp: Path) -> str:
        runs, qrels = _runs(tmp)
        more = list(extra)
        if command == "segments":
            (tmp / "seg.csv").write_text("qid,segment_set,segment\n1,all,all\n2,all,all\n3,all,all\n")
            more += ["--segments", str(tmp / "seg.csv")]
        if command == "evaluate":
            more += ["-q"] if fmt != "table" else []
        elif command != "table":
            more += ["-B", "200"]
        return run_cli([command, qrels, *runs, "-m", "AP", "-f", fmt, *more])
    return render


def _analyze(fmt: str) -> Callable[[Path], str]:
    def render(tmp: Path) -> str:
        path = tmp / "results.parquet"
        _per_query().write_parquet(path)
        plan = (tmp / "plan.toml")
        plan.write_text(f"confidence_level = 0.95\nmargin = 0.02\nseed = 1\nn_resamples = 200\nresampling_unit = 'query'\n"
                        f"[systems]\nbaseline = 'a'\ncandidate = '{NAMES[0]}'\n[[endpoints]]\nmeasure = 'AP'\n"
                        f"direction = 'higher is better'\nrole = 'primary'\n")
        return run_cli(["analyze", "--plan", str(plan), str(path), "-f", fmt])
    return render


RENDERERS: dict[str, Callable[[Path], str]] = {
    **{f"ResultsTable.to_{fmt}": _table(fmt) for fmt in TABLE_FORMATS},
    **{f"cli table -f {fmt}": _cli("table", fmt) for fmt in TABLE_FORMATS},
    **{f"cli compare -f {fmt}": _cli("compare", fmt) for fmt in COMPARE_FORMATS},
    **{f"cli segments -f {fmt}": _cli("segments", fmt) for fmt in SEGMENTS_FORMATS},
    **{f"cli evaluate -f {fmt}": _cli("evaluate", fmt) for fmt in EVALUATE_FORMATS},
    **{f"cli analyze -f {fmt}": _analyze(fmt) for fmt in ANALYSIS_FORMATS},
}
_RENDERERS_ISSUE = "issue 20 item {} (branch renderers): "
XFAIL: dict[str, str] = {}


def _format_of(renderer: str) -> str:
    fmt = renderer.rsplit(" ", 1)[-1].removeprefix("ResultsTable.to_")
    return {"terminal": "text", "table": "text", "trec": "text"}.get(fmt, fmt)


@pytest.mark.parametrize("renderer", [pytest.param(r, marks=[pytest.mark.xfail(strict=True, reason=XFAIL[r])]
                                                   if r in XFAIL else []) for r in RENDERERS])
def test_names_with_special_characters_survive_every_renderer(renderer, tmp_path):
    text = RENDERERS[renderer](tmp_path)
    shown = names_in(text, _format_of(renderer))
    missing = [n for n in NAMES if n not in shown]
    if renderer.startswith("cli analyze"):  # a plan compares its baseline with one candidate
        missing = [n for n in missing if n == NAMES[0]]
    assert not missing, f"{missing} not read back from the {renderer} output"


def test_every_output_format_is_tried():
    methods = {f"ResultsTable.{m}" for m in vars(pf.ResultsTable) if m.startswith("to_")}
    formats = ({f"cli table -f {f}" for f in TABLE_FORMATS} | {f"cli compare -f {f}" for f in COMPARE_FORMATS}
               | {f"cli segments -f {f}" for f in SEGMENTS_FORMATS} | {f"cli analyze -f {f}" for f in ANALYSIS_FORMATS}
               | {f"cli evaluate -f {f}" for f in EVALUATE_FORMATS})
    missing = (methods | formats) - RENDERERS.keys()
    assert not missing, f"add {sorted(missing)} to RENDERERS"


@pytest.mark.parametrize("cell, text", [(r"a\textbar{}b", "a|b"), (r"\textless{}dense-v2\textgreater{}", "<dense-v2>"),
                                        (r"run\textbackslash{}\{x\}", r"run\{x}"), (r"x\_y \& z", "x_y & z")])
def test_latex_reader_decodes_escapes(cell, text):
    assert latex_text(cell) == text


@pytest.mark.parametrize("cell", ["a|b", "<dense-v2>", r"run\{x}"])
def test_latex_reader_refuses_raw_specials(cell):
    with pytest.raises(AssertionError, match="unescaped"):
        latex_text(cell)
