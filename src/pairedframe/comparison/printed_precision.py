"""A warning when compare pairs values trec_eval printed (4 decimals, ``trec_eval -q``) with full-precision
ones (pf.evaluate's): the rounding alone (up to 5e-5) then reads as wins and losses, so a run compared with
itself can come out 22 wins, 20 losses."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import polars as pl

from pairedframe.errors import user_stacklevel

__all__ = ["grid_sql", "small_deltas_sql", "warn_mixed_printed_precision", "warn_mixed_printed_precision_engine"]

#: trec_eval prints "%.4f": its values differ from the true ones by at most half the last digit.
PRINTED_DECIMALS = 4
ROUNDING = 0.5 * 10.0 ** -PRINTED_DECIMALS


def _on_grid(column: str) -> pl.Expr:
    """Every value of the column is a multiple of 1e-4 (up to the float error of parsing "0.1234")."""
    scaled = pl.col(column).fill_nan(None) * 10.0 ** PRINTED_DECIMALS   # NaN: no value, not off the grid
    return ((scaled - scaled.round(0)).abs() <= 1e-6 * pl.max_horizontal(scaled.abs(), pl.lit(1.0))).all()


def warn_mixed_printed_precision(paired: pl.DataFrame, rows: pl.DataFrame, baseline: str,
                                  extras: Sequence[str] = ()) -> None:
    """Warn (naming the systems, the measure and the key columns ``extras``) where one side's values all lie
    on the 4-decimal grid, the other's do not, and some non-zero delta is within trec_eval's rounding.

    ``paired``: ``_row, qid, a, b, delta`` (a the baseline's values); ``rows``: ``_row, system, measure``
    and ``extras``."""
    paired = paired.filter(pl.col("_row").is_in(_candidates(paired, rows["_row"]).implode()))
    if not paired.height:
        return
    per_row = paired.group_by("_row").agg(
        _on_grid("a").alias("_a"), _on_grid("b").alias("_b"),
        ((pl.col("delta") != 0) & (pl.col("delta").abs() <= ROUNDING * (1 + 1e-9))).sum().alias("_small"))
    _warn_mixed(per_row.join(rows, on="_row"), baseline, extras)


def grid_sql(column: str) -> str:
    """SQL aggregate: 1 when every value of ``column`` lies on the 4-decimal grid (as :func:`_on_grid`), else 0."""
    scaled = f"({column}) * {10.0 ** PRINTED_DECIMALS!r}"
    on = f"abs({scaled} - round({scaled})) <= 1e-6 * greatest(abs({scaled}), 1.0)"
    return f"min(CASE WHEN {column} IS NULL OR {on} THEN 1 ELSE 0 END)"


def small_deltas_sql(delta: str = "delta") -> str:
    """SQL aggregate: the count of non-zero deltas within trec_eval's rounding."""
    return (f"CAST(sum(CASE WHEN {delta} <> 0 AND abs({delta}) <= {ROUNDING * (1 + 1e-9)!r} THEN 1 ELSE 0 END) "
            "AS BIGINT)")


def warn_mixed_printed_precision_engine(rows: pl.DataFrame, baseline: str, extras: Sequence[str] = ()) -> None:
    """:func:`warn_mixed_printed_precision` from an engine's per-comparison aggregates: ``rows`` holds
    ``_row, system, measure``, ``extras`` and ``a_grid``, ``b_grid`` (:func:`grid_sql` of each side) and
    ``small`` (:func:`small_deltas_sql`)."""
    have = rows.filter(pl.col("a_grid").is_not_null())
    _warn_mixed(have.select("_row", "system", *extras, "measure", (pl.col("a_grid") == 1).alias("_a"),
                            (pl.col("b_grid") == 1).alias("_b"), pl.col("small").alias("_small")), baseline, extras)


def _warn_mixed(per_row: pl.DataFrame, baseline: str, extras: Sequence[str]) -> None:
    """Warn about the rows (``_row, system, measure, _a, _b, _small`` and ``extras``) with one side on the grid,
    the other off it, and some non-zero delta within the rounding, naming the first (and its keys: a judgment
    set, a dataset, or the row's baseline of a several-baseline comparison)."""
    mixed = per_row.filter((pl.col("_a") != pl.col("_b")) & (pl.col("_small") > 0)).sort("_row")
    if not mixed.height:
        return
    first = mixed.row(0, named=True)
    printed, full = (baseline, first["system"]) if first["_a"] else (first["system"], baseline)
    warnings.warn(f"{mixed.height} comparison(s) pair values printed to {PRINTED_DECIMALS} decimals with full-precision "
                  f"ones (first: {', '.join([first['measure'], *(f'{k}={first[k]}' for k in extras)])}, where every value of {printed!r} lies on the "
                  f"{PRINTED_DECIMALS}-decimal grid, as trec_eval -q prints it, and those of {full!r} do not): "
                  f"{first['_small']} delta(s) within that rounding (|delta| <= {ROUNDING:g}) count as wins or losses; "
                  "evaluate both the same way (pf.evaluate both runs, or read both from trec_eval output)",
                  UserWarning, stacklevel=user_stacklevel())


#: Rows of ``paired`` read by :func:`_candidates`' screen at most.
SCREEN_ROWS = 100_000


def _candidates(paired: pl.DataFrame, comparisons: pl.Series) -> pl.Series:
    """The ``comparisons`` (``_row``) that may have one side on the grid and the other off it, from an evenly
    strided sample of ``paired``: a side whose sampled values leave the grid cannot lie on it wholly, so a
    comparison whose sampled sides both leave it is cleared; any other (the sample missed it) stays.  Spares
    the whole check (a pass of rounding over every row, about 10 % of a default comparison of 10^6 queries)
    where, as usual, both sides are full-precision values."""
    step = max(1, paired.height // SCREEN_ROWS)
    sample = paired.gather_every(step).group_by("_row").agg(_on_grid("a").alias("_a"), _on_grid("b").alias("_b"))
    cleared = sample.filter(~pl.col("_a") & ~pl.col("_b"))["_row"]
    return comparisons.filter(~comparisons.is_in(cleared.implode()))
