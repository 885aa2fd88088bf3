"""Measures averaged over judgment groups (trec_eval ``-R qrels_jg``; m_map_avgjg.c, m_P_avgjg.c,
m_Rprec_mult_avgjg.c): qrels whose iteration column names a judgment group (an assessor); the measure
is computed against each group's judgments alone and averaged over the query's groups (the values
added in group order, then divided by the number of groups)."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pairedframe.measures.polars_exprs import divide, quotient
from pairedframe.measures._trec import TREC_CUTOFFS
from pairedframe.measures.base import Interval, Measure, Param, TrecForm, family
from pairedframe.measures.rprec_mult import MULTIPLES

KEYS = ["system", "qid"]
GROUP = ["system", "qid", "jg"]


@dataclass(frozen=True)
class GroupsContext:
    """Inputs of a judgment-group family's polars implementation (lazy frames).

    groups : system, qid, jg, num_rel, num_ret, n_jgs -- one row per judgment group of each evaluated
             (system, qid); num_rel: documents of grade >= rel in the group; num_ret: the ranking's
             length (with judged_only: the retrieved documents the group judged); n_jgs: groups of the query.
    ranked : system, qid, jg, rank, is_rel, rel_cum -- the retrieved documents each group judged, at
             ranks <= depth (with judged_only: grade >= 0, ranked among themselves), sorted by rank.
    """

    groups: pl.LazyFrame
    ranked: pl.LazyFrame


def build_groups_context(ranks: pl.DataFrame, queries: pl.DataFrame, qrels_jg: pl.DataFrame, *, rel_level: int,
                         depth: int | None, judged_only: bool) -> GroupsContext:
    """The :class:`GroupsContext` (sql/prep_jg_*.sql's twin) of ``ranks`` (system, qid, docno, rank:
    trec_eval's ranks, not cut) on the evaluated ``queries`` (system, qid, num_ret)."""
    rel = pl.col("rel")
    groups = qrels_jg.group_by("qid", "jg").agg((rel >= rel_level).sum().cast(pl.Int64).alias("num_rel"))
    cut = ranks if depth is None else ranks.filter(pl.col("rank") <= depth)
    judged = cut.select(*KEYS, "docno", "rank").join(qrels_jg, on=["qid", "docno"])
    if judged_only:
        judged = (judged.filter(rel >= 0).sort(*GROUP, "rank")
                  .with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(GROUP).alias("rank")))
    table = queries.select(*KEYS, "num_ret").join(groups, on="qid")
    if judged_only:
        sizes = judged.group_by(GROUP).agg(pl.len().cast(pl.Int64).alias("_n"))
        table = table.join(sizes, on=GROUP, how="left").with_columns(pl.col("_n").fill_null(0).alias("num_ret"))
    table = table.select(*GROUP, "num_rel", pl.col("num_ret").cast(pl.Int64),
                         pl.len().over(KEYS).cast(pl.Int64).alias("n_jgs"))
    ranked = (judged.sort(*GROUP, "rank").select(*GROUP, "rank", (rel >= rel_level).alias("is_rel"))
              .with_columns(pl.col("is_rel").cast(pl.Int64).cum_sum().over(GROUP).alias("rel_cum")))
    return GroupsContext(groups=table.lazy(), ranked=ranked.lazy())


def mean_over_groups(ctx: GroupsContext, per_group: pl.LazyFrame) -> pl.LazyFrame:
    """system, qid, value: the groups' ``value`` (0 for a group missing from ``per_group``) added in
    group byte order and divided by the number of groups."""
    table = (ctx.groups.join(per_group, on=GROUP, how="left").with_columns(pl.col("value").fill_null(0.0))
             .sort(*KEYS, pl.col("jg").cast(pl.Binary)).group_by(KEYS, maintain_order=True)
             .agg(pl.col("value").cum_sum().last().alias("_sum"), pl.col("n_jgs").first()))
    return table.select(*KEYS, quotient(pl.col("_sum"), pl.col("n_jgs")).alias("value"))


@family(key="map_avgjg", trec=TrecForm("map_avgjg", "single", 500), sql_file="map_avgjg.sql", cutoff="none",
        empty_value="0", judgments="qrels_jg", trec_named=True)
def map_avgjg(ctx: GroupsContext, measure: Measure) -> pl.LazyFrame:
    """Average precision against each judgment group's qrels (grade >= rel relevant; 0 for a group
    without a relevant document retrieved), averaged over the query's groups. Range [0, 1].
    Source: trec_eval m_map_avgjg.c."""
    ranked = ctx.ranked.filter(pl.col("is_rel")).with_columns(quotient(pl.col("rel_cum"), pl.col("rank")).alias("_p"))
    sums = ranked.group_by(GROUP).agg(pl.col("_p").cum_sum().last().alias("_sum"))
    per_group = (ctx.groups.join(sums, on=GROUP).select(*GROUP, quotient(pl.col("_sum"), pl.col("num_rel")).alias("value")))
    return mean_over_groups(ctx, per_group)


@family(key="P_avgjg", trec=TrecForm("P_avgjg", "long_cutoffs", 510, TREC_CUTOFFS), sql_file="p_avgjg.sql",
        cutoff="required", empty_value="0", judgments="qrels_jg", trec_named=True)
def p_avgjg(ctx: GroupsContext, measure: Measure) -> pl.LazyFrame:
    """Precision at k against each judgment group's qrels (relevant documents in the top k / k),
    averaged over the query's groups. Range [0, 1]. Source: trec_eval m_P_avgjg.c."""
    hits = (ctx.ranked.filter(pl.col("is_rel") & (pl.col("rank") <= measure.cutoff)).group_by(GROUP)
            .agg(pl.len().alias("_hits")))
    return mean_over_groups(ctx, hits.select(*GROUP, divide(pl.col("_hits"), measure.cutoff).alias("value")))


@family(key="Rprec_mult_avgjg", trec=TrecForm("Rprec_mult_avgjg", "double_cutoffs", 520, MULTIPLES),
        sql_file="rprec_mult_avgjg.sql", cutoff="none", at="mult", empty_value="0", judgments="qrels_jg",
        params=(Param("mult", "float", None, "multiple of R", Interval(0.0, open_low=True)),), trec_named=True)
def rprec_mult_avgjg(ctx: GroupsContext, measure: Measure) -> pl.LazyFrame:
    """Precision at m times R against each judgment group's qrels: relevant documents in the top
    c = floor(m * R + 0.9) / c (R: the group's relevant documents; 0 when c = 0), averaged over the
    query's groups. Range [0, 1]. Source: trec_eval m_Rprec_mult_avgjg.c."""
    cut = ctx.groups.select(*GROUP, (pl.lit(float(measure.param("mult"))) * pl.col("num_rel") + 0.9).floor().alias("c"))
    hits = (ctx.ranked.filter(pl.col("is_rel")).join(cut, on=GROUP).filter(pl.col("rank") <= pl.col("c"))
            .group_by(GROUP).agg(pl.len().alias("_hits")))
    per_group = (cut.join(hits, on=GROUP, how="left")
                 .select(*GROUP, pl.when(pl.col("c") > 0).then(quotient(pl.col("_hits").fill_null(0), pl.col("c")))
                         .otherwise(0.0).alias("value")))
    return mean_over_groups(ctx, per_group)
