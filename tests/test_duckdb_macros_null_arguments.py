"""A NULL inside a list argument of the DuckDB macros (run paths or tables, system names, measure names) is
refused with the macros' own words naming the argument. Unchecked, a NULL system name or measures := NULL broke
the text of the query a macro builds (DuckDB's "syntax error at or near ')'" or "Cannot use NULL as function
argument"), a NULL measure beside others was dropped without a word, and pf_measures([NULL]) made a nameless
struct."""

from __future__ import annotations

import sys
from pathlib import Path

import duckdb
import pytest

import pairedframe as pf

sys.path.insert(0, str(Path(__file__).parent))
from duckdb_macro_helpers import QRELS_OK, RUN_OK, needs_macros  # noqa: E402
import duckdb_macro_helpers  # noqa: E402

con = duckdb_macro_helpers.con  # the connection fixture, found by pytest by its name
pytestmark = needs_macros

MACROS = [("pf_evaluate", ""), ("pf_summary", ""), ("pf_compare", ", baseline := 'a'")]


@pytest.fixture
def files(tmp_path) -> tuple[list[str], str]:
    for name in ("a", "b"):
        (tmp_path / name).write_text(RUN_OK)
    (tmp_path / "qrels.txt").write_text(QRELS_OK)
    return [str(tmp_path / "a"), str(tmp_path / "b")], str(tmp_path / "qrels.txt")


def _error(con, sql: str, params: list) -> str:
    with pytest.raises(duckdb.InvalidInputException) as got:
        con.sql(sql, params=params).fetchall()
    return str(got.value).removeprefix("Invalid Input Error: ")


@pytest.mark.parametrize("macro, more", MACROS + [("pf_read_run", None)])
@pytest.mark.parametrize("system", ["[NULL, 'b']", "['a', NULL]"])
def test_a_null_system_name_through_the_macros_is_refused_naming_system(con, files, macro, more, system):
    runs, qrels = files
    if more is None:
        sql, params = f"SELECT * FROM pf_read_run(?, system := {system})", [runs]
    else:
        sql, params = f"SELECT * FROM {macro}(?, ?, 'AP'{more}, system := {system})", [runs, qrels]
    assert _error(con, sql, params) == (f"{macro}: `system`: a system name is NULL; give each run file a name (a string), "
                                        "or leave system := out for TREC's naming")


def test_a_null_system_name_for_one_run_file_is_refused_naming_system(con, files):
    got = _error(con, "SELECT * FROM pf_read_run(?, system := [NULL])", [files[0][0]])
    assert got.startswith("pf_read_run: `system`: a system name is NULL"), got


@pytest.mark.parametrize("macro, more", MACROS)
@pytest.mark.parametrize("measures, where", [("[NULL]", " (item 1 of the list)"), ("['AP', NULL]", " (item 2 of the list)"),
                                             ("NULL", "")])
def test_a_null_measure_name_through_the_macros_against_evaluate(con, files, macro, more, measures, where):
    """pf.evaluate refuses None as a measure name; the macros say the same words, naming `measures`."""
    runs, qrels = files
    with pytest.raises(pf.errors.UnknownMeasureError, match="a measure name must be a string") as want:
        pf.evaluate(runs, qrels, ["AP", None])
    said = str(want.value).split(" or Measure")[0]  # a Measure object has no SQL form
    got = _error(con, f"SELECT * FROM {macro}(?, ?, {measures}{more})", [runs, qrels])
    assert got == f"`measures`: {said}, got NULL{where}", got


@pytest.mark.parametrize("measures", ["[NULL]", "['AP', NULL]", "NULL"])
def test_pf_measures_refuses_a_null_name_instead_of_a_nameless_struct(con, measures):
    got = _error(con, f"SELECT pf_measures({measures})", [])
    assert got.startswith("`measures`: a measure name must be a string, got NULL"), got


@pytest.mark.parametrize("macro, more", [("pf_evaluate", ""), ("pf_summary", ""), ("pf_compare", ", baseline := 's'")])
@pytest.mark.parametrize("run", ["['null_run', NULL]", "NULL"])
def test_a_null_run_table_name_is_refused_naming_run(con, macro, more, run):
    """Under tables := true a NULL table name was dropped from the query (its systems silently left out)."""
    con.sql("CREATE OR REPLACE TEMP TABLE null_run AS SELECT * FROM (VALUES ('s', '301', 'd1', 1.0), ('t', '301', 'd2', 1.0)) "
            "v(system, qid, docno, score)")
    con.sql("CREATE OR REPLACE TEMP TABLE null_qrels AS SELECT * FROM (VALUES ('301', 'd1', 1)) v(qid, docno, rel)")
    got = _error(con, f"SELECT * FROM {macro}({run}, 'null_qrels', 'AP'{more}, tables := true)", [])
    assert got == f"{macro}: `run`: NULL is not a table or view name; list the run tables or views", got
