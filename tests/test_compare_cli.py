"""``pairedframe compare``: formats, gate exit codes, errors (exit 2, no traceback)."""

from __future__ import annotations

import json

import polars as pl
import pytest
from typer.testing import CliRunner

from pairedframe.cli import app
from pairedframe.example import example_paths

QRELS, RUNS = example_paths()
BASE = [str(QRELS), str(RUNS[0]), str(RUNS[1])]
runner = CliRunner()


def run(*args):
    return runner.invoke(app, ["compare", *BASE, *args])


def test_json_names_settings_and_matches_python():
    import pairedframe as pf
    from pairedframe.comparison import compare

    res = run("-m", "nDCG@10", "-m", "AP", "-B", "999", "--seed", "3", "-f", "json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    s = data["settings"]
    assert s["test"] == "randomization" and s["n_resamples"] == 999 and s["seed"] == 3
    assert "pvalue_tie_rule" in s and "pairing" in s and "ranking_tie_rule" in s
    ev = pf.evaluate([str(r) for r in RUNS], str(QRELS), ["nDCG@10", "AP"])
    want = compare(ev, baseline="bm25", n_resamples=999, seed=3)
    assert [r["ci_low"] for r in data["rows"]] == want["ci_low"].to_list()
    assert [r["pvalue"] for r in data["rows"]] == want["pvalue"].to_list()


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown", "latex"])
def test_formats_name_test_resamples_seed(fmt):
    res = run("-m", "nDCG@10", "-B", "500", "--seed", "9", "-f", fmt)
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "randomization" in out and "500" in out and "docno descending" in out
    assert "inner join" in out
    if fmt == "csv":
        assert "seed" in out.splitlines()[0]


def test_gate_exit_codes():
    ok = run("-m", "nDCG@10", "-B", "500", "--fail-if", "nDCG@10 < -0.01")
    assert ok.exit_code == 0, ok.output
    bad = run("-m", "nDCG@10", "-B", "500", "--fail-if", "nDCG@10 < 0.07")
    assert bad.exit_code == 1
    assert "GATE FAILED" in bad.stderr and "vs baseline bm25" in bad.stderr and "worst #1" in bad.stderr
    # on the CI bound: the lower bound (~0.006) is below 0.01, the delta (~0.061) is not
    assert run("-m", "nDCG@10", "-B", "500", "--fail-if", "ndcg_cut_10 < 0.01").exit_code == 0
    assert run("-m", "nDCG@10", "-B", "500", "--fail-if", "nDCG@10 < 0.01", "--gate-on", "ci-low").exit_code == 1


def test_baseline_option_swaps_sign():
    a = json.loads(run("-m", "AP", "-B", "300", "-f", "json").stdout)["rows"][0]
    b = json.loads(run("-m", "AP", "-B", "300", "-f", "json", "--baseline", "reranker").stdout)["rows"][0]
    assert b["system"] == "bm25" and b["delta"] == pytest.approx(-a["delta"], abs=1e-15)


@pytest.mark.parametrize("args", [["-m", "AP", "--fail-if", "AP <> 1"], ["-m", "AP", "--fail-if", "nDCG@10 < 0"],
                                  ["-m", "AP", "--baseline", "nope"], ["-m", "AP", "--test", "wilcoxon"],
                                  ["-m", "AP", "-f", "xml"], []])
def test_errors_exit_2_without_traceback(args):
    res = run(*args)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and "error" in res.stderr


def test_t_test_option():
    res = run("-m", "AP", "--test", "t", "-f", "csv")
    assert res.exit_code == 0
    frame = pl.read_csv(res.stdout.encode())
    assert frame["test"][0] == "t" and frame["interval"][0] == "t"


def test_no_progress_bar_in_pipes(tmp_path):
    import subprocess
    import sys

    code = "from pairedframe.cli import main; main()"
    proc = subprocess.run([sys.executable, "-c", code, "compare", *BASE, "-m", "AP", "-B", "200000", "-f", "csv"],
                          capture_output=True, text=True, env={"PYTHONPATH": "src", "PATH": ""}, cwd=str(__import__("pathlib").Path(__file__).parents[1]))
    assert proc.returncode == 0, proc.stderr
    assert "resampling" not in proc.stderr and "\x1b[" not in proc.stderr + proc.stdout


def test_example_prints_comparison():
    res = runner.invoke(app, ["example"])
    assert res.exit_code == 0, res.output
    assert "reranker vs bm25" in res.stdout and "verdict" in res.stdout


def test_a_bug_exits_3_with_traceback_never_1_the_gate_code(monkeypatch):
    """A crash must not look like a holding --fail-if gate (exit 1) to a CI job."""
    import pairedframe.cli.compare_cmd as compare_cmd

    def boom(*args, **kwargs):
        raise OverflowError("simulated bug")

    monkeypatch.setattr(compare_cmd, "compare", boom)
    res = run("-m", "nDCG@10", "--fail-if", "nDCG@10 < -0.01")
    assert res.exit_code == 3, res.output
    assert "internal error (OverflowError): simulated bug" in res.stderr


def test_identical_runs_over_a_thousand_queries_pass_the_gate(tmp_path):
    """Zero spread with n >= 1024 overflowed 2**n and the CLI exited 1, as if the gate held."""
    qrels, run_a, run_b = tmp_path / "q.txt", tmp_path / "a.run", tmp_path / "b.run"
    qrels.write_text("".join(f"{q:04d} 0 d{q} 1\n" for q in range(1100)))
    lines = "".join(f"{q:04d} Q0 d{q} 1 1.0 r\n" for q in range(1100))
    run_a.write_text(lines)
    run_b.write_text(lines)
    res = runner.invoke(app, ["compare", str(qrels), f"a={run_a}", f"b={run_b}", "-m", "RR@10", "-B", "99",
                              "--fail-if", "RR@10 < -0.01"])
    assert res.exit_code == 0, res.output
    assert "identical" in res.stdout


def _run_missing_a_query(tmp_path):
    """The example's bm25 and reranker, and a copy of reranker without query 001 (judged)."""
    qrels, runs = example_paths()
    lines = runs[1].read_text().splitlines()
    short = tmp_path / "short.run"
    short.write_text("".join(line + "\n" for line in lines if line.split()[0] != lines[0].split()[0]))
    unjudged = tmp_path / "unjudged.run"
    unjudged.write_text("".join("9" + line + "\n" for line in lines))
    return str(qrels), [str(r) for r in runs], str(short), str(unjudged)


def _warning_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("pairedframe: warning:")]


def test_each_distinct_warning_is_printed_once_per_command(tmp_path):
    """A failing --fail-if gate's worst queries re-ran the comparison, so "leave out queries" came twice."""
    qrels, runs, short, _ = _run_missing_a_query(tmp_path)
    res = CliRunner().invoke(app, ["compare", qrels, runs[0], f"short={short}", "-m", "AP", "-B", "99",
                                   "--fail-if", "AP>-0.9"])
    assert res.exit_code == 1, res.output
    lines = _warning_lines(res.stderr)
    assert any("lack judged queries" in line for line in lines) and any("leave out queries" in line for line in lines)
    assert len(lines) == len(set(lines)), lines
    for args in (["-b", "bm25"], ["-b", "bm25", "-b", "short"], ["--pairs", "all"], ["--ci", "range", "-f", "latex"]):
        res = CliRunner().invoke(app, ["table", qrels, *runs, f"short={short}", "-m", "AP", "-m", "P@5", "-B", "99",
                                       *args])
        assert res.exit_code == 0, res.output
        lines = _warning_lines(res.stderr)
        assert any("lack judged queries" in line for line in lines) and len(lines) == len(set(lines)), (args, lines)


def test_table_prints_the_warning_that_explains_its_error(tmp_path):
    """The warnings table held back were lost when the command then failed: here the run left out for
    having no judged query is the baseline the error names."""
    qrels, runs, _, unjudged = _run_missing_a_query(tmp_path)
    res = CliRunner().invoke(app, ["table", qrels, f"u={unjudged}", *runs, "-m", "AP", "-B", "99"])
    assert res.exit_code == 2
    assert "no judged query in common with the qrels" in res.stderr and "pairedframe: error:" in res.stderr
    ok = CliRunner().invoke(app, ["table", qrels, runs[0], f"u={unjudged}", runs[1], "-m", "AP", "-B", "99",
                                  "-f", "markdown"])
    assert ok.exit_code == 0, ok.output
    assert "no judged query in common with the qrels" in ok.stderr and "| bm25 (baseline) |" in ok.stdout
