"""Per-query values outside their measure's known range (nDCG@10 = 1.2, AP = -0.1) point at an error upstream:
compare warns (ValueRangeWarning) naming the measure, system, qid and value; the range's ends, float rounding
past them and names of no pairedframe measure give no such warning, and whole systems on another scale
(x 100) keep the interval warning of interval_range alone."""

from __future__ import annotations

import warnings

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pairedframe as pf


def _table(measure: str, value: float, *, scale: float = 1.0) -> pl.DataFrame:
    rows = [(s, f"q{i}", measure, scale * (0.2 + 0.03 * i + (0.05 if s == "b" else 0.0)))
            for s in "ab" for i in range(20)]
    rows[20 + 3] = ("b", "q3", measure, value)
    return pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")


def _range_warnings(table) -> tuple[list[str], float]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        delta = pf.compare(table, baseline="a", test="t").row(0, named=True)["delta"]
    return [str(w.message) for w in caught if issubclass(w.category, pf.ValueRangeWarning)], delta


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize(("measure", "value"), [("nDCG@10", 1.2), ("AP", -0.1), ("P@10", 1.5), ("RR", -1e-6)])
def test_value_outside_the_measure_range_warns_naming_measure_system_qid_and_value(measure, value, engine):
    table = _table(measure, value)
    if engine == "duckdb":
        con = duckdb.connect()
        con.register("pq", table.to_arrow())
        table = con.table("pq")
    found, _ = _range_warnings(table)
    assert len(found) == 1, found
    assert f"measure '{measure}' takes values in [0, 1], but system 'b', qid 'q3' has {value!r}" in found[0]


@pytest.mark.parametrize("value", [0.0, 1.0, 1.0000000000000002, -1e-17])
def test_values_at_the_range_ends_and_float_rounding_past_them_give_no_range_warning(value):
    table = _table("nDCG@10", value)
    found, delta = _range_warnings(table)
    want = (table.filter(pl.col("system") == "b")["value"].mean() - table.filter(pl.col("system") == "a")["value"].mean())
    assert found == [] and delta == pytest.approx(want, abs=1e-12)


def test_names_of_no_pairedframe_measure_have_no_range():
    found, delta = _range_warnings(_table("my_score", 7.5))
    assert found == [] and delta == pytest.approx((7.5 - 0.29 + 19 * 0.05) / 20, abs=1e-12)


def test_a_system_on_another_scale_gets_the_interval_warning_alone():
    """nDCG@10 exported x 100 (the means lie above [0, 1]): interval_range's warning says so, once."""
    table = _table("nDCG@10", 30.0, scale=100.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.compare(table, baseline="a", test="t")
    assert not [w for w in caught if issubclass(w.category, pf.ValueRangeWarning)]
    assert any("outside that measure's range" in str(w.message) for w in caught)


def _as_engine(table: pl.DataFrame, engine: str, relation):
    return relation(table) if engine == "duckdb" else table


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_one_value_x100_in_a_system_on_the_range_is_named_though_it_lifts_the_mean_above_the_range(engine, duckdb_relation):
    """One query of 20 set to 65.3 lifts system b's mean to ~3.8 but not its median: the value is named."""
    found, _ = _range_warnings(_as_engine(_table("nDCG@10", 65.3), engine, duckdb_relation))
    assert len(found) == 1, found
    assert "system 'b', qid 'q3' has 65.3 (1 value(s) of that system outside that range)" in found[0]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_system_on_another_scale_has_only_its_values_below_the_range_counted(engine, duckdb_relation):
    """A x100 system with one value of -5: its values above 1 are the scale's, only the -5 is named and counted."""
    found, _ = _range_warnings(_as_engine(_table("nDCG@10", -5.0, scale=100.0), engine, duckdb_relation))
    assert len(found) == 1, found
    assert "system 'b', qid 'q3' has -5.0 (1 value(s) of that system outside that range)" in found[0]


def test_range_warnings_of_a_spark_frame_read_as_the_polars_ones(spark):
    """The Spark route (percentile for the median) names the outlier of a system on the range and only the
    value below the range of a system on another scale, as the polars path does."""
    for table in (_table("nDCG@10", 65.3), _table("nDCG@10", -5.0, scale=100.0)):
        found, _ = _range_warnings(spark.createDataFrame(table.to_arrow()))
        assert len(found) == 1 and found == _range_warnings(table)[0], found


@pytest.mark.parametrize("options", [{}, {"baseline": "a"}, {"pairs": "all"}])
def test_results_table_gives_the_range_warning_once(options):
    """With baseline= / pairs= it runs compare, which checks the table too: one warning, not two."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.results_table(_table("nDCG@10", 1.2), **options)
    found = [str(w.message) for w in caught if issubclass(w.category, pf.ValueRangeWarning)]
    assert len(found) == 1 and "qid 'q3' has 1.2" in found[0], found


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["AP", "nDCG@10", "latency", "FirstRelRank"]),
                          st.floats(-2.0, 5.0, allow_nan=False)), min_size=1, max_size=12))
def test_range_screen_clears_only_tables_the_grouped_check_clears(rows):
    """The screen (smallest and largest value against every measure's range) is exact: when it clears a
    table, grouping by system and measure finds no value outside its measure's range either."""
    from pairedframe.comparison._validate import _within_every_range, groups_outside_ranges

    data = pl.DataFrame({"system": ["s"] * len(rows), "qid": [str(i) for i in range(len(rows))],
                         "measure": [m for m, _ in rows], "value": [v for _, v in rows]})
    groups = data.group_by("system", "measure").agg(pl.col("value").min().alias("low"),
                                                    pl.col("value").max().alias("high"),
                                                    pl.col("value").median().alias("median"))
    if _within_every_range(data):
        assert groups_outside_ranges(groups) == []
