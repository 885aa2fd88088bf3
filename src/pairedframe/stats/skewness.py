"""Sample skewness of per-query deltas and Cochran's rule for the normal approximation of a mean.

Cochran (1977, sec. 2.15) gives ``n > 25 * G1**2`` (``G1`` the skewness of the values) as the sample
size above which the mean of ``n`` values is close enough to normal for 95 % statements; below it
the t-test, the sign-flip test and every interval that inverts them err in the direction of the skew.
On real per-query deltas (``benchmarks/calibration``) the rows that fail the rule are where the
tests' type-I error exceeds 5 %.

References
----------
Cochran, W. G. (1977). *Sampling Techniques*, 3rd ed., sec. 2.15. Wiley.
Joanes, D. N. & Gill, C. A. (1998). Comparing measures of sample skewness and kurtosis.
*The Statistician* 47(1), 183-189 (the adjusted estimator ``G1``).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["COCHRAN_FACTOR", "sample_skewness", "skewness_from_moments", "cochran_minimum_n", "cochran_fails"]

#: Cochran's constant: the mean of n values is treated as normal when n > 25 * skewness**2.
COCHRAN_FACTOR: float = 25.0


def sample_skewness(X) -> np.ndarray:
    """Adjusted Fisher-Pearson skewness ``G1`` of each column of ``X`` (n, k).

    ``G1 = g1 * sqrt(n (n - 1)) / (n - 2)`` with ``g1 = m3 / m2**1.5`` (central moments with divisor
    ``n``), as ``scipy.stats.skew(x, bias=False)``.  NaN when ``n < 3`` or the column has zero spread
    (at most ``1e-12`` of its magnitude).
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    n = X.shape[0]
    out = np.full(X.shape[1], np.nan)
    if n < 3:
        return out
    from .studentized import zero_spread

    u = X - np.mean(X, axis=0)
    return skewness_from_moments(np.mean(u * u, axis=0), np.mean(u * u * u, axis=0), n, zero_spread(X))


def skewness_from_moments(m2, m3, n: int | np.ndarray, flat) -> np.ndarray:
    """``G1`` of :func:`sample_skewness` from the central moments ``m2, m3`` (divisor ``n``) of columns
    of ``n`` values; NaN where ``n < 3``, ``m2 == 0`` or ``flat`` (zero spread)."""
    m2, m3 = np.asarray(m2, dtype=np.float64), np.asarray(m3, dtype=np.float64)
    n = np.broadcast_to(np.asarray(n, dtype=np.float64), m2.shape)
    ok = (n >= 3) & ~np.asarray(flat, dtype=bool) & (m2 > 0)
    out = np.full(m2.shape, np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        g1 = m3 / m2 ** 1.5 * np.sqrt(n * (n - 1.0)) / (n - 2.0)
    out[ok] = g1[ok]
    return out


def cochran_minimum_n(skewness: float) -> float:
    """``25 * skewness**2``: the sample size Cochran's rule asks for (0 for NaN skewness)."""
    return 0.0 if math.isnan(skewness) else COCHRAN_FACTOR * skewness * skewness


def cochran_fails(skewness, n) -> np.ndarray:
    """Where ``n`` values with sample skewness ``skewness`` fall short of Cochran's rule,
    ``n < 25 * skewness**2``, elementwise; false for NaN skewness (below 3 values, zero spread)."""
    g = np.asarray(skewness, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return np.asarray(n, dtype=np.float64) < COCHRAN_FACTOR * g * g
