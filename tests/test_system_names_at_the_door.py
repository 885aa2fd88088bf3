"""A system name given to evaluate -- a key of a {name: run} mapping, NAME in a CLI's NAME=PATH -- that is None,
empty or made of blanks only is refused there, naming the argument. It was accepted (None as the system 'None')
and refused later by a comparison as a per-query table's blank system, or printed as a blank name."""

from __future__ import annotations

import gzip

import duckdb
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.example import example_paths

QRELS, RUNS = example_paths()
runner = CliRunner()


@pytest.mark.parametrize("key", ["", " ", "\t", " \x0c\r"])
@pytest.mark.parametrize("as_file", [True, False])
def test_a_blank_key_naming_a_run_through_evaluate_against_the_duckdb_macros(key, as_file):
    """The words are the macros' for system := ['', 'y'] (run files named by keys are streamed, not read by as_run)."""
    con = pf.duckdb.register(duckdb.connect())
    with pytest.raises(duckdb.Error) as macro:
        con.sql("SELECT * FROM pf_evaluate(?, ?, 'AP', system := [?, 'y'])",
                params=[[str(p) for p in RUNS], str(QRELS), key]).fetchall()
    words = str(macro.value).split("pf_evaluate: ", 1)[1]
    source = str(RUNS[0]) if as_file else pf.read_run(RUNS[0])
    with pytest.raises(ValueError) as got:
        pf.evaluate({key: source, "y": RUNS[1]}, QRELS, ["AP"])
    assert str(got.value).startswith(f"`run`: {words}: the mapping {{system: run}} has the key {key!r}"), got.value


@pytest.mark.parametrize("as_file", [True, False])
def test_a_none_key_naming_a_run_is_refused_not_named_none(as_file):
    source = str(RUNS[1]) if as_file else pf.read_run(RUNS[1])
    with pytest.raises(ValueError, match=r"^`run`: a system name is None: the mapping \{system: run\} has the key None"):
        pf.evaluate({"x": RUNS[0], None: source}, QRELS, ["AP"])


def test_an_integer_key_naming_a_run_file_is_read_as_its_string():
    ev = pf.evaluate({1: RUNS[0], 2: RUNS[1]}, QRELS, ["AP"])
    assert sorted(ev.per_query["system"].unique()) == ["1", "2"]


@pytest.mark.parametrize("command", ["evaluate", "leaderboard", "report", "compare", "table"])
@pytest.mark.parametrize("name", ["", " ", "\t"])
def test_a_blank_name_in_name_equals_path_is_refused_by_every_run_command(command, name):
    """' =run' was accepted by evaluate (a blank name printed), refused by leaderboard naming per_query and by
    report as a --baseline that was never given; '=run' said only 'expected PATH or NAME=PATH'."""
    arg = f"{name}={RUNS[0]}"
    result = runner.invoke(app, [command, str(QRELS), arg, str(RUNS[1]), "-m", "AP"])
    assert result.exit_code == 2, result.output
    assert (f"pairedframe: error: run argument {arg!r}: a system name is empty or made of blanks only; give NAME=PATH "
            "a name, or the PATH alone (named after its file)") in result.stderr, result.stderr


@pytest.mark.parametrize("file_name", [" ", "input. ", "input.\t.gz"])
def test_a_run_file_whose_trec_name_is_blank_is_refused_naming_the_file_against_the_duckdb_macros(tmp_path, file_name):
    """A file ' ' or 'input. ' was evaluated as the system ' ', which no baseline= can name; the macros refuse it."""
    path = tmp_path / file_name
    data = RUNS[0].read_bytes()
    path.write_bytes(gzip.compress(data) if file_name.endswith(".gz") else data)
    con = pf.duckdb.register(duckdb.connect())
    with pytest.raises(duckdb.Error, match="pf_evaluate: a system name is empty or made of blanks only"):
        con.sql("SELECT * FROM pf_evaluate(?, ?, 'AP')", params=[[str(path), str(RUNS[1])], str(QRELS)]).fetchall()
    with pytest.raises(ValueError, match=r"^run file '.*': a system name is empty or made of blanks only: TREC's naming"):
        pf.evaluate([path, RUNS[1]], QRELS, ["AP"])
    assert pf.evaluate({"named": path}, QRELS, ["AP"]).per_query["system"].unique().to_list() == ["named"]
    result = runner.invoke(app, ["evaluate", str(QRELS), str(path), str(RUNS[1]), "-m", "AP"])
    assert result.exit_code == 2 and "a system name is empty or made of blanks only" in result.stderr, result.output
