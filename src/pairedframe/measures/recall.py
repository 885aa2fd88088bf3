"""Recall at k (trec_eval ``recall_k``; m_recall.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import per_query, ratio, within_cutoff
from pairedframe.measures._trec import TREC_CUTOFFS
from pairedframe.measures.base import UNIT, Measure, PolarsContext, TrecForm, family


@family(key="R", value_range=UNIT, aliases=("recall",), trec=TrecForm("recall", "long_cutoffs", 130, TREC_CUTOFFS),
        sql_file="recall.sql", cutoff="required", empty_value="0")
def recall(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Recall at k: relevant documents among the top k divided by all relevant documents of the
    query in the qrels (grade >= rel). Range [0, 1]. Value 0 when the query has no relevant
    document or retrieved nothing. Source: trec_eval m_recall.c.
    """
    hits = pl.col("is_rel").filter(within_cutoff(measure)).sum()
    return per_query(ctx, ratio(pl.col("hits"), pl.col("num_rel")), hits=hits)
