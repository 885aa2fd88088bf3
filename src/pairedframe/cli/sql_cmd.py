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
    and needs DuckDB >= 1.4.2: an older installed duckdb is refused.
    """
    from pairedframe.sql_macros import check_duckdb, script

    check_duckdb()
    sys.stdout.write(script())
