"""Calibration of :func:`pairedframe.compare_clustered` (intervals, test, TOST) on real deltas in clusters.

Real TREC collections have no query clusters, so clusters are built from a run pair's real deltas with
a chosen intra-cluster correlation: query j of cluster g has delta ``mean + sqrt(icc) u_g +
sqrt(1 - icc) e_gj`` where ``u_g`` and ``e_gj`` are drawn i.i.d. from the pair's *centred* deltas
(so both levels keep the real skew and ties).  Truth = the pair's mean delta.

- coverage of the 95 % intervals: ``edgeworth`` (default: cluster-t with the Edgeworth-corrected
  quantile), ``signflip`` (the shifts the cluster sign-flip test does not reject), cluster-t (``G - 1``
  df, CR1 SE), the cluster percentile bootstrap; widths vs cluster-t;
  type-I error of the cluster sign-flip test (centred);
- equivalence: with the true delta exactly at the margin (``margin`` = 0.05 on top of centred deltas),
  how often TOST says "equivalent" (should be <= 0.05): the t-based TOST on the CR1 SE with ``G - 1``
  df (what compare_clustered does now) and the former z-based TOST on the cluster bootstrap SE.  Real
  deltas are heavy-tailed, which makes TOST conservative; a Gaussian reference row (per-query sd 0.1,
  the setting where TOST attains its level) shows the worst case.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from common import ALPHA, batches, rate, ratio, table
from pairedframe.errors import SmallSampleWarning
from pairedframe.stats.cluster import cluster_bootstrap_columns, cluster_summaries
from pairedframe.stats.cluster_interval import (cluster_df, cluster_edgeworth_interval, cluster_robust_se,
                                                cluster_sign_flip_interval_many, cluster_t_interval)
from pairedframe.stats.results import ConfidenceInterval
from pairedframe.stats.edgeworth import edgeworth_t_quantile
from pairedframe.stats.equivalence import tost

INTERVALS = ("edgeworth", "signflip", "t", "percentile")


GAUSSIAN_SD = 0.1
#: ``pops`` of :func:`draw_clusters` for synthetic, strongly skewed cluster effects: ``u_g`` ~ Exp(1) - 1 (mean 0,
#: skewness 2) plus N(0, SKEW_NOISE^2) per query, true mean 0 (``icc`` is then not used).
SKEWED = "Exp(1) - 1 cluster effects"
SKEW_NOISE = 0.25


def draw_clusters(pops, G: int, m, icc: float, reps: int, rng, *, centre: bool = False,
                  shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(values (N, reps), truth (reps,)) for G clusters of ``m`` queries each (or of the sizes in the
    sequence ``m``); replication r uses population r mod P (``pops=None``: Gaussian deltas with sd
    GAUSSIAN_SD and true mean ``shift``; ``pops=SKEWED``: Exp(1) - 1 cluster effects, true mean ``shift``)."""
    sizes = np.full(G, m) if np.isscalar(m) else np.asarray(m)
    N = int(sizes.sum())
    of = np.repeat(np.arange(G), sizes)
    X = np.empty((N, reps))
    truth = np.empty(reps)
    a, b = math.sqrt(icc), math.sqrt(1.0 - icc)
    if pops is None:
        u = rng.normal(0.0, GAUSSIAN_SD, (G, reps))
        e = rng.normal(0.0, GAUSSIAN_SD, (N, reps))
        return shift + a * u[of] + b * e, np.full(reps, shift)
    if isinstance(pops, str) and pops == SKEWED:
        u = rng.exponential(1.0, (G, reps)) - 1.0
        e = rng.normal(0.0, SKEW_NOISE, (N, reps))
        return shift + u[of] + e, np.full(reps, shift)
    for r in range(reps):
        pop = pops[r % len(pops)].deltas
        c = pop - pop.mean()
        u = c[rng.integers(0, c.shape[0], G)]
        e = c[rng.integers(0, c.shape[0], N)]
        mean = 0.0 if centre else pop.mean()
        X[:, r] = mean + shift + a * u[of] + b * e
        truth[r] = mean + shift
    return X, truth


def cell(pops, G: int, m, icc: float, reps: int, B: int, seed: int) -> dict:
    key = m if np.isscalar(m) else 1000 + int(np.asarray(m).max())      # unequal sizes: their own stream
    rng = np.random.default_rng([seed, G, key, int(icc * 100), 23])
    labels = np.repeat(np.arange(G), m)
    cover = {k: [] for k in (*INTERVALS, "CR1")}
    width = {k: [] for k in (*INTERVALS, "CR1")}
    reject = []
    for bi, (lo, hi) in enumerate(batches(reps)):
        k = hi - lo
        X, truth = draw_clusters(pops, G, m, icc, k, rng)
        flip_ss, boot_ss = np.random.SeedSequence([seed, G, key, bi]).spawn(2)
        sf = cluster_sign_flip_interval_many(X, labels, n_resamples=B, seed=np.random.default_rng(flip_ss))
        sums, sizes = cluster_summaries(X, labels)
        theta = sums.sum(axis=0) / sizes.sum()
        ct = cluster_t_interval(theta, cluster_robust_se(sums, sizes), G, df=cluster_df(sizes))
        ce = cluster_edgeworth_interval(sums, sizes)
        # the former default: CR1 SE and G - 1 df (the same as ce for equal sizes)
        resid = sums - theta * sizes[:, None]
        se1 = np.sqrt(G / (G - 1.0) * np.sum(resid * resid, axis=0)) / sizes.sum()
        q1 = edgeworth_t_quantile(resid, G - 1)
        cr1 = ConfidenceInterval(theta - q1 * se1, theta + q1 * se1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SmallSampleWarning)
            _, pct, _ = cluster_bootstrap_columns(X, sums, sizes, B, 0.95, "two-sided", np.random.default_rng(boot_ss), None)
        for name, ci in (("edgeworth", ce), ("signflip", sf.confidence_interval), ("t", ct), ("percentile", pct),
                         ("CR1", cr1)):
            low, high = np.asarray(ci.low, float), np.asarray(ci.high, float)
            cover[name].append((low <= truth) & (truth <= high))
            width[name].append(high - low)
        Xc, _ = draw_clusters(pops, G, m, icc, k, rng, centre=True)
        p = cluster_sign_flip_interval_many(Xc, labels, n_resamples=B,
                                            seed=np.random.default_rng([seed, G, key, bi, 3])).pvalue
        reject.append(np.asarray(p) < ALPHA)
    cat = lambda x: np.concatenate(x)  # noqa: E731
    return {"cover": {k: cat(v) for k, v in cover.items()}, "width": {k: cat(v) for k, v in width.items()},
            "reject": cat(reject)}


def equivalence_cell(pops, G: int, m: int, icc: float, reps: int, B: int, seed: int, margin: float) -> dict:
    """P(equivalent) with the true delta at +margin: t-based TOST (CR1, G - 1 df) and z on the bootstrap SE."""
    rng = np.random.default_rng([seed, G, m, 29])
    labels = np.repeat(np.arange(G), m)
    eq_t, eq_z = [], []
    for bi, (lo, hi) in enumerate(batches(reps)):
        X, _ = draw_clusters(pops, G, m, icc, hi - lo, rng, centre=True, shift=margin)
        sums, sizes = cluster_summaries(X, labels)
        theta = sums.sum(axis=0) / sizes.sum()
        se = cluster_robust_se(sums, sizes)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SmallSampleWarning)
            _, _, boot_se = cluster_bootstrap_columns(X, sums, sizes, B, 0.95, "two-sided",
                                          np.random.default_rng([seed, G, m, bi, 5]), None)
        for c in range(X.shape[1]):
            eq_t.append(se[c] > 0 and tost(theta[c], se[c], margin=margin, confidence_level=1 - ALPHA, df=G - 1).equivalent)
            eq_z.append(boot_se[c] > 0 and tost(theta[c], boot_se[c], margin=margin, confidence_level=1 - ALPHA).equivalent)
    return {"t": np.array(eq_t), "z": np.array(eq_z)}


def run(populations: dict, Gs, iccs, reps: int, B: int, seed: int, m: int = 5, log=print) -> dict:
    results = {}
    for (collection, measure), pops in populations.items():
        for G in Gs:
            for icc in iccs:
                results[(collection, measure, G, icc)] = cell(pops, G, m, icc, reps, B, seed)
            log(f"  clustered {collection} {measure} G={G} done")
    return results


def run_equivalence(populations: dict, Gs, sizes, reps: int, B: int, seed: int, margin: float = 0.05,
                    icc: float = 0.3, log=print) -> dict:
    results = {}
    for (collection, measure), pops in [*populations.items(), ((f"Gaussian, sd {GAUSSIAN_SD:g}", "-"), None)]:
        for G in Gs:
            for m in sizes:
                results[(collection, measure, G, m)] = equivalence_cell(pops, G, m, icc if m > 1 else 0.0, reps, B,
                                                                         seed, margin)
        log(f"  equivalence {collection} {measure} done")
    return results


def report(results: dict, reps: int, B: int, m: int = 5) -> str:
    rows = [[c, ms, str(G), f"{icc:g}"] + [rate(r["cover"][k]) for k in INTERVALS]
            + [ratio(r["width"][k], r["width"]["t"]) for k in ("edgeworth", "signflip", "percentile")]
            + [rate(r["reject"])]
            for (c, ms, G, icc), r in results.items()]
    out = (f"### compare_clustered: G clusters of {m} queries, real deltas with intra-cluster correlation icc\n\n"
           f"{reps} replications per cell, B = {B} (exact sign-flip enumeration when 2^G <= B); coverage of the "
           "truth; width / width of cluster-t; type-I error of the cluster sign-flip test (centred deltas).\n\n")
    return out + table(["collection", "measure", "G", "icc", "edgeworth (default)", "signflip", "cluster-t",
                        "percentile", "width edgeworth", "width signflip", "width percentile", "type-I sign-flip"], rows)


def report_equivalence(results: dict, reps: int, B: int, margin: float = 0.05) -> str:
    rows = [[c, ms, str(G), str(m), rate(r["t"]), rate(r["z"])] for (c, ms, G, m), r in results.items()]
    out = (f"### Equivalence: P('equivalent') with the true delta at the margin ({margin:g}); should be <= 0.05\n\n"
           f"{reps} replications per cell; G clusters of m queries (icc 0.3 when m > 1); t = TOST on the CR1 SE "
           f"with G - 1 df (compare_clustered, analyze); z = the former TOST on the cluster bootstrap SE (B = {B}).\n\n")
    return out + table(["collection", "measure", "G", "m", "t-based TOST (default)", "z on bootstrap SE"], rows)


#: Unequal cluster sizes (G = 10; 30, 31 and 40 queries): one dominant cluster, a skewed spread, two sizes.
UNEQUAL_SIZES = ((21, 1, 1, 1, 1, 1, 1, 1, 1, 1), (10, 6, 4, 3, 2, 2, 1, 1, 1, 1), (8, 8, 4, 4, 4, 4, 2, 2, 2, 2))


def run_unequal(populations: dict, iccs, reps: int, B: int, seed: int, log=print) -> dict:
    results = {}
    for (collection, measure), pops in populations.items():
        for sizes in UNEQUAL_SIZES:
            for icc in iccs:
                results[(collection, measure, sizes, icc)] = cell(pops, len(sizes), sizes, icc, reps, B, seed)
        log(f"  unequal clusters {collection} {measure} done")
    return results


def report_unequal(results: dict, reps: int, B: int) -> str:
    rows = [[c, ms, "/".join(map(str, sizes)), f"{cluster_df(np.asarray(sizes, float)):.1f}", f"{icc:g}"]
            + [rate(r["cover"][k]) for k in (*INTERVALS, "CR1")]
            + [ratio(r["width"][k], r["width"]["t"]) for k in ("edgeworth",)]
            + [rate(r["reject"])] for (c, ms, sizes, icc), r in results.items()]
    out = (f"### compare_clustered with unequal cluster sizes (G = 10; 30, 31 and 40 queries)\n\n{reps} replications per "
           f"cell, B = {B}; coverage of the truth (cluster-t here: CR2 SE with Bell-McCaffrey df, as the default); "
           "df = Bell-McCaffrey degrees of freedom; type-I error of the cluster sign-flip test (centred deltas).\n\n")
    return out + table(["collection", "measure", "sizes", "df", "icc", "edgeworth (default)", "signflip", "cluster-t",
                        "percentile", "edgeworth on CR1, G - 1 df (former)", "width edgeworth", "type-I sign-flip"], rows)
