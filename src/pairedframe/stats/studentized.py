"""Studentized (bootstrap-t) interval of the mean delta: symmetric, stabilised, its quantile capped.

Each bootstrap resample ``b`` gives ``T*_b = (mean*_b - mean) / max(se*_b, se / 2)`` with ``se*_b`` the
resample's own ``sd(ddof=1) / sqrt(n)`` and ``se`` the sample's; the interval is ``mean -/+ q * se``
where ``q`` is the upper ``alpha`` point of ``|T*|`` (Hall 1988, 1992 sec. 3.6: the *symmetric*
bootstrap-t, whose two-sided coverage error is ``O(n^-2)`` against ``O(n^-1)`` for the equal-tailed
one and the percentile interval), at most :data:`MAX_QUANTILE_RATIO` (1.5) times Student's t quantile
with ``n - 1`` degrees of freedom.  ``q`` is the ``k``-th largest ``|T*|``, ``k`` the least count whose
bootstrap-t p-value ``(1 + #{|T*| >= |t|}) / (B + 1)`` (Efron & Tibshirani 1993, sec. 16.4) is
``>= alpha``.  One-sided intervals use the matching tail of ``T*`` (``"greater"``:
``[mean - q_hi * se, inf)`` with ``q_hi`` the ``k``-th largest ``T*``).

Why the floor and the cap
-------------------------
Hall's ``T*_b`` divides by the resample's own SE.  Where one or a few deltas dominate the mean, about
``(1 - 1/n)**n ~ e**-1`` of the resamples leave the dominant one out: their SE is tiny, their ``|T*|``
reaches 20-30 (infinite when the rest tie exactly), and the symmetric form copies that tail to both
sides.  That quantile measures the resamples, not the sampling variability of the mean: on 19 or 29
deltas near 0.02 and one of 0.9 Hall's interval is a median 10.8 / 9.8 times as wide as the t
interval, and eleven deltas of 0.01 with one of 0.5 give (-inf, inf).  A resample whose SE is below
half the sample's has left out the values that carry the spread -- for normal data an SE that small
has probability ``P(chi2(19) < 19 / 4) < 1 / 2,500`` at n = 20 -- so its ``T*`` is studentized by
``se / 2`` instead (:data:`MIN_SE_RATIO`); the dominant-delta samples then get about the t interval.
With fewer than :data:`MIN_BOOTSTRAP_N` (5) values the interval is Student's t interval: n values have
only ``C(2n - 1, n)`` distinct resamples (10 at n = 3), too few for a 95 % quantile.  A one-sided interval
is Student's t bound below :data:`MIN_ONE_SIDED_BOOTSTRAP_N` (20) values: there the bootstrap-t's one tail
covered less than t's on real TREC deltas (0.933-0.939 against 0.942-0.949 at 0.95, pooled at n = 5-15).
The cap is a guarantee on top (never more than 1.5 times the t interval's width); with the floor it
bound on none of the real nDCG@10 / AP samples and on at most 1.4 % of the RR@10 ones.  On real TREC deltas the stabilised interval covers
as Hall's does (at most 0.002 less in any cell, half an MC SE); ``benchmarks/calibration --section
paired`` prints both, the other candidates considered (the equal-tailed form, the cap alone, a fall-back
to the t interval or to the sign-flip inversion where Hall's quantile passes the cap) and the spiky
cells (README "Calibration").  Polansky (2000) is the reference for stabilising small-sample
bootstrap-t intervals; the floor rule here is this package's own.

Resamples draw from the stream of :func:`pairedframe.stats.bootstrap.bootstrap_mean_many` (same
``seed`` => same indices).  A resample whose drawn values span at most ``1e-12`` of the data's scale
is constant: its ``T*`` is 0 if its mean equals the sample's (to that tolerance), else
``(mean*_b - mean) / (se / 2)`` (infinite in Hall's form).

On real per-query deltas (DL-2019, DL-2021, Robust03, nDCG@10 and AP, 3,000 samples per cell) it
covers 0.945-0.959 at n = 20, 0.952-0.956 at 50 and 0.950-0.955 at 100, where the t interval covers
0.935-0.951 at n = 20; its median width is 1.02-1.04 times the t interval's at n = 20 and 1.00-1.01 at
n = 100.  On RR@10 deltas (most DL pairs tie on most queries) it covers 0.950-0.962 at n = 20-100 at
1.00-1.08 times t's width (t: 0.875-0.949; Hall's: unbounded on 18 % of the samples of 20).  With ``B`` too
few for the level the interval is the cap: on the same collections it covers 0.999-1.000 at 99.9 % with
B = 100 and 0.988-0.997 at 95 % with B = 18, at 1.5 times t's width (``benchmarks/calibration --section
too_few``).

References
----------
Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, ch. 12.5 and 16.4.
Hall, P. (1988). Theoretical comparison of bootstrap confidence intervals. *Ann. Statist.* 16(3).
Hall, P. (1992). *The Bootstrap and Edgeworth Expansion*, sec. 3.6. Springer.
Polansky, A. M. (2000). Stabilizing bootstrap-t confidence intervals for small samples. *Canadian
Journal of Statistics* 28(3), 501-516.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import stdtrit

from pairedframe.errors import USE_SEED, renamed_keywords

from .results import BootstrapResult, ConfidenceInterval
from .resample import (_check_2d, _check_alternative, _check_chunk_size, check_int, _check_probability,
                       _column_means, bootstrap_index_chunks, kernel_block_rows, reblock)
from .signflip_interval import least_count, too_few_resamples

__all__ = ["studentized_bootstrap_many", "ZERO_SPREAD_RTOL", "MIN_SE_RATIO", "MAX_QUANTILE_RATIO", "MIN_BOOTSTRAP_N",
           "MIN_ONE_SIDED_BOOTSTRAP_N", "student_only", "student_interval", "zero_spread", "studentize", "symmetric_interval",
           "quantile_cap"]

#: A spread (max - min) of at most this fraction of the values' magnitude is float noise: zero spread.
ZERO_SPREAD_RTOL: float = 1e-12
#: Least studentizing SE of a resample, as a fraction of the sample's ``sd / sqrt(n)`` (module docstring:
#: a resample below it has left out the few values that carry the spread).
MIN_SE_RATIO: float = 0.5
#: Largest ratio of the bootstrap-t quantile to Student's t quantile (n - 1 df) the interval uses: the
#: interval is never more than this many times as wide as the t interval.
MAX_QUANTILE_RATIO: float = 1.5
#: Below this many deltas the interval is Student's t interval: n values have only C(2n - 1, n) distinct
#: resamples (35 at n = 4), too few for a 95 % quantile of |T*|; on real TREC deltas the bootstrap-t covered
#: 0.70-0.74 at n = 2, 0.88-0.90 at 3, 0.91-0.94 at 4 where t covered 0.93-0.96 (calibration study small_n).
MIN_BOOTSTRAP_N: int = 5
#: Below this many deltas a one-sided interval (``alternative="greater"`` / ``"less"``) is Student's t bound: on
#: real TREC deltas at level 0.95 the bootstrap-t's one-sided tail covered 0.933-0.939 pooled at n = 5-15 where
#: t covered 0.942-0.949 (calibration study one_sided_small_n; docs/results/calibration_one_sided_small_n.md).
MIN_ONE_SIDED_BOOTSTRAP_N: int = 20


def student_only(n, alternative: str):
    """Whether the interval of ``n`` deltas is Student's t interval rather than the bootstrap-t: fewer than
    :data:`MIN_BOOTSTRAP_N`, or fewer than :data:`MIN_ONE_SIDED_BOOTSTRAP_N` for a one-sided ``alternative``."""
    least = MIN_BOOTSTRAP_N if alternative == "two-sided" else MIN_ONE_SIDED_BOOTSTRAP_N
    return np.asarray(n) < least


def student_interval(mean: np.ndarray, se: np.ndarray, flat: np.ndarray, n: int, confidence_level: float,
                     alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of :func:`symmetric_interval` where :func:`student_only` holds for ``n`` deltas (Student's
    quantile, whatever the resamples), without a resample: callers that own their stream skip its draws."""
    empty = np.empty((0, np.asarray(mean).shape[0]))
    return symmetric_interval(empty, mean, se, flat, 2, confidence_level, alternative, df=n - 1)


def quantile_cap(df, confidence_level: float, alternative: str,
                 max_quantile_ratio: float | None = MAX_QUANTILE_RATIO) -> np.ndarray:
    """The largest bootstrap-t quantile used: ``max_quantile_ratio`` times Student's t quantile with
    ``df`` degrees of freedom at the interval's level (two-sided: ``(1 + level) / 2``); ``inf`` when
    ``max_quantile_ratio`` is None (Hall's uncapped interval) and where Student's quantile is not positive
    (a one-sided level <= 0.5: a multiple of a quantile <= 0 bounds no width, and once capped the bound
    at 0.5 was the estimate itself, at lower levels beyond Student's)."""
    df = np.asarray(df, dtype=np.float64)
    if max_quantile_ratio is None:
        return np.full(df.shape, np.inf)
    student = _student_quantile(df, confidence_level, alternative)
    return np.where(student > 0, max_quantile_ratio * student, np.inf)


def _student_quantile(df, confidence_level: float, alternative: str) -> np.ndarray:
    """Student's t quantile with ``df`` degrees of freedom at the interval's level (two-sided: ``(1 + level) / 2``)."""
    level = 0.5 + confidence_level / 2.0 if alternative == "two-sided" else confidence_level
    return stdtrit(np.asarray(df, dtype=np.float64), level)


def zero_spread(X) -> np.ndarray:
    """Columns of ``X`` (n, k) whose spread is float noise: ``ptp <= 1e-12 * max|x|`` (all-zero included)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    return np.ptp(X, axis=0) <= ZERO_SPREAD_RTOL * np.max(np.abs(X), axis=0)


def studentize(mean: np.ndarray, var: np.ndarray, spread: np.ndarray, scale: float, n: int,
               se_floor: float = 0.0) -> np.ndarray:
    """``T*`` of bootstrap resamples of centred values from their mean, variance (divisor ``n``) and
    the spread (max - min) of the values drawn; ``scale`` is the column's ``max |centred value|``;
    ``se_floor`` the least studentizing SE (:data:`MIN_SE_RATIO` times the sample's; 0: none).

    A resample whose drawn values span at most ``1e-12 * scale`` is constant: ``T*`` is 0 if its mean
    is 0 to that tolerance, else ``mean / se_floor`` (infinite with the mean's sign without a floor).
    """
    se = np.maximum(np.sqrt(var * (n / (n - 1.0)) / n), se_floor)
    constant = spread <= ZERO_SPREAD_RTOL * scale
    same = np.abs(mean) <= ZERO_SPREAD_RTOL * scale
    unfloored = constant & ~(se_floor > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(constant & same, 0.0, np.where(unfloored, np.copysign(np.inf, mean), mean / se))


def symmetric_interval(t_star: np.ndarray, mean: np.ndarray, se: np.ndarray, flat: np.ndarray,
                       n_resamples: int, confidence_level: float, alternative: str, *, df: float,
                       max_quantile_ratio: float | None = MAX_QUANTILE_RATIO) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of the symmetric bootstrap-t interval from ``T*`` (B, k), the means, the
    studentizing SEs and the zero-spread columns (those get ``[mean, mean]``), its quantile capped at
    :func:`quantile_cap` (``df``: Student's degrees of freedom, ``n - 1``): the rule of
    :func:`studentized_bootstrap_many`."""
    k = mean.shape[0]
    alpha = 1.0 - confidence_level
    need = least_count(alpha, n_resamples, False)
    cap = quantile_cap(df, confidence_level, alternative, max_quantile_ratio)
    if student_only(df + 1, alternative):   # too few queries: Student's quantile (MIN_BOOTSTRAP_N, MIN_ONE_SIDED_...)
        t_star = np.broadcast_to(_student_quantile(df, confidence_level, alternative), (1, k))
        t_star = -t_star if alternative == "less" else t_star
        need = 1                       # Student's quantile needs no resamples
    elif too_few_resamples(alpha, n_resamples) and np.all(np.isfinite(cap)):
        # too few resamples to estimate the quantile at this level ((B + 1) * alpha <= 1, need == 0): it is
        # beyond every resample's |T*|, so the capped quantile can only be the cap -- never wider than cap x t's
        t_star = np.broadcast_to(cap, (1, k))
        t_star = -t_star if alternative == "less" else t_star
        need = 1
    low = np.full(k, -np.inf)
    high = np.full(k, np.inf)
    # a one-sided bound above level 0.5 stays on the estimate's side: near 0.5 the quantile of T* is its centre,
    # which the skew of the resamples (or Monte-Carlo noise) can push past 0
    floor = 0.0 if confidence_level > 0.5 else -np.inf
    with np.errstate(invalid="ignore"):      # q = inf times se = 0 on zero-spread columns, set to the mean below
        if need > 0 and alternative == "two-sided":
            q = np.minimum(-np.partition(-np.abs(t_star), need - 1, axis=0)[need - 1], cap)
            low, high = mean - q * se, mean + q * se
        elif need > 0 and alternative == "greater":
            low = mean - np.maximum(np.minimum(-np.partition(-t_star, need - 1, axis=0)[need - 1], cap), floor) * se
        elif need > 0:
            high = mean + np.maximum(np.minimum(-np.partition(t_star, need - 1, axis=0)[need - 1], cap), floor) * se
        low = np.where(flat & np.isfinite(low), mean, low)
        high = np.where(flat & np.isfinite(high), mean, high)
        low = np.where(np.isnan(low), -np.inf, low)      # q = inf and se = 0 cannot happen together
        high = np.where(np.isnan(high), np.inf, high)
    return low, high


#: A resample whose variance from moments is at most this fraction of its mean square lost more than
#: 4 of its ~16 digits to cancellation (or is constant): its T* is recomputed from the drawn values.
_CANCELLATION = 1e-4


def _t_star(Xc: np.ndarray, index_chunks, n: int, se_floor: np.ndarray | None = None) -> np.ndarray:
    """T*_b for every resample (B, k) of the centred columns Xc (n, k); each resample's SE at least
    ``se_floor`` (k,) (default 0: Hall's T*).

    Resample means and mean squares come from a gather (one column) or one matmul of the resample
    counts with ``[Xc, Xc**2]`` (all columns at once).  Where the variance is tiny against the mean
    square (cancellation, or a constant resample) it is recomputed about the resample's smallest
    drawn value, and a resample whose drawn values span at most ``1e-12`` of the column's scale is
    constant (:func:`studentize`).
    """
    k = Xc.shape[1]
    floor = np.zeros(k) if se_floor is None else np.asarray(se_floor, dtype=np.float64)
    scale = np.max(np.abs(Xc), axis=0)
    packed = Xc[:, 0] + 1j * (Xc[:, 0] * Xc[:, 0]) if k == 1 else None   # x and x**2 in one gather
    both = None if k == 1 else np.ascontiguousarray(np.concatenate([Xc, Xc * Xc], axis=1))
    out = []
    for block, valid in reblock(index_chunks, kernel_block_rows(n)):
        if packed is not None:       # one column: a gather is ~2x faster than bincount + matmul
            z = packed[block].mean(axis=1)
            m, m2 = z.real[:, None], z.imag[:, None]
        else:
            moments = (_counts(block, n) @ both) / n
            m, m2 = moments[:, :k], moments[:, k:]
        var = np.maximum(m2 - m * m, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = m / np.maximum(np.sqrt(var * (n / (n - 1.0)) / n), floor)
        suspect = var <= _CANCELLATION * m2
        for c in np.flatnonzero(suspect.any(axis=0)):
            r = np.flatnonzero(suspect[:, c])
            t[r, c] = _t_star_exact(Xc[:, c], _counts(block[r], n), m[r, c], scale[c], n, floor[c])
        out.append(t[:valid])
    return np.concatenate(out, axis=0) if out else np.empty((0, k))


def _counts(block: np.ndarray, n: int) -> np.ndarray:
    """How often each of the n observations is drawn in each resample row of ``block`` (rows, n)."""
    rows = block.shape[0]
    flat = (block + (np.arange(rows, dtype=np.int64) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)


def _t_star_exact(x: np.ndarray, counts: np.ndarray, mean: np.ndarray, scale: float, n: int,
                  se_floor: float = 0.0) -> np.ndarray:
    """T* of the resamples ``counts`` (r, n) of one centred column ``x``: variance about the smallest
    drawn value (no cancellation when the drawn values are close together), constants detected."""
    drawn = counts > 0
    low = np.min(np.where(drawn, x, np.inf), axis=1)
    spread = np.max(np.where(drawn, x, -np.inf), axis=1) - low
    shifted = x[None, :] - low[:, None]
    mean_shift = mean - low
    var = np.maximum(np.sum(counts * shifted * shifted, axis=1) / n - mean_shift * mean_shift, 0.0)
    return studentize(mean, var, spread, scale, n, se_floor)


def _check_ratio(value, name: str, ok, allowed: str) -> None:
    """ValueError naming ``name`` unless ``value`` is None or a real number (not bool) with ``ok(value)``."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not ok(value):
        raise ValueError(f"`{name}` must be a number {allowed} or None, got {value!r}")


@renamed_keywords(rng=USE_SEED)
def studentized_bootstrap_many(X, *, n_resamples: int = 10_000, confidence_level: float = 0.95,
                               alternative: str = "two-sided", seed=None, chunk_size: int | None = None,
                               min_se_ratio: float | None = MIN_SE_RATIO,
                               max_quantile_ratio: float | None = MAX_QUANTILE_RATIO) -> BootstrapResult:
    """Symmetric studentized (bootstrap-t) intervals of the means of many columns, one resample stream.

    Parameters
    ----------
    X : array_like, shape (n, k)
        Per-query deltas, one column per comparison; finite, ``n >= 2``.
    n_resamples : int, default 10_000
        Bootstrap resamples ``B`` (``>= 2``).
    confidence_level : float in (0, 1), default 0.95
    alternative : {"two-sided", "greater", "less"}
        One-sided intervals have an infinite bound, as scipy; with fewer than
        :data:`MIN_ONE_SIDED_BOOTSTRAP_N` (20) rows their finite bound is Student's t bound (module docstring).
    seed : None, int, SeedSequence or Generator
        Source of the resample indices (the stream of :func:`~pairedframe.stats.bootstrap.
        bootstrap_mean_many`).
    chunk_size : int, optional
        Resample rows drawn at once (memory knob; results do not depend on it).
    min_se_ratio : float in (0, 1] or None, default MIN_SE_RATIO (0.5)
        Each resample is studentized by ``max(se*_b, min_se_ratio * se)`` (the stabilised bootstrap-t,
        module docstring); None: Hall's ``se*_b``.
    max_quantile_ratio : float >= 1 or None, default MAX_QUANTILE_RATIO (1.5)
        The bootstrap-t quantile is capped at this multiple of Student's t quantile (n - 1 df), so the
        interval is never more than this many times as wide as the t interval (where that quantile is
        positive: not for a one-sided level <= 0.5, :func:`quantile_cap`) -- also when ``B`` is too
        small for the level (``(B + 1) * (1 - confidence_level) <= 1``: the quantile lies beyond every
        resample, so the capped quantile is the cap); None: no cap (then such ``B`` gives an unbounded
        interval).  With both None, Hall's interval (unbounded when many resamples are constant, as with
        mostly tied deltas).

    Returns
    -------
    BootstrapResult
        ``statistic`` (column means), ``confidence_interval`` (arrays of shape (k,)),
        ``standard_error`` = ``sd(ddof=1) / sqrt(n)`` (the studentizing SE), ``method="studentized"``.
        Columns with zero spread (:func:`zero_spread`) get ``[mean, mean]`` (callers that must not
        report certainty from float noise handle them first, as :func:`pairedframe.compare` does).

    Raises
    ------
    InsufficientSampleError
        If ``n < 2``.
    ValueError, TypeError
        On non-finite data or invalid options.

    References
    ----------
    Hall (1988), Ann. Statist. 16(3); Hall (1992), sec. 3.6; Efron & Tibshirani (1993), ch. 12.5, 16.4.
    """
    X = _check_2d(X, "X", min_n=2)
    n_resamples = check_int(n_resamples, "n_resamples", minimum=2)
    confidence_level = _check_probability(confidence_level, "confidence_level")
    alternative = _check_alternative(alternative)
    _check_ratio(max_quantile_ratio, "max_quantile_ratio", lambda v: v >= 1, ">= 1")
    _check_ratio(min_se_ratio, "min_se_ratio", lambda v: 0 < v <= 1, "in (0, 1]")
    n, k = X.shape
    chunk_size = _check_chunk_size(chunk_size, n)
    mean = _column_means(X)
    se = np.std(np.ascontiguousarray(X.T), axis=1, ddof=1) / math.sqrt(n)
    flat = zero_spread(X)
    se[flat] = 0.0
    floor = np.zeros(k) if min_se_ratio is None else min_se_ratio * se
    t_star = _t_star(X - mean, bootstrap_index_chunks(n, n_resamples, seed=seed, chunk_size=chunk_size), n, floor)
    low, high = symmetric_interval(t_star, mean, se, flat, n_resamples, confidence_level, alternative, df=n - 1,
                                   max_quantile_ratio=max_quantile_ratio)
    return BootstrapResult(statistic=mean, confidence_interval=ConfidenceInterval(low, high),
                           standard_error=se, n_resamples=n_resamples,
                           confidence_level=confidence_level, method="studentized", alternative=alternative)
