"""Benchmark of compare_segments: 10,000 segments, 1,000,000 queries in all, one measure.

Targets (issue 5): t-test screening <= 2 s; randomization with 1,000 resamples <= 20 s.
Reports wall seconds and peak memory (tracemalloc peak of Python/numpy allocations, and the
process's maximum resident set size).  A script, not a CI test::

    PYTHONPATH=src python benchmarks/segments.py [--queries 1000000] [--segments 10000] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import tracemalloc
import warnings

import numpy as np
import polars as pl

from pairedframe.comparison.paired import _pair
from pairedframe.comparison.segments import compare_segments


def make_data(n_queries: int, n_segments: int, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Two systems on n_queries queries; each query in exactly one of n_segments segments (uneven sizes)."""
    rng = np.random.default_rng(seed)
    qids = np.char.add("q", np.arange(n_queries).astype(str))
    a = rng.uniform(size=n_queries)
    effect = rng.normal(0, 0.01, n_segments)                       # small per-segment true effects
    seg = rng.integers(0, n_segments, n_queries)
    b = np.clip(a + effect[seg] + rng.normal(0, 0.1, n_queries), 0, 1)
    per_query = pl.DataFrame({"system": np.repeat(["A", "B"], n_queries), "qid": np.tile(qids, 2),
                              "measure": "nDCG@10", "value": np.concatenate([a, b])})
    segments = pl.DataFrame({"qid": qids, "segment_set": "bucket", "segment": np.char.add("s", seg.astype(str))})
    return per_query, segments


def timed(label: str, fn) -> pl.DataFrame:
    """Wall time of one call (no tracing), then tracemalloc peak of a second, traced call."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        tracemalloc.start()
        fn()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    print(f"{label:<42s} {dt:7.2f} s   tracemalloc peak {peak / 2**20:7.1f} MiB   rows {out.height}")
    for w in caught:
        print(f"    warning: {str(w.message)[:160]}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=1_000_000)
    ap.add_argument("--segments", type=int, default=10_000)
    ap.add_argument("--resamples", type=int, default=1_000)
    args = ap.parse_args()
    per_query, segments = make_data(args.queries, args.segments)
    print(f"{args.queries:,} queries, {args.segments:,} segments, 1 measure, 2 systems; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    t0 = time.perf_counter()
    _pair(per_query, "A", None, None)
    print(f"{'  of which pairing (compare.paired._pair)':<42s} {time.perf_counter() - t0:7.2f} s")
    timed("t-test screening (test='t')",
          lambda: compare_segments(per_query, segments, baseline="A", test="t"))
    res = timed(f"randomization + percentile CI, B={args.resamples:,}",
                lambda: compare_segments(per_query, segments, baseline="A", n_resamples=args.resamples))
    print(f"significant (BH 0.05): {int(res['significant'].sum())}; resolution_limited rows: "
          f"{int(res['resolution_limited'].sum())}")
    print(f"max resident set size of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
