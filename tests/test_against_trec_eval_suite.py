"""pairedframe against trec_eval's own test suite (expected outputs in ../shared/data/trec_eval).

Every line of an expected output whose measure pairedframe implements must be reproduced exactly,
in trec_eval's order and format, at the printed 4 decimals.
"""

from __future__ import annotations

import pytest

import pairedframe as pf
from pairedframe.io import read_run_tag, system_name_from_path

pytestmark = pytest.mark.shared_data

# All trec_eval measures pairedframe implements, as trec_eval's `-m all_trec` prints them.
IMPLEMENTED = ["official", "ndcg", "ndcg_cut", "map_cut", "recall", "success"]

CASES = [
    # expected file, qrels, run, options (trec_eval command in the data README)
    ("out.test.aq", "qrels.test", "results.test", {}),
    ("out.test.aq", "qrels.test.with-comments", "results.test", {}),
    ("out.test.aqc", "qrels.test", "results.trunc", {"complete": True}),
    ("out.test.aqcM", "qrels.test", "results.trunc", {"complete": True, "depth": 100}),
    ("out.test.aql", "qrels.rel_level", "results.test", {"rel_level": 2}),
    ("out.comment.test", "qrels.comment.test", "results.comment.test", {}),
    ("out.test", "qrels.test", "results.test", {}),
    ("out.test", "qrels.test.with-comments", "results.test", {}),
]


def _our_names(ev: pf.Evaluation) -> set[str]:
    return {m.trec_name for m in ev.measures} | {"runid"}


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize(("expected", "qrels", "run", "options"), CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_output_against_trec_eval_suite(shared_data, engine, expected, qrels, run, options):
    folder = shared_data / "trec_eval"
    ev = pf.evaluate(folder / run, folder / qrels, IMPLEMENTED, engine=engine, **options)
    want_lines = (folder / expected).read_text().splitlines(keepends=True)
    per_query = any(line.split("\t")[1] != "all" for line in want_lines)
    names = _our_names(ev)
    want = [line for line in want_lines if line.split("\t")[0].strip() in names]
    if not per_query or expected == "out.comment.test":
        # trec_eval without -q prints only the `all` block.
        want = [line for line in want if line.split("\t")[1] == "all"]
    got = ev.to_trec(per_query=per_query, runids={system_name_from_path(run): read_run_tag(folder / run)})
    got_lines = got.splitlines(keepends=True)
    # Only measures present in the expected file are compared (out.comment.test has the default set).
    present = {line.split("\t")[0].strip() for line in want_lines}
    got_lines = [line for line in got_lines if line.split("\t")[0].strip() in present]
    assert len(want) >= 15
    assert got_lines == want


def test_cli_trec_format_against_trec_eval_suite(shared_data, capsys):
    from pairedframe.cli import app
    from typer.testing import CliRunner

    folder = shared_data / "trec_eval"
    result = CliRunner().invoke(app, ["evaluate", "-q", "-c", "-M", "100", "--format", "trec",
                                      "-m", "official", str(folder / "qrels.test"), str(folder / "results.trunc")])
    assert result.exit_code == 0, result.output
    got = result.stdout.splitlines(keepends=True)
    names = {line.split("\t")[0].strip() for line in got}
    want = [line for line in (folder / "out.test.aqcM").read_text().splitlines(keepends=True)
            if line.split("\t")[0].strip() in names]
    assert got == want
