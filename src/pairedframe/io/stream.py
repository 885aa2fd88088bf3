"""Read a run file as blocks of whole queries, so that a large run is never held in memory at once.

TREC run files list each query's documents together. :func:`iter_query_blocks` reads a file in
byte chunks (``chunk_bytes``, default :data:`CHUNK_BYTES`), parses each with polars, carries the last,
possibly unfinished query over to the next chunk, and yields run tables whose queries are complete.
It raises :class:`NotStreamable` as soon as the file is not a simple one-space (or one-tab) separated
file with each query's lines together; the caller then reads the whole file with
:func:`pairedframe.io.read_run`, whose exact path names the offending line.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO, NamedTuple

import numpy as np
import polars as pl

from pairedframe.io.trec import _RUN_FIELDS, _has_duplicate_pairs, _open_bytes

#: Bytes of run text parsed at a time (the memory knob of streaming evaluation).
CHUNK_BYTES = 8 * 2**20


class QueryBlock(NamedTuple):
    """Whole queries of a run file: ``run`` (``system, qid, docno, score``, file order) and
    ``starts``, the row where each query's lines begin (ascending, from 0)."""

    run: pl.DataFrame
    starts: np.ndarray


class NotStreamable(Exception):
    """The file cannot be streamed safely (not simple, or a query's lines are not together)."""


def _parse_block(text: bytes, sep: str) -> pl.DataFrame:
    """Parse one block of whole lines; NotStreamable unless every line is simple and valid.

    A stray other blank is found with one byte search; a doubled or leading separator leaves an
    empty field and a short or blank line leaves missing ones (both read as null); a comment line
    starts its qid with ``#``.
    """
    if (b" " if sep == "\t" else b"\t") in text:
        raise NotStreamable("mixed separators")
    schema = {name: pl.String() for name in _RUN_FIELDS} | {"score": pl.Float64()}
    try:
        frame = pl.read_csv(text, has_header=False, separator=sep, quote_char=None,
                            new_columns=list(_RUN_FIELDS), schema_overrides=schema,
                            truncate_ragged_lines=True, raise_if_empty=False)
    except pl.exceptions.PolarsError as exc:
        raise NotStreamable(str(exc)) from None
    if frame.width != len(_RUN_FIELDS):
        raise NotStreamable("unexpected number of fields")
    ok = frame.select(pl.sum_horizontal(pl.all().null_count()).eq(0)
                      & pl.col("score").is_finite().all()
                      & ~pl.col("qid").str.starts_with("#").any()).item()
    if not ok:
        raise NotStreamable("a line is not simple")
    return frame.select("qid", "docno", "score")


class _Chunk(NamedTuple):
    """One parsed chunk of whole lines: its rows, where each run of equal qids begins, those qids,
    and whether a (qid, docno) repeats inside the chunk."""

    frame: pl.DataFrame
    starts: np.ndarray
    heads: list[str]
    duplicated: bool


def _chunk(text: bytes, sep: str) -> _Chunk:
    frame = _parse_block(text, sep)
    starts = (frame.select((pl.col("qid") != pl.col("qid").shift(1)).fill_null(True).arg_true())
              .to_series().to_numpy().astype(np.int64))
    return _Chunk(frame, starts, frame["qid"].gather(starts).to_list(), _has_duplicate_pairs(frame))


def _chunks(fh: BinaryIO, chunk_bytes: int) -> Iterator[_Chunk]:
    """Parsed chunks of whole lines of ``fh``; the next one is read and parsed in a helper thread
    while the caller works on this one (polars and numpy release the GIL)."""
    state = {"rest": b"", "sep": None}

    def next_chunk() -> _Chunk | None:
        data = fh.read(chunk_bytes)
        block, state["rest"] = state["rest"] + data if state["rest"] else data, b""
        if data:
            cut = block.rfind(b"\n") + 1
            if cut < len(block):
                block, state["rest"] = block[:cut], block[cut:]
        elif not block:
            return None
        if state["sep"] is None:
            state["sep"] = "\t" if b"\t" in block.split(b"\n", 1)[0] else " "
        return _chunk(block, state["sep"]) if block else _Chunk(pl.DataFrame(), np.zeros(0, np.int64), [], False)

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(next_chunk)
        while (chunk := pending.result()) is not None:
            pending = pool.submit(next_chunk)
            yield chunk


def iter_query_blocks(path: str | os.PathLike[str], system: str, *,
                      chunk_bytes: int | None = None) -> Iterator[QueryBlock]:
    """Yield blocks of whole queries of ``path``, each query's rows together and in file order.

    Raises
    ------
    NotStreamable
        The file has comment or blank lines, runs of blanks, mixed separators, too few fields, a
        non-numeric or non-finite score, a duplicate (qid, docno), or a query whose lines are not
        together. Nothing is wrong with such files per se: read them with ``read_run``.
    """
    path = os.fspath(path)
    chunk_bytes = CHUNK_BYTES if chunk_bytes is None else chunk_bytes
    seen: set[str] = set()
    carry: pl.DataFrame | None = None  # the last query read so far: it may go on in the next chunk
    empty = True
    try:
        with _open_bytes(path) as fh:
            for chunk in _chunks(fh, chunk_bytes):
                if not chunk.frame.height:
                    continue
                empty = False
                if chunk.duplicated:
                    raise NotStreamable("duplicate (qid, docno)")
                frame, starts, heads = chunk.frame, chunk.starts, chunk.heads
                if carry is not None:
                    continued = heads[0] == carry["qid"][0]
                    frame = pl.concat([carry, frame])
                    starts = np.concatenate([[0], (starts[1:] if continued else starts) + carry.height])
                    heads = heads if continued else [carry["qid"][0], *heads]
                    if continued and _has_duplicate_pairs(frame.slice(0, int(starts[1]) if len(starts) > 1 else None)):
                        raise NotStreamable("duplicate (qid, docno)")
                if len(set(heads)) != len(heads) or not seen.isdisjoint(heads):
                    raise NotStreamable("a query's lines are not together")
                last = int(starts[-1])
                frame, carry = frame.slice(0, last), frame.slice(last)
                if frame.height:
                    seen.update(heads[:-1])
                    yield QueryBlock(_with_system(frame, system), starts[:-1])
            if carry is not None:
                yield QueryBlock(_with_system(carry, system), np.zeros(1, dtype=np.int64))
    except (OSError, EOFError, zlib.error) as exc:
        raise NotStreamable(f"unreadable: {exc}") from None
    if empty:
        raise NotStreamable("empty file")


def _with_system(frame: pl.DataFrame, system: str) -> pl.DataFrame:
    return frame.select(pl.lit(system, dtype=pl.String).alias("system"), "qid", "docno", "score")
