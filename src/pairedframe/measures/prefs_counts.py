"""Preference measures from the counts of each judgment group (trec_eval ``-R prefs`` / ``qrels_prefs``):
prefs_num_prefs_*, prefs_simp*, prefs_avgjg (m_prefs_*.c). See :mod:`pairedframe.measures.prefs_context` for
the terms (fulfilled, retrieved, implied). They read the preference judgments, not qrels grades, so
neither the relevance level nor ``judged_only`` applies.
"""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import ratio
from pairedframe.measures.prefs_context import COUNTS, PrefsContext, jg_ratio_mean, per_query_counts
from pairedframe.measures.base import Measure, TrecForm, family

FUL, FUL_RET = pl.col("ful_ret") + pl.col("ful_imp"), pl.col("ful_ret")
POSS = pl.sum_horizontal([pl.col(c) for c in COUNTS])
POSS_RET = pl.col("ful_ret") + pl.col("unf_ret")
POSS_IMP = POSS_RET + pl.col("ful_imp") + pl.col("unf_imp")


def _prefs(key: str, order: int, aggregate: str = "mean", run_independent: bool = False):
    return family(key=key, trec=TrecForm(key, "single", order), sql_file=f"{key}.sql", cutoff="none", rel="none",
                  aggregate=aggregate, empty_value="0", judgments="prefs", trec_named=True, ranking_based=False,
                  run_independent=run_independent)


@_prefs("prefs_num_prefs_poss", 360, "sum", run_independent=True)
def num_prefs_poss(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """Number of preferences the judgments express for the query (over all judgment groups, retrieved
    or not); summed over queries. Source: trec_eval m_prefs_num_prefs_poss.c."""
    return per_query_counts(ctx, POSS, *COUNTS)


@_prefs("prefs_num_prefs_ful", 370, "sum")
def num_prefs_ful(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """Number of preferences fulfilled (the preferred document ranked above the other, or retrieved
    when the other is not); summed over queries. Source: trec_eval m_prefs_num_prefs_ful.c."""
    return per_query_counts(ctx, FUL, "ful_ret", "ful_imp")


@_prefs("prefs_num_prefs_ful_ret", 380, "sum")
def num_prefs_ful_ret(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """Number of preferences between two retrieved documents that are fulfilled; summed over queries.
    Source: trec_eval m_prefs_num_prefs_ful_ret.c."""
    return per_query_counts(ctx, FUL_RET, "ful_ret")


@_prefs("prefs_simp", 390)
def simp(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """Preferences fulfilled / preferences expressed, over all judgment groups (a preference between
    two unretrieved documents fails); 0 without preferences. Range [0, 1].
    Source: trec_eval m_prefs_simp.c."""
    return per_query_counts(ctx, ratio(FUL, POSS), *COUNTS)


@_prefs("prefs_simp_ret", 430)
def simp_ret(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """prefs_simp over the preferences between two retrieved documents only; 0 without such
    preferences. Range [0, 1]. Source: trec_eval m_prefs_simp_ret.c."""
    return per_query_counts(ctx, ratio(FUL_RET, POSS_RET), "ful_ret", "unf_ret")


@_prefs("prefs_simp_imp", 470)
def simp_imp(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """prefs_simp over the preferences with at least one document retrieved; 0 without such
    preferences. Range [0, 1]. Source: trec_eval m_prefs_simp_imp.c."""
    return per_query_counts(ctx, ratio(FUL, POSS_IMP), *COUNTS)


@_prefs("prefs_avgjg", 410)
def avgjg(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """Mean over the query's judgment groups of fulfilled / expressed preferences (each judge counts
    the same, however many preferences it expressed); a group without preferences adds 0. Range
    [0, 1]. Source: trec_eval m_prefs_avgjg.c."""
    return jg_ratio_mean(ctx.groups, ratio(FUL, POSS))


@_prefs("prefs_avgjg_ret", 450)
def avgjg_ret(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """prefs_avgjg over the preferences between two retrieved documents. Range [0, 1].
    Source: trec_eval m_prefs_avgjg_ret.c."""
    return jg_ratio_mean(ctx.groups, ratio(FUL_RET, POSS_RET))


@_prefs("prefs_avgjg_imp", 490)
def avgjg_imp(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """prefs_avgjg over the preferences with at least one document retrieved. Range [0, 1].
    Source: trec_eval m_prefs_avgjg_imp.c."""
    return jg_ratio_mean(ctx.groups, ratio(FUL, POSS_IMP))
