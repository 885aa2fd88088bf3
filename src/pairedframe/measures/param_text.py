"""Parameter values as text and as keys: how a measure's name writes its numbers and gain maps
(ir_measures' repr), and the keys that bind list parameters and gain maps to the SQL."""

from __future__ import annotations

import math
import numbers
from typing import Any

from pairedframe.errors import UnknownMeasureError

__all__ = ["Gains", "check_whole", "checked_gains", "cutoff_error", "exact_gains", "fmt_number", "gains_text", "list_key"]

#: A gain map: ``(grade, gain)`` pairs sorted by grade.
Gains = tuple[tuple[int, float], ...]


def check_whole(family: str, name: str, value: Any, low: int) -> None:
    """A measure's ``cutoff`` / ``rel`` given to :class:`~pairedframe.measures.Measure` directly: None or an
    integer >= ``low`` (a bool is no cutoff: ``Measure("P", cutoff=True)`` reached the SQL as ``P@True``)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low):
        raise UnknownMeasureError(f"measure {family}: {name}={value!r} must be an integer >= {low} or None")


def checked_gains(family: str, gains: Any) -> Gains | None:
    """A :class:`~pairedframe.measures.Measure`'s ``gains`` (``(grade, gain)`` pairs) sorted by grade, without
    the gains equal to their grade (None when none is left); UnknownMeasureError for a gain that is not
    finite and for a grade given twice (``gains=((1, 3), (1, 5))``: which gain was meant is unknown, as
    ``ndcg.1=3,1=5`` and ``nDCG(gains={1: 3, 1: 5})`` are refused)."""
    seen: dict[int, Any] = {}
    for level, gain in gains:
        if not math.isfinite(float(gain)):
            raise UnknownMeasureError(f"measure {family}: the gain {gain!r} of grade {level} is not a finite number")
        if int(level) in seen:
            raise UnknownMeasureError(f"measure {family}: gains= gives grade {int(level)} twice (gains "
                                      f"{seen[int(level)]!r} and {gain!r}): which gain was meant is unknown")
        seen[int(level)] = gain
    return tuple(sorted((int(k), float(v)) for k, v in gains if float(v) != int(k))) or None


def fmt_number(value: Any) -> str:
    """A parameter value as Python writes it (ir_measures' repr): 0.8, 1.0, 2, (0.25, 0.5)."""
    if isinstance(value, tuple):
        return "(" + ",".join(fmt_number(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def gains_text(gains: Gains, sep: str = ":") -> str:
    """``{1:3.0,2:9.0}`` body: grade<sep>gain pairs, sorted by grade."""
    return ",".join(f"{level}{sep}{fmt_number(gain)}" for level, gain in gains)


def exact_gains(gains: Gains | None) -> bool:
    """Whether sums of these gains (and of the grades) are exact in any order: every gain a multiple
    of 2**-20 below 2**20 (grades, 2**grade - 1 up to grade 20, 4.5, 0.25 are; 0.1 is not)."""
    return all(abs(g) < 2 ** 20 and (g * 2 ** 20).is_integer() for _, g in (gains or ()))


def list_key(values: tuple[float, ...]) -> str:
    """Key of a list parameter's rows in the ``pf_lists`` table."""
    return ",".join(repr(float(v)) for v in values)


def cutoff_error(cutoff: Any, family: str) -> str:
    """Why ``cutoff`` is no cutoff: a whole number written as a float (``P@1e3``, ``P@10.0``) is named as
    such with its integer spelling, since it is in range; anything else is out of range."""
    if isinstance(cutoff, float) and cutoff.is_integer() and 1 <= cutoff < 2**63:
        return (f"cutoff {cutoff!r} is written as a float: a cutoff is a positive integer written as one "
                f"(e.g. {family}@{int(cutoff)})")
    return f"cutoff={cutoff!r} is out of range: a cutoff must be a positive integer"
