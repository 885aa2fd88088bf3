"""Evaluation engines: DuckDB (runs ``sql/``) and polars (runs the measures' expressions)."""

from __future__ import annotations

from pairedframe.engines.base import Engine, EvalOptions
from pairedframe.engines.duckdb_engine import DuckDBEngine
from pairedframe.engines.polars_engine import PolarsEngine

ENGINES = {"duckdb": DuckDBEngine, "polars": PolarsEngine}


def get_engine(engine: str | Engine) -> Engine:
    """An engine instance from its name (``"duckdb"``, ``"polars"``) or pass one through."""
    if isinstance(engine, str):
        try:
            return ENGINES[engine]()
        except KeyError:
            raise ValueError(f"engine must be one of {sorted(ENGINES)}, got {engine!r}") from None
    return engine


__all__ = ["DuckDBEngine", "Engine", "EvalOptions", "PolarsEngine", "get_engine"]
