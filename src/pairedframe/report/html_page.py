"""The pieces of a self-contained HTML report: scoped CSS, figures as data URIs, plain tables, the page.

Everything a report shows travels inside one file: the CSS in a ``<style>`` block whose every selector
starts with the report's own element id (so the report can sit inside a notebook or another page and
style nothing else), figures as ``data:`` URIs (no file beside it, no network), no script.
"""

from __future__ import annotations

import base64
import html
import math
import tempfile
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pairedframe.report.output import visible_controls

__all__ = ["new_report_id", "report_css", "figure_html", "render_figure", "plain_table", "page", "esc"]

#: The report's stylesheet; ``ROOT`` becomes the report's element id, so no rule reaches outside it.
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
#ROOT table.pf-plain th, #ROOT table.pf-plain td { border-bottom: 1px solid #e4e4e4; padding: 2px 8px;
        text-align: left; vertical-align: top; max-width: 24em; overflow-wrap: anywhere; }
#ROOT table.pf-plain td.pf-num { text-align: right; font-variant-numeric: tabular-nums; }
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


def plain_table(columns: Sequence[str], rows: Sequence[Sequence[Any]], *, table_id: str, digits: int = 4,
                row_classes: Sequence[str] | None = None) -> str:
    """A plain HTML table (the report's stylesheet styles it), every cell escaped."""
    head = "".join(f'<th scope="col">{esc(c)}</th>' for c in columns)
    body = []
    for i, row in enumerate(rows):
        cells = []
        for v in row:
            text, numeric = _cell(v, digits)
            cells.append(f'<td class="pf-num">{esc(text)}</td>' if numeric else f"<td>{esc(text)}</td>")
        cls = f' class="{row_classes[i]}"' if row_classes and row_classes[i] else ""
        body.append(f"<tr{cls}>{''.join(cells)}</tr>")
    return (f'<div class="pf-scroll"><table id="{table_id}" class="pf-plain"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")


def page(fragment: str, *, title: str) -> str:
    """A whole HTML document around ``fragment`` (no style outside the fragment's own)."""
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f"<title>{esc(title)}</title>\n</head>\n<body>\n{fragment}\n</body>\n</html>\n")
