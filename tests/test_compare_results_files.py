"""``pairedframe compare`` of per-query results files (trec_eval -q output, pairedframe evaluate -q tables):
compared as ``pf.compare`` compares ``pf.read_results`` of them, without qrels."""

from __future__ import annotations

import io

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.example import example_paths

QRELS, RUNS = example_paths()
runner = CliRunner()


@pytest.fixture
def results_files(tmp_path):
    """bm25's per-query AP and P@10 as trec_eval -q output (map, P_10), the reranker's as a pairedframe CSV."""
    trec = runner.invoke(app, ["evaluate", "-q", "-m", "map", "-m", "P.10", "-f", "trec", str(QRELS), str(RUNS[0])])
    assert trec.exit_code == 0, trec.output
    bm25 = tmp_path / "bm25.q"
    bm25.write_text(trec.stdout, encoding="utf-8")
    reranker = tmp_path / "reranker.csv"
    pf.evaluate(str(RUNS[1]), str(QRELS), ["AP", "P@10"]).per_query.write_csv(reranker)
    return bm25, reranker


def test_compare_of_results_files_matches_pf_compare_of_read_results(results_files):
    res = runner.invoke(app, ["compare", *map(str, results_files), "-m", "AP", "-m", "P@10", "-B", "500",
                              "--seed", "4", "-f", "csv"])
    assert res.exit_code == 0, res.output
    got = pl.read_csv(io.StringIO(res.stdout))
    want = pf.compare(pf.read_results(list(results_files)), baseline="bm25.q", measures=["AP", "P@10"],
                      n_resamples=500, seed=4)
    assert got["measure"].to_list() == want["measure"].to_list() == ["AP", "P@10"]
    assert got["system"].to_list() == ["reranker"] * 2 and got["baseline"].to_list() == ["bm25.q"] * 2
    for column in ("delta", "ci_low", "ci_high", "pvalue"):
        assert got[column].to_list() == pytest.approx(want[column].to_list(), rel=1e-12), column


def test_compare_of_results_files_without_measure_compares_every_measure_as_pf_compare(results_files):
    res = runner.invoke(app, ["compare", *map(str, results_files), "-B", "300", "--seed", "2", "-f", "csv"])
    assert res.exit_code == 0, res.output
    got = pl.read_csv(io.StringIO(res.stdout))
    want = pf.compare(pf.read_results(list(results_files)), baseline="bm25.q", n_resamples=300, seed=2)
    assert sorted(got["measure"].to_list()) == sorted(want["measure"].to_list()) == ["AP", "P@10"]
    assert got.sort("measure")["pvalue"].to_list() == pytest.approx(want.sort("measure")["pvalue"].to_list(), rel=1e-12)


def test_compare_of_runs_without_measure_is_refused_naming_minus_m():
    res = runner.invoke(app, ["compare", str(QRELS), *map(str, RUNS)])
    assert res.exit_code == 2 and "name at least one measure with -m" in res.stderr


def test_compare_gate_on_results_files_without_measure_names_the_measures_compared(results_files):
    res = runner.invoke(app, ["compare", *map(str, results_files), "-B", "200", "--fail-if", "nDCG@10 < 0"])
    assert res.exit_code == 2 and "'nDCG@10' is not among the compared measures ['AP', 'P@10']" in \
        " ".join(res.stderr.split())


def test_compare_gate_on_a_measure_compare_left_out_is_refused_not_passed(tmp_path):
    # without -m every measure of the files is compared, but NumRel / NumRet are left out: a gate on one of
    # them tested nothing and passed (outside tester); it is refused, naming what was compared
    files = []
    for run in RUNS:
        res = runner.invoke(app, ["evaluate", "-q", "-f", "trec", "-m", "map", "-m", "num_rel", str(QRELS), str(run)])
        assert res.exit_code == 0, res.output
        files.append(tmp_path / f"{run.name}.q")
        files[-1].write_text(res.stdout, encoding="utf-8")
    res = runner.invoke(app, ["compare", *map(str, files), "-B", "200", "--fail-if", "num_rel < 1"])
    message = " ".join(res.stderr.split())
    assert res.exit_code == 2 and "'NumRel' is not among the compared measures ['map']" in message, res.output
    assert "gate passed" not in message


def test_compare_gate_on_results_files_finds_the_measure_under_its_trec_eval_name(tmp_path, results_files):
    bm25, _ = results_files
    renamed = tmp_path / "again.q"       # both files trec_eval's: the measure stays 'map' in the result
    renamed.write_text(bm25.read_text(encoding="utf-8").replace("0.", "0.0", 3), encoding="utf-8")
    res = runner.invoke(app, ["compare", str(bm25), str(renamed), "-m", "AP", "-B", "200",
                              "--fail-if", "AP < 1"])
    assert res.exit_code == 1, res.output
    assert "GATE FAILED: again.q AP" in res.stderr and "worst #1: qid" in res.stderr


def test_compare_of_results_files_beside_qrels_names_what_each_argument_is(results_files):
    res = runner.invoke(app, ["compare", str(QRELS), *map(str, results_files), "-m", "AP"])
    assert res.exit_code == 2
    message = " ".join(res.stderr.split())
    assert "bm25.q is trec_eval -q output" in message and "reranker.csv is a per-query results table" in message
    assert f"{QRELS} is not" in message and "only per-query results files" in message


def test_compare_of_results_files_refuses_an_evaluation_option_naming_it(results_files):
    res = runner.invoke(app, ["compare", *map(str, results_files), "-m", "AP", "-l", "2"])
    assert res.exit_code == 2
    assert "-l: an evaluation option" in " ".join(res.stderr.split())


def test_compare_of_one_file_of_unknown_format_says_so(tmp_path):
    """A file alone that is neither a results file nor a display table: it names the file, says its results
    format is unknown and lists the known ones, and what it would need as QRELS."""
    notes = tmp_path / "ev.md"
    notes.write_text("some notes on the runs\n")
    res = runner.invoke(app, ["compare", str(notes), "-m", "AP"])
    assert res.exit_code == 2
    message = " ".join(res.stderr.split())
    assert f"{notes}: not a per-query results file (unknown results format; use one of .csv" in message
    assert "as QRELS it needs at least two runs" in message


@pytest.mark.parametrize("fmt, kind", [("markdown", "a markdown table (-f markdown)"),
                                       ("table", "a terminal table (-f table, the default)")])
def test_compare_of_evaluate_display_tables_is_refused_naming_file_and_format(tmp_path, fmt, kind):
    """evaluate -q -f markdown|table output fed to compare (the outside tester): it said "name at least one
    measure with -m ... per-query results files alone ..." and, with -m, "compare needs at least two runs"
    (taken as QRELS and one run); now the file, its format and what to write instead."""
    files = []
    for run in RUNS:
        out = runner.invoke(app, ["evaluate", "-q", "-f", fmt, "-m", "AP", str(QRELS), str(run)])
        assert out.exit_code == 0, out.output
        files.append(tmp_path / f"{run.name}.{fmt}")
        files[-1].write_text(out.stdout, encoding="utf-8")
    for extra in ([], ["-m", "AP"]):
        res = runner.invoke(app, ["compare", *map(str, files), *extra])
        message = " ".join(res.stderr.split())
        assert res.exit_code == 2 and f"{files[0]}: {kind}" in message and "-f csv, json or trec" in message
    with pytest.raises(pf.InputFormatError, match=r"-f csv, json or trec"):
        pf.read_results(files[1])


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown"])
def test_compare_of_a_comparison_output_is_refused_as_one(tmp_path, results_files, fmt):
    """compare -f csv output fed back to compare said "unknown results format; use one of .csv" of a .csv."""
    out = runner.invoke(app, ["compare", *map(str, results_files), "-m", "AP", "-B", "100", "-f", fmt])
    assert out.exit_code == 0, out.output
    compared = tmp_path / f"cmp.{fmt}"
    compared.write_text(out.stdout, encoding="utf-8")
    for args in ([compared], [compared, results_files[1]], [results_files[1], compared]):
        res = runner.invoke(app, ["compare", *map(str, args), "-m", "AP"])
        assert res.exit_code == 2 and f"{compared}:" in res.stderr
        assert "this is a comparison's output" in " ".join(res.stderr.split())


def test_compare_of_qrels_and_one_run_names_what_it_took_as_qrels():
    res = runner.invoke(app, ["compare", str(QRELS), str(RUNS[0]), "-m", "AP"])
    assert res.exit_code == 2
    assert f"besides QRELS ({QRELS} was taken as QRELS and bm25 as the runs)" in " ".join(res.stderr.split())


def test_compare_of_one_results_file_of_one_system_names_the_system_it_holds(results_files):
    res = runner.invoke(app, ["compare", str(results_files[0]), "-m", "AP"])
    assert res.exit_code == 2
    assert "the per-query results files hold 1: 'bm25.q'" in " ".join(res.stderr.split())


def test_compare_of_one_results_file_of_two_systems_compares_them(tmp_path):
    both = tmp_path / "both.csv"
    pf.evaluate([str(r) for r in RUNS], str(QRELS), ["AP"]).per_query.write_csv(both)
    res = runner.invoke(app, ["compare", str(both), "-m", "AP", "-B", "200", "-f", "csv"])
    assert res.exit_code == 0, res.output
    got = pl.read_csv(io.StringIO(res.stdout))
    assert got.select("system", "baseline").row(0) == ("reranker", "bm25")


def test_results_files_refuse_exactly_the_evaluation_options_off_their_default_against_evaluation_defaults(
        results_files):
    """compare's check of evaluation options given with results files reads its defaults from
    EVALUATION_DEFAULTS (the options' own defaults): every default passes, every other value is named by flag."""
    from pairedframe.cli.compare_inputs import per_query_results
    from pairedframe.cli.eval_options import EVALUATION_DEFAULTS

    assert per_query_results(list(results_files), dict(EVALUATION_DEFAULTS)) is not None
    changed = {"complete": True, "rel_level": 2, "depth": 5, "score_precision": "float32", "judged_only": True,
               "grades": "trec_eval"}
    flags = {"complete": "-c", "rel_level": "-l", "depth": "-M", "score_precision": "--score-precision",
             "judged_only": "-J", "grades": "--grades"}
    assert set(changed) == set(EVALUATION_DEFAULTS)
    for name, value in changed.items():
        with pytest.raises(ValueError, match=f"^{flags[name]}: an evaluation option"):
            per_query_results(list(results_files), {**EVALUATION_DEFAULTS, name: value})


@pytest.mark.parametrize("name", ["+-rm3", "+=b", "─a"])
def test_per_query_csv_whose_first_system_starts_like_a_table_border_is_read_not_refused(tmp_path, name):
    """The tester of the display-table refusal: a per-query CSV whose first row's system starts with '+-' (a
    system '+-rm3') was refused as a terminal table; a border line is box characters only."""
    qrels, runs = example_paths()
    ev = pf.evaluate({name: str(runs[0]), "b": str(runs[1])}, str(qrels), ["nDCG@10"])
    path = tmp_path / "own.csv"
    ev.per_query.write_csv(path)
    assert pf.read_results(path).height == ev.per_query.height
    result = runner.invoke(app, ["compare", str(path), "-m", "nDCG@10", "-f", "csv"])
    assert result.exit_code == 0, result.output
