"""Read a run file as blocks of whole queries, so that a large run is never held in memory at once.

TREC run files list each query's documents together. :func:`iter_query_blocks` parses a file with
pyarrow's streaming CSV reader (in its own thread, ``chunk_bytes`` at a time, default
:data:`CHUNK_BYTES`), carries the last, possibly unfinished query over to the next batch, and yields
run tables whose queries are complete. It raises :class:`NotStreamable` as soon as the file is not a
simple one-space (or one-tab) separated file of six fields with each query's lines together; the
caller then reads the whole file with :func:`pairedframe.io.read_run`, whose exact path names the
offending line.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.csv as pa_csv

from pairedframe.io.trec import _RUN_FIELDS, _has_duplicate_pairs, _open_bytes, pair_hash

#: Bytes of run text per block of queries handed on (the memory knob of streaming evaluation).
CHUNK_BYTES = 8 * 2**20
#: Bytes the CSV reader parses at a time. It reads ahead some tens of blocks, so small blocks bound
#: memory; batches are then gathered up to CHUNK_BYTES.
READ_BLOCK_BYTES = 2**20


class QueryBlock(NamedTuple):
    """Whole queries of a run file: ``run`` (``system, qid, docno, score``, file order) and
    ``starts``, the row where each query's lines begin (ascending, from 0)."""

    run: pl.DataFrame
    starts: np.ndarray


class NotStreamable(Exception):
    """The file cannot be streamed safely (not simple, or a query's lines are not together)."""


def checked_pairs(block: QueryBlock) -> pl.Series:
    """:func:`pairedframe.io.trec.pair_hash` of a block's rows, after checking that no (qid, docno)
    repeats (NotStreamable otherwise). Each query lies wholly in one block, so checking every block
    checks the file; the caller runs it, possibly in another thread, and can reuse the hashes."""
    pairs = pair_hash(block.run)
    if _has_duplicate_pairs(block.run, pairs):
        raise NotStreamable("duplicate (qid, docno)")
    return pairs


class _BlankGuard:
    """A binary file whose reads note whether the other blank (tab in a space-separated file, space
    in a tab-separated one) occurs anywhere: inside a field it would be data to the CSV reader but
    a separator to trec_eval."""

    def __init__(self, fh: BinaryIO, other: bytes) -> None:
        self._fh, self._other, self.seen_other = fh, other, False
        self.closed = False

    def read(self, size: int = -1) -> bytes:
        data = self._fh.read(size)
        if self._other in data:
            self.seen_other = True
        return data

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        self.closed = True


def _batches(fh: BinaryIO, sep: str, chunk_bytes: int, guard: _BlankGuard) -> Iterator[pl.DataFrame]:
    """Parsed batches (``qid, docno, score``), NotStreamable unless every line is simple and valid.

    The reader insists on exactly six fields per line, so a doubled, leading or trailing separator
    (an extra empty field) or a short line stops it; blank lines are skipped, as trec_eval skips
    them; an empty field between separators reads as null; a comment line starts its qid with ``#``.
    """
    types = {name: pa.large_string() for name in _RUN_FIELDS} | {"score": pa.float64()}
    per_block = max(1, chunk_bytes // READ_BLOCK_BYTES)
    try:
        reader = pa_csv.open_csv(
            pa.PythonFile(guard, mode="r"),
            read_options=pa_csv.ReadOptions(column_names=list(_RUN_FIELDS),
                                            block_size=min(chunk_bytes, READ_BLOCK_BYTES)),
            parse_options=pa_csv.ParseOptions(delimiter=sep, quote_char=False, escape_char=False),
            convert_options=pa_csv.ConvertOptions(column_types=types, strings_can_be_null=True))
        gathered: list[pa.RecordBatch] = []
        for batch in reader:
            if guard.seen_other:
                raise NotStreamable("mixed separators")
            if any(column.null_count for column in batch.columns):
                raise NotStreamable("a line is not simple")
            gathered.append(batch.select(["qid", "docno", "score"]))
            if len(gathered) == per_block:
                yield _checked(gathered)
                gathered = []
        if gathered:
            yield _checked(gathered)
    except pa.ArrowException as exc:
        raise NotStreamable(str(exc)) from None
    if guard.seen_other:
        raise NotStreamable("mixed separators")


def _checked(batches: list[pa.RecordBatch]) -> pl.DataFrame:
    frame = pl.from_arrow(pa.Table.from_batches(batches))
    ok = frame.select(pl.col("score").is_finite().all() & ~pl.col("qid").str.starts_with("#").any()).item()
    if not ok:
        raise NotStreamable("a line is not simple")
    return frame


def _separator(path: str) -> str:
    with _open_bytes(path) as fh:
        first = fh.readline()
    return "\t" if b"\t" in first else " "


def _query_starts(frame: pl.DataFrame) -> np.ndarray:
    return (frame.select((pl.col("qid") != pl.col("qid").shift(1)).fill_null(True).arg_true())
            .to_series().to_numpy().astype(np.int64))


def iter_query_blocks(path: str | os.PathLike[str], system: str, *,
                      chunk_bytes: int | None = None) -> Iterator[QueryBlock]:
    """Yield blocks of whole queries of ``path``, each query's rows together and in file order.

    Duplicate (qid, docno) pairs are not looked for here: run :func:`checked_pairs` on each block.

    Raises
    ------
    NotStreamable
        The file has comment lines, runs of blanks, mixed separators, other than six fields on a
        line, a non-numeric or non-finite score, text that is not UTF-8, or a query whose lines
        are not together. Nothing is wrong with such files per se: read
        them with ``read_run``.
    """
    path = os.fspath(path)
    chunk_bytes = CHUNK_BYTES if chunk_bytes is None else chunk_bytes
    seen: set[str] = set()
    carry: pl.DataFrame | None = None  # the last query read so far: it may go on in the next batch
    try:
        sep = _separator(path)
        with _open_bytes(path) as fh:
            guard = _BlankGuard(fh, b" " if sep == "\t" else b"\t")
            for batch in _batches(fh, sep, chunk_bytes, guard):
                if not batch.height:
                    continue
                frame = batch if carry is None else pl.concat([carry, batch])
                starts = _query_starts(frame)
                heads = frame["qid"].gather(starts).to_list()
                if len(set(heads)) != len(heads) or not seen.isdisjoint(heads):
                    raise NotStreamable("a query's lines are not together")
                last = int(starts[-1])
                frame, carry = frame.slice(0, last), frame.slice(last)
                if frame.height:
                    seen.update(heads[:-1])
                    yield QueryBlock(_with_system(frame, system), starts[:-1])
    except (OSError, EOFError, zlib.error) as exc:
        raise NotStreamable(f"unreadable: {exc}") from None
    if carry is None:
        raise NotStreamable("empty file")
    yield QueryBlock(_with_system(carry, system), np.zeros(1, dtype=np.int64))


def _with_system(frame: pl.DataFrame, system: str) -> pl.DataFrame:
    return frame.select(pl.lit(system, dtype=pl.String).alias("system"), "qid", "docno", "score")
