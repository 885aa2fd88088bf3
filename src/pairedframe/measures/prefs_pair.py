"""prefs_pair, prefs_pair_ret, prefs_pair_imp (m_prefs_pair*.c): per pair of documents, the share of
the judgment groups preferring one of them that are fulfilled, averaged over the pairs. With one
judgment group they equal prefs_simp, prefs_simp_ret and prefs_simp_imp."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import quotient
from pairedframe.measures.prefs_context import KEYS, PrefsContext
from pairedframe.measures.base import Measure, TrecForm, family


def _pairs(ctx: PrefsContext, keep: str) -> pl.LazyFrame:
    """system, qid, value: the mean over the unordered document pairs of a query that some judgment
    group orders (``keep``: ``"all"``, ``"imp"`` with a retrieved document, ``"ret"`` both retrieved)
    of fulfilled / ordering groups, added in trec_eval's order (pairs of two retrieved documents
    first, by docid ranks, then the others)."""
    lo, hi = pl.min_horizontal("da", "db"), pl.max_horizontal("da", "db")
    fulfilled = (pl.col("da") < pl.col("njr")) & ((pl.col("da") < pl.col("db")) | (pl.col("db") >= pl.col("njr")))
    per_pair = (ctx.pairs.with_columns(lo.alias("i"), hi.alias("j"), fulfilled.alias("_ful"))
                .group_by("qkey", "i", "j").agg(pl.len().alias("tot"), pl.col("_ful").sum().alias("ful"),
                                                pl.col("njr").first()))
    if keep == "ret":
        per_pair = per_pair.filter(pl.col("j") < pl.col("njr"))
    elif keep == "imp":
        per_pair = per_pair.filter(pl.col("i") < pl.col("njr"))
    per_pair = per_pair.with_columns(quotient(pl.col("ful"), pl.col("tot")).alias("_r"),
                                     (pl.col("j") >= pl.col("njr")).alias("_block"))
    summed = (per_pair.sort("qkey", "_block", "i", "j").group_by("qkey", maintain_order=True)
              .agg(pl.col("_r").cum_sum().last().alias("_sum"), pl.len().alias("_n")))
    table = ctx.queries.join(summed, on="qkey", how="left")
    return table.select(*KEYS, pl.when(pl.col("_n") > 0).then(quotient(pl.col("_sum"), pl.col("_n")))
                        .otherwise(0.0).alias("value"))


def _prefs(key: str, order: int):
    return family(key=key, trec=TrecForm(key, "single", order), sql_file=f"{key}.sql", cutoff="none", rel="none",
                  empty_value="0", judgments="prefs", trec_named=True, ranking_based=False)


@_prefs("prefs_pair", 400)
def pair(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """Mean over the document pairs that a judgment group orders of fulfilled groups / ordering
    groups (a pair of two unretrieved documents scores 0); 0 without pairs. Range [0, 1].
    Source: trec_eval m_prefs_pair.c."""
    return _pairs(ctx, "all")


@_prefs("prefs_pair_ret", 440)
def pair_ret(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """prefs_pair over the pairs of two retrieved documents. Range [0, 1].
    Source: trec_eval m_prefs_pair_ret.c."""
    return _pairs(ctx, "ret")


@_prefs("prefs_pair_imp", 480)
def pair_imp(ctx: PrefsContext, measure: Measure) -> pl.LazyFrame:
    """prefs_pair over the pairs with at least one retrieved document. Range [0, 1].
    Source: trec_eval m_prefs_pair_imp.c."""
    return _pairs(ctx, "imp")
