"""The statistics of paired comparisons, one array entry per comparison: what every paired kernel (in memory
:mod:`~pairedframe.comparison.kernels`, in an engine :mod:`~pairedframe.comparison.by_join`, in one pass
from moments :mod:`~pairedframe.comparison.large_n`) hands to the one assembly step,
:func:`pairedframe.comparison.assemble.finish_table`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["ComparisonStats"]


@dataclass(frozen=True)
class ComparisonStats:
    """Arrays of shape ``(k,)`` over ``k`` comparisons (float64 unless said otherwise).

    ``delta`` the mean delta; ``ci_low, ci_high`` the interval (before :mod:`~pairedframe.comparison.
    interval_range` clips it); ``se`` its standard error; ``pvalue`` the raw p-value; ``sd`` the deltas'
    standard deviation (ddof=1, 0 at zero spread); ``skewness`` their adjusted sample skewness; ``floor``
    the smallest p-value the test can give; ``exact`` (bool) every sign pattern enumerated; ``zero_spread``
    (bool) deltas equal up to float noise; ``one_pass`` (bool, optional) the rows computed from their moments
    (:mod:`~pairedframe.comparison.large_n`; None: none), from which with the options
    :func:`~pairedframe.comparison.large_n.row_methods` decides each row's ``method`` and interval.
    """

    delta: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    se: np.ndarray
    pvalue: np.ndarray
    sd: np.ndarray
    skewness: np.ndarray
    floor: np.ndarray
    exact: np.ndarray
    zero_spread: np.ndarray
    one_pass: np.ndarray | None = None

    @classmethod
    def unfilled(cls, k: int, one_pass: np.ndarray | None = None) -> ComparisonStats:
        """``k`` comparisons still to compute: NaN statistics, ``exact`` and ``zero_spread`` false."""
        return cls(**{name: np.full(k, np.nan) for name in _FLOATS}, exact=np.zeros(k, dtype=bool),
                   zero_spread=np.zeros(k, dtype=bool), one_pass=one_pass)

    @classmethod
    def concat(cls, parts: Sequence[ComparisonStats]) -> ComparisonStats:
        """The comparisons of ``parts`` one after the other (parts without ``one_pass``)."""
        return cls(**{name: np.concatenate([getattr(p, name) for p in parts]) for name in _STATISTICS})

    def put(self, rows: np.ndarray, part: ComparisonStats) -> None:
        """Write the statistics of ``part`` (not its ``one_pass``) into entries ``rows`` of these arrays."""
        for name in _STATISTICS:
            getattr(self, name)[rows] = getattr(part, name)

    def replace(self, **changes: np.ndarray) -> ComparisonStats:
        """A copy with some arrays replaced (e.g. the clipped interval)."""
        return dataclasses.replace(self, **changes)


_FLOATS = ("delta", "ci_low", "ci_high", "se", "pvalue", "sd", "skewness", "floor")
_STATISTICS = (*_FLOATS, "exact", "zero_spread")
