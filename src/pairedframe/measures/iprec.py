"""Interpolated precision at recall levels and its average (trec_eval ``iprec_at_recall_x``,
``11pt_avg``; m_iprec_at_recall.c, m_11pt_avg.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import KEYS, divide, quotient
from pairedframe.measures._trec import doubles, number_text
from pairedframe.measures.base import UNIT, Interval, Measure, Param, PolarsContext, TrecForm, family

RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def lround(x: pl.Expr) -> pl.Expr:
    """C's lround for x >= 0 (half away from zero), exact: floor(x) + (x - floor(x) >= 0.5)."""
    return x.floor() + (x - x.floor() >= 0.5).cast(pl.Float64)


def interpolated(ctx: PolarsContext, recalls: pl.LazyFrame) -> pl.LazyFrame:
    """system, qid, level, recall, iprec for each evaluated query x each row of ``recalls``
    (``level, recall``): the largest precision at or below the rank of the c-th relevant document,
    c = lround(recall * num_rel) (at least the first); 0 when fewer than c are retrieved."""
    cuts = (ctx.queries.select(*KEYS, "num_rel").join(recalls, how="cross")
            .with_columns(lround(pl.col("recall") * pl.col("num_rel")).alias("c")))
    best = (ctx.ranked.filter(pl.col("is_rel"))
            .select(*KEYS, "rel_cum", quotient(pl.col("rel_cum"), pl.col("rank")).alias("p"))
            .join(cuts.select(*KEYS, "level", "c"), on=KEYS)
            .filter(pl.col("rel_cum") >= pl.max_horizontal(pl.col("c"), pl.lit(1.0)))
            .group_by(*KEYS, "level").agg(pl.col("p").max().alias("iprec")))
    return (cuts.join(best, on=[*KEYS, "level"], how="left")
            .select(*KEYS, "level", "recall", pl.col("iprec").fill_null(0.0)))


@family(key="IPrec", value_range=UNIT, trec=TrecForm("iprec_at_recall", "double_cutoffs", 100, RECALL_LEVELS),
        sql_file="iprec.sql", cutoff="none", at="recall", params=(Param("recall", "float", None, "recall level", Interval(0.0, 1.0)),),
        empty_value="0", examples=("IPrec@0.25", "IPrec@1", "iprec_at_recall..35,.5"))
def iprec(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Interpolated precision at recall x (``IPrec@x``): the largest precision at any rank at or
    below the rank of the c-th relevant retrieved document, where c = lround(x * R) and R is the
    number of relevant documents (grade >= rel) of the query; c = 0 counts as the first one. 0 when
    fewer than c relevant documents are retrieved or the ranking is empty.

    trec_eval 10 rounds c (``lround``); trec_eval 9 and pytrec_eval truncated ``x * R + 0.9``, so
    their values differ where x * R has a fractional part in [0.1, 0.5). Range [0, 1].
    Source: trec_eval 10 m_iprec_at_recall.c.
    """
    recalls = pl.LazyFrame({"level": [0], "recall": [float(measure.param("recall"))]})
    return interpolated(ctx, recalls).select(*KEYS, pl.col("iprec").alias("value"))


def _parse_levels(text: str) -> dict:
    return {"params": {"levels": tuple(doubles(text))}}


def _printable_levels(measure: Measure) -> str:
    levels = measure.param("levels")
    return "" if levels == RECALL_LEVELS else ",".join(number_text(v) for v in levels)


@family(key="IPrecAvg", value_range=UNIT, aliases=("11pt_avg",),
        trec=TrecForm("11pt_avg", "params", 180, parse=_parse_levels, printable=_printable_levels),
        sql_file="iprec_avg.sql", cutoff="none", params=(Param("levels", "floats", RECALL_LEVELS, "recall levels", Interval(0.0, 1.0)),),
        empty_value="0", examples=("IPrecAvg(levels=(0.25,0.5,0.75))", "11pt_avg..25,.5,.75"))
def iprec_avg(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Interpolated precision averaged over recall levels (default the 11 levels 0.0, 0.1, ..., 1.0:
    trec_eval's ``11pt_avg``): the mean of ``IPrec@x`` over the levels, added from the highest
    level down as trec_eval adds them. ``IPrecAvg(levels=(0.2,0.5,0.8))`` is trec_eval 8's 3-point
    average. Range [0, 1]; 0 for an empty ranking. Source: trec_eval 10 m_11pt_avg.c.
    """
    levels = tuple(measure.param("levels"))
    recalls = pl.LazyFrame({"level": list(range(len(levels))), "recall": list(levels)})
    total = (interpolated(ctx, recalls).group_by(KEYS)
             .agg(pl.col("iprec").sort_by("recall", descending=True).cum_sum().last().alias("total")))
    return total.select(*KEYS, divide(pl.col("total"), len(levels)).alias("value"))
