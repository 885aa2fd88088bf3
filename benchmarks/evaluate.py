"""Benchmark: file -> per-query nDCG@10, AP, R@100, RR@10; pairedframe vs pytrec_eval vs ranx; and
pairedframe's ``-m all_trec`` (every trec_eval 10 measure, 98 values per query) against its own
four-measure time.

Generates once (cached under benchmarks/.cache) a run of N_QUERIES x DOCS documents with tied scores
and graded qrels, then times each tool end to end in its own subprocess (so peak memory is its own)
and prints seconds, peak RSS and the ratio to pairedframe. A script, not a test:

    python benchmarks/evaluate.py                 # 7,000 queries x 1,000 docs
    python benchmarks/evaluate.py --quick         # 200 x 100, a smoke run
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

CACHE = Path(__file__).parent / ".cache"


def generate(n_queries: int, docs: int, folder: Path) -> tuple[Path, Path]:
    run_path = folder / f"run_{n_queries}x{docs}.txt"
    qrels_path = folder / f"qrels_{n_queries}x{docs}.txt"
    if run_path.exists() and qrels_path.exists():
        return run_path, qrels_path
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    with open(run_path, "w") as run, open(qrels_path, "w") as qrels:
        for q in range(n_queries):
            qid = f"{q:05d}"
            doc_ids = rng.choice(20 * docs, size=docs, replace=False)
            scores = np.round(rng.normal(size=docs), 2)  # 2 decimals: many ties
            order = np.argsort(-scores, kind="stable")
            run.write("".join(f"{qid} Q0 d{doc_ids[i]} {r} {scores[i]:.2f} bench\n"
                              for r, i in enumerate(order, start=1)))
            judged = rng.choice(20 * docs, size=60, replace=False)
            grades = rng.choice([0, 0, 0, 1, 2, 3], size=60)
            # Make some retrieved documents judged so that measures are not all zero.
            judged[:30] = doc_ids[rng.choice(docs, size=30, replace=False)]
            judged = np.unique(judged)
            qrels.write("".join(f"{qid} 0 d{d} {g}\n" for d, g in zip(judged, grades)))
    return run_path, qrels_path


TOOLS = {
    "pairedframe": """
import pairedframe as pf
ev = pf.evaluate(RUN, QRELS, ["nDCG@10", "AP", "R@100", "RR@10"])
n = ev.per_query.height
""",
    "pairedframe-polars": """
import pairedframe as pf
ev = pf.evaluate(RUN, QRELS, ["nDCG@10", "AP", "R@100", "RR@10"], engine="polars")
n = ev.per_query.height
""",
    "pairedframe-all_trec": """
import pairedframe as pf
ev = pf.evaluate(RUN, QRELS, "all_trec")
n = ev.per_query.height
""",
    "pairedframe-polars-all_trec": """
import pairedframe as pf
ev = pf.evaluate(RUN, QRELS, "all_trec", engine="polars")
n = ev.per_query.height
""",
    "pytrec_eval": """
import pytrec_eval
run, qrels = {}, {}
with open(RUN) as f:
    for line in f:
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)
with open(QRELS) as f:
    for line in f:
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
ev = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recall.100", "recip_rank"})
res = ev.evaluate(run)
n = sum(len(v) for v in res.values())
""",
    "ranx": """
from ranx import Qrels, Run, evaluate
run = Run.from_file(RUN, kind="trec")
qrels = Qrels.from_file(QRELS, kind="trec")
res = evaluate(qrels, run, ["ndcg@10", "map", "recall@100", "mrr@10"], return_mean=False)
n = sum(len(v) for v in res.values())
""",
}

WRAPPER = """
import json, resource, sys, time
RUN, QRELS = sys.argv[1], sys.argv[2]
t0, c0 = time.perf_counter(), time.process_time()
{body}
elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"seconds": elapsed, "cpu": cpu, "peak_mb": peak, "rows": n}}))
"""


def measure(tool: str, run: Path, qrels: Path, repeats: int) -> dict | None:
    best = None
    for _ in range(repeats):
        proc = subprocess.run([sys.executable, "-c", WRAPPER.format(body=TOOLS[tool]), str(run), str(qrels)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"  {tool}: failed: {proc.stderr.strip().splitlines()[-1] if proc.stderr else '?'}")
            return None
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="200 x 100, one repeat")
    parser.add_argument("--tools", nargs="*", default=list(TOOLS))
    args = parser.parse_args()
    if args.quick:
        args.queries, args.docs, args.repeats = 200, 100, 1
    t = time.perf_counter()
    run, qrels = generate(args.queries, args.docs, CACHE)
    print(f"data: {args.queries} queries x {args.docs} docs ({run.stat().st_size / 1e6:.0f} MB run file), "
          f"ready in {time.perf_counter() - t:.1f}s")
    results = {tool: measure(tool, run, qrels, args.repeats) for tool in args.tools}
    ours = results.get("pairedframe")
    peers = [r["seconds"] for name, r in results.items() if r and not name.startswith("pairedframe")]
    print(f"{'tool':<28}{'seconds':>10}{'cpu s':>10}{'peak MB':>10}{'rows':>10}{'x pairedframe':>15}")
    for tool, r in results.items():
        if r:
            ratio = r["seconds"] / ours["seconds"] if ours else float("nan")
            print(f"{tool:<28}{r['seconds']:>10.2f}{r['cpu']:>10.2f}{r['peak_mb']:>10.0f}{r['rows']:>10}{ratio:>15.2f}")
    if ours and peers:
        print(f"pairedframe is {min(peers) / ours['seconds']:.2f}x faster than the fastest peer "
              f"(target >= 4x, peak {ours['peak_mb']:.0f} MB, target < 400 MB)")
    for engine in ("pairedframe", "pairedframe-polars"):
        four, every = results.get(engine), results.get(f"{engine}-all_trec")
        if four and every:
            # CPU seconds (all threads) are steadier than wall time when other work shares the machine.
            print(f"{engine}: all_trec costs {every['seconds'] / four['seconds']:.2f}x the four measures in wall time, "
                  f"{every['cpu'] / four['cpu']:.2f}x in CPU time (target <= 2x)")


if __name__ == "__main__":
    main()
