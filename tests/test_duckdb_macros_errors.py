"""pairedframe inside DuckDB (issue 25): the macros parse the measure names pf.evaluate parses and refuse
what the readers and pf.evaluate refuse (bad files, options, tables), naming the problem."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.measures import parse_measure

sys.path.insert(0, str(Path(__file__).parent))
from duckdb_macro_helpers import QRELS_OK, RUN_OK, duckdb_shell, macros_run_here  # noqa: E402,F401
import duckdb_macro_helpers  # noqa: E402

con = duckdb_macro_helpers.con  # the connection fixture, found by pytest by its name


@pytest.mark.parametrize("run, qrels, message", [
    ("301 Q0 d1 1 2.5 tag\n301 Q0 d2 2\n", QRELS_OK,
     r"run file \S+run.txt, line 2: expected at least 6 fields \(qid Q0 docno rank score tag\), found 4"),
    ("301 Q0 d1 1 2.5 tag\n301 Q0 d2 2 high tag\n", QRELS_OK, r"line 2, column 5: score 'high' is not a number"),
    ("301 Q0 d1 1 2.5 tag\n301 Q0 d2 2 nan tag\n", QRELS_OK, r"line 2, column 5: score 'nan' is NaN \(not a number\)"),
    ("301 Q0 d1 1 2.5 tag\n301 Q0 d2 2 1 tag\n301 Q0 d1 3 0.5 tag\n", QRELS_OK,
     r"run file \S+run.txt, line 1: duplicate \(qid, docno\) = \(301, d1\) in run, also on line\(s\) \[3\]"),
    ("301 Q0 d1 1 2.5 tag\n302 Q0 d7 1 3 tag\n302 Q0 d8 2 2 tag\n302 Q0 d7 3 1 tag\n302 Q0 d7 4 0 tag\n", QRELS_OK,
     r"line 2: duplicate \(qid, docno\) = \(302, d7\) in run, also on line\(s\) \[4, 5\]"),  # unjudged, three scores
    ("# nothing\n\n", QRELS_OK, r"run file \S+run.txt: empty file: no data lines"),
    (RUN_OK, "301 0 d1 1\n301 0 d2 1.5\n", r"qrels file \S+qrels.txt, line 2, column 4: relevance grade '1.5' is not an integer"),
    (RUN_OK, "301 0 d1 1\n301 0 d1 0\n", r"qrels file \S+qrels.txt, line 1: duplicate \(qid, docno\) = \(301, d1\) in qrels"),
    (RUN_OK, "301 0 d1\n", r"expected exactly 4 fields \(qid iter docno rel\), found 3"),
    (RUN_OK, "", r"qrels file \S+qrels.txt: empty file"),
    (QRELS_OK, RUN_OK, r"it looks like a (run|qrels) line .*: are the arguments swapped\?"),  # either file may fail first
    (RUN_OK, "999 0 d1 1\n", r"no run query is in the qrels"),
])
def test_bad_files_through_the_macros_name_the_problem(con, tmp_path, run, qrels, message):
    (tmp_path / "run.txt").write_text(run)
    (tmp_path / "qrels.txt").write_text(qrels)
    with pytest.raises(duckdb.Error, match=message):
        con.sql("SELECT * FROM pf_evaluate(?, ?, 'AP')", params=[str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt")]).fetchall()


def test_a_duplicate_whose_lines_carry_different_run_tags_is_named_as_several_systems_through_the_macros(con, tmp_path):
    """pf_evaluate names the tags of colliding lines and how to split the file, as pf.read_run does; lines of one
    tag keep trec_eval's refusal."""
    (tmp_path / "run.txt").write_text("1 Q0 a 1 2 tB\n1 Q0 b 2 1 tB\n1 Q0 a 1 2 tA\n")
    (tmp_path / "one.txt").write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n1 Q0 a 3 0 t\n")
    (tmp_path / "qrels.txt").write_text("1 0 a 1\n")
    with pytest.raises(duckdb.Error, match=r"run\.txt, line 1: the file holds several run tags \(at least 'tA', 'tB'\): "
                                           r"several systems .* duplicate \(qid, docno\) = \(1, a\) in run, also on "
                                           r"line\(s\) \[3\]; give each system its own file"):
        con.sql("SELECT * FROM pf_evaluate(?, ?, 'AP')", params=[str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt")]).fetchall()
    with pytest.raises(duckdb.Error, match=r"one\.txt, line 1: duplicate .* also on line\(s\) \[3\]; trec_eval refuses"):
        con.sql("SELECT * FROM pf_evaluate(?, ?, 'AP')", params=[str(tmp_path / "one.txt"), str(tmp_path / "qrels.txt")]).fetchall()


@pytest.mark.parametrize("lines", [
    ["1 Q0 a 1 2 tB x", "1 Q0 b 2 1 tB x", "1 Q0 a 1 2 tA x"],          # every line with a 7th trailing field
    ["1 Q0 a 1 2 tB x", "1 Q0 b 2 1 tB", "1 Q0 a 1 2 tA"],              # one line with it
], ids=["all-lines-7-fields", "one-line-7-fields"])
def test_several_run_tags_with_a_trailing_field_are_named_by_pf_evaluate_as_by_pf_read_run(con, tmp_path, lines):
    """A run file of several run tags whose lines carry a 7th field (trec_eval reads past it): pf_evaluate took
    the tags of six-field lines only and said the plain duplicate where pf.read_run says several run tags; it
    takes each repeated line's 6th field, as pf.read_run does (a line shifted by a blank in its qid is named by
    the blank's hint first, in both)."""
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("\n".join(lines) + "\n")
    qrels.write_text("1 0 a 1\n")
    with pytest.raises(pf.DuplicateError, match=r"the file holds several run tags \('tB', 'tA'\)"):
        pf.read_run(run)
    with pytest.raises(duckdb.Error, match=r"run\.txt, line 1: the file holds several run tags \(at least 'tA', 'tB'\): "
                                           r"several systems .* duplicate \(qid, docno\) = \(1, a\) in run, also on "
                                           r"line\(s\) \[3\]; give each system its own file"):
        con.sql("SELECT * FROM pf_evaluate(?, ?, 'AP')", params=[str(run), str(qrels)]).fetchall()


@pytest.mark.parametrize("lines, said", [
    # '30 1' as a qid shifts the fields: lines 3 and 4 read as (30, Q0), their scores as run tags
    (["301 Q0 d1 1 5 t", "301 Q0 d2 2 4 t", "30 1 Q0 d3 3 3 t", "30 1 Q0 d4 4 2 t"],
     "line 3: likely a blank inside the qid of line 3 (7 fields where most lines have 6, 'Q0' its field 3): "
     "duplicate (qid, docno) = (30, Q0) in run, also on line(s) [4]; remove the blank"),
    (["q 7 Q0 d1 1 2.0 run", "1 Q0 d1 1 2.0 run", "1 Q0 d2 2 1.0 run", "q 7 Q0 d2 2 1.0 run"],   # shifted line first
     "line 1: likely a blank inside the qid of line 1 (7 fields where most lines have 6, 'Q0' its field 3)"),
    (["301 Q0 d1 1 5 t extra", "301 Q0 d2 2 4 t", "301 Q0 d1 3 3 t"],       # an extra column trec_eval accepts
     "line 1: duplicate (qid, docno) = (301, d1) in run, also on line(s) [3]; trec_eval refuses"),
    (["301 Q0 d1 1 5 t", "301 Q0 d3 2 4 t", "301 Q0 d4 3 3 t", "301 Q0 d 5 4 2 t", "301 Q0 d 6 5 1 t"],
     "line 4: likely a blank inside the docno of line 4 (7 fields where most lines have 6; fields are split on "
     "blanks, so its run tag reads as '2')"),
    (["301 Q0 d1 1 5 t", "301 Q0 d3 2 4 t", "301 Q0 d4 3 3 t", "301 Q0 d 4 2 t", "301 Q0 d 6 5 1 t"],  # unshifted first
     "line 4: likely a blank inside the docno of line 5 (7 fields where most lines have 6; fields are split on "
     "blanks, so its run tag reads as '1')"),
], ids=["blank-in-qid", "blank-in-qid-first-line", "extra-trailing-column", "blank-in-docno",
        "blank-in-docno-second-line"])
def test_a_duplicate_from_an_id_with_a_blank_is_named_by_the_macros_against_pf_read_run(con, tmp_path, lines, said):
    """pf_read_run and pf_evaluate said the plain duplicate where pf.read_run says the line likely has a blank
    inside its qid or docno (io.duplicates.ragged_cause); the macros apply the same rule and say the same words
    (pf.read_run's message adds the line's text)."""
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("\n".join(lines) + "\n")
    qrels.write_text("301 0 d1 1\n")
    messages = []
    for sql, params in [("SELECT * FROM pf_read_run(?)", [str(run)]),
                        ("SELECT * FROM pf_evaluate(?, ?, 'AP')", [str(run), str(qrels)])]:
        with pytest.raises(duckdb.Error) as raised:
            con.sql(sql, params=params).fetchall()
        messages.append(str(raised.value).removeprefix("Invalid Input Error: "))
    with pytest.raises(pf.DuplicateError) as python:
        pf.read_run(run)
    assert messages[0] == messages[1]
    assert str(python.value) == f"{messages[0]}: {python.value.text!r}"
    assert f"run file {run}, {said}" in messages[0]


@pytest.mark.parametrize("reader, content, message", [
    ("pf_read_run", "301 Q0 d1 1 2.5 tag\n301 Q0 d2 2 x tag\n", r"line 2, column 5: score 'x' is not a number"),
    ("pf_read_run", "301 Q0 d1 1 2.5 tag\n301 Q0 d1 2 1.0 tag\n", r"duplicate \(qid, docno\) = \(301, d1\)"),
    ("pf_read_qrels", "301 0 d1 x\n", r"relevance grade 'x' is not an integer"),
])
def test_bad_files_through_the_readers_name_the_problem(con, tmp_path, reader, content, message):
    (tmp_path / "f.txt").write_text(content)
    with pytest.raises(duckdb.Error, match=message):
        con.sql(f"SELECT * FROM {reader}(?)", params=[str(tmp_path / "f.txt")]).fetchall()


@pytest.mark.parametrize("score", ["1_000", "1_0.5", "1e1_0", "Infinity", "-inf", "+INF", "1e400", "-1e400", ".5", "5.",
                                   "+.5e-3", "1E+05", "nan", "-NaN", "0x10", "1,5", "infty"])
def test_score_spellings_through_the_macros_against_read_run(con, tmp_path, score):
    """A score DuckDB's cast reads but Python does not (1_000: digit separators) is refused as pf.read_run
    refuses it, naming file, line and column; every other spelling is read or refused alike."""
    path = tmp_path / "run.txt"
    path.write_text(f"1 Q0 d1 1 3 t\n1 Q0 d2 2 {score} t\n")
    try:
        want = pf.read_run(path).filter(pl.col("docno") == "d2")["score"].to_list()
    except pf.errors.InputFormatError as exc:
        with pytest.raises(duckdb.Error) as got:
            con.sql("SELECT * FROM pf_read_run(?)", params=[str(path)]).fetchall()
        assert str(got.value).endswith(str(exc))
        assert f"line 2, column 5: score '{score}' is" in str(got.value)
        (tmp_path / "qrels.txt").write_text("1 0 d1 1\n")
        with pytest.raises(duckdb.Error, match=r"line 2, column 5: score"):
            con.sql("SELECT * FROM pf_evaluate(?, ?, 'AP')", params=[str(path), str(tmp_path / "qrels.txt")]).fetchall()
    else:
        assert con.sql("SELECT score FROM pf_read_run(?) WHERE docno = 'd2'", params=[str(path)]).fetchall() == [(want[0],)]


def test_readers_keep_ids_as_strings_and_follow_trec_eval_parse_rules(con, tmp_path):
    (tmp_path / "run.txt").write_text("# comment\n007 Q0 d1 1 2.5 tag\n\n   \n  007\tQ0  d#2 2 1.5 tag extra\n \t# note\n"
                                      "\t007 Q0 d3 3 1 tag\n\x0c007 Q0 d4 4 0.5 tag\n007 Q0 d5 5 0.25 tag \n007 Q0\x0bd6 6 0 tag\n")
    got = con.sql("SELECT * FROM pf_read_run(?, system := 'mine')", params=[str(tmp_path / "run.txt")]).pl()
    expected = pf.read_run(tmp_path / "run.txt", system="mine")
    assert expected.height == 6 and got.sort("docno").equals(expected.sort("docno"))


def test_pf_version_against_the_installed_package_metadata(con):
    from importlib.metadata import version

    from pairedframe.sql_macros import script

    assert con.execute("SELECT pf_version()").fetchall() == [(version("pairedframe"),)]
    assert script().startswith(f"-- pairedframe {version('pairedframe')}: DuckDB macros")


def _refused_alike(con, text: str) -> str:
    """parse_measure's error for ``text``, after checking that pf_measures ends its error with the same words."""
    with pytest.raises(pf.errors.UnknownMeasureError) as want:
        parse_measure(text)
    with pytest.raises(duckdb.Error) as got:
        con.sql("SELECT pf_measures(?)", params=[text]).fetchall()
    assert str(got.value).endswith(str(want.value))
    return str(want.value)


@pytest.mark.parametrize("text", ["recip_rank_cut.10", "recip_rank_cut", "err_20", "err.5,10", "err.", "judged_10",
                                  "first_rel_rank.x", "top_grade_rank_5"])
def test_trec_eval_style_names_trec_eval_lacks_through_the_macros_against_parse_measure(con, text):
    _refused_alike(con, text)


@pytest.mark.parametrize("text", ["ndcg.1=3,1=9", "nDCG(gains={1:3,1:9})", "ndcg.1=3,01=9", "G.2=1,1=3,2=9",
                                  "nDCG(gains={2:1,1:3,2:9,1:4})@10", "rbp.p=0.8,1=3,1=4", "rbp_resid.1=3,1=4",
                                  "RBP(gains={0:1,0:2})"])
def test_a_grade_given_twice_in_gains_through_the_macros_against_parse_measure(con, text):
    """pf_measures kept the later gain of ndcg.1=3,1=9 and both of nDCG(gains={1:3,1:9}) (a third value)."""
    want = _refused_alike(con, text)
    assert "duplicate grade" in want


@pytest.mark.parametrize("text", ["ndcg.1=inf", "ndcg.1=nan", "ndcg.01=-INFINITY", "ndcg.1=1e999", "iprec_at_recall.inf",
                                  "iprec_at_recall_NaN", "utility.inf,-1,0,0", "set_F.nan", "rbp.p=inf",
                                  "rbp_resid.p=Infinity", "Rprec_mult.0.5,inf", "11pt_avg.+nan", "relstring.inf",
                                  "G.1=3,2=-inf"])
def test_a_parameter_spelled_inf_or_nan_through_the_macros_against_parse_measure(con, text):
    """The macros' atof read inf and nan as 0 (ndcg.1=inf: gain 0; set_F.nan: SetF(beta=0.0))."""
    want = _refused_alike(con, text)
    assert "is not a finite number" in want


@pytest.mark.parametrize("text", ["P.5,P.10", "P.", "ndcg_cut.10,,20", "map_cut.inf", "recall.10,R@5", "success.x"])
def test_a_cutoff_list_item_that_is_no_number_through_the_macros_against_parse_measure(con, text):
    """pf_measures called P.5,P.10 "cutoff=0 is out of range", a number never written."""
    want = _refused_alike(con, text)
    assert "cutoff=0" not in want


@pytest.mark.parametrize("text", ["relstring.x", "ndcg.1=abc", "ndcg_rel.1=3,2=", "G.1=x", "rbp.p=abc", "rbp_resid.p=q",
                                  "utility.1,x,0,0", "set_F.x", "iprec_at_recall.x", "11pt_avg..25,y", "Rprec_mult.x",
                                  "ndcg.1=0x10", "set_F.0x1p3", "rbp.p=0x.8"])
def test_a_parameter_that_is_no_number_through_the_macros_against_parse_measure(con, text):
    """The macros' atof read ndcg.1=abc as gain 0 and relstring.x as "cutoff=0", never written."""
    want = _refused_alike(con, text)
    assert "cutoff=0" not in want


@pytest.mark.parametrize("measures, options, message", [
    ("nDGC@10", "", r"unknown measure 'nDGC@10'; did you mean nDCG@10"),
    ("P", ", depth := 0", r"depth must be a positive integer"),
    ("AP", ", rel_level := -1", r"rel_level must be an integer >= 0"),
    ("AP", ", score_precision := 'float16'", r"score_precision must be 'float64' or 'float32'"),
    ("AP", ", score_precision := 1", r"score_precision must be 'float64' or 'float32', got 1"),
    ("AP", ", rel_level := 100000000000000000000000", r"rel_level must be at most 9223372036854775807"),
    ("RBP(p=1.5)", "", r"measure 'RBP\(p=1.5\)': parameter p=1.5 \(persistence\) is out of range"),
    ("P@0", "", r"cutoff=0 is out of range"),
    ("relstring", "", r"text-valued"),
    ("AP(foo=1)", "", r"bad parameter 'foo': AP takes cutoff, rel, judged_only"),
])
def test_bad_measures_and_options_through_the_macros_name_the_problem(con, tmp_path, measures, options, message):
    (tmp_path / "run.txt").write_text(RUN_OK)
    (tmp_path / "qrels.txt").write_text(QRELS_OK)
    with pytest.raises(duckdb.Error, match=message):
        con.sql(f"SELECT * FROM pf_evaluate(?, ?, ?{options})",
                params=[str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt"), measures]).fetchall()


@pytest.mark.parametrize("rel_level", [-1, 1.5, 2.0, True, "x", None])
@pytest.mark.parametrize("measures", [["nDCG@10"], ["AP"], ["RR", "bogus"]])
def test_rel_level_through_the_macros_is_checked_like_evaluate_whatever_the_measures(con, tmp_path, rel_level, measures):
    """pf.evaluate refuses a bad rel_level before anything else, whether or not a measure uses a level."""
    (tmp_path / "run.txt").write_text(RUN_OK)
    (tmp_path / "qrels.txt").write_text(QRELS_OK)
    paths = [str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt")]
    with pytest.raises(ValueError) as want:
        pf.evaluate(*paths, measures, rel_level=rel_level)
    wording = str(want.value).rsplit(", got ", 1)[0] + ", got "
    for query in ["SELECT * FROM pf_evaluate(?, ?, ?, rel_level := ?)", "SELECT * FROM pf_summary(?, ?, ?, rel_level := ?)"]:
        with pytest.raises(duckdb.Error) as got:
            con.sql(query, params=[*paths, measures, rel_level]).fetchall()
        assert wording in str(got.value)
    with pytest.raises(duckdb.Error, match=re.escape(wording)):
        con.sql("SELECT pf_measures(?, rel_level := ?)", params=[measures, rel_level]).fetchall()


def test_bad_tables_through_the_macros_name_the_problem(con):
    con.sql("CREATE OR REPLACE TEMP TABLE bad_run AS SELECT * FROM (VALUES ('s', '1', 'x', 1.0), ('s', '1', 'x', 2.0)) "
            "t(system, qid, docno, score)")
    con.sql("CREATE OR REPLACE TEMP TABLE ok_qrels AS SELECT '1' AS qid, 'x' AS docno, 1 AS rel")
    with pytest.raises(duckdb.Error, match=r"run table: duplicate \(system, qid, docno\) = \(s, 1, x\) \(2 rows\)"):
        con.sql("SELECT * FROM pf_evaluate('bad_run', 'ok_qrels', 'AP', tables := true)").fetchall()
    con.sql("CREATE OR REPLACE TEMP TABLE int_run AS SELECT 's' AS system, 1 AS qid, 'x' AS docno, 1.0 AS score")
    with pytest.raises(duckdb.Error, match=r"run table: column qid is INTEGER; ids are strings"):
        con.sql("SELECT * FROM pf_evaluate('int_run', 'ok_qrels', 'AP', tables := true)").fetchall()
    con.sql("CREATE OR REPLACE TEMP TABLE half_qrels AS SELECT '1' AS qid, 'x' AS docno, 1.5 AS rel")
    con.sql("CREATE OR REPLACE TEMP TABLE ok_run AS SELECT 's' AS system, '1' AS qid, 'x' AS docno, 1.0 AS score")
    with pytest.raises(duckdb.Error, match=r"qrels table: grade not an integer: rel = 1.5"):
        con.sql("SELECT * FROM pf_evaluate('ok_run', 'half_qrels', 'AP', tables := true)").fetchall()


@pytest.mark.parametrize("macro", ["pf_evaluate('{run}', 'ok_qrels', 'RR', tables := true)",
                                   "pf_compare('{run}', 'ok_qrels', 'RR', baseline := 's', tables := true)"])
def test_a_text_score_that_is_no_number_is_refused_by_its_type_in_the_macros_not_by_a_cast_error(con, macro):
    """A VARCHAR score 'high' failed in the NaN check's cast (DuckDB's ConversionException, naming no
    table) before the column-type message could be chosen; '1.5' as text got the type message."""
    con.sql("CREATE OR REPLACE TEMP TABLE ok_qrels AS SELECT '1' AS qid, 'x' AS docno, 1 AS rel")
    for text in ("high", "1.5"):
        con.sql(f"CREATE OR REPLACE TEMP TABLE text_run AS SELECT 's' AS system, '1' AS qid, 'x' AS docno, "
                f"'{text}' AS score")
        with pytest.raises(duckdb.InvalidInputException, match=r"run table: column score is VARCHAR; it must be a number"):
            con.sql("SELECT * FROM " + macro.format(run="text_run")).fetchall()



@pytest.mark.parametrize("same_docs", [True, False])
def test_two_run_tables_holding_one_system_name_are_refused_naming_both_tables(con, same_docs):
    """inputs.md: one system name in two tables is an error, never a merge. The macros named a duplicate
    (same documents) or merged the tables silently (other queries); pf.evaluate refuses both."""
    other_qid = "1" if same_docs else "2"
    con.sql("CREATE OR REPLACE TEMP TABLE run_a AS SELECT 'mysys' AS system, '1' AS qid, 'x' AS docno, 1.0 AS score")
    con.sql(f"CREATE OR REPLACE TEMP TABLE run_b AS SELECT 'mysys' AS system, '{other_qid}' AS qid, 'x' AS docno, "
            "2.0 AS score")
    con.sql("CREATE OR REPLACE TEMP TABLE two_qrels AS SELECT * FROM (VALUES ('1', 'x', 1), ('2', 'x', 1)) t(qid, docno, rel)")
    want = r"run tables run_a and run_b both hold system mysys; systems must be distinct across the tables"
    con.sql("CREATE OR REPLACE TEMP TABLE run_c AS SELECT 'other' AS system, '1' AS qid, 'x' AS docno, 1.0 AS score")
    for macro, more in (("pf_evaluate", ""), ("pf_summary", ""), ("pf_compare", ", baseline := 'other'")):
        with pytest.raises(duckdb.Error, match=want):
            con.sql(f"SELECT * FROM {macro}(['run_a', 'run_b', 'run_c'], 'two_qrels', 'AP'{more}, tables := true)"
                    ).fetchall()
    with pytest.raises(pf.DuplicateError, match="both hold system 'mysys'"):
        pf.evaluate([con.table("run_a").pl(), con.table("run_b").pl()], con.table("two_qrels").pl(), "AP")


@pytest.mark.parametrize("macro", ["pf_evaluate('sys_run', 'sys_qrels', 'AP', tables := true, system := 'zzz')",
                                   "pf_summary(['sys_run'], 'sys_qrels', 'AP', tables := true, system := ['zzz'])",
                                   "pf_compare(['sys_run'], 'sys_qrels', 'AP', baseline := 's', tables := true, "
                                   "system := 's')"])
def test_system_beside_tables_is_refused_naming_it(con, macro):
    """system := names run files; beside tables := true it was ignored without a word (the tables' system
    column names the systems)."""
    con.sql("CREATE OR REPLACE TEMP TABLE sys_run AS SELECT 's' AS system, '1' AS qid, 'x' AS docno, 1.0 AS score")
    con.sql("CREATE OR REPLACE TEMP TABLE sys_qrels AS SELECT '1' AS qid, 'x' AS docno, 1 AS rel")
    with pytest.raises(duckdb.Error, match=r"system := names run files; with tables := true each table's system"):
        con.sql(f"SELECT * FROM {macro}").fetchall()
    assert con.sql("SELECT * FROM pf_evaluate('sys_run', 'sys_qrels', 'AP', tables := true)").fetchall()


@pytest.mark.parametrize("macro", ["pf_evaluate({run}, {qrels}, 'AP', tables := true)",
                                   "pf_summary({run}, {qrels}, 'AP', tables := true)",
                                   "pf_compare({run}, {qrels}, 'AP', baseline := 's', tables := true)"])
def test_a_table_lacking_a_column_is_refused_naming_the_table_and_the_column(con, macro):
    """A run table without a system column (or a qrels table without rel) gave DuckDB's Binder Error
    ('Referenced column "system" not found'); pf_compare read it as a table of NULL systems."""
    con.sql("CREATE OR REPLACE TEMP TABLE col_run AS SELECT 's' AS system, '1' AS qid, 'x' AS docno, 1.0 AS score")
    con.sql("CREATE OR REPLACE TEMP TABLE col_nosys AS SELECT '1' AS qid, 'x' AS docno, 1.0 AS score")
    con.sql("CREATE OR REPLACE TEMP TABLE col_qrels AS SELECT '1' AS qid, 'x' AS docno, 1 AS rel")
    con.sql("CREATE OR REPLACE TEMP TABLE col_norel AS SELECT '1' AS qid, 'x' AS docno, 1 AS grade")
    with pytest.raises(duckdb.InvalidInputException, match=r"run table col_nosys: no column system; a run table has "
                                                            r"columns system, qid, docno, score"):
        con.sql("SELECT * FROM " + macro.format(run="['col_run', 'col_nosys']", qrels="'col_qrels'")).fetchall()
    with pytest.raises(duckdb.InvalidInputException, match=r"qrels table col_norel: no column rel; a qrels table has "
                                                            r"columns qid, docno, rel"):
        con.sql("SELECT * FROM " + macro.format(run="['col_run']", qrels="'col_norel'")).fetchall()


@pytest.mark.parametrize("macro", ["pf_evaluate({run}, {qrels}, 'P@1', tables := true)",
                                   "pf_summary({run}, {qrels}, 'P@1', tables := true)",
                                   "pf_compare({run}, {qrels}, 'P@1', baseline := 'x', tables := true)"])
def test_an_empty_run_or_qrels_table_is_refused_naming_the_table(con, macro):
    """An empty run or qrels table gave an empty result without a word (docs/guide/inputs.md: never an
    empty table silently; an empty file is refused, and pf.evaluate refuses an empty table)."""
    con.sql("CREATE OR REPLACE TEMP TABLE emp_qrels AS SELECT '007' AS qid, 'd1' AS docno, 1 AS rel")
    con.sql("CREATE OR REPLACE TEMP TABLE emp_run AS SELECT 'x' AS system, '007' AS qid, 'd1' AS docno, 1.0 AS score")
    con.sql("CREATE OR REPLACE TEMP TABLE emp_run2 AS SELECT 'y' AS system, '007' AS qid, 'd1' AS docno, 2.0 AS score")
    con.sql("CREATE OR REPLACE TEMP TABLE emp_no_run AS SELECT * FROM emp_run WHERE false")
    con.sql("CREATE OR REPLACE TEMP TABLE emp_no_qrels AS SELECT * FROM emp_qrels WHERE false")
    run_empty = r"run table emp_no_run: empty table: no \(system, qid, docno, score\) rows"
    for run in ("'emp_no_run'", "['emp_run', 'emp_run2', 'emp_no_run']"):
        with pytest.raises(duckdb.InvalidInputException, match=run_empty):
            con.sql("SELECT * FROM " + macro.format(run=run, qrels="'emp_qrels'")).fetchall()
    with pytest.raises(duckdb.InvalidInputException, match=r"qrels table emp_no_qrels: empty table: no \(qid, docno, rel\) rows"):
        con.sql("SELECT * FROM " + macro.format(run="['emp_run', 'emp_run2']", qrels="'emp_no_qrels'")).fetchall()


@pytest.mark.parametrize("macro", ["pf_evaluate({run}, {qrels}, 'AP', tables := true)",
                                   "pf_compare({run}, {qrels}, 'AP', baseline := 's', tables := true)"])
def test_an_empty_table_lacking_a_column_is_refused_naming_the_column(con, macro):
    """The column check read the table's rows: an empty table without a system (or rel) column gave an
    empty result without a word."""
    con.sql("CREATE OR REPLACE TEMP TABLE ecol_run AS SELECT 's' AS system, '1' AS qid, 'x' AS docno, 1.0 AS score")
    con.sql("CREATE OR REPLACE TEMP TABLE ecol_nosys AS SELECT '1' AS qid, 'x' AS docno, 1.0 AS score WHERE false")
    con.sql("CREATE OR REPLACE TEMP TABLE ecol_qrels AS SELECT '1' AS qid, 'x' AS docno, 1 AS rel")
    con.sql("CREATE OR REPLACE TEMP TABLE ecol_norel AS SELECT '1' AS qid, 'x' AS docno WHERE false")
    with pytest.raises(duckdb.InvalidInputException, match=r"run table ecol_nosys: no column system; a run table has "):
        con.sql("SELECT * FROM " + macro.format(run="'ecol_nosys'", qrels="'ecol_qrels'")).fetchall()
    with pytest.raises(duckdb.InvalidInputException, match=r"qrels table ecol_norel: no column rel; a qrels table has "):
        con.sql("SELECT * FROM " + macro.format(run="['ecol_run']", qrels="'ecol_norel'")).fetchall()


@pytest.mark.parametrize("macro", ["pf_evaluate({run}, {qrels}, 'AP', tables := true)",
                                   "pf_summary({run}, {qrels}, 'AP', tables := true)",
                                   "pf_compare({run}, {qrels}, 'AP', baseline := 's', tables := true)"])
def test_a_missing_table_under_tables_true_is_duckdbs_catalog_error_naming_the_table(con, macro):
    """What docs/guide/duckdb_sql.md documents for a name that is no table or view: DuckDB's own Catalog Error,
    which names the table (and a close name), for the run and the qrels argument alike. The macros cannot say
    more: DuckDB binds each table of the query the macro builds before any of its checks runs, a table
    function's argument takes no subquery (checked here: should DuckDB allow one, the macros can look the
    catalog up first and name the argument), and no scalar function reads the catalog."""
    con.sql("CREATE OR REPLACE TEMP TABLE cat_run AS SELECT 's' AS system, '1' AS qid, 'x' AS docno, 1.0 AS score")
    con.sql("CREATE OR REPLACE TEMP TABLE cat_run2 AS SELECT 't' AS system, '1' AS qid, 'x' AS docno, 2.0 AS score")
    con.sql("CREATE OR REPLACE TEMP TABLE cat_qrels AS SELECT '1' AS qid, 'x' AS docno, 1 AS rel")
    for run, qrels, missing in ((["cat_runn", "cat_run2"], "cat_qrels", "cat_runn"),
                                (["cat_run", "cat_run2"], "cat_qrelz", "cat_qrelz")):
        with pytest.raises(duckdb.CatalogException, match=rf"Table with name {missing} does not exist!"):
            con.sql("SELECT * FROM " + macro.format(run=run, qrels=repr(qrels))).fetchall()
    with pytest.raises(duckdb.BinderException, match="Table function cannot contain subqueries"):
        con.sql("SELECT * FROM query((SELECT 'SELECT 1'))").fetchall()


def test_a_compressed_file_whose_last_line_is_cut_short_is_named_as_possibly_truncated(con, tmp_path):
    """What DuckDB before 2.0 reads from a truncated gzip file (and every version from a truncated zstd
    file): the lines up to the cut, the last one short. Its field-count error guessed swapped arguments
    ('it looks like a qrels line'); past the first line of a .gz or .zst file it names the truncation.
    The file here is a whole gzip file ending in such a line, which every DuckDB reads."""
    import gzip

    run, qrels = tmp_path / "run.gz", tmp_path / "qrels.gz"
    run.write_bytes(gzip.compress((RUN_OK + "301 Q0 d3 3").encode()))
    qrels.write_bytes(gzip.compress((QRELS_OK + "301 0 d3").encode()))
    (tmp_path / "ok.txt").write_text(QRELS_OK)
    cut = r"if this is the file's last line, the file is cut short: a corrupt or truncated gzip file"
    with pytest.raises(duckdb.InvalidInputException, match=r"run file \S+run.gz, line 3: expected at least 6 fields "
                                                            r"\(qid Q0 docno rank score tag\), found 4; " + cut):
        con.sql(f"SELECT * FROM pf_evaluate('{run}', '{tmp_path / 'ok.txt'}', 'AP')").fetchall()
    with pytest.raises(duckdb.InvalidInputException, match=r"qrels file \S+qrels.gz, line 3: expected exactly 4 "
                                                            r"fields \(qid iter docno rel\), found 3; " + cut):
        con.sql(f"SELECT * FROM pf_read_qrels('{qrels}')").fetchall()
    swapped = tmp_path / "swapped.gz"  # a qrels file as the run fails on its first line: still the swap hint
    swapped.write_bytes(gzip.compress(QRELS_OK.encode()))
    with pytest.raises(duckdb.InvalidInputException, match=r"line 1: .*are the arguments swapped\?"):
        con.sql(f"SELECT * FROM pf_read_run('{swapped}')").fetchall()


@pytest.mark.shared_data
def test_a_truncated_gzip_run_file_through_the_macros_is_named_as_truncated(tmp_path, shared_data):
    """A real run cut at 200,000 bytes: the DuckDB 1.5 shell read it up to the cut and blamed its last,
    short line as 'a qrels line: are the arguments swapped?'. The shell names the truncation now; Python's
    duckdb names it too (2.0: DuckDB's 'Unexpected end of GZIP stream' with the path; before: the hint)."""
    from pairedframe.sql_macros import script as text

    whole = shared_data / "llm_labels_dl" / "dl2019_runs" / "input.bm25base_p.gz"
    qrels = shared_data / "anserini_tools" / "qrels.dl19-passage.txt"
    cut = tmp_path / "cut.gz"
    cut.write_bytes(whole.read_bytes()[:200_000])
    query = f"SELECT count(*) FROM pf_evaluate('{cut}', '{qrels}', 'P@10')"
    named = re.compile(r"Unexpected end of GZIP stream: \S*cut.gz|run file \S*cut.gz, line \d+: .*truncated gzip file")
    shell = duckdb_shell()
    script = tmp_path / "pairedframe.sql"
    script.write_text(text())
    done = subprocess.run([shell, "-c", f".read {script}", "-c", query], capture_output=True, text=True, timeout=600)
    assert done.returncode != 0 and named.search(done.stderr + done.stdout), done.stderr + done.stdout
    if macros_run_here():
        con = pf.duckdb.register(duckdb.connect())  # kept: DuckDB before 1.5 closes an unreferenced connection
        with pytest.raises(duckdb.Error, match=named):
            con.sql(query).fetchall()


@pytest.mark.parametrize("macro, argument, more", [("pf_evaluate", "run", ", 'qrels.txt', ['P.5']"),
                                                   ("pf_summary", "run", ", 'qrels.txt', ['P.5']"),
                                                   ("pf_compare", "run", ", 'qrels.txt', ['P.5'], baseline := 'a'"),
                                                   ("pf_read_run", "path", "")])
def test_an_empty_run_list_names_the_macro_called_and_its_run_argument(con, macro, argument, more):
    """The macros share one check of the run paths, which said "pf_evaluate: no pf_evaluate file given" whichever
    macro was called, and never said run."""
    with pytest.raises(duckdb.Error, match=rf"{macro}: no run file given: `{argument}` is an empty list; give a run "
                                           rf"file or a list of run files"):
        con.sql(f"SELECT * FROM {macro}([]::VARCHAR[]{more})").fetchall()


@pytest.mark.parametrize("macro, more", [("pf_summary", ""), ("pf_compare", ", baseline := 'a'")])
def test_the_shared_checks_of_the_macros_name_the_macro_called(con, tmp_path, macro, more):
    """pf_summary and pf_compare said pf_evaluate (and pf_read_run for system names) in the checks they share."""
    for name in ("a", "b"):
        (tmp_path / name).write_text(RUN_OK)
    (tmp_path / "qrels.txt").write_text("999 0 d1 1\n")
    runs, qrels = [str(tmp_path / "a"), str(tmp_path / "b")], str(tmp_path / "qrels.txt")
    with pytest.raises(duckdb.Error, match=rf"{macro}: no run query is in the qrels"):
        con.sql(f"SELECT * FROM {macro}(?, ?, 'AP'{more})", params=[runs, qrels]).fetchall()
    with pytest.raises(duckdb.Error, match=rf"{macro}: 3 system name\(s\) for 2 run files"):
        con.sql(f"SELECT * FROM {macro}(?, ?, 'AP'{more}, system := ['a', 'b', 'c'])", params=[runs, qrels]).fetchall()
    with pytest.raises(duckdb.Error, match=rf"{macro}: qrels is NULL"):
        con.sql(f"SELECT * FROM {macro}(?, NULL, 'AP'{more})", params=[runs]).fetchall()


@pytest.mark.parametrize("macro", ["pf_evaluate({run}, {qrels}, 'AP', tables := true)",
                                   "pf_summary({run}, {qrels}, 'AP', tables := true)",
                                   "pf_compare({run}, {qrels}, 'AP', baseline := 's', tables := true)"])
def test_a_file_path_beside_tables_is_refused_naming_the_argument(con, macro, tmp_path):
    """With tables := true run and qrels both name tables or views; a qrels (or run) file path there gave
    DuckDB's Binder Error ('No extension found that is capable of reading the file'), naming no argument."""
    con.sql("CREATE OR REPLACE TEMP TABLE path_run AS SELECT * FROM (VALUES ('s', '1', 'x', 1.0), ('s', '2', 'x', 1.0), "
            "('t', '1', 'y', 1.0), ('t', '2', 'x', 1.0)) v(system, qid, docno, score)")
    con.sql("CREATE OR REPLACE TEMP TABLE path_qrels AS SELECT * FROM (VALUES ('1', 'x', 1), ('2', 'x', 1)) v(qid, docno, rel)")
    qrels_file = tmp_path / "qrels.txt"
    qrels_file.write_text(QRELS_OK)
    with pytest.raises(duckdb.InvalidInputException,
                       match=rf"qrels '{re.escape(str(qrels_file))}' looks like a file, but with tables := true run and "
                             r"qrels both name tables or views: read the file into one first \(CREATE TABLE my_qrels AS "
                             r"SELECT \* FROM pf_read_qrels\('.*qrels\.txt'\)\), or pass files for both with tables := false"):
        con.sql("SELECT * FROM " + macro.format(run="['path_run']", qrels=f"'{qrels_file}'")).fetchall()
    for run in ("runs/bm25.txt", "C:\\runs\\bm25", "input.bm25.gz", "run.parquet"):
        with pytest.raises(duckdb.InvalidInputException, match=r"run '.*' looks like a file, but with tables := true"):
            con.sql("SELECT * FROM " + macro.format(run=f"['path_run', '{run}']", qrels="'path_qrels'")).fetchall()
    assert con.sql("SELECT * FROM " + macro.format(run="['path_run']", qrels="'path_qrels'")).fetchall()
