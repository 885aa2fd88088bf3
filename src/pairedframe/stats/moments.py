"""One-pass paired statistics from the moments of the deltas: what large samples need, without resampling.

With many queries the resampling tests and intervals of :mod:`pairedframe.stats` agree with their
normal-theory limits far within Monte-Carlo error, so a comparison can be computed from a few sums
over its deltas ``d_1 .. d_n`` (count, mean, standard deviation, mean square):

- the sign-flip test's null distribution of the mean delta is that of ``sum(s_i d_i) / n`` with
  independent fair signs ``s_i``: mean 0 and variance ``sum(d_i**2) / n**2`` -- the *uncentred* second
  moment, since the null flips the deltas around 0, not around their mean.  Its normal approximation is
  ``z = sum(d) / sqrt(sum(d**2))`` (the statistic is symmetric under the null, so the error of this
  approximation is of order ``1/n``, not ``1/sqrt(n)``; Hoeffding 1952, Lehmann & Romano 2005, sec. 15.2);
- the interval that inverts it (``"signflip"``) solves ``|z(mu)| <= z_q`` for the shifted deltas
  ``d - mu``: ``mean +- z_q sqrt(S / (n (n - z_q**2)))`` with ``S = sum((d - mean)**2)``, so it excludes 0
  exactly when the approximate p-value is below ``1 - confidence_level``;
- the bootstrap intervals (studentized, percentile, BCa) tend to the t interval
  (:func:`pairedframe.stats.ttest.t_test_from_moments`), which the other intervals become here.

Zero spread (every delta equal up to ``1e-12`` of their size) keeps the exact sign-flip answer of
:mod:`pairedframe.stats.ttest` (``p = 2 / 2**n``, never 0), whatever the sample size.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr, ndtri

from .resample import _check_alternative, _check_probability
from .ttest import t_test_from_moments

__all__ = ["sign_flip_normal_pvalue", "sign_flip_normal_interval", "one_pass_statistics", "moments_of"]


def moments_of(D) -> dict[str, np.ndarray]:
    """``n, mean, sd`` (ddof 1), ``mean_square`` (uncentred) and ``flat`` (zero spread) of each column of
    ``D`` (n, k), two-pass as numpy computes them; the inputs of the functions below."""
    from .studentized import zero_spread

    D = np.asarray(D, dtype=np.float64)
    if D.ndim == 1:
        D = D[:, None]
    n = D.shape[0]
    return {"n": np.full(D.shape[1], float(n)), "mean": D.mean(axis=0), "sd": D.std(axis=0, ddof=1),
            "mean_square": np.mean(D * D, axis=0), "flat": zero_spread(D)}


def sign_flip_normal_pvalue(mean, mean_square, n, alternative: str = "two-sided") -> np.ndarray:
    """Normal approximation of the sign-flip (randomization) test's p-value of the mean delta.

    Parameters
    ----------
    mean, mean_square : array_like of float, shape (k,)
        Mean and uncentred mean square ``mean(d**2)`` of each sample of deltas.
    n : array_like, shape (k,) or scalar
        Sample sizes.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: mean delta > 0.

    Returns
    -------
    ndarray of float, shape (k,)
        ``p`` in ``[0, 1]`` from ``z = sqrt(n) mean / sqrt(mean_square)`` (``sum(d) / sqrt(sum(d**2))``):
        ``2 Phi(-|z|)`` two-sided, ``Phi(-z)`` for ``"greater"``, ``Phi(z)`` for ``"less"``; 1 where every
        delta is 0 (every sign pattern gives the observed statistic).  Never below the smallest positive
        double ``math.ulp(0.0)`` (5e-324), where ``Phi`` underflows: a sign-flip p is never 0, as the
        exact answer at zero spread (:func:`pairedframe.stats.ttest.paired_t_test`) is floored too.  Samples with zero spread are not
        treated specially here (:func:`one_pass_statistics` gives them the exact answer).
    """
    alternative = _check_alternative(alternative)
    mean = np.asarray(mean, dtype=np.float64)
    ms = np.asarray(mean_square, dtype=np.float64)
    n = np.broadcast_to(np.asarray(n, dtype=np.float64), mean.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(ms > 0, np.sqrt(n) * mean / np.sqrt(ms), 0.0)
    if alternative == "two-sided":
        p = np.minimum(1.0, 2.0 * ndtr(-np.abs(z)))
    else:
        p = ndtr(-z) if alternative == "greater" else ndtr(z)
    return np.where(ms > 0, np.maximum(p, math.ulp(0.0)), 1.0)


def sign_flip_normal_interval(mean, sd, n, confidence_level: float = 0.95,
                              alternative: str = "two-sided") -> tuple[np.ndarray, np.ndarray]:
    """The shifts ``mu`` that :func:`sign_flip_normal_pvalue` of ``d - mu`` does not reject.

    ``mean +- q sqrt(S / (n (n - q**2)))`` with ``S = (n - 1) sd**2`` and ``q`` the normal quantile
    (``1 - alpha/2`` two-sided, ``1 - alpha`` one-sided with the other end infinite, as scipy's one-sided
    intervals).  Needs ``n > q**2`` (n > 3.9 at 95 %); below, the test rejects no shift: the whole line.
    """
    alternative = _check_alternative(alternative)
    confidence_level = _check_probability(confidence_level, "confidence_level")
    mean = np.asarray(mean, dtype=np.float64)
    n = np.broadcast_to(np.asarray(n, dtype=np.float64), mean.shape)
    q = float(ndtri(0.5 + confidence_level / 2 if alternative == "two-sided" else confidence_level))
    ss = (n - 1.0) * np.asarray(sd, dtype=np.float64) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        half = np.where(n > q * q, q * np.sqrt(ss / (n * (n - q * q))), np.inf)
    low = np.full(mean.shape, -np.inf) if alternative == "less" else mean - half
    high = np.full(mean.shape, np.inf) if alternative == "greater" else mean + half
    return low, high


def one_pass_statistics(n, mean, sd, mean_square, flat, *, test: str, interval: str, alternative: str,
                        confidence_level: float) -> dict[str, np.ndarray]:
    """p-value, interval and SE of paired comparisons from their moments, in one pass.

    Parameters
    ----------
    n, mean, sd, mean_square : array_like, shape (k,)
        Sample sizes (>= 2), means, standard deviations (ddof 1) and uncentred mean squares of the deltas.
    flat : array_like of bool, shape (k,)
        Zero spread: those samples get the exact sign-flip answer of :mod:`pairedframe.stats.ttest`.
    test : {"randomization", "t"}
        The sign-flip test by its normal approximation, or the t-test.
    interval : {"signflip", "percentile", "bca", "t", "studentized"}
        ``"signflip"``: the inversion of the approximate sign-flip test; every other: the t interval (the
        limit of the bootstrap intervals).
    alternative, confidence_level
        As :func:`pairedframe.stats.ttest.paired_t_test`.

    Returns
    -------
    dict of ndarray, shape (k,)
        ``pvalue``, ``ci_low``, ``ci_high``, ``se`` (``sd / sqrt(n)``, 0 at zero spread) and ``exact``
        (all false: no p-value here enumerates sign patterns).
    """
    n = np.asarray(n, dtype=np.float64)
    mean, sd = np.asarray(mean, dtype=np.float64), np.asarray(sd, dtype=np.float64)
    flat = np.asarray(flat, dtype=bool)
    tt = t_test_from_moments(mean, np.where(flat, 0.0, sd), n, flat, alternative, confidence_level)
    out = {"se": tt["se"], "exact": np.zeros(mean.shape, dtype=bool), "ci_low": tt["ci_low"], "ci_high": tt["ci_high"]}
    if test == "t":
        out["pvalue"] = tt["pvalue"]
    else:
        out["pvalue"] = np.where(flat, tt["pvalue"], sign_flip_normal_pvalue(mean, mean_square, n, alternative))
    if interval == "signflip":
        low, high = sign_flip_normal_interval(mean, sd, n, confidence_level, alternative)
        out["ci_low"], out["ci_high"] = np.where(flat, tt["ci_low"], low), np.where(flat, tt["ci_high"], high)
    return out
