"""Inferred average precision (trec_eval ``infAP``; m_infap.c; Yilmaz & Aslam, CIKM 2006)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import ordered_sum, per_query, quotient, ratio, with_row_columns
from pairedframe.measures.base import UNIT, Measure, PolarsContext, TrecForm, family

EPSILON = 0.00001  # INFAP_EPSILON in trec_eval.h


@family(key="infAP", value_range=UNIT,
        aliases=("infap",), trec=TrecForm("infAP", "single", 140), sql_file="infap.sql",
        cutoff="none", empty_value="0")
def infap(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Inferred AP for a judgment pool of which only a sample was judged: documents with a
    negative grade are in the pool but unjudged, documents absent from the qrels are outside the
    pool. Each relevant retrieved document at rank r (j = r - 1 documents above) adds 1 at rank 1,
    else ``1/r + ((r-1)/r) * (pooled above / j) * ((rel above + eps) / (judged above + 2 eps))``
    (eps = 0.00001; judged above = relevant + judged non-relevant above); divided by R. Equals AP
    when every retrieved document is judged. 0 when R = 0. Source: trec_eval m_infap.c.
    """
    r = pl.col("rank").cast(pl.Float64)
    rel_above = pl.col("rel_cum") - 1
    pooled_above = (rel_above + pl.col("nonrel_cum") + pl.col("unjudged_cum")).cast(pl.Float64)
    term = pl.when(pl.col("rank") == 1).then(1.0).otherwise(
        quotient(pl.lit(1.0), r) + quotient(r - 1.0, r) * quotient(pooled_above, r - 1.0)
        * quotient(rel_above + EPSILON, (rel_above + pl.col("nonrel_cum")) + 2 * EPSILON))
    ctx = with_row_columns(ctx, term=term)
    return per_query(ctx, ratio(pl.col("total"), pl.col("num_rel")),
                     total=ordered_sum(pl.col("term"), pl.col("is_rel"), presorted=True))
