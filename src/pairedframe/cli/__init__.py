"""Command-line interface: ``pairedframe evaluate | compare | example | sql | ...``."""

from pairedframe.cli import evaluate_cmd, example_cmd  # noqa: F401  (registers the subcommands)
from pairedframe.cli import compare_cmd  # noqa: F401,E402  (registers compare)
from pairedframe.cli import analyze_cmd  # noqa: F401,E402  (registers analyze)
from pairedframe.cli import segments_cmd  # noqa: F401,E402  (registers segments)
from pairedframe.cli import table_cmd  # noqa: F401,E402  (registers table)
from pairedframe.cli import report_cmd  # noqa: F401,E402  (registers report)
from pairedframe.cli import sql_cmd  # noqa: F401,E402  (registers sql)
from pairedframe.cli.common import app


def main() -> None:
    """Entry point of the ``pairedframe`` console script."""
    app()


__all__ = ["app", "main"]
