"""``pairedframe sql``: print the DuckDB macro script (``pairedframe sql > pairedframe.sql``)."""

from __future__ import annotations

import sys

from pairedframe.cli.common import app, friendly_errors


@app.command("sql")
@friendly_errors
def sql_cmd() -> None:
    """Print pairedframe's DuckDB macros (pf_evaluate, pf_summary, pf_compare, pf_read_run, pf_read_qrels) as SQL.

    Save and load them in any DuckDB client: pairedframe sql > pairedframe.sql, then .read pairedframe.sql
    in the DuckDB shell (or execute the file's text from R, Java, ...). The script matches this pairedframe version
    and needs DuckDB >= 1.4.2 in the client that reads it. That client is not this Python's duckdb, so an older
    duckdb here only warns (on stderr); pf.duckdb.register, where it is the client, refuses it.
    """
    import typer

    from pairedframe.errors import PairedFrameError
    from pairedframe.sql_macros import MIN_DUCKDB, check_duckdb, script

    try:
        check_duckdb()
    except PairedFrameError as exc:
        need = ".".join(map(str, MIN_DUCKDB))
        typer.echo(f"pairedframe: warning: the printed macros need DuckDB >= {need} in the client that reads them "
                   f"(the DuckDB shell, R, Java: SELECT version() there); pf.duckdb.register refuses this Python's: {exc}",
                   err=True)
    sys.stdout.write(script())
