"""trec_eval's measure-parameter syntax (meas_init.c): comma-separated doubles and ``name=value``
pairs, read as C's atof reads them; the texts trec_eval prints for them; and the refusal of
trec_eval-style names of measures trec_eval 10 does not have.

A parameter with no leading number (``P.x``, ``ndcg.1=abc``), which C's atol / atof read as 0, is
refused naming the text, as one C reads as inf or nan is: a value the user never wrote is not
computed with.  One with a number followed by other text (``P.5x``, ``ndcg_rel.1=2x``) keeps
trec_eval's value, the leading number, with a warning saying what was read."""

from __future__ import annotations

import math
import re
import warnings
from typing import Any, Callable

from pairedframe.errors import UnknownMeasureError, user_stacklevel
from pairedframe.measures.base import Measure
from pairedframe.measures.param_text import gains_text

#: trec_eval's default cutoffs of P, recall, ndcg_cut, map_cut, relative_P.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

_NUMBER = re.compile(r"\s*([+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf(inity)?|nan))", re.IGNORECASE)


_INTEGER = re.compile(r"\s*([+-]?\d+)")
_HEX = re.compile(r"\s*[+-]?0[xX]\.?[0-9a-fA-F]")


class LooseNumberWarning(UserWarning):
    """A measure parameter with text after its number (``P.5x``): read as trec_eval reads it, the leading
    number, the rest ignored.  :func:`read_params` re-issues it as a UserWarning naming the measure."""


def atol(text: str) -> int:
    """C's atol: the leading integer of ``text`` (0 when there is none)."""
    m = _INTEGER.match(text)
    return int(m.group(1)) if m else 0


def _warn_loose(what: str, text: str, end: int, read: str) -> None:
    """Warn when ``text`` (``what``: "gain '2x' of grade 1") goes on after its leading number, which ends
    at ``end`` and is read as ``read``."""
    if text[end:]:
        warnings.warn(f"{what} is read as {read}, as trec_eval reads it: what follows the leading number "
                      f"({text[end:]!r}) is ignored", LooseNumberWarning, stacklevel=user_stacklevel())


def cutoffs(params: str, name: str) -> list[int]:
    """The cutoffs of a cutoff list (the text after ``P.``) as trec_eval's atol reads them; ValueError
    for an item with no leading integer (:func:`cutoff_list_problem`), a :class:`LooseNumberWarning`
    for one with text after it (``5x`` is read as 5)."""
    problem = cutoff_list_problem(params, name)
    if problem is not None:
        raise ValueError(problem)
    values = []
    for item in params.split(","):
        m = _INTEGER.match(item)
        values.append(int(m.group(1)))
        _warn_loose(f"cutoff {item!r}", item, m.end(), str(values[-1]))
    return values


def read_params(text: str, reader: Callable[..., Any], *args: Any) -> Any:
    """``reader(*args)`` on the parameters of the trec_eval-style name ``text``: its ValueError refuses the
    name (UnknownMeasureError "measure 'text': why"), its :class:`LooseNumberWarning` (``P.5x`` read as 5) is
    re-issued naming the measure."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LooseNumberWarning)
        try:
            value = reader(*args)
        except ValueError as exc:
            raise UnknownMeasureError(f"measure {text!r}: {exc}") from None
    for w in caught:  # a UserWarning, as parse_measures' other notes on names
        loose = issubclass(w.category, LooseNumberWarning)
        warnings.warn(f"measure {text!r}: {w.message}" if loose else w.message, UserWarning if loose else w.category,
                      stacklevel=user_stacklevel())
    return value


def cutoff_list_problem(params: str, name: str) -> str | None:
    """Why ``params`` (the text after ``P.``) is no cutoff list, when an item has no leading integer
    (C's atol reads 0 there: ``P.5,P.10`` was refused as "cutoff=0", a number never written); else None."""
    bad = next((item for item in params.split(",") if not re.match(r"\s*[+-]?\d", item)), None)
    if bad is None:
        return None
    what = "the cutoff list is empty" if not params else f"{bad!r} is not a cutoff" if bad else "a cutoff is missing"
    return f"{what} (a cutoff list is positive integers separated by commas, e.g. {name}.5,10)"


def has_number(text: str) -> bool:
    """Whether C's atof finds a number at the start of ``text`` (inf and nan included)."""
    return _NUMBER.match(text) is not None


def atof(text: str) -> float:
    """C's atof: the leading number of ``text``, ``inf``, ``infinity`` and ``nan`` in any case included
    (0.0 when there is none)."""
    m = _NUMBER.match(text)
    return float(m.group(1)) if m else 0.0


def finite(text: str, what: str) -> float:
    """``atof(text)``, or ValueError "<what> is not a number" when ``text`` has no leading number (C reads
    0, a value never written: ``abc``, ``''``; or a hexadecimal float, ``0x10``, which pairedframe's readers refuse
    too) and "<what> is not a finite number" when C reads inf or nan
    (``inf``, ``NaN``, ``1e999``): trec_eval would compute with it (a reader without inf and nan gave 0
    silently).  Text after the number (``2x``) gives a :class:`LooseNumberWarning`."""
    if _HEX.match(text):  # as the run and qrels readers refuse them
        raise ValueError(f"{what} is not a number (a C99 hexadecimal float, which glibc's atof reads: write it in "
                         "decimal)")
    m = _NUMBER.match(text)
    if m is None:
        raise ValueError(f"{what} is not a number (trec_eval would read it as 0)")
    value = float(m.group(1))
    if not math.isfinite(value):
        raise ValueError(f"{what} is not a finite number")
    _warn_loose(what, text, m.end(), f"{value:g}")
    return value


def doubles(text: str) -> list[float]:
    """``'.25,.5,.75'`` -> [0.25, 0.5, 0.75] (get_double_params); ValueError for a non-finite item."""
    return [finite(item, f"parameter {item!r}") for item in text.split(",")]


def pairs(text: str) -> list[tuple[str, float]]:
    """``'1=3,2=9,p=0.8'`` -> [('1', 3.0), ('2', 9.0), ('p', 0.8)] (get_param_pairs); ValueError
    ("malformed pair parameters") when an item is not ``name=value``, or its value is not finite."""
    out = []
    for item in text.split(","):
        name, sep, value = item.partition("=")
        if not sep or not name or "=" in value:
            raise ValueError(f"malformed pair parameters in {text!r}: use level=gain pairs such as 1=3,2=9")
        what = f"gain {value!r} of grade {int(name)}" if re.fullmatch(r"[+-]?\d+", name) else f"parameter {item!r}"
        out.append((name, finite(value, what)))
    return out


def gains_from_pairs(items: list[tuple[str, float]]) -> dict[int, float]:
    """The ``level=gain`` pairs whose name is an integer (gain_init.c skips the others, e.g. ``p``);
    ValueError for a grade given twice (``1=3,1=9``, ``1=3,01=9``): which gain was meant is unknown."""
    gains: dict[int, float] = {}
    for name, gain in items:
        if re.fullmatch(r"[+-]?\d+", name):
            if int(name) in gains:
                raise ValueError(f"duplicate grade {int(name)} in gains")
            gains[int(name)] = gain
    return gains


def parse_gain_pairs(text: str) -> dict:
    """Measure fields from a gain-pair list (``ndcg.1=3,2=9,4=4.5``)."""
    return {"gains": gains_from_pairs(pairs(text))}


def printable_gains(measure: Measure) -> str:
    """The pair text trec_eval would print for the measure's gains (empty for the default gains)."""
    return gains_text(measure.gains, "=") if measure.gains else ""


def number_text(value: float) -> str:
    """A parameter as a short C-like text: 0.8 -> '0.8', 2.0 -> '2'."""
    return f"{value:g}"


#: trec_eval-style spellings of families trec_eval 10 lacks (pairedframe once read them as its names) ->
#: the family; bare, all but recip_rank_cut are ir_measures-style aliases and still parse as such.
NOT_TREC_EVAL = {"recip_rank_cut": "RR", "err": "ERR", "judged": "Judged", "first_rel_rank": "FirstRelRank",
                 "top_grade_rank": "TopGradeRank"}
_NOT_TREC_EVAL_TEXT = re.compile(r"(?P<name>" + "|".join(NOT_TREC_EVAL) + r")(?:[._](?P<params>.*))?")


def not_in_trec_eval(text: str) -> UnknownMeasureError | None:
    """The error for a trec_eval-style name of a family trec_eval 10 does not have (``recip_rank_cut.10``,
    ``err_20``), saying what to write; None for any other text."""
    m = _NOT_TREC_EVAL_TEXT.fullmatch(text)
    if m is None or (m["params"] is None and m["name"] != "recip_rank_cut"):
        return None
    family = NOT_TREC_EVAL[m["name"]]
    cutoffs = (m["params"] or "").split(",")
    written = ", ".join(f"{family}@{k}" for k in cutoffs) if all(k.isdigit() for k in cutoffs) else f"{family}@k"
    has = " (it has recip_rank, without a cutoff)" if family == "RR" else ""
    return UnknownMeasureError(f"measure {text!r}: trec_eval 10 has no measure {m['name']!r}{has}; pairedframe's is "
                               f"{written} (csv, json and table print it; trec format refuses it)")
