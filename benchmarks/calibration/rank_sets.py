"""Coverage of pf.leaderboard's rank sets on real runs: do the sets hold the systems' true ranks?

    PYTHONPATH=src python benchmarks/calibration --section rank_sets            # 2,000 replications per cell
    PYTHONPATH=src python benchmarks/calibration --section rank_sets --quick    # smoke run

The population of a collection is its judged queries with every run's per-query value (a run's missing
judged query scores 0); a system's true rank is ``1 + #{runs with a higher mean over all of them}``
(the leaderboard's tie rule). Each replication draws ``n`` queries i.i.d. from that population and
``k`` of its runs, and calls ``pf.leaderboard`` on their per-query table (B = 999). The ``tied`` designs
shift each drawn run's values so that the k population means are equal: every true rank is 1 and
the sample means still differ, the configuration the simultaneous guarantee must survive. Printed per cell,
with the Monte-Carlo SE: simultaneous coverage (every system's true rank inside its set at once) of the
default sets, the share of systems whose own set holds their rank under ``simultaneous=False``
(marginal coverage), and the mean set size (``rank_high - rank_low + 1``) of each, against ``k``.
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
from _tee import output_to  # noqa: E402
from common import table  # noqa: E402
from data import DATA, _paths, _wide  # noqa: E402

import pairedframe as pf  # noqa: E402
from pairedframe.stats.rank_sets import point_ranks  # noqa: E402

CELLS = ((20, 5), (20, 10), (50, 5), (50, 10))


def values(collection: str, measure: str, data: Path) -> tuple[np.ndarray, list[str]]:
    """Queries x runs matrix of ``measure`` over the judged queries (a run's missing query scores 0)."""
    runs, qrels = _paths(data, collection)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = pf.evaluate([str(r) for r in runs], str(qrels), [measure])
    wide, systems = _wide(ev.per_query, measure)
    return wide.fill_null(0.0).select(systems).to_numpy(), systems


def cell(X: np.ndarray, n: int, k: int, reps: int, B: int, seed: int, tied: bool = False) -> dict[str, np.ndarray]:
    """One cell; ``tied``: each drawn run's values shifted so that the k population means are equal (the
    worst case for the sets: every true rank is 1, and sample means still differ)."""
    rng = np.random.default_rng([seed, n, k, int(tied)])
    joint, each, size_joint, size_each = (np.empty(reps) for _ in range(4))
    qids = [f"q{i:03d}" for i in range(n)]
    for r in range(reps):
        rows, cols = rng.integers(0, X.shape[0], n), rng.choice(X.shape[1], k, replace=False)
        population = X[:, cols] - (X[:, cols].mean(axis=0) if tied else 0.0)
        truth = np.ones(k, dtype=np.int64) if tied else point_ranks(population.mean(axis=0))
        frame = pl.DataFrame({"system": np.repeat([f"S{j}" for j in range(k)], n), "qid": qids * k,
                              "measure": "m", "value": population[rows].T.ravel()})
        rank_of = {f"S{j}": truth[j] for j in range(k)}
        for simultaneous, hits, sizes in ((True, joint, size_joint), (False, each, size_each)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = pf.leaderboard(frame, n_resamples=B, seed=r, simultaneous=simultaneous).table
            true = t["system"].replace_strict(rank_of).to_numpy()
            inside = (t["rank_low"].to_numpy() <= true) & (true <= t["rank_high"].to_numpy())
            hits[r] = inside.all() if simultaneous else inside.mean()
            sizes[r] = float((t["rank_high"] - t["rank_low"] + 1).mean())
    return {"joint": joint, "each": each, "size_joint": size_joint, "size_each": size_each}


def _rate(hits: np.ndarray) -> str:
    """Mean and its MC SE (the spread of replication means: exact for 0/1 hits, right for shares too)."""
    return f"{hits.mean():.3f} ({hits.std(ddof=1) / np.sqrt(hits.size):.3f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--n-resamples", type=int, default=999)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--quick", action="store_true", help="smoke run: DL-2019 nDCG@10, 50 replications, B = 199")
    ap.add_argument("--output", type=Path, default=None)
    args = ap.parse_args()
    reps, B = (50, 199) if args.quick else (args.reps, args.n_resamples)
    designs = [("DL-2019", "nDCG@10", False)] if args.quick else [
        *((c, m, False) for c in ("DL-2019", "Robust03") for m in ("nDCG@10", "AP")), ("DL-2019", "RR@10", False),
        ("DL-2019", "nDCG@10", True), ("Robust03", "AP", True), ("DL-2019", "RR@10", True)]
    t0 = time.perf_counter()
    rows = []
    with output_to(args.output):
        for collection, measure, tied in designs:
            X, _ = values(collection, measure, args.data)
            for n, k in CELLS[:1] if args.quick else CELLS:
                r = cell(X, n, k, reps, B, args.seed, tied)
                rows.append([collection, measure + (" tied" if tied else ""), str(n), str(k), _rate(r["joint"]),
                             _rate(r["each"]), f"{r['size_joint'].mean():.2f}", f"{r['size_each'].mean():.2f}"])
                print(f"{collection} {measure} tied={tied} n={n} k={k} done ({time.perf_counter() - t0:.0f} s)",
                      file=sys.stderr, flush=True)
        print(f"### pf.leaderboard: coverage of the 95 % rank sets on real runs\n\n{reps:,} replications per cell "
              f"(MC SE in parentheses), B = {B}; n queries drawn i.i.d. from the judged queries, k of the runs; "
              "truth = ranks by the means over all judged queries; \"tied\": the k runs' values shifted so that "
              "their means over all judged queries are equal (every true rank 1, the worst case).\n")
        print(table(["collection", "measure", "n", "k", "simultaneous: all k ranks covered",
                     "marginal: share of ranks covered", "set size (simultaneous)", "set size (marginal)"], rows))
        print(f"\n({time.perf_counter() - t0:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    main()
