"""Slow, obviously-correct reference implementations of the cluster statistics.

They take the canonical cluster summaries (``sums``, ``sizes`` as returned by
``pairedframe.stats.cluster.cluster_summaries``) and loop in plain Python /
numpy, one resample at a time, so that the vectorised kernels can be checked
against them.  Random streams are re-derived here from their documented
definitions (``rng.integers(0, G, (B, G))`` for the bootstrap, as
``scipy.stats.bootstrap``; one full-range uint64 word per 64 clusters with
little-endian bit ``g`` set meaning "flip cluster g" for the sign-flip test),
not taken from ``pairedframe.stats.resample``.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

import numpy as np

TIE_RTOL = 100 * np.finfo(np.float64).eps


def ref_groups(values, clusters):
    """{label: list of values} by plain dict grouping."""
    groups = defaultdict(list)
    for v, c in zip(np.asarray(values, dtype=float).tolist(), list(clusters)):
        groups[c].append(v)
    return groups


def ref_summaries(values, clusters):
    """(sums, sizes) ordered by (size, sum), sums with math.fsum (approximately canonical)."""
    rows = sorted((len(v), math.fsum(v)) for v in ref_groups(values, clusters).values())
    sizes = np.array([r[0] for r in rows], dtype=float)
    sums = np.array([r[1] for r in rows], dtype=float)
    return sums, sizes


def _quantile_linear(a, q):
    a = np.sort(np.asarray(a, dtype=float))
    h = (len(a) - 1) * q
    lo = math.floor(h)
    hi = min(lo + 1, len(a) - 1)
    return a[lo] + (h - lo) * (a[hi] - a[lo])


def ref_cluster_bootstrap(sums, sizes, *, n_resamples, confidence_level=0.95, seed):
    """Percentile cluster bootstrap, one resample at a time -> (stat, low, high, se, theta_b)."""
    sums = np.asarray(sums, dtype=float)
    sizes = np.asarray(sizes, dtype=float)
    G = sizes.shape[0]
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, G, size=(n_resamples, G))
    theta = np.array([sum(sums[i] for i in row) / sum(sizes[i] for i in row) for row in idx.tolist()])
    a = (1 - confidence_level) / 2
    stat = math.fsum(sums.tolist()) / sizes.sum()
    return stat, _quantile_linear(theta, a), _quantile_linear(theta, 1 - a), float(np.std(theta, ddof=1)), theta


def _count(null, obs, gamma, alternative):
    if alternative == "two-sided":
        return sum(1 for t in null if abs(t) >= abs(obs) - gamma)
    if alternative == "greater":
        return sum(1 for t in null if t >= obs - gamma)
    return sum(1 for t in null if t <= obs + gamma)


def ref_cluster_sign_flip(sums, sizes, *, n_resamples, alternative="two-sided", seed=None):
    """Cluster sign-flip p-value by explicit enumeration / explicit random patterns -> (obs, p, exact)."""
    sums = [float(s) for s in sums]
    n_total = float(np.sum(sizes))
    G = len(sums)
    obs = sum(sums) / n_total
    gamma = TIE_RTOL * max(abs(obs), sum(abs(s) for s in sums) / n_total)
    if all(s == 0.0 for s in sums):
        return obs, 1.0, 2**G <= n_resamples
    if 2**G <= n_resamples:
        null = [sum(s * x for s, x in zip(signs, sums)) / n_total
                for signs in itertools.product((1.0, -1.0), repeat=G)]
        return obs, min(1.0, _count(null, obs, gamma, alternative) / 2**G), True
    rng = np.random.default_rng(seed)
    n_words = -(-G // 64)
    words = rng.integers(0, 2**64 - 1, size=(n_resamples, n_words), dtype=np.uint64, endpoint=True)
    null = []
    for row in words.tolist():
        signs = [-1.0 if (row[g // 64] >> (g % 64)) & 1 else 1.0 for g in range(G)]
        null.append(sum(s * x for s, x in zip(signs, sums)) / n_total)
    b = _count(null, obs, gamma, alternative)
    return obs, min(1.0, (b + 1) / (n_resamples + 1)), False
