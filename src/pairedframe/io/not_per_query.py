"""Files a results reader is handed by mistake, told apart from per-query values so the error says what
they are: a display table (``-f markdown``, or ``-f table``'s boxed terminal table), which holds rounded
values and cannot be read back, and a comparison's output (``pairedframe compare -f csv|json``), whose
rows are deltas and p-values, not per-query values."""

from __future__ import annotations

import os
from collections.abc import Iterable

from pairedframe.errors import InputFormatError, SchemaError
from pairedframe.io.detect import file_head

__all__ = ["COMPARISON_OUTPUT", "is_comparison_output", "lacking_columns_error", "display_table_format", "refuse_display_table"]

#: The tail of the errors refusing a comparison's output where per-query values are expected.
COMPARISON_OUTPUT = ("this is a comparison's output (columns baseline, delta, pvalue...), not per-query values: "
                     "compare the per-query results files it was made from (pairedframe evaluate -q -f csv, json or "
                     "trec)")
#: Box-drawing characters a terminal table's first line starts with (rich's boxes), or ASCII ``+---+``.
_BOX = tuple(chr(c) for c in range(0x2500, 0x2580)) + ("+-", "+=")
#: The characters of a terminal table's border line.
_BORDER = frozenset(chr(c) for c in range(0x2500, 0x2580)) | frozenset("+-=|: ")


def is_comparison_output(columns: Iterable[str]) -> bool:
    """True when ``columns`` are those of ``pairedframe compare``'s or ``pf.compare``'s output (a CSV's
    ``baseline, delta, pvalue``, or ``-f json``'s ``settings`` and ``rows``)."""
    names = {str(c).strip().lower() for c in columns}
    return ({"baseline", "delta"} <= names and "value" not in names) or {"settings", "rows"} <= names


def lacking_columns_error(missing: list[str], columns: list[str]) -> SchemaError:
    """The error of a per-query table (a frame or an engine's table) lacking ``missing`` of its base
    columns; a comparison's output is named as one."""
    if is_comparison_output(columns):
        return SchemaError(f"per-query table: {COMPARISON_OUTPUT}")
    return SchemaError(f"per-query table lacks column(s) {missing}; needs system, qid, measure, value (has {columns})")


def display_table_format(path: str | os.PathLike) -> str | None:
    """``"markdown"`` or ``"terminal"`` when the file at ``path`` (possibly compressed) is a display table
    (a GFM pipe table, or a boxed terminal table), from its first lines; None otherwise."""
    try:
        head, _ = file_head(os.fspath(path))
    except OSError:
        return None
    lines = [line.strip() for line in head.decode("utf-8", "replace").lstrip("\ufeff").splitlines() if line.strip()]
    if not lines:
        return None
    if (len(lines) > 1 and lines[0].startswith("|") and lines[0].endswith("|") and "-" in lines[1]
            and set(lines[1]) <= set("|-: ")):
        return "markdown"
    # a title line may come first (compare's "paired comparison vs baseline ..."); a border is made of box
    # characters only: a CSV row whose first id starts with them ('+-rm3,...') is data
    return "terminal" if any(line.startswith(_BOX) and set(line) <= _BORDER for line in lines[:2]) else None


def refuse_display_table(path: str | os.PathLike) -> None:
    """Raise InputFormatError naming ``path`` when it is a display table (:func:`display_table_format`),
    saying which format it is and what to write instead; a comparison's table says so."""
    fmt = display_table_format(path)
    if fmt is None:
        return
    head = file_head(os.fspath(path))[0].decode("utf-8", "replace")
    header = next((line for line in head.splitlines() if line.strip().startswith(("|", "┃", "│"))), "")
    cells = [c.strip(" |│┃") for c in header.replace("┃", "|").replace("│", "|").split("|")]
    if is_comparison_output(cells) or "delta" in cells:   # compare's table names no baseline column
        raise InputFormatError(f"a {fmt} table of a comparison: {COMPARISON_OUTPUT}", path=os.fspath(path))
    name = "a markdown table (-f markdown)" if fmt == "markdown" else "a terminal table (-f table, the default)"
    raise InputFormatError(f"{name}, a display format with rounded values that cannot be read back as per-query "
                           "results: write them with -f csv, json or trec (pairedframe evaluate -q -f csv QRELS RUN "
                           "> A.csv)", path=os.fspath(path))
