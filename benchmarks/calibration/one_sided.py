"""Calibration of compare's one-sided intervals and tests (``alternative="greater"`` / ``"less"``) on real deltas.

``python benchmarks/calibration --section one_sided [--reps R] [--sizes N ...] [--levels L ...]`` (10,000
replications per cell, B = 999, n = 20, 50, 100, levels 0.90 and 0.95 by default: MC SE 0.003 / 0.002)

For each collection, measure, n and level, on the same replications: how often the lower bound that
``compare(..., alternative="greater")`` prints lies at or below the truth, and how often the upper bound of
``alternative="less"`` lies at or above it, for the default interval (the stabilised bootstrap-t, its
one-sided tail: ``[mean - q_hi * se, inf)``), the t interval (``test="t"``'s default) and the other
``interval=`` choices (percentile, BCa, the inverted sign-flip test); then the type-I error of the default
test (the sign-flip randomization test) and of the t-test for each one-sided alternative, ``p < alpha``
with ``alpha = 1 - level`` as the verdict reads it.  Replications draw n queries i.i.d. from one run pair's
deltas (every pair of DL-2019, DL-2021 and Robust03 on nDCG@10 and AP in turn, as the paired section:
``data.py``); truth = the pair's full-set mean delta.  Type-I error uses *centred* deltas (the pair's
deltas minus their mean: true mean 0, the pair's skew kept, so "greater" and "less" can differ) and
*symmetric* ones (each delta's sign flipped at random: the sign-flip test's own null).  Bounds are as
compare prints them (:func:`pairedframe.comparison.interval_range.finish_paired_intervals`: the finite end
clipped to the delta range, equal deltas given the range-based bound; tests/test_calibration_one_sided.py checks
them against :func:`pairedframe.compare` on the same streams); B = 999 where compare's default is 10,000.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
import data  # noqa: E402
from _tee import output_to  # noqa: E402
from common import batches, draw, rate, table  # noqa: E402
from pairedframe.comparison.interval_range import finish_paired_intervals  # noqa: E402
from pairedframe.stats.bootstrap import bootstrap_mean_many  # noqa: E402
from pairedframe.stats.levels import decision_alpha  # noqa: E402
from pairedframe.stats.randomization import sign_flip_test_many  # noqa: E402
from pairedframe.stats.signflip_interval import sign_flip_interval_many  # noqa: E402
from pairedframe.stats.studentized import studentized_bootstrap_many, zero_spread  # noqa: E402
from pairedframe.stats.ttest import paired_t_test_many  # noqa: E402

SIZES = (20, 50, 100)
LEVELS = (0.90, 0.95)
ALTERNATIVES = ("greater", "less")
#: The intervals measured: compare's default (randomization test), test="t"'s default, and the other
#: ``interval=`` choices (each printed one-sided with a one-sided ``alternative``).
INTERVALS = ("studentized", "t", "percentile", "bca", "signflip")
NAMES = {"studentized": "default", "t": "t", "percentile": "percentile", "bca": "BCa", "signflip": "signflip"}


def streams_of(seed) -> Callable[[], tuple[np.random.Generator, np.random.Generator]]:
    """Fresh (bootstrap, sign-flip) generators from ``seed`` at each call, as compare draws each interval
    from the start of its query set's two streams (:func:`pairedframe.comparison.streams.resample_generators`)."""
    return lambda: tuple(np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))


def bounds(D: np.ndarray, B: int, level: float, alternative: str, streams, measure: str) -> dict[str, np.ndarray]:
    """The finite bound of each interval of :data:`INTERVALS` for the columns of D, as compare prints it
    at ``level`` with ``alternative`` (low for "greater", high for "less"); ``streams()`` gives fresh
    (bootstrap, sign-flip) generators (:func:`streams_of`)."""
    n, k = D.shape
    flat = zero_spread(D)
    delta = D.mean(axis=0)
    se = np.where(flat, 0.0, D.std(axis=0, ddof=1) / np.sqrt(n))
    tt = paired_t_test_many(D, alternative=alternative, confidence_level=level).confidence_interval
    raw = {"t": (tt.low, tt.high)}
    boot = studentized_bootstrap_many(D, n_resamples=B, confidence_level=level, alternative=alternative,
                                      seed=streams()[0]).confidence_interval
    raw["studentized"] = (boot.low, boot.high)
    with warnings.catch_warnings():      # BCa is NaN (and warns) for samples whose resamples lie on one side
        warnings.simplefilter("ignore", RuntimeWarning)
        for method in ("percentile", "bca"):
            ci = bootstrap_mean_many(D, n_resamples=B, confidence_level=level, method=method, alternative=alternative,
                                     seed=streams()[0]).confidence_interval
            raw[method] = (ci.low, ci.high)
    ci = sign_flip_interval_many(D, n_resamples=B, confidence_level=level, alternative=alternative,
                                 seed=streams()[1]).confidence_interval
    raw["signflip"] = (ci.low, ci.high)
    out = {}
    for name, (low, high) in raw.items():
        low, high, _ = finish_paired_intervals(
            measures=[measure] * k, delta=delta, ci_low=low, ci_high=high, se=se, n=np.full(k, float(n)),
            flat=flat, interval=name, confidence_level=level, alternative=alternative,
            n_resamples=B)
        out[name] = np.asarray(low if alternative == "greater" else high, dtype=float)
    return out


def pvalues(D: np.ndarray, B: int, alternative: str, seed) -> dict[str, np.ndarray]:
    """One-sided p-values of the default test (sign flips, B patterns) and of the t-test."""
    flip = sign_flip_test_many(D, n_resamples=B, alternative=alternative, seed=np.random.default_rng(seed))
    t = paired_t_test_many(D, alternative=alternative)
    return {"randomization": np.asarray(flip.pvalue, float), "t": np.asarray(t.pvalue, float)}


def cell(pops, n: int, levels, reps: int, B: int, seed: int) -> dict:
    """Coverage per (level, alternative, interval) and rejections per (level, null, alternative, test)."""
    rng = np.random.default_rng([seed, n, 31])
    measure = pops[0].measure
    cover: dict[tuple, list] = {}
    reject: dict[tuple, list] = {}
    for b, (lo, hi) in enumerate(batches(reps)):
        D, truth, _ = draw(pops, n, hi - lo, rng)
        for i, level in enumerate(levels):
            for j, alt in enumerate(ALTERNATIVES):
                got = bounds(D, B, level, alt, streams_of([seed, n, b, 1, i, j]), measure)
                for name, bound in got.items():
                    hit = bound <= truth if alt == "greater" else truth <= bound
                    cover.setdefault((level, alt, name), []).append(hit)
        for h, (null, kw) in enumerate((("centred", {"centre": True}), ("symmetric", {"symmetric": True}))):
            Dn, _, _ = draw(pops, n, hi - lo, rng, **kw)
            for j, alt in enumerate(ALTERNATIVES):
                for test, p in pvalues(Dn, B, alt, [seed, n, b, 2, h, j]).items():
                    for level in levels:
                        reject.setdefault((level, null, alt, test), []).append(p < decision_alpha(level))
    return {"cover": {k: np.concatenate(v) for k, v in cover.items()},
            "reject": {k: np.concatenate(v) for k, v in reject.items()}}


def report(results: dict, levels, reps: int, B: int, n_pairs: dict) -> str:
    head = (f"### compare with alternative='greater' / 'less': one-sided bounds and tests on real deltas\n\n"
            f"{reps:,} replications per cell (MC SE in parentheses), B = {B} resamples / sign patterns; pairs per "
            "collection and measure: " + ", ".join(f"{c} {m} {k}" for (c, m), k in n_pairs.items()) + ".\n\n")
    rows = [[c, m, str(n), f"{lv:.2f}"] + [rate(r["cover"][(lv, alt, name)]) for name in INTERVALS
                                            for alt in ALTERNATIVES]
            for (c, m, n), r in results.items() for lv in levels]
    out = head + ("Coverage of the truth (full-set mean delta) by the one-sided bound as compare prints it: lower = "
                  "the low end of alternative='greater' at or below the truth, upper = the high end of "
                  "alternative='less' at or above it; target = the level. default = the stabilised bootstrap-t "
                  "(the randomization test's interval), t = the interval of test='t'; the other interval= choices "
                  "(percentile, BCa, the inverted sign-flip test) on the same samples.\n\n")
    out += table(["collection", "measure", "n", "level", *(f"{NAMES[name]} {side}" for name in INTERVALS
                                                            for side in ("lower", "upper"))], rows)
    keys = [(null, alt, test) for null in ("centred", "symmetric") for test in ("randomization", "t")
            for alt in ALTERNATIVES]
    rows = [[c, m, str(n), f"{1 - lv:.2f}"] + [rate(r["reject"][(lv, *k)]) for k in keys]
            for (c, m, n), r in results.items() for lv in levels]
    for lv in levels:
        for n in sorted({n for (_, _, n) in results}):
            rows.append(["all", "pooled", str(n), f"{1 - lv:.2f}"] + [
                rate(np.concatenate([r["reject"][(lv, *k)] for (_, _, nn), r in results.items() if nn == n]))
                for k in keys])
    out += ("\n\nType-I error (share of p < alpha) of the default test (randomization: sign flips) and of the "
            "t-test for each one-sided alternative, on centred deltas (true mean 0, the pair's skew kept) and "
            "symmetric ones (signs flipped at random); target = alpha; pooled rows over every collection and "
            "measure.\n\n")
    out += table(["collection", "measure", "n", "alpha", *(f"{test} {alt} {null}" for null, alt, test in keys)],
                 rows)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=10_000)
    ap.add_argument("--n-resamples", type=int, default=999)
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    ap.add_argument("--levels", type=float, nargs="*", default=list(LEVELS))
    ap.add_argument("--collections", nargs="*", choices=data.COLLECTIONS, default=list(data.COLLECTIONS))
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--data", type=Path, default=data.DATA)
    ap.add_argument("--quick", action="store_true", help="smoke run: 100 replications, B = 99, n = 20, DL-2019 only")
    ap.add_argument("--output", type=Path, default=None)
    args = ap.parse_args(argv)
    reps, B = (100, 99) if args.quick else (args.reps, args.n_resamples)
    sizes = (20,) if args.quick else tuple(args.sizes)
    collections = ("DL-2019",) if args.quick else tuple(args.collections)
    levels = tuple(args.levels)
    with output_to(args.output):
        pops = data.load(args.data, collections=collections, seed=args.seed)
        results = {}
        for (collection, measure), group in pops.items():
            for n in sizes:
                results[(collection, measure, n)] = cell(group, n, levels, reps, B, args.seed)
                print(f"  one_sided {collection} {measure} n={n} done", file=sys.stderr, flush=True)
        print(report(results, levels, reps, B, {k: len(v) for k, v in pops.items()}))


if __name__ == "__main__":
    main()
