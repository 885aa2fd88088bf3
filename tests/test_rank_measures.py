"""The rank of the best answer (FirstRelRank, TopGradeRank): values against a hand ranking, and how
they flow into compare (lower is better), worst_queries and a failing gate's diff."""

from __future__ import annotations

import re

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.comparison import compare, worst_queries
from pairedframe.example import example_paths

QRELS = {"q1": {"a": 1, "b": 3, "c": 0}, "q2": {"x": 2}, "q3": {"z": 0}}
RUNS = {"base": {"q1": {"a": 3.0, "c": 2.0, "b": 1.0}, "q2": {"y": 2.0, "x": 1.0}, "q3": {"z": 1.0}},
        "new": {"q1": {"c": 3.0, "b": 2.0, "a": 1.0}, "q2": {"y": 1.0}, "q3": {"z": 1.0}}}


def _runs_frame() -> pl.DataFrame:
    rows = [(s, q, d, v) for s, by_q in RUNS.items() for q, docs in by_q.items() for d, v in docs.items()]
    return pl.DataFrame(rows, schema=["system", "qid", "docno", "score"], orient="row")


def test_ranks_against_hand_values():
    ev = pf.evaluate(_runs_frame(), QRELS, ["FirstRelRank", "TopGradeRank", "FirstRelRank(rel=2)", "FirstRelRank@1"])
    got = {(s, q, m): v for s, q, m, v in ev.per_query.iter_rows()}
    # base q1: a (1) at 1, c (0) at 2, b (3) at 3; new q1: c, b, a; q2: base finds x at 2, new misses it;
    # q3 has no relevant document and no grade above 0.
    assert got[("base", "q1", "FirstRelRank")] == 1 and got[("new", "q1", "FirstRelRank")] == 2
    assert got[("base", "q1", "TopGradeRank")] == 3 and got[("new", "q1", "TopGradeRank")] == 2
    assert got[("base", "q1", "FirstRelRank(rel=2)")] == 3
    assert got[("base", "q2", "FirstRelRank")] == 2 and got[("new", "q2", "FirstRelRank")] is None
    assert got[("base", "q2", "FirstRelRank@1")] is None
    assert got[("base", "q3", "FirstRelRank")] is None and got[("base", "q3", "TopGradeRank")] is None
    # The summary is the mean over the queries with a value, and n_queries counts them.
    summary = {(s, m): (v, n) for s, m, v, n in ev.summary().iter_rows()}
    assert summary[("base", "FirstRelRank")] == (1.5, 2) and summary[("new", "FirstRelRank")] == (2.0, 1)
    # trec_eval 10 has no such measure: its text format refuses it rather than invent a name
    with pytest.raises(ValueError, match="FirstRelRank cannot be printed in trec_eval's format: trec_eval 10 has no "
                                         "FirstRelRank measure"):
        pf.evaluate(_runs_frame(), QRELS, ["FirstRelRank"]).to_trec()


@pytest.mark.filterwarnings("ignore::pairedframe.errors.SmallSampleWarning")
def test_lower_rank_is_a_win_in_compare_and_worst_queries():
    table = pl.DataFrame({"system": ["base"] * 4 + ["new"] * 4, "qid": ["1", "2", "3", "4"] * 2,
                          "measure": ["FirstRelRank"] * 8, "value": [1.0, 2.0, 5.0, 3.0, 4.0, 1.0, 1.0, 3.0]})
    res = compare(table, baseline="base", n_resamples=100, seed=0).row(0, named=True)
    assert (res["wins"], res["losses"], res["ties"]) == (2, 1, 1)  # 2 -> 1 and 5 -> 1 are wins
    worst = worst_queries(table, baseline="base", k=5)
    assert worst["qid"].to_list() == ["1"] and worst["delta"].to_list() == [3.0]  # 1 -> 4 is the loss
    # 30 queries whose first relevant document moves up (rank 6-10 -> 1-2): the system is better.
    qids = [str(i) for i in range(30)]
    lower = pl.DataFrame({"system": ["base"] * 30 + ["new"] * 30, "qid": qids * 2, "measure": "FirstRelRank",
                          "value": [6.0 + i % 5 for i in range(30)] + [1.0 + i % 2 for i in range(30)]})
    res = compare(lower, baseline="base", test="t").row(0, named=True)
    assert res["delta"] < 0 and res["verdict"] == "better" and res["wins"] == 30
    # segments count wins as compare does (one segment holding every query)
    segs = pl.DataFrame({"qid": qids, "segment_set": "all", "segment": "all"})
    seg = pf.compare_segments(lower, segs, baseline="base", test="t").row(0, named=True)
    assert (seg["wins"], seg["losses"]) == (res["wins"], res["losses"]) == (30, 0)
    # the same with clusters (singletons and pairs of queries): the verdict follows the measure's direction
    for size in (1, 2):
        clusters = {q: f"c{int(q) // size}" for q in qids}
        res = pf.compare_clustered(lower, baseline="base", clusters=clusters).row(0, named=True)
        assert res["delta"] < 0 and res["verdict"] == "better", size


def test_failing_gate_shows_ranks_of_worst_queries():
    qrels, runs = example_paths()
    result = CliRunner().invoke(app, ["compare", str(qrels), str(runs[0]), str(runs[1]), "-m", "nDCG@10", "-B", "200",
                                      "--fail-if", "nDCG@10 < 0.07"])
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if "worst #" in line]
    # a sentence from the baseline's rank to the system's (it read 'best grade at rank not retrieved -> 213')
    move = (r"(moves from rank \d+ to rank \d+|stays at rank \d+|was not retrieved, now at rank \d+"
            r"|was at rank \d+, now not retrieved|is not retrieved by either run)")
    assert lines and all(re.search(f"; first relevant document {move}; best-graded document {move}$", line)
                         for line in lines)
    ev = pf.evaluate([str(r) for r in runs], str(qrels), ["FirstRelRank"])
    for line in lines:
        qid = re.search(r"qid (\S+):", line).group(1)
        a, b = ({s: v for s, q, _, v in ev.per_query.iter_rows() if q == qid}[s] for s in ("bm25", "reranker"))
        shown = re.search(f"first relevant document {move};", line).group(1)
        want = ("is not retrieved by either run" if a is None and b is None else
                f"was not retrieved, now at rank {int(b)}" if a is None else
                f"was at rank {int(a)}, now not retrieved" if b is None else
                f"stays at rank {int(a)}" if a == b else f"moves from rank {int(a)} to rank {int(b)}")
        assert shown == want, line
