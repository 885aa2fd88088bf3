"""Plain-Python loop reference for confidence sets of ranks (Mogstad, Romano, Shaikh & Wilhelm 2024) with
Romano & Wolf's step-down.

Written from the definitions, hypothesis by hypothesis and resample by resample, to check
:func:`pairedframe.stats.rank_sets.rank_sets`.
"""

from __future__ import annotations

import math
import statistics


def _studentizing_se(a, b):
    """The paired standard error of ``a - b``, floored at a tenth of the unpaired one
    ``sqrt((sd(a)^2 + sd(b)^2) / n)``."""
    n = len(a)
    paired = statistics.stdev([x - y for x, y in zip(a, b)]) / math.sqrt(n)
    unpaired = math.sqrt((statistics.variance(a) + statistics.variance(b)) / n)
    return max(paired, unpaired / 10)


def _se(columns, means, tied):
    p, n = len(columns), len(columns[0])
    se = {}
    for j in range(p):
        for k in range(p):
            d = [columns[j][i] - columns[k][i] for i in range(n)]
            scale = max(max(abs(x) for x in columns[j]), max(abs(x) for x in columns[k]))
            spread = max(d) - min(d) > 1e-12 * scale
            orderable = j != k and spread and not tied(means[j], means[k])
            se[j, k] = _studentizing_se(columns[j], columns[k]) if orderable else 0.0
    return se


def _quantile(values, confidence_level):
    at = math.ceil(confidence_level * (len(values) + 1))
    return sorted(values)[at - 1] if at <= len(values) else math.inf


def rank_sets_loop(columns, resamples, confidence_level, simultaneous, tied=lambda a, b: a == b):
    """(point ranks, lows, highs) of systems given as lists of per-query values ``columns[j]``, with
    bootstrap ``resamples`` (lists of row indices). ``tied(mean_a, mean_b)``: the tie rule. The sample and
    each resample are studentized alike: the paired standard error, floored at a tenth of the unpaired one;
    a resample in which both systems are constant, by the sample's.

    A hypothesis ``(j, k)`` says "j is not above k"; it is rejected when ``(mean_j - mean_k) / se_jk``
    exceeds the quantile of the largest centred statistic over the hypotheses of its family still open
    (every hypothesis when ``simultaneous``, else the family of system ``f``: the pairs involving ``f``),
    step after step until none more is rejected."""
    p, n = len(columns), len(columns[0])
    means = [sum(c) / n for c in columns]
    se = _se(columns, means, tied)
    def resampled_t(rows):
        """Each pair's centred difference of resampled means over its resample's own studentizing standard
        error; over the sample's where both systems are constant in the resample (it has none of its own)."""
        star = [sum(columns[j][i] for i in rows) / n for j in range(p)]
        t = {}
        for j, k in se:
            if se[j, k] > 0:
                a, b = [columns[j][i] for i in rows], [columns[k][i] for i in rows]
                own = se[j, k] if len(set(a)) == 1 and len(set(b)) == 1 else _studentizing_se(a, b)
                centred = (star[j] - star[k]) - (means[j] - means[k])
                t[j, k] = centred / own if own > 0 else math.copysign(math.inf, centred) if centred else 0.0
        return t
    stars = [resampled_t(rows) for rows in resamples]

    def centred(t, j, k):
        return t[j, k]

    families = [None] if simultaneous else list(range(p))
    rejected = {}
    for f in families:
        open_ = {(j, k) for j in range(p) for k in range(p)
                 if se[j, k] > 0 and (f is None or f in (j, k))}
        done = set()
        while True:
            crit = _quantile([max((centred(s, j, k) for j, k in open_), default=-math.inf) for s in stars],
                             confidence_level)
            new = {(j, k) for j, k in open_ if (means[j] - means[k]) / se[j, k] > crit}
            if not new:
                break
            done |= new
            open_ -= new
        rejected[f] = done
    ranks = [1 + sum(1 for k in range(p) if means[k] > means[j] and not tied(means[k], means[j])) for j in range(p)]
    lows, highs = [], []
    for j in range(p):
        done = rejected[None if simultaneous else j]
        lows.append(1 + sum(1 for k in range(p) if (k, j) in done))
        highs.append(p - sum(1 for k in range(p) if (j, k) in done))
    return ranks, lows, highs
