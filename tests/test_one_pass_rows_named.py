"""Rows computed in one pass (comparison/large_n.py) name what was computed, not what was asked: their
interval, notes and warnings, in memory and in DuckDB; and interval='bca' on a DuckDB relation whose
every comparison goes one pass (no jackknife needed) gives the polars path's answer."""

from __future__ import annotations

import math
import warnings

import duckdb
import numpy as np
import polars as pl
import pytest
from scipy import stats

import pairedframe as pf
from pairedframe.comparison.large_n import LARGE_N, LARGE_N_EFF
from pairedframe.errors import SkewWarning, TiedQueriesWarning


def _table(deltas: dict[str, np.ndarray], base: float = 0.5) -> pl.DataFrame:
    n = next(iter(deltas.values())).size
    qids = [f"q{i:06d}" for i in range(n)]
    parts = [pl.DataFrame({"system": "base", "qid": qids, "measure": "nDCG@10", "value": np.full(n, base)})]
    parts += [pl.DataFrame({"system": s, "qid": qids, "measure": "nDCG@10", "value": base + d})
              for s, d in deltas.items()]
    return pl.concat(parts)


def _one_pass_deltas(seed: int) -> np.ndarray:
    """LARGE_N + 10 non-zero deltas of one size up to 1/4: n_eff far above LARGE_N_EFF."""
    rng = np.random.default_rng(seed)
    d = rng.integers(1, 200, LARGE_N + 10) / 1024 * rng.choice([-1.0, 1.0], LARGE_N + 10) + 0.004
    return np.where(np.round(d * 1024) == 0, 1 / 1024, np.round(d * 1024) / 1024)


def _duckdb(table: pl.DataFrame):
    con = duckdb.connect()
    con.register("pq_arrow", table.to_arrow())
    return con.table("pq_arrow")


def _both(table: pl.DataFrame):
    """The table in memory and as a DuckDB relation."""
    return [("polars", table), ("duckdb", _duckdb(table))]


def _compare(source, **kw) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pf.compare(source, baseline="base", **kw)


def test_bca_on_duckdb_where_every_comparison_goes_one_pass_against_the_polars_path():
    table = _table({"x": _one_pass_deltas(1), "y": -_one_pass_deltas(2)})
    mem = _compare(table, interval="bca", seed=0)
    eng = _compare(_duckdb(table), interval="bca", seed=0)
    assert mem["method"].to_list() == eng["method"].to_list() == ["one-pass", "one-pass"]
    assert mem["interval"].to_list() == eng["interval"].to_list() == ["t", "t"]
    for column in ("delta", "ci_low", "ci_high", "pvalue", "se", "sd", "skewness", "mde"):
        np.testing.assert_allclose(eng[column].to_numpy(), mem[column].to_numpy(), rtol=1e-12, atol=1e-15)
    assert eng["verdict"].to_list() == mem["verdict"].to_list()
    assert eng["verdict_note"].to_list() == mem["verdict_note"].to_list()


@pytest.mark.parametrize("case", ["a resampled row", "resampling fixed"])
def test_bca_on_duckdb_with_a_resampled_comparison_is_refused_naming_the_argument(case):
    d = _one_pass_deltas(3)
    few = np.where(np.arange(d.size) < 20, 0.0, d)           # 20 ties: LARGE_N - 10 non-zero deltas, resampled
    table = _table({"x": d, "y": few} if case == "a resampled row" else {"x": d})
    kw = {} if case == "a resampled row" else {"resampling": "fixed"}
    with pytest.raises(ValueError, match="interval='bca' is not available for DuckDB relations") as got:
        _compare(_duckdb(table), interval="bca", **kw)
    if case == "a resampled row":
        assert "1 of 2 comparison(s)" in str(got.value) and "system=y" in str(got.value)
        assert f"{LARGE_N - 10:,} non-zero deltas" in str(got.value) and f"{LARGE_N_EFF:,}" in str(got.value)
    computed = _compare(table, interval="bca", n_resamples=50, **kw)["interval"].to_list()   # polars computes it
    assert computed == (["t", "bca"] if case == "a resampled row" else ["bca"])


@pytest.mark.parametrize("asked, n_resamples", [("percentile", 10), ("bca", 10), ("signflip", 10),
                                                ("studentized", 10)])
def test_one_pass_rows_are_neither_capped_nor_noted_for_resamples_they_did_not_draw(asked, n_resamples):
    """n_resamples = 10 is too few for a 95 % percentile / sign-flip interval, but a one-pass row drew none:
    its interval is the one computed with enough resamples, and no note speaks of resamples."""
    table = _table({"x": _one_pass_deltas(4)})
    for name, source in _both(table):
        if asked == "bca" and name == "duckdb":
            continue                                            # tested above against polars
        few = _compare(source, interval=asked, n_resamples=n_resamples, seed=0)
        enough = _compare(source, interval=asked, n_resamples=2000, seed=0)
        assert few["method"][0] == "one-pass", name
        assert (few["ci_low"][0], few["ci_high"][0]) == (enough["ci_low"][0], enough["ci_high"][0]), name
        assert few["verdict_note"][0] is None or "n_resamples" not in few["verdict_note"][0], name


def _t_interval_just_excluding_zero() -> np.ndarray:
    """LARGE_N + 10 deltas whose t statistic is 1.96022: the t interval excludes 0 while the sign-flip test's
    normal approximation, z = sum(d) / sqrt(sum(d**2)) about 3e-4 below t, does not reject at 0.05."""
    rng = np.random.default_rng(5)
    e = rng.uniform(-0.1, 0.1, LARGE_N + 10)
    e -= e.mean()
    d = e + 1.96022 * e.std(ddof=1) / math.sqrt(e.size)
    assert stats.ttest_1samp(d, 0).pvalue < 0.05 < 2 * stats.norm.sf(d.sum() / math.sqrt(np.sum(d * d)))
    return d


@pytest.mark.parametrize("asked", ["percentile", "studentized"])
def test_one_pass_verdict_note_names_the_t_interval_not_the_one_asked_in_polars_and_duckdb(asked):
    table = _table({"x": _t_interval_just_excluding_zero()})
    for name, source in _both(table):
        row = _compare(source, interval=asked, n_resamples=200).row(0, named=True)
        assert (row["method"], row["interval"], row["verdict"]) == ("one-pass", "t", "inconclusive"), name
        assert "the t interval is not the set of shifts" in row["verdict_note"], name
        assert asked not in row["verdict_note"], name


def _skewed_and_tied() -> dict[str, np.ndarray]:
    """Two one-pass comparisons of 14,000 queries: "skewed", no delta 0, 10 at 0.4 and the rest 0.1 (skewness
    about 37, far beyond Cochran's rule, n_eff near n); "tied", 3,999 deltas 0 (over TIED_SHARE) and
    10,001 of +-0.1."""
    skewed = np.full(14_000, 0.1)
    skewed[:10] = 0.4
    tied = np.zeros(14_000)
    tied[:LARGE_N + 1] = np.where(np.arange(LARGE_N + 1) % 2, 0.1, -0.1)
    return {"skewed": skewed, "tied": tied}


@pytest.mark.parametrize("asked", ["percentile", "studentized"])
def test_skew_and_tie_warnings_on_a_one_pass_row_name_the_t_interval_in_polars_and_duckdb(asked):
    table = _table(_skewed_and_tied())
    for name, source in _both(table):
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            out = pf.compare(source, baseline="base", interval=asked, n_resamples=200)
        assert out["method"].to_list() == ["one-pass", "one-pass"], name
        for category in (SkewWarning, TiedQueriesWarning):
            text = next(str(w.message) for w in got if issubclass(w.category, category))
            assert "the interval here is t at 95 %" in text, (name, category)
            assert "interval used here" not in text and "here is percentile" not in text, (name, category)


def test_report_comparisons_intro_says_what_each_group_of_rows_used_on_a_mixed_table():
    """One comparison in one pass (t interval, nothing drawn) beside a resampled one (studentized, B = 99):
    the report's comparisons section says both, not the first row's interval and n_resamples for all, and
    shows each row's interval and method."""
    import dataclasses
    import html

    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    d = _one_pass_deltas(6)
    few = np.where(np.arange(d.size) < 100, 0.05, 0.0)             # 100 non-zero deltas: resampled
    per_query = _table({"big": d, "few": few}).with_columns(pl.col("value").clip(0.0, 1.0))
    ev = dataclasses.replace(pf.evaluate(runs[:2], qrels, ["nDCG@10"]), per_query=per_query)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pf.report(ev, measures=["nDCG@10"], baseline="base", n_resamples=99)
    assert rep.comparison.select("interval", "method").rows() == [("t", "one-pass"), ("studentized", "resampling")]
    text = html.unescape(rep.fragment)
    start = text.index("delta = system − baseline over")
    intro = text[start:text.index("The verdict follows", start)]
    assert "t interval, no resamples, method one-pass on 1 row" in intro
    assert "studentized interval, n_resamples 99, method resampling on 1 row" in intro
    assert "n_resamples None" not in intro
    table = text[text.index("-comparisons-table"):]
    assert '<th scope="col">interval</th>' in table and '<th scope="col">method</th>' in table


def test_report_of_one_pass_rows_only_says_nothing_was_resampled():
    """Every row one pass (tester C, round 7): the intro said 'n_resamples None' and the settings the B asked."""
    import dataclasses
    import html

    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    per_query = _table({"big": _one_pass_deltas(7)}).with_columns(pl.col("value").clip(0.0, 1.0))
    ev = dataclasses.replace(pf.evaluate(runs[:2], qrels, ["nDCG@10"]), per_query=per_query)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rep = pf.report(ev, measures=["nDCG@10"], baseline="base", n_resamples=99)
    assert rep.comparison["method"].to_list() == ["one-pass"]
    text = html.unescape(rep.fragment)
    start = text.index("delta = system − baseline over")
    intro = text[start:text.index("The verdict follows", start)]
    assert "t interval" in intro and "no resamples (method one-pass)" in intro and "None" not in intro
    settings = text[text.index("-settings-table"):]
    assert "none: every comparison went one pass (see the method column), nothing was resampled (99 asked)" in settings
