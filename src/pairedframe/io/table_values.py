"""The values of a run or qrels *table* that trec_eval's text reader could never produce.

A TREC file is text: every score is parsed by C's ``atof`` into a double and every id is a run of
non-blank bytes. A table handed over in memory (polars, pandas, pyarrow, DuckDB, a dict) can hold what
no file can: a score column of strings, integers a double cannot hold exactly, an empty id. Each is
refused with an error naming the column (or warned about, where trec_eval's reading of the same
numbers as text gives the same value), never read silently.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import NamedTuple

import polars as pl

from pairedframe.errors import BLANK_ID, BLANK_ID_PATTERN, EMPTY_ID_RULE, SchemaError, user_stacklevel

#: The id columns of a run or qrels table: none may hold an empty or all-blank string (refuse_empty_ids).
ID_COLUMNS = ("system", "qid", "docno")
#: Integers beyond this magnitude are not all exactly representable as a double (IEEE 754 binary64).
EXACT_INTEGER_LIMIT = 2**53
#: Integer dtypes whose every value a double holds exactly (no check needed).
_SMALL_INTEGERS = (pl.Int8, pl.Int16, pl.Int32, pl.UInt8, pl.UInt16, pl.UInt32)


def numeric_scores(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with its ``score`` column as float64, as trec_eval holds scores.

    Raises
    ------
    SchemaError
        ``score`` is not a numeric column (strings, booleans, ...): the message names the column, its
        dtype and a value. Strings are never parsed: a table's column has a type, and a score that is
        text is most often a column mixed up with another.

    Warns
    -----
    UserWarning
        Integer scores beyond +-2**53, at the caller's line: a double cannot hold them exactly, so they
        are rounded (as trec_eval's ``atof`` rounds the same numbers written as text) and scores that
        differ by less than the rounding step tie (ties are ordered by docno).
    """
    dtype = frame.schema["score"]
    if not dtype.is_numeric():
        shown = frame["score"].drop_nulls().head(1).to_list()
        if not shown:  # no value at all (an empty CSV's columns are strings): the empty / null checks say so
            return frame.with_columns(pl.col("score").cast(pl.Float64, strict=False))
        raise SchemaError(f"run table: column 'score' holds {dtype} values (e.g. {shown[0]!r}), not numbers; scores "
                          "must be a numeric column (int or float): cast it yourself once you know what its values "
                          "mean, e.g. pl.col('score').cast(pl.Float64)")
    if dtype.is_integer() and dtype not in _SMALL_INTEGERS:
        _warn_inexact_integers(frame)
    return frame.with_columns(pl.col("score").cast(pl.Float64))


def _warn_inexact_integers(frame: pl.DataFrame) -> None:
    beyond = (pl.col("score") > EXACT_INTEGER_LIMIT) | (pl.col("score") < -EXACT_INTEGER_LIMIT)
    big = frame.filter(beyond)
    if big.height:
        warn_inexact_integers(f"run table: column 'score' ({frame.schema['score']})", big.height, big["score"][0])


def inexact_dict_scores(values: list, floats: pl.Series) -> None:
    """Warn as :func:`numeric_scores` does for the Python integers of a run dict beyond +-2**53 (``floats``:
    the scores as read; the values are looked at only when one is that large)."""
    largest = floats.abs().max()
    if largest is None or largest < EXACT_INTEGER_LIMIT:  # 2**53 + 1 reads as 2**53
        return
    big = [v for v in values if isinstance(v, int) and not isinstance(v, bool) and abs(v) > EXACT_INTEGER_LIMIT]
    if big:
        warn_inexact_integers("run dict: column 'score'", len(big), big[0])


def warn_inexact_integers(where: str, count: int, example: int) -> None:
    """The warning about ``count`` integer scores beyond +-2**53 (rounded to doubles), at the caller's line."""
    warnings.warn(
        f"{where} holds {count:,} integer(s) beyond +-2**53 (e.g. {example}, read as {float(example):.17g}), "
        "which a double cannot hold exactly: they are rounded, as trec_eval rounds the same numbers read as text, "
        "so scores that differ by less than the rounding step tie (ties are ordered by docno); rescale the "
        "scores, or cast them to float yourself to silence this", UserWarning, stacklevel=user_stacklevel())


def refuse_nan_scores(frame: pl.DataFrame, *, pandas: bool = False) -> None:
    """NaN scores cannot be ranked (trec_eval's order is undefined for them); +-inf can, as C compares them.
    ``pandas``: the table came from pandas, whose float columns write a missing value as NaN too."""
    bad = frame.filter(pl.col("score").is_nan())
    if bad.height:
        row = bad.row(0, named=True)
        missing = ("; pandas writes a missing (null) score as NaN too: drop the rows whose score is missing"
                   if pandas else "")
        raise SchemaError(f"run table: column 'score' is NaN (not a number) in {bad.height} row(s), e.g. (system, "
                          f"qid, docno) = ({row['system']}, {row['qid']}, {row['docno']}); NaN cannot be ranked "
                          f"(+-inf can){missing}")


def refuse_empty_ids(frame: pl.DataFrame, what: str) -> None:
    """SchemaError naming the id column and the first row (1-based, as every message numbers rows) holding an empty
    or all-blank string (``''``, ``'  '``, a tab): trec_eval reads ids as runs of non-blank bytes, so no file can
    give one, and it matches no id of a file. A system is an id too (a file's is its non-blank name; an empty one
    no ``baseline=`` or ``systems=`` can name)."""
    found = first_blank_ids(frame, ID_COLUMNS)
    if found is not None:
        column, rows, first_row = found
        shown = ", ".join(f"{c}={rows.row(0, named=True)[c]!r}" for c in frame.columns if c != column)
        raise SchemaError(f"{what} table: column {column!r} is {BLANK_ID} in {rows.height} row(s), e.g. "
                          f"row {first_row + 1} ({shown}); {EMPTY_ID_RULE}")


class BlankIds(NamedTuple):
    """The first id column holding an empty or all-blank id, its rows holding one, and the first one's index."""
    column: str
    rows: pl.DataFrame
    first_row: int


def first_blank_ids(frame: pl.DataFrame, columns: Iterable[str]) -> BlankIds | None:
    """The first of ``columns`` (those ``frame`` has) holding an empty or all-blank id (:func:`blank_ids`), with its
    rows holding one and the first one's 0-based index; None when no id is blank. The one test of the rule for
    every polars table (a run's, a qrels', a per-query table's)."""
    columns = [c for c in columns if c in frame.columns]
    if not columns or not frame.select(pl.any_horizontal(blank_ids(c).any() for c in columns)).item():
        return None
    for column in columns:
        rows = frame.filter(blank_ids(column))
        if rows.height:
            first_row = frame.select(blank_ids(column).fill_null(False).arg_true().first()).item()
            return BlankIds(column, rows, first_row)
    return None


def blank_ids(column: str) -> pl.Expr:
    """Whether each id of ``column`` is empty or made of blanks only (errors.BLANK_ID_PATTERN); an id that is not text
    (an integer qid) is read as its text."""
    return pl.col(column).cast(pl.String).str.contains(BLANK_ID_PATTERN)
