"""Validation of user-made ``pf_run`` / ``pf_qrels`` relations before the SQL path runs on them.

The readers (:mod:`pairedframe.io`) refuse duplicate (qid, docno) pairs, null or NaN scores, empty ids,
grades that are not integers and missing columns; a user who builds ``pf_run`` and ``pf_qrels`` on a DuckDB
connection and calls :func:`pairedframe.engines.duckdb_engine.prepare` gets the same checks here
(``sql/check_run.sql``, ``sql/check_qrels.sql``), each error naming the table and an offending row.
Without them a duplicated document makes AP 1.5.
"""

from __future__ import annotations

import re

import duckdb

from pairedframe.sql_files import load_sql
from pairedframe.errors import BLANK_ID, BLANK_ID_PATTERN, DUPLICATE_RULE, EMPTY_ID_RULE, DuplicateError, SchemaError

_COLUMNS = {"pf_run": ("system", "qid", "docno", "score"), "pf_qrels": ("qid", "docno", "rel")}
_IDS = ("system", "qid", "docno")
_INTEGER = re.compile(r"^U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)$")
_NUMBER = re.compile(r"^(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|REAL|DECIMAL(\(\d+,\s*\d+\))?)$")


def _column_types(con: duckdb.DuckDBPyConnection, table: str) -> dict[str, str]:
    try:
        described = con.sql(f"DESCRIBE {table}").fetchall()  # table is one of _COLUMNS' names
    except duckdb.CatalogException:
        raise SchemaError(f"{table}: no such table or view on the connection; create it with columns "
                          f"{', '.join(_COLUMNS[table])}") from None
    return {name: str(kind).upper() for name, kind, *_ in described}


def _check_types(table: str, types: dict[str, str]) -> None:
    missing = [c for c in _COLUMNS[table] if c not in types]
    if missing:
        raise SchemaError(f"{table} lacks column(s) {missing}; needs {', '.join(_COLUMNS[table])} (has {list(types)})")
    for column in (c for c in _IDS if c in _COLUMNS[table]):
        if types[column] != "VARCHAR":
            raise SchemaError(f"{table}.{column} is {types[column]}; ids are strings (CAST({column} AS VARCHAR)), "
                              "so that '007' stays '007' and run and qrels ids compare equal")
    value = "score" if table == "pf_run" else "rel"
    if not _NUMBER.match(types[value]):
        raise SchemaError(f"{table}.{value} is {types[value]}; it must be a number")


def check_inputs(con: duckdb.DuckDBPyConnection) -> None:
    """Raise unless ``pf_run`` and ``pf_qrels`` on ``con`` satisfy the readers' invariants.

    Raises
    ------
    SchemaError
        A missing table or column, an id column that is not VARCHAR, a score or grade that is not a
        number, a null, a NaN score, an empty or all-blank id (qid, docno or system ``''`` or ``'  '``:
        no TREC file holds one) or a grade that is not an integer (names the table, the column and the row).
    DuplicateError
        The same (system, qid, docno) twice in ``pf_run`` or (qid, docno) twice in ``pf_qrels``.
    """
    for table in ("pf_run", "pf_qrels"):
        _check_types(table, _column_types(con, table))
    for problem, system, qid, docno, value, n in con.sql(load_sql("check_run.sql")).fetchall():
        _raise("pf_run", problem, ("system", "qid", "docno"), (system, qid, docno), "score", value, n)
    for problem, qid, docno, value, n in con.sql(load_sql("check_qrels.sql")).fetchall():
        _raise("pf_qrels", problem, ("qid", "docno"), (qid, docno), "rel", value, n)


def _raise(table: str, problem: str, keys: tuple[str, ...], row: tuple, value_name: str, value: str | None,
           n: int) -> None:
    where = f"({', '.join(keys)}) = {row!r}"
    if problem == "duplicate":
        raise DuplicateError(f"{table}: duplicate {where} ({n} rows); {DUPLICATE_RULE}")
    if problem == "empty id":  # the row is named by its values: a DuckDB relation has no row order
        column = next(k for k, v in zip(keys, row) if re.fullmatch(BLANK_ID_PATTERN, str(v)))
        shown = ", ".join([*(f"{k}={v!r}" for k, v in zip(keys, row) if k != column), f"{value_name}={value}"])
        raise SchemaError(f"{table}: column {column!r} is {BLANK_ID} in {n} row(s), e.g. the row ({shown}); "
                          f"{EMPTY_ID_RULE}")
    raise SchemaError(f"{table}: {problem}: {value_name} = {value} at {where}")
