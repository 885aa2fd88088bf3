"""Benchmark: ``pairedframe report`` on the 63 DL-2021 passage runs vs ``--baseline p_bm25`` (issue 24:
one HTML file <= 5 MB in <= 10 s).

Usage::

    python benchmarks/report_dl2021.py --output docs/results/report_dl2021.md
    python benchmarks/report_dl2021.py --quick          # 6 runs, 1,000 resamples, once (smoke run)

Times, each in a fresh process and in the same run, best of ``--repeat``: the whole report (start-up,
reading 63 gzipped runs, evaluation of nDCG@10 and AP, 124 paired comparisons, 2 forest plots, 6 bar
charts, 2 per-query heatmaps, the HTML), ``pairedframe table`` with the same measures and resamples (the
same evaluation and comparison, rendered as LaTeX) and start-up alone; prints the report's size and the
load average before and after (the machine is shared: wall times depend on it, the ratio less so).
Needs the shared data (``--data``, default ``../shared/data``).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _tee import output_to  # noqa: E402

CLI = [sys.executable, "-c", "from pairedframe.cli import main; main()"]


def _best(cmd: list[str], repeat: int) -> tuple[float, float]:
    """(best wall seconds, CPU seconds -- user + sys, all threads -- of that run) of a command."""
    best, cpu = float("inf"), float("nan")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd[3:6])} ... failed: {proc.stderr[-2000:]}")
        if elapsed < best:
            best = elapsed
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return best, cpu


def _load() -> str:
    with open("/proc/loadavg") as fh:
        return fh.read().split()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    ap.add_argument("--quick", action="store_true", help="6 runs, 1,000 resamples, once")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--n-resamples", type=int, default=10_000)
    ap.add_argument("--output", type=Path, default=None, help="also write the table to this file")
    args = ap.parse_args()
    root = Path(args.data) / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    runs = sorted((root / "passages-runs").glob("*.gz"))
    qrels = root / "qrels-pass.txt"
    if not runs or not qrels.exists():
        raise SystemExit(f"DL-2021 runs not found under {root} (pass --data)")
    baseline = root / "passages-runs" / "p_bm25.gz"
    if args.quick:
        runs = [baseline, *[r for r in runs if r != baseline][:5]]
        args.n_resamples, args.repeat = 1_000, 1
    files = [str(qrels), *map(str, runs)]
    common = ["-m", "nDCG@10", "-m", "AP", "--baseline", "p_bm25", "-B", str(args.n_resamples)]
    with output_to(args.output), tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "report.html"
        load_before = _load()
        report, report_cpu = _best([*CLI, "report", *files, *common, "-o", str(out)], args.repeat)
        table, table_cpu = _best([*CLI, "table", *files, *common, "--format", "latex"], args.repeat)
        start, start_cpu = _best([*CLI, "--help"], args.repeat)
        size = out.stat().st_size
        print(f"{len(runs)} DL-2021 runs, nDCG@10 and AP, baseline p_bm25, {args.n_resamples:,} resamples; best of "
              f"{args.repeat}; 2-core shared machine, load average {load_before} before, {_load()} after: "
              "wall times are noisy\n")
        print("| job | wall s | CPU s | × table (wall) |\n|---|---|---|---|")
        for name, wall, cpu in (("pairedframe report (one HTML file)", report, report_cpu),
                                ("pairedframe table (same evaluation and comparison, LaTeX)", table, table_cpu),
                                ("pairedframe --help (start-up only)", start, start_cpu)):
            print(f"| {name} | {wall:.2f} | {cpu:.2f} | {wall / table:.2f} |")
        print(f"\nreport: {size / 1e6:.2f} MB ({'within' if size <= 5e6 else 'OVER'} 5 MB); "
              f"{report:.1f} s wall ({'within' if report <= 10 else 'over'} the 10 s target at this load), "
              f"{report_cpu:.1f} s CPU")


if __name__ == "__main__":
    main()
