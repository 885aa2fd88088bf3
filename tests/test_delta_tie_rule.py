"""A query's delta is 0 when |b - a| <= 1e-12 * max(1, |a|, |b|), as the comparing guide says: absolute
1e-12 on [0, 1] measures, relative on values far above 1 (timestamps), on the polars and DuckDB routes alike."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import pairedframe as pf


def _table(offset: float, step: float) -> pl.DataFrame:
    qids = [f"q{i:02d}" for i in range(8)]
    a = offset + np.linspace(0.0, 0.5, 8)
    return pl.DataFrame({"system": ["A"] * 8 + ["B"] * 8, "qid": qids + qids, "measure": "latency",
                         "value": np.r_[a, a + step]})


@pytest.mark.parametrize("route", ["polars", "duckdb"])
@pytest.mark.parametrize("offset, step, ties", [
    (0.0, 5e-13, 8),      # within 1e-12 absolute: float noise
    (0.0, 5e-12, 0),      # beyond it: a real difference
    (1e9, 5e-4, 8),       # within 1e-12 x 1e9 = 1e-3 of values near 1e9: a tie, as documented
    (1e9, 5e-3, 0),
])
def test_delta_tie_rule_scales_with_the_values_as_documented(route, offset, step, ties, duckdb_relation):
    table = _table(offset, step)
    data = duckdb_relation(table) if route == "duckdb" else table
    row = pf.compare(data, baseline="A", test="t", interval="t")
    assert int(row["ties"][0]) == ties
    assert (row["verdict"][0] == "identical") == (ties == 8)
