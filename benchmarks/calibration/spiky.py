"""Spiky cells for :func:`pairedframe.compare`'s intervals: deltas where a few queries dominate the mean.

The bootstrap-t explodes there (resamples that leave the dominant queries out have almost no spread,
their ``|T*|`` reaches 20-30, and the symmetric form copies that to both sides), which coverage alone
does not show: these cells print the median width relative to the t interval beside coverage.

Designs (every sample n deltas; truth = the mean of the distribution the sample is drawn from):

- ``RR@10``: real RR@10 deltas of every run pair (most DL pairs tie on most queries), n = 20, 50, 100;
- ``one dominant``: n - 1 real nDCG@10 deltas and one delta of 0.9 (conditional on exactly one
  dominant query; truth ``((n - 1) mu + 0.9) / n``), n = 20, 30;
- ``one dominant, synthetic``: n - 1 deltas ``abs(N(0.02, 0.01))`` and one 0.9 (the example of issue 20);
- ``jumps``: each real nDCG@10 delta replaced by 0.6 with probability 0.05 (truth ``0.95 mu + 0.03``),
  n = 20; ``jumps, synthetic``: the same on ``abs(N(0.02, 0.01))`` deltas.

Intervals as compare prints them (clipped to the delta range of the measure; :mod:`paired`).
"""

from __future__ import annotations

import numpy as np

from common import batches, rate, table
from paired import CANDIDATES, accumulate, intervals, median_ratio

SHOWN = ("studentized", "bootstrap-t", "t", "signflip", "percentile")
SPIKE, JUMP, JUMP_P = 0.9, 0.6, 0.05
BASE_MU, BASE_SD = 0.02, 0.01


def _folded_mean(mu: float, sd: float) -> float:
    """Mean of |N(mu, sd)|."""
    from scipy import stats
    return float(stats.foldnorm(mu / sd, scale=sd).mean())


def _draw(pops, kind: str, n: int, reps: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    D, truth = np.empty((n, reps)), np.empty(reps)
    synthetic = kind.endswith("synthetic")
    base_mu = _folded_mean(BASE_MU, BASE_SD) if synthetic else None
    for r in range(reps):
        if synthetic:
            x, mu = np.abs(rng.normal(BASE_MU, BASE_SD, n)), base_mu
        else:
            pop = pops[r % len(pops)].deltas
            x, mu = pop[rng.integers(0, pop.shape[0], n)], float(pop.mean())
        if kind.startswith("one dominant"):
            x[rng.integers(n)] = SPIKE
            mu = ((n - 1) * mu + SPIKE) / n
        elif kind.startswith("jumps"):
            x = np.where(rng.random(n) < JUMP_P, JUMP, x)
            mu = (1 - JUMP_P) * mu + JUMP_P * JUMP
        D[:, r], truth[r] = x, mu
    return D, truth


def cells(pops: dict, rr_pops: dict, quick: bool = False) -> list[tuple[str, str, str, list, int]]:
    """(design, collection, measure, populations, n) of every spiky cell."""
    out = []
    for (collection, _), p in rr_pops.items():
        out += [("RR@10", collection, "RR@10", p, n) for n in ((20,) if quick else (20, 50, 100))]
    ndcg = [(c, p) for (c, m), p in pops.items() if m == "nDCG@10"]
    for design, sizes in (("one dominant", (20,) if quick else (20, 30)), ("jumps", (20,))):
        for collection, p in ([] if quick else ndcg):
            out += [(design, collection, "nDCG@10", p, n) for n in sizes]
        out += [(f"{design}, synthetic", "synthetic", "nDCG@10", [], n) for n in sizes]
    return out


def run(pops: dict, rr_pops: dict, reps: int, B: int, seed: int, log=print, quick: bool = False) -> dict:
    results = {}
    for design, collection, measure, p, n in cells(pops, rr_pops, quick):
        rng = np.random.default_rng([seed, n, 23, len(results)])
        store: dict = {}
        for b, (lo, hi) in enumerate(batches(reps)):
            kind = "real" if design == "RR@10" else design
            D, truth = _draw(p, kind, n, hi - lo, rng)
            res = intervals(D, B, [seed, n, b, 5, len(results)], measure)
            accumulate(store, res, truth)   # Hall's infinite ends, before the range rule and clipping hide them
        cat = lambda key: np.concatenate(store[key])  # noqa: E731
        results[(design, collection, n)] = {
            "cover": {k[1]: cat(k) for k in store if k[0] == "cover"},
            "width": {k[1]: cat(k) for k in store if k[0] == "width"},
            "clipped": cat("_clipped"), "capped": cat("_capped"), "unbounded": cat("_hall_unbounded")}
        log(f"  spiky {design} {collection} n={n} done")
    return results


def report(results: dict, reps: int, B: int) -> str:
    rows = [[d, c, str(n)] + [f"{rate(r['cover'][k])}; {median_ratio(r['width'][k])}" for k in SHOWN]
            + [rate(r["clipped"]), rate(r["capped"]), rate(r["unbounded"])] for (d, c, n), r in results.items()]
    out = (f"### compare: spiky cells (a few queries dominate the mean)\n\n{reps} replications per cell, B = {B}; "
           "designs in benchmarks/calibration/spiky.py. Each entry: coverage (MC SE); median width / the t "
           "interval's (MC SE). clipped: share of samples whose default interval was clipped to [-1, 1]; capped: "
           "share whose default quantile reached its cap; bootstrap-t unbounded: share where Hall's bootstrap-t "
           "has an infinite end.\n\n")
    out += table(["design", "collection", "n", "studentized (default)", "bootstrap-t (Hall)", "t", "signflip",
                  "percentile", "clipped", "capped", "bootstrap-t unbounded"], rows)
    rows = [[d, c, str(n)] + [f"{rate(r['cover'][k])}; {median_ratio(r['width'][k])}" for k in CANDIDATES]
            for (d, c, n), r in results.items()]
    out += "\n\nThe other candidates on the same samples (coverage; median width / t).\n\n"
    out += table(["design", "collection", "n", *CANDIDATES], rows)
    return out
