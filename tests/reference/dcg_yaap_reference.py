"""Scalar references of trec_eval 10's measures outside ``all_trec``: dcg, ideal_dcg (m_ndcg.c) and
yaap (m_yaap.c), written from their definitions over trec_eval's ``results_rel_list``."""

from __future__ import annotations

import math

from pairedframe.measures import Measure
from pairedframe.measures.gains import gain_of
from tests.reference.trec10_reference import _level, res_rels
from tests.reference.trec_reference import Qrels, Ranking, reference


def _gain(grade: int, measure: Measure) -> float:
    """gain_init.c: a judged grade's gain under the measure's map; unjudged (-1, -2) documents 0."""
    return gain_of(measure.gain_key, grade) if grade >= 0 else 0.0


@reference("dcg")
def dcg(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """sum over ranks r of gain(r) / log2(r + 1), in rank order, skipping zero gains as trec_eval does."""
    total = 0.0
    for i, grade in enumerate(res_rels(ranking, qrels, 1).rel_list):
        gain = _gain(grade, measure)
        if gain != 0:
            total += gain / math.log2(i + 2)
    return total


@reference("ideal_dcg")
def ideal_dcg(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """The DCG of the judged documents' positive gains sorted descending (the ranking plays no part)."""
    gains = sorted((g for g in (_gain(grade, measure) for grade in qrels.values()) if g > 0), reverse=True)
    total = 0.0
    for i, gain in enumerate(gains):
        total += gain / math.log2(i + 2)
    return total


@reference("yaap")
def yaap(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """log((1 + S) / (1 + R - S)), S the sum of precision at each retrieved relevant document."""
    level = _level(measure)
    rr = res_rels(ranking, qrels, level)
    found, precision_sum = 0, 0.0
    for i, grade in enumerate(rr.rel_list):
        if grade >= level:
            found += 1
            precision_sum += found / (i + 1)
    return math.log((1.0 + precision_sum) / (1.0 + rr.num_rel - precision_sum))
