"""The gain of a grade under each gain map (nDCG, ndcg_rel, Rndcg, G, RBP; trec_eval gain_init.c)
and the small parameter tables both engines read (``pf_gains``, ``pf_lists``, ``pf_discounts``)."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import polars as pl

from pairedframe.measures.base import Measure
from pairedframe.measures.param_text import list_key

GAINS_SCHEMA = {"gain_map": pl.String, "rel": pl.Int64, "gain": pl.Float64, "explicit": pl.Boolean}
LISTS_SCHEMA = {"list_key": pl.String, "pos": pl.Int64, "value": pl.Float64}
DISCOUNTS_SCHEMA = {"p": pl.Float64, "k": pl.Int64, "d": pl.Float64}
#: The families whose SQL reads ``pf_discounts`` (the persistence p of RBP and its residual).
DISCOUNTED = ("RBP", "RBPResid")


def parse_gain_key(key: str) -> dict[int, float]:
    """The explicit entries of a gain-map key (``'map:1=3.0,2=9.0'`` -> {1: 3.0, 2: 9.0})."""
    if not key.startswith("map:"):
        return {}
    pairs = (item.split("=", 1) for item in key[4:].split(","))
    return {int(level): float(gain) for level, gain in pairs}


def gain_of(key: str, grade: int) -> float:
    """Gain of a grade >= 0 under the map ``key``: an explicit entry, else ``2**grade - 1`` for
    ``'exp'``, else the grade itself (trec_eval: levels without a ``level=gain`` pair keep their
    level as gain)."""
    explicit = parse_gain_key(key)
    if grade in explicit:
        return explicit[grade]
    if key != "exp":
        return float(grade)
    return 2.0 ** grade - 1.0 if grade < 1024 else math.inf  # as polars and DuckDB: inf, not OverflowError


def gain_levels(explicit: Iterable[int], grades: Iterable[int]) -> list[int]:
    """The grades a gain table lists: 0, the grades >= 0 of ``grades``, the explicit entries, and
    each neighbour ``e - 1``, ``e + 1`` of an explicit entry e that is no entry itself, in 0..the
    largest grade.

    A query's RBP bounds take the smallest and largest gain over grades 0..its largest grade and
    the explicit entries (trec_eval's gain levels). Off the entries the gain grows with the grade,
    so the extremes over 0..m are at the smallest non-entry grade (0 or some e + 1) and at the
    largest non-entry grade <= m (m or some e - 1): the table lists those, not every grade up to
    a largest grade that may be in the billions. The DuckDB macros build the same list in SQL
    (``pf__parameter_tables_sql``; tests/test_duckdb_macros_values.py compares them)."""
    explicit = set(explicit)
    occurring = {int(g) for g in grades if g is not None and g >= 0}
    top = max(occurring, default=0)
    near = {0} | {e + step for e in explicit for step in (-1, 1)}
    return sorted(explicit | occurring | {g for g in near - explicit if 0 <= g <= top})


def gain_table(keys: Iterable[str], grades: Iterable[int]) -> pl.DataFrame:
    """``gain_map, rel, gain, explicit``: the gain of each grade of :func:`gain_levels` (the grades
    occurring in ``grades`` and what RBP's bounds need) under each map in ``keys``; ``explicit``
    marks the map's own ``level=gain`` pairs, which trec_eval counts among a query's gain levels
    even when no document has that grade (RBP's normalisation)."""
    grades = list(grades)
    rows = []
    for key in dict.fromkeys(keys):
        explicit = parse_gain_key(key)
        for level in gain_levels(explicit, grades):
            rows.append((key, level, gain_of(key, level), level in explicit))
    return pl.DataFrame(rows, schema=GAINS_SCHEMA, orient="row")


def gain_keys(measures: Iterable[Measure]) -> list[str]:
    """The gain maps the measures use, ``''`` (the grade) always first."""
    return list(dict.fromkeys(["", *(m.gain_key for m in measures if m.spec.uses_gain)]))


def list_table(measures: Iterable[Measure]) -> pl.DataFrame:
    """``list_key, pos, value``: the values of the measures' list parameters (IPrecAvg's recall
    levels, Utility's weights), 1-based positions, one key per distinct list."""
    rows = {}
    for m in measures:
        for p in m.spec.params:
            if p.kind == "floats":
                values = m.param(p.name)
                rows[list_key(values)] = values
    return pl.DataFrame([(key, i + 1, v) for key, values in rows.items() for i, v in enumerate(values)],
                        schema=LISTS_SCHEMA, orient="row")


def rbp_bounds(key: str, max_grades: Iterable[int]) -> pl.DataFrame:
    """``max_grade, lo, hi``: for a query whose largest grade is max_grade, the smallest and largest
    gain among its gain levels as trec_eval 10's rbp sees them (grades 0..max_grade and the map's
    own entries; m_rbp.c), for each distinct max_grade >= 0 of ``max_grades``."""
    tops = sorted({int(g) for g in max_grades if g is not None and g >= 0})
    table = gain_table([key], tops)
    rows = []
    for grade in tops:
        values = table.filter((pl.col("rel") <= grade) | pl.col("explicit"))["gain"]
        rows.append((grade, float(values.min()), float(values.max())))
    return pl.DataFrame(rows, schema={"max_grade": pl.Int64, "lo": pl.Float64, "hi": pl.Float64}, orient="row")


def discounts(p: float, largest: int) -> np.ndarray:
    """``p**k`` for k = 0..largest, each the previous one times p, as trec_eval 10's rbp and rbp_resid
    loops compute it (``cur_p = cur_p * p``): numpy's cumprod multiplies in order, so the values are
    the loop's bit for bit, where C's pow differs in the last bit for some k. For p > 0.5 they never
    reach 0: the product stops at a subnormal that, times p, rounds back to itself."""
    return np.cumprod(np.r_[1.0, np.full(max(int(largest), 0), float(p))])


def discount_table(measures: Iterable[Measure], largest: int) -> pl.DataFrame:
    """``p, k, d``: :func:`discounts` (``d = p**k``, k = 0..largest) for each distinct persistence p of
    the RBP and RBPResid measures in ``measures``; ``largest`` is the largest num_ret evaluated (RBP
    reads k < num_ret, RBPResid k <= num_ret)."""
    ps = list(dict.fromkeys(float(m.param("p")) for m in measures if m.spec.key in DISCOUNTED))
    n = max(int(largest), 0) + 1
    return pl.DataFrame({"p": np.repeat(np.array(ps, dtype=np.float64), n),
                         "k": np.tile(np.arange(n, dtype=np.int64), len(ps)),
                         "d": np.concatenate([discounts(p, largest) for p in ps]) if ps else np.zeros(0)},
                        schema=DISCOUNTS_SCHEMA)
