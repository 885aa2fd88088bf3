"""Plain-Python loop reference for confidence sets of ranks (Mogstad, Romano, Shaikh & Wilhelm 2024).

Written from the paper's definitions, pair by pair and resample by resample, to check
:func:`pairedframe.stats.rank_sets.rank_sets`.
"""

from __future__ import annotations

import math
import statistics


def rank_sets_loop(columns, resamples, confidence_level, simultaneous, tied=lambda a, b: a == b):
    """(point ranks, lows, highs) of systems given as lists of per-query values ``columns[j]``, with
    bootstrap ``resamples`` (lists of row indices). ``tied(mean_a, mean_b)``: the tie rule."""
    p, n = len(columns), len(columns[0])
    means = [sum(c) / n for c in columns]
    se = {}
    for j in range(p):
        for k in range(p):
            d = [columns[j][i] - columns[k][i] for i in range(n)]
            spread = max(d) - min(d) > 1e-12 * max(max(abs(x) for x in columns[j]), max(abs(x) for x in columns[k]))
            se[j, k] = statistics.stdev(d) / math.sqrt(n) if j != k and spread and not tied(means[j], means[k]) else 0.0
    maxima = []
    for rows in resamples:
        star = [sum(columns[j][i] for i in rows) / n for j in range(p)]
        t = [[abs((star[j] - star[k]) - (means[j] - means[k])) / se[j, k] if se[j, k] > 0 else 0.0
              for k in range(p)] for j in range(p)]
        maxima.append(max(max(r) for r in t) if simultaneous else [max(r) for r in t])
    B = len(resamples)
    at = math.ceil(confidence_level * (B + 1))
    if simultaneous:
        crit = [sorted(maxima)[at - 1] if at <= B else math.inf] * p
    else:
        crit = [sorted(m[j] for m in maxima)[at - 1] if at <= B else math.inf for j in range(p)]
    ranks = [1 + sum(1 for k in range(p) if means[k] > means[j] and not tied(means[k], means[j])) for j in range(p)]
    lows, highs = [], []
    for j in range(p):
        above = sum(1 for k in range(p) if se[j, k] > 0 and (means[k] - means[j]) / se[j, k] > crit[j])
        below = sum(1 for k in range(p) if se[j, k] > 0 and (means[j] - means[k]) / se[j, k] > crit[j])
        lows.append(1 + above)
        highs.append(p - below)
    return ranks, lows, highs
