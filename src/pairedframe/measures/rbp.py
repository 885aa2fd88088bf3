"""Rank-biased precision and its residual (trec_eval 10 ``rbp``, ``rbp_resid``; m_rbp.c,
m_rbp_resid.c; Moffat & Zobel, ACM TOIS 2008)."""

from __future__ import annotations

import numpy as np
import polars as pl

from pairedframe.measures.polars_exprs import KEYS, gain_expr, ordered_sum, quotient
from pairedframe.measures._trec import gains_from_pairs, number_text, pairs
from pairedframe.measures.base import UNIT, Interval, Measure, Param, PolarsContext, TrecForm, family
from pairedframe.measures.gains import discounts, rbp_bounds

TREC_P = 0.9  # trec_eval's default persistence; ir_measures' is 0.8
# p = 1 zeroes RBP (its 1 - p factor) and p outside [0, 1] makes it diverge: trec_eval takes any p.
PERSISTENCE = Param("p", "float", 0.8, "persistence", Interval(0.0, 1.0, open_low=True, open_high=True))
#: RBPResid walks every retrieved rank; this many ranks (of whole queries) at a time bounds its memory.
RANKS_PER_BATCH = 1 << 22


def _parse(text: str) -> dict:
    items = pairs(text)
    p = [value for name, value in items if name == "p"]
    return {"params": {"p": p[-1] if p else TREC_P}, "gains": gains_from_pairs(items) or None}


def _parse_resid(text: str) -> dict:
    return {"params": _parse(text)["params"]}


def _printable(measure: Measure) -> str:
    p = measure.param("p")
    parts = ([] if p == TREC_P else [f"p={number_text(p)}"]) + (
        [f"{level}={number_text(gain)}" for level, gain in measure.gains] if measure.gains else [])
    return ",".join(parts)


def _discount(p: float, exponents: pl.Expr) -> pl.Expr:
    """``p**e`` for integer exponents e >= 0 by repeated products (:func:`~pairedframe.measures.gains.discounts`)."""
    def apply(s: pl.Series) -> pl.Series:
        e = s.cast(pl.Int64).to_numpy()
        return pl.Series(discounts(p, int(e.max(initial=0)))[e], dtype=pl.Float64)
    return exponents.map_batches(apply, return_dtype=pl.Float64)


def _graded(ctx: PolarsContext, measure: Measure) -> tuple[pl.LazyFrame, pl.Expr]:
    """The ranked rows with trec_eval's rbp gains: graded gains rescaled to [0, 1] by
    (g - lo) / (hi - lo) when some gain level of the query lies outside [0, 1]."""
    tops = ctx.ranked.select(pl.col("max_grade").unique()).collect()["max_grade"]
    ranked = ctx.ranked.join(rbp_bounds(measure.gain_key, tops).lazy(), on="max_grade", how="left")
    g, lo, hi = gain_expr(measure), pl.col("lo"), pl.col("hi")
    outside = (lo < 0) | (hi > 1)
    rescaled = pl.when(outside & (hi == lo)).then(0.0).when(outside).then(quotient(g - lo, hi - lo)).otherwise(g)
    return ranked, pl.when(pl.col("rel") >= 0).then(rescaled).otherwise(0.0)  # unjudged: gain 0, not rescaled


@family(key="RBP", value_range=UNIT, trec=TrecForm("rbp", "params", 540, parse=_parse, printable=_printable,
                                         bare={"params": {"p": TREC_P}}), sql_file="rbp.sql",
        cutoff="optional", rel="optional", uses_gain=True, params=(PERSISTENCE,),
        empty_value="0", examples=("RBP(p=0.9)", "RBP(p=0.5,rel=2)@5", "rbp.p=0.95,1=2", "RBP(gains={0:-1})"))
def rbp(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Rank-biased precision ``(1 - p) * sum_r gain(r) * p**(r - 1)`` (Moffat & Zobel, 2008): the
    expected gain per document of a user who goes on to the next document with probability p.

    ``RBP(p=0.8)`` is ir_measures' default; trec_eval's ``rbp`` is ``RBP(p=0.9)``. Gains: with
    ``rel=k``, 1 for grade >= k and 0 otherwise (ir_measures); without, trec_eval 10's graded
    gains (the grade, or a ``gains=`` map), rescaled per query to [0, 1] by ``(g - lo)/(hi - lo)``
    when a gain level of the query lies outside [0, 1] (lo, hi over the gains of grades
    0..the query's largest grade and the map's own entries; 0 when there is one level only,
    where trec_eval divides 0 by 0). ``@k`` stops at rank k. Unjudged
    documents have gain 0; see ``RBPResid`` for the uncertainty they leave. Range [0, 1].
    ``p**(r - 1)`` is a repeated product, as trec_eval's loop computes it (C's pow differs in the
    last bit for some r). Source: trec_eval 10 m_rbp.c.
    """
    p = float(measure.param("p"))
    if measure.rel is None:
        ranked, gain = _graded(ctx, measure)
    else:
        ranked, gain = ctx.ranked, pl.col("is_rel").cast(pl.Float64)
    ranked = ranked.with_columns(gain.alias("g"), _discount(p, pl.col("rank") - 1).alias("discount"))
    within = pl.col("g") != 0
    if measure.cutoff is not None:
        within = within & (pl.col("rank") <= measure.cutoff)
    agg = ranked.group_by(KEYS).agg(ordered_sum(pl.col("g") * pl.col("discount"), within).alias("total"))
    return (ctx.queries.select(KEYS).join(agg, on=KEYS, how="left")
            .select(*KEYS, (pl.lit(1.0 - p) * pl.col("total").fill_null(0.0)).alias("value")))


@family(key="RBPResid", value_range=UNIT, aliases=("rbp_resid",),
        trec=TrecForm("rbp_resid", "params", 550, parse=_parse_resid, printable=_printable,
                      bare={"params": {"p": TREC_P}}),
        sql_file="rbp_resid.sql", cutoff="none", rel="none", params=(PERSISTENCE,), complete_reset="bare",
        empty_value="0", ranks_runs=False, examples=("RBPResid(p=0.9)", "rbp_resid.p=0.5"))
def rbp_resid(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """The residual of RBP: how much RBP could still rise if every unjudged retrieved document (not
    in the qrels or a negative grade) and every document beyond the ranking had the largest gain,
    ``p**n + (1 - p) * sum over unjudged ranks r of p**(r - 1)`` (n retrieved); 0 when every
    retrieved document is judged, as trec_eval 10 gives. ``RBPResid(p=0.9)`` is trec_eval's
    ``rbp_resid``. As trec_eval computes it: ``p**k`` by repeated products, the sum added one
    rank at a time in rank order (bit for bit trec_eval's value).
    Source: trec_eval 10 m_rbp_resid.c.
    """
    p = float(measure.param("p"))
    queries = ctx.queries.select(*KEYS, "num_ret").collect().with_row_index("i")
    judged = (ctx.ranked.filter(pl.col("is_judged")).select(*KEYS, "rank")
              .join(queries.lazy().select(*KEYS, "i"), on=KEYS).select("i", "rank").sort("i", "rank").collect())
    n = queries["num_ret"].to_numpy().astype(np.int64)
    where, rank = judged["i"].to_numpy().astype(np.int64), judged["rank"].to_numpy().astype(np.int64)
    table = discounts(p, int(n.max(initial=0)))
    mass = _unjudged_mass(table, n, where, rank)
    n_judged = np.bincount(where, minlength=len(n))
    value = np.where(n > n_judged, table[n] + (1.0 - p) * mass, 0.0)
    return queries.select(*KEYS).with_columns(pl.Series("value", value, dtype=pl.Float64)).lazy()


def _unjudged_mass(table: np.ndarray, n: np.ndarray, where: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """For each query i (n[i] ranks), the sum of table[r - 1] over its ranks r with no judged row
    (``where`` == i, ``rank`` == r; sorted by where), added one by one in rank order as trec_eval's
    loop adds (a float sum depends on the order; numpy's sums are pairwise). Every rank is walked,
    a judged one adding 0.0 (which leaves a sum unchanged), in batches of about RANKS_PER_BATCH."""
    mass = np.zeros(len(n))
    ends = np.cumsum(n)
    lo = 0
    while lo < len(n):
        start = ends[lo] - n[lo]
        hi = max(int(np.searchsorted(ends, start + RANKS_PER_BATCH, side="right")), lo + 1)
        counts = n[lo:hi]
        offsets = np.cumsum(counts) - counts
        values = table[np.arange(int(counts.sum())) - np.repeat(offsets, counts)]
        first, last = np.searchsorted(where, [lo, hi])
        values[offsets[where[first:last] - lo] + rank[first:last] - 1] = 0.0
        sums = (pl.DataFrame({"i": np.repeat(np.arange(lo, hi), counts), "v": values})
                .group_by("i", maintain_order=True).agg(pl.col("v").cum_sum().last()))
        mass[sums["i"].to_numpy()] = sums["v"].to_numpy()
        lo = hi
    return mass
