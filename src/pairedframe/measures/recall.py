"""Recall at k (trec_eval ``recall_k``; m_recall.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures._polars import per_query, ratio, within_cutoff
from pairedframe.measures.base import Measure, PolarsContext, family
from pairedframe.measures.ndcg import TREC_CUTOFFS


@family(key="R", aliases=("recall",), trec_name="recall", trec_cut_name="recall", sql_file="recall.sql",
        cutoff="required", trec_order=90, empty_value="0", default_cutoffs=TREC_CUTOFFS)
def recall(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Recall at k: relevant documents among the top k divided by all relevant documents of the
    query in the qrels (grade >= rel). Range [0, 1]. Value 0 when the query has no relevant
    document or retrieved nothing. Source: trec_eval m_recall.c.
    """
    hits = pl.col("is_rel").filter(within_cutoff(measure)).sum()
    return per_query(ctx, ratio(pl.col("hits"), pl.col("num_rel")), hits=hits)
