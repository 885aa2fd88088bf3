"""The routes that read a per-query table into memory (several baselines, ``pairs=``, results_table,
paired_per_query, worst_queries) read a Spark DataFrame as they read a DuckDB relation: same result as on
the polars table, every option included."""

from __future__ import annotations

import warnings

import duckdb
import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from tests.test_by_join import assert_same_result

pytestmark = pytest.mark.spark


def _table() -> pl.DataFrame:
    rng = np.random.default_rng(0)
    qids = [f"q{i}" for i in range(30)]
    return pl.concat([pl.DataFrame({"system": s, "qid": qids, "measure": "AP", "value": rng.uniform(size=30)})
                      for s in "abc"])


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("how", [{"pairs": "all"}, {"pairs": "ordered"}, {"baseline": ["a", "b"]},
                                 {"pairs": "all", "interval": "bca"},
                                 {"baseline": ["a", "b"], "resampling": "adaptive"}])
def test_spark_dataframe_compares_with_several_baselines_as_polars(spark, how):
    table = _table()
    got = _quiet(pf.compare, spark.createDataFrame(table.to_arrow()), seed=0, n_resamples=300, **how)
    assert_same_result(got, _quiet(pf.compare, table, seed=0, n_resamples=300, **how))


def test_spark_dataframe_reads_into_per_query_views_and_tables_as_polars(spark):
    table = _table()
    frame = spark.createDataFrame(table.to_arrow())
    assert pf.paired_per_query(frame, baseline="a").equals(pf.paired_per_query(table, baseline="a"))
    assert pf.worst_queries(frame, baseline="a").equals(pf.worst_queries(table, baseline="a"))
    got = _quiet(pf.results_table, frame, baseline="a", seed=0, n_resamples=300)
    assert str(got) == str(_quiet(pf.results_table, table, baseline="a", seed=0, n_resamples=300))


def test_duckdb_relation_compares_with_bca_on_several_baselines_as_polars():
    per_query = _table()
    relation = duckdb.sql("SELECT * FROM per_query")
    for how in ({"pairs": "all"}, {"baseline": ["a", "b"]}):
        got = _quiet(pf.compare, relation, seed=0, n_resamples=300, interval="bca", **how)
        assert_same_result(got, _quiet(pf.compare, per_query, seed=0, n_resamples=300, interval="bca", **how))
