"""trec_eval parity counts: how many lines of trec_eval's own outputs ``pairedframe`` reproduces byte for byte.

Usage::

    PYTHONPATH=src python benchmarks/parity.py --output docs/results/parity.md
    PYTHONPATH=src python benchmarks/parity.py --engine polars

Two sets of expected outputs from ``../shared/data`` (``--data``; see its README):

* ``trec_eval/``: the twelve expected outputs of trec_eval's Makefile (``make quicktest``), run here with
  the same arguments through ``pairedframe evaluate --format trec``;
* ``trec_eval10_real/``: trec_eval 10.0's ``-q -m all_trec`` on 11 real run/option cases (DL-2019 with
  grades 0-3 and ``-l 2``, Robust03 with ``-c -M 50``, DL-2021), from ``commands.txt``.

Prints one row per output (lines, lines equal, first differing line) and the totals; the tests
(tests/test_against_trec_eval_suite.py) assert the same counts.
"""

from __future__ import annotations

import argparse
import gzip
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _tee import output_to  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
# trec_eval's Makefile tests (expected output, arguments, qrels, run): the list the tests assert on.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.test_against_trec_eval_suite import MAKEFILE, _cli_args  # noqa: E402


def _cli(args: list[str]) -> list[str]:
    from typer.testing import CliRunner

    from pairedframe.cli import app

    result = CliRunner().invoke(app, ["evaluate", "--format", "trec", *args])
    if result.exit_code != 0:
        raise SystemExit(f"pairedframe evaluate {shlex.join(args)} failed: {result.output[-1000:]}")
    return result.stdout.splitlines(keepends=True)


def _compare(got: list[str], want: list[str]) -> tuple[int, int, str]:
    equal = sum(a == b for a, b in zip(got, want))
    first = next((i + 1 for i, (a, b) in enumerate(zip(got, want)) if a != b), None)
    if first is None and len(got) != len(want):
        first = min(len(got), len(want)) + 1
    return len(want), equal, "—" if first is None else str(first)


def _real_case(data: Path, line: str, engine: str) -> tuple[str, str, list[str], list[str]]:
    import pairedframe as pf
    from pairedframe.io import read_run_tag, system_name_from_path

    name, command = line.split(":", 1)
    *options, qrels, run = shlex.split(command)[1:]
    measures, kwargs, i = [], {}, 0
    while i < len(options):
        w = options[i]
        if w in ("-m", "-l", "-M"):
            value = options[i + 1]
            if w == "-m":
                measures.append(value)
            else:
                kwargs["rel_level" if w == "-l" else "depth"] = int(value)
            i += 1
        elif w == "-c":
            kwargs["complete"] = True
        i += 1
    ev = pf.evaluate(data / run, data / qrels, measures, engine=engine, **kwargs)
    got = ev.to_trec(runids={system_name_from_path(data / run): read_run_tag(data / run)}).splitlines(keepends=True)
    with gzip.open(data / "trec_eval10_real" / f"{name}.all_trec.gz", "rt") as fh:
        want = fh.read().splitlines(keepends=True)
    return name, command.strip(), got, want


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--engine", choices=["duckdb", "polars"], default="duckdb")
    ap.add_argument("--output", type=Path, default=None, help="also write the tables to this file")
    args = ap.parse_args()
    with output_to(args.output):
        suite = args.data / "trec_eval"
        print(f"## trec_eval's own test suite (`make quicktest`; engine {args.engine})\n")
        print("| expected output | trec_eval arguments | lines | equal | first difference |\n|---|---|---|---|---|")
        totals = [0, 0]
        for expected, options, qrels, run in MAKEFILE:
            options = [str(suite / a) if a == "zscores_file" else a for a in options]   # -Z's file
            got = _cli(["--engine", args.engine, *_cli_args(options), str(suite / qrels), str(suite / run)])
            want = (suite / expected).read_text().splitlines(keepends=True)
            lines, equal, first = _compare(got, want)
            totals = [totals[0] + lines, totals[1] + equal]
            shown = f"`{shlex.join(a.replace(str(suite) + '/', '') for a in options)}`" if options else "(none)"
            print(f"| {expected} | {shown} | {lines:,} | {equal:,} | {first} |")
        print(f"| **all** | | **{totals[0]:,}** | **{totals[1]:,}** | |\n")
        print(f"## trec_eval 10.0 `-q -m all_trec` on real runs (engine {args.engine})\n")
        print("| case | trec_eval command | lines | equal | first difference |\n|---|---|---|---|---|")
        totals = [0, 0]
        for line in (args.data / "trec_eval10_real" / "commands.txt").read_text().splitlines():
            name, command, got, want = _real_case(args.data, line, args.engine)
            lines, equal, first = _compare(got, want)
            totals = [totals[0] + lines, totals[1] + equal]
            print(f"| {name} | `{command}` | {lines:,} | {equal:,} | {first} |")
        print(f"| **all** | | **{totals[0]:,}** | **{totals[1]:,}** | |")


if __name__ == "__main__":
    main()
