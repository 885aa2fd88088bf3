"""Benchmark: ``pairedframe report`` on the 63 DL-2021 passage runs vs ``--baseline p_bm25`` (issue 24:
one HTML file <= 5 MB in <= 10 s).

Usage::

    python benchmarks/speed --section report_dl2021 --output docs/results/report_dl2021.md
    python benchmarks/speed --section report_dl2021 --quick          # 6 runs, 1,000 resamples, once (smoke run)

Times, each in a fresh process, in rounds that run every job once (so a change in the machine's load
reaches all of them alike): the whole report (start-up, reading 63 gzipped runs, evaluation of nDCG@10
and AP, 124 paired comparisons, 2 forest plots, 6 bar charts, 2 per-query heatmaps, the HTML);
``pairedframe evaluate`` of the same runs and measures -- the reference: the report cannot be faster
than the evaluation it starts with; ``pairedframe table`` with the same measures and resamples (the
same evaluation and comparison, rendered as LaTeX); and start-up alone.  Prints the best wall time of
each job with the spread over the rounds and its least CPU time (user + sys, all threads: the round
least disturbed by other processes), each against ``evaluate``, the report's size and the load
average before and after (the machine is shared: wall times depend on it, CPU times and the ratios
less so).  Needs the shared data (``--data``, default
``../shared/data``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _dl2021 import BASELINE, CLI, dl2021_files, timed  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _tee, shared with the other folder
from _tee import output_to  # noqa: E402

def _load() -> str:
    with open("/proc/loadavg") as fh:
        return fh.read().split()[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    ap.add_argument("--quick", action="store_true", help="6 runs, 1,000 resamples, once")
    ap.add_argument("--repeat", type=int, default=3, help="rounds")
    ap.add_argument("--n-resamples", type=int, default=10_000)
    ap.add_argument("--output", type=Path, default=None, help="also write the table to this file")
    args = ap.parse_args()
    if args.quick:
        args.n_resamples, args.repeat = 1_000, 1
    qrels, runs = dl2021_files(args.data, quick=args.quick)
    files = [str(qrels), *map(str, runs)]
    common = ["-m", "nDCG@10", "-m", "AP", "--baseline", BASELINE, "-B", str(args.n_resamples)]
    jobs = {"report": [*CLI, "report", *files, *common],
            "evaluate": [*CLI, "evaluate", *files, "-m", "nDCG@10", "-m", "AP"],
            "table": [*CLI, "table", *files, *common, "--format", "latex"],
            "--help": [*CLI, "--help"]}
    with output_to(args.output), tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "report.html"
        jobs["report"] += ["-o", str(out)]
        load_before = _load()
        times: dict[str, list[tuple[float, float]]] = {name: [] for name in jobs}
        for _ in range(args.repeat):
            for name, cmd in jobs.items():
                times[name].append(timed(cmd))
        # best wall time; least CPU time (the run least disturbed by the other processes)
        best = {name: (min(w for w, _ in rounds), min(c for _, c in rounds)) for name, rounds in times.items()}
        size = out.stat().st_size
        print(f"{len(runs)} DL-2021 runs, nDCG@10 and AP, baseline p_bm25, {args.n_resamples:,} resamples; "
              f"{args.repeat} round(s), best wall time (spread: slowest round), least CPU time; 2-core shared "
              f"machine, load average {load_before} before, {_load()} after: wall times are noisy, CPU times "
              "less so\n")
        print("| job | wall s | slowest s | CPU s | × evaluate (wall) | × evaluate (CPU) |\n"
              "|---|---|---|---|---|---|")
        ref_wall, ref_cpu = best["evaluate"]
        for name, label in (("report", "report (one HTML file)"), ("evaluate", "evaluate (the reference)"),
                            ("table", "table (evaluation and comparison, LaTeX)"), ("--help", "--help (start-up)")):
            wall, cpu = best[name]
            slowest = max(w for w, _ in times[name])
            print(f"| pairedframe {label} | {wall:.2f} | {slowest:.2f} | {cpu:.2f} | {wall / ref_wall:.2f} | "
                  f"{cpu / ref_cpu:.2f} |")
        report, report_cpu = best["report"]
        print(f"\nreport: {size / 1e6:.2f} MB ({'within' if size <= 5e6 else 'OVER'} 5 MB); "
              f"{report:.1f} s wall ({'within' if report <= 10 else 'over'} the 10 s target at this load), "
              f"{report_cpu:.1f} s CPU; beyond evaluate: {report - ref_wall:+.1f} s wall, "
              f"{report_cpu - ref_cpu:+.1f} s CPU")


if __name__ == "__main__":
    main()
