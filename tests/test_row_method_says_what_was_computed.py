"""Each row of compare says what computed it: a default one-sided bound on fewer than 20 queries (or any bound on
fewer than 5) is Student's t, so its row says interval "t", draws no bootstrap resample and is charged for none;
a t-test row with the t interval says "analytic" however that interval was asked for; neighbouring rows keep their
numbers, in memory and in DuckDB."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from scipy import stats

import pairedframe as pf
from pairedframe.comparison.large_n import LARGE_N

duckdb = pytest.importorskip("duckdb")


def _table(sizes: dict[str, int], seed: int = 1) -> pl.DataFrame:
    """Per-query values of base and X, one measure per entry of ``sizes`` (its own query set of that size)."""
    rng = np.random.default_rng(seed)
    rows = []
    for measure, n in sizes.items():
        for i in range(n):
            a, b = rng.random(2)
            rows += [dict(system="base", qid=f"{measure}-{i}", measure=measure, value=float(a)),
                     dict(system="X", qid=f"{measure}-{i}", measure=measure, value=float(b))]
    return pl.DataFrame(rows)


def _sources(table: pl.DataFrame):
    con = duckdb.connect()
    con.register("per_query", table.to_arrow())
    return {"polars": table, "duckdb": con.table("per_query")}


def _compare(source, **kw) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pf.compare(source, baseline="base", **kw).sort("measure")


def _deltas(table: pl.DataFrame, measure: str) -> np.ndarray:
    wide = table.filter(pl.col("measure") == measure).pivot(on="system", index="qid", values="value").sort("qid")
    return (wide["X"] - wide["base"]).to_numpy()


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_t_test_row_below_twenty_queries_says_t_and_analytic_against_scipy_ttest(alternative):
    table = _table({"few": 10})
    want = stats.ttest_1samp(_deltas(table, "few"), 0.0, alternative=alternative).confidence_interval(0.95)
    for name, source in _sources(table).items():
        row = _compare(source, test="t", interval="studentized", alternative=alternative).row(0, named=True)
        assert (row["interval"], row["method"], row["n_resamples"]) == ("t", "analytic", None), name
        bound = row["ci_low"] if alternative == "greater" else row["ci_high"]
        assert bound == pytest.approx(want.low if alternative == "greater" else want.high, abs=1e-12), name


def test_student_only_rows_are_charged_for_no_bootstrap_resample_in_polars_and_duckdb():
    """10**9 resamples of 10 queries would be refused by the cost check (and take hours) if they were drawn."""
    for name, source in _sources(_table({"few": 10, "tiny": 4})).items():
        out = _compare(source, test="t", interval="studentized", alternative="greater", n_resamples=10**9)
        assert out["method"].to_list() == ["analytic", "analytic"], name
        assert out["interval"].to_list() == ["t", "t"], name


def test_student_only_row_drawn_p_value_keeps_resampling_and_its_resamples():
    """With the sign-flip test the p-value is still drawn: method resampling, n_resamples B, interval t."""
    for name, source in _sources(_table({"few": 10})).items():
        row = _compare(source, alternative="greater", n_resamples=999, seed=3).row(0, named=True)
        assert (row["interval"], row["method"], row["n_resamples"]) == ("t", "resampling", 999), name


@pytest.mark.parametrize("test", ["t", "randomization"])
def test_neighbouring_row_keeps_its_values_beside_a_student_only_row(test):
    table = _table({"few": 10, "many": 30})
    values = ["delta", "ci_low", "ci_high", "pvalue", "interval", "method", "n_resamples"]
    for name, source in _sources(table).items():
        both = _compare(source, test=test, interval="studentized", alternative="greater", n_resamples=999, seed=3)
        alone = _compare(_sources(table.filter(pl.col("measure") == "many"))[name], test=test, interval="studentized",
                         alternative="greater", n_resamples=999, seed=3)
        assert both.filter(pl.col("measure") == "many").select(values).rows() == alone.select(values).rows(), name
        assert alone.row(0, named=True)["interval"] == "studentized", name


def test_t_test_at_large_n_is_analytic_whether_interval_t_or_studentized_was_asked():
    """Tester finding C8: identical numbers got "analytic" (interval='t') and "one-pass" (interval='studentized')."""
    rng = np.random.default_rng(5)
    n = LARGE_N + 500
    d = rng.normal(0.01, 0.1, n)
    table = pl.DataFrame({"system": ["base"] * n + ["X"] * n, "qid": [f"q{i}" for i in range(n)] * 2,
                          "measure": "AP", "value": np.concatenate([np.full(n, 0.5), 0.5 + d])})
    got = {asked: _compare(table, test="t", interval=asked, n_resamples=200) for asked in ("t", "studentized")}
    numbers = ["delta", "ci_low", "ci_high", "pvalue", "interval", "method", "n_resamples"]
    assert got["t"].select(numbers).rows() == got["studentized"].select(numbers).rows()
    assert got["t"].row(0, named=True)["method"] == "analytic"
    one_pass = _compare(table, interval="studentized", n_resamples=200).row(0, named=True)
    assert (one_pass["method"], one_pass["interval"]) == ("one-pass", "t")


def test_compare_pair_says_the_t_interval_and_no_resamples_below_twenty_one_sided_queries():
    d = _deltas(_table({"few": 10}), "few")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pf.compare_pair(np.full(10, 0.5), 0.5 + d, test="t", interval="studentized", alternative="greater")
    assert (res.interval, res.n_resamples) == ("t", None)


def test_table_caption_names_the_t_rows_of_a_default_interval():
    table = pl.concat([_table({"m": 30}), _table({"m": 10}, seed=2).with_columns(
        pl.col("system").replace({"X": "Y"}), pl.col("qid") + "-y")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        caption = pf.results_table(table, baseline="base", alternative="greater", n_resamples=99, seed=0).caption
    assert "delta intervals: studentized bootstrap (symmetric bootstrap-t) (t on the rows with too few queries" in caption
