"""interval="percentile" / "bca" with fewer queries than the calibration shows them holding their level warn."""

from __future__ import annotations

import re
import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.comparison.interval_range import PERCENTILE_MIN_N
from pairedframe.errors import SmallSampleWarning
from tests.calibration_tables import RESULTS, cells, first_number

CALIBRATION = RESULTS / "calibration_paired.md"


def _table(n: int) -> pl.DataFrame:
    rng = np.random.default_rng(n)
    a = rng.uniform(0.2, 0.6, n)
    q = [f"q{i}" for i in range(n)]
    return pl.DataFrame({"system": ["a"] * n + ["b"] * n, "qid": q + q, "measure": "nDCG@10",
                         "value": np.r_[a, a + rng.normal(0.02, 0.1, n)]})


def _percentile_warnings(call) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        call()
    return [w for w in got if issubclass(w.category, SmallSampleWarning) and "interval=" in str(w.message)]


@pytest.mark.parametrize("interval", ["percentile", "bca"])
def test_percentile_and_bca_below_the_calibrated_n_warn_at_the_callers_line(interval):
    table = _table(8)
    for call in (lambda: pf.compare(table, baseline="a", interval=interval, n_resamples=999, seed=0),
                 lambda: pf.compare_pair(table["value"][:8], table["value"][8:], measure="nDCG@10",
                                         interval=interval, n_resamples=999, seed=0)):
        got = _percentile_warnings(call)
        assert len(got) == 1 and got[0].filename == __file__
        assert f"interval={interval!r} with 8 queries" in str(got[0].message)


def test_percentile_at_the_calibrated_n_and_the_default_interval_do_not_warn():
    assert not _percentile_warnings(lambda: pf.compare(_table(PERCENTILE_MIN_N), baseline="a",
                                                       interval="percentile", n_resamples=999, seed=0))
    assert not _percentile_warnings(lambda: pf.compare(_table(8), baseline="a", n_resamples=999, seed=0))


def test_percentile_warning_figures_against_the_calibration_table():
    """The coverage ranges the warning quotes are those docs/results/calibration_paired.md prints."""
    head = next(line for line in CALIBRATION.read_text().splitlines() if "| percentile | BCa |" in line)
    cols = cells(head)
    rows = [cells(line) for line in CALIBRATION.read_text().splitlines()
            if re.match(r"\| (DL-2019|DL-2021|Robust03) \| (nDCG@10|AP) \| (20|50) \|", line)]
    rows = rows[:12]                                  # the first table: its 6 collections x measures at 20 and 50
    cover = {n: [first_number(r[cols.index(k)]) for r in rows if r[2] == n for k in ("percentile", "BCa")]
             for n in ("20", "50")}
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        pf.compare(_table(8), baseline="a", interval="percentile", n_resamples=999, seed=0)
    text = next(str(w.message) for w in got if "interval=" in str(w.message))
    assert f"{min(cover['20']):.3f}-{max(cover['20']):.3f} at 20 queries" in text
    assert f"{min(cover['50']):.3f}-{max(cover['50']):.3f} at 50" in text
    assert max(cover["20"]) < 0.93       # far below the level under PERCENTILE_MIN_N, hence the warning


def _small_sample_warnings(call) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        call()
    return [w for w in got if issubclass(w.category, SmallSampleWarning)]


@pytest.mark.parametrize("interval", ["percentile", "bca"])
def test_percentile_and_bca_below_20_queries_warn_once_saying_both_at_the_callers_line(interval):
    """Under MIN_QUERIES (20) the small-sample warning and the percentile / BCa one are one warning that
    says both, in compare, compare_pair and (percentile) on a DuckDB relation; a comparison of 30 queries
    beside one of 8 is counted in it."""
    import duckdb

    eight, thirty = _table(8), _table(30)
    mixed = pl.concat([thirty, eight.filter(pl.col("system") == "b").with_columns(pl.lit("c").alias("system"))])
    calls = [lambda: pf.compare(eight, baseline="a", interval=interval, n_resamples=999, seed=0),
             lambda: pf.compare(mixed, baseline="a", interval=interval, n_resamples=999, seed=0),
             lambda: pf.compare_pair(eight["value"][:8], eight["value"][8:], measure="nDCG@10",
                                     interval=interval, n_resamples=999, seed=0)]
    if interval == "percentile":
        con = duckdb.connect()
        con.register("mixed_arrow", mixed.to_arrow())
        calls.append(lambda: pf.compare(con.table("mixed_arrow"), baseline="a", interval=interval,
                                        n_resamples=999, seed=0))
    for k, call in enumerate(calls):
        got = _small_sample_warnings(call)
        assert len(got) == 1 and got[0].filename == __file__, (k, [str(w.message) for w in got])
        text = str(got[0].message)
        assert "fewer than 20" in text and f"interval={interval!r} with 8 queries" in text, k
        if k in (1, 3):
            assert "1 comparison(s) have fewer than 20" in text and "(2 comparison(s) with fewer than 50)" in text


def test_default_interval_below_20_queries_keeps_the_small_sample_warning_alone():
    got = _small_sample_warnings(lambda: pf.compare(_table(8), baseline="a", n_resamples=999, seed=0))
    assert len(got) == 1 and got[0].filename == __file__ and "interval=" not in str(got[0].message)
