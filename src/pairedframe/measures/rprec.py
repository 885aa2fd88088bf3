"""R-precision (trec_eval ``Rprec``; m_Rprec.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import per_query, ratio
from pairedframe.measures.base import UNIT, Measure, PolarsContext, TrecForm, family


@family(key="Rprec", value_range=UNIT, aliases=("r_prec", "rprecision"), trec=TrecForm("Rprec", "single", 70),
        sql_file="rprec.sql", cutoff="none", empty_value="0")
def rprec(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """R-precision: relevant documents among the top R divided by R, where R is the number of
    relevant documents of the query in the qrels (grade >= rel). Range [0, 1]. Value 0 when R = 0
    or nothing was retrieved. Source: trec_eval m_Rprec.c.
    """
    hits = pl.col("is_rel").filter(pl.col("rank") <= pl.col("num_rel")).sum()
    return per_query(ctx, ratio(pl.col("hits"), pl.col("num_rel")), hits=hits)
