"""From the kernels' statistics to the comparison table: adjusted p-values, verdicts and notes, once.

:func:`finish_table` takes the per-comparison statistics of any paired kernel (in memory or in an engine)
and assembles the result of :func:`pairedframe.compare`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from pairedframe.comparison._families import family_columns, family_ids, family_text
from pairedframe.comparison._adaptive import adaptive_columns, query_set_adaptive, warn_uncertified
from pairedframe.comparison.comparison_stats import ComparisonStats
from pairedframe.comparison.interval_range import QUANTILE_INTERVALS, finish_paired_intervals
from pairedframe.comparison.large_n import row_methods, row_resamples
from pairedframe.comparison.options import Options, mc_patterns
from pairedframe.comparison.pairing import describe_row, oriented, small_sample_text
from pairedframe.comparison.verdicts import (family_rejections, reachable_levels, smallest_pvalue, t_mde, tie_floors, verdict,
                                             verdict_levels, verdict_notes, warn_many_ties, warn_skewed,
                                             warn_unreachable)
from pairedframe.measures import higher_is_better
from pairedframe.stats.cluster import noise_sums
from pairedframe.stats.multiple import benjamini_hochberg, holm
from pairedframe.stats.levels import decision_alpha

__all__ = ["decide", "finish_table", "noise_free_delta"]


def noise_free_delta(delta: np.ndarray, n: np.ndarray, max_abs: np.ndarray) -> np.ndarray:
    """``delta`` (mean deltas over ``n`` queries) with each one whose sum is float noise of the deltas it adds
    up set to 0: ``|n delta| <= 1e-12 max |delta|``, compare_clustered's rule for cluster sums
    (:func:`~pairedframe.stats.cluster.noise_sums`) with every query in one cluster (4 wins and 5 losses of
    P@10 summed to 5.6e-17, a delta of 1e-18)."""
    delta = np.asarray(delta, dtype=np.float64)
    sums = (delta * np.asarray(n, dtype=np.float64))[None, :]
    return np.where(noise_sums(sums, np.asarray(max_abs, dtype=np.float64)), 0.0, delta)


def decide(delta: np.ndarray, se: np.ndarray, n: np.ndarray, p_raw: np.ndarray, p_used: np.ndarray,
           fam_sizes: np.ndarray, all_zero: np.ndarray, stats: ComparisonStats, opt: Options,
           verdict_on: str, rejections: np.ndarray | None = None,
           interval_notes: Sequence[str | None] | None = None,
           measures: Sequence[str | None] | None = None,
           nonzero: np.ndarray | None = None,
           intervals: Sequence[str] | None = None) -> tuple[np.ndarray, list[str], list[str | None]]:
    """MDE at the verdict's level, verdicts and notes for rows of one call; verdicts (and the notes that
    quote them) in each row's measure's direction (``measures``; None or "": higher is better).
    ``nonzero``: each row's non-zero deltas, whose number bounds a sign-flip test's p-value
    (``stats.floor`` already holds that bound: :func:`~pairedframe.comparison.verdicts.tie_floors`);
    the notes name it; ``intervals``: each row's interval where they differ from ``opt.interval`` (one-pass
    rows, Student's t bound: :func:`~pairedframe.comparison.large_n.row_methods`), as the notes name it."""
    alpha = decision_alpha(opt.confidence_level)
    levels = verdict_levels(alpha, verdict_on, fam_sizes, rejections)
    mde = np.array([t_mde(float(se[i]), float(n[i] - 1), float(levels[i]), opt.power, opt.alternative,
                          float(stats.floor[i]), bool(stats.zero_spread[i]), bool(all_zero[i]))
                    for i in range(delta.shape[0])])
    verdicts = [verdict(float(p_used[i]), float(delta[i]), float(mde[i]), bool(all_zero[i]), alpha, opt.alternative)
                for i in range(delta.shape[0])]
    if measures is not None:      # a lower rank (FirstRelRank) is better: a positive delta is "worse"
        verdicts = [oriented(v, higher_is_better(m)) if m else v for v, m in zip(verdicts, measures)]
    notes = verdict_notes(verdicts=verdicts, delta=delta, ci_low=stats.ci_low, ci_high=stats.ci_high,
                          p_raw=p_raw, p_used=p_used, levels=levels, floors=stats.floor, family_sizes=fam_sizes,
                          exact=stats.exact, n_units=n, skewness=stats.skewness, alpha=alpha,
                          alternative=opt.alternative, verdict_on=verdict_on, test=opt.test,
                          interval=opt.interval if intervals is None else intervals,
                          n_resamples=mc_patterns(opt),
                          resamples_name="max_resamples" if opt.adaptive else "n_resamples",
                          p_estimated=opt.adaptive and opt.test == "randomization", interval_notes=interval_notes,
                          zero_spread=stats.zero_spread, nonzero=nonzero)
    return mde, verdicts, notes


def finish_table(rows: pl.DataFrame, stats: ComparisonStats, opt: Options, *, baseline: str,
                 extras: list[str], family_by: Sequence[str] | str | None, verdict_on: str,
                 flip_blocks: Sequence[tuple] = ()) -> pl.DataFrame:
    """compare's result from the comparisons and their statistics: multiple testing, verdicts, notes.

    ``rows``: one row per comparison (``system, <keys>, measure, n_queries, baseline_mean,
    system_mean, wins, losses, ties, _nonzero``); ``stats``: their statistics, as the kernels give them
    (:class:`~pairedframe.comparison.comparison_stats.ComparisonStats`); ``flip_blocks``: the query sets'
    deltas for ``resampling="adaptive"``.
    """
    k_total = rows.height
    exact, flat = stats.exact, stats.zero_spread
    pv = stats.pvalue
    p_holm = np.full(k_total, np.nan)
    p_bh = np.full(k_total, np.nan)
    fam_cols = family_columns(family_by, keys=extras, allowed=["system", *extras, "measure", "baseline"])
    # one baseline per call here: a constant column splits nothing
    fam_ids = family_ids(rows, [c for c in fam_cols if c != "baseline"])
    flips = None
    if flip_blocks:     # resampling="adaptive": p-values drawn until the family's decisions are certified
        flips = query_set_adaptive(
            list(flip_blocks), k_total, fam_ids, correction={"pvalue": "none", "pvalue_holm": "holm",
                                                       "pvalue_bh": "bh"}[verdict_on],
            level=decision_alpha(opt.confidence_level), strict=True, alternative=opt.alternative,
            decision_error=opt.decision_error, max_resamples=opt.max_resamples, chunk_size=opt.chunk_size)
        pv, exact = flips.pvalue, flips.exact
        stats = stats.replace(pvalue=pv, exact=exact, floor=np.array([
            smallest_pvalue(opt.test, bool(exact[i]), int(n), opt.alternative, opt.max_resamples, bool(flat[i]))
            for i, n in enumerate(rows["n_queries"].to_numpy())]))
    # a tie flips to itself: the sign-flip p of k non-zero deltas is never below 2 / 2**k
    nonzero = (rows["n_queries"].to_numpy() - rows["ties"].to_numpy()).astype(np.int64)
    stats = stats.replace(floor=tie_floors(stats.floor, nonzero, opt.test, opt.alternative))
    fam_sizes = np.zeros(k_total, dtype=np.int64)
    for f in np.unique(fam_ids):
        sel = fam_ids == f
        p_holm[sel] = holm(pv[sel])
        p_bh[sel] = benjamini_hochberg(pv[sel])
        fam_sizes[sel] = int(np.count_nonzero(~np.isnan(pv[sel])))
    adjusted = {"pvalue": pv, "pvalue_holm": p_holm, "pvalue_bh": p_bh}[verdict_on]
    n_q = rows["n_queries"].to_numpy().astype(np.int64)
    left_out = rows["_left_out"].to_numpy() if "_left_out" in rows.columns else np.zeros(k_total, dtype=np.int64)
    all_zero = ~rows["_nonzero"].to_numpy().astype(bool) & (left_out == 0)   # "identical" needs the same queries
    t_se = np.where(flat, 0.0, stats.sd / np.sqrt(n_q))
    one_pass = stats.one_pass if stats.one_pass is not None else np.zeros(k_total, dtype=bool)
    # each row's method, and the interval it has (its column, notes and warnings name it)
    method, computed = row_methods(opt, n_q, one_pass=one_pass, flat=flat, nonzero=nonzero > 0, exact=exact)
    small = small_sample_text(rows, extras) if opt.interval in QUANTILE_INTERVALS else None  # one warning
    ci_low, ci_high, interval_notes = finish_paired_intervals(
        measures=rows["measure"].to_list(), delta=stats.delta, ci_low=stats.ci_low, ci_high=stats.ci_high,
        se=t_se, n=n_q.astype(np.float64), flat=flat.astype(bool), interval=opt.interval,
        confidence_level=opt.confidence_level, alternative=opt.alternative, n_resamples=opt.n_resamples,
        means=(rows["baseline_mean"].to_numpy(), rows["system_mean"].to_numpy()),
        one_pass=one_pass, small_sample=small)
    # the delta only, as compare_clustered: the interval was computed as it is
    stats = stats.replace(ci_low=ci_low, ci_high=ci_high, delta=noise_free_delta(stats.delta, n_q, rows["max_abs"]))
    rejections = family_rejections(adjusted, fam_ids, decision_alpha(opt.confidence_level))
    mde, verdicts, notes = decide(stats.delta, t_se, n_q, pv, adjusted, fam_sizes, all_zero, stats, opt,
                                   verdict_on, rejections, interval_notes, measures=rows["measure"].to_list(),
                                   nonzero=nonzero, intervals=computed.tolist())
    notes = [_with_left_out(note, int(k), int(n)) for note, k, n in zip(notes, left_out, n_q)]
    alpha = decision_alpha(opt.confidence_level)
    labels = [describe_row({k: v for k, v in row.items() if k in ("system", *extras, "measure")})
              for row in rows.select("system", *extras, "measure").iter_rows(named=True)]
    warn_unreachable(stats.floor, reachable_levels(alpha, verdict_on, fam_sizes), exact, n_q, fam_sizes,
                     verdict_on=verdict_on, test=opt.test, alpha=alpha, unit="queries",
                     n_resamples=mc_patterns(opt) if opt.test == "randomization" else None,
                     resamples_name="max_resamples" if opt.adaptive else "n_resamples", nonzero=nonzero,
                     zero_spread=flat, labels=labels)
    in_use = dict(interval=computed.tolist(), confidence_level=opt.confidence_level)
    warn_skewed(stats.skewness, n_q, labels, asked=opt.interval, **in_use)
    warn_many_ties(rows["ties"].to_numpy(), n_q, labels, **in_use)
    out = rows.select(
        "system", *extras, "measure", pl.lit(baseline).alias("baseline"),
        pl.col("n_queries").cast(pl.Int64), "baseline_mean", "system_mean",
    ).with_columns(
        pl.Series("delta", stats.delta), pl.Series("ci_low", stats.ci_low),
        pl.Series("ci_high", stats.ci_high), pl.Series("se", stats.se),
        pl.Series("pvalue", pv), pl.Series("pvalue_holm", p_holm), pl.Series("pvalue_bh", p_bh),
        rows["wins"].cast(pl.Int64), rows["losses"].cast(pl.Int64), rows["ties"].cast(pl.Int64),
        pl.Series("sd", stats.sd), pl.Series("skewness", stats.skewness), pl.Series("mde", mde),
        pl.Series("verdict", verdicts, dtype=pl.String), pl.lit(verdict_on).alias("verdict_on"),
        pl.Series("verdict_note", notes, dtype=pl.String),
        pl.lit(opt.test).alias("test"), pl.Series("interval", computed.tolist(), dtype=pl.String),
        pl.lit(opt.confidence_level).alias("confidence_level"), pl.lit(opt.alternative).alias("alternative"),
        pl.Series("n_resamples", row_resamples(opt, method, n_q, nonzero), dtype=pl.Int64),
        pl.Series("exact", exact), pl.Series("method", list(method), dtype=pl.String),
        pl.lit(opt.seed, dtype=pl.UInt64).alias("seed"),
        pl.lit(family_text(fam_cols, fam_sizes)).alias("family"),
    )
    if opt.adaptive:
        out = out.with_columns(adaptive_columns(flips, k_total))
        if flips is not None:
            warn_uncertified(flips, opt.max_resamples, "comparisons")
    return out


def _with_left_out(note: str | None, left_out: int, n: int) -> str | None:
    """The verdict note, and what the queries only one system has a value for mean for it."""
    if not left_out:
        return note
    text = (f"{left_out} queries where only one system found anything are left out ({n} paired): this "
            "measure is undefined when nothing is found, so the comparison cannot see that difference "
            "(RR, 0 there, compares every query)")
    return text if note is None else f"{note}; {text}"
