"""Numbers beside strings in a JSON id column: polars reads such a column as text, the number 7 as "7",
with no trace of it, so the warning an all-integer id column gets would be lost."""

from __future__ import annotations

import json
from collections.abc import Sequence

import polars as pl

__all__ = ["numbers_among_text_ids"]

_NUMBER = r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$"


def numbers_among_text_ids(df: pl.DataFrame, data: bytes, kind: str, columns: Sequence[str]
                           ) -> dict[str, tuple[object, object, float | None]]:
    """The text ``columns`` of ``df`` (read from the JSON or NDJSON ``data``) that held a number in the file.

    Parameters
    ----------
    df : polars.DataFrame
        The table polars read from ``data``.
    data : bytes
        The file's text.
    kind : {"json", "ndjson"}
    columns : sequence of str
        The id columns to look at (the file's own names).

    Returns
    -------
    dict
        column -> (the first number, the first string, the first float or None) of each text column holding a
        number and a string, in ``columns`` order.
    """
    # only a value spelled as a number can have been one: most files are spared the second parse
    suspects = [c for c in columns if c in df.columns and df.schema[c] == pl.String
                and df[c].str.contains(_NUMBER).any()]
    if not suspects:
        return {}
    records = json.loads(data) if kind == "json" else [json.loads(line) for line in data.splitlines() if line.strip()]
    found: dict[str, list[object]] = {c: [None, None, None] for c in suspects}
    for record in records if isinstance(records, list) else []:
        for c in suspects:
            value = record.get(c) if isinstance(record, dict) else None
            slot = 1 if isinstance(value, str) else 0 if isinstance(value, (int, float)) and not isinstance(
                value, bool) else None
            if slot is not None and found[c][slot] is None:
                found[c][slot] = value
            if isinstance(value, float) and found[c][2] is None:   # 2.0 or 6e0: read as the id "2", "6"
                found[c][2] = value
    return {c: (number, text, first_float) for c, (number, text, first_float) in found.items()
            if number is not None and text is not None}
