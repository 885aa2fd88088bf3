"""A win is an improvement in the measure's direction in every comparison door: for a measure where lower is
better (FirstRelRank) a win is a lower value. compare_pair and compare_clustered counted b > a (the outside
statistician, round 13): 0 wins and 21 losses beside the verdict "better"."""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl
import pytest

import pairedframe as pf

N = 30
QIDS = [f"q{i:02d}" for i in range(N)]


def _ranks() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    a = rng.integers(1, 20, N).astype(float)
    b = np.maximum(1.0, a - rng.integers(0, 6, N))     # b ranks the first relevant document higher, or as high
    return a, b


def _table(measure: str) -> pl.DataFrame:
    a, b = _values(measure == "FirstRelRank")
    return pl.DataFrame({"system": ["a"] * N + ["b"] * N, "qid": QIDS * 2, "measure": measure,
                         "value": np.concatenate([a, b])})


def _values(lower_is_better: bool) -> tuple[np.ndarray, np.ndarray]:
    """Ranks, or a precision that rises as the rank falls: b improves on a in the measure's direction."""
    a, b = _ranks()
    return (a, b) if lower_is_better else ((20 - a) / 20, (20 - b) / 20)


def _counted_improvements(lower_is_better: bool) -> tuple[int, int, int]:
    a, b = _values(lower_is_better)
    gain = (a - b) if lower_is_better else (b - a)
    return int((gain > 0).sum()), int((gain < 0).sum()), int((gain == 0).sum())


CLUSTERS = {q: f"c{i // 3}" for i, q in enumerate(QIDS)}


@pytest.mark.parametrize("measure,lower", [("FirstRelRank", True), ("P@10", False)])
@pytest.mark.parametrize("door", ["compare", "compare_duckdb", "compare_pair", "compare_clustered",
                                  "compare_clustered_duckdb", "compare_segments", "compare_segments_duckdb"])
def test_wins_are_improvements_in_the_measure_direction_against_counted_deltas(door, measure, lower):
    table = _table(measure)
    kw = {"n_resamples": 999, "seed": 0}
    if door == "compare":
        row = pf.compare(table, baseline="a", **kw).row(0, named=True)
    elif door == "compare_duckdb":
        row = pf.compare(duckdb.from_arrow(table.to_arrow()), baseline="a", **kw).row(0, named=True)
    elif door == "compare_pair":
        a = table.filter(pl.col("system") == "a")["value"].to_numpy()
        b = table.filter(pl.col("system") == "b")["value"].to_numpy()
        res = pf.compare_pair(a, b, qids=QIDS, measure=measure, **kw)
        row = {"wins": res.wins, "losses": res.losses, "ties": res.ties, "verdict": res.verdict}
    elif door.startswith("compare_clustered"):
        data = duckdb.from_arrow(table.to_arrow()) if door.endswith("duckdb") else table
        row = pf.compare_clustered(data, baseline="a", clusters=CLUSTERS, **kw).row(0, named=True)
    else:
        segments = pl.DataFrame({"qid": QIDS, "segment_set": "s", "segment": "all"})
        data = duckdb.from_arrow(table.to_arrow()) if door.endswith("duckdb") else table
        row = pf.compare_segments(data, segments, baseline="a", **kw).row(0, named=True)
    assert (row["wins"], row["losses"], row["ties"]) == _counted_improvements(lower)
    assert row.get("verdict", "better") == "better"     # segments' rows have no verdict


def test_win_rule_text_says_wins_follow_the_measure_direction():
    """The settings' win_rule (compare -f json, reports) said 'win: delta > 0' beside FirstRelRank rows whose
    wins count lower values (the tester of round 14)."""
    from pairedframe.comparison import WIN_RULE

    assert "delta > 0; delta < 0 where lower is better" in WIN_RULE
