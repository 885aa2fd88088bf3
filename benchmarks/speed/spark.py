"""Benchmark: beyond one machine -- Spark (local[2]) vs DuckDB, and the bootstrap by join vs numpy.

Three jobs, each tool in its own subprocess (peak RSS is its own), ratios printed in one run:

1. evaluate runs of ``benchmarks/speed --section evaluate`` (nDCG@10, AP, R@100, RR@10) of RUN_QUERIES and 10 x
   RUN_QUERIES queries x 1,000 docs with ``engine="spark"`` (the files read by Spark; start-up and a
   warm-up evaluation excluded), on ``local[2]`` and ``local[1]``, against Spark's own floor on the
   same file in the same session (read, split into columns, one ``row_number()`` window per query:
   what any Spark job on this data pays) and the DuckDB engine (the file streamed). Printed as
   ratios: evaluation / floor (target <= 2), 10 x the lines / 1 x (target <= 12), local[1] /
   local[2] (target >= 1.6), and Spark / DuckDB; best of ``--repeats``, the tools in turns;
2. ``compare`` of a per-query table of QUERIES queries x 10 systems (one measure, 9 comparisons
   with one baseline), bootstrap percentile CI + sign-flip test with N_RESAMPLES: the table in a
   DuckDB database (the bootstrap as a join there) vs the same table in polars (the numpy path);
3. ``compare`` of a Spark per-query table (SPARK_QUERIES queries x 2 systems, a Parquet file written
   once by Spark) with the defaults and with ``test="t"``, on ``local[2]``, against one Spark pass
   over the same file (join to the baseline, mean and sd of the deltas); above ``LARGE_N`` deltas
   the statistics come from per-comparison moments, so no resample index is shipped.

    python benchmarks/speed --section spark                              # 700 and 7,000 x 1,000; 1,000,000 x 10, B = 200
    python benchmarks/speed --section spark --quick                      # small sizes, a smoke run
    python benchmarks/speed --section spark --jobs evaluate --methods partitions sql   # also the SQL method
    python benchmarks/speed --section spark --jobs compare --n-resamples 1000
    python benchmarks/speed --section spark --jobs spark-compare --spark-queries 1000000

Spark needs ``pip install ".[spark]"`` and Java 17+; without them job 1 says so and is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _tee, shared with the other folder
from _tee import output_to  # noqa: E402
from evaluate import CACHE, generate  # noqa: E402  (the same cached run as benchmarks/speed --section evaluate)

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
ev = pf.evaluate(args["run"], args["qrels"], ["nDCG@10", "AP", "R@100", "RR@10"], engine="duckdb")
out["rows"] = ev.per_query.height
""",
    "evaluate-spark": """
import os
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # Python workers with this environment's packages
import pairedframe as pf
from pairedframe.engines.spark_engine import SparkEngine
from pyspark.sql import SparkSession, Window, functions as F
t = time.perf_counter()
spark = (SparkSession.builder.master(args["master"]).config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "4")
         .config("spark.driver.memory", "2g").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
spark.range(1).count()
MEASURES = ["nDCG@10", "AP", "R@100", "RR@10"]

def floor(run):
    # what any Spark job on this file pays: read, split into columns, one row_number() window per query
    parts = F.split(F.col("value"), " ")
    rows = spark.read.text(run).select(parts.getItem(0).alias("qid"), parts.getItem(2).alias("docno"),
                                       parts.getItem(4).cast("double").alias("score"))
    window = Window.partitionBy("qid").orderBy(F.col("score").desc(), F.col("docno").desc())
    rows.select(F.row_number().over(window).alias("rank")).agg(F.max("rank")).collect()

def evaluate(run, qrels, method):
    return pf.evaluate(run, qrels, MEASURES, engine=SparkEngine(spark, method=method)).per_query.height

def tree_cpu():
    # CPU seconds of this process and its descendants (the JVM, its Python workers), from /proc
    tick, parent, cpu = os.sysconf("SC_CLK_TCK"), {}, {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(pid)], cpu[int(pid)] = int(fields[1]), (int(fields[11]) + int(fields[12])) / tick
    tree, todo = set(), [os.getpid()]
    while todo:
        pid = todo.pop()
        tree.add(pid)
        todo += [child for child, up in parent.items() if up == pid and child not in tree]
    return sum(cpu.get(pid, 0.0) for pid in tree)

first = args["files"][0]
floor(first[0])                                  # warm-up: JIT, Python workers, imports
for method in args["methods"]:
    evaluate(first[0], first[1], method)
out = {"setup": time.perf_counter() - t, "times": {}, "cores": {}}
for run, qrels in args["files"]:
    best, cores = {}, {}
    for _ in range(args["repeats"]):
        for name in ["floor", *args["methods"]]:
            c, s = tree_cpu(), time.perf_counter()
            floor(run) if name == "floor" else evaluate(run, qrels, name)
            wall = time.perf_counter() - s
            if wall < best.get(name, float("inf")):
                best[name], cores[name] = wall, (tree_cpu() - c) / wall
    out["times"][run], out["cores"][run] = best, cores
""",
    "compare-spark": """
import os
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
import pairedframe as pf
from pyspark.sql import SparkSession, functions as F
t = time.perf_counter()
spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false").config("spark.sql.shuffle.partitions", "4")
         .config("spark.driver.memory", "2g").getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
path = args["path"]
if not os.path.exists(path):   # QUERIES x 2 systems, one measure, written once by Spark itself
    base = spark.range(args["queries"]).select(F.format_string("q%08d", "id").alias("qid"), F.rand(1).alias("v"))
    other = F.least(F.lit(1.0), F.greatest(F.lit(0.0), F.col("v") + F.lit(0.01) + 0.1 * F.randn(2)))
    (base.select(F.lit("s0").alias("system"), "qid", F.lit("nDCG@10").alias("measure"), F.col("v").alias("value"))
     .unionByName(base.select(F.lit("s1").alias("system"), "qid", F.lit("nDCG@10").alias("measure"),
                              other.alias("value"))).write.parquet(path))

def floor():
    # one pass any Spark job pays: pair each query with the baseline's, mean and sd of the deltas
    table = spark.read.parquet(path)
    a = table.filter("system = 's0'").select("qid", "measure", F.col("value").alias("a"))
    b = table.filter("system = 's1'").select("qid", "measure", F.col("value").alias("b"))
    delta = F.col("b") - F.col("a")
    return a.join(b, ["qid", "measure"]).agg(F.mean(delta), F.stddev(delta), F.count(F.lit(1))).first()

def compare(**options):
    return pf.compare(spark.read.parquet(path), baseline="s0", seed=0, **options)

floor()                       # warm-up: JIT, the file cached by the OS
out = {"setup": time.perf_counter() - t, "times": {}}
try:
    for name, work in (("floor", floor), ("defaults", compare), ("t", lambda: compare(test="t"))):
        s = time.perf_counter()
        res = work()
        out["times"][name] = time.perf_counter() - s
        if name != "floor":
            out[name] = {"method": res["method"].to_list() if "method" in res.columns else None,
                         "ci_low": res["ci_low"].to_list(), "pvalue": res["pvalue"].to_list()}
        else:
            out["floor_mean"], out["floor_n"] = res[0], res[2]
finally:
    spark.stop()
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


def _load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def evaluate_job(args: argparse.Namespace) -> None:
    """Job 1: every row a ratio from this one run."""
    sizes = [args.run_queries, 10 * args.run_queries]
    files = [generate(q, args.docs, CACHE) for q in sizes]
    print(f"1. evaluate {' and '.join(f'{q:,}' for q in sizes)} queries x {args.docs:,} docs "
          f"({', '.join(f'{r.stat().st_size / 1e6:.0f} MB' for r, _ in files)}), nDCG@10, AP, R@100, RR@10; "
          f"{_load()}")
    pairs = [[str(r), str(q)] for r, q in files]
    spark = {}
    for master in ("local[2]", "local[1]"):
        result = measure("evaluate-spark", {"master": master, "files": pairs, "repeats": args.repeats,
                                            "methods": args.methods})
        if result is None:
            print("  Spark unavailable (pip install '.[spark]' and Java 17+): skipped")
            return
        spark[master] = result
        print(f"  {master}: start-up and warm-up {result['setup']:.1f} s (excluded); {_load()}")
    duck = [measure("evaluate-duckdb", {"run": r, "qrels": q}) for r, q in pairs]
    two, one = spark["local[2]"]["times"], spark["local[1]"]["times"]
    print(f"{'file':<22}{'what':<24}{'local[2] s':>11}{'x floor':>9}{'local[1] s':>11}{'l1 / l2':>9}{'x duckdb':>10}")
    for (run, _), d in zip(pairs, duck):
        name = Path(run).stem.removeprefix("run_")
        for what in ["floor", *args.methods]:
            t2, t1 = two[run][what], one[run][what]
            vs_duck = f"{t2 / d['seconds']:>10.1f}" if d else f"{'-':>10}"
            print(f"{name:<22}{what:<24}{t2:>11.2f}{t2 / two[run]['floor']:>9.2f}{t1:>11.2f}{t1 / t2:>9.2f}{vs_duck}")
        if d:
            print(f"{name:<22}{'duckdb engine (streamed)':<24}{d['seconds']:>11.2f}")
    small, large = (p[0] for p in pairs)
    for what in ["floor", *args.methods]:
        print(f"10x the lines, {what}: {two[large][what] / two[small][what]:.2f}x the time on local[2] "
              f"({one[large][what] / one[small][what]:.2f}x on local[1])")
    cores = os.cpu_count() or 1
    for what in ["floor", *args.methods]:
        used = {m: spark[m]["cores"][large][what] for m in ("local[2]", "local[1]")}
        print(f"cores busy, {what}, {Path(large).stem.removeprefix('run_')} (CPU of the driver, the JVM and its Python "
              f"workers / wall): local[2] {used['local[2]']:.2f}, local[1] {used['local[1]']:.2f}; on {cores} cores "
              f"local[1] -> local[2] can gain at most {min(cores, 2) / used['local[1]']:.2f}x")
    print("targets: x floor <= 2; 10x the lines <= 12x the time; l1 / l2 >= 1.6 (start-up excluded)")


def spark_compare_job(args: argparse.Namespace) -> None:
    """Job 3: compare on a Spark per-query table against one pass of Spark over the same file."""
    path = CACHE / f"per_query_{args.spark_queries}x2.parquet"
    print(f"3. compare on Spark (local[2]): {args.spark_queries:,} queries x 2 systems (a Parquet file), "
          f"defaults and test='t', vs one Spark pass (join to the baseline, mean and sd); {_load()}")
    r = measure("compare-spark", {"queries": args.spark_queries, "path": str(path)})
    if r is None:
        print("  Spark unavailable (pip install '.[spark]' and Java 17+): skipped")
        return
    times = r["times"]
    print(f"  start-up and warm-up {r['setup']:.1f} s (excluded); peak RSS of the driver's Python "
          f"{r['peak_mb']:.0f} MB; {_load()}")
    print(f"{'what':<30}{'seconds':>9}{'x floor':>9}  method")
    for name, label in (("floor", "one pass (join, mean, sd)"), ("defaults", "pf.compare, defaults"),
                        ("t", "pf.compare, test='t'")):
        method = ", ".join(sorted(set(r[name]["method"]))) if name in r and r[name]["method"] else ""
        print(f"{label:<30}{times[name]:>9.1f}{times[name] / times['floor']:>9.1f}  {method}")
    print("targets (issue 22 item 2): the same order of cost as the floor; no B x n resample index")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--run-queries", type=int, default=700, help="queries of the smaller run (the larger has 10x)")
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=1_000_000, help="queries of the per-query table")
    parser.add_argument("--n-resamples", type=int, default=200)
    parser.add_argument("--jobs", nargs="*", default=["evaluate", "compare", "spark-compare"])
    parser.add_argument("--spark-queries", type=int, default=10_000_000,
                        help="spark-compare job: queries of the per-query table (x 2 systems, a Parquet file)")
    parser.add_argument("--methods", nargs="*", default=["partitions"], help="SparkEngine methods: partitions, sql")
    parser.add_argument("--repeats", type=int, default=2, help="evaluate job: best of this many, tools in turns")
    parser.add_argument("--output", type=Path, default=None, help="also write the printed tables to this file")
    parser.add_argument("--quick", action="store_true", help="200 x 100 run; 20,000-query table, B = 100")
    args = parser.parse_args()
    if args.quick:
        args.run_queries, args.docs, args.queries, args.n_resamples, args.repeats = 200, 100, 20_000, 100, 1
        args.spark_queries = 50_000
    with output_to(args.output):
        run_jobs(args)


def run_jobs(args: argparse.Namespace) -> None:
    """The chosen jobs' tables, printed."""
    if "evaluate" in args.jobs:
        evaluate_job(args)
    if "spark-compare" in args.jobs:
        spark_compare_job(args)
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
