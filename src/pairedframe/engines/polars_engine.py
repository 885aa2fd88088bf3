"""Evaluation engine that runs each family's polars implementation (same contract as DuckDB's)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from pairedframe.engines.base import EvalOptions, group_by_level
from pairedframe.engines.ranking import rank_judged
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


def build_context(ranks: pl.DataFrame, retrieved: pl.DataFrame, qrels: pl.DataFrame, *, rel_level: int,
                  options: EvalOptions) -> PolarsContext:
    """The polars twin of sql/prep_queries.sql, prep_ranked.sql and prep_ideal.sql, from the ranks of
    judged documents and the ranking sizes (see :func:`pairedframe.engines.ranking.rank_judged`)."""
    judged = (qrels.group_by("qid").agg(
        (pl.col("rel") >= rel_level).sum().alias("num_rel"),
        ((pl.col("rel") >= 0) & (pl.col("rel") < rel_level)).sum().alias("num_nonrel")))
    ranked = ranks if options.depth is None else ranks.filter(pl.col("rank") <= options.depth)
    if options.complete:
        queries = (retrieved.select(pl.col("system").unique()).join(judged, how="cross")
                   .join(retrieved, on=KEYS, how="left").with_columns(pl.col("n").fill_null(0)))
    else:
        queries = retrieved.join(judged, on="qid", how="inner")
    num_ret = pl.col("n") if options.depth is None else pl.min_horizontal(pl.col("n"), options.depth)
    queries = queries.select(*KEYS, pl.col("num_rel").cast(pl.Int64), pl.col("num_nonrel").cast(pl.Int64),
                             num_ret.cast(pl.Int64).alias("num_ret")).lazy()
    ranked = ranked.lazy()
    rel = pl.col("rel")
    ranked = (ranked.filter(rel >= 0)
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
        ranks, retrieved = rank_judged(run, qrels, score_precision=options.score_precision)
        return self.evaluate_ranked(ranks, retrieved, qrels, measures, options)

    def evaluate_ranked(self, ranks: pl.DataFrame, retrieved: pl.DataFrame, qrels: pl.DataFrame,
                        measures: list[Measure], options: EvalOptions) -> pl.DataFrame:
        parts = []
        for level, group in group_by_level(measures).items():
            ctx = build_context(ranks, retrieved, qrels, rel_level=level, options=options)
            frames = [m.spec.polars(ctx, m).select(*KEYS, pl.lit(m.name).alias("measure"), "value")
                      for m in group]
            parts.extend(pl.collect_all(frames))
        return pl.concat(parts) if parts else pl.DataFrame(
            schema={"system": pl.String, "qid": pl.String, "measure": pl.String, "value": pl.Float64})
