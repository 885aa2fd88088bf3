"""Comparisons with many queries in one pass over their deltas: cost that grows with n, not n x B (issue 22).

Above :data:`LARGE_N` non-zero deltas the default resampling statistics of :func:`pairedframe.compare`
and their normal-theory limits coincide far within Monte-Carlo error (``benchmarks/calibration
--section large_n``: coverage and type-I error equal on the same replications), so with
``resampling="auto"`` (the default) such a comparison is computed from the moments of its deltas
(:mod:`pairedframe.stats.moments`): the sign-flip test by its normal approximation (null variance
``sum(d**2) / n**2``), the t interval in place of a bootstrap interval, the inversion of that
approximation for ``interval="signflip"``.  Deltas equal to 0 are counted out because the sign-flip
test ignores them: a million queries of which 300 differ still get the resampling they need.

The count alone is not enough: the normal approximation of the Rademacher sum ``sum(s_i d_i)`` depends on
how many deltas carry its variance, the effective number ``n_eff = (sum d**2)**2 / sum d**4`` (equal to n
when every |delta| is equal, about k when k deltas dominate).  With four deltas of 0.8 among 10,001 of
2e-6 the approximate test rejects 12.5 % of the time at alpha = 0.05 (exactly: the sum of four fair
signs).  So a comparison switches only if also ``n_eff >= LARGE_N_EFF`` (1,000); below, it is resampled
as under the switch point.  At ``n_eff >= 1,000`` the worst case -- all the variance in equal deltas,
where the sign-flip sum is a binomial lattice -- rejects at most 5.4 % at alpha = 0.05
(``benchmarks/calibration --section large_n``: the spike cells).
``resampling="fixed"`` resamples at every size.

The moments are polars aggregations over the paired rows (no per-query Python objects, no sort, no
resample index), and every output row names what produced it in the ``method`` column (:data:`METHODS`,
decided by :func:`row_methods`; the ``n_resamples`` of each by :func:`row_resamples`).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from pairedframe.comparison.comparison_stats import ComparisonStats
from pairedframe.comparison.options import Options, mc_patterns
from pairedframe.comparison.verdicts import smallest_pvalue
from pairedframe.stats.moments import one_pass_statistics
from pairedframe.stats.skewness import skewness_from_moments
from pairedframe.stats.studentized import ZERO_SPREAD_RTOL, student_only

__all__ = ["LARGE_N", "LARGE_N_EFF", "METHODS", "one_pass_rows", "row_statistics", "engine_row_statistics",
           "draws_nothing", "row_methods", "row_resamples", "moments_table", "from_moments"]

#: Non-zero deltas above which ``resampling="auto"`` computes a comparison in one pass.
LARGE_N = 10_000
#: Effective number of deltas ``(sum d**2)**2 / sum d**4`` a comparison also needs for the one-pass path.
LARGE_N_EFF = 1_000
#: The values of the ``method`` column of :func:`pairedframe.compare`: what produced the row's numbers.
METHODS = {
    "resampling": ("p-value and/or interval from random resamples (bootstrap or Monte-Carlo sign flips; n_resamples "
                   "of them, and a p-value that enumerated its sign patterns says exact)"),
    "exact": ("p-value and/or sign-flip interval from every sign pattern enumerated (all 2^n, or the 2^k of the k "
              "non-zero deltas: a zero delta flips to itself), nothing drawn at random: n_resamples is the number "
              "of patterns; the rest analytic"),
    "analytic": ("nothing resampled or approximated: the t-test's p-value (or no non-zero delta) with the t interval "
                 "(asked for, or what the default gives: in one pass, or Student's bound below its least number of "
                 "queries) or the zero-spread rule's interval"),
    "one-pass": (f"more than {LARGE_N:,} non-zero deltas, of effective number (sum d^2)^2 / sum d^4 at least "
                 f"{LARGE_N_EFF:,}, with resampling='auto': the sign-flip test by its normal approximation and the "
                 "t interval (interval='signflip': that test's inversion), from the moments"),
}
#: The intervals read from resamples when computed as asked.
_RESAMPLED_INTERVALS = ("studentized", "percentile", "bca", "signflip")


def draws_nothing(opt: Options) -> bool:
    """Whether ``opt`` resamples nothing at any size: ``test="t"`` with the t interval."""
    return opt.test == "t" and opt.interval == "t"


def row_methods(opt: Options, n: np.ndarray, *, one_pass: np.ndarray, flat: np.ndarray, nonzero: np.ndarray,
                exact: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each row's ``method`` (:data:`METHODS`) and the interval it has, from what computed its numbers; the one
    place both are decided.

    ``n``: queries per row; ``one_pass``: rows computed from their moments (:func:`row_statistics`); ``flat``:
    rows without spread (their interval is the zero-spread rule's); ``nonzero``: rows with a non-zero delta (a
    sign-flip p of none is 1, nothing drawn); ``exact``: rows whose sign-flip p enumerated its patterns (None:
    none).  A one-pass row has the t interval, or the inversion of the test's normal approximation for
    ``interval="signflip"``; the default interval is Student's t where
    :func:`~pairedframe.stats.studentized.student_only` holds; any other row has the interval asked.  The
    method is "resampling" if the p-value or the interval came from random resamples, else "exact" if either
    came from enumerated sign patterns, else "one-pass" if either came from the normal approximation, else
    "analytic"."""
    n = np.asarray(n)
    one_pass, flat, nonzero = (np.asarray(a, dtype=bool) for a in (one_pass, flat, nonzero))
    exact = np.zeros(n.shape, dtype=bool) if exact is None else np.broadcast_to(np.asarray(exact, dtype=bool), n.shape)
    student = opt.interval == "studentized" and student_only(n, opt.alternative)
    asked = np.where(student, "t", opt.interval).astype(object)
    interval = np.where(one_pass, "signflip" if opt.interval == "signflip" else "t", asked).astype(object)
    drawn_interval = ~one_pass & ~flat & np.isin(interval, _RESAMPLED_INTERVALS)
    # the sign-flip interval enumerates all 2**n patterns when they number at most n_resamples
    enumerated_interval = drawn_interval & (interval == "signflip") & (_all_patterns(n) <= opt.n_resamples)
    approx_interval = one_pass & (interval == "signflip")
    randomization = opt.test == "randomization"
    drawn_p = np.full(n.shape, randomization) & ~one_pass & nonzero
    enumerated_p = drawn_p & exact
    approx_p = np.full(n.shape, randomization) & one_pass
    random = (drawn_interval & ~enumerated_interval) | (drawn_p & ~enumerated_p)
    method = np.where(random, "resampling",
                      np.where(enumerated_interval | enumerated_p, "exact",
                               np.where(approx_interval | approx_p, "one-pass", "analytic"))).astype(object)
    return method, interval


def row_resamples(opt: Options, method: np.ndarray, n: np.ndarray, nonzero: np.ndarray) -> list[int | None]:
    """Each row's ``n_resamples``: what was drawn or enumerated.  ``n_resamples`` on a "resampling" row; on
    an "exact" row the sign patterns enumerated, all ``2**n`` where they number at most the patterns the test
    may use (:func:`~pairedframe.comparison.options.mc_patterns`) or the sign-flip interval enumerated them,
    else the ``2**k`` of its ``k`` non-zero deltas (``nonzero``: counts; a zero delta flips to itself); None
    where nothing was drawn."""
    n, k = np.asarray(n, dtype=np.int64), np.asarray(nonzero, dtype=np.int64)
    every = _all_patterns(n)
    whole = (every <= mc_patterns(opt)) | ((opt.interval == "signflip") & (every <= opt.n_resamples))
    patterns = np.where(whole, every, _all_patterns(k))
    return [opt.n_resamples if m == "resampling" else int(p) if m == "exact" else None
            for m, p in zip(method, patterns)]


def _all_patterns(n: np.ndarray) -> np.ndarray:
    """``2**n`` per entry, capped at ``2**62`` (more than any ``n_resamples`` can ask for)."""
    return np.left_shift(np.int64(1), np.minimum(np.asarray(n, dtype=np.int64), 62))


def one_pass_rows(rows: pl.DataFrame, opt: Options) -> np.ndarray:
    """Indices (``_row``) of the comparisons that may be computed in one pass: more than :data:`LARGE_N`
    non-zero deltas (``n_queries - ties``), under ``resampling="auto"`` -- or at any setting when nothing
    would be resampled (:func:`draws_nothing`: the same statistics either way).  Under resampling,
    :func:`row_statistics` keeps those whose moments also show ``n_eff >= LARGE_N_EFF``."""
    if not (opt.one_pass or draws_nothing(opt)):
        return np.zeros(0, dtype=np.int64)
    nonzero = rows["n_queries"].to_numpy().astype(np.int64) - rows["ties"].to_numpy().astype(np.int64)
    return rows["_row"].to_numpy().astype(np.int64)[nonzero > LARGE_N]


def moments_table(paired: pl.DataFrame, chosen: np.ndarray) -> pl.DataFrame:
    """``_row, n, mean, sd, mean_square, m2, m3, ptp, max_abs, n_eff`` of the deltas of the ``chosen`` rows
    of ``paired`` (``_row, delta``), one grouped pass (central moments within each group, as numpy's
    two-pass; ``n_eff`` of the deltas scaled by their largest |delta|, so no power under- or overflows)."""
    d = pl.col("delta")
    dev = d - d.mean()
    u2 = (d / d.abs().max()) ** 2
    part = paired if len(chosen) == paired["_row"].n_unique() else paired.filter(pl.col("_row").is_in(chosen.tolist()))
    return (part.group_by("_row").agg(
        pl.len().alias("n"), d.mean().alias("mean"), d.std(ddof=1).alias("sd"), (d * d).mean().alias("mean_square"),
        (dev * dev).mean().alias("m2"), (dev * dev * dev).mean().alias("m3"), (d.max() - d.min()).alias("ptp"),
        d.abs().max().alias("max_abs"), (u2.sum() ** 2 / (u2 * u2).sum()).alias("n_eff")).sort("_row"))


def from_moments(m: pl.DataFrame, opt: Options) -> ComparisonStats:
    """The statistics of comparisons from their moments (:func:`moments_table`'s columns), by :func:`pairedframe.stats.moments.one_pass_statistics`."""
    col = {c: m[c].to_numpy().astype(np.float64) for c in ("n", "mean", "sd", "mean_square", "m2", "m3")}
    flat = m["ptp"].to_numpy() <= ZERO_SPREAD_RTOL * m["max_abs"].to_numpy()
    sd = np.where(flat, 0.0, col["sd"])
    res = one_pass_statistics(col["n"], col["mean"], sd, col["mean_square"], flat, test=opt.test,
                              interval=opt.interval, alternative=opt.alternative,
                              confidence_level=opt.confidence_level)
    floor = np.array([smallest_pvalue("t", False, int(n), opt.alternative, opt.n_resamples, bool(f))
                      for n, f in zip(col["n"], flat)])
    return ComparisonStats(delta=col["mean"], ci_low=res["ci_low"], ci_high=res["ci_high"], se=res["se"],
                           pvalue=res["pvalue"], sd=sd, floor=floor, exact=res["exact"], zero_spread=flat,
                           skewness=skewness_from_moments(col["m2"], col["m3"], col["n"], flat))


def row_statistics(paired: pl.DataFrame, rows: pl.DataFrame, opt: Options) -> tuple[ComparisonStats, np.ndarray]:
    """Statistics arrays over every comparison of ``rows`` (``_row, n_queries, ties``, sorted by ``_row``;
    NaN / false where the resampling path fills them in), with the one-pass comparisons
    (:func:`one_pass_rows`) already computed from ``paired`` (``_row, delta``), and their indices."""
    return _fill(rows, opt, lambda large: moments_table(paired, large))


def engine_row_statistics(rows: pl.DataFrame, opt: Options) -> tuple[ComparisonStats, np.ndarray]:
    """:func:`row_statistics` of the in-engine backend, from the moments the engine returned per comparison
    (``rows``: ``_row, n_queries, ties, delta, dmin, dmax, max_abs, ss, s3, u2, u4``; sums of squared and
    cubed deviations ``ss, s3`` and of the 2nd and 4th powers ``u2, u4`` of the deltas over their largest
    |delta|), so no delta leaves the engine."""
    def moments(large: np.ndarray) -> pl.DataFrame:
        n = pl.col("n_queries").cast(pl.Float64)
        return rows.filter(pl.col("_row").is_in(large.tolist())).select(
            "_row", n.alias("n"), pl.col("delta").alias("mean"), (pl.col("ss") / (n - 1)).sqrt().alias("sd"),
            (pl.col("ss") / n + pl.col("delta") ** 2).alias("mean_square"), (pl.col("ss") / n).alias("m2"),
            (pl.col("s3") / n).alias("m3"), (pl.col("dmax") - pl.col("dmin")).alias("ptp"), "max_abs",
            (pl.col("u2") ** 2 / pl.col("u4")).alias("n_eff")).sort("_row")
    return _fill(rows, opt, moments)


def _fill(rows: pl.DataFrame, opt: Options, moments) -> tuple[ComparisonStats, np.ndarray]:
    stats = ComparisonStats.unfilled(rows.height, one_pass=np.zeros(rows.height, dtype=bool))
    large = one_pass_rows(rows, opt)
    if large.size:
        m = moments(large)
        if not draws_nothing(opt):        # few deltas carry the variance: the normal limit is not reached
            m = m.filter(pl.col("n_eff") >= LARGE_N_EFF)
            large = m["_row"].to_numpy().astype(np.int64)
    if large.size:
        stats.put(large, from_moments(m, opt))
        stats.one_pass[large] = True
    return stats, large
