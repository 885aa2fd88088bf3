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
    rows = json.loads(out.read_text())
    expected = pf.leaderboard(pf.evaluate(runs, qrels, ["AP"]), n_resamples=300, simultaneous=False).table
    assert [r["rank_high"] for r in rows] == expected["rank_high"].to_list()


def test_cli_leaderboard_refuses_an_unknown_format_naming_the_flag(tmp_path):
    qrels, runs = _runs_and_qrels(tmp_path)
    result = runner.invoke(app, ["leaderboard", qrels, *runs, "-m", "AP", "-f", "xlsx"])
    assert result.exit_code == 2 and "--format must be one of table, csv, json, markdown, latex" in result.stderr
