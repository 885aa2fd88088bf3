"""Counts: num_q, num_ret, num_rel, num_rel_ret (trec_eval m_num_*.c). They aggregate as sums."""

from __future__ import annotations

import math

import polars as pl

from pairedframe.measures.polars_exprs import per_query
from pairedframe.measures.base import Measure, PolarsContext, TrecForm, family


@family(key="NumQ", value_range=(0.0, math.inf),
        aliases=("num_q",), trec=TrecForm("num_q", "single", 10), sql_file="num_q.sql",
        cutoff="none", aggregate="sum", rel="none", empty_value="1", per_query_printed=False,
        judgments="any", ranking_based=False, run_independent=True)
def num_q(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Number of evaluated queries: 1 per query, summed over queries; printed only in the summary, as
    trec_eval does. Source: trec_eval m_num_q.c."""
    return per_query(ctx, pl.lit(1.0))


@family(key="NumRet", value_range=(0.0, math.inf),
        aliases=("num_ret",), trec=TrecForm("num_ret", "single", 20), sql_file="num_ret.sql",
        cutoff="none", aggregate="sum", rel="none", empty_value="0", ranks_runs=False, complete_reset="all")
def num_ret(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Number of retrieved documents (after the depth cut), summed over queries. Source: m_num_ret.c."""
    return per_query(ctx, pl.col("num_ret"))


@family(key="NumRel", value_range=(0.0, math.inf),
        aliases=("num_rel",), trec=TrecForm("num_rel", "single", 30), sql_file="num_rel.sql",
        cutoff="none", aggregate="sum", empty_value="num_rel", ranking_based=False, run_independent=True)
def num_rel(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Number of relevant documents (grade >= rel) in the qrels, retrieved or not; a query that
    retrieved nothing keeps its count. Summed over queries. Source: trec_eval m_num_rel.c.
    """
    return per_query(ctx, pl.col("num_rel"))


@family(key="NumRelRet", value_range=(0.0, math.inf),
        aliases=("num_rel_ret",), trec=TrecForm("num_rel_ret", "single", 40),
        sql_file="num_rel_ret.sql", cutoff="none", aggregate="sum", empty_value="0")
def num_rel_ret(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Number of relevant documents retrieved, summed over queries. Source: trec_eval m_num_rel_ret.c."""
    return per_query(ctx, pl.col("n"), n=pl.col("is_rel").sum())


@family(key="NumNonRelJudgedRet", value_range=(0.0, math.inf), aliases=("num_nonrel_judged_ret",),
        trec=TrecForm("num_nonrel_judged_ret", "single", 350), sql_file="num_nonrel_judged_ret.sql",
        cutoff="none", aggregate="sum", empty_value="0", ranks_runs=False)
def num_nonrel_judged_ret(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Number of judged non-relevant documents retrieved (0 <= grade < rel), summed over queries.
    Source: trec_eval m_num_nonrel_judged_ret.c.
    """
    return per_query(ctx, pl.col("n"), n=pl.col("is_judged_nonrel").sum())
