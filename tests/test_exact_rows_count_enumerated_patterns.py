"""A sign-flip p-value computed by enumerating every sign pattern says so: where nothing else of the row was drawn at
random, its ``method`` is "exact" and its ``n_resamples`` the number of patterns enumerated (``2**n``, or the
``2**k`` of its ``k`` non-zero deltas), not the ``n_resamples`` asked for; in memory and in DuckDB."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf

duckdb = pytest.importorskip("duckdb")


def _table(deltas: np.ndarray, seed: int = 3) -> pl.DataFrame:
    base = np.random.default_rng(seed).uniform(0.2, 0.6, deltas.size)
    qids = [f"q{i:02d}" for i in range(deltas.size)]
    return pl.DataFrame({"system": ["base"] * deltas.size + ["X"] * deltas.size, "qid": qids * 2,
                         "measure": ["AP"] * (2 * deltas.size), "value": [*base, *(base + deltas)]})


def _rows(table: pl.DataFrame, **kw):
    con = duckdb.connect()
    con.register("per_query", table.to_arrow())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, source in {"polars": table, "duckdb": con.table("per_query")}.items():
            yield name, pf.compare(source, baseline="base", **kw).row(0, named=True)


def _enumerated_p(d: np.ndarray) -> float:
    """Two-sided sign-flip p over every pattern, by brute force."""
    null = [abs(np.dot(s, d)) for s in itertools.product((1.0, -1.0), repeat=d.size)]
    return float(np.mean(np.array(null) >= abs(d.sum()) - 1e-12))


def test_signflip_interval_row_of_eight_queries_says_exact_with_256_patterns_against_brute_force():
    d = np.random.default_rng(1).normal(0.05, 0.1, 8)
    for name, row in _rows(_table(d), interval="signflip"):
        assert (row["method"], row["n_resamples"], row["exact"]) == ("exact", 2 ** 8, True), name
        assert row["pvalue"] == pytest.approx(_enumerated_p(d), abs=1e-12), name


def test_one_sided_row_below_twenty_queries_counts_its_patterns_not_the_resamples_asked():
    d = np.random.default_rng(2).normal(0.05, 0.1, 10)
    for name, row in _rows(_table(d), alternative="greater", n_resamples=5000):
        assert (row["interval"], row["method"], row["n_resamples"]) == ("t", "exact", 2 ** 10), name


def test_row_with_three_nonzero_deltas_counts_their_eight_patterns():
    d = np.zeros(30)
    d[[2, 11, 20]] = [0.1, 0.3, -0.05]          # 2**30 patterns are too many; the 3 non-zero deltas have 8
    for name, row in _rows(_table(d), interval="t"):
        assert (row["method"], row["n_resamples"], row["exact"]) == ("exact", 2 ** 3, True), name
        assert row["pvalue"] == pytest.approx(_enumerated_p(d[d != 0]), abs=1e-12), name


def test_bootstrap_interval_row_keeps_its_draws_with_an_exact_pvalue():
    d = np.random.default_rng(4).normal(0.05, 0.1, 8)
    for name, row in _rows(_table(d), n_resamples=999):
        assert (row["method"], row["n_resamples"], row["exact"]) == ("resampling", 999, True), name


def test_compare_pair_counts_the_patterns_it_enumerated():
    d = np.random.default_rng(5).normal(0.05, 0.1, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pf.compare_pair(np.zeros(9), d, interval="signflip")
    assert (res.n_resamples, res.exact) == (2 ** 9, True)


def test_tukey_row_counts_its_permutations_not_the_patterns_of_its_own_test():
    rng = np.random.default_rng(6)
    table = pl.concat([_table(rng.normal(0.05, 0.1, 8)),
                       _table(rng.normal(0.0, 0.1, 8)).filter(pl.col("system") == "X")
                       .with_columns(pl.lit("Y").alias("system"))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = pf.compare(table, pairs="all", interval="signflip", n_resamples=500)
    assert set(out["n_resamples"].to_list()) == {500}
    assert set(out["method"].to_list()) == {"exact"}


@pytest.mark.parametrize("interval, enumerated", [("edgeworth", True), ("signflip", True), ("percentile", False)])
def test_compare_clustered_exact_row_counts_the_patterns_of_its_clusters(interval, enumerated):
    d = np.random.default_rng(7).normal(0.05, 0.1, 24)
    table = _table(d).with_columns(cluster=(pl.col("qid").str.slice(1).cast(pl.Int64) % 6).cast(pl.String))
    con = duckdb.connect()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for source in (table, con.from_arrow(table.to_arrow())):
            row = pf.compare_clustered(source, baseline="base", interval=interval, n_resamples=999).row(0, named=True)
            assert row["exact"] and row["n_resamples"] == (2 ** 6 if enumerated else 999), type(source)
