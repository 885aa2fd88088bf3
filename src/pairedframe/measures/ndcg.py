"""nDCG and nDCG@k (trec_eval ``ndcg``, ``ndcg_cut_k``; m_ndcg.c, m_ndcg_cut.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import (gain_expr, ordered_sum, per_query, quotient, ratio, with_row_columns,
                                          within_cutoff)
from pairedframe.measures._trec import TREC_CUTOFFS, parse_gain_pairs, printable_gains
from pairedframe.measures.base import UNIT, Measure, PolarsContext, TrecForm, family

__all__ = ["TREC_CUTOFFS", "ndcg"]


@family(key="nDCG", value_range=UNIT, aliases=("ndcg",),
        trec=(TrecForm("ndcg", "params", 230, parse=parse_gain_pairs, printable=printable_gains),
              TrecForm("ndcg_cut", "long_cutoffs", 260, TREC_CUTOFFS)),
        sql_file="ndcg.sql", cutoff="optional", rel="none", uses_gain=True, empty_value="0",
        examples=("nDCG(gains={1:3,2:9,4:4.5})", "nDCG(gains={0:1,2:0.5})@3", "nDCG(judged_only=True)@3",
                  "ndcg.1=3,2=9,4=4.5"))
def ndcg(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Normalised discounted cumulative gain (Järvelin & Kekäläinen, ACM TOIS 2002), as trec_eval.

    ``DCG@k = sum_{r <= k} gain(r) / log2(r + 1)`` over the ranking (trec_eval order: score desc,
    docno desc); ``nDCG@k = DCG@k / IDCG@k`` where the ideal ranking sorts the gains of *all* judged
    documents of the query (from the qrels, not only the retrieved ones). Without a cutoff the
    whole ranking and the whole ideal list are used (trec_eval ``ndcg``).

    Gain: the grade (trec_eval's default), ``2**grade - 1`` (ir_measures ``dcg='exp-log2'``,
    Burges et al. 2005), or trec_eval's gain map (``ndcg.1=3,2=9``, ir_measures
    ``gains={1: 3, 2: 9}``: listed grades get these gains, the others their grade). Unjudged
    documents and negative grades have gain 0; only positive gains enter the ideal ranking. The
    relevance level is ignored, as trec_eval ignores it for nDCG. Value 0 when the ideal DCG is 0
    or nothing was retrieved. Source: trec_eval m_ndcg.c, m_ndcg_cut.c, gain_init.c.
    """
    ctx = with_row_columns(ctx, discounted=quotient(gain_expr(measure), pl.col("log2_rank1")))
    ideal = ctx.ideal(measure.gain_key)
    if measure.cutoff is not None:
        ideal = ideal.filter(pl.col("irank") <= measure.cutoff)
    idcg = (ideal.with_columns(quotient(pl.col("gain"), pl.col("log2_irank1")).alias("discounted"))
            .group_by("qid").agg(ordered_sum(pl.col("discounted"), order="irank", presorted=True).alias("idcg")))
    dcg = per_query(ctx, pl.col("dcg"), dcg=ordered_sum(pl.col("discounted"),
                                                        within_cutoff(measure) & (gain_expr(measure) != 0),
                                                        presorted=True))
    return (dcg.join(idcg, on="qid", how="left")
            .select("system", "qid", ratio(pl.col("value"), pl.col("idcg").fill_null(0.0)).alias("value")))
