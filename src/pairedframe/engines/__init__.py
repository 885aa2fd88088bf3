"""Evaluation engines: DuckDB (runs ``sql/``) and polars (runs the measures' expressions)."""

from __future__ import annotations

from pairedframe.engines.base import Engine, EvalOptions
from pairedframe.engines.duckdb_engine import DuckDBEngine
from pairedframe.engines.polars_engine import PolarsEngine

ENGINES = {"duckdb": DuckDBEngine, "polars": PolarsEngine, "spark": None}


def get_engine(engine: str | Engine) -> Engine:
    """An engine instance from its name (``"duckdb"``, ``"polars"``, ``"spark"``) or pass one through."""
    if engine == "spark":  # imported only when asked for: pyspark and sqlglot are the optional `spark` extra
        from pairedframe.engines.spark_engine import SparkEngine

        return SparkEngine()
    if isinstance(engine, str):
        try:
            return ENGINES[engine]()
        except KeyError:
            raise ValueError(f"engine must be one of {sorted(ENGINES)}, got {engine!r}") from None
    return engine


__all__ = ["DuckDBEngine", "Engine", "EvalOptions", "PolarsEngine", "get_engine"]
