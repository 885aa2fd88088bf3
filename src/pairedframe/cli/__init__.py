"""Command-line interface: ``pairedframe evaluate | compare | example | sql | ...``."""

import io
import sys

from pairedframe.cli import evaluate_cmd, example_cmd  # noqa: F401  (registers the subcommands)
from pairedframe.cli import compare_cmd  # noqa: F401,E402  (registers compare)
from pairedframe.cli import analyze_cmd  # noqa: F401,E402  (registers analyze)
from pairedframe.cli import segments_cmd  # noqa: F401,E402  (registers segments)
from pairedframe.cli import table_cmd  # noqa: F401,E402  (registers table)
from pairedframe.cli import report_cmd  # noqa: F401,E402  (registers report)
from pairedframe.cli import sql_cmd  # noqa: F401,E402  (registers sql)
from pairedframe.cli import leaderboard_cmd  # noqa: F401,E402  (registers leaderboard)
from pairedframe.cli.common import app


def _buffer_unbuffered_stdout() -> None:
    """Under ``python -u`` / ``PYTHONUNBUFFERED`` stdout writes straight to the raw file, and a write the
    kernel cuts short when the reader leaves (``| head -1``) is dropped without an error, so the command
    exited 0, not 141.  A line-buffered writer in between retries the rest and so sees the closed pipe."""
    raw = getattr(sys.stdout, "buffer", None)
    if isinstance(raw, io.RawIOBase):
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(raw), encoding=sys.stdout.encoding,
                                      errors=sys.stdout.errors, line_buffering=True, write_through=True)


def main() -> None:
    """Entry point of the ``pairedframe`` console script."""
    _buffer_unbuffered_stdout()
    app()


__all__ = ["app", "main"]
