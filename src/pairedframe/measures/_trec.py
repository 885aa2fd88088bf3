"""trec_eval's measure-parameter syntax (meas_init.c): comma-separated doubles and ``name=value``
pairs, read as C's atof reads them; and the texts trec_eval prints for them."""

from __future__ import annotations

import re

from pairedframe.measures.base import Measure
from pairedframe.measures.param_text import gains_text

#: trec_eval's default cutoffs of P, recall, ndcg_cut, map_cut, relative_P.
TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)

_NUMBER = re.compile(r"\s*([+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)")


def atof(text: str) -> float:
    """C's atof: the leading number of ``text`` (0.0 when there is none)."""
    m = _NUMBER.match(text)
    return float(m.group(1)) if m else 0.0


def doubles(text: str) -> list[float]:
    """``'.25,.5,.75'`` -> [0.25, 0.5, 0.75] (get_double_params)."""
    return [atof(item) for item in text.split(",")]


def pairs(text: str) -> list[tuple[str, float]]:
    """``'1=3,2=9,p=0.8'`` -> [('1', 3.0), ('2', 9.0), ('p', 0.8)] (get_param_pairs); ValueError
    ("malformed pair parameters") when an item is not ``name=value``."""
    out = []
    for item in text.split(","):
        name, sep, value = item.partition("=")
        if not sep or not name or "=" in value:
            raise ValueError(f"malformed pair parameters in {text!r}: use level=gain pairs such as 1=3,2=9")
        out.append((name, atof(value)))
    return out


def gains_from_pairs(items: list[tuple[str, float]]) -> dict[int, float]:
    """The ``level=gain`` pairs whose name is an integer (gain_init.c skips the others, e.g. ``p``)."""
    return {int(name): gain for name, gain in items if re.fullmatch(r"[+-]?\d+", name)}


def parse_gain_pairs(text: str) -> dict:
    """Measure fields from a gain-pair list (``ndcg.1=3,2=9,4=4.5``)."""
    return {"gains": gains_from_pairs(pairs(text))}


def printable_gains(measure: Measure) -> str:
    """The pair text trec_eval would print for the measure's gains (empty for the default gains)."""
    return gains_text(measure.gains, "=") if measure.gains else ""


def number_text(value: float) -> str:
    """A parameter as a short C-like text: 0.8 -> '0.8', 2.0 -> '2'."""
    return f"{value:g}"
