"""``pairedframe leaderboard``: the table pf.leaderboard gives, in the format asked for."""

from __future__ import annotations

import io
import json

import polars as pl
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.example import example_paths

runner = CliRunner()


def _runs_and_qrels(tmp_path):
    qrels, runs = example_paths()
    # a third run: the reranker's scores reversed within each query, a clearly worse ranking
    lines = [line.split() for line in open(runs[1]).read().splitlines() if line.strip()]
    worse = tmp_path / "input.reversed"
    worse.write_text("".join(f"{q} Q0 {d} {r} {-float(s)} reversed\n" for q, _, d, r, s, _ in lines))
    return str(qrels), [str(r) for r in runs] + [str(worse)]


def test_cli_leaderboard_csv_against_pf_leaderboard(tmp_path):
    qrels, runs = _runs_and_qrels(tmp_path)
    result = runner.invoke(app, ["leaderboard", qrels, *runs, "-m", "nDCG@10", "-B", "500", "-f", "csv"])
    assert result.exit_code == 0, result.output
    printed = pl.read_csv(io.StringIO(result.stdout))
    expected = pf.leaderboard(pf.evaluate(runs, qrels, ["nDCG@10"]), n_resamples=500).table
    assert printed["system"].to_list() == expected["system"].to_list()
    for column in ("rank", "rank_low", "rank_high"):
        assert printed[column].to_list() == expected[column].to_list()
    assert printed["mean"].to_list() == expected["mean"].to_list()


def test_cli_leaderboard_marginal_writes_json_by_suffix(tmp_path):
    qrels, runs = _runs_and_qrels(tmp_path)
    out = tmp_path / "board.json"
    result = runner.invoke(app, ["leaderboard", qrels, *runs, "-m", "AP", "-B", "300", "--marginal", "-o", str(out)])
    assert result.exit_code == 0, result.output
    rows = json.loads(out.read_text())["rows"]
    expected = pf.leaderboard(pf.evaluate(runs, qrels, ["AP"]), n_resamples=300, simultaneous=False).table
    assert [r["rank_high"] for r in rows] == expected["rank_high"].to_list()


def test_cli_leaderboard_refuses_an_unknown_format_naming_the_flag(tmp_path):
    qrels, runs = _runs_and_qrels(tmp_path)
    result = runner.invoke(app, ["leaderboard", qrels, *runs, "-m", "AP", "-f", "xlsx"])
    assert result.exit_code == 2 and "--format must be one of table, csv, json, markdown, latex" in result.stderr


def test_cli_leaderboard_json_holds_the_settings_beside_the_rows(tmp_path):
    """-f json wrote a bare list of rows, losing how they were computed: it now writes {"settings", "rows"} as
    compare -f json does, the settings those of pf.leaderboard's result."""
    qrels, runs = _runs_and_qrels(tmp_path)
    result = runner.invoke(app, ["leaderboard", qrels, *runs, "-m", "AP", "-B", "300", "--seed", "7", "--marginal",
                                 "--confidence-level", "0.9", "-f", "json"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    board = pf.leaderboard(pf.evaluate(runs, qrels, ["AP"]), n_resamples=300, seed=7, simultaneous=False,
                           confidence_level=0.9)
    assert printed["rows"] == json.loads(json.dumps(board.table.to_dicts()))
    settings = printed["settings"]
    assert {k: settings[k] for k in ("measure", "n_queries", "n_systems", "simultaneous", "confidence_level",
                                     "n_resamples", "seed", "method")} == {
        "measure": "AP", "n_queries": board.n_queries, "n_systems": 3, "simultaneous": False,
        "confidence_level": 0.9, "n_resamples": 300, "seed": 7, "method": board.settings["method"]}
    assert settings["critical_value"] == list(board.critical_value)          # marginal: one per system
    assert settings["ranking_tie_rule"] and settings["rel_level"] == 1       # the evaluation's, as compare's


def test_cli_leaderboard_csv_holds_the_rows_alone(tmp_path):
    qrels, runs = _runs_and_qrels(tmp_path)
    result = runner.invoke(app, ["leaderboard", qrels, *runs, "-m", "AP", "-B", "200", "-f", "csv"])
    assert result.exit_code == 0, result.output
    assert pl.read_csv(io.StringIO(result.stdout)).columns == ["system", "mean", "rank", "rank_low", "rank_high"]


def test_cli_leaderboard_refuses_a_second_measure_naming_m(tmp_path):
    """-m nDCG@10 -m AP silently ranked by AP alone: a second -m is now refused, saying to run once per measure."""
    qrels, runs = _runs_and_qrels(tmp_path)
    result = runner.invoke(app, ["leaderboard", qrels, *runs, "-m", "nDCG@10", "-m", "AP", "-B", "200"])
    assert result.exit_code == 2, result.output
    assert ("leaderboard ranks by one measure; got -m nDCG@10 -m AP: run it once per measure"
            in " ".join(result.stderr.split()))


def test_cli_leaderboard_refuses_a_string_valued_measure_naming_m_not_a_python_argument(tmp_path):
    """-m relstring said "`per_query`: measure(s) ['RelString@10'] are string-valued (Evaluation.text)": the
    library's argument, which the command line has no option for."""
    qrels, runs = _runs_and_qrels(tmp_path)
    result = runner.invoke(app, ["leaderboard", qrels, *runs, "-m", "relstring", "-B", "200"])
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    assert said.startswith("pairedframe: error: -m relstring: a string-valued measure"), said
    assert "per_query" not in said and "Evaluation.text" not in said


def test_cli_leaderboard_refuses_a_set_of_measures_naming_m(tmp_path):
    """-m official said "`measure` is required: the table holds 29 measures" though -m was given."""
    qrels, runs = _runs_and_qrels(tmp_path)
    result = runner.invoke(app, ["leaderboard", qrels, *runs, "-m", "official", "-B", "200"])
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    assert said.startswith("pairedframe: error: -m 'official' names a set of 29 measures (['NumQ', "), said
    assert said.endswith("but a leaderboard ranks by exactly one: give one, e.g. -m AP"), said
    assert "is required" not in said
