"""Precision at multiples of R (trec_eval ``Rprec_mult_x``; m_Rprec_mult.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import KEYS, quotient
from pairedframe.measures.base import UNIT, Interval, Measure, Param, PolarsContext, TrecForm, family

MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


@family(key="RprecMult", value_range=UNIT,
        aliases=("rprec_mult",), trec=TrecForm("Rprec_mult", "double_cutoffs", 160, MULTIPLES),
        sql_file="rprec_mult.sql", cutoff="none", at="mult", params=(Param("mult", "float", None, "multiple of R", Interval(0.0, open_low=True)),),
        empty_value="0", examples=("RprecMult@0.5", "RprecMult@3", "Rprec_mult.5.0,0.35"))
def rprec_mult(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Precision at m times R (``RprecMult@m``): P@c with c = floor(m * R + 0.9), R the number of
    relevant documents (grade >= rel) of the query, counting missing ranks as non-relevant
    (divided by c even when fewer are retrieved); 0 when c = 0. ``RprecMult@1`` is R-precision.
    Shows whether a system is precision- or recall-oriented. Range [0, 1].
    Source: trec_eval m_Rprec_mult.c.
    """
    cut = ctx.queries.select(*KEYS, (pl.lit(float(measure.param("mult"))) * pl.col("num_rel") + 0.9).floor().alias("c"))
    hits = (ctx.ranked.filter(pl.col("is_rel")).join(cut, on=KEYS).filter(pl.col("rank") <= pl.col("c"))
            .group_by(KEYS).agg(pl.len().alias("hits")))
    return (cut.join(hits, on=KEYS, how="left")
            .select(*KEYS, pl.when(pl.col("c") > 0).then(quotient(pl.col("hits").fill_null(0), pl.col("c")))
                    .otherwise(0.0).alias("value")))
