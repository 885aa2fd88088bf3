"""DCG and the ideal DCG on their own (trec_eval ``dcg``, ``ideal_dcg``; m_ndcg.c), outside ``all_trec``."""

from __future__ import annotations

import math

import polars as pl

from pairedframe.measures.polars_exprs import gain_expr, ordered_sum, per_query, quotient, with_row_columns
from pairedframe.measures._trec import parse_gain_pairs, printable_gains
from pairedframe.measures.base import Measure, PolarsContext, TrecForm, family

#: One query's DCG or ideal DCG with gains >= 0: a sum of gains, unbounded above.
NON_NEGATIVE = (0.0, math.inf)


def _gain_form(name: str, order: int) -> TrecForm:
    return TrecForm(name, "params", order, parse=parse_gain_pairs, printable=printable_gains)


@family(key="dcg", value_range=NON_NEGATIVE, trec=_gain_form("dcg", 210), sql_file="dcg.sql", cutoff="none",
        rel="none", uses_gain=True, empty_value="0",
        examples=("dcg.1=3,2=9", "dcg.0=-1,2=0.5", "dcg(gains={1:-2,3:1})"))
def dcg(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Discounted cumulative gain of the whole ranking, not normalised:
    ``DCG = sum_r gain(r) / log2(r + 1)`` over the ranking (trec_eval order), the numerator of
    trec_eval's ``ndcg``. Gains as nDCG (the grade, ``2**grade - 1`` or a gain map such as
    ``dcg.1=3,2=9``; negative gains count, unjudged documents and negative grades add 0); the
    relevance level is ignored. 0 when nothing with a non-zero gain is retrieved. Averaged over
    queries. Not in trec_eval's ``all_trec``. Source: trec_eval m_ndcg.c (``te_meas_dcg``).
    """
    ctx = with_row_columns(ctx, discounted=quotient(gain_expr(measure), pl.col("log2_rank1")))
    return per_query(ctx, pl.col("dcg"), dcg=ordered_sum(pl.col("discounted"), gain_expr(measure) != 0,
                                                         presorted=True))


@family(key="ideal_dcg", value_range=NON_NEGATIVE, trec=_gain_form("ideal_dcg", 220), sql_file="ideal_dcg.sql",
        cutoff="none", rel="none", uses_gain=True, empty_value="ideal DCG", ranking_based=False,
        run_independent=True, examples=("ideal_dcg.1=3,2=9", "ideal_dcg.0=2,1=0"))
def ideal_dcg(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """The ideal DCG of the query: the DCG of its judged documents' positive gains sorted
    descending (from the qrels, retrieved or not), the denominator of trec_eval's ``ndcg``.
    Gains as :func:`dcg`; 0 without a positive gain. It depends on the judgments only (not on the
    run, its depth or ``judged_only``), so comparisons leave it out. Averaged over queries. Not in
    trec_eval's ``all_trec``. Source: trec_eval m_ndcg.c (``te_meas_ideal_dcg``).
    """
    idcg = (ctx.ideal(measure.gain_key)
            .with_columns(quotient(pl.col("gain"), pl.col("log2_irank1")).alias("discounted"))
            .group_by("qid").agg(ordered_sum(pl.col("discounted"), order="irank", presorted=True).alias("idcg")))
    return (ctx.queries.select("system", "qid").join(idcg, on="qid", how="left")
            .select("system", "qid", pl.col("idcg").fill_null(0.0).alias("value")))
