"""The cluster map and the result table of a clustered comparison, shared by the in-memory and the
in-engine backends: reading ``{qid: cluster}`` or a cluster table, the cluster-count checks, the resampling
cost, the zero-spread interval, and the final table (verdicts, TOST, notes).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from pairedframe.comparison._cost import check_resampling_cost, column_slices
from pairedframe.comparison._equivalence import with_tost
from pairedframe.comparison.clustered_stats import ClusteredStats
from pairedframe.comparison._families import family_columns, family_ids, family_text
from pairedframe.comparison.interval_range import (capped_at_too_few, clip_delta_intervals, too_few_capped_text,
                                                   zero_spread_deltas)
from pairedframe.comparison.pairing import oriented, wins_in_measure_direction
from pairedframe.checks import quoted, string_ids
from pairedframe.measures import higher_is_better
from pairedframe.comparison.verdicts import (family_rejections, reachable_levels, t_mde, verdict, verdict_levels,
                                             verdict_notes, warn_unreachable)
from pairedframe.io.convert import to_polars
from pairedframe.errors import InsufficientSampleError, SchemaError, SmallSampleWarning, user_stacklevel
from pairedframe.stats.cluster import MIN_CLUSTERS
from pairedframe.stats.studentized import ZERO_SPREAD_RTOL
from pairedframe.stats.multiple import benjamini_hochberg, holm
from pairedframe.stats.signflip_interval import too_few_resamples
from pairedframe.stats.levels import decision_alpha

__all__ = ["where_clusters", "cluster_map", "zero_spread_interval", "check_cluster_counts",
           "check_cluster_cost", "clustered_table", "interval_name", "ONE_SIDED_EDGEWORTH"]

# what interval="edgeworth" computes for a one-sided alternative: the Edgeworth term is the two-sided
# (symmetric) one, so one-sided bounds use plain cluster-t's quantile (no calibrated one-sided correction)
ONE_SIDED_EDGEWORTH = "cluster t (one-sided: no Edgeworth step)"


def interval_name(interval: str, alternative: str) -> str:
    """The ``interval`` column of a clustered comparison: what was computed, not what was asked for."""
    if interval == "edgeworth" and alternative != "two-sided":
        return ONE_SIDED_EDGEWORTH
    return f"cluster {interval}"


def _no_id(value: Any) -> bool:
    """None, or a float NaN (pandas' missing value): no cluster id at all."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def where_clusters(mapped: bool, column: str = "cluster") -> str:
    """Where a query's cluster was looked for, for messages: the argument or the column."""
    return "in clusters=" if mapped else f"(its {column!r} column is null)"


def cluster_map(clusters: Any, columns: list[str]) -> tuple[pl.DataFrame, list[str]]:
    """A ``{qid: cluster}`` mapping or a ``qid, cluster[, keys]`` table as a checked table, and the
    columns (of ``columns``, qid always) it maps on; ids and clusters as strings."""
    if isinstance(clusters, dict):
        cmap = pl.DataFrame({"qid": [str(k) for k in clusters],
                             "cluster": [None if _no_id(v) else str(v) for v in clusters.values()]},
                            schema={"qid": pl.String, "cluster": pl.String})
    else:
        cmap = to_polars(clusters, "cluster table")
    missing = [c for c in ("qid", "cluster") if c not in cmap.columns]
    if missing:
        raise SchemaError(f"cluster table lacks column(s) {missing}; needs qid, cluster (has {cmap.columns})")
    on = [c for c in cmap.columns if c != "cluster" and c in columns and c not in ("value",)]
    if "qid" not in on:
        on.append("qid")
    cmap = string_ids(cmap.select(*on, "cluster"), [*on, "cluster"], "the cluster table")
    dup = cmap.select(on).is_duplicated()
    if dup.any():
        key = cmap.filter(dup).select(on).row(0, named=True)
        found = cmap.filter(pl.all_horizontal(pl.col(c) == v for c, v in key.items()))["cluster"].to_list()
        said = " and ".join(repr(c) for c in dict.fromkeys(found))
        where = ", ".join(f"{c} {quoted(v)}" for c, v in key.items())
        raise ValueError(f"the cluster table maps {where} to clusters {said}: a query belongs to one cluster"
                         if len(set(found)) > 1 else f"the cluster table maps {where} to cluster {said} "
                         f"{len(found)} times: give each query one row")
    return cmap, on


def zero_spread_interval(theta: np.ndarray, se: np.ndarray, low: np.ndarray, high: np.ndarray, G: int,
                          alpha: float, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """Where se == 0 the t-type interval would be a point whatever G: keep the point only when the exact
    sign-flip test on G equal cluster deltas can reject (``2 / 2**G < alpha``, one-sided ``1 / 2**G``),
    else leave the unbounded side(s) open -- no certainty from zero spread."""
    low, high = np.array(low, dtype=float, copy=True), np.array(high, dtype=float, copy=True)
    floor = math.ldexp(2.0 if alternative == "two-sided" else 1.0, -G)
    if floor >= alpha:
        flat = np.asarray(se) == 0
        low[flat & (alternative != "less")] = -math.inf
        high[flat & (alternative != "greater")] = math.inf
    return low, high


def check_cluster_counts(rows: pl.DataFrame, n_queries: np.ndarray, n_clusters: np.ndarray, *, keys: list[str],
                          baseline: str) -> None:
    """InsufficientSampleError for a comparison with fewer than 2 queries or clusters (one with none
    named first); SmallSampleWarning below MIN_CLUSTERS. ``rows``: one per comparison, in order."""
    none = np.flatnonzero(n_queries == 0)
    short = none if none.size else np.flatnonzero((n_queries < 2) | (n_clusters < 2))
    if short.size:
        r = int(short[0])
        row = rows.row(r, named=True)
        what = ", ".join(f"{c} {quoted(row[c])}" for c in ["system", *keys, "measure"])
        raise InsufficientSampleError(
            f"comparison with baseline {quoted(baseline)} ({what}) has {int(n_queries[r])} common queries in "
            f"{int(n_clusters[r])} clusters; a cluster comparison needs at least 2 clusters")
    few = np.flatnonzero(n_clusters < MIN_CLUSTERS)
    if few.size:
        r = int(few[np.argmin(n_clusters[few])])
        row = rows.row(r, named=True)
        warnings.warn(f"{few.size} comparison(s) have fewer than {MIN_CLUSTERS} clusters, the fewest for a "
                      f"calibrated cluster test (smallest: G = {int(n_clusters[r])}, {row['system']} / {row['measure']}); "
                      "with so few clusters "
                      "the exact sign-flip test has few sign patterns: coarse, conservative p-values (and wide intervals "
                      "with interval='signflip')",
                      SmallSampleWarning, stacklevel=user_stacklevel())


def check_cluster_cost(opt: Any, shapes: Sequence[tuple[int, int]], interval: str,
                       argument: str = "n_resamples") -> None:
    """The up-front cost check (:mod:`pairedframe.comparison._cost`) of partitions of ``(G, k)``: ``G``
    clusters, ``k`` comparisons; the sign-flip test and its inversion always run, the bootstrap for
    ``interval="percentile"``."""
    B = opt.n_resamples
    draws, units, columns, kept = [], [], [], []
    for G, k in shapes:
        patterns = min(B, 2 ** G) if G < 63 else B
        part = column_slices(k, B, 5)[0]
        draws.append(patterns), units.append(G), columns.append(k), kept.append(5 * (part.stop - part.start) + 3)
        if interval == "percentile":
            part = column_slices(k, B, 3)[0]
            draws.append(B), units.append(G), columns.append(k), kept.append(3 * (part.stop - part.start))
    check_resampling_cost(B, argument=argument, draws=draws, units=units, columns=columns, kept=kept)


def clustered_table(rows: pl.DataFrame, st: ClusteredStats, opt: Any, *, keys: list[str], baseline: str,
                     family_by: Sequence[str] | str | None, verdict_on: str, margin: float | None,
                     interval: str) -> pl.DataFrame:
    """compare_clustered's result from per-comparison statistics (``st``, in ``rows``' ``_row`` order):
    multiple testing, MDE, verdicts and notes (:mod:`pairedframe.comparison.verdicts`), TOST."""
    k_total = rows.height
    alpha = decision_alpha(opt.confidence_level)
    # cluster sums all 0 up to the float noise of their deltas test as all-zero sums (p = 1, noise_sums' rule):
    # their mean delta is 0 too, not the noise (9e-19) the sums left; and every sign pattern ties, so the test's
    # p cannot go below 1 (tie_floors' 2**-k at k = 0): "inconclusive", as compare says of a pair whose test
    # cannot reach the level -- "identical" is for deltas that are all 0, not cluster sums
    cancelled = _zero_sums(st) & ~st.all_zero
    st = st.replace(delta=np.where(_zero_sums(st), 0.0, st.delta), floor=np.where(cancelled, 1.0, st.floor))
    # st.floor: the least p of the cluster sign-flip test, raised to the exact floor of the non-zero cluster
    # sums; a Monte-Carlo p whose draws missed the extreme patterns is held there (the exact p is not lower)
    pv = np.where(st.exact, st.pvalue, np.maximum(st.pvalue, st.floor))
    p_holm, p_bh = np.full(k_total, np.nan), np.full(k_total, np.nan)
    fam_cols = family_columns(family_by, keys=keys, allowed=["system", *keys, "measure", "baseline"])
    fam = family_ids(rows.sort("_row"), [c for c in fam_cols if c != "baseline"])   # one baseline: constant
    fam_sizes = np.zeros(k_total, dtype=np.int64)
    for f in np.unique(fam):
        sel = fam == f
        p_holm[sel], p_bh[sel] = holm(pv[sel]), benjamini_hochberg(pv[sel])
        fam_sizes[sel] = int(np.count_nonzero(~np.isnan(pv[sel])))
    chosen = {"pvalue": pv, "pvalue_holm": p_holm, "pvalue_bh": p_bh}[verdict_on]
    levels = verdict_levels(alpha, verdict_on, fam_sizes, family_rejections(chosen, fam, alpha))
    G_all = st.n_clusters
    mde = np.array([t_mde(float(st.se[i]), float(st.df[i]), float(levels[i]), opt.power, opt.alternative,
                          float(st.floor[i]), bool(st.se[i] == 0), bool(st.all_zero[i])) for i in range(k_total)])
    verdicts = [verdict(float(chosen[i]), float(st.delta[i]), float(mde[i]), bool(st.all_zero[i]), alpha,
                        opt.alternative) for i in range(k_total)]
    # in the measure's direction: a rank such as FirstRelRank is better when lower
    measures = rows.sort("_row")["measure"].to_list()
    verdicts = [oriented(v, higher_is_better(m)) for v, m in zip(verdicts, measures)]
    st, interval_notes = _finished_intervals(st, measures, opt, interval)
    notes = verdict_notes(verdicts=verdicts, delta=st.delta, ci_low=st.ci_low, ci_high=st.ci_high,
                          p_raw=pv, p_used=chosen, levels=levels, floors=st.floor, family_sizes=fam_sizes,
                          exact=st.exact, n_units=G_all, skewness=np.full(k_total, np.nan), alpha=alpha,
                          alternative=opt.alternative, verdict_on=verdict_on, test="cluster sign-flip",
                          interval=interval_name(interval, opt.alternative),
                          unit="clusters", n_resamples=opt.n_resamples, interval_notes=interval_notes,
                          zero_spread=(np.asarray(st.se) == 0) & (G_all >= 2), nonzero=st.nonzero_clusters)
    # clusters of one query each (a plan's resampling_unit = "query"): the queries are what is resampled
    unit = "queries" if np.array_equal(G_all, st.n_queries) else "clusters"
    labels = [", ".join(f"{k}={v}" for k, v in row.items())
              for row in rows.sort("_row").select("system", *keys, "measure").iter_rows(named=True)]
    warn_unreachable(st.floor, reachable_levels(alpha, verdict_on, fam_sizes), st.exact, G_all, fam_sizes,
                     verdict_on=verdict_on, test="cluster sign-flip", alpha=alpha, unit=unit,
                     n_resamples=opt.n_resamples, nonzero=st.nonzero_clusters, labels=labels)
    out = rows.sort("_row").select("system", *keys, "measure", pl.lit(baseline).alias("baseline")).with_columns(
        *(pl.Series(n, getattr(st, n)) for n in ("n_queries", "n_clusters", "baseline_mean", "system_mean",
                                                  "delta", "ci_low", "ci_high", "se", "df")),
        pl.Series("pvalue", pv), pl.Series("pvalue_holm", p_holm), pl.Series("pvalue_bh", p_bh),
        *(pl.Series(n, getattr(st, n)) for n in ("wins", "losses", "ties")),
        pl.Series("mde", mde), pl.Series("verdict", verdicts, dtype=pl.String),
        pl.Series("verdict_note", notes, dtype=pl.String),
        pl.Series("mcnemar_pvalue", st.mcnemar.pvalue, dtype=pl.Float64),
        pl.Series("mcnemar_b", st.mcnemar.b, dtype=pl.Int64),
        pl.Series("mcnemar_c", st.mcnemar.c, dtype=pl.Int64),
    )
    out = wins_in_measure_direction(out)   # a win is an improvement (a lower FirstRelRank), as in compare
    if margin is not None:
        out = with_tost(out, st.delta, st.se, st.df, G_all, fam, margin=margin,
                        confidence_level=opt.confidence_level, verdict_on=verdict_on, measures=measures)
    return out.with_columns(
        pl.lit("cluster sign-flip").alias("test"), pl.lit(interval_name(interval, opt.alternative)).alias("interval"),
        pl.lit(opt.confidence_level).alias("confidence_level"), pl.lit(opt.alternative).alias("alternative"),
        pl.Series("n_resamples", _row_resamples(st, opt, interval), dtype=pl.Int64), pl.Series("exact", st.exact),
        pl.lit(opt.seed, dtype=pl.UInt64).alias("seed"), pl.lit(family_text(fam_cols, fam_sizes)).alias("family"))


def _row_resamples(st: ClusteredStats, opt: Any, interval: str) -> np.ndarray:
    """Each row's ``n_resamples``: the argument, or where the p-value enumerated its sign patterns and nothing
    else was drawn (no bootstrap; a sign-flip interval that enumerated all ``2**G`` too) those patterns:
    ``2**G`` where they number at most ``n_resamples``, else the ``2**k`` of the ``k`` non-zero cluster sums."""
    every = np.left_shift(np.int64(1), np.minimum(np.asarray(st.n_clusters, dtype=np.int64), 62))
    whole = every <= opt.n_resamples
    nonzero = np.asarray(st.nonzero_clusters, dtype=np.int64)
    patterns = np.where(whole, every, np.left_shift(np.int64(1), np.minimum(nonzero, 62)))
    drawn_interval = (interval == "percentile") | ((interval == "signflip") & ~whole)
    enumerated = np.asarray(st.exact, dtype=bool) & (nonzero > 0) & ~drawn_interval
    return np.where(enumerated, patterns, opt.n_resamples)


def _finished_intervals(st: ClusteredStats, measures: list[str], opt: Any,
                        interval: str) -> tuple[ClusteredStats, list[str | None]]:
    """G equal cluster deltas get compare's range-based interval over G units (never a point, whatever the
    interval); a percentile interval with too few resamples for its level compare's cap on cluster-t; every
    interval is clipped to the measure's range of deltas; the notes say where."""
    G_all = st.n_clusters
    means = (st.baseline_mean, st.system_mean)
    low, high = st.ci_low, st.ci_high
    few: list[str | None] = [None] * G_all.shape[0]
    if interval == "percentile" and too_few_resamples(1.0 - opt.confidence_level, opt.n_resamples):
        rows = np.flatnonzero((np.asarray(st.se) > 0) & (G_all >= 2))   # the quantiles lie beyond every resample
        low, high = capped_at_too_few(low, high, rows, delta=st.delta, se=st.se, df=st.df,
                                      confidence_level=opt.confidence_level, alternative=opt.alternative)
        for i in rows:
            few[i] = too_few_capped_text(opt.n_resamples, opt.confidence_level, cap="compare's too-few cap",
                                         se="the cluster-robust se (Bell-McCaffrey df)")
    flat = (np.asarray(st.se) == 0) & (G_all >= 2)
    low, high, flat_notes = zero_spread_deltas(
        low, high, measures=measures, delta=st.delta, n=G_all, flat=flat, confidence_level=opt.confidence_level,
        alternative=opt.alternative, means=means, described=_equal_cluster_deltas(st, flat))
    low, high, clip_notes = clip_delta_intervals(low, high, measures, st.delta, means=means,
                                                 alternative=opt.alternative)
    notes = ["; ".join(x for x in parts if x) or None for parts in zip(few, flat_notes, clip_notes)]
    return st.replace(ci_low=low, ci_high=high), notes


def _zero_sums(st: ClusteredStats) -> np.ndarray:
    """Comparisons whose cluster sums are all 0 up to float noise (no non-zero cluster sum)."""
    return np.isfinite(st.delta) & (st.n_clusters >= 1) & (st.nonzero_clusters == 0)


def _equal_cluster_deltas(st: ClusteredStats, flat: np.ndarray) -> list[str | None]:
    """Per comparison without spread between its clusters (``flat``) whose queries do spread, what is equal:
    the clusters' mean deltas, not the per-query deltas (None elsewhere: every delta is equal)."""
    spread = st.delta_max - st.delta_min > ZERO_SPREAD_RTOL * np.maximum(np.abs(st.delta_min), np.abs(st.delta_max))
    zero = _zero_sums(st)
    return [(f"every cluster's mean delta {'is 0 up to float noise' if zero[i] else f'equals {st.delta[i]:+.4g}'} "
             f"(no spread between the {int(st.n_clusters[i])} clusters), though the per-query deltas range from "
             f"{st.delta_min[i]:+.4g} to {st.delta_max[i]:+.4g}") if flat[i] and spread[i] else None
            for i in range(flat.shape[0])]
