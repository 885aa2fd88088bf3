"""Evaluation engine that runs the SQL of ``sql/`` on Spark (``pip install "pairedframe[spark]"``).

The same files as the DuckDB engine, translated by :func:`pairedframe.engines.spark_sql.to_spark`;
each step becomes a materialised temporary view (``localCheckpoint``) (``<prefix>pf_queries``, ``<prefix>pf_ranked`` ...) on the
session, and the measures one ``UNION ALL``. Runs and qrels are Spark DataFrames, names of tables,
paths read by Spark (:func:`read_run` / :func:`read_qrels`: trec_eval's parse rules, errors naming
the file and the line), or local tables (sent to Spark). :meth:`SparkEngine.per_query` returns the
per-query values as a Spark DataFrame (for outputs too large to collect); ``evaluate`` collects them.

The session is the caller's (``SparkEngine(spark)``), else the active one, else a new ``local[*]``
session. Spark itself starts in 10-25 s on a 2-core machine.
"""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Sequence
from typing import Any

import polars as pl

from pairedframe._sql import load_sql, sql_params
from pairedframe.engines.base import RESULT_SCHEMA, STEPS, EvalOptions, group_by_level, kind_tables
from pairedframe.engines.duckdb_engine import measures_union_sql
from pairedframe.errors import DuplicateError, InputFormatError, SchemaError
from pairedframe.io.trec import system_name_from_path
from pairedframe.measures import Measure
from pairedframe.measures.gains import gain_keys, gain_table, list_table

__all__ = ["SparkEngine", "read_qrels", "read_run", "spark_session"]

_BLANKS = "[ \\t\\r\\x0B\\x0C]+"
# a UTF-8 byte order mark (spreadsheet exports) starts the first line; the local reader drops it too
_EDGES = "^[\\uFEFF \\t\\r\\n\\x0B\\x0C]+|[ \\t\\r\\n\\x0B\\x0C]+$"
_IDS = itertools.count()


def spark_session(spark: Any = None) -> Any:
    """The given session, the active one, or a new ``local[*]`` session (UI and progress bars off)."""
    if spark is not None:
        return spark
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError('engine="spark" needs pyspark: pip install "pairedframe[spark]" (and Java 17+)') from exc
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    session = (SparkSession.builder.master("local[*]").appName("pairedframe")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", str(max(2, 2 * (os.cpu_count() or 1))))
               .config("spark.driver.memory", "4g").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    return session


def _is_spark_frame(data: Any) -> bool:
    return any(c.__module__.startswith("pyspark.sql") and c.__name__ == "DataFrame" for c in type(data).__mro__)


def _lines(spark: Any, path: str, *, numbered: bool) -> Any:
    """``line`` (stripped) of the data lines of a text file (plain or .gz, by Spark's codecs), with
    ``line_no`` (1-based, counting every line) when ``numbered`` -- the slower error path."""
    from pyspark.sql import functions as F

    if numbered:
        rdd = spark.sparkContext.textFile(path).zipWithIndex().map(lambda t: (t[0], t[1] + 1))
        frame = spark.createDataFrame(rdd, "value string, line_no long")
    else:
        frame = spark.read.text(path)
    stripped = F.regexp_replace(F.col("value"), _EDGES, "")
    frame = frame.withColumn("line", stripped).filter((F.col("line") != "") & ~F.col("line").startswith("#"))
    return frame


def _fields(frame: Any, names: Sequence[str]) -> Any:
    from pyspark.sql import functions as F

    parts = F.split(F.col("line"), _BLANKS)
    cols = [F.element_at(parts, i + 1).alias(n) if i else parts.getItem(0).alias(n) for i, n in enumerate(names)]
    return frame.select("*", F.size(parts).alias("_n"), *cols)


def _fail(spark: Any, path: str, names: Sequence[str], condition: Any, message) -> None:
    """Raise InputFormatError for the first line of ``path`` meeting ``condition`` (error path)."""
    from pyspark.sql import functions as F

    bad = _fields(_lines(spark, path, numbered=True), names).filter(condition).orderBy(F.col("line_no")).first()
    if bad is not None:
        text, column = message(bad.asDict())
        raise InputFormatError(text, path=path, line=bad["line_no"], column=column, text=bad["line"])


def _duplicate(spark: Any, path: str, names: Sequence[str], what: str) -> None:
    """Raise DuplicateError naming the lines of the first repeated (qid, docno) (error path)."""
    from pyspark.sql import functions as F

    numbered = _fields(_lines(spark, path, numbered=True), names)
    twin = (numbered.groupBy("qid", "docno").agg(F.sort_array(F.collect_list("line_no")).alias("lines"))
            .filter(F.size("lines") > 1).orderBy(F.element_at("lines", 1)).first())
    first = numbered.filter(F.col("line_no") == twin["lines"][0]).first()
    raise DuplicateError(f"duplicate (qid, docno) = ({twin['qid']}, {twin['docno']}) in {what}, also on line(s) "
                         f"{list(twin['lines'][1:6])}; trec_eval refuses duplicates, remove them",
                         path=path, line=twin["lines"][0], text=first["line"])


def read_run(spark: Any, paths: str | Sequence[str], *, system: str | Sequence[str] | None = None) -> Any:
    """TREC run files read by Spark into ``system, qid, docno, score`` (trec_eval's parse rules).

    Same rules and errors as :func:`pairedframe.read_run`: fields split on runs of blanks, blank and
    ``#`` lines skipped, at least 6 fields, a numeric score other than NaN (``inf`` / ``-inf`` rank
    first / last), no (qid, docno) twice; system
    names from the file names unless given. A bad line is named by file and line number.
    """
    from pyspark.sql import functions as F

    path_list = [paths] if isinstance(paths, (str, os.PathLike)) else [os.fspath(p) for p in paths]
    names = ([system] if isinstance(system, str) else list(system)) if system is not None else \
        [system_name_from_path(p) for p in path_list]
    if len(names) != len(path_list) or len(set(names)) != len(names):
        raise ValueError(f"read_run: system names {names} do not name the {len(path_list)} files apart")
    frames = []
    fields = ("qid", "q0", "docno", "rank", "score", "tag")
    for path, name in zip(map(os.fspath, path_list), names):
        frame = _fields(_lines(spark, path, numbered=False), fields).select(
            F.lit(name).alias("system"), "qid", "docno", F.col("score").alias("_text"), "_n",
            F.expr("try_cast(score AS DOUBLE)").alias("score"))
        checks = frame.agg(F.sum(F.when(F.col("_n") < 6, 1).otherwise(0)).alias("short"),
                           F.sum(F.when(F.col("score").isNull() | F.isnan("score"), 1).otherwise(0)).alias("bad"),
                           (F.count(F.lit(1)) - F.countDistinct("qid", "docno")).alias("dup")).first()
        if checks["short"] or checks["bad"]:
            score = F.expr("try_cast(score AS DOUBLE)")
            _fail(spark, path, fields, F.col("_n") < 6, lambda r: (
                f"expected at least 6 fields (qid Q0 docno rank score tag), found {r['_n']}", None))
            _fail(spark, path, fields, score.isNull(), lambda r: (f"score {r['score']!r} is not a number", 5))
            _fail(spark, path, fields, F.isnan(score),
                  lambda r: (f"score {r['score']!r} is NaN (not a number), which cannot be ranked (inf and -inf can)", 5))
        if checks["dup"]:
            _duplicate(spark, path, fields, "run")
        frames.append(frame.select("system", "qid", "docno", "score"))
    return _union(frames)


def _union(frames: list) -> Any:
    out = frames[0]
    for frame in frames[1:]:
        out = out.unionByName(frame)
    return out


def read_qrels(spark: Any, path: str) -> Any:
    """A TREC qrels file read by Spark into ``qid, docno, rel`` (rules of :func:`pairedframe.read_qrels`)."""
    from pyspark.sql import functions as F

    path = os.fspath(path)
    fields = ("qid", "iter", "docno", "rel")
    grade = F.col("rel").rlike("^[+-]?[0-9]+(\\.0*)?$")
    frame = _fields(_lines(spark, path, numbered=False), fields)
    checks = frame.agg(F.sum(F.when(F.col("_n") != 4, 1).otherwise(0)).alias("width"),
                       F.sum(F.when(~grade, 1).otherwise(0)).alias("bad"),
                       (F.count(F.lit(1)) - F.countDistinct("qid", "docno")).alias("dup")).first()
    if checks["width"] or checks["bad"]:
        _fail(spark, path, fields, F.col("_n") != 4, lambda r: (
            f"expected exactly 4 fields (qid iter docno rel), found {r['_n']}", None))
        _fail(spark, path, fields, ~grade, lambda r: (f"relevance grade {r['rel']!r} is not an integer", 4))
    if checks["dup"]:
        _duplicate(spark, path, fields, "qrels")
    return frame.select("qid", "docno", F.regexp_replace("rel", "\\.0*$", "").cast("long").alias("rel"))


class SparkEngine:
    """Run pairedframe's SQL on a Spark session (see the module docstring)."""

    name = "spark"

    def __init__(self, spark: Any = None) -> None:
        self._spark = spark
        self._cached: list[Any] = []

    def release(self) -> None:
        """Drop the prep tables of earlier :meth:`per_query` calls (Spark frees their blocks once unused)."""
        self._cached.clear()

    @property
    def spark(self) -> Any:
        if self._spark is None:
            self._spark = spark_session()
        return self._spark

    # -- inputs --------------------------------------------------------------------------------
    def run_frame(self, run: Any, system: str | None = None) -> Any:
        """A Spark DataFrame ``system, qid, docno, score`` from a Spark DataFrame, a table name, a path
        or list of paths (read by Spark), or a local table; duplicates raise as locally."""
        from pyspark.sql import functions as F

        if isinstance(run, (str, os.PathLike)) and not os.path.exists(run) and self.spark.catalog.tableExists(
                os.fspath(run)):
            run = self.spark.table(os.fspath(run))
        if isinstance(run, (str, os.PathLike)) or (isinstance(run, (list, tuple)) and run
                                                  and all(isinstance(p, (str, os.PathLike)) for p in run)):
            return read_run(self.spark, run, system=system)
        if not _is_spark_frame(run):
            from pairedframe.io.convert import as_run

            return self.spark.createDataFrame(as_run(run, system=system).to_arrow())
        if "system" not in run.columns:
            run = run.withColumn("system", F.lit(system or "run"))
        missing = [c for c in ("system", "qid", "docno", "score") if c not in run.columns]
        if missing:
            raise SchemaError(f"run table lacks column(s) {missing}; it has {run.columns}")
        run = run.select(F.col("system").cast("string"), F.col("qid").cast("string"),
                         F.col("docno").cast("string"), F.col("score").cast("double"))
        dup = run.groupBy("system", "qid", "docno").count().filter("count > 1").first()
        if dup is not None:
            raise DuplicateError(f"duplicate (qid, docno) = ({dup['qid']}, {dup['docno']}) in run of system "
                                 f"{dup['system']!r}; trec_eval refuses duplicates, remove them")
        return run

    def qrels_frame(self, qrels: Any) -> Any:
        from pyspark.sql import functions as F

        if isinstance(qrels, (str, os.PathLike)):
            if not os.path.exists(qrels) and self.spark.catalog.tableExists(os.fspath(qrels)):
                qrels = self.spark.table(os.fspath(qrels))
            else:
                return read_qrels(self.spark, os.fspath(qrels))
        if not _is_spark_frame(qrels):
            from pairedframe.io.convert import as_qrels

            return self.spark.createDataFrame(as_qrels(qrels).to_arrow())
        qrels = qrels.select(F.col("qid").cast("string"), F.col("docno").cast("string"), F.col("rel").cast("long"))
        dup = qrels.groupBy("qid", "docno").count().filter("count > 1").first()
        if dup is not None:
            raise DuplicateError(f"duplicate (qid, docno) = ({dup['qid']}, {dup['docno']}) in qrels; "
                                 "trec_eval refuses duplicates, remove them")
        return qrels

    # -- the SQL -------------------------------------------------------------------------------
    def _run_steps(self, prefix: str, steps: Sequence[str], values: dict) -> list[Any]:
        from pairedframe.engines.spark_sql import to_spark

        cached = []
        for step in steps:
            created, select = to_spark(load_sql(step), prefix)
            wanted = sql_params(load_sql(step))
            # materialised now and cut from its lineage: later steps and the measures see a small leaf,
            # not the whole chain of plans (a union of measures over cached chains plans for minutes)
            frame = self.spark.sql(select, args={k: v for k, v in values.items() if k in wanted}).localCheckpoint()
            frame.createOrReplaceTempView(created)
            cached.append(frame)
        return cached

    def per_query(self, run: Any, qrels: Any, measures: list[Measure], options: EvalOptions, *,
                  ranked: tuple[Any, Any] | None = None) -> Any:
        """Per-query values ``system, qid, measure, value, text`` (``text`` for string-valued
        measures such as relstring, else null) as a Spark DataFrame (lazy; the prep views stay
        cached on the session until the result is collected by :meth:`evaluate`).

        ``run``/``qrels``: Spark DataFrames (:meth:`run_frame`, :meth:`qrels_frame`); ``qrels`` may
        also be a local table of judgments of any kind (:mod:`pairedframe.io.judgments`: qrels with
        judgment groups, preferences), whose tables are sent to Spark. ``ranked``: ``(ranks,
        retrieved)`` Spark DataFrames instead of ``run`` (a run ranked already)."""
        prefix = f"pf{uuid.uuid4().hex[:8]}_{next(_IDS)}_"
        kind = "qrels"
        if isinstance(qrels, pl.DataFrame):
            kind, tables = kind_tables(qrels)
            for name, table in tables.items():
                self._local(table).createOrReplaceTempView(prefix + name)
            qrels = self.spark.table(prefix + "pf_qrels")
        else:
            qrels.createOrReplaceTempView(prefix + "pf_qrels")
        if ranked is None:
            run.createOrReplaceTempView(prefix + "pf_run")
        else:
            ranked[0].createOrReplaceTempView(prefix + "pf_ranks")
            ranked[1].createOrReplaceTempView(prefix + "pf_retrieved")
        self._register_parameters(prefix, qrels, measures)
        from pairedframe.engines.spark_sql import to_spark

        parts = []
        for (own, level, judged_only), group in group_by_level(measures, kind).items():
            values = {"rel_level": level, "complete": options.complete, "depth": options.depth,
                      "float32": options.score_precision == "float32", "judged_only": judged_only}
            self._cached += self._run_steps(prefix, STEPS[own, "run" if ranked is None else "ranked"], values)
            text, params = measures_union_sql(group)
            # analysed now: the views of this group are bound before the next group replaces them
            parts.append(self.spark.sql(to_spark(text, prefix)[1], args=params))
        out = parts[0]
        for frame in parts[1:]:
            out = out.unionByName(frame)
        return out

    def _register_parameters(self, prefix: str, qrels: Any, measures: list[Measure]) -> None:
        """``pf_gains`` and ``pf_lists`` as the DuckDB engine registers them (small local tables)."""
        top = qrels.selectExpr("coalesce(max(rel), 0) AS top").first()["top"]
        tables = {"pf_gains": gain_table(gain_keys(measures), max(int(top), 0)), "pf_lists": list_table(measures)}
        for name, table in tables.items():
            self._local(table).createOrReplaceTempView(prefix + name)

    def _local(self, table: pl.DataFrame) -> Any:
        """A local table as a Spark DataFrame (typed even when empty)."""
        if table.height:
            return self.spark.createDataFrame(table.to_arrow())
        return self.spark.createDataFrame([], _spark_schema(table))

    def evaluate(self, run: Any, qrels: Any, measures: list[Measure], options: EvalOptions) -> pl.DataFrame:
        run_frame = run if _is_spark_frame(run) else self.run_frame(run)
        local = isinstance(qrels, pl.DataFrame) and "jg" in qrels.columns  # judgment groups or preferences
        qrels_frame = qrels if _is_spark_frame(qrels) or local else self.qrels_frame(qrels)
        try:
            return _collect(self.per_query(run_frame, qrels_frame, measures, options))
        finally:
            self.release()

    def evaluate_ranked(self, ranks: pl.DataFrame, retrieved: pl.DataFrame, qrels: pl.DataFrame,
                        measures: list[Measure], options: EvalOptions) -> pl.DataFrame:
        frames = tuple(self.spark.createDataFrame(t.to_arrow()) for t in (ranks, retrieved))
        try:
            return _collect(self.per_query(None, qrels, measures, options, ranked=frames))
        finally:
            self.release()


def _spark_schema(table: pl.DataFrame) -> str:
    """A DDL schema string for an empty local table (Spark cannot infer types from no rows)."""
    types = {pl.String: "string", pl.Int64: "bigint", pl.Int32: "int", pl.Float64: "double", pl.Boolean: "boolean"}
    return ", ".join(f"{name} {types[dtype]}" for name, dtype in table.schema.items())


def _collect(frame: Any) -> pl.DataFrame:
    out = pl.from_arrow(frame.toArrow())
    return out.select([pl.col(c).cast(t) for c, t in RESULT_SCHEMA.items()])

