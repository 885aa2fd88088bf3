"""Where the best answer is: the rank of the first relevant document and of the first one with the
query's highest grade (pairedframe; for compare, worst_queries and the regression gate's diff)."""

from __future__ import annotations

import math

import polars as pl

from pairedframe.measures.polars_exprs import KEYS, within_cutoff
from pairedframe.measures.base import Measure, PolarsContext, family


def _first(ctx: PolarsContext, where: pl.Expr) -> pl.LazyFrame:
    first = ctx.ranked.filter(where).group_by(KEYS).agg(pl.col("rank").min().alias("first"))
    return (ctx.queries.select(KEYS).join(first, on=KEYS, how="left")
            .select(*KEYS, pl.col("first").cast(pl.Float64).alias("value")))


@family(key="FirstRelRank", value_range=(1.0, math.inf),
        aliases=("first_rel_rank",), trec=(),
        sql_file="first_rel_rank.sql", cutoff="optional", higher_is_better=False,
        empty_value="null (not retrieved)")
def first_rel_rank(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """The 1-based rank of the first relevant document (grade >= rel), within the top k; null when
    none is retrieved there. Lower is better: compare and worst_queries treat an increase as a
    loss. Queries where a system retrieves no relevant document have no value, so compare pairs
    only the queries where both systems found one; the summary is the mean over the queries with a
    value. 1 / FirstRelRank is RR. trec_eval 10 has no such measure: trec format refuses it.
    """
    return _first(ctx, pl.col("is_rel") & within_cutoff(measure))


@family(key="TopGradeRank", value_range=(1.0, math.inf),
        aliases=("top_grade_rank",), trec=(),
        sql_file="top_grade_rank.sql", cutoff="optional", rel="none", higher_is_better=False,
        empty_value="null (not retrieved)")
def top_grade_rank(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """The 1-based rank of the first document that has the query's highest grade in the qrels (the
    best answer), within the top k; null when none is retrieved there or the query has no grade
    above 0. Lower is better, as FirstRelRank.
    """
    best = (pl.col("rel") == pl.col("max_grade")) & (pl.col("max_grade") > 0)
    return _first(ctx, best & within_cutoff(measure))
