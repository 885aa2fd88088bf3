"""Every entry point refuses a bad option by its name before any work (issue 21 item 1: one checked options
record per entry point, built on options.py's shared base), and the CLI names the flag the user typed."""

from __future__ import annotations

import io
import re
from pathlib import Path
import warnings

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.comparison.plan import analyze
from pairedframe.errors import PlanError
from pairedframe.example import example_paths

QRELS, RUNS = example_paths()
runner = CliRunner()


@pytest.fixture(scope="module")
def ev():
    return pf.evaluate(RUNS, QRELS, ["AP"])


@pytest.fixture(scope="module")
def segments(ev):
    qids = ev.per_query["qid"].unique().sort().to_list()
    return pl.DataFrame({"qid": qids, "segment_set": "parity", "segment": [str(int(q) % 2) for q in qids]})


def _two_judgments(ev):
    pq = ev.per_query
    return pl.concat([pq.with_columns(pl.lit("proxy").alias("judgments")),
                      pq.with_columns(pl.lit("gold").alias("judgments"))])


def _values(ev, system):
    return dict(ev.per_query.filter(pl.col("system") == system).select("qid", "value").iter_rows())


# (entry point, the bad option, the text the error must hold: the parameter's name in backquotes)
CASES = {
    "compare": (lambda ev, seg, **kw: pf.compare(ev, baseline="bm25", **kw), [
        ({"confidence_level": 2}, "`confidence_level` must be in (0, 1)"),
        ({"n_resamples": 1}, "`n_resamples` must be an integer >= 2"),
        ({"seed": -1}, "`seed` must be a non-negative integer"),
        ({"alternative": "up"}, "`alternative` must be"),
        ({"correction": "bonferroni"}, "`correction` must be one of")]),
    "compare_clustered": (lambda ev, seg, **kw: pf.compare_clustered(
        ev.per_query.with_columns(pl.col("qid").alias("cluster")), baseline="bm25", **kw), [
        ({"confidence_level": 0}, "`confidence_level` must be in (0, 1)"),
        ({"n_resamples": 1.5}, "`n_resamples` must be an integer >= 2"),
        ({"seed": True}, "`seed` must be a non-negative integer")]),
    "compare_segments": (lambda ev, seg, **kw: pf.compare_segments(ev, seg, baseline="bm25", **kw), [
        ({"confidence_level": 1.5}, "`confidence_level` must be in (0, 1)"),
        ({"n_resamples": 1}, "`n_resamples` must be an integer >= 2"),
        ({"seed": -2}, "`seed` must be a non-negative integer"),
        ({"alternative": "up"}, "`alternative` must be"),
        ({"correction": "none"}, "`correction` must be one of ('bh', 'holm')"),
        ({"test": "z"}, "`test` must be one of"),
        ({"interval": "bca"}, "`interval` must be one of")]),
    "ppi_compare": (lambda ev, seg, **kw: pf.ppi_compare(_values(ev, "bm25"), _values(ev, "reranker"),
                                                         _values(ev, "bm25"), _values(ev, "reranker"), **kw), [
        ({"confidence_level": 2}, "`confidence_level` must be in (0, 1)"),
        ({"alternative": "up"}, "`alternative` must be"),
        ({"lam": 2}, "`lam` must be in [0, 1]"),
        ({"ddof": 2}, "`ddof` must be 0 or 1"),
        ({"method": "bootstrap"}, "`method` must be one of")]),
    "ppi_compare_segments": (lambda ev, seg, **kw: pf.ppi_compare_segments(_two_judgments(ev), baseline="bm25",
                                                                           **kw), [
        ({"confidence_level": -1}, "`confidence_level` must be in (0, 1)"),
        ({"lam": "x"}, "`lam` must be None or a real number"),
        ({"method": "bootstrap"}, "`method` must be one of")]),
    "rank_agreement": (lambda ev, seg, **kw: pf.rank_agreement(ev, ev, measure="AP", **kw), [
        ({"confidence_level": 2}, "`confidence_level` must be in (0, 1)"),
        ({"n_resamples": 1}, "`n_resamples` must be an integer >= 2"),
        ({"seed": -1}, "`seed` must be a non-negative integer"),
        ({"rbo_p": 1}, "`rbo_p` must be in the open interval (0, 1)")]),
    "label_agreement": (lambda ev, seg, **kw: pf.label_agreement(QRELS, QRELS, **kw), [
        ({"confidence_level": 1}, "`confidence_level` must be in (0, 1)")]),
    "results_table": (lambda ev, seg, **kw: pf.results_table(ev, **kw), [
        ({"confidence_level": 95}, "`confidence_level` must be in (0, 1)"),
        ({"digits": 11}, "`digits` must be an integer in [0, 10]"),
        ({"correction": "bonferroni"}, "`correction` must be one of")]),
}


@pytest.mark.parametrize(("door", "option", "message"), [
    (door, option, message) for door, (_, bad) in CASES.items() for option, message in bad],
    ids=lambda v: v if isinstance(v, str) and not v.startswith("`") else None)
def test_entry_point_refuses_a_bad_option_by_its_name(ev, segments, door, option, message):
    call = CASES[door][0]
    with pytest.raises((ValueError, TypeError)) as err:
        call(ev, segments, **option)
    assert message in str(err.value), str(err.value)


@pytest.mark.parametrize(("key", "value"), [("confidence_level", "1.5"), ("seed", "-1"), ("n_resamples", "1"),
                                            ("margin", "-0.1")])
def test_analyze_refuses_a_bad_plan_option_by_its_plan_key(tmp_path, ev, key, value):
    """analyze's options are the plan's keys: the frozen Plan is checked once when the file is read."""
    keys = {"confidence_level": "0.95", "margin": "0.01", "seed": "0", "n_resamples": "200", key: value}
    path = tmp_path / "plan.toml"
    path.write_text("".join(f"{k} = {v}\n" for k, v in keys.items()) + '[systems]\nbaseline = "bm25"\n'
                    'candidate = "reranker"\n[[endpoints]]\nmeasure = "AP"\ndirection = "higher is better"\n'
                    'role = "primary"\n')
    with pytest.raises(PlanError, match=f"^plan key {key} "):
        analyze(path, ev.per_query)


def _cli(*args):
    return runner.invoke(app, list(args))


def _segments_file(tmp_path, segments):
    path = tmp_path / "segments.csv"
    segments.write_csv(path)
    return str(path)


@pytest.mark.parametrize(("args", "flag", "parameter"), [
    (["--confidence-level", "2"], "--confidence-level must be in (0, 1), got 2.0", "confidence_level"),
    (["-B", "1"], "--n-resamples must be an integer >= 2, got 1", "n_resamples"),
    (["--seed", "-1"], "--seed must be a non-negative integer, got -1", "seed"),
    (["--correction", "none"], "--correction must be one of ('bh', 'holm'), got 'none'", "correction"),
    (["--test", "z"], "--test must be one of ('randomization', 't'), got 'z'", "test"),
    (["--alternative", "up"], "--alternative must be 'two-sided', 'greater' or 'less', got 'up'", "alternative"),
])
def test_segments_cli_option_errors_name_the_flag(tmp_path, segments, args, flag, parameter):
    res = _cli("segments", str(QRELS), *map(str, RUNS), "--segments", _segments_file(tmp_path, segments), "-m", "AP",
               *args)
    assert res.exit_code == 2, res.output
    assert flag in res.stderr and re.search(rf"(?<![-\w]){parameter}\b", res.stderr) is None, res.stderr


@pytest.mark.parametrize(("command", "args", "flag", "parameter"), [
    ("compare", ["--confidence-level", "2"], "--confidence-level must be in (0, 1), got 2.0", "confidence_level"),
    ("compare", ["--seed", "-1"], "--seed must be a non-negative integer, got -1", "seed"),
    ("compare", ["--correction", "bonferroni"], "--correction must be one of", "correction"),
    ("table", ["--confidence-level", "2"], "--confidence-level must be in (0, 1), got 2.0", "confidence_level"),
])
def test_compare_and_table_cli_option_errors_name_the_flag(command, args, flag, parameter):
    res = _cli(command, str(QRELS), *map(str, RUNS), "-m", "AP", *args)
    assert res.exit_code == 2, res.output
    assert flag in res.stderr and re.search(rf"(?<![-\w]){parameter}\b", res.stderr) is None, res.stderr


@pytest.mark.parametrize("command, extra", [("evaluate", []), ("report", ["-o", "r.html"])])
@pytest.mark.parametrize("depth", ["0", "-3"])
def test_cli_depth_error_says_what_a_cli_user_types_not_none(tmp_path, command, extra, depth):
    """``or None`` is the Python API's word (pf.evaluate(depth=None)); on the command line no limit is
    the option left out."""
    extra = [str(tmp_path / e) if e.endswith(".html") else e for e in extra]
    res = _cli(command, str(QRELS), *map(str, RUNS), "-m", "AP", "-M", depth, *extra)
    assert res.exit_code == 2, res.output
    assert "-M/--depth must be a positive integer" in res.stderr and "leave the option out" in res.stderr
    assert "None" not in res.stderr and res.stderr.endswith(f"got {depth}\n"), res.stderr
    with pytest.raises(ValueError, match=r"^depth must be a positive integer or None, got 0$"):
        pf.evaluate(RUNS, QRELS, ["AP"], depth=0)

@pytest.mark.parametrize("how", [{"baseline": "bm25"}, {"baseline": ["bm25", "reranker"]},
                                 {"pairs": "all"}])
def test_compare_checks_its_options_once(ev, monkeypatch, how):
    """pf.compare checks its options into one record and hands it down: the single-baseline layer and the
    pairing do not check them again (issue 21)."""
    from pairedframe.comparison import options

    calls = []
    checked = options.check_resampling
    monkeypatch.setattr(options, "check_resampling", lambda *a, **k: calls.append(a) or checked(*a, **k))
    pf.compare(ev, **how, n_resamples=200)
    assert len(calls) == 1, calls


@pytest.mark.parametrize("door", ["compare", "compare_clustered", "compare_segments"])
def test_every_seed_up_to_2_64_minus_1_is_recorded_as_given_and_a_larger_one_refused_before_any_work(ev, segments,
                                                                                                    door):
    """seed=2**63 failed after all the resampling, in polars' u64 -> i64 cast of the result's seed column; the
    column is unsigned 64-bit now, and a seed it cannot hold is refused by name with the other options."""
    call = CASES[door][0]
    for seed in (2**63, 2**64 - 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = call(ev, segments, n_resamples=99, seed=seed)
        assert got.schema["seed"] == pl.UInt64 and got["seed"].to_list() == [seed] * got.height
    with pytest.raises(ValueError, match=r"`seed` must be at most 2\*\*64 - 1 \(18446744073709551615\), got "
                                         r"18446744073709551616"):
        call(ev, segments, n_resamples=10**12, seed=2**64)     # refused before the absurd n_resamples is costed


def test_cli_compare_takes_a_seed_above_2_63(tmp_path):
    res = _cli("compare", str(QRELS), *map(str, RUNS), "-m", "AP", "-B", "99", "--seed", str(2**63), "-f", "csv")
    assert res.exit_code == 0, res.output
    assert pl.read_csv(io.StringIO(res.stdout), schema_overrides={"seed": pl.UInt64})["seed"].to_list() == [2**63]
    res = _cli("compare", str(QRELS), *map(str, RUNS), "-m", "AP", "--seed", str(2**64))
    assert res.exit_code == 2 and "--seed must be at most 2**64 - 1" in res.stderr, res.output


@pytest.mark.parametrize("gate", [[], ["--fail-if", "AP > -1"]])
@pytest.mark.parametrize("worst", ["0", "-2"])
def test_compare_cli_refuses_worst_below_one_before_the_evaluation(monkeypatch, gate, worst):
    """--worst 0 used to pass unnoticed without a gate and, with one, to fail only after the evaluation and
    the GATE FAILED line, naming worst_queries' `k`."""
    import pairedframe.evaluation as evaluation

    def no_evaluation(*args, **kwargs):
        raise AssertionError("the evaluation ran")

    monkeypatch.setattr(evaluation, "evaluate", no_evaluation)
    res = _cli("compare", str(QRELS), *map(str, RUNS), "-m", "AP", "--worst", worst, *gate)
    assert res.exit_code == 2, res.output
    assert res.stderr == f"pairedframe: error: --worst must be a positive integer (the worst queries a failing " \
                         f"gate prints), got {worst}\n", res.stderr


@pytest.mark.parametrize("command, name", [("table", ""), ("report", "x.html"), ("segments", ""), ("analyze", "")])
def test_an_output_that_is_a_folder_is_refused_before_the_work_naming_the_option(tmp_path, command, name):
    """`table -o DIR` evaluated and compared, then failed with [Errno 21] Is a directory; every command
    writing a file refuses a folder first, naming --output (pf's save methods name `path`)."""
    qrels, runs = example_paths()
    folder = tmp_path / name if name else tmp_path
    folder.mkdir(exist_ok=True)
    args = {"table": ["table", str(qrels), *map(str, runs), "-m", "AP", "-B", "99"],
            "report": ["report", str(qrels), *map(str, runs), "-m", "AP", "-B", "99"],
            "segments": ["segments", str(qrels), *map(str, runs), "-m", "AP", "-B", "99", "--segments", str(qrels)],
            "analyze": ["analyze", str(qrels), "--plan",
                        str(Path(__file__).parents[1] / "examples" / "plan.toml")]}[command]
    result = runner.invoke(app, [*args, "-o", str(folder)])
    assert result.exit_code == 2, result.output
    assert f"--output {str(folder)!r} is a folder; name the file to write" in result.stderr


def test_results_table_save_to_a_folder_is_refused_naming_path(tmp_path):
    qrels, runs = example_paths()
    table = pf.results_table(pf.evaluate(runs, qrels, ["AP"]), baseline="bm25", n_resamples=99)
    with pytest.raises(ValueError, match=f"path {str(tmp_path)!r} is a folder; name the file to write"):
        table.save(tmp_path)
