"""trec_eval's own text output (``trec_eval -q``; ``pairedframe evaluate -q -f trec``) read as a per-query table.

Each line is ``measure<blanks>TAB qid TAB value``. The per-query lines come first; the summary lines
(qid ``all``) close each run's block, so a query that is itself named ``all`` is told apart by its
place: only the trailing ``all`` lines of a block are its summary, save those whose measure comes again
later in the block (before any ``num_q`` line): a query ``all`` sorted last, as trec_eval sorts it after
numeric ids, whose every measure the summary prints again. ``pairedframe evaluate`` writes a
``# run: NAME`` line before each run's block when it prints several runs; without one the file is
one run, named after the file. Several trec_eval outputs concatenated (``cat a.q b.q``) show as
per-query lines after a run's summary (``all``) lines that hold its ``runid`` line, or as a (measure,
query) that comes again: each run then starts there, named by its ``runid`` line when every run has a
distinct one, and is otherwise refused naming the line (within a ``# run:`` block a repeat is refused
too). Without runid lines, runs of different queries cannot be told from one run with a query named
``all``, and are read as one. Text values (``runid``, ``relstring``) name no number and are left out. Measure names stay
trec_eval's (``map``, ``ndcg_cut_10``), which every door of pairedframe parses.
"""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path
from typing import TextIO

import polars as pl

from pairedframe.errors import InputFormatError, user_stacklevel
from pairedframe.io.trec import _open_bytes

__all__ = ["SUMMARY_TOLERANCE", "summary_value", "is_trec_eval_output", "read_trec_eval_output"]

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
    each block's trailing ``all`` lines but a query ``all``'s), ``system`` from ``# run:`` lines, else
    ``system`` (several concatenated runs: each one's ``runid``).

    Raises
    ------
    InputFormatError
        A line that is not ``measure TAB qid TAB value``, a number-valued measure whose value is not a
        number, or a (measure, query) that comes again where no distinct ``runid`` lines name the runs
        (the message names the file and the line).
    """
    with _open_text(path) as fh:
        lines = fh.read().splitlines()
    reading = _Blocks(path, system)
    for number, line in enumerate(lines, start=1):
        if line.strip():
            reading.add(number, line)
    frame = pl.DataFrame(reading.rows, schema={"system": pl.String, "qid": pl.String, "measure": pl.String,
                                               "value": pl.Float64, "block": pl.Int64}, orient="row")
    frame = reading.name_concatenated_runs(frame)
    frame = frame.with_columns(pl.int_range(pl.len()).over("block").alias("row")).with_columns(_summary())
    _warn_summary_of_nothing(frame, path)
    return frame.drop("block", "row")


#: How far a summary row's value may lie from the mean (or sum) of its group's other values and still be read as
#: trec_eval's summary when every value of the group has at most 4 decimals (as trec_eval prints them: the mean of
#: printed values and the printed mean differ by <= 1e-4); otherwise 1e-9 (relative), float noise only.
SUMMARY_TOLERANCE = 1.0001e-4


def summary_value(value: pl.Expr, n_other: pl.Expr, mean_other: pl.Expr, sum_other: pl.Expr,
                  off4: pl.Expr, aggregate: pl.Expr | None = None) -> pl.Expr:
    """Whether an ``all`` row's ``value`` reads as trec_eval's summary of its group's ``n_other`` other values
    (a table's rows, :func:`pairedframe.io.results.unflagged_summary_rows`; a run's trailing rows here): none,
    or their mean or sum (as ``aggregate`` says: ``"mean"``, ``"sum"``; another aggregate, only none; None:
    either) within :data:`SUMMARY_TOLERANCE` when the group's values have 4 decimals at most (``off4``: the
    largest distance of a value times 10^4 from a whole number), else within float noise (1e-9 relative)."""
    printed = off4 <= 1e-6

    def near(aggregate: pl.Expr) -> pl.Expr:
        noise = 1e-9 * pl.max_horizontal(pl.lit(1.0), value.abs(), aggregate.abs())
        return (value - aggregate).abs() <= pl.when(printed).then(SUMMARY_TOLERANCE).otherwise(noise)
    if aggregate is None:
        return ((n_other == 0) | near(mean_other) | near(sum_other)).fill_null(False)
    return ((n_other == 0) | ((aggregate == "mean") & near(mean_other))
            | ((aggregate == "sum") & near(sum_other))).fill_null(False)


def _summary() -> pl.Expr:
    """True on each block's summary rows: its trailing ``all`` rows (after its last row of another query)
    save those of a query named ``all``, which trec_eval sorts after numeric ids, so right before the
    summary. Every measure it prints for a query comes again in the summary, which trec_eval ends with,
    so a trailing ``all`` row whose measure comes again later in the block is the query's -- when the block
    has other queries on that measure and the row is not their mean (the sum for ``num_*`` counts) to the
    printed decimals (:func:`summary_value`; a summary printed twice: a run's ``-q`` output and its summary
    output joined, or two summary-only outputs joined with ``cat``) -- and never from the summary-only
    ``num_q`` on."""
    row = pl.col("row")                                              # the row's place in its block
    query = pl.col("qid") != "all"
    last_query = pl.when(query).then(row).max().over("block").fill_null(-1)
    comes_again = row < row.max().over("block", "measure")
    first_num_q = pl.when(pl.col("measure") == "num_q").then(row).min().over("block")
    before_num_q = first_num_q.is_null() | (row < first_num_q)
    query_all = comes_again & before_num_q & ~_printed_summary(query)
    return ((row > last_query) & ~query_all).alias("summary")


def _printed_summary(query: pl.Expr) -> pl.Expr:
    """Whether a row is the mean (the sum for ``num_*`` counts) of its block's rows of a ``query`` on its measure,
    to the 4 decimals trec_eval prints (:func:`summary_value`; true where there is no such row)."""
    value = pl.col("value")
    others = pl.when(query).then(value)
    # trec_eval sums its counts (num_ret, num_rel, num_rel_ret, ...) and averages the rest; printed: off4 = 0
    aggregate = pl.when(pl.col("measure").str.starts_with("num_")).then(pl.lit("sum")).otherwise(pl.lit("mean"))
    return summary_value(value, others.count().over("block", "measure"), others.mean().over("block", "measure"),
                         others.sum().over("block", "measure"), pl.lit(0.0), aggregate)


def _warn_summary_of_nothing(frame: pl.DataFrame, path: Path) -> None:
    """Warn, once, about the runs whose trailing ``all`` rows, read as their summary (left out by comparisons),
    summarise none of their other queries: none is their mean or sum (geometric means, gm_*, aside), as the rows
    of a query named ``all`` sorted last in output without a summary (``-n``) read."""
    query = ~pl.col("summary")                                            # a query 'all' kept as one counts
    others = pl.when(query).then(pl.col("value")).count().over("block", "measure")
    telling = pl.col("summary") & (others > 0) & ~pl.col("measure").str.starts_with("gm_")
    runs = (frame.with_columns(telling.alias("_telling"), _printed_summary(query).alias("_printed"))
            .filter("_telling").group_by("block", maintain_order=True)
            .agg(pl.col("system").first(), pl.len().alias("n"), pl.col("_printed").any().alias("printed"))
            .filter(~pl.col("printed")))
    if runs.height:
        system, n = runs.select("system", "n").row(0)
        more = f" (and {runs.height - 1} other run(s) alike)" if runs.height > 1 else ""
        warnings.warn(f"{path}: run {system!r}{more} ends with {n} row(s) with qid 'all' read as trec_eval's summary "
                      "(left out of comparisons), though none is the mean (the sum, for num_* counts) of the run's "
                      "other queries on its measure: a query named 'all' in output written without a summary "
                      "(trec_eval or `pairedframe evaluate` -n) is lost so; to keep it, write the per-query values "
                      "with `pairedframe evaluate -q -f csv|json` (they flag the summary) or rename the query (a "
                      "summary over queries the run lacks, trec_eval -c, is no mean of its queries either)",
                      UserWarning, stacklevel=user_stacklevel())


class _Blocks:
    """The rows of a trec_eval output file, block by block: a ``# run:`` line opens a named block; a
    (measure, query) met again in an unnamed block opens the next unnamed one (outputs concatenated)."""

    def __init__(self, path: Path, system: str) -> None:
        self.path, self.name, self.block, self.named = path, system, 0, False
        self.rows: list[tuple[str, str, str, float, int]] = []      # system, qid, measure, value, block
        self.seen: dict[tuple[str, str], int] = {}                    # (measure, qid) -> its line in this block
        self.runids: dict[int, str] = {}                              # unnamed block -> its runid line's value
        self.restarts: list[tuple[int, str]] = []                     # (line, why a run starts there)
        self.named_blocks: set[int] = set()
        self.summary_line: int | None = None                          # the block's last 'all' line, after a query's
        self.runid_closes = False                                     # a runid line among the block's summary lines

    def add(self, number: int, line: str) -> None:
        run = _RUN_LINE.fullmatch(line)
        if run:
            self.name, self.block, self.named, self.seen = run[1].strip(), self.block + 1, True, {}
            self.summary_line = None
            self.named_blocks.add(self.block)
            return
        found = _LINE.fullmatch(line)
        if found is None:
            raise InputFormatError("not a trec_eval output line (measure TAB qid TAB value)", path=str(self.path),
                                   line=number, text=line, argument="results")
        measure, qid, value = found.groups()
        if qid != "all":  # the summary's lines, and a query named all, may share a measure
            self._check_new(number, line, measure, qid)
        elif self.seen:       # an 'all' line after the block's queries: its summary
            self.summary_line = number
        if _TEXT_MEASURES.fullmatch(measure):
            if measure == "runid" and not self.named:
                self.runids.setdefault(self.block, value)
                self.runid_closes = bool(self.seen)   # in the summary after the run's queries, as trec_eval prints it
            return
        if not _NUMBER.fullmatch(value):
            raise InputFormatError(f"the value of {measure} is not a number", path=str(self.path), line=number,
                                   column=3, text=line, argument="results")
        self.rows.append((self.name, qid, measure, float(value), self.block))

    def _check_new(self, number: int, line: str, measure: str, qid: str) -> None:
        first = self.seen.get((measure, qid))
        if first is not None and self.named:
            raise InputFormatError(f"{measure} for query {qid} comes again (first on line {first}) in run "
                                   f"{self.name!r}", path=str(self.path), line=number, text=line, argument="results")
        # a summary holding the run's runid line ends the run (a query named all has no runid line)
        ended = self.summary_line is not None and self.runid_closes
        if not self.named and (first is not None or ended):
            why = (f"{measure} for query {qid} comes again (first on line {first})" if first is not None else
                   f"query {qid} follows the summary ('all') lines ending on line {self.summary_line}")
            self.restarts.append((number, why))
            self.block, self.seen, self.runid_closes = self.block + 1, {}, False
        self.summary_line = None
        self.seen[(measure, qid)] = number

    def name_concatenated_runs(self, frame: pl.DataFrame) -> pl.DataFrame:
        """Each unnamed block of several named by its runid, or the first restart refused."""
        if not self.restarts:
            return frame
        blocks = sorted({block for *_, block in self.rows} - self.named_blocks)
        names = [self.runids.get(block) for block in blocks]
        if None in names or len(set(names)) != len(names):
            number, why = self.restarts[0]
            raise InputFormatError(
                f"{why}: several runs' trec_eval outputs in one file? Give each run its own file, or write a "
                "'# run: NAME' line before each run's lines (runid lines name them when every run has a distinct "
                "one: trec_eval -m runid)", path=str(self.path), line=number, argument="results")
        return frame.with_columns(pl.col("block").replace_strict(blocks, names, default=pl.col("system"))
                                  .alias("system"))
