"""Success at k (trec_eval ``success_k``; m_success.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures._polars import per_query, within_cutoff
from pairedframe.measures.base import Measure, PolarsContext, family


@family(key="Success", aliases=("success",), trec_name="success", trec_cut_name="success",
        sql_file="success.sql", cutoff="required", trec_order=130, empty_value="0",
        default_cutoffs=(1, 5, 10))
def success(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Success at k: 1 if a relevant document (grade >= rel) is in the top k, else 0.
    Source: trec_eval m_success.c.
    """
    hits = pl.col("is_rel").filter(within_cutoff(measure)).sum()
    return per_query(ctx, (pl.col("hits") > 0).cast(pl.Float64), hits=hits)
