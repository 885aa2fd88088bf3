"""Scalar references of the trec_eval 10 measures beyond the classic ones, and of ir_measures'
extras, written as literal loops over trec_eval's ``results_rel_list`` (form_res_rels.c): the grade
of the document at each rank, -1 (RELVALUE_NONPOOL) for a document not in the qrels and -2
(RELVALUE_UNJUDGED) for a negative grade. Each follows the m_*.c file its docstring names.

Where pairedframe deliberately departs from trec_eval (an empty ranking, which trec_eval never
sees; trec_eval's 0/0), the reference states pairedframe's rule.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pairedframe.measures import Measure
from pairedframe.measures.gains import gain_of
from tests.reference.trec_reference import Qrels, Ranking, reference

NONPOOL, UNJUDGED = -1, -2
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001


@dataclass
class ResRels:
    """trec_eval's RES_RELS for one query (form_res_rels.c)."""

    rel_list: list[int]
    num_rel: int
    num_rel_ret: int
    rel_levels: list[int]  # judged documents per grade 0..max

    @property
    def num_ret(self) -> int:
        return len(self.rel_list)

    @property
    def num_rel_levels(self) -> int:
        return len(self.rel_levels)


def res_rels(ranking: Ranking, qrels: Qrels, level: int) -> ResRels:
    """``ranking`` is already in trec_eval order and cut (see evaluate_reference)."""
    rel_list = []
    for docno, _ in ranking:
        grade = qrels.get(docno)
        rel_list.append(NONPOOL if grade is None else UNJUDGED if grade < 0 else grade)
    judged = [g for g in qrels.values() if g >= 0]
    levels = [0] * ((max(judged) + 1) if judged else 0)
    for g in judged:
        levels[g] += 1
    return ResRels(rel_list, sum(1 for g in judged if g >= level),
                   sum(1 for g in rel_list if g >= level), levels)


def _level(measure: Measure) -> int:
    return 1 if measure.rel is None else measure.rel


# --- gains (gain_init.c) ------------------------------------------------------------------------

@dataclass
class Gains:
    rel_gains: list[tuple[int, float, int]]  # (level, gain, num_at_level), sorted by increasing gain

    def get(self, rel: int) -> float:
        for level, gain, _ in self.rel_gains:
            if level == rel:
                return gain
        return 0.0


def setup_gains(measure: Measure, rr: ResRels) -> Gains:
    pairs = dict(measure.gains or ())
    if measure.gain == "exp":
        pairs.update({level: 2.0 ** level - 1.0 for level in range(rr.num_rel_levels)})
    gains = [(level, gain, 0) for level, gain in pairs.items()]
    for i in range(rr.num_rel_levels):
        found = [j for j, (level, _, _) in enumerate(gains) if level == i]
        if found:
            level, gain, _ = gains[found[0]]
            gains[found[0]] = (level, gain, rr.rel_levels[i])
        else:
            gains.append((i, gain_of("", i), rr.rel_levels[i]))
    return Gains(sorted(gains, key=lambda t: t[1]))


def ideal_walk(gains: Gains):
    """Yields the ideal gain at positions 0, 1, 2, ... (trec_eval's cur_level walk), then 0 forever."""
    levels = gains.rel_gains
    cur = len(levels) - 1
    at = 0
    while True:
        at += 1
        while cur >= 0 and at > levels[cur][2]:
            at = 1
            cur -= 1
        yield levels[cur][1] if cur >= 0 else 0.0


# --- families -----------------------------------------------------------------------------------

def _ap(rr: ResRels, level: int) -> float:
    rel_so_far, total = 0, 0.0
    for i, rel in enumerate(rr.rel_list):
        if rel >= level:
            rel_so_far += 1
            total += rel_so_far / (i + 1)
    return total / rr.num_rel if rel_so_far else 0.0


@reference("GMAP")
def gm_map(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_gm_map.c: per query max(AP, MIN_GEO_MEAN) (trec_eval stores its log)."""
    level = _level(measure)
    return max(_ap(res_rels(ranking, qrels, level), level), MIN_GEO_MEAN)


@reference("GMBpref")
def gm_bpref(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_gm_bpref.c."""
    level = _level(measure)
    rr = res_rels(ranking, qrels, level)
    num_nonrel = sum(rr.rel_levels[:level])
    nonrel_so_far, bpref = 0, 0.0
    for rel in rr.rel_list:
        if rel < 0:
            continue
        if rel < level:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            bpref += 1.0 - min(nonrel_so_far, rr.num_rel) / min(num_nonrel, rr.num_rel)
        else:
            bpref += 1.0
    if rr.num_rel:
        bpref /= rr.num_rel
    return max(bpref, MIN_GEO_MEAN)


def _lround(x: float) -> int:
    return int(math.floor(x)) + (1 if x - math.floor(x) >= 0.5 else 0)


def _iprec(rr: ResRels, level: int, recalls: list[float]) -> list[float]:
    """m_iprec_at_recall.c (trec_eval 10: lround of recall * num_rel); 0 for an empty ranking."""
    values = [0.0] * len(recalls)
    if rr.num_ret == 0:
        return values
    order = sorted(range(len(recalls)), key=lambda i: recalls[i])
    cutoffs = [_lround(recalls[i] * rr.num_rel) for i in order]
    current = len(cutoffs) - 1
    while current >= 0 and cutoffs[current] > rr.num_rel_ret:
        current -= 1
    int_precis = rr.num_rel_ret / rr.num_ret
    rel_so_far = rr.num_rel_ret
    i = rr.num_ret
    while i > 0 and rel_so_far > 0:
        int_precis = max(int_precis, rel_so_far / i)
        if rr.rel_list[i - 1] >= level:
            while current >= 0 and rel_so_far == cutoffs[current]:
                values[order[current]] = int_precis
                current -= 1
            rel_so_far -= 1
        i -= 1
    while current >= 0:
        values[order[current]] = int_precis
        current -= 1
    return values


@reference("IPrec")
def iprec(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    level = _level(measure)
    return _iprec(res_rels(ranking, qrels, level), level, [measure.param("recall")])[0]


@reference("IPrecAvg")
def iprec_avg(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_11pt_avg.c: the interpolated precisions added from the highest level down."""
    level = _level(measure)
    levels = list(measure.param("levels"))
    values = _iprec(res_rels(ranking, qrels, level), level, levels)
    total = 0.0
    for v in [v for _, v in sorted(zip(levels, values), key=lambda t: t[0], reverse=True)]:
        total += v
    return total / len(levels)


@reference("infAP")
def infap(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_infap.c."""
    level = _level(measure)
    rr = res_rels(ranking, qrels, level)
    nonrel_so_far = rel_so_far = pool_unjudged_so_far = 0
    inf_ap = 0.0
    for j, rel in enumerate(rr.rel_list):
        if rel == NONPOOL:
            continue
        if rel == UNJUDGED:
            pool_unjudged_so_far += 1
            continue
        if rel < level:
            nonrel_so_far += 1
            continue
        rel_so_far += 1
        if j == 0:
            inf_ap += 1.0
        else:
            fj = float(j)
            inf_ap += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
                (rel_so_far - 1 + nonrel_so_far + pool_unjudged_so_far) / fj) * (
                (rel_so_far - 1 + INFAP_EPSILON) / (rel_so_far - 1 + nonrel_so_far + 2 * INFAP_EPSILON))
    return inf_ap / rr.num_rel if rr.num_rel else inf_ap


@reference("RprecMult")
def rprec_mult(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_Rprec_mult.c."""
    level = _level(measure)
    rr = res_rels(ranking, qrels, level)
    cutoff = int(measure.param("mult") * rr.num_rel + 0.9)
    if cutoff == 0:
        return 0.0
    if cutoff > rr.num_ret:
        return rr.num_rel_ret / cutoff
    return sum(1 for rel in rr.rel_list[:cutoff] if rel >= level) / cutoff


@reference("Utility")
def utility(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_utility.c (an empty ranking retrieves nothing: a = b = 0)."""
    rr = res_rels(ranking, qrels, _level(measure))
    p = measure.param("weights")
    n = measure.param("collection_size")
    return (p[0] * rr.num_rel_ret + p[1] * (rr.num_ret - rr.num_rel_ret) + p[2] * (rr.num_rel - rr.num_rel_ret)
            + p[3] * (n + rr.num_rel_ret - rr.num_ret - rr.num_rel))


@reference("BinG")
def bin_g(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_binG.c."""
    level = _level(measure)
    rr = res_rels(ranking, qrels, level)
    rel_so_far, total = 0, 0.0
    for i, rel in enumerate(rr.rel_list):
        if rel >= level:
            rel_so_far += 1
            total += 1.0 / math.log2(3 + i - rel_so_far)
    return total / rr.num_rel if rel_so_far else 0.0


@reference("G")
def g(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_G.c."""
    rr = res_rels(ranking, qrels, 1)
    gains = setup_gains(measure, rr)
    ideal = ideal_walk(gains)
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    ideal_gain = gains.rel_gains[-1][1] if gains.rel_gains else 0.0
    i = 0
    while i < rr.num_ret and ideal_gain > 0.0:
        results_gain = gains.get(rr.rel_list[i])
        sum_results += results_gain
        ideal_gain = next(ideal)
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
        sum_cost += ideal_gain if ideal_gain >= 1.0 else 1.0
        if results_gain != 0:
            results_g += results_gain / math.log2(2 + sum_cost - sum_results)
        i += 1
    while i < rr.num_ret:
        results_gain = gains.get(rr.rel_list[i])
        sum_results += results_gain
        sum_cost += 1.0
        if results_gain != 0:
            results_g += results_gain / math.log2(2 + sum_cost - sum_results)
        i += 1
    while ideal_gain > 0.0:
        ideal_gain = next(ideal)
        if ideal_gain > 0.0:
            sum_ideal += ideal_gain
    return results_g / sum_ideal if sum_ideal > 0.0 else 0.0


def _dcg_walk(measure: Measure, rr: ResRels):
    """(gains, results_gain per rank) for the ndcg family."""
    gains = setup_gains(measure, rr)
    return gains, [gains.get(rel) for rel in rr.rel_list]


@reference("nDCGRel")
def ndcg_rel(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_ndcg_rel.c (0 when no ideal gain is positive; trec_eval's sum is then NaN and fails > 0)."""
    rr = res_rels(ranking, qrels, 1)
    gains, results = _dcg_walk(measure, rr)
    ideal = ideal_walk(gains)
    results_dcg = ideal_dcg = total = 0.0
    num_rel = num_rel_ret = 0
    ideal_gain = gains.rel_gains[-1][1] if gains.rel_gains else 0.0
    i = 0
    while i < rr.num_ret and ideal_gain > 0.0:
        if results[i] != 0:
            results_dcg += results[i] / math.log2(i + 2)
        ideal_gain = next(ideal)
        if ideal_gain > 0.0:
            num_rel += 1
            ideal_dcg += ideal_gain / math.log2(i + 2)
        if results[i] > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while i < rr.num_ret:
        if results[i] != 0:
            results_dcg += results[i] / math.log2(i + 2)
        if results[i] > 0:
            total += results_dcg / ideal_dcg
            num_rel_ret += 1
        i += 1
    while ideal_gain > 0.0:
        ideal_gain = next(ideal)
        if ideal_gain > 0.0:
            num_rel += 1
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    if ideal_dcg == 0.0:
        return 0.0
    total += float(num_rel - num_rel_ret) * results_dcg / ideal_dcg
    return total / num_rel if total > 0.0 else 0.0


@reference("RnDCG")
def rndcg(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_Rndcg.c (0 instead of trec_eval's 0/0 when no ideal gain is positive)."""
    rr = res_rels(ranking, qrels, _level(measure))
    if rr.num_rel == 0:
        return 0.0
    gains, results = _dcg_walk(measure, rr)
    ideal = ideal_walk(gains)
    results_dcg = ideal_dcg = total = 0.0
    changes = 0
    ideal_gain = gains.rel_gains[-1][1] if gains.rel_gains else 0.0
    old = ideal_gain
    i = 0
    while i < rr.num_ret and ideal_gain > 0.0:
        ideal_gain = next(ideal)
        if old != ideal_gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ideal_gain
        if results[i] != 0:
            results_dcg += results[i] / math.log2(i + 2)
        if ideal_gain > 0.0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    if i < rr.num_ret:
        while i < rr.num_ret:
            if results[i] != 0:
                results_dcg += results[i] / math.log2(i + 2)
            i += 1
        if ideal_dcg > 0.0:
            total += results_dcg / ideal_dcg
            changes += 1
    while ideal_gain > 0.0:
        ideal_gain = next(ideal)
        if old != ideal_gain:
            if ideal_dcg > 0.0:
                total += results_dcg / ideal_dcg
                changes += 1
            old = ideal_gain
        if ideal_gain > 0.0:
            ideal_dcg += ideal_gain / math.log2(i + 2)
        i += 1
    return total / changes if changes else 0.0


@reference("RelP")
def relative_p(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_rel_P.c."""
    level = _level(measure)
    rr = res_rels(ranking, qrels, level)
    if rr.num_rel == 0:
        return 0.0
    k = measure.cutoff
    return sum(1 for rel in rr.rel_list[:k] if rel >= level) / min(k, rr.num_rel)


@reference("SetP")
def set_p(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    rr = res_rels(ranking, qrels, _level(measure))
    return rr.num_rel_ret / rr.num_ret if rr.num_ret else 0.0


@reference("SetRelP")
def set_rel_p(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    rr = res_rels(ranking, qrels, _level(measure))
    return rr.num_rel_ret / min(rr.num_ret, rr.num_rel) if rr.num_ret and rr.num_rel else 0.0


@reference("SetR")
def set_recall(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    rr = res_rels(ranking, qrels, _level(measure))
    return rr.num_rel_ret / rr.num_rel if rr.num_rel else 0.0


@reference("SetAP")
def set_map(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    rr = res_rels(ranking, qrels, _level(measure))
    if not (rr.num_ret and rr.num_rel):
        return 0.0
    return (float(rr.num_rel_ret) * float(rr.num_rel_ret)) / (float(rr.num_ret) * float(rr.num_rel))


@reference("SetF")
def set_f(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    rr = res_rels(ranking, qrels, _level(measure))
    if not rr.num_rel_ret:
        return 0.0
    x = measure.param("beta")
    p, r = rr.num_rel_ret / rr.num_ret, rr.num_rel_ret / rr.num_rel
    return (x + 1.0) * p * r / (x * p + r)


@reference("NumNonRelJudgedRet")
def num_nonrel_judged_ret(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    level = _level(measure)
    rr = res_rels(ranking, qrels, level)
    return float(sum(1 for rel in rr.rel_list if 0 <= rel < level))


@reference("RBP")
def rbp(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_rbp.c (trec_eval 10): graded gains normalised to [0, 1] when some level lies outside;
    with ``rel`` (ir_measures), binary gains. ``@k`` stops at rank k."""
    rr = res_rels(ranking, qrels, _level(measure))
    p = measure.param("p")
    if measure.rel is not None:
        gain_of_rel = lambda rel: 1.0 if rel >= measure.rel else 0.0  # noqa: E731
    else:
        gains = setup_gains(measure, rr)
        values = [gain for _, gain, _ in gains.rel_gains]
        lo, hi = (min(values), max(values)) if values else (0.0, 0.0)
        if lo < 0 or hi > 1:  # one level only (hi == lo): every gain is the minimum, 0 (trec_eval: 0/0)
            gains = Gains([(level, (gain - lo) / (hi - lo) if hi > lo else 0.0, n)
                           for level, gain, n in gains.rel_gains])
        gain_of_rel = gains.get
    total, cur_p = 0.0, 1.0
    for rel in rr.rel_list[:measure.cutoff]:
        gain = gain_of_rel(rel)
        if gain != 0:
            total += gain * cur_p
        cur_p *= p
    return (1.0 - p) * total


@reference("RBPResid")
def rbp_resid(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_rbp_resid.c."""
    rr = res_rels(ranking, qrels, 1)
    p = measure.param("p")
    unj_so_far, total, cur_p = 0, 0.0, 1.0
    for rel in rr.rel_list:
        if rel < 0:
            unj_so_far += 1
            total += cur_p
        cur_p *= p
    return cur_p + (1 - p) * total if unj_so_far else 0.0


@reference("Unjudged")
def unjudged(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """m_unjudged.c."""
    rr = res_rels(ranking, qrels, 1)
    k = measure.cutoff
    return sum(1 for rel in rr.rel_list[:k] if rel in (NONPOOL, UNJUDGED)) / k


@reference("Judged")
def judged(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """ir_measures' Judged@k (judged = in the qrels, any grade, negative too), divided by min(k, retrieved)."""
    rr = res_rels(ranking, qrels, 1)
    top = rr.rel_list if measure.cutoff is None else rr.rel_list[:measure.cutoff]
    return sum(1 for rel in top if rel != NONPOOL) / len(top) if top else 0.0


@reference("RelString")
def relstring(ranking: Ranking, qrels: Qrels, measure: Measure) -> str:
    """m_relstring.c."""
    rr = res_rels(ranking, qrels, 1)
    chars = []
    for rel in rr.rel_list[:measure.cutoff]:
        chars.append(">" if rel > 9 else str(rel) if rel >= 0 else "-" if rel == NONPOOL else ".")
    return "".join(chars)


@reference("ERR")
def err(ranking: Ranking, qrels: Qrels, measure: Measure) -> float:
    """gdeval.pl's err(): gain (2^g - 1) / 2^4, decay multiplied one document at a time."""
    rr = res_rels(ranking, qrels, 1)
    score, decay = 0.0, 1.0
    for i, rel in enumerate(rr.rel_list[:measure.cutoff]):
        r = (2.0 ** max(rel, 0) - 1.0) / 16.0
        score += r * decay / (i + 1)
        decay *= 1 - r
    return score


@reference("FirstRelRank")
def first_rel_rank(ranking: Ranking, qrels: Qrels, measure: Measure) -> float | None:
    level = _level(measure)
    for i, rel in enumerate(res_rels(ranking, qrels, level).rel_list[:measure.cutoff]):
        if rel >= level:
            return float(i + 1)
    return None


@reference("TopGradeRank")
def top_grade_rank(ranking: Ranking, qrels: Qrels, measure: Measure) -> float | None:
    judged_grades = [g for g in qrels.values() if g >= 0]
    top = max(judged_grades, default=0)
    if top <= 0:
        return None
    for i, rel in enumerate(res_rels(ranking, qrels, 1).rel_list[:measure.cutoff]):
        if rel == top:
            return float(i + 1)
    return None
