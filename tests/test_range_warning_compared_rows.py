"""A value outside its measure's range is warned about only for the rows compared: with baseline 'a' and
systems=['c'], a bad value of 'b' was named (the tester of round 14), and measures= did not narrow it either,
in memory, in DuckDB and with several baselines."""

from __future__ import annotations

import warnings

import duckdb
import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import ValueRangeWarning

N = 12


def _table(bad_system: str, bad_measure: str) -> pl.DataFrame:
    rng = np.random.default_rng(3)
    rows = []
    for system in ("a", "b", "c"):
        for measure in ("AP", "P@10"):
            values = rng.uniform(0, 1, N)
            if (system, measure) == (bad_system, bad_measure):
                values[2] = 1.5                       # above AP's and P@10's range [0, 1]
            rows.append(pl.DataFrame({"system": system, "qid": [f"q{i}" for i in range(N)], "measure": measure,
                                      "value": values}))
    return pl.concat(rows)


def _range_warnings(door: str, table: pl.DataFrame) -> list[str]:
    data = duckdb.from_arrow(table.to_arrow()) if door == "duckdb" else table
    baseline = ["a"] if door == "baselines" else "a"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.compare(data, baseline=baseline, systems=["c"], measures=["AP"], test="t")
    return [str(w.message) for w in caught if issubclass(w.category, ValueRangeWarning)]


@pytest.mark.parametrize("door", ["polars", "duckdb", "baselines"])
@pytest.mark.parametrize("bad", [("b", "AP"), ("c", "P@10"), ("b", "P@10")], ids=["other-system", "other-measure",
                                                                                    "neither"])
def test_a_value_outside_its_range_in_a_row_not_compared_is_not_warned_about(door, bad):
    assert _range_warnings(door, _table(*bad)) == []


@pytest.mark.parametrize("door", ["polars", "duckdb", "baselines"])
@pytest.mark.parametrize("bad", [("c", "AP"), ("a", "AP")], ids=["compared-system", "baseline"])
def test_a_value_outside_its_range_in_a_compared_row_is_warned_about_naming_it(door, bad):
    said = _range_warnings(door, _table(*bad))
    assert len(said) == 1 and f"system '{bad[0]}'" in said[0], said
