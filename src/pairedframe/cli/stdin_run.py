"""``-`` as a run argument: the run read from standard input, as trec_eval reads a results file ``-``.

Standard input is copied to a temporary file once (a pipe is read once; the readers open a file more
than once), so memory stays bounded whatever its size. The copy is named ``stdin``: the system's name,
as a file's name names any other run (``NAME=-`` names it otherwise; trec_eval's runid is still the tag
field). An error about the copy names ``-`` (standard input), never the temporary path.
"""

from __future__ import annotations

import contextlib
import copy
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextvars import ContextVar

#: The argument that stands for standard input.
STDIN_ARGUMENT = "-"
#: How messages name it.
STDIN_LABEL = "- (standard input)"


class _StdinCopy:
    """Standard input, copied to a temporary file the first time a command asks for it."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.path: str | None = None
        self.taken_by: str | None = None

    def take(self, argument: str) -> str:
        """The copy's path for ``argument`` (``run argument 2``); ValueError when another argument took it."""
        if self.taken_by is not None:
            raise ValueError(f"{argument} is '-' (standard input), and so is {self.taken_by}: standard input "
                             "can be read once, so only one argument may be '-'")
        if sys.stdin is None or sys.stdin.isatty():
            raise ValueError(f"{argument} is '-', which reads the run from standard input, but standard input is a "
                             "terminal: pipe the run in (cat run.txt | pairedframe evaluate QRELS -)")
        self.path = os.path.join(self.folder, "stdin")
        with open(self.path, "wb") as copied:
            shutil.copyfileobj(sys.stdin.buffer, copied)
        self.taken_by = argument
        return self.path


_current: ContextVar[_StdinCopy | None] = ContextVar("pairedframe_stdin_copy", default=None)


@contextlib.contextmanager
def stdin_readable() -> Iterator[None]:
    """One command's access to standard input (:func:`stdin_path`): the copy lives until the command
    ends, and an error naming it names ``-`` instead (same class and attributes)."""
    with tempfile.TemporaryDirectory(prefix="pairedframe-stdin-") as folder:
        spool = _StdinCopy(folder)
        token = _current.set(spool)
        try:
            yield
        except Exception as exc:
            if spool.path is None or spool.path not in str(exc):
                raise
            raise _named_as_stdin(exc, spool.path) from None
        finally:
            _current.reset(token)


def refuse_stdin_qrels(qrels: object) -> None:
    """ValueError when the QRELS argument is ``-`` (and no file is named ``-``): as trec_eval, only a run
    is read from standard input; qrels read from a pipe would also leave ``-`` ambiguous next to a run ``-``."""
    if qrels is not None and str(qrels) == STDIN_ARGUMENT and not os.path.exists(STDIN_ARGUMENT):
        raise ValueError("QRELS is '-': qrels cannot be read from standard input (as in trec_eval, only a run "
                         "is); give the qrels file's path (a shell's <(...) works), and a run may be '-'")


def stdin_path(argument: str) -> str:
    """The path of standard input's copy, for ``argument`` (``run argument 1``), inside a command."""
    spool = _current.get()
    if spool is None:
        raise RuntimeError("'-' (standard input) is read inside a command only (cli.stdin_run.stdin_readable)")
    return spool.take(argument)


def _named_as_stdin(exc: Exception, path: str) -> Exception:
    """``exc`` with the copy's path replaced by ``-`` (standard input) in its message and path attribute."""
    named = copy.copy(exc)
    named.args = tuple(a.replace(path, STDIN_LABEL) if isinstance(a, str) else a for a in exc.args)
    if getattr(exc, "path", None) == path:
        named.path = STDIN_LABEL  # type: ignore[attr-defined]
    return named.with_traceback(exc.__traceback__)
