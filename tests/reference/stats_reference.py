"""Plain-Python loop references for the statistics layer.

Deliberately naive (explicit loops, textbook definitions) so the vectorised code
in ``pairedframe.stats`` can be checked against something obviously right.
"""

from __future__ import annotations

import math

EPS = 2.0 ** -52


def bootstrap_means_loop(x, idx):
    """Mean of ``x`` over each row of the index matrix ``idx``."""
    out = []
    for row in idx:
        total = 0.0
        for i in row:
            total += float(x[int(i)])
        out.append(total / len(row))
    return out


def quantile_type7_loop(values, p):
    """Hyndman-Fan type 7 quantile (linear interpolation, h = (B - 1) p)."""
    y = sorted(values)
    h = (len(y) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(y) - 1)
    return y[lo] + (h - lo) * (y[hi] - y[lo])


def percentile_ci_loop(x, idx, confidence_level=0.95):
    means = bootstrap_means_loop(x, idx)
    a = (1 - confidence_level) / 2
    return quantile_type7_loop(means, a), quantile_type7_loop(means, 1 - a)


def sd_loop(values):
    m = sum(values) / len(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def sign_flip_p_loop(d, signs, alternative="two-sided", exact=False):
    """Sign-flip p-value from an explicit list of sign patterns, with the
    pairedframe tie rule gamma = 100 eps max(|T|, mean|d|)."""
    n = len(d)
    obs = sum(d) / n
    gamma = 100 * EPS * max(abs(obs), sum(abs(v) for v in d) / n)
    b = 0
    for row in signs:
        t = sum(s * v for s, v in zip(row, d)) / n
        if alternative == "two-sided":
            b += abs(t) >= abs(obs) - gamma
        elif alternative == "greater":
            b += t >= obs - gamma
        else:
            b += t <= obs + gamma
    m = len(signs)
    return b / m if exact else (b + 1) / (m + 1)


def holm_loop(p):
    """Holm adjusted p-values by definition: max over j <= rank of (m-j+1) p_(j)."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for rank, i in enumerate(order):
        best = 0.0
        for j in range(rank + 1):
            best = max(best, min(1.0, (m - j) * p[order[j]]))
        out[i] = best
    return out


def bh_loop(p):
    """BH adjusted p-values by definition: min over j >= rank of m p_(j) / j."""
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    for rank, i in enumerate(order):
        best = 1.0
        for j in range(rank, m):
            best = min(best, m * p[order[j]] / (j + 1))
        out[i] = best
    return out
