"""The tag trec_eval prints as a run's ``runid``: the 6th field of the run file's LAST data line (get_results.c
keeps the tag of every line it reads, so the last one read wins), whatever tags the lines before hold.

A plain file is read backwards from its end (a few KiB, whatever its size); a compressed stream is read
through once, in large chunks, keeping only the last data line seen.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterator, Mapping
from typing import BinaryIO

__all__ = ["is_plain", "last_run_tag", "RunTags"]

#: The first bytes of a gzip or zstd stream: such a run is read through for its last line.
_COMPRESSED_MAGIC = (b"\x1f\x8b", b"\x28\xb5\x2f\xfd")

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


def _compressed(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return False
    return any(head.startswith(magic) for magic in _COMPRESSED_MAGIC)


class RunTags(Mapping[str, str]):
    """system -> runid, read (with ``read``, e.g. :func:`pairedframe.io.trec.read_run_tag`) at once from a
    plain file (its last few KiB) and from a compressed one only when asked for, then kept: that run is
    read through for its last line, which only trec_eval's text output needs."""

    def __init__(self, paths: Mapping[str, str], read: Callable[[str], str]) -> None:
        self._paths, self._read = dict(paths), read
        self._tags = {name: read(path) for name, path in self._paths.items() if not _compressed(path)}

    def __getitem__(self, system: str) -> str:
        if system not in self._tags:
            self._tags[system] = self._read(self._paths[system])
        return self._tags[system]

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)
