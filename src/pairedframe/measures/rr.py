"""Reciprocal rank, RR@k (trec_eval ``recip_rank``; m_recip_rank.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import per_query, quotient, within_cutoff
from pairedframe.measures.base import UNIT, Measure, PolarsContext, TrecForm, family


@family(key="RR", value_range=UNIT, aliases=("mrr",), trec=TrecForm("recip_rank", "single", 90),
        sql_file="rr.sql", cutoff="optional", empty_value="0")
def rr(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Reciprocal rank of the first relevant document (grade >= rel) within the top k (the whole
    ranking without a cutoff). Range (0, 1], 0 when no relevant document is retrieved (within k).

    Ties follow trec_eval (score desc, then docno desc). ir_measures' ``RR@k`` breaks score ties
    the other way (docno ascending), so its values can differ from ours on tied runs.
    Source: trec_eval m_recip_rank.c (no cutoff there; RR@k as in ir_measures).
    """
    first = pl.col("rank").filter(pl.col("is_rel") & within_cutoff(measure)).min()
    value = pl.when(pl.col("first") > 0).then(quotient(pl.lit(1.0), pl.col("first"))).otherwise(0.0)
    return per_query(ctx, value, first=first)
