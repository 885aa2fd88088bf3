"""Readers for TREC run and qrels files (plain, gzip or zstd), parsed by polars, never by Python loops.

Run lines: ``qid Q0 docno rank score tag [ignored...]`` (at least 6 fields).
Qrels lines: ``qid iter docno rel`` (exactly 4 fields).
Fields are separated by any run of spaces or tabs; CRLF endings are accepted; blank lines and
lines whose first non-blank character is ``#`` are skipped, while a ``#`` inside a field is data.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import shutil
import tempfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor
from typing import BinaryIO

import polars as pl
import pyarrow as pa

from pairedframe.checks import check_system_name, require_bool
from pairedframe.errors import DUPLICATE_RULE, DuplicateError, InputFormatError, missing_file
from pairedframe.io.duplicates import field_counts, ragged_cause, run_duplicate_error
from pairedframe.io.encoding import utf16_error
from pairedframe.io.grades import (INTEGER, NUMBER, Grades, atol, check_grades_option, out_of_range,
                                   warn_read_as_trec_eval)
from pairedframe.io.line_ends import bare_return_error, bare_return_line, nul_byte_error
from pairedframe.io.line_hints import _BLANKS, _field_count, line_hint
from pairedframe.io.path_args import PathLike, path_list as path_list_of, system_name_from_path
from pairedframe.io.run_tag import is_plain, last_run_tag

_RUN_FIELDS = ("qid", "q0", "docno", "rank", "score", "tag")
_QRELS_FIELDS = ("qid", "iter", "docno", "rel")


@contextmanager
def spooled(paths: Sequence[PathLike]) -> Iterator[list[str]]:
    """The paths, with each one that is not a regular file (a named pipe, ``/dev/stdin``, a shell's
    ``<(...)``) replaced by a temporary copy of the same name: the readers open a file more than
    once, which a pipe does not allow. Errors about a copy name the original path."""
    originals = [os.fspath(p) for p in paths]
    if all(_not_copied(p) for p in originals):
        yield originals
        return
    with tempfile.TemporaryDirectory(prefix="pairedframe-") as tmp:
        copies, where = [], {}
        for i, path in enumerate(originals):
            if _not_copied(path):
                copies.append(path)
                continue
            copy = os.path.join(tmp, str(i), os.path.basename(path) or "input")
            os.makedirs(os.path.dirname(copy))
            with open(path, "rb") as src, open(copy, "wb") as dst:
                shutil.copyfileobj(src, dst)
            copies.append(copy)
            where[copy] = path
        try:
            yield copies
        except InputFormatError as exc:
            if exc.path is not None and os.fspath(exc.path) in where:
                raise exc.relocated(where[os.fspath(exc.path)]) from None
            raise


def _not_copied(path: str) -> bool:
    """A regular file is read in place; a missing path or a directory is left to the reader, whose
    error names the argument (``the qrels argument is a directory``), not a copy that fails to open."""
    return os.path.isfile(path) or os.path.isdir(path) or not os.path.exists(path)


def compression(path: str) -> str | None:
    """``"gzip"`` or ``"zstd"`` by the file's magic number, else None."""
    with open(path, "rb") as fh:
        magic = fh.read(4)
    return "gzip" if magic[:2] == b"\x1f\x8b" else "zstd" if magic == b"\x28\xb5\x2f\xfd" else None


def _open_bytes(path: str) -> BinaryIO:
    """The file's bytes, decompressed (gzip by Python, which like ``zcat`` accepts trailing zero
    padding; zstd by pyarrow) when it starts with their magic number."""
    kind = compression(path)
    if kind == "gzip":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if kind == "zstd":
        return io.BufferedReader(pa.input_stream(path, compression="zstd"))  # type: ignore[arg-type]
    return open(path, "rb")


def _is_zstd(path: str) -> bool:
    return compression(path) == "zstd"


def _read_csv(path: str, **options) -> pl.DataFrame:
    """``pl.read_csv`` of a file (never a glob); a gzip file polars refuses (e.g. with the trailing
    zero padding that ``zcat`` accepts) is decompressed by Python's gzip first."""
    try:
        return pl.read_csv(path, glob=False, **options)
    except (pl.exceptions.PolarsError, OSError) as exc:
        if compression(path) != "gzip":
            raise
        try:
            with gzip.open(path, "rb") as fh:
                data = fh.read()
        except (OSError, EOFError, zlib.error):
            raise exc from None
        return pl.read_csv(data, **options)


def _first_undecodable_line(path: str) -> tuple[int, bytes] | None:
    """(1-based line number, raw line) of the first line that is not UTF-8, or None (error path only)."""
    with _open_bytes(path) as fh:
        for number, raw in enumerate(fh, start=1):
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                return number, raw
    return None


def _unreadable(path: str, exc: Exception, what: str) -> InputFormatError:
    """An error naming the argument and file (and the line, for text that is not UTF-8) for a file
    polars cannot read."""
    utf16 = utf16_error(path, what, _open_bytes)
    if utf16 is not None:
        return utf16
    if _is_zstd(path):  # its raw bytes are not text: say what it is
        return InputFormatError(f"corrupt or truncated zstd file ({exc})", path=path, argument=what)
    try:
        bad = _first_undecodable_line(path)
    except (OSError, EOFError, zlib.error) as gz_exc:
        return InputFormatError(f"corrupt or truncated gzip file ({gz_exc})", path=path, argument=what)
    if bad is not None:
        return InputFormatError(f"not UTF-8 text, so not a TREC {what} file", path=path, line=bad[0],
                                text=bad[1][:80].decode("utf-8", "replace"), argument=what)
    return InputFormatError(f"cannot be read as a text table of whitespace-separated fields ({exc})", path=path,
                            argument=what)


# Control bytes tried as the "field separator" that keeps each line whole in one column.
_LINE_SEPARATORS = [chr(c) for c in (0x1F, 0x1E, 0x1D, 0x1C, *range(0x01, 0x09), 0x0E, 0x0F, *range(0x10, 0x1C))]


def _absent_control_byte(path: str, what: str) -> str:
    """A control byte that does not occur in the file (any byte may be inside a docno)."""
    present: set[int] = set()
    with _open_bytes(path) as fh:
        while data := fh.read(2**24):
            present.update(b for b in map(ord, _LINE_SEPARATORS) if b not in present and bytes([b]) in data)
    for candidate in _LINE_SEPARATORS:
        if ord(candidate) not in present:
            return candidate
    raise InputFormatError("every ASCII control character occurs in the file; it is not a text run or qrels file",
                           path=path, argument=what)


def _read_data_lines(path: PathLike, what: str) -> pl.DataFrame:
    """Lines of ``path`` as (line_no, line), 1-based, without blank and ``#`` comment lines."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise missing_file(path, what)
    try:
        separator = _absent_control_byte(path, what)
        # named after reading: polars refuses new_columns for an empty file (width 0)
        lines = _read_csv(path, has_header=False, separator=separator, quote_char=None, raise_if_empty=False,
                          infer_schema=False)
    except (pl.exceptions.PolarsError, OSError, EOFError, zlib.error) as exc:
        raise _unreadable(path, exc, what) from None
    if lines.width == 0:
        lines = pl.DataFrame(schema={"line": pl.String})
    if lines.width != 1:
        raise _unreadable(path, ValueError("unexpected field separator"), what)
    lines = lines.rename({lines.columns[0]: "line"})
    _refuse_nul_bytes(lines, path, what)
    lines = lines.with_row_index("line_no", offset=1).with_columns(pl.col("line").str.strip_chars(" \t\r\n\x0b\x0c"))
    data = lines.filter(pl.col("line").is_not_null() & (pl.col("line") != "") & ~pl.col("line").str.starts_with("#"))
    if data.height == 0:
        raise InputFormatError("empty file: no data lines (blank and '#' lines are skipped)", path=path, argument=what)
    return data


def _refuse_nul_bytes(lines: pl.DataFrame, path: str, what: str) -> None:
    """A NUL byte anywhere is refused naming its line (:func:`~pairedframe.io.line_ends.nul_byte_error`)."""
    at = lines.with_row_index("line_no", offset=1).filter(pl.col("line").str.contains("\x00", literal=True)).head(1)
    if at.height:
        raise utf16_error(path, what, _open_bytes) or nul_byte_error(  # UTF-16 has NULs: named as such
            path, what, int(at["line_no"][0]), at["line"][0].split("\x00", 1)[0][:200])


def _refuse_bare_returns(lines: pl.DataFrame, path: str, what: str) -> pl.DataFrame:
    """``lines``, unless they end in a bare CR (:mod:`pairedframe.io.line_ends`): refused before any other fault."""
    bare = bare_return_line(lines, len(_RUN_FIELDS) if what == "run" else len(_QRELS_FIELDS))
    if bare is not None:
        raise bare_return_error(path, what, bare)
    return lines


def _split_fields(lines: pl.DataFrame, names: Sequence[str]) -> pl.DataFrame:
    """Split each stripped line on runs of blanks into ``names`` plus ``_extra`` (the rest, or null)."""
    n = len(names)
    normalized = pl.col("line").str.replace_all(_BLANKS, " ")
    parts = normalized.str.splitn(" ", n + 1).struct.rename_fields([*names, "_extra"])
    return lines.select("line_no", "line", parts.alias("_p")).unnest("_p")


def _first_bad(frame: pl.DataFrame, mask: pl.Expr) -> dict | None:
    bad = frame.filter(mask).head(1)
    return None if bad.height == 0 else bad.row(0, named=True)


def _fail(message: str, row: dict, path: str, what: str, column: int | None = None) -> None:
    raise utf16_error(path, what, _open_bytes) or InputFormatError(message, path=path, line=int(row["line_no"]), column=column, text=row["line"],
                           argument=what)


def _check_duplicates(frame: pl.DataFrame, path: str, what: str, keys: Sequence[str] = ("qid", "docno")) -> None:
    dup = frame.filter(pl.struct(*keys).is_duplicated())
    if dup.height:
        first = dup.sort("line_no").row(0, named=True)
        twin = dup.filter(pl.all_horizontal([pl.col(k) == first[k] for k in keys])).sort("line_no")
        lines = twin["line_no"].to_list()
        if what == "run":          # several run tags in the file are named: the likelier cause
            texts = twin["line"].to_list()
            raise run_duplicate_error(path, first["qid"], first["docno"], lines, texts,
                                      tags=frame["tag"].unique(maintain_order=True).to_list(), argument=what,
                                      ragged=ragged_cause(field_counts([frame]), lines, texts))
        raise DuplicateError(
            f"duplicate ({', '.join(keys)}) = ({', '.join(first[k] for k in keys)}) in {what}, also on line(s) "
            f"{lines[1:6]}; {DUPLICATE_RULE}, remove them",
            path=path, line=lines[0], text=first["line"], argument=what)


def _fast_fields(path: str, names: Sequence[str], ragged: bool,
                 dtypes: dict[str, pl.DataType] | None = None) -> pl.DataFrame | None:
    """Parse a file whose fields are split by exactly one space or one tab with polars' CSV reader.

    Returns None whenever the file is not that simple (comment or indented lines, runs of blanks,
    mixed separators, too few fields, a field that does not parse as ``dtypes`` says): the general
    line-by-line path then parses it and, on bad input, reports the exact line. On valid simple
    files both paths give the same table.
    """
    try:
        with _open_bytes(path) as fh:
            first = fh.readline()
    except (OSError, EOFError, zlib.error, pa.ArrowException):
        return None  # the exact path names the problem
    if not first.strip() or b"\r" in first.rstrip(b"\r\n"):
        return None  # a blank first line (or an empty file), or a bare CR (a line end?), is not simple
    sep = "\t" if b"\t" in first else " "
    schema = {name: (dtypes or {}).get(name, pl.String()) for name in names}
    try:  # glob=False here and below: a file name with [ * ? is a name, not a pattern
        frame = _read_csv(
            path, has_header=False, separator=sep, quote_char=None, new_columns=list(names),
            schema_overrides=schema, truncate_ragged_lines=ragged, raise_if_empty=False)
    except (pl.exceptions.PolarsError, OSError, EOFError, zlib.error):
        return None  # the exact path names the problem (e.g. a truncated gzip file)
    if frame.height == 0 or frame.width != len(names):
        return None
    text = [n for n in names[:-1] if schema[n] == pl.String()]
    other = " " if sep == "\t" else "\t"
    # Runs of blanks leave an empty field; a stray other blank hides inside a field; too few
    # fields leave the last one null. Any of these sends the file to the exact path.
    checks = frame.select(
        (pl.all_horizontal([pl.col(c).str.len_bytes() > 0 for c in text]).all()
         & pl.col(names[-1]).is_not_null().all()
         & pl.all_horizontal([pl.col(c).is_not_null() for c in names]).all()).alias("complete"),
        pl.any_horizontal([pl.col(c).str.contains_any([other, "\r", "\x0b", "\x0c", "\x00"])  # half a regex's time
                           for c in text]).any().alias("mixed"),
        # polars takes a CR before LF off the last field: one left in it is a bare CR (a blank, or a line end)
        # (and a NUL, refused by the exact path)
        (pl.col(names[-1]).str.contains_any(["\r", "\x00"]).any() if schema[names[-1]] == pl.String()
         else pl.lit(False)).alias("bare_return"),
        pl.col(names[0]).str.starts_with("#").any().alias("comment"),
    ).row(0)
    if not checks[0] or any(checks[1:]):
        return None
    return frame


def pair_hash(frame: pl.DataFrame) -> pl.Series:
    """A 64-bit hash of each row's (qid, docno): equal pairs hash equal; distinct pairs collide with
    probability about 2**-64, so users of it confirm matches on the strings."""
    return frame.select(pl.col("docno").hash(0x5EED) ^ pl.col("qid").hash(0xC0FFEE)).to_series()


def _has_duplicate_pairs(frame: pl.DataFrame, pairs: pl.Series | None = None) -> bool:
    """Whether any (qid, docno) repeats (the exact path then names the lines).

    The pair hashes (``pairs``, computed when not given) are counted first: all distinct means no
    duplicate; otherwise (a real duplicate or, rarely, a hash collision) the exact grouped check decides.
    """
    # polars' one-thread sort: a third of numpy's CPU on 64-bit hashes, less than a parallel hash count
    pairs = (pair_hash(frame) if pairs is None else pairs).sort(multithreaded=False).to_numpy()
    if not (pairs[1:] == pairs[:-1]).any():
        return False
    return bool(frame.select(pl.col("docno").is_duplicated().over("qid").any()).item())


def _read_one_run(path: PathLike, system: str) -> pl.DataFrame:
    path = os.fspath(path)
    fast = _fast_fields(path, _RUN_FIELDS, ragged=True, dtypes={"score": pl.Float64()})
    if fast is not None and not bool(fast["score"].is_nan().any()) and not _has_duplicate_pairs(fast):
        return fast.select(pl.lit(system, dtype=pl.String).alias("system"), "qid", "docno", "score")
    fields = _split_fields(_refuse_bare_returns(_read_data_lines(path, "run"), path, "run"), _RUN_FIELDS)
    fields = fields.with_columns(pl.col("score").cast(pl.Float64, strict=False).alias("_score"))
    refuse_run_lines(path, *run_line_faults(fields))
    _check_duplicates(fields, path, "run")
    return fields.select(
        pl.lit(system, dtype=pl.String).alias("system"), "qid", "docno", pl.col("_score").alias("score"))


def run_line_faults(fields: pl.DataFrame) -> tuple[dict | None, dict | None, dict | None]:
    """The first line with fewer than six fields, with a score that is not a number, with a NaN score
    (rows of ``fields``: :func:`_split_fields` of run lines, with ``_score``, the score cast), or None."""
    return (_first_bad(fields, pl.col("tag").is_null()), _first_bad(fields, pl.col("_score").is_null()),
            _first_bad(fields, pl.col("_score").is_nan()))


def refuse_run_lines(path: str, short: dict | None, bad: dict | None, nan: dict | None) -> None:
    """The exact reader's InputFormatError for the first of these faults (in this order) that is found."""
    if short:
        found = _field_count(short["line"])
        _fail(f"expected at least 6 fields (qid Q0 docno rank score tag), found {found}"
              + line_hint(short["line"], "run", path), short, path, "run")
    if bad:
        _fail(f"score {bad['score']!r} is not a number" + line_hint(bad["line"], "run", path), bad, path, "run",
              column=5)
    if nan:
        _fail(f"score {nan['score']!r} is NaN (not a number), which cannot be ranked (inf and -inf can)", nan, path,
              "run", column=5)


def read_run(paths: PathLike | Iterable[PathLike], *, system: str | Sequence[str] | None = None) -> pl.DataFrame:
    """Read one or more TREC run files (plain, gzip or zstd: ``.gz``, ``.zst``) into one run table.

    Parameters
    ----------
    paths : path or iterable of paths
        Run files with lines ``qid Q0 docno rank score tag``; fields after the sixth are ignored
        (trec_eval's ``results.trunc`` has them). The rank column, the tag and the file order are
        ignored: ranking is always by score descending, then docno descending (trec_eval).
    system : str or sequence of str, optional
        System names, one per file. Default: the file name without ``.gz`` / ``.zst`` and without a leading
        ``input.`` (TREC's naming). The tag column is not used because real runs share tags.

    Returns
    -------
    polars.DataFrame
        Columns ``system, qid, docno`` (str) and ``score`` (float64), one row per retrieved document.

    Raises
    ------
    InputFormatError
        Empty file, fewer than 6 fields, a non-numeric or NaN score (the message names the file, the
        line, the column and the text). Scores ``inf`` / ``-inf`` (any spelling C's ``atof`` reads,
        e.g. ``Infinity``, ``1e400``) are kept and rank first / last, ties broken by docno, as in
        trec_eval.
    DuplicateError
        The same (qid, docno) twice in one run.
    ValueError
        Two files map to the same system name; an empty ``system`` name.
    TypeError
        ``paths`` is not a path or a list of paths (a table or dict: use :func:`pairedframe.as_run`).
    """
    path_list = path_list_of(paths, reader="read_run", argument="paths", many=True,
                             instead="for a run table or dict use pf.as_run (pf.evaluate takes tables as they are)")
    if not path_list:
        raise ValueError("read_run: no run files given")
    if system is None:
        names = [system_name_from_path(p) for p in path_list]
    elif isinstance(system, str):
        if len(path_list) != 1:
            raise ValueError(f"read_run: system={system!r} names one run but {len(path_list)} files were given")
        names = [system]
    else:
        names = list(system)
        if len(names) != len(path_list):
            raise ValueError(f"read_run: {len(names)} system names for {len(path_list)} files")
    for name in names if system is not None else ():
        check_system_name(name)
    seen: dict[str, PathLike] = {}
    for name, p in zip(names, path_list):
        if name in seen:
            raise ValueError(f"read_run: duplicate system name {name!r} for {seen[name]} and {p}; "
                             f"rename one of the files, or in Python pass system=[...] to name them apart")
        seen[name] = p
    with spooled(path_list) as readable:
        if len(readable) == 1:
            return _read_one_run(readable[0], names[0])
        # polars releases the GIL while parsing, so files (often gzipped) are read in parallel threads.
        with ThreadPoolExecutor(max_workers=min(len(readable), os.cpu_count() or 1)) as pool:
            frames = list(pool.map(_read_one_run, readable, names))
    return pl.concat(frames, rechunk=True)


def read_qrels(path: PathLike, *, grades: Grades = "strict", judgment_groups: bool = False) -> pl.DataFrame:
    """Read a TREC qrels file (plain, gzip or zstd: ``.gz``, ``.zst``).

    Parameters
    ----------
    path : path
        Lines ``qid iter docno rel`` with exactly 4 fields. ``rel`` is an integer grade; ``1.`` and
        ``1.0`` read as 1. Negative grades are kept: they mean "in the pool but unjudged"
        (trec_eval), i.e. never relevant, gain 0, and not judged non-relevant.
    grades : {"strict", "trec_eval"}
        ``"strict"`` (default): any other grade (``1.5``, ``1e3``, ``x``) is an error naming the
        line. ``"trec_eval"``: a grade that is a number is read as trec_eval reads it, by C's atol
        (its integer prefix: ``1.5`` -> 1, ``2.7`` -> 2, ``1e3`` -> 1, ``.5`` -> 0), with one
        UserWarning naming the first such line and its value; text that is not a number stays an error.
    judgment_groups : bool
        Keep the iteration column as ``jg``, the judgment group (assessor) of each line (trec_eval
        ``-R qrels_jg``); a document may then be judged once per group.

    Returns
    -------
    polars.DataFrame
        Columns ``qid, docno`` (str) and ``rel`` (int64), one row per judgment; with
        ``judgment_groups``, ``qid, jg, docno, rel``.

    Raises
    ------
    InputFormatError
        Empty file, a line without exactly 4 fields, a grade that is not an integer (a number, with
        ``grades="trec_eval"``).
    DuplicateError
        The same (qid, docno) judged twice (twice in one group, with ``judgment_groups``).
    TypeError
        ``path`` is not a path (a table or dict: use :func:`pairedframe.as_qrels`).

    Warns
    -----
    UserWarning
        Grades read as trec_eval reads them (``grades="trec_eval"``): once, naming the first line.
    """
    check_grades_option(grades)
    judgment_groups = require_bool(judgment_groups, "judgment_groups")
    path_list_of(path, reader="read_qrels", argument="path", instead="for a qrels table or dict use pf.as_qrels")
    with spooled([path]) as (readable,):
        return _read_qrels(readable, grades, judgment_groups)


def _read_qrels(path: str, grades: Grades = "strict", groups: bool = False) -> pl.DataFrame:
    columns = ["qid", "iter", "docno", "rel"] if groups else ["qid", "docno", "rel"]
    keys = ["qid", "iter", "docno"] if groups else ["qid", "docno"]
    fast = _fast_fields(path, _QRELS_FIELDS, ragged=False, dtypes={"rel": pl.Int64()})
    if fast is not None and not (fast.select(pl.struct(keys).is_duplicated().any()).item() if groups
                                 else _has_duplicate_pairs(fast)):
        return fast.select(columns).rename({"iter": "jg"}, strict=False)
    fields = _split_fields(_refuse_bare_returns(_read_data_lines(path, "qrels"), path, "qrels"), _QRELS_FIELDS)
    bad = _first_bad(fields, pl.col("rel").is_null() | pl.col("_extra").is_not_null())
    if bad:
        _fail(f"expected exactly 4 fields (qid iter docno rel), found {_field_count(bad['line'])}"
              + line_hint(bad["line"], "qrels", path), bad, path, "qrels")
    bad = _first_bad(fields, ~pl.col("rel").str.contains(INTEGER if grades == "strict" else NUMBER))
    if bad:
        hint = "; grades='trec_eval' reads a number as trec_eval does (1.5 -> 1)" \
            if grades == "strict" and re.fullmatch(NUMBER, bad["rel"]) else ""
        _fail(f"relevance grade {bad['rel']!r} is not {'an integer' if grades == 'strict' else 'a number'}"
              + hint + line_hint(bad["line"], "qrels", path), bad, path, "qrels", column=4)
    _check_duplicates(fields, path, "qrels", keys)
    fields = fields.with_columns(atol(pl.col("rel")).alias("_grade"))
    bad = _first_bad(fields, pl.col("_grade").is_null())
    if bad is not None:
        _fail(out_of_range(bad["rel"]), bad, path, "qrels", column=4)
    odd = fields.filter(~pl.col("rel").str.contains(INTEGER))
    if odd.height:
        first = odd.row(0, named=True)
        warn_read_as_trec_eval(odd.height, f"qrels file {path}, line {first['line_no']}", first["rel"], first["_grade"])
    return fields.select(*columns[:-1], pl.col("_grade").alias("rel")).rename({"iter": "jg"}, strict=False)


def read_run_tag(path: PathLike) -> str:
    """The tag (6th field) of the LAST data line of a run file: trec_eval prints it as ``runid`` (see
    :mod:`pairedframe.io.run_tag`); an empty string when that line has fewer than 6 fields.
    """
    try:
        with _open_bytes(os.fspath(path)) as stream:
            return last_run_tag(stream, plain=is_plain(stream))
    except (OSError, EOFError, zlib.error, pa.ArrowException):
        return ""
