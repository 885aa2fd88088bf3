"""Read a run file as blocks of whole queries, so that a large run is never held in memory at once.

TREC run files list each query's documents together. :func:`iter_query_blocks` cuts a file into
pieces of whole lines (``chunk_bytes``, default :data:`CHUNK_BYTES`), parses them with pyarrow's
CSV reader in helper threads (the next pieces while the caller works on this one), and yields run
tables whose queries are complete, each one chunk. A plain file's pieces end where a query ends
(found by bisecting lines on their first field); a query that goes on in the next piece (a
compressed file, a query longer than a piece) is joined to that piece. A piece that is not simple
one-space (or one-tab) separated text of six fields a line (a comment line, extra fields, runs of
blanks) is parsed by the exact reader's rules instead (:func:`_parse_exactly`), so that such lines
cost time in their piece only. It raises :class:`NotStreamable` when a line is wrong for the exact
reader too, or a query's lines are not together (:class:`Interleaved`); the caller then names the
line as that reader would, in a second pass over the pieces
(:func:`pairedframe.evaluation.run_blocks.stream_run_file`), or partitions the file by query.
"""

from __future__ import annotations

import itertools
import mmap
import os
import zlib
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import BinaryIO, NamedTuple

import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.csv as pa_csv

from pairedframe.io.line_ends import bare_return_line
from pairedframe.io.trec import _RUN_FIELDS, _has_duplicate_pairs, _open_bytes, _split_fields, compression, pair_hash

#: Bytes of run text parsed at a time and handed on as one block of queries (the memory knob).
CHUNK_BYTES = 4 * 2**20
#: pyarrow's CSV block size, at least (a piece is parsed as one block; a line must fit in one).
READ_BLOCK_BYTES = 2**20


def _usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


#: Threads parsing pieces ahead of the caller: one on two cores, where the caller, the ranking
#: helpers and the engine already fill them (a second one held 60 MB more of a 7M-line run's 400 MB
#: peak for no time saved, measured), two on more.
PARSE_THREADS = 1 if _usable_cores() <= 2 else 2


class QueryBlock(NamedTuple):
    """Whole queries of a run file: ``run`` (``system, qid, docno, score``, file order) and
    ``starts``, the row where each query's lines begin (ascending, from 0)."""

    run: pl.DataFrame
    starts: np.ndarray


class NotStreamable(Exception):
    """The file cannot be streamed safely (a line the exact reader refuses, or a query's lines are not together)."""


class Unreadable(NotStreamable):
    """The file is not lines of UTF-8 text (or a compressed file is corrupt): the exact reader refuses it
    whole, before looking at any line, and reading it whole is how it says so."""


class NotUTF8(Unreadable):
    """A piece of the file is not UTF-8 text."""


class DuplicatePair(NotStreamable):
    """A (qid, docno) repeats in a block: ``qid`` and ``docno`` say which (the first in block order)."""

    def __init__(self, qid: str, docno: str) -> None:
        super().__init__(f"duplicate (qid, docno) = ({qid}, {docno})")
        self.qid, self.docno = qid, docno


class Interleaved(NotStreamable):
    """A query's lines are not together: :func:`pairedframe.io.partition.iter_partitioned_blocks`
    reads such a file in bounded memory."""


def checked_pairs(block: QueryBlock) -> pl.Series:
    """:func:`pairedframe.io.trec.pair_hash` of a block's rows, after checking that no (qid, docno)
    repeats (NotStreamable otherwise). Each query lies wholly in one block, so checking every block
    checks the file; the caller runs it, possibly in another thread, and can reuse the hashes."""
    pairs = pair_hash(block.run)
    # otherwise polars' one-thread sort of the whole hashes: 1.7 ms a 135k-row block, where numpy's sort
    # of their low 32 bits took 3.6 ms
    if not _distinct_in_each_query(pairs.to_numpy(), block.starts) and _has_duplicate_pairs(block.run, pairs):
        first = block.run.filter(pl.struct("qid", "docno").is_duplicated()).row(0, named=True)
        raise DuplicatePair(first["qid"], first["docno"])
    return pairs


def _distinct_in_each_query(hashes: np.ndarray, starts: np.ndarray) -> bool:
    """True when every query of a block (rows from each of ``starts``) has as many rows and the low 32
    bits of its ``hashes`` are distinct: then no (qid, docno) repeats, since a repeat lies in one query
    (a block holds each query's rows together, once). False: the whole hashes are to be compared. The
    queries as rows of a 2D array are sorted one by one (TREC runs give each query as many lines):
    0.7 ms a 135k-row block, against 1.7 ms for one sort of the whole hashes."""
    queries, n = len(starts), len(hashes)
    if not queries or n % queries or not bool((np.diff(starts) == n // queries).all()):
        return False
    low = hashes.astype(np.uint32).reshape(queries, n // queries)
    low.sort(axis=1)
    return not bool((low[:, 1:] == low[:, :-1]).any())


class Piece(NamedTuple):
    """Whole lines of run text (``text``) and what a byte search found in them: ``plain``, no other blank
    than the separator (a tab in a space-separated file, a vertical tab, a form feed: inside a field it
    would be data to the CSV reader but a separator to trec_eval, so such a piece is parsed by
    :func:`_parse_exactly`); ``returns``, a ``\\r`` occurs (the simple parse then looks for a lone one)."""

    text: pa.Buffer | bytes
    plain: bool
    returns: bool


def _piece(text: mmap.mmap | bytes, start: int, end: int, other_blanks: tuple[bytes, ...],
           sliced: pa.Buffer | bytes) -> Piece:
    """``sliced`` (``text[start:end]``) as a :class:`Piece`; the searches are memchr's, on ``text`` in place."""
    return Piece(sliced, all(text.find(blank, start, end) == -1 for blank in other_blanks),
                 text.find(b"\r", start, end) != -1)


def _line_chunks(path: str, chunk_bytes: int, sep: str) -> Iterator[Piece]:
    """The file's bytes in pieces of about ``chunk_bytes`` that end at a line end (the last piece
    may lack its final newline): zero-copy slices of a memory map for a plain file, decompressed
    bytes for a gzip or zstd one."""
    other_blanks = (b" " if sep == "\t" else b"\t", b"\x0b", b"\x0c")
    with _open_bytes(path) as fh:
        if compression(path) is not None:  # gzip or zstd: decompressed piece by piece
            yield from _read_line_chunks(fh, chunk_bytes, other_blanks)
            return
        size = os.fstat(fh.fileno()).st_size
        if size == 0:
            return
        mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    whole = pa.py_buffer(mapped)  # the map closes when the last slice is gone
    starts: deque[int] = deque()
    start = 0
    while start < size:
        end = min(start + chunk_bytes, size)
        cut = mapped.rfind(b"\n", start, end) + 1 if end < size else size
        if cut <= start:  # a line longer than a piece
            cut = mapped.find(b"\n", end) + 1 or size
        elif cut < size:
            cut = _last_query_start(mapped, start, cut, sep) or cut
        yield _piece(mapped, start, cut, other_blanks, whole.slice(start, cut - start))
        starts.append(start)
        if len(starts) > PARSE_THREADS + 1:  # pieces that far back are parsed: their pages leave
            done = starts.popleft()           # this process (the file stays in the page cache)
            if hasattr(mapped, "madvise"):    # not on Windows
                mapped.madvise(mmap.MADV_DONTNEED, 0, done - done % mmap.PAGESIZE)
        start = cut


def _last_query_start(text: mmap.mmap, start: int, cut: int, sep: str) -> int | None:
    """Where the lines of the last query of ``text[start:cut]`` (whole lines) begin, found by
    bisecting lines on their first field, so that a piece ends with a whole query and needs no
    join with the next; None when one query fills the piece. Only a hint: any line start is a
    valid cut, and the reader joins a query that goes on in the next piece anyway."""
    hi = text.rfind(b"\n", start, cut - 1) + 1 or start  # the last line
    field = text.find(sep.encode(), hi, cut)
    if hi <= start or field < 0:
        return None
    key = text[hi:field + 1]
    lo = start  # a line start: lines from hi on start with key, those before lo are not known
    while lo < hi:
        mid = (lo + hi) // 2
        line = max(lo, text.rfind(b"\n", lo, mid) + 1)
        if text[line:line + len(key)] == key:
            hi = line
        else:
            lo = text.find(b"\n", line, hi) + 1
    return hi if hi > start else None


def _read_line_chunks(fh: BinaryIO, chunk_bytes: int,
                      other_blanks: tuple[bytes, ...]) -> Iterator[Piece]:
    rest = b""
    while data := fh.read(chunk_bytes):
        block = rest + data if rest else data
        cut = block.rfind(b"\n") + 1
        block, rest = (block[:cut], block[cut:]) if cut < len(block) else (block, b"")
        if block:
            yield _piece(block, 0, len(block), other_blanks, block)
    if rest:
        yield _piece(rest, 0, len(rest), other_blanks, rest)


#: The UTF-8 byte order mark: skipped at the start of a file by the exact reader, data elsewhere (pyarrow skips
#: it at the start of any piece, and would not see a ``#`` after it).
_BOM = b"\xef\xbb\xbf"


def _parse_chunk(piece: Piece, sep: str, file_start: bool = True) -> pl.DataFrame:
    """``qid, docno, score`` of a piece's lines, as the exact reader reads them: simple text by
    :func:`_parse_simple`, any other (or a piece that starts with a byte order mark) by
    :func:`_parse_exactly`, which skips the mark at the ``file_start`` only. NotStreamable when a line
    is wrong for the exact reader too."""
    if piece.plain and pa.py_buffer(piece.text)[:3].to_pybytes() != _BOM:
        try:
            return _parse_simple(piece.text, sep, piece.returns)
        except NotStreamable:
            pass
    return _parse_exactly(piece.text, file_start)


def _parse_simple(text: pa.Buffer | bytes, sep: str, returns: bool = True) -> pl.DataFrame:
    """``qid, docno, score`` of whole lines of run text; NotStreamable unless every line is simple.

    pyarrow's CSV reader insists on exactly six fields per line, so an extra or a missing field stops
    it; text that is not UTF-8, an empty field (a doubled, leading or trailing separator), a comment
    line (``#`` first) and a lone ``\\r`` (a line end to the CSV reader, a blank to trec_eval) are found
    in the bytes (:func:`_check_text`), so that the fields no measure reads (Q0, rank, tag) are
    tokenized but never built into columns (``returns``: whether a ``\\r`` occurs at all). Blank lines
    are skipped, as trec_eval skips them.
    """
    _check_text(text, sep, returns)
    try:
        table = pa_csv.read_csv(
            pa.BufferReader(text),
            # the piece as one block: one record batch, so one chunk in polars
            read_options=pa_csv.ReadOptions(column_names=list(_RUN_FIELDS),
                                            block_size=max(READ_BLOCK_BYTES, len(text) + 1), use_threads=False),
            parse_options=pa_csv.ParseOptions(delimiter=sep, quote_char=False, escape_char=False),
            # no null values: a docno "NA" is a docno, as the exact reader reads it (no field is empty
            # here); the text is UTF-8 (checked above), so each field between ASCII separators is too
            convert_options=pa_csv.ConvertOptions(column_types=_PARSED_TYPES, include_columns=list(_PARSED_TYPES),
                                                  null_values=[], check_utf8=False))
    except pa.ArrowException as exc:
        raise NotStreamable(str(exc)) from None
    # polars converts the strings to its views itself: pyarrow's cast to views is 0.07 s faster per 7M rows
    # but builds pyarrow's cast table on first use (0.2 s, most of it holding the GIL)
    frame = pl.from_arrow(table)
    if frame["score"].is_nan().any():  # comment lines were refused by _check_text
        raise NotStreamable("a line is not simple")
    return frame


#: The columns a streamed run keeps, as pyarrow builds them (32-bit offsets: a piece is far below 2 GB).
_PARSED_TYPES = {"qid": pa.string(), "docno": pa.string(), "score": pa.float64()}
#: What the exact reader strips from each line: trec_eval's blanks (C's isspace) and the line end.
_LINE_BLANKS = " \t\r\n\x0b\x0c"


def _parse_exactly(text: pa.Buffer | bytes, file_start: bool = True) -> pl.DataFrame:
    """``qid, docno, score`` of whole lines of run text by the exact reader's rules
    (:func:`pairedframe.io.read_run`): a line ends at ``\\n`` and is stripped of blanks (a byte order
    mark is skipped at the ``file_start`` only); blank lines and lines starting with ``#`` are skipped;
    fields are split on runs of blanks (:func:`pairedframe.io.trec._split_fields`), those after the
    sixth ignored; the score is cast as that reader casts it. About five times slower than
    :func:`_parse_simple`, so only pieces that are not simple come here. NotStreamable when a line is
    wrong for the exact reader too (fewer than six fields, a score that is not a number or is NaN,
    text that is not UTF-8): the exact reader then names it."""
    try:
        decoded = bytes(text).decode("utf-8")
    except UnicodeDecodeError:
        raise NotUTF8("not UTF-8") from None
    if "\x00" in decoded:
        raise NotStreamable("a NUL byte")       # the exact reader names its line
    if file_start:
        decoded = decoded.removeprefix("\ufeff")
    lines = pl.Series("line", [decoded]).str.split("\n").explode().str.strip_chars(_LINE_BLANKS)
    lines = lines.filter((lines != "") & ~lines.str.starts_with("#"))
    if bare_return_line(lines.to_frame().with_row_index("line_no"), len(_RUN_FIELDS)) is not None:
        raise NotStreamable("the lines end in a bare CR")
    fields = _split_fields(lines.to_frame().with_row_index("line_no"), _RUN_FIELDS)
    if fields["tag"].is_null().any():
        raise NotStreamable("a line has fewer than six fields")
    score = fields["score"].cast(pl.Float64, strict=False)
    if score.is_null().any() or score.is_nan().any():
        raise NotStreamable("a score is not a number, or NaN")
    return pl.DataFrame([fields["qid"], fields["docno"], score]).rechunk()


def _check_text(text: pa.Buffer | bytes, sep: str, returns: bool = True) -> None:
    """NotStreamable unless ``text`` (whole lines) is UTF-8 without an empty field: a separator that
    touches another separator or a line end, or opens or ends the text (an empty field to the CSV
    reader, one field fewer to trec_eval). A blank line (two line ends in a row) is no field at all.
    Nor may a line start with ``#`` (a comment line; the same regex pass, at no extra cost), nor a
    ``\\r`` stand before anything but ``\\n`` (looked for only when ``returns``: it doubles the pass).
    Arrow's UTF-8 validation, then one regex pass in polars (SIMD literal search), both on the
    text in place: numpy passes over the bytes cost as much as the parse, and a one-row polars
    Series holds the text as a scalar that each step copies."""
    buffer = pa.py_buffer(text)
    if not buffer.size:
        return
    if buffer[0] == ord(sep) or buffer[buffer.size - 1] == ord(sep):  # then parsed by _parse_exactly
        raise NotStreamable("a line has an empty field")
    if buffer[0] == ord("#"):
        raise NotStreamable("a comment line")
    # two rows (the text and ""): a one-row column would be a scalar
    whole = pa.LargeStringArray.from_buffers(2, pa.py_buffer(np.array([0, buffer.size, buffer.size], np.int64)), buffer)
    try:
        whole.validate(full=True)
    except pa.ArrowInvalid:
        raise NotStreamable("not UTF-8") from None
    # pyarrow ends a line at \n, \r or \r\n: a # after either starts a comment line; the exact reader
    # ends a line at \n only, so a \r before anything else is a blank inside a line to it
    # from a table, not an array: polars' array path imports pyarrow.compute (0.06 s once, holding the GIL)
    text_column = pl.from_arrow(pa.table({"text": whole})).to_series()
    lone_return = "|\r[^\n]" if returns else ""
    if text_column.str.contains(f"[{sep}\r\n]{sep}|{sep}[\r\n]|[\r\n]#{lone_return}").any():
        raise NotStreamable("a line has an empty field, is a comment or holds a lone \\r")
    # a NUL too: the exact reader refuses it (where trec_eval would stop reading), naming its line; a literal
    # search of its own (memchr): in the regex's alternation it cost ten times the whole check
    if text_column.str.contains("\x00", literal=True).any():
        raise NotStreamable("a NUL byte")


def _parsed_chunks(path: str, sep: str, chunk_bytes: int) -> Iterator[pl.DataFrame]:
    """Parsed pieces in file order; PARSE_THREADS helper threads parse the next pieces while the
    caller works on this one (at most PARSE_THREADS + 1 pieces in flight: bounded memory)."""
    with ThreadPoolExecutor(max_workers=PARSE_THREADS) as pool:
        pending: deque[Future] = deque()
        try:
            for index, piece in enumerate(_line_chunks(path, chunk_bytes, sep)):
                pending.append(pool.submit(_parse_chunk, piece, sep, index == 0))
                if len(pending) > PARSE_THREADS:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


#: Lines :func:`_separator` reads at most to find the first data line.
SEPARATOR_LINES = 1000


def _separator(path: str) -> str:
    """A tab when the first data line (not blank, no ``#`` first) holds one, else a space: the
    separator of the simple pieces (another blank sends a piece to :func:`_parse_exactly`)."""
    with _open_bytes(path) as fh:
        for line in itertools.islice(fh, SEPARATOR_LINES):
            data = line.strip(_LINE_BLANKS.encode())
            if data and not data.startswith(b"#"):
                return "\t" if b"\t" in line else " "
    return " "


def query_starts(frame: pl.DataFrame) -> np.ndarray:
    """Row indices (int64) where a new query starts in ``frame`` (rows of a query together, first row 0)."""
    return (frame.select((pl.col("qid") != pl.col("qid").shift(1)).fill_null(True).arg_true())
            .to_series().to_numpy().astype(np.int64))


def iter_query_blocks(path: str | os.PathLike[str], system: str, *,
                      chunk_bytes: int | None = None) -> Iterator[QueryBlock]:
    """Yield blocks of whole queries of ``path``, each query's rows together and in file order.

    Duplicate (qid, docno) pairs are not looked for here: run :func:`checked_pairs` on each block.

    Raises
    ------
    NotStreamable
        A line the exact reader refuses (fewer than six fields, a non-numeric or NaN score), text
        that is not UTF-8, or a query whose lines are not together (:class:`Interleaved`: nothing is
        wrong with such a file, :func:`pairedframe.io.partition.iter_partitioned_blocks` reads it).
        Comment lines, extra fields, runs of blanks and mixed blanks are read as the exact reader
        reads them, piece by piece.
    """
    path = os.fspath(path)
    chunk_bytes = CHUNK_BYTES if chunk_bytes is None else chunk_bytes
    seen: set[str] = set()
    held: pl.DataFrame | None = None  # whole lines parsed; the last query may go on in the next piece

    def block(frame: pl.DataFrame, starts: np.ndarray) -> QueryBlock:
        heads = frame["qid"].gather(starts).to_list()
        if len(set(heads)) != len(heads) or not seen.isdisjoint(heads):
            raise Interleaved("a query's lines are not together")
        seen.update(heads)
        return QueryBlock(_with_system(frame, system), starts)

    try:
        sep = _separator(path)
        for batch in _parsed_chunks(path, sep, chunk_bytes):
            if not batch.height:
                continue
            if held is not None:
                if batch["qid"][0] != held["qid"][-1]:  # pieces mostly end at a query's end (_line_chunks)
                    yield block(held, query_starts(held))
                else:  # the last query goes on: it joins this piece, as one chunk (the ranking gathers from it)
                    starts = query_starts(held)
                    last = int(starts[-1])
                    if last:
                        yield block(held.slice(0, last), starts[:-1])
                    batch = pl.concat([held.slice(last), batch]).rechunk()
            held = batch
    except (OSError, EOFError, zlib.error, pa.ArrowException) as exc:
        raise Unreadable(f"unreadable: {exc}") from None
    if held is None:
        raise NotStreamable("empty file")
    yield block(held, query_starts(held))


def _with_system(frame: pl.DataFrame, system: str) -> pl.DataFrame:
    return frame.select(pl.lit(system, dtype=pl.String).alias("system"), "qid", "docno", "score")
