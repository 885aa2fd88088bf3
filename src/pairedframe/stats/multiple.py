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

__all__ = ["holm", "benjamini_hochberg", "rejected_at_floor"]


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


def rejected_at_floor(p, floor, level: float, method: str, *, strict: bool = False) -> np.ndarray:
    """Would each p-value be rejected if it were its test's smallest attainable p-value?

    For each ``i`` the family's p-values are taken as they are, except ``p[i]``, which is replaced
    by ``min(p[i], floor[i])``; the result says whether ``method`` (adjusted p-value ``<= level``,
    statsmodels' ``multipletests`` rule; ``< level`` if ``strict``) then rejects ``i``.  False means the test's resolution (few queries for an exact test, or few
    Monte-Carlo patterns), not the size of the effect, keeps ``i`` from being rejected.  Both
    corrections are monotone, so an actually rejected p-value is also rejected at its floor.

    Parameters
    ----------
    p : array_like, shape (m_total,)
        p-values in [0, 1]; NaN allowed (left out of the family, result False).
    floor : array_like, shape (m_total,)
        Smallest p-value each test can give (e.g. ``2 / 2**n`` exact two-sided, ``1 / (B + 1)``).
    level : float in (0, 1)
    method : {"bh", "holm"}
    strict : bool, default False
        Reject when the adjusted p-value is strictly below ``level`` (the rule of
        :func:`pairedframe.compare`'s verdicts and :func:`pairedframe.compare_segments`' ``significant``).

    Returns
    -------
    ndarray of bool, shape (m_total,)

    Raises
    ------
    ValueError
        Bad shapes, values outside [0, 1] or an unknown ``method``.
    TypeError
        ``strict`` not a bool.
    """
    arr, finite = _prepare(p)
    fl = np.asarray(floor, dtype=np.float64)
    if fl.shape != arr.shape:
        raise ValueError(f"`floor` must have the shape of `p` {arr.shape}, got {fl.shape}")
    if method not in ("bh", "holm"):
        raise ValueError(f"`method` must be 'bh' or 'holm', got {method!r}")
    if not isinstance(strict, (bool, np.bool_)):
        raise TypeError(f"`strict` must be True or False, got {strict!r}")
    out = np.zeros(arr.shape, dtype=bool)
    vals = arr[finite]
    m = vals.shape[0]
    if m == 0:
        return out
    order = np.argsort(vals, kind="stable")
    s = vals[order]                                   # sorted p-values, s[j - 1] = p_(j)
    f = np.minimum(fl[finite][order], s)              # the floor of the p-value at each sorted position
    j = np.arange(1, m + 1)

    def passes(x: np.ndarray) -> np.ndarray:
        return x < level if strict else x <= level

    if method == "bh":
        actual = passes(benjamini_hochberg(s))
        # rank of the floor among the *other* p-values, tied ones before it (step-up: ties pass together)
        pos = np.searchsorted(s, f, side="right") + 1
        pos = np.minimum(pos, j)                      # the row's own p-value is not among the others
        passes_self = passes(f / (pos / m))
        # others between the floor's rank and the row's own rank move up by one position
        up = np.concatenate([[0], np.cumsum(passes(s / (np.minimum(j + 1, m) / m)))])
        moved = up[j - 1] - up[pos - 1] > 0
        after = np.concatenate([np.logical_or.accumulate(passes(s / (j / m))[::-1])[::-1], [False]])
        res = passes_self | moved | after[j]          # after[j]: some p_(t), t > j, passes at rank t
    else:
        actual = passes(holm(s))
        pos = np.minimum(np.searchsorted(s, f, side="left") + 1, j)   # first among ties (step-down)
        ok = np.concatenate([[True], np.logical_and.accumulate(passes((m - j + 1) * s))])
        res = ok[pos - 1] & passes((m - pos + 1) * f)
    res |= actual
    back = np.empty(m, dtype=bool)
    back[order] = res
    out[finite] = back
    return out
