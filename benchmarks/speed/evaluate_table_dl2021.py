"""Benchmark: ``pairedframe evaluate -q -m all_trec`` on the 63 DL-2021 passage runs (336,000 per-query
rows), ``--format table`` against ``--format csv`` (target: the table within 1.5x of the CSV).

Usage::

    python benchmarks/speed --section evaluate_table_dl2021
    python benchmarks/speed --section evaluate_table_dl2021 --quick      # 6 runs, once (smoke run)

Each job runs in a fresh process with stdout to /dev/null (the rendering, not the terminal, is timed), in
rounds that run every job once, so that a change in the shared machine's load reaches both alike.
Prints the best wall time, the least CPU time (user + sys, all threads) and the largest peak RSS of
each, and the table's ratios to the CSV.  Before the table's body was written line by line
(``pairedframe.cli.text_table``), rich's Table took 96-200 s and 2.3 GB here.  Needs the shared data
(``--data``, default ``../shared/data``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _dl2021 import CLI, dl2021_files  # noqa: E402


def _run(cmd: list[str]) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MB) of one run of ``cmd``, stdout to /dev/null; its own rusage (wait4)."""
    start = time.perf_counter()
    with open(os.devnull, "w") as devnull:
        proc = subprocess.Popen(cmd, stdout=devnull, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd[3:8])} ... failed: {proc.stderr.read().decode()[-2000:]}")
    proc.stderr.close()
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    ap.add_argument("--quick", action="store_true", help="6 runs, once")
    ap.add_argument("--repeat", type=int, default=2, help="rounds")
    args = ap.parse_args()
    if args.quick:
        args.repeat = 1
    qrels, runs = dl2021_files(args.data, quick=args.quick)
    command = [*CLI, "evaluate", "-q", "-m", "all_trec", str(qrels), *map(str, runs)]
    jobs = {fmt: [*command, "--format", fmt] for fmt in ("table", "csv")}
    times: dict[str, list[tuple[float, float, float]]] = {fmt: [] for fmt in jobs}
    for _ in range(args.repeat):
        for fmt, cmd in jobs.items():
            times[fmt].append(_run(cmd))
    best = {fmt: (min(r[0] for r in rounds), min(r[1] for r in rounds), max(r[2] for r in rounds))
            for fmt, rounds in times.items()}
    with open("/proc/loadavg") as fh:
        load = fh.read().split()[0]
    print(f"{len(runs)} DL-2021 runs, evaluate -q -m all_trec, stdout to /dev/null; best of {args.repeat}; "
          f"2-core shared machine, load average {load}: wall times are noisy, CPU times less so\n")
    print("| --format | wall s | CPU s | peak RSS MB | × csv (wall) | × csv (CPU) |\n|---|---|---|---|---|---|")
    for fmt, (wall, cpu, rss) in best.items():
        print(f"| {fmt} | {wall:.2f} | {cpu:.2f} | {rss:.0f} | {wall / best['csv'][0]:.2f} | "
              f"{cpu / best['csv'][1]:.2f} |")
    ratio = best["table"][1] / best["csv"][1]
    print(f"\ntable / csv CPU time: {ratio:.2f} ({'within' if ratio <= 1.5 else 'OVER'} the 1.5x target)")


if __name__ == "__main__":
    main()
