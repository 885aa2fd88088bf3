"""What the DL-2021 CLI benchmarks share (``report_dl2021.py``, ``table_dl2021.py``): the 63 runs and their
qrels under ``--data``, and timing one CLI command as a whole process (wall and CPU seconds)."""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

#: The pairedframe CLI as a whole process, from the interpreter running the benchmark.
CLI = [sys.executable, "-c", "from pairedframe.cli import main; main()"]
#: The baseline run of every comparison: BM25.
BASELINE = "p_bm25"


def dl2021_files(data: str | Path, *, quick: bool) -> tuple[Path, list[Path]]:
    """(qrels, runs) of TREC DL-2021 passages under ``data``; ``quick``: the baseline and 5 other runs."""
    root = Path(data) / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    runs = sorted((root / "passages-runs").glob("*.gz"))
    qrels = root / "qrels-pass.txt"
    if not runs or not qrels.exists():
        raise SystemExit(f"DL-2021 runs not found under {root} (pass --data)")
    if quick:
        baseline = root / "passages-runs" / f"{BASELINE}.gz"
        runs = [baseline, *[r for r in runs if r != baseline][:5]]
    return qrels, runs


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds -- user + sys, all threads) of one run of a command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[3:6])} ... failed: {proc.stderr[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best_of(cmd: list[str], repeat: int) -> tuple[float, float]:
    """(best wall seconds, CPU seconds of that run) of ``repeat`` runs of a command."""
    return min((timed(cmd) for _ in range(repeat)), key=lambda wall_cpu: wall_cpu[0])
