"""Benchmark: the 7,000 x 1,000 run through ``pf_evaluate`` in the DuckDB shell (the macros of
``pairedframe sql``, ``SET memory_limit='1GB'``) against pairedframe's streamed engine
(``pf.evaluate`` on the file), in one run. Issue 25 asks for at most 3x the streamed engine.

The run is benchmarks/speed --section evaluate's (generated once under benchmarks/.cache: tied scores, graded
qrels). Each side runs in its own process, so peak RSS is its own. The two sides alternate
``--repeats`` times; each round's ratio is printed with the load average before it, then the ratios'
median and range (the machine may be shared: a round's two runs see about the same load), and the
fixed cost of a call (the shell loading the macros and building the query, no data read). A
script, not a test:

    python benchmarks/speed --section duckdb_sql              # 7,000 queries x 1,000 docs
    python benchmarks/speed --section duckdb_sql --quick      # 200 x 100
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from evaluate import CACHE, generate  # noqa: E402  (the same generated run and qrels)

MEASURES = ["nDCG@10", "AP", "R@100", "RR@10"]

STREAMED = """
import sys
import pairedframe as pf
ev = pf.evaluate(sys.argv[1], sys.argv[2], {measures!r})
print(ev.per_query.height)
"""


#: Runs a command and reports its own peak RSS (RUSAGE_CHILDREN of a fresh process: that child only).
PEAK = ("import resource, subprocess, sys\n"
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "sys.stdout.write(done.stdout)\nsys.stderr.write(done.stderr)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(done.returncode)")


def _timed(command: list[str]) -> tuple[float, float, str]:
    """(wall seconds, peak RSS MB of the command's process, stdout) of one command."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK, *command], capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed: {done.stderr.strip()[-2000:]}")
    return seconds, int(done.stderr.strip().splitlines()[-1]) / 1024, done.stdout


def shell_command(shell: str, script: Path, run: Path, qrels: Path, memory_limit: str) -> list[str]:
    query = (f"SELECT count(*) AS n FROM pf_evaluate('{run}', '{qrels}', {MEASURES!r})")
    return [shell, "-csv", "-noheader", "-c", f"SET memory_limit='{memory_limit}'", "-c", f".read {script}",
            "-c", query]


def bind_command(shell: str, script: Path, run: Path, qrels: Path) -> list[str]:
    """The shell loading the macros and building pf_evaluate's query text without running it: the
    fixed cost of a call (name parsing, constant folding), whatever the data."""
    options = f"'{run}', '{qrels}', {MEASURES!r}, false, 1, NULL, 'float64', NULL, false"
    return [shell, "-csv", "-noheader", "-c", f".read {script}",
            "-c", f"SELECT length(pf__eval_sql(pf__options({options}), 'per_query')) > 0"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=7000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory-limit", default="1GB")
    parser.add_argument("--quick", action="store_true", help="200 x 100, one repeat")
    args = parser.parse_args()
    if args.quick:
        args.queries, args.docs, args.repeats = 200, 100, 1
    shell = shutil.which("duckdb") or str(Path(sys.executable).parent / "duckdb")
    if not Path(shell).is_file():
        raise SystemExit("the DuckDB shell is not installed: pip install duckdb-cli")
    run, qrels = generate(args.queries, args.docs, CACHE)
    from pairedframe.sql_macros import script

    with tempfile.TemporaryDirectory() as tmp:
        macros = Path(tmp) / "pairedframe.sql"
        macros.write_text(script())
        version = subprocess.run([shell, "-version"], capture_output=True, text=True).stdout.strip()
        print(f"data: {args.queries} queries x {args.docs} docs ({run.stat().st_size / 1e6:.0f} MB run file); "
              f"measures {MEASURES}; DuckDB shell {version}, memory_limit {args.memory_limit}")
        commands = {
            "pf.evaluate (streamed)": [sys.executable, "-c", STREAMED.format(measures=MEASURES), str(run), str(qrels)],
            "pf_evaluate in the DuckDB shell": shell_command(shell, macros, run, qrels, args.memory_limit),
        }
        print("round  load (1 min)  streamed s  peak MB  shell s  peak MB  shell / streamed")
        rounds = []
        for i in range(args.repeats):
            load = os.getloadavg()[0]
            timed = {label: _timed(command) for label, command in commands.items()}
            (base, _, base_out), (sql, _, sql_out) = timed.values()
            if base_out.strip().splitlines()[-1] != sql_out.strip().splitlines()[-1]:
                raise SystemExit(f"row counts differ: streamed {base_out.strip()}, shell {sql_out.strip()}")
            rounds.append(timed)
            (_, base_peak, _), (_, sql_peak, _) = timed.values()
            print(f"{i + 1:>5}{load:>14.2f}{base:>12.2f}{base_peak:>9.0f}{sql:>9.2f}{sql_peak:>9.0f}{sql / base:>18.2f}")
        bind = sorted(_timed(bind_command(shell, macros, run, qrels))[0] for _ in range(args.repeats))
    print(f"the shell loading the macros and building the query (no data read): {statistics.median(bind):.2f} s "
          f"(median of {len(bind)}, range {bind[0]:.2f} to {bind[-1]:.2f})")
    ratios = sorted(t["pf_evaluate in the DuckDB shell"][0] / t["pf.evaluate (streamed)"][0] for t in rounds)
    median = statistics.median(ratios)
    print(f"rows per side: {base_out.strip().splitlines()[-1]}; load average now {os.getloadavg()[0]:.2f}")
    print(f"pf_evaluate in the DuckDB shell takes {median:.2f}x the streamed engine (median of {len(ratios)} rounds, "
          f"range {ratios[0]:.2f} to {ratios[-1]:.2f}; target <= 3x)")


if __name__ == "__main__":
    main()
