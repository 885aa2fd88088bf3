"""The statistics of a segment comparison, one array entry per unit (system, keys, measure, segment set,
segment): what both segment kernels (in memory :mod:`~pairedframe.comparison.segments`, in an engine
:mod:`~pairedframe.comparison.by_join_segments`) hand to the one table step,
:func:`pairedframe.comparison.segment_tables.segments_table`.

Not :class:`~pairedframe.comparison.comparison_stats.ComparisonStats`: a unit's ``sd``, ``skewness`` and
zero spread are columns of the unit table both kernels build, its p-value floor depends on the family
step (``max_resamples`` when adaptive), and with ``resampling="adaptive"`` its p-value is drawn there.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

__all__ = ["SegmentStats"]


@dataclass(frozen=True)
class SegmentStats:
    """Arrays of shape ``(k,)`` over the ``k`` units of a segment comparison, in the unit table's order.

    ``delta`` (float64) the mean paired delta ``b - a``; ``ci_low, ci_high`` (float64) the interval of
    ``interval=`` (before :mod:`~pairedframe.comparison.interval_range` widens it at zero spread and clips
    it; ``-inf`` / ``inf`` on the open side of a one-sided one); ``se`` (float64) its standard error;
    ``pvalue`` (float64) the raw p-value of ``test=`` (NaN until the family step draws it with
    ``resampling="adaptive"``); ``exact`` (bool) every sign pattern enumerated (those of the unit's
    non-zero deltas suffice: a zero delta flips to itself).  A unit with one paired query has its ``delta``
    (that query's; :meth:`with_single_queries`), NaN other statistics and ``exact`` false.
    """

    delta: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    se: np.ndarray
    pvalue: np.ndarray
    exact: np.ndarray

    @classmethod
    def of_units(cls, k: int, rows: np.ndarray, *, delta: np.ndarray | None = None,
                 interval: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
                 pvalue: np.ndarray | None = None, exact: np.ndarray | None = None) -> SegmentStats:
        """``k`` units whose entries ``rows`` hold ``delta``, ``interval`` (``ci_low, ci_high, se``),
        ``pvalue`` and ``exact`` (arrays of shape ``(len(rows),)``); the other entries, and a part that is
        None, NaN (``exact`` false)."""
        low, high, se = interval if interval is not None else (None, None, None)
        floats = {}
        for name, part in (("delta", delta), ("ci_low", low), ("ci_high", high), ("se", se), ("pvalue", pvalue)):
            floats[name] = np.full(k, np.nan)
            if part is not None:
                floats[name][rows] = part
        is_exact = np.zeros(k, dtype=bool)
        if exact is not None:
            is_exact[rows] = exact
        return cls(**floats, exact=is_exact)

    def with_tests(self, rows: np.ndarray, pvalue: np.ndarray, exact: np.ndarray) -> SegmentStats:
        """A copy whose entries ``rows`` of ``pvalue`` and ``exact`` are replaced (the adaptive family step)."""
        new_p, new_exact = self.pvalue.copy(), self.exact.copy()
        new_p[rows], new_exact[rows] = pvalue, exact
        return self.replace(pvalue=new_p, exact=new_exact)

    def with_single_queries(self, rows: np.ndarray, delta: np.ndarray) -> SegmentStats:
        """A copy whose entries ``rows`` (units of one paired query) hold that query's ``delta``: the mean
        is well defined, only the interval and the test need 2 queries."""
        new_delta = self.delta.copy()
        new_delta[rows] = delta
        return self.replace(delta=new_delta)

    def replace(self, **changes: np.ndarray) -> SegmentStats:
        """A copy with some arrays replaced (e.g. the widened and clipped interval)."""
        return dataclasses.replace(self, **changes)
