"""pf.compare's ``measures=`` reads names as evaluate and the CLI do: a trec_eval family named bare (``P``),
with parameters (``P.5``) or both, and sets (``official``); the oracle is ``pairedframe compare -m ...``."""

from __future__ import annotations

import io
import warnings

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.errors import EmptyResultError, PartlyEmptyWarning
from pairedframe.example import example_paths

QRELS, RUNS = example_paths()
B = 200


@pytest.fixture(scope="module")
def evaluation():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pf.evaluate([str(r) for r in RUNS], str(QRELS), measures=["official"])


def _cli(names: list[str]) -> pl.DataFrame:
    flags = [x for name in names for x in ("-m", name)]
    got = CliRunner().invoke(app, ["compare", str(QRELS), *map(str, RUNS), *flags, "-B", str(B), "-f", "csv"])
    assert got.exit_code == 0, got.output
    return pl.read_csv(io.StringIO(got.stdout))


def _python(evaluation, names) -> pl.DataFrame:
    return pf.compare(evaluation, baseline=evaluation.systems[0], measures=names, n_resamples=B)


def test_compare_measures_family_named_bare_and_with_parameters_against_the_cli(evaluation):
    """pf.compare(ev, measures=["P", "P.5"]) failed ("measure(s) ['P'] match nothing in the per-query table")
    while `compare -m P -m P.5` compares P@5, as trec_eval evaluates it."""
    with pytest.warns(PartlyEmptyWarning, match=r"`measures`: 'P' stands for .* so P@10, P@15, .* not compared"):
        got = _python(evaluation, ["P", "P.5"])
    want = _cli(["P", "P.5"])
    assert got["measure"].to_list() == want["measure"].to_list() == ["P@5"]
    assert got["pvalue"].to_list() == pytest.approx(want["pvalue"].to_list(), abs=1e-12)
    assert got["delta"].to_list() == pytest.approx(want["delta"].to_list(), abs=1e-12)


def test_compare_measures_names_of_one_measure_each_are_compared_as_named(evaluation):
    """A name of one measure the table holds is that measure: ["P.5", "P.10"] compares both (the CLI's
    evaluation computes P@5 alone there, trec_eval's rule, so its compare has no P@10 to compare)."""
    assert _python(evaluation, ["P.5", "P.10"])["measure"].to_list() == ["P@5", "P@10"]


def test_compare_measures_bare_family_and_set_stand_for_their_measures_in_the_table(evaluation):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        family = _python(evaluation, "P")
    assert family["measure"].to_list() == ["P@5", "P@10", "P@15", "P@20", "P@30", "P@100", "P@200", "P@500", "P@1000"]
    with pytest.warns(PartlyEmptyWarning, match=r"left out of the comparison: NumQ, NumRet, NumRel, GMAP"):
        official = _python(evaluation, ["official"])
    assert official["measure"].to_list() == _cli(["official"])["measure"].to_list()
    assert "AP" in official["measure"].to_list() and "GMAP" not in official["measure"].to_list()


def test_compare_measures_name_matching_nothing_is_still_an_error_naming_measures(evaluation):
    with pytest.raises(EmptyResultError, match=r"`measures`: measure\(s\) \['nDCG@10'\] match nothing"):
        _python(evaluation, ["P", "nDCG@10"])
