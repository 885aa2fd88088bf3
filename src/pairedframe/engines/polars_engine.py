"""Evaluation engine that runs each family's polars implementation (same contract as DuckDB's)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from pairedframe.engines.base import EvalOptions, group_by_level
from pairedframe.measures import Measure, PolarsContext

KEYS = ["system", "qid"]


_LOG2 = np.zeros(2, dtype=np.float64)


def log2_of_ranks(ranks: np.ndarray) -> np.ndarray:
    """log2(r) for integer ranks r >= 1 via C's log2 (``math.log2``), the function DuckDB and trec_eval
    call: polars' own logarithm differs in the last bit for about a third of integers, which would
    make the two engines disagree by 1e-16 and a comparison of a run with itself non-zero."""
    global _LOG2
    top = int(ranks.max(initial=1))
    if top >= len(_LOG2):
        _LOG2 = np.array([0.0] + [math.log2(i) for i in range(1, 2 * top + 2)])
    return _LOG2[ranks]


def rank_run(run: pl.DataFrame, judged_qids: pl.Series, options: EvalOptions) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Rank each (system, qid) of the judged queries as trec_eval does.

    Returns ``ranked`` (system, qid, docno, rank; cut at depth) and ``retrieved`` (system, qid, n:
    documents retrieved before the depth cut). Ids are grouped through categorical codes and ranks
    come from the group boundaries of one sort, which is much cheaper than string group-bys.
    """
    run = run.filter(pl.col("qid").is_in(judged_qids.implode()))
    score = pl.col("score")
    if options.score_precision == "float32":
        score = score.cast(pl.Float32).cast(pl.Float64)
    ordered = (run.with_columns(pl.col("system").cast(pl.Categorical).to_physical().alias("_s"),
                                pl.col("qid").cast(pl.Categorical).to_physical().alias("_q"),
                                score.alias("_key"))
               .sort(["_s", "_q", "_key", "docno"], descending=[False, False, True, True]))
    s_codes, q_codes = ordered["_s"].to_numpy(), ordered["_q"].to_numpy()
    n = len(q_codes)
    new_group = np.ones(n, dtype=bool)
    if n:
        new_group[1:] = (s_codes[1:] != s_codes[:-1]) | (q_codes[1:] != q_codes[:-1])
    starts = np.flatnonzero(new_group)
    sizes = np.diff(np.append(starts, n))
    rank = np.arange(1, n + 1, dtype=np.int64) - np.repeat(starts, sizes)
    retrieved = ordered[starts].select(*KEYS).with_columns(pl.Series("n", sizes, dtype=pl.Int64))
    ranked = ordered.select(*KEYS, "docno").with_columns(pl.Series("rank", rank))
    if options.depth is not None:
        ranked = ranked.filter(pl.col("rank") <= options.depth)
    return ranked, retrieved


def build_context(run: pl.DataFrame, qrels: pl.DataFrame, *, rel_level: int, options: EvalOptions) -> PolarsContext:
    """The polars twin of sql/prep_queries.sql, prep_ranked.sql and prep_ideal.sql."""
    judged = (qrels.group_by("qid").agg(
        (pl.col("rel") >= rel_level).sum().alias("num_rel"),
        ((pl.col("rel") >= 0) & (pl.col("rel") < rel_level)).sum().alias("num_nonrel")))
    ranked, retrieved = rank_run(run, judged["qid"], options)
    if options.complete:
        queries = (run.select(pl.col("system").unique()).join(judged, how="cross")
                   .join(retrieved, on=KEYS, how="left").with_columns(pl.col("n").fill_null(0)))
    else:
        queries = retrieved.join(judged, on="qid", how="inner")
    num_ret = pl.col("n") if options.depth is None else pl.min_horizontal(pl.col("n"), options.depth)
    queries = queries.select(*KEYS, pl.col("num_rel").cast(pl.Int64), pl.col("num_nonrel").cast(pl.Int64),
                             num_ret.cast(pl.Int64).alias("num_ret")).lazy()
    ranked = ranked.lazy()
    rel = pl.col("rel")
    ranked = (ranked.join(qrels.lazy().filter(rel >= 0), on=["qid", "docno"], how="inner")
              .join(queries, on=KEYS, how="inner")
              .select(*KEYS, "docno", "rank", "rel",
                      (rel >= rel_level).alias("is_rel"),
                      (rel < rel_level).alias("is_judged_nonrel"),
                      pl.when(rel > 0).then(rel).otherwise(0).cast(pl.Float64).alias("gain"),
                      "num_rel", "num_nonrel")
              .sort(["system", "qid", "rank"])
              .with_columns(pl.col("is_rel").cast(pl.Int64).cum_sum().over(KEYS).alias("rel_cum"),
                            pl.col("is_judged_nonrel").cast(pl.Int64).cum_sum().over(KEYS).alias("nonrel_cum"))
              .collect())
    ranked = ranked.with_columns(pl.Series("log2_rank1", log2_of_ranks(ranked["rank"].to_numpy() + 1))).lazy()
    ideal = (qrels.lazy().filter(pl.col("rel") > 0)
             .join(queries.select("qid").unique(), on="qid", how="semi")
             .sort(["qid", "rel"], descending=[False, True])
             .select("qid", pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("qid").alias("irank"),
                     pl.col("rel").cast(pl.Float64).alias("gain"))
             .collect())
    ideal = ideal.with_columns(pl.Series("log2_irank1", log2_of_ranks(ideal["irank"].to_numpy() + 1))).lazy()
    return PolarsContext(ranked=ranked, queries=queries, ideal=ideal)


class PolarsEngine:
    """Evaluate with polars expressions only (no DuckDB)."""

    name = "polars"

    def evaluate(self, run: pl.DataFrame, qrels: pl.DataFrame, measures: list[Measure],
                 options: EvalOptions) -> pl.DataFrame:
        parts = []
        for level, group in group_by_level(measures).items():
            ctx = build_context(run, qrels, rel_level=level, options=options)
            frames = [m.spec.polars(ctx, m).select(*KEYS, pl.lit(m.name).alias("measure"), "value")
                      for m in group]
            parts.extend(pl.collect_all(frames))
        return pl.concat(parts) if parts else pl.DataFrame(
            schema={"system": pl.String, "qid": pl.String, "measure": pl.String, "value": pl.Float64})
