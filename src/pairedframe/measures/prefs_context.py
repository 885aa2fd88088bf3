"""The preference measures' inputs on polars: docid ranks and per-judgment-group counts
(form_prefs_counts.c), the twin of ``sql/prep_pref_*.sql``.

Terms (form_prefs_counts.c): the judged documents of a query get *docid ranks* 0, 1, ...: first the
retrieved ones in ranking order (score descending, then docno ascending: this file's tie rule, not
form_res_rels.c's), then the others by docno. A preference ``a`` over ``b`` is *fulfilled* when ``a``
ranks first: both retrieved and ``a`` above (``ret``), or only ``a`` retrieved (``imp``, implied); it
fails when ``b`` ranks first, and neither-retrieved preferences (``notoccur``) fail too.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from pairedframe.io.prefs import Preferences
from pairedframe.measures.polars_exprs import quotient

KEYS = ["system", "qid"]
GROUP = ["qkey", "g"]  # integer keys: joins of 10^5..10^6 preferences on two strings would dominate
COUNTS = ("ful_ret", "unf_ret", "ful_imp", "unf_imp", "notoccur")
MEMBER_COUNTS = ("n_rel", "n_rel_ret", "n_nonrel", "n_nonrel_ret", "n_docs", "n_docs_ret")


@dataclass(frozen=True)
class PrefsContext:
    """Inputs of a preference family's polars implementation (lazy frames, one system's rows per
    evaluated (system, qid)).

    queries : qkey, system, qid -- the evaluated queries (``qkey`` an integer key of the pair).
    groups : qkey, system, qid, g, jg, ec, n_jgs, njr, the COUNTS and MEMBER_COUNTS -- one row per judgment
             group of each evaluated query: its preferences by kind (``ful_ret``: both retrieved,
             ``a`` first; ``unf_ret``: both retrieved, ``b`` first; ``ful_imp``: only ``a`` retrieved;
             ``unf_imp``: only ``b``; ``notoccur``: neither), its relevant / non-relevant / all
             documents and how many of them are retrieved; ``njr``: judged documents retrieved.
    pairs : qkey, g, da, db, njr -- docid ranks of each preference's documents (a preferred).
    members : qkey, g, did, rel, nonrel, low, njr -- each group's documents.
    """

    queries: pl.LazyFrame
    groups: pl.LazyFrame
    pairs: pl.LazyFrame
    members: pl.LazyFrame


def docid_ranks(ranks: pl.DataFrame, queries: pl.DataFrame, docs: pl.DataFrame, depth: int | None) -> pl.DataFrame:
    """qkey, doc, did, njr: docid ranks of the judged documents of each evaluated query (``queries``:
    qkey, system, qid). ``ranks`` holds ``system, qid, docno, rank`` with form_prefs_counts.c's tie rule."""
    cut = ranks if depth is None else ranks.filter(pl.col("rank") <= depth)
    judged = (queries.join(docs, on="qid")
              .join(cut.select(*KEYS, "docno", "rank"), on=[*KEYS, "docno"], how="left")
              .sort("qkey", pl.col("rank").is_null(), "rank", pl.col("docno").cast(pl.Binary)))
    return judged.select("qkey", "doc", pl.int_range(pl.len(), dtype=pl.Int64).over("qkey").alias("did"),
                         pl.col("rank").is_not_null().sum().over("qkey").cast(pl.Int64).alias("njr"))


def build_prefs_context(ranks: pl.DataFrame, queries: pl.DataFrame, prefs: Preferences,
                        depth: int | None) -> PrefsContext:
    """The :class:`PrefsContext` of a ranked run (``ranks``: form_prefs_counts.c's ranks, not cut at
    ``depth``) on the evaluated ``queries`` (system, qid)."""
    queries = queries.select(KEYS).with_row_index("qkey").with_columns(pl.col("qkey").cast(pl.Int64))
    dids = docid_ranks(ranks, queries, prefs.docs, depth)
    groups = queries.join(prefs.groups, on="qid")
    pairs = (prefs.pairs.join(groups.select(*GROUP), on="g")
             .join(dids.rename({"doc": "a", "did": "da"}), on=["qkey", "a"])
             .join(dids.select("qkey", pl.col("doc").alias("b"), pl.col("did").alias("db")), on=["qkey", "b"])
             .select(*GROUP, "da", "db", "njr"))
    members = (prefs.members.join(groups.select(*GROUP), on="g").join(dids, on=["qkey", "doc"])
               .select(*GROUP, "did", "rel", "nonrel", "low", "njr"))
    a_ret, b_ret = pl.col("da") < pl.col("njr"), pl.col("db") < pl.col("njr")
    first = pl.col("da") < pl.col("db")
    kinds = pairs.group_by(GROUP).agg(
        (a_ret & b_ret & first).sum().alias("ful_ret"), (a_ret & b_ret & ~first).sum().alias("unf_ret"),
        (a_ret & ~b_ret).sum().alias("ful_imp"), (~a_ret & b_ret).sum().alias("unf_imp"),
        (~a_ret & ~b_ret).sum().alias("notoccur"))
    ret = pl.col("did") < pl.col("njr")
    sizes = members.group_by(GROUP).agg(
        pl.col("rel").sum().alias("n_rel"), (pl.col("rel") & ret).sum().alias("n_rel_ret"),
        pl.col("nonrel").sum().alias("n_nonrel"), (pl.col("nonrel") & ret).sum().alias("n_nonrel_ret"),
        pl.len().alias("n_docs"), ret.sum().alias("n_docs_ret"))
    njr = dids.group_by("qkey").agg(pl.col("njr").first())
    table = (groups.join(njr, on="qkey", how="left").join(kinds, on=GROUP, how="left").join(sizes, on=GROUP, how="left")
             .with_columns([pl.col(c).fill_null(0).cast(pl.Int64) for c in ("njr", *COUNTS, *MEMBER_COUNTS)]))
    return PrefsContext(queries=queries.lazy(), groups=table.sort(GROUP).lazy(), pairs=pairs.lazy(),
                        members=members.lazy())


def jg_ratio_mean(groups: pl.LazyFrame, value: pl.Expr) -> pl.LazyFrame:
    """system, qid, value: each group's ``value`` added one by one in judgment-group order and
    divided by the number of groups (m_prefs_avgjg*.c); 0 when the sum is not > 0 (a NaN of C's
    0.0 / 0.0 included)."""
    total = (groups.with_columns(value.alias("_v")).sort("qkey", pl.col("jg").cast(pl.Binary))
             .group_by("qkey", maintain_order=True)
             .agg(*(pl.col(k).first() for k in KEYS), pl.col("_v").cum_sum().last().alias("_sum"), pl.col("n_jgs").first()))
    positive = (pl.col("_sum") > 0) & ~pl.col("_sum").is_nan()  # polars orders NaN above every number
    return total.select(*KEYS, pl.when(positive).then(quotient(pl.col("_sum"), pl.col("n_jgs"))).otherwise(0.0)
                        .alias("value"))


def per_query_counts(ctx: PrefsContext, value: pl.Expr, *columns: str) -> pl.LazyFrame:
    """system, qid, value: ``value`` of the sums of the groups' ``columns`` (integer counts) per query."""
    sums = ctx.groups.group_by("qkey").agg([pl.col(c).sum() for c in columns])
    return ctx.queries.join(sums, on="qkey", how="left").select(*KEYS, value.cast(pl.Float64).alias("value"))
