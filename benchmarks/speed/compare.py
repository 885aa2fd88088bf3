"""Benchmark: pairedframe's paired bootstrap / sign-flip kernels vs scipy and ranx.

Usage::

    PYTHONPATH=src python benchmarks/speed --section compare --n-queries 7000 --n-resamples 10000
    PYTHONPATH=src python benchmarks/speed --section compare --quick          # tiny sizes (CI smoke run)

Every measurement runs in its own subprocess (``--worker NAME``) so peak memory (``ru_maxrss`` of
that process, and the tracemalloc peak of the timed call, which numpy reports to) is not polluted
by the others.  Time is the best of ``--repeat`` runs after one warm-up call (the warm-up also
compiles ranx's numba code).

Targets (issue 3, 2-core machine, n = 7000, B = 10000): bootstrap <= 0.5 s (1 measure), <= 1 s
(10 measures, shared index), sign-flip <= 0.3 s (1 measure), peak <= 300 MB.

``--large`` (issue 22): a per-query table of 1,000,000 queries x 10 systems (9 comparisons with the first),
each case in its own process (pairedframe's after one warm-up call on 100 queries, so that its lazy imports
are not counted), peak RSS of the process: the one-pass polars floor (join each system to the
baseline by qid; mean and sd of the deltas), ``pf.compare`` with its defaults (above 10,000 non-zero deltas:
one pass, :mod:`pairedframe.comparison.large_n`) and with ``test="t"``, and the same defaults on a DuckDB
relation of the table -- as ratios to the floor.  Targets: defaults <= 10x the floor's time, t <= 5x,
peak <= 2x the floor's.  ``--queries`` sets the size, ``--repeat`` the runs per case (best time).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _tee, shared with the other folder
from _tee import output_to  # noqa: E402

WORKERS = ["pf_bootstrap_1", "pf_bootstrap_10", "pf_signflip_1", "pf_signflip_10", "pf_signflip_ci_1",
           "pf_compare_frame_1",
           "scipy_bootstrap_1", "scipy_bootstrap_10", "scipy_permutation_1", "ranx_fisher_1"]
TARGETS = {"pf_bootstrap_1": 0.5, "pf_bootstrap_10": 1.0, "pf_signflip_1": 0.3}


def _data(n: int, k: int) -> np.ndarray:
    rng = np.random.default_rng(12345)
    a = rng.uniform(0, 1, size=(n, k))
    return np.clip(a + rng.normal(0.01, 0.2, size=(n, k)), 0, 1) - a


def _job(name: str, n: int, B: int):
    """Return a zero-argument callable doing the measured work."""
    if name.startswith("pf_"):
        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    if name in ("pf_bootstrap_1", "pf_bootstrap_10"):
        from pairedframe.stats.bootstrap import bootstrap_mean_many
        D = _data(n, 1 if name.endswith("_1") else 10)
        return lambda: bootstrap_mean_many(D, n_resamples=B, seed=0)
    if name in ("pf_signflip_1", "pf_signflip_10"):
        from pairedframe.stats.randomization import sign_flip_test_many
        D = _data(n, 1 if name.endswith("_1") else 10)
        return lambda: sign_flip_test_many(D, n_resamples=B, seed=0)
    if name == "pf_signflip_ci_1":
        from pairedframe.stats.signflip_interval import sign_flip_interval_many
        D = _data(n, 1)
        return lambda: sign_flip_interval_many(D, n_resamples=B, seed=0)   # p-value + inverted interval
    if name == "pf_compare_frame_1":
        import polars as pl

        from pairedframe.comparison import compare
        d = _data(n, 1)[:, 0]
        a = np.random.default_rng(1).uniform(size=n)
        qids = [f"q{i}" for i in range(n)]
        frame = pl.DataFrame({"system": ["A"] * n + ["B"] * n, "qid": qids + qids, "measure": "m",
                              "value": np.concatenate([a, a + d])})
        return lambda: compare(frame, baseline="A", n_resamples=B)
    if name in ("scipy_bootstrap_1", "scipy_bootstrap_10"):
        from scipy import stats
        D = _data(n, 1 if name.endswith("_1") else 10)
        batch = max(1, 2**22 // n)

        def run():
            for c in range(D.shape[1]):
                stats.bootstrap((D[:, c],), np.mean, n_resamples=B, method="percentile", batch=batch,
                                rng=np.random.default_rng(0), vectorized=True)
        return run
    if name == "scipy_permutation_1":
        from scipy import stats
        d = _data(n, 1)[:, 0]
        batch = max(1, 2**22 // n)
        return lambda: stats.permutation_test((d,), lambda x, axis=-1: np.mean(x, axis=axis), vectorized=True,
                                              permutation_type="samples", n_resamples=B, batch=batch,
                                              rng=np.random.default_rng(0))
    if name == "ranx_fisher_1":
        from ranx.statistical_tests import fisher_randomization_test
        d = _data(n, 1)[:, 0]
        a = np.random.default_rng(1).uniform(size=n)
        return lambda: fisher_randomization_test(a, a + d, n_permutations=B)
    raise ValueError(name)


def worker(name: str, n: int, B: int, repeat: int) -> dict:
    job = _job(name, n, B)
    job()  # warm-up (numba compilation for ranx, imports, page faults)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        job()
        times.append(time.perf_counter() - t0)
    tracemalloc.start()
    job()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB on Linux
    return {"name": name, "seconds": min(times), "traced_peak_mb": peak / 2**20, "maxrss_mb": rss}


LARGE_CASES = ("floor", "defaults", "t", "duckdb_defaults")
LARGE_TARGETS = {"defaults": 10.0, "t": 5.0, "duckdb_defaults": 10.0}
#: The per-query table of --large (the same construction as benchmarks/spark.py's compare job).
LARGE_TABLE = """
import numpy as np, polars as pl
rng = np.random.default_rng(1)
qids = [f"q{i:07d}" for i in range(n)]
base = rng.uniform(size=n)
pq = pl.concat([pl.DataFrame({"system": f"s{j}", "qid": qids, "measure": "nDCG@10",
                              "value": np.clip(base + rng.normal(0.01 * j, 0.1, size=n), 0, 1)}) for j in range(10)])
del qids, base
"""


def _large_job(name: str, n: int):
    """(zero-argument callable doing the measured work, rows it returns) for a --large case."""
    import polars as pl

    scope: dict = {"n": n}
    exec(LARGE_TABLE, scope)  # noqa: S102 - our own constant text
    pq = scope["pq"]
    if name == "floor":
        def floor():
            a = pq.filter(pl.col("system") == "s0").select("measure", "qid", pl.col("value").alias("a"))
            d = (pq.filter(pl.col("system") != "s0").join(a, on=["measure", "qid"])
                 .with_columns((pl.col("value") - pl.col("a")).alias("d")))
            return d.group_by("system", "measure").agg(pl.len(), pl.col("d").mean().alias("mean"),
                                                       pl.col("d").std().alias("sd"))
        return floor
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    import pairedframe as pf
    small = pq.filter(pl.col("qid") < "q0000100")       # warm-up: the lazy imports are not part of the cost
    pf.compare(small, baseline="s0")
    if name == "duckdb_defaults":
        import duckdb
        con = duckdb.connect()
        con.sql("SET enable_progress_bar = false")
        con.register("pq_arrow", pq.to_arrow())
        con.sql("CREATE TABLE per_query AS SELECT * FROM pq_arrow")
        con.unregister("pq_arrow")
        del pq
        return lambda: pf.compare(con.table("per_query"), baseline="s0")
    kw = {"test": "t"} if name == "t" else {}
    return lambda: pf.compare(pq, baseline="s0", **kw)


def large_worker(name: str, n: int, repeat: int) -> dict:
    job = _large_job(name, n)
    rss_table = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = job()
        times.append(time.perf_counter() - t0)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    methods = sorted(set(out["method"].to_list())) if "method" in out.columns else []
    return {"name": name, "seconds": min(times), "spread": max(times) - min(times), "maxrss_mb": rss,
            "table_mb": rss_table, "rows": out.height, "methods": methods}


def large_main(args: argparse.Namespace) -> None:
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"--large: {args.queries:,} queries x 10 systems (9 comparisons), one measure; best of {args.repeat}; "
          f"load average before: {load}")
    results = {}
    for name in args.only or LARGE_CASES:
        proc = subprocess.run([sys.executable, __file__, "--large-worker", name, "--queries", str(args.queries),
                               "--repeat", str(args.repeat)], capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{name}: failed ({proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else '?'})")
            continue
        results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
    floor = results.get("floor")
    print(f"{'case':<18}{'seconds':>9}{'spread':>8}{'peak MB':>9}{'x floor':>9}{'peak x':>8}{'target':>8}  method")
    for name, r in results.items():
        ratio = r["seconds"] / floor["seconds"] if floor else float("nan")
        peak = r["maxrss_mb"] / floor["maxrss_mb"] if floor else float("nan")
        target = LARGE_TARGETS.get(name)
        flag = "" if target is None else ("ok" if ratio <= target and peak <= 2.0 else "MISSED")
        print(f"{name:<18}{r['seconds']:>9.2f}{r['spread']:>8.2f}{r['maxrss_mb']:>9.0f}{ratio:>9.2f}{peak:>8.2f}"
              f"{'' if target is None else f'{target:>7.0f}x'}  {','.join(r['methods'])} {flag}")
    print(f"(peak MB: the whole process, the table included; building the table alone peaks at "
          f"{floor['table_mb'] if floor else float('nan'):.0f} MB); load average after: "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n-queries", type=int, default=7000)
    ap.add_argument("--n-resamples", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="n=500, B=1000, 1 repeat (smoke run)")
    ap.add_argument("--only", nargs="*", default=None, help="subset of " + ", ".join(WORKERS))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--large", action="store_true", help="10^6 queries x 10 systems vs the polars floor (issue 22)")
    ap.add_argument("--queries", type=int, default=1_000_000, help="--large: queries of the per-query table")
    ap.add_argument("--large-worker", help=argparse.SUPPRESS)
    ap.add_argument("--output", type=Path, default=None, help="also write the printed table to this file")
    args = ap.parse_args()
    if args.large_worker:
        print(json.dumps(large_worker(args.large_worker, args.queries, args.repeat)))
        return
    if args.large:
        with output_to(args.output):
            large_main(args)
        return
    if args.quick:
        args.n_queries, args.n_resamples, args.repeat = 500, 1000, 1
    if args.worker:
        print(json.dumps(worker(args.worker, args.n_queries, args.n_resamples, args.repeat)))
        return
    with output_to(args.output):
        peers_main(args)


def peers_main(args: argparse.Namespace) -> None:
    results = {}
    for name in args.only or WORKERS:
        proc = subprocess.run([sys.executable, __file__, "--worker", name, "--n-queries", str(args.n_queries),
                               "--n-resamples", str(args.n_resamples), "--repeat", str(args.repeat)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"{name}: skipped ({proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else 'failed'})")
            continue
        results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
    print(f"n_queries = {args.n_queries}, n_resamples = {args.n_resamples}, best of {args.repeat}")
    print(f"{'measurement':<22}{'seconds':>9}{'traced MB':>11}{'maxrss MB':>11}{'target s':>10}")
    for name, r in results.items():
        target = TARGETS.get(name)
        flag = "" if target is None else (" ok" if r["seconds"] <= target else " MISSED")
        print(f"{name:<22}{r['seconds']:>9.3f}{r['traced_peak_mb']:>11.1f}{r['maxrss_mb']:>11.1f}"
              f"{'' if target is None else f'{target:>10.2f}'}{flag}")
    ratios = [("scipy_bootstrap_1", "pf_bootstrap_1"), ("scipy_bootstrap_10", "pf_bootstrap_10"),
              ("scipy_permutation_1", "pf_signflip_1"), ("ranx_fisher_1", "pf_signflip_1"),
              ("pf_bootstrap_10", "pf_bootstrap_1"), ("pf_signflip_ci_1", "pf_signflip_1")]
    print("ratios (time of first / time of second):")
    for x, y in ratios:
        if x in results and y in results:
            print(f"  {x} / {y} = {results[x]['seconds'] / results[y]['seconds']:.2f}")


if __name__ == "__main__":
    main()
