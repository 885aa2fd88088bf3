"""Calibration of compare's default interval when ``n_resamples`` is too few for the level, on real per-query deltas.

``python benchmarks/calibration --section too_few [--reps R] [--sizes N ...]`` (10,000 replications per cell,
n = 20, 50, 100 by default: 10,000 so that a miss rate near 0.001 has an MC SE of 0.0003)

When ``(B + 1) * (1 - confidence_level) <= 1`` (:func:`pairedframe.stats.signflip_interval.too_few_resamples`)
the bootstrap-t quantile lies beyond every resample, and the default interval is taken at its cap:
``mean -/+ 1.5 x Student's t quantile x se`` (:data:`pairedframe.stats.studentized.MAX_QUANTILE_RATIO`).  This
study prints, on the same replications, the coverage of that capped interval (B = 100 at 99.9 %, B = 18 at
95 %: 1 - 0.95 is 0.05000000000000004 in floats, so B = 19 is already enough there), of the t interval at the
same level and of the default with enough resamples (B = 4,999 at 99.9 %, 999 at 95 %), and the median width
of each over the t interval's.  Replications draw n queries i.i.d. from one run pair's deltas (every pair of
DL-2019, DL-2021 and Robust03 on nDCG@10 and AP in turn, as the paired section: ``data.py``); truth is the
pair's full-set mean delta; intervals are as compare prints them (clipped to the delta range; samples of
equal deltas get the range-based interval).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
import data  # noqa: E402
import paired  # noqa: E402
from _tee import output_to  # noqa: E402
from common import batches, draw, rate, table  # noqa: E402
from pairedframe.stats.signflip_interval import too_few_resamples  # noqa: E402
from pairedframe.stats.studentized import MAX_QUANTILE_RATIO, studentized_bootstrap_many, zero_spread  # noqa: E402
from pairedframe.stats.ttest import paired_t_test_many  # noqa: E402
from pairedframe.stats.value_range import clip_to_range, constant_sample_interval  # noqa: E402

#: (confidence level, B too few for it, B enough for it).
SETTINGS = ((0.999, 100, 4999), (0.95, 18, 999))
SIZES = (20, 50, 100)


def _as_printed(low, high, D: np.ndarray, level: float, measure: str) -> tuple[np.ndarray, np.ndarray]:
    """Interval ends as compare prints them: equal deltas get the range-based interval, ends clipped."""
    lo, hi = paired.delta_range(measure)
    low, high = np.array(low, dtype=float), np.array(high, dtype=float)
    flat = zero_spread(D)
    if flat.any():
        low[flat], high[flat] = constant_sample_interval(D[0, flat], D.shape[0], lo, hi, confidence_level=level)
    low, high, _ = clip_to_range(low, high, lo, hi)
    return low, high


def intervals(D: np.ndarray, level: float, few: int, enough: int, seed, measure: str) -> dict[str, tuple]:
    """The default with ``few`` and with ``enough`` resamples (one stream) and the t interval, at ``level``."""
    out = {}
    for name, B in (("capped", few), ("enough", enough)):
        ci = studentized_bootstrap_many(D, n_resamples=B, confidence_level=level,
                                        seed=np.random.default_rng(np.random.SeedSequence(seed))).confidence_interval
        out[name] = _as_printed(ci.low, ci.high, D, level, measure)
    t = paired_t_test_many(D, confidence_level=level).confidence_interval
    out["t"] = _as_printed(t.low, t.high, D, level, measure)
    return out


def cell(pops, n: int, level: float, few: int, enough: int, reps: int, seed: int) -> dict[str, dict[str, np.ndarray]]:
    rng = np.random.default_rng([seed, n, 23])
    measure = pops[0].measure
    out: dict[str, dict[str, list]] = {"cover": {}, "width": {}}
    for b, (lo, hi) in enumerate(batches(reps)):
        D, truth, _ = draw(pops, n, hi - lo, rng)
        got = intervals(D, level, few, enough, [seed, n, b, 1], measure)
        t_width = got["t"][1] - got["t"][0]
        for name, (low, high) in got.items():
            out["cover"].setdefault(name, []).append((low <= truth) & (truth <= high))
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(t_width > 0, (high - low) / t_width, np.where(high - low > 0, np.inf, 1.0))
            out["width"].setdefault(name, []).append(ratio)
    return {kind: {k: np.concatenate(v) for k, v in per.items()} for kind, per in out.items()}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=10_000)
    ap.add_argument("--sizes", type=int, nargs="*", default=list(SIZES))
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--data", type=Path, default=data.DATA)
    ap.add_argument("--quick", action="store_true", help="smoke run: 100 replications, n = 20, DL-2019 only")
    ap.add_argument("--output", type=Path, default=None)
    args = ap.parse_args(argv)
    reps, sizes = (100, (20,)) if args.quick else (args.reps, tuple(args.sizes))
    collections = ("DL-2019",) if args.quick else data.COLLECTIONS
    for level, few, enough in SETTINGS:       # the study is about B on either side of the rule
        if not too_few_resamples(1.0 - level, few) or too_few_resamples(1.0 - level, enough):
            raise SystemExit(f"B = {few} must be too few and B = {enough} enough at {level:g}")
    with output_to(args.output):
        pops = data.load(args.data, collections=collections, seed=args.seed)
        rows = []
        for level, few, enough in SETTINGS:
            for (collection, measure), group in pops.items():
                for n in sizes:
                    r = cell(group, n, level, few, enough, reps, args.seed)
                    rows.append([collection, measure, str(n), f"{level:g}", f"{few} / {enough}",
                                 *(rate(r["cover"][k]) for k in ("capped", "t", "enough")),
                                 " / ".join(str(int((~r["cover"][k]).sum())) for k in ("capped", "t", "enough")),
                                 *(paired.median_ratio(r["width"][k]) for k in ("capped", "enough"))])
                    print(f"  too_few {level:g} {collection} {measure} n={n} done", file=sys.stderr, flush=True)
        print(f"### compare's default when n_resamples is too few for the level: the quantile at its cap, "
              f"{MAX_QUANTILE_RATIO:g} x Student's ({reps:,} replications per cell, MC SE in parentheses)\n")
        print("Coverage of the truth (full-set mean delta) at the level shown by: the default with B too few for "
              f"that level (capped: mean -/+ {MAX_QUANTILE_RATIO:g} x t quantile x se), the t interval, and the "
              "default with enough resamples (same bootstrap stream); misses = replications whose interval "
              "left the truth out (the rates' third decimal hides them at 99.9 %); width = median over samples of the "
              "interval's width / the t interval's (MC SE of the median from 200 bootstrap resamples).\n")
        print(table(["collection", "measure", "n", "level", "B too few / enough", "capped (too few)", "t",
                     "default (enough B)", "misses capped / t / default", "width capped / t",
                     "width default / t"], rows))


if __name__ == "__main__":
    main()
