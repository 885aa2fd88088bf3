"""Line ends the TREC readers refuse: a bare carriage return (CR without LF, as old Mac OS wrote text); and
NUL bytes, where trec_eval, which reads its input as C strings, stops reading.

trec_eval ends a line at LF only and takes a CR inside a line for a blank, as do the readers here: a file
whose lines end in a bare CR would be one long line (the later lines ignored as trailing fields). A CR
inside a line is still a blank between fields (``d2\\r2``); it is refused as a line end where it follows a
whole line's fields (six for a run, four for qrels) and more text follows it.
"""

from __future__ import annotations

import polars as pl

from pairedframe.errors import InputFormatError

__all__ = ["bare_return_line", "bare_return_error", "head_bare_return_line", "nul_byte_error", "nul_byte_line"]

_FIELD = r"[^ \t\r\x0b\x0c]+"
_BLANKS = r"[ \t\r\x0b\x0c]+"


def _ends_in_bare_return(fields: int) -> pl.Expr:
    """A stripped ``line`` that holds ``fields`` fields, then a CR, then more text (lines are split at LF
    and stripped, so every CR left in one has text after it)."""
    return pl.col("line").str.contains(f"^(?:{_FIELD}{_BLANKS}){{{fields - 1}}}{_FIELD}.*\r")


def bare_return_line(lines: pl.DataFrame, fields: int) -> dict | None:
    """The first row of ``lines`` (``line_no, line``: stripped data lines) whose line goes on after a bare CR
    that follows ``fields`` fields, or None; the CR test first (a memchr search), the regex on those only."""
    suspects = lines.filter(pl.col("line").str.contains("\r", literal=True))
    if not suspects.height:
        return None
    bad = suspects.filter(_ends_in_bare_return(fields)).head(1)
    return bad.row(0, named=True) if bad.height else None


def head_bare_return_line(head: bytes, fields: int) -> dict | None:
    """:func:`bare_return_line` of a file's first bytes (``head``, decompressed): lines that end in a bare CR
    do so from the first line on, so the head tells a reader that splits lines itself (Spark's text source
    takes a bare CR for a line end) to refuse the file as the local readers do."""
    lines = pl.Series("line", [head.decode("utf-8", "replace").removeprefix("\ufeff")]).str.split("\n").explode()
    lines = pl.DataFrame({"line_no": pl.int_range(1, len(lines) + 1, eager=True),
                          "line": lines.str.strip_chars(" \t\r\n\x0b\x0c")})
    return bare_return_line(lines.filter((pl.col("line") != "") & ~pl.col("line").str.starts_with("#")), fields)


def bare_return_error(path: str, what: str, row: dict) -> InputFormatError:
    """The error for a file whose lines end in a bare CR, quoting line ``row`` up to its first CR."""
    return InputFormatError(
        "the lines end in a bare carriage return (CR, '\\r', without LF, as old Mac OS wrote text), which "
        f"TREC {what} readers (trec_eval too) do not take as a line end, so the lines after it would be read "
        "as trailing fields of this one: convert the line ends to LF (e.g. tr '\\r' '\\n' < old > new)",
        path=path, line=int(row["line_no"]), text=row["line"].split("\r", 1)[0][:200], argument=what)


def nul_byte_line(text: bytes) -> int | None:
    """The 1-based line of the first NUL byte in ``text`` (a file's bytes from its start), or None."""
    at = text.find(b"\x00")
    return None if at < 0 else text.count(b"\n", 0, at) + 1


def nul_byte_error(path: str, what: str, line: int, text: str | None = None) -> InputFormatError:
    """The error for a TREC ``what`` file holding a NUL byte on ``line``."""
    return InputFormatError(
        "a NUL byte ('\\0'), which no text file holds: trec_eval reads its input as C strings and would stop "
        "reading there, ignoring the rest of the file; is the file binary, or was it cut off while written?",
        path=path, line=line, text=text, argument=what)
