"""Plain-loop reference for :func:`pairedframe.compare`.

Deliberately naive: dictionaries and loops, the textbook definitions of the statistics, and the
documented resample streams drawn in one piece (no chunks, no matmul kernel):

- pairs: queries present for both the baseline and the system, in code-point order of qid;
- bootstrap index: ``default_rng(keyed_seed_sequence(seed, query_set_key(qids))).integers(0, n, (B, n))``;
- sign flips: ``default_rng(keyed_seed_sequence(seed, ("sign-flip", key)))``, ``ceil(n/64)`` full-range
  uint64 words per resample, bit ``j % 64`` of word ``j // 64`` set = flip observation ``j``
  (all ``2**n`` patterns when ``2**n <= B``);
- interval: by default the symmetric studentized bootstrap interval on that index, its quantile at most
  1.5 x scipy's t quantile (:func:`stats_reference.studentized_interval_loop`; n equal deltas ``c`` of a
  measure in ``[lo, hi]`` get ``c - s (c + w), c + s (w - c)`` with ``w = hi - lo``, ``s = 1 - (alpha/2)**(1/n)``,
  the whole line for a measure without a known range), or the closure of the shifts the sign-flip test
  does not reject (:func:`stats_reference.sign_flip_interval_loop`), or the percentile interval of the
  bootstrap means; finite ends clipped to ``[-w, w]``;
- Holm / BH over all rows (one family).
"""

from __future__ import annotations

import math

import numpy as np

from pairedframe.measures.parse import value_range
from pairedframe.stats.resample import keyed_seed_sequence, query_set_key
from tests.reference import stats_reference as sref


def _delta(a: float, b: float, tolerance: float = 1e-12) -> float:
    """b - a, or exactly 0 when the difference is float noise (|b - a| <= tol * max(1, |a|, |b|))."""
    return 0.0 if abs(b - a) <= tolerance * max(1.0, abs(a), abs(b)) else b - a


def _signs_loop(n, B, rng):
    words_per_row = -(-n // 64)
    rows = []
    for _ in range(B):
        words = rng.integers(0, 2**64 - 1, size=words_per_row, dtype=np.uint64, endpoint=True)
        row = []
        for j in range(n):
            bit = (int(words[j // 64]) >> (j % 64)) & 1
            row.append(-1.0 if bit else 1.0)
        rows.append(row)
    return rows


def _sign_flip_p_loop_nonzero(d, signs, exact, n_resamples):
    """The sign-flip p by its definition over the ``k`` non-zero deltas (a zero delta flips to itself): exact
    over their ``2**k`` patterns when that many are no more than ``n_resamples``, else the Monte-Carlo p of
    ``signs`` held at the exact p's least value ``2 / 2**k``."""
    nonzero = [j for j, v in enumerate(d) if v != 0]
    k = len(nonzero)
    if exact or 2 ** k > n_resamples:
        p = sref.sign_flip_p_loop(d, signs, exact=exact)
        return p if exact or k == 0 else max(p, 2 / 2 ** k)
    patterns = []
    for r in range(2 ** k):
        row = [1.0] * len(d)
        for bit, j in enumerate(nonzero):
            row[j] = -1.0 if (r >> bit) & 1 else 1.0
        patterns.append(row)
    return sref.sign_flip_p_loop(d, patterns, exact=True)


def compare_loop(records, *, baseline, n_resamples=999, confidence_level=0.95, seed=0, interval="studentized"):
    """records: iterable of dicts with system, qid, measure, value.  Returns a list of row dicts
    (system, measure, n_queries, delta, ci_low, ci_high, se, pvalue, pvalue_holm, pvalue_bh, wins,
    losses, ties) in order of first appearance of system, then measure."""
    values = {}
    systems, measures = [], []
    for r in records:
        values[(r["system"], r["measure"], str(r["qid"]))] = float(r["value"])
        if r["system"] not in systems:
            systems.append(r["system"])
        if r["measure"] not in measures:
            measures.append(r["measure"])
    out = []
    for s in systems:
        if s == baseline:
            continue
        for m in measures:
            qids = sorted(q for (s2, m2, q) in values if s2 == s and m2 == m
                          and (baseline, m, q) in values)
            if not qids:
                continue
            d = [_delta(values[(baseline, m, q)], values[(s, m, q)]) for q in qids]
            n = len(d)
            key = query_set_key(qids)
            rng = np.random.default_rng(keyed_seed_sequence(seed, key))
            idx = rng.integers(0, n, size=(n_resamples, n))
            means = sref.bootstrap_means_loop(d, idx)
            a = (1 - confidence_level) / 2
            exact = 2 ** n <= n_resamples
            if exact:
                signs = [[-1.0 if (r >> j) & 1 else 1.0 for j in range(n)] for r in range(2 ** n)]
            else:
                frng = np.random.default_rng(keyed_seed_sequence(seed, ("sign-flip", key)))
                signs = _signs_loop(n, n_resamples, frng)
            p = _sign_flip_p_loop_nonzero(d, signs, exact, n_resamples)
            lo, hi = value_range(m)
            w = hi - lo
            # no spread: equal to within 1e-12 of the largest |delta| (0.8 - 0.7 and 0.1 - 0.0 differ in the last bit)
            flat = max(d) - min(d) <= 1e-12 * max(abs(x) for x in d)
            if interval == "studentized" and flat:
                share = 1 - ((1 - confidence_level) / 2) ** (1 / n)
                low = -math.inf if math.isinf(w) else d[0] - share * (d[0] + w)
                high = math.inf if math.isinf(w) else d[0] + share * (w - d[0])
                se = 0.0
            elif interval == "studentized":
                low, high = sref.studentized_interval_loop(d, idx.tolist(), confidence_level)
                se = sref.sd_loop(d) / math.sqrt(n)
            elif interval == "signflip":
                low, high = sref.sign_flip_interval_loop(d, signs, confidence_level, exact=exact)
                se = sref.sd_loop(d) / math.sqrt(n) if not flat else 0.0
            elif flat:
                low = high = sum(d) / n
                se = 0.0
            else:
                low = sref.quantile_type7_loop(means, a)
                high = sref.quantile_type7_loop(means, 1 - a)
                se = sref.sd_loop(means)
            low = low if math.isinf(low) else min(max(low, -w), w)
            high = high if math.isinf(high) else min(max(high, -w), w)
            out.append({"system": s, "measure": m, "n_queries": n, "delta": sum(d) / n,
                        "ci_low": low, "ci_high": high, "se": se, "pvalue": min(1.0, p),
                        "wins": sum(x > 0 for x in d), "losses": sum(x < 0 for x in d),
                        "ties": sum(x == 0 for x in d)})
    ps = [r["pvalue"] for r in out]
    for r, h, b in zip(out, sref.holm_loop(ps), sref.bh_loop(ps)):
        r["pvalue_holm"], r["pvalue_bh"] = h, b
    return out


def mde_loop(sd, n, level=0.05, power=0.8):
    """Noncentral-t MDE of the two-sided t-test at ``level``, by bisection on scipy's noncentral t."""
    from scipy import stats

    crit = stats.t.ppf(1 - level / 2, n - 1)

    def pw(nc):
        return stats.nct.sf(crit, n - 1, nc) + stats.nct.cdf(-crit, n - 1, nc)

    lo, hi = 0.0, 1.0
    while pw(hi) < power:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if pw(mid) < power else (lo, mid)
    return (lo + hi) / 2 * sd / math.sqrt(n)
