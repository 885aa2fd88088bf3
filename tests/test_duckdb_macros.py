"""pairedframe inside DuckDB (issue 25): the macros of ``pf.duckdb.register`` / ``pairedframe sql``
give pf.evaluate's values, parse the names pf.evaluate parses, and refuse what the readers refuse."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import duckdb
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import PairedFrameError
from pairedframe.measures import parse_measure, parse_measures

sys.path.insert(0, str(Path(__file__).parent))
from measure_grid import every_measure  # noqa: E402
from real_runs import REAL_RUNS, run_paths  # noqa: E402

#: Every family with its cutoffs, levels, gains and examples (tests/measure_grid.py), numbers only.
GRID = [m.name for m in every_measure() if m.spec.value_kind == "number"]
KEYS = ["system", "qid", "measure"]


def _macros_run_here() -> bool:
    try:
        pf.duckdb.check_duckdb()
    except PairedFrameError:
        return False
    return True


#: The macros need duckdb >= MIN_DUCKDB (the lowest-versions CI run has an older one: it checks the refusal).
NEED = ".".join(map(str, pf.duckdb.MIN_DUCKDB))
needs_macros = pytest.mark.skipif(not _macros_run_here(),
                                  reason=f"the DuckDB macros need duckdb >= {NEED}, installed {duckdb.__version__}")


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    if not _macros_run_here():
        pytest.skip(f"the DuckDB macros need duckdb >= {NEED}, installed {duckdb.__version__}")
    return pf.duckdb.register(duckdb.connect())


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


def _evaluate(*args, **kwargs) -> pf.Evaluation:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # partly empty runs and levels above the grades warn; values are the point
        return pf.evaluate(*args, **kwargs)


def _assert_same(expected: pl.DataFrame, got: pl.DataFrame) -> None:
    """Same rows and values bit for bit (both run the measure files of sql/ on DuckDB, sums in rank order)."""
    joined = expected.join(got, on=KEYS, how="full", suffix="_sql", coalesce=True)
    missing = joined.filter(pl.col("value").is_null() != pl.col("value_sql").is_null())
    assert expected.height == got.height and missing.height == 0, missing.head()
    differ = joined.filter(pl.col("value") != pl.col("value_sql"))
    assert differ.height == 0, differ.head()


def _str_paths(shared_data: Path, globs: list[str]) -> list[str]:
    return [str(p) for p in run_paths(shared_data, globs)]


@pytest.mark.shared_data
@pytest.mark.slow
@pytest.mark.parametrize("qrels", list(REAL_RUNS))
def test_every_measure_through_the_macros_against_evaluate_on_real_runs(con, shared_data, qrels):
    runs = _str_paths(shared_data, REAL_RUNS[qrels])
    assert runs
    names = GRID
    if pf.read_qrels(shared_data / qrels)["rel"].max() > 4:  # ir_measures' compat qrels grade 50: ERR refuses, in both
        with pytest.raises(duckdb.Error, match=r"ERR@5 takes grades up to 4 \(as gdeval\), but the qrels have grade 50"):
            con.sql("SELECT * FROM pf_evaluate(?, ?, 'ERR@5')", params=[runs, str(shared_data / qrels)]).fetchall()
        names = [n for n in GRID if not n.startswith("ERR")]
    got = con.sql("SELECT * FROM pf_evaluate(?, ?, ?)", params=[runs, str(shared_data / qrels), names]).pl()
    _assert_same(_evaluate(runs, shared_data / qrels, names).per_query, got)


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
    _assert_same(_evaluate(runs, qrels, names, **options).per_query, got)


@pytest.mark.shared_data
def test_summary_through_the_macros_against_evaluation_summary(con, shared_data):
    folder = shared_data / "trectools_robust03"
    runs = _str_paths(shared_data, ["trectools_robust03/runs/input.*.gz"])[:4]
    qrels = str(folder / "qrel" / "robust03_qrels.txt")
    names = ["official", "nDCG@10", "gm_bpref", "FirstRelRank"]
    got = con.sql("SELECT * FROM pf_summary(?, ?, ?, complete := true)", params=[runs, qrels, names]).pl()
    expected = _evaluate(runs, qrels, names, complete=True).summary()
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
    expected = _evaluate(run, qrels, PLACEHOLDER_NAMES, complete=True)
    if tables:
        con.execute(f"CREATE OR REPLACE TEMP TABLE trunc_run AS SELECT * FROM pf_read_run('{run}')")
        con.execute(f"CREATE OR REPLACE TEMP TABLE test_qrels AS SELECT * FROM pf_read_qrels('{qrels}')")
        run, qrels = "trunc_run", "test_qrels"
    named = ", tables := true" if tables else ""
    got = con.sql(f"SELECT * FROM pf_evaluate(?, ?, ?, complete := true{named})", params=[run, qrels, PLACEHOLDER_NAMES]).pl()
    _assert_same(expected.per_query, got)
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
        want = pf.compare(_evaluate(runs, qrels, measures, complete=True), baseline="results.test", test="t")
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
    _assert_same(_evaluate(run, qrels, ["nDCG@10", "AP", "P@2"]).per_query, got)


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


RUN_OK = "301 Q0 d1 1 2.5 tag\n301 Q0 d2 2 1.5 tag\n"
QRELS_OK = "301 0 d1 1\n301 0 d2 0\n"


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


@pytest.mark.parametrize("text", ["recip_rank_cut.10", "recip_rank_cut", "err_20", "err.5,10", "err.", "judged_10",
                                  "first_rel_rank.x", "top_grade_rank_5"])
def test_trec_eval_style_names_trec_eval_lacks_through_the_macros_against_parse_measure(con, text):
    with pytest.raises(pf.errors.UnknownMeasureError) as want:
        parse_measure(text)
    with pytest.raises(duckdb.Error) as got:
        con.sql("SELECT pf_measures(?)", params=[text]).fetchall()
    assert str(got.value).endswith(str(want.value))


@pytest.mark.parametrize("text", ["ndcg.1=3,1=9", "nDCG(gains={1:3,1:9})", "ndcg.1=3,01=9", "G.2=1,1=3,2=9",
                                  "nDCG(gains={2:1,1:3,2:9,1:4})@10", "rbp.p=0.8,1=3,1=4", "rbp_resid.1=3,1=4",
                                  "RBP(gains={0:1,0:2})"])
def test_a_grade_given_twice_in_gains_through_the_macros_against_parse_measure(con, text):
    """pf_measures kept the later gain of ndcg.1=3,1=9 and both of nDCG(gains={1:3,1:9}) (a third value)."""
    with pytest.raises(pf.errors.UnknownMeasureError) as want:
        parse_measure(text)
    with pytest.raises(duckdb.Error) as got:
        con.sql("SELECT pf_measures(?)", params=[text]).fetchall()
    assert "duplicate grade" in str(want.value) and str(got.value).endswith(str(want.value))


@pytest.mark.parametrize("text", ["ndcg.1=inf", "ndcg.1=nan", "ndcg.01=-INFINITY", "ndcg.1=1e999", "iprec_at_recall.inf",
                                  "iprec_at_recall_NaN", "utility.inf,-1,0,0", "set_F.nan", "rbp.p=inf",
                                  "rbp_resid.p=Infinity", "Rprec_mult.0.5,inf", "11pt_avg.+nan", "relstring.inf",
                                  "G.1=3,2=-inf"])
def test_a_parameter_spelled_inf_or_nan_through_the_macros_against_parse_measure(con, text):
    """The macros' atof read inf and nan as 0 (ndcg.1=inf: gain 0; set_F.nan: SetF(beta=0.0))."""
    with pytest.raises(pf.errors.UnknownMeasureError) as want:
        parse_measure(text)
    with pytest.raises(duckdb.Error) as got:
        con.sql("SELECT pf_measures(?)", params=[text]).fetchall()
    assert "is not a finite number" in str(want.value) and str(got.value).endswith(str(want.value))


@pytest.mark.parametrize("text", ["P.5,P.10", "P.", "ndcg_cut.10,,20", "map_cut.inf", "recall.10,R@5", "success.x"])
def test_a_cutoff_list_item_that_is_no_number_through_the_macros_against_parse_measure(con, text):
    """pf_measures called P.5,P.10 "cutoff=0 is out of range", a number never written."""
    with pytest.raises(pf.errors.UnknownMeasureError) as want:
        parse_measure(text)
    with pytest.raises(duckdb.Error) as got:
        con.sql("SELECT pf_measures(?)", params=[text]).fetchall()
    assert "cutoff=0" not in str(want.value) and str(got.value).endswith(str(want.value))


@pytest.mark.parametrize("text", ["relstring.x", "ndcg.1=abc", "ndcg_rel.1=3,2=", "G.1=x", "rbp.p=abc", "rbp_resid.p=q",
                                  "utility.1,x,0,0", "set_F.x", "iprec_at_recall.x", "11pt_avg..25,y", "Rprec_mult.x",
                                  "ndcg.1=0x10", "set_F.0x1p3", "rbp.p=0x.8"])
def test_a_parameter_that_is_no_number_through_the_macros_against_parse_measure(con, text):
    """The macros' atof read ndcg.1=abc as gain 0 and relstring.x as "cutoff=0", never written."""
    with pytest.raises(pf.errors.UnknownMeasureError) as want:
        parse_measure(text)
    with pytest.raises(duckdb.Error) as got:
        con.sql("SELECT pf_measures(?)", params=[text]).fetchall()
    assert "cutoff=0" not in str(want.value) and str(got.value).endswith(str(want.value))


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


def _duckdb_shell() -> str:
    found = shutil.which("duckdb") or str(Path(sys.executable).parent / "duckdb")
    if not Path(found).is_file():
        pytest.skip("the DuckDB shell is not installed (pip install duckdb-cli, the [test] extra)")
    return found


@pytest.mark.shared_data
def test_duckdb_shell_reads_the_script_against_evaluate(tmp_path, shared_data):
    shell = _duckdb_shell()
    script = tmp_path / "pairedframe.sql"
    done = subprocess.run([sys.executable, "-m", "pairedframe.cli", "sql"], capture_output=True, text=True)
    if done.returncode != 0:  # the console script's module has no __main__: call the command's function
        from pairedframe.sql_macros import script as text
        script.write_text(text())
    else:
        script.write_text(done.stdout)
    folder = shared_data / "trec_eval"
    runs = [str(folder / "results.test"), str(folder / "results.trunc")]
    names = ["nDCG@10", "AP", "P@5", "Bpref", "RBP(p=0.9)", "ndcg_cut.20", "utility.2,-1,0,0", "IPrecAvg", "GMAP"]
    out = tmp_path / "values.csv"
    query = (f"COPY (SELECT * FROM pf_evaluate({runs!r}, '{folder / 'qrels.test'}', {names!r})) TO '{out}' "
             "(HEADER, DELIMITER ',')")
    done = subprocess.run([shell, "-c", f".read {script}", "-c", query], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    got = pl.read_csv(out, schema={"system": pl.String, "qid": pl.String, "measure": pl.String, "value": pl.Float64})
    _assert_same(_evaluate(runs, folder / "qrels.test", names).per_query, got)



def test_duckdb_shell_names_a_missing_baseline_and_an_unsupported_confidence_level(tmp_path):
    """In the DuckDB 1.5 shell these two checks of pf_compare came out as 'syntax error at or near
    "NULL"' (Python's duckdb gave the messages): each error names its problem there too."""
    from pairedframe.example import example_paths
    from pairedframe.sql_macros import script as text

    shell = _duckdb_shell()
    script = tmp_path / "pairedframe.sql"
    script.write_text(text())
    qrels, runs = example_paths()
    call = f"SELECT * FROM pf_compare({[str(r) for r in runs]!r}, '{qrels}', ['nDCG@10']"
    expected = {"": "pf_compare: give the baseline system, e.g. baseline := 'bm25'",
                ", baseline := 'bm25', confidence_level := 0.93":
                    "pf_compare: confidence_level must be one of 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999 "
                    "(t quantiles are shipped for these), got 0.93",
                ", baseline := 'nope'": "pf_compare: baseline 'nope' is not one of the systems"}
    for options, message in expected.items():
        done = subprocess.run([shell, "-c", f".read {script}", "-c", call + options + ")"], capture_output=True,
                              text=True, timeout=600)
        assert message in done.stderr + done.stdout, (options, done.stderr)
        assert "Parser Error" not in done.stderr
    done = subprocess.run([shell, "-csv", "-c", f".read {script}", "-c", call + ", baseline := 'bm25', "
                           "confidence_level := 0.9)"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].endswith(",0.9")      # the last column: the level asked for

@needs_macros
def test_readme_duckdb_lines_against_compare():
    """README's DuckDB lines (register, then a pf_compare query), run on the bundled example: the
    macros' paired t-test equals pf.compare(test="t") on pf.evaluate's values."""
    import re

    from pairedframe.example import example_paths

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    block = readme[readme.rindex("```python", 0, readme.index("pf.duckdb.register(")):]
    block = block[:block.index("```", len("```python"))]
    assert "con = pf.duckdb.register(duckdb.connect())" in block
    text = re.search(r'con\.sql\(f"""(.*?)"""\)', block, re.S).group(1)
    qrels, runs = example_paths()
    query = eval('f"""' + text + '"""', {"runs": runs, "qrels": qrels})   # the f-string README shows
    con = pf.duckdb.register(duckdb.connect())   # kept: DuckDB before 1.5 closes a connection no name holds
    got = con.sql(query).pl()
    want = pf.compare(pf.evaluate(runs, qrels, ["nDCG@10", "AP"]), baseline="bm25", test="t")
    assert got.height == want.height == 2
    for row in got.iter_rows(named=True):
        ref = want.filter((pl.col("system") == row["system"]) & (pl.col("measure") == row["measure"])).row(0, named=True)
        assert row["delta"] == pytest.approx(ref["delta"], rel=1e-12)
        assert row["pvalue"] == pytest.approx(ref["pvalue"], rel=1e-9)


@pytest.mark.shared_data
@pytest.mark.parametrize("confidence_level", [0.95, 0.99])
def test_compare_through_the_macros_against_scipy(con, shared_data, confidence_level):
    from scipy import stats

    runs = _str_paths(shared_data, ["trectools_robust03/runs/input.*.gz"])[:3]
    qrels = str(shared_data / "trectools_robust03" / "qrel" / "robust03_qrels.txt")
    got = con.sql("SELECT * FROM pf_compare(?, ?, ['nDCG@10', 'AP', 'P@10'], baseline := 'InexpC2', confidence_level := ?)",
                  params=[runs, qrels, confidence_level]).pl()
    wide = _evaluate(runs, qrels, ["nDCG@10", "AP", "P@10"]).per_query.pivot(on="system", index=["qid", "measure"],
                                                                               values="value")
    assert got.height == 6
    for row in got.iter_rows(named=True):
        pairs = wide.filter(pl.col("measure") == row["measure"]).drop_nulls([row["system"], "InexpC2"])
        d = (pairs[row["system"]] - pairs["InexpC2"]).to_numpy()
        expected = stats.ttest_1samp(d, 0.0)
        ci = expected.confidence_interval(confidence_level)
        assert row["n"] == len(d) and row["df"] == len(d) - 1
        assert row["delta"] == pytest.approx(d.mean(), rel=1e-12, abs=1e-15)
        assert row["t"] == pytest.approx(expected.statistic, rel=1e-10)
        assert row["pvalue"] == pytest.approx(expected.pvalue, rel=1e-10)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-10, abs=1e-14)


@needs_macros
def test_t_quantiles_shipped_in_the_script_against_scipy():
    from scipy.special import stdtrit

    from pairedframe.sql_macros import CONFIDENCE_LEVELS, T_TABLE_DF, script

    con = duckdb.connect()
    con.execute(script())
    for level in CONFIDENCE_LEVELS:
        table = con.sql(f"SELECT pf__t_quantiles({level})").fetchall()[0][0]
        assert len(table) == T_TABLE_DF and table[9] == stdtrit(10, 0.5 + level / 2)
        hill = con.sql(f"SELECT pf__hill_sql({level})").fetchall()[0][0]
        for df in (T_TABLE_DF + 1, 2000, 7000, 10**6):
            value = con.sql(f"SELECT {hill} FROM (SELECT {df} AS df) t").fetchall()[0][0]
            assert value == pytest.approx(stdtrit(df, 0.5 + level / 2), rel=5e-14)


def test_compare_of_identical_runs_and_bad_options_through_the_macros(con, tmp_path):
    (tmp_path / "a.txt").write_text(RUN_OK)
    (tmp_path / "b.txt").write_text(RUN_OK)
    (tmp_path / "qrels.txt").write_text(QRELS_OK + "302 0 d1 1\n")
    (tmp_path / "a.txt").write_text(RUN_OK + "302 Q0 d1 1 1.0 tag\n")
    (tmp_path / "b.txt").write_text(RUN_OK + "302 Q0 d1 1 1.0 tag\n")
    runs = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    row = con.sql("SELECT t, pvalue, ci_low, ci_high FROM pf_compare(?, ?, 'AP', baseline := 'a.txt')",
                  params=[runs, str(tmp_path / "qrels.txt")]).fetchall()
    share = 1 - 0.025 ** 0.5     # zero spread, n = 2: p = 1, the range of means two deltas of 0 allow (AP in [0, 1])
    assert row == [(0.0, 1.0, pytest.approx(-share, rel=1e-12), pytest.approx(share, rel=1e-12))]
    six = "".join(f"3{i:02d} 0 d1 1\n3{i:02d} 0 d2 0\n" for i in range(6))
    (tmp_path / "qrels6.txt").write_text(six)
    (tmp_path / "a.txt").write_text("".join(f"3{i:02d} Q0 d2 1 2 t\n3{i:02d} Q0 d1 2 1 t\n" for i in range(6)))
    (tmp_path / "b.txt").write_text("".join(f"3{i:02d} Q0 d1 1 2 t\n3{i:02d} Q0 d2 2 1 t\n" for i in range(6)))
    row = con.sql("SELECT delta, pvalue, ci_low, ci_high FROM pf_compare(?, ?, 'RR', baseline := 'a.txt')",
                  params=[runs, str(tmp_path / "qrels6.txt")]).fetchall()
    share = 1 - 0.025 ** (1 / 6)     # six equal deltas: significant, never a point (RR in [0, 1])
    assert row == [(0.5, 2.0 ** -5, pytest.approx(0.5 - share * 1.5, rel=1e-12), pytest.approx(0.5 + share * 0.5, rel=1e-12))]
    with pytest.raises(duckdb.Error, match=r"baseline 'c.txt' is not one of the systems"):
        con.sql("SELECT * FROM pf_compare(?, ?, 'AP', baseline := 'c.txt')", params=[runs, str(tmp_path / "qrels.txt")]).fetchall()
    for level in ("0.97", "'x'"):    # 'x': no conversion error of DuckDB's own (a CAST folded before the check)
        with pytest.raises(duckdb.Error, match=r"confidence_level must be one of 0.8, 0.9, 0.95"):
            con.sql(f"SELECT * FROM pf_compare(?, ?, 'AP', baseline := 'a.txt', confidence_level := {level})",
                    params=[runs, str(tmp_path / "qrels.txt")]).fetchall()


@pytest.mark.parametrize("gain", [True, False])
def test_zero_spread_through_the_macros_against_compare_test_t_and_paired_t_test(con, tmp_path, gain):
    """Six queries whose deltas are all equal (RR +0.5 each, or all 0): pf_compare, pf.compare(test="t") and
    paired_t_test give one answer -- the exact sign-flip p, t = inf / 0 and the range of means six equal deltas
    allow (the macro gave the whole line, paired_t_test the point [0.5, 0.5]); a measure with no known range
    (NumRelRet) keeps the whole line."""
    from pairedframe.stats.ttest import paired_t_test

    (tmp_path / "q.txt").write_text("".join(f"3{i:02d} 0 d1 1\n3{i:02d} 0 d2 0\n" for i in range(6)))
    (tmp_path / "a.txt").write_text("".join(f"3{i:02d} Q0 d2 1 2 t\n3{i:02d} Q0 d1 2 1 t\n" for i in range(6)))
    (tmp_path / "b.txt").write_text("".join(f"3{i:02d} Q0 d1 1 2 t\n3{i:02d} Q0 d2 2 1 t\n" for i in range(6))
                                    if gain else (tmp_path / "a.txt").read_text())
    runs, qrels = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")], str(tmp_path / "q.txt")
    got = con.sql("SELECT measure, delta, t, pvalue, ci_low, ci_high FROM pf_compare(?, ?, ['RR', 'NumRelRet'], "
                  "baseline := 'a.txt')", params=[runs, qrels]).fetchall()
    ev = pf.evaluate(runs, qrels, ["RR", "NumRelRet"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = pf.compare(ev, baseline="a.txt", test="t", measures=["RR"])
    d = ev.per_query.filter(pl.col("measure") == "RR").pivot("system", index="qid", values="value")
    tt = paired_t_test((d["b.txt"] - d["a.txt"]).to_numpy(), delta_range=(-1, 1))
    (_, delta, t, p, low, high), (_, _, t0, p0, low0, high0) = got
    assert (delta, p) == (want["delta"][0], want["pvalue"][0]) == (tt.statistic, tt.pvalue)
    assert (low, high) == pytest.approx((want["ci_low"][0], want["ci_high"][0]), rel=1e-12)
    assert (low, high) == pytest.approx(tuple(tt.confidence_interval), rel=1e-12)
    assert low < delta < high and t == tt.t == (math.inf if gain else 0.0)
    assert (t0, p0, low0, high0) == (0.0, 1.0, float("-inf"), float("inf"))


def test_compare_through_the_macros_refuses_fewer_than_two_common_queries_like_compare(con, tmp_path):
    """A system sharing fewer than 2 queries with the baseline is an error naming the pair and the
    count, where pf.compare raises too: never rows dropped in silence, nor an empty result."""
    qrels = "".join(f"q{i} 0 d{j} {int(j == i % 3)}\n" for i in range(5) for j in range(3)) + "q5 0 d0 1\n"
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "a.txt").write_text("".join(f"q{i} Q0 d{j} {j} {3 - j} a\n" for i in range(5) for j in range(3)))
    (tmp_path / "b.txt").write_text("".join(f"q{i} Q0 d{j} {j} {j} b\n" for i in range(5) for j in range(3)))
    (tmp_path / "one.txt").write_text("".join(f"q0 Q0 d{j} {j} {3 - j} c\n" for j in range(3)))
    (tmp_path / "none.txt").write_text("q5 Q0 d0 1 1.0 e\n")
    for other, baseline, n_bad, first, what in [
            ("one.txt", "a.txt", 2, "system=one.txt, baseline=a.txt", "only one common query"),
            ("one.txt", "one.txt", 4, "system=a.txt, baseline=one.txt", "only one common query"),
            ("none.txt", "a.txt", 2, "system=none.txt, baseline=a.txt", "no common query"),
            ("none.txt", "none.txt", 4, "system=a.txt, baseline=none.txt", "no common query")]:
        runs = [str(tmp_path / name) for name in ("a.txt", "b.txt", other)]
        with pytest.raises(PairedFrameError, match=rf"\b{n_bad} (of \d+ )?comparison"):
            pf.compare(_evaluate(runs, str(tmp_path / "qrels.txt"), ["P@1", "RR"]), baseline=baseline, test="t")
        with pytest.raises(duckdb.InvalidInputException,
                           match=rf"pf_compare: {n_bad} comparison\(s\) with the baseline '{baseline}' have fewer than 2 "
                                 rf"common queries.*first: {first}, measure=P@1 \({what}\)"):
            con.sql("SELECT * FROM pf_compare(?, ?, ['P@1', 'RR'], baseline := ?)",
                    params=[runs, str(tmp_path / "qrels.txt"), baseline]).fetchall()
    runs = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]  # every pair has 5 queries: rows as before
    got = con.sql("SELECT system, measure, n FROM pf_compare(?, ?, ['P@1', 'RR'], baseline := 'a.txt')",
                  params=[runs, str(tmp_path / "qrels.txt")]).fetchall()
    assert got == [("b.txt", "P@1", 5), ("b.txt", "RR", 5)]


@pytest.mark.parametrize("measures, named", [("['gm_map', 'map']", "GMAP is summarised by a geometric mean"),
                                              ("['GMBpref', 'bpref']", "GMBpref is summarised by a geometric mean"),
                                              ("['NumQ', 'NumRel', 'AP']", "NumQ depends on the judgments only"),
                                              ("['num_ret', 'AP']", "NumRet describes what a run returned"),
                                              ("'official'", "NumQ depends on the judgments only")])
def test_compare_through_the_macros_refuses_what_compare_refuses_not_a_mislabelled_row(con, tmp_path, measures,
                                                                                         named):
    """GMAP's per-query values are AP's: a mean delta of them printed under GMAP's name was AP's
    comparison; counts of the judgments or of what a run returned are no hypothesis. pf.compare refuses
    them by name, and so does pf_compare (it cannot warn, so a set is refused too)."""
    (tmp_path / "qrels.txt").write_text("".join(f"q{i} 0 d{j} {int(j == i % 3)}\n" for i in range(5) for j in range(3)))
    (tmp_path / "a.txt").write_text("".join(f"q{i} Q0 d{j} {j} {3 - j} a\n" for i in range(5) for j in range(3)))
    (tmp_path / "b.txt").write_text("".join(f"q{i} Q0 d{j} {j} {j} b\n" for i in range(5) for j in range(3)))
    runs, qrels = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")], str(tmp_path / "qrels.txt")
    with pytest.raises(duckdb.InvalidInputException, match=rf"pf_compare: `measures`: .*{named}"):
        con.sql(f"SELECT * FROM pf_compare(?, ?, {measures}, baseline := 'a.txt')", params=[runs, qrels]).fetchall()
    got = con.sql("SELECT measure FROM pf_compare(?, ?, ['NumRelRet', 'AP'], baseline := 'a.txt')",
                  params=[runs, qrels]).fetchall()
    assert got == [("NumRelRet",), ("AP",)]


def test_compare_of_one_run_alone_is_an_error_like_compare(con, tmp_path):
    """One run and its baseline are the same system: nothing to compare, an error in both (the macro
    returned 0 rows)."""
    (tmp_path / "qrels.txt").write_text("".join(f"q{i} 0 d{j} {int(j == i % 3)}\n" for i in range(5) for j in range(3)))
    (tmp_path / "a.txt").write_text("".join(f"q{i} Q0 d{j} {j} {3 - j} a\n" for i in range(5) for j in range(3)))
    runs, qrels = [str(tmp_path / "a.txt")], str(tmp_path / "qrels.txt")
    with pytest.raises(ValueError, match="nothing to compare: no system other than the baseline 'a.txt'"):
        pf.compare(_evaluate(runs, qrels, ["P@1"]), baseline="a.txt", test="t")
    # one run file: said first, whatever the baseline (a misspelt one got "not one of the systems")
    for baseline in ("a.txt", "x"):
        with pytest.raises(duckdb.InvalidInputException,
                           match=r"pf_compare: nothing to compare: one run file \(system 'a.txt'\); give the baseline's"):
            con.sql("SELECT * FROM pf_compare(?, ?, 'P@1', baseline := ?)", params=[runs, qrels, baseline]).fetchall()


def test_compare_of_run_tables_names_systems_by_their_column_against_compare(con):
    """Tables hold their systems in a column: the baseline is one of those, never a table name (which
    used to pass the check and give no row at all)."""
    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    con.execute(f"CREATE OR REPLACE TABLE run_x AS SELECT * FROM pf_read_run('{runs[0]}', system := 'x')")
    con.execute(f"CREATE OR REPLACE TABLE run_y AS SELECT * FROM pf_read_run('{runs[1]}', system := 'y')")
    con.execute(f"CREATE OR REPLACE TABLE qr AS SELECT * FROM pf_read_qrels('{qrels}')")
    got = con.sql("SELECT system, delta, pvalue FROM pf_compare(['run_x', 'run_y'], 'qr', 'nDCG@10', tables := true, "
                  "baseline := 'x')").fetchall()
    want = pf.compare(pf.evaluate({"x": runs[0], "y": runs[1]}, qrels, ["nDCG@10"]), baseline="x", test="t")
    assert len(got) == 1 and got[0][0] == "y"
    assert got[0][1] == pytest.approx(want["delta"][0], rel=1e-12) and got[0][2] == pytest.approx(want["pvalue"][0], rel=1e-9)
    with pytest.raises(duckdb.Error, match=r"baseline 'run_x' is not one of the systems \[x, y\]"):
        con.sql("SELECT * FROM pf_compare(['run_x', 'run_y'], 'qr', 'nDCG@10', tables := true, baseline := 'run_x')").fetchall()


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
    shell = _duckdb_shell()
    script = tmp_path / "pairedframe.sql"
    script.write_text(text())
    done = subprocess.run([shell, "-c", f".read {script}", "-c", query], capture_output=True, text=True, timeout=600)
    assert done.returncode != 0 and named.search(done.stderr + done.stdout), done.stderr + done.stdout
    if _macros_run_here():
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
