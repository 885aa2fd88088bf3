"""compare / compare_clustered / compare_segments on a DuckDB relation or a Spark DataFrame (the
bootstrap as a join in the engine) equal the same calls on the polars table, same seed (<= 1e-12)."""

from __future__ import annotations

import math
import warnings

import duckdb
import numpy as np
import polars as pl
import pytest

import pairedframe as pf

TOL = 1e-12
RUNS = ["p_bm25", "pash_f3", "NLE_P_v1", "uogTrPCP"]


def assert_same_result(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert got.columns == want.columns
    assert got.height == want.height
    for c in want.columns:
        if want[c].dtype.is_float():
            for x, y in zip(got[c].to_list(), want[c].to_list()):
                same = (x is None and y is None) or (x is not None and y is not None and (
                    x == y or (math.isnan(x) and math.isnan(y)) or abs(x - y) <= TOL))
                assert same, f"column {c}: {x} vs {y}"
        else:
            assert got[c].to_list() == want[c].to_list(), f"column {c} differs"


@pytest.fixture(scope="module")
def per_query() -> pl.DataFrame:
    """Real per-query values when ../shared/data is there (4 DL-2021 runs), else the bundled example."""
    from tests.conftest import SHARED_DATA

    folder = SHARED_DATA / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    runs = [folder / "passages-runs" / f"{r}.gz" for r in RUNS]
    if all(r.exists() for r in runs):
        ev = pf.evaluate([str(r) for r in runs], str(folder / "qrels-pass.txt"), ["nDCG@10", "AP", "P@10"])
    else:
        from pairedframe.example import example_paths

        qrels, example = example_paths()
        ev = pf.evaluate(example, qrels, ["nDCG@10", "AP", "P@10"])
    return ev.per_query


def _baseline(per_query: pl.DataFrame) -> str:
    return per_query["system"][0]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _clusters(per_query: pl.DataFrame) -> pl.DataFrame:
    qids = sorted(per_query["qid"].unique().to_list())
    return pl.DataFrame({"qid": qids, "cluster": [f"c{i % 13}" for i in range(len(qids))]})


def _segments(per_query: pl.DataFrame) -> pl.DataFrame:
    qids = sorted(per_query["qid"].unique().to_list())
    return pl.concat([
        pl.DataFrame({"qid": qids, "segment_set": "mod3", "segment": [str(i % 3) for i in range(len(qids))]}),
        pl.DataFrame({"qid": qids[:4], "segment_set": "few", "segment": ["a", "a", "a", "b"]})])


@pytest.mark.parametrize("options", [
    {},                                                    # sign-flip test and the interval inverting it
    {"test": "t"},                                         # t-test and t interval
    {"interval": "studentized"}, {"interval": "studentized", "alternative": "less"},
    {"interval": "percentile"}, {"test": "t", "interval": "signflip", "correction": "none"},
    {"alternative": "greater", "family_by": "measure"}, {"confidence_level": 0.9, "chunk_size": 97},
    {"correction": "bh", "power": 0.9}])
def test_compare_on_duckdb_against_polars(per_query, options):
    pq = per_query
    want = _quiet(pf.compare, pq, baseline=_baseline(pq), n_resamples=1999, seed=7, **options)
    got = _quiet(pf.compare, duckdb.sql("SELECT * FROM pq"), baseline=_baseline(pq), n_resamples=1999, seed=7,
                 **options)
    assert_same_result(got, want)


def test_compare_on_duckdb_orients_lower_is_better_measures_against_polars(per_query):
    """FirstRelRank (lower is better): wins, losses and verdicts follow the measure's direction, in
    compare and compare_segments."""
    ranks = per_query.filter(pl.col("measure") == "AP").with_columns(
        pl.lit("FirstRelRank").alias("measure"), (1 + (1 - pl.col("value")) * 20).floor().alias("value"))
    pq = pl.concat([per_query, ranks])
    want = _quiet(pf.compare, pq, baseline=_baseline(pq), n_resamples=999, seed=4)
    assert_same_result(_quiet(pf.compare, duckdb.sql("SELECT * FROM pq"), baseline=_baseline(pq), n_resamples=999,
                              seed=4), want)
    rank_rows = want.filter(pl.col("measure") == "FirstRelRank")
    assert (rank_rows["wins"] != rank_rows["losses"]).any()
    seg = _segments(per_query)
    assert_same_result(_quiet(pf.compare_segments, duckdb.sql("SELECT * FROM pq"), seg, baseline=_baseline(pq),
                              n_resamples=499, seed=4),
                       _quiet(pf.compare_segments, pq, seg, baseline=_baseline(pq), n_resamples=499, seed=4))


def test_compare_on_duckdb_with_uneven_query_sets_and_keys():
    rng = np.random.default_rng(1)
    qids = [f"{i:03d}" for i in range(40)]
    frames = [pl.DataFrame({"system": s, "qid": qids, "measure": m, "dataset": d, "value": rng.uniform(size=40)})
              for s in ("a", "b", "c") for m in ("AP", "RR") for d in ("x", "y")]
    pq = pl.concat(frames).filter(~((pl.col("system") == "c") & (pl.col("qid") < "005")))  # another query set
    pq = pq.with_columns(pl.when(pl.col("qid") == "007").then(None).otherwise(pl.col("value")).alias("value"))
    want = pf.compare(pq, baseline="a", n_resamples=500, seed=3)
    got = pf.compare(duckdb.sql("SELECT * FROM pq"), baseline="a", n_resamples=500, seed=3)
    assert_same_result(got, want)
    small = pq.filter(pl.col("qid") < "010")           # 2**9 <= 1000: exact sign-flip enumeration
    got = _quiet(pf.compare, duckdb.sql("SELECT * FROM small"), baseline="a", n_resamples=1000, seed=3)
    assert got["exact"].all()
    assert_same_result(got, _quiet(pf.compare, small, baseline="a", n_resamples=1000, seed=3))


@pytest.mark.parametrize("options", [{}, {"margin": 0.02, "alternative": "less"}, {"interval": "t", "margin": 0.05},
                                     {"interval": "percentile", "correction": "none"}])
def test_compare_clustered_on_duckdb_against_polars(per_query, options):
    pq = per_query.join(_clusters(per_query), on="qid")
    want = _quiet(pf.compare_clustered, pq, baseline=_baseline(pq), n_resamples=1999, seed=5, **options)
    got = _quiet(pf.compare_clustered, duckdb.sql("SELECT * FROM pq"), baseline=_baseline(pq), n_resamples=1999,
                 seed=5, **options)
    assert_same_result(got, want)
    mapping = dict(_clusters(per_query).iter_rows())
    plain = per_query  # noqa: F841  (read by DuckDB's replacement scan below)
    got = _quiet(pf.compare_clustered, duckdb.sql("SELECT * FROM plain"), baseline=_baseline(pq), clusters=mapping,
                 n_resamples=1999, seed=5, **options)
    assert_same_result(got, want)


@pytest.mark.parametrize("options", [{}, {"test": "t"}, {"alternative": "less", "correction": "holm"},
                                     {"interval": "percentile"}, {"alternative": "greater", "interval": "signflip", "test": "t"},
                                     {"test": "t", "interval": "percentile"}])   # drew no sign flips: crashed
def test_compare_segments_on_duckdb_against_polars(per_query, options):
    pq, seg = per_query, _segments(per_query)
    want = _quiet(pf.compare_segments, pq, seg, baseline=_baseline(pq), n_resamples=999, seed=2, **options)
    got = _quiet(pf.compare_segments, duckdb.sql("SELECT * FROM pq"), seg, baseline=_baseline(pq), n_resamples=999,
                 seed=2, **options)
    assert want["skewness"].is_not_nan().sum() >= want.height // 2     # skewness summed in SQL, as numpy's
    assert_same_result(got, want)


def test_exact_enumeration_on_duckdb_against_polars(per_query):
    """9 queries: every 2**9 sign pattern (and 2**7 cluster patterns) enumerated, same interval and verdicts."""
    pq = per_query.filter(pl.col("qid").is_in(sorted(per_query["qid"].unique().to_list())[:9]))
    base = _baseline(pq)
    for options in ({}, {"interval": "studentized"}, {"test": "t"}):
        want = _quiet(pf.compare, pq, baseline=base, n_resamples=999, seed=4, **options)
        assert want["exact"].all() != (options.get("test") == "t")
        assert_same_result(_quiet(pf.compare, duckdb.sql("SELECT * FROM pq"), baseline=base, n_resamples=999,
                                  seed=4, **options), want)
    clustered = pq.with_columns((pl.col("qid").rank("dense") % 7).cast(pl.String).alias("cluster"))
    want = _quiet(pf.compare_clustered, clustered, baseline=base, n_resamples=999, seed=4)
    assert want["exact"].all()
    assert_same_result(_quiet(pf.compare_clustered, duckdb.sql("SELECT * FROM clustered"), baseline=base,
                              n_resamples=999, seed=4), want)


@pytest.mark.parametrize("test", ["randomization", "t"])
def test_zero_spread_rules_on_duckdb_against_polars(test):
    """Deltas 0.1 +- float noise are zero spread: the exact sign-flip answer for 6 equal deltas (p = 2/2**6),
    never p = 0 from the t-test (issue 9), in every form, same answer."""
    pq = pl.DataFrame({"system": ["A"] * 6 + ["B"] * 6, "qid": [str(i) for i in range(6)] * 2, "measure": "m",
                       "value": [0.3, 0.5, 0.7, 0.1, 0.2, 0.6, 0.4, 0.6, 0.8, 0.2, 0.3, 0.7]})
    want = _quiet(pf.compare, pq, baseline="A", test=test)
    assert want["sd"][0] == 0.0 and want["pvalue"][0] == 2 / 2**6
    assert_same_result(_quiet(pf.compare, duckdb.sql("SELECT * FROM pq"), baseline="A", test=test), want)
    seg = pl.DataFrame({"qid": [str(i) for i in range(6)], "segment_set": "s", "segment": "x"})
    assert_same_result(_quiet(pf.compare_segments, duckdb.sql("SELECT * FROM pq"), seg, baseline="A", test=test),
                       _quiet(pf.compare_segments, pq, seg, baseline="A", test=test))
    clustered = pq.with_columns((pl.col("qid").cast(pl.Int64) % 3).cast(pl.String).alias("cluster"))
    assert_same_result(_quiet(pf.compare_clustered, duckdb.sql("SELECT * FROM clustered"), baseline="A", margin=0.2),
                       _quiet(pf.compare_clustered, clustered, baseline="A", margin=0.2))


@pytest.mark.parametrize("call, option", [
    (pf.compare, {"interval": "bca"}), (pf.compare, {"resampling": "adaptive"}),
    (lambda data, **kw: pf.compare_segments(data, {"qid": ["1"], "segment_set": ["s"], "segment": ["x"]}, **kw),
     {"resampling": "adaptive"})])
def test_options_the_engine_cannot_compute_are_named(call, option):
    pq = pl.DataFrame({"system": ["a", "a", "b", "b"], "qid": ["1", "2", "1", "2"], "measure": "m",  # noqa: F841 (read by DuckDB's replacement scan)
                       "value": [0.1, 0.2, 0.3, 0.4]})
    name, value = next(iter(option.items()))
    with pytest.raises(ValueError, match=f"{name}='{value}' is not available for DuckDB relations"):
        call(duckdb.sql("SELECT * FROM pq"), baseline="a", **option)


@pytest.mark.parametrize("change, error", [("duplicate", pf.DuplicateError), ("nan", ValueError),
                                           ("baseline", ValueError), ("disjoint", pf.EmptyResultError),
                                           ("empty", pf.EmptyResultError), ("all null", pf.EmptyResultError)])
def test_bad_tables_raise_as_on_polars(change, error):
    pq = pl.DataFrame({"system": ["a", "a", "b", "b"], "qid": ["1", "2", "1", "2"], "measure": "m",
                       "value": [0.1, 0.2, 0.3, 0.4]})
    baseline = "a"
    if change == "duplicate":
        pq = pl.concat([pq, pq.head(1)])
    elif change == "nan":
        pq = pq.with_columns(pl.Series("value", [0.1, float("nan"), 0.3, 0.4]))
    elif change == "disjoint":
        pq = pq.with_columns(pl.when(pl.col("system") == "b").then(pl.col("qid") + "x").otherwise(pl.col("qid"))
                             .alias("qid"))
    elif change == "empty":
        pq = pq.head(0)
    elif change == "all null":
        pq = pq.with_columns(pl.lit(None, dtype=pl.Float64).alias("value"))
    else:
        baseline = "zz"
    with pytest.raises(error) as on_polars:
        pf.compare(pq, baseline=baseline)
    with pytest.raises(error) as on_duckdb:
        pf.compare(duckdb.sql("SELECT * FROM pq"), baseline=baseline)
    assert str(on_duckdb.value) == str(on_polars.value)


@pytest.mark.spark
def test_paired_cluster_and_segment_forms_on_spark_against_polars(spark, per_query):
    pq = per_query.join(_clusters(per_query), on="qid")
    frame = spark.createDataFrame(pq.to_arrow())
    base = _baseline(pq)
    plain = spark.createDataFrame(per_query.to_arrow())
    for options in ({}, {"test": "t"}, {"interval": "studentized"}):  # the defaults of each test / interval
        assert_same_result(_quiet(pf.compare, plain, baseline=base, n_resamples=999, seed=9, **options),
                           _quiet(pf.compare, per_query, baseline=base, n_resamples=999, seed=9, **options))
    assert_same_result(_quiet(pf.compare_clustered, frame, baseline=base, n_resamples=999, seed=9),
                       _quiet(pf.compare_clustered, pq, baseline=base, n_resamples=999, seed=9))
    seg = _segments(per_query)
    for test in ("randomization", "t"):
        assert_same_result(
            _quiet(pf.compare_segments, plain, spark.createDataFrame(seg.to_arrow()), baseline=base, test=test,
                   n_resamples=499, seed=9),
            _quiet(pf.compare_segments, per_query, seg, baseline=base, test=test, n_resamples=499, seed=9))


@pytest.mark.spark
def test_a_null_in_a_spark_segment_table_names_the_column_and_a_row(spark, per_query):
    """A Spark segment table is checked in Spark: the message names the column and one such row, as
    as_segments does for the others (it said only "null qid, segment_set or segment values")."""
    from pairedframe.errors import SchemaError

    seg = _segments(per_query)
    seg = seg.with_columns(pl.when(pl.col("segment") == "b").then(None).otherwise(pl.col("segment")).alias("segment"))
    qid = seg.filter(pl.col("segment").is_null())["qid"][0]
    with pytest.raises(SchemaError, match=rf"^segment table has null values in column\(s\) \['segment'\], e\.g\. the "
                                          rf"row: \{{'qid': '{qid}', 'segment_set': 'few', 'segment': None\}}"):
        pf.compare_segments(spark.createDataFrame(per_query.to_arrow()), spark.createDataFrame(seg.to_arrow()),
                            baseline=_baseline(per_query))
