"""Hypothesis strategies: small random runs (several systems) and graded qrels built to hit
trec_eval's corner cases.

* tied scores (scores drawn from a tiny set), and scores equal in float32 but not in float64;
* queries judged but not retrieved, retrieved but not judged, judged without a relevant document;
* negative grades (-1, -2: trec_eval's "in the pool but unjudged");
* ids that look numeric (``007``, ``7``, ``01``, ``1``) and must stay distinct strings, docnos with
  ``#`` and mixed case (ordering is byte order, so ``D`` < ``d``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import polars as pl
from hypothesis import settings
from hypothesis import strategies as st

def budget(examples: int) -> int:
    """A test's max_examples: ``examples``, or the "deep" profile's (many more) when it is loaded
    (HYPOTHESIS_PROFILE=deep, see tests/conftest.py)."""
    deep = os.environ.get("HYPOTHESIS_PROFILE") == "deep"
    return settings.get_profile("deep").max_examples if deep else examples


QIDS = ("007", "7", "01", "1", "q#A", "Qb")
DOCNOS = ("007", "7", "01", "1", "d#1", "D#1", "doc", "Doc", "DOC", "a", "b#", "z", "Z9", "10", "9")
# Tiny score set: many ties, ties broken by docno. 1 + 2**-30 and 1 + 2**-40 round to 1.0 in
# float32 but not in float64; -0.0 equals 0.0.
TIE_SCORES = (0.0, -0.0, 1.0, 1.0 + 2.0 ** -30, 1.0 + 2.0 ** -40, 0.5, -1.0, 2.0, 1e-5, 12.25)
GRADES = (-2, -1, 0, 0, 1, 1, 2, 3)

scores = st.one_of(st.sampled_from(TIE_SCORES),
                   st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False))


@dataclass(frozen=True)
class Case:
    """A random evaluation input: ``runs[system][qid] = [(docno, score), ...]``, ``qrels[qid][docno] = grade``."""

    runs: dict[str, dict[str, list[tuple[str, float]]]]
    qrels: dict[str, dict[str, int]]

    def run_frame(self) -> pl.DataFrame:
        rows = [(s, q, d, sc) for s, by_q in self.runs.items() for q, docs in by_q.items() for d, sc in docs]
        return pl.DataFrame(rows, schema={"system": pl.String, "qid": pl.String, "docno": pl.String,
                                          "score": pl.Float64}, orient="row")

    def qrels_frame(self) -> pl.DataFrame:
        rows = [(q, d, g) for q, docs in self.qrels.items() for d, g in docs.items()]
        return pl.DataFrame(rows, schema={"qid": pl.String, "docno": pl.String, "rel": pl.Int64}, orient="row")


def ranking(max_docs: int = 10) -> st.SearchStrategy[list[tuple[str, float]]]:
    """Distinct docnos with scores (non-empty)."""
    return st.lists(st.tuples(st.sampled_from(DOCNOS), scores), min_size=1, max_size=max_docs,
                    unique_by=lambda p: p[0])


def judgments(max_docs: int = 10) -> st.SearchStrategy[dict[str, int]]:
    """Graded judgments of one query (non-empty: a judged query has at least one qrels line)."""
    return st.dictionaries(st.sampled_from(DOCNOS), st.sampled_from(GRADES), min_size=1, max_size=max_docs)


@st.composite
def cases(draw, max_systems: int = 3) -> Case:
    """Several systems over a shared qid pool; qrels over an overlapping qid pool."""
    judged = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True))
    qrels = {q: draw(judgments()) for q in judged}
    n_systems = draw(st.integers(1, max_systems))
    runs: dict[str, dict[str, list[tuple[str, float]]]] = {}
    for i in range(n_systems):
        retrieved = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True))
        runs[f"sys{i}"] = {q: draw(ranking()) for q in retrieved}
    return Case(runs=runs, qrels=qrels)
