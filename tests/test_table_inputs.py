"""Run, qrels and per-query arguments given as Parquet, Arrow IPC or CSV/TSV files (detected by their
first bytes, whatever the extension) evaluate exactly as the TREC text files; other binary files are
errors naming the argument."""

from __future__ import annotations

import re
import warnings

import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import InputFormatError
from pairedframe.example import example_paths
from pairedframe.io.detect import detect_format


@pytest.fixture(scope="module")
def example():
    qrels, runs = example_paths()
    run = pf.read_run(runs)
    return qrels, runs, run, pf.read_qrels(qrels)


def _write(frame: pl.DataFrame, path, fmt: str):
    if fmt == "parquet":
        frame.write_parquet(path)
    elif fmt == "arrow":
        frame.write_ipc(path)
    elif fmt == "arrow-stream":
        frame.write_ipc_stream(path)
    elif fmt == "csv":
        frame.write_csv(path)
    else:
        frame.write_csv(path, separator="\t")
    return path


@pytest.mark.parametrize("fmt", ["parquet", "arrow", "arrow-stream", "csv", "tsv"])
def test_table_files_evaluate_as_the_trec_files(example, tmp_path, fmt):
    qrels, runs, run, qrels_table = example
    want = pf.evaluate(runs, qrels, ["nDCG@10", "AP"]).per_query
    # no telling extension: the first bytes decide
    run_path = _write(run, tmp_path / "input.myruns.bin", fmt)
    qrels_path = _write(qrels_table, tmp_path / "judgments", fmt)
    got = pf.evaluate(str(run_path), str(qrels_path), ["nDCG@10", "AP"]).per_query
    assert got.equals(want)


def test_table_run_without_system_column_is_named_after_the_file(example, tmp_path):
    qrels, runs, run, _ = example
    one = run.filter(pl.col("system") == "bm25").drop("system")
    path = _write(one, tmp_path / "input.bm25.parquet", "parquet")
    ev = pf.evaluate([str(path), runs[1]], qrels, "AP")
    assert ev.systems == ["bm25", "reranker"]
    assert ev.per_query.equals(pf.evaluate(runs, qrels, "AP").per_query)


def test_csv_ids_stay_strings(tmp_path):
    run = tmp_path / "run.csv"
    run.write_text("qid,docno,score\n007,d1,2.0\n007,d2,1.0\n")
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text("qid\tdocno\trel\n007\td2\t1\n")
    ev = pf.evaluate(str(run), str(qrels), "RR", system="r")
    assert ev.per_query.rows() == [("r", "007", "RR", 0.5)]
    assert detect_format(run) == "csv" and detect_format(qrels, what="qrels") == "tsv"


@pytest.mark.parametrize("argument", ["run", "qrels"])
def test_binary_file_error_names_the_argument(example, tmp_path, argument):
    qrels, runs, _, _ = example
    junk = tmp_path / "blob.dat"
    junk.write_bytes(bytes(range(256)) * 10)
    args = (str(junk), qrels) if argument == "run" else (runs, str(junk))
    with pytest.raises(InputFormatError, match=f"blob.dat: the {argument} argument is neither a TREC text file nor a table"):
        pf.evaluate(*args, "AP")


def test_per_query_results_detected_by_magic_bytes(example, tmp_path):
    qrels, runs, _, _ = example
    pq = pf.evaluate(runs, qrels, "AP").per_query
    for fmt in ("parquet", "arrow"):
        path = _write(pq, tmp_path / f"results_{fmt}.csv", fmt)       # a misleading extension
        assert pf.read_results(path).equals(pq)
    _write(pq, tmp_path / "results_noext", "tsv")
    assert pf.read_results(tmp_path / "results_noext").equals(pq)


def test_two_table_runs_with_one_file_name_are_never_merged(tmp_path):
    """Two run.parquet files in different folders would both be named 'run': an error that says how to
    name them apart (a {name: path} mapping), never one merged system."""
    import pairedframe as pf

    run = pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [2.0, 1.0]})
    for folder in ("d1", "d2"):
        (tmp_path / folder).mkdir()
        run.write_parquet(tmp_path / folder / "run.parquet")
    paths = [tmp_path / "d1" / "run.parquet", tmp_path / "d2" / "run.parquet"]
    with pytest.raises(ValueError, match=r"both named 'run'.*name them apart with a mapping"):
        pf.evaluate(paths, {"1": {"a": 1}}, ["AP"])
    ev = pf.evaluate({"x": paths[0], "y": paths[1]}, {"1": {"a": 1}}, ["AP"])
    assert sorted(ev.summary()["system"].to_list()) == ["x", "y"]


def test_runs_as_a_mapping_of_names_to_tables():
    """{name: table} names each run by its key, as {name: path} does (it was refused with a message about
    nested dicts)."""
    import pandas as pd

    import pairedframe as pf

    qrels = pl.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "rel": [1, 0, 1]})
    one = pl.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "score": [2.0, 1.0, 1.0]})
    two = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["b", "a", "c"], "score": [2.0, 1.0, 1.0]})
    ev = pf.evaluate({"first": one, "second": two}, qrels, ["P@1"])
    got = dict(ev.per_query.group_by("system").agg(pl.col("value").mean()).iter_rows())
    assert got == {"first": 1.0, "second": 0.5}
    with pytest.raises(pf.SchemaError, match=r"read as \{name: run file or table\}, its keys \('first'\)"):
        pf.evaluate({"first": one}, qrels, ["P@1"], system="x")


def test_system_names_a_pytrec_eval_style_run_dict():
    """{qid: {docno: score}} (pytrec_eval's run) is one run: system= names it (it was refused as if the
    query ids were run names); {system: {qid: {docno: score}}} names its runs and refuses system=,
    saying how it was read."""
    import pairedframe as pf

    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1}}
    ev = pf.evaluate({"q1": {"d1": 1.0, "d3": 2.0}}, qrels, ["AP"], system="x")
    assert ev.per_query.rows() == [("x", "q1", "AP", 1.0)]
    assert pf.evaluate({"q1": {"d1": 1.0, "d3": 2.0}}, qrels, ["AP"]).systems == ["run"]
    assert pf.as_run({"q1": {"d1": 1.0}}, system="x")["system"].to_list() == ["x"]
    nested = {"a": {"q1": {"d1": 1.0}}, "b": {"q1": {"d3": 1.0}}}
    for door in (lambda: pf.evaluate(nested, qrels, ["AP"], system="x"), lambda: pf.as_run(nested, system="x")):
        with pytest.raises(pf.SchemaError, match=r"system='x'.*read as \{system: \{qid: \{docno: score\}\}\}, "
                                                 r"its keys \('a', 'b'\) naming 2 system"):
            door()


@pytest.mark.parametrize("form", ["polars", "pandas", "arrow", "duckdb"])
def test_list_of_run_tables_evaluates_as_their_concatenation(example, form):
    """[pf.read_run(a), pf.read_run(b)]: the tables one after the other, as pl.concat of them."""
    import duckdb

    qrels, runs, _, _ = example
    tables = [pf.read_run(path) for path in runs]
    convert = {"polars": lambda t: t, "pandas": lambda t: t.to_pandas(), "arrow": lambda t: t.to_arrow(),
               "duckdb": lambda t: duckdb.from_arrow(t.to_arrow())}[form]
    want = pf.evaluate(pl.concat(tables), qrels, ["nDCG@10", "AP"]).per_query
    got = pf.evaluate([convert(t) for t in tables], qrels, ["nDCG@10", "AP"]).per_query
    assert got.sort("system", "qid", "measure").equals(want.sort("system", "qid", "measure"))
    assert pf.as_run(tuple(convert(t) for t in tables)).sort("system", "qid", "docno").equals(
        pl.concat(tables).sort("system", "qid", "docno"))


def test_list_of_run_tables_refuses_a_system_in_two_tables_and_unnamed_tables(example):
    from pairedframe.errors import DuplicateError, SchemaError

    qrels, runs, _, _ = example
    bm25 = pf.read_run(runs[0])
    first, second = bm25.filter(pl.col("qid") == bm25["qid"][0]), bm25.filter(pl.col("qid") != bm25["qid"][0])
    name = bm25["system"][0]
    with pytest.raises(DuplicateError, match=rf"run tables 0 and 1 of the list both hold system '{name}'"):
        pf.evaluate([first, second], qrels, ["AP"])   # never merged in silence, even without a duplicate row
    with pytest.raises(SchemaError, match=r"run table 1 of the list has no 'system' column.*mapping"):
        pf.evaluate([bm25, pf.read_run(runs[1]).drop("system")], qrels, ["AP"])
    with pytest.raises(SchemaError, match=r"system='x' names a single run, but a list of 2 run tables"):
        pf.as_run([bm25, pf.read_run(runs[1])], system="x")
    assert pf.as_run([bm25.drop("system")], system="x")["system"].unique().to_list() == ["x"]


def test_system_over_a_table_of_several_systems_is_refused_naming_them(tmp_path):
    """system= renames one run: over a table whose system column holds several it would merge their
    rankings into one (AP 0.75 of bm25 + dense, silently); every door taking a table refuses it."""
    from pairedframe.errors import SchemaError

    qrels = {"1": {"a": 1, "b": 0, "c": 1}}
    table = pl.DataFrame({"system": ["bm25", "bm25", "dense", "dense"], "qid": ["1"] * 4,
                          "docno": ["a", "b", "c", "d"], "score": [1.0, 2.0, 10.0, 9.0]})
    table.write_csv(tmp_path / "runs.csv")
    message = r"system='bm25' names one run, but the table's system column holds 2 systems \['bm25', 'dense'\]"
    for engine in ("polars", "duckdb"):
        with pytest.raises(SchemaError, match=message):
            pf.evaluate(table, qrels, ["AP"], system="bm25", engine=engine)
    for call in (lambda: pf.as_run(table.to_pandas(), system="bm25"),
                 lambda: pf.as_run(table.to_arrow(), system="bm25"),
                 lambda: pf.evaluate(tmp_path / "runs.csv", qrels, ["AP"], system="bm25"),
                 lambda: pf.evaluate_judgment_sets(table, {"j": qrels}, ["AP"], system="bm25")):
        with pytest.raises(SchemaError, match=message):
            call()
    one = table.filter(pl.col("system") == "bm25")   # one system (and a null beside it): renamed, as documented
    assert pf.evaluate(one, qrels, ["AP"], system="x").per_query["value"].to_list() == [0.25]
    assert pf.as_run(pl.concat([one, one[:1].with_columns(pl.lit(None, pl.String).alias("system"),
                                                          pl.lit("z").alias("docno"))]),
                     system="x")["system"].unique().to_list() == ["x"]


def test_read_run_of_a_table_says_tables_are_runs_already(example):
    _, runs, _, _ = example
    with pytest.raises(TypeError, match=r"read_run reads files, but item 0 of `paths` is a polars DataFrame"):
        pf.read_run([pf.read_run(runs[0])])


# -- values a table can hold and trec_eval's text reader never produces ----------------------------------

_QRELS = {"7": {"d1": 1, "d2": 0}}


@pytest.mark.parametrize("form", ["polars", "pandas", "duckdb"])
def test_string_scores_of_a_table_are_an_error_naming_the_column_and_its_dtype(form):
    """Scores are numbers (docs/guide/inputs.md): a string column is refused, never parsed or cast."""
    import duckdb

    run = pl.DataFrame({"qid": ["7", "7"], "docno": ["d1", "d2"], "score": ["1.0", "2.0"]})
    table = {"polars": run, "pandas": run.to_pandas(), "duckdb": duckdb.sql("SELECT * FROM run")}[form]
    with pytest.raises(pf.SchemaError, match=r"column 'score' holds String values \(e\.g\. '1\.0'\), not numbers"):
        pf.evaluate(table, _QRELS, ["RR"], system="s")


def test_a_string_score_in_a_run_dict_is_an_error_naming_its_query_and_document():
    with pytest.raises(pf.SchemaError, match=r"run dict: the score of \(qid, docno\) = \('7', 'd2'\) is '2\.0' \(str\)"):
        pf.evaluate({"7": {"d1": 1.0, "d2": "2.0"}}, _QRELS, ["RR"], system="s")


@pytest.mark.parametrize("blank", ["", "  ", "\t"])
@pytest.mark.parametrize("side", ["run", "qrels"])
@pytest.mark.parametrize("column", ["qid", "docno"])
def test_an_empty_or_blank_id_is_an_error_naming_the_column_and_the_row(side, column, blank):
    run = pl.DataFrame({"qid": ["7", "7"], "docno": ["d1", "d2"], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["7", "7"], "docno": ["d1", "d2"], "rel": [1, 0]})
    if side == "run":
        run = run.with_columns(pl.Series(column, ["7", blank] if column == "qid" else ["d1", blank]))
    else:
        qrels = qrels.with_columns(pl.Series(column, ["7", blank] if column == "qid" else ["d1", blank]))
    with pytest.raises(pf.SchemaError, match=rf"{side} table: column '{column}' is an empty or all-blank string in "
                                             r"1 row\(s\), e\.g\. row 2 \("):
        pf.evaluate(run, qrels, ["RR"], system="s")
    with pytest.raises(pf.SchemaError, match=rf"{side} table: column '{column}' is an empty or all-blank string"):
        pf.evaluate(run.to_pandas(), qrels.to_pandas(), ["RR"], system="s")


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".csv.gz"])
@pytest.mark.parametrize("side", ["run", "qrels"])
@pytest.mark.parametrize("qid, said", [('" "', r"an empty or all-blank string \(docno='d3'"), ("", r"empty \(null\)")])
def test_a_blank_or_empty_qid_in_a_table_file_is_named_by_file_and_line(tmp_path, side, suffix, qid, said):
    """The header is line 1, a comment line and a quoted field spanning two lines count, as the TREC readers
    count lines; an empty field (null) is named the same way."""
    import gzip

    sep = "\t" if suffix == ".tsv" else ","
    third = "score" if side == "run" else "rel"
    lines = ["# written by hand", sep.join(["qid", "docno", third]), sep.join(["7", '"d\n1"', "2"]),
             sep.join(["7", "d2", "1"]), sep.join([qid, "d3", "1"]), sep.join(["", "d4", "1"])]
    path = tmp_path / f"{side}{suffix}"
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    other = pl.DataFrame({"qid": ["7"], "docno": ["d2"], **({"rel": [1]} if side == "run" else {"score": [1.0]})})
    run, qrels = (path, other) if side == "run" else (other, path)
    with pytest.raises(pf.SchemaError, match=rf"^{side} file {path}, line 6: column 'qid' is {said}"):
        pf.evaluate(run, qrels, ["RR"], system="s")


def test_a_blank_system_in_a_run_table_file_given_to_the_cli_is_named_by_file_and_line(tmp_path):
    from typer.testing import CliRunner

    from pairedframe.cli import app

    qrels, runs = example_paths()
    path = tmp_path / "runs.csv"
    path.write_text("system,qid,docno,score\na,001,d1,2\n' ',001,d2,1\n\" \",001,d3,1\n")
    res = CliRunner().invoke(app, ["compare", str(qrels), str(path), "-m", "AP"])
    assert res.exit_code == 2
    assert f"run file {path}, line 4: column 'system' is an empty or all-blank string" in " ".join(res.stderr.split())


def test_integer_scores_beyond_2_53_warn_at_the_callers_line_and_rank_as_trec_eval_reads_them():
    """2**53 + 1 and 2**53 are one double: trec_eval reading them as text ties them too (ties by docno,
    descending: d2 first), so the value is trec_eval's; the warning names the column and its dtype."""
    run = pl.DataFrame({"qid": ["7", "7"], "docno": ["d1", "d2"], "score": [2**53 + 1, 2**53]})
    with pytest.warns(UserWarning, match=r"column 'score' \(Int64\) holds 1 integer\(s\) beyond \+-2\*\*53 "
                                         r"\(e\.g\. 9007199254740993, read as 9007199254740992\)") as caught:
        ev = pf.evaluate(run, _QRELS, ["RR"], system="s")
    assert [w.filename for w in caught if "2**53" in str(w.message)] == [__file__]
    text = pf.evaluate(pl.DataFrame({"qid": ["7", "7"], "docno": ["d1", "d2"],
                                     "score": [float(2**53 + 1), float(2**53)]}), _QRELS, ["RR"], system="s")
    assert ev.per_query["value"].to_list() == text.per_query["value"].to_list() == [0.5]


def test_integer_scores_a_double_holds_exactly_give_no_warning():
    run = pl.DataFrame({"qid": ["7", "7"], "docno": ["d1", "d2"], "score": [2**53, -(2**53)]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pf.evaluate(run, _QRELS, ["RR"], system="s").per_query["value"].to_list() == [1.0]


def test_a_pandas_nan_score_is_reported_as_nan_not_null():
    import numpy as np
    import pandas as pd

    run = pd.DataFrame({"qid": ["7", "7"], "docno": ["d1", "d2"], "score": [np.nan, 1.0]})
    with pytest.raises(pf.SchemaError, match=r"column 'score' is NaN \(not a number\) in 1 row\(s\).*pandas writes "
                                             r"a missing \(null\) score as NaN") as info:
        pf.evaluate(run, _QRELS, ["RR"], system="s")
    assert "null values" not in str(info.value)


def test_integer_scores_beyond_2_53_in_a_run_dict_warn_too():
    with pytest.warns(UserWarning, match=r"run dict: column 'score' holds 1 integer\(s\) beyond \+-2\*\*53"):
        ev = pf.evaluate({"7": {"d1": 2**53 + 1, "d2": 2**53}}, _QRELS, ["RR"], system="s")
    assert ev.per_query["value"].to_list() == [0.5]


def test_table_row_numbers_in_messages_count_from_1_alike():
    """The second row of a table is 'row 2' in every message: as_qrels' trec_eval-grade warning and the empty-id
    error said 'row 1' (0-based) where endpoints_from_ranks said 'row 2'."""
    qrels = pl.DataFrame({"qid": ["7", "7"], "docno": ["d1", "d2"], "rel": [1.0, 1.5]})
    with pytest.warns(UserWarning, match=r"qrels table row 2: grade '1.5' read as 1"):
        pf.as_qrels(qrels, grades="trec_eval")
    with pytest.raises(pf.SchemaError, match=r"e\.g\. row 2 \("):
        pf.as_qrels(qrels.with_columns(pl.Series("docno", ["d1", ""]), pl.col("rel").cast(pl.Int64)))
    ranks = pl.DataFrame({"qid": ["a1", "a2"], "first_hit_rank": [1.0, 0.0]})
    with pytest.raises(pf.SchemaError, match=r"^row 2 .*qid 'a2'"):
        pf.endpoints_from_ranks(ranks, system="s")


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "arrow"])
def test_table_file_with_no_rows_names_the_argument_and_the_file(example, tmp_path, fmt):
    """A run or qrels table holding only its header said "the run is empty: no (qid, docno, score) rows", naming
    no file: with two runs one could not tell which. It is named as the TREC reader names an empty file."""
    qrels, runs, run, qr = example
    empty_run = tmp_path / f"empty_run.{fmt}"
    _write(run.select("qid", "docno", "score").clear(), empty_run, fmt)
    with pytest.raises(InputFormatError, match=rf"^run file {empty_run}: empty table: no rows"):
        pf.evaluate([runs[0], empty_run], qrels, ["AP"])
    empty_qrels = tmp_path / f"empty_qrels.{fmt}"
    _write(qr.select("qid", "docno", "rel").clear(), empty_qrels, fmt)
    with pytest.raises(InputFormatError, match=rf"^qrels file {empty_qrels}: empty table: no rows"):
        pf.evaluate(runs, empty_qrels, ["AP"])


def test_cli_names_the_run_table_file_with_no_rows(example, tmp_path):
    """The command line reads a run table's systems itself (a system column): the empty one is named there too."""
    from typer.testing import CliRunner

    from pairedframe.cli import app

    qrels, runs, _, _ = example
    empty = tmp_path / "hdr_only.csv"
    empty.write_text("qid,docno,score,system\n")
    result = CliRunner().invoke(app, ["evaluate", "-m", "AP", str(qrels), str(runs[0]), str(empty)])
    assert result.exit_code == 2
    assert f"run file {empty}: empty table: no rows (csv, columns qid, docno, score, system)" in result.stderr


@pytest.mark.parametrize("suffix", [".csv", ".tsv"])
@pytest.mark.parametrize("qid, said", [('" "', r"an empty or all-blank string \(system='s', measure='AP'"),
                                       ("", r"empty \(null\)")])
def test_a_blank_or_empty_qid_in_a_results_file_is_named_by_file_and_line(tmp_path, suffix, qid, said):
    """read_results named the row ("e.g. the row {...}"), not the line; a summary row is no per-query row (its
    blank qid is left out with it), and a quoted field spanning two lines counts both, as the run readers count."""
    sep = "\t" if suffix == ".tsv" else ","
    lines = [sep.join(["system", "qid", "measure", "value", "summary"]), sep.join(["s", "", "AP", "0.5", "true"]),
             sep.join(["s", '"q\n1"', "AP", "0.5", "false"]), sep.join(["s", qid, "AP", "0.3", "false"])]
    path = tmp_path / f"results{suffix}"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(pf.SchemaError, match=rf"^results file {re.escape(str(path))}, line 5: column 'qid' is {said}"):
        pf.read_results(path)


@pytest.mark.parametrize("key", ["", " ", "\t"])
def test_run_mapping_with_a_blank_system_key_is_refused_naming_the_key(key, tmp_path):
    """Tester C round 7: {' ': run, 's': run} said '`system` must be a non-empty string', an argument never passed."""
    path = tmp_path / "a.run"
    path.write_text("q1 Q0 d1 1 1.0 a\n")
    for runs in ({key: {"q1": {"d1": 1.0}}, "s": {"q1": {"d1": 2.0}}}, {key: str(path), "s": str(path)}):
        with pytest.raises(ValueError, match="`run`: a system name is empty or made of blanks only: the mapping") as caught:
            pf.as_run(runs)
        assert repr(key) in str(caught.value)


@pytest.mark.parametrize("side", ["run", "qrels"])
def test_an_empty_score_or_grade_after_a_multiline_quoted_field_names_the_line_against_the_file_text(tmp_path, side):
    """The empty score / grade is on line 5 of the file (a docno quoted over lines 2-3), not the 4th line a
    count of records would give."""
    third = "score" if side == "run" else "rel"
    path = tmp_path / f"{side}.csv"
    path.write_text(f'qid,docno,{third}\n7,"d\n1",2\n7,d2,1\n7,d3,\n')
    line = next(i for i, text in enumerate(path.read_text().splitlines(), start=1) if text.startswith("7,d3,"))
    other = pl.DataFrame({"qid": ["7"], "docno": ["d2"], **({"rel": [1]} if side == "run" else {"score": [1.0]})})
    run, qrels = (path, other) if side == "run" else (other, path)
    with pytest.raises(InputFormatError, match=rf"^{side} file {path}, line {line}: column '{third}' is empty"):
        pf.evaluate(run, qrels, ["RR"], system="s")
