"""``pairedframe compare``: formats, gate exit codes, errors (exit 2, no traceback)."""

from __future__ import annotations

import io
import json
import re

import polars as pl
import pytest
from typer.testing import CliRunner

from pairedframe.cli import app
from pairedframe.example import example_paths
from pairedframe.measures.parse import OFFICIAL

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


def test_fail_if_reads_measure_names_with_parameters():
    """MEASURE is everything before the last operator outside parentheses and quotes, read as -m reads
    it: a gate on P(rel=2)@10 or nDCG(dcg='exp-log2')@10 tests that measure's row."""
    measures = ["-m", "P(rel=2)@10", "-m", "RBP(p=0.5)", "-m", "nDCG(dcg='exp-log2')@10", "-B", "200"]
    for gate in ("P(rel=2)@10 < -2", "RBP(p=0.5)<-2", "nDCG(dcg='exp-log2')@10 <= -2", "p(rel=2)@10 < -2"):
        res = run(*measures, "--fail-if", gate, "-f", "csv")
        assert res.exit_code == 0 and "gate passed" in res.stderr, (gate, res.output)
    held = run(*measures, "--fail-if", "nDCG(dcg='exp-log2')@10 > -2", "-f", "csv")
    assert held.exit_code == 1 and "GATE FAILED: reranker nDCG(dcg='exp-log2')@10: delta" in held.stderr
    other = run(*measures, "--fail-if", "RBP(p=0.8) < 0")
    assert other.exit_code == 2 and "--fail-if measure 'RBP' is not among the compared measures" in other.stderr
    for bad in ("P(rel=2)@10 <", "AP <> 1", "< 1"):
        res = run(*measures, "--fail-if", bad)
        assert res.exit_code == 2 and "expected 'MEASURE OP NUMBER'" in res.stderr, (bad, res.stderr)


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


@pytest.mark.parametrize(("args", "flag", "parameter"), [
    (["--family-by", "colour"], "--family-by column(s) ['colour'] not among", "family_by"),
    (["-B", "1"], "--n-resamples must be an integer >= 2, got 1", "n_resamples"),
    (["--confidence-level", "1.5"], "--confidence-level must be in (0, 1), got 1.5", "confidence_level"),
    (["--alternative", "up"], "--alternative must be 'two-sided', 'greater' or 'less', got 'up'", "alternative"),
    (["--baseline", "bm25", "--baseline", "reranker", "--family-by", "colour"],
     "--family-by column(s) ['colour'] not among", "family_by"),
])
def test_library_errors_name_the_flag_not_the_parameter(args, flag, parameter):
    res = run("-m", "AP", *args)
    assert res.exit_code == 2, res.output
    assert flag in res.stderr and re.search(rf"(?<![-\w]){parameter}\b", res.stderr) is None, res.stderr


def test_table_errors_name_the_flag():
    res = runner.invoke(app, ["table", *BASE, "-m", "AP", "--baseline", "bm25", "--digits", "20"])
    assert res.exit_code == 2 and "--digits must be an integer in [0, 10], got 20" in res.stderr, res.stderr


def test_name_flags_on_the_library_messages():
    import pairedframe as pf
    from pairedframe.cli import analyze_cmd, compare_cmd
    from pairedframe.cli.common import command_flags, name_flags
    from pairedframe.stats.equivalence import tost

    flags = command_flags(compare_cmd.compare_cmd.__wrapped__)
    assert {k: flags[k] for k in ("family_by", "n_resamples", "confidence_level", "alternative", "baseline",
                                  "measures", "fmt")} == {
        "family_by": "--family-by", "n_resamples": "--n-resamples", "confidence_level": "--confidence-level",
        "alternative": "--alternative", "baseline": "--baseline", "measures": "--measure", "fmt": "--format"}
    frame = pl.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "qid": ["1", "2", "3"] * 2, "measure": "AP",
                          "value": [0.1, 0.2, 0.3, 0.3, 0.2, 0.4]})

    def message(call):
        with pytest.raises((ValueError, TypeError)) as info:
            call()
        return name_flags(str(info.value), flags)

    assert message(lambda: pf.compare(frame, baseline=["a", "nope"])).startswith("--baseline ['nope'] not among")
    assert message(lambda: pf.compare(frame, baseline=3)).startswith("--baseline must be a system name")
    assert "give exactly one of --baseline (a name" in message(lambda: pf.compare(frame))
    assert name_flags("nothing to compare: no system other than the baseline 'a'", flags) \
        == "nothing to compare: no system other than the baseline 'a'"          # prose stays
    assert name_flags("correction='tukey' needs baseline=/pairs=", {"correction": "--correction", "baseline": "--baseline",
                                                                    "pairs": "--pairs"}) \
        == "--correction 'tukey' needs --baseline/--pairs"
    # margin: no command has a --margin option; under analyze it is a plan key and stays one
    assert all("margin" not in command_flags(c.__wrapped__) for c in (compare_cmd.compare_cmd, analyze_cmd.analyze_cmd))
    with pytest.raises(ValueError) as info:
        tost(0.1, 0.05, margin=-1.0)
    assert name_flags(str(info.value), command_flags(analyze_cmd.analyze_cmd.__wrapped__)) == str(info.value)
    assert name_flags(str(info.value), {"margin": "--margin"}).startswith("--margin must be")


def test_name_flags_leave_measure_names_unchanged():
    """A measure name's parameters are its text: ``judged_only=True`` inside ``P(...)@10`` is not the
    ``--judged-only`` flag (the same words outside a name are)."""
    from pairedframe.cli.common import name_flags

    ev_flags = {"judged_only": "--judged-only", "rel_level": "--rel-level", "measures": "--measure"}
    assert name_flags("P(rel=2,judged_only=True)@10 and P(judged_only=True)@10 are both 'P_10'; judged_only=True "
                      "or rel_level=2", ev_flags) == ("P(rel=2,judged_only=True)@10 and P(judged_only=True)@10 are "
                                                      "both 'P_10'; --judged-only True or --rel-level 2")
    assert name_flags("Utility(weights=(2,-1,0,0),judged_only=True) needs rel_level=1", ev_flags) \
        == "Utility(weights=(2,-1,0,0),judged_only=True) needs --rel-level 1"


def test_plan_keys_stay_plan_keys(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text('confidence_level = 0.95\nmargin = 0.02\nseed = 1\nn_resamples = 1\n[systems]\nbaseline = "bm25"\n'
                    'candidate = "reranker"\n[[endpoints]]\nmeasure = "AP"\ndirection = "higher is better"\n'
                    'role = "primary"\n', encoding="utf-8")
    res = runner.invoke(app, ["analyze", "--plan", str(plan), str(tmp_path / "results.csv")])
    assert res.exit_code == 2 and "n_resamples" in res.stderr and "--n-resamples" not in res.stderr, res.stderr


def test_a_bug_exits_3_with_traceback_never_1_the_gate_code(monkeypatch):
    """A crash must not look like a holding --fail-if gate (exit 1) to a CI job."""
    import pairedframe.comparison as comparison     # the command imports compare from there when it runs

    def boom(*args, **kwargs):
        raise OverflowError("simulated bug")

    monkeypatch.setattr(comparison, "compare", boom)
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


def test_a_run_without_judged_queries_is_left_out_not_a_confusing_error(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n")
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2.0 a\nq2 Q0 d9 1 2.0 a\nq3 Q0 d3 1 2.0 a\n")
    (tmp_path / "b.run").write_text("q1 Q0 d1 1 2.0 b\nq2 Q0 d2 1 2.0 b\nq3 Q0 d3 1 2.0 b\n")
    (tmp_path / "c.run").write_text("x9 Q0 d1 1 2.0 c\n")
    paths = [str(tmp_path / n) for n in ("qrels", "a.run", "b.run", "c.run")]
    ok = runner.invoke(app, ["compare", *paths, "-m", "AP", "-B", "99", "-f", "csv"])
    assert ok.exit_code == 0, ok.output
    assert "left out of the result: ['c.run']" in ok.stderr
    assert pl.read_csv(ok.stdout.encode())["system"].to_list() == ["b.run"]
    first = runner.invoke(app, ["compare", paths[0], paths[3], paths[1], paths[2], "-m", "AP", "-B", "99"])
    assert first.exit_code == 2
    assert "the baseline (the first run, no --baseline given) 'c.run' has no judged query" in first.stderr


def test_a_gate_on_the_infinite_end_of_a_one_sided_interval_is_refused():
    res = run("-m", "nDCG@10", "-B", "99", "--alternative", "less", "--fail-if", "nDCG@10 < -0.01", "--gate-on", "ci-low")
    assert res.exit_code == 2 and "infinite" in res.stderr
    ok = run("-m", "nDCG@10", "-B", "99", "--alternative", "less", "--fail-if", "nDCG@10 < -0.5", "--gate-on", "ci-high")
    assert ok.exit_code == 0, ok.output


def test_string_valued_measure_says_so():
    res = run("-m", "RelString@20", "-B", "99")
    assert res.exit_code == 2 and "string-valued" in res.stderr and "no judged query" not in res.stderr


@pytest.mark.parametrize("correction, column", [("bh", "pvalue_bh"), ("none", "pvalue"), ("holm", "pvalue_holm")])
def test_compare_command_correction_chooses_the_verdict_column_as_python_does(correction, column):
    import pairedframe as pf

    qrels, runs = example_paths()
    res = runner.invoke(app, ["compare", str(qrels), *map(str, runs), "-m", "AP", "-m", "nDCG@10", "-B", "200",
                              "--correction", correction, "-f", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    rows = rows["rows"] if isinstance(rows, dict) else rows
    want = pf.compare(pf.evaluate(runs, qrels, ["AP", "nDCG@10"]), baseline="bm25", n_resamples=200,
                      correction=correction)
    assert {r["verdict_on"] for r in rows} == {column} == set(want["verdict_on"].to_list())
    assert sorted(r["verdict"] for r in rows) == sorted(want["verdict"].to_list())


def test_run_independent_measures_named_on_the_command_line_are_refused():
    res = run("-m", "num_rel", "-m", "num_q", "-m", "map", "-B", "99", "-f", "csv")
    assert res.exit_code == 2, res.output
    assert "NumRel, NumQ depend on the judgments only, not on the run" in res.stderr and "Traceback" not in res.output


def test_numret_named_on_the_command_line_is_refused():
    res = run("-m", "num_ret", "-m", "map", "-B", "99", "-f", "csv")
    assert res.exit_code == 2, res.output
    assert "NumRet describes what a run returned" in res.stderr and "Traceback" not in res.output


def test_printed_pvalue_tie_rule_is_the_one_of_the_alternative():
    """The settings state the extremeness rule the sign-flip p-value used: |T*| >= |T| two-sided, T* >= T
    for greater, T* <= T for less (stats.randomization.is_extreme: a null -2 against T = 1 is extreme
    two-sided only)."""
    import numpy as np

    from pairedframe.stats.randomization import is_extreme

    null, observed, gamma = np.array([[-2.0]]), np.array([1.0]), np.array([0.0])
    assert [bool(is_extreme(null, observed, gamma, a)[0, 0]) for a in ("two-sided", "greater", "less")] \
        == [True, False, True]
    rules = {}
    for alternative in ("two-sided", "greater", "less"):
        res = run("-m", "AP", "-B", "99", "--alternative", alternative, "-f", "json")
        assert res.exit_code == 0, res.output
        rules[alternative] = json.loads(res.stdout)["settings"]["pvalue_tie_rule"]
    assert "|T*| >= |T| - " in rules["two-sided"]
    assert "T* >= T - " in rules["greater"] and "|T*|" not in rules["greater"]
    assert "T* <= T + " in rules["less"] and "|T*|" not in rules["less"]


def test_compare_with_a_measure_set_leaves_out_untestable_measures_with_a_warning():
    """-m official compares every measure of the set that is a paired hypothesis, like pf.compare without
    measures=: NumQ, NumRel (judgments only), NumRet (a count of what a run returned) and GMAP (a geometric
    mean) are left out with a warning."""
    qrels, runs = example_paths()
    result = runner.invoke(app, ["compare", str(qrels), *map(str, runs), "-m", "official", "-B", "99", "-f", "csv"])
    assert result.exit_code == 0, result.output
    assert "left out of the comparison: NumQ, NumRet, NumRel, GMAP" in result.stderr
    measures = set(pl.read_csv(io.StringIO(result.stdout))["measure"])
    assert {"AP", "RR", "NumRelRet"} <= measures and not measures & {"NumQ", "NumRet", "NumRel", "GMAP"}


def test_a_run_missing_judged_queries_is_warned_as_missing_rows_not_as_undefined_values(shared_data, tmp_path):
    """DL-2021 passages: pash_f3 without two judged queries. The second warning names the real cause
    (no row on one side), not null values of an undefined measure: nDCG@10 is never null."""
    import gzip

    folder = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    gone = {"1006728", "1040198"}
    with gzip.open(folder / "passages-runs" / "pash_f3.gz", "rt") as full, \
            gzip.open(tmp_path / "pash_f3_missing.gz", "wt") as cut:
        cut.writelines(line for line in full if line.split()[0] not in gone)
    res = CliRunner().invoke(app, ["compare", str(folder / "qrels-pass.txt"), str(folder / "passages-runs" / "p_bm25.gz"),
                                   str(tmp_path / "pash_f3_missing.gz"), "-m", "nDCG@10", "-B", "99"])
    assert res.exit_code == 0, res.output
    lines = [" ".join(line.split()) for line in _warning_lines(res.stderr)]
    assert any("no ranking for 2 of 53" in line for line in lines), lines
    (left_out,) = [line for line in lines if "leave out queries" in line]
    assert "51 of 53 queries paired" in left_out and "2 have no row on one side" in left_out, left_out
    assert "null" not in left_out and "undefined" not in left_out, left_out


def test_cli_warning_prefix_names_the_package_that_issued_it(capsys):
    """Only pairedframe's own warnings read "pairedframe: warning:"; another package's (PySpark's
    pandas warning under --engine spark) is printed as coming from that package -- also when held
    back under a progress bar (held_warnings)."""
    import types
    import warnings

    from pairedframe.cli.common import friendly_errors, held_warnings
    from pairedframe.errors import SmallSampleWarning

    foreign = types.ModuleType("sparkish.sql.pandas.utils")     # stands in for pyspark: not pairedframe
    exec("import warnings\n"
         "def check(text):\n"
         "    warnings.warn(text, FutureWarning, stacklevel=2)\n", foreign.__dict__)
    ours = types.ModuleType("pairedframe.some_step")           # a plain UserWarning issued by pairedframe code
    exec("import warnings\n"
         "def step():\n"
         "    warnings.warn('3 queries have no judged document', UserWarning, stacklevel=2)\n", ours.__dict__)

    @friendly_errors
    def command():
        foreign.check("sparkish does not yet fully support pandas >= 3.0.0")
        ours.step()
        warnings.warn("only 4 paired queries", SmallSampleWarning, stacklevel=1)
        with held_warnings():
            foreign.check("held: sparkish again")
            ours.step()                                         # printed once per command
        foreign.check("sparkish does not yet fully support pandas >= 3.0.0")

    command()
    assert capsys.readouterr().err.splitlines() == [
        "warning (from sparkish): sparkish does not yet fully support pandas >= 3.0.0",
        "pairedframe: warning: 3 queries have no judged document",
        "pairedframe: warning: only 4 paired queries",
        "warning (from sparkish): held: sparkish again"]


@pytest.mark.parametrize("command", [["compare", *BASE, "-m", "AP", "-B", "99"],
                                     ["compare", *BASE, "--pairs", "all", "-m", "AP", "-B", "99"],
                                     ["report", *BASE, "-m", "AP", "-B", "99"]],
                         ids=["one_baseline", "pairs", "report"])
def test_reissued_warnings_of_another_package_keep_their_origin(monkeypatch, tmp_path, command):
    """compare records the warnings of its work and issues them again (pointing at the caller), and so
    does report around compare: numpy's warning raised inside stays numpy's (its category, and
    ``warning (from numpy):`` on the command line), as it reads when numpy's code is called directly."""
    import warnings

    import numpy as np

    import pairedframe as pf
    from pairedframe.comparison import paired

    original = paired.compare_checked

    def with_numpy_warning(*args, **kwargs):
        np.mean(np.array([]))                           # numpy warns "Mean of empty slice"
        return original(*args, **kwargs)

    monkeypatch.setattr(paired, "compare_checked", with_numpy_warning)
    if command[0] == "report":
        command = [*command, "-o", str(tmp_path / "r.html")]
    res = runner.invoke(app, command)
    assert res.exit_code == 0, res.output
    lines = res.stderr.splitlines()
    # numpy 1.26 ends the message with a full stop, numpy 2 does not
    assert any(line.rstrip(".") == "warning (from numpy): Mean of empty slice" for line in lines), lines
    assert not any("pairedframe: warning: Mean of empty slice" in line for line in lines), lines
    ev = pf.evaluate([str(r) for r in RUNS], str(QRELS), "AP")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.compare(ev, baseline="bm25", n_resamples=99)
    (numpy,) = [w for w in caught if str(w.message).rstrip(".") == "Mean of empty slice"]
    assert numpy.category is RuntimeWarning and numpy.filename == __file__


def test_a_rows_measure_column_in_an_error_is_not_rewritten_as_the_measure_option(shared_data):
    """``compare qrels-302.test results-302.test results.test``: the library says which comparison has one
    common query, ``system=results.test, measure=AP``; the CLI printed ``--measure AP``, an option the user
    never gave.  Only argument names become options; the library's message is kept word for word.  (``report``
    raised this once; it now leaves such a comparison out and flags it.)"""
    import pairedframe as pf

    folder = shared_data / "trec_eval"
    runs = {name: str(folder / name) for name in ("results-302.test", "results.test")}
    measures = ["AP", "nDCG@10"]
    ev = pf.evaluate(runs, str(folder / "qrels-302.test"), measures)
    with pytest.raises(ValueError) as info:
        pf.compare(ev, baseline="results-302.test")
    res = runner.invoke(app, ["compare", str(folder / "qrels-302.test"), *runs.values(), "-b", "results-302.test",
                              *[a for m in measures for a in ("-m", m)]])
    assert res.exit_code == 2 and "--measure" not in res.output
    assert "system=results.test, measure=AP" in str(info.value)
    assert " ".join(str(info.value).split()) in " ".join(res.output.split())


@pytest.mark.parametrize("command", ["compare", "segments"])
@pytest.mark.parametrize("names", [["all_trec"], ["relstring", "AP"]])
def test_a_set_or_bare_relstring_leaves_string_valued_relstring_out_of_compare_and_segments_with_a_warning(
        command, names, tmp_path):
    """-m all_trec exited 2: "measure(s) ['RelString@10'] match nothing in the per-query table"."""
    segments = tmp_path / "segments.csv"
    pl.DataFrame({"qid": [f"{i:03d}" for i in range(1, 61)], "segment_set": "parity",
                  "segment": ["odd" if i % 2 else "even" for i in range(1, 61)]}).write_csv(segments)
    extra = ["-s", str(segments)] if command == "segments" else []
    flags = [x for name in names for x in ("-m", name)]
    result = runner.invoke(app, [command, str(QRELS), *map(str, RUNS), *flags, *extra, "-B", "99", "-f", "csv"])
    assert result.exit_code == 0, result.output
    assert "left out of the comparison: RelString@10 (string-valued" in result.stderr
    measures = set(pl.read_csv(io.StringIO(result.stdout))["measure"])
    assert "AP" in measures and not any(m.startswith("RelString") for m in measures)


@pytest.mark.parametrize("command", ["compare", "segments"])
def test_relstring_named_with_its_cutoff_beside_a_numeric_measure_is_refused_as_string_valued(command, tmp_path):
    segments = tmp_path / "segments.csv"
    pl.DataFrame({"qid": ["001"], "segment_set": "one", "segment": "a"}).write_csv(segments)
    extra = ["-s", str(segments)] if command == "segments" else []
    result = runner.invoke(app, [command, str(QRELS), *map(str, RUNS), "-m", "relstring.5", "-m", "AP", *extra,
                                 "-B", "99"])
    assert result.exit_code == 2
    assert "['RelString@5'] are string-valued (Evaluation.text)" in result.stderr and "match nothing" not in result.stderr


@pytest.mark.parametrize("measures", [["relstring.10"], ["RelString@10", "AP"], "relstring"])
def test_pf_compare_of_a_string_valued_measure_beside_numeric_ones_says_string_valued(measures):
    """pf.compare(ev, measures=['relstring.10']) said "match nothing in the per-query table" when ev held AP too."""
    import pairedframe as pf

    ev = pf.evaluate(RUNS, QRELS, ["relstring.10", "AP"])
    with pytest.raises(pf.errors.EmptyResultError, match=r"`measures`: measure\(s\) \[.*\] are string-valued "
                                                         r"\(Evaluation.text\)"):
        pf.compare(ev, baseline=ev.systems[0], measures=measures, n_resamples=99)


def test_output_writes_the_comparison_to_the_file_in_the_format_of_its_suffix(tmp_path):
    """compare had no -o while segments, table and analyze write files: -o writes the file instead of
    stdout, in the format of its suffix (unless -f), as segments does; the gate still reports on stderr."""
    printed = run("-m", "nDCG@10", "-B", "300", "-f", "csv")
    assert printed.exit_code == 0, printed.output
    for name, fmt in (("cmp.csv", []), ("cmp.txt", ["-f", "csv"]), ("cmp.tex", []), ("cmp.json", [])):
        res = run("-m", "nDCG@10", "-B", "300", "-o", str(tmp_path / name), *fmt)
        assert res.exit_code == 0, res.output
        assert res.stdout == "" and f"wrote {tmp_path / name}" in res.stderr
        text = (tmp_path / name).read_text(encoding="utf-8")
        if name.endswith((".csv", ".txt")):
            assert text == printed.stdout
    assert (tmp_path / "cmp.tex").read_text().startswith("% paired comparison")
    assert json.loads((tmp_path / "cmp.json").read_text())["settings"]["n_resamples"] == 300
    gated = run("-m", "nDCG@10", "-B", "300", "-o", str(tmp_path / "gate.csv"), "--fail-if", "nDCG@10 < 0.07")
    assert gated.exit_code == 1 and "GATE FAILED" in gated.stderr and gated.stdout == ""
    assert (tmp_path / "gate.csv").read_text() == printed.stdout


def test_output_refuses_a_folder_a_missing_folder_and_an_unknown_suffix_before_any_work(tmp_path, monkeypatch):
    """The same refusals as segments' and table's -o (require_output_folder, the suffix rule), before the
    runs are evaluated: a folder is not overwritten after minutes of resampling with [Errno 21]."""
    import pairedframe.evaluation

    def never(*args, **kwargs):
        raise AssertionError("evaluated before the output path was checked")
    monkeypatch.setattr(pairedframe.evaluation, "evaluate", never)
    for path, message in ((tmp_path, r"--output '[^']+' is a folder; name the file to write"),
                          (tmp_path / "nowhere" / "c.csv", r"the folder '[^']+nowhere' does not exist; create it first"),
                          (tmp_path / "c.xlsx", r"--output 'c.xlsx': the suffix '.xlsx' names no format; use .txt, "
                                                r".json, .csv, .md, .markdown, .tex, or give --format")):
        res = run("-m", "nDCG@10", "-o", str(path))
        assert res.exit_code == 2, res.output
        assert re.search(message, " ".join(res.stderr.split())), res.stderr
        assert "Traceback" not in res.output
    assert not (tmp_path / "c.xlsx").exists()


@pytest.mark.parametrize("command", ["compare", "segments", "table"])
@pytest.mark.parametrize("names, same_as, dropped", [
    (["P", "P.5"], ["P.5"], "P@10, P@15"), (["P.5", "P.10"], ["P.5"], "'P.10' is ignored"),
    (["official", "P.5"], [n if n != "P" else "P.5" for n in OFFICIAL], "P@10, P@15")])
def test_compare_of_a_trec_eval_family_named_bare_and_with_parameters_compares_the_parameters_only(
        command, names, same_as, dropped, tmp_path):
    """-m P -m P.5 warned that trec_eval evaluates P with the parameters only (P@5), as evaluate does, and then
    failed: compare asked the comparison for P@10 ... P@1000 ("match nothing in the per-query table").  The
    result is that of the names without the dropped cutoffs (segments and table followed the warning already)."""
    extra = ["-B", "200", "-f", "csv"]
    if command == "segments":
        qids = sorted(set(QRELS.read_text().split()[0::4]))
        (tmp_path / "seg.csv").write_text("qid,segment_set,segment\n" + "".join(f"{q},all,all\n" for q in qids))
        extra += ["--segments", str(tmp_path / "seg.csv")]
    elif command == "table":
        extra = ["-B", "200", "-f", "markdown"]
    flags = [x for name in names for x in ("-m", name)]
    got = runner.invoke(app, [command, *BASE, *flags, *extra])
    assert got.exit_code == 0, got.output
    assert dropped in got.stderr
    if command != "table":  # a set leaves out what no comparison tests (warned); named one by one, it is refused
        same_as = [name for name in same_as if name not in ("num_q", "num_ret", "num_rel", "gm_map")]
    want = runner.invoke(app, [command, *BASE, *[x for name in same_as for x in ("-m", name)], *extra])
    assert want.exit_code == 0, want.output
    assert "P@5" in got.stdout and "P@10" not in got.stdout
    if command == "table":
        assert got.stdout == want.stdout
        return
    assert pl.read_csv(io.StringIO(got.stdout)).equals(pl.read_csv(io.StringIO(want.stdout)))
