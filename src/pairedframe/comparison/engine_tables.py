"""Per-query tables that live in an engine: a DuckDB relation or a Spark DataFrame.

:mod:`pairedframe.comparison.by_join` runs the same SQL text on both through the small
:class:`EngineTable` interface: name the user's table as a view, create a (temporary, cached) table
from a SELECT, register a small table made here (Arrow), run a SELECT and collect its (small)
result as polars. Values never go into SQL text: they travel in registered tables. The few
dialect differences are methods (:meth:`EngineTable.quote`, :meth:`EngineTable.row_order`).
"""

from __future__ import annotations

import itertools
import uuid
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import polars as pl
import pyarrow as pa

from pairedframe.checks import no_id_error, warn_numeric_ids
from pairedframe.errors import SchemaError
from pairedframe.sql_files import blank_id_sql
from pairedframe.io.spark_frames import is_spark_dataframe
from pairedframe.io.not_per_query import lacking_columns_error
from pairedframe.tables import per_query_renames

_NAMES = itertools.count()


def is_duckdb_relation(data: Any) -> bool:
    return type(data).__module__.startswith("duckdb") and hasattr(data, "query") and hasattr(data, "arrow")


class EngineTable(ABC):
    """One user table in an engine, and the temporary tables made next to it (dropped by ``close``)."""

    dialect = "generic"

    def __init__(self) -> None:
        self.prefix = f"pf_{uuid.uuid4().hex[:8]}_"
        self._made: list[str] = []

    def name(self, what: str) -> str:
        """A fresh name for a temporary table of this call."""
        return f"{self.prefix}{what}_{next(_NAMES)}"

    # -- each engine implements these -----------------------------------------------------------
    columns: list[str]

    @abstractmethod
    def column_types(self) -> dict[str, str]:
        """Column name -> the engine's type name, of the user table."""

    @abstractmethod
    def create(self, name: str, select: str, partition_by: Sequence[str] = ()) -> None:
        """Create the temporary (cached) table ``name`` from ``select``; dropped by ``close``.

        ``partition_by``: columns that later joins and groupings of the table share (a hint: a Spark table
        is stored hash-partitioned by them, so those queries need no shuffle; DuckDB ignores it)."""

    @abstractmethod
    def register(self, name: str, table: pa.Table) -> None:
        """Make a small Arrow table made here visible to the engine as ``name``."""

    @abstractmethod
    def collect(self, select: str) -> pl.DataFrame:
        """Run ``select`` and return its (small) result as polars."""

    @abstractmethod
    def drop(self, name: str) -> None:
        """Drop the temporary table ``name``."""

    @abstractmethod
    def quote(self, identifier: str) -> str:
        """``identifier`` quoted for the engine's SQL."""

    @abstractmethod
    def hash64(self, column: str) -> str:
        """Expression: a 64-bit integer hash of ``column``."""

    @abstractmethod
    def hash_sum(self, column: str) -> str:
        """An aggregate: the exact sum of a 64-bit hash of ``column`` (a query-set fingerprint)."""

    @abstractmethod
    def xor(self, a: str, b: str) -> str:
        """Expression: the bitwise xor of two 64-bit integer expressions."""

    @abstractmethod
    def shift_right(self, a: str, bits: int | str) -> str:
        """Expression: the 64-bit integer ``a`` shifted right by ``bits``."""

    @abstractmethod
    def quantile(self, expr: str, p: float) -> str:
        """Aggregate: the type-7 (linear) quantile of ``expr`` at ``p``."""

    @abstractmethod
    def row_order(self) -> str:
        """An expression numbering the rows of the user table in their order (for 'order of appearance')."""

    def blank_id(self, text: str) -> str:
        """Whether the string expression ``text`` is an empty or all-blank id (:func:`~pairedframe.sql_files.blank_id_sql`)."""
        return blank_id_sql(text, self.dialect)

    # -------------------------------------------------------------------------------------------
    def close(self) -> None:
        while self._made:
            self.drop(self._made.pop())


class DuckDBTable(EngineTable):
    """A DuckDB relation: statements run on its own connection through ``relation.query``, so the
    data never leaves DuckDB; registered Arrow tables reach it by DuckDB's replacement scan."""

    dialect = "duckdb"

    def __init__(self, relation: Any) -> None:
        super().__init__()
        self._rel = relation
        self.source = self.name("input")
        self.columns = list(relation.columns)
        self._types = {c: str(t) for c, t in zip(relation.columns, relation.types)}
        relation.create_view(self.source, replace=True)
        self._made.append(self.source)

    def _run(self, text: str):
        return self._rel.query("pf_input", text)

    def column_types(self) -> dict[str, str]:
        return self._types

    def create(self, name: str, select: str, partition_by: Sequence[str] = ()) -> None:
        self._run(f"CREATE OR REPLACE TEMP TABLE {name} AS {select}")
        self._made.append(name)

    def register(self, name: str, table: pa.Table) -> None:
        pf_arrow = table  # noqa: F841  (found by DuckDB's replacement scan of the calling frame)
        self._rel.query("pf_input", f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM pf_arrow")
        self._made.append(name)

    def collect(self, select: str) -> pl.DataFrame:
        return pl.from_arrow(self._run(select).to_arrow_table())

    def collect_with(self, select: str, table: pa.Table) -> pl.DataFrame:
        """Run ``select``, which reads the Arrow table as ``pf_arrow`` (no copy into DuckDB)."""
        pf_arrow = table  # noqa: F841
        return pl.from_arrow(self._rel.query("pf_input", select).to_arrow_table())

    def drop(self, name: str) -> None:
        kind = "VIEW" if name == self.source else "TABLE"
        self._run(f"DROP {kind} IF EXISTS {name}")

    def quote(self, identifier: str) -> str:
        return '"' + identifier.replace('"', '""') + '"'

    def row_order(self) -> str:
        return "row_number() OVER ()"

    def hash64(self, column: str) -> str:
        return f"hash({column})"

    def hash_sum(self, column: str) -> str:
        return f"sum(CAST(hash({column}) AS HUGEINT))"

    def xor(self, a: str, b: str) -> str:
        return f"xor({a}, {b})"

    def shift_right(self, a: str, bits: int | str) -> str:
        return f"(({a}) >> ({bits}))"

    def quantile(self, expr: str, p: float) -> str:
        return f"quantile_cont({expr}, {p!r})"


class SparkTable(EngineTable):
    """A Spark DataFrame: temporary views on its session; created tables are views of cached (``persist``),
    materialised frames, unpersisted by ``drop``."""

    dialect = "spark"

    def __init__(self, frame: Any) -> None:
        super().__init__()
        self.spark = frame.sparkSession
        self.source = self.name("input")
        frame.createOrReplaceTempView(self.source)
        self._made.append(self.source)
        self.columns = list(frame.columns)
        self._types = {f.name: f.dataType.simpleString() for f in frame.schema.fields}
        self._cached: dict[str, Any] = {}

    def column_types(self) -> dict[str, str]:
        return self._types

    def create(self, name: str, select: str, partition_by: Sequence[str] = ()) -> None:
        # cached in Spark's columnar format (compressed, scanned column by column, unlike a localCheckpoint's
        # rows) and materialised now, so later queries read it instead of re-running its plan; freed by drop
        frame = self.spark.sql(select)
        if partition_by:
            frame = frame.repartition(*partition_by)
        frame = frame.persist()
        frame.count()
        frame.createOrReplaceTempView(name)
        self._cached[name] = frame
        self._made.append(name)

    def register(self, name: str, table: pa.Table) -> None:
        frame = self.spark.createDataFrame(table)
        frame.createOrReplaceTempView(name)
        self._made.append(name)

    def collect(self, select: str) -> pl.DataFrame:
        return pl.from_arrow(self.spark.sql(select).toArrow())

    def collect_with(self, select: str, table: pa.Table) -> pl.DataFrame:
        name = self.name("arrow")
        self.spark.createDataFrame(table).createOrReplaceTempView(name)
        try:
            return self.collect(select.replace("pf_arrow", name))
        finally:
            self.spark.catalog.dropTempView(name)

    def drop(self, name: str) -> None:
        frame = self._cached.pop(name, None)
        self.spark.catalog.dropTempView(name)
        if frame is not None:
            frame.unpersist()

    def quote(self, identifier: str) -> str:
        return "`" + identifier.replace("`", "``") + "`"

    def row_order(self) -> str:
        return "monotonically_increasing_id()"

    def hash64(self, column: str) -> str:
        return f"xxhash64({column})"

    def hash_sum(self, column: str) -> str:
        return f"sum(CAST(xxhash64({column}) AS DECIMAL(38, 0)))"

    def xor(self, a: str, b: str) -> str:
        return f"(({a}) ^ ({b}))"

    def shift_right(self, a: str, bits: int | str) -> str:
        return f"shiftright({a}, {bits})"

    def quantile(self, expr: str, p: float) -> str:
        return f"percentile({expr}, {p!r})"


def engine_table(data: Any) -> EngineTable | None:
    """The engine wrapper for a DuckDB relation or a Spark DataFrame; None for anything else. Their
    ``query_id`` / ``run_id`` are read as ``qid`` / ``system``, as in polars tables (per_query_renames)."""
    if is_duckdb_relation(data):
        renames = per_query_renames(list(data.columns), "the per-query table")
        if renames:
            data = data.project(", ".join(f"{_quoted(c)} AS {_quoted(renames.get(c, c))}" for c in data.columns))
        return DuckDBTable(data)
    if is_spark_dataframe(data):
        for alias, ours in per_query_renames(list(data.columns), "the per-query table").items():
            data = data.withColumnRenamed(alias, ours)
        return SparkTable(data)
    return None


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


NUMERIC_TYPES = ("double", "float", "real", "int", "bigint", "smallint", "tinyint", "hugeint", "decimal",
                 "long", "short", "byte", "ubigint", "uinteger", "usmallint", "utinyint", "numeric")


#: The engines' types of booleans and dates/times (DuckDB's and Spark's names): no id is one.
NO_ID_TYPES = ("bool", "timestamp", "date", "time", "interval")


def check_id_types(types: dict[str, str]) -> None:
    """Float, boolean and date/time ids refused, integer ids warned about (``types``: column -> the engine's type name), as
    :func:`pairedframe.checks.string_ids` does for polars tables."""
    floats = [f"{c} ({types[c]})" for c in ("system", "qid") if types[c].lower().startswith(("double", "float", "real"))]
    if floats:
        raise SchemaError(f"id column(s) {floats} of the per-query table hold floats: ids are strings ('007', 'd1'), "
                          "and a float such as 1.0 does not match the id '1' of another table; cast the ids to "
                          "strings, or whole-number ids to integers first")
    flags = [f"{c!r} ({types[c]})" for c in ("system", "qid") if types[c].lower().startswith(NO_ID_TYPES)]
    if flags:
        raise no_id_error(flags, "the per-query table")
    warn_numeric_ids([c for c in ("system", "qid") if types[c].lower().startswith(NUMERIC_TYPES)], "the per-query table")


def check_ids(table: EngineTable) -> None:
    """The id checks of a comparison in the engine, before anything joins on the user's ids: float ids
    refused, integer ids warned about, null system / qid / measure refused naming the column (a lacking one too)."""
    missing = [c for c in ("system", "qid", "measure", "value") if c not in table.columns]
    if missing:
        raise lacking_columns_error(missing, table.columns)
    check_id_types(table.column_types())
    nulls = table.collect(f"SELECT count(*) - count(system) AS system, count(*) - count(qid) AS qid, "
                          f"count(*) - count(measure) AS measure FROM {table.source}").row(0, named=True)
    columns = [c for c, n in nulls.items() if n]
    if columns:
        raise null_ids_error(table, table.source, columns)


def null_ids_error(table: EngineTable, source: str, columns: list[str]) -> SchemaError:
    """The error of null ids in ``columns`` of the engine table ``source``, naming its first such row, as the
    polars path (:func:`pairedframe.io.results.refuse_null_or_blank_ids`) words it."""
    where = " OR ".join(f"{table.quote(c)} IS NULL" for c in columns)
    row = table.collect(f"SELECT system, qid, measure, value FROM {source} WHERE {where} LIMIT 1").row(0, named=True)
    return SchemaError(f"the per-query table has null values in column(s) {columns}, e.g. the row {row}; every row "
                       "needs a system, qid and measure (a null value means 'not measured', a null id means nothing)")
