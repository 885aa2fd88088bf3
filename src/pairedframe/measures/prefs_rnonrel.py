"""prefs_avgjg_Rnonrel and prefs_avgjg_Rnonrel_ret (m_prefs_avgjg_Rnonrel*.c): prefs_avgjg with each
judgment group's non-relevant documents counted as if there were as many as relevant ones, R.

With N non-relevant documents and R >= N, each relevant document gains R - N fulfilled preferences
(retrieved ones) or possible ones; with R < N the group's preferences are counted again keeping only
R non-relevant documents, the first R by docid rank. trec_eval's recount has quirks this module
keeps: in a group of one sub-group (equivalence classes) the kept documents come from the lowest level
class only, which is also paired with them (itself included); in the _ret variant the extra
possible preferences use all relevant documents, retrieved or not; and in a group of several
sub-groups the _ret variant keeps as many retrieved non-relevant documents as the group has relevant
ones, retrieved or not. A group whose count is 0 / 0 makes the query's value 0 (C's NaN).
"""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import quotient
from pairedframe.measures.prefs_context import COUNTS, GROUP, PrefsContext, jg_ratio_mean
from pairedframe.measures.base import Measure, TrecForm, family

_FLAGS = ["ec", "_recalc", "_r", "n_rel", "n_docs", "n_docs_ret"]


def _recount(ctx: PrefsContext, groups: pl.LazyFrame, ret_only: bool) -> pl.LazyFrame:
    """GROUP, _ful, _poss of the groups whose preferences are counted again (R < N)."""
    flags = groups.filter(pl.col("_recalc")).select(*GROUP, *_FLAGS)
    members = ctx.members.join(flags, on=GROUP).sort(*GROUP, "did")
    pairs = ctx.pairs.join(flags, on=GROUP)
    a_ret, b_ret = pl.col("da") < pl.col("njr"), pl.col("db") < pl.col("njr")
    if ret_only:
        pairs = pairs.filter(a_ret & b_ret)
    fulfilled = a_ret & ((pl.col("da") < pl.col("db")) | ~b_ret)
    # one sub-group: preferences above the lowest class, plus every member against the kept documents
    ec = members.filter(pl.col("ec")).with_columns(pl.int_range(pl.len(), dtype=pl.Int64).over(GROUP).alias("pos"))
    low = ec.filter(pl.col("low")).with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(GROUP).alias("k"))
    kept = low.filter((pl.col("k") <= pl.col("_r")) & ((pl.col("did") < pl.col("njr")) if ret_only else pl.lit(True)))
    against = kept.group_by(GROUP).agg(pl.len().alias("_n_kept"),
                                       pl.min_horizontal("pos", "n_docs_ret").sum().alias("_ful2"),
                                       pl.col("n_docs_ret" if ret_only else "n_docs").first().alias("_size"))
    lowest = low.select(*GROUP, pl.col("did").alias("db"), pl.lit(True).alias("_b_low"))
    above = (pairs.filter(pl.col("ec")).join(lowest, on=[*GROUP, "db"], how="left").filter(pl.col("_b_low").is_null())
             .group_by(GROUP).agg(pl.len().alias("_poss1"), fulfilled.sum().alias("_ful1")))
    ec_counts = (flags.filter(pl.col("ec")).join(above, on=GROUP, how="left").join(against, on=GROUP, how="left")
                 .fill_null(0).select(*GROUP, (pl.col("_ful1") + pl.col("_ful2")).alias("_ful"),
                                      (pl.col("_poss1") + pl.col("_size") * pl.col("_n_kept")).alias("_poss")))
    # several sub-groups: non-relevant documents after the group's n_rel-th (by docid rank) are left out
    nonrel = members.filter(~pl.col("ec") & pl.col("nonrel") & ((pl.col("did") < pl.col("njr")) if ret_only else True))
    out = (nonrel.with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over(GROUP).alias("k"))
           .filter(pl.col("k") > pl.col("n_rel")).select(*GROUP, "did", pl.lit(True).alias("_out")))
    pa = (pairs.filter(~pl.col("ec"))
          .join(out.rename({"did": "da", "_out": "_out_a"}), on=[*GROUP, "da"], how="left")
          .join(out.rename({"did": "db", "_out": "_out_b"}), on=[*GROUP, "db"], how="left")
          .filter(pl.col("_out_a").is_null() & pl.col("_out_b").is_null())
          .group_by(GROUP).agg(pl.len().alias("_poss"), fulfilled.sum().alias("_ful")))
    pa_counts = flags.filter(~pl.col("ec")).join(pa, on=GROUP, how="left").fill_null(0).select(*GROUP, "_ful", "_poss")
    counts = [pl.col("_ful").cast(pl.Int64), pl.col("_poss").cast(pl.Int64)]
    return pl.concat([ec_counts.select(*GROUP, *counts), pa_counts.select(*GROUP, *counts)])


def _rnonrel(ctx: PrefsContext, ret_only: bool) -> pl.LazyFrame:
    big_r, big_n = (pl.col("n_rel_ret"), pl.col("n_nonrel_ret")) if ret_only else (pl.col("n_rel"), pl.col("n_nonrel"))
    groups = ctx.groups.with_columns(big_r.alias("_r"), (big_r < big_n).alias("_recalc"), (big_r - big_n).alias("_extra"))
    ful = pl.col("ful_ret") + (0 if ret_only else pl.col("ful_imp")) + pl.col("n_rel_ret") * pl.col("_extra")
    poss = (pl.col("ful_ret") + pl.col("unf_ret") if ret_only else pl.sum_horizontal([pl.col(c) for c in COUNTS])) \
        + pl.col("n_rel") * pl.col("_extra")
    recount = _recount(ctx, groups, ret_only)
    table = (groups.join(recount, on=GROUP, how="left")
             .with_columns(pl.when(pl.col("_recalc")).then(pl.col("_ful")).otherwise(ful).alias("_ful"),
                           pl.when(pl.col("_recalc")).then(pl.col("_poss")).otherwise(poss).alias("_poss")))
    return jg_ratio_mean(table, quotient(pl.col("_ful"), pl.col("_poss")))  # 0 / 0 is NaN: the query gets 0


def _prefs(key: str, order: int):
    return family(key=key, trec=TrecForm(key, "single", order), sql_file=f"{key}.sql", cutoff="none", rel="none",
                  empty_value="0", judgments="prefs", trec_named=True, ranking_based=False)


@_prefs("prefs_avgjg_Rnonrel", 420)
def avgjg_rnonrel(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """prefs_avgjg with R non-relevant documents per judgment group (R: its relevant documents), as
    the module docstring says; akin to bpref for one group of two classes. Range [0, 1].
    Source: trec_eval m_prefs_avgjg_Rnonrel.c."""
    return _rnonrel(ctx, ret_only=False)


@_prefs("prefs_avgjg_Rnonrel_ret", 460)
def avgjg_rnonrel_ret(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """prefs_avgjg_Rnonrel over retrieved documents: R and N count retrieved relevant and non-relevant
    documents, and only preferences between retrieved documents count. Range [0, 1].
    Source: trec_eval m_prefs_avgjg_Rnonrel_ret.c."""
    return _rnonrel(ctx, ret_only=True)
