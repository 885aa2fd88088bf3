"""Calibration of the per-system mean intervals :func:`pairedframe.results_table` prints, on real per-query values.

``results_table`` shows each system's mean with an interval (``comparison/table_data.py``):

- arithmetic means (nDCG@10, AP, ...): the t interval of the mean, clipped to the measure's range, and the
  range-based interval of n equal values where the sample has no spread;
- geometric means (GMAP, GMBpref, trec_eval's ``all`` value ``exp(mean(log(max(v, 1e-5))))``): the t interval
  of the mean log, exponentiated.

A *population* is one run's per-query values on one measure over the collection's judged queries (a query
the run misses scores 0, as in ``data.py``).  Replication r draws n queries i.i.d. (with replacement) from
population r mod P; truth is the population's mean (arithmetic or geometric, as the measure's).  Each batch
of replications is one per-query table (one "system" per replication) fed to the library's own function, so
the intervals are exactly those results_table prints.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from common import batches, rate, table
from data import COLLECTIONS, DATA, _paths
from pairedframe.comparison.table_means import table_means
from pairedframe.measures.parse import aggregate_of

MEASURES = ("nDCG@10", "AP", "GMAP")
SIZES = (20, 50, 100)
#: trec_eval's floor of a value before its log (m_gm_map.c, MIN_GEO_MEAN).
FLOOR = 1e-5


def load(data=DATA, collections=COLLECTIONS, measures=MEASURES, max_runs=None) -> dict[tuple[str, str], list]:
    """Per (collection, measure): each run's per-query values over the judged queries (misses score 0)."""
    import pairedframe as pf

    out = {}
    for collection in collections:
        runs, qrels = _paths(data, collection)
        runs = runs[:max_runs] if max_runs else runs
        per_query = pf.evaluate([str(r) for r in runs], str(qrels), list(measures)).per_query
        for measure in measures:
            wide = per_query.filter(pl.col("measure") == measure).pivot(on="system", index="qid", values="value")
            wide = wide.fill_null(0.0)
            out[(collection, measure)] = [wide[s].to_numpy() for s in wide.columns if s != "qid"]
    return out


def truth_of(values: np.ndarray, measure: str) -> float:
    if aggregate_of(measure) == "gmean":
        return math.exp(float(np.mean(np.log(np.maximum(values, FLOOR)))))
    return float(np.mean(values))


def cell(pops: list[np.ndarray], measure: str, n: int, reps: int, seed: int, level: float) -> dict[str, np.ndarray]:
    """Per replication: whether results_table's interval covers the population mean, and its width."""
    rng = np.random.default_rng([seed, n, len(measure), 23])
    truths = np.array([truth_of(p, measure) for p in pops])
    cover, width = [], []
    for lo, hi in batches(reps, 1000):
        which = np.arange(lo, hi) % len(pops)
        values = np.concatenate([pops[w][rng.integers(0, pops[w].shape[0], n)] for w in which])
        frame = pl.DataFrame({"system": np.repeat([f"r{r:06d}" for r in range(lo, hi)], n),
                              "qid": np.tile(np.arange(n).astype(str), hi - lo),
                              "measure": measure, "value": values})
        got = table_means(frame, None, level).sort("system")
        low, high = got["ci_low"].to_numpy(), got["ci_high"].to_numpy()
        cover.append((low <= truths[which]) & (truths[which] <= high))
        width.append(high - low)
    return {"cover": np.concatenate(cover), "width": np.concatenate(width)}


def run(pops: dict, reps: int, seed: int, sizes=SIZES, level: float = 0.95, log=print) -> dict:
    res = {}
    for (collection, measure), group in pops.items():
        for n in sizes:
            res[(collection, measure, n)] = cell(group, measure, n, reps, seed, level)
        log(f" means {collection} {measure} done")
    return res


def report(res: dict, reps: int, level: float = 0.95) -> str:
    rows = []
    for (collection, measure, n), r in res.items():
        kind = "exp(t of mean log)" if aggregate_of(measure) == "gmean" else "t, clipped to range"
        rows.append([collection, measure, kind, str(n), rate(r["cover"]), f"{np.median(r['width']):.3f}"])
    head = (f"### results_table: the interval of each system's mean ({reps:,} replications per cell, "
            f"nominal {level:.2f})\n\n"
            "Each population is one run's per-query values over the collection's judged queries; replications "
            "draw n queries with replacement; truth is the population's arithmetic mean, or for GMAP its "
            "geometric mean as trec_eval computes it (values floored at 1e-5).  Coverage with its Monte-Carlo "
            "SE; width is the median of ci_high - ci_low.\n\n")
    return head + table(["collection", "measure", "interval", "n", "covers", "median width"], rows)
