"""The pieces of a self-contained HTML report: scoped CSS, figures as data URIs, plain tables, the page.

Everything a report shows travels inside one file: the CSS in a ``<style>`` block whose every selector
starts with the report's own element id (so the report can sit inside a notebook or another page and
style nothing else), figures as ``data:`` URIs (no file beside it, no network), no script.
"""

from __future__ import annotations

import base64
import html
import math
import re
import tempfile
import uuid
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from pairedframe.report.output import visible_controls

__all__ = ["new_report_id", "report_css", "figure_html", "render_figure", "plain_table", "page", "esc",
           "breakable"]

#: The report's stylesheet; ``ROOT`` becomes the report's element id, so no rule reaches outside it.
#: Table cells never break inside a word (numbers and measure names nowrap; names wrap at the ``<wbr>``
#: of :func:`breakable`, or as a last resort at a cell's max-width), so a table too wide for the page
#: scrolls in its ``.pf-scroll`` div instead of squeezing ``1.00e-04`` into ``1.00e-`` over ``04``.
_CSS = """
#ROOT { font-family: -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif; color: #222;
        line-height: 1.45; max-width: 1200px; margin: 0 auto; padding: 0 12px; }
#ROOT h1 { font-size: 1.6em; margin: 0.6em 0 0.2em; }
#ROOT h2 { font-size: 1.25em; margin: 1.4em 0 0.4em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; }
#ROOT h3 { font-size: 1.05em; margin: 1.0em 0 0.3em; }
#ROOT .pf-lead { color: #444; margin: 0 0 0.8em; }
#ROOT .pf-nav { font-size: 0.9em; margin: 0.4em 0 1em; }
#ROOT .pf-nav a { margin-right: 1em; color: #1f4e9c; }
#ROOT .pf-warnings { background: #fff7e6; border-left: 4px solid #e0a100; padding: 0.4em 1em; }
#ROOT .pf-warnings li { margin: 0.3em 0; }
#ROOT figure { margin: 0.8em 0; }
#ROOT figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
#ROOT figcaption { font-size: 0.85em; color: #555; }
#ROOT table.pf-plain { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
#ROOT table.pf-plain th, #ROOT table.pf-plain td { border-bottom: 1px solid #e4e4e4; padding: 2px 6px;
        text-align: left; vertical-align: top; max-width: 24em; overflow-wrap: break-word; }
#ROOT table.pf-plain td.pf-num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
#ROOT table.pf-plain td.pf-whole { white-space: nowrap; }
#ROOT table.pf-plain th { border-bottom: 2px solid #bbb; }
#ROOT .pf-better { color: #1f4e9c; font-weight: 600; }
#ROOT .pf-worse { color: #b2182b; font-weight: 600; }
#ROOT .pf-scroll { overflow-x: auto; }
#ROOT pre { background: #f6f6f6; padding: 0.6em; overflow-x: auto; font-size: 0.85em; white-space: pre-wrap; }
#ROOT .pf-note { font-size: 0.85em; color: #555; }
#ROOT table.pf-heat { border-collapse: collapse; font-size: 0.75em; margin: 0.5em 0; }
#ROOT table.pf-heat th { text-align: right; font-weight: normal; padding: 0 6px 0 0; white-space: nowrap;
        max-width: 20em; overflow: hidden; text-overflow: ellipsis; }
#ROOT table.pf-heat td { width: 9px; min-width: 9px; height: 13px; padding: 0; border: 1px solid #fff; }
#ROOT table.pf-heat td.pf-mean { width: auto; padding: 0 0 0 6px; text-align: right; border: none;
        font-variant-numeric: tabular-nums; }
"""


def new_report_id() -> str:
    """A fresh element id, ``pf-report-`` and 12 random hex digits: two reports on one page never clash."""
    return f"pf-report-{uuid.uuid4().hex[:12]}"


def report_css(root: str) -> str:
    """The stylesheet with every selector under ``#root``."""
    return f"<style>{_CSS.replace('ROOT', root)}</style>"


def esc(value: Any) -> str:
    """Text for HTML and SVG: ``<``, ``>``, ``&`` and quotes escaped, control characters written as their
    escapes (:func:`~pairedframe.report.output.visible_controls`)."""
    return html.escape(visible_controls(str(value)), quote=True)


def render_figure(draw: Callable[[Path], Any], suffix: str = ".svg") -> bytes:
    """The bytes of a figure drawn by ``draw(path)`` (one of the :mod:`pairedframe.report.plots`
    functions, which write a file); in SVG its text stays text (smaller, sharp at any zoom)."""
    import matplotlib

    with tempfile.TemporaryDirectory(prefix="pf-report-") as folder, \
            matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "pairedframe"}):
        path = Path(folder) / f"figure{suffix}"
        draw(path)
        return path.read_bytes()


def figure_html(data: bytes, *, alt: str, caption: str, figure_id: str, suffix: str = ".svg") -> str:
    """A ``<figure>`` holding the image as a data URI, with its caption."""
    mime = "image/svg+xml" if suffix == ".svg" else "image/png"
    uri = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    return (f'<figure id="{figure_id}" class="pf-figure"><img src="{uri}" alt="{esc(alt)}">'
            f"<figcaption>{esc(caption)}</figcaption></figure>")


def _cell(value: Any, digits: int) -> tuple[str, bool]:
    """(text, numeric) of one cell."""
    if value is None:
        return "", False
    if isinstance(value, bool):
        return str(value).lower(), False
    if isinstance(value, float):
        if math.isinf(value):                         # an unbounded interval end (one-sided)
            return ("∞" if value > 0 else "-∞"), True    # the negative numbers' hyphen-minus
        if math.isnan(value):                         # no value (e.g. no interval): a dash, not "nan"
            return "–", True
        return (f"{value:.{digits}f}" if abs(value) >= 10 ** -digits or value == 0 else f"{value:.2e}"), True
    if isinstance(value, int):
        return str(value), True
    return str(value), False


#: Where a name may wrap: after ``_`` or ``/``, and after ``.`` before a letter (``qrels.txt``, never ``0.95``).
_NAME_BREAK = re.compile(r"(?<=[_/])(?=[^_/])|(?<=\.)(?=[A-Za-z])")
#: A name (no space) up to this many characters stays on one line: ``TUA1-`` over ``1`` misleads as a
#: split number does, and a name this short fits a cell anyway.
SHORT_NAME = 30


def breakable(value: Any, *, longer_than: int = SHORT_NAME) -> str:
    """``esc(value)`` with ``<wbr>`` where a word of more than ``longer_than`` characters (a long run
    name, a path) may wrap: after ``_`` and ``/``, and after a ``.`` before a letter; nowhere inside a
    number.  The table's CSS breaks no word anywhere (that split ``1.00e-04`` into ``1.00e-`` over
    ``04``), so such a word wraps only here; shorter words wrap at spaces only."""
    return re.sub(rf"\S{{{longer_than + 1},}}", lambda word: _NAME_BREAK.sub("<wbr>", word.group()), esc(value))


def _td(value: Any, digits: int, whole: bool) -> str:
    """One cell: a number, a cell of a ``whole`` column or a short name on one line; other text
    :func:`breakable`."""
    text, numeric = _cell(value, digits)
    if numeric:
        return f'<td class="pf-num">{esc(text)}</td>'
    if whole or (len(text) <= SHORT_NAME and not any(c.isspace() for c in text)):
        return f'<td class="pf-whole">{esc(text)}</td>'
    return f"<td>{breakable(text)}</td>"


def plain_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], *, table_id: str, digits: int = 4,
                row_classes: Sequence[str] | None = None, whole: Collection[str] = ()) -> str:
    """A plain HTML table (the report's stylesheet styles it), every cell escaped.

    Numbers, names of up to :data:`SHORT_NAME` characters and every cell of a column in ``whole``
    (measure names: ``nDCG@1`` over ``0`` reads as another measure) stay on one line; other text
    wraps at spaces and where :func:`breakable` allows, the headers after ``_``.  A table wider than
    the page scrolls sideways in its own ``<div>`` rather than squeezing its cells.
    """
    head = "".join(f'<th scope="col">{breakable(c, longer_than=0)}</th>' for c in columns)
    kept = [c in whole for c in columns]
    body = []
    for i, row in enumerate(rows):
        cells = [_td(v, digits, keep) for v, keep in zip(row, kept)]
        cls = f' class="{row_classes[i]}"' if row_classes and row_classes[i] else ""
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return (f'<div class="pf-scroll"><table id="{table_id}" class="pf-plain"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def page(fragment: str, *, title: str) -> str:
    """A whole HTML document around ``fragment`` (no style outside the fragment's own)."""
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n</head>\n<body>\n{fragment}\n</body>\n</html>\n")
