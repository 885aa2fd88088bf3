"""Grades in the billions (trec_eval reads grades with atol, so they are legal): the gain tables list
the grades that occur, not every grade from 0 up, so a three-line qrels with grade 3000000000
evaluates at once on both engines and in the DuckDB macros instead of exhausting memory."""

from __future__ import annotations

import math
import warnings

import duckdb
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.measures.gains import gain_table, rbp_bounds

GRADED = ["nDCG", "nDCG@10", "nDCG(dcg='exp-log2')", "ndcg_rel", "Rndcg", "G", "AP", "RBP(p=0.8)",
          "rbp.p=0.9,1=2", "RBP(gains={0:-1})", "P@2"]
RUN_TEXT = "1 Q0 a 1 3 t\n1 Q0 b 2 2 t\n1 Q0 c 3 1 t\n2 Q0 a 1 3 t\n2 Q0 b 2 2 t\n"


def _values(run, qrels, engine: str) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = pf.evaluate(run, qrels, GRADED, engine=engine).per_query
    return {(q, m): v for q, m, v in frame.select("qid", "measure", "value").iter_rows()}


def _assert_equal(left: dict, right: dict) -> None:
    assert left.keys() == right.keys()
    for key, value in left.items():
        assert value == right[key] or (math.isnan(value) and math.isnan(right[key])), key


@pytest.fixture
def files(tmp_path):
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text(RUN_TEXT)
    qrels.write_text("1 0 a 3000000000\n1 0 b 1\n1 0 c 0\n2 0 a 2147483648\n2 0 b 2\n")
    return run, qrels


def test_grades_in_the_billions_give_equal_values_on_both_engines(files):
    run, qrels = files
    duck, polars = _values(run, qrels, "duckdb"), _values(run, qrels, "polars")
    _assert_equal(duck, polars)
    assert duck["1", "nDCG"] == 1.0 and duck["1", "AP"] == 1.0


def test_grade_two_to_the_forty_in_a_table_gives_equal_values_on_both_engines(files):
    run, _ = files
    qrels = pl.DataFrame({"qid": ["1", "1", "1", "2"], "docno": ["a", "b", "c", "b"], "rel": [2**40, 1, 0, 2**40]})
    duck, polars = _values(run, qrels, "duckdb"), _values(run, qrels, "polars")
    _assert_equal(duck, polars)
    assert duck["2", "nDCG"] < 1.0 and duck["1", "nDCG@10"] == 1.0


def test_err_refuses_grades_in_the_billions_with_its_own_message(files):
    run, qrels = files
    with pytest.raises(ValueError, match="ERR@5 takes grades up to 4"):
        pf.evaluate(run, qrels, ["ERR@5"])


def test_duckdb_macros_take_grades_in_the_billions_as_pf_evaluate(files):
    run, qrels = files
    con = pf.duckdb.register(duckdb.connect())
    got = con.sql("SELECT qid, measure, value FROM pf_evaluate(?, ?, ?)", params=[str(run), str(qrels), GRADED]).pl()
    values = {(q, m): v for q, m, v in got.iter_rows()}
    expected = _values(run, qrels, "duckdb")
    assert values.keys() == expected.keys()
    for key, value in expected.items():
        assert values[key] == pytest.approx(value, nan_ok=True), key


def test_gain_table_lists_the_grades_that_occur_and_the_neighbours_of_explicit_entries():
    table = gain_table(["", "exp", "map:2=5.0"], [3000000000, 1, -1])
    rows = {(k, r): g for k, r, g, _ in table.iter_rows()}
    assert sorted(r for k, r in rows if k == "") == [0, 1, 3000000000]
    assert sorted(r for k, r in rows if k == "map:2=5.0") == [0, 1, 2, 3, 3000000000]
    assert rows["exp", 3000000000] == math.inf and rows["", 3000000000] == 3e9


def test_rbp_bounds_over_grades_in_the_billions_match_the_bounds_over_every_grade():
    # the map's entry at the largest grade hides that grade: hi is the next grade below it
    bounds = rbp_bounds("map:0=-1.0,3000000000=0.5", [3000000000, 7])
    assert bounds.rows() == [(7, -1.0, 7.0), (3000000000, -1.0, 2999999999.0)]
