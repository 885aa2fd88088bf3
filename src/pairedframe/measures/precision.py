"""Precision at k (trec_eval ``P_k``; m_P.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import divide, per_query, within_cutoff
from pairedframe.measures._trec import TREC_CUTOFFS
from pairedframe.measures.base import UNIT, Measure, PolarsContext, TrecForm, family


@family(key="P", value_range=UNIT, aliases=("precision",), trec=TrecForm("P", "long_cutoffs", 110, TREC_CUTOFFS),
        sql_file="precision.sql", cutoff="required", empty_value="0")
def precision(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Precision at k: relevant documents among the top k, divided by k (even when fewer than k
    were retrieved, as trec_eval). Range [0, 1]. Value 0 for a query that retrieved nothing.
    Source: trec_eval m_P.c.
    """
    hits = pl.col("is_rel").filter(within_cutoff(measure)).sum()
    return per_query(ctx, divide(pl.col("hits"), measure.cutoff), hits=hits)
