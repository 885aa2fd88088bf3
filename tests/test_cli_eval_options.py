"""Every command that evaluates run files against qrels offers evaluate's evaluation options (-c, -l, -M,
--score-precision, -J, --grades), with the same flags, help and defaults, and passes them to the
evaluation: its means equal ``pairedframe evaluate``'s under the same option."""

from __future__ import annotations

import csv
import inspect
import io
import json
import re

import pytest
import typer
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.cli.eval_options import EVALUATION_DEFAULTS

runner = CliRunner()
EVALUATION_OPTIONS = list(EVALUATION_DEFAULTS)
#: The commands reading QRELS and RUN arguments besides evaluate, which defines the options.
COMMANDS = ["compare", "table", "segments", "report", "leaderboard"]
#: (extra argument(s), what the option changes) per option; each changes AP on the files below.
OPTION_ARGS = {"complete": ["-c"], "rel_level": ["-l", "2"], "depth": ["-M", "2"],
               "score_precision": ["--score-precision", "float32"], "judged_only": ["-J"],
               "grades": ["--grades", "trec_eval"]}


def _click_commands() -> dict:
    return typer.main.get_command(app).commands


def _evaluating_commands() -> list[str]:
    """Commands with QRELS and RUNS arguments: those that evaluate run files."""
    return sorted(name for name, cmd in _click_commands().items()
                  if {"qrels", "runs"} <= {p.name for p in cmd.params if p.param_type_name == "argument"})


def _option(command: str, name: str) -> tuple:
    param = next(p for p in _click_commands()[command].params if p.name == name)
    return sorted(param.opts), sorted(param.secondary_opts), param.help, param.default, param.is_flag


def test_evaluating_commands_are_evaluate_and_the_ones_these_tests_cover():
    assert _evaluating_commands() == sorted(["evaluate", *COMMANDS])


@pytest.mark.parametrize("command", COMMANDS)
def test_every_evaluating_command_offers_evaluates_evaluation_options(command):
    for name in EVALUATION_OPTIONS:
        assert _option(command, name) == _option("evaluate", name), (command, name)


def test_evaluation_option_defaults_are_those_of_pf_evaluate():
    signature = inspect.signature(pf.evaluate).parameters
    assert {name: signature[name].default for name in EVALUATION_OPTIONS} == EVALUATION_DEFAULTS
    assert {name: _option("evaluate", name)[3] for name in EVALUATION_OPTIONS} == EVALUATION_DEFAULTS


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two runs and qrels on which each option changes AP: unjudged documents first (-J), grade 2 and 1
    documents (-l 2), scores equal in float32 with the relevant one ranked above zn only in float64
    (--score-precision; float32 ties go to docno descending), a judged query no run retrieves (-c),
    relevant documents below rank 2 (-M 2); grades.qrels holds a grade 1.5 (--grades trec_eval reads 1)."""
    d = tmp_path_factory.mktemp("options")
    qrels, runs = [], {"a": [], "b": []}
    for i in range(1, 7):
        q = f"q{i}"
        qrels += [f"{q} 0 r2 2", f"{q} 0 r1 1", f"{q} 0 zn 0", f"{q} 0 x{i} 1"]
        a = [*(f"u{k}" for k in range(i % 3 + 1)), "r1", "zn", "r2", f"x{i}"]
        b = ["r2", *(f"u{k}" for k in range(i % 2 + 1)), "zn", "r1", f"x{i}"]
        for name, ranking in (("a", a), ("b", b)):
            low = ranking.index("r2" if name == "a" else "r1")
            scores = [10.0 - k if k < low else 2.0 - k / 10 for k in range(len(ranking))]
            # zn before the relevant document: equal in float32, where docno descending puts zn first
            scores[low - 1], scores[low] = 3.0, 3.00000001
            runs[name] += [f"{q} Q0 {doc} {k + 1} {s!r} {name}" for k, (doc, s) in enumerate(zip(ranking, scores))]
    qrels.append("q9 0 r9 1")                                   # judged, retrieved by no run: -c scores it 0
    graded = [line.replace("q1 0 r1 1", "q1 0 r1 1.5") for line in qrels]
    paths = {"qrels": d / "main.qrels", "grades": d / "grades.qrels", "a": d / "a.run", "b": d / "b.run",
             "segments": d / "segments.csv"}
    paths["qrels"].write_text("\n".join(qrels) + "\n")
    paths["grades"].write_text("\n".join(graded) + "\n")
    for name in ("a", "b"):
        paths[name].write_text("\n".join(runs[name]) + "\n")
    paths["segments"].write_text("qid,segment_set,segment\n" + "".join(f"q{i},all,all\n" for i in (*range(1, 7), 9)))
    return {k: str(v) for k, v in paths.items()}


def _qrels_for(option: str, files: dict) -> str:
    return files["grades" if option == "grades" else "qrels"]


def _evaluate_means(files: dict, option: str, extra: list[str]) -> dict[str, float]:
    res = runner.invoke(app, ["evaluate", _qrels_for(option, files), f"a={files['a']}", f"b={files['b']}",
                              "-m", "AP", "-f", "csv", *extra])
    assert res.exit_code == 0, res.output
    return {row["system"]: float(row["value"]) for row in csv.DictReader(io.StringIO(res.stdout))}


def _compare_means(files, option, extra, tmp_path, monkeypatch):
    res = runner.invoke(app, ["compare", _qrels_for(option, files), f"a={files['a']}", f"b={files['b']}", "-m", "AP",
                              "--test", "t", "-f", "json", *extra])
    assert res.exit_code == 0, res.output
    row, = json.loads(res.stdout)["rows"]
    return {"a": row["baseline_mean"], "b": row["system_mean"]}


def _segments_means(files, option, extra, tmp_path, monkeypatch):
    res = runner.invoke(app, ["segments", _qrels_for(option, files), f"a={files['a']}", f"b={files['b']}", "-m", "AP",
                              "--segments", files["segments"], "--test", "t", "-f", "json", *extra])
    assert res.exit_code == 0, res.output
    row, = json.loads(res.stdout)["rows"]
    return {"a": row["baseline_mean"], "b": row["system_mean"]}


def _table_means(files, option, extra, tmp_path, monkeypatch):
    res = runner.invoke(app, ["table", _qrels_for(option, files), f"a={files['a']}", f"b={files['b']}", "-m", "AP",
                              "--test", "t", "-f", "markdown", "--digits", "6", *extra])
    assert res.exit_code == 0, res.output
    rows = [line.split("|")[1:3] for line in res.stdout.splitlines() if line.startswith("| a") or line.startswith("| b")]
    return {name.split()[0]: float(re.search(r"\d+\.\d+", value).group()) for name, value in rows}


def _report_means(files, option, extra, tmp_path, monkeypatch):
    """The report writes HTML: its evaluation, caught on the way, gives the means."""
    import pairedframe.report.html_report as html_report

    seen = []

    def spy(*args, **kwargs):
        seen.append(pf.evaluate(*args, **kwargs))
        return seen[-1]
    monkeypatch.setattr(html_report, "evaluate", spy)
    out = tmp_path / "r.html"
    res = runner.invoke(app, ["report", _qrels_for(option, files), f"a={files['a']}", f"b={files['b']}", "-m", "AP",
                              "--test", "t", "-o", str(out), *extra])
    assert res.exit_code == 0, res.output
    assert out.exists()
    ev, = seen
    return {s: v for s, v in ev.summary().select("system", "value").iter_rows()}


def _leaderboard_means(files, option, extra, tmp_path, monkeypatch):
    res = runner.invoke(app, ["leaderboard", _qrels_for(option, files), f"a={files['a']}", f"b={files['b']}", "-m",
                              "AP", "-B", "100", "-f", "json", *extra])
    assert res.exit_code == 0, res.output
    return {row["system"]: row["mean"] for row in json.loads(res.stdout)["rows"]}


MEANS = {"compare": _compare_means, "segments": _segments_means, "table": _table_means, "report": _report_means,
         "leaderboard": _leaderboard_means}


def _check_means_match_evaluate(command, option, files, tmp_path, monkeypatch):
    extra = OPTION_ARGS[option]
    want = _evaluate_means(files, option, extra)
    if option != "grades":    # the option changes the means, so a command ignoring it would differ
        assert want != _evaluate_means(files, option, [])
    got = MEANS[command](files, option, extra, tmp_path, monkeypatch)
    digits = 6 if command == "table" else 12
    assert got == {s: pytest.approx(v, abs=10 ** -digits) for s, v in want.items()}


@pytest.mark.parametrize("command", COMMANDS)
def test_command_depth_matches_evaluate_depth(command, files, tmp_path, monkeypatch):
    _check_means_match_evaluate(command, "depth", files, tmp_path, monkeypatch)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_score_precision_matches_evaluate_score_precision(command, files, tmp_path, monkeypatch):
    _check_means_match_evaluate(command, "score_precision", files, tmp_path, monkeypatch)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_judged_only_matches_evaluate_judged_only(command, files, tmp_path, monkeypatch):
    _check_means_match_evaluate(command, "judged_only", files, tmp_path, monkeypatch)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_grades_trec_eval_matches_evaluate_grades_trec_eval(command, files, tmp_path, monkeypatch):
    _check_means_match_evaluate(command, "grades", files, tmp_path, monkeypatch)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_complete_matches_evaluate_complete(command, files, tmp_path, monkeypatch):
    _check_means_match_evaluate(command, "complete", files, tmp_path, monkeypatch)


@pytest.mark.parametrize("command", COMMANDS)
def test_command_rel_level_matches_evaluate_rel_level(command, files, tmp_path, monkeypatch):
    _check_means_match_evaluate(command, "rel_level", files, tmp_path, monkeypatch)


@pytest.mark.parametrize("command", ["evaluate", *COMMANDS])
def test_command_strict_grades_refuse_a_fractional_grade_naming_grades_option(command, files, tmp_path):
    args = [command, files["grades"], f"a={files['a']}", f"b={files['b']}", "-m", "AP"]
    args += {"segments": ["--segments", files["segments"]], "report": ["-o", str(tmp_path / "r.html")]}.get(command, [])
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert "1.5" in res.stderr and "--grades" in res.stderr


@pytest.mark.parametrize("command", ["evaluate", *COMMANDS])
def test_command_depth_below_one_exits_2_naming_the_flag(command, files, tmp_path):
    args = [command, files["qrels"], f"a={files['a']}", f"b={files['b']}", "-m", "AP", "-M", "0"]
    args += {"segments": ["--segments", files["segments"]], "report": ["-o", str(tmp_path / "r.html")]}.get(command, [])
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and "-M/--depth must be a positive integer" in res.stderr, res.output


def test_report_reproduce_command_states_score_precision_judged_only_and_grades():
    from pairedframe.report.report_sections import reproduce_command

    settings = {"inputs": {"qrels": {"path": "q.txt"}, "runs": [{"path": "a.run"}, {"path": "b.run"}]},
                "baseline": "a", "measures": ["AP"], "n_resamples": 10, "seed": 0, "test": "t",
                "confidence_level": 0.95, "correction": "holm", "max_delta_plots": 3,
                "evaluation": {**dict(EVALUATION_DEFAULTS), "score_precision": "float32", "judged_only": True,
                               "grades": "trec_eval"}}
    command = reproduce_command(settings)
    assert "--score-precision float32" in command and " -J" in command and "--grades trec_eval" in command
    settings["evaluation"] = dict(EVALUATION_DEFAULTS)
    command = reproduce_command(settings)
    assert "--score-precision" not in command and " -J" not in command and "--grades" not in command


def test_compare_settings_state_depth_and_judged_only_when_set(files):
    args = ["compare", files["qrels"], f"a={files['a']}", f"b={files['b']}", "-m", "AP", "--test", "t", "-f", "json"]
    settings = json.loads(runner.invoke(app, [*args, "-M", "2", "-J"]).stdout)["settings"]
    assert settings["depth"] == 2 and settings["judged_only"] is True
    settings = json.loads(runner.invoke(app, args).stdout)["settings"]
    assert "depth" not in settings and "judged_only" not in settings


def test_segments_settings_state_the_evaluation_options_given(files):
    args = ["segments", files["qrels"], f"a={files['a']}", f"b={files['b']}", "-m", "AP", "--segments",
            files["segments"], "--test", "t", "-f", "json"]
    settings = json.loads(runner.invoke(app, [*args, "-M", "2", "-J", "-l", "2", "-c",
                                              "--score-precision", "float32"]).stdout)["settings"]
    assert {k: settings.get(k) for k in ("depth", "judged_only", "rel_level", "complete", "score_precision")} == \
        {"depth": 2, "judged_only": True, "rel_level": 2, "complete": True, "score_precision": "float32"}
    settings = json.loads(runner.invoke(app, args).stdout)["settings"]
    assert not {"depth", "judged_only", "rel_level", "complete", "score_precision"} & set(settings)


def test_table_caption_names_the_evaluation_options_given():
    """pairedframe table's caption named none of -c, -M, --score-precision, -J: tables made with and without
    them read alike. It names each one given (in every format's caption), and none at the defaults."""
    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    args = ["table", "-m", "AP", str(qrels), *map(str, runs), "--n-resamples", "99"]
    plain = CliRunner().invoke(app, args)
    assert plain.exit_code == 0, plain.output
    assert "Evaluated on" not in plain.stdout
    for fmt in ("terminal", "markdown", "latex", "html"):
        given = CliRunner().invoke(app, [*args, "-c", "-M", "5", "--score-precision", "float32", "-J", "-f", fmt])
        assert given.exit_code == 0, given.output
        text = " ".join(given.stdout.replace("\\_", "_").split())   # LaTeX writes trec\_eval
        for words in ("every judged query, unretrieved ones scoring 0 (trec_eval -c)",
                      "the top 5 documents of each ranking (-M 5)", "scores rounded to float32", "judged documents only (-J)"):
            assert words in text, (fmt, text[-600:])


def test_evaluation_settings_record_grades_and_compare_and_segments_state_trec_eval_grades(files):
    """--grades trec_eval reads 1.5 as 1 (a value strict refuses), but EvaluationSettings did not record it:
    compare's and segments' settings read as a strict evaluation's, and an Evaluation passed to pf.report
    lost it. Recorded now, and stated where it is not the default."""
    ev = pf.evaluate({"a": files["a"]}, files["grades"], ["AP"], grades="trec_eval")
    assert ev.settings.grades == "trec_eval" and ev.settings.as_dict()["grades"] == "trec_eval"
    assert pf.evaluate({"a": files["a"]}, files["qrels"], ["AP"]).settings.as_dict()["grades"] == "strict"
    args = ["compare", files["grades"], f"a={files['a']}", f"b={files['b']}", "-m", "AP", "--test", "t", "-f", "json"]
    assert json.loads(runner.invoke(app, [*args, "--grades", "trec_eval"]).stdout)["settings"]["grades"] == "trec_eval"
    assert "grades" not in json.loads(runner.invoke(app, args[:1] + [files["qrels"]] + args[2:]).stdout)["settings"]
    seg = ["segments", files["grades"], f"a={files['a']}", f"b={files['b']}", "-m", "AP", "--test", "t", "-f", "json",
           "--segments", files["segments"], "--grades", "trec_eval"]
    assert json.loads(runner.invoke(app, seg).stdout)["settings"]["grades"] == "trec_eval"
