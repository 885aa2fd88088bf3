"""How much of the ranking is judged: trec_eval's ``unj_k`` (m_unjudged.c: a negative grade is
unjudged) and ir_measures' ``Judged@k`` (judged_provider: any qrels line is judged)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import divide, per_query, quotient, within_cutoff
from pairedframe.measures.base import UNIT, Measure, PolarsContext, TrecForm, family


@family(key="Unjudged", value_range=UNIT, aliases=("unj",), trec=TrecForm("unj", "long_cutoffs", 560, (5, 10, 20)),
        sql_file="unjudged.sql", cutoff="required", rel="none", empty_value="0", complete_reset="all",
        ranks_runs=False)
def unjudged(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Unjudged at k: documents in the top k without a grade >= 0 (not in the qrels, or a negative
    grade), divided by k; missing ranks beyond the ranking count as judged (so a ranking of 15
    documents with 4 unjudged has Unjudged@20 = 0.2). A red flag: high values at small k mean the
    judgments do not cover the run. Range [0, 1]. Source: trec_eval 10 m_unjudged.c.
    """
    top = pl.min_horizontal(pl.col("num_ret"), pl.lit(measure.cutoff))
    return per_query(ctx, divide(top - pl.col("judged"), measure.cutoff),
                     judged=pl.col("is_judged").filter(within_cutoff(measure)).sum())


@family(key="Judged", value_range=UNIT,
        trec=(), sql_file="judged.sql", cutoff="optional",
        rel="none", empty_value="0", ranks_runs=False)
def judged(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Judged@k (ir_measures): the share of the top k documents that have a qrels line, whatever its
    grade (a negative grade counts as judged, as in ir_measures), divided by min(k, retrieved);
    without k, of the whole ranking. The first check when judgments come from an LLM or a shallow
    pool. 0 for an empty ranking. trec_eval's ``unj`` (:func:`unjudged`, ``Unjudged@k``) counts a
    negative grade as unjudged instead, so Judged@k and 1 - Unjudged@k differ on such qrels.
    Source: ir_measures judged_provider.py.
    """
    top = pl.col("num_ret") if measure.cutoff is None else pl.min_horizontal(pl.col("num_ret"), pl.lit(measure.cutoff))
    value = pl.when(top > 0).then(quotient(pl.col("judged"), top)).otherwise(0.0)
    # every row of ranked is a retrieved document with a qrels line (any grade)
    return per_query(ctx, value, judged=pl.col("rank").filter(within_cutoff(measure)).count())
