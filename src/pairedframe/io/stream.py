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
from typing import NamedTuple

import numpy as np
import polars as pl

from pairedframe.io.trec import _RUN_FIELDS, _has_duplicate_pairs, _open_bytes

#: Bytes of run text parsed at a time (the memory knob of streaming evaluation).
CHUNK_BYTES = 16 * 2**20


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
    carry: pl.DataFrame | None = None
    rest = b""
    sep = None
    try:
        with _open_bytes(path) as fh:
            while True:
                data = fh.read(chunk_bytes)
                eof = not data
                block = rest + data if rest else data
                rest = b""
                if not eof:
                    cut = block.rfind(b"\n") + 1
                    if cut < len(block):
                        block, rest = block[:cut], block[cut:]
                parts = [] if carry is None else [carry]
                if block:
                    if sep is None:
                        sep = "\t" if b"\t" in block.split(b"\n", 1)[0] else " "
                    parts.append(_parse_block(block, sep))
                frame = pl.concat(parts) if len(parts) > 1 else parts[0] if parts else None
                carry = None
                if frame is not None and frame.height:
                    qid = frame["qid"]
                    starts = frame.select((pl.col("qid") != pl.col("qid").shift(1)).fill_null(True)
                                          .arg_true()).to_series().to_numpy()
                    heads = qid.gather(starts).to_list()
                    if len(set(heads)) != len(heads) or not seen.isdisjoint(heads):
                        raise NotStreamable("a query's lines are not together")
                    if not eof:  # the last query may go on in the next chunk
                        last = int(starts[-1])
                        frame, carry = frame.slice(0, last), frame.slice(last)
                        heads.pop()
                        starts = starts[:-1]
                    if frame.height:
                        if _has_duplicate_pairs(frame):
                            raise NotStreamable("duplicate (qid, docno)")
                        seen.update(heads)
                        yield QueryBlock(frame.select(pl.lit(system, dtype=pl.String).alias("system"),
                                                      "qid", "docno", "score"), starts.astype(np.int64))
                if eof:
                    break
    except (OSError, EOFError, zlib.error) as exc:
        raise NotStreamable(f"unreadable: {exc}") from None
    if sep is None:
        raise NotStreamable("empty file")
