"""pairedframe inside DuckDB (issue 25): pf_compare against pf.compare and scipy, and the ``pairedframe
sql`` script read by the DuckDB shell."""

from __future__ import annotations

import math
import re
import subprocess
import sys
import warnings
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from scipy import stats

import pairedframe as pf
from pairedframe.errors import PairedFrameError

sys.path.insert(0, str(Path(__file__).parent))
from duckdb_macro_helpers import (QRELS_OK, RUN_OK, assert_same, duckdb_shell,  # noqa: E402,F401
                                  evaluate_quietly, needs_macros, str_paths)
import duckdb_macro_helpers  # noqa: E402

con = duckdb_macro_helpers.con  # the connection fixture, found by pytest by its name


@pytest.mark.shared_data
def test_duckdb_shell_reads_the_script_against_evaluate(tmp_path, shared_data):
    shell = duckdb_shell()
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
    assert_same(evaluate_quietly(runs, folder / "qrels.test", names).per_query, got)



def test_duckdb_shell_names_a_missing_baseline_and_an_unsupported_confidence_level(tmp_path):
    """In the DuckDB 1.5 shell these two checks of pf_compare came out as 'syntax error at or near
    "NULL"' (Python's duckdb gave the messages): each error names its problem there too."""
    from pairedframe.example import example_paths
    from pairedframe.sql_macros import script as text

    shell = duckdb_shell()
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
def test_macro_delta_cancelling_to_float_noise_is_zero_against_compare(con, shared_data):
    """Two DL-2021 runs' P@10 with 4 wins and 5 losses over 53 queries: pf_compare's avg(d) was 1.05e-18;
    it is 0, as pf.compare's (a mean whose sum is float noise of its deltas), the interval as before."""
    folder = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    runs = [str(folder / "passages-runs" / f"{name}.gz") for name in ("Fast_ForwardP_2", "Fast_Forward_3")]
    qrels = str(folder / "qrels-pass.txt")
    got = con.sql("SELECT * FROM pf_compare(?, ?, ['P@10'], baseline := 'Fast_ForwardP_2')", params=[runs, qrels]).pl()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = pf.compare(evaluate_quietly(runs, qrels, ["P@10"]), baseline="Fast_ForwardP_2", test="t")
    assert got["delta"].to_list() == want["delta"].to_list() == [0.0]
    assert got["ci_low"][0] == pytest.approx(-got["ci_high"][0]) and got["ci_high"][0] > 0.01


@pytest.mark.shared_data
@pytest.mark.parametrize("confidence_level", [0.95, 0.99])
def test_compare_through_the_macros_against_scipy(con, shared_data, confidence_level):
    from scipy import stats

    runs = str_paths(shared_data, ["trectools_robust03/runs/input.*.gz"])[:3]
    qrels = str(shared_data / "trectools_robust03" / "qrel" / "robust03_qrels.txt")
    got = con.sql("SELECT * FROM pf_compare(?, ?, ['nDCG@10', 'AP', 'P@10'], baseline := 'InexpC2', confidence_level := ?)",
                  params=[runs, qrels, confidence_level]).pl()
    wide = evaluate_quietly(runs, qrels, ["nDCG@10", "AP", "P@10"]).per_query.pivot(on="system", index=["qid", "measure"],
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
            pf.compare(evaluate_quietly(runs, str(tmp_path / "qrels.txt"), ["P@1", "RR"]), baseline=baseline, test="t")
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
        pf.compare(evaluate_quietly(runs, qrels, ["P@1"]), baseline="a.txt", test="t")
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


def test_compare_pvalue_through_the_macros_is_floored_at_the_smallest_double_like_compare_test_t(con, tmp_path):
    """1,001 queries whose RR deltas are 1 or 0.5 (t about 1e2 on 1,000 df): the t tail underflows, and
    pf_compare's p is math.ulp(0.0) as pf.compare(test="t")'s and t_pvalue's are, never exactly 0."""
    n = 1001
    (tmp_path / "q.txt").write_text("".join(f"{i} 0 d1 1\n{i} 0 d0 0\n" for i in range(n)))
    (tmp_path / "a.txt").write_text("".join(f"{i} Q0 d0 1 2 t\n" for i in range(n)))
    (tmp_path / "b.txt").write_text("".join(f"{i} Q0 d1 1 2 t\n" if i % 2 else f"{i} Q0 d0 1 2 t\n{i} Q0 d1 2 1 t\n"
                                            for i in range(n)))
    runs, qrels = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")], str(tmp_path / "q.txt")
    (t, p), = con.sql("SELECT t, pvalue FROM pf_compare(?, ?, 'RR', baseline := 'a.txt')",
                      params=[runs, qrels]).fetchall()
    want = pf.compare(pf.evaluate(runs, qrels, ["RR"]), baseline="a.txt", test="t")
    assert t > 90 and p == want["pvalue"][0] == math.ulp(0.0)


def _rr_deltas_files(tmp_path: Path, zeros: int, n: int = 1001) -> tuple[list[str], str, np.ndarray]:
    """Runs a (RR 0 everywhere) and b whose RR deltas are 0 on ``zeros`` queries, then 0.5 and 1 in halves."""
    d = np.array([0.0] * zeros + [0.5] * ((n - zeros) // 2) + [1.0] * (n - zeros - (n - zeros) // 2))
    ranked = {0.0: "{i} Q0 d0 1 2 t\n", 0.5: "{i} Q0 d0 1 2 t\n{i} Q0 d1 2 1 t\n", 1.0: "{i} Q0 d1 1 2 t\n"}
    (tmp_path / "q.txt").write_text("".join(f"{i} 0 d1 1\n{i} 0 d0 0\n" for i in range(n)))
    (tmp_path / "a.txt").write_text("".join(f"{i} Q0 d0 1 2 t\n" for i in range(n)))
    (tmp_path / "b.txt").write_text("".join(ranked[float(x)].format(i=i) for i, x in enumerate(d)))
    return [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")], str(tmp_path / "q.txt"), d


@pytest.mark.parametrize("zeros", [150, 159, 161, 200])
def test_compare_pvalue_near_the_smallest_normal_double_agrees_in_sql_and_python_against_scipy_ttest_rel(con, tmp_path,
                                                                                                        zeros):
    """t of 57-51 on 1,000 df: scipy's p is 0 (150 zeros), subnormal (159: 1.7e-309, few digits) or normal (161:
    6.7e-308; 200: 7.3e-279).  Where it is normal both agree with scipy; below the smallest normal double both say
    5e-324 (the SQL fraction would give its own subnormal, Python scipy's or 0)."""
    runs, qrels, d = _rr_deltas_files(tmp_path, zeros)
    want = stats.ttest_rel(d, np.zeros(d.size)).pvalue
    (sql_p,), = con.sql("SELECT pvalue FROM pf_compare(?, ?, 'RR', baseline := 'a.txt')", params=[runs, qrels]).fetchall()
    py_p = pf.compare(pf.evaluate(runs, qrels, ["RR"]), baseline="a.txt", test="t")["pvalue"][0]
    if want >= sys.float_info.min:
        assert py_p == pytest.approx(want, rel=1e-12) and sql_p == pytest.approx(want, rel=1e-9)
    else:
        assert py_p == sql_p == math.ulp(0.0)


def _runs_one_without_judged_query(tmp_path):
    """The outside tester's files: qrels judging 007-009, two ordinary runs and one of query 010 alone."""
    (tmp_path / "q.txt").write_text("007 0 d1 1\n007 0 d2 0\n008 0 d3 1\n009 0 d9 2\n")
    (tmp_path / "r.txt").write_text("007 Q0 d1 1 2.0 r\n007 Q0 d2 2 1.0 r\n008 Q0 d4 1 5 r\n008 Q0 d3 2 4 r\n")
    (tmp_path / "r_ws.txt").write_text("007 Q0 d2 1 2.0 s\n007 Q0 d1 2 1.0 s\n008 Q0 d3 1 4 s\n")
    (tmp_path / "r_only_unjudged.txt").write_text("010 Q0 d3 1 4 u\n")
    return str(tmp_path / "q.txt")



def _as_tables(con, runs, qrels):
    """The runs as tables t0, t1, ... whose system column holds the file's name, the qrels as table qr."""
    for i, run in enumerate(runs):
        con.execute(f"CREATE OR REPLACE TABLE t{i} AS SELECT * FROM pf_read_run('{run}', system := '{Path(run).name}')")
    con.execute(f"CREATE OR REPLACE TABLE qr AS SELECT * FROM pf_read_qrels('{qrels}')")
    return [f"t{i}" for i in range(len(runs))], "qr"


@pytest.mark.parametrize("names", [["r.txt", "r_ws.txt", "r_only_unjudged.txt"], ["r.txt", "r_only_unjudged.txt"]])
@pytest.mark.parametrize("tables", [False, True])
def test_compare_through_the_macros_names_a_system_without_judged_query_against_evaluates_warning(con, tmp_path, names,
                                                                                                   tables):
    """A run with no query in the qrels has no values: pf_compare dropped its row in silence (three runs) or
    said no system but the baseline was given (two). pf.evaluate leaves it out with a warning SQL cannot
    give, so the macro stops with the warning's words, naming the system and, for files, the run file."""
    qrels = _runs_one_without_judged_query(tmp_path)
    runs = [str(tmp_path / name) for name in names]
    with pytest.warns(pf.errors.PartlyEmptyWarning) as said:
        pf.evaluate(runs, qrels, ["AP"])
    words = re.search(r"^(\d+ of \d+ systems have no judged query in common with the qrels)", str(said[0].message))[1]
    assert words == f"1 of {len(names)} systems have no judged query in common with the qrels"
    if tables:
        runs, qrels = _as_tables(con, runs, qrels)
    unjudged = "'r_only_unjudged.txt'" + ("" if tables else rf" \(run file {re.escape(runs[-1])}\)")
    with pytest.raises(duckdb.InvalidInputException,
                       match=rf"pf_compare: {words}: {unjudged}; their queries e.g. \[010\] are not in the qrels, whose "
                             rf"queries are e.g. \[007, 008, 009\]: .*pass complete := true"):
        con.sql(f"SELECT * FROM pf_compare(?, ?, 'map', baseline := 'r.txt'{', tables := true' if tables else ''})",
                params=[runs, qrels]).fetchall()


@pytest.mark.parametrize("tables", [False, True])
def test_compare_through_the_macros_names_a_baseline_without_judged_query_against_the_cli(con, tmp_path, tables):
    """Such a run as the baseline was "not one of the systems", though given. The CLI's words: it has no
    judged query in common with the qrels, nothing to compare against."""
    from typer.testing import CliRunner

    from pairedframe.cli import app

    qrels = _runs_one_without_judged_query(tmp_path)
    runs = [str(tmp_path / name) for name in ("r.txt", "r_only_unjudged.txt")]
    said = CliRunner().invoke(app, ["compare", qrels, *runs, "--baseline", "r_only_unjudged.txt", "-m", "map"])
    assert said.exit_code == 2
    cli = re.search(r"'r_only_unjudged.txt' (has no judged query in common with the qrels)", said.stderr)[1]
    if tables:
        runs, qrels = _as_tables(con, runs, qrels)
    file = "" if tables else rf" \(run file {re.escape(runs[1])}\)"
    with pytest.raises(duckdb.InvalidInputException,
                       match=rf"pf_compare: the baseline 'r_only_unjudged.txt'{file} {cli}: nothing to compare against; "
                             rf"its queries e.g. \[010\] are not in the qrels"):
        con.sql(f"SELECT * FROM pf_compare(?, ?, 'map', baseline := 'r_only_unjudged.txt'"
                f"{', tables := true' if tables else ''})", params=[runs, qrels]).fetchall()


@pytest.mark.parametrize("tables", [False, True])
def test_compare_through_the_macros_of_a_run_without_judged_query_under_complete_against_compare(con, tmp_path, tables):
    """complete := true scores such a run 0 on every judged query, as pf.evaluate(complete=True) does: it is
    compared then, with pf.compare's values."""
    qrels = _runs_one_without_judged_query(tmp_path)
    runs = [str(tmp_path / name) for name in ("r.txt", "r_ws.txt", "r_only_unjudged.txt")]
    with pytest.warns(pf.errors.PartlyEmptyWarning, match="scored 0 on every judged query"):
        ev = pf.evaluate(runs, qrels, ["AP"], complete=True)
    with warnings.catch_warnings():  # three queries: few, and tied (said by pf.compare, not checked here)
        warnings.simplefilter("ignore")
        want = pf.compare(ev, baseline="r.txt", test="t").sort("system")
    if tables:
        runs, qrels = _as_tables(con, runs, qrels)
    got = con.sql(f"SELECT system, n, delta, pvalue FROM pf_compare(?, ?, 'map', baseline := 'r.txt', complete := true"
                  f"{', tables := true' if tables else ''}) ORDER BY system", params=[runs, qrels]).fetchall()
    assert [(s, n) for s, n, _, _ in got] == list(zip(want["system"], want["n_queries"]))
    assert [(s, n) for s, n, _, _ in got] == [("r_only_unjudged.txt", 3), ("r_ws.txt", 3)]
    assert [d for _, _, d, _ in got] == pytest.approx(want["delta"].to_list(), rel=1e-12)
    assert [p for _, _, _, p in got] == pytest.approx(want["pvalue"].to_list(), rel=1e-9)
