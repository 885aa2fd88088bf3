"""Calibration of resampling="adaptive": FDR and power of certified BH decisions on real deltas.

Usage::

    PYTHONPATH=src python benchmarks/calibration --section adaptive            # 100 families per cell
    PYTHONPATH=src python benchmarks/calibration --section adaptive --quick    # smoke run

Delta populations: per-query nDCG@10 differences of every pair of real runs of TREC DL 2021 (53
queries; runs in ``syndl``), TREC DL 2019 (43 queries; the 3 runs in ``syndl``) and TREC 2003
Robust (AP, 100 topics; ``trectools_robust03``).  A *family* is ``--segments`` segments of 20 to 60
queries, each drawn with replacement from one population; a share ``--shifted`` of them is truly
shifted by ``--effect`` standard deviations of its population.  Two nulls for the other segments:

``relabel``
    each delta's sign flipped with probability 1/2: the sign-flip null holds exactly.
``centered``
    the population minus its mean: mean 0 but the real skewness is kept (the sign-flip test's
    symmetry assumption fails, as the t-test's normality does).

Per family, BH at q = ``--q`` is applied to: the adaptive test (certified decisions, decision error
``--decision-error``); the sign-flip test with a fixed B = ``--fixed-resamples`` drawn from the same
counter-based streams, ``p = (b + 1)/(B + 1)``; the paired t-test.  Printed per cell: FDR (mean
false discovery proportion) and power (mean share of shifted segments found), each +- its
Monte-Carlo standard error over families, mean sign patterns per segment and seconds.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy import stats as sps

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from pairedframe.comparison._adaptive import segment_adaptive  # noqa: E402
from pairedframe.stats.multiple import benjamini_hochberg  # noqa: E402
from pairedframe.stats.sign_flip_units import unit_flip_counts  # noqa: E402

SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"


def _pair_deltas(per_query) -> list[np.ndarray]:
    wide = per_query.pivot(on="system", index="qid", values="value").sort("qid").drop_nulls()
    runs = [c for c in wide.columns if c != "qid"]
    out = []
    for a, b in itertools.combinations(runs, 2):
        d = wide[b].to_numpy() - wide[a].to_numpy()
        if np.std(d) > 0:
            out.append(d)
    return out


def load_populations(shared: Path, max_runs: int) -> dict[str, list[np.ndarray]]:
    import pairedframe as pf

    pops = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, folder in (("DL-2021", "TREC-DL-2021"), ("DL-2019", "TREC-DL-2019")):
            base = shared / "syndl" / "TREC-DLs-files" / folder
            runs = sorted(p for p in (base / "passages-runs").iterdir() if p.is_file())[:max_runs]
            if len(runs) >= 2:
                ev = pf.evaluate([str(r) for r in runs], str(base / "qrels-pass.txt"), ["nDCG@10"])
                pops[name] = _pair_deltas(ev.per_query)
        robust = shared / "trectools_robust03"
        runs = sorted((robust / "runs").glob("input.*.gz"))[:max_runs]
        if len(runs) >= 2:
            ev = pf.evaluate([str(r) for r in runs], str(robust / "qrel" / "robust03_qrels.txt"), ["AP"])
            pops["Robust03"] = _pair_deltas(ev.per_query)
    return pops


def family(pops: list[np.ndarray], null: str, m: int, shifted: float, effect: float, rng):
    sizes = rng.integers(20, 61, m)
    is_shifted = rng.random(m) < shifted
    parts = []
    for n, s in zip(sizes, is_shifted):
        pop = pops[rng.integers(len(pops))]
        if null == "relabel":
            d = rng.choice(pop, size=n) * rng.choice([-1.0, 1.0], size=n)
        else:
            d = rng.choice(pop - pop.mean(), size=n)
        parts.append(d + (effect * np.std(pop, ddof=1) if s else 0.0))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return np.concatenate(parts), offsets, is_shifted


def rates(reject: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    r = int(reject.sum())
    fdp = float(np.sum(reject & ~truth)) / max(r, 1)
    power = float(np.sum(reject & truth)) / max(int(truth.sum()), 1)
    return fdp, power


def run_cell(pops, null, args, seed):
    rng = np.random.default_rng(seed)
    out = {k: [] for k in ("adaptive", "fixed", "t")}
    patterns = {"adaptive": 0, "fixed": 0}
    secs = {"adaptive": 0.0, "fixed": 0.0}
    uncertified = 0
    for _ in range(args.families):
        d, offsets, truth = family(pops, null, args.segments, args.shifted, args.effect, rng)
        m = truth.shape[0]
        keys = rng.integers(0, 2**63, m, dtype=np.int64).astype(np.uint64)
        t0 = time.perf_counter()
        res = segment_adaptive(d, offsets, keys, np.zeros(m, dtype=np.int64), correction="bh", level=args.q,
                               alternative="two-sided", decision_error=args.decision_error,
                               max_resamples=args.max_resamples)
        secs["adaptive"] += time.perf_counter() - t0
        patterns["adaptive"] += int(res.resamples.sum())
        uncertified += int(np.count_nonzero(~res.certified))
        out["adaptive"].append(rates(res.rejected, truth))
        B = args.fixed_resamples
        t0 = time.perf_counter()
        b = unit_flip_counts(d, offsets, np.arange(m), keys, 0, B)
        secs["fixed"] += time.perf_counter() - t0
        patterns["fixed"] += B * m
        out["fixed"].append(rates(benjamini_hochberg((b + 1) / (B + 1)) <= args.q, truth))
        sizes = np.diff(offsets)
        mean = np.add.reduceat(d, offsets[:-1]) / sizes
        sd = np.sqrt(np.add.reduceat((d - np.repeat(mean, sizes)) ** 2, offsets[:-1]) / (sizes - 1))
        p_t = 2 * sps.t.sf(np.abs(mean / (sd / np.sqrt(sizes))), sizes - 1)
        out["t"].append(rates(benjamini_hochberg(p_t) <= args.q, truth))
    n_seg = args.families * args.segments
    gain = np.array(out["adaptive"])[:, 1] - np.array(out["fixed"])[:, 1]
    paired = (gain.mean(), gain.std(ddof=1) / math.sqrt(len(gain)) if len(gain) > 1 else np.nan)
    summary = {}
    for k, v in out.items():
        v = np.array(v)
        se = v.std(axis=0, ddof=1) / math.sqrt(len(v)) if len(v) > 1 else np.full(2, np.nan)
        summary[k] = (v[:, 0].mean(), se[0], v[:, 1].mean(), se[1])
    return summary, {k: patterns[k] / n_seg for k in patterns}, secs, uncertified, paired


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--families", type=int, default=100, help="replications per cell")
    ap.add_argument("--segments", type=int, default=1000)
    ap.add_argument("--shifted", type=float, default=0.1)
    ap.add_argument("--effect", type=float, default=0.5, help="shift in standard deviations")
    ap.add_argument("--q", type=float, default=0.05)
    ap.add_argument("--decision-error", type=float, default=1e-3)
    ap.add_argument("--max-resamples", type=int, default=2**27)
    ap.add_argument("--fixed-resamples", type=int, default=10_000)
    ap.add_argument("--max-runs", type=int, default=12, help="runs per collection (pairs of them give deltas)")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--data", type=Path, default=SHARED)
    ap.add_argument("--quick", action="store_true", help="2 families of 100 segments per cell, 3 runs (smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.families, args.segments, args.max_runs, args.max_resamples = 2, 100, 3, 2**20
    t0 = time.perf_counter()
    pops = load_populations(args.data, args.max_runs)
    if not pops:
        sys.exit(f"no real runs found under {args.data}")
    print(f"{args.families} families per cell of {args.segments} segments (20-60 queries), {args.shifted:.0%} "
          f"shifted by {args.effect} sd; BH q = {args.q}; adaptive decision error {args.decision_error:g}, "
          f"max_resamples {args.max_resamples:,}; fixed B = {args.fixed_resamples:,}; +- is one Monte-Carlo SE")
    print("| data (pairs) | null | method | FDR | power | patterns / segment | seconds |")
    print("|" + "---|" * 7)
    gains = []
    for c, (name, pop) in enumerate(pops.items()):
        for j, null in enumerate(("relabel", "centered")):
            summary, patterns, secs, uncertified, paired = run_cell(pop, null, args, seed=[args.seed, c, j])
            for k, label in (("adaptive", "adaptive (certified BH)"), ("fixed", f"fixed B={args.fixed_resamples:,}"),
                             ("t", "t-test")):
                fdr, fdr_se, power, power_se = summary[k]
                extra = f" ({uncertified} uncertified)" if k == "adaptive" and uncertified else ""
                print(f"| {name} ({len(pop)}) | {null} | {label}{extra} | {fdr:.4f} +- {fdr_se:.4f} | "
                      f"{power:.4f} +- {power_se:.4f} | {patterns.get(k, 0):,.0f} | {secs.get(k, 0):.1f} |",
                      flush=True)
            gains.append(f"{name} {null}: {paired[0]:+.4f} +- {paired[1]:.4f}")
    print("power of adaptive minus power of fixed B, paired over families: " + "; ".join(gains))
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
