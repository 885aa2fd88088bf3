"""Scalar reference of trec_eval's preference measures (``-R prefs`` / ``-R qrels_prefs``), written as
literal loops over the structures of form_prefs_counts.c: docid ranks, one judgment group (JG) at a
time as equivalence classes (one sub-group, "EC") or as a preference matrix closed under
transitivity (several sub-groups, "PA"), the per-JG counts and the counts matrix over all JGs; and
each ``m_prefs_*.c`` on top of them.

``prefs_query(ranking, lines, depth)`` gives every measure of one query: ``ranking`` is the
``(docno, score)`` list a system retrieved (any order), ``lines`` the query's ``(jg, jsg, docno,
level)`` preference lines (no (jg, jsg, docno) twice: pairedframe refuses such duplicates).

Where trec_eval reads past an array (prefs_avgjg_Rnonrel(_ret) when the lowest class of an EC judgment
group holds fewer documents than the R it keeps), this reference keeps the whole class: pairedframe's
documented rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

Line = tuple[str, str, str, float]

NAMES = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
         "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
         "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")


def _b(text: str) -> bytes:
    return text.encode("utf-8")


def docid_ranks(ranking: Sequence[tuple[str, float]], judged: set[str], depth: int | None) -> tuple[dict[str, int], int]:
    """docno -> docid rank, and num_judged_ret: retrieved judged documents in ranking order (score
    descending, docno *ascending*: form_prefs_counts.c's own tie rule), then the others by docno."""
    order = sorted(ranking, key=lambda p: (-p[1], _b(p[0])))
    if depth is not None:
        order = order[:depth]
    retrieved = [d for d, _ in order if d in judged]
    rest = sorted(judged - set(retrieved), key=_b)
    return {d: i for i, d in enumerate(retrieved + rest)}, len(retrieved)


@dataclass
class JG:
    """One judgment group's counts (form_prefs_counts.c's JG)."""

    ec_mode: bool
    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    ecs: list[list[int]] = field(default_factory=list)      # EC mode: docids per level, levels descending
    matrix: list[list[int]] = field(default_factory=list)   # PA mode: matrix[i][j] = 1 iff i preferred to j
    rel_array: list[float] = field(default_factory=list)    # PA mode: level of each docid (-1: not in the JG)


def _count(jg: JG, pref: list[tuple[int, int]], njr: int, counts: list[list[int]]) -> None:
    for i, j in pref:
        counts[i][j] += 1
        if i < njr and j < njr:
            if i < j:
                jg.ful_ret += 1
            else:
                jg.poss_ret += 1
        elif i < njr:
            jg.ful_imp += 1
        elif j < njr:
            jg.poss_imp += 1
        else:
            jg.notoccur += 1
    jg.poss_ret += jg.ful_ret
    jg.poss_imp += jg.ful_imp


def _ec_group(lines: list[Line], did: dict[str, int], njr: int, counts: list[list[int]]) -> JG:
    jg = JG(ec_mode=True)
    levels = sorted({lvl for _, _, _, lvl in lines}, reverse=True)
    jg.ecs = [sorted(did[d] for _, _, d, lvl in lines if lvl == level) for level in levels]
    for level, ec in zip(levels, jg.ecs):
        ret = sum(1 for x in ec if x < njr)
        if level > 0.0:
            jg.num_rel, jg.num_rel_ret = jg.num_rel + len(ec), jg.num_rel_ret + ret
        else:
            jg.num_nonrel, jg.num_nonrel_ret = jg.num_nonrel + len(ec), jg.num_nonrel_ret + ret
    pref = [(x, y) for a in range(len(jg.ecs)) for b in range(a + 1, len(jg.ecs)) for x in jg.ecs[a] for y in jg.ecs[b]]
    _count(jg, pref, njr, counts)
    return jg


def _pa_group(lines: list[Line], did: dict[str, int], nj: int, njr: int, counts: list[list[int]]) -> JG:
    jg = JG(ec_mode=False)
    m = [[0] * nj for _ in range(nj)]
    jg.rel_array = [-1.0] * nj
    ordered = sorted(lines, key=lambda ln: (_b(ln[1]), -ln[3], did[ln[2]]))
    for _, jsg, d, level in ordered:
        old = jg.rel_array[did[d]]
        if (old > 0.0 and level == 0.0) or (old == 0.0 and level > 0.0):
            raise ValueError(f"doc {d!r} has both 0 and non-0 levels")
        jg.rel_array[did[d]] = level
    for _, jsg, d, level in lines:
        for _, jsg2, d2, level2 in lines:
            if jsg2 == jsg and level > level2:
                m[did[d]][did[d2]] = 1
    for k in range(nj):                      # transitive closure (Warshall)
        for i in range(nj):
            if m[i][k]:
                for j in range(nj):
                    if m[k][j]:
                        m[i][j] = 1
    for i in range(nj):
        for j in range(nj):
            if i != j and m[i][j] and m[j][i]:
                raise ValueError("preference cycle")
        m[i][i] = 0
    jg.matrix = m
    for i, level in enumerate(jg.rel_array):
        if level > 0.0:
            jg.num_rel += 1
            jg.num_rel_ret += i < njr
        elif level == 0.0:
            jg.num_nonrel += 1
            jg.num_nonrel_ret += i < njr
    _count(jg, [(i, j) for i in range(nj) for j in range(nj) if m[i][j]], njr, counts)
    return jg


def _recalc_ec(jg: JG, njr: int, keep: int, ret_only: bool) -> tuple[int, int]:
    """m_prefs_avgjg_Rnonrel(_ret).c's recalculate() for an EC group: the lowest class cut to its
    first ``keep`` docids (the loops run over every class, the lowest one included)."""
    ful = bad = 0
    last = len(jg.ecs) - 1
    pool = jg.ecs[last][:keep]
    ecs = jg.ecs
    if ret_only:
        ecs = [[x for x in ec if x < njr] for ec in jg.ecs]
        pool = [x for x in pool if x < njr]
    for a in range(len(ecs)):
        for b in range(a + 1, last):
            for x in ecs[a]:
                for y in ecs[b]:
                    if x < y and x < njr:
                        ful += 1
                    else:
                        bad += 1
    for a in range(len(ecs)):
        for x in ecs[a]:
            for y in pool:
                if x < y and x < njr:
                    ful += 1
                else:
                    bad += 1
    return ful, ful + bad


def _recalc_pa(jg: JG, nj: int, njr: int, ret_only: bool) -> tuple[int, int]:
    """The same for a PA group: nonrelevant docids after the (num_rel + 1)-th are left out."""
    scan = njr if ret_only else nj
    first_discarded, seen = scan, 0
    for i in range(scan):
        if jg.rel_array[i] == 0.0:
            seen += 1
            if seen == jg.num_rel + 1:
                first_discarded = i
                break
    out = [i >= first_discarded and jg.rel_array[i] == 0.0 for i in range(nj)]
    top = njr if ret_only else nj
    ful = poss = 0
    for i in range(top):
        for j in range(top):
            if i == j or out[i] or out[j] or not jg.matrix[i][j]:
                continue
            poss += 1
            ful += (i < njr) and (i < j or j >= njr)
    return ful, poss


def _avg_rnonrel(jgs: list[JG], nj: int, njr: int, ret_only: bool) -> float:
    total = 0.0
    for jg in jgs:
        big_r, big_n = (jg.num_rel_ret, jg.num_nonrel_ret) if ret_only else (jg.num_rel, jg.num_nonrel)
        if big_r >= big_n:
            ful = jg.ful_ret + (0 if ret_only else jg.ful_imp) + jg.num_rel_ret * (big_r - big_n)
            poss = jg.poss_ret + (0 if ret_only else jg.poss_imp + jg.notoccur) + jg.num_rel * (big_r - big_n)
        elif jg.ec_mode:
            ful, poss = _recalc_ec(jg, njr, big_r, ret_only)
        else:
            ful, poss = _recalc_pa(jg, nj, njr, ret_only)
        total += ful / poss if poss else float("nan")   # C's 0.0 / 0.0
    return total / len(jgs) if total > 0.0 else 0.0


def _pair(counts: list[list[int]], nj: int, njr: int, blocks: int) -> float:
    """m_prefs_pair*.c: blocks 1 (both retrieved), 2 (+ one retrieved), 3 (+ neither, counted only)."""
    total, pairs = 0.0, 0
    spans = [(range(njr), lambda i: range(i + 1, njr)), (range(njr), lambda i: range(njr, nj)),
             (range(njr, nj), lambda i: range(i + 1, nj))]
    for block, (rows, cols) in enumerate(spans[:blocks]):
        for i in rows:
            for j in cols(i):
                if counts[i][j] or counts[j][i]:
                    pairs += 1
                    if block < 2:
                        total += counts[i][j] / (counts[i][j] + counts[j][i])
    return total / pairs if pairs else 0.0


def prefs_query(ranking: Sequence[tuple[str, float]], lines: Sequence[Line], depth: int | None = None
                ) -> dict[str, float]:
    """Every all_prefs measure of one query (see the module docstring)."""
    did, njr = docid_ranks(ranking, {d for _, _, d, _ in lines}, depth)
    nj = len(did)
    counts = [[0] * nj for _ in range(nj)]
    jgs = []
    for name in sorted({jg for jg, _, _, _ in lines}, key=_b):
        group = [ln for ln in lines if ln[0] == name]
        several = len({jsg for _, jsg, _, _ in group}) > 1
        jgs.append(_pa_group(group, did, nj, njr, counts) if several else _ec_group(group, did, njr, counts))

    def ratio(f: float, p: float) -> float:
        return f / p if p else 0.0

    def avg(pick) -> float:
        total = 0.0
        for jg in jgs:
            f, p = pick(jg)
            if p:
                total += f / p
        return total / len(jgs) if total > 0.0 else 0.0

    ful = sum(j.ful_ret + j.ful_imp for j in jgs)
    poss = sum(j.poss_ret + j.poss_imp + j.notoccur for j in jgs)
    ful_ret, poss_ret = sum(j.ful_ret for j in jgs), sum(j.poss_ret for j in jgs)
    poss_imp = sum(j.poss_ret + j.poss_imp for j in jgs)
    return {
        "prefs_num_prefs_poss": float(poss), "prefs_num_prefs_ful": float(ful),
        "prefs_num_prefs_ful_ret": float(ful_ret),
        "prefs_simp": ratio(ful, poss), "prefs_simp_ret": ratio(ful_ret, poss_ret), "prefs_simp_imp": ratio(ful, poss_imp),
        "prefs_pair": _pair(counts, nj, njr, 3), "prefs_pair_ret": _pair(counts, nj, njr, 1),
        "prefs_pair_imp": _pair(counts, nj, njr, 2),
        "prefs_avgjg": avg(lambda j: (j.ful_ret + j.ful_imp, j.poss_ret + j.poss_imp + j.notoccur)),
        "prefs_avgjg_ret": avg(lambda j: (j.ful_ret, j.poss_ret)),
        "prefs_avgjg_imp": avg(lambda j: (j.ful_ret + j.ful_imp, j.poss_ret + j.poss_imp)),
        "prefs_avgjg_Rnonrel": _avg_rnonrel(jgs, nj, njr, ret_only=False),
        "prefs_avgjg_Rnonrel_ret": _avg_rnonrel(jgs, nj, njr, ret_only=True),
    }
