"""Small helpers shared by the families' polars implementations.

Bit-identity with the SQL engine: sums that trec_eval accumulates in a loop are added one value at
a time in rank order (:func:`ordered_sum`, the twin of ``pf_seqsum``); logarithms and powers come
from C's libm (:func:`c_log2`, :func:`c_pow`), as DuckDB and trec_eval call them; divisions are done
by numpy (:func:`divide`, :func:`quotient`): polars divides by a constant, and (polars >= 2) by any
chunk it stores as one repeated value, as ``x * (1 / v)``, which is 1 ulp off for some x (3 / log2(3)).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import polars as pl

from pairedframe.measures.ideal import log2_of_ranks
from pairedframe.measures.base import Measure, PolarsContext

KEYS = ["system", "qid"]

def c_log2(values: pl.Expr) -> pl.Expr:
    """log2 of a float column through C's log2 (integers from the cached table, others one by one)."""
    def apply(s: pl.Series) -> pl.Series:
        x = s.cast(pl.Float64).to_numpy()
        out = np.empty_like(x)
        whole = (x >= 1) & (x == np.floor(x)) & (x < 1e7)
        out[whole] = log2_of_ranks(x[whole].astype(np.int64))
        out[~whole] = [math.log2(v) if v > 0 else (-math.inf if v == 0 else math.nan) for v in x[~whole]]
        return pl.Series(out)
    return values.map_batches(apply, return_dtype=pl.Float64)


def c_log(values: pl.Expr) -> pl.Expr:
    """Natural logarithm of a float column through C's log (``math.log``), as DuckDB and trec_eval
    call it, one value at a time (polars' and numpy's own logarithms may differ in the last bit)."""
    def apply(s: pl.Series) -> pl.Series:
        x = s.cast(pl.Float64).to_numpy()
        return pl.Series([math.log(v) if v > 0 else (-math.inf if v == 0 else math.nan) for v in x],
                         dtype=pl.Float64)
    return values.map_batches(apply, return_dtype=pl.Float64)


def c_pow(base: float, exponents: pl.Expr) -> pl.Expr:
    """``base ** e`` for integer exponents e >= 0 through C's pow (one call per distinct exponent)."""
    def apply(s: pl.Series) -> pl.Series:
        e = s.cast(pl.Int64).to_numpy()
        table = np.array([math.pow(base, i) for i in range(int(e.max(initial=0)) + 1)])
        return pl.Series(table[e] if len(e) else np.zeros(0))
    return exponents.map_batches(apply, return_dtype=pl.Float64)


def divide(numerator: pl.Expr, denominator: float) -> pl.Expr:
    """numerator / a constant, divided (not multiplied by the reciprocal), as C and DuckDB do."""
    return numerator.map_batches(lambda s: pl.Series(s.cast(pl.Float64).to_numpy() / float(denominator)),
                                 return_dtype=pl.Float64)


def quotient(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator, row by row, as an IEEE division (numpy), never polars' ``x * (1/v)``
    (which it uses when the divisor chunk is one repeated value, as after a broadcast or inside
    a group). Null where either side is null. Use it on whole columns (``select``/``with_columns``),
    not inside a ``group_by`` aggregation, where it would run once per group."""
    def apply(pair: pl.Series) -> pl.Series:
        num, den = pair.struct.field("n").cast(pl.Float64), pair.struct.field("d").cast(pl.Float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = pl.Series(num.to_numpy() / den.to_numpy(), dtype=pl.Float64)
        missing = num.is_null() | den.is_null()
        return out.set(missing, None) if missing.any() else out
    return pl.struct(numerator.alias("n"), denominator.alias("d")).map_batches(apply, return_dtype=pl.Float64)


def within_cutoff(measure: Measure) -> pl.Expr:
    """Rows at rank <= the measure's cutoff (all rows without a cutoff)."""
    return pl.lit(True) if measure.cutoff is None else pl.col("rank") <= measure.cutoff


def gain_expr(measure: Measure, column: str = "rel") -> pl.Expr:
    """The gain of a grade under the measure's gain map (``pf_gains`` in SQL): an explicit
    ``grade=gain`` entry, else ``2**grade - 1`` (``dcg='exp-log2'``), else the grade; 0 for
    negative grades (unjudged)."""
    from pairedframe.measures.gains import parse_gain_key  # gains imports base, as this module does

    rel = pl.col(column)
    key = measure.gain_key
    base = (pl.lit(2.0).pow(rel.cast(pl.Float64)) - 1.0) if key == "exp" else rel.cast(pl.Float64)
    explicit = parse_gain_key(key)
    if explicit:
        base = rel.replace_strict(list(explicit), list(explicit.values()), default=base, return_dtype=pl.Float64)
    return pl.when(rel >= 0).then(base).otherwise(0.0)


def ordered_sum(values: pl.Expr, where: pl.Expr | None = None, order: str = "rank", *,
                presorted: bool = False) -> pl.Expr:
    """Sum of ``values`` (where ``where`` holds) added one by one in ``order``, as trec_eval's loops do.

    polars' parallel ``sum`` may add a group's floats in a different order from run to run, which
    changes the last bit; a cumulative sum in rank order is deterministic (SQL: ``pf_seqsum``).
    ``presorted``: the rows are already in ``order`` within each group (``ctx.ranked`` and
    ``ctx.ideal`` are, and filters and group_by keep the order within groups), so no sort is needed.
    """
    kept = values if where is None else pl.when(where).then(values).otherwise(0.0)
    return (kept if presorted else kept.sort_by(order)).cum_sum().last()


def with_row_columns(ctx: PolarsContext, **columns: pl.Expr) -> PolarsContext:
    """The context with columns computed on every ranked row first (so that row-wise helpers such
    as :func:`c_log2` see whole columns, not groups)."""
    return replace(ctx, ranked=ctx.ranked.with_columns(**columns))


def per_query(ctx: PolarsContext, value: pl.Expr, **aggs: pl.Expr) -> pl.LazyFrame:
    """Aggregate ``aggs`` per (system, qid) over ranked rows and compute ``value`` for every evaluated query.

    Queries that retrieved nothing get 0 for every aggregate before ``value`` is evaluated, which is
    what the SQL's LEFT JOIN + COALESCE does; so both engines give an empty query the same value.
    """
    table = ctx.queries
    if aggs:
        agg = ctx.ranked.group_by(KEYS).agg(**aggs)
        table = table.join(agg, on=KEYS, how="left").with_columns(
            [pl.col(name).fill_null(0) for name in aggs])
    return table.select(*KEYS, value.cast(pl.Float64).alias("value"))


def ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator, and 0 where the denominator is 0 (trec_eval never reports NaN)."""
    return pl.when(denominator > 0).then(quotient(numerator, denominator)).otherwise(0.0)
