"""The CLI's terminal table (``--format table``): the cells' text and the box-drawn table of a frame.

A rich ``Table`` builds every cell's segments, lines and styles in memory before it prints a character:
for the per-query rows of 63 DL-2021 runs (336,000 rows) that took 96-200 s and 2.4 GB, 20-40 times the
evaluation.  Above :data:`RICH_ROWS` rows the body is written here line by line instead, the very text
rich prints; rich still renders the title, header and borders (with one stand-in row), so those keep
their styles on a terminal and the body's lines are checked against rich's own stand-in row.
"""

from __future__ import annotations

import math
import re
import typing
from typing import Any

import polars as pl
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

#: Up to this many rows, rich renders the whole table; above it the body is written line by line
#: (:func:`write_box_table`).  The text is the same either way; rich takes about 1 ms a row (2,000 rows:
#: 1-4 s on the shared machine), the lines 20 us.
RICH_ROWS = 200
#: Rows joined into one write of the body: bounded memory, few calls.
_CHUNK = 10_000
#: Characters rich does not print as themselves in a cell (it drops some and breaks lines at others): a
#: body holding one is left to rich.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class StdoutConsole(Console):
    """rich's console, with a closed stdout left to the command's error handling (rich's own exits with 1)."""

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def _cell(value: Any, digits: int, scientific: bool = False) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and math.isinf(value):   # as compare's tables: LaTeX writes $\infty$
        return "∞" if value > 0 else "-∞"                # the negative numbers' hyphen-minus
    if isinstance(value, float):
        return f"{value:.{max(digits - 2, 1)}e}" if scientific and math.isfinite(value) else f"{value:.{digits}f}"
    return str(value)


def _scientific(frame: pl.DataFrame, digits: int) -> list[bool]:
    """Per column: a float column holding a non-zero value that ``digits`` decimals would show as 0."""
    return [dtype.is_float() and frame[name].abs().filter((frame[name] != 0) & frame[name].is_finite())
            .lt(10 ** -digits).any() for name, dtype in frame.schema.items()]


def _float_texts(values: list, digits: int, modes: list[str] | str) -> list[str]:
    """Float values as :func:`_cell` writes them, ``modes`` per value or for all: ``"int"`` (a count,
    rounded when finite), ``"sci"`` (scientific when finite) or ``"fix"`` (``digits`` decimals)."""
    fix, sci = f"{{:.{digits}f}}".format, f"{{:.{max(digits - 2, 1)}e}}".format

    def text(v: float | None, mode: str) -> str:
        if v is None:
            return ""
        if math.isinf(v):
            return "∞" if v > 0 else "-∞"
        if mode == "fix" or v != v:         # nan: never an integer, nor scientific
            return fix(v)
        return str(round(v)) if mode == "int" else sci(v)
    if isinstance(modes, str):
        return [text(v, modes) for v in values]
    return [text(v, m) for v, m in zip(values, modes)]


def column_texts(frame: pl.DataFrame, digits: int, format_by: str | None = None,
                 integers: typing.Collection[str] = ()) -> list[list[str]]:
    """The frame's values as text, a list per column, one number format per column: a float column holding a
    non-zero value that ``digits`` decimals would show as 0 is written in scientific notation throughout
    (``1.00e-04`` beside ``2.00e-02``, never beside ``0.0200``). With ``format_by`` (a long table's
    ``measure``) the format is per column and value of that column: a count (in ``integers``) is an
    integer, and one measure's small values do not turn another's 1003 into ``1.00e+03``."""
    if format_by is None:
        scientific = _scientific(frame, digits)
        groups, keys = None, None
    else:
        groups = {k[0]: _scientific(part, digits) for k, part in frame.group_by(format_by)}
        keys = frame[format_by].to_list()
    texts = []
    for j, (name, dtype) in enumerate(frame.schema.items()):
        values = frame[name].to_list()
        if dtype.is_float():
            if groups is None:
                texts.append(_float_texts(values, digits, "sci" if scientific[j] else "fix"))
            else:
                mode = {k: "int" if k in integers else "sci" if flags[j] else "fix" for k, flags in groups.items()}
                texts.append(_float_texts(values, digits, [mode[k] for k in keys]))
        elif dtype == pl.String or dtype.is_integer():
            texts.append(["" if v is None else str(v) for v in values])
        else:                               # booleans, dates, lists, objects: as the value prints
            texts.append([_cell(v, digits) for v in values])
    return texts


def _cell_widths(texts: list[str]) -> dict[str, int]:
    """{text: the terminal cells it takes} for each distinct text (a CJK character takes two, a combining
    accent none); a column of system names holds few."""
    return {t: len(t) if t.isascii() else cell_len(t) for t in set(texts)}


def _padded(texts: list[str], cells: dict[str, int], width: int, right: bool) -> list[str]:
    """``texts`` padded with spaces to ``width`` terminal cells, on the left when ``right``-justified;
    ``cells`` from :func:`_cell_widths`."""
    padded = {t: " " * (width - n) + t if right else t + " " * (width - n) for t, n in cells.items()}
    return [padded[t] for t in texts]


def rich_table(names: list[str], right: list[bool], rows: typing.Iterable[list[str]], title: str | None) -> Table:
    """The rich Table of the CLI: names, cells and title are text, never rich markup; a cell never wraps."""
    table = Table(title=None if title is None else Text(title), show_lines=False)  # text, not markup
    for name, r in zip(names, right):
        table.add_column(Text(name), justify="right" if r else "left", no_wrap=True)
    for row in rows:       # names are text, not rich markup; escape() would double a trailing backslash
        table.add_row(*map(Text, row))
    return table


def write_box_table(frame: pl.DataFrame, file: typing.TextIO | None, *, title: str | None = None,
                    digits: int = 4, format_by: str | None = None, integers: typing.Collection[str] = (),
                    rich_rows: int | None = None) -> None:
    """Print ``frame`` as rich's box-drawn table (heavy header box, numbers right-justified, other columns
    left) on ``file`` (None: stdout), never squeezing a cell: the console is widened to the table.

    Up to ``rich_rows`` rows (default :data:`RICH_ROWS`) rich renders the table.  Above it rich renders
    only the title, the header and the borders around one stand-in row whose cells are as wide as the
    widest of each column; the body is written here in chunks of lines, as rich writes an unstyled row
    (``│ cell │ cell │``): the same text at a fraction of the time and memory.  On a terminal the title
    (italic) and header (bold) keep rich's styles; rich gives body rows none, so neither does this.
    Should rich's stand-in row differ from the line written here for it (a cell holding a line break or
    a control character, a table rich would squeeze), rich renders the whole table.
    """
    names, right = frame.columns, [dtype.is_numeric() for dtype in frame.dtypes]
    columns = column_texts(frame, digits, format_by, integers)
    # Never squeeze numbers into ellipses: a table wider than the terminal wraps instead.
    widths = [max([len(name), *map(len, texts)]) for name, texts in zip(names, columns)]
    console = StdoutConsole(file=file, soft_wrap=False)
    console.width = max(console.width, sum(widths) + 3 * len(widths) + 1)
    long = frame.height > (RICH_ROWS if rich_rows is None else rich_rows)
    if long and not any(_CONTROL.search(t) for t in (*names, *map("".join, columns))):
        measured = [_cell_widths(texts) for texts in columns]
        cells = [max([cell_len(name), *m.values()]) for name, m in zip(names, measured)]
        stand_in = ["x" * w for w in cells]
        with console.capture() as captured:
            console.print(rich_table(names, right, [stand_in], title))
        lines = captured.get().split("\n")     # ..., the stand-in row, the bottom border, ""
        if len(lines) >= 4 and lines[-3] == "│ " + " │ ".join(stand_in) + " │":
            out = console.file
            out.write("\n".join(lines[:-3]) + "\n")
            body = []
            for j, r in enumerate(right):   # each column's texts give way to their padded copy
                body.append(_padded(columns[j], measured[j], cells[j], r))
                columns[j] = []
            for start in range(0, frame.height, _CHUNK):
                out.write("".join(["│ " + " │ ".join(row) + " │\n"
                                   for row in zip(*(texts[start:start + _CHUNK] for texts in body))]))
            out.write(lines[-2] + "\n")
            return
    console.print(rich_table(names, right, zip(*columns), title))
