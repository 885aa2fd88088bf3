"""A real query whose id is ``all`` (legal in TREC files) against trec_eval's summary rows, which use the same
id: every door that starts from pairedframe's own outputs keeps the query, and trec_eval's summary rows are still
left out of a table that does not flag them (docs/guide/trec_eval.md, "A query named all")."""

from __future__ import annotations

import dataclasses
import io
import warnings

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.errors import SchemaError
from pairedframe.measures import parse_measure

runner = CliRunner()
QIDS = ["all", "q1", "q2", "q3", "q4", "q5"]
# per query: the relevant document (d1 or d2), and which one each system ranks first
RELEVANT = {"all": "d1", "q1": "d1", "q2": "d2", "q3": "d2", "q4": "d1", "q5": "d2"}
FIRST = {"a": {"all": "d1", "q1": "d1", "q2": "d1", "q3": "d2", "q4": "d1", "q5": "d1"},
         "b": {"all": "d2", "q1": "d1", "q2": "d2", "q3": "d2", "q4": "d2", "q5": "d2"}}


@pytest.fixture
def files(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {int(d == RELEVANT[q])}\n" for q in QIDS for d in ("d1", "d2")))
    runs = []
    for system, first in FIRST.items():
        path = tmp_path / f"{system}.txt"
        path.write_text("".join(f"{q} Q0 {d} {r} {3 - r} {system}\n" for q in QIDS
                                for r, d in enumerate(sorted(("d1", "d2"), key=lambda d: d != first[q]), 1)))
        runs.append(path)
    return qrels, runs


def _quiet(call):
    """``call()`` and the messages of its 'summary rows' warnings."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    return out, [str(w.message) for w in caught if "summary rows" in str(w.message)]


def test_an_evaluations_per_query_table_keeps_its_query_all_in_every_door(files):
    qrels, runs = files
    # NumRet: 2 on every query, so the query 'all' is its mean, but trec_eval sums counts: still a query
    ev = pf.evaluate({"a": runs[0], "b": runs[1]}, qrels, ["AP", "RR", "NumRet"])
    assert sorted(ev.per_query.filter(pl.col("system") == "a")["qid"].unique()) == sorted(QIDS)
    per_query = ev.per_query
    segments = pl.DataFrame({"qid": QIDS, "segment_set": "half", "segment": ["x"] * 3 + ["y"] * 3})
    clustered = per_query.with_columns(cluster=pl.col("qid"))
    relation = duckdb.sql("SELECT * FROM per_query")
    doors = {"Evaluation": lambda: pf.compare(ev, baseline="a", test="t"),
             "ev.per_query": lambda: pf.compare(per_query, baseline="a", test="t"),
             "DuckDB": lambda: pf.compare(relation, baseline="a", test="t"),
             "clustered": lambda: pf.compare_clustered(clustered, baseline="a"),
             "segments": lambda: pf.compare_segments(per_query, segments, baseline="a", test="t")}
    for door, call in doors.items():
        out, warned = _quiet(call)
        assert not warned, (door, warned)
        assert set(out["n_queries"].to_list()) == ({3} if door == "segments" else {6}), (door, out)
    table, warned = _quiet(lambda: pf.results_table(ev, baseline="a", test="t"))   # was: "does not match"
    assert not warned and "6 queries" in table.caption


@pytest.mark.parametrize("command", ["table", "report"])
def test_cli_table_and_report_keep_a_query_named_all(files, tmp_path, command):
    qrels, runs = files
    extra = ["-o", str(tmp_path / "out.html")] if command == "report" else []
    result = runner.invoke(app, [command, str(qrels), *map(str, runs), "-m", "AP", *extra])
    assert result.exit_code == 0, result.output
    assert "does not match" not in result.output and "summary rows" not in result.output
    if command == "table":
        assert "over 6 queries" in result.stdout


def _printed_by_trec_eval(ev) -> pl.DataFrame:
    """``ev``'s queries but 'all', at trec_eval's 4 printed decimals, with its summary rows: the mean (AP) or, for
    its counts, the sum (NumRet) of a system's other values, under qid 'all'."""
    queries = ev.per_query.filter(pl.col("qid") != "all").with_columns(pl.col("value").round(4))
    summary = queries.group_by("system", "measure", maintain_order=True).agg(
        pl.when(pl.col("measure").first() == "NumRet").then(pl.col("value").sum())
        .otherwise(pl.col("value").mean()).round(4).alias("value"))
    return pl.concat([queries, summary.select("system", pl.lit("all").alias("qid"), "measure", "value")])


def test_trec_eval_summary_rows_in_an_unflagged_table_are_still_left_out_in_polars_and_duckdb(files):
    """trec_eval's summary: the mean (4 printed decimals) or, for its counts, the sum of the other rows."""
    qrels, runs = files
    ev = pf.evaluate({"a": runs[0], "b": runs[1]}, qrels, ["AP", "NumRet"])
    printed = _printed_by_trec_eval(ev)
    for door in (printed, duckdb.sql("SELECT * FROM printed")):
        out, warned = _quiet(lambda: pf.compare(door, baseline="a", measures="AP", test="t"))
        assert out["n_queries"].to_list() == [5]
        assert len(warned) == 1 and "dropped 2 summary rows" in warned[0]   # AP's; NumRet's are not compared


def test_a_query_all_equal_to_its_systems_mean_in_an_unflagged_table_is_read_as_the_summary():
    """The rule's one blind spot, said by its warning: a plain table cannot tell such a query from trec_eval's
    summary row (a table with a summary column, or the Evaluation, can)."""
    table = pl.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "qid": ["all", "q1", "q2"] * 2, "measure": "AP",
                          "value": [0.75, 1.0, 0.5, 0.4, 0.2, 0.1]})
    out, warned = _quiet(lambda: pf.compare(table, baseline="a", test="t"))
    assert out["n_queries"].to_list() == [2] and "dropped 1 summary rows" in warned[0]
    flagged = table.with_columns(pl.lit(False).alias("summary"))
    out, warned = _quiet(lambda: pf.compare(flagged, baseline="a", test="t"))
    assert out["n_queries"].to_list() == [3] and not warned
    assert pl.read_csv(io.StringIO(flagged.write_csv()))["summary"].dtype == pl.Boolean


@pytest.mark.parametrize("fmt", ["csv", "json", "trec"])
def test_a_results_file_that_flags_its_summary_keeps_a_query_all_even_at_its_systems_mean(files, tmp_path, fmt):
    """evaluate -q -f csv|json flag their summary rows and trec_eval's text places them: a query 'all' whose value
    is its system's mean (which an unflagged table reads as the summary) stays a query in read_results and in
    compare from the file, in Python and on the command line (was: n = 5, 'dropped ... summary rows' warned)."""
    qrels, runs = files
    ev = pf.evaluate({"a": runs[0], "b": runs[1]}, qrels, ["AP"])
    at_mean = ev.per_query.with_columns(
        pl.when(pl.col("qid") == "all").then(pl.col("value").filter(pl.col("qid") != "all").mean().over("system"))
        .otherwise(pl.col("value")).alias("value"))
    path = tmp_path / f"per_query.{'txt' if fmt == 'trec' else fmt}"
    if fmt == "trec":
        with pytest.warns(UserWarning, match="a query is named 'all'"):
            path.write_text(dataclasses.replace(ev, per_query=at_mean).to_trec())
    else:
        flagged = pl.concat([at_mean.with_columns(pl.lit(False).alias("summary")),
                             ev.summary().select("system", pl.lit("all").alias("qid"), "measure", "value",
                                                 pl.lit(True).alias("summary"))])
        flagged.write_csv(path) if fmt == "csv" else path.write_text(flagged.write_json())
    read, warned = _quiet(lambda: pf.read_results(path))
    assert sorted(read.filter(pl.col("system") == "a")["qid"]) == sorted(QIDS) and not warned
    for door in (lambda: pf.compare(path, baseline="a", test="t"), lambda: pf.compare(path, pairs="all", test="t")):
        out, warned = _quiet(door)
        assert out["n_queries"].to_list() == [6] and not warned
    table, warned = _quiet(lambda: pf.results_table(path, baseline="a", test="t"))
    assert "6 queries" in table.caption and not warned
    cli = runner.invoke(app, ["compare", str(path), "-m", "map" if fmt == "trec" else "AP", "-f", "csv",
                              "--test", "t"])
    assert cli.exit_code == 0, cli.output
    assert pl.read_csv(io.StringIO(cli.stdout))["n_queries"].to_list() == [6]
    assert "summary rows" not in cli.stderr


def test_an_evaluations_query_all_at_its_systems_mean_stays_a_query_in_every_door_given_the_evaluation(tmp_path):
    """The blind spot of the rule for tables without a summary column does not reach an Evaluation: a holds
    1.0 on every query, so its query 'all' is its mean (was: compare(ev, baseline) 6 queries, but
    compare(ev, pairs='all') and results_table(ev) read the Evaluation's table and left the query out)."""
    qrels = {q: {"d1": 1, "d2": 0} for q in QIDS}
    runs = {"a": {q: {"d1": 2.0, "d2": 1.0} for q in QIDS},
            "b": {q: {"d1": 1.0 + 2.0 * (i % 2), "d2": 2.0} for i, q in enumerate(QIDS)}}
    ev = pf.evaluate(runs, qrels, ["AP"])
    segments = pl.DataFrame({"qid": QIDS, "segment_set": "all of them", "segment": "x"})
    doors = {"baseline": lambda: pf.compare(ev, baseline="a", test="t"),
             "pairs": lambda: pf.compare(ev, pairs="all", test="t"),
             "segments": lambda: pf.compare_segments(ev, segments, baseline="a", test="t")}
    for door, call in doors.items():
        out, warned = _quiet(call)
        assert out["n_queries"].to_list() == [6] and not warned, (door, out, warned)
    table, warned = _quiet(lambda: pf.results_table(ev, baseline="a", test="t"))
    assert "6 queries" in table.caption and not warned


def test_the_qid_all_rule_in_spark_against_polars(files, spark):
    """Spark pairs in its engine (as DuckDB): an evaluation's query 'all' stays, and trec_eval's printed summary
    rows, the mean (AP) or the sum (NumRet) of a system's other values, are left out, as in polars."""
    qrels, runs = files
    ev = pf.evaluate({"a": runs[0], "b": runs[1]}, qrels, ["AP", "NumRet"])
    printed = _printed_by_trec_eval(ev)
    for table, n in ((ev.per_query, 6), (printed, 5)):
        want, warned_polars = _quiet(lambda: pf.compare(table, baseline="a", measures="AP", test="t"))
        got, warned_spark = _quiet(lambda: pf.compare(spark.createDataFrame(table.to_pandas()), baseline="a",
                                                      measures="AP", test="t"))
        assert want["n_queries"].to_list() == got["n_queries"].to_list() == [n]
        assert want["delta"].to_list() == pytest.approx(got["delta"].to_list())
        assert len(warned_polars) == len(warned_spark) == (n == 5)


def test_read_results_keeps_a_query_all_sorted_after_numeric_ids_against_the_evaluation(tmp_path):
    """trec_eval sorts ids, so a query 'all' among numbers comes last, right before the summary lines: each of
    its lines is the one whose measure the summary prints again, and compare on the file is compare on the
    Evaluation (an outside tester's DL-19 query renamed 'all' was dropped with the summary)."""
    qids = ["1", "2", "10", "all"]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {int(d == ('d1' if i % 2 else 'd2'))}\n"
                             for i, q in enumerate(qids) for d in ("d1", "d2")))
    runs = {}
    for system, flip in (("a", 0), ("b", 1)):
        runs[system] = tmp_path / system  # named as the CLI names a run: its file
        runs[system].write_text("".join(f"{q} Q0 {d} {r} {3 - r} {system}\n" for i, q in enumerate(qids)
                                        for r, d in enumerate(("d1", "d2") if (i + flip) % 3 else ("d2", "d1"), 1)))
    result = runner.invoke(app, ["evaluate", "-q", "-f", "trec", "-m", "map", "-m", "recip_rank", "-m", "num_ret",
                                 str(qrels), str(runs["a"]), str(runs["b"])])
    assert result.exit_code == 0, result.output
    out = tmp_path / "ab.q"
    out.write_text(result.stdout)
    read = pf.read_results(out)
    assert read.filter(pl.col("measure") == "map").group_by("system").len().sort("system").rows() == [("a", 4),
                                                                                                      ("b", 4)]
    ev = pf.evaluate(runs, qrels, ["map", "recip_rank", "num_ret"])
    from_file, warned = _quiet(lambda: pf.compare(out, baseline="a", test="t"))
    from_ev, _ = _quiet(lambda: pf.compare(ev, baseline="a", test="t"))
    assert not warned
    columns = ["measure", "n_queries", "baseline_mean", "system_mean"]
    canonical = pl.col("measure").map_elements(lambda m: parse_measure(m)[0].name, return_dtype=pl.String)
    assert (from_file.select(columns).with_columns(canonical).sort("measure").rows()
            == from_ev.select(columns).sort("measure").rows())   # trec_eval's names in the file, e.g. map for AP
    assert set(from_file["n_queries"]) == {4}


def test_a_file_without_a_summary_column_read_beside_one_with_it_says_which_all_rows_it_reads_as_summary(
        files, tmp_path):
    """Files of one call, some flagging their summary and one not: the unflagged file's 'all' row at its system's
    mean was left out as the summary with no word (the tester of round 15); it is warned about, naming the file."""
    qrels, runs = files
    ev = pf.evaluate({"a": runs[0], "b": runs[1]}, qrels, ["AP"])
    flagged, plain = tmp_path / "b.csv", tmp_path / "a.csv"
    ev.per_query.filter(pl.col("system") == "b").with_columns(pl.lit(False).alias("summary")).write_csv(flagged)
    a = ev.per_query.filter((pl.col("system") == "a") & (pl.col("qid") != "all"))
    pl.concat([a, a.group_by("system", "measure").agg(pl.col("value").mean()).select(
        "system", pl.lit("all").alias("qid"), "measure", "value")]).write_csv(plain)
    with pytest.warns(UserWarning, match=r"a\.csv: 1 row with qid 'all' read as trec_eval's summary") as caught:
        read = pf.read_results([plain, flagged])
    assert caught[0].filename == __file__
    summary = read.filter(pl.col("qid") == "all").sort("system")
    assert summary["system"].to_list() == ["a", "b"] and summary["summary"].to_list() == [True, False]
    out, _ = _quiet(lambda: pf.compare(read, baseline="a", test="t"))
    assert out["n_queries"].to_list() == [5]


def test_compare_clustered_keeps_a_query_all_at_its_systems_mean_as_compare_does_in_polars_and_duckdb():
    """compare_clustered read the table twice (clusters attached, then paired): the second reading had lost the
    Evaluation and the summary column, so a query 'all' at its system's mean was dropped as trec_eval's summary
    (was: 7 queries and 'dropped ... summary rows' from the Evaluation and the flagged table; 8 in DuckDB)."""
    qids = [*QIDS, "q6", "q7"]
    qrels = {q: {"d1": 1, "d2": 0} for q in qids}
    runs = {"a": {q: {"d1": 2.0, "d2": 1.0} for q in qids},     # AP 1.0 everywhere: its query 'all' is its mean
            "b": {q: {"d1": 1.0 + 2.0 * (i % 2), "d2": 2.0} for i, q in enumerate(qids)}}
    ev = pf.evaluate(runs, qrels, ["AP"])
    clusters = pl.DataFrame({"qid": qids, "cluster": [f"c{i // 2}" for i in range(len(qids))]})
    flagged = ev.per_query.with_columns(pl.lit(False).alias("summary"))
    want, _ = _quiet(lambda: pf.compare(ev, baseline="a", test="t"))
    assert want["n_queries"].to_list() == [8]
    for door, data in {"Evaluation": ev, "summary column": flagged,
                       "DuckDB": duckdb.sql("SELECT * FROM flagged")}.items():
        out, warned = _quiet(lambda: pf.compare_clustered(data, baseline="a", clusters=clusters))
        assert out["n_queries"].to_list() == [8] and not warned, (door, out, warned)
        assert out["delta"].to_list() == pytest.approx(want["delta"].to_list()), door


@pytest.mark.parametrize("spelling", [("1", "0"), ("yes", "no"), ("T", "F"), (" True", "false ")])
def test_a_summary_flag_spelled_1_0_yes_no_or_t_f_is_read_as_true_false_in_polars_and_duckdb(files, tmp_path,
                                                                                           spelling):
    """A CSV summary column of 0/1 (yes/no, T/F) was read as all false: the summary rows became a 44th query
    (the tester of round 16). Each spelling is read as evaluate's true/false, in polars and DuckDB alike."""
    qrels, runs = files
    ev = pf.evaluate({"a": runs[0], "b": runs[1]}, qrels, ["AP"])
    true, false = spelling
    table = pl.concat([ev.per_query.with_columns(pl.lit(false).alias("summary")),
                       ev.summary().select("system", pl.lit("all").alias("qid"), "measure", "value",
                                           pl.lit(true).alias("summary"))])
    path = tmp_path / "flagged.csv"
    table.write_csv(path)
    for door in (pf.read_results(path), duckdb.sql(f"SELECT * FROM read_csv('{path}', all_varchar=true)")
                 .project("system, qid, measure, CAST(value AS DOUBLE) AS value, summary")):
        out, warned = _quiet(lambda: pf.compare(door, baseline="a", test="t"))
        assert out["n_queries"].to_list() == [6] and not warned


def test_a_summary_flag_of_another_spelling_is_refused_naming_it_in_polars_and_duckdb(files):
    qrels, runs = files
    ev = pf.evaluate({"a": runs[0], "b": runs[1]}, qrels, ["AP"])
    maybe = ev.per_query.with_columns(pl.lit("maybe").alias("summary"))
    for door in (maybe, duckdb.sql("SELECT * FROM maybe")):
        with pytest.raises(SchemaError, match=r"column 'summary' holds 'maybe': a summary flag is true or false"):
            pf.compare(door, baseline="a", test="t")


def test_evaluate_q_n_output_read_back_warns_that_its_trailing_query_all_is_read_as_the_summary(tmp_path):
    """`pairedframe evaluate -q -n` prints no summary, so a query 'all' sorted after numeric ids ends each run like
    a summary, and read_results left it out without a word (its writer warns): it warns now, naming the file and
    the run, and the same output with its summary still reads without one."""
    qids = ["1", "2", "10", "all"]
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 {d} {int(d == ('d1' if i % 2 else 'd2'))}\n"
                             for i, q in enumerate(qids) for d in ("d1", "d2")))
    runs = []
    for system, flip in (("a", 0), ("b", 1)):
        runs.append(tmp_path / system)
        runs[-1].write_text("".join(f"{q} Q0 {d} {r} {3 - r} {system}\n" for i, q in enumerate(qids)
                                    for r, d in enumerate(("d1", "d2") if (i + flip) % 3 else ("d2", "d1"), 1)))
    said = {}
    for flags in (["-q", "-n"], ["-q"]):
        result = runner.invoke(app, ["evaluate", *flags, "-f", "trec", "-m", "map", "-m", "num_ret", str(qrels),
                                     *map(str, runs)])
        assert result.exit_code == 0, result.output
        out = tmp_path / f"ab{len(flags)}.q"
        out.write_text(result.stdout)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pf.read_results(out)
        said[len(flags)] = [w for w in caught if "read as trec_eval's summary" in str(w.message)]
    assert said[1] == []
    assert len(said[2]) == 1 and said[2][0].filename == __file__
    assert ("ab2.q: run 'a' (and 1 other run(s) alike) ends with 2 row(s) with qid 'all'" in str(said[2][0].message)
            and "-n" in str(said[2][0].message)), str(said[2][0].message)
