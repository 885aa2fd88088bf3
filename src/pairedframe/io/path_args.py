"""The path arguments of the file readers (``read_run``, ``read_qrels``, ...), and the names taken from paths.

A table, dict or number given where a file is read is refused with a TypeError naming the reader, the
argument and what was given, and pointing to the function that takes it. It is never iterated as if
it were paths: a pandas DataFrame iterates as its column names, a dict as its keys, a polars
DataFrame as its Series, so each would fail later with a library's message about the wrong thing.
A directory is refused naming the reader and the argument (Python's own error is ``[Errno 21] Is a directory``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from pairedframe.errors import InputFormatError

PathLike = str | os.PathLike[str]

#: File name endings of the compressions the readers decompress (recognised by magic number, not by name).
COMPRESSED_SUFFIXES = (".gz", ".zst")


def uncompressed_name(name: str) -> str:
    """``name`` without a compression suffix (:data:`COMPRESSED_SUFFIXES`)."""
    return next((name[:-len(s)] for s in COMPRESSED_SUFFIXES if name.endswith(s) and len(name) > len(s)), name)


def system_name_from_path(path: PathLike) -> str:
    """TREC's naming: the file name without a compression suffix (``.gz``, ``.zst``) and without a
    leading ``input.``."""
    name = uncompressed_name(Path(path).name)
    if name.startswith("input.") and len(name) > len("input."):
        name = name[len("input."):]
    if not name.strip():  # a file ' ' or 'input. ': a blank system, which no baseline= can name (the macros refuse it)
        raise ValueError(f"run file {os.fspath(path)!r}: a system name is empty or made of blanks only: TREC's naming "
                         f"(the file name without .gz / .zst and a leading 'input.') gives {name!r}; name the run: "
                         "{name: path} in Python, NAME=PATH on the command line")
    return name


def source_label(name: Any, source: Any) -> str:
    """A named input's label for messages, with its file when it was given as a path: ``'llm' (file llm.txt)``
    (a judgment set, a label set)."""
    return f"{str(name)!r} (file {os.fspath(source)})" if isinstance(source, (str, os.PathLike)) else repr(str(name))


def _kind(value: Any) -> str:
    """``value``'s type as a user names it: ``a dict``, ``an int``, ``a pandas DataFrame``."""
    cls = type(value)
    package = cls.__module__.split(".")[0]
    name = cls.__name__ if package == "builtins" else f"{package} {cls.__name__}"
    return f"{'an' if name[0].lower() in 'aeiou' else 'a'} {name}"


def _not_paths(value: Any) -> bool:
    """Tables, series, arrays and dicts: iterating them yields column names, keys or values, never paths."""
    return isinstance(value, (Mapping, bytes)) or any(
        hasattr(value, a) for a in ("columns", "column_names", "dtype", "schema"))


def path_list(value: Any, *, reader: str, argument: str, instead: str, many: bool = False,
              directories: bool = False) -> list[PathLike]:
    """``value`` as a list of paths: one path, or with ``many`` an iterable of paths (a list, a generator).

    Parameters
    ----------
    value : Any
        What the caller gave as ``argument``.
    reader : str
        The reader's name, e.g. ``read_run``.
    argument : str
        Its parameter, e.g. ``paths``.
    instead : str
        What to use for a table or dict, e.g. ``"for a table or dict use pf.as_run"``.
    many : bool
        Whether the reader takes several files.
    directories : bool
        Leave a directory to the reader (whose own message names it), instead of refusing it here.

    Raises
    ------
    TypeError
        ``value`` (or one of its items) is not a ``str`` or ``os.PathLike``.
    InputFormatError
        A path is a directory (named with the reader and the argument, not Python's ``Is a directory``).
    """
    if isinstance(value, (str, os.PathLike)):
        if not directories:
            _check_not_directory(value, f"{reader}: the {argument} argument")
        return [value]
    if not many or _not_paths(value) or not isinstance(value, Iterable):
        files = "files (a path or a list of paths)" if many else "a file (a path)"
        raise TypeError(f"{reader} reads {files}, but `{argument}` is {_kind(value)}; {instead}")
    items = list(value)
    for i, item in enumerate(items):
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"{reader} reads files, but item {i} of `{argument}` is {_kind(item)}, not a path; "
                            f"{instead}")
        if not directories:
            _check_not_directory(item, f"{reader}: item {i} of the {argument} argument")
    return items


def _check_not_directory(path: PathLike, which: str) -> None:
    if os.path.isdir(path):
        raise InputFormatError(f"{which} is a directory, not a file", path=os.fspath(path))
