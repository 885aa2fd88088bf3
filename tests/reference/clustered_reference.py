"""Plain-loop reference of the frame-level cluster comparison (one comparison, no frames, no vectorisation).

Pairs two systems' per-query values with dicts, groups the deltas into clusters, orders clusters by their
smallest qid (code point), draws the documented streams of :func:`pairedframe.comparison.clustered.cluster_streams`
(``rng.integers(0, G, (B, G))`` for the bootstrap; ``ceil(G/64)`` full-range uint64 words per sign pattern,
little-endian bit g = flip cluster g; or every pattern r in 0..2^G-1, bit g of r = flip g, when 2^G <= B),
and computes the statistics one resample at a time.
"""

from __future__ import annotations

import math

import numpy as np

TIE_RTOL = 100 * np.finfo(np.float64).eps


def ref_pair(a: dict, b: dict, clusters: dict):
    """(qids sorted, deltas, canonical cluster list of qid lists, sums, sizes)."""
    qids = sorted(set(a) & set(b))
    delta = {q: b[q] - a[q] for q in qids}
    groups: dict = {}
    for q in qids:
        groups.setdefault(clusters[q], []).append(q)
    members = sorted((sorted(m) for m in groups.values()), key=lambda m: m[0])
    sums = np.array([math.fsum(delta[q] for q in m) for m in members])
    sizes = np.array([float(len(m)) for m in members])
    return qids, np.array([delta[q] for q in qids]), members, sums, sizes


def ref_cluster_compare(a: dict, b: dict, clusters: dict, *, boot_rng, flip_rng, n_resamples: int,
                        confidence_level: float = 0.95, interval: str = "edgeworth"):
    """dict(delta, ci_low, ci_high, se, pvalue, n_clusters) by loops.

    ``se`` is the CR2 cluster-robust SE and ``df`` its Bell-McCaffrey degrees of freedom, from explicit
    matrices (:func:`cr2_se_and_df_by_matrices`); the interval is the
    cluster-t with Hall's Edgeworth-corrected quantile of the residual sums on ``df`` (``edgeworth``,
    ``stats_reference.edgeworth_t_quantile_loop``), the cluster sign-flip test inverted by definition
    (``stats_reference.sign_flip_interval_loop`` with the cluster sizes as weights) or the cluster
    bootstrap percentile interval.
    """
    from tests.reference.stats_reference import edgeworth_t_quantile_loop, sign_flip_interval_loop

    qids, d, members, sums, sizes = ref_pair(a, b, clusters)
    G, N = len(members), float(len(qids))
    delta = math.fsum(sums) / N
    idx = boot_rng.integers(0, G, size=(n_resamples, G))
    theta = np.array([math.fsum(sums[i] for i in row) / math.fsum(sizes[i] for i in row) for row in idx])
    alpha = 1 - confidence_level
    srt = np.sort(theta)
    def q(p):
        h = (n_resamples - 1) * p
        lo = math.floor(h)
        hi = min(lo + 1, n_resamples - 1)
        return srt[lo] + (h - lo) * (srt[hi] - srt[lo])
    gamma = TIE_RTOL * max(abs(delta), math.fsum(abs(s) for s in sums) / N)
    exact = G < 63 and (1 << G) <= n_resamples
    if exact:
        signs = [[-1.0 if (r >> g) & 1 else 1.0 for g in range(G)] for r in range(1 << G)]
    else:
        words = -(-G // 64)
        signs = []
        for _ in range(n_resamples):
            w = flip_rng.integers(0, np.iinfo(np.uint64).max, size=words, dtype=np.uint64, endpoint=True)
            signs.append([-1.0 if (int(w[g // 64]) >> (g % 64)) & 1 else 1.0 for g in range(G)])
    count = 0
    for row in signs:
        t = math.fsum(s * sums[g] for g, s in enumerate(row)) / N
        count += abs(t) >= abs(delta) - gamma
    p = count / len(signs) if exact else (count + 1) / (n_resamples + 1)
    if np.all(sums == 0):
        p = 1.0
    p = min(p, 1.0)
    label = {q: g for g, m in enumerate(members) for q in m}
    se, df = cr2_se_and_df_by_matrices(d, [label[q] for q in qids])
    if interval == "edgeworth":
        qe = edgeworth_t_quantile_loop([sums[g] - delta * sizes[g] for g in range(G)], df, confidence_level)
        ci_low, ci_high = delta - qe * se, delta + qe * se
    elif interval == "signflip":
        ci_low, ci_high = sign_flip_interval_loop(list(sums), signs, confidence_level, exact=exact,
                                                  weights=list(sizes), p0=p)
    else:
        ci_low, ci_high = q(alpha / 2), q(1 - alpha / 2)
    return {"delta": delta, "ci_low": ci_low, "ci_high": ci_high, "se": se, "df": df, "pvalue": p, "n_clusters": G,
            "bootstrap_se": float(np.std(theta, ddof=1))}


def cr2_se_and_df_by_matrices(deltas, labels):
    """CR2 standard error of the mean and its Bell-McCaffrey df from explicit N x N matrices.

    H = J / N is the hat matrix of the mean, M = I - H; cluster g's residuals e_g are adjusted by
    A_g = (I - H_gg)^(-1/2) (eigendecomposition); V = sum_g (1' A_g e_g)^2 / N^2.  With e = M eps,
    1' A_g e_g = v_g' eps for v_g = M[g, :]' A_g 1 / N, and the df is tr(L)^2 / tr(L^2), L_gh = v_g' v_h
    (Bell & McCaffrey 2002, Imbens & Kolesar 2016).
    """
    d = np.asarray(deltas, dtype=float)
    labels = np.asarray(labels)
    N = d.shape[0]
    M = np.eye(N) - np.full((N, N), 1.0 / N)
    e = M @ d
    vs, total = [], 0.0
    for g in sorted(set(labels.tolist())):
        idx = np.flatnonzero(labels == g)
        w, U = np.linalg.eigh(np.eye(idx.size) - np.full((idx.size, idx.size), 1.0 / N))
        A = U @ np.diag(w ** -0.5) @ U.T
        total += float(np.ones(idx.size) @ A @ e[idx]) ** 2
        vs.append(M[idx, :].T @ A @ np.ones(idx.size) / N)
    L = np.array([[vg @ vh for vh in vs] for vg in vs])
    return math.sqrt(total) / N, float(np.trace(L) ** 2 / np.trace(L @ L))
