"""engine="spark": the metric SQL of sql/, translated, gives DuckDB's per-query values on Spark.

Few and coarse on purpose (one local[2] session; CI time matters): every file of sql/ (so new
measures are covered without editing this file), every real run of ../shared/data, and the
parse rules and errors of Spark's file reader.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import polars as pl
import pytest

import pairedframe as pf
from pairedframe._sql import sql_dir
from pairedframe.engines.duckdb_engine import RUN_STEPS
from pairedframe.engines.spark_engine import SparkEngine
from pairedframe.example import example_paths
from pairedframe.measures import REGISTRY, Measure

pytestmark = pytest.mark.spark
TOL = 1e-12


def _one_measure_per_sql_file() -> list[Measure]:
    """A measure (with a cutoff, a relevance level and exponential gain where the family has them)
    for every SQL file a registered family uses: the union stays small enough for a quick Spark plan."""
    out: dict[str, Measure] = {}
    for key, spec in REGISTRY.items():
        cutoff = {"none": None, "optional": 10, "required": 10}[spec.cutoff]
        out.setdefault(spec.sql_file, Measure(key, cutoff, 2 if spec.uses_rel else None,
                                              "exp" if spec.uses_gain else "linear"))
    return list(out.values())


def _same(got: pl.DataFrame, want: pl.DataFrame) -> None:
    keys = ["system", "qid", "measure"]
    joined = want.join(got, on=keys, how="full", suffix="_spark")
    missing = joined.filter(pl.col("value").is_null() | pl.col("value_spark").is_null())
    assert missing.height == 0, f"rows only on one engine: {missing.head(5)}"
    worst = joined.select((pl.col("value") - pl.col("value_spark")).abs().max()).item()
    assert worst <= TOL, f"max |spark - duckdb| = {worst}"


def test_every_sql_file_is_run_on_spark_against_duckdb(spark):
    measures = _one_measure_per_sql_file()
    files = {p.name for p in sql_dir().glob("*.sql")}
    covered = set(RUN_STEPS) | {m.spec.sql_file for m in measures}
    assert files <= covered, f"SQL files neither a prep step nor a registered measure's: {sorted(files - covered)}"
    qrels, runs = example_paths()
    run, judged = pf.read_run(runs), pf.read_qrels(qrels)
    for options in ({}, {"complete": True, "depth": 5, "score_precision": "float32"}):
        want = pf.evaluate(run, judged, measures, **options).per_query
        got = pf.evaluate(run, judged, measures, engine=SparkEngine(spark), **options).per_query
        _same(got, want)


REAL = {  # qrels: run globs (every run file of ../shared/data with TREC qrels)
    "syndl/TREC-DLs-files/TREC-DL-2021/qrels-pass.txt": ["syndl/TREC-DLs-files/TREC-DL-2021/passages-runs/*"],
    "syndl/TREC-DLs-files/TREC-DL-2019/qrels-pass.txt": ["syndl/TREC-DLs-files/TREC-DL-2019/passages-runs/*",
                                                          "llm_labels_dl/dl2019_runs/input.*"],
    "trectools_robust03/qrel/robust03_qrels.txt": ["trectools_robust03/runs/input.*.gz"],
    "trec_eval/qrels.test": ["trec_eval/results.test", "trec_eval/results.trunc"],
    "dl_mia/qrels.txt": ["dl_mia/runs/*"],
    "ranx/qrels.trec": ["ranx/run.trec"],
    "ir_measures/compat.qrels": ["ir_measures/compat.run"],
}


@pytest.mark.shared_data
@pytest.mark.slow
def test_spark_per_query_values_equal_duckdb_on_every_real_run(spark, shared_data: Path):
    """Every run file of ../shared/data with TREC qrels, in one Spark evaluation: the collections'
    systems and qids are prefixed with their number, so one run table and one qrels table hold all."""
    runs, judgments = [], []
    for number, (qrels, globs) in enumerate(REAL.items()):
        paths = sorted({p for g in globs for p in shared_data.glob(g) if p.is_file()})
        assert paths, f"no run found for {globs}"
        tag = pl.lit(f"c{number}:")
        runs.append(pf.read_run(paths).with_columns(pl.concat_str(tag, "system").alias("system"),
                                                    pl.concat_str(tag, "qid").alias("qid")))
        judgments.append(pf.read_qrels(shared_data / qrels).with_columns(pl.concat_str(tag, "qid").alias("qid")))
    run, qrels = pl.concat(runs), pl.concat(judgments)
    assert run["system"].n_unique() >= 100
    measures = ["nDCG@10", "nDCG", "AP", "P@10", "R@100", "RR", "Rprec", "Bpref", "Success@5", "NumRelRet"]
    want = pf.evaluate(run, qrels, measures).per_query       # float32 ties: test_every_sql_file_...
    got = pf.evaluate(run, qrels, measures, engine=SparkEngine(spark)).per_query
    _same(got, want)


def test_spark_reads_run_files_with_trec_evals_rules(spark, tmp_path):
    qrels, runs = example_paths()
    lines = runs[0].read_text().splitlines(keepends=True)
    lines.insert(3, "# a comment\n")
    lines.insert(5, "\n")
    lines[8] = lines[8].replace(" ", " \t ", 2)
    path = tmp_path / "input.sys.gz"
    path.write_bytes(gzip.compress("".join(lines).encode()))
    got = pf.evaluate(str(path), str(qrels), ["AP", "nDCG@10"], engine=SparkEngine(spark))
    want = pf.evaluate(str(path), str(qrels), ["AP", "nDCG@10"])
    _same(got.per_query, want.per_query)
    assert got.excluded.equals(want.excluded)
    assert got.per_query["system"].unique().to_list() == ["sys"]


@pytest.mark.parametrize("change, error", [("score", "line 10, column 5: score 'high' is not a number"),
                                           ("duplicate", "line 10: duplicate \\(qid, docno\\)")])
def test_spark_names_the_bad_line_as_locally(spark, tmp_path, change, error):
    qrels, runs = example_paths()
    lines = runs[0].read_text().splitlines(keepends=True)
    fields = lines[9].split()
    if change == "score":
        lines[9] = " ".join([*fields[:4], "high", fields[5]]) + "\n"
    else:
        lines.append(lines[9])
    path = tmp_path / "input.bad"
    path.write_text("".join(lines))
    with pytest.raises(pf.InputFormatError, match=error):
        pf.evaluate(str(path), str(qrels), ["AP"])
    with pytest.raises(pf.InputFormatError, match=error):
        pf.evaluate(str(path), str(qrels), ["AP"], engine=SparkEngine(spark))
