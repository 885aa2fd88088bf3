"""Calibration of pairedframe's paired tests and intervals on null comparisons built from real runs.

Usage::

    PYTHONPATH=src python benchmarks/calibration.py              # 7,600 replications per cell
    PYTHONPATH=src python benchmarks/calibration.py --quick      # 600 replications (smoke run)

Per-query nDCG@10 of TREC DL 2021 passage runs (53 judged queries) against p_bm25 give real delta
populations (one per run pair).  Two nulls, each at n = 20, 50 and 200 queries:

``relabel``
    n queries drawn from the 53 (without replacement when n <= 53, else with), and on each query the
    labels A/B swapped with probability 1/2 (the delta's sign flipped): the null of the sign-flip
    test holds exactly (symmetric deltas, true mean 0).
``centered``
    n deltas drawn with replacement from a pair's 53 deltas minus their mean: true mean exactly 0,
    but the skewness of the real deltas is kept (the sign-flip test's symmetry assumption fails).

Rates: type-I error at alpha = 0.05 of the randomization (sign-flip, B resamples) and t tests, and
coverage of the true mean 0 by the 95% percentile, BCa and t intervals.  With R replications a rate
near 0.05 is known to +-1.96 sqrt(.05 .95 / R) (= 0.0049 for R = 7,600).  Replications are batched as
columns of the many-column kernels; each batch of 100 columns has its own resample stream.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from pairedframe.stats.bootstrap import bootstrap_mean_many  # noqa: E402
from pairedframe.stats.randomization import sign_flip_test_many  # noqa: E402
from pairedframe.stats.ttest import paired_t_test_many  # noqa: E402

RUNS = ["pash_f3", "NLE_P_v1", "TUW_DR_Base", "Fast_Forward_3", "uogTrPCP", "WLUPassage"]
DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"


def load_deltas(data: Path) -> list[np.ndarray]:
    import polars as pl

    import pairedframe as pf

    run_dir = data / "passages-runs"
    runs = [run_dir / "p_bm25.gz"] + [run_dir / f"{r}.gz" for r in RUNS if (run_dir / f"{r}.gz").exists()]
    ev = pf.evaluate([str(r) for r in runs], str(data / "qrels-pass.txt"), ["nDCG@10"])
    wide = ev.per_query.pivot(on="system", index="qid", values="value").sort("qid")
    base = wide["p_bm25"].to_numpy()
    assert isinstance(wide, pl.DataFrame)
    return [wide[c].to_numpy() - base for c in wide.columns
            if c not in ("qid", "p_bm25") and not np.all(wide[c].to_numpy() == base)]


def simulate(deltas: list[np.ndarray], null: str, n: int, reps: int, B: int, seed: int, batch: int = 100):
    rng = np.random.default_rng([seed, n, 0 if null == "relabel" else 1])
    hits = {"randomization": 0, "t": 0, "cov_percentile": 0, "cov_bca": 0, "cov_t": 0}
    done = 0
    b = 0
    while done < reps:
        k = min(batch, reps - done)
        D = np.empty((n, k))
        for c in range(k):
            pop = deltas[rng.integers(len(deltas))]
            if null == "relabel":
                idx = rng.choice(len(pop), size=n, replace=n > len(pop))
                D[:, c] = pop[idx] * rng.choice([-1.0, 1.0], size=n)
            else:
                D[:, c] = rng.choice(pop - pop.mean(), size=n, replace=True)
        stream = np.random.SeedSequence([seed, n, b, 0 if null == "relabel" else 1])
        boot_ss, flip_ss = stream.spawn(2)
        with warnings.catch_warnings():   # BCa is NaN (and warns) only for degenerate tiny samples
            warnings.simplefilter("ignore", RuntimeWarning)
            # percentile and BCa from the same resamples (same seed sequence)
            pct = bootstrap_mean_many(D, n_resamples=B, method="percentile", rng=np.random.default_rng(boot_ss))
            bca = bootstrap_mean_many(D, n_resamples=B, method="bca", rng=np.random.default_rng(boot_ss))
        flip = sign_flip_test_many(D, n_resamples=B, rng=np.random.default_rng(flip_ss))
        tt = paired_t_test_many(D)
        hits["randomization"] += int(np.sum(flip.pvalue < 0.05))
        hits["t"] += int(np.sum(tt.pvalue < 0.05))
        for key, ci in (("cov_percentile", pct.confidence_interval), ("cov_bca", bca.confidence_interval),
                        ("cov_t", tt.confidence_interval)):
            hits[key] += int(np.sum((np.asarray(ci.low) <= 0) & (0 <= np.asarray(ci.high))))
        done += k
        b += 1
    return {key: v / reps for key, v in hits.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=7600)
    ap.add_argument("--n-resamples", type=int, default=999)
    ap.add_argument("--sizes", type=int, nargs="*", default=[20, 50, 200])
    ap.add_argument("--seed", type=int, default=2021)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--quick", action="store_true", help="600 replications per cell")
    args = ap.parse_args()
    if args.quick:
        args.reps = 600
    t0 = time.perf_counter()
    deltas = load_deltas(args.data)
    hw = 1.96 * math.sqrt(0.05 * 0.95 / args.reps)
    print(f"{len(deltas)} real delta populations (nDCG@10, DL-2021 runs - p_bm25, 53 queries); "
          f"{args.reps} replications per cell, B = {args.n_resamples}; a rate near .05 is +-{hw:.4f} (95%)")
    header = f"| null | n | type-I randomization | type-I t | coverage percentile | coverage BCa | coverage t |"
    print(header)
    print("|" + "---|" * 7)
    for null in ("relabel", "centered"):
        for n in args.sizes:
            r = simulate(deltas, null, n, args.reps, args.n_resamples, args.seed)
            print(f"| {null} | {n} | {r['randomization']:.4f} | {r['t']:.4f} | {r['cov_percentile']:.4f} | "
                  f"{r['cov_bca']:.4f} | {r['cov_t']:.4f} |", flush=True)
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
