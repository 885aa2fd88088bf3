"""TOST equivalence columns of :func:`~pairedframe.compare_clustered`, adjusted for multiplicity as its
difference test is: an equivalence claim is a claim too, so a family's claims of either kind (difference
or equivalence) keep its error rate.  ``pvalue_tost`` is each row's TOST p-value (t reference on the
Bell-McCaffrey df of the CR2 cluster SE); ``pvalue_tost_holm`` / ``pvalue_tost_bh`` adjust it within the
family; ``equivalent`` follows the one matching ``verdict_on``."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from pairedframe.comparison.interval_range import clip_deltas, delta_ranges
from pairedframe.stats.equivalence import tost
from pairedframe.stats.multiple import benjamini_hochberg, holm
from pairedframe.stats.value_range import constant_sample_interval
from pairedframe.stats.levels import decision_alpha, percent

__all__ = ["TOST_COLUMN", "with_tost"]


def _tost(delta: float, se: float, margin: float, confidence_level: float, df: float,
          G: int, lo: float, hi: float) -> tuple[float, float, float, bool]:
    """(p, low, high, equivalent) of the t-based TOST at +-margin with the 1 - 2 alpha interval.  With
    se == 0 (G equal cluster deltas ``c``, no spread to estimate an error from) both come from the
    measure's range of deltas ``[lo, hi]``, as compare's interval for equal deltas does: the interval is
    :func:`~pairedframe.stats.value_range.constant_sample_interval` at ``1 - 2 alpha`` (never a point),
    and each one-sided p-value is the largest chance that a population of that range with its mean on the
    bound gives G draws all equal to ``c`` -- ``((-margin - lo) / (c - lo))**G`` below,
    ``((hi - margin) / (hi - c))**G`` above (1 where the range is unknown) -- so ``p < alpha`` exactly
    when that interval lies inside the margin."""
    alpha = 1.0 - confidence_level
    if se > 0:
        r = tost(delta, se, margin=margin, confidence_level=confidence_level, df=df)
        return r.pvalue, float(r.confidence_interval.low), float(r.confidence_interval.high), r.equivalent
    low, high = constant_sample_interval(np.array([delta]), G, lo, hi, confidence_level=1.0 - 2.0 * alpha)
    low_f, high_f = float(low[0]), float(high[0])
    if not -margin < delta < margin:
        return 1.0, low_f, high_f, False
    p_low = 0.0 if lo >= -margin else 1.0 if math.isinf(lo) else ((-margin - lo) / (delta - lo)) ** G
    p_high = 0.0 if hi <= margin else 1.0 if math.isinf(hi) else ((hi - margin) / (hi - delta)) ** G
    return max(p_low, p_high), low_f, high_f, bool(-margin < low_f and high_f < margin)


#: The TOST column adjusted as the difference test's ``verdict_on`` column is.
TOST_COLUMN = {"pvalue": "pvalue_tost", "pvalue_holm": "pvalue_tost_holm", "pvalue_bh": "pvalue_tost_bh"}


def with_tost(out: pl.DataFrame, delta: np.ndarray, se: np.ndarray, df: np.ndarray, G_all: np.ndarray,
              fam: np.ndarray, *, margin: float, confidence_level: float, verdict_on: str, measures: Sequence[str]) -> pl.DataFrame:
    """TOST columns, and the verdict "equivalent" where the difference is not significant and TOST, adjusted
    within the family as the difference test is (Holm / BH / none by ``verdict_on``), rejects non-equivalence:
    an equivalence claim is a claim too, so a family's claims of either kind keep its error rate."""
    alpha = 1.0 - confidence_level
    means = (out["baseline_mean"].to_numpy(), out["system_mean"].to_numpy())
    # the range of a mean delta bounds the TOST of equal cluster deltas, as it bounds their interval
    lo, hi = delta_ranges(measures, delta, means=means, warn=False)
    res = [_tost(float(d), float(s), margin, confidence_level, float(f), int(g), float(a), float(b))
           for d, s, f, g, a, b in zip(delta, se, df, G_all, lo, hi)]
    p_tost = np.array([r[0] for r in res], dtype=float)
    # means off the measure's scale were warned about once already, at the difference's interval
    tost_low, tost_high, _ = clip_deltas([r[1] for r in res], [r[2] for r in res], measures, means=means, warn=False)
    p_holm, p_bh = np.full(p_tost.shape, np.nan), np.full(p_tost.shape, np.nan)
    for f in np.unique(fam):
        sel = fam == f
        p_holm[sel], p_bh[sel] = holm(p_tost[sel]), benjamini_hochberg(p_tost[sel])
    column = TOST_COLUMN[verdict_on]
    decisive = {"pvalue_tost": p_tost, "pvalue_tost_holm": p_holm, "pvalue_tost_bh": p_bh}[column]
    out = out.with_columns(
        pl.lit(margin).alias("margin"), pl.Series("pvalue_tost", p_tost, dtype=pl.Float64),
        pl.Series("pvalue_tost_holm", p_holm, dtype=pl.Float64), pl.Series("pvalue_tost_bh", p_bh, dtype=pl.Float64),
        pl.Series("tost_low", tost_low, dtype=pl.Float64), pl.Series("tost_high", tost_high, dtype=pl.Float64),
        pl.Series("equivalent", decisive < decision_alpha(confidence_level), dtype=pl.Boolean),
        pl.Series("_inside", [r[3] for r in res], dtype=pl.Boolean))
    # a non-significant difference that TOST bounds within the margin is evidence of equivalence
    open_verdict = pl.col("verdict").is_in(["inconclusive", "not significant"])
    level = pl.lit(percent(1 - 2 * alpha))
    interval = pl.format("[{}, {}]", pl.col("tost_low").round(4), pl.col("tost_high").round(4))
    adjusted = "" if column == "pvalue_tost" else " (adjusted in the family as the difference test)"
    why = pl.format(f"TOST at +-{{}}: {column} {{}} < {alpha:g}{adjusted}; the unadjusted {{}}% interval {{}} lies "
                    "inside the margin", pl.lit(margin), pl.col(column).round(6), level, interval)
    short = pl.format(f"TOST: the unadjusted {{}}% interval {{}} lies inside +-{{}}, but {column} = {{}} >= {alpha:g} "
                      "after adjusting in the family as the difference test: not equivalent",
                      level, interval, pl.lit(margin), pl.col(column).round(6))
    out = out.with_columns(
        pl.when(pl.col("equivalent") & open_verdict).then(pl.lit("equivalent")).otherwise(pl.col("verdict"))
        .alias("verdict"),
        pl.when(pl.col("equivalent") & open_verdict)
        .then(pl.when(pl.col("verdict_note").is_null()).then(why)
              # the notes above describe the difference test's verdict, which TOST has just replaced
              .otherwise(pl.concat_str([pl.col("verdict_note").str.replace_all(
                  "but the verdict is '", "but the difference test's verdict is '", literal=True),
                  pl.lit("; the verdict is 'equivalent': "), why])))
        .when(pl.col("_inside") & ~pl.col("equivalent") & open_verdict)
        .then(pl.when(pl.col("verdict_note").is_null()).then(short)
              .otherwise(pl.concat_str([pl.col("verdict_note"), pl.lit("; "), short])))
        .otherwise(pl.col("verdict_note")).alias("verdict_note"))
    return out.drop("_inside")
