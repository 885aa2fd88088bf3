"""trec_eval's own text output (``trec_eval -q``; ``pairedframe evaluate -q -f trec``) read as a per-query table.

Each line is ``measure<blanks>TAB qid TAB value``. The per-query lines come first; the summary lines
(qid ``all``) close each run's block, so a query that is itself named ``all`` is told apart by its
place: only the trailing ``all`` lines of a block are its summary. ``pairedframe evaluate`` writes a
``# run: NAME`` line before each run's block when it prints several runs; without one the file is
one run, named after the file. Text values (``runid``, ``relstring``) name no number and are left
out. Measure names stay trec_eval's (``map``, ``ndcg_cut_10``), which every door of pairedframe parses.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import TextIO

import polars as pl

from pairedframe.errors import InputFormatError
from pairedframe.io.trec import _open_bytes

__all__ = ["is_trec_eval_output", "read_trec_eval_output"]

#: One line of trec_eval's output: the name (padded with blanks), a tab, the query, a tab, the value.
_LINE = re.compile(r"(\S+) *\t(\S+)\t(\S*)")
#: Measures whose value is text, never a number (trec_eval prints them in the same layout).
_TEXT_MEASURES = re.compile(r"runid|relstring(_\S+)?")
#: A value trec_eval's printf can write: unlike grades.NUMBER (a grade for atol) also inf and nan.
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|[-+]?(inf|nan)", re.IGNORECASE)
_RUN_LINE = re.compile(r"# run: (.+)")


def _open_text(path: Path) -> TextIO:
    """The file as UTF-8 text, decompressed (gzip or zstd, told by its magic number) as every TREC reader does."""
    return io.TextIOWrapper(_open_bytes(str(path)), encoding="utf-8", newline="")


def is_trec_eval_output(path: Path) -> bool:
    """Whether the first line that is neither blank nor ``# run:`` is a trec_eval output line whose
    value is a number or whose measure is ``runid`` (a three-column TSV with a header is not)."""
    try:
        with _open_text(path) as fh:
            for line in fh:
                line = line.rstrip("\r\n")
                if line.strip() and not _RUN_LINE.fullmatch(line):
                    found = _LINE.fullmatch(line)
                    return bool(found) and (found[1] == "runid" or bool(_NUMBER.fullmatch(found[3])))
    except (OSError, UnicodeDecodeError, EOFError):
        return False
    return False


def read_trec_eval_output(path: Path, system: str) -> pl.DataFrame:
    """``system, qid, measure, value, summary`` (one row per line with a number; ``summary`` true on
    each block's trailing ``all`` lines), ``system`` from ``# run:`` lines, else ``system``.

    Raises
    ------
    InputFormatError
        A line that is not ``measure TAB qid TAB value``, or a number-valued measure whose value is
        not a number (the message names the file and the line).
    """
    rows: list[tuple[str, str, str, float, int]] = []      # system, qid, measure, value, block
    name, block = system, 0
    with _open_text(path) as fh:
        lines = fh.read().splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        run = _RUN_LINE.fullmatch(line)
        if run:
            name, block = run[1].strip(), block + 1
            continue
        found = _LINE.fullmatch(line)
        if found is None:
            raise InputFormatError("not a trec_eval output line (measure TAB qid TAB value)", path=str(path),
                                   line=number, text=line, argument="results")
        measure, qid, value = found.groups()
        if _TEXT_MEASURES.fullmatch(measure):
            continue
        if not _NUMBER.fullmatch(value):
            raise InputFormatError(f"the value of {measure} is not a number", path=str(path), line=number,
                                   column=3, text=line, argument="results")
        rows.append((name, qid, measure, float(value), block))
    frame = pl.DataFrame(rows, schema={"system": pl.String, "qid": pl.String, "measure": pl.String,
                                       "value": pl.Float64, "block": pl.Int64}, orient="row")
    # the summary: the rows of a block after its last row of another query
    last_query = pl.when(pl.col("qid") != "all").then(pl.int_range(pl.len())).max().over("block")
    return (frame.with_columns((pl.int_range(pl.len()).over("block") > last_query.fill_null(-1)).alias("summary"))
            .drop("block"))
