"""nDCG and nDCG@k (trec_eval ``ndcg``, ``ndcg_cut_k``; m_ndcg.c, m_ndcg_cut.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures._polars import gain_expr, ordered_sum, per_query, ratio, within_cutoff
from pairedframe.measures.base import Measure, PolarsContext, family

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@family(key="nDCG", aliases=("ndcg",), trec_name="ndcg", trec_cut_name="ndcg_cut", sql_file="ndcg.sql",
        cutoff="optional", uses_rel=False, uses_gain=True, trec_order=100,
        empty_value="0", default_cutoffs=TREC_CUTOFFS, trec_cut_order=110)
def ndcg(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Normalised discounted cumulative gain (Järvelin & Kekäläinen, ACM TOIS 2002), as trec_eval.

    ``DCG@k = sum_{r <= k} gain(r) / log2(r + 1)`` over the ranking (trec_eval order: score desc,
    docno desc); ``nDCG@k = DCG@k / IDCG@k`` where the ideal ranking sorts the gains of *all* judged
    documents of the query (from the qrels, not only the retrieved ones). Without a cutoff the
    whole ranking and the whole ideal list are used (trec_eval ``ndcg``).

    Gain: the grade (trec_eval's default, ``gain=linear``) or ``2**grade - 1`` (``gain=exp``,
    Burges et al. 2005). Grades <= 0 and unjudged documents have gain 0. The relevance level is
    ignored, as trec_eval ignores it for nDCG. Range [0, 1]. Value 0 when the query has no
    positive grade or retrieved nothing. Source: trec_eval m_ndcg.c, m_ndcg_cut.c.
    """
    discounted = gain_expr(measure) / pl.col("log2_rank1")
    ideal = ctx.ideal
    if measure.cutoff is not None:
        ideal = ideal.filter(pl.col("irank") <= measure.cutoff)
    idcg = ideal.group_by("qid").agg(
        ordered_sum(gain_expr(measure) / pl.col("log2_irank1"), order="irank").alias("idcg"))
    dcg = per_query(ctx, pl.col("dcg"), dcg=ordered_sum(discounted, within_cutoff(measure)))
    return (dcg.join(idcg, on="qid", how="left")
            .select("system", "qid", ratio(pl.col("value"), pl.col("idcg").fill_null(0.0)).alias("value")))
