"""The types of a CSV / TSV table's columns, decided by name and by every row (never by polars' first 100).

The table is read as text; ids stay text (``007`` is ``007``), and the number columns a reader needs
(a run's ``score``, a qrels table's grade, a per-query table's ``value``) are parsed here, as a whole
column: integers when every value is one (a grade; a score, so that integers a double cannot hold
are warned about), else doubles. A value that is no number is refused naming the file, the line
(the header is line 1), the column and the text, as the TREC readers name a bad line.
"""

from __future__ import annotations

import csv
import io
import os

import polars as pl

from pairedframe.errors import InputFormatError
from pairedframe.io.grades import INTEGER, NUMBER
from pairedframe.tables import COLUMN_ALIASES

__all__ = ["NUMBER_COLUMNS", "ragged_line_error", "refuse_bad_grades", "typed_columns"]

#: The number columns of each kind of table, by the names (and aliases) a header may give them.
NUMBER_COLUMNS: dict[str, tuple[str, ...]] = {
    "run": ("score",),
    "qrels": ("rel", *(alias for alias, ours in COLUMN_ALIASES.items() if ours == "rel")),
    "results": ("value",),
}


def typed_columns(table: pl.DataFrame, path: str | os.PathLike, fmt: str, what: str) -> pl.DataFrame:
    """``table`` (every column text, read from CSV / TSV file ``path``) with its number columns (by name,
    :data:`NUMBER_COLUMNS`) as Int64 when every value is an integer (not a per-query ``value``), else Float64. A
    grade column that is not all integers stays text: the ``grades`` option decides what ``1.5`` is
    (:func:`refuse_bad_grades`).

    Raises
    ------
    InputFormatError
        A score or value that is no number, a score or grade left empty in a row that is not blank: the file,
        line, column and text. A header that names a column twice (polars would read the first, renaming the
        second ``NAME_duplicated_0``): which one holds the values is never guessed.
    """
    _refuse_repeated_columns(table, path, what)
    for column in (c for c in NUMBER_COLUMNS[what] if c in table.columns and table.schema[c] == pl.String):
        text = table[column].str.strip_chars()
        empty = text.is_null() & _not_blank_rows(table) if what != "results" else None  # a value's null: unmeasured
        if empty is not None and empty.any():
            raise _bad_value(table, column, int(empty.arg_true()[0]), path, fmt, what)
        as_int = text.cast(pl.Int64, strict=False)
        if as_int.null_count() == text.null_count() and what != "results":
            table = table.with_columns(as_int.alias(column))
        elif what != "qrels":
            as_float = text.cast(pl.Float64, strict=False)
            bad = as_float.is_null() & text.is_not_null()
            if bad.any():
                raise _bad_value(table, column, int(bad.arg_true()[0]), path, fmt, what)
            table = table.with_columns(as_float.alias(column))
    return table


def _refuse_repeated_columns(table: pl.DataFrame, path: str | os.PathLike, what: str) -> None:
    """InputFormatError naming the file and the first column a CSV / TSV header names twice (as polars reads a
    header: the second ``score`` becomes ``score_duplicated_0``)."""
    for index, column in enumerate(table.columns):
        name, marker, number = column.rpartition("_duplicated_")
        if marker and number.isdigit() and name in table.columns:
            raise InputFormatError(
                f"the header names column {name!r} twice (columns {table.columns.index(name) + 1} and {index + 1}): "
                f"which one holds the {what} table's {name} is not guessed; drop or rename one of them",
                path=os.fspath(path), argument=what)


def _not_blank_rows(table: pl.DataFrame) -> pl.Series:
    """Rows with a value in some column (a blank line is a row of nulls: the id checks name it)."""
    return table.select(pl.any_horizontal(pl.all().is_not_null())).to_series()


def _bad_value(table: pl.DataFrame, column: str, row: int, path: str | os.PathLike, fmt: str, what: str,
               problem: str | None = None) -> InputFormatError:
    """The error naming the file, the line of 0-based data ``row`` (its row where no line is found), ``column``
    and the row's values; ``problem`` says what is wrong (default: not a number, or empty)."""
    from pairedframe.io.table_values import csv_line_of_row

    value = table[column][row]
    line = csv_line_of_row(path, "\t" if fmt == "tsv" else ",", row, comments=what != "results")
    kind = {"run": "a score", "qrels": "a grade", "results": "a value"}[what]
    if problem is None:
        problem = (f"column {column!r} is empty, but every row needs {kind}" if value is None
                   else f"column {column!r} holds {value!r}, which is not a number")
    shown = ", ".join(f"{c}={v!r}" for c, v in table.row(row, named=True).items() if c != column)
    where = "" if line is not None else f"row {row + 1}: "
    return InputFormatError(f"{where}{problem} ({shown})", path=os.fspath(path), line=line, argument=what)


def refuse_bad_grades(table: pl.DataFrame, path: str | os.PathLike, fmt: str, strict: bool) -> None:
    """InputFormatError naming the file, line, column and text of the first grade of a CSV / TSV qrels ``table``
    (read by :func:`typed_columns`) that is not an integer (``strict``) or not a number (trec_eval's reading)."""
    if fmt not in ("csv", "tsv"):
        return
    for column in (c for c in NUMBER_COLUMNS["qrels"] if c in table.columns and table.schema[c] == pl.String):
        text = table[column].str.strip_chars()
        bad = ~text.str.contains(INTEGER if strict else NUMBER).fill_null(True)
        if bad.any():
            row = int(bad.arg_true()[0])
            number = strict and text.str.contains(NUMBER)[row]
            problem = (f"column {column!r} holds {table[column][row]!r}, which is not "
                       f"{'an integer grade' if strict else 'a number'}"
                       + ("; grades='trec_eval' reads it as trec_eval does (1.5 -> 1)" if number else ""))
            raise _bad_value(table, column, row, path, fmt, "qrels", problem)


def ragged_line_error(path: str | os.PathLike, fmt: str, what: str) -> InputFormatError | None:
    """The error naming the first line of CSV / TSV file ``path`` with more fields than its header (polars refuses
    the file, naming no line), or None; read line by line, on this error path only (``#`` lines skipped, as the
    table readers skip them, but by the per-query results reader)."""
    from pairedframe.io.trec import _open_bytes

    separator = "\t" if fmt == "tsv" else ","
    fetched: list[int] = []     # the file line of each line handed to the CSV reader

    def data_lines(fh: io.TextIOWrapper):
        for number, text in enumerate(fh, start=1):
            if what == "results" or not text.startswith("#"):
                fetched.append(number)
                yield text
    with io.TextIOWrapper(_open_bytes(os.fspath(path)), encoding="utf-8-sig", newline="", errors="replace") as fh:
        records = csv.reader(data_lines(fh), delimiter=separator)
        header = next(records, None)
        while header is not None:
            start = len(fetched)    # the record's first line is the next one fetched
            record = next(records, None)
            if record is None:
                return None
            if len(record) > len(header):
                return InputFormatError(
                    f"{len(record)} fields, more than the header's {len(header)} ({', '.join(header)})",
                    path=os.fspath(path), line=fetched[start], text=separator.join(record)[:200], argument=what)
    return None
