"""Markdown of a results table: a GitHub (GFM) pipe table whose text survives any CommonMark renderer.

Names and captions are escaped with CommonMark's backslash escapes, which turn any ASCII punctuation
into its literal self: ``<dense-v2>`` would otherwise be read as an HTML tag (and vanish), ``run\\{x}``
lose its backslash, ``a|b`` end the cell, ``*x*`` and ``_x_`` turn italic, a backtick open a code
span, ``~~`` strike through (GFM) and ``$...$`` turn into math (GitHub).  Line breaks become
character references, so a cell stays on its line.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["markdown_escape", "render_markdown"]

#: Inline-significant in CommonMark / GFM (emphasis, code, links, raw HTML, entities, tables,
#: strikethrough, GitHub math); a backslash before any ASCII punctuation is literal in CommonMark.
_ESCAPED = set("\\`*_[]<>|~&$")
_BREAKS = {"\n": "&#10;", "\r": "&#13;"}


def markdown_escape(text: str) -> str:
    """``text`` escaped to render as itself in a CommonMark / GFM table cell or paragraph.

    Parameters
    ----------
    text : str

    Returns
    -------
    str
        ``<dense-v2>`` -> ``\\<dense-v2\\>``, ``run\\{x}`` -> ``run\\\\{x}``, ``a|b`` -> ``a\\|b``;
        a line break as a character reference (``&#10;``).
    """
    out = []
    for i, ch in enumerate(text):
        if ch in _ESCAPED and not _inert(text, i):
            out.append("\\" + ch)
        else:
            out.append(_BREAKS.get(ch, ch))
    return "".join(out)


def _inert(text: str, i: int) -> bool:
    """True where CommonMark reads the character literally anyway, so the escape would only clutter
    the source: ``_`` between two letters or digits (``bert_base``: never emphasis) and ``<``
    before a space (``p < 0.05``: no tag or autolink)."""
    before, after = text[i - 1:i], text[i + 1:i + 2]
    if text[i] == "_":
        return before.isalnum() and after.isalnum()
    return text[i] == "<" and (after == "" or after.isspace())


def _cell(number: str, interval: str, marks: str, place: int | None) -> str:
    body = number + interval                         # digits, [ ] , ± and –: nothing to escape
    body = f"**{body}**" if place == 1 else f"<u>{body}</u>" if place == 2 else body
    return body + (f"<sup>{markdown_escape(marks)}</sup>" if marks else "")


def render_markdown(labels: Sequence[str], measures: Sequence[str],
                    cells: Sequence[Sequence[tuple[str, str, str, int | None]]], caption: str, *,
                    title: str | None = None) -> str:
    """A GFM pipe table (``System`` left-aligned, measures right-aligned), then the caption.

    Parameters
    ----------
    labels, measures : sequence of str
        Row and column names (plain text; escaped here).
    cells : sequence of sequences of (number, interval, marks, place)
        As :func:`pairedframe.report.table_latex.render_latex`; best ``**bold**``, second
        ``<u>underlined</u>``, marks in ``<sup>``.
    caption : str
        Plain text; escaped here.
    title : str, optional
        A bold line above the table.

    Returns
    -------
    str
        Columns padded to a common width, ending with a newline.
    """
    head = ["System", *(markdown_escape(m) for m in measures)]
    rows = [[markdown_escape(name), *(_cell(*cell) for cell in row)] for name, row in zip(labels, cells)]
    widths = [max(3, *(len(r[j]) for r in [head, *rows])) for j in range(len(head))]
    rule = ["-" * widths[0], *("-" * (w - 1) + ":" for w in widths[1:])]

    def line(parts: list[str]) -> str:
        return "| " + " | ".join(p.ljust(w) for p, w in zip(parts, widths)) + " |"

    table = "\n".join([line(head), line(rule), *(line(r) for r in rows)])
    top = f"**{markdown_escape(title)}**\n\n" if title else ""
    return f"{top}{table}\n\n{markdown_escape(caption)}\n"
