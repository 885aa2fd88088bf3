"""Calibration: false-positive rate of query-level vs cluster-level paired tests when queries are clustered.

Null comparisons: G clusters of m queries; the per-query delta of system B over A is
``u_g + e_q`` with a cluster effect ``u_g ~ N(0, icc)`` and query noise ``e_q ~ N(0, 1 - icc)``, so the
true mean delta is 0 while queries of one cluster are correlated (intra-cluster correlation ``icc``).
Each replication runs, on the same frame, ``compare`` (query-level sign-flip test + bootstrap CI) and
``compare_clustered`` (cluster sign-flip + cluster bootstrap) and records rejections at alpha and whether
the 95% interval covers 0.  The query-level rate should be inflated, the cluster rate near alpha.

Usage: PYTHONPATH=src python benchmarks/calibration --section cluster_fpr [--reps 1000] [--clusters 30] [--size 5]
       [--icc 0.5] [--n-resamples 999]
"""

from __future__ import annotations

import argparse
import math
import time
import warnings

import numpy as np
import polars as pl


def one(rng, G, m, icc):
    n = G * m
    d = np.repeat(rng.normal(0, math.sqrt(icc), G), m) + rng.normal(0, math.sqrt(1 - icc), n)
    a = rng.normal(size=n)
    qids = [f"q{i}" for i in range(n)]
    return pl.DataFrame({"system": ["A"] * n + ["B"] * n, "qid": qids * 2, "measure": "m",
                         "value": np.concatenate([a, a + d]),
                         "cluster": np.tile(np.repeat(np.arange(G), m), 2).astype(str)})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--clusters", type=int, default=30)
    ap.add_argument("--size", type=int, default=5)
    ap.add_argument("--icc", type=float, default=0.5)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--n-resamples", type=int, default=999)
    ap.add_argument("--seed", type=int, default=12345)
    args = ap.parse_args()
    from pairedframe.comparison import compare
    from pairedframe.comparison.clustered import compare_clustered

    rng = np.random.default_rng(args.seed)
    rej_q = rej_c = cov_q = cov_c = 0
    t0 = time.perf_counter()
    for r in range(args.reps):
        df = one(rng, args.clusters, args.size, args.icc)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            q = compare(df.drop("cluster"), baseline="A", n_resamples=args.n_resamples, seed=r,
                        confidence_level=1 - args.alpha).row(0, named=True)
            c = compare_clustered(df, baseline="A", n_resamples=args.n_resamples, seed=r,
                                  confidence_level=1 - args.alpha).row(0, named=True)
        rej_q += q["pvalue"] < args.alpha
        rej_c += c["pvalue"] < args.alpha
        cov_q += q["ci_low"] <= 0 <= q["ci_high"]
        cov_c += c["ci_low"] <= 0 <= c["ci_high"]
    R = args.reps

    def fmt(k):
        p = k / R
        return f"{p:.3f} (± {1.96 * math.sqrt(p * (1 - p) / R):.3f})"

    print(f"null comparisons: {R} replications, {args.clusters} clusters x {args.size} queries, icc = {args.icc}, "
          f"alpha = {args.alpha}, n_resamples = {args.n_resamples} ({time.perf_counter() - t0:.0f} s)")
    print(f"query-level sign-flip test   false-positive rate: {fmt(rej_q)}   95% CI coverage of 0: {fmt(cov_q)}")
    print(f"cluster sign-flip test       false-positive rate: {fmt(rej_c)}   95% CI coverage of 0: {fmt(cov_c)}")


if __name__ == "__main__":
    main()
