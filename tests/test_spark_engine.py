"""engine="spark": both methods give DuckDB's per-query values on Spark -- the metric SQL of sql/,
translated (method="sql"), and the partitions evaluated by the local engine in Python workers
(method="partitions", the default).

Few and coarse on purpose (one local[2] session; CI time matters; every Spark job costs a second
or more): one measure of every family (so new families are covered without editing this file),
the prep steps' options, real runs of every collection in ../shared/data, and the parse rules and
errors of Spark's file reader, and every real run of ../shared/data (100+ runs in one union: the
Spark jobs do not multiply with the runs). PAIREDFRAME_SPARK_FULL=1 adds all_trec (99 measures, a
few minutes on 2 cores).
"""

from __future__ import annotations

import gzip
import os
import re
from pathlib import Path

import polars as pl
import pytest

import pairedframe as pf
from pairedframe.sql_files import sql_dir
from pairedframe.engines.base import STEPS
from pairedframe.engines.duckdb_engine import DIALECT
from pairedframe.engines.spark_engine import SparkEngine
from pairedframe.example import example_paths
from pairedframe.measures import REGISTRY, Measure
from tests.measure_grid import families, family_grid
from tests.real_runs import REAL_RUNS, run_paths

pytestmark = pytest.mark.spark
TOL = 1e-12
FULL = os.environ.get("PAIREDFRAME_SPARK_FULL") == "1"


def _every_family() -> list[Measure]:
    """One measure of every registered family, an exponential-gain and a judged-only variant of
    nDCG: every file of sql/ with the parameters it reads."""
    out = [family_grid(key)[0] for key in families()]
    ndcg = family_grid("nDCG")
    out += [next(m for m in ndcg if m.gain == "exp"), next(m for m in ndcg if m.judged_only)]
    return list(dict.fromkeys(out))


def _same(got: pf.Evaluation, want: pf.Evaluation) -> int:
    """Per-query values equal within TOL (null where DuckDB is null, e.g. FirstRelRank when nothing
    relevant is retrieved), the text of string-valued measures equal; the number of values compared."""
    keys = ["system", "qid", "measure"]
    joined = want.per_query.with_columns(pl.lit(True).alias("_duckdb")).join(
        got.per_query.with_columns(pl.lit(True).alias("_spark")), on=keys, how="full", suffix="_spark",
        coalesce=True)
    missing = joined.filter(pl.col("_duckdb").is_null() | pl.col("_spark").is_null())
    assert missing.height == 0, f"rows only on one engine: {missing.head(5)}"
    assert joined.filter(pl.col("value").is_null() != pl.col("value_spark").is_null()).height == 0
    worst = joined.select((pl.col("value") - pl.col("value_spark")).abs().max()).item()
    assert worst is None or worst <= TOL, f"max |spark - duckdb| = {worst}"
    assert got.text.sort(keys).equals(want.text.sort(keys))
    return joined.height


METHODS = ["partitions", "sql"]


@pytest.mark.parametrize("method", METHODS)
def test_every_sql_file_is_run_on_spark_against_duckdb(spark, method):
    measures = _every_family()
    # DuckDB's steps for ranks that bring running counts and ideal rankings; tests/test_running_counts.py
    # checks them against prep_ranked.sql and prep_ideal.sql, which Spark runs
    files = {p.name for p in sql_dir().glob("*.sql")} - {"check_run.sql", "check_qrels.sql", DIALECT,
                                                          "prep_ranked_counted.sql", "prep_ideal_given.sql"}
    covered = set(STEPS["qrels", "run"]) | {m.spec.sql_file for m in measures} | OTHER_JUDGMENTS_SQL
    assert files <= covered, f"SQL files neither a prep step nor a registered measure's: {sorted(files - covered)}"
    qrels, runs = example_paths()
    run, judged = pf.read_run(runs), pf.read_qrels(qrels)
    _same(pf.evaluate(run, judged, measures, engine=SparkEngine(spark, method=method)),
          pf.evaluate(run, judged, measures))


@pytest.mark.shared_data
@pytest.mark.parametrize("method", METHODS)
def test_rbp_and_residual_on_spark_equal_duckdb_bit_for_bit(spark, shared_data: Path, method):
    """RBP and RBPResid (pf_discounts, registered per group: p**k by repeated products; the residual's
    ranks 1..num_ret) on Spark equal DuckDB exactly, with -c and -M, on trec_eval's suite files (grades -1..4)."""
    folder = shared_data / "trec_eval"
    run, qrels = pf.read_run([folder / "results.test", folder / "results.trunc"]), pf.read_qrels(folder / "qrels.rel_level")
    measures = ["rbp", "rbp_resid", "RBP(p=0.95,rel=2)@20", "RBPResid(p=0.5)", "RBP(gains={1:3})"]
    for options in ({}, {"complete": True, "depth": 50}):
        got = pf.evaluate(run, qrels, measures, engine=SparkEngine(spark, method=method), **options).per_query
        want = pf.evaluate(run, qrels, measures, engine="duckdb", **options).per_query
        keys = ["system", "qid", "measure"]
        assert got.sort(keys).equals(want.sort(keys))


def test_spark_engine_asks_the_largest_num_ret_for_rbp_once_per_evaluation(spark):
    """Two groups of RBP measures (relevance levels 1 and 2) share one pf_discounts: one query of the most
    documents retrieved for a query, not one job per group; the values stay DuckDB's."""
    from unittest import mock

    qrels, runs = example_paths()
    run, judged = pf.read_run(runs), pf.read_qrels(qrels)
    measures = ["rbp", "RBP(p=0.95,rel=2)@20", "RBPResid(p=0.5)", "P@5"]
    real, asked = spark.sql, []

    def spy(text, *args, **kwargs):
        asked.extend(re.findall(r"max\((?:num_ret|n)\)", text))
        return real(text, *args, **kwargs)

    with mock.patch.object(spark, "sql", spy):
        got = pf.evaluate(run, judged, measures, engine=SparkEngine(spark, method="sql"))
    assert len(asked) == 1
    _same(got, pf.evaluate(run, judged, measures))


#: The SQL of the preference and judgment-group measures, run by the next test.
OTHER_JUDGMENTS_SQL = ({f for kind in ("prefs", "qrels_jg") for f in STEPS[kind, "run"]}
                       | {REGISTRY[key].sql_file for key in families("prefs", "qrels_jg")})


@pytest.mark.shared_data
@pytest.mark.parametrize("method", METHODS)
def test_prefs_and_judgment_groups_on_spark_against_duckdb(spark, shared_data: Path, method):
    """-R prefs and -R qrels_jg on trec_eval's test files: every prefs_* and *_avgjg SQL file and its
    prep steps on Spark, with -c, -M and -J, against DuckDB (which reproduces trec_eval's outputs)."""
    folder = shared_data / "trec_eval"
    cases = [("prefs", "prefs.test", "prefs.results.test", "all_prefs", {"complete": True, "depth": 7}),
             ("qrels_jg", "qrels.123", "results.trunc", "qrels_jg", {"complete": True, "depth": 50, "judged_only": True})]
    for fmt, judgments, run, measures, options in cases:
        for opts in ({}, options):
            got = pf.evaluate(pf.read_run(folder / run), str(folder / judgments), measures, judgments_format=fmt,
                              engine=SparkEngine(spark, method=method), **opts)
            want = pf.evaluate(pf.read_run(folder / run), str(folder / judgments), measures, judgments_format=fmt, **opts)
            assert _same(got, want) == want.per_query.height
            assert got.to_trec() == want.to_trec()


@pytest.mark.parametrize("method", METHODS)
def test_prep_options_on_spark_against_duckdb(spark, method):
    """complete, depth, float32 ties, judged_only and a relevance level: the prep steps' parameters."""
    qrels, runs = example_paths()
    run, judged = pf.read_run(runs), pf.read_qrels(qrels)
    measures = ["AP", "nDCG(judged_only=True)@10", "P(rel=2)@5", "RelString@10", "NumRet"]
    options = {"complete": True, "depth": 5, "score_precision": "float32"}
    _same(pf.evaluate(run, judged, measures, engine=SparkEngine(spark, method=method), **options),
          pf.evaluate(run, judged, measures, **options))


REPRESENTATIVE = ["nDCG@10", "nDCG", "AP", "P@10", "R@100", "RR", "Rprec", "Bpref", "infAP", "ERR@20",
                  "RBP(p=0.8)", "IPrecAvg", "Judged@10", "NumRelRet"]


def _real_runs(shared_data: Path) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The run files of every collection as one run table and one qrels table: systems and qids
    prefixed with the collection's number."""
    runs, judgments = [], []
    for number, (qrels, globs) in enumerate(REAL_RUNS.items()):
        paths = run_paths(shared_data, globs)
        assert paths, f"no run found for {globs}"
        tag = pl.lit(f"c{number}:")
        runs.append(pf.read_run(paths).with_columns(pl.concat_str(tag, "system").alias("system"),
                                                                     pl.concat_str(tag, "qid").alias("qid")))
        judgments.append(pf.read_qrels(shared_data / qrels).with_columns(pl.concat_str(tag, "qid").alias("qid")))
    grades = pl.concat(judgments)
    return pl.concat(runs), grades.with_columns(pl.col("rel").clip(upper_bound=4))  # ERR takes grades 0-4


@pytest.mark.shared_data
@pytest.mark.slow
@pytest.mark.parametrize("method", METHODS)
def test_spark_per_query_values_equal_duckdb_on_every_real_run(spark, shared_data: Path, method):
    """Every run file of every collection in one Spark evaluation (one union: a Spark job per step,
    not per run), representative measures of the main families."""
    run, qrels = _real_runs(shared_data)
    assert run["system"].n_unique() >= 100
    compared = _same(pf.evaluate(run, qrels, REPRESENTATIVE, engine=SparkEngine(spark, method=method)),
                     pf.evaluate(run, qrels, REPRESENTATIVE))
    print(f"{compared} per-query values of {run['system'].n_unique()} runs equal on Spark and DuckDB")


@pytest.mark.shared_data
@pytest.mark.slow
@pytest.mark.skipif(not FULL, reason="all_trec on Spark takes minutes: set PAIREDFRAME_SPARK_FULL=1 "
                                     "(every family's SQL runs in test_every_sql_file_is_run_on_spark_against_duckdb)")
def test_spark_all_trec_equals_duckdb_on_trec_evals_suite(spark, shared_data: Path):
    """all_trec (99 measures: every trec_eval 10 measure with its default parameters) on the runs of
    trec_eval's own test suite and a graded DL-2019 run."""
    dl = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2019"
    cases = [([shared_data / "trec_eval" / n for n in ("results.test", "results.trunc")],
              shared_data / "trec_eval" / "qrels.test"),
             (sorted(dl.glob("passages-runs/*"))[:1], dl / "qrels-pass.txt")]
    for paths, qrels in cases:
        paths = [str(p) for p in paths]
        compared = _same(pf.evaluate(paths, str(qrels), "all_trec", engine=SparkEngine(spark)),
                         pf.evaluate(paths, str(qrels), "all_trec"))
        print(f"all_trec: {compared} per-query values of {len(paths)} run(s) equal on Spark and DuckDB")


@pytest.mark.parametrize("method", METHODS)
def test_spark_reads_run_files_with_trec_evals_rules(spark, tmp_path, method):
    qrels, runs = example_paths()
    lines = runs[0].read_text().splitlines(keepends=True)
    lines.insert(3, "# a comment\n")
    lines.insert(5, "\n")
    lines[8] = lines[8].replace(" ", " \t ", 2)
    path = tmp_path / "input.sys.gz"
    path.write_bytes(gzip.compress("".join(lines).encode()))
    got = pf.evaluate(str(path), str(qrels), ["AP", "nDCG@10"], engine=SparkEngine(spark, method=method))
    want = pf.evaluate(str(path), str(qrels), ["AP", "nDCG@10"])
    _same(got, want)
    assert got.excluded.equals(want.excluded)
    assert got.per_query["system"].unique().to_list() == ["sys"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("change, error", [("score", "^run file .*input.bad, line 10, column 5: score 'high' is not a "
                                                     "number"),
                                           ("short", "^run file .*input.bad, line 10: expected at least 6 fields "
                                                     "\\(qid Q0 docno rank score tag\\), found 5"),
                                           ("duplicate", "^run file .*input.bad, line 10: duplicate \\(qid, docno\\)"),
                                           ("tags", "^run file .*input.bad, line 10: the file holds several run tags "
                                                    "\\('bm25', 'other'\\): several systems"),
                                           ("ragged", "^run file .*input.bad, line 10: likely a blank inside the qid "
                                                      "of line 10 \\(7 fields where most lines have 6, 'Q0' its "
                                                      "field 3\\)"),
                                           ("docno", "^run file .*input.bad, line 10: likely a blank inside the "
                                                     "docno of line 10 \\(7 fields where most lines have 6; ")])
def test_spark_names_the_bad_line_as_locally(spark, tmp_path, change, error, method):
    qrels, runs = example_paths()
    lines = runs[0].read_text().splitlines(keepends=True)
    fields = lines[9].split()
    if change == "score":
        lines[9] = " ".join([*fields[:4], "high", fields[5]]) + "\n"
    elif change == "short":            # Spark 4's ANSI element_at failed on the missing field (a Java trace)
        lines[9] = " ".join(fields[:5]) + "\n"
    elif change == "duplicate":
        lines.append(lines[9])
    elif change == "ragged":           # a qid with a blank: both lines read as (q, <qid>)
        lines[9] = "q " + lines[9]
        lines.append("q " + lines[10])
    elif change == "docno":            # a docno with a blank: both lines read as (<qid>, zz), scores as tags
        lines[9] = " ".join([fields[0], "Q0", "zz", "1", *fields[3:]]) + "\n"
        lines.append(" ".join([fields[0], "Q0", "zz", "2", fields[3], "0.5", fields[5]]) + "\n")
    else:                                     # the same document under another run tag: a second system
        lines.append(" ".join([*fields[:5], "other"]) + "\n")
    path = tmp_path / "input.bad"
    path.write_text("".join(lines))
    with pytest.raises(pf.InputFormatError, match=error):
        pf.evaluate(str(path), str(qrels), ["AP"])
    with pytest.raises(pf.InputFormatError, match=error):
        pf.evaluate(str(path), str(qrels), ["AP"], engine=SparkEngine(spark, method=method))


@pytest.mark.parametrize("method", METHODS)
def test_spark_names_a_short_qrels_line_as_locally(spark, tmp_path, method):
    qrels, runs = example_paths()
    lines = qrels.read_text().splitlines(keepends=True)
    lines[5] = " ".join(lines[5].split()[:3]) + "\n"
    path = tmp_path / "q3.txt"
    path.write_text("".join(lines))
    error = "^qrels file .*q3.txt, line 6: expected exactly 4 fields \\(qid iter docno rel\\), found 3"
    with pytest.raises(pf.InputFormatError, match=error):
        pf.evaluate(str(runs[0]), str(path), ["AP"])
    with pytest.raises(pf.InputFormatError, match=error):
        pf.evaluate(str(runs[0]), str(path), ["AP"], engine=SparkEngine(spark, method=method))


@pytest.mark.parametrize("method", METHODS)
def test_spark_names_a_missing_file_or_table_by_its_argument_not_by_a_spark_path_error(spark, tmp_path, method):
    """A missing run path gave Spark's AnalysisException [PATH_NOT_FOUND]; an unknown table name as qrels read
    as a path under the working folder. Both are FileNotFoundError naming the argument, as locally."""
    qrels, runs = example_paths()
    engine = SparkEngine(spark, method=method)
    with pytest.raises(FileNotFoundError, match=r"^run: no such file, nor a table .*nonexistent\.run"):
        pf.evaluate(str(tmp_path / "nonexistent.run"), str(qrels), ["AP"], engine=engine)
    with pytest.raises(FileNotFoundError, match=r"^run: .*gone\.run"):
        pf.evaluate({"a": str(runs[0]), "b": str(tmp_path / "gone.run")}, str(qrels), ["AP"], engine=engine)
    with pytest.raises(FileNotFoundError, match=r"^qrels: no such file, nor a table .*no_such_table"):
        pf.evaluate(str(runs[0]), "no_such_table", ["AP"], engine=engine)
    spark.createDataFrame(pf.read_qrels(qrels).to_arrow()).createOrReplaceTempView("pf_test_qrels")
    by_name = pf.evaluate(str(runs[0]), "pf_test_qrels", ["AP"], engine=engine)   # a table's name still reads it
    assert _same(by_name, pf.evaluate(str(runs[0]), str(qrels), ["AP"])) > 0


@pytest.mark.parametrize("engine", ["spark", "instance"])
def test_evaluate_judgment_sets_on_spark_reads_a_session_table_name_as_a_judgment_set(spark, tmp_path, engine):
    """A table name was refused as a missing file (an os.path.exists check before any set was read); on the
    Spark route it reads as the table, as for pf.evaluate, and a name that is neither names the set."""
    qrels, runs = example_paths()
    engine = "spark" if engine == "spark" else SparkEngine(spark)
    spark.createDataFrame(pf.read_qrels(qrels).to_arrow()).createOrReplaceTempView("pf_test_judgment_set")
    got = pf.evaluate_judgment_sets(str(runs[0]), {"gold": "pf_test_judgment_set", "file": str(qrels)}, ["AP"],
                                    engine=engine)
    by_file = got.per_query.filter(pl.col("judgments") == "file").drop("judgments").sort("qid")
    by_table = got.per_query.filter(pl.col("judgments") == "gold").drop("judgments").sort("qid")
    assert by_table.height > 0 and by_table.equals(by_file)
    with pytest.raises(FileNotFoundError, match=r"judgment set 'gone'.*no such file, nor a table .*no_such_table"):
        pf.evaluate_judgment_sets(str(runs[0]), {"gone": "no_such_table"}, ["AP"], engine=engine)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("missing", ["no_such_table", "{tmp}/nope.qrels"])
def test_spark_tags_a_missing_qrels_table_or_file_with_the_qrels_argument_as_locally(spark, tmp_path, method, missing):
    """errors.about_argument: a caller tells which input an error is about by ``argument``, not the message;
    the local readers tag a missing qrels "qrels", and Spark's FileNotFoundError had no ``argument``."""
    qrels, runs = example_paths()
    missing = missing.replace("{tmp}", str(tmp_path))
    with pytest.raises(FileNotFoundError) as local:
        pf.evaluate(str(runs[0]), missing, ["AP"])
    with pytest.raises(FileNotFoundError, match=r"^qrels: no such file, nor a table") as on_spark:
        pf.evaluate(str(runs[0]), missing, ["AP"], engine=SparkEngine(spark, method=method))
    assert getattr(on_spark.value, "argument", None) == local.value.argument == "qrels"


@pytest.mark.parametrize("method", METHODS)
def test_spark_reads_compressed_files_by_their_bytes_against_duckdb(spark, tmp_path, method):
    """A gzip run and qrels named without ``.gz`` (the local readers go by the magic number; Spark by
    the name, so it reads them through a link that has the suffix)."""
    qrels, runs = example_paths()
    run_path, qrels_path = tmp_path / "input.zipped", tmp_path / "qrels.zipped"
    run_path.write_bytes(gzip.compress(runs[0].read_bytes()))
    qrels_path.write_bytes(gzip.compress(qrels.read_bytes()))
    got = pf.evaluate(str(run_path), str(qrels_path), ["AP", "nDCG@10"], engine=SparkEngine(spark, method=method))
    want = pf.evaluate(str(run_path), str(qrels_path), ["AP", "nDCG@10"])
    assert _same(got, want) == want.per_query.height > 0


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("empty", ["run", "qrels"])
def test_spark_refuses_an_empty_file_as_locally(spark, tmp_path, method, empty):
    qrels, runs = example_paths()
    path = tmp_path / f"{empty}.empty"
    path.write_text("# no data\n\n")
    run, judged = (str(path), str(qrels)) if empty == "run" else (str(runs[0]), str(path))
    match = f"{empty} file {path}: empty file"
    with pytest.raises(pf.InputFormatError, match=match):
        pf.evaluate(run, judged, ["AP"])
    with pytest.raises(pf.InputFormatError, match=match):
        pf.evaluate(run, judged, ["AP"], engine=SparkEngine(spark, method=method))


@pytest.mark.parametrize("method", METHODS)
def test_spark_raises_and_warns_about_runs_without_judged_queries_as_duckdb(spark, tmp_path, method):
    """A run sharing no judged query with the qrels raises, and one of two such runs warns, with DuckDB's
    error class and words (the qrels' ids listed in the same order, though Spark's come in none)."""
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"{q} 0 d1 1\n" for q in ("9", "10", "11", "12")))
    lost, judged = tmp_path / "lost.run", tmp_path / "judged.run"
    lost.write_text("1 Q0 d1 1 2.0 lost\n2 Q0 d1 1 1.0 lost\n")
    judged.write_text("9 Q0 d1 1 2.0 judged\n10 Q0 d2 1 1.0 judged\n")
    engine = SparkEngine(spark, method=method)
    errors = []
    for on in ("duckdb", engine):
        with pytest.raises(pf.EmptyResultError, match="no judged query in common") as info:
            pf.evaluate(str(lost), str(qrels), ["AP"], engine=on)
        errors.append(str(info.value))
    assert errors[0] == errors[1], errors
    said = []
    for on in ("duckdb", engine):
        with pytest.warns(pf.PartlyEmptyWarning, match="1 of 2 systems have no judged query in common") as caught:
            ev = pf.evaluate({"lost": str(lost), "judged": str(judged)}, str(qrels), ["AP"], engine=on)
        said.append([(w.category, str(w.message)) for w in caught if w.filename == __file__])  # not Spark's own
        assert ev.systems == ["judged"]
    assert said[0] == said[1], said


_RUN = [("a", "1", "d1", 2.0), ("a", "1", "d2", 1.0), ("a", "2", "d1", 1.0)]
_QRELS = [("1", "d1", 1), ("1", "d2", 0), ("2", "d1", 1)]
_RUN_SCHEMA = "system string, qid string, docno string, score double"
_QRELS_SCHEMA = "qid string, docno string, rel long"
@pytest.mark.parametrize("empty", ["run", "qrels"])
def test_spark_names_the_file_of_an_empty_table_it_read_as_locally(spark, tmp_path, empty):
    """A Spark DataFrame read from a table file with no rows said "the run is empty", naming no file: it is
    named as the local reader names an empty table file."""
    qrels, runs = example_paths()
    path = tmp_path / f"{empty}.parquet"
    columns = {"run": {"system": pl.String, "qid": pl.String, "docno": pl.String, "score": pl.Float64},
               "qrels": {"qid": pl.String, "docno": pl.String, "rel": pl.Int64}}[empty]
    pl.DataFrame(schema=columns).write_parquet(path)
    frame = spark.read.parquet(str(path))
    run, judged = (frame, str(qrels)) if empty == "run" else (str(runs[0]), frame)
    with pytest.raises(pf.InputFormatError, match=rf"^{empty} file {re.escape(str(path))}: empty table: no rows"):
        pf.evaluate(run, judged, ["AP"], engine=SparkEngine(spark, method="sql"))


#: bad input -> (run rows, run schema, qrels rows, qrels schema, the error's pattern, or None: polars' own words)
_BAD_FRAMES = {
    "null_system": (_RUN + [(None, "1", "d3", 0.5)], _RUN_SCHEMA, _QRELS, _QRELS_SCHEMA, None),
    "null_docno": (_RUN + [("a", "1", None, 0.5)], _RUN_SCHEMA, _QRELS, _QRELS_SCHEMA, None),
    "null_run_qid": (_RUN + [("a", None, "d3", 0.5)], _RUN_SCHEMA, _QRELS, _QRELS_SCHEMA, None),
    "null_qrels_qid": (_RUN, _RUN_SCHEMA, _QRELS + [(None, "d9", 1)], _QRELS_SCHEMA, None),
    "nan_score": (_RUN + [("a", "1", "d3", float("nan"))], _RUN_SCHEMA, _QRELS, _QRELS_SCHEMA, None),
    "empty_run": ([], _RUN_SCHEMA, _QRELS, _QRELS_SCHEMA, None),
    "fractional_grade": (_RUN, _RUN_SCHEMA, [("1", "d1", 1.5), ("1", "d2", 0.0), ("2", "d1", 1.0)],
                         "qid string, docno string, rel double", r"^qrels column 'rel' must hold integer grades, got 1\.5 "),
    "string_grades": (_RUN, _RUN_SCHEMA, [("1", "d1", "1"), ("1", "d2", "1"), ("2", "d1", "1")],
                      "qid string, docno string, rel string", r"column 'rel' holds string values \(e\.g\. '1'\), not integer"),
    "string_scores": ([("a", "1", "d1", "9"), ("a", "1", "d2", "9"), ("a", "2", "d1", "9")],
                      "system string, qid string, docno string, score string",
                      _QRELS, _QRELS_SCHEMA, r"column 'score' holds string values \(e\.g\. '9'\), not numbers"),
    "empty_docno": (_RUN + [("a", "1", "", 0.5)], _RUN_SCHEMA, _QRELS, _QRELS_SCHEMA,
                    r"^run table: column 'docno' is an empty or all-blank string in 1 row\(s\)"),
    # an id of blanks only is as empty (trec_eval reads ids as runs of non-blank characters)
    "blank_qid": (_RUN + [("a", "  ", "d3", 0.5)], _RUN_SCHEMA, _QRELS, _QRELS_SCHEMA,
                  r"^run table: column 'qid' is an empty or all-blank string in 1 row\(s\)"),
    "tab_qrels_docno": (_RUN, _RUN_SCHEMA, _QRELS + [("1", "\t", 0)], _QRELS_SCHEMA,
                        r"^qrels table: column 'docno' is an empty or all-blank string in 1 row\(s\)"),
    # a system is an id too: refused as polars refuses it (pf.evaluate on a table took it)
    "empty_system": (_RUN + [("", "1", "d3", 0.5)], _RUN_SCHEMA, _QRELS, _QRELS_SCHEMA,
                     r"^run table: column 'system' is an empty or all-blank string in 1 row\(s\), e\.g\. the row \(qid='1', docno='d3', "
                     r"score=0\.5\); an id is never empty"),
    # another name of a column beside it, or two other names of it: never a guess (Spark asked for qid by name)
    "query_id_beside_qid": ([(s, q, "x" + q, d, v) for s, q, d, v in _RUN],
                            "system string, qid string, query_id string, docno string, score double",
                            _QRELS, _QRELS_SCHEMA, None),
    "doc_id_and_doc": (_RUN, _RUN_SCHEMA, [(q, d, d, r) for q, d, r in _QRELS],
                       "qid string, doc_id string, doc string, rel long", None),
    # a run without a system column and no system= (Spark named it 'run')
    "no_system_column": ([r[1:] for r in _RUN], "qid string, docno string, score double", _QRELS, _QRELS_SCHEMA, None),
}


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("bad", list(_BAD_FRAMES))
def test_spark_dataframe_inputs_are_refused_as_polars_refuses_them(spark, method, bad):
    """Spark DataFrames skipped the local checks: a null system read as a qrels row (a false duplicate),
    null ids and empty runs went through, 1.5 was cast to 1, text scores and grades were cast, NaN scored
    under method='sql', query_id beside qid and a run without a system column were not polars' errors. Each is a
    SchemaError, in polars' own words where Spark's rows allow them."""
    run_rows, run_schema, qrels_rows, qrels_schema, pattern = _BAD_FRAMES[bad]
    run, qrels = spark.createDataFrame(run_rows, run_schema), spark.createDataFrame(qrels_rows, qrels_schema)
    if pattern is None:   # the local error, word for word
        with pytest.raises(pf.SchemaError) as local:
            pf.evaluate(pl.from_arrow(run.toArrow()), pl.from_arrow(qrels.toArrow()), ["AP"])
        pattern = "^" + re.escape(str(local.value)) + "$"
    with pytest.raises(pf.SchemaError, match=pattern):
        pf.evaluate(run, qrels, ["AP"], engine=SparkEngine(spark, method=method))


@pytest.mark.parametrize("method", METHODS)
def test_spark_dataframe_whole_double_and_integer_id_columns_are_read_as_polars_reads_them(spark, method):
    """Grades 2.0 as a double column are the grade 2 (as in polars); integer ids are strings, with polars' warning."""
    run = spark.createDataFrame([("a", 1, "d1", 2.0), ("a", 1, "d2", 1.0), ("a", 2, "d1", 1.0)],
                                "system string, qid int, docno string, score double")
    qrels = spark.createDataFrame([(1, "d1", 2.0), (1, "d2", 0.0), (2, "d1", 1.0)], "qid int, docno string, rel double")
    with pytest.warns(UserWarning, match=r"numeric id column\(s\) \['qid'\] of the run table converted to strings"):
        got = pf.evaluate(run, qrels, ["nDCG@10"], engine=SparkEngine(spark, method=method))
    with pytest.warns(UserWarning, match="numeric id column"):
        want = pf.evaluate(pl.from_arrow(run.toArrow()), pl.from_arrow(qrels.toArrow()), ["nDCG@10"])
    assert _same(got, want) == 2


def test_spark_dataframe_checks_read_each_table_once_as_a_count_does(spark):
    """The checks of a table are one aggregation, one pass as ``count()`` is, not one job per check.
    Adaptive execution runs a pass as a map job plus a result job where it plans a shuffle, and
    it planned ``count()`` of the one-row table without one once (1 job against the checks' 2, after other
    Spark tests in the same session), so a pass may be one job more than ``count()``, never one per check."""
    from pairedframe.engines.spark_checks import check_qrels, check_run

    tracker = spark.sparkContext.statusTracker()

    def jobs(name: str, work) -> int:
        spark.sparkContext.setJobGroup(name, name)
        try:
            work()
        finally:
            spark.sparkContext.setLocalProperty("spark.jobGroup.id", None)
        return len(tracker.getJobIdsForGroup(name))

    run = spark.createDataFrame(_RUN, _RUN_SCHEMA)
    qrels = spark.createDataFrame([("1", "d1", 1.0)], "qid string, docno string, rel double")
    assert 1 <= jobs("pf-check-run", lambda: check_run(run, None)) <= jobs("pf-count-run", run.count) + 1
    assert 1 <= jobs("pf-check-qrels", lambda: check_qrels(qrels)) <= jobs("pf-count-qrels", qrels.count) + 1


def _frames(spark, *tables: pl.DataFrame) -> list:
    return [spark.createDataFrame(t.to_arrow()) for t in tables]


_RUN_TABLE = pl.DataFrame(_RUN, schema=["system", "qid", "docno", "score"], orient="row")
_QRELS_TABLE = pl.DataFrame(_QRELS, schema=["qid", "docno", "rel"], orient="row")


@pytest.mark.parametrize("method", METHODS)
def test_spark_dataframe_column_aliases_are_read_as_polars_reads_them(spark, method):
    """ir_measures / ir_datasets names (query_id, doc_id, relevance, run_id) and PyTerrier's (label; query,
    the query's text, beside qid) of Spark DataFrames: the values of the same polars tables (Spark's checks
    asked for qid, docno and rel by name)."""
    engine = SparkEngine(spark, method=method)
    ir_names = {"system": "run_id", "qid": "query_id", "docno": "doc_id", "rel": "relevance"}
    shapes = {"ir_measures": (_RUN_TABLE.rename(ir_names, strict=False), _QRELS_TABLE.rename(ir_names, strict=False)),
              "pyterrier": (_RUN_TABLE.with_columns(pl.lit("a query").alias("query")),
                            _QRELS_TABLE.rename({"rel": "label"}))}
    for run, qrels in shapes.values():
        want = pf.evaluate(run, qrels, ["AP", "nDCG@10"])
        got = pf.evaluate(*_frames(spark, run, qrels), ["AP", "nDCG@10"], engine=engine)
        assert _same(got, want) == 4


@pytest.mark.parametrize("method", METHODS)
def test_spark_dataframe_system_names_the_run_as_it_names_a_polars_table(spark, method):
    """system= names every row of a Spark DataFrame run, whether it has a system (or run_id) column or not, as
    it names a polars table's (a Spark DataFrame's own system column was kept); over a table of two systems it
    is refused, as in polars (it would merge their rankings)."""
    engine = SparkEngine(spark, method=method)
    for run in (_RUN_TABLE, _RUN_TABLE.drop("system"), _RUN_TABLE.rename({"system": "run_id"})):
        want = pf.evaluate(run, _QRELS_TABLE, ["AP", "P@1"], system="X")
        got = pf.evaluate(*_frames(spark, run, _QRELS_TABLE), ["AP", "P@1"], engine=engine, system="X")
        assert got.systems == want.systems == ["X"]
        assert _same(got, want) == 4
    two = pl.concat([_RUN_TABLE, _RUN_TABLE.with_columns(pl.lit("b").alias("system"))])
    several = r"system='X' names one run, but the table's system column holds 2 systems"
    with pytest.raises(pf.SchemaError, match=several):
        pf.evaluate(two, _QRELS_TABLE, ["AP"], system="X")
    with pytest.raises(pf.SchemaError, match=several):
        pf.evaluate(*_frames(spark, two, _QRELS_TABLE), ["AP"], engine=engine, system="X")


@pytest.mark.parametrize("method", METHODS)
def test_spark_dataframe_grades_trec_eval_against_polars(spark, method):
    """grades='trec_eval' on Spark DataFrame qrels -- a double and a decimal grade column, and a table of the
    session -- gives the polars engine's values on the same tables (<= 1e-12: 1.5 -> 1, 2.7 -> 2, -1.5 -> -1,
    unjudged) with one warning counting the grades read so (it failed: 'cannot read a qrels from DataFrame')."""
    engine = SparkEngine(spark, method=method)
    run = pl.DataFrame({"system": "a", "qid": ["1", "1", "1", "2", "2", "3"], "docno": ["d1", "d2", "d3", "d1", "d2", "d1"],
                        "score": [2.0, 1.0, 0.5, 1.0, 3.0, 1.0]})
    doubles = pl.DataFrame({"qid": ["1", "1", "2", "2", "3"], "docno": ["d1", "d2", "d1", "d2", "d1"],
                            "rel": [1.5, 0.0, 2.7, -1.5, 3.0]})
    measures = ["AP", "nDCG@10", "ERR@10", "P@2"]
    for qrels in (doubles, doubles.with_columns(pl.col("rel").cast(pl.Decimal(6, 1)))):
        with pytest.warns(UserWarning, match=r"read as 1 \(3 grades in all\)"):
            want = pf.evaluate(run, qrels, measures, grades="trec_eval", engine="polars")
        run_frame, qrels_frame = _frames(spark, run, qrels)
        with pytest.warns(UserWarning, match=r"at \(qid, docno\) = \(\d, d\d\): grade '-?\d\.\d' read as -?\d "
                                             r"\(3 grades in all\)"):
            got = pf.evaluate(run_frame, qrels_frame, measures, grades="trec_eval", engine=engine)
        assert _same(got, want) == 12
    _frames(spark, doubles)[0].createOrReplaceTempView("pf_test_fractional_qrels")
    with pytest.warns(UserWarning, match=r"\(3 grades in all\)"):
        got = pf.evaluate(run_frame, "pf_test_fractional_qrels", measures, grades="trec_eval", engine=engine)
    assert _same(got, want) == 12


@pytest.mark.parametrize("method", METHODS)
def test_spark_dataframe_judgment_groups_against_polars(spark, method):
    """judgments_format='qrels_jg' on a Spark DataFrame (read locally, as the other formats are): the polars
    engine's values on the same table (it failed: 'cannot read a qrels from DataFrame')."""
    jg = pl.DataFrame({"qid": ["1", "1", "1", "2", "2"], "jg": ["0", "0", "1", "0", "1"],
                       "docno": ["d1", "d2", "d1", "d1", "d1"], "rel": [1, 0, 0, 1, 1]})
    measures = ["P_avgjg@2", "map_avgjg"]
    want = pf.evaluate(_RUN_TABLE, jg, measures, judgments_format="qrels_jg")
    got = pf.evaluate(*_frames(spark, _RUN_TABLE, jg), measures, judgments_format="qrels_jg",
                      engine=SparkEngine(spark, method=method))
    assert _same(got, want) == 4
