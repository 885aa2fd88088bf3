"""Success at k (trec_eval ``success_k``; m_success.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import per_query, within_cutoff
from pairedframe.measures.base import UNIT, Measure, PolarsContext, TrecForm, family


@family(key="Success", value_range=UNIT,
        aliases=("success",), trec=TrecForm("success", "long_cutoffs", 290, (1, 5, 10)),
        sql_file="success.sql", cutoff="required", empty_value="0")
def success(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Success at k: 1 if a relevant document (grade >= rel) is in the top k, else 0.
    Source: trec_eval m_success.c.
    """
    hits = pl.col("is_rel").filter(within_cutoff(measure)).sum()
    return per_query(ctx, (pl.col("hits") > 0).cast(pl.Float64), hits=hits)
