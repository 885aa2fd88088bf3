"""Cohen's kappa (unweighted, linear, quadratic) from confusion matrices.

``kappa = 1 - sum(w * O) / sum(w * E)`` with ``O`` the observed proportions, ``E`` the products of
the two raters' marginal proportions and ``w[i, j]`` the disagreement weight of categories ``i``
and ``j``: ``1`` off the diagonal (unweighted), ``|v_i - v_j|`` (linear) or ``(v_i - v_j)^2``
(quadratic), where ``v`` are the categories' *values* (relevance grades), so the weight of a
disagreement does not depend on which other grades exist.  This is scikit-learn's
``cohen_kappa_score(a, b, labels=range(lo, hi + 1), weights=...)`` (which weighs by position in
``labels``: positions equal values when ``labels`` holds every integer grade from ``lo`` to ``hi``)
and statsmodels' ``cohens_kappa(table, weights=values, wt=...)``.  Categories nobody used add
zero rows and columns and change nothing.

References
----------
Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological
Measurement 20(1).  Cohen, J. (1968). Weighted kappa. Psychological Bulletin 70(4).
"""

from __future__ import annotations

import numpy as np

__all__ = ["KAPPA_WEIGHTS", "cohen_kappa", "cohen_kappa_many", "confusion_matrix"]

KAPPA_WEIGHTS = (None, "linear", "quadratic")


def confusion_matrix(a, b, categories) -> np.ndarray:
    """Counts of (label in ``a``, label in ``b``) over aligned pairs.

    Parameters
    ----------
    a, b : array_like of int, shape (n,)
        Labels of the same n items by two raters.
    categories : array_like of int, shape (c,)
        Sorted, distinct categories; every label must be one of them.

    Returns
    -------
    ndarray of int64, shape (c, c)
        ``[i, j]`` = items labelled ``categories[i]`` by a and ``categories[j]`` by b.

    Raises
    ------
    ValueError
        Shapes differ, or a label is not among ``categories``.
    """
    a = np.asarray(a)
    b = np.asarray(b)
    cats = np.asarray(categories)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"`a` and `b` must be 1-D of the same length, got {a.shape} and {b.shape}")
    ia = np.searchsorted(cats, a)
    ib = np.searchsorted(cats, b)
    c = cats.shape[0]
    for name, lab, idx in (("a", a, ia), ("b", b, ib)):
        bad = (idx >= c) | (cats[np.minimum(idx, c - 1)] != lab)
        if bad.any():
            raise ValueError(f"label {lab[bad][0]!r} of `{name}` is not among the categories {cats.tolist()}")
    return np.bincount(ia * c + ib, minlength=c * c).reshape(c, c).astype(np.int64)


def _weight_matrix(c: int, weights: str | None, values) -> np.ndarray:
    if weights not in KAPPA_WEIGHTS:
        raise ValueError(f"`weights` must be one of {KAPPA_WEIGHTS}, got {weights!r}")
    v = np.arange(c, dtype=np.float64) if values is None else np.asarray(values, dtype=np.float64)
    if v.shape != (c,) or not np.isfinite(v).all():
        raise ValueError(f"`values` must hold {c} finite category values, got {values!r}")
    if np.unique(v).size != c:
        raise ValueError(f"`values` must be distinct, got {v.tolist()}")
    diff = np.abs(v[:, None] - v[None, :])
    return (diff > 0).astype(np.float64) if weights is None else diff if weights == "linear" else diff ** 2


def cohen_kappa_many(confusions, *, weights: str | None = None, values=None) -> np.ndarray:
    """Cohen's kappa of each of a stack of square confusion matrices (e.g. bootstrap resamples).

    Parameters
    ----------
    confusions : array_like, shape (rows, c, c)
        Non-negative counts; ``[r, i, j]`` = items of row ``r`` that rater a put in category ``i``
        and rater b in category ``j``.
    weights : {None, "linear", "quadratic"}
        Disagreement weights (module docstring); None = unweighted kappa.
    values : array_like, shape (c,), optional
        The categories' values (grades), distinct; weights use their differences.  Default
        ``0, 1, ..., c - 1`` (positions).  Unweighted kappa ignores them.

    Returns
    -------
    ndarray, shape (rows,)
        In [-1, 1] (weighted kappa can fall below -1 only for degenerate tables); 1 for perfect
        agreement, 0 for chance agreement.  NaN for a row with no items or with zero expected
        disagreement (both raters used one and the same category).

    Raises
    ------
    ValueError
        Not a stack of square matrices, negative or non-finite counts, unknown ``weights`` or
        bad ``values``.
    """
    O = np.asarray(confusions, dtype=np.float64)
    if O.ndim != 3 or O.shape[1] != O.shape[2]:
        raise ValueError(f"`confusions` must have shape (rows, c, c), got {O.shape}")
    if not np.isfinite(O).all() or (O < 0).any():
        raise ValueError("`confusions` must hold finite non-negative counts")
    w = _weight_matrix(O.shape[1], weights, values)
    total = O.sum(axis=(1, 2))
    safe = np.where(total > 0, total, 1.0)
    expected = np.einsum("ij,ri,rj->r", w, O.sum(axis=2), O.sum(axis=1)) / safe
    observed = np.einsum("ij,rij->r", w, O)
    ok = (total > 0) & (expected > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, 1.0 - observed / np.where(ok, expected, 1.0), np.nan)


def cohen_kappa(confusion, *, weights: str | None = None, values=None) -> float:
    """Cohen's kappa of one square confusion matrix.

    Parameters
    ----------
    confusion : array_like, shape (c, c)
        Non-negative counts; rows = rater a's categories, columns = rater b's (same order).
    weights : {None, "linear", "quadratic"}
        Disagreement weights (module docstring); None = unweighted kappa.
    values : array_like, shape (c,), optional
        The categories' values (grades); default their positions ``0 .. c - 1``.

    Returns
    -------
    float
        As :func:`cohen_kappa_many`: 1 for perfect agreement, 0 for chance agreement, NaN when
        there are no items or the expected disagreement is 0.

    Raises
    ------
    ValueError
        Not square, negative counts, unknown ``weights`` or bad ``values``.
    """
    O = np.asarray(confusion, dtype=np.float64)
    if O.ndim != 2 or O.shape[0] != O.shape[1]:
        raise ValueError(f"`confusion` must be a square matrix, got shape {O.shape}")
    return float(cohen_kappa_many(O[None], weights=weights, values=values)[0])
