"""False discovery rate of :func:`pairedframe.compare_segments` with BH on real deltas.

Each replication is one "system" compared with a baseline whose values are 0, over ``S`` segments of
``s`` queries: the deltas of a segment are drawn i.i.d. from one run pair's deltas, either with random
signs (``symmetric``: labels swapped, the sign-flip test's null) or minus their mean (``centred``: true
mean 0 with the real skew kept), and in ``n_true`` segments shifted by ``shift`` (true effects).  All replications
go through one compare_segments call (each system is its own BH family, as by default); FDR = mean
over replications of false discoveries / max(discoveries, 1); power = share of true effects found;
coverage = share of segment intervals holding the segment's true mean (0, or ``shift``) for the
default interval (inverting the sign-flip test), the t interval and the bootstrap percentile one.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl

from common import table
from pairedframe.comparison.segments import compare_segments


def cell(pops, reps: int, B: int, seed: int, null: str, S: int = 20, s: int = 20, n_true: int = 5,
         shift: float = 0.1) -> dict:
    rng = np.random.default_rng([seed, 41, ("symmetric", "centred").index(null)])
    Q = S * s
    qids = [f"q{j:04d}" for j in range(Q)]
    seg_of = np.repeat(np.arange(S), s)
    values = np.empty((reps, Q))
    for r in range(reps):
        pop = pops[r % len(pops)].deltas
        x = pop[rng.integers(0, pop.shape[0], Q)]
        x = x * rng.choice([-1.0, 1.0], Q) if null == "symmetric" else x - pop.mean()
        values[r] = x + np.where(seg_of < n_true, shift, 0.0)
    systems = np.repeat([f"r{r:05d}" for r in range(reps)], Q)
    frame = pl.concat([
        pl.DataFrame({"system": "A", "qid": qids, "measure": "m", "value": 0.0}),
        pl.DataFrame({"system": systems, "qid": np.tile(qids, reps), "measure": "m", "value": values.ravel()})])
    segments = pl.DataFrame({"qid": qids, "segment_set": "s", "segment": [f"g{g:02d}" for g in seg_of]})
    out = {}
    for test in ("t", "randomization", "percentile"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if test == "percentile":      # the randomization test with the bootstrap percentile interval
                res = compare_segments(frame, segments, baseline="A", n_resamples=B, seed=seed, interval="percentile")
            else:
                res = compare_segments(frame, segments, baseline="A", test=test, n_resamples=B, seed=seed)
        res = res.with_columns(pl.col("segment").str.slice(1).cast(pl.Int64).alias("_g")).with_columns(
            (pl.col("_g") < n_true).alias("_true"))
        truth = pl.when(pl.col("_true")).then(shift).otherwise(0.0)
        covered = ((pl.col("ci_low") <= truth) & (truth <= pl.col("ci_high"))).cast(pl.Float64)
        cover = res.group_by("system").agg(covered.mean().alias("c"))["c"].to_numpy()
        per = res.group_by("system").agg(
            (pl.col("significant") & ~pl.col("_true")).sum().alias("false"), pl.col("significant").sum().alias("all"),
            (pl.col("significant") & pl.col("_true")).sum().alias("hits"))
        fdp = (per["false"] / per["all"].clip(lower_bound=1)).to_numpy()
        out[test] = {"fdp": fdp, "power": per["hits"].sum() / (n_true * reps), "coverage": cover}
    return out


def run(populations: dict, reps: int, B: int, seed: int, log=print) -> dict:
    results = {}
    for key, pops in populations.items():
        for null in ("symmetric", "centred"):
            results[(*key, null)] = cell(pops, reps, B, seed, null)
        log(f"  segments {key[0]} {key[1]} done")
    return results


def report(results: dict, reps: int, B: int) -> str:
    rows = []
    for (c, m, null), r in results.items():
        rows.append([c, m, null] + [f"{r[t]['fdp'].mean():.3f} ({r[t]['fdp'].std(ddof=1) / np.sqrt(reps):.3f})"
                              for t in ("t", "randomization")]
                    + [f"{r[t]['power']:.2f}" for t in ("t", "randomization")])
    out = (f"### compare_segments: false discovery rate of BH at q = 0.05 (20 segments x 20 queries, 5 with a "
           f"true +0.1 shift)\n\n{reps} replications per cell (MC SE in parentheses), randomization B = {B}.\n\n")
    out += table(["collection", "measure", "null segments", "FDR t", "FDR randomization", "power t",
                  "power randomization"], rows)
    rows = []
    for (c, m, null), r in results.items():
        # replications are independent; the segments of one replication share nothing but the draw
        rows.append([c, m, null] + [f"{r[t]['coverage'].mean():.3f} ({r[t]['coverage'].std(ddof=1) / np.sqrt(reps):.3f})"
                                    for t in ("randomization", "t", "percentile")])
    out += (f"\n\n### compare_segments: coverage of the 95 % interval per segment (20 queries each)\n\n"
            f"Share of segment intervals holding the segment's true mean delta, {reps} replications x 20 segments "
            f"(MC SE over replications).\n\n")
    return out + table(["collection", "measure", "null segments", "default (inverted sign-flip)", "t",
                        "percentile"], rows)
