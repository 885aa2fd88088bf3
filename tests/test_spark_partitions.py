"""engine="spark" by partitions: each partition evaluated by the local engine equals pf.evaluate.

The partition function runs without Spark here (it is plain Arrow in, Arrow out), on partitions cut
by a hash of qid as Spark cuts them; the Spark tests check the orchestration: inputs in every form,
problems named as the exact readers name them, the fallback when the workers lack pairedframe.
"""

from __future__ import annotations

import polars as pl
import pyarrow as pa
import pytest

import pairedframe as pf
from pairedframe.engines import spark_partitions as sp
from pairedframe.engines.base import EvalOptions
from pairedframe.evaluation.judgments import clean_up_placeholders
from pairedframe.example import example_paths
from pairedframe.measures import parse_measures

MEASURES = ["official", "nDCG@10", "RelString@10", "P(rel=2)@5", "nDCG(judged_only=True)@10", "infAP", "Bpref"]


def _input_rows(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """Run and qrels rows in the partition input's columns (what run_rows / qrels_rows give Spark)."""
    runs = run.select("system", "qid", "docno", "score", pl.lit(None, dtype=pl.Int64).alias("rel"),
                      pl.lit(False).alias("bad"))
    judged = qrels.select(pl.lit(None, dtype=pl.String).alias("system"), "qid", "docno",
                          pl.lit(None, dtype=pl.Float64).alias("score"), pl.col("rel").cast(pl.Int64),
                          pl.lit(False).alias("bad"))
    return pl.concat([runs, judged])


def _partitioned(rows: pl.DataFrame, partitions: int, **options) -> pl.DataFrame:
    """Every partition (rows of the same qid together, in shuffled order) through evaluate_partition."""
    measures = [m.resolved(options.pop("rel_level", 1)) for m in parse_measures(MEASURES)]
    systems = rows["system"].drop_nulls().unique().sort().to_list()
    rows = rows.sample(fraction=1.0, shuffle=True, seed=3)
    out = []
    keyed = rows.with_columns((pl.col("qid").hash(11) % partitions).alias("_p"))
    for part in keyed.partition_by("_p", include_key=False):
        batches = part.to_arrow().to_batches(max_chunksize=97)  # several batches per partition
        out += list(sp.evaluate_partition(batches, measures=measures, options=EvalOptions(**options),
                                          systems=systems, engine="duckdb", sample_rows=50))
    return pl.from_arrow(pa.Table.from_batches(out))


@pytest.mark.parametrize("options", [{}, {"complete": True, "depth": 5, "score_precision": "float32"}])
def test_partitions_evaluated_locally_against_evaluate(options):
    qrels, runs = example_paths()
    run, judged = pf.read_run(runs), pf.read_qrels(qrels)
    run = run.filter(~((pl.col("system") == "bm25") & pl.col("qid").is_in(["001", "017"])))  # -c scores them 0
    out = _partitioned(_input_rows(run, judged), 3, **dict(options))
    assert out.filter(pl.col("kind") == "problem").height == 0
    facts = sp.facts_of(out)
    want = pf.evaluate(run, judged, MEASURES, **options)
    keys = ["system", "qid", "measure"]
    # -c's placeholder rankings are reset by name as evaluate resets them
    values = clean_up_placeholders(facts.values, facts.retrieved, want.measures) if options else facts.values
    got = values.filter(pl.col("value").is_not_null() | pl.col("text").is_null())
    joined = want.per_query.join(got, on=keys, how="full", coalesce=True)
    assert joined.height == want.per_query.height == got.height
    assert joined.filter(pl.col("value").is_null() != pl.col("value_right").is_null()).height == 0
    assert (joined["value"] - joined["value_right"]).abs().max() == 0  # the same engine, the same numbers
    text = values.filter(pl.col("text").is_not_null()).select(*keys, "text").sort(keys)
    assert text.equals(want.text.sort(keys))
    assert facts.retrieved.sort("system", "qid").equals(run.select("system", "qid").unique().sort("system", "qid"))
    assert facts.judged["qid"].sort().to_list() == judged["qid"].unique().sort().to_list()
    assert facts.top["rel"].item() == judged["rel"].max()
    assert facts.positive == (judged["rel"] > 0).sum()


def test_partition_sample_holds_the_first_queries_and_their_judgments():
    qrels, runs = example_paths()
    run, judged = pf.read_run(runs), pf.read_qrels(qrels)
    facts = sp.facts_of(_partitioned(_input_rows(run, judged), 2))
    assert facts.partial == {"bm25", "reranker"}  # 50 rows a partition: a part of each run
    per_system = facts.sample.group_by("system").len()
    assert per_system["len"].to_list() == [100, 100]  # 50 from each of the 2 partitions
    assert facts.sample.select("system", "qid").n_unique() <= 4  # one query (100 rows) per system and partition
    assert facts.sample.join(run, on=["system", "qid", "docno"], how="anti").height == 0
    assert set(facts.sample_qrels["qid"]) == set(facts.sample["qid"]) & set(judged["qid"])
    assert facts.sample_qrels.join(judged, on=["qid", "docno"], how="anti").height == 0


@pytest.mark.parametrize("flaw", ["bad run row", "bad qrels row", "run duplicate", "qrels duplicate",
                                  "same docno in two runs"])
def test_partitions_report_malformed_and_repeated_rows(flaw):
    qrels, runs = example_paths()
    rows = _input_rows(pf.read_run(runs), pf.read_qrels(qrels))
    is_run = pl.col("system").is_not_null()
    if flaw == "bad run row":
        rows = rows.with_columns(pl.when(is_run & (pl.col("docno") == rows["docno"][5])).then(True)
                                 .otherwise(pl.col("bad")).alias("bad"))
    elif flaw == "bad qrels row":
        rows = rows.with_columns(pl.when(~is_run & (pl.int_range(pl.len()) == pl.len() - 1)).then(True)
                                 .otherwise(pl.col("bad")).alias("bad"))
    elif flaw in ("run duplicate", "qrels duplicate"):
        rows = pl.concat([rows, rows.filter(is_run if flaw == "run duplicate" else ~is_run).head(1)])
    out = _partitioned(rows, 2)
    problems = out.filter(pl.col("kind") == "problem")
    if flaw == "same docno in two runs":  # the example's runs share docnos: no duplicate
        assert problems.height == 0
        return
    want = {"bad run row": "run-format", "bad qrels row": "qrels-format", "run duplicate": "run-duplicate",
            "qrels duplicate": "qrels-duplicate"}[flaw]
    assert problems["measure"].to_list() == [want]
    assert out.filter(pl.col("kind") == "value").height < out.height  # the flawed partition returns no values


def test_partitions_drop_blank_and_comment_lines_against_evaluate():
    """Blank and ``#`` lines reach the partitions with a null ``bad`` flag (the split needs no
    filter); they are dropped, not read as rows or reported as malformed."""
    qrels, runs = example_paths()
    rows = _input_rows(pf.read_run(runs), pf.read_qrels(qrels))
    skipped = pl.DataFrame({"system": ["bm25", None], "qid": ["#", ""], "docno": [None, None],
                            "score": [None, None], "rel": [None, None], "bad": [None, None]}, schema=rows.schema)
    with_skipped = _partitioned(pl.concat([rows, skipped]), 3)
    assert with_skipped.filter(pl.col("kind") == "problem").height == 0
    keys = ["kind", "system", "qid", "measure", "value", "text", "n"]
    assert with_skipped.sort(keys, nulls_last=True).equals(_partitioned(rows, 3).sort(keys, nulls_last=True))


def test_an_empty_partition_returns_nothing():
    measures = [m.resolved(1) for m in parse_measures(["AP"])]
    assert list(sp.evaluate_partition([], measures=measures, options=EvalOptions(), systems=[], engine="duckdb")) == []


def test_partition_count_grows_with_the_files(tmp_path):
    class Context:
        defaultParallelism = 2

    class Session:
        sparkContext = Context()

    small, large = tmp_path / "small", tmp_path / "large"
    small.write_bytes(b"x" * 10)
    large.write_bytes(b"x" * (5 * sp.PARTITION_BYTES + 1))
    assert sp.partition_count(Session(), [str(small)]) == 4
    assert sp.partition_count(Session(), [str(large), str(small)]) == 6
    large.write_bytes(b"x" * (4 * sp.PARTITION_BYTES + 1))  # 5 partitions' worth: 6, no last wave on one core
    assert sp.partition_count(Session(), [str(large)]) == 6


def test_spark_engine_refuses_unknown_options():
    from pairedframe.engines.spark_engine import SparkEngine

    with pytest.raises(ValueError, match="method must be 'partitions' or 'sql', got 'mapreduce'"):
        SparkEngine(method="mapreduce")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="local_engine must be 'duckdb' or 'polars', got 'spark'"):
        SparkEngine(local_engine="spark")  # type: ignore[arg-type]


# -- on Spark ------------------------------------------------------------------------------------

def _engine(spark, **kwargs):
    from pairedframe.engines.spark_engine import SparkEngine

    return SparkEngine(spark, **kwargs)


@pytest.mark.spark
@pytest.mark.parametrize("form", ["files", "named files", "spark frames", "local tables"])
def test_spark_partitions_take_every_input_form_against_duckdb(spark, form):
    qrels, runs = example_paths()
    run, judged = pf.read_run(runs), pf.read_qrels(qrels)
    inputs = {"files": ([str(r) for r in runs], str(qrels)),
              "named files": ({"a": str(runs[0]), "b": str(runs[1])}, str(qrels)),
              "spark frames": (spark.createDataFrame(run.to_arrow()), spark.createDataFrame(judged.to_arrow())),
              "local tables": (run, judged)}[form]
    got = pf.evaluate(*inputs, ["AP", "nDCG@10", "RelString@5"], engine=_engine(spark, local_engine="polars"),
                      complete=True)
    want = pf.evaluate(*inputs[:1], str(qrels), ["AP", "nDCG@10", "RelString@5"], complete=True) \
        if form == "named files" else pf.evaluate(run, judged, ["AP", "nDCG@10", "RelString@5"], complete=True)
    keys = ["system", "qid", "measure"]
    joined = want.per_query.join(got.per_query, on=keys, how="full", coalesce=True)
    assert joined.height == want.per_query.height == got.per_query.height
    assert (joined["value"] - joined["value_right"]).abs().max() <= 1e-12
    assert got.text.sort(keys).equals(want.text.sort(keys))
    assert got.excluded.equals(want.excluded)


@pytest.mark.spark
def test_spark_files_travel_as_lines_without_building_the_unused_row_frames(spark, monkeypatch):
    """Run and qrels files go to the workers as whole lines (spark_lines); the per-row frames of run_rows /
    qrels_rows were built too (each a read of every file) and never used."""
    from pairedframe.engines import spark_partitions

    built = []
    for name in ("run_rows", "qrels_rows"):
        original = getattr(spark_partitions, name)
        monkeypatch.setattr(spark_partitions, name, lambda *a, _f=original, _n=name: built.append(_n) or _f(*a))
    qrels, runs = example_paths()
    got = pf.evaluate([str(r) for r in runs], str(qrels), ["AP", "nDCG@10"], engine=_engine(spark), complete=True)
    want = pf.evaluate([str(r) for r in runs], str(qrels), ["AP", "nDCG@10"], complete=True)
    assert built == []
    assert got.per_query.sort("system", "qid", "measure").equals(want.per_query.sort("system", "qid", "measure"))


@pytest.mark.spark
@pytest.mark.parametrize("flaw, error", [("run duplicate", "duplicate \\(qid, docno\\) = \\(001, D001-0044\\) in run "
                                                           "of system 'bm25'"),
                                         ("null score", "^run table has null values in column\\(s\\) \\['score'\\] \\(1 in all\\)"),
                                         ("qrels duplicate", "duplicate \\(qid, docno\\) = .* in qrels")])
def test_spark_frames_with_flaws_raise_naming_the_row(spark, flaw, error):
    qrels, runs = example_paths()
    run, judged = pf.read_run(runs), pf.read_qrels(qrels)
    if flaw == "run duplicate":
        run = pl.concat([run, run.head(1)])
    elif flaw == "null score":
        run = run.with_columns(pl.when(pl.int_range(pl.len()) == 3).then(None).otherwise(pl.col("score")).alias("score"))
    else:
        judged = pl.concat([judged, judged.head(1)])
    with pytest.raises((pf.DuplicateError, pf.SchemaError), match=error):
        pf.evaluate(spark.createDataFrame(run.to_arrow()), spark.createDataFrame(judged.to_arrow()), ["AP"],
                    engine=_engine(spark))


@pytest.mark.spark
def test_spark_names_the_bad_qrels_line_by_partitions(spark, tmp_path):
    qrels, runs = example_paths()
    lines = qrels.read_text().splitlines(keepends=True)
    lines[6] = " ".join(lines[6].split()[:3] + ["high"]) + "\n"
    path = tmp_path / "qrels.bad"
    path.write_text("".join(lines))
    with pytest.raises(pf.InputFormatError, match="line 7, column 4: relevance grade 'high' is not an integer"):
        pf.evaluate([str(r) for r in runs], str(path), ["AP"], engine=_engine(spark))


@pytest.mark.spark
def test_workers_without_pairedframe_fall_back_to_sql_with_a_warning(spark, monkeypatch):
    from pairedframe.engines import spark_engine

    monkeypatch.setattr(spark_engine, "_WORKERS", {})
    monkeypatch.setattr(sp, "probe_workers", lambda *_: "ModuleNotFoundError: No module named 'pairedframe'")
    qrels, runs = example_paths()
    with pytest.warns(UserWarning, match="cannot run pairedframe \\(ModuleNotFoundError.*method='sql' instead"):
        got = pf.evaluate([str(r) for r in runs], str(qrels), ["AP"], engine=_engine(spark))
    want = pf.evaluate([str(r) for r in runs], str(qrels), ["AP"])
    assert (got.per_query["value"] - want.per_query["value"]).abs().max() <= 1e-12


@pytest.mark.spark
def test_probe_reports_what_the_workers_lack(spark):
    assert sp.probe_workers(spark, "duckdb") is None
    assert "local engine 'spark'" in sp.probe_workers(spark, "spark")


@pytest.mark.spark
def test_spark_per_query_stays_lazy_and_equals_duckdb(spark):
    from pyspark.errors import PySparkException

    qrels, runs = example_paths()
    run, judged = pf.read_run(runs), pf.read_qrels(qrels)
    engine = _engine(spark)
    measures = [m.resolved(1) for m in parse_measures(["AP", "nDCG@10"])]
    lazy = engine.per_query(spark.createDataFrame(run.to_arrow()), spark.createDataFrame(judged.to_arrow()), measures,
                            EvalOptions())
    assert type(lazy).__name__ == "DataFrame" and lazy.columns == ["system", "qid", "measure", "value", "text"]
    got = pl.from_arrow(lazy.toArrow()).drop("text")
    want = pf.evaluate(run, judged, ["AP", "nDCG@10"]).per_query
    joined = want.join(got, on=["system", "qid", "measure"], how="full", coalesce=True)
    assert joined.height == want.height == got.height
    assert (joined["value"] - joined["value_right"]).abs().max() <= 1e-12
    flawed = run.with_columns(pl.when(pl.int_range(pl.len()) == 3).then(None).otherwise(pl.col("score")).alias("score"))
    with pytest.raises(pf.SchemaError, match=r"null values in column\(s\) \['score'\]"):  # checked first: one aggregation
        engine.per_query(spark.createDataFrame(flawed.to_arrow()), spark.createDataFrame(judged.to_arrow()),
                         measures, EvalOptions())
    lazy = engine.per_query(spark.createDataFrame(pl.concat([run, run.head(1)]).to_arrow()),
                            spark.createDataFrame(judged.to_arrow()), measures, EvalOptions())
    with pytest.raises(PySparkException, match="duplicate"):   # a repeated row fails the job that computes it
        lazy.collect()
