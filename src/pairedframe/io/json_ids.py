"""Ids a JSON file held as something else than strings, where polars leaves no trace of it: a number beside
strings is read as text (7 as "7", 6e0 as "6"), a boolean as the text "true" beside strings and as the integer 1
beside integers.  So the warning an all-integer id column gets, and the refusal of float and boolean ids, would
be lost."""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from typing import NamedTuple

import polars as pl

from pairedframe.errors import SchemaError, user_stacklevel

__all__ = ["MixedIds", "check_json_ids", "mixed_json_ids"]

_NUMBER = r"^-?\d+(\.\d+)?([eE][-+]?\d+)?$"


class MixedIds(NamedTuple):
    """What a JSON id column held beside its strings (None: nothing of that kind)."""

    number: object              # its first number (int or float)
    text: object                # its first string
    float_literal: str | None   # its first float, as the file spells it (6e0)
    flag: bool | None           # its first boolean


class _Float(float):
    """A JSON float that keeps its spelling (``6e0``; ``float`` would show it as 6.0)."""

    literal: str

    def __new__(cls, literal: str) -> _Float:
        self = super().__new__(cls, literal)
        self.literal = literal
        return self


def mixed_json_ids(df: pl.DataFrame, data: bytes, kind: str, columns: Sequence[str]) -> dict[str, MixedIds]:
    """The id ``columns`` of ``df`` (read from the JSON or NDJSON ``data``) that held a number beside a string,
    or a boolean, in the file.

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
        column -> :class:`MixedIds` of each such column, in ``columns`` order.
    """
    flags = b"true" in data or b"false" in data
    # only a value spelled as a number or a flag can have been one: most files are spared the second parse
    suspects = [c for c in columns if c in df.columns and (
        (df.schema[c] == pl.String and df[c].str.contains(_NUMBER).any())
        or (flags and (df.schema[c] == pl.String and df[c].is_in(["true", "false"]).any()
                       or df.schema[c].is_integer())))]
    if not suspects:
        return {}
    records = (json.loads(data, parse_float=_Float) if kind == "json"
               else [json.loads(line, parse_float=_Float) for line in data.splitlines() if line.strip()])
    found: dict[str, list[object]] = {c: [None, None, None, None] for c in suspects}
    for record in records if isinstance(records, list) else []:
        for c in suspects:
            value = record.get(c) if isinstance(record, dict) else None
            slot = (3 if isinstance(value, bool) else 1 if isinstance(value, str)
                    else 0 if isinstance(value, (int, float)) else None)
            if slot is not None and found[c][slot] is None:
                found[c][slot] = value
            if isinstance(value, _Float) and found[c][2] is None:
                found[c][2] = value.literal
    return {c: MixedIds(*values) for c, values in found.items()
            if values[3] is not None or (values[0] is not None and values[1] is not None)}


def check_json_ids(df: pl.DataFrame, data: bytes, kind: str, what: str, columns: Sequence[str]) -> None:
    """Refuse a boolean in an id column, or a float beside text ids, of the JSON or NDJSON file ``what``
    (as a float or boolean id column is refused: :func:`pairedframe.checks.string_ids`); warn about integers
    beside text ids.  ``columns``: the id columns, as the file names them (and as the messages do).

    Raises
    ------
    SchemaError
        A JSON ``true``/``false`` in an id column, or a float beside text ids (naming the column and the value
        as the file spells it)."""
    mixed = mixed_json_ids(df, data, kind, columns)
    flag = next(((c, m.flag) for c, m in mixed.items() if m.flag is not None), None)
    if flag is not None:
        column, value = flag
        literal = json.dumps(value)
        raise SchemaError(f"id column {column!r} of {what} holds the JSON boolean {literal}: a flag is no id (it "
                          f"would be read as the id {literal!r} beside text ids, as the number {int(value)} beside "
                          "numbers, matching no id of another table); write the ids themselves, as strings")
    floats = {c: m.float_literal for c, m in mixed.items() if m.float_literal is not None}
    if floats:
        column, literal = next(iter(floats.items()))
        raise SchemaError(f"id column {column!r} of {what} holds a float, {literal}, beside text ids: ids are "
                          "strings ('q1', 'd7'), and a float such as 1.0 does not match the id '1' of another table; "
                          "write the ids as strings")
    if mixed:
        said = "; ".join(f"{c}: the number {m.number!r} beside the text {m.text!r}" for c, m in mixed.items())
        warnings.warn(f"numeric id column(s) {list(mixed)} of {what} hold JSON numbers beside text ids ({said}): "
                      "each number is read as the text it spells (7 as '7'); an id written as a number has no "
                      "leading zeros, so if it had one ('007') it no longer matches it elsewhere; write the ids as "
                      "JSON strings to keep them", UserWarning, stacklevel=user_stacklevel())
