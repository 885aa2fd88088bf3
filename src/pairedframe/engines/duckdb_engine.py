"""Evaluation engine that runs the SQL in ``sql/`` on DuckDB.

The pipeline is a sequence of named tables, each inspectable on the connection:
``pf_run``, ``pf_qrels`` (inputs) -> ``pf_queries`` -> ``pf_ranked`` -> ``pf_ideal`` -> one SELECT
per measure. Values are bound as parameters, never pasted into the SQL text.
"""

from __future__ import annotations

import duckdb
import polars as pl

from pairedframe._sql import load_sql, sql_params
from pairedframe.engines.base import EvalOptions, group_by_level
from pairedframe.measures import Measure

PREP_STEPS = ("prep_queries.sql", "prep_ranked.sql", "prep_ideal.sql")


def _execute(con: duckdb.DuckDBPyConnection, text: str, values: dict) -> duckdb.DuckDBPyRelation | None:
    """Run ``text`` binding only the parameters it names; a SELECT returns a lazy relation."""
    wanted = sql_params(text)
    return con.sql(text, params={k: v for k, v in values.items() if k in wanted} or None)


def prepare(con: duckdb.DuckDBPyConnection, *, rel_level: int, options: EvalOptions) -> None:
    """Build pf_queries, pf_ranked and pf_ideal from the pf_run and pf_qrels relations on ``con``."""
    values = {"rel_level": rel_level, "complete": options.complete, "depth": options.depth,
              "float32": options.score_precision == "float32"}
    for step in PREP_STEPS:
        _execute(con, load_sql(step), values)


def measure_sql(measure: Measure) -> tuple[str, dict]:
    """The SELECT of one measure and its parameter values."""
    return load_sql(measure.spec.sql_file), {"k": measure.cutoff, "exp_gain": measure.gain == "exp"}


class DuckDBEngine:
    """Run pairedframe's SQL on a DuckDB connection (a new in-memory one by default)."""

    name = "duckdb"

    def __init__(self, con: duckdb.DuckDBPyConnection | None = None) -> None:
        self._con = con

    def evaluate(self, run: pl.DataFrame, qrels: pl.DataFrame, measures: list[Measure],
                 options: EvalOptions) -> pl.DataFrame:
        con = self._con if self._con is not None else duckdb.connect()
        try:
            con.sql("SET enable_progress_bar = false")
            con.register("pf_run", run)
            con.register("pf_qrels", qrels)
            parts = []
            for level, group in group_by_level(measures).items():
                prepare(con, rel_level=level, options=options)
                for m in group:
                    text, values = measure_sql(m)
                    frame = _execute(con, text, values).pl()
                    parts.append(frame.select(
                        pl.col("system").cast(pl.String), pl.col("qid").cast(pl.String),
                        pl.lit(m.name).alias("measure"), pl.col("value").cast(pl.Float64)))
            return pl.concat(parts) if parts else pl.DataFrame(
                schema={"system": pl.String, "qid": pl.String, "measure": pl.String, "value": pl.Float64})
        finally:
            for view in ("pf_run", "pf_qrels"):
                con.unregister(view)
            if self._con is None:
                con.close()
