"""Gain measures that walk the ranking against the ideal one: binG, G, ndcg_rel, Rndcg
(trec_eval m_binG.c, m_G.c, m_ndcg_rel.c, m_Rndcg.c; experimental measures of trec_eval)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import (KEYS, c_log2, gain_expr, ordered_sum, per_query, quotient, ratio,
                                          with_row_columns)
from pairedframe.measures._trec import parse_gain_pairs, printable_gains
from pairedframe.measures.base import UNIT, Measure, PolarsContext, TrecForm, family


def _gain_form(name: str, order: int) -> TrecForm:
    return TrecForm(name, "params", order, parse=parse_gain_pairs, printable=printable_gains)


def scored_rows(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """system, qid, rank, gain, dcg_cum: retrieved documents with a non-zero gain under the
    measure's gain map, with the DCG at their rank (added in rank order)."""
    return (ctx.ranked.select(*KEYS, "rank", "log2_rank1", gain_expr(measure).alias("gain"))
            .filter(pl.col("gain") != 0).sort([*KEYS, "rank"])
            .with_columns(quotient(pl.col("gain"), pl.col("log2_rank1")).alias("dcg_cum"))
            .with_columns(pl.col("dcg_cum").cum_sum().over(KEYS)))


def ideal_prefix(ctx: PolarsContext, measure: Measure) -> tuple[pl.LazyFrame, pl.LazyFrame]:
    """(qid, irank, gain, idcg_cum) of the ideal ranking and (qid, ideal_len, idcg_total)."""
    ideal = (ctx.ideal(measure.gain_key).sort(["qid", "irank"])
             .with_columns(quotient(pl.col("gain"), pl.col("log2_irank1")).alias("idcg_cum"))
             .with_columns(pl.col("idcg_cum").cum_sum().over("qid")))
    lens = ideal.group_by("qid").agg(pl.len().cast(pl.Int64).alias("ideal_len"),
                                     pl.col("idcg_cum").sort_by("irank").last().alias("idcg_total"))
    return ideal, lens


@family(key="BinG", value_range=UNIT,
        aliases=("bing",), trec=TrecForm("binG", "single", 190), sql_file="bing.sql", cutoff="none",
        empty_value="0")
def bin_g(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Binary G: the mean over the R relevant documents (grade >= rel) of ``1 / log2(2 + n)`` for
    each retrieved one, n the number of non-relevant (or unjudged) documents ranked above it;
    unretrieved relevant documents add 0. Range [0, 1]. Experimental measure of trec_eval
    (4/10/2008). Source: trec_eval m_binG.c.
    """
    ctx = with_row_columns(ctx, term=quotient(pl.lit(1.0), c_log2(2 + pl.col("rank") - pl.col("rel_cum"))))
    return per_query(ctx, ratio(pl.col("total"), pl.col("num_rel")), total=ordered_sum(pl.col("term"), pl.col("is_rel"), presorted=True))


@family(key="G", value_range=UNIT,
        trec=_gain_form("G", 200), sql_file="g.sql", cutoff="none", rel="none", uses_gain=True,
        empty_value="0", examples=("G(gains={1:3,2:0.5})", "G(gains={1:0.3,2:0.7,3:0.1})", "G.0=2,1=1"))
def g(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Normalised gain G: each retrieved document of gain g at rank r adds
    ``g / log2(2 + cost(r) - gained(r))``, where gained(r) is the gain retrieved at ranks <= r and
    cost(r) the ideal gain at ranks <= r, each ideal rank costing at least 1; the sum is divided by
    the total ideal gain. Gains as nDCG (the grade, or a gain map). Experimental measure of
    trec_eval (4/10/2008); 0 without positive gains. Source: trec_eval m_G.c.
    """
    ideal, lens = ideal_prefix(ctx, measure)
    cost = ideal.select("qid", "irank", pl.max_horizontal(pl.col("gain"), pl.lit(1.0)).cum_sum().over("qid")
                        .alias("cost_cum"))
    scored = (scored_rows(ctx, measure).with_columns(pl.col("gain").cum_sum().over(KEYS).alias("gained"))
              .join(lens, on="qid")
              .with_columns(pl.min_horizontal("rank", "ideal_len").alias("irank"))
              .join(cost, on=["qid", "irank"])
              .with_columns((pl.col("cost_cum") + pl.max_horizontal(pl.col("rank") - pl.col("ideal_len"), pl.lit(0)))
                            .alias("cost"))
              .with_columns(quotient(pl.col("gain"), c_log2(2 + pl.col("cost") - pl.col("gained"))).alias("term")))
    total = scored.group_by(KEYS).agg(pl.col("term").sort_by("rank").cum_sum().last().alias("g"))
    ideal_total = ideal.group_by("qid").agg(ordered_sum(pl.col("gain"), order="irank", presorted=True).alias("ideal_gain"))
    return (ctx.queries.select(KEYS).join(total, on=KEYS, how="left").join(ideal_total, on="qid", how="left")
            .select(*KEYS, ratio(pl.col("g").fill_null(0.0), pl.col("ideal_gain").fill_null(0.0)).alias("value")))


@family(key="nDCGRel", value_range=UNIT,
        aliases=("ndcg_rel",), trec=_gain_form("ndcg_rel", 240), sql_file="ndcg_rel.sql",
        cutoff="none", rel="none", uses_gain=True, empty_value="0", examples=("nDCGRel(gains={1:3,2:9})",))
def ndcg_rel(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """nDCG averaged over the relevant documents (gain > 0): for each of the L documents of the
    ideal ranking with a positive gain, nDCG at the rank where a retrieved document with a positive
    gain is found (ideal DCG at min(rank, L)), and the final DCG over the ideal DCG for the ones not
    retrieved; the mean of the L values. Gains as nDCG. Experimental measure of trec_eval; 0 when
    L = 0. Source: trec_eval m_ndcg_rel.c.
    """
    ideal, lens = ideal_prefix(ctx, measure)
    scored = scored_rows(ctx, measure)
    ends = scored.group_by(KEYS).agg(pl.col("dcg_cum").sort_by("rank").last().alias("dcg_end"),
                                     (pl.col("gain") > 0).sum().alias("found"))
    points = (scored.filter(pl.col("gain") > 0).join(lens, on="qid")
              .with_columns(pl.min_horizontal("rank", "ideal_len").alias("irank"))
              .join(ideal.select("qid", "irank", "idcg_cum"), on=["qid", "irank"])
              .with_columns(quotient(pl.col("dcg_cum"), pl.col("idcg_cum")).alias("at_found"))
              .group_by(KEYS).agg(pl.col("at_found").sort_by("rank").cum_sum().last()))
    table = (ctx.queries.select(KEYS).join(lens, on="qid", how="inner").join(ends, on=KEYS, how="left")
             .join(points, on=KEYS, how="left")
             .with_columns(pl.col("dcg_end").fill_null(0.0), pl.col("found").fill_null(0),
                           pl.col("at_found").fill_null(0.0)))
    total = pl.col("at_found") + quotient((pl.col("ideal_len") - pl.col("found")).cast(pl.Float64) * pl.col("dcg_end"),
                                          pl.col("idcg_total"))
    value = pl.when(total > 0).then(quotient(total, pl.col("ideal_len"))).otherwise(0.0)
    return (ctx.queries.select(KEYS).join(table.select(*KEYS, value.alias("value")), on=KEYS, how="left")
            .select(*KEYS, pl.col("value").fill_null(0.0)))


@family(key="RnDCG", value_range=UNIT,
        aliases=("rndcg",), trec=_gain_form("Rndcg", 250), sql_file="rndcg.sql", cutoff="none",
        empty_value="0", examples=("RnDCG(gains={1:3,2:3,3:1})",), uses_gain=True)
def rndcg(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """nDCG averaged at the R levels: the mean of nDCG at each rank where the ideal gain changes
    (after the last ideal document of each gain value, the last one included) and, when the
    ranking is at least two longer than the ideal one, at its end. With 5 documents of grade 3,
    3 of grade 2 and 10 of grade 1: the mean of nDCG at 5, 8 and 18 (and at the end of a longer
    ranking). nDCG at a rank beyond the ranking uses the final DCG. 0 when the query has no
    relevant document (grade >= rel), and (pairedframe; trec_eval divides 0 by 0) when it has no
    positive gain. Gains as nDCG. Experimental measure of trec_eval. Source: trec_eval m_Rndcg.c.
    """
    ideal, lens = ideal_prefix(ctx, measure)
    points = (ideal.with_columns(pl.col("gain").shift(-1).over("qid").alias("next"))
              .filter(pl.col("next").is_null() | (pl.col("next") != pl.col("gain")))
              .select("qid", pl.col("irank").alias("e"), "idcg_cum"))
    scored = scored_rows(ctx, measure)
    # DCG at e: the DCG of the last scored document ranked at or above e (0 when there is none).
    at_points = (ctx.queries.select(KEYS).join(points, on="qid").sort("e")
                 .join_asof(scored.select(*KEYS, "rank", "dcg_cum").sort("rank"), left_on="e", right_on="rank",
                            by=KEYS, strategy="backward", check_sortedness=False)
                 .select(*KEYS, pl.col("e").cast(pl.Int64).alias("key"),
                         quotient(pl.col("dcg_cum").fill_null(0.0), pl.col("idcg_cum")).alias("v")))
    dcg_end = scored.group_by(KEYS).agg(pl.col("dcg_cum").sort_by("rank").last().alias("dcg_end"))
    extra = (ctx.queries.select(*KEYS, "num_ret").join(lens, on="qid")
             .filter(pl.col("num_ret") >= pl.col("ideal_len") + 2)
             .join(dcg_end, on=KEYS, how="left")
             .select(*KEYS, (pl.col("ideal_len") + 1).cast(pl.Int64).alias("key"),
                     quotient(pl.col("dcg_end").fill_null(0.0), pl.col("idcg_total")).alias("v")))
    totals = (pl.concat([at_points, extra]).group_by(KEYS)
              .agg(pl.col("v").sort_by("key").cum_sum().last().alias("total"), pl.len().alias("n")))
    value = (pl.when((pl.col("num_rel") > 0) & (pl.col("n") > 0)).then(quotient(pl.col("total"), pl.col("n")))
             .otherwise(0.0))
    return (ctx.queries.select(*KEYS, "num_rel").join(totals, on=KEYS, how="left")
            .select(*KEYS, value.alias("value")))
