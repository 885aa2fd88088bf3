"""Counts: num_q, num_ret, num_rel, num_rel_ret (trec_eval m_num_*.c). They aggregate as sums."""

from __future__ import annotations

import polars as pl

from pairedframe.measures._polars import per_query
from pairedframe.measures.base import Measure, PolarsContext, family


@family(key="NumQ", aliases=("num_q",), trec_name="num_q", sql_file="num_q.sql", cutoff="none",
        aggregate="sum", uses_rel=False, trec_order=0, empty_value="1")
def num_q(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Number of evaluated queries: 1 per query, summed over queries. Source: trec_eval m_num_q.c."""
    return per_query(ctx, pl.lit(1.0))


@family(key="NumRet", aliases=("num_ret",), trec_name="num_ret", sql_file="num_ret.sql", cutoff="none",
        aggregate="sum", uses_rel=False, trec_order=10, empty_value="0")
def num_ret(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Number of retrieved documents (after the depth cut), summed over queries. Source: m_num_ret.c."""
    return per_query(ctx, pl.col("num_ret"))


@family(key="NumRel", aliases=("num_rel",), trec_name="num_rel", sql_file="num_rel.sql", cutoff="none",
        aggregate="sum", trec_order=20, empty_value="num_rel")
def num_rel(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Number of relevant documents (grade >= rel) in the qrels, retrieved or not; a query that
    retrieved nothing keeps its count. Summed over queries. Source: trec_eval m_num_rel.c.
    """
    return per_query(ctx, pl.col("num_rel"))


@family(key="NumRelRet", aliases=("num_rel_ret",), trec_name="num_rel_ret", sql_file="num_rel_ret.sql",
        cutoff="none", aggregate="sum", trec_order=30, empty_value="0")
def num_rel_ret(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Number of relevant documents retrieved, summed over queries. Source: trec_eval m_num_rel_ret.c."""
    return per_query(ctx, pl.col("n"), n=pl.col("is_rel").sum())
