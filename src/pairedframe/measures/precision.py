"""Precision at k (trec_eval ``P_k``; m_P.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures._polars import per_query, within_cutoff
from pairedframe.measures.base import Measure, PolarsContext, family
from pairedframe.measures.ndcg import TREC_CUTOFFS


@family(key="P", aliases=("precision",), trec_name="P", trec_cut_name="P", sql_file="precision.sql",
        cutoff="required", trec_order=80, empty_value="0", default_cutoffs=TREC_CUTOFFS)
def precision(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Precision at k: relevant documents among the top k, divided by k (even when fewer than k
    were retrieved, as trec_eval). Range [0, 1]. Value 0 for a query that retrieved nothing.
    Source: trec_eval m_P.c.
    """
    hits = pl.col("is_rel").filter(within_cutoff(measure)).sum()
    k = measure.cutoff
    # polars turns division by a scalar into multiplication by its reciprocal (6 / 10 ->
    # 0.6000000000000001); numpy divides exactly, as trec_eval and DuckDB do.
    exact = pl.col("hits").map_batches(lambda s: pl.Series(s.cast(pl.Float64).to_numpy() / k),
                                        return_dtype=pl.Float64)
    return per_query(ctx, exact, hits=hits)
