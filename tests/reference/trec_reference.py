"""Plain-Python scalar references for every measure family, written from trec_eval's C logic.

Each reference is ``fn(ranking, qrels, measure) -> float`` where ``ranking`` is the list of
``(docno, score)`` a system retrieved for one query (any order: the reference sorts it),
``qrels`` maps docno -> integer grade for that query, and ``measure`` is a *resolved*
:class:`pairedframe.measures.Measure` (its ``rel`` is set for families that use one).

Semantics (trec_eval 9/10, form_res_rels.c and m_*.c):

* ranking: score descending, then docno descending (strcmp, i.e. byte order);
* relevant: grade >= rel; judged non-relevant: 0 <= grade < rel; negative grades and documents
  absent from the qrels are unjudged;
* nDCG gain is the grade (``2**grade - 1`` with dcg='exp-log2', a gain map with gains=), 0 for
  negative grades; the ideal DCG uses all positive gains of the qrels, sorted descending; the
  relevance level is ignored;
* AP divides by all relevant documents in the qrels; P@k divides by k; R@k by num_rel.

A new measure family needs a function registered with ``@reference("<family key>")`` (here or in
``trec10_reference.py``, which holds the trec_eval 10 measures beyond the classic ones, or
``dcg_yaap_reference.py``, those outside ``all_trec``); a test
iterates ``pairedframe.measures.REGISTRY`` and fails for a family without one. A reference may
return a string (relstring) or None (no value: FirstRelRank when nothing relevant is retrieved).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np

from pairedframe.measures import Measure
from pairedframe.measures.gains import gain_of

Ranking = Sequence[tuple[str, float]]
Qrels = Mapping[str, int]
ReferenceFn = Callable[[Ranking, Qrels, Measure], float]

REFERENCE: dict[str, ReferenceFn] = {}


def reference(key: str) -> Callable[[ReferenceFn], ReferenceFn]:
    """Register ``fn`` as the reference of the measure family ``key``."""

    def register(fn: ReferenceFn) -> ReferenceFn:
        if key in REFERENCE:
            raise RuntimeError(f"reference for {key!r} registered twice")
        REFERENCE[key] = fn
        return fn

    return register


# --- helpers ------------------------------------------------------------------------------------

def _docno_key(docno: str) -> bytes:
    return docno.encode("utf-8")


def trec_order(ranking: Ranking) -> list[str]:
    """Docnos in trec_eval order: score descending, then docno descending (byte order)."""
    return [d for d, _ in sorted(ranking, key=lambda p: (p[1], _docno_key(p[0])), reverse=True)]


def _rel(measure: Measure) -> int:
    return 1 if measure.rel is None else measure.rel


def _grades(order: list[str], qrels: Qrels) -> list[int | None]:
    return [qrels.get(d) for d in order]


def _is_rel(grade: int | None, level: int) -> bool:
    return grade is not None and grade >= level


def _num_rel(qrels: Qrels, level: int) -> int:
    return sum(1 for g in qrels.values() if g >= level)


def _num_nonrel(qrels: Qrels, level: int) -> int:
    return sum(1 for g in qrels.values() if 0 <= g < level)


def _cut(items: list, k: int | None) -> list:
    return items if k is None else items[:k]


# --- families -----------------------------------------------------------------------------------

@reference("NumQ")
def num_q(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    return 1.0


@reference("NumRet")
def num_ret(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    return float(len(ranking))


@reference("NumRel")
def num_rel(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    return float(_num_rel(qrels, _rel(measure)))


@reference("NumRelRet")
def num_rel_ret(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    level = _rel(measure)
    return float(sum(_is_rel(qrels.get(d), level) for d, _ in ranking))


@reference("AP")
def average_precision(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    level = _rel(measure)
    n_rel = _num_rel(qrels, level)
    if n_rel == 0:
        return 0.0
    total, hits = 0.0, 0
    for i, g in enumerate(_cut(_grades(trec_order(ranking), qrels), measure.cutoff)):
        if _is_rel(g, level):
            hits += 1
            total += hits / (i + 1)
    return total / n_rel


@reference("P")
def precision(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    assert measure.cutoff is not None
    level = _rel(measure)
    hits = sum(_is_rel(g, level) for g in _cut(_grades(trec_order(ranking), qrels), measure.cutoff))
    return hits / measure.cutoff


@reference("R")
def recall(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    level = _rel(measure)
    n_rel = _num_rel(qrels, level)
    if n_rel == 0:
        return 0.0
    hits = sum(_is_rel(g, level) for g in _cut(_grades(trec_order(ranking), qrels), measure.cutoff))
    return hits / n_rel


@reference("RR")
def reciprocal_rank(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    level = _rel(measure)
    for i, g in enumerate(_cut(_grades(trec_order(ranking), qrels), measure.cutoff)):
        if _is_rel(g, level):
            return 1.0 / (i + 1)
    return 0.0


@reference("Rprec")
def r_precision(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    level = _rel(measure)
    n_rel = _num_rel(qrels, level)
    if n_rel == 0:
        return 0.0
    hits = sum(_is_rel(g, level) for g in _grades(trec_order(ranking), qrels)[:n_rel])
    return hits / n_rel


@reference("Success")
def success(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    level = _rel(measure)
    return float(any(_is_rel(g, level) for g in _cut(_grades(trec_order(ranking), qrels), measure.cutoff)))


def _gain(grade: int | None, measure: Measure) -> float:
    """Gain of a grade under the measure's gain map (gain_init.c): 0 unjudged or negative."""
    if grade is None or grade < 0:
        return 0.0
    return gain_of(measure.gain_key, grade)


@reference("nDCG")
def ndcg(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    gains = [_gain(g, measure) for g in _cut(_grades(trec_order(ranking), qrels), measure.cutoff)]
    dcg = 0.0
    for i, g in enumerate(gains):
        if g != 0:
            dcg += g / math.log2(i + 2)
    ideal = _cut(sorted((x for x in (_gain(g, measure) for g in qrels.values()) if x > 0), reverse=True),
                 measure.cutoff)
    idcg = 0.0
    for i, g in enumerate(ideal):
        idcg += g / math.log2(i + 2)
    return dcg / idcg if idcg > 0 else 0.0


@reference("Bpref")
def bpref(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_bpref.c: walk the ranking, skip unjudged docs, count judged non-relevant ones so far."""
    level = _rel(measure)
    n_rel = _num_rel(qrels, level)
    n_nonrel = _num_nonrel(qrels, level)
    nonrel_so_far = 0
    total = 0.0
    for g in _grades(trec_order(ranking), qrels):
        if g is None or g < 0:
            continue
        if g < level:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            total += 1.0 - min(nonrel_so_far, n_rel) / min(n_nonrel, n_rel)
        else:
            total += 1.0
    return total / n_rel if n_rel else 0.0


# --- whole runs ---------------------------------------------------------------------------------

def prepare_ranking(ranking: Ranking, *, depth: int | None, score_precision: str) -> list[tuple[str, float]]:
    """Scores rounded as the evaluation compares them, cut to ``depth`` in trec_eval order."""
    if score_precision == "float32":
        ranking = [(d, float(np.float32(s))) for d, s in ranking]
    elif score_precision != "float64":
        raise ValueError(score_precision)
    ordered = sorted(ranking, key=lambda p: (p[1], _docno_key(p[0])), reverse=True)
    return ordered if depth is None else ordered[:depth]


def evaluate_reference(runs: Mapping[str, Mapping[str, Ranking]], qrels: Mapping[str, Qrels],
                       measures: Iterable[Measure], *, complete: bool = False, depth: int | None = None,
                       score_precision: str = "float64") -> dict[tuple[str, str, str], float | str | None]:
    """``(system, qid, measure name) -> value`` for resolved measures.

    Query set: queries both retrieved and judged (trec_eval), or with ``complete`` every judged
    query for every system: an unretrieved query is trec_eval.c's placeholder, a ranking of one
    document outside the qrels, whose num_ret, unj_*, utility, rbp_resid (0) and relstring ('')
    values trec_eval then resets when named without parameters. A query is judged when it has at
    least one qrels line, whatever its grades. A measure with ``judged_only`` sees the ranking (after
    ``depth``) without the documents that lack a grade >= 0 (trec_eval -J).
    """
    measures = list(measures)
    out: dict[tuple[str, str, str], float | str | None] = {}
    for system, by_qid in runs.items():
        qids = set(qrels) if complete else set(by_qid) & set(qrels)
        for qid in qids:
            placeholder = qid not in by_qid
            ranking = prepare_ranking(by_qid.get(qid, [(PLACEHOLDER, 1.0)]), depth=depth,
                                      score_precision=score_precision)
            condensed = [(d, s) for d, s in ranking if qrels[qid].get(d, -1) >= 0]
            for m in measures:
                value = REFERENCE[m.family](condensed if m.judged_only else ranking, qrels[qid], m)
                if placeholder and (m.family in ("NumRet", "Unjudged") or m.trec_name in ("utility", "rbp_resid")):
                    value = 0.0
                elif placeholder and m.trec_name == "relstring":
                    value = ""
                out[(system, qid, m.name)] = value
    return out


#: trec_eval.c's document of the placeholder ranking of a query a run lacks under -c (never judged).
PLACEHOLDER = "ceci_nest_pas_un_docno"


from tests.reference import trec10_reference  # noqa: E402,F401  (registers the other families)
from tests.reference import dcg_yaap_reference  # noqa: E402,F401  (dcg, ideal_dcg, yaap)
