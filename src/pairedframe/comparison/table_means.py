"""The means of a results table: one row per (system, measure), with the t interval of each mean inside the
measure's range; trec_eval's geometric means (GMAP, GMBpref) and sums (NumRet, ...) as its ``all`` value."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from scipy.special import stdtrit

from pairedframe.comparison.interval_range import clip_means, mean_ranges
from pairedframe.measures.base import MIN_GEO_MEAN
from pairedframe.measures.parse import aggregate_of
from pairedframe.stats.studentized import ZERO_SPREAD_RTOL
from pairedframe.stats.value_range import constant_sample_interval

__all__ = ["table_means", "zero_spread_means"]


def table_means(per_query: pl.DataFrame | None, comparison: pl.DataFrame | None, confidence_level: float) -> pl.DataFrame:
    """``system, measure, mean, n_queries, ci_low, ci_high, halfwidth``: the t interval of each mean, inside
    the measure's range (values without spread: the range-based interval of n equal values,
    :mod:`pairedframe.comparison.interval_range`); ``halfwidth`` is t's, null where the interval is not
    ``mean -/+ halfwidth`` (clipped, or without spread)."""
    if per_query is not None:
        kinds = {m: aggregate_of(m) for m in per_query["measure"].unique(maintain_order=True).to_list()}
        special = [m for m, kind in kinds.items() if kind in ("gmean", "sum")]
        if special:
            order = per_query.select("system", "measure").unique(maintain_order=True).with_row_index("_order")
            parts = [part(per_query.filter(pl.col("measure").is_in(names)), confidence_level)
                     for part, names in ((_geometric_means, [m for m in special if kinds[m] == "gmean"]),
                                         (_sums, [m for m in special if kinds[m] == "sum"])) if names]
            rest = per_query.filter(~pl.col("measure").is_in(special))
            if rest.height:
                parts.append(table_means(rest, None, confidence_level))
            return (order.join(pl.concat(parts, how="diagonal_relaxed"), on=["system", "measure"], how="inner")
                    .sort("_order").drop("_order"))
        agg = per_query.group_by("system", "measure", maintain_order=True).agg(
            pl.col("value").mean().alias("mean"), pl.col("value").std(ddof=1).alias("sd"),
            pl.col("value").count().cast(pl.Int64).alias("n_queries"))     # null = undefined for that query
        n, sd = agg["n_queries"].to_numpy().astype(float), agg["sd"].to_numpy().astype(float)
        mean = agg["mean"].to_numpy().astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            half = np.where(n > 1, stdtrit(np.maximum(n - 1, 1), 0.5 + confidence_level / 2) * sd / np.sqrt(n), np.nan)
        low, high = mean - half, mean + half
        measures = agg["measure"].to_list()
        flat = (n > 1) & zero_spread_means(per_query, agg)
        if flat.any():
            lo, hi = mean_ranges([m for m, f in zip(measures, flat) if f], mean[flat])
            low[flat], high[flat] = constant_sample_interval(mean[flat], n[flat], lo, hi,
                                                             confidence_level=confidence_level)
        low, high, clipped = clip_means(low, high, measures, mean)
        symmetric = ~flat & ~clipped
        return agg.drop("sd").with_columns(pl.Series("ci_low", low, nan_to_null=True),
                                           pl.Series("ci_high", high, nan_to_null=True),
                                           pl.Series("halfwidth", np.where(symmetric, half, np.nan), nan_to_null=True))
    rows = pl.concat([
        comparison.select("system", "measure", pl.col("system_mean").alias("mean"), "n_queries"),
        comparison.select(pl.col("baseline").alias("system"), "measure", pl.col("baseline_mean").alias("mean"),
                          "n_queries")])
    return (rows.unique(["system", "measure"], keep="first", maintain_order=True)
            .with_columns(*(pl.lit(None, dtype=pl.Float64).alias(c) for c in ("ci_low", "ci_high", "halfwidth"))))


def _geometric_means(per_query: pl.DataFrame, confidence_level: float) -> pl.DataFrame:
    """:func:`table_means` of measures trec_eval summarises by a geometric mean (GMAP, GMBpref): ``mean`` is
    ``exp(mean(log(max(v, MIN_GEO_MEAN))))``, trec_eval's ``all`` value, and the interval is the t interval
    of the mean log, exponentiated (an interval for the geometric mean; ``halfwidth`` null: not symmetric);
    values without spread get the range-based interval on the log scale of ``[MIN_GEO_MEAN, 1]``."""
    logs = per_query.with_columns(pl.col("value").clip(lower_bound=MIN_GEO_MEAN).log())
    agg = logs.group_by("system", "measure", maintain_order=True).agg(
        pl.col("value").mean().alias("mean"), pl.col("value").std(ddof=1).alias("sd"),
        pl.col("value").count().cast(pl.Int64).alias("n_queries"))
    n, sd = agg["n_queries"].to_numpy().astype(float), agg["sd"].to_numpy().astype(float)
    mean = agg["mean"].to_numpy().astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = np.where(n > 1, stdtrit(np.maximum(n - 1, 1), 0.5 + confidence_level / 2) * sd / np.sqrt(n), np.nan)
    low, high = mean - half, mean + half
    flat = (n > 1) & zero_spread_means(logs, agg)
    if flat.any():
        low[flat], high[flat] = constant_sample_interval(mean[flat], n[flat], math.log(MIN_GEO_MEAN), 0.0,
                                                         confidence_level=confidence_level)
    low, high, _ = clip_means(np.exp(low), np.exp(high), agg["measure"].to_list(), np.exp(mean))
    return agg.drop("sd").with_columns(pl.Series("mean", np.exp(mean)), pl.Series("ci_low", low, nan_to_null=True),
                                       pl.Series("ci_high", high, nan_to_null=True),
                                       pl.lit(None, dtype=pl.Float64).alias("halfwidth"))


def _sums(per_query: pl.DataFrame, confidence_level: float) -> pl.DataFrame:
    """:func:`table_means` of counts trec_eval sums over queries (NumRet, NumRelRet, ...): ``mean`` is the sum,
    trec_eval's ``all`` value; no interval (a total over the evaluated queries, not an estimate)."""
    return (per_query.group_by("system", "measure", maintain_order=True)
            .agg(pl.col("value").sum().alias("mean"), pl.col("value").count().cast(pl.Int64).alias("n_queries"))
            .with_columns(*(pl.lit(None, dtype=pl.Float64).alias(c) for c in ("ci_low", "ci_high", "halfwidth"))))


def zero_spread_means(per_query: pl.DataFrame, agg: pl.DataFrame) -> np.ndarray:
    """Per row of ``agg`` (system, measure): whether its values have zero spread (max - min at most
    1e-12 of their magnitude, :func:`pairedframe.stats.studentized.zero_spread`)."""
    spread = per_query.group_by("system", "measure").agg(
        (pl.col("value").max() - pl.col("value").min()).alias("_ptp"), pl.col("value").abs().max().alias("_mag"))
    joined = agg.select("system", "measure").join(spread, on=["system", "measure"], how="left", maintain_order="left")
    ptp, mag = joined["_ptp"].to_numpy().astype(float), joined["_mag"].to_numpy().astype(float)
    return np.nan_to_num(ptp, nan=np.inf) <= ZERO_SPREAD_RTOL * np.nan_to_num(mag, nan=0.0)
