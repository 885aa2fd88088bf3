"""Negative grades ("in the pool but unjudged"): each measure name follows its own tool. ir_measures'
``Judged@k`` counts a document with any qrels line as judged, a -1 grade too; trec_eval's ``unj_k``
(``Unjudged@k``) counts a negative grade as unjudged. Checked against ir_measures and against
pytrec_eval (trec_eval's C code: in the top k, the documents neither relevant nor judged non-relevant)."""

from __future__ import annotations

import polars as pl
import pytest

import pairedframe as pf

# the example of issue 20 (q: d1 -1, d2 1; run d1 > d2), and queries mixing -1, 0, 1, 2 and unpooled documents
QRELS = {"q": {"d1": -1, "d2": 1},
         "r": {"d1": 2, "d2": -1, "d3": 0, "d4": -2, "d5": 1},
         "s": {"d2": -1, "d3": -1, "d9": 1}}
RUN = {"q": {"d1": 2.0, "d2": 1.0},
       "r": {"d1": 9.0, "d2": 8.0, "d6": 7.0, "d4": 6.0, "d3": 5.0, "d7": 4.0, "d5": 3.0},
       "s": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}
CUTOFFS = (1, 2, 3, 5, 10)
ENGINES = ("duckdb", "polars")


def _ours(names: list[str], engine: str) -> dict[tuple[str, str], float]:
    ev = pf.evaluate(RUN, QRELS, names, engine=engine)
    return {(m, q): v for _, q, m, v in ev.per_query.iter_rows()}


def test_the_issue_example_judged_at_2_is_one():
    assert pf.evaluate(RUN, QRELS, "Judged@2").per_query.filter(pl.col("qid") == "q")["value"].to_list() == [1.0]


@pytest.mark.oracle
@pytest.mark.parametrize("engine", ENGINES)
def test_judged_counts_negative_grades_as_judged_against_ir_measures(engine):
    ir_measures = pytest.importorskip("ir_measures")
    measures = [ir_measures.Judged @ k for k in CUTOFFS] + [ir_measures.Judged]
    want = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, QRELS, RUN)}
    got = _ours([str(m) for m in measures], engine)
    assert len(want) == len(QRELS) * len(measures)
    assert {k: got[k] for k in want} == pytest.approx(want, abs=1e-12)


@pytest.mark.oracle
@pytest.mark.parametrize("engine", ENGINES)
def test_unj_counts_negative_grades_as_unjudged_against_pytrec_eval(engine):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    got = _ours([f"unj_{k}" for k in CUTOFFS], engine)
    evaluator = pytrec_eval.RelevanceEvaluator(QRELS, {"num_ret", "num_rel_ret", "num_nonrel_judged_ret"})
    for k in CUTOFFS:  # trec_eval's counts on the top k: unjudged = retrieved - relevant - judged non-relevant
        top = {q: dict(sorted(docs.items(), key=lambda d: -d[1])[:k]) for q, docs in RUN.items()}
        for qid, c in evaluator.evaluate(top).items():
            want = (c["num_ret"] - c["num_rel_ret"] - c["num_nonrel_judged_ret"]) / k
            assert got[(f"Unjudged@{k}", qid)] == pytest.approx(want, abs=1e-12), (qid, k)
