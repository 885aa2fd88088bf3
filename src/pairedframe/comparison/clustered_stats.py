"""The statistics of cluster-aware comparisons, one array entry per comparison: what the in-memory kernel
(:func:`pairedframe.compare_clustered`) and the in-engine one
(:mod:`~pairedframe.comparison.by_join_clustered`) hand to the one assembly step,
:func:`pairedframe.comparison.cluster_tables.clustered_table`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

__all__ = ["ClusteredStats", "McNemarColumns"]


@dataclass(frozen=True)
class McNemarColumns:
    """Exact McNemar test of each comparison whose paired values are all 0/1; None elsewhere.

    Lists of length ``k``: ``pvalue`` (float), ``b`` and ``c`` (int, the discordant counts a=1,b=0 and
    a=0,b=1).
    """

    pvalue: list
    b: list
    c: list

    @classmethod
    def empty(cls, k: int) -> McNemarColumns:
        """``k`` comparisons with no McNemar test (yet)."""
        return cls([None] * k, [None] * k, [None] * k)

    def put(self, row: int, pvalue: float, b: int, c: int) -> None:
        """The test of comparison ``row``."""
        self.pvalue[row], self.b[row], self.c[row] = pvalue, b, c


@dataclass(frozen=True)
class ClusteredStats:
    """Arrays of shape ``(k,)`` over ``k`` comparisons, in the comparisons' row order.

    Float64: ``delta`` the mean delta over the paired queries; ``ci_low, ci_high`` the interval (before
    :func:`~pairedframe.comparison.cluster_tables.clustered_table` widens a zero-spread one and clips it to
    the measure's range); ``se`` the cluster-robust CR2 standard error (CR1 for equal sizes; 0 at zero
    spread); ``df`` its Bell-McCaffrey degrees of freedom; ``pvalue`` the raw cluster sign-flip p-value;
    ``floor`` the smallest p-value that test can give; ``baseline_mean, system_mean`` the systems' means;
    ``delta_min, delta_max`` the smallest and largest per-query delta (whether the queries spread where the
    clusters do not).
    Int64: ``n_queries`` paired queries, ``n_clusters`` distinct clusters among them, ``wins, losses,
    ties`` queries with ``delta > 0, < 0, == 0``, ``nonzero_clusters`` clusters whose summed delta is not 0
    (a zero sum flips to itself: the sign-flip p is never below ``2 / 2**nonzero_clusters``).  Bool: ``exact``
    every sign pattern enumerated (all ``2**G``, or the ``2**nonzero_clusters`` of the non-zero sums);
    ``all_zero`` every delta exactly 0.  ``mcnemar``: the exact McNemar columns.
    """

    delta: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    se: np.ndarray
    df: np.ndarray
    pvalue: np.ndarray
    floor: np.ndarray
    baseline_mean: np.ndarray
    system_mean: np.ndarray
    delta_min: np.ndarray
    delta_max: np.ndarray
    n_queries: np.ndarray
    n_clusters: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    ties: np.ndarray
    nonzero_clusters: np.ndarray
    exact: np.ndarray
    all_zero: np.ndarray
    mcnemar: McNemarColumns

    @classmethod
    def unfilled(cls, k: int, **known: np.ndarray | McNemarColumns) -> ClusteredStats:
        """``k`` comparisons: the arrays in ``known`` as given, the rest still to compute (NaN floats, 0
        counts, false flags, no McNemar test)."""
        fresh: dict = {name: np.full(k, np.nan) for name in FLOATS}
        fresh.update({name: np.zeros(k, dtype=np.int64) for name in COUNTS})
        fresh.update({name: np.zeros(k, dtype=bool) for name in ("exact", "all_zero")})
        fresh["mcnemar"] = McNemarColumns.empty(k)
        return cls(**{**fresh, **known})

    def replace(self, **changes: np.ndarray) -> ClusteredStats:
        """A copy with some arrays replaced (e.g. the widened and clipped interval)."""
        return dataclasses.replace(self, **changes)


FLOATS = ("delta", "ci_low", "ci_high", "se", "df", "pvalue", "floor", "baseline_mean", "system_mean", "delta_min",
          "delta_max")
COUNTS = ("n_queries", "n_clusters", "wins", "losses", "ties", "nonzero_clusters")
