"""Calibration of compare_clustered's one-sided bounds and tests (``alternative="greater"`` / ``"less"``).

``python benchmarks/calibration --section clustered_one_sided [--reps R] [--clusters G ...] [--levels L ...]``
(10,000 replications per cell, B = 999, G = 6, 10, 20 clusters of 5 queries, icc 0.3, levels 0.90 and 0.95 by
default: MC SE 0.003 / 0.002; 5 minutes)

Clusters are built from real deltas as in the clustered section (``clustered.draw_clusters``: query j of
cluster g has delta ``mean + sqrt(icc) u_g + sqrt(1 - icc) e_gj``, ``u_g`` and ``e_gj`` drawn from a run
pair's centred deltas; truth = the pair's mean delta).  For each collection, measure, G and level, on the same
replications: how often the lower bound of ``alternative="greater"`` lies at or below the truth and the upper
bound of ``alternative="less"`` at or above it, for the default (the one-sided default is plain cluster-t, CR2 SE
on Bell-McCaffrey df: the Edgeworth step is two-sided only, so ``interval="t"`` prints the same bound), the
inverted cluster sign-flip test and the cluster percentile bootstrap; then the one-sided type-I error of the
cluster sign-flip test on centred deltas.  A last table repeats the type-I error with strongly skewed cluster
effects (``u_g`` ~ Exp(1) - 1, ``e_gj`` ~ N(0, 0.25^2), G = 10 clusters of 3 queries), where the test's
symmetry assumption fails.  Bounds and p-values are the ones compare_clustered prints, from the same code
(:func:`pairedframe.comparison.clustered._cluster_columns`); tests/test_calibration_clustered_one_sided.py checks
them against :func:`pairedframe.compare_clustered` on the same table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
import data  # noqa: E402
from _tee import output_to  # noqa: E402
from clustered import draw_clusters  # noqa: E402
from common import batches, rate, table  # noqa: E402
from pairedframe.comparison.clustered import _cluster_columns  # noqa: E402
from pairedframe.comparison.options import check_options  # noqa: E402
from pairedframe.comparison.streams import cluster_layout  # noqa: E402
from pairedframe.stats.levels import decision_alpha  # noqa: E402

CLUSTERS = (6, 10, 20)
LEVELS = (0.90, 0.95)
ALTERNATIVES = ("greater", "less")
#: The intervals measured, as ``interval=`` names them ("edgeworth" is the default; one-sided it is cluster-t).
INTERVALS = ("edgeworth", "signflip", "percentile")
NAMES = {"edgeworth": "default (cluster t)", "signflip": "signflip", "percentile": "percentile"}
SKEW_G, SKEW_M, SKEW_NOISE = 10, 3, 0.25


def clustered_statistics(D: np.ndarray, clusters, tag: str, B: int, level: float, alternative: str,
                         interval: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(pvalue, ci_low, ci_high) of each column of D as compare_clustered prints them, with queries named
    ``{tag}q{i}`` (the query set keys the resample streams: a new tag, new streams) in ``clusters``."""
    qids = [f"{tag}q{i:04d}" for i in range(D.shape[0])]
    codes, members = cluster_layout(qids, list(clusters))
    sizes = np.bincount(codes, minlength=len(members)).astype(np.float64)
    order = np.argsort(codes, kind="stable")
    starts = np.zeros(len(members), dtype=np.intp)
    np.cumsum(sizes[:-1].astype(np.intp), out=starts[1:])
    sums = np.ascontiguousarray(np.add.reduceat(D[order], starts, axis=0))
    opt = check_options(B, level, alternative, "randomization", "percentile", seed, None, 0.8)
    _, p, low, high, _, _ = _cluster_columns(D, sums, sizes, qids, list(clusters), opt, interval)
    return p, low, high


def cell(pops, G: int, m: int, icc: float, levels, reps: int, B: int, seed: int) -> dict:
    rng = np.random.default_rng([seed, G, m, int(icc * 100), 37])
    labels = np.repeat(np.arange(G), m)
    cover: dict[tuple, list] = {}
    reject: dict[tuple, list] = {}
    for b, (lo, hi) in enumerate(batches(reps)):
        X, truth = draw_clusters(pops, G, m, icc, hi - lo, rng)
        Xc, _ = draw_clusters(pops, G, m, icc, hi - lo, rng, centre=True)
        for i, level in enumerate(levels):
            for alt in ALTERNATIVES:
                for name in INTERVALS:
                    _, low, high = clustered_statistics(X, labels, f"c{b}l{i}", B, level, alt, name, seed)
                    cover.setdefault((level, alt, name), []).append(low <= truth if alt == "greater" else truth <= high)
                p, _, _ = clustered_statistics(Xc, labels, f"n{b}l{i}", B, level, alt, "signflip", seed)
                reject.setdefault((level, alt), []).append(p < decision_alpha(level))
    return {"cover": {k: np.concatenate(v) for k, v in cover.items()},
            "reject": {k: np.concatenate(v) for k, v in reject.items()}}


def skewed_cell(levels, reps: int, B: int, seed: int) -> dict:
    """One-sided type-I error of the cluster sign-flip test with Exp(1) - 1 cluster effects."""
    rng = np.random.default_rng([seed, SKEW_G, SKEW_M, 41])
    labels = np.repeat(np.arange(SKEW_G), SKEW_M)
    reject: dict[tuple, list] = {}
    for b, (lo, hi) in enumerate(batches(reps)):
        k = hi - lo
        X = rng.exponential(1.0, (SKEW_G, k))[labels] - 1.0 + rng.normal(0.0, SKEW_NOISE, (SKEW_G * SKEW_M, k))
        for i, level in enumerate(levels):
            for alt in ALTERNATIVES:
                p, _, _ = clustered_statistics(X, labels, f"s{b}l{i}", B, level, alt, "signflip", seed)
                reject.setdefault((level, alt), []).append(p < decision_alpha(level))
    return {k: np.concatenate(v) for k, v in reject.items()}


def report(results: dict, skewed: dict, levels, reps: int, B: int, m: int, icc: float, n_pairs: dict) -> str:
    head = (f"### compare_clustered with alternative='greater' / 'less': one-sided bounds and tests\n\n"
            f"{reps:,} replications per cell (MC SE in parentheses), B = {B} sign patterns / resamples (exact "
            f"enumeration when 2^G <= B); G clusters of {m} queries, real deltas with intra-cluster correlation "
            f"{icc:g}; pairs per collection and measure: "
            + ", ".join(f"{c} {ms} {k}" for (c, ms), k in n_pairs.items()) + ".\n\n")
    rows = [[c, ms, str(G), f"{lv:.2f}"] + [rate(r["cover"][(lv, alt, name)]) for name in INTERVALS
                                             for alt in ALTERNATIVES]
            for (c, ms, G), r in results.items() for lv in levels]
    out = head + ("Coverage of the truth (the pair's mean delta) by the one-sided bound as compare_clustered "
                  "prints it: lower = the low end of alternative='greater' at or below the truth, upper = the high "
                  "end of alternative='less' at or above it; target = the level.\n\n")
    out += table(["collection", "measure", "G", "level", *(f"{NAMES[name]} {side}" for name in INTERVALS
                                                            for side in ("lower", "upper"))], rows)
    rows = [[c, ms, str(G), f"{1 - lv:.2f}"] + [rate(r["reject"][(lv, alt)]) for alt in ALTERNATIVES]
            for (c, ms, G), r in results.items() for lv in levels]
    rows += [["Exp(1) - 1 cluster effects", "-", str(SKEW_G), f"{1 - lv:.2f}"]
             + [rate(skewed[(lv, alt)]) for alt in ALTERNATIVES] for lv in levels]
    out += ("\n\nOne-sided type-I error (share of p < alpha) of the cluster sign-flip test on centred deltas (true "
            f"mean 0); the last rows: {SKEW_G} clusters of {SKEW_M} queries with cluster effects Exp(1) - 1 (mean 0, "
            f"long right tail) plus N(0, {SKEW_NOISE:g}^2) per query; target = alpha.\n\n")
    out += table(["collection", "measure", "G", "alpha", "greater", "less"], rows)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=10_000)
    ap.add_argument("--n-resamples", type=int, default=999)
    ap.add_argument("--clusters", type=int, nargs="*", default=list(CLUSTERS))
    ap.add_argument("--cluster-size", type=int, default=5)
    ap.add_argument("--icc", type=float, default=0.3)
    ap.add_argument("--levels", type=float, nargs="*", default=list(LEVELS))
    ap.add_argument("--collections", nargs="*", choices=data.COLLECTIONS, default=list(data.COLLECTIONS))
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--data", type=Path, default=data.DATA)
    ap.add_argument("--quick", action="store_true", help="smoke run: 100 replications, B = 99, G = 10, DL-2019 only")
    ap.add_argument("--output", type=Path, default=None)
    args = ap.parse_args(argv)
    reps, B = (100, 99) if args.quick else (args.reps, args.n_resamples)
    Gs = (10,) if args.quick else tuple(args.clusters)
    collections = ("DL-2019",) if args.quick else tuple(args.collections)
    levels = tuple(args.levels)
    with output_to(args.output):
        pops = data.load(args.data, collections=collections, seed=args.seed)
        results = {}
        for (collection, measure), group in pops.items():
            for G in Gs:
                results[(collection, measure, G)] = cell(group, G, args.cluster_size, args.icc, levels, reps, B,
                                                         args.seed)
                print(f"  clustered_one_sided {collection} {measure} G={G} done", file=sys.stderr, flush=True)
        skewed = skewed_cell(levels, reps, B, args.seed)
        print(report(results, skewed, levels, reps, B, args.cluster_size, args.icc,
                     {k: len(v) for k, v in pops.items()}))


if __name__ == "__main__":
    main()
