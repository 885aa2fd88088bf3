"""Load the SQL shipped in ``sql/`` (installed as ``pairedframe/_sql`` inside the wheel); the blank-id rule in SQL."""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from pathlib import Path

from pairedframe.errors import BLANK_ID_PATTERN

PARAM_PATTERN = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")


def sql_dir() -> Path:
    """Folder holding the SQL files: the installed ``pairedframe/_sql`` or, in a source checkout
    installed in editable mode, the repository's top-level ``sql/``."""
    installed = resources.files("pairedframe") / "_sql"
    if installed.is_dir():
        return Path(str(installed))
    checkout = Path(__file__).resolve().parents[2] / "sql"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError("pairedframe's SQL files are missing: neither pairedframe/_sql nor ./sql exists")


@cache
def load_sql(name: str) -> str:
    """Text of ``sql/<name>``."""
    return (sql_dir() / name).read_text(encoding="utf-8")


def strip_comments(text: str) -> str:
    """The SQL without ``--`` comments (none of pairedframe's SQL has ``--`` inside a string)."""
    return "\n".join(line.split("--", 1)[0] for line in text.splitlines())


def sql_params(text: str) -> set[str]:
    """Names of the ``$param`` placeholders used in a SQL text, outside comments."""
    return set(PARAM_PATTERN.findall(strip_comments(text)))


def blank_id_sql(text: str, dialect: str) -> str:
    """SQL of ``dialect`` (``"duckdb"`` or ``"spark"``): whether the string expression ``text`` is an empty or
    all-blank id, matched against :data:`pairedframe.errors.BLANK_ID_PATTERN` (null for a null id). The one
    spelling of that rule in SQL; ``sql/check_*.sql`` hold the pattern as a literal (a test keeps them equal)."""
    if dialect == "duckdb":   # DuckDB's literals keep backslashes: RE2 reads the pattern's escapes
        return f"regexp_matches({text}, '{BLANK_ID_PATTERN}')"
    if dialect == "spark":    # Spark's parser may unescape backslashes: the characters themselves go in
        return f"({text} RLIKE '{BLANK_ID_PATTERN.encode().decode('unicode_escape')}')"
    raise ValueError(f"no SQL for blank ids in the dialect {dialect!r}")
