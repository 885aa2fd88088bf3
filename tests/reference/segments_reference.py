"""Plain-loop reference for :func:`pairedframe.comparison.segments.compare_segments`.

One segment at a time, one resample at a time, with Python integers for the counter-based streams
documented in :mod:`pairedframe.comparison.segments` -- an independent re-implementation used to check
that the one-pass vectorised kernel computes the same thing.
"""

from __future__ import annotations

import numpy as np

from pairedframe.comparison.segments import segment_keys
from pairedframe.stats.randomization import TIE_RTOL

M64 = (1 << 64) - 1
M32 = (1 << 32) - 1


def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def mix32(x: int) -> int:
    x ^= x >> 16
    x = (x * 0x7FEB352D) & M32
    x ^= x >> 15
    x = (x * 0x846CA68B) & M32
    return x ^ (x >> 16)


def draws(key: int, b: int, n: int) -> list[int]:
    """The n 32-bit words of resample b of a stream with 64-bit key."""
    r = mix64((key + (b + 1) * 0x9E3779B97F4A7C15) & M64) >> 32
    return [mix32((r + (i + 1) * 0x9E3779B9) & M32) for i in range(n)]


def is_extreme(t: float, stat: float, gamma: float, alternative: str) -> bool:
    """Is the null statistic t at least as extreme as stat (tie tolerance gamma)?"""
    if alternative == "two-sided":
        return abs(t) >= abs(stat) - gamma
    if alternative == "greater":
        return t >= stat - gamma
    return t <= stat + gamma


def unit_reference(d, *, seed: int, segment_set: str, segment: str, n_resamples: int,
                   confidence_level: float = 0.95, alternative: str = "two-sided") -> dict:
    """Bootstrap percentile CI and sign-flip p-value of one unit's deltas (qid order)."""
    d = np.asarray(d, dtype=np.float64)
    n = d.shape[0]
    kb, kf = segment_keys(seed, segment_set, segment)
    stat = float(np.sum(d) / n)
    theta = np.empty(n_resamples)
    for b in range(n_resamples):
        idx = [(u * n) >> 32 for u in draws(kb, b, n)]
        theta[b] = np.mean(d[idx])
    a = (1 - confidence_level) / 2 if alternative == "two-sided" else 1 - confidence_level
    low, high = np.percentile(theta, [100 * a, 100 * (1 - a)])
    if np.ptp(d) == 0:
        low = high = stat
    if alternative == "less":
        low = -np.inf
    elif alternative == "greater":
        high = np.inf
    exact = n < 63 and 2**n <= n_resamples
    patterns = 2**n if exact else n_resamples
    gamma = TIE_RTOL * max(abs(stat), float(np.mean(np.abs(d))))
    count = 0
    signs = []
    for b in range(patterns):
        bits = [(b >> i) & 1 for i in range(n)] if exact else [u >> 31 for u in draws(kf, b, n)]
        signs.append(np.where(np.array(bits) == 1, -1.0, 1.0))
        count += is_extreme(float(np.mean(np.where(np.array(bits) == 1, -d, d))), stat, gamma, alternative)
    p = count / patterns if exact else (count + 1) / (n_resamples + 1)
    sf_low, sf_high = inverted_interval_reference(d, np.array(signs), 1 - confidence_level, exact, alternative)
    return {"delta": stat, "ci_low": float(low), "ci_high": float(high),
            "se": 0.0 if np.ptp(d) == 0 else float(np.std(theta, ddof=1)), "pvalue": min(p, 1.0),
            "exact": exact, "sf_low": sf_low, "sf_high": sf_high,
            "sf_se": 0.0 if np.ptp(d) == 0 else float(np.std(d, ddof=1) / np.sqrt(n))}


def inverted_interval_reference(d: np.ndarray, signs: np.ndarray, alpha: float, exact: bool,
                                alternative: str) -> tuple[float, float]:
    """The shifts x whose deltas d - x the sign-flip test (these sign patterns, rows of ``signs``)
    does not reject, found by brute force: the p-value is evaluated at every point where some
    pattern's verdict can change (and at the mean), and the accepted points' extremes are returned."""
    m = float(np.mean(d))
    a = signs @ d / d.shape[0]                # each pattern's statistic at shift 0
    c = signs.mean(axis=1)                    # ... and its slope in the shift
    with np.errstate(divide="ignore", invalid="ignore"):
        cand = np.concatenate([(m - a) / (1 - c), (m + a) / (1 + c), [m]])
    cand = cand[np.isfinite(cand)]
    spread = float(np.ptp(cand)) + 1.0
    cand = np.concatenate([cand, [cand.min() - spread, cand.max() + spread]])   # beyond every breakpoint
    tol = 1e-9 * max(abs(m), float(np.mean(np.abs(d))), 1e-300)
    accepted = []
    for x in cand:
        t, obs = a - x * c, m - x
        if alternative == "two-sided":
            k = np.count_nonzero(np.abs(t) >= np.abs(obs) - tol)
        elif alternative == "greater":
            k = np.count_nonzero(t >= obs - tol)
        else:
            k = np.count_nonzero(t <= obs + tol)
        B = signs.shape[0]
        if (k / B if exact else (k + 1) / (B + 1)) >= alpha:
            accepted.append(x)
    low, high = (min(accepted), max(accepted)) if accepted else (np.nan, np.nan)
    low = -np.inf if low == cand[-2] else low         # accepted beyond every breakpoint: unbounded
    high = np.inf if high == cand[-1] else high
    return (-np.inf if alternative == "less" else float(low)), (np.inf if alternative == "greater" else float(high))


def compare_segments_reference(paired, segments, *, seed: int, n_resamples: int,
                               confidence_level: float = 0.95, alternative: str = "two-sided") -> list[dict]:
    """Loop over (system, measure, segment_set, segment) of a paired table (system, measure, qid, delta)."""
    joined = paired.join(segments, on="qid", how="inner").sort("system", "measure", "segment_set", "segment", "qid")
    rows = []
    for (system, measure, sset, seg), grp in joined.group_by(
            ["system", "measure", "segment_set", "segment"], maintain_order=True):
        d = grp["delta"].to_numpy()
        if d.shape[0] < 2:
            continue
        res = unit_reference(d, seed=seed, segment_set=sset, segment=seg, n_resamples=n_resamples,
                             confidence_level=confidence_level, alternative=alternative)
        rows.append({"system": system, "measure": measure, "segment_set": sset, "segment": seg, **res})
    return rows


def adaptive_pattern_bits(key: int, b: int, n: int) -> list[int]:
    """Bits of Monte-Carlo pattern b of a unit with n deltas (pairedframe.stats.sign_flip_units):
    bit i % 64 of SplitMix64 output b + (i // 64) * 2**40 of the stream with seed key."""
    words = [mix64((key + (b + (w << 40) + 1) * 0x9E3779B97F4A7C15) & M64) for w in range((n + 63) // 64)]
    return [(words[i // 64] >> (i % 64)) & 1 for i in range(n)]


def unit_flip_count_reference(d, key: int | None, start: int, stop: int, *, alternative: str = "two-sided",
                              exact: bool = False) -> int:
    """Extreme patterns among patterns start .. stop - 1 of one unit, one pattern at a time."""
    d = np.asarray(d, dtype=np.float64)
    n = d.shape[0]
    stat = float(np.add.reduceat(d, [0])[0] / n)
    gamma = TIE_RTOL * max(abs(stat), float(np.add.reduceat(np.abs(d), [0])[0] / n))
    count = 0
    for b in range(start, stop):
        bits = [(b >> i) & 1 for i in range(n)] if exact else adaptive_pattern_bits(key, b, n)
        count += is_extreme(float(np.mean(np.where(np.array(bits) == 1, -d, d))), stat, gamma, alternative)
    return count
