"""rank_judged (trec_eval's ranking, computed only at judged documents and without a string sort)
against the scalar reference order of tests/reference."""

from __future__ import annotations

import random
from unittest import mock

import numpy as np
import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from pairedframe.engines import ranking
from tests.reference.trec_reference import trec_order
from tests.strategies import Case, cases

LAYOUTS = ("grouped, file order", "grouped, score-sorted", "shuffled")


def _rows(case: Case, layout: str, seed: int) -> tuple[list[tuple], np.ndarray | None]:
    """Run rows in the given layout, and the group starts when each (system, qid) is contiguous."""
    groups = []
    for system, by_qid in case.runs.items():
        for qid, docs in by_qid.items():
            docs = sorted(docs, key=lambda p: p[1], reverse=True) if layout == "grouped, score-sorted" else docs
            groups.append([(system, qid, d, s) for d, s in docs])
    rows = [row for group in groups for row in group]
    if layout == "shuffled":
        random.Random(seed).shuffle(rows)
        return rows, None
    return rows, np.cumsum([0] + [len(g) for g in groups[:-1]])


def _expected(case: Case, score_precision: str) -> set[tuple]:
    expected = set()
    for system, by_qid in case.runs.items():
        for qid, docs in by_qid.items():
            if score_precision == "float32":
                docs = [(d, float(np.float32(s))) for d, s in docs]
            for rank, docno in enumerate(trec_order(docs), start=1):
                grade = case.qrels.get(qid, {}).get(docno)
                if grade is not None:  # any grade: a negative one is "pooled but unjudged" (infAP, relstring)
                    expected.add((system, qid, docno, rank, grade))
    return expected


@settings(max_examples=300, deadline=None)
@given(case=cases(), score_precision=st.sampled_from(["float64", "float32"]), layout=st.sampled_from(LAYOUTS),
       sort_ties=st.booleans(), seed=st.integers(0, 2**16))
def test_rank_judged_against_reference_order(case, score_precision, layout, sort_ties, seed):
    rows, starts = _rows(case, layout, seed)
    run = pl.DataFrame(rows, schema={"system": pl.String, "qid": pl.String, "docno": pl.String, "score": pl.Float64},
                       orient="row")
    # sort_ties: the fix-up for huge ties (sorting them by docno) instead of pairwise comparison
    with mock.patch.object(ranking, "MAX_TIE_PAIRS", 0 if sort_ties else ranking.MAX_TIE_PAIRS):
        ranks, retrieved = ranking.rank_judged(run, case.qrels_frame(), score_precision=score_precision,
                                               group_starts=starts)
    assert set(ranks.iter_rows()) == _expected(case, score_precision)
    assert ranks.schema == pl.Schema(ranking.RANKS_SCHEMA)
    sizes = {(s, q): len(docs) for s, by_qid in case.runs.items() for q, docs in by_qid.items()}
    assert dict(((s, q), n) for s, q, n in retrieved.iter_rows()) == sizes
    assert retrieved.height == len(sizes)


def test_rank_judged_of_an_empty_run():
    run = pl.DataFrame(schema={"system": pl.String, "qid": pl.String, "docno": pl.String, "score": pl.Float64})
    qrels = pl.DataFrame({"qid": ["1"], "docno": ["d"], "rel": [1]})
    ranks, retrieved = ranking.rank_judged(run, qrels)
    assert ranks.height == 0 and retrieved.height == 0


def test_float32_scores_beyond_its_range_become_infinite_as_trec_eval_9_stores_them():
    scores = np.array([3.5e38, -3.5e38, 1.0])
    assert ranking.comparable_scores(scores, "float32").tolist() == [np.inf, -np.inf, 1.0]
    assert ranking.comparable_scores(scores, "float64") is scores


@settings(max_examples=100, deadline=None)
@given(case=cases(), picked=st.lists(st.sampled_from(("007", "7", "01", "1", "q#A", "Qb", "unjudged")), unique=True))
def test_judgments_by_query_against_a_filter(case, picked):
    qrels = case.qrels_frame()
    expected = qrels.filter(pl.col("qid").is_in(picked))
    got = ranking.JudgmentsByQuery(qrels).of(picked)
    assert sorted(got.iter_rows()) == sorted(expected.iter_rows())
    assert got.schema == qrels.schema
