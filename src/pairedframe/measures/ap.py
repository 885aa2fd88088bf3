"""Average precision, AP@k (trec_eval ``map``, ``map_cut_k``; m_map.c, m_map_cut.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import ordered_sum, per_query, quotient, ratio, with_row_columns, within_cutoff
from pairedframe.measures._trec import TREC_CUTOFFS
from pairedframe.measures.base import UNIT, Measure, PolarsContext, TrecForm, family


@family(key="AP", value_range=UNIT, aliases=("map",), trec=(TrecForm("map", "single", 50),
                                          TrecForm("map_cut", "long_cutoffs", 270, TREC_CUTOFFS)),
        sql_file="ap.sql", cutoff="optional", empty_value="0")
def ap(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Average precision: ``AP@k = (1/R) * sum_{r <= k, doc r relevant} P@r``.

    R is the number of relevant documents of the query in the qrels (grade >= rel), retrieved or
    not, so AP@k is divided by all relevant documents (trec_eval ``map_cut``), not by min(R, k).
    Range [0, 1]. Value 0 when R = 0 or nothing relevant was retrieved. Aggregated as the mean
    over queries (MAP). Source: trec_eval m_map.c, m_map_cut.c.
    """
    ctx = with_row_columns(ctx, precision=quotient(pl.col("rel_cum"), pl.col("rank")))
    precision_at_hit = ordered_sum(pl.col("precision"), pl.col("is_rel") & within_cutoff(measure),
                                    presorted=True)
    return per_query(ctx, ratio(pl.col("sum_prec"), pl.col("num_rel")), sum_prec=precision_at_hit)
