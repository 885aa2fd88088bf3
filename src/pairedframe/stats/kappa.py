"""Cohen's kappa (unweighted, linear, quadratic) from a confusion matrix.

``kappa = 1 - sum(w * O) / sum(w * E)`` with ``O`` the observed proportions, ``E`` the products of
the two raters' marginal proportions and ``w[i, j]`` the disagreement weight of categories ``i``
and ``j``: ``1`` off the diagonal (unweighted), ``|i - j|`` (linear) or ``(i - j)^2`` (quadratic),
where ``i`` and ``j`` are the *positions* of the categories in their sorted order (as
scikit-learn's ``cohen_kappa_score``), not their values.

References
----------
Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and Psychological
Measurement 20(1).  Cohen, J. (1968). Weighted kappa. Psychological Bulletin 70(4).
"""

from __future__ import annotations

import numpy as np

__all__ = ["KAPPA_WEIGHTS", "cohen_kappa", "confusion_matrix"]

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


def cohen_kappa(confusion, *, weights: str | None = None) -> float:
    """Cohen's kappa of a square confusion matrix.

    Parameters
    ----------
    confusion : array_like, shape (c, c)
        Non-negative counts; rows = rater a's categories, columns = rater b's (same order).
    weights : {None, "linear", "quadratic"}
        Disagreement weights (module docstring); None = unweighted kappa.

    Returns
    -------
    float
        In [-1, 1]: 1 for perfect agreement, 0 for chance agreement.  NaN when there are no items
        or when the expected disagreement is 0 (both raters used a single, identical category).

    Raises
    ------
    ValueError
        Not square, negative counts, or unknown ``weights``.
    """
    O = np.asarray(confusion, dtype=np.float64)
    if O.ndim != 2 or O.shape[0] != O.shape[1]:
        raise ValueError(f"`confusion` must be a square matrix, got shape {O.shape}")
    if (O < 0).any() or not np.isfinite(O).all():
        raise ValueError("`confusion` must hold finite non-negative counts")
    if weights not in KAPPA_WEIGHTS:
        raise ValueError(f"`weights` must be one of {KAPPA_WEIGHTS}, got {weights!r}")
    total = O.sum()
    if total == 0:
        return float("nan")
    c = O.shape[0]
    idx = np.arange(c, dtype=np.float64)
    diff = np.abs(idx[:, None] - idx[None, :])
    w = (diff > 0).astype(np.float64) if weights is None else diff if weights == "linear" else diff ** 2
    E = np.outer(O.sum(axis=1), O.sum(axis=0)) / total
    expected = float(np.sum(w * E))
    if expected == 0.0:
        return float("nan")
    return float(1.0 - np.sum(w * O) / expected)
