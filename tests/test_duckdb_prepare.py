"""``prepare()`` on user-made pf_run / pf_qrels checks what the readers check (issue 12 item 3)."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.sql_files import load_sql, sql_params
from pairedframe.engines import EvalOptions
from pairedframe.engines.duckdb_engine import prepare
from pairedframe.errors import DuplicateError, SchemaError
from pairedframe.example import example_paths

OPTIONS = EvalOptions(complete=False, depth=None)
RUN = "SELECT * FROM (VALUES ('s', 'q1', 'd1', 3.0), ('s', 'q1', 'd2', 1.0)) t(system, qid, docno, score)"
QRELS = "SELECT * FROM (VALUES ('q1', 'd1', 1), ('q1', 'd2', 1)) t(qid, docno, rel)"


def _connection(run_sql: str = RUN, qrels_sql: str = QRELS) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.sql(f"CREATE TABLE pf_run AS {run_sql}")
    con.sql(f"CREATE TABLE pf_qrels AS {qrels_sql}")
    return con


def test_issue_example_duplicate_document_is_refused_not_ap_1_5():
    # The issue's input: d1 twice in the run gave AP = 1.5 and recall 1.5.
    run = ("SELECT * FROM (VALUES ('s', 'q1', 'd1', 3.0), ('s', 'q1', 'd1', 2.0), ('s', 'q1', 'd2', 1.0)) "
           "t(system, qid, docno, score)")
    con = _connection(run)
    with pytest.raises(DuplicateError, match=r"pf_run: duplicate \(system, qid, docno\) = \('s', 'q1', 'd1'\) \(2 rows\)"):
        prepare(con, rel_level=1, options=OPTIONS)
    con.sql("DELETE FROM pf_run WHERE score = 2.0")
    prepare(con, rel_level=1, options=OPTIONS)
    assert con.sql(load_sql("ap.sql"), params={"k": None}).fetchall() == [("s", "q1", 1.0)]
    assert con.sql(load_sql("recall.sql"), params={"k": 2}).fetchall() == [("s", "q1", 1.0)]


@pytest.mark.parametrize("run_sql, qrels_sql, error, fragment", [
    (RUN, "SELECT * FROM (VALUES ('q1', 'd1', 1), ('q1', 'd1', 0)) t(qid, docno, rel)", DuplicateError,
     r"pf_qrels: duplicate \(qid, docno\) = \('q1', 'd1'\)"),
    ("SELECT 's' AS system, 'q1' AS qid, 'd1' AS docno, 'nan'::DOUBLE AS score", QRELS, SchemaError,
     r"pf_run: null or NaN score .*: score = nan at \(system, qid, docno\) = \('s', 'q1', 'd1'\)"),
    ("SELECT 's' AS system, 'q1' AS qid, 'd1' AS docno, NULL::DOUBLE AS score", QRELS, SchemaError,
     "null or NaN score"),
    ("SELECT 's' AS system, NULL::VARCHAR AS qid, 'd1' AS docno, 1.0 AS score", QRELS, SchemaError, "null id"),
    (RUN, "SELECT 'q1' AS qid, 'd1' AS docno, 1.5 AS rel", SchemaError,
     r"pf_qrels: grade not an integer: rel = 1.5 at \(qid, docno\) = \('q1', 'd1'\)"),
    (RUN, "SELECT 'q1' AS qid, 'd1' AS docno, '1' AS rel", SchemaError, r"pf_qrels.rel is VARCHAR; it must be a number"),
    ("SELECT 's' AS system, 'q1' AS qid, 'd1' AS docno", QRELS, SchemaError,
     r"pf_run lacks column\(s\) \['score'\]"),
    (RUN, "SELECT 'q1' AS qid, 'd1' AS docno, 1 AS relevance", SchemaError, r"pf_qrels lacks column\(s\) \['rel'\]"),
    ("SELECT 's' AS system, 7 AS qid, 'd1' AS docno, 1.0 AS score", QRELS, SchemaError,
     r"pf_run.qid is INTEGER; ids are strings"),
])
def test_prepare_refuses_what_the_readers_refuse(run_sql, qrels_sql, error, fragment):
    with pytest.raises(error, match=fragment):
        prepare(_connection(run_sql, qrels_sql), rel_level=1, options=OPTIONS)


def test_prepare_names_a_missing_table():
    con = duckdb.connect()
    con.sql(f"CREATE TABLE pf_run AS {RUN}")
    with pytest.raises(SchemaError, match="pf_qrels: no such table"):
        prepare(con, rel_level=1, options=OPTIONS)


def test_integral_float_grades_and_integer_scores_pass():
    con = _connection("SELECT * FROM (VALUES ('s', 'q1', 'd1', 3), ('s', 'q1', 'd2', 1)) t(system, qid, docno, score)",
                      "SELECT * FROM (VALUES ('q1', 'd1', 1.0), ('q1', 'd2', 0.0)) t(qid, docno, rel)")
    prepare(con, rel_level=1, options=OPTIONS)
    assert con.sql(load_sql("ap.sql"), params={"k": None}).fetchall() == [("s", "q1", 1.0)]


def test_validated_sql_path_agrees_with_evaluate():
    qrels, runs = example_paths()
    run, judged = pf.read_run(runs), pf.read_qrels(qrels)
    con = duckdb.connect()
    con.register("pf_run", run)
    con.register("pf_qrels", judged)
    prepare(con, rel_level=1, options=OPTIONS)
    got = con.sql(load_sql("ap.sql"), params={"k": None}).pl().sort("system", "qid")
    want = pf.evaluate(runs, qrels, "AP").per_query.sort("system", "qid")
    assert got["value"].to_list() == pytest.approx(want["value"].to_list(), abs=1e-12)
    assert got["qid"].to_list() == want["qid"].to_list()
    assert isinstance(got, pl.DataFrame)


def _discount_registrations(measures: list[str], depth: int | None = None) -> tuple[list[int], pl.DataFrame]:
    """The ``largest`` of each pf_discounts registration while the DuckDB engine evaluates ``measures``
    (each resolved plainly and judged-only: two groups of measures), and the values it gives."""
    from unittest import mock

    from pairedframe.engines import duckdb_engine
    from pairedframe.measures import parse_measures

    plain = parse_measures(measures)
    resolved = [m.resolved(1) for m in plain] + [m.resolved(1, judged_only=True) for m in plain]
    run = pl.DataFrame({"system": "s", "qid": ["q1"] * 4 + ["q2"], "docno": ["a", "b", "c", "d", "x"],
                        "score": [4.0, 3.0, 2.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["q1", "q1", "q2"], "docno": ["a", "c", "x"], "rel": [1, 2, 1]})
    calls, real = [], duckdb_engine.register_discounts

    def spy(con, group, *largest):
        calls.append(largest[0] if largest else None)
        return real(con, group, *largest)

    with mock.patch.object(duckdb_engine, "register_discounts", spy):
        got = duckdb_engine.DuckDBEngine().evaluate(run, qrels, resolved, EvalOptions(depth=depth))
    return calls, got


def test_duckdb_engine_registers_pf_discounts_only_for_rbp_measures_once_per_evaluation():
    calls, _ = _discount_registrations(["P@2", "ndcg"])
    assert calls == []
    with pytest.warns(UserWarning, match=r"RBP\(p=0.9\) is not computed"):   # trec_eval: rbp once, p=0.5
        calls, got = _discount_registrations(["rbp", "rbp.p=0.5", "rbp_resid", "P@2"])
    assert calls == [4]  # q1's four documents; the judged-only group counts two
    assert got.filter(pl.col("measure").str.starts_with("rbp"))["value"].is_not_null().all()
    calls, _ = _discount_registrations(["rbp_resid"], depth=3)
    assert calls == [3]


def test_prepare_by_hand_registers_the_default_pf_discounts_that_rbp_sql_reads():
    con = _connection()
    prepare(con, rel_level=1, options=OPTIONS)
    rbp = pf.parse_measures(["rbp"])[0]
    text = load_sql("rbp.sql")
    got = con.sql(text, params={k: v for k, v in rbp.sql_values().items() if k in sql_params(text)}).pl()
    run, qrels = con.sql("SELECT * FROM pf_run").pl(), con.sql("SELECT * FROM pf_qrels").pl()
    assert got["value"].to_list() == pf.evaluate(run, qrels, ["rbp"]).per_query["value"].to_list()
