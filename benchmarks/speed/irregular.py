"""Benchmark: run files that are valid for trec_eval but not "simple" (a comment line, extra trailing
columns, a duplicate pair, scattered queries) against the same run written simply.

Writes, in a temporary folder (default under /tmp, deleted at the end unless --keep), a run of
QUERIES x DOCS lines (the generator of ``--section interleaved``) and variants of it, then evaluates
each with nDCG@10, AP, R@100, RR@10 in its own subprocess (``pf.evaluate(path, qrels, ...)``) and
prints seconds, CPU seconds, peak RSS (``resource.getrusage`` of that process), the peak per MB of
run file, and what came out (per-query rows, or the error's class). A script, not a test:

    python benchmarks/speed --section irregular                  # 1,000 x 1,000 = 1 M lines (35 MB each)
    python benchmarks/speed --section irregular --quick          # 200 x 100, a smoke run
    python benchmarks/speed --section irregular --variants clean comment

Variants: ``clean``; ``comment`` (a ``# comment`` line first); ``extra-5`` (the first five lines with
a 7th junk column, as trec_eval's results.trunc has); ``extra-all`` (every line); ``blanks`` (every
line's fields separated by two spaces); ``duplicate`` (the last line repeated: a DuplicateError);
``shuffled`` (the lines in random order); ``bad-score`` (the last line's score is text: an
InputFormatError); ``not-utf8`` (a byte that is not UTF-8 in the last line: an InputFormatError from
reading the file whole, the one class of file that is still read so).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from _subprocess import EVALUATE, add_folder_options, data_folder, generated_data_parser, measure, timed_script
from interleaved import generate

WRAPPER = timed_script(f"""try:
    {EVALUATE}
    outcome = "values"
except pf.InputFormatError as exc:
    rows, outcome = 0, type(exc).__name__
result = {{"rows": rows, "outcome": outcome}}""", setup="import pairedframe as pf")


def _with_comment(lines: Iterator[bytes]) -> Iterator[bytes]:
    yield b"# a comment line\n"
    yield from lines


def _extra(count: int | None) -> Callable[[Iterator[bytes]], Iterator[bytes]]:
    def rewrite(lines: Iterator[bytes]) -> Iterator[bytes]:
        for i, line in enumerate(lines):
            yield line[:-1] + b" junk\n" if count is None or i < count else line
    return rewrite


def _blanks(lines: Iterator[bytes]) -> Iterator[bytes]:
    for line in lines:
        yield line.replace(b" ", b"  ")


def _last_line(change: Callable[[bytes], list[bytes]]) -> Callable[[Iterator[bytes]], Iterator[bytes]]:
    def rewrite(lines: Iterator[bytes]) -> Iterator[bytes]:
        last = None
        for line in lines:
            if last is not None:
                yield last
            last = line
        yield from change(last)
    return rewrite


def _bad_score(line: bytes) -> list[bytes]:
    fields = line.split()
    return [b" ".join([*fields[:4], b"high", fields[5]]) + b"\n"]


VARIANTS: dict[str, Callable[[Iterator[bytes]], Iterator[bytes]] | None] = {
    "clean": None,
    "comment": _with_comment,
    "extra-5": _extra(5),
    "extra-all": _extra(None),
    "blanks": _blanks,
    "duplicate": _last_line(lambda line: [line, line]),
    "shuffled": None,
    "bad-score": _last_line(_bad_score),
    "not-utf8": _last_line(lambda line: [line.replace(b" Q0 ", b" Q0\xff ")]),
}


def write_variant(grouped: Path, target: Path, rewrite: Callable[[Iterator[bytes]], Iterator[bytes]]) -> None:
    """``grouped``'s lines through ``rewrite``, line by line (bounded memory)."""
    with open(grouped, "rb") as src, open(target, "wb") as out:
        out.writelines(rewrite(iter(src)))


def main() -> None:
    parser = generated_data_parser(__doc__, queries=1000)
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    add_folder_options(parser, quick="200 x 100")
    args = parser.parse_args()
    if args.quick:
        args.queries, args.docs = 200, 100
    with data_folder("pf-irregular-", args.dir, args.keep) as folder:
        grouped, shuffled, qrels = generate(folder, args.queries, args.docs)
        size_mb = grouped.stat().st_size / 2**20
        print(f"data: {args.queries * args.docs:,} lines, {size_mb:.1f} MB per run file")
        print(f"{'variant':<12}{'seconds':>9}{'cpu s':>8}{'peak MB':>9}{'peak/file':>10}{'rows':>10}  outcome")
        for name in args.variants:
            path = {"clean": grouped, "shuffled": shuffled}.get(name, folder / f"run.{name}")
            if not path.exists():
                write_variant(grouped, path, VARIANTS[name])
            r = measure(WRAPPER, path, qrels)
            print(f"{name:<12}{r['seconds']:>9.1f}{r['cpu']:>8.1f}{r['peak_mb']:>9.0f}"
                  f"{r['peak_mb'] / (path.stat().st_size / 2**20):>10.1f}{r['rows']:>10}  {r['outcome']}")
        print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    os.environ.setdefault("POLARS_MAX_THREADS", "2")
    start = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - start:.0f} s")
