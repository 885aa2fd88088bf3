"""Multiple-comparison adjustment of p-values (Holm; Benjamini-Hochberg).

NaN rule
--------
NaN p-values (e.g. a comparison that could not be computed) are *left out of
the family*: the family size ``m`` counts only the finite p-values, and NaN
inputs stay NaN in the output.  An all-NaN or empty input returns a copy.

Results equal ``statsmodels.stats.multitest.multipletests(p, method='holm' /
'fdr_bh')[1]`` and ``scipy.stats.false_discovery_control(p, method='bh')`` on
NaN-free input (tested).  Ties receive equal adjusted values.
"""

from __future__ import annotations

import numpy as np

__all__ = ["holm", "benjamini_hochberg"]


def _prepare(p) -> tuple[np.ndarray, np.ndarray]:
    arr = np.asarray(p, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"`p` must be 1-D, got shape {arr.shape}")
    finite = ~np.isnan(arr)
    vals = arr[finite]
    if np.any((vals < 0) | (vals > 1)):
        raise ValueError("`p` must contain probabilities in [0, 1] (or NaN)")
    return arr, finite


def holm(p) -> np.ndarray:
    """Holm step-down adjusted p-values (family-wise error rate).

    ``p_adj_(i) = max_{j <= i} min(1, (m - j + 1) * p_(j))`` for sorted p.

    Parameters
    ----------
    p : array_like, shape (m_total,)
        p-values in [0, 1]; NaN allowed (see module docstring: excluded from
        the family, stays NaN).

    Returns
    -------
    ndarray, shape (m_total,)
        Adjusted p-values in the input order.

    Raises
    ------
    ValueError
        If ``p`` is not 1-D or has values outside [0, 1].

    References
    ----------
    Holm, S. (1979). A simple sequentially rejective multiple test procedure.
    Scandinavian Journal of Statistics 6(2), 65-70.
    """
    arr, finite = _prepare(p)
    out = np.full(arr.shape, np.nan)
    vals = arr[finite]
    m = vals.shape[0]
    if m == 0:
        return out
    order = np.argsort(vals, kind="stable")
    adj = np.maximum.accumulate((m - np.arange(m)) * vals[order])
    adj = np.minimum(adj, 1.0)
    res = np.empty(m)
    res[order] = adj
    out[finite] = res
    return out


def benjamini_hochberg(p) -> np.ndarray:
    """Benjamini-Hochberg adjusted p-values (false discovery rate, "q-values").

    ``p_adj_(i) = min_{j >= i} min(1, m * p_(j) / j)`` for sorted p.

    Parameters
    ----------
    p : array_like, shape (m_total,)
        p-values in [0, 1]; NaN allowed (excluded from the family, stays NaN).

    Returns
    -------
    ndarray, shape (m_total,)

    Raises
    ------
    ValueError
        If ``p`` is not 1-D or has values outside [0, 1].

    References
    ----------
    Benjamini, Y. and Hochberg, Y. (1995). Controlling the false discovery rate:
    a practical and powerful approach to multiple testing. JRSS B 57(1), 289-300.
    """
    arr, finite = _prepare(p)
    out = np.full(arr.shape, np.nan)
    vals = arr[finite]
    m = vals.shape[0]
    if m == 0:
        return out
    order = np.argsort(vals, kind="stable")
    # p / (j / m), as statsmodels: exact for j == m, so the result is never below p
    scaled = vals[order] / (np.arange(1, m + 1) / m)
    adj = np.minimum.accumulate(scaled[::-1])[::-1]
    adj = np.minimum(adj, 1.0)
    res = np.empty(m)
    res[order] = adj
    out[finite] = res
    return out
