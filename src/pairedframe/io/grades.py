"""How a qrels grade is read: strictly (an integer; the default) or as trec_eval reads it.

trec_eval stores a qrels grade with C's ``atol``: the sign and leading digits of the field, so
``1.5`` and ``1.9`` are 1, ``1e3`` is 1 and ``.5`` is 0. pairedframe refuses such grades unless asked
for trec_eval's reading (``grades="trec_eval"``), which then warns once, naming the first line read
that way and what it became.
"""

from __future__ import annotations

import warnings
from typing import Literal

import polars as pl

from pairedframe.errors import SchemaError, user_stacklevel

Grades = Literal["strict", "trec_eval"]

#: An integer grade, optionally written as a float with a zero fraction (``1.`` or ``1.0``).
INTEGER = r"^[+-]?\d+(\.0*)?$"
#: A decimal number as C's strtod reads one (what trec_eval's atol gets a prefix of).
NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$"


def check_grades_option(grades: str) -> None:
    if grades not in ("strict", "trec_eval"):
        raise ValueError(f"grades must be 'strict' (integers only) or 'trec_eval' (C's atol: 1.5 -> 1), got {grades!r}")


def atol(text: pl.Expr) -> pl.Expr:
    """C's atol of a number's text: its sign and leading digits (0 when it starts with '.')."""
    prefix = text.str.extract(r"^([+-]?\d+)", 1)
    return prefix.fill_null("0").str.replace(r"^\+", "").cast(pl.Int64)


def warn_read_as_trec_eval(count: int, where: str, text: str, value: int) -> None:
    """The one warning of a file or table whose non-integer grades were read as trec_eval reads them."""
    more = f" ({count} grades in all)" if count > 1 else ""
    warnings.warn(f"{where}: grade {text!r} read as {value}{more}: grades='trec_eval' keeps the integer prefix of "
                  "a grade, as trec_eval's atol does (1.5 -> 1, 1e3 -> 1)", UserWarning, stacklevel=user_stacklevel())


def table_grades(rel: pl.Series, grades: Grades) -> pl.Series:
    """A qrels table's float or text grade column as int64: integers only (``strict``), or truncated
    toward zero as atol reads the number (``trec_eval``; one warning naming the first such row)."""
    if rel.dtype == pl.String or rel.dtype == pl.Object:
        text = rel.cast(pl.String)
        pattern = INTEGER if grades == "strict" else NUMBER
        ok = text.str.strip_chars().str.contains(pattern).fill_null(False)
        if not ok.all():
            raise SchemaError(f"qrels column 'rel' must hold integer grades{'' if grades == 'strict' else ' or numbers'}, "
                              f"got {text.filter(~ok)[0]!r}")
        strict = text.str.strip_chars().str.contains(INTEGER)
        values = pl.select(atol(pl.lit(text.str.strip_chars()))).to_series()
        _warn_first(text, values, ~strict)
        return values.rename("rel")
    if rel.is_nan().any() or rel.is_infinite().any():
        raise SchemaError("qrels column 'rel' must hold integer grades, got NaN or inf")
    whole = rel.is_null() | (rel == rel.round(0))
    if not whole.all():
        if grades == "strict":
            raise SchemaError(f"qrels column 'rel' must hold integer grades, got {rel.filter(~whole)[0]} (grades='trec_eval' reads "
                              "it as trec_eval does: 1.5 -> 1)")
        values = rel.cast(pl.Int64)  # truncation toward zero, as atol of the printed number
        _warn_first(rel, values, ~whole)
        return values.rename("rel")
    return rel.cast(pl.Int64).rename("rel")


def _warn_first(original: pl.Series, values: pl.Series, changed: pl.Series) -> None:
    count = int(changed.sum())
    if count:
        i = int(changed.arg_true()[0])
        warn_read_as_trec_eval(count, f"qrels table row {i + 1}", str(original[i]), int(values[i]))
