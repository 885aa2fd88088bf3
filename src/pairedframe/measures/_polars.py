"""Small helpers shared by the families' polars implementations."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.base import Measure, PolarsContext

KEYS = ["system", "qid"]


def within_cutoff(measure: Measure) -> pl.Expr:
    """Rows at rank <= the measure's cutoff (all rows without a cutoff)."""
    return pl.lit(True) if measure.cutoff is None else pl.col("rank") <= measure.cutoff


def gain_expr(measure: Measure, column: str = "gain") -> pl.Expr:
    """Linear gain is the grade (trec_eval); exponential gain is 2**grade - 1."""
    g = pl.col(column)
    return (pl.lit(2.0).pow(g) - 1.0) if measure.gain == "exp" else g


def ordered_sum(values: pl.Expr, where: pl.Expr | None = None, order: str = "rank") -> pl.Expr:
    """Sum of ``values`` (where ``where`` holds) added one by one in ``order``, as trec_eval's loops do.

    polars' parallel ``sum`` may add a group's floats in a different order from run to run, which
    changes the last bit; a cumulative sum in rank order is deterministic.
    """
    kept = values if where is None else pl.when(where).then(values).otherwise(0.0)
    return kept.sort_by(order).cum_sum().last()


def per_query(ctx: PolarsContext, value: pl.Expr, **aggs: pl.Expr) -> pl.LazyFrame:
    """Aggregate ``aggs`` per (system, qid) over ranked rows and compute ``value`` for every evaluated query.

    Queries that retrieved nothing get 0 for every aggregate before ``value`` is evaluated, which is
    what the SQL's LEFT JOIN + COALESCE does; so both engines give an empty query the same value.
    """
    table = ctx.queries
    if aggs:
        agg = ctx.ranked.group_by(KEYS).agg(**aggs)
        table = table.join(agg, on=KEYS, how="left").with_columns(
            [pl.col(name).fill_null(0) for name in aggs])
    return table.select(*KEYS, value.cast(pl.Float64).alias("value"))


def ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator, and 0 where the denominator is 0 (trec_eval never reports NaN)."""
    return pl.when(denominator > 0).then(numerator / denominator).otherwise(0.0)
