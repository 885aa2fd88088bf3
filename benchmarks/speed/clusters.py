"""Benchmark: cluster bootstrap + cluster sign-flip on 1,400 clusters x 5 queries, 10,000 resamples.

Target (issue 4): <= 0.5 s for one comparison through the frame layer (compare_clustered), on this
2-core machine.  Also times the stats-layer kernels alone and scipy.stats.bootstrap on the same summaries.

Usage: PYTHONPATH=src python benchmarks/speed --section clusters [--clusters 1400] [--size 5] [--n-resamples 10000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import polars as pl


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--clusters", type=int, default=1400)
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--n-resamples", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scipy", action="store_true", help="also time scipy.stats.bootstrap")
    args = ap.parse_args()
    from pairedframe.comparison.clustered import compare_clustered
    from pairedframe.stats.cluster import cluster_bootstrap, cluster_sign_flip_test

    G, s, B = args.clusters, args.size, args.n_resamples
    rng = np.random.default_rng(0)
    n = G * s
    qids = [f"q{i}" for i in range(n)]
    clusters = np.repeat(np.arange(G), s)
    effect = np.repeat(rng.normal(0, 0.05, G), s)
    a = rng.uniform(size=n)
    b = a + effect + rng.normal(0, 0.05, n)
    df = pl.DataFrame({"system": ["A"] * n + ["B"] * n, "qid": qids * 2, "measure": "m",
                       "value": np.concatenate([a, b]), "cluster": np.concatenate([clusters, clusters])})

    def best(fn):
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t)
        return min(times)

    t_frame = best(lambda: compare_clustered(df, baseline="A", n_resamples=B, margin=0.01))
    d = b - a
    t_boot = best(lambda: cluster_bootstrap(d, clusters, n_resamples=B, seed=1))
    t_flip = best(lambda: cluster_sign_flip_test(d, clusters, n_resamples=B, seed=1))
    print(f"{G} clusters x {s} queries = {n} queries, {B} resamples")
    print(f"compare_clustered (frame, bootstrap + sign-flip + TOST): {t_frame:.3f} s  (target <= 0.5 s)")
    print(f"stats.cluster_bootstrap alone:                          {t_boot:.3f} s")
    print(f"stats.cluster_sign_flip_test alone:                     {t_flip:.3f} s")
    if args.scipy:
        from scipy import stats

        from pairedframe.stats.cluster import cluster_summaries

        sums, sizes = cluster_summaries(d, clusters)
        t_sp = best(lambda: stats.bootstrap((sums, sizes), lambda x, m, axis=-1: x.sum(axis) / m.sum(axis),
                                            paired=True, vectorized=True, method="percentile", n_resamples=B,
                                            rng=np.random.default_rng(1)))
        print(f"scipy.stats.bootstrap (same ratio, percentile):         {t_sp:.3f} s")


if __name__ == "__main__":
    main()
