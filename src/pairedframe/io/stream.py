"""Read a run file as blocks of whole queries, so that a large run is never held in memory at once.

TREC run files list each query's documents together. :func:`iter_query_blocks` reads a file in
byte chunks (``chunk_bytes``, default :data:`CHUNK_BYTES`), parses each with polars, carries the last,
possibly unfinished query over to the next chunk, and yields run tables whose queries are complete.
It raises :class:`NotStreamable` as soon as the file is not a simple one-space (or one-tab) separated
file with each query's lines together; the caller then reads the whole file with
:func:`pairedframe.io.read_run`, whose exact path names the offending line.
"""

from __future__ import annotations

import io
import os
import zlib
from collections.abc import Iterator

import polars as pl

from pairedframe.io.trec import _RUN_FIELDS, _has_duplicate_pairs, _open_bytes

#: Bytes of run text parsed at a time (the memory knob of streaming evaluation).
CHUNK_BYTES = 16 * 2**20


class NotStreamable(Exception):
    """The file cannot be streamed safely (not simple, or a query's lines are not together)."""


def _parse_block(text: bytes, sep: str) -> pl.DataFrame:
    """Parse one block of whole lines; NotStreamable unless every line is simple and valid.

    A stray other blank is found with one byte search; a doubled or leading separator leaves an
    empty field; a short line leaves the tag null; a comment line starts its qid with ``#``.
    """
    if (b" " if sep == "\t" else b"\t") in text:
        raise NotStreamable("mixed separators")
    schema = {name: pl.String() for name in _RUN_FIELDS} | {"score": pl.Float64()}
    try:
        frame = pl.read_csv(io.BytesIO(text), has_header=False, separator=sep, quote_char=None,
                            new_columns=list(_RUN_FIELDS), schema_overrides=schema,
                            truncate_ragged_lines=True, raise_if_empty=False)
    except pl.exceptions.PolarsError as exc:
        raise NotStreamable(str(exc)) from None
    if frame.width != len(_RUN_FIELDS):
        raise NotStreamable("unexpected number of fields")
    ok = frame.select(
        (pl.all_horizontal([pl.col(c).str.len_bytes() > 0 for c in ("qid", "q0", "docno", "rank")]).all()
         & pl.col("tag").is_not_null().all() & pl.col("score").is_finite().all()
         & ~pl.col("qid").str.starts_with("#").any()).alias("ok")).item()
    if not ok:
        raise NotStreamable("a line is not simple")
    return frame.select("qid", "docno", "score")


def iter_query_blocks(path: str | os.PathLike[str], system: str, *,
                      chunk_bytes: int | None = None) -> Iterator[pl.DataFrame]:
    """Yield run tables (``system, qid, docno, score``) holding whole queries of ``path``.

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
    carry = pl.DataFrame(schema={"qid": pl.String, "docno": pl.String, "score": pl.Float64})
    rest = b""
    sep = None
    try:
        with _open_bytes(path) as fh:
            while True:
                data = fh.read(chunk_bytes)
                eof = not data
                block = rest + data
                if eof:
                    rest = b""
                else:
                    cut = block.rfind(b"\n") + 1
                    block, rest = block[:cut], block[cut:]
                parts = [carry]
                if block:
                    if sep is None:
                        sep = "\t" if b"\t" in block.split(b"\n", 1)[0] else " "
                    parts.append(_parse_block(block, sep))
                frame = pl.concat(parts)
                if frame.height:
                    n_runs = int(frame.select(pl.col("qid").rle_id().max()).item()) + 1
                    qids = frame["qid"].unique()
                    if qids.len() != n_runs or (seen and qids.is_in(pl.Series(list(seen), dtype=pl.String).implode()).any()):
                        raise NotStreamable("a query's lines are not together")
                    last = frame["qid"][-1]
                    done = frame if eof else frame.filter(pl.col("qid") != last)
                    carry = carry.clear() if eof else frame.filter(pl.col("qid") == last)
                    if done.height:
                        if _has_duplicate_pairs(done):
                            raise NotStreamable("duplicate (qid, docno)")
                        seen.update(done["qid"].unique().to_list())
                        yield done.select(pl.lit(system, dtype=pl.String).alias("system"), "qid", "docno", "score")
                if eof:
                    break
    except (OSError, EOFError, zlib.error) as exc:
        raise NotStreamable(f"unreadable: {exc}") from None
    if sep is None:
        raise NotStreamable("empty file")
