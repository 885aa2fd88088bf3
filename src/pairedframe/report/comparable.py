"""What the report and the results table compare: every comparison that can be tested.

:func:`pairedframe.compare` refuses a comparison with fewer than 2 common queries (it is the
statistical door).  A table or report shows many comparisons, and one run with too few queries must
not cost the others: :func:`compare_what_can_be` leaves those out of the call (and so out of its
Holm / BH family) and warns, naming each and why; the table shows them without a mark and its
caption says so (:func:`pairedframe.comparison.unpairable.not_compared`).
"""

from __future__ import annotations

import warnings
from typing import Any

import polars as pl

from pairedframe.comparison import compare
from pairedframe.comparison.unpairable import (MIN_PAIRED, NothingPairableError, collecting_unpairable,
                                               describe_not_compared)
from pairedframe.errors import PartlyEmptyWarning, user_stacklevel

__all__ = ["compare_what_can_be"]


def _readable(entry: dict[str, Any]) -> dict[str, Any]:
    """A recorded comparison with its own baseline (several baselines are compared under a placeholder
    that names the baseline in a key column)."""
    entry = dict(entry)
    if "vs_baseline" in entry:
        entry["baseline"] = entry.pop("vs_baseline")
    return {"system": entry.pop("system"), "baseline": entry.pop("baseline"), **entry}


def compare_what_can_be(data: Any, **options: Any) -> pl.DataFrame:
    """:func:`pairedframe.compare` (``options``: its keywords) over the comparisons with at least 2 common
    queries; the others are left out with a :class:`~pairedframe.errors.PartlyEmptyWarning` naming them.
    Empty (no columns) when none can be compared."""
    with collecting_unpairable() as left_out:
        try:
            result = compare(data, **options)
        except NothingPairableError:
            result = pl.DataFrame()
    if left_out:
        entries = list({tuple(sorted(e.items())): _readable(e) for e in left_out}.values())
        what = ("no comparison is possible, so the means are shown without marks" if not result.height else
                f"{len(entries)} comparison(s) left out, shown without a mark")
        warnings.warn(f"{what}: {describe_not_compared(entries)}; a paired test needs at least {MIN_PAIRED} queries "
                      "both systems have a value for",
                      PartlyEmptyWarning, stacklevel=user_stacklevel())
    return result
