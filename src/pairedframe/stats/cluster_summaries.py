"""Cluster summaries for :mod:`pairedframe.stats.cluster`: checked values, integer cluster codes, and each
cluster's sum and size in the canonical cluster order that module's docstring defines (by size, then by
the sums; each sum over the cluster's values sorted, so a function of their multiset)."""

from __future__ import annotations

import math

import numpy as np

from pairedframe.errors import InsufficientSampleError

__all__ = ["cluster_summaries", "prepare_clusters"]


def _values_2d(values, name: str, *, many: bool) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    if many:
        if arr.ndim != 2:
            raise ValueError(f"`{name}` must be 2-D (n_queries, n_columns), got shape {arr.shape}")
    else:
        if arr.ndim != 1:
            raise ValueError(f"`{name}` must be 1-D (one delta per query), got shape {arr.shape}")
        arr = arr[:, None]
    if arr.shape[0] == 0:
        raise InsufficientSampleError(f"`{name}` is empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` must contain only finite values (no NaN/inf)")
    return arr


def _factorize(clusters, n: int) -> tuple[np.ndarray, int]:
    """Integer codes 0..G-1 of the labels (grouping only; the order is not used)."""
    lab = np.asarray(clusters)
    if lab.ndim != 1 or lab.shape[0] != n:
        raise ValueError(
            f"`clusters` must be 1-D with one label per query ({n}), got shape {lab.shape}")
    if lab.dtype.kind == "f" and np.isnan(lab).any():
        raise ValueError("`clusters` must not contain NaN labels")
    if lab.dtype.kind == "O":
        index: dict = {}
        codes = np.empty(n, dtype=np.intp)
        for i, v in enumerate(lab.tolist()):
            if v is None or (isinstance(v, float) and math.isnan(v)):
                raise ValueError(f"`clusters` must not contain missing labels (None/NaN), found at row {i}")
            codes[i] = index.setdefault(v, len(index))
        return codes, len(index)
    _, codes = np.unique(lab, return_inverse=True)
    codes = codes.reshape(-1)
    return codes, int(codes.max()) + 1


def _summaries(X: np.ndarray, codes: np.ndarray, G: int) -> tuple[np.ndarray, np.ndarray]:
    """Cluster sums (G, k) and sizes (G,) in canonical order (:mod:`pairedframe.stats.cluster`, "Canonical cluster order")."""
    n, k = X.shape
    counts = np.bincount(codes, minlength=G)
    starts = np.zeros(G, dtype=np.intp)
    np.cumsum(counts[:-1], out=starts[1:])
    sums = np.empty((G, k))
    for j in range(k):
        order = np.lexsort((X[:, j], codes))  # by cluster, values ascending within
        sums[:, j] = np.add.reduceat(X[order, j], starts)
    sizes = counts.astype(np.float64)
    keys = [sums[:, j] for j in range(k - 1, -1, -1)] + [sizes]  # lexsort: last key is primary
    perm = np.lexsort(keys)
    return np.ascontiguousarray(sums[perm]), sizes[perm]


def cluster_summaries(values, clusters) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster sums and sizes, in the canonical cluster order.

    Parameters
    ----------
    values : array_like, shape (n,) or (n, k)
        Per-query values (deltas), finite.
    clusters : array_like, shape (n,)
        Cluster label of each query, any hashable dtype (ints, strings, ...);
        NaN / None labels are rejected.

    Returns
    -------
    sums : ndarray, shape (G,) or (G, k)
        Sum of each cluster's values (summed in ascending order of value, so a
        function of the multiset of values).
    sizes : ndarray of float64, shape (G,)
        Number of queries of each cluster.

    Clusters are ordered by ``(size, sum)`` (then by the sums of later
    columns); ``G`` is the number of distinct labels.

    Raises
    ------
    InsufficientSampleError
        If ``values`` is empty.
    ValueError
        On shape mismatch, non-finite values or missing labels.
    """
    arr = np.asarray(values, dtype=np.float64)
    X = _values_2d(arr, "values", many=arr.ndim == 2)
    codes, G = _factorize(clusters, X.shape[0])
    sums, sizes = _summaries(X, codes, G)
    return (sums if arr.ndim == 2 else sums[:, 0]), sizes


def prepare_clusters(values, clusters, *, many: bool, min_clusters: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Checked values ``(n, k)``, then their cluster sums ``(G, k)`` and sizes ``(G,)`` in canonical order;
    fewer than ``min_clusters`` distinct clusters raise :class:`~pairedframe.errors.InsufficientSampleError`."""
    X = _values_2d(values, "values", many=many)
    codes, G = _factorize(clusters, X.shape[0])
    if G < min_clusters:
        raise InsufficientSampleError(f"need at least {min_clusters} distinct clusters, got {G}")
    sums, sizes = _summaries(X, codes, G)
    return X, sums, sizes
