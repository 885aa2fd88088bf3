"""Scalar reference of trec_eval's measures averaged over judgment groups (``-R qrels_jg``), written as
literal loops over form_res_rels_jg.c's per-group ``results_rel_list`` and m_map_avgjg.c,
m_P_avgjg.c, m_Rprec_mult_avgjg.c.

``avgjg_query(ranking, groups, measure, depth, score_precision)``: ``ranking`` the ``(docno, score)``
list of one query (any order), ``groups`` maps judgment group -> {docno: grade}, ``measure`` a resolved
:class:`pairedframe.measures.Measure` of one of the three families.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pairedframe.measures import Measure
from tests.reference.trec_reference import prepare_ranking

NONPOOL, UNJUDGED = -1, -2


def _rel_list(order: list[str], qrels: Mapping[str, int], judged_only: bool) -> list[int]:
    """The grade at each rank for one group (-1: not in the group, -2: a negative grade); with
    judged_only only the documents the group judged with a grade >= 0, in ranking order."""
    rels = [NONPOOL if d not in qrels else UNJUDGED if qrels[d] < 0 else qrels[d] for d in order]
    return [r for r in rels if r >= 0] if judged_only else rels


def _map(rels: list[int], num_rel: int, level: int, measure: Measure) -> float:
    rel_so_far, total = 0, 0.0
    for i, r in enumerate(rels):
        if r >= level:
            rel_so_far += 1
            total += rel_so_far / (i + 1)
    return total / num_rel if rel_so_far else 0.0


def _p(rels: list[int], num_rel: int, level: int, measure: Measure) -> float:
    k = measure.cutoff
    return sum(1 for r in rels[:k] if r >= level) / k


def _rprec_mult(rels: list[int], num_rel: int, level: int, measure: Measure) -> float:
    cutoff = int(measure.param("mult") * num_rel + 0.9)
    num_rel_ret = sum(1 for r in rels if r >= level)
    if cutoff > len(rels):
        return num_rel_ret / cutoff
    rel_so_far, value = num_rel_ret, 0.0
    for i in range(len(rels), 0, -1):      # m_Rprec_mult_avgjg.c walks the ranking backwards
        if rel_so_far <= 0:
            break
        if i == cutoff:
            value = rel_so_far / i
        if rels[i - 1] >= level:
            rel_so_far -= 1
    return value


FAMILIES = {"map_avgjg": _map, "P_avgjg": _p, "Rprec_mult_avgjg": _rprec_mult}


def avgjg_query(ranking: Sequence[tuple[str, float]], groups: Mapping[str, Mapping[str, int]], measure: Measure, *,
                depth: int | None = None, score_precision: str = "float64") -> float:
    """The measure against each group's judgments, summed in group byte order, divided by the groups."""
    order = [d for d, _ in prepare_ranking(ranking, depth=depth, score_precision=score_precision)]
    level = 1 if measure.rel is None else measure.rel
    total = 0.0
    for jg in sorted(groups, key=lambda g: g.encode()):
        qrels = groups[jg]
        num_rel = sum(1 for g in qrels.values() if g >= level)
        total += FAMILIES[measure.family](_rel_list(order, qrels, measure.judged_only), num_rel, level, measure)
    return total / len(groups) if len(groups) > 1 else total
