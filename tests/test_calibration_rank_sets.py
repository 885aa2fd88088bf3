"""The leaderboard guide quotes the printed rank-sets calibration (docs/results/calibration_rank_sets.md), and its
claims about the Robust03 example hold."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pairedframe as pf
from tests.calibration_tables import RESULTS, rows as table_rows

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide" / "leaderboard.md"


def _span(values: list[float], digits: int) -> str:
    return f"{min(values):.{digits}f}–{max(values):.{digits}f}"


def test_leaderboard_guide_quotes_the_calibration_table():
    rows = table_rows(RESULTS / "calibration_rank_sets.md")
    real = [r for r in rows if not r["measure"].endswith("tied")]
    tied = [r for r in rows if r["measure"].endswith("tied")]
    assert len(real) == 20 and len(tied) == 12

    def column(cells, name):
        return [float(r[name].split()[0]) for r in cells]
    joint, each = "simultaneous: all k ranks covered", "marginal: share of ranks covered"
    se = [float(r[c].split()[1].strip("()")) for r in rows for c in (joint, each)]
    ten = [r for r in real if r["k"] == "10"]
    worst = min(tied, key=lambda r: float(r[joint].split()[0]))
    text = re.sub(r"\s+", " ", GUIDE.read_text(encoding="utf-8"))
    assert f"at once in {_span(column(real, joint), 3)} of the replications" in text
    assert f"held {_span(column(real, each), 3)} of the ranks" in text
    assert f"spans {_span([float(r['set size (simultaneous)']) for r in ten], 2)} ranks" in text
    assert f"a marginal one {_span([float(r['set size (marginal)']) for r in ten], 2)}" in text
    assert f"held every rank in {_span(column(tied, joint), 3)} of the replications" in text
    assert f"the marginal ones {_span(column(tied, each), 3)}" in text
    assert f"at most {max(se):.3f}" in text
    assert f"({float(worst[joint].split()[0]):.3f} at n = {worst['n']}" in text
    readme = re.sub(r"\s+", " ", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert (f"held every rank in {_span(column(real, joint), 3)} of real DL and Robust draws, "
            f"{_span(column(tied, joint), 3)} when up to ten runs are exactly tied") in readme


def test_leaderboard_guide_example_claims_on_robust03(shared_data):
    robust = shared_data / "trectools_robust03"
    runs = sorted(str(p) for p in (robust / "runs").glob("input.*.gz"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = pf.evaluate(runs, str(robust / "qrel" / "robust03_qrels.txt"), ["AP"])
    board = pf.leaderboard(ev, measure="AP")
    assert board.n_systems == 17 and board.n_queries == 100
    assert len(board.best) == 4, "the guide says the four best runs by AP may each rank first"
    assert (board.table["rank_high"] > board.table["rank_low"]).all(), "the guide says no run is pinned to one rank"
