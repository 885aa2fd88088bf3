"""Family-wise error of all-pairs comparisons on real per-query values: randomised Tukey HSD, Holm, raw.

    PYTHONPATH=src python benchmarks/calibration --section tukey            # 1,000 replications per cell
    PYTHONPATH=src python benchmarks/calibration --section tukey --quick    # smoke run

Each replication draws ``n`` queries i.i.d. from a collection's judged queries and ``k`` of its real
runs (nDCG@10), then makes every null true in one of two ways:

- ``exchangeable``: the ``k`` values of each query are shuffled among the systems (the complete null
  the randomised Tukey HSD test assumes: systems exchangeable within a query);
- ``unequal spread``: two runs with their labels swapped at random per query, and ``k - 2`` systems
  that are their average plus small noise -- every mean equal, but the pair differences have unequal
  variances, so the systems are not exchangeable (Tukey's permutation null is then only approximate).

One ``pf.compare(..., pairs="all", family_by="dataset")`` call handles every replication (each its own
family). FWER = share of replications with any pair below alpha = 0.05 under ``pvalue_tukey`` (the
randomised Tukey HSD), ``pvalue_max_tukey_raw`` (significant where Tukey and the pair's own test both
reject), ``pvalue_holm`` and raw ``pvalue`` (± one Monte-Carlo SE).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from data import DATA, _paths, _wide  # noqa: E402

import pairedframe as pf  # noqa: E402

MODES = ("exchangeable", "unequal spread")


def values(collection: str, data: Path) -> np.ndarray:
    """Queries x runs matrix of nDCG@10 (a run's missing judged query scores 0)."""
    runs, qrels = _paths(data, collection)
    ev = pf.evaluate([str(r) for r in runs], str(qrels), ["nDCG@10"])
    wide, systems = _wide(ev.per_query, "nDCG@10")
    return wide.fill_null(0.0).select(systems).to_numpy()


def cell(X: np.ndarray, k: int, n: int, mode: str, reps: int, B: int, seed: int) -> dict[str, tuple[float, float]]:
    rng = np.random.default_rng([seed, k, n, MODES.index(mode)])
    frames = []
    for r in range(reps):
        rows = rng.integers(0, X.shape[0], n)
        if mode == "exchangeable":
            V = X[rows][:, rng.choice(X.shape[1], k, replace=False)]
            V = np.take_along_axis(V, rng.permuted(np.tile(np.arange(k), (n, 1)), axis=1), axis=1)
        else:
            a, b = X[rows][:, rng.choice(X.shape[1], 2, replace=False)].T
            swap = rng.random(n) < 0.5
            a, b = np.where(swap, b, a), np.where(swap, a, b)
            noise = 0.1 * max(float(np.std(a - b)), 1e-3)
            mid = [(a + b) / 2 + rng.normal(0, noise, n) for _ in range(k - 2)]
            V = np.column_stack([a, b, *mid])
        qids = [f"q{i:03d}" for i in range(n)]
        frames.append(pl.DataFrame({"system": np.repeat([f"S{j}" for j in range(k)], n), "qid": qids * k,
                                    "measure": "nDCG@10", "value": V.T.ravel(), "dataset": f"r{r:05d}"}))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = pf.compare(pl.concat(frames), pairs="all", n_resamples=B, seed=seed, family_by="dataset")
    rates = {}
    for column in ("pvalue_tukey", "pvalue_max_tukey_raw", "pvalue_holm", "pvalue"):
        any_rejected = out.group_by("dataset").agg((pl.col(column) < 0.05).any())[column].to_numpy()
        rate = float(any_rejected.mean())
        rates[column] = (rate, float(np.sqrt(rate * (1 - rate) / reps)))
    return rates


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--n-resamples", type=int, default=999)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--quick", action="store_true", help="tiny smoke run (DL-2019, k = 3, 40 replications)")
    args = ap.parse_args()
    reps = 40 if args.quick else args.reps
    collections = ("DL-2019",) if args.quick else ("DL-2019", "Robust03")
    ks = (3,) if args.quick else (3, 5)
    t0 = time.perf_counter()
    print(f"### All pairs: family-wise error at alpha = 0.05 (nDCG@10, n = 20 queries, {reps} replications "
          f"per cell, B = {args.n_resamples}; MC SE in parentheses)\n")
    print("| collection | null | k systems | Tukey HSD | max(Tukey, raw) | Holm | raw p |\n|---|---|---|---|---|---|---|")
    for collection in collections:
        X = values(collection, args.data)
        for mode in MODES:
            for k in ks:
                r = cell(X, k, 20, mode, reps, args.n_resamples, args.seed)
                print(f"| {collection} | {mode} | {k} | " + " | ".join(
                    f"{r[c][0]:.3f} ({r[c][1]:.3f})" for c in ("pvalue_tukey", "pvalue_max_tukey_raw", "pvalue_holm", "pvalue"))
                    + " |",
                    flush=True)
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
