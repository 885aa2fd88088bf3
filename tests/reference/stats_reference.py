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


def sign_flip_interval_loop(d, signs, confidence_level=0.95, alternative="two-sided", exact=False,
                            weights=None, p0=None):
    """Interval inverting the sign-flip test, by definition: the closure of {delta : p(delta) >= alpha},
    p(delta) the sign-flip p-value of d - delta with the given patterns.

    p only changes where a pattern's |mean(s (d - delta))| crosses |mean(d - delta)| (the candidate
    points below); between two neighbouring candidates it is constant, so it is evaluated at the
    midpoints (no ties there) and the interval runs from the first to the last candidate that borders a
    gap with p >= alpha.  At delta = 0 the test's own tie rule decides (sign_flip_p_loop, or ``p0``): an
    endpoint that contradicts it is moved to 0 (or just past it).

    ``weights`` (cluster sizes): ``d`` are then cluster sums and a shift ``delta`` moves sum g by
    ``delta * weights[g]``; the statistic is ``sum(s * d) / sum(weights)``.
    """
    w = [1.0] * len(d) if weights is None else list(weights)
    n = sum(w)
    alpha = round(1 - confidence_level, 12)     # without float noise: a shift whose p equals it is kept
    m = sum(d) / n
    a = [sum(s * v for s, v in zip(row, d)) / n for row in signs]
    c = [sum(s * v for s, v in zip(row, w)) / n for row in signs]

    def p_at(delta):
        b = 0
        for ab, cb in zip(a, c):
            t, obs = ab - delta * cb, m - delta
            if alternative == "two-sided":
                b += abs(t) >= abs(obs)
            elif alternative == "greater":
                b += t >= obs
            else:
                b += t <= obs
        return min(1.0, b / len(signs) if exact else (b + 1) / (len(signs) + 1))

    cand = set()
    for ab, cb in zip(a, c):
        if cb < 1:
            cand.add((m - ab) / (1 - cb))
        if cb > -1 and alternative == "two-sided":
            cand.add((m + ab) / (1 + cb))
    cand = sorted(cand)
    edges = [cand[0] - 1.0] + cand + [cand[-1] + 1.0] if cand else [m - 1.0, m + 1.0]
    ok = [p_at((lo + hi) / 2) >= alpha for lo, hi in zip(edges[:-1], edges[1:])]
    if any(ok):
        first = ok.index(True)
        last = len(ok) - 1 - ok[::-1].index(True)
        low = -math.inf if first == 0 else edges[first]
        high = math.inf if last == len(ok) - 1 else edges[last + 1]
    else:   # degenerate data (equal deltas): the set is isolated points
        points = [x for x in cand if p_at(x) >= alpha]
        if not points:
            return math.nan, math.nan
        low, high = min(points), max(points)
    if alternative == "greater":
        high = math.inf
    if alternative == "less":
        low = -math.inf
    if p0 is None:
        p0 = sign_flip_p_loop(d, signs, alternative=alternative, exact=exact)
    tiny = 5e-324
    if p0 >= alpha and not (low <= 0 <= high):
        low, high = min(low, 0.0), max(high, 0.0)
    elif p0 < alpha and low <= 0 <= high:
        if m > 0 or alternative == "greater":
            low = tiny
        else:
            high = -tiny
    return low, high


def too_few_resamples_loop(alpha, B):
    """B Monte-Carlo resamples are too few for level alpha when the least count c of resamples at least as
    extreme whose p-value min((c + 1) / (B + 1), 1) is >= alpha is c = 0: no count gives p < alpha."""
    k = next(c for c in range(B + 1) if min((c + 1) / (B + 1), 1.0) >= alpha)
    return k == 0


def least_resamples_loop(alpha):
    """The first B = 0, 1, 2, ... that :func:`too_few_resamples_loop` does not call too few."""
    B = 0
    while too_few_resamples_loop(alpha, B):
        B += 1
    return B


def studentized_interval_loop(x, idx, confidence_level=0.95, alternative="two-sided", max_quantile_ratio=1.5,
                              min_se_ratio=0.5):
    """Symmetric bootstrap-t interval by loops: T*_b = (mean*_b - mean) / max(sd*_b / sqrt(n), min_se_ratio * se)
    per resample row of ``idx`` (Hall's sd*_b / sqrt(n) alone when ``min_se_ratio`` is None); the half-width
    is se times the k-th largest |T*| with k the least count whose (count + 1) / (B + 1) >= alpha
    (one-sided: the k-th largest T* or k-th smallest), but at most ``max_quantile_ratio`` times
    scipy.stats.t's quantile with n - 1 df (None: no cap), which is the quantile when B is too small for the
    level (k = 0; unbounded without a cap); below 5 values, Student's t interval, and one-sided below 20
    values Student's t bound."""
    from scipy import stats
    n = len(x)
    m = sum(x) / n
    se = sd_loop(x) / math.sqrt(n)
    scale = max(abs(v - m) for v in x)
    ts = []
    for row in idx:
        xs = [x[i] - m for i in row]
        mb = sum(xs) / n
        sb = math.sqrt(max(0.0, sum((v - mb) ** 2 for v in xs) / (n - 1))) / math.sqrt(n)
        floor = 0.0 if min_se_ratio is None else min_se_ratio * se
        if max(xs) - min(xs) <= 1e-12 * scale:      # a constant resample
            ts.append(0.0 if abs(mb) <= 1e-12 * scale else mb / floor if floor > 0 else math.copysign(math.inf, mb))
        else:
            ts.append(mb / max(sb, floor))
    B = len(ts)
    alpha = 1 - confidence_level
    k = next(c for c in range(B + 1) if (c + 1) / (B + 1) >= alpha)
    level = (1 + confidence_level) / 2 if alternative == "two-sided" else confidence_level
    cap = math.inf if max_quantile_ratio is None else max_quantile_ratio * float(stats.t.ppf(level, n - 1))
    if n < 5 or (alternative != "two-sided" and n < 20):   # too few distinct resamples (C(2n - 1, n) <= 35), or
        # a one-sided bound where the calibration found t's covering better: Student's t interval
        ts, k, cap = [float(stats.t.ppf(level, n - 1))], 1, math.inf
        ts = [-ts[0]] if alternative == "less" else ts
    elif k == 0 and math.isinf(cap):     # B too small for the level, no cap: unbounded
        return -math.inf, math.inf
    elif k == 0:                         # B too small for the level: the quantile is beyond every T*, so the cap
        ts, k = [cap if alternative != "less" else -cap], 1
    if alternative == "two-sided":
        q = min(sorted((abs(t) for t in ts), reverse=True)[k - 1], cap)
        return m - q * se, m + q * se
    if alternative == "greater":
        return m - min(sorted(ts, reverse=True)[k - 1], cap) * se, math.inf
    return -math.inf, m + min(-sorted(ts)[k - 1], cap) * se


def ppi_jackknife_loop(y, fy, fu):
    """(estimate, se) of PPI++ with power-tuned lam and the delete-one jackknife over the gold queries:
    lam = clip(cov_1/n(y, fy) / ((1 + n/N) var_ddof1(fy ++ fu)), 0, 1), estimate = lam mean(fu) +
    mean(y - lam fy); se^2 = (n-1)/n sum (est_-i - mean est_-i)^2 + lam^2 var_ddof1(fu) / N."""
    def lam_of(yy, ff):
        n, N = len(yy), len(fu)
        my, mf = sum(yy) / n, sum(ff) / n
        cov = sum((a - my) * (b - mf) for a, b in zip(yy, ff)) / n
        pool = list(ff) + list(fu)
        mp = sum(pool) / len(pool)
        var = sum((v - mp) ** 2 for v in pool) / (len(pool) - 1)
        return 0.0 if var <= 0 else min(1.0, max(0.0, cov / ((1 + n / N) * var)))

    def est_of(yy, ff):
        lam = lam_of(yy, ff)
        return lam * sum(fu) / len(fu) + sum(a - lam * b for a, b in zip(yy, ff)) / len(yy), lam

    n, N = len(y), len(fu)
    est, lam = est_of(y, fy)
    loo = [est_of(y[:i] + y[i + 1:], fy[:i] + fy[i + 1:])[0] for i in range(n)]
    mloo = sum(loo) / n
    mu = sum(fu) / N
    var = (n - 1) / n * sum((v - mloo) ** 2 for v in loo) + lam ** 2 * sum((v - mu) ** 2 for v in fu) / (N - 1) / N
    return est, math.sqrt(var)


def edgeworth_t_quantile_loop(scores, df: float, confidence_level: float = 0.95) -> float:
    """Hall's (1992, sec. 2.6) two-sided Edgeworth correction of the t quantile, scalar loops.

    At a level L: x0 = t(df) quantile at (1 + L) / 2; the coverage shortfall of |T| <= x0 is
    (2/n) x0 phi(x0) [k (x0^2 - 3)/12 - g2 (x0^4 + 2 x0^2 - 3)/18] with g2 = b1 - 6(n-2)/((n+1)(n+3))
    (floored at 0) and k = b2 - 3 + 6/(n+1) (Joanes & Gill 1998 expectations under normality);
    q(L) = max(x0 - shortfall / (2 f_t(x0)), normal quantile).  The result is the largest q over the
    grid levels (2 Phi(z) - 1, z = 0.6745, 0.6795, ...) below ``confidence_level`` and
    ``confidence_level`` itself (non-decreasing in the level up to the grid's resolution);
    constant scores give the t quantile.
    """
    from scipy.stats import norm, t as student_t

    from pairedframe.stats.edgeworth import _grid

    grid_levels = [float(v) for v in _grid(float(df))[0]]

    n = len(scores)
    mean = math.fsum(scores) / n
    c = [v - mean for v in scores]
    m2 = math.fsum(v * v for v in c) / n
    if not m2 > (1e-12 * max(abs(v) for v in scores)) ** 2:
        return float(student_t.ppf(0.5 + confidence_level / 2, df))
    m3 = math.fsum(v ** 3 for v in c) / n
    m4 = math.fsum(v ** 4 for v in c) / n
    g2 = max(m3 * m3 / m2 ** 3 - 6.0 * (n - 2) / ((n + 1) * (n + 3)), 0.0)
    k = m4 / (m2 * m2) - 3.0 + 6.0 / (n + 1)
    best = -math.inf
    for level in [*(v for v in grid_levels if v < confidence_level), confidence_level]:
        x0 = float(student_t.ppf(0.5 + level / 2, df))
        phi = math.exp(-x0 * x0 / 2) / math.sqrt(2 * math.pi)
        shortfall = 2.0 / n * x0 * phi * (k * (x0 ** 2 - 3) / 12 - g2 * (x0 ** 4 + 2 * x0 ** 2 - 3) / 18)
        q = max(x0 - shortfall / (2 * float(student_t.pdf(x0, df))), float(norm.ppf(0.5 + level / 2)))
        best = max(best, q)
    return best
