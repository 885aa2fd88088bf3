"""Expected reciprocal rank (Chapelle et al., CIKM 2009), as gdeval computes it (ir_measures ``ERR@k``)."""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from pairedframe.measures.polars_exprs import KEYS, c_pow, ordered_sum, per_query, quotient
from pairedframe.measures.base import UNIT, Measure, PolarsContext, family

MAX_GRADE = 4  # gdeval's $MAX_JUDGMENT: the stopping probability of grade g is (2**g - 1) / 2**4


@family(key="ERR", value_range=UNIT,
        trec=(), sql_file="err.sql", cutoff="optional", rel="none",
        max_grade=MAX_GRADE, empty_value="0", examples=("ERR@3",))
def err(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Expected reciprocal rank: ``sum_{r <= k} R(g_r) / r * prod_{j < r} (1 - R(g_j))`` with the
    cascade model's stopping probability ``R(g) = (2**g - 1) / 16`` for grades 0..4 (gdeval's
    maximum grade 4; larger grades are refused), 0 for unjudged documents and negative grades.

    Values equal gdeval's (ir_measures' ``ERR@k`` provider) to its printed 5 decimals; the product
    is taken as ``prod_g (1 - R(g))**n_g`` over the counts n_g of each grade above r (C's pow),
    not multiplied one document at a time. 0 for an empty ranking. Source: gdeval.pl (TREC Web
    track), Chapelle et al. 2009.
    """
    grades = range(1, MAX_GRADE + 1)
    ranked = ctx.ranked.sort([*KEYS, "rank"]).with_columns(
        [((pl.col("rel") == g).cast(pl.Int64).cum_sum().over(KEYS) - (pl.col("rel") == g).cast(pl.Int64)).alias(f"n{g}")
         for g in grades])
    decay = None
    for g in grades:
        factor = c_pow(1.0 - (2.0 ** g - 1.0) / 16.0, pl.col(f"n{g}"))
        decay = factor if decay is None else decay * factor
    stop = pl.when(pl.col("rel") > 0).then((pl.lit(2.0).pow(pl.col("rel").cast(pl.Float64)) - 1.0) / 16.0) \
        .otherwise(0.0)
    ctx = replace(ctx, ranked=ranked.with_columns(quotient(stop * decay, pl.col("rank")).alias("term")))
    within = pl.col("rel") > 0
    if measure.cutoff is not None:
        within = within & (pl.col("rank") <= measure.cutoff)
    return per_query(ctx, pl.col("total"), total=ordered_sum(pl.col("term"), within, presorted=True))
