"""Column names and dtypes of the tables pairedframe passes around.

Every public function that takes or returns a table uses one of these schemas.
Ids (``qid``, ``docno``, ``system``) are always strings: ``007`` stays ``007``.

=============  ==========================================================  =====================
table          columns (one row per ...)                                   dtypes
=============  ==========================================================  =====================
run            system, qid, docno, score  (one row per retrieved doc)     str, str, str, f64
qrels          qid, docno, rel            (one row per judgment)          str, str, i64
per-query      system, qid, measure, value (one row per system/query/     str, str, str, f64
               measure; optional key columns such as ``dataset``,
               ``cluster`` may precede ``measure``)
=============  ==========================================================  =====================
"""

from __future__ import annotations

import polars as pl

from pairedframe.errors import SchemaError

RUN_SCHEMA: dict[str, pl.DataType] = {
    "system": pl.String(),
    "qid": pl.String(),
    "docno": pl.String(),
    "score": pl.Float64(),
}
QRELS_SCHEMA: dict[str, pl.DataType] = {
    "qid": pl.String(),
    "docno": pl.String(),
    "rel": pl.Int64(),
}
PER_QUERY_SCHEMA: dict[str, pl.DataType] = {
    "system": pl.String(),
    "qid": pl.String(),
    "measure": pl.String(),
    "value": pl.Float64(),
}
# Optional key columns carried through the comparison layers when present.
KEY_COLUMNS: tuple[str, ...] = ("dataset", "cluster")
#: Column names of the IR ecosystem's shapes -> ours (ir_measures / ir_datasets, PyTerrier, ranx).
COLUMN_ALIASES: dict[str, str] = {"query_id": "qid", "doc_id": "docno", "relevance": "rel", "run_id": "system",
                                  "query": "qid", "docid": "docno", "doc": "docno", "label": "rel", "name": "system"}
#: Aliases that beside our own name mean something else (PyTerrier: ``query`` is the query's text,
#: ``docid`` Terrier's internal document number; ``name``, PyTerrier's per-query system column, is any
#: label beside ``system``): then they are no candidate for the column.
OTHER_MEANING: frozenset[str] = frozenset({"query", "docid", "name"})


def names_system(columns: list[str]) -> bool:
    """Whether a table with ``columns`` names its systems: a ``system`` column or an alias of it (``run_id``)."""
    return any(c == "system" or COLUMN_ALIASES.get(c) == "system" for c in columns)


def refuse_aliases_beside(columns: list[str], what: str) -> None:
    """SchemaError when ``columns`` hold one of ours and an alias of it (``qid`` and ``query_id``):
    which one holds the ids is not ours to guess, whatever the reader (runs, qrels, per-query tables)."""
    for alias in columns:
        ours = COLUMN_ALIASES.get(alias)
        if ours in columns and alias not in OTHER_MEANING:
            raise SchemaError(f"{what} has both {ours!r} and {alias!r} ({alias!r} is another name of {ours!r}): "
                              f"it is ambiguous which is the {ours}; drop or rename one of them")


def column_renames(columns: list[str], what: str) -> dict[str, str]:
    """Alias -> our name for the columns of a run or qrels table that hold one of ours under another
    name (:data:`COLUMN_ALIASES`), whatever the library of the table (polars, pandas, Spark): the one
    mapping of every reader.

    Parameters
    ----------
    columns : list of str
        The table's column names.
    what : str
        The table in error messages (``"run table"``, ``"qrels table"``).

    Raises
    ------
    SchemaError
        One of ours beside an alias of it (:func:`refuse_aliases_beside`), or two aliases of a column
        without ours (``doc_id`` and ``doc``): which one holds the ids is never guessed.
    """
    refuse_aliases_beside(columns, what)
    renames = {c: COLUMN_ALIASES[c] for c in columns if c in COLUMN_ALIASES and COLUMN_ALIASES[c] not in columns}
    for target in set(renames.values()):
        found = sorted(c for c, t in renames.items() if t == target)
        if len(found) > 1:
            raise SchemaError(f"{what} has {found} but no {target!r}: it is ambiguous which is the "
                              f"{target}; rename that one to {target!r}")
    return renames


def per_query_renames(columns: list[str], what: str) -> dict[str, str]:
    """Alias -> our name for the ``system`` and ``qid`` of a per-query table (ir_measures' ``query_id``,
    ``run_id``): the mapping of runs and qrels (:func:`column_renames`), limited to a per-query table's
    columns (another alias, ``doc_id`` say, stays a column of its own).

    Raises
    ------
    SchemaError
        As :func:`column_renames`: one of ours beside an alias of it, or two aliases of one column.
    """
    refuse_aliases_beside(columns, what)
    return column_renames([c for c in columns if COLUMN_ALIASES.get(c, c) in PER_QUERY_SCHEMA or c not in COLUMN_ALIASES],
                          what)


def check_schema(frame: pl.DataFrame, schema: dict[str, pl.DataType], *, what: str) -> pl.DataFrame:
    """Return ``frame`` with exactly ``schema``'s columns first, raising on a missing or mistyped column.

    Parameters
    ----------
    frame : polars.DataFrame
        The table to check. Extra columns are kept after the schema columns.
    schema : dict
        Column name -> polars dtype.
    what : str
        Name of the table in error messages (``"run"``, ``"qrels"``...).

    Raises
    ------
    SchemaError
        A column is missing or has a different dtype.
    """
    missing = [c for c in schema if c not in frame.columns]
    if missing:
        raise SchemaError(f"{what} table lacks column(s) {missing}; it has {frame.columns}")
    wrong = [f"{c}: {frame.schema[c]} (expected {t})" for c, t in schema.items() if frame.schema[c] != t]
    if wrong:
        raise SchemaError(f"{what} table has mistyped column(s): {', '.join(wrong)}")
    extra = [c for c in frame.columns if c not in schema]
    return frame.select([*schema, *extra])
