"""Intervals for the mean of values with a known range ``[lo, hi]``: clipping, and samples without spread.

Clipping
--------
The mean of values in ``[lo, hi]`` lies in ``[lo, hi]``, so replacing a finite interval end beyond it
by the bound never removes the true mean: coverage is unchanged, sample by sample, and the interval
only gets shorter (``benchmarks/calibration --section paired`` prints coverage and width after
clipping, as :func:`pairedframe.compare` reports them).  So does an infinite end where the data
bound nothing (a sign-flip inversion at small n): it becomes the range's end.  Only the open side
of a one-sided interval keeps its infinite end, as scipy writes it (``[low, inf)`` for
``alternative="greater"``, ``(-inf, high]`` for ``"less"``): it is no bound by construction.

Samples without spread
----------------------
``n`` values that are all equal to ``c`` say nothing about the spread of their population, so a
t-type or bootstrap interval degenerates to the point ``[c, c]``.  With a known range an honest
interval exists: a population whose mean lies ``m`` away from ``c`` must put at least
``m / (hi - c)`` (or ``m / (c - lo)``) of its mass away from ``c``, so it gives ``n`` values all equal
to ``c`` with probability at most ``(1 - m / (hi - c))**n``.  Requiring that to be at least
``alpha / 2`` per side gives

    [c - (1 - beta) (c - lo),  c + (1 - beta) (hi - c)],   beta = (alpha / 2) ** (1 / n)

(``beta = alpha ** (1 / n)`` for the one side of a one-sided interval).  For values in ``{0, 1}`` it is
the exact Clopper-Pearson interval of ``n`` equal outcomes (``[0, 1 - (alpha/2)**(1/n)]`` for ``n``
zeros; its one-sided form is the "rule of three", about ``3 / n``).  With an unbounded side the
interval is unbounded there: nothing in the data bounds the mean.

References
----------
Clopper, C. J. & Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated in the
case of the binomial. *Biometrika* 26(4), 404-413.
Hanley, J. A. & Lippman-Hand, A. (1983). If nothing goes wrong, is everything all right?
Interpreting zero numerators. *JAMA* 249(13), 1743-1745.
"""

from __future__ import annotations

import numpy as np

__all__ = ["clip_to_range", "constant_sample_interval"]


def clip_to_range(low, high, lo, hi, *, alternative: str = "two-sided") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interval ends moved inside ``[lo, hi]``, infinite ones included, except the open side of a
    one-sided interval; NaN kept.

    Parameters
    ----------
    low, high : array_like, shape (k,)
        Interval ends (``low <= high``; ``-inf`` / ``inf`` where nothing bounds that side).
    lo, hi : array_like, shape (k,) or scalar
        Range of the quantity (``-inf`` / ``inf`` where unbounded).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"`` keeps ``high`` as it is (``inf`` in scipy's convention for ``[low, inf)``),
        ``"less"`` keeps ``low``.

    Returns
    -------
    (low, high, clipped)
        The ends, and whether either end was moved.
    """
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    lo, hi = np.broadcast_to(np.asarray(lo, np.float64), low.shape), np.broadcast_to(np.asarray(hi, np.float64), low.shape)
    new_low = low if alternative == "less" else np.where(np.isnan(low), low, np.clip(low, lo, hi))
    new_high = high if alternative == "greater" else np.where(np.isnan(high), high, np.clip(high, lo, hi))
    clipped = (new_low != low) | (new_high != high)
    return new_low, new_high, clipped & ~np.isnan(low) & ~np.isnan(high)


def constant_sample_interval(value, n, lo, hi, *, confidence_level: float = 0.95,
                             alternative: str = "two-sided") -> tuple[np.ndarray, np.ndarray]:
    """Confidence interval for the mean of a population in ``[lo, hi]`` from ``n`` values all equal to ``value``.

    Parameters
    ----------
    value : array_like, shape (k,)
        The common value ``c`` of each sample (inside ``[lo, hi]``).
    n : array_like of int, shape (k,) or scalar
        Sample sizes (``>= 1``).
    lo, hi : array_like, shape (k,) or scalar
        The population's range (``-inf`` / ``inf`` where unbounded).
    confidence_level : float in (0, 1), default 0.95
    alternative : {"two-sided", "greater", "less"}
        ``"greater"`` bounds the mean from below only (``high = inf``), ``"less"`` from above.

    Returns
    -------
    (low, high)
        ``c - (1 - beta) (c - lo)`` and ``c + (1 - beta) (hi - c)`` with ``beta = (alpha/2)**(1/n)``
        two-sided, ``alpha**(1/n)`` one-sided (module docstring); infinite where the range is.
    """
    c = np.asarray(value, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    alpha = 1.0 - confidence_level
    share = 1.0 - np.power(alpha / 2.0 if alternative == "two-sided" else alpha, 1.0 / n)
    with np.errstate(invalid="ignore"):          # inf - c times share: inf, as the range
        low = c - share * (c - np.asarray(lo, dtype=np.float64))
        high = c + share * (np.asarray(hi, dtype=np.float64) - c)
    low = np.broadcast_to(low, c.shape).copy()
    high = np.broadcast_to(high, c.shape).copy()
    if alternative == "greater":
        high[:] = np.inf
    elif alternative == "less":
        low[:] = -np.inf
    return low, high
