"""What the file benchmarks share: a timed script run in its own Python process (so that its peak
memory is its own), its result read as JSON from its last line, and the options and folder of the
generated files (``--section interleaved`` and ``--section irregular``)."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

#: A script timing ``body`` (after ``setup``, which is not timed) on ``RUN, QRELS = sys.argv[1:3]``; its
#: last line is JSON: seconds, CPU seconds, peak RSS in MB, then the dict ``result`` that ``body`` sets.
TIMED = """
import json, resource, sys, time
{setup}
RUN, QRELS = sys.argv[1], sys.argv[2]
t0, c0 = time.perf_counter(), time.process_time()
{body}
elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
print(json.dumps({{"seconds": elapsed, "cpu": cpu, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  **result}}))
"""

#: ``body`` of :data:`TIMED` for ``pf.evaluate`` with the four measures of the file benchmarks.
EVALUATE = 'rows = pf.evaluate(RUN, QRELS, ["nDCG@10", "AP", "R@100", "RR@10"]).per_query.height'


def timed_script(body: str, setup: str = "") -> str:
    """:data:`TIMED` around ``body``."""
    return TIMED.format(setup=setup, body=body)


def run_script(script: str, *args: str) -> tuple[dict | None, str, float]:
    """``python -c script *args``: its last stdout line read as JSON (None when the process failed), its
    stderr, and the whole process's wall seconds."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True)
    process = time.perf_counter() - start
    if proc.returncode != 0:
        return None, proc.stderr, process
    return json.loads(proc.stdout.strip().splitlines()[-1]), proc.stderr, process


def measure(script: str, run: Path, qrels: Path) -> dict:
    """:func:`run_script` on a run and qrels file; a failed process stops the benchmark, showing its stderr."""
    result, stderr, _ = run_script(script, str(run), str(qrels))
    if result is None:
        raise SystemExit(f"evaluation of {run} failed:\n{stderr}")
    return result


def generated_data_parser(description: str, queries: int) -> argparse.ArgumentParser:
    """The parser of a benchmark on generated files, with their size: ``--queries`` x ``--docs``."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=queries)
    parser.add_argument("--docs", type=int, default=1000)
    return parser


def add_folder_options(parser: argparse.ArgumentParser, quick: str) -> None:
    """``--dir``, ``--keep`` and ``--quick`` (help ``quick``)."""
    parser.add_argument("--dir", default=None, help="where the files go (default: a new folder in /tmp)")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--quick", action="store_true", help=quick)


@contextmanager
def data_folder(prefix: str, parent: str | None, keep: bool, existing: str | None = None) -> Iterator[Path]:
    """A new folder for the generated files (or ``existing``), deleted at the end unless ``keep``
    (then its path is printed)."""
    folder = Path(existing) if existing else Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    try:
        yield folder
    finally:
        if keep:
            print(f"files kept in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
