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

# [0-9], not \d: \d also matches other scripts' digits (full-width '２'), which atol does not read.
#: An integer grade, optionally written as a float with a zero fraction (``1.`` or ``1.0``).
INTEGER = r"^[+-]?[0-9]+(\.0*)?$"
#: A decimal number as C's strtod reads one (what trec_eval's atol gets a prefix of).
NUMBER = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
#: The grades an int64 holds.
INT64_RANGE = (-(2**63), 2**63 - 1)


def check_grades_option(grades: str) -> None:
    if grades not in ("strict", "trec_eval"):
        raise ValueError(f"grades must be 'strict' (integers only) or 'trec_eval' (C's atol: 1.5 -> 1), got {grades!r}")


def atol(text: pl.Expr) -> pl.Expr:
    """C's atol of a number's text: its sign and leading digits (0 when it starts with '.'); null
    when they do not fit in an int64 (:func:`out_of_range` says so)."""
    prefix = text.str.extract(r"^([+-]?[0-9]+)", 1)
    return prefix.fill_null("0").str.replace(r"^\+", "").cast(pl.Int64, strict=False)


def out_of_range(text: str) -> str:
    """Why a grade that does not fit in an int64 is refused."""
    return f"relevance grade {text!r} does not fit in a 64-bit integer ({INT64_RANGE[0]} .. {INT64_RANGE[1]})"


def row_out_of_range(row: int, text: str) -> SchemaError:
    """The refusal of a qrels table's grade outside int64: ``row`` is 1-based, ``text`` the grade as given."""
    return SchemaError(f"qrels column 'rel' row {row}: {out_of_range(text)}")


def int_grades(rel: pl.Series) -> pl.Series:
    """A whole-numbered grade column as int64, refusing (naming the row) a grade outside int64."""
    values = rel.cast(pl.Int64, strict=False)
    lost = values.is_null() & rel.is_not_null()
    if lost.any():
        i = int(lost.arg_true()[0])
        raise row_out_of_range(i + 1, str(rel[i]))
    return values.rename("rel")


def refuse_text_grades(rel: pl.Series, what: str, *, from_file: bool = False) -> None:
    """A table's or dict's grades are numbers: text and booleans are refused naming the column and its
    dtype, never parsed or cast (``' 2'`` -> 2, ``True`` -> 1). Text is parsed only when read from a file
    (``from_file``: a CSV's grades are text, as a TREC file's); booleans never are grades."""
    if rel.dtype == pl.Object:  # a dict's values: the bools are refused as they are read
        i = next((i for i, v in enumerate(rel.to_list()) if isinstance(v, str)), None)
        if i is not None:
            raise SchemaError(f"qrels column 'rel' must hold integer grades, got {rel[i]!r} (row {i + 1}): {what} "
                              "grades are numbers; text is parsed only when read from a file")
    elif rel.dtype == pl.Boolean or (isinstance(rel.dtype, (pl.String, pl.Categorical, pl.Enum)) and not from_file):
        shown = rel.drop_nulls().head(1).to_list()
        if shown:  # no value at all (an empty CSV's columns are strings): the empty / null checks say so
            raise SchemaError(f"{what}: column 'rel' holds {rel.dtype} values (e.g. {shown[0]!r}), not integer "
                              "grades; grades must be an integer column (whole floats such as 2.0 are read as "
                              "integers): cast it yourself once you know what its values mean, e.g. "
                              f"pl.col('rel'){'' if rel.dtype in (pl.String, pl.Boolean) else '.cast(pl.String)'}"
                              ".cast(pl.Int64)")


#: The words of that warning after the grade (a reader of the same file again can filter it out).
READ_AS_TREC_EVAL = "grades='trec_eval' keeps the integer prefix of a grade, as trec_eval's atol does (1.5 -> 1, 1e3 -> 1)"


def warn_read_as_trec_eval(count: int, where: str, text: str, value: int) -> None:
    """The one warning of a file or table whose non-integer grades were read as trec_eval reads them."""
    more = f" ({count} grades in all)" if count > 1 else ""
    warnings.warn(f"{where}: grade {text!r} read as {value}{more}: {READ_AS_TREC_EVAL}", UserWarning,
                  stacklevel=user_stacklevel())


def plain_grades(rel: pl.Series) -> pl.Series:
    """A grade column as numbers or text: a Decimal as Float64 (the float rules then apply: 1.5 is no
    integer grade, never cut to 1), a Categorical / Enum (a dictionary-encoded column) as its text, never
    its category codes."""
    if isinstance(rel.dtype, pl.Decimal):
        return rel.cast(pl.Float64)
    if isinstance(rel.dtype, (pl.Categorical, pl.Enum)):
        return rel.cast(pl.String)
    return rel


def table_grades(rel: pl.Series, grades: Grades) -> pl.Series:
    """A qrels table's float or text grade column as int64: integers only (``strict``), or truncated
    toward zero as atol reads the number (``trec_eval``; one warning naming the first such row)."""
    if rel.dtype == pl.String or rel.dtype == pl.Object:
        text = rel.cast(pl.String)
        pattern = INTEGER if grades == "strict" else NUMBER
        ok = text.str.strip_chars().str.contains(pattern).fill_null(False)
        if not ok.all():
            i = int((~ok).arg_true()[0])
            raise SchemaError(f"qrels column 'rel' must hold integer grades{'' if grades == 'strict' else ' or numbers'}, "
                              f"got {text[i]!r} (row {i + 1})")
        strict = text.str.strip_chars().str.contains(INTEGER)
        values = pl.select(atol(pl.lit(text.str.strip_chars()))).to_series()
        if values.is_null().any():
            i = int(values.is_null().arg_true()[0])
            raise row_out_of_range(i + 1, text[i])
        _warn_first(text, values, ~strict)
        return values.rename("rel")
    if rel.is_nan().any() or rel.is_infinite().any():
        raise SchemaError("qrels column 'rel' must hold integer grades, got NaN or inf")
    whole = rel.is_null() | (rel == rel.round(0))
    if not whole.all():
        if grades == "strict":
            raise SchemaError(f"qrels column 'rel' must hold integer grades, got {rel.filter(~whole)[0]} (grades='trec_eval' reads "
                              "it as trec_eval does: 1.5 -> 1)")
        values = int_grades(rel)  # truncation toward zero, as atol of the printed number
        _warn_first(rel, values, ~whole)
        return values.rename("rel")
    return int_grades(rel)


def _warn_first(original: pl.Series, values: pl.Series, changed: pl.Series) -> None:
    count = int(changed.sum())
    if count:
        i = int(changed.arg_true()[0])
        warn_read_as_trec_eval(count, f"qrels table row {i + 1}", str(original[i]), int(values[i]))
