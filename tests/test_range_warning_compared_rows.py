"""A value outside its measure's range is warned about only for the rows compared: with baseline 'a' and
systems=['c'], a bad value of 'b' was named (the tester of round 14), and measures= did not narrow it either,
in memory, in DuckDB, with several baselines and with pairs= (whose warning, when it warned, is counted again
on the table before its copies per baseline: on the compared measures too)."""

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
    how = ({"pairs": "all", "systems": ["a", "c"]} if door == "pairs"
           else {"baseline": ["a"] if door == "baselines" else "a", "systems": ["c"]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.compare(data, measures=["AP"], test="t", **how)
    return [str(w.message) for w in caught if issubclass(w.category, ValueRangeWarning)]


@pytest.mark.parametrize("door", ["polars", "duckdb", "baselines", "pairs"])
@pytest.mark.parametrize("bad", [("b", "AP"), ("c", "P@10"), ("b", "P@10")], ids=["other-system", "other-measure",
                                                                                    "neither"])
def test_a_value_outside_its_range_in_a_row_not_compared_is_not_warned_about(door, bad):
    assert _range_warnings(door, _table(*bad)) == []


@pytest.mark.parametrize("door", ["polars", "duckdb", "baselines", "pairs"])
@pytest.mark.parametrize("bad", [("c", "AP"), ("a", "AP")], ids=["compared-system", "baseline"])
def test_a_value_outside_its_range_in_a_compared_row_is_warned_about_naming_it(door, bad):
    said = _range_warnings(door, _table(*bad))
    assert len(said) == 1 and f"system '{bad[0]}'" in said[0], said


@pytest.mark.parametrize("how", [{"baseline": ["a"]}, {"pairs": "all"}], ids=["baselines", "pairs"])
def test_several_baselines_or_pairs_count_values_outside_range_of_the_compared_measures_only(how):
    # P@10, not compared, has two bad values of 'c' and comes first in the table; AP, compared, has one
    p10 = _table("c", "P@10").filter(pl.col("measure") == "P@10")
    p10 = p10.with_columns(pl.when((pl.col("system") == "c") & (pl.col("qid") == "q5")).then(1.5)
                           .otherwise(pl.col("value")).alias("value"))
    table = pl.concat([p10, _table("c", "AP").filter(pl.col("measure") == "AP")])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.compare(table, systems=["a", "c"], measures=["AP"], test="t", **how)
    said = [str(w.message) for w in caught if issubclass(w.category, ValueRangeWarning)]
    assert len(said) == 1, said
    assert "measure 'AP'" in said[0] and "(1 value(s) of that system" in said[0] and "other" not in said[0], said
