"""The tag trec_eval prints as a run's ``runid``: the 6th field of the run file's LAST data line (get_results.c
keeps the tag of every line it reads, so the last one read wins), whatever tags the lines before hold.

A plain file is read backwards from its end (a few KiB, whatever its size); a compressed stream is read
through once, in large chunks, keeping only the last data line seen.
"""

from __future__ import annotations

import io
import os
import re
from typing import BinaryIO

__all__ = ["is_plain", "last_run_tag"]

_BLANKS = re.compile(rb"[ \t\r\n\x0b\x0c]+")
_CHUNK = 1 << 20


def _tag_of(line: bytes) -> str | None:
    """The tag of a data line ('' when it has fewer than 6 fields); None for a blank or comment line."""
    fields = _BLANKS.split(line.strip(b" \t\r\n\x0b\x0c"))
    if not fields[0] or fields[0].startswith(b"#"):
        return None
    return fields[5].decode("utf-8", "replace") if len(fields) >= 6 else ""


def _last_tag_in(block: bytes) -> str | None:
    """The tag of the last data line among the whole lines of ``block`` (scanned from its end)."""
    end = len(block)
    while end > 0:
        start = block.rfind(b"\n", 0, end) + 1
        tag = _tag_of(block[start:end])
        if tag is not None:
            return tag
        end = start - 1
    return None


def _backwards(stream: BinaryIO, size: int) -> str | None:
    """A seekable file read from its end in growing blocks, until a whole data line is inside one."""
    block = 1 << 14
    while True:
        start = max(0, size - block)
        stream.seek(start)
        data = stream.read(size - start)
        first = data.find(b"\n") + 1 if start > 0 else 0   # a line cut by the block's start is not whole
        tag = _last_tag_in(data[first:])
        if tag is not None or start == 0:
            return tag
        block *= 4


def _forwards(stream: BinaryIO) -> str | None:
    """A stream read once (a decompressed file), keeping the last data line's tag."""
    last, carry = None, b""
    while chunk := stream.read(_CHUNK):
        data = carry + chunk
        cut = data.rfind(b"\n") + 1
        tag = _last_tag_in(data[:cut]) if cut else None
        last, carry = (tag if tag is not None else last), data[cut:]
    tag = _last_tag_in(carry) if carry else None
    return tag if tag is not None else last


def last_run_tag(stream: BinaryIO, *, plain: bool) -> str:
    """The 6th field of the last data line of ``stream`` (not blank, not a ``#`` comment): '' when that
    line has fewer than 6 fields or there is none. ``plain``: an uncompressed, seekable file."""
    if plain:
        size = stream.seek(0, io.SEEK_END)
        tag = _backwards(stream, size)
    else:
        tag = _forwards(stream)
    return tag or ""


def is_plain(stream: BinaryIO) -> bool:
    """Whether ``stream`` is a regular file's own bytes (seekable to its end cheaply)."""
    try:
        return isinstance(stream, io.BufferedReader) and os.path.isfile(stream.name) and stream.seekable()
    except (AttributeError, TypeError, OSError):
        return False
