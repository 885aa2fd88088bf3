"""Text encodings the readers recognise in order to refuse them by name (UTF-8 is the only one they read)."""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import BinaryIO

from pairedframe.errors import InputFormatError

__all__ = ["utf16_problem", "utf16_error"]


def utf16_problem(head: bytes) -> str | None:
    """What to tell the user when ``head`` (a file's first bytes, decompressed) looks like UTF-16 text, else
    None: a NUL in every other byte of its start (UTF-16 writes an ASCII character as the character and a
    NUL), at least half of them after a UTF-16 byte order mark (FF FE, FE FF), nine in ten without one.
    PowerShell's ``>`` and some Windows editors write UTF-16."""
    sample = head[:512 - len(head[:512]) % 2]
    halves = (sample[0::2], sample[1::2])           # NULs in the odd half: little-endian
    if len(halves[1]) < 2:
        return None
    share = [h.count(0) / len(h) for h in halves]
    bom = {b"\xff\xfe": 1, b"\xfe\xff": 0}.get(head[:2])
    nul = bom if bom is not None else (1 if share[1] >= share[0] else 0)
    if share[nul] < (0.5 if bom is not None else 0.9) or share[1 - nul] > 0.1:
        return None
    sign = (f"it starts with the UTF-16 byte order mark {head[:2].hex(' ').upper()}" if bom is not None
            else "every other byte is NUL")
    return (f"looks like UTF-16 text ({sign}), not UTF-8: save it as UTF-8 (e.g. iconv -f UTF-16 -t UTF-8, "
            f"or UTF-8 in the editor's Save As)")


def utf16_error(path: str, what: str, open_bytes: Callable[[str], BinaryIO]) -> InputFormatError | None:
    """The error for a UTF-16 file (its bytes read through ``open_bytes``, which decompresses), else
    None. Only on the error paths: such a file never parses (a NUL every other byte), so a good file
    pays nothing for the check."""
    import pyarrow as pa

    try:
        with open_bytes(path) as fh:
            head = fh.read(4096)
    except (OSError, EOFError, zlib.error, pa.ArrowException):
        return None
    problem = utf16_problem(head)
    return None if problem is None else InputFormatError(problem, path=path, argument=what)
