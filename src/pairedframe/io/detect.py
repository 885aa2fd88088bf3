"""Which kind of file a run, qrels or per-query path is: TREC text, or a table (Parquet, Arrow IPC, CSV/TSV).

Detection reads the first bytes, never trusts the extension alone:

- ``PAR1`` at the start: Parquet;
- ``ARROW1`` (IPC file / Feather v2) or the ``0xFFFFFFFF`` continuation marker (IPC stream): Arrow IPC;
- text (plain, gzip or zstd, with or without a UTF-8 byte order mark) whose first non-blank,
  non-``#`` line is a header naming the columns
  -- split by a tab or a comma, it holds a query-id column (``qid``, ``query_id``, ``query``) and, for
  runs and qrels, a document column (``docno``, ``doc_id``, ``docid``, ``doc``): TSV or CSV;
- other text: TREC text (``qid Q0 docno rank score tag`` / ``qid iter docno rel``);
- UTF-16 text (a byte order mark FF FE / FE FF, or a NUL every other byte): an error saying so, to save
  it as UTF-8;
- anything else (a NUL byte in the first 64 KiB of a file that is not gzip or zstd): an error naming
  the argument (run, qrels, results) and the file.
"""

from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path
from typing import Literal

import polars as pl

from pairedframe.errors import InputFormatError, missing_file
from pairedframe.io.csv_columns import NUMBER_COLUMNS, ragged_line_error, typed_columns
from pairedframe.io.encoding import utf16_problem
from pairedframe.io.line_ends import nul_byte_error, nul_byte_line

__all__ = ["TABLE_FORMATS", "detect_format", "file_head", "is_table_file", "read_table_file", "run_name", "table_system_name"]

TABLE_FORMATS = ("parquet", "arrow", "csv", "tsv")
Format = Literal["trec", "parquet", "arrow", "csv", "tsv"]

_QID_NAMES = {"qid", "query_id", "query"}
_DOC_NAMES = {"docno", "doc_id", "docid", "doc"}
_HEAD_BYTES = 65536
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def file_head(path: str) -> tuple[bytes, bool]:
    """First bytes of the file (decompressed when gzip or zstd) and whether it is compressed."""
    with open(path, "rb") as fh:
        raw = fh.read(_HEAD_BYTES)
    if raw[:2] != b"\x1f\x8b" and raw[:4] != _ZSTD_MAGIC:
        return raw, False
    import pyarrow as pa  # zstd, as the TREC reader decompresses it

    try:
        if raw[:2] == b"\x1f\x8b":
            with gzip.open(path, "rb") as fh:
                return fh.read(_HEAD_BYTES), True
        with pa.input_stream(path, compression="zstd") as fh:
            return fh.read(_HEAD_BYTES), True
    except (OSError, EOFError, zlib.error, pa.ArrowException):
        return b"", True            # the TREC reader reports the corrupt file exactly


def _header_format(text: bytes, needs_doc: bool) -> Format | None:
    text = text.removeprefix(b"\xef\xbb\xbf")  # a UTF-8 byte order mark, as spreadsheets write CSV
    for raw in text.split(b"\n"):
        line = raw.strip(b" \t\r").decode("utf-8", "replace")
        if not line or line.startswith("#"):
            continue
        for sep, kind in (("\t", "tsv"), (",", "csv")):
            names = {f.strip().strip('"').lower() for f in line.split(sep)}
            if len(names) > 1 and names & _QID_NAMES and (not needs_doc or names & _DOC_NAMES):
                return kind  # type: ignore[return-value]
        return None
    return None


def _text_before_nul(head: bytes) -> bool:
    """Whether ``head`` is text up to its first NUL (a whole line at least, no other control byte): a text
    file with a NUL in it, not binary data."""
    before = head[:head.find(b"\x00")]
    return b"\n" in before and not any(b < 0x20 and b not in b"\t\n\r\x0b\x0c" for b in before)


def detect_format(path: str | os.PathLike[str], *, what: str = "run") -> Format:
    """The kind of file at ``path``, from its first bytes (module docstring).

    Parameters
    ----------
    path : path
        An existing file.
    what : {"run", "qrels", "results"}
        The argument the file was given as: it names the file in errors, and a CSV/TSV header of a
        run or qrels must also name a document column.

    Returns
    -------
    {"trec", "parquet", "arrow", "csv", "tsv"}

    Raises
    ------
    FileNotFoundError
        No such file (the message names the argument, ``what``).
    InputFormatError
        The file is binary but neither Parquet nor Arrow IPC, or UTF-16 text (names the argument and the file).
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise missing_file(path, what)
    if os.path.isdir(path):
        raise InputFormatError(f"the {what} argument is a directory, not a file", path=path)
    with open(path, "rb") as fh:
        magic = fh.read(8)
    if magic[:4] == b"PAR1":
        return "parquet"
    if magic[:6] == b"ARROW1" or magic[:4] == b"\xff\xff\xff\xff":
        return "arrow"
    head, compressed = file_head(path)
    problem = utf16_problem(head)
    if problem is not None:
        raise InputFormatError(f"the {what} argument {problem}", path=path)
    nul = nul_byte_line(head)
    if nul is not None and _text_before_nul(head):
        raise nul_byte_error(path, what, nul)   # text with a NUL in it: the TREC readers' error
    if not compressed and nul is not None:
        raise InputFormatError(
            f"the {what} argument is neither a TREC text file nor a table (Parquet, Arrow IPC, or CSV/TSV with a "
            f"header row naming qid{'' if what == 'results' else ', docno'}, ...): it holds binary data",
            path=path)
    return _header_format(head, needs_doc=what != "results") or "trec"


def is_table_file(path: str | os.PathLike[str], *, what: str = "run") -> bool:
    """True when :func:`detect_format` finds a table (Parquet, Arrow IPC, CSV, TSV) rather than TREC text."""
    return detect_format(path, what=what) != "trec"


def table_system_name(path: str | os.PathLike[str]) -> str:
    """``runs/input.bm25.parquet`` -> ``bm25``: the file name without compression and table
    extensions and without a leading ``input.``."""
    name = Path(path).name
    for ext in (".gz", ".zst", ".parquet", ".pq", ".arrow", ".feather", ".ipc", ".csv", ".tsv", ".txt"):
        if name.lower().endswith(ext) and len(name) > len(ext):
            name = name[: -len(ext)]
    if name.startswith("input.") and len(name) > len("input."):
        name = name[len("input."):]
    return name


def run_name(path: str | os.PathLike[str]) -> str:
    """The system name of a run file as :func:`pairedframe.evaluate` gives it: TREC's naming for text
    files (:func:`pairedframe.io.trec.system_name_from_path`), :func:`table_system_name` for tables."""
    from pairedframe.io.trec import system_name_from_path

    return table_system_name(path) if is_table_file(path, what="run") else system_name_from_path(path)


def read_table_file(path: str | os.PathLike[str], *, what: str = "run", fmt: Format | None = None) -> pl.DataFrame:
    """Read a Parquet, Arrow IPC or CSV/TSV file (detected by :func:`detect_format`) into polars.

    Parameters
    ----------
    path : path
    what : {"run", "qrels", "results"}
        Names the argument in errors.
    fmt : str, optional
        The format when already detected.

    Returns
    -------
    polars.DataFrame
        The table as stored; a CSV/TSV file's columns are read as text (``007`` stays ``007``) but its
        number columns, typed by name from every row (a run's ``score``, a qrels table's grade:
        :func:`pairedframe.io.csv_columns.typed_columns`).

    Raises
    ------
    InputFormatError
        The file is TREC text (not a table), or polars cannot read it, or a run or qrels table holds no
        rows (a header alone); each names the argument and file; a CSV/TSV score that is no number names
        the line too.
    """
    path = os.fspath(path)
    fmt = fmt or detect_format(path, what=what)
    table = _read_table(path, what, fmt)
    if table.height == 0 and what in ("run", "qrels"):   # named here, where the file is known
        raise InputFormatError(f"empty table: no rows ({fmt}, columns {', '.join(table.columns) or 'none'})",
                               path=path, argument=what)
    return table


def _read_table(path: str, what: str, fmt: Format) -> pl.DataFrame:
    """The table file ``path`` read by polars (:func:`read_table_file`)."""
    try:
        if fmt == "parquet":
            return pl.read_parquet(path, glob=False)
        if fmt == "arrow":
            try:
                return pl.read_ipc(path)
            except pl.exceptions.PolarsError:
                return pl.read_ipc_stream(path)
        if fmt in ("csv", "tsv"):
            sep = "\t" if fmt == "tsv" else ","
            # every column as text, the number columns then typed by name from every row (polars' inference
            # from the first 100 rows refused a score 1.5 after 100 integer ones)
            table = pl.read_csv(path, separator=sep, infer_schema=False, glob=False, comment_prefix="#")
            return table if what not in NUMBER_COLUMNS else typed_columns(table, path, fmt, what)
    except (pl.exceptions.PolarsError, OSError) as exc:
        ragged = ragged_line_error(path, fmt, what) if fmt in ("csv", "tsv") else None
        raise ragged or InputFormatError(f"the {what} argument looks like a {fmt} table but cannot be read: {exc}",
                                         path=path) from None
    raise InputFormatError(f"the {what} argument is a TREC text file, not a table", path=path)
