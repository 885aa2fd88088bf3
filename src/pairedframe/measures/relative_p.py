"""Relative precision at k (trec_eval ``relative_P_k``; m_rel_P.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import per_query, quotient, within_cutoff
from pairedframe.measures._trec import TREC_CUTOFFS
from pairedframe.measures.base import UNIT, Measure, PolarsContext, TrecForm, family


@family(key="RelP", value_range=UNIT,
        aliases=("relative_p",), trec=TrecForm("relative_P", "long_cutoffs", 280, TREC_CUTOFFS),
        sql_file="relative_p.sql", cutoff="required", empty_value="0")
def relative_p(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Relative precision at k: relevant documents in the top k divided by min(k, R), the most a
    ranking could have there (R relevant documents, grade >= rel): precision up to R, recall
    after. Range [0, 1]; 0 when R = 0. Source: trec_eval m_rel_P.c.
    """
    hits = pl.col("is_rel").filter(within_cutoff(measure)).sum()
    best = pl.min_horizontal(pl.col("num_rel"), pl.lit(measure.cutoff))
    value = pl.when(pl.col("num_rel") > 0).then(quotient(pl.col("hits"), best)).otherwise(0.0)
    return per_query(ctx, value, hits=hits)
