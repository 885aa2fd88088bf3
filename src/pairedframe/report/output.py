"""Output paths are checked before any work: a missing folder is an error naming the argument, not a
"no such file" after minutes of computation."""

from __future__ import annotations

from pathlib import Path

__all__ = ["require_output_folder"]


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
        The folder does not exist, or is a file.
    """
    out = Path(path)
    folder = out.parent
    if not folder.is_dir():
        state = "is a file, not a folder" if folder.exists() else "does not exist"
        raise ValueError(f"{argument} {str(out)!r}: the folder {str(folder)!r} {state}; create it first")
    return out
