"""Calibration of compare's one-sided bounds (``alternative="greater"`` / ``"less"``) with few queries.

``python benchmarks/calibration --section one_sided_small_n [--reps R] [--n-resamples B] [--sizes N ...]``
(2,000 replications per cell, B = 999, n = 5, 8, 10, 15, 20, level 0.95 by default: MC SE 0.005)

The ``one_sided`` section starts at n = 20; this one prints, on the same replications, the one-sided
coverage of: the default as compare prints it (Student's t bound below
:data:`pairedframe.stats.studentized.MIN_ONE_SIDED_BOOTSTRAP_N` queries, the rule this study led to), the stabilised bootstrap-t's one-sided tail computed at
every n (the default without any small-n rule: ``[mean - q_hi * se, inf)`` for "greater", the matching
upper bound for "less"), and the t interval (``test="t"``'s default); then ``t - bootstrap-t``, the paired
difference of their coverage on the same samples with its own Monte-Carlo SE.  Replications draw n queries
i.i.d. from one run pair's deltas (every pair of DL-2019, DL-2021 and Robust03 on nDCG@10 and AP in turn,
as the other sections: ``data.py``); truth = the pair's full-set mean delta; bounds are clipped to the
delta range as compare clips them (:func:`pairedframe.comparison.interval_range.finish_paired_intervals`).
Samples of equal deltas are left out (every interval gets the same range-based bound).  Pooled rows
join every collection and measure at each n.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
import data  # noqa: E402
from _tee import output_to  # noqa: E402
from common import batches, draw, rate, table  # noqa: E402
from pairedframe.comparison.interval_range import finish_paired_intervals  # noqa: E402
from pairedframe.stats.resample import bootstrap_index_chunks  # noqa: E402
from pairedframe.stats.signflip_interval import least_count  # noqa: E402
from pairedframe.stats.studentized import (MIN_BOOTSTRAP_N, MIN_SE_RATIO, _t_star, quantile_cap,  # noqa: E402
                                           studentized_bootstrap_many, zero_spread)
from pairedframe.stats.ttest import paired_t_test_many  # noqa: E402

SIZES = (5, 8, 10, 15, 20)
LEVEL = 0.95
ALTERNATIVES = ("greater", "less")
NAMES = ("default (as printed)", "bootstrap-t at any n", "t")


def bounds(D: np.ndarray, B: int, level: float, alternative: str, seed, measure: str) -> dict[str, np.ndarray]:
    """The finite bound (low for "greater", high for "less") of each interval of :data:`NAMES` for the
    columns of D, clipped as compare prints it; the two bootstrap ones from the same resamples."""
    n, k = D.shape
    flat = zero_spread(D)
    delta = D.mean(axis=0)
    se = np.where(flat, 0.0, D.std(axis=0, ddof=1) / math.sqrt(n))
    default = studentized_bootstrap_many(D, n_resamples=B, confidence_level=level, alternative=alternative,
                                         seed=np.random.default_rng(seed)).confidence_interval
    T = _t_star(D - delta, bootstrap_index_chunks(n, B, seed=np.random.default_rng(seed)), n, MIN_SE_RATIO * se)
    raw = {NAMES[0]: (default.low, default.high), NAMES[1]: bootstrap_t_tail(T, delta, se, flat, B, level, alternative, n)}
    t = paired_t_test_many(D, alternative=alternative, confidence_level=level).confidence_interval
    raw[NAMES[2]] = (t.low, t.high)
    out = {}
    for name, (low, high) in raw.items():
        low, high, _ = finish_paired_intervals(
            measures=[measure] * k, delta=delta, ci_low=low, ci_high=high, se=se, n=np.full(k, float(n)),
            flat=flat, interval="t" if name == "t" else "studentized", confidence_level=level,
            alternative=alternative, n_resamples=B)
        out[name] = np.asarray(low if alternative == "greater" else high, dtype=float)
    return out


def bootstrap_t_tail(T: np.ndarray, delta, se, flat, B: int, level: float, alternative: str, n: int) -> tuple:
    """(low, high) of the stabilised bootstrap-t's one-sided tail from ``T*`` (B, k), whatever n: the
    ``k``-th largest ``T*`` ("greater") or smallest ("less"), capped at 1.5 x Student's quantile and floored
    at 0, as :func:`pairedframe.stats.studentized.symmetric_interval` takes it from MIN_BOOTSTRAP_N queries
    on (computed here so that a small-n rule of the library does not change this column)."""
    need = least_count(1.0 - level, B, False)
    cap = quantile_cap(np.full(se.shape, n - 1.0), level, alternative)
    sign = 1.0 if alternative == "greater" else -1.0
    q = np.maximum(np.minimum(-np.partition(-sign * T, need - 1, axis=0)[need - 1], cap), 0.0)
    low, high = np.full(delta.shape, -np.inf), np.full(delta.shape, np.inf)
    if alternative == "greater":
        low = np.where(flat, delta, delta - q * se)
    else:
        high = np.where(flat, delta, delta + q * se)
    return low, high


def cell(pops, n: int, reps: int, B: int, level: float, seed: int) -> dict[tuple[str, str], np.ndarray]:
    """Coverage hits per (alternative, interval name), samples of equal deltas left out."""
    rng = np.random.default_rng([seed, n, 37])
    measure = pops[0].measure
    hits: dict[tuple[str, str], list] = {}
    for b, (lo, hi) in enumerate(batches(reps)):
        D, truth, _ = draw(pops, n, hi - lo, rng)
        spread = ~zero_spread(D)
        for j, alt in enumerate(ALTERNATIVES):
            for name, bound in bounds(D, B, level, alt, [seed, n, b, j], measure).items():
                hit = bound <= truth if alt == "greater" else truth <= bound
                hits.setdefault((alt, name), []).append(hit[spread])
    return {k: np.concatenate(v) for k, v in hits.items()}


def difference(t_hits: np.ndarray, boot_hits: np.ndarray) -> str:
    """``d (se)``: t's coverage minus the bootstrap-t's on the same samples, SE of the paired difference."""
    d = t_hits.astype(float) - boot_hits.astype(float)
    se = d.std(ddof=1) / math.sqrt(d.size) if d.size > 1 else math.nan
    return f"{d.mean():+.3f} ({se:.3f})"


def report(results: dict, reps: int, B: int, level: float, n_pairs: dict) -> str:
    rows = []
    for (c, m, n), r in results.items():
        rows.append([c, m, str(n), *_columns(r)])
    for n in sorted({n for (_, _, n) in results}):
        pooled = {key: np.concatenate([r[key] for (_, _, nn), r in results.items() if nn == n])
                  for key in next(iter(results.values()))}
        rows.append(["all", "pooled", str(n), *_columns(pooled)])
    head = (f"### compare with alternative='greater' / 'less' and few queries: one-sided bounds at level {level:.2f}\n\n"
            f"{reps:,} replications per cell (MC SE in parentheses), B = {B}; pairs per collection and measure: "
            + ", ".join(f"{c} {m} {k}" for (c, m), k in n_pairs.items()) + "; samples of equal deltas left out "
            "(every interval gets the same range-based bound). lower = the low end of alternative='greater' at "
            "or below the truth (the full-set mean delta), upper = the high end of alternative='less' at or "
            "above it; target = the level. t - bootstrap-t: the paired difference of coverage on the same "
            "samples (its SE in parentheses).\n\n")
    header = [f"{name} {side}" for side in ("lower", "upper") for name in NAMES]
    header += [f"t - bootstrap-t {side}" for side in ("lower", "upper")]
    return head + table(["collection", "measure", "n", *header], rows)


def _columns(r: dict) -> list[str]:
    cols = [rate(r[(alt, name)]) for alt in ALTERNATIVES for name in NAMES]
    cols += [difference(r[(alt, "t")], r[(alt, NAMES[1])]) for alt in ALTERNATIVES]
    return cols


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--n-resamples", type=int, default=999)
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    ap.add_argument("--level", type=float, default=LEVEL)
    ap.add_argument("--collections", nargs="*", choices=data.COLLECTIONS, default=list(data.COLLECTIONS))
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--data", type=Path, default=data.DATA)
    ap.add_argument("--quick", action="store_true", help="smoke run: 100 replications, B = 99, DL-2019 only")
    ap.add_argument("--output", type=Path, default=None)
    args = ap.parse_args(argv)
    if min(args.sizes) < MIN_BOOTSTRAP_N:
        ap.error(f"--sizes: at least MIN_BOOTSTRAP_N = {MIN_BOOTSTRAP_N} (fewer: section small_n)")
    reps, B = (100, 99) if args.quick else (args.reps, args.n_resamples)
    collections = ("DL-2019",) if args.quick else tuple(args.collections)
    with output_to(args.output):
        pops = data.load(args.data, collections=collections, seed=args.seed)
        results = {}
        for (collection, measure), group in pops.items():
            for n in args.sizes:
                results[(collection, measure, n)] = cell(group, n, reps, B, args.level, args.seed)
                print(f"  one_sided_small_n {collection} {measure} n={n} done", file=sys.stderr, flush=True)
        print(report(results, reps, B, args.level, {k: len(v) for k, v in pops.items()}))


if __name__ == "__main__":
    main()
