"""Output paths are checked before any work: a missing folder is an error naming the argument, not a
"no such file" after minutes of computation; names with control characters are written visibly."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

__all__ = ["require_output_folder", "json_text", "visible_controls"]

#: Control characters other than tab and newline: not allowed in XML (SVG), unprintable elsewhere.
_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F)}


def visible_controls(text: str) -> str:
    """``text`` with each control character (not tab or newline) written as its escape, ``\\x1b``: a name
    holding one made an SVG figure malformed XML (a broken image in the report) and printed as nothing."""
    return text.translate(_CONTROLS)


def _finite_or_none(obj: Any) -> Any:
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite_or_none(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite_or_none(v) for v in obj]
    return obj


def json_text(obj: Any, **kwargs: Any) -> str:
    """``obj`` as standard JSON text ending with a newline: a non-finite float (an unbounded interval
    end such as a one-sided interval's ``inf``, or a NaN p-value) becomes ``null``, since JSON has no
    Infinity or NaN and most readers reject them; other values that JSON lacks are written with ``str``."""
    return json.dumps(_finite_or_none(obj), indent=1, allow_nan=False, default=str, **kwargs) + "\n"


def require_output_folder(path: str | Path, argument: str) -> Path:
    """``path`` as a Path, after checking that the folder it is written into exists.

    Parameters
    ----------
    path : str or Path
        A file to be written (it need not exist).
    argument : str
        The argument or option that named it (``"path"``, ``"--output"``), for the message.

    Returns
    -------
    Path

    Raises
    ------
    ValueError
        The folder does not exist, or is a file; or ``path`` itself is a folder.
    """
    out = Path(path)
    folder = out.parent
    if not folder.is_dir():
        state = "is a file, not a folder" if folder.exists() else "does not exist"
        raise ValueError(f"{argument} {str(out)!r}: the folder {str(folder)!r} {state}; create it first")
    if out.is_dir():  # else the write fails after the work with [Errno 21]
        raise ValueError(f"{argument} {str(out)!r} is a folder; name the file to write")
    return out
