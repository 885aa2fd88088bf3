"""Calibration of PPI++ (:func:`pairedframe.ppi_compare` / :func:`pairedframe.stats.ppi.ppi_mean`) on TREC DL-2019.

NIST judgments are the gold, Llama-3.3-70B judgments the proxy.  Each replication draws, from one run
pair's 43 judged queries (pairs in turn), ``n_gold`` gold queries i.i.d. (with replacement; their gold
*and* proxy deltas) and, independently, 43 proxy-only queries i.i.d. (their proxy deltas): the
labelled and unlabelled samples of PPI's model.  Truth = the pair's mean gold delta over the 43.

Reported per method (the PPI++ interval with power-tuned lam): coverage of the 95 % interval and mean
width relative to the gold-only t interval on the same gold sample (whose coverage is shown too).
"""

from __future__ import annotations

import warnings

import numpy as np

from common import rate, table
from pairedframe.errors import SmallSampleWarning
from pairedframe.stats.ppi import PPI_METHODS, ppi_mean


def cell(pops, n_gold: int, reps: int, seed: int) -> dict:
    rng = np.random.default_rng([seed, n_gold, 31])
    cover = {m: np.zeros(reps, bool) for m in (*PPI_METHODS, "gold-only t")}
    width = {m: np.zeros(reps) for m in cover}
    lam = np.zeros(reps)
    for r in range(reps):
        pop = pops[r % len(pops)]
        N = pop.deltas.shape[0]
        li = rng.integers(0, N, n_gold)
        ui = rng.integers(0, N, N)
        y, fg, fu = pop.deltas[li], pop.proxy[li], pop.proxy[ui]
        truth = pop.deltas.mean()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SmallSampleWarning)
            for method in PPI_METHODS:
                res = ppi_mean(y, fg, fu, method=method)
                lo, hi = res.confidence_interval
                cover[method][r] = lo <= truth <= hi
                width[method][r] = hi - lo
                if method == PPI_METHODS[0]:
                    lam[r] = res.lam
            g = ppi_mean(y, fg, fu, lam=0.0, method="t")
        lo, hi = g.confidence_interval
        cover["gold-only t"][r] = lo <= truth <= hi
        width["gold-only t"][r] = hi - lo
    return {"cover": cover, "width": width, "lam": lam}


def run(populations: dict, sizes, reps: int, seed: int, log=print) -> dict:
    results = {}
    for measure, pops in populations.items():
        for n in sizes:
            results[(measure, n)] = cell(pops, n, reps, seed)
        log(f"  ppi {measure} done")
    return results


def report(results: dict, reps: int, n_pairs: dict) -> str:
    rows = []
    for (measure, n), r in results.items():
        w0 = r["width"]["gold-only t"].mean()
        rows.append([measure, str(n)] + [rate(r["cover"][m]) for m in (*PPI_METHODS, "gold-only t")]
                    + [f"{r['width'][m].mean() / w0:.2f}" for m in PPI_METHODS] + [f"{r['lam'].mean():.2f}"])
    out = (f"### PPI++ on DL-2019 (NIST gold on n_gold i.i.d. queries, Llama-3.3-70B proxy on 43 i.i.d. queries)\n\n"
           f"{reps} replications per cell over " + ", ".join(f"{k} {m} pairs" for m, k in n_pairs.items())
           + "; coverage of the all-gold mean delta; width = mean width / mean width of the gold-only t interval.\n\n")
    names = [f"{m} (default)" if i == 0 else "z (ppi_py)" if m == "z" else m for i, m in enumerate(PPI_METHODS)]
    return out + table(["measure", "n_gold", *names, "gold-only t", *(f"width {m}" for m in PPI_METHODS), "mean lam"],
                       rows)
