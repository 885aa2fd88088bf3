"""A comparison without a non-zero delta (identical systems on its queries) is given by the zero-spread rule:
nothing is drawn, so its row says method "analytic" with a null n_resamples, in memory and in DuckDB alike,
and interval="bca" computes it on a DuckDB relation (no jackknife needed)."""

from __future__ import annotations

import warnings

import duckdb
import numpy as np
import polars as pl

import pairedframe as pf
from tests.test_by_join import assert_same_result


def _with_identical_system(n: int, shift: float = 0.0) -> pl.DataFrame:
    rng = np.random.default_rng(1)
    qids = [f"q{i}" for i in range(n)]
    a = rng.uniform(size=n)
    b = np.clip(a + rng.normal(shift, 0.1, size=n), 0, 1)
    return pl.concat([pl.DataFrame({"system": s, "qid": qids, "measure": "AP", "value": v})
                      for s, v in (("a", a), ("b", b), ("c", a))])


def _compare(data, **options) -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pf.compare(data, baseline="a", n_resamples=500, seed=0, **options)


def test_identical_system_row_is_analytic_without_n_resamples_in_memory_and_in_duckdb():
    per_query = _with_identical_system(40)
    for data in (per_query, duckdb.sql("SELECT * FROM per_query")):
        row = _compare(data).filter(pl.col("system") == "c").row(0, named=True)
        assert (row["method"], row["n_resamples"], row["verdict"]) == ("analytic", None, "identical")


def test_bca_on_duckdb_computes_an_identical_system_beside_one_pass_rows_against_polars():
    per_query = _with_identical_system(10_500, shift=0.003)   # b goes one pass, c has no non-zero delta
    got = _compare(duckdb.sql("SELECT * FROM per_query"), interval="bca")
    assert got["method"].to_list() == ["one-pass", "analytic"]
    assert_same_result(got, _compare(per_query, interval="bca"))
