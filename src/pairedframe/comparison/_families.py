"""Multiple-comparison families of a comparison call: which rows Holm / BH adjust together, in words.

One rule for every comparison function: by default a family is one combination of the *key
columns* (every column of the per-query table beyond ``system, qid, measure, value``: a judgment
set, a dataset, ...), since each key value is its own experiment -- the rows a results table of one
judgment set or one dataset shows.  Without key columns that is every row of the call.
``family_by`` names the columns instead (``[]``: one family over every row of the call).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

__all__ = ["family_columns", "family_ids", "family_text", "untested_family_text"]


def family_columns(family_by: Any, *, keys: Sequence[str], allowed: Sequence[str]) -> list[str]:
    """The columns that split the family: the key columns by default, else ``family_by`` checked
    against ``allowed`` (ValueError naming the unknown ones)."""
    if family_by is None:
        return list(keys)
    cols = [family_by] if isinstance(family_by, str) else list(family_by)
    unknown = [c for c in cols if c not in allowed]
    if unknown:
        raise ValueError(f"`family_by` column(s) {unknown} not among {list(allowed)}")
    return list(dict.fromkeys(cols))


def family_ids(rows: pl.DataFrame, cols: Sequence[str]) -> np.ndarray:
    """Family number of each row (0-based dense rank of its values of ``cols``; all 0 without columns)."""
    if not cols:
        return np.zeros(rows.height, dtype=np.int64)
    return rows.select(pl.struct(list(cols)).rank("dense").cast(pl.Int64)).to_series().to_numpy() - 1


def family_text(cols: Sequence[str], sizes: np.ndarray) -> str:
    """The family rule in words, with the family sizes: ``"all 6 comparisons of the call"``,
    ``"per judgments, 4 comparisons each"``, ``"per dataset, 2-3 comparisons"``.  ``sizes``: the
    number of comparisons in each row's family (NaN p-values left out)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    lo, hi = (int(sizes.min()), int(sizes.max())) if sizes.size else (0, 0)
    if not cols:
        return "the one comparison of the call" if hi == 1 else f"all {hi} comparisons of the call"
    count = (f"{hi} comparison{'s' if hi != 1 else ''} each" if lo == hi else f"{lo}-{hi} comparisons")
    return f"per {', '.join(cols)}, {count}"


def untested_family_text(rule: str, why: str) -> str:
    """The ``family`` text of a row without a test (``why``: e.g. ``"one paired query"``), which its family's
    adjustment leaves out: ``"no test: one paired query (left out of its family: per measure)"``. Per key
    columns the sizes :func:`family_text` names are the tested rows' families, not this row's (``family_size``
    holds that), so they are left out here; the call's one family keeps its size."""
    if rule.startswith("per "):
        rule = rule.rsplit(", ", 1)[0]
    return f"no test: {why} (left out of its family: {rule})"
