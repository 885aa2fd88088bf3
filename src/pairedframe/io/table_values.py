"""The values of a run or qrels *table* that trec_eval's text reader could never produce.

A TREC file is text: every score is parsed by C's ``atof`` into a double and every id is a run of
non-blank bytes. A table handed over in memory (polars, pandas, pyarrow, DuckDB, a dict) can hold what
no file can: a score column of strings, integers a double cannot hold exactly, an empty id. Each is
refused with an error naming the column (or warned about, where trec_eval's reading of the same
numbers as text gives the same value), never read silently.
"""

from __future__ import annotations

import csv
import io
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

import polars as pl

from pairedframe.errors import BLANK_ID, BLANK_ID_PATTERN, EMPTY_ID_RULE, SchemaError, user_stacklevel
from pairedframe.tables import COLUMN_ALIASES, column_renames

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


def refuse_bools_in_records(fields: Mapping[str, Sequence], what: str) -> None:
    """SchemaError naming the field and the record (1-based) of a True / False among the ids, grades or
    scores of namedtuple records (``fields``: name -> its values): polars reads it beside the other values
    as grade or score 1 or id ``'true'``, while a table's or dict's boolean grades and scores are refused."""
    for name, values in fields.items():
        column = COLUMN_ALIASES.get(name, name)
        if column not in ("qid", "docno", "rel", "score", "system"):
            continue
        bools = {t for t in set(map(type, values)) if t is bool or (t.__module__ == "numpy" and
                                                                 t.__name__ in ("bool_", "bool"))}
        if bools:   # the types in one pass; the record is looked for only when there is one
            i = next(i for i, v in enumerate(values) if type(v) in bools)
            raise SchemaError(f"{what} records: field {name!r} of record {i + 1} is {values[i]!r} (bool), not "
                              f"{'a number' if column in ('rel', 'score') else 'an id'}")


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


def refuse_blank_ids_in_file(table: pl.DataFrame, path: str | os.PathLike, fmt: str, what: str) -> None:
    """:func:`refuse_empty_ids` for a run or qrels ``table`` read from the table file ``path`` (``fmt``: csv, tsv,
    parquet, arrow), naming the file and, for CSV / TSV, the line of the first blank id as the TREC readers
    name a bad line (the header is line 1; comment and blank lines count), else its row."""
    try:
        columns = table.rename(column_renames(table.columns, f"{what} table"))
    except SchemaError:
        return                      # as_run / as_qrels report the columns
    ids = [c for c in ID_COLUMNS if c in columns.columns]
    bad = {c: columns.select(pl.col(c).is_null() | blank_ids(c).fill_null(False)).to_series() for c in ids}
    if not ids or not columns.select(pl.any_horizontal(bad.values()).any()).item():
        return
    first_row = min(int(mask.arg_true()[0]) for mask in bad.values() if mask.any())   # the first in the file
    column = next(c for c in ids if bad[c][first_row])
    is_bad = bad[column]
    if columns[column][first_row] is None:     # an empty CSV field: polars reads it as null
        kind, rule = "empty (null)", f"every row needs a {column} (a blank line is a row of nulls)"
    else:
        kind, rule = BLANK_ID, EMPTY_ID_RULE
    line = csv_line_of_row(path, "," if fmt == "csv" else "\t", first_row) if fmt in ("csv", "tsv") else None
    shown = ", ".join(f"{c}={columns.row(first_row, named=True)[c]!r}" for c in columns.columns if c != column)
    n_bad = int(is_bad.sum())
    if line is None:     # Parquet / Arrow: rows, worded as an in-memory table's
        raise SchemaError(f"{what} file {os.fspath(path)}: column {column!r} is {kind} in {n_bad} row(s), e.g. "
                          f"row {first_row + 1} ({shown}); {rule}")
    raise SchemaError(f"{what} file {os.fspath(path)}, line {line}: column {column!r} is {kind} ({shown}; "
                      f"{n_bad} row(s) in all); {rule}")


def csv_line_of_row(path: str | os.PathLike, separator: str, row: int, *, comments: bool = True) -> int | None:
    """The file line (1-based, the header line 1) on which data row ``row`` (0-based) of a CSV / TSV file starts,
    read as polars reads it: ``#`` lines skipped (with ``comments``; the per-query results reader keeps them as
    rows), a blank line a row (of nulls), a quoted field may span lines."""
    return csv_lines_of_rows(path, separator, [row], comments=comments)[0]


def csv_lines_of_rows(path: str | os.PathLike, separator: str, rows: Sequence[int], *,
                      comments: bool = True) -> list[int | None]:
    """:func:`csv_line_of_row` of each of ``rows``, in one read of the file (None for a row past its end)."""
    from pairedframe.io.trec import _open_bytes

    fetched: list[int] = []
    starts: list[int] = []                                    # the first line of the header, then of rows 0, 1, ...

    def data_lines(fh: Iterable[str]) -> Iterable[str]:
        for number, text in enumerate(fh, start=1):
            if not (comments and text.startswith("#")):
                fetched.append(number)
                yield text
    with io.TextIOWrapper(_open_bytes(os.fspath(path)), encoding="utf-8-sig", newline="") as fh:
        records = csv.reader(data_lines(fh), delimiter=separator)
        for _ in range(max(rows, default=-1) + 2):            # the header, then rows 0 .. the last asked for
            start = len(fetched)                              # the record's first line is the next one fetched
            if next(records, None) is None:
                break
            starts.append(fetched[start])
    return [starts[row + 1] if row + 1 < len(starts) else None for row in rows]


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
    if not columns or not _may_hold_blank_ids(frame, columns) \
            or not frame.select(pl.any_horizontal(blank_ids(c).any() for c in columns)).item():
        return None
    for column in columns:
        rows = frame.filter(blank_ids(column))
        if rows.height:
            first_row = frame.select(blank_ids(column).fill_null(False).arg_true().first()).item()
            return BlankIds(column, rows, first_row)
    return None


def _may_hold_blank_ids(frame: pl.DataFrame, columns: list[str]) -> bool:
    """False when no id of ``columns`` can be blank: an empty or all-blank id sorts at or before every id that starts
    with a character above the space (every blank is ASCII at most 0x20), so a column whose smallest id is neither
    empty nor starts with such a character holds none. One min per column costs a sixth of the pattern match."""
    lows = frame.select(pl.col(c).cast(pl.String).min() for c in columns).row(0)
    return any(low is not None and (low == "" or low[0] <= " ") for low in lows)


def blank_ids(column: str) -> pl.Expr:
    """Whether each id of ``column`` is empty or made of blanks only (errors.BLANK_ID_PATTERN); an id that is not text
    (an integer qid) is read as its text."""
    return pl.col(column).cast(pl.String).str.contains(BLANK_ID_PATTERN)
