"""Yet Another Average Precision (trec_eval ``yaap``; m_yaap.c), outside ``all_trec``."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import c_log, ordered_sum, per_query, quotient, with_row_columns
from pairedframe.measures.base import Measure, PolarsContext, TrecForm, family


@family(key="yaap", trec=TrecForm("yaap", "single", 530), sql_file="yaap.sql", cutoff="none",
        empty_value="log(1 / (1 + num_rel))", trec_named=True)
def yaap(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """YAAP, Robertson's smoothed average precision (ECIR 2012, "On Smoothing Average Precision"):
    ``log((1 + S) / (1 + R - S))`` where S is the sum of the precisions at the ranks of the
    retrieved relevant documents (grade >= rel; AP's numerator) and R the query's relevant documents
    in the qrels, with the natural logarithm. Monotonic with AP on one query (AP = S / R) but
    unbounded: from ``log(1 / (1 + R))`` when nothing relevant is retrieved (also a query a run lacks,
    under ``complete``) to ``log(1 + R)``; 0 when R = 0. Averaged over queries (the arithmetic mean of
    the logs). Not in trec_eval's ``all_trec``. Source: trec_eval m_yaap.c.
    """
    ctx = with_row_columns(ctx, precision=quotient(pl.col("rel_cum"), pl.col("rank")))
    total = ordered_sum(pl.col("precision"), pl.col("is_rel"), presorted=True)
    relevant = pl.col("num_rel").cast(pl.Float64)
    return per_query(ctx, c_log(quotient(1.0 + pl.col("total"), 1.0 + relevant - pl.col("total"))), total=total)
