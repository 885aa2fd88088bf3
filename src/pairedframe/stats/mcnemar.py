"""Exact McNemar test for paired binary outcomes (e.g. "query answered" per system).

The binomial tail comes from :data:`scipy.stats.binom`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["McNemarResult", "mcnemar_exact"]

@dataclass(frozen=True)
class McNemarResult:
    """Result of :func:`mcnemar_exact`.

    Attributes
    ----------
    statistic : int
        ``min(b, c)``, the binomial test statistic (as statsmodels reports it).
    pvalue : float
        Two-sided exact p-value ``min(1, 2 * P[Binom(b + c, 1/2) <= min(b, c)])``.
    b : int
        Number of pairs where only A hits (A true, B false).
    c : int
        Number of pairs where only B hits (A false, B true).
    n_discordant : int
        ``b + c``.
    n : int
        Number of pairs.
    method : str
        ``"exact binomial"``.
    """

    statistic: int
    pvalue: float
    b: int
    c: int
    n_discordant: int
    n: int
    method: str = "exact binomial"


def _as_binary(x, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.dtype == bool:
        return arr
    if arr.size == 0:
        return arr.astype(bool)
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise ValueError(f"{name} must hold booleans or 0/1 values, got dtype {arr.dtype}")
    ok = (arr == 0) | (arr == 1)
    if not bool(np.all(ok)):
        bad = arr[~ok][0]
        raise ValueError(f"{name} must hold booleans or 0/1 values, found {bad!r}")
    return arr.astype(bool)


def mcnemar_exact(hits_a, hits_b) -> McNemarResult:
    """Exact (binomial) McNemar test on paired binary outcomes.

    Parameters
    ----------
    hits_a, hits_b : array_like of bool, shape (n,)
        Per-query binary outcome of system A and system B on the same queries,
        in the same order (e.g. "a relevant document retrieved at rank 1").
        Booleans or numbers equal to 0/1; anything else raises.

    Returns
    -------
    McNemarResult
        ``statistic = min(b, c)``, the discordant counts ``b`` (A only) and
        ``c`` (B only), and the two-sided exact p-value
        ``min(1, 2 * BinomCDF(min(b, c); b + c, 1/2))``.  Concordant pairs do
        not enter the test.  With no discordant pair (``b + c == 0``, which
        includes ``n == 0``) the p-value is 1.

    Raises
    ------
    ValueError
        If the inputs are not one-dimensional, differ in length, or hold
        values other than booleans / 0 / 1 (NaN included).

    Notes
    -----
    Under H0 (both systems have the same hit probability) each discordant pair
    is A-only or B-only with probability 1/2, so ``b ~ Binom(b + c, 1/2)``.
    The two-sided p-value doubles the smaller tail, as
    ``statsmodels.stats.contingency_tables.mcnemar(table, exact=True)``.

    References
    ----------
    McNemar, Q. (1947). Note on the sampling error of the difference between
    correlated proportions or percentages. Psychometrika 12(2), 153-157.
    """
    a = _as_binary(hits_a, "hits_a")
    b_arr = _as_binary(hits_b, "hits_b")
    if a.shape != b_arr.shape:
        raise ValueError(f"hits_a and hits_b must have the same length, got {a.shape[0]} and {b_arr.shape[0]}")
    b = int(np.count_nonzero(a & ~b_arr))
    c = int(np.count_nonzero(~a & b_arr))
    n_disc = b + c
    k = min(b, c)
    if n_disc == 0:
        p = 1.0
    else:
        from scipy.stats import binom  # lazy: scipy.stats costs ~1 s at import

        p = min(1.0, 2.0 * float(binom.cdf(k, n_disc, 0.5)))
    return McNemarResult(statistic=k, pvalue=p, b=b, c=c, n_discordant=n_disc, n=int(a.shape[0]))
