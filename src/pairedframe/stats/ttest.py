"""Paired t-test on per-query deltas (one-sample t-test of ``d = A - B`` against 0).

Uses only numpy and the stdlib Student-t functions of :mod:`.power` (no scipy at
runtime); equals ``scipy.stats.ttest_1samp(d, 0)`` / ``ttest_rel(a, b)``
including its ``confidence_interval`` to ~1e-12 (tested).

Zero variance (documented deviation from scipy, which returns NaN for 0/0):

- all deltas zero: ``t = 0``, ``p = 1``, interval ``[0, 0]`` (no evidence of a
  difference);
- all deltas equal to a non-zero constant ``c``: ``t = ±inf``, two-sided
  ``p = 0`` (``"greater"``: 0 if ``c > 0`` else 1; ``"less"`` mirrored), interval
  ``[c, c]``.  This is the analytic limit; resampling tests never give 0.

Constancy is decided with ``max(d) == min(d)`` so that rounding noise in the
standard deviation of a constant sample does not produce a huge finite t.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import stdtr, stdtrit

from ._results import ConfidenceInterval, TTestResult
from .resample import _check_1d, _check_2d, _check_alternative, _check_probability

__all__ = ["paired_t_test", "paired_t_test_many"]


def _t_value(d: np.ndarray, mean: float, sd: float) -> tuple[float, float]:
    """(t, se); t recomputed on rescaled data if sd/sqrt(n) underflows (|d| ~ 1e-300)."""
    n = d.shape[0]
    se = sd / math.sqrt(n)
    if se > 0 and math.isfinite(se) and se > 1e-290:
        return mean / se, se
    ds = d / np.max(np.abs(d))
    return float(np.mean(ds)) / (float(np.std(ds, ddof=1)) / math.sqrt(n)), se


def _one(d: np.ndarray, mean: float, sd: float, constant: bool, alternative: str,
         confidence_level: float) -> tuple[float, float, float, float, float]:
    n = d.shape[0]
    df = n - 1
    if constant:
        se = 0.0
        if mean == 0.0:
            t, p = 0.0, 1.0
        else:
            t = math.copysign(math.inf, mean)
            if alternative == "two-sided":
                p = 0.0
            elif alternative == "greater":
                p = 0.0 if mean > 0 else 1.0
            else:
                p = 0.0 if mean < 0 else 1.0
        low = -math.inf if alternative == "less" else mean
        high = math.inf if alternative == "greater" else mean
        return t, p, se, low, high
    t, se = _t_value(d, mean, sd)
    if alternative == "two-sided":
        p = min(1.0, 2.0 * float(stdtr(df, -(abs(t)))))
        q = float(stdtrit(df, 0.5 + confidence_level / 2))
        low, high = mean - q * se, mean + q * se
    elif alternative == "greater":
        p = float(stdtr(df, -(t)))
        q = float(stdtrit(df, confidence_level))
        low, high = mean - q * se, math.inf
    else:
        p = float(stdtr(df, -(-t)))
        q = float(stdtrit(df, confidence_level))
        low, high = -math.inf, mean + q * se
    return t, p, se, low, high


def paired_t_test(d, *, alternative: str = "two-sided",
                  confidence_level: float = 0.95) -> TTestResult:
    """Paired t-test of H0: mean delta = 0.

    Parameters
    ----------
    d : array_like, shape (n,)
        Per-query deltas A - B; finite, ``n >= 2``.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: mean delta > 0.
    confidence_level : float in (0, 1), default 0.95
        For the t interval of the mean delta (one-sided for one-sided tests,
        as ``scipy.stats.ttest_1samp(...).confidence_interval``).

    Returns
    -------
    TTestResult
        ``statistic`` = mean delta, ``t``, ``df = n - 1``, ``pvalue``,
        ``confidence_interval``, ``standard_error = sd(ddof=1) / sqrt(n)``.

    Raises
    ------
    InsufficientSampleError
        If ``n < 2`` (no degrees of freedom).
    ValueError, TypeError
        On non-finite data or invalid options.

    Notes
    -----
    Zero-variance input is handled analytically, see the module docstring.

    References
    ----------
    Student (1908). The probable error of a mean. Biometrika 6(1).
    """
    d = _check_1d(d, "d", min_n=2)
    alternative = _check_alternative(alternative)
    confidence_level = _check_probability(confidence_level, "confidence_level")
    n = d.shape[0]
    mean = float(np.mean(d))
    sd = float(np.std(d, ddof=1))
    t, p, se, low, high = _one(d, mean, sd, bool(np.ptp(d) == 0), alternative,
                               confidence_level)
    return TTestResult(statistic=mean, t=t, df=n - 1, pvalue=p,
                       confidence_interval=ConfidenceInterval(low, high), standard_error=se,
                       alternative=alternative, confidence_level=confidence_level)


def paired_t_test_many(D, *, alternative: str = "two-sided",
                       confidence_level: float = 0.95) -> TTestResult:
    """Column-wise :func:`paired_t_test` of ``D`` (n, k); fields are arrays of shape (k,).

    Raises
    ------
    InsufficientSampleError
        If ``n < 2``.
    """
    D = _check_2d(D, "D", min_n=2)
    alternative = _check_alternative(alternative)
    confidence_level = _check_probability(confidence_level, "confidence_level")
    n, k = D.shape
    cols = np.ascontiguousarray(D.T)  # same summation order as the 1-D function
    means = np.mean(cols, axis=1)
    sds = np.std(cols, axis=1, ddof=1)
    constant = np.ptp(cols, axis=1) == 0
    rows = [_one(cols[c], float(means[c]), float(sds[c]), bool(constant[c]), alternative,
                 confidence_level) for c in range(k)]
    arr = np.array(rows, dtype=np.float64).reshape(k, 5)
    return TTestResult(statistic=means, t=arr[:, 0], df=n - 1, pvalue=arr[:, 1],
                       confidence_interval=ConfidenceInterval(arr[:, 3], arr[:, 4]),
                       standard_error=arr[:, 2], alternative=alternative,
                       confidence_level=confidence_level)
