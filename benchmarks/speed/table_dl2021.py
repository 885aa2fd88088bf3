"""Benchmark: ``pairedframe table`` on the 63 DL-2021 passage runs vs ``--baseline p_bm25`` (issue 11: < 5 s).

Usage::

    python benchmarks/speed --section table_dl2021                  # 63 runs, nDCG@10, 10,000 resamples, best of 2
    python benchmarks/speed --section table_dl2021 --quick          # 6 runs, 1,000 resamples (smoke run)

Times the whole command in a fresh process (start-up, reading 63 gzipped runs, trec_eval-exact
evaluation, 62 paired comparisons, rendering), and, measured in the same run as peers:
``pairedframe evaluate`` of the same runs (the evaluation alone), pytrec_eval reading and evaluating
them, and ranx's ``compare`` report (its systems x measures table with significance letters;
Fisher randomization test, every pair) on runs already in memory.  Needs the shared data
(``--data``, default ``../shared/data``); pytrec_eval and ranx come with the ``oracles`` extra and
are skipped when absent.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _dl2021 import BASELINE, CLI, best_of, dl2021_files  # noqa: E402


def _read_trec(path: Path, kind: str) -> dict:
    out: dict = {}
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as fh:
        for line in fh:
            f = line.split()
            if kind == "run":
                out.setdefault(f[0], {})[f[2]] = float(f[4])
            else:
                out.setdefault(f[0], {})[f[2]] = int(f[3])
    return out


def _pytrec_eval(qrels: Path, runs: list[Path], repeat: int) -> float | None:
    try:
        import pytrec_eval
    except ImportError:
        return None
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        evaluator = pytrec_eval.RelevanceEvaluator(_read_trec(qrels, "qrels"), {"ndcg_cut.10"})
        for r in runs:
            evaluator.evaluate(_read_trec(r, "run"))
        best = min(best, time.perf_counter() - start)
    return best


def _ranx_compare(qrels: Path, runs: list[Path], n_permutations: int) -> float | None:
    try:
        from ranx import Qrels, Run, compare
    except ImportError:
        return None
    q = Qrels(_read_trec(qrels, "qrels"))
    rs = []
    for r in runs:
        run = Run(_read_trec(r, "run"))
        run.name = r.name.removesuffix(".gz")
        rs.append(run)
    compare(q, rs[:2], metrics=["ndcg@10"], stat_test="fisher", n_permutations=10, make_comparable=True)  # numba warm-up
    start = time.perf_counter()
    compare(q, rs, metrics=["ndcg@10"], stat_test="fisher", n_permutations=n_permutations, max_p=0.05,
            make_comparable=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    ap.add_argument("--quick", action="store_true", help="6 runs, 1,000 resamples")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--n-resamples", type=int, default=10_000)
    ap.add_argument("--no-ranx", action="store_true", help="skip ranx's compare (slow on 63 runs)")
    args = ap.parse_args()
    if args.quick:
        args.n_resamples, args.repeat = 1_000, 1
    qrels, runs = dl2021_files(args.data, quick=args.quick)
    files = [str(qrels), *map(str, runs)]
    table, table_cpu = best_of([*CLI, "table", *files, "-m", "nDCG@10", "--baseline", BASELINE,
                              "-B", str(args.n_resamples), "--format", "latex"], args.repeat)
    evaluate, evaluate_cpu = best_of([*CLI, "evaluate", *files, "-m", "nDCG@10"], args.repeat)
    start, _ = best_of([*CLI, "--help"], args.repeat)
    rows = [("pairedframe table (evaluate + compare + LaTeX)", table, table_cpu),
            ("pairedframe evaluate", evaluate, evaluate_cpu), ("pairedframe --help (start-up only)", start, float("nan"))]
    pytrec = _pytrec_eval(qrels, runs, args.repeat)
    if pytrec is not None:
        rows.append(("pytrec_eval (read + evaluate, in process)", pytrec, float("nan")))
    if not args.no_ranx:
        ranx = _ranx_compare(qrels, runs, args.n_resamples)
        if ranx is not None:
            rows.append((f"ranx compare, all pairs, fisher {args.n_resamples:,} (runs in memory)", ranx, float("nan")))
    with open("/proc/loadavg") as fh:
        load = fh.read().split()[0]
    print(f"{len(runs)} DL-2021 runs, nDCG@10, baseline p_bm25, {args.n_resamples:,} resamples; "
          f"best of {args.repeat}; 2-core shared machine, load average {load}: timings are noisy")
    print(f"{'job':<62} {'wall s':>8} {'cpu s':>8} {'x table':>8}")
    for name, seconds, cpu in rows:
        print(f"{name:<62} {seconds:8.2f} {cpu:8.2f} {seconds / table:8.2f}")
    verdict = "meets" if table < 5.0 else "MISSES"
    print(f"pairedframe table: {table:.2f} s, {verdict} the 5 s target")


if __name__ == "__main__":
    main()
