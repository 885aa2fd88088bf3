"""Read a run file whose queries' lines are not together, in bounded memory.

Parallel workers appending to one file, or shards concatenated, leave each query's lines scattered
over the file, so :func:`pairedframe.io.stream.iter_query_blocks` cannot cut it into blocks of whole
queries. :func:`iter_partitioned_blocks` reads it twice instead:

1. the pieces of the file (parsed exactly as the grouped stream parses them) are split by a hash of
   ``qid`` into ``P`` temporary Arrow IPC files, so that every query lies wholly in one of them;
2. each temporary file is read back on its own, its rows grouped by query (by score descending
   inside a query: the ranking needs no sort of its own), and yielded as a
   :class:`~pairedframe.io.stream.QueryBlock`.

Memory is bounded by the pieces in flight, the rows buffered before a write (:data:`FLUSH_ROWS`)
and one partition (about :data:`PARTITION_BYTES` of run text), whatever the file's size or order.
The temporary files (as large as the parsed run) live in ``tmp_dir`` (default: the system's
temporary folder) and are deleted as soon as they are read, and in any case on exit.

The errors of a streamed run file are found here too, in bounded memory and in the exact reader's
words (:func:`pairedframe.io.read_run`): :func:`bad_line_error` for a line it refuses,
:func:`duplicate_error` (and, for scattered lines, :func:`first_duplicate`) for a repeated pair.
"""

from __future__ import annotations

import math
import os
import tempfile
import zlib
from collections.abc import Iterator

import numpy as np
import polars as pl
import pyarrow as pa

from pairedframe.io.stream import (
    CHUNK_BYTES,
    NotStreamable,
    QueryBlock,
    Unreadable,
    _parsed_chunks,
    query_starts,
    _separator,
    _with_system,
)
from pairedframe.errors import DuplicateError, InputFormatError
from pairedframe.io.duplicates import field_counts, ragged_cause, run_duplicate_error
from pairedframe.io.line_ends import bare_return_error, bare_return_line, nul_byte_error, nul_byte_line
from pairedframe.io.trec import (_RUN_FIELDS, _open_bytes, _split_fields, _unreadable, compression,
                                 refuse_run_lines, run_line_faults)

#: Run text per partition (the memory knob of the second pass): ~1.5 M lines of a TREC run.
PARTITION_BYTES = 64 * 2**20
#: At most this many partitions (open files) at once.
MAX_PARTITIONS = 512
#: Rows held over all partitions before they are appended to their files.
FLUSH_ROWS = 2**20
#: gzip'd run text is about this much smaller than the text (only used to choose P).
GZIP_RATIO = 5
_HASH_SEED = 0x51A7


def partition_count(path: str, partition_bytes: int | None = None) -> int:
    """How many partitions a file of this size is split into (at least 2, at most MAX_PARTITIONS)."""
    size = os.path.getsize(path)
    with _open_bytes(path) as fh:
        if hasattr(fh, "fileobj"):  # gzip: decompressed size estimated
            size *= GZIP_RATIO
    per = PARTITION_BYTES if partition_bytes is None else partition_bytes
    return max(2, min(MAX_PARTITIONS, math.ceil(size / per)))


class _Spill:
    """P append-only Arrow IPC files, rows buffered in memory up to FLUSH_ROWS over all of them."""

    def __init__(self, folder: str, n_parts: int) -> None:
        self.paths = [os.path.join(folder, f"part-{i:04d}.arrow") for i in range(n_parts)]
        self._writers: list[pa.ipc.RecordBatchStreamWriter | None] = [None] * n_parts
        self._buffer: list[list[pl.DataFrame]] = [[] for _ in range(n_parts)]
        self._rows = 0

    def add(self, frame: pl.DataFrame) -> None:
        n_parts = len(self.paths)
        part = frame.select((pl.col("qid").hash(_HASH_SEED) % n_parts).cast(pl.Int16)).to_series().to_numpy()
        order = np.argsort(part, kind="stable")  # radix sort for 16-bit keys
        bounds = np.searchsorted(part[order], np.arange(n_parts + 1))
        sorted_frame = frame.rechunk()[order]  # a gather from one chunk is several times faster
        for i in np.flatnonzero(np.diff(bounds)):
            self._buffer[i].append(sorted_frame.slice(int(bounds[i]), int(bounds[i + 1] - bounds[i])))
        self._rows += frame.height
        if self._rows >= FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        for i, frames in enumerate(self._buffer):
            if not frames:
                continue
            table = pl.concat(frames).to_arrow()
            if self._writers[i] is None:
                self._writers[i] = pa.ipc.new_stream(self.paths[i], table.schema)
            self._writers[i].write_table(table)
            self._buffer[i] = []
        self._rows = 0

    def close(self) -> None:
        self.flush()
        for writer in self._writers:
            if writer is not None:
                writer.close()

    def read(self, i: int) -> pl.DataFrame | None:
        """Partition i (deleted from disk once read), or None when it holds no row."""
        if self._writers[i] is None:
            return None
        with pa.OSFile(self.paths[i]) as source:
            table = pa.ipc.open_stream(source).read_all()
        os.remove(self.paths[i])
        return pl.from_arrow(table)


def _grouped(frame: pl.DataFrame) -> tuple[pl.DataFrame, np.ndarray]:
    """The rows with each query's lines together, by score descending inside a query (the order in
    which :func:`~pairedframe.engines.ranking.rank_judged` needs no sort of its own), and where each
    query begins. No string sort: queries are numbered in order of first appearance, and the rows
    sorted by score, then (stable radix sort) by that number."""
    codes = frame.select(pl.col("qid").cast(pl.Categorical).to_physical()).to_series().to_numpy()
    codes = codes - codes.min(initial=0)  # categories are process-wide: this partition's are near each other
    if codes.max(initial=0) < 2**16:
        codes = codes.astype(np.uint16)  # numpy's stable sort of 16-bit keys is a radix sort: ~4x faster
    by_score = np.argsort(frame["score"].to_numpy())[::-1]  # equal scores: any order (ties are ranked later)
    order = by_score[np.argsort(codes[by_score], kind="stable")]
    frame = frame.rechunk()[order]
    return frame, query_starts(frame)


def iter_partitioned_blocks(path: str | os.PathLike[str], system: str, *, chunk_bytes: int | None = None,
                            partition_bytes: int | None = None, tmp_dir: str | None = None) -> Iterator[QueryBlock]:
    """Yield the run file's queries in blocks of whole queries, whatever the order of its lines.

    Parameters
    ----------
    path : path
        A plain, gzip or zstd run file that :func:`~pairedframe.io.stream.iter_query_blocks` can parse
        (six simple fields a line) but whose queries' lines may be anywhere.
    system : str
        The system name of every row.
    chunk_bytes : int, optional
        Bytes of text parsed at a time (default :data:`pairedframe.io.stream.CHUNK_BYTES`).
    partition_bytes : int, optional
        Run text per temporary partition (default :data:`PARTITION_BYTES`).
    tmp_dir : str, optional
        Where the temporary partitions go (default: ``tempfile.gettempdir()``).

    Yields
    ------
    QueryBlock
        One per non-empty partition: ``run`` (``system, qid, docno, score``), each query's rows
        together by score descending, and ``starts``. Queries come in no particular order.

    Raises
    ------
    NotStreamable
        As :func:`~pairedframe.io.stream.iter_query_blocks` for text that is not simple (the caller
        then reads the file with the exact reader, which names the line); duplicate (qid, docno)
        pairs are not looked for here (run :func:`~pairedframe.io.stream.checked_pairs` on each block,
        and :func:`duplicate_error` to name the lines of one it finds).
    """
    path = os.fspath(path)
    chunk_bytes = CHUNK_BYTES if chunk_bytes is None else chunk_bytes
    n_parts = partition_count(path, partition_bytes)
    with tempfile.TemporaryDirectory(prefix="pairedframe-partitions-", dir=tmp_dir) as folder:
        spill = _Spill(folder, n_parts)
        try:
            sep = _separator(path)
            for batch in _parsed_chunks(path, sep, chunk_bytes):
                if batch.height:
                    spill.add(batch)
        except (OSError, EOFError, zlib.error) as exc:
            spill.close()
            raise Unreadable(f"unreadable: {exc}") from None
        spill.close()
        empty = True
        for i in range(n_parts):
            frame = spill.read(i)
            if frame is None:
                continue
            empty = False
            frame, starts = _grouped(frame)
            yield QueryBlock(_with_system(frame, system), starts)
        if empty:
            raise NotStreamable("empty file")


def first_duplicate(path: str | os.PathLike[str], *, chunk_bytes: int | None = None,
                    partition_bytes: int | None = None, tmp_dir: str | None = None) -> tuple[str, str] | None:
    """The (qid, docno) the exact reader names for a file with repeated pairs, whatever its line order:
    the pair of the first line (in file order) whose pair occurs again; None when no pair repeats.

    The lines' (qid, docno) and position are split by qid into temporary files, as
    :func:`iter_partitioned_blocks` splits a run (bounded memory), and each partition reports its
    earliest repeated row; the earliest of those wins. For the error path: a blocked reading names the
    first pair it meets, which for scattered lines need not be the first in the file.
    """
    path = os.fspath(path)
    n_parts = partition_count(path, partition_bytes)
    chunk_bytes = CHUNK_BYTES if chunk_bytes is None else chunk_bytes
    best: tuple[int, str, str] | None = None
    with tempfile.TemporaryDirectory(prefix="pairedframe-duplicates-", dir=tmp_dir) as folder:
        spill = _Spill(folder, n_parts)
        rows = 0
        try:
            for batch in _parsed_chunks(path, _separator(path), chunk_bytes):
                spill.add(batch.select(pl.int_range(rows, rows + batch.height, dtype=pl.Int64).alias("row"),
                                       "qid", "docno"))
                rows += batch.height
        finally:
            spill.close()
        for i in range(n_parts):
            frame = spill.read(i)
            repeated = None if frame is None else frame.filter(pl.struct("qid", "docno").is_duplicated())
            if repeated is not None and repeated.height:
                row, qid, docno = repeated.sort("row").row(0)
                best = min(best or (row, qid, docno), (row, qid, docno))
    return None if best is None else best[1:]


def duplicate_error(path: str | os.PathLike[str], qid: str, docno: str) -> DuplicateError:
    """The error the exact reader gives for a repeated (qid, docno), word for word, found by one pass over the
    file in pieces (bounded memory; only pieces and lines holding the docno's bytes are split into fields, by
    polars), and a second for the file's run tags when the repeated lines carry several (the exact reader
    names them all)."""
    path = os.fspath(path)
    needle = docno.encode()
    lines: list[int] = []
    texts: list[str] = []
    number = 0
    for index, block in enumerate(_whole_line_blocks(path)):
        if needle in block:
            numbered = _numbered_lines(block.decode("utf-8", "replace"), number, index == 0)
            fields = _split_fields(numbered.filter(pl.col("line").str.contains(docno, literal=True)),
                                   ("qid", "q0", "docno"))
            found = fields.filter((pl.col("qid") == qid) & (pl.col("docno") == docno))
            lines.extend(found["line_no"].to_list())
            texts.extend(found["line"].to_list())
        number += block.count(b"\n")
    several = len({text.split()[5] for text in texts if len(text.split()) >= 6}) > 1
    return run_duplicate_error(path, qid, docno, lines, texts, tags=_file_tags(path) if several else (),
                               argument="run", ragged=ragged_cause(field_counts(_numbered_blocks(path)), lines, texts))


def bad_line_error(path: str | os.PathLike[str]) -> InputFormatError | None:
    """The error the exact reader gives for a run file with a line it refuses, word for word, found by
    one pass over the file in pieces (bounded memory): the first line with fewer than six fields, else
    the first whose score is not a number, else the first with a NaN score; before those, text that is
    not UTF-8 (:func:`not_utf8_error`), which the exact reader refuses before looking at any line. None
    when no line is refused so, or the file cannot be read (reading it whole says why)."""
    path = os.fspath(path)
    faults: list[dict | None] = [None, None, None]
    bare: dict | None = None  # a bare CR line end is named before any other fault, as by the exact reader
    nul: tuple[int, str] | None = None  # so is a NUL byte (its line, the text before it)
    number = 0
    try:
        for index, block in enumerate(_whole_line_blocks(path)):
            text = block.decode("utf-8")
            at = nul_byte_line(block) if nul is None else None
            if at is not None:
                nul = (number + at, text.split("\n")[at - 1].split("\x00", 1)[0][:200])
            bare = bare or bare_return_line(_numbered_lines(text, number, index == 0), len(_RUN_FIELDS))
            if not faults[0]:  # the first short line is named before any other fault: after it, only decoded
                faults = [seen or new for seen, new in zip(faults, _line_faults(text, number, index == 0))]
            number += block.count(b"\n")
    except UnicodeDecodeError as exc:
        return not_utf8_error(path, exc)
    except (OSError, EOFError, zlib.error):
        return None
    if nul is not None:
        return nul_byte_error(path, "run", *nul)
    if bare is not None:
        return bare_return_error(path, "run", bare)
    try:
        refuse_run_lines(path, *faults)
    except InputFormatError as exc:
        return exc
    return None


def not_utf8_error(path: str | os.PathLike[str], exc: Exception) -> InputFormatError | None:
    """The exact reader's error for a run file that is not UTF-8 text (naming its first such line, or saying
    it is UTF-16), found line by line; None for a zstd file, whose message quotes the whole-file parser's."""
    path = os.fspath(path)
    return None if compression(path) == "zstd" else _unreadable(path, exc, "run")


def _line_faults(text: str, lines_before: int, file_start: bool) -> tuple[dict | None, dict | None, dict | None]:
    """:func:`~pairedframe.io.trec.run_line_faults` of whole lines of a run file that follow ``lines_before`` lines."""
    fields = _split_fields(_numbered_lines(text, lines_before, file_start), _RUN_FIELDS)
    return run_line_faults(fields.with_columns(pl.col("score").cast(pl.Float64, strict=False).alias("_score")))


def _numbered_lines(text: str, lines_before: int, file_start: bool) -> pl.DataFrame:
    """``line_no, line``: the data lines of ``text`` (whole lines of a file, after ``lines_before`` lines) as the
    exact reader numbers and strips them; blank and ``#`` lines left out, a byte order mark at the file start too."""
    lines = pl.Series("line", [text.removeprefix("\ufeff") if file_start else text]).str.split("\n").explode()
    lines = pl.DataFrame({"line_no": pl.int_range(lines_before + 1, lines_before + 1 + len(lines), eager=True),
                          "line": lines.str.strip_chars(" \t\r\n\x0b\x0c")})
    return lines.filter((pl.col("line") != "") & ~pl.col("line").str.starts_with("#"))


def _numbered_blocks(path: str) -> Iterator[pl.DataFrame]:
    """The file's data lines as :func:`_numbered_lines` gives them, a piece at a time."""
    number = 0
    for index, block in enumerate(_whole_line_blocks(path)):
        yield _numbered_lines(block.decode("utf-8", "replace"), number, index == 0)
        number += block.count(b"\n")


def _file_tags(path: str) -> list[str]:
    """The run tags (6th field) of the file's data lines in order of first appearance, read in pieces."""
    tags: dict[str, None] = {}
    tag = r"^[^ \t\r\x0b\x0c]+(?:[ \t\r\x0b\x0c]+[^ \t\r\x0b\x0c]+){4}[ \t\r\x0b\x0c]+([^ \t\r\x0b\x0c]+)"
    for block in _whole_line_blocks(path):
        lines = pl.Series(block.decode("utf-8", "replace").split("\n")).str.strip_chars(" \t\r\n\x0b\x0c")
        found = lines.filter(~lines.str.starts_with("#")).str.extract(tag, 1).drop_nulls()
        tags.update(dict.fromkeys(found.unique(maintain_order=True).to_list()))
    return list(tags)


def _whole_line_blocks(path: str) -> Iterator[bytes]:
    """The file's bytes (decompressed) in pieces of about CHUNK_BYTES that end at a line end (the last
    piece: at the end of the file), in order."""
    rest = b""
    with _open_bytes(path) as fh:
        while True:
            data = fh.read(CHUNK_BYTES)
            block = rest + data
            cut = block.rfind(b"\n") + 1 if data else len(block)
            block, rest = block[:cut], block[cut:]
            yield block
            if not data:
                return
