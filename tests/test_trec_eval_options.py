"""trec_eval's last options: grades read as trec_eval reads them (``grades="trec_eval"``, ``--grades``),
``-J`` (``judged_only=True``), ``-R`` (``judgments_format``) and the preference reader; their bad-input
cases; and streamed run files giving the values of whole tables for the new judgment formats."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.errors import DuplicateError, InputFormatError, SchemaError
from pairedframe.example import example_paths
from pairedframe.io.prefs import as_prefs, read_prefs

GRADED = "1 0 a 1.5\n1 0 b 2.7\n1 0 c 1e3\n1 0 d .5\n1 0 e -1.5\n1 0 f 2\n"
AS_ATOL = "1 0 a 1\n1 0 b 2\n1 0 c 1\n1 0 d 0\n1 0 e -1\n1 0 f 2\n"
RUN = "1 Q0 a 1 6 t\n1 Q0 b 2 5 t\n1 Q0 c 3 4 t\n1 Q0 d 4 3 t\n1 Q0 e 5 2 t\n1 Q0 f 6 1 t\n"


def test_non_integer_grades_are_refused_by_default_naming_the_line(tmp_path):
    path = tmp_path / "qrels"
    path.write_text(GRADED)
    with pytest.raises(InputFormatError, match=r"qrels file .*, line 1, column 4: relevance grade '1.5' is not an "
                                                r"integer; grades='trec_eval' reads"):
        pf.read_qrels(path)
    path.write_text("1 0 a x\n")
    with pytest.raises(InputFormatError, match="relevance grade 'x' is not a number"):
        pf.read_qrels(path, grades="trec_eval")
    with pytest.raises(ValueError, match="grades must be 'strict'"):
        pf.read_qrels(path, grades="atol")


def test_trec_eval_grades_against_integer_prefix_qrels(tmp_path):
    """grades="trec_eval" reads a number as C's atol does: the same values as qrels holding the
    integer prefixes, with one warning naming the first such line and what it became."""
    graded, prefixes, run = tmp_path / "graded", tmp_path / "prefixes", tmp_path / "run"
    graded.write_text(GRADED)
    prefixes.write_text(AS_ATOL)
    run.write_text(RUN)
    with pytest.warns(UserWarning, match=r"line 1: grade '1.5' read as 1 \(5 grades in all\)") as record:
        ev = pf.evaluate(str(run), str(graded), ["AP", "nDCG@5", "NumRel"], grades="trec_eval")
    assert len(record) == 1 and record[0].filename == __file__
    want = pf.evaluate(str(run), str(prefixes), ["AP", "nDCG@5", "NumRel"])
    assert ev.per_query.equals(want.per_query)
    with pytest.warns(UserWarning, match="read as 1"):
        assert pf.read_qrels(graded, grades="trec_eval", judgment_groups=True)["rel"].to_list() == [1, 2, 1, 0, -1, 2]


def test_trec_eval_grades_of_a_table_truncate_toward_zero():
    table = pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": [1.5, -2.5]})
    with pytest.raises(SchemaError, match=r"must hold integer grades, got 1.5 \(grades='trec_eval'"):
        pf.as_qrels(table)
    with pytest.warns(UserWarning, match=r"qrels table row 1: grade '1.5' read as 1 \(2 grades in all\)"):
        assert pf.as_qrels(table, grades="trec_eval")["rel"].to_list() == [1, -2]


def test_cli_grades_flag_against_python_option(tmp_path):
    graded, run = tmp_path / "graded", tmp_path / "run"
    graded.write_text(GRADED)
    run.write_text(RUN)
    refused = CliRunner().invoke(app, ["evaluate", "-m", "map", str(graded), str(run)])
    assert refused.exit_code != 0 and "not an integer" in refused.output
    result = CliRunner().invoke(app, ["evaluate", "--format", "trec", "--grades", "trec_eval", "-m", "map",
                                      str(graded), str(run)])
    assert result.exit_code == 0, result.output
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = pf.evaluate(str(run), str(graded), ["map"], grades="trec_eval").to_trec(per_query=False, runid=False)
    assert result.stdout == want


def test_cli_judged_only_flag_against_judged_only_measures():
    qrels, runs = example_paths()
    result = CliRunner().invoke(app, ["evaluate", "--format", "csv", "-q", "-J", "-m", "map", "-m", "P.10",
                                      "-m", "num_q", "-m", "num_rel", str(qrels), str(runs[0])])
    assert result.exit_code == 0, result.output
    got = pl.read_csv(result.stdout.encode(), schema_overrides={"qid": pl.String, "value": pl.String})
    assert set(got["measure"]) == {"AP(judged_only=True)", "P(judged_only=True)@10", "NumQ", "NumRel"}
    want = pf.evaluate(runs[0], qrels, ["AP(judged_only=True)", "P(judged_only=True)@10"])
    expected = {(q, m): v for _, q, m, v in want.per_query.iter_rows()}
    rows = got.filter(pl.col("measure").str.contains("judged_only") & ~pl.col("summary"))
    assert {(q, m): float(v) for q, m, v in rows.select("qid", "measure", "value").iter_rows()} == expected
    trec = CliRunner().invoke(app, ["evaluate", "--format", "trec", "-J", "-m", "map", str(qrels), str(runs[0])]).stdout
    assert trec.startswith("map                   \tall\t")


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"judgments_format": "pref"}, "judgments_format must be one of 'qrels', 'qrels_jg', 'prefs', 'qrels_prefs'"),
    ({"judgments_format": "prefs", "measures": "map"}, r"\['AP'\] read qrels judgments, but the judgments given are prefs"),
    ({"measures": "prefs_simp"}, r"\['prefs_simp'\] read prefs judgments, but the judgments given are qrels"),
    ({"judgments_format": "qrels_jg", "measures": "P.5"}, "read qrels judgments, but the judgments given are qrels_jg"),
    ({"judged_only": "yes"}, "judged_only must be True or False"),
    ({"grades": "loose"}, "grades must be 'strict'"),
])
def test_evaluate_refuses_bad_judgment_options(kwargs, match):
    qrels, runs = example_paths()
    measures = kwargs.pop("measures", "map")
    with pytest.raises(ValueError, match=match):
        pf.evaluate(runs, qrels, measures, **kwargs)


def test_cli_bad_judgment_format_and_missing_zscores_file(tmp_path):
    qrels, runs = example_paths()
    bad = CliRunner().invoke(app, ["evaluate", "-R", "pref", str(qrels), str(runs[0])])
    assert bad.exit_code != 0 and "--judgments-format must be one of" in bad.output
    missing = CliRunner().invoke(app, ["evaluate", "-Z", str(tmp_path / "nope"), str(qrels), str(runs[0])])
    assert missing.exit_code != 0 and "nope" in missing.output


@pytest.mark.parametrize(("text", "fmt", "error", "match"), [
    ("q 0 0 d\n", "prefs", InputFormatError, r"line 1: expected exactly 5 fields \(qid jg jsg docno level\), found 4"),
    ("q 0 0 d 1 x\n", "prefs", InputFormatError, "found 6"),
    ("q 0 0 d high\n", "prefs", InputFormatError, r"line 1, column 5: level 'high' is not a finite number"),
    ("q 0 0 d inf\n", "prefs", InputFormatError, "level 'inf' is not a finite number"),
    ("q 0 d 1\nq 0 d 2\n", "qrels_prefs", DuplicateError, r"duplicate \(qid, jg, jsg, docno\) = \('q', '0', '0', 'd'\)"),
    ("q u a a 2\nq u a b 1\nq u b a 0\n", "prefs", InputFormatError,
     r"line 3: document 'a' of query 'q', judgment group 'u', has level 2 in sub-group 'a' and 0 in sub-group 'b'"),
    ("# nothing\n\n", "prefs", InputFormatError, "empty file"),
])
def test_prefs_file_errors_name_the_line(tmp_path, text, fmt, error, match):
    path = tmp_path / "prefs"
    path.write_text(text)
    with pytest.raises(error, match=match):
        read_prefs(path, format=fmt)


def test_prefs_table_errors():
    with pytest.raises(ValueError, match="format must be 'prefs' or 'qrels_prefs'"):
        read_prefs("any", format="qrels")
    with pytest.raises(SchemaError, match=r"lacks column\(s\) \['jg'\]"):
        as_prefs(pl.DataFrame({"qid": ["1"], "docno": ["a"], "level": [1.0]}))
    with pytest.raises(SchemaError, match="null values"):
        as_prefs(pl.DataFrame({"qid": ["1"], "jg": ["0"], "docno": [None], "level": [1.0]}))
    with pytest.raises(SchemaError, match="finite"):
        as_prefs(pl.DataFrame({"qid": ["1"], "jg": ["0"], "docno": ["a"], "level": [float("nan")]}))
    qrels_like = as_prefs(pl.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [2]}), format="qrels_prefs")
    assert qrels_like.row(0) == ("1", "0", "0", "a", 2.0)


@pytest.mark.parametrize(("fmt", "judgments", "run", "measures"), [
    ("prefs", "prefs.test", "prefs.results.test", "all_prefs"),
    ("qrels_prefs", "qrels.test", "results.test", "all_prefs"),
    ("qrels_jg", "qrels.123", "results.test", "qrels_jg"),
])
@pytest.mark.shared_data
def test_streamed_run_files_against_whole_tables(shared_data, tmp_path, fmt, judgments, run, measures):
    """A run file with one blank between fields is evaluated block by block; the same values as the
    run given whole as a table (complete and depth exercise the streamed path's own steps)."""
    folder = shared_data / "trec_eval"
    single = tmp_path / "run.txt"
    single.write_text("".join(" ".join(line.split()) + "\n" for line in (folder / run).read_text().splitlines()))
    table = pf.read_run(single, system="run")
    for options in ({}, {"complete": True, "depth": 7}):
        streamed = pf.evaluate({"run": str(single)}, str(folder / judgments), measures, judgments_format=fmt, **options)
        whole = pf.evaluate(table, str(folder / judgments), measures, judgments_format=fmt, **options)
        assert streamed.per_query.equals(whole.per_query)
