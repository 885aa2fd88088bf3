"""Bootstrap confidence intervals for the mean of paired deltas.

Two kernels share one resample stream (:func:`pairedframe.stats.resample.bootstrap_index_chunks`):

- :func:`bootstrap_mean` (one column) gathers ``x[idx].mean(axis=-1)``, which
  is exactly what :func:`scipy.stats.bootstrap` computes with
  ``statistic=np.mean``; with the same generator state its percentile interval
  and standard error are **bit-identical** to scipy's (tested).
- :func:`bootstrap_mean_many` / :func:`bootstrap_means_matrix` (many columns:
  systems x measures over one query set) turn each index chunk into a counts
  matrix ``C`` (``C[r, i]`` = how often query ``i`` is in resample ``r``) and
  compute all resampled means with one matmul ``C @ X / n``.  One index draw
  serves every column.  The matmul is applied to fixed-shape blocks of
  :func:`~pairedframe.stats.resample.kernel_block_rows` rows aligned to global
  resample numbers (:func:`~pairedframe.stats.resample.reblock`), so results
  are bit-identical whatever ``chunk_size``.  The sum order differs from the gather kernel, so
  resampled means agree with :func:`bootstrap_mean` to ~1e-15 relative, not
  bit for bit.

Intervals: ``"percentile"`` (Efron & Tibshirani 1993, ch. 13) and ``"bca"``
(bias-corrected and accelerated, ch. 14.3; acceleration from the jackknife,
eq. 14.15, which for the mean reduces to ``sum(u**3) / (6 * sum(u**2)**1.5)``
with ``u = x - mean(x)``).  Both under-cover at small ``n``: the percentile
interval is too narrow by about ``sqrt((n-1)/n)`` on top of its normal-quantile
width, and BCa's corrections are asymptotic (second-order accuracy, Efron
1987; Hall 1992 sec. 3.10) and estimated from the same few queries.  On real
TREC deltas (docs/how/calibration.md, ``benchmarks/calibration``) BCa covers
*no better* than the percentile interval at n = 20-100 -- slightly worse at
n = 20 -- and both fall short of 0.95 where the intervals that invert a test
(:mod:`pairedframe.stats.signflip_interval`, the t interval) do not.

Quantiles use the Hyndman-Fan type 7 ("linear") definition computed with the
same floating-point formula as ``scipy.stats.quantile``.

References
----------
Efron, B. (1987). Better bootstrap confidence intervals. *JASA* 82(397).
Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*.
Chapman & Hall.
Hall, P. (1992). *The Bootstrap and Edgeworth Expansion*. Springer.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable

import numpy as np
from scipy.special import ndtr, ndtri

from pairedframe.errors import USE_SEED, renamed_keywords, user_stacklevel

from .results import BootstrapResult, ConfidenceInterval
from .resample import (_check_1d, _check_2d, _check_alternative, _check_chunk_size,
                       check_int, _column_means, _check_probability, bootstrap_index_chunks,
                       kernel_block_rows, reblock)

__all__ = [
    "bootstrap_mean",
    "bootstrap_mean_many",
    "bootstrap_means_matrix",
    "percentile_interval",
]

_METHODS = ("percentile", "bca")


def _quantile_linear_sorted(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Type-7 quantiles of sorted ``y`` (..., B) at probabilities ``p`` (..., q).

    Same arithmetic as scipy.stats.quantile(method='linear'): j = floor(p*B + 1 - p) - 1,
    g = frac(p*B + 1 - p), result (1-g)*y[j] + g*y[j+1], indices clipped.
    """
    n = float(y.shape[-1])
    jg = p * n + (1 - p)
    jp1 = jg // 1
    j = jp1 - 1
    g = jg % 1
    g = np.where(j < 0, 0.0, g)
    j = np.clip(j, 0.0, n - 1)
    jp1 = np.clip(jp1, 0.0, n - 1)
    return ((1 - g) * np.take_along_axis(y, j.astype(np.int64), axis=-1)
            + g * np.take_along_axis(y, jp1.astype(np.int64), axis=-1))


def _alpha(confidence_level: float, alternative: str) -> float:
    return (1 - confidence_level) / 2 if alternative == "two-sided" else (1 - confidence_level)


def interval_from_probs(theta_b: np.ndarray, probs: np.ndarray,
                         alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """theta_b (k, B); probs (k, 2) -> (low, high) arrays of shape (k,)."""
    y = np.sort(theta_b, axis=-1)
    nan_p = np.isnan(probs)
    ci = _quantile_linear_sorted(y, np.where(nan_p, 0.5, probs))
    ci[nan_p] = np.nan
    low, high = ci[..., 0], ci[..., 1]
    if alternative == "less":
        low = np.full_like(low, -np.inf)
    elif alternative == "greater":
        high = np.full_like(high, np.inf)
    return low, high


def percentile_interval(theta_b, *, confidence_level: float = 0.95,
                        alternative: str = "two-sided") -> ConfidenceInterval:
    """Percentile interval from a bootstrap distribution.

    Parameters
    ----------
    theta_b : array_like, shape (B,) or (k, B)
        Bootstrap replicates (last axis = resamples), e.g. from
        :func:`bootstrap_means_matrix` transposed.
    confidence_level : float in (0, 1)
    alternative : {"two-sided", "less", "greater"}
        One-sided intervals put all of ``1 - confidence_level`` in one tail
        and have an infinite other bound, as scipy.

    Returns
    -------
    ConfidenceInterval
        Floats for 1-D input, arrays of shape (k,) for 2-D input.
    """
    confidence_level = _check_probability(confidence_level, "confidence_level")
    alternative = _check_alternative(alternative)
    tb = np.asarray(theta_b, dtype=np.float64)
    one = tb.ndim == 1
    tb = np.atleast_2d(tb)
    a = _alpha(confidence_level, alternative)
    probs = np.broadcast_to(np.array([a, 1 - a]), (tb.shape[0], 2))
    low, high = interval_from_probs(tb, probs, alternative)
    if one:
        return ConfidenceInterval(float(low[0]), float(high[0]))
    return ConfidenceInterval(low, high)


def _bca_probs(x_cols: np.ndarray, theta_hat: np.ndarray, theta_b: np.ndarray,
               alpha: float) -> np.ndarray:
    """BCa probability levels (k, 2) for the mean of each column of x_cols (n, k)."""
    k = x_cols.shape[1]
    B = theta_b.shape[1]
    below = np.count_nonzero(theta_b < theta_hat[:, None], axis=1)
    below_eq = np.count_nonzero(theta_b <= theta_hat[:, None], axis=1)
    pct = (below + below_eq) / (2 * B)
    u = x_cols - x_cols.mean(axis=0)
    # a_hat is scale-invariant: normalise to avoid under/overflow of u**3, u**2
    umax = np.max(np.abs(u), axis=0)
    u = u / np.where(umax > 0, umax, 1.0)
    s2 = np.sum(u ** 2, axis=0)
    s3 = np.sum(u ** 3, axis=0)
    z_alpha = float(ndtri(alpha))
    probs = np.empty((k, 2))
    for c in range(k):
        z0 = float(ndtri(pct[c]))
        a_hat = s3[c] / (6.0 * s2[c] ** 1.5) if s2[c] > 0 else math.nan
        out = []
        for z in (z_alpha, -z_alpha):
            num = z0 + z
            with np.errstate(all="ignore"):
                out.append(float(ndtr(z0 + num / (1 - a_hat * num))))
        probs[c] = out
    return probs


def bootstrap_means_matrix(X, index_chunks: Iterable[np.ndarray]) -> np.ndarray:
    """Resampled column means of ``X`` for every resample in ``index_chunks``.

    This is the shared-resample-index kernel: every column is resampled with
    the same query indices, and each chunk costs one ``bincount`` plus one
    matmul ``counts @ X / n`` regardless of the number of columns.

    Parameters
    ----------
    X : array_like, shape (n, k)
        Per-query values (e.g. deltas), one column per system pair x measure.
    index_chunks : iterable of int arrays, each shape (rows, n)
        E.g. :func:`pairedframe.stats.resample.bootstrap_index_chunks`.

    Returns
    -------
    ndarray, shape (total_rows, k)
        Row r holds the means of all columns under resample r.

    Raises
    ------
    ValueError
        If a chunk is not 2-D with ``n`` columns or holds indices outside ``[0, n)``.
    """
    X = _check_2d(X, "X")
    n = X.shape[0]

    def checked():
        for idx in index_chunks:
            idx = np.asarray(idx)
            if idx.ndim != 2 or idx.shape[1] != n:
                raise ValueError(f"index chunks must have shape (rows, {n}), got {idx.shape}")
            if idx.size and (idx.min() < 0 or idx.max() >= n):
                raise ValueError(f"index chunk holds indices outside [0, {n})")
            yield idx.astype(np.int64, copy=False)

    out = [_chunk_means(X, block)[:valid]
           for block, valid in reblock(checked(), kernel_block_rows(n))]
    if not out:
        return np.empty((0, X.shape[1]))
    return np.concatenate(out, axis=0)


def _chunk_means(X: np.ndarray, idx: np.ndarray) -> np.ndarray:
    rows, n = idx.shape
    flat = (idx + (np.arange(rows, dtype=np.int64) * n)[:, None]).ravel()
    counts = np.bincount(flat, minlength=rows * n).reshape(rows, n).astype(np.float64)
    return (counts @ X) / n


def _validate_common(n_resamples, confidence_level, method, alternative):
    n_resamples = check_int(n_resamples, "n_resamples", minimum=2)
    confidence_level = _check_probability(confidence_level, "confidence_level")
    if method not in _METHODS:
        raise ValueError(f"`method` must be one of {_METHODS}, got {method!r}")
    alternative = _check_alternative(alternative)
    return n_resamples, confidence_level, method, alternative


@renamed_keywords(rng=USE_SEED)
def bootstrap_mean(x, *, n_resamples: int = 10_000, confidence_level: float = 0.95,
                   method: str = "percentile", alternative: str = "two-sided",
                   seed=None, chunk_size: int | None = None) -> BootstrapResult:
    """Bootstrap confidence interval and standard error of the mean of ``x``.

    Parameters
    ----------
    x : array_like, shape (n,)
        Per-query deltas (A - B), finite, ``n >= 2``.
    n_resamples : int, default 10_000
        Number of bootstrap resamples (>= 2).
    confidence_level : float in (0, 1), default 0.95
    method : {"percentile", "bca"}, default "percentile"
        ``"bca"`` corrects bias and skewness to second order asymptotically; at
        the 20-100 queries of TREC collections it covers no better than the
        percentile interval (module docstring).
    alternative : {"two-sided", "less", "greater"}
        As in scipy: one-sided intervals have an infinite bound.
    seed : None, int, SeedSequence or Generator
        Source of the resample indices; a Generator is advanced in place.
    chunk_size : int, optional
        Resample rows processed at once (memory knob; results do not depend on it).

    Returns
    -------
    BootstrapResult
        ``statistic`` = ``np.mean(x)``; ``standard_error`` = std (ddof=1) of the
        resampled means.  With ``seed`` in the same state,
        ``scipy.stats.bootstrap((x,), np.mean, method='percentile',
        n_resamples=n_resamples, seed=seed)`` gives the same interval and
        standard error bit for bit (any scipy ``batch``), and ``method='BCa'``
        agrees to ~1e-12.

    Notes
    -----
    Constant ``x`` gives a zero-width interval at the mean and zero standard
    error (also for BCa, where the acceleration is 0/0).  If the BCa bias
    correction is infinite (every resampled mean on one side of the estimate,
    only possible for tiny n), the interval is NaN and a ``RuntimeWarning`` is
    issued, as in scipy.

    Raises
    ------
    InsufficientSampleError
        If ``n < 2``.
    ValueError, TypeError
        On non-finite data or invalid options.

    References
    ----------
    Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*,
    ch. 13 (percentile) and 14.3 (BCa).
    """
    x = _check_1d(x, "x", min_n=2)
    n_resamples, confidence_level, method, alternative = _validate_common(
        n_resamples, confidence_level, method, alternative)
    n = x.shape[0]
    chunk_size = _check_chunk_size(chunk_size, n)
    theta_b = np.empty(n_resamples)
    pos = 0
    for idx in bootstrap_index_chunks(n, n_resamples, seed=seed, chunk_size=chunk_size):
        rows = idx.shape[0]
        theta_b[pos:pos + rows] = np.mean(x[idx], axis=-1)
        pos += rows
    theta_hat = np.mean(x)
    low, high = _finish(x[:, None], np.atleast_1d(theta_hat), theta_b[None, :],
                        confidence_level, method, alternative)
    se = np.std(theta_b, ddof=1)
    if np.ptp(x) == 0:
        se = 0.0
    return BootstrapResult(statistic=float(theta_hat),
                           confidence_interval=ConfidenceInterval(float(low[0]), float(high[0])),
                           standard_error=float(se), n_resamples=n_resamples,
                           confidence_level=confidence_level, method=method, alternative=alternative)


def _finish(X, theta_hat, theta_b, confidence_level, method, alternative):
    """Intervals for columns: X (n, k), theta_hat (k,), theta_b (k, B)."""
    a = _alpha(confidence_level, alternative)
    constant = np.ptp(X, axis=0) == 0
    if method == "bca":
        probs = _bca_probs(X, theta_hat, theta_b, a)
        probs[constant] = [a, 1 - a]
        bad = np.isnan(probs).any(axis=1) & ~constant
        if bad.any():
            warnings.warn("The BCa confidence interval cannot be calculated (infinite bias "
                          "correction: the bootstrap distribution lies on one side of the "
                          "estimate); returning NaN.", RuntimeWarning, stacklevel=user_stacklevel())
    else:
        probs = np.broadcast_to(np.array([a, 1 - a]), (theta_b.shape[0], 2))
    low, high = interval_from_probs(theta_b, probs, alternative)
    # constant columns: zero-width interval at the mean
    if constant.any():
        low = np.where(constant & np.isfinite(low), theta_hat, low)
        high = np.where(constant & np.isfinite(high), theta_hat, high)
    return low, high


@renamed_keywords(rng=USE_SEED)
def bootstrap_mean_many(X, *, n_resamples: int = 10_000, confidence_level: float = 0.95,
                        method: str = "percentile", alternative: str = "two-sided",
                        seed=None, chunk_size: int | None = None) -> BootstrapResult:
    """Bootstrap the means of many columns with ONE shared resample-index stream.

    Every column (e.g. system pair x measure over the same query set) is
    resampled with the same query indices, so intervals of different columns
    are jointly consistent, and the draw cost is paid once.

    Parameters
    ----------
    X : array_like, shape (n, k)
        Per-query deltas, one column per comparison; finite, ``n >= 2``.
    n_resamples, confidence_level, method, alternative, seed, chunk_size
        As :func:`bootstrap_mean`.

    Returns
    -------
    BootstrapResult
        ``statistic``, interval bounds and ``standard_error`` are arrays of
        shape (k,).  Column ``c`` equals ``bootstrap_mean(X[:, c])`` for the
        same ``seed`` state up to ~1e-15 relative rounding (the matmul kernel
        sums in a different order).  Constant columns get zero-width intervals.

    Raises
    ------
    InsufficientSampleError
        If ``n < 2``.
    """
    X = _check_2d(X, "X", min_n=2)
    n_resamples, confidence_level, method, alternative = _validate_common(
        n_resamples, confidence_level, method, alternative)
    n = X.shape[0]
    chunk_size = _check_chunk_size(chunk_size, n)
    chunks = bootstrap_index_chunks(n, n_resamples, seed=seed, chunk_size=chunk_size)
    if X.shape[1] == 1:
        # one column: the gather kernel of bootstrap_mean is ~2x faster than counts @ X and
        # bit-identical to bootstrap_mean (hence to scipy)
        x = np.ascontiguousarray(X[:, 0])
        theta_b = np.concatenate([np.mean(x[idx], axis=-1) for idx in chunks])[None, :]
    else:
        theta_b = bootstrap_means_matrix(X, chunks).T
    theta_hat = _column_means(X)
    constant = np.ptp(X, axis=0) == 0
    theta_b[constant] = theta_hat[constant, None]
    low, high = _finish(X, theta_hat, theta_b, confidence_level, method, alternative)
    se = np.std(theta_b, axis=1, ddof=1)
    se[constant] = 0.0
    return BootstrapResult(statistic=theta_hat, confidence_interval=ConfidenceInterval(low, high),
                           standard_error=se, n_resamples=n_resamples,
                           confidence_level=confidence_level, method=method, alternative=alternative)
