"""A run file whose rank and score columns are swapped (qid Q0 docno SCORE RANK tag) is scored as trec_eval
scores it (rank column ignored: near-zero values), with one warning naming the run and the likely swap."""

from __future__ import annotations

import warnings
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app

SWAP = "the rank and score columns look swapped"


def _run_text(queries: int, docs: int, swapped: bool, tag: str = "t") -> str:
    lines = []
    for q in range(1, queries + 1):
        for rank in range(1, docs + 1):
            score = f"{100 - rank + 0.5:.1f}"
            fields = (score, str(rank)) if swapped else (str(rank), score)
            lines.append(f"{q} Q0 d{rank} {fields[0]} {fields[1]} {tag}")
    return "\n".join(lines) + "\n"


@pytest.fixture()
def qrels(tmp_path: Path) -> str:
    path = tmp_path / "qrels.txt"
    path.write_text("".join(f"{q} 0 d1 1\n{q} 0 d5 0\n" for q in range(1, 6)))
    return str(path)


def _swap_warnings(run: object, qrels: str) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.evaluate(run, qrels, ["AP"])
    return [w for w in caught if SWAP in str(w.message)]


def test_swapped_rank_and_score_columns_warn_once_naming_the_run_at_the_callers_line(tmp_path, qrels):
    run = tmp_path / "swapped.run"
    run.write_text(_run_text(5, 6, swapped=True))
    said = _swap_warnings(str(run), qrels)
    assert len(said) == 1 and said[0].category is UserWarning
    assert "run 'swapped.run': in 5 of its 5 first queries the scores are 1, 2, 3, ... in file order" in str(said[0].message)
    assert said[0].filename == __file__
    # the values stay trec_eval's: the file's first line (d1, relevant) ranks last
    with pytest.warns(UserWarning, match=SWAP):
        value = pf.evaluate(str(run), qrels, ["AP"]).summary()["value"][0]
    assert value == pytest.approx(1 / 6)


def test_rank_and_score_in_their_columns_give_no_swap_warning(tmp_path, qrels):
    run = tmp_path / "fine.run"
    run.write_text(_run_text(5, 6, swapped=False))
    assert not _swap_warnings(str(run), qrels)


def test_a_few_rank_like_queries_or_short_ones_give_no_swap_warning(tmp_path, qrels):
    """Below 90 % of the sampled queries (of 3 lines or more) looking like ranks, nothing is said; nor for
    queries of 2 lines (scores 1, 2 are too common to mean ranks)."""
    mixed = tmp_path / "mixed.run"
    mixed.write_text(_run_text(5, 6, swapped=False) + "".join(f"9 Q0 d{r} {r} {r} t\n" for r in range(1, 7)))
    assert not _swap_warnings(str(mixed), qrels)
    short = tmp_path / "short.run"
    short.write_text(_run_text(5, 2, swapped=True))
    assert not _swap_warnings(str(short), qrels)


def test_a_run_table_is_not_checked_for_swapped_columns(tmp_path, qrels):
    """A table has no line order to read ranks from (and no rank column once read): only run files are checked."""
    run = tmp_path / "swapped.run"
    run.write_text(_run_text(5, 6, swapped=True))
    table = pf.read_run(str(run))
    assert isinstance(table, pl.DataFrame)
    assert not _swap_warnings(table, qrels)


def test_cli_evaluate_warns_of_swapped_rank_and_score_columns(tmp_path, qrels):
    run = tmp_path / "swapped.run"
    run.write_text(_run_text(5, 6, swapped=True))
    result = CliRunner().invoke(app, ["evaluate", qrels, str(run), "-m", "AP"])
    assert result.exit_code == 0
    assert SWAP in " ".join(result.stderr.split())
