"""``--output FILE``: a benchmark's printed tables also go to a file (``docs/results/`` holds the ones the
documentation includes), headed by the command that printed them."""

from __future__ import annotations

import contextlib
import datetime
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path


class _Tee:
    def __init__(self, *streams) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for s in self.streams:
            s.write(text)
        return len(text)

    def flush(self) -> None:
        for s in self.streams:
            s.flush()


@contextlib.contextmanager
def output_to(path: str | Path | None) -> Iterator[None]:
    """Copy stdout into ``path`` (nothing when None); the file starts with the command and the date."""
    if path is None:
        yield
        return
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    # the command as typed (``sys.orig_argv``): a folder's entry rewrites sys.argv for its section
    script, *args = getattr(sys, "orig_argv", [sys.executable, *sys.argv])[1:]
    try:
        script = str(Path(script).resolve().relative_to(Path(__file__).resolve().parents[1]))
    except ValueError:
        pass
    with open(out, "w", encoding="utf-8") as fh:
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        fh.write(f"<!-- printed by: python {shlex.join([str(script), *args])} ({stamp}) -->\n\n")
        old = sys.stdout
        sys.stdout = _Tee(old, fh)
        try:
            yield
        finally:
            sys.stdout = old
