"""pairedframe inside DuckDB (issue 25): the macros of ``pf.duckdb.register`` / ``pairedframe sql`` run on
the duckdb versions they need and give pf.evaluate's values (every measure, options, summaries, gains).
Their refusals: tests/test_duckdb_macros_errors.py; pf_compare and the DuckDB shell:
tests/test_duckdb_macros_compare.py."""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path

import duckdb
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import PairedFrameError
from pairedframe.measures import parse_measures

sys.path.insert(0, str(Path(__file__).parent))
from measure_grid import every_measure  # noqa: E402
from real_runs import REAL_RUNS  # noqa: E402
from duckdb_macro_helpers import assert_same, evaluate_quietly, str_paths  # noqa: E402,F401
import duckdb_macro_helpers  # noqa: E402

con = duckdb_macro_helpers.con  # the connection fixture, found by pytest by its name


#: Every family with its cutoffs, levels, gains and examples (tests/measure_grid.py), numbers only.
GRID = [m.name for m in every_measure() if m.spec.value_kind == "number"]


@pytest.mark.parametrize("installed", ["1.1.1", "1.3.2", "1.4.1", "v1.4.0", "1.4.1.dev42"])
def test_register_refuses_a_duckdb_older_than_the_macros_need_naming_both_versions_and_the_fix(monkeypatch, installed):
    """An old duckdb is refused before any macro text runs (there it failed to bind or gave wrong values)."""
    from pairedframe import sql_macros

    monkeypatch.setattr(sql_macros, "_duckdb_version", lambda: installed)
    fresh = duckdb.connect()
    with pytest.raises(PairedFrameError,
                       match=re.escape(f'need duckdb >= 1.4.2, but duckdb {installed} is installed') + r".*"
                       + re.escape('pip install -U "duckdb>=1.4.2"')):
        pf.duckdb.register(fresh)
    assert fresh.sql("SELECT count(*) FROM duckdb_functions() WHERE function_name LIKE 'pf%'").fetchall() == [(0,)]


@pytest.mark.parametrize("installed", ["1.4.2", "1.4.4", "1.5.0", "v2.0.1", "2.0.1.dev7", "10.0.0"])
def test_check_duckdb_accepts_the_versions_the_macros_run_on(installed):
    pf.duckdb.check_duckdb(installed)


def test_sql_command_prints_the_script_with_a_warning_when_the_python_duckdb_is_older_than_the_macros_need(monkeypatch):
    """The script runs in another client (the DuckDB shell, R, Java) whose DuckDB may differ from this
    Python's: an old Python duckdb warns on stderr, naming the version the client needs, and the script is
    printed (it was refused)."""
    from typer.testing import CliRunner

    from pairedframe import sql_macros
    from pairedframe.cli import app

    monkeypatch.setattr(sql_macros, "_duckdb_version", lambda: "1.1.1")
    result = CliRunner().invoke(app, ["sql"])
    assert result.exit_code == 0, result.output
    assert result.stdout == sql_macros.script()
    assert "the printed macros need DuckDB >= 1.4.2 in the client that reads them" in result.stderr
    assert "duckdb 1.1.1 is installed" in result.stderr


def test_min_duckdb_is_the_one_the_docs_name():
    need = ".".join(map(str, pf.duckdb.MIN_DUCKDB))
    guide = (Path(__file__).parents[1] / "docs" / "guide" / "duckdb_sql.md").read_text()
    assert f'pip install -U "duckdb>={need}"' in guide
    assert f">= {need}" in (pf.duckdb.register.__doc__ or "")



@pytest.mark.shared_data
@pytest.mark.slow
@pytest.mark.parametrize("qrels", list(REAL_RUNS))
def test_every_measure_through_the_macros_against_evaluate_on_real_runs(con, shared_data, qrels):
    runs = str_paths(shared_data, REAL_RUNS[qrels])
    assert runs
    names = GRID
    if pf.read_qrels(shared_data / qrels)["rel"].max() > 4:  # ir_measures' compat qrels grade 50: ERR refuses, in both
        with pytest.raises(duckdb.Error, match=r"ERR@5 takes grades up to 4 \(as gdeval\), but the qrels have grade 50"):
            con.sql("SELECT * FROM pf_evaluate(?, ?, 'ERR@5')", params=[runs, str(shared_data / qrels)]).fetchall()
        names = [n for n in GRID if not n.startswith("ERR")]
    got = con.sql("SELECT * FROM pf_evaluate(?, ?, ?)", params=[runs, str(shared_data / qrels), names]).pl()
    assert_same(evaluate_quietly(runs, shared_data / qrels, names).per_query, got)


@pytest.mark.shared_data
@pytest.mark.parametrize("options", [
    {"complete": True}, {"depth": 100}, {"rel_level": 2}, {"score_precision": "float32"},
    {"complete": True, "depth": 50, "rel_level": 2},
])
def test_options_through_the_macros_against_evaluate(con, shared_data, options):
    folder = shared_data / "trec_eval"
    runs, qrels = [str(folder / "results.test"), str(folder / "results.trunc")], str(folder / "qrels.rel_level")
    names = ["nDCG@10", "AP", "P@5", "R@100", "Bpref", "RR", "Judged@10", "IPrecAvg", "GMAP", "NumRel",
             "AP(rel=1)", "nDCG(judged_only=True)@10", "RBP(p=0.5)", "infAP", "ERR@5"]
    named = ", ".join(f"{k} := ?" for k in options)
    got = con.sql(f"SELECT * FROM pf_evaluate(?, ?, ?, {named})", params=[runs, qrels, names, *options.values()]).pl()
    assert_same(evaluate_quietly(runs, qrels, names, **options).per_query, got)


@pytest.mark.shared_data
def test_summary_through_the_macros_against_evaluation_summary(con, shared_data):
    folder = shared_data / "trectools_robust03"
    runs = str_paths(shared_data, ["trectools_robust03/runs/input.*.gz"])[:4]
    qrels = str(folder / "qrel" / "robust03_qrels.txt")
    names = ["official", "nDCG@10", "gm_bpref", "FirstRelRank"]
    got = con.sql("SELECT * FROM pf_summary(?, ?, ?, complete := true)", params=[runs, qrels, names]).pl()
    expected = evaluate_quietly(runs, qrels, names, complete=True).summary()
    joined = expected.join(got, on=["system", "measure"], suffix="_sql")
    assert joined.height == expected.height == got.height
    assert (joined["n_queries"] == joined["n_queries_sql"]).all()
    assert ((joined["value"] - joined["value_sql"]).abs() <= 1e-12 * joined["value"].abs().clip(lower_bound=1)).all()


#: The measures trec_eval -c resets on a query a run lacks (num_ret, unj_*, utility and rbp_resid by exact name),
#: their parameterised names (which keep the placeholder ranking's value) and the rest of all_trec.
PLACEHOLDER_NAMES = ["all_trec", "NumRet", "Unjudged@5", "Utility(weights=(1,-1,0,0))", "RBPResid(p=0.9)",
                     "utility.2,-1,0,0", "rbp_resid.p=0.5", "Utility(collection_size=100)", "RBPResid(p=0.5)"]


@pytest.mark.shared_data
@pytest.mark.parametrize("tables", [False, True])
def test_complete_scores_a_query_the_run_lacks_through_the_macros_against_evaluate(con, shared_data, tables):
    """results.trunc lacks the judged query 302: complete := true scores it as pf.evaluate(complete=True)
    (and trec_eval -c) does, num_ret, unj_10, utility and rbp_resid 0 there, per query and in the summary."""
    folder = shared_data / "trec_eval"
    run, qrels = str(folder / "results.trunc"), str(folder / "qrels.test")
    expected = evaluate_quietly(run, qrels, PLACEHOLDER_NAMES, complete=True)
    if tables:
        con.execute(f"CREATE OR REPLACE TEMP TABLE trunc_run AS SELECT * FROM pf_read_run('{run}')")
        con.execute(f"CREATE OR REPLACE TEMP TABLE test_qrels AS SELECT * FROM pf_read_qrels('{qrels}')")
        run, qrels = "trunc_run", "test_qrels"
    named = ", tables := true" if tables else ""
    got = con.sql(f"SELECT * FROM pf_evaluate(?, ?, ?, complete := true{named})", params=[run, qrels, PLACEHOLDER_NAMES]).pl()
    assert_same(expected.per_query, got)
    lacking = dict(got.filter(pl.col("qid") == "302").select("measure", "value").rows())
    assert [lacking[m] for m in ["NumRet", "Utility", "Unjudged@10", "RBPResid(p=0.9)"]] == [0, 0, 0, 0]
    summary = con.sql(f"SELECT * FROM pf_summary(?, ?, ?, complete := true{named})", params=[run, qrels, PLACEHOLDER_NAMES]).pl()
    joined = expected.summary().join(summary, on=["system", "measure"], suffix="_sql")
    assert joined.height == expected.summary().height == summary.height
    assert (joined["n_queries"] == joined["n_queries_sql"]).all()
    assert ((joined["value"] - joined["value_sql"]).abs() <= 1e-12 * joined["value"].abs().clip(lower_bound=1)).all()
    totals = dict(summary.select("measure", "value").rows())
    assert totals["NumRet"] == 584 and totals["Utility"] == pytest.approx(-143.3333, abs=1e-4)  # out.test.aqc


@pytest.mark.shared_data
def test_compare_with_complete_against_compare_of_a_complete_evaluation(con, shared_data):
    """A query one run lacks counts as 0 for it (trec_eval -c), in every measure, as in pf.compare."""
    folder = shared_data / "trec_eval"
    runs, qrels = [str(folder / "results.test"), str(folder / "results.trunc")], str(folder / "qrels.test")
    measures = ["P@10", "AP", "RBP(p=0.9)"]
    got = con.sql("SELECT measure, n, delta FROM pf_compare(?, ?, ?, complete := true, baseline := 'results.test')",
                  params=[runs, qrels, measures]).fetchall()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 3 queries: small-sample warnings; the deltas are the point
        want = pf.compare(evaluate_quietly(runs, qrels, measures, complete=True), baseline="results.test", test="t")
    assert len(got) == 3
    for (measure, n, delta), row in zip(sorted(got), sorted(want.select("measure", "n_queries", "delta").rows())):
        assert (measure, n) == row[:2] and delta == pytest.approx(row[2], rel=1e-12, abs=1e-15)
    assert len({n for _, n, _ in got}) == 1  # every measure over the same queries: the lacking ones count as 0


def test_tables_through_the_macros_against_evaluate(con):
    run = pl.DataFrame({"system": ["a"] * 4 + ["b"] * 3, "qid": ["1", "1", "1", "2", "1", "1", "2"],
                        "docno": ["x", "y", "z", "x", "y", "x", "w"], "score": [3.0, 2.0, 2.0, 1.0, 5.0, 4.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["x", "z", "x", "v"], "rel": [1, 2, 1, 0]})
    con.register("my_run", run)
    con.register("my_qrels", qrels)
    got = con.sql("SELECT * FROM pf_evaluate('my_run', 'my_qrels', ['nDCG@10', 'AP', 'P@2'], tables := true)").pl()
    assert_same(evaluate_quietly(run, qrels, ["nDCG@10", "AP", "P@2"]).per_query, got)


NAMES = ["nDCG@10", "AP(rel=2)", "ndcg_cut.10", "ndcg_cut.10,20", "P", "P.5,10", "map", "map_cut.5,100", "official",
         "all_trec", "set", "RBP(p=0.9)", "rbp", "rbp.p=0.95,1=2", "rbp_resid.p=0.5", "utility.2,-1,0,0",
         "Utility(weights=(1,-1,-0.5,0.1),collection_size=500)", "11pt_avg..25,.5,.75", "IPrecAvg(levels=(0.25,0.5,0.75))",
         "iprec_at_recall..35,.5", "IPrec@0.25", "Rprec_mult.5.0,0.35", "RprecMult@3", "ndcg.1=3,2=9,4=4.5",
         "nDCG(gains={1:3,2:9,4:4.5})", "nDCG(dcg='exp-log2', judged_only=True)@10", "nDCG@10(judged_only=True)",
         "G.0=2,1=1", "set_F.2", "SetF(beta=0.5)", "success.2,5", "recall_100", "NumRet(rel=2)", "judged", "Judged@10",
         "ERR@20", "mrr", "r_prec", "num_q", "unj", "RBP(gains={0:-1})", "bpref", "gm_bpref", "infAP", "binG", "Rndcg"]


@pytest.mark.parametrize("rel_level", [1, 2])
def test_measure_names_against_parse_measure(con, rel_level):
    for name in NAMES:
        expected = list(dict.fromkeys(m.resolved(rel_level).name for m in parse_measures(name)
                                      if m.spec.value_kind == "number"))
        got = con.sql("SELECT [m['name'] FOR m IN pf_measures(?, rel_level := ?)]", params=[name, rel_level]).fetchall()[0][0]
        assert got == expected, name


#: Names whose -c reset hangs on the exact trec_eval name: bare, with parameters, ir_measures style, defaults.
RESET_NAMES = ["utility", "utility.1,-1,0,0", "utility.2,-1,0,0", "Utility", "Utility(weights=(1,-1,0,0))",
               "Utility(collection_size=100)", "Utility(rel=2)", "rbp_resid", "rbp_resid.p=0.9", "rbp_resid.p=0.5",
               "RBPResid", "RBPResid(p=0.9)", "RBPResid(p=0.9,judged_only=True)", "num_ret", "NumRet(rel=2)", "unj",
               "Unjudged@7", "rbp", "RBP(p=0.9)"]


@pytest.mark.parametrize("rel_level", [1, 2])
def test_placeholder_zero_of_pf_measures_against_complete_resets(con, rel_level):
    """pf_measures' placeholder_zero (what complete := true sets to 0) is pf.evaluate's clean-up rule,
    both read from Family.complete_reset, on every grid name and the names it hangs on."""
    from pairedframe.evaluation.judgments import complete_resets

    flagged = 0
    for names in [GRID, *([name] for name in RESET_NAMES)]:  # one by one where a trec_eval label decides
        expected = {m.resolved(rel_level).name: complete_resets(m) for m in parse_measures(names)
                    if m.spec.value_kind == "number"}
        got = con.sql("SELECT [(m['name'], m['placeholder_zero']) FOR m IN pf_measures(?, rel_level := ?)]",
                      params=[names, rel_level]).fetchall()[0][0]
        assert dict(got) == expected, names
        flagged += sum(expected.values())
    assert flagged >= 10  # both sides of the rule are met


#: Gain maps of every kind: the grade, 'exp' (inf from grade 1024 on, in both), explicit entries (one in the
#: billions, one beyond the largest grade, a negative gain) and measures without a gain.
GAIN_NAMES = ["nDCG@10", "nDCG(dcg='exp-log2')", "nDCG(gains={1:3,2:9})", "RBP(gains={0:-1,7:2})",
              "nDCG(gains={3000000000:1.5,0:4})", "RBP(gains={1:0.5})", "Rndcg", "P@10"]
#: Grade sets: none, only negative (unjudged), huge, around exp's overflow, and gaps around the entries.
SYNTHETIC_GRADES = [[], [-1, -2], [0, 1, 2, 3], [3000000000, 0, 1, -5], [2000, 1023, 1024, 5], [8, 6, 7], [2**62]]


def _gains_by_measure(table: pl.DataFrame, keys: dict[str, str]) -> pl.DataFrame:
    """A gain table's rows by measure name (the two sides spell a gain map's key differently)."""
    names = pl.DataFrame({"measure": list(keys), "gain_map": list(keys.values())})
    return names.join(table, on="gain_map").drop("gain_map").sort("measure", "rel")


@pytest.mark.shared_data
@pytest.mark.parametrize("grades", [*SYNTHETIC_GRADES, "trec_eval/qrels.rel_level", "dl_mia/qrels.txt",
                                    "syndl/TREC-DLs-files/TREC-DL-2019/qrels-pass.txt"])
def test_gain_table_of_the_macros_against_gain_table(con, shared_data, grades):
    """pf_gains as the macros build it in DuckDB (pf__parameter_tables_sql) lists the grades, gains and
    explicit flags of measures.gains.gain_table, on real and synthetic grade sets. Two codes for one rule:
    the macros compute it in-engine from the qrels table, with no Python to call (the DuckDB shell runs them)."""
    from pairedframe.measures.gains import gain_keys, gain_table

    if isinstance(grades, str):
        grades = pf.read_qrels(shared_data / grades)["rel"].unique().to_list()
    ms = parse_measures(GAIN_NAMES)
    expected = _gains_by_measure(gain_table(gain_keys(ms), grades),
                                 {m.name: m.gain_key if m.spec.uses_gain else "" for m in ms})
    text, keys = con.sql("SELECT pf__parameter_tables_sql(ms), map_from_entries([(m['name'], pf__gain_key(m)) FOR m IN ms]) "
                         "FROM (SELECT pf_measures(?) AS ms)", params=[GAIN_NAMES]).fetchall()[0]
    con.execute("CREATE OR REPLACE TEMP TABLE gain_grades AS SELECT CAST(unnest(?) AS BIGINT) AS rel", [grades])
    got = con.sql(f"WITH pf_qrels AS (SELECT 'q' AS qid, 'd' AS docno, rel FROM gain_grades), {text} "
                  "SELECT gain_map, rel, gain, explicit FROM pf_gains").pl()
    got = _gains_by_measure(got, keys)
    assert expected.height > len(GAIN_NAMES) and got.equals(expected), (expected, got)


def test_infinite_scores_through_the_macros_against_evaluate(con, tmp_path):
    """Log-probabilities of -inf, 'Infinity' and an overflowing 1e400 rank as pf.evaluate ranks them."""
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 -inf t\nq1 Q0 d2 2 Infinity t\nq1 Q0 d3 3 1e400 t\n"
                                      "q1 Q0 d4 4 -1.5 t\nq1 Q0 d5 5 -inf t\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq1 0 d3 0\nq1 0 d4 2\nq1 0 d5 1\n")
    run, qrels = str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt")
    measures = ["AP", "nDCG@3", "P@2", "RR"]
    want = sorted(pf.evaluate(run, qrels, measures).per_query.select("measure", "value").rows())
    got = sorted(con.sql(f"SELECT measure, value FROM pf_evaluate(?, ?, {measures!r})",
                         params=[run, qrels]).fetchall())
    assert got == want and len(got) == 4


def test_discount_table_of_the_macros_against_discount_table(con):
    """pf_discounts as the macros build it (a recursive CTE, no Python to call) holds discount_table's
    p**k bit for bit: repeated products for each distinct p, k up to the largest ranking (here 3000)."""
    from pairedframe.measures.gains import discount_table

    names = ["rbp", "RBP(p=0.5)@5", "rbp_resid.p=0.95", "RBP", "RBPResid(p=0.9)", "nDCG@10"]
    text = con.sql("SELECT pf__parameter_tables_sql(pf_measures(?))", params=[names]).fetchall()[0][0]
    got = con.sql("WITH pf_qrels AS (SELECT 'q' AS qid, 'd' AS docno, 1 AS rel), "
                  f"pf_retrieved AS (SELECT 's' AS system, 'q' AS qid, 3000 AS n), {text} "
                  "SELECT p, k, d FROM pf_discounts ORDER BY p, k").pl()
    assert got.equals(discount_table(parse_measures(names), 3000).sort("p", "k"))


@pytest.mark.shared_data
@pytest.mark.parametrize("options", [{}, {"complete": True, "depth": 50}])
def test_rbp_and_residual_through_the_macros_against_evaluate(con, shared_data, options):
    """RBP and RBPResid through the macros equal pf.evaluate bit for bit (trec_eval's values: p**k by
    repeated products, the residual's unjudged ranks added in rank order)."""
    folder = shared_data / "trec_eval"
    runs, qrels = [str(folder / "results.test"), str(folder / "results.trunc")], str(folder / "qrels.test")
    names = ["rbp", "rbp_resid", "RBP(p=0.95,rel=2)@20", "RBPResid(p=0.5)", "RBP(gains={1:3})"]
    named = "".join(f", {k} := ?" for k in options)
    got = con.sql(f"SELECT * FROM pf_evaluate(?, ?, ?{named})", params=[runs, qrels, names, *options.values()]).pl()
    assert_same(evaluate_quietly(runs, qrels, names, **options).per_query, got)


def test_rbp_and_residual_of_the_min_case_through_the_macros_against_trec_eval(con, tmp_path):
    """trec_eval 10 (f425365, printing with %.17g): ``trec_eval -q -m rbp -m rbp_resid min.qrels min.run``
    on these files; its 4-decimal ``rbp_resid all`` reads 0.7876 (the geometric series minus the judged
    ranks gave 0.7875)."""
    (tmp_path / "min.qrels").write_text("2 0 d_1 0\n2 0 D2 3\n7 0 d3 1\n7 0 d2 3\n7 0 d10 3\n")
    (tmp_path / "min.run").write_text("".join(f"{q} Q0 {d} {i % 4 + 1} {4 - i % 4} t\n" for i, (q, d) in enumerate(
        [("2", "f"), ("2", "d_1"), ("2", "D2"), ("2", "d1"), ("7", "d3"), ("7", "d100"), ("7", "d2"), ("7", "d10")])))
    args = [str(tmp_path / "min.run"), str(tmp_path / "min.qrels"), ["rbp", "rbp_resid"]]
    got = {(q, m): v for _, q, m, v in con.sql("SELECT * FROM pf_evaluate(?, ?, ?)", params=args).fetchall()}
    assert got == {("2", "RBP(p=0.9)"): float("0.080999999999999989"), ("7", "RBP(p=0.9)"): float("0.18723333333333331"),
                   ("2", "RBPResid(p=0.9)"): float("0.82900000000000007"), ("7", "RBPResid(p=0.9)"): float("0.7461000000000001")}
    summary = {m: v for _, m, v, _ in con.sql("SELECT * FROM pf_summary(?, ?, ?)", params=args).fetchall()}
    assert summary["RBPResid(p=0.9)"] == float("0.78755000000000008")


def _run_without_judged_query(con, tmp_path, tables):
    """Runs a (queries 1, 2: judged) and b (query 9 only: not in the qrels) with the qrels, as tables or files;
    returns (run, qrels, the macros' first two arguments as SQL)."""
    run = pl.DataFrame({"system": ["a"] * 3 + ["b"] * 2, "qid": ["1", "1", "2", "9", "9"],
                        "docno": ["x", "y", "x", "x", "y"], "score": [3.0, 2.0, 1.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["1", "1", "2"], "docno": ["x", "y", "x"], "rel": [1, 0, 1]})
    if tables:
        con.register("my_run", run)
        con.register("my_qrels", qrels)
        return run, qrels, "'my_run', 'my_qrels'"
    paths = []
    for name in ("a", "b"):
        path = tmp_path / name
        run.filter(pl.col("system") == name).select("qid", pl.lit("Q0").alias("q0"), "docno", pl.lit(1).alias("rank"),
                                                     "score", "system").write_csv(path, separator=" ", include_header=False)
        paths.append(str(path))
    qrels.select("qid", pl.lit("0").alias("iteration"), "docno", "rel").write_csv(tmp_path / "qrels", separator=" ", include_header=False)
    return run, qrels, f"{paths}, '{tmp_path / 'qrels'}'"


@pytest.mark.parametrize("tables", [False, True])
def test_summary_keeps_a_run_with_no_query_in_the_qrels_against_evaluate(con, tmp_path, tables):
    """pf.evaluate leaves such a run out with a PartlyEmptyWarning; pf_summary dropped it without a trace. It
    keeps its rows now, value NULL and n_queries 0; the other run's rows are Evaluation.summary()'s."""
    run, qrels, args = _run_without_judged_query(con, tmp_path, tables)
    measures = ["AP", "P@5", "num_ret"]
    with pytest.warns(pf.errors.PartlyEmptyWarning, match=r"left out of the result: \['b'\]"):
        want = pf.evaluate(run, qrels, measures).summary()
    got = con.sql(f"SELECT * FROM pf_summary({args}, {measures}{', tables := true' if tables else ''})").pl()
    assert got.filter(pl.col("system") == "a").drop("value").equals(want.drop("value"))
    assert got.filter(pl.col("system") == "a")["value"].to_list() == pytest.approx(want["value"].to_list(), rel=1e-12)
    empty = got.filter(pl.col("system") == "b")
    assert empty["measure"].to_list() == want["measure"].to_list()
    assert empty["value"].is_null().all() and (empty["n_queries"] == 0).all()


@pytest.mark.parametrize("tables", [False, True])
@pytest.mark.parametrize("complete", [False, True])
def test_per_query_rows_of_a_run_with_no_query_in_the_qrels_against_evaluate(con, tmp_path, tables, complete):
    """pf_evaluate's rows are pf.evaluate(...).per_query's: a run with no judged query has none (trec_eval
    skips every query not in the qrels and prints no line for it; pf_summary's NULL row is the summary's
    only trace of such a run), and with complete := true one row per judged query, scored as -c scores it."""
    run, qrels, args = _run_without_judged_query(con, tmp_path, tables)
    measures = ["AP", "P@5", "num_ret", "utility"]
    with pytest.warns(pf.errors.PartlyEmptyWarning, match=r"\['b'\]"):
        want = pf.evaluate(run, qrels, measures, complete=complete).per_query.sort("system", "qid", "measure")
    options = (", tables := true" if tables else "") + (", complete := true" if complete else "")
    got = con.sql(f"SELECT * FROM pf_evaluate({args}, {measures}{options})").pl().sort("system", "qid", "measure")
    assert got.drop("value").equals(want.drop("value"))
    assert got["value"].to_list() == pytest.approx(want["value"].to_list(), rel=1e-12)
    assert ("b" in got["system"].to_list()) == complete
