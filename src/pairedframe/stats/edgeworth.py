"""Symmetric t quantiles corrected for skewness and kurtosis (second-order Edgeworth term).

The symmetric interval ``mean -/+ q * se`` with Student's ``t(df)`` quantile is exact for normal data;
for skewed data its two-sided coverage is short by a term of order ``1/n`` (Hall 1992, sec. 2.6,
3.5): for the studentized mean ``T``,

    P(|T| <= x) = 2 F_t(x) - 1 + (2 / n) x phi(x) [kappa (x^2 - 3) / 12 - gamma^2 (x^4 + 2 x^2 - 3) / 18]

up to ``O(n^-2)``, where ``gamma`` is the skewness and ``kappa`` the excess kurtosis of one
observation (the normal-theory part of Hall's ``q2`` is what ``F_t`` already accounts for).
:func:`edgeworth_t_quantile` takes one Newton step from the t quantile towards the ``x`` that makes
this ``1 - alpha`` (kept non-decreasing in the level), with ``gamma^2`` and ``kappa`` estimated from the sample and centred at their
expectations under normality (``E b1 = 6 (n - 2) / ((n + 1) (n + 3))``, ``E (b2 - 3) = -6 / (n + 1)``;
Joanes & Gill 1998), so a normal sample gets the t quantile on average rather than a wider one.  It
is the analytic twin of the symmetric bootstrap-t interval, without its resampling noise and without
its unbounded ends on samples with many tied values.

Calibration on real TREC deltas (``benchmarks/calibration --section clustered ppi``):
docs/how/calibration.md.

References
----------
Hall, P. (1992). *The Bootstrap and Edgeworth Expansion*. Springer, sec. 2.6 (Student's t, ``q2``)
and 3.5 (symmetric intervals).
Joanes, D. N. & Gill, C. A. (1998). Comparing measures of sample skewness and kurtosis. *J. Royal
Statist. Soc. D* 47(1), 183-189.
Abramovitch, L. & Singh, K. (1985). Edgeworth corrected pivotal statistics and the bootstrap.
*Ann. Statist.* 13(1), 116-132.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import gammaln, ndtr, ndtri, stdtr, stdtrit

from .resample import _check_probability

__all__ = ["edgeworth_t_quantile", "edgeworth_t_quantile_from_moments", "edgeworth_t_pvalue"]


def edgeworth_t_quantile(scores, df: float, *, confidence_level: float = 0.95) -> np.ndarray:
    """Two-sided quantile ``q`` for ``estimate -/+ q * se``, corrected for the scores' skew and kurtosis.

    Parameters
    ----------
    scores : array_like, shape (n,) or (n, k)
        The ``n`` i.i.d. contributions whose mean the estimate is (per-query deltas, per-cluster
        residual sums, PPI rectifier values), one column per comparison; only their shape (third and
        fourth central moments relative to the variance) is used, so any affine rescaling gives the
        same ``q``.  ``n >= 2``.
    df : float
        Degrees of freedom of the Student t reference (``n - 1``, ``G - 1``, ...); ``> 0``.
    confidence_level : float in (0, 1), default 0.95
        Two-sided level.

    Returns
    -------
    ndarray, shape () or (k,)
        ``t(df)`` quantile at ``(1 + confidence_level) / 2`` plus one Newton step of the Edgeworth
        correction (module docstring), never below the normal quantile, and non-decreasing in the
        level (the largest step over a grid of lower levels: with strong skew the step shrinks in
        the far tail).  Constant columns (zero variance) get the plain t quantile.

    Raises
    ------
    ValueError
        If ``scores`` has fewer than 2 rows or non-finite values, ``df <= 0`` or a level outside (0, 1).
    """
    x = np.asarray(scores, dtype=np.float64)
    one = x.ndim == 1
    x = x[:, None] if one else x
    if x.ndim != 2 or x.shape[0] < 2:
        raise ValueError(f"scores must have at least 2 rows, got shape {np.shape(scores)}")
    if not np.all(np.isfinite(x)):
        raise ValueError("scores must be finite")
    m2, m3, m4, spread = _central_moments(x)
    out = edgeworth_t_quantile_from_moments(m2, m3, m4, x.shape[0], df, confidence_level=confidence_level,
                                            spread=spread)
    return out[0] if one else out


def _central_moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Second, third and fourth central moments of each column of ``x`` (n, k), and whether its
    spread is more than float noise."""
    c = x - x.mean(axis=0)
    m2 = np.mean(c * c, axis=0)
    spread = m2 > (1e-12 * np.max(np.abs(x), axis=0)) ** 2
    return m2, np.mean(c ** 3, axis=0), np.mean(c ** 4, axis=0), spread


def edgeworth_t_quantile_from_moments(m2, m3, m4, n: int, df: float, *, confidence_level: float = 0.95,
                                      spread=None) -> np.ndarray:
    """:func:`edgeworth_t_quantile` from the scores' central moments (e.g. summed in an engine).

    Parameters
    ----------
    m2, m3, m4 : array_like, shape (k,)
        Second, third and fourth central moments (divided by ``n``) of each column's ``n`` scores.
    n : int
        Number of scores (``>= 2``).
    df : float
        Degrees of freedom of the t reference (``> 0``).
    confidence_level : float in (0, 1), default 0.95
    spread : array_like of bool, shape (k,), optional
        False where the scores are constant up to float noise (then the plain t quantile); default
        ``m2 > 0``.

    Returns
    -------
    ndarray, shape (k,)

    Raises
    ------
    ValueError
        If ``n < 2``, ``df <= 0`` or the level is outside (0, 1).
    """
    if n < 2:
        raise ValueError(f"need n >= 2 scores, got {n}")
    if not df > 0:
        raise ValueError(f"df must be > 0, got {df!r}")
    confidence_level = _check_probability(confidence_level, "confidence_level")
    skew2, kurt = _shape(m2, m3, m4, n, spread)
    return _quantile(confidence_level, skew2, kurt, n, df)


def edgeworth_t_pvalue(statistic: float, scores, df: float) -> float:
    """Two-sided p-value dual to the Edgeworth-corrected interval: the ``p`` at which it touches 0.

    Parameters
    ----------
    statistic : float
        ``estimate / se`` (``+-inf`` for ``se = 0`` and a non-zero estimate, NaN for 0/0).
    scores : array_like, shape (n,)
        As :func:`edgeworth_t_quantile`.
    df : float
        Degrees of freedom of the t reference.

    Returns
    -------
    float
        ``1 - L`` where ``edgeworth_t_quantile(scores, df, confidence_level=L) = |statistic|``, so the
        ``1 - alpha`` interval excludes 0 exactly when ``p < alpha``; 1 for a 0 statistic, 0 for an
        infinite one.
    """
    from scipy.optimize import brentq

    z = abs(float(statistic))
    if not z > 0:
        return 1.0
    if np.isinf(z):
        return 0.0
    x = np.asarray(scores, dtype=np.float64).reshape(-1, 1)
    m2, m3, m4, spread = _central_moments(x)
    skew2, kurt = _shape(m2, m3, m4, x.shape[0], spread)
    gap = lambda level: float(_quantile(level, skew2, kurt, x.shape[0], df)[0]) - z  # noqa: E731
    hi = 1.0 - 1e-12
    if gap(hi) < 0:      # beyond the expansion's useful range: the t p-value, which is smaller still
        return float(min(2.0 * stdtr(df, -z), 1e-12))
    return float(1.0 - brentq(gap, 0.0, hi, xtol=1e-15, rtol=1e-13))


def _shape(m2, m3, m4, n: int, spread):
    """Squared skewness and excess kurtosis, centred at their expectations under normality."""
    m2, m3, m4 = (np.atleast_1d(np.asarray(m, dtype=np.float64)) for m in (m2, m3, m4))
    spread = m2 > 0 if spread is None else np.asarray(spread, dtype=bool) & (m2 > 0)
    safe = np.where(spread, m2, 1.0)
    skew2 = np.where(spread, m3 ** 2 / safe ** 3, 0.0)
    kurt = np.where(spread, m4 / safe ** 2 - 3.0, 0.0)
    # Joanes & Gill (1998): E b1 = 6 (n - 2) / ((n + 1) (n + 3)), E (b2 - 3) = -6 / (n + 1) for normal data
    skew2 = np.maximum(skew2 - 6.0 * (n - 2) / ((n + 1) * (n + 3)), 0.0)
    kurt = np.where(spread, kurt + 6.0 / (n + 1), 0.0)
    return skew2, kurt


def _quantile(confidence_level: float, skew2, kurt, n: int, df: float) -> np.ndarray:
    """t quantile plus one Newton step towards the Edgeworth-corrected two-sided coverage, made
    non-decreasing in the level: the running maximum over a fine grid of lower levels (with strong
    skew the one-step correction shrinks in the far tail, where the normal density falls faster than
    t's, and would make a 99.9 % interval narrower than a 99 % one)."""
    levels, terms = _grid(float(df))
    below = levels < confidence_level
    here = _steps(np.array([float(stdtrit(df, 0.5 + confidence_level / 2.0))]), df, skew2, kurt, n,
                  np.array([float(ndtri(0.5 + confidence_level / 2.0))]))
    if not below.any():
        return here[0]
    grid = terms[0][below], terms[1][below]
    return np.maximum(np.max(_steps(grid[0], df, skew2, kurt, n, grid[1]), axis=0), here[0])


@functools.lru_cache(maxsize=32)
def _grid(df: float) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Levels 2 Phi(z) - 1 for z from 0.6745 (level 0.5) to 6.1 in steps of 0.005, with their t(df)
    and normal quantiles (computed once per df)."""
    z = np.arange(0.6745, 6.1, 0.005)
    levels = 2.0 * ndtr(z) - 1.0
    return levels, (stdtrit(df, 0.5 + levels / 2.0), z)


def _steps(q: np.ndarray, df: float, skew2, kurt, n: int, normal_q: np.ndarray) -> np.ndarray:
    """One Newton step from each t quantile ``q`` (m,) for every column (k,): (m, k), floored at the
    normal quantiles ``normal_q``."""
    q = q[:, None]
    normal_pdf = np.exp(-0.5 * q * q) / math.sqrt(2.0 * math.pi)
    t_pdf = np.exp(gammaln((df + 1.0) / 2.0) - gammaln(df / 2.0) - 0.5 * math.log(df * math.pi)
                   - (df + 1.0) / 2.0 * np.log1p(q * q / df))
    skew2, kurt = np.atleast_1d(skew2)[None, :], np.atleast_1d(kurt)[None, :]
    shortfall = (2.0 / n) * q * normal_pdf * (kurt * (q * q - 3.0) / 12.0
                                             - skew2 * (q ** 4 + 2.0 * q * q - 3.0) / 18.0)
    return np.maximum(q - shortfall / (2.0 * t_pdf), normal_q[:, None])
