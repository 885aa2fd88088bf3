"""Plain-Python loop references for rank agreement, Cohen's kappa and the randomised Tukey HSD test.

Textbook definitions written as loops, to check the vectorised kernels in ``pairedframe.stats``.
"""

from __future__ import annotations

import math


def tau_ap_b_half_loop(reference, estimate):
    """One directional half of Urbano & Marrero's (2017) tau_AP_b, walking the estimated ordering from the
    top; without ties, tau_AP (Yilmaz et al. 2008).

    For each item i, the items strictly above it in ``estimate`` are its "earlier" items; C(i)
    counts those also strictly above it in ``reference``.  Items with no earlier item are skipped
    (the top one, and with ties the whole top group).  tau_AP_b is the mean of both directions.
    """
    k = len(estimate)
    total, counted = 0.0, 0
    for i in range(k):
        earlier = [j for j in range(k) if estimate[j] > estimate[i]]
        if not earlier:
            continue
        correct = sum(1 for j in earlier if reference[j] > reference[i])
        total += correct / len(earlier)
        counted += 1
    return float("nan") if counted == 0 else 2.0 * total / counted - 1.0


def tau_ap_a_loop(reference, estimate):
    """Urbano & Marrero's (2017) tau_AP_a (accuracy: ``reference`` the true ranking) by its two terms.

    Each tie group of ``estimate`` (size g, p - 1 items above it) takes the positions p .. p + g - 1 in
    random order.  Term I: an item's concordant items above its group, times the mean over those
    positions of 1 / (position - 1).  Term II: the group's own pairs, the one at position p + m having
    m group items above it, each concordant with probability 1/2 -- or 1 where ``reference`` ties the
    pair too (pairedframe's extension to a reference with ties; a pair the reference ties and the
    estimate orders is never concordant, as in tau_AP_b).  2 / (k - 1) * (I + II) - 1; NaN when the
    reference ties every item.
    """
    k = len(estimate)
    if len(set(reference)) == 1:
        return float("nan")
    total = 0.0
    for value in set(estimate):
        group = [i for i in range(k) if estimate[i] == value]
        g, p = len(group), 1 + sum(1 for j in range(k) if estimate[j] > value)
        for i in group:
            above = [j for j in range(k) if estimate[j] > value]
            concordant = sum(1 for j in above if reference[j] > reference[i])
            if p > 1:
                total += concordant * sum(1.0 / (p + m - 1) for m in range(g)) / g
        pairs = [(i, j) for a, i in enumerate(group) for j in group[a + 1:]]
        if pairs:
            q = sum(1.0 if reference[i] == reference[j] else 0.5 for i, j in pairs) / len(pairs)
            total += q * sum(m / (p + m - 1) for m in range(1, g))
    return 2.0 * total / (k - 1) - 1.0


def tau_ap_tie_breaking_mean(reference, estimate):
    """The mean of plain tau_AP over every way of breaking the ties of ``estimate`` (all equally likely):
    tau_AP_a by its definition, not its closed form.  A pair tied in both orderings counts as concordant
    (pairedframe's extension, as :func:`tau_ap_a_loop`); NaN when the reference ties every item."""
    import itertools

    k = len(estimate)
    if len(set(reference)) == 1:
        return float("nan")
    groups = [[i for i in range(k) if estimate[i] == v] for v in sorted(set(estimate), reverse=True)]
    values = []
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        order = [i for part in parts for i in part]
        total = 0.0
        for pos in range(1, k):
            i = order[pos]
            hits = sum(1 for j in order[:pos] if reference[j] > reference[i]
                       or (reference[j] == reference[i] and estimate[j] == estimate[i]))
            total += hits / pos
        values.append(2.0 * total / (k - 1) - 1.0)
    return sum(values) / len(values)


def kendall_tau_b_loop(x, y):
    """Kendall's tau_b over all pairs."""
    k = len(x)
    s = n1 = n2 = 0
    for i in range(k):
        for j in range(i + 1, k):
            a = (x[i] > x[j]) - (x[i] < x[j])
            b = (y[i] > y[j]) - (y[i] < y[j])
            s += a * b
            n1 += a == 0
            n2 += b == 0
    n0 = k * (k - 1) // 2
    den = math.sqrt((n0 - n1) * (n0 - n2))
    return float("nan") if den == 0 else s / den


def cohen_kappa_loop(a, b, weights=None, by_value=False):
    """Cohen's kappa from two label lists; weights on category positions (sorted union of labels), or on
    the labels' values with ``by_value``."""
    cats = sorted(set(a) | set(b))
    pos = {c: c for c in cats} if by_value else {c: i for i, c in enumerate(cats)}
    n = len(a)

    def w(i, j):
        d = abs(i - j)
        return (1.0 if d else 0.0) if weights is None else float(d) if weights == "linear" else float(d * d)

    observed = sum(w(pos[x], pos[y]) for x, y in zip(a, b)) / n
    pa = {c: sum(1 for x in a if x == c) / n for c in cats}
    pb = {c: sum(1 for y in b if y == c) / n for c in cats}
    expected = sum(w(pos[c], pos[d]) * pa[c] * pb[d] for c in cats for d in cats)
    return float("nan") if expected == 0 else 1.0 - observed / expected


def tukey_hsd_loop(X, n_resamples, rng):
    """Randomised Tukey HSD with the stream of :mod:`pairedframe.stats.tukey`: per permutation, per
    query, ``order = argsort(rng.random(m))`` (stable) shuffles that query's values among systems."""
    n, m = len(X), len(X[0])
    ranges = []
    for _ in range(n_resamples):
        sums = [0.0] * m
        for q in range(n):
            keys = rng.random(m)
            order = sorted(range(m), key=lambda s: (keys[s], s))
            for s in range(m):
                sums[s] += X[q][order[s]]
        means = [v / n for v in sums]
        ranges.append(max(means) - min(means))
    means = [sum(X[q][s] for q in range(n)) / n for s in range(m)]
    scale = sum(abs(X[q][s]) for q in range(n) for s in range(m)) / (n * m)
    p = [[1.0] * m for _ in range(m)]
    for i in range(m):
        for j in range(m):
            if i != j:
                d = abs(means[i] - means[j])
                gamma = 100 * 2.0 ** -52 * max(d, scale)
                b = sum(1 for r in ranges if r >= d - gamma)
                p[i][j] = (b + 1) / (n_resamples + 1)
    return p


def tukey_hsd_shuffle_loop(X, n_resamples, seed):
    """Randomised Tukey HSD as the IR literature describes it (Sakai 2018, ch. 4; Carterette 2012) and
    as elinor implements it, with its own stream: Python's ``random.Random(seed).shuffle`` of every
    query's row per permutation; ``p_ij`` = share of permutations whose range of system means reaches
    ``|mean_i - mean_j|`` (rounded to 12 decimals on both sides, as the values are on a 0.01 grid),
    with the +1 of Phipson & Smyth."""
    import random

    gen = random.Random(seed)
    n, m = len(X), len(X[0])
    means = [round(sum(X[q][s] for q in range(n)) / n, 12) for s in range(m)]
    hits = [[0] * m for _ in range(m)]
    for _ in range(n_resamples):
        sums = [0.0] * m
        for q in range(n):
            row = list(X[q])
            gen.shuffle(row)
            for s in range(m):
                sums[s] += row[s]
        shuffled = [v / n for v in sums]
        spread = round(max(shuffled) - min(shuffled), 12)
        for i in range(m):
            for j in range(m):
                hits[i][j] += spread >= round(abs(means[i] - means[j]), 12)
    return [[1.0 if i == j else (hits[i][j] + 1) / (n_resamples + 1) for j in range(m)] for i in range(m)]


def rbo_ties_loop(x, y, p):
    """Mean rbo_ext over every way of breaking the ties of score lists ``x`` and ``y`` (each ordering
    by score descending; every tie-breaking of x paired with every one of y, all equally likely)."""
    import itertools

    from pairedframe.stats.rbo import rbo

    def breakings(scores):
        groups = [[i for i in range(len(scores)) if scores[i] == v] for v in sorted(set(scores), reverse=True)]
        for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
            yield [i for part in parts for i in part]

    values = [rbo(ox, oy, p=p).rbo_ext for ox in breakings(x) for oy in breakings(y)]
    return sum(values) / len(values)
