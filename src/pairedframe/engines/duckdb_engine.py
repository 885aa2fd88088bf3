"""Evaluation engine that runs the SQL in ``sql/`` on DuckDB.

The pipeline is a sequence of named tables, each inspectable on the connection:
``pf_run``, ``pf_qrels`` (inputs) -> ``pf_retrieved`` -> ``pf_ranks`` -> ``pf_queries`` ->
``pf_ranked`` -> ``pf_ideal`` -> one SELECT per measure (sent together as one UNION ALL). A streamed
run file enters at ``pf_retrieved`` and ``pf_ranks`` instead (see :meth:`DuckDBEngine.evaluate_ranked`);
when its ranks come in rank order, ``pf_ranked`` takes their running counts, and ``pf_ideal`` the
ideal rankings, from numpy (``sql/prep_ranked_counted.sql``, ``prep_ideal_given.sql``) instead of
window sorts.
``pf_gains`` (the gain of each grade under each gain map), ``pf_lists`` (list parameters) and
``pf_discounts`` (RBP's p**k by repeated products) are small tables the engine registers. Values are bound as parameters, never pasted into the SQL text.
The DuckDB-specific constructs (ordered sums and concatenation) are macros defined in
``sql/dialect_duckdb.sql``; the other files are portable SQL.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

import duckdb
import polars as pl

from pairedframe.sql_files import PARAM_PATTERN, load_sql, sql_params, strip_comments
from pairedframe.engines.base import (LARGEST_RETRIEVED_SQL, RESULT_SCHEMA, STEPS, EvalOptions, group_by_level,
                                      kind_tables, largest_num_ret)
from pairedframe.engines.duckdb_checks import check_inputs
from pairedframe.engines.ranking import ideal_gains, running_counts
from pairedframe.measures import Measure, parse_measures
from pairedframe.measures.gains import DISCOUNTED, discount_table, gain_keys, gain_table, list_table

# The portable steps; DIALECT (DuckDB's definitions of the pf_seqsum / pf_concat macros) runs first.
DIALECT = "dialect_duckdb.sql"
RUN_STEPS = STEPS["qrels", "run"]
RANKED_STEPS = STEPS["qrels", "ranked"]


def _execute(con: duckdb.DuckDBPyConnection, text: str, values: dict) -> duckdb.DuckDBPyRelation | None:
    """Run ``text`` binding only the parameters it names; a SELECT returns a lazy relation."""
    wanted = sql_params(text)
    return con.sql(text, params={k: v for k, v in values.items() if k in wanted} or None)


def register_parameters(con: duckdb.DuckDBPyConnection, measures: list[Measure] | None = None,
                        grades: Iterable[int] | None = None) -> None:
    """Register ``pf_gains`` (gain of each grade under the measures' gain maps; ``''`` and ``'exp'``
    without ``measures``) and ``pf_lists`` (their list parameters) on ``con``. ``grades`` (the
    grades to list, :func:`pairedframe.measures.gains.gain_table`) defaults to those of ``pf_qrels``."""
    if grades is None:
        grades = [row[0] for row in con.sql("SELECT DISTINCT rel FROM pf_qrels WHERE rel >= 0").fetchall()]
    keys = gain_keys(measures) if measures is not None else ["", "exp"]
    con.register("pf_gains", gain_table(keys, grades))
    con.register("pf_lists", list_table(measures or []))


def register_discounts(con: duckdb.DuckDBPyConnection, measures: list[Measure], largest: int | None = None) -> None:
    """Register ``pf_discounts`` (:func:`pairedframe.measures.gains.discount_table`) for the RBP and
    RBPResid measures of ``measures``, up to ``largest`` (default: the largest num_ret of ``pf_queries``)."""
    if largest is None:
        largest = con.sql("SELECT coalesce(max(num_ret), 0) FROM pf_queries").fetchall()[0][0]
    con.register("pf_discounts", discount_table(measures, largest))


def prepare(con: duckdb.DuckDBPyConnection, *, rel_level: int, options: EvalOptions,
            steps: tuple[str, ...] = RUN_STEPS, judged_only: bool = False, validate: bool = True,
            discounts: bool = True) -> None:
    """Build pf_retrieved, pf_ranks, pf_queries, pf_ranked and pf_ideal from the pf_run and pf_qrels
    relations on ``con`` (with ``steps=RANKED_STEPS``: from pf_retrieved, pf_ranks and pf_qrels).

    With ``validate`` (default) pf_run and pf_qrels are first checked as the readers check files
    (:func:`pairedframe.engines.duckdb_checks.check_inputs`: columns, string ids, duplicates,
    null or NaN scores, non-integer grades); the engine passes False for tables the readers made.
    ``judged_only`` ranks the judged documents among themselves (trec_eval -J). Registers the
    default ``pf_gains`` and ``pf_lists`` (:func:`register_parameters`) unless the connection has
    them, and with ``discounts`` (default) the default ``pf_discounts`` (RBP's default p,
    :func:`register_discounts`) unless it has one: what ``rbp.sql`` / ``rbp_resid.sql`` run by hand
    read. The engine passes False and registers its measures' own once per evaluation.
    """
    if validate and steps == RUN_STEPS:
        check_inputs(con)
    try:
        con.sql("SELECT gain_map, rel, gain, explicit FROM pf_gains LIMIT 0")
        con.sql("SELECT list_key, pos, value FROM pf_lists LIMIT 0")
    except duckdb.Error:
        register_parameters(con)
    values = {"rel_level": rel_level, "complete": options.complete, "depth": options.depth,
              "float32": options.score_precision == "float32", "judged_only": judged_only}
    for step in (DIALECT, *steps):
        _execute(con, load_sql(step), values)
    if not discounts:
        return
    try:
        con.sql("SELECT p, k, d FROM pf_discounts LIMIT 0")
    except duckdb.Error:
        register_discounts(con, parse_measures(["RBP", "rbp"]))


def measure_sql(measure: Measure) -> tuple[str, dict]:
    """The SELECT of one measure and its parameter values."""
    return load_sql(measure.spec.sql_file), measure.sql_values()


def measures_union_sql(measures: list[Measure]) -> tuple[str, dict]:
    """One query returning ``system, qid, measure, value`` for all ``measures``.

    Each measure's SELECT gets its parameters renamed ``$k`` -> ``$k_<i>`` so that the UNION ALL
    binds them separately; one round trip instead of one per measure.
    """
    parts, values = [], {}
    for i, m in enumerate(measures):
        text, params = measure_sql(m)
        used = sql_params(text)
        body = PARAM_PATTERN.sub(lambda match: f"${match.group(1)}_{i}" if match.group(1) in used else match.group(0),
                          strip_comments(text))
        values.update({f"{k}_{i}": v for k, v in params.items() if k in used})
        values[f"measure_{i}"] = m.name
        value, text = ("CAST(NULL AS DOUBLE)", "text") if m.spec.value_kind == "text" else \
            ("CAST(value AS DOUBLE)", "CAST(NULL AS VARCHAR)")
        parts.append(f"SELECT system, qid, CAST($measure_{i} AS VARCHAR) AS measure, {value} AS value, "
                     f"{text} AS text FROM ({body}) AS m{i}")
    return "\nUNION ALL\n".join(parts), values


class DuckDBEngine:
    """Run pairedframe's SQL on a DuckDB connection.

    Without ``con`` the engine opens one in-memory connection on first use and keeps it for its
    lifetime, so the blocks of a streamed run reuse it. Row order of results is not meaningful
    (``preserve_insertion_order`` is off on the engine's own connection).
    """

    name = "duckdb"

    def __init__(self, con: duckdb.DuckDBPyConnection | None = None) -> None:
        self._con = con
        self._own: duckdb.DuckDBPyConnection | None = None

    def warm_up(self) -> None:
        """Open the engine's own connection now (about 0.1 s), e.g. in a helper thread while a run
        file is read; evaluating opens it anyway. Not thread-safe with a call that evaluates."""
        self._connection()

    def _connection(self) -> duckdb.DuckDBPyConnection:
        if self._con is not None:
            return self._con
        if self._own is None:
            self._own = duckdb.connect()
            self._own.sql("SET preserve_insertion_order = false")
            self._own.sql("SET enable_progress_bar = false")
        return self._own

    @contextmanager
    def one_thread(self) -> Iterator[None]:
        """Evaluate on one DuckDB thread inside the block (the connection's setting comes back after):
        for a caller that keeps the other cores busy itself (a streamed run's parsing), where DuckDB's
        own threads would only contend for them (a chunk then costs ~40 % less CPU)."""
        con = self._connection()
        threads = con.sql("SELECT current_setting('threads')").fetchall()[0][0]
        con.sql("SET threads = 1")
        try:
            yield
        finally:
            con.sql(f"SET threads = {int(threads)}")

    def evaluate(self, run: pl.DataFrame, qrels: pl.DataFrame, measures: list[Measure],
                 options: EvalOptions) -> pl.DataFrame:
        """Per-query values of ``run`` against ``qrels``: judgments of any kind (qrels, qrels with
        judgment groups, preferences; see :mod:`pairedframe.io.judgments`)."""
        return self._run_sql({"pf_run": run, "pf_qrels": qrels}, "run", measures, options)

    def evaluate_ranked(self, ranks: pl.DataFrame, retrieved: pl.DataFrame, qrels: pl.DataFrame,
                        measures: list[Measure], options: EvalOptions) -> pl.DataFrame:
        """Per-query values from judged documents' ranks (``system, qid, docno, rank, rel``) and ranking
        sizes (``system, qid, n``), as :func:`pairedframe.engines.ranking.rank_judged` gives them."""
        con = self._connection()
        # The SQL path leaves tables of these names; the inputs take their place as views.
        con.sql("DROP TABLE IF EXISTS pf_ranks; DROP TABLE IF EXISTS pf_retrieved")
        return self._run_sql({"pf_qrels": qrels, "pf_ranks": ranks, "pf_retrieved": retrieved}, "ranked",
                             measures, options)

    def _run_sql(self, inputs: dict[str, pl.DataFrame], source: str, measures: list[Measure],
                 options: EvalOptions) -> pl.DataFrame:
        con = self._connection()
        if self._con is not None:
            con.sql("SET enable_progress_bar = false")
        kind, tables = kind_tables(inputs["pf_qrels"])
        qrels = tables["pf_qrels"]
        inputs = {**inputs, **tables, "pf_gains": gain_table(gain_keys(measures), qrels["rel"].unique()),
                  "pf_lists": list_table(measures)}
        ideal = ideal_gains(qrels, inputs["pf_gains"]) if source == "ranked" and kind == "qrels" else None
        if ideal is not None:
            inputs["pf_ideal_given"] = ideal
        discounted = [m for m in measures if m.spec.key in DISCOUNTED]
        has_discounts = False
        try:
            for name, frame in inputs.items():
                con.register(name, frame)
            parts = []
            for (own, level, judged_only), group in group_by_level(measures, kind).items():
                steps = STEPS[own, source]
                if ideal is not None and (own, judged_only) == ("qrels", False):
                    # ranks in rank order bring their running counts (one level per group): no window sums
                    counted = running_counts(inputs["pf_ranks"], level)
                    if counted is not None:
                        con.register("pf_ranks", counted)
                        steps = STEPS[own, "counted"]
                prepare(con, rel_level=level, options=options, steps=steps, judged_only=judged_only,
                        validate=False, discounts=False)
                if not has_discounts and any(m.spec.key in DISCOUNTED for m in group):
                    # once per evaluation, for every group's p, up to the largest num_ret of any group
                    retrieved = con.sql(LARGEST_RETRIEVED_SQL.format(prefix="")).fetchall()[0][0]
                    register_discounts(con, discounted, largest_num_ret(retrieved, options))
                    has_discounts = True
                text, values = measures_union_sql(group)
                parts.append(con.sql(text, params=values).pl())
            if not parts:
                return pl.DataFrame(schema=RESULT_SCHEMA)
            return pl.concat(parts).select([pl.col(c).cast(t) for c, t in RESULT_SCHEMA.items()])
        finally:
            for name in inputs:
                con.unregister(name)
            if has_discounts:
                con.unregister("pf_discounts")
