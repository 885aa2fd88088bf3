"""Evaluation engine on Spark (``pip install "pairedframe[spark]"``): two methods, the same values.

``method="partitions"`` (the default): Spark reads and splits the files, hash-partitions run and
qrels rows by ``qid`` in one shuffle, and a Python worker evaluates each partition with the exact
local engine (:mod:`pairedframe.engines.spark_partitions`): one Spark job per evaluation, the
scaling of Spark, the values of the local engine. The workers need pairedframe and its
dependencies; when they cannot import them the engine says so and uses the SQL method.

``method="sql"``: the SQL files of ``sql/``, translated by :func:`pairedframe.engines.spark_sql.to_spark`,
run by Spark itself (no Python workers); each step becomes a materialised temporary view
(``localCheckpoint``) (``<prefix>pf_queries``, ``<prefix>pf_ranked`` ...) on the session, and the
measures one ``UNION ALL``.

Runs and qrels (:mod:`pairedframe.engines.spark_inputs`) are Spark DataFrames, names of tables, paths read
by Spark (trec_eval's parse rules; :func:`read_run` / :func:`read_qrels` name the file and the line of a
malformed or repeated row), or local tables (sent to Spark); a Spark DataFrame is checked as a local
table is, with the local errors (:mod:`pairedframe.engines.spark_checks`: one aggregation per table). :meth:`SparkEngine.per_query`
returns the per-query values as a Spark DataFrame (for outputs too large to collect); ``evaluate``
collects them.

The session is the caller's (``SparkEngine(spark)``), else the active one, else a new ``local[*]``
session. Spark itself starts in 10-25 s on a 2-core machine.
"""

from __future__ import annotations

import itertools
import os
import sys
import uuid
import warnings
from collections.abc import Sequence
from typing import Any, Literal

import polars as pl

from pairedframe.sql_files import load_sql, sql_params
from pairedframe.engines.base import (LARGEST_RETRIEVED_SQL, RESULT_SCHEMA, STEPS, EvalOptions, group_by_level,
                                      kind_tables, largest_num_ret)
from pairedframe.engines.duckdb_engine import measures_union_sql
from pairedframe.engines.spark_files import EMPTY_FILE, read_qrels, read_run
from pairedframe.engines.spark_files import union as _union
from pairedframe.engines.spark_inputs import SparkInputs, is_spark_frame, named_paths, other_judgments
from pairedframe.engines.spark_partitions import SparkFacts
from pairedframe.errors import InputFormatError, user_stacklevel
from pairedframe.io.grades import Grades
from pairedframe.measures import Measure
from pairedframe.measures.gains import DISCOUNTED, discount_table, gain_keys, gain_table, list_table

__all__ = ["SparkEngine", "read_qrels", "read_run", "spark_session"]

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
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # workers with this environment's packages
    session = (SparkSession.builder.master("local[*]").appName("pairedframe")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", str(max(2, 2 * (os.cpu_count() or 1))))
               .config("spark.driver.memory", "4g").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    return session


#: Spark application id -> None when its Python workers run pairedframe, else why not (probed once).
_WORKERS: dict[str, str | None] = {}


class SparkEngine(SparkInputs):
    """Evaluate on a Spark session (see the module docstring).

    Parameters
    ----------
    spark : SparkSession, optional
        The session; default the active one, else a new ``local[*]`` one (:func:`spark_session`).
    method : {"partitions", "sql"}
        ``"partitions"``: rows hash-partitioned by qid, each partition evaluated by the local engine
        in a Python worker (one Spark job). ``"sql"``: the SQL of ``sql/`` run by Spark itself.
    local_engine : {"polars", "duckdb"}
        The engine of the workers under ``method="partitions"`` (the same values; polars costs a
        partition about half the time of DuckDB, which pays a connection and a plan per partition).

    Raises
    ------
    ValueError
        An unknown ``method`` or ``local_engine``.
    """

    name = "spark"

    def __init__(self, spark: Any = None, *, method: Literal["partitions", "sql"] = "partitions",
                 local_engine: Literal["polars", "duckdb"] = "polars") -> None:
        if method not in ("partitions", "sql"):
            raise ValueError(f"method must be 'partitions' or 'sql', got {method!r}")
        if local_engine not in ("duckdb", "polars"):
            raise ValueError(f"local_engine must be 'duckdb' or 'polars', got {local_engine!r}")
        super().__init__()
        self._spark = spark
        self._cached: list[Any] = []
        self.method, self.local_engine = method, local_engine

    def release(self) -> None:
        """Drop the prep tables of earlier :meth:`per_query` calls (Spark frees their blocks once unused)."""
        self._cached.clear()

    @property
    def spark(self) -> Any:
        if self._spark is None:
            self._spark = spark_session()
        return self._spark

    # -- one evaluation, everything evaluate needs ---------------------------------------------
    def evaluate_inputs(self, run: Any, qrels: Any, measures: list[Measure], options: EvalOptions, *,
                        system: str | None = None, sample_rows: int = 2**14,
                        grades: Grades = "strict") -> SparkFacts:
        """Values and facts (:class:`~pairedframe.engines.spark_partitions.SparkFacts`) of runs and
        qrels in any form :meth:`run_frame` / :meth:`qrels_frame` take (also ``{name: path}``); by
        partitions one Spark job. ``sample_rows``: run rows (of whole queries) sampled for the
        near-miss docno check; ``system`` and ``grades`` as :func:`pairedframe.evaluate` takes them
        for a table."""
        if self._by_partitions(qrels):
            return self._partition_facts(run, qrels, measures, options, system, sample_rows, grades)
        return self._sql_facts(run, qrels, measures, options, system, sample_rows, grades)

    def _by_partitions(self, qrels: Any) -> bool:
        """Whether to evaluate by partitions: the method, judgments that are qrels (judgment groups and
        preferences go by SQL), and workers that run pairedframe."""
        return self.method == "partitions" and not other_judgments(qrels) and self._workers_ready()

    def _workers_ready(self) -> bool:
        """Whether the session's Python workers import pairedframe (one tiny job per application)."""
        from pairedframe.engines.spark_partitions import probe_workers

        app = self.spark.sparkContext.applicationId
        if app not in _WORKERS:
            _WORKERS[app] = probe_workers(self.spark, self.local_engine)
            if _WORKERS[app] is not None:
                warnings.warn(f"engine='spark': Spark's Python workers cannot run pairedframe ({_WORKERS[app]}); "
                              "evaluating with method='sql' instead, slower. Point PYSPARK_PYTHON (spark.pyspark.python) "
                              "at an environment with pairedframe[spark], or pass SparkEngine(spark, method='sql')",
                              UserWarning, stacklevel=user_stacklevel())
        return _WORKERS[app] is None

    def _partition_facts(self, run: Any, qrels: Any, measures: list[Measure], options: EvalOptions,
                         system: str | None, sample_rows: int, grades: Grades = "strict") -> SparkFacts:
        from pairedframe.engines import spark_partitions as sp

        run = self._table(run, "run")
        files = named_paths(run, system) or {}
        runs = None if files else self._run_rows(run, system, files)  # a table's checks before the qrels'
        qrels = self._table(qrels, "qrels")
        qrels_file = os.fspath(qrels) if isinstance(qrels, (str, os.PathLike)) else None
        if files and qrels_file is not None:  # files: whole lines travel, the workers split them (spark_lines)
            from pairedframe.engines.spark_lines import line_rows

            rows, line_systems = line_rows(self.spark, list(files.values()), qrels_file), list(files)
        else:  # a table on either side: the rows of both
            runs = self._run_rows(run, system, files) if runs is None else runs
            rows, line_systems = runs.unionByName(self._qrels_rows(qrels, grades, qrels_file)), None
        systems = list(files) if files else None
        if options.complete and systems is None:
            systems = [r[0] for r in runs.select("system").distinct().collect()]
        partitions = sp.partition_count(self.spark, [*files.values(), qrels_file or ""], None if files else runs)
        out = sp.evaluate_partitions(rows, measures, options, systems=systems, partitions=partitions,
                                     engine=self.local_engine, sample_rows=max(sample_rows // partitions, 1),
                                     line_systems=line_systems)
        collected = pl.from_arrow(out.toArrow())
        problems = collected.filter(pl.col("kind") == "problem")
        if problems.height:
            self._raise_problem(problems.row(0, named=True), files, qrels_file)
        facts = sp.facts_of(collected)
        _refuse_empty_files(facts, files, qrels_file)
        return facts

    def _run_rows(self, run: Any, system: str | None, files: dict[str, str]) -> Any:
        """The run (a table, or the files ``files``, {system: file}) as partition input rows."""
        from pairedframe.engines import spark_partitions as sp

        if files:
            return _union([sp.run_rows(self.spark, path, name) for name, path in files.items()])
        if not is_spark_frame(run):
            from pairedframe.io.convert import as_run

            return sp.table_rows(run=self._trusted(as_run(run, system=system)))
        return sp.table_rows(run=self._checked_frame(run, "run", system))

    def _qrels_rows(self, qrels: Any, grades: Grades, qrels_file: str | None) -> Any:
        """The qrels (a table, or the file ``qrels_file``) as partition input rows."""
        from pairedframe.engines import spark_partitions as sp

        if qrels_file is not None:
            return sp.qrels_rows(self.spark, qrels_file)
        if not is_spark_frame(qrels):
            from pairedframe.io.convert import as_qrels

            return sp.table_rows(qrels=self._trusted(as_qrels(qrels, grades=grades)))
        return sp.table_rows(qrels=self._checked_frame(qrels, "qrels", grades))

    def _raise_problem(self, problem: dict, files: dict[str, str], qrels_file: str | None) -> None:
        """Raise the error of a partition's ``problem`` row: the exact reader names the file and the
        line; a table's error names the row."""
        from pairedframe.engines.spark_partitions import problem_error

        check, system = problem["measure"], problem["system"]
        if check.startswith("run") and system in files:
            read_run(self.spark, files[system], system=system)  # raises, naming the line
        if check.startswith("qrels") and qrels_file is not None:
            read_qrels(self.spark, qrels_file)                 # raises, naming the line
        raise problem_error(problem)

    def _sql_facts(self, run: Any, qrels: Any, measures: list[Measure], options: EvalOptions, system: str | None,
                   sample_rows: int, grades: Grades = "strict") -> SparkFacts:
        """The facts by the SQL method: the values, then a Spark job for each fact."""
        from pairedframe.io.judgments import plain_qrels

        named = named_paths(self._table(run, "run"), system)
        run_frame = self.run_frame(run, system) if named is None else \
            self._trusted(read_run(self.spark, list(named.values()), system=list(named)))
        local = other_judgments(qrels)
        qrels_frame = self.qrels_frame(plain_qrels(qrels) if local else qrels, grades)
        values = self.evaluate(run_frame, qrels if local else qrels_frame, measures, options)
        head = run_frame.select("system", "qid", "docno").limit(sample_rows + 1)
        rows = pl.from_arrow(head.toArrow())
        own = qrels_frame.select("qid", "docno").join(head.select("qid").distinct(), on="qid", how="left_semi")
        return SparkFacts(
            values=values, retrieved=pl.from_arrow(run_frame.select("system", "qid").distinct().toArrow()),
            judged=pl.from_arrow(qrels_frame.select("qid").distinct().toArrow()),
            top=pl.from_arrow(qrels_frame.selectExpr("max(rel) AS rel").toArrow()),
            positive=int(qrels_frame.filter("rel > 0").count()) if options.complete else 0,
            sample=rows.head(sample_rows), sample_qrels=pl.from_arrow(own.toArrow()),
            partial=frozenset(rows["system"].unique().to_list()) if rows.height > sample_rows else frozenset())
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
        measures such as relstring, else null) as a Spark DataFrame (lazy but for the checks of Spark
        DataFrame inputs, one aggregation each: a repeated row fails the job that computes it; by the
        SQL method the prep views stay cached on the session until :meth:`release`).

        ``run``/``qrels``: Spark DataFrames (:meth:`run_frame`, :meth:`qrels_frame`); ``qrels`` may
        also be a local table of judgments of any kind (:mod:`pairedframe.io.judgments`: qrels with
        judgment groups, preferences), whose tables are sent to Spark (SQL method). ``ranked``:
        ``(ranks, retrieved)`` Spark DataFrames instead of ``run`` (a run ranked already; SQL method)."""
        if ranked is None and is_spark_frame(qrels) and self.method == "partitions" and self._workers_ready():
            from pairedframe.engines import spark_partitions as sp
            from pyspark.sql import functions as F

            run = self._checked_frame(run, "run")
            rows = sp.table_rows(run=run).unionByName(sp.table_rows(qrels=self._checked_frame(qrels, "qrels")))
            systems = [r[0] for r in run.select("system").distinct().collect()] if options.complete else None
            out = sp.evaluate_partitions(rows, measures, options, systems=systems,
                                         partitions=sp.partition_count(self.spark, frame=run),
                                         engine=self.local_engine,
                                         raise_problems=True)
            return out.filter(F.col("kind") == "value").select(*RESULT_SCHEMA)
        if ranked is None and is_spark_frame(run):
            run = self._checked_frame(run, "run")
        if is_spark_frame(qrels):
            qrels = self._checked_frame(qrels, "qrels")
        return self._sql_per_query(run, qrels, measures, options, ranked=ranked)

    def _sql_per_query(self, run: Any, qrels: Any, measures: list[Measure], options: EvalOptions, *,
                       ranked: tuple[Any, Any] | None = None) -> Any:
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

        parts, discounted = [], [m for m in measures if m.spec.key in DISCOUNTED]
        for (own, level, judged_only), group in group_by_level(measures, kind).items():
            values = {"rel_level": level, "complete": options.complete, "depth": options.depth,
                      "float32": options.score_precision == "float32", "judged_only": judged_only}
            self._cached += self._run_steps(prefix, STEPS[own, "run" if ranked is None else "ranked"], values)
            if discounted and any(m.spec.key in DISCOUNTED for m in group):  # once: every p, any group's num_ret
                most = self.spark.sql(LARGEST_RETRIEVED_SQL.format(prefix=prefix)).first()[0]
                table, discounted = discount_table(discounted, largest_num_ret(most, options)), []
                self._local(table).createOrReplaceTempView(prefix + "pf_discounts")
            text, params = measures_union_sql(group)
            # analysed now: the views of this group are bound before the next group replaces them
            parts.append(self.spark.sql(to_spark(text, prefix)[1], args=params))
        out = parts[0]
        for frame in parts[1:]:
            out = out.unionByName(frame)
        return out

    def _register_parameters(self, prefix: str, qrels: Any, measures: list[Measure]) -> None:
        """``pf_gains`` and ``pf_lists`` as the DuckDB engine registers them (small local tables; and
        ``pf_discounts`` once, for the first group of measures reading it, :meth:`_sql_per_query`)."""
        grades = [row["rel"] for row in qrels.selectExpr("rel").where("rel >= 0").distinct().collect()]
        tables = {"pf_gains": gain_table(gain_keys(measures), grades), "pf_lists": list_table(measures)}
        for name, table in tables.items():
            self._local(table).createOrReplaceTempView(prefix + name)

    def _local(self, table: pl.DataFrame) -> Any:
        """A local table as a Spark DataFrame (typed even when empty)."""
        if table.height:
            return self.spark.createDataFrame(table.to_arrow())
        return self.spark.createDataFrame([], _spark_schema(table))

    def evaluate(self, run: Any, qrels: Any, measures: list[Measure], options: EvalOptions) -> pl.DataFrame:
        if self._by_partitions(qrels):
            return self._partition_facts(run, qrels, measures, options, None, 0).values
        run_frame = self._checked_frame(run, "run") if is_spark_frame(run) else self.run_frame(run)
        qrels_frame = self._checked_frame(qrels, "qrels") if is_spark_frame(qrels) else \
            qrels if other_judgments(qrels) else self.qrels_frame(qrels)
        try:
            return _collect(self._sql_per_query(run_frame, qrels_frame, measures, options))
        finally:
            self.release()

    def evaluate_ranked(self, ranks: pl.DataFrame, retrieved: pl.DataFrame, qrels: pl.DataFrame,
                        measures: list[Measure], options: EvalOptions) -> pl.DataFrame:
        frames = tuple(self.spark.createDataFrame(t.to_arrow()) for t in (ranks, retrieved))
        try:
            return _collect(self._sql_per_query(None, qrels, measures, options, ranked=frames))
        finally:
            self.release()


def _refuse_empty_files(facts: SparkFacts, files: dict[str, str], qrels_file: str | None) -> None:
    """Raise as the local readers do for a run or qrels file without a data line."""
    read = set(facts.retrieved["system"].unique().to_list())
    for system, path in files.items():
        if system not in read:
            raise InputFormatError(EMPTY_FILE, path=path, argument="run")
    if qrels_file is not None and not facts.judged.height:
        raise InputFormatError(EMPTY_FILE, path=qrels_file, argument="qrels")


def _spark_schema(table: pl.DataFrame) -> str:
    """A DDL schema string for an empty local table (Spark cannot infer types from no rows)."""
    types = {pl.String: "string", pl.Int64: "bigint", pl.Int32: "int", pl.Float64: "double", pl.Boolean: "boolean"}
    return ", ".join(f"{name} {types[dtype]}" for name, dtype in table.schema.items())


def _collect(frame: Any) -> pl.DataFrame:
    out = pl.from_arrow(frame.toArrow())
    return out.select([pl.col(c).cast(t) for c, t in RESULT_SCHEMA.items()])

