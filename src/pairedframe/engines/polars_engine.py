"""Evaluation engine that runs each family's polars implementation (same contract as DuckDB's)."""

from __future__ import annotations

import polars as pl

from pairedframe.engines.base import RESULT_SCHEMA, EvalOptions, group_by_level
from pairedframe.engines.ranking import rank_judged, running_counts
from pairedframe.io.judgments import kind_of, plain_qrels
from pairedframe.io.prefs import preferences
from pairedframe.measures import Measure, PolarsContext
from pairedframe.measures.ideal import log2_of_ranks
from pairedframe.measures.prefs_context import build_prefs_context
from pairedframe.measures.avgjg import build_groups_context
from pairedframe.measures.gains import gain_keys, parse_gain_key

KEYS = ["system", "qid"]


def build_context(ranks: pl.DataFrame, retrieved: pl.DataFrame, qrels: pl.DataFrame, *, rel_level: int,
                  options: EvalOptions, judged_only: bool = False,
                  gain_maps: dict[str, dict[int, float]] | None = None) -> PolarsContext:
    """The polars twin of sql/prep_queries.sql and prep_ranked.sql, from the ranks of the documents
    in the qrels and the ranking sizes (see :func:`pairedframe.engines.ranking.rank_judged`)."""
    rel = pl.col("rel")
    judged = (qrels.group_by("qid").agg(
        (rel >= rel_level).sum().alias("num_rel"),
        ((rel >= 0) & (rel < rel_level)).sum().alias("num_nonrel"),
        rel.filter(rel >= 0).max().alias("max_grade")))
    cut = ranks if options.depth is None else ranks.filter(pl.col("rank") <= options.depth)
    if judged_only:
        cut = (cut.filter(rel >= 0).sort(["system", "qid", "rank"])
               .with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(KEYS).alias("rank")))
        sizes = retrieved.select(KEYS).join(cut.group_by(KEYS).agg(pl.len().alias("n_judged")), on=KEYS, how="left")
        retrieved = sizes.select(*KEYS, pl.col("n_judged").fill_null(0).alias("n"))
    if options.complete:
        queries = (retrieved.select(pl.col("system").unique()).join(judged, how="cross")
                   .join(retrieved, on=KEYS, how="left")  # missing: trec_eval's one unjudged placeholder
                   .with_columns(pl.col("n").fill_null(0 if judged_only else 1)))
    else:
        queries = retrieved.join(judged, on="qid", how="inner")
    depth = None if judged_only else options.depth
    num_ret = pl.col("n") if depth is None else pl.min_horizontal(pl.col("n"), depth)
    queries = queries.select(*KEYS, pl.col("num_rel").cast(pl.Int64), pl.col("num_nonrel").cast(pl.Int64),
                             pl.col("max_grade").cast(pl.Int64), num_ret.cast(pl.Int64).alias("num_ret")).lazy()
    columns = (*KEYS, "docno", "rank", "rel", (rel >= rel_level).alias("is_rel"), (rel >= 0).alias("is_judged"),
               ((rel >= 0) & (rel < rel_level)).alias("is_judged_nonrel"),
               pl.when(rel > 0).then(rel).otherwise(0).cast(pl.Float64).alias("gain"), "num_rel", "num_nonrel",
               "max_grade")
    counted = None if judged_only else running_counts(cut, rel_level)
    if counted is not None:  # rank_judged's order (each ranking's rows together, by rank): no sort, no windows
        ranked = (counted.lazy().join(queries, on=KEYS, how="inner", maintain_order="left")
                  .select(*columns, "rel_cum", "nonrel_cum", "unjudged_cum").collect())
    else:
        ranked = (cut.lazy()
                  .join(queries, on=KEYS, how="inner")
                  .select(*columns)
                  .sort(["system", "qid", "rank"])
                  .with_columns(pl.col("is_rel").cast(pl.Int64).cum_sum().over(KEYS).alias("rel_cum"),
                                pl.col("is_judged_nonrel").cast(pl.Int64).cum_sum().over(KEYS).alias("nonrel_cum"),
                                (rel < 0).cast(pl.Int64).cum_sum().over(KEYS).alias("unjudged_cum"))
                  .collect())
    ranked = ranked.with_columns(pl.Series("log2_rank1", log2_of_ranks(ranked["rank"].to_numpy() + 1))).lazy()
    judgments = (qrels.lazy().filter(rel >= 0).join(queries.select("qid").unique(), on="qid", how="semi")
                 .select("qid", "rel").collect().lazy())
    return PolarsContext(ranked=ranked, queries=queries, judgments=judgments, gain_maps=dict(gain_maps or {}))


class PolarsEngine:
    """Evaluate with polars expressions only (no DuckDB)."""

    name = "polars"

    def evaluate(self, run: pl.DataFrame, qrels: pl.DataFrame, measures: list[Measure],
                 options: EvalOptions) -> pl.DataFrame:
        """Per-query values of ``run`` against judgments of any kind (see :mod:`pairedframe.io.judgments`)."""
        ranks, retrieved = rank_judged(run, plain_qrels(qrels), score_precision=options.score_precision,
                                       docno_descending=kind_of(qrels) != "prefs")
        return self.evaluate_ranked(ranks, retrieved, qrels, measures, options)

    def evaluate_ranked(self, ranks: pl.DataFrame, retrieved: pl.DataFrame, qrels: pl.DataFrame,
                        measures: list[Measure], options: EvalOptions) -> pl.DataFrame:
        """The same from ranks (for preferences: form_prefs_counts.c's, docno ascending on ties)."""
        parts = []
        maps = {key: parse_gain_key(key) for key in gain_keys(measures)}
        kind, plain = kind_of(qrels), plain_qrels(qrels)
        prefs = preferences(qrels) if kind == "prefs" else None
        for (own, level, judged_only), group in group_by_level(measures, kind).items():
            ctx = build_context(ranks, retrieved, plain, rel_level=level, options=options, judged_only=judged_only,
                                gain_maps=maps)
            queries = ctx.queries.collect()
            if own == "qrels_jg":
                special = build_groups_context(ranks, queries, qrels, rel_level=level, depth=options.depth,
                                               judged_only=judged_only)
            elif own == "prefs":
                special = build_prefs_context(ranks, queries, prefs, options.depth)
            frames = [_as_result(m.spec.polars(ctx if m.spec.judgments in ("qrels", "any") else special, m), m)
                      for m in group]
            parts.extend(pl.collect_all(frames))
        return pl.concat(parts) if parts else pl.DataFrame(schema=RESULT_SCHEMA)


def _as_result(frame: pl.LazyFrame, m: Measure) -> pl.LazyFrame:
    """A family's ``system, qid, value`` (or ``text``) as rows of :data:`RESULT_SCHEMA`."""
    if m.spec.value_kind == "text":
        value, text = pl.lit(None, dtype=pl.Float64), pl.col("text").cast(pl.String)
    else:
        value, text = pl.col("value").cast(pl.Float64), pl.lit(None, dtype=pl.String)
    return frame.select(*KEYS, pl.lit(m.name).alias("measure"), value.alias("value"), text.alias("text"))
