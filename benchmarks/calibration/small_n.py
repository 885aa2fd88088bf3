"""Calibration of compare's default interval with very few queries (n = 2 ... 10), on real per-query deltas.

``python benchmarks/calibration --section small_n [--reps R] [--n-resamples B]``

n values have only ``C(2n - 1, n)`` distinct bootstrap resamples (3 at n = 2, 10 at 3, 35 at 4, 126 at 5), so
below some n the bootstrap-t quantile cannot estimate a 95 % point.  This study prints, on the same
replications, the coverage and median width / t of: the default as compare prints it (Student's t interval
below :data:`pairedframe.stats.studentized.MIN_BOOTSTRAP_N` queries), the stabilised bootstrap-t computed at
every n (the default without that rule), and the t interval.  Replications draw n queries i.i.d. from one run
pair's deltas (every pair of DL-2019, DL-2021 and Robust03 on nDCG@10 and AP in turn; ``data.py``); truth is
the pair's full-set mean delta; intervals are clipped to the delta range as compare clips them.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
from scipy.special import stdtrit

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
import data  # noqa: E402
import paired  # noqa: E402
from _tee import output_to  # noqa: E402
from common import ALPHA, batches, draw, rate, table  # noqa: E402
from pairedframe.stats.resample import bootstrap_index_chunks  # noqa: E402
from pairedframe.stats.signflip_interval import least_count  # noqa: E402
from pairedframe.stats.studentized import (MAX_QUANTILE_RATIO, MIN_BOOTSTRAP_N, MIN_SE_RATIO, _t_star,  # noqa: E402
                                           studentized_bootstrap_many)
from pairedframe.stats.ttest import paired_t_test_many  # noqa: E402
from pairedframe.stats.value_range import clip_to_range  # noqa: E402

SIZES = (2, 3, 4, 5, 6, 10)


def _clipped(low, high, measure: str) -> tuple[np.ndarray, np.ndarray]:
    lo, hi = paired.delta_range(measure)
    low, high, _ = clip_to_range(np.asarray(low, float), np.asarray(high, float), lo, hi)
    return low, high


def intervals(D: np.ndarray, B: int, seed, measure: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The default as compare prints it, the stabilised bootstrap-t without the small-n rule (same
    resamples), and the t interval; each clipped to the delta range as compare clips."""
    n = D.shape[0]
    m, se = D.mean(axis=0), D.std(axis=0, ddof=1) / math.sqrt(n)
    default = studentized_bootstrap_many(D, n_resamples=B, seed=np.random.default_rng(seed)).confidence_interval
    T = _t_star(D - m, bootstrap_index_chunks(n, B, seed=np.random.default_rng(seed)), n, MIN_SE_RATIO * se)
    need = least_count(ALPHA, B, False)
    q = np.minimum(-np.partition(-np.abs(T), need - 1, axis=0)[need - 1],
                   MAX_QUANTILE_RATIO * float(stdtrit(n - 1, 1 - ALPHA / 2)))
    t = paired_t_test_many(D).confidence_interval
    return {"default (as printed)": _clipped(default.low, default.high, measure),
            "bootstrap-t at any n": _clipped(m - q * se, m + q * se, measure), "t": _clipped(t.low, t.high, measure)}


def cell(pops, n: int, reps: int, B: int, seed: int) -> dict[str, dict[str, np.ndarray]]:
    rng = np.random.default_rng([seed, n, 5])
    measure = pops[0].measure
    out: dict[str, dict[str, list]] = {"cover": {}, "width": {}}
    for b, (lo, hi) in enumerate(batches(reps)):
        D, truth, _ = draw(pops, n, hi - lo, rng)
        spread = np.ptp(D, axis=0) > 0          # equal deltas: the range rule, the same for all three
        got = intervals(D, B, [seed, n, b, 1], measure)
        t_width = got["t"][1] - got["t"][0]
        for name, (low, high) in got.items():
            out["cover"].setdefault(name, []).append(((low <= truth) & (truth <= high))[spread])
            with np.errstate(invalid="ignore", divide="ignore"):       # t_width is 0 only where spread is
                out["width"].setdefault(name, []).append(((high - low) / t_width)[spread])
    return {kind: {k: np.concatenate(v) for k, v in per.items()} for kind, per in out.items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--n-resamples", type=int, default=999)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--data", type=Path, default=data.DATA)
    ap.add_argument("--quick", action="store_true", help="smoke run: 100 replications, B = 99, DL-2019 only")
    ap.add_argument("--output", type=Path, default=None)
    args = ap.parse_args(argv)
    reps, B = (100, 99) if args.quick else (args.reps, args.n_resamples)
    collections = ("DL-2019",) if args.quick else data.COLLECTIONS
    with output_to(args.output):
        pops = data.load(args.data, collections=collections, seed=args.seed)
        rows = []
        for (collection, measure), group in pops.items():
            for n in SIZES:
                r = cell(group, n, reps, B, args.seed)
                rows.append([collection, measure, str(n), *(rate(r["cover"][k]) for k in r["cover"]),
                             *(f"{np.median(r['width'][k]):.2f}" for k in r["width"] if k != "t")])
        print(f"### compare with very few queries: the default interval below MIN_BOOTSTRAP_N = {MIN_BOOTSTRAP_N} "
              f"({reps:,} replications per cell, B = {B}; samples of equal deltas left out: all three get the same "
              "range-based interval)\n")
        print(table(["collection", "measure", "n", "default (as printed)", "bootstrap-t at any n", "t",
                     "width default / t", "width bootstrap-t / t"], rows))


if __name__ == "__main__":
    main()
