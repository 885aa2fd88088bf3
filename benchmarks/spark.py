"""Benchmark: beyond one machine -- Spark (local[2]) vs DuckDB, and the bootstrap by join vs numpy.

Two jobs, each tool in its own subprocess (peak RSS is its own), ratios printed in one run:

1. evaluate the 7,000-query x 1,000-doc run of ``benchmarks/evaluate.py`` (nDCG@10, AP, R@100,
   RR@10): ``engine="spark"`` on ``local[2]`` (the file read by Spark; start-up timed apart) vs the
   default DuckDB engine (the file streamed);
2. ``compare`` of a per-query table of QUERIES queries x 10 systems (one measure, 9 comparisons
   with one baseline), bootstrap percentile CI + sign-flip test with N_RESAMPLES: the table in a
   DuckDB database (the bootstrap as a join there) vs the same table in polars (the numpy path).

    python benchmarks/spark.py                              # 7,000 x 1,000; 1,000,000 x 10, B = 200
    python benchmarks/spark.py --quick                      # small sizes, a smoke run
    python benchmarks/spark.py --jobs compare --n-resamples 1000

Spark needs ``pip install ".[spark]"`` and Java 17+; without them job 1 says so and is skipped.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from evaluate import CACHE, generate  # noqa: E402  (the same cached run as benchmarks/evaluate.py)

WRAPPER = """
import json, resource, sys, time
args = json.loads(sys.argv[1])
t0 = time.perf_counter()
{body}
out["seconds"] = time.perf_counter() - t0 - out.get("setup", 0.0)
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""

# QUERIES x 10 systems, one measure; the data set-up is timed apart ("setup")
PER_QUERY_TABLE = """
import numpy as np, polars as pl, pairedframe as pf
t = time.perf_counter()
rng = np.random.default_rng(1)
n, k = args["queries"], 10
qids = [f"q{i:07d}" for i in range(n)]
base = rng.uniform(size=n)
pq = pl.concat([pl.DataFrame({"system": f"s{j}", "qid": qids, "measure": "nDCG@10",
                              "value": np.clip(base + rng.normal(0.01 * j, 0.1, size=n), 0, 1)}) for j in range(k)])
"""

JOBS = {
    "evaluate-duckdb": """
import pairedframe as pf
out = {}
ev = pf.evaluate(args["run"], args["qrels"], ["nDCG@10", "AP", "R@100", "RR@10"])
out["rows"] = ev.per_query.height
""",
    "evaluate-spark": """
import pairedframe as pf
from pairedframe.engines.spark_engine import SparkEngine
from pyspark.sql import SparkSession
t = time.perf_counter()
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "4")
         .config("spark.driver.memory", "2g").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
spark.range(1).count()
out = {"setup": time.perf_counter() - t}
ev = pf.evaluate(args["run"], args["qrels"], ["nDCG@10", "AP", "R@100", "RR@10"], engine=SparkEngine(spark))
out["rows"] = ev.per_query.height
""",
    "compare-numpy": PER_QUERY_TABLE + """
out = {"setup": time.perf_counter() - t}
res = pf.compare(pq, baseline="s0", n_resamples=args["B"], seed=0)
out["rows"] = res.height
out["ci_low"] = res["ci_low"].to_list()
out["pvalue"] = res["pvalue"].to_list()
""",
    "compare-duckdb-join": PER_QUERY_TABLE + """
import duckdb
con = duckdb.connect()
con.sql("SET enable_progress_bar = false")
con.sql("CREATE TABLE per_query AS SELECT * FROM pq")
del pq, qids, base
out = {"setup": time.perf_counter() - t}
res = pf.compare(con.table("per_query"), baseline="s0", n_resamples=args["B"], seed=0)
out["rows"] = res.height
out["ci_low"] = res["ci_low"].to_list()
out["pvalue"] = res["pvalue"].to_list()
""",
}


def measure(job: str, args: dict) -> dict | None:
    proc = subprocess.run([sys.executable, "-c", WRAPPER.format(body=JOBS[job]), json.dumps(args)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        last = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "?"
        print(f"  {job}: failed: {last}")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run-queries", type=int, default=7000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=1_000_000, help="queries of the per-query table")
    parser.add_argument("--n-resamples", type=int, default=200)
    parser.add_argument("--jobs", nargs="*", default=["evaluate", "compare"])
    parser.add_argument("--quick", action="store_true", help="200 x 100 run; 20,000-query table, B = 100")
    args = parser.parse_args()
    if args.quick:
        args.run_queries, args.docs, args.queries, args.n_resamples = 200, 100, 20_000, 100
    if "evaluate" in args.jobs:
        run, qrels = generate(args.run_queries, args.docs, CACHE)
        print(f"1. evaluate {args.run_queries} queries x {args.docs} docs ({run.stat().st_size / 1e6:.0f} MB), "
              "nDCG@10, AP, R@100, RR@10")
        duck = measure("evaluate-duckdb", {"run": str(run), "qrels": str(qrels)})
        spark = measure("evaluate-spark", {"run": str(run), "qrels": str(qrels)})
        print(f"{'engine':<28}{'seconds':>10}{'peak MB':>10}{'rows':>10}{'x duckdb':>10}")
        for name, r in (("duckdb (streamed file)", duck), ("spark local[2] (file read by Spark)", spark)):
            if r:
                ratio = r["seconds"] / duck["seconds"] if duck else float("nan")
                print(f"{name:<28}{r['seconds']:>10.1f}{r['peak_mb']:>10.0f}{r['rows']:>10}{ratio:>10.1f}")
        if spark:
            print(f"  Spark start-up (not included above): {spark['setup']:.1f} s; the JVM's memory is not in "
                  "the peak (driver process only)")
    if "compare" in args.jobs:
        job = {"queries": args.queries, "B": args.n_resamples}
        print(f"2. compare: {args.queries:,} queries x 10 systems (9 comparisons), bootstrap CI + sign-flip, "
              f"B = {args.n_resamples}")
        numpy_path = measure("compare-numpy", job)
        join = measure("compare-duckdb-join", job)
        print(f"{'path':<28}{'seconds':>10}{'peak MB':>10}{'x numpy':>10}")
        for name, r in (("numpy (polars table)", numpy_path), ("join (DuckDB table)", join)):
            if r:
                ratio = r["seconds"] / numpy_path["seconds"] if numpy_path else float("nan")
                print(f"{name:<28}{r['seconds']:>10.1f}{r['peak_mb']:>10.0f}{ratio:>10.1f}")
        if numpy_path and join:
            worst = max(abs(a - b) for a, b in zip(numpy_path["ci_low"], join["ci_low"]))
            same_p = numpy_path["pvalue"] == join["pvalue"]
            print(f"  same results: max |ci_low difference| = {worst:.1e}, p-values identical: {same_p}")


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"(total {time.perf_counter() - t0:.0f} s)")
