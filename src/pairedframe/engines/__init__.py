"""Evaluation engines: DuckDB (runs ``sql/``) and polars (runs the measures' expressions)."""

from __future__ import annotations

import importlib
from typing import Any

from pairedframe.engines.base import Engine, EvalOptions

#: Engine name -> (module, class); imported when used, so that the default polars engine never loads duckdb.
ENGINES = {"polars": ("pairedframe.engines.polars_engine", "PolarsEngine"),
           "duckdb": ("pairedframe.engines.duckdb_engine", "DuckDBEngine"),
           "spark": ("pairedframe.engines.spark_engine", "SparkEngine")}


def get_engine(engine: str | Engine) -> Engine:
    """An engine instance from its name (``"duckdb"``, ``"polars"``, ``"spark"``) or pass one through."""
    if isinstance(engine, str):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {sorted(ENGINES)}, got {engine!r}")
        module, name = ENGINES[engine]   # spark: pyspark and sqlglot are the optional `spark` extra
        return getattr(importlib.import_module(module), name)()
    return engine


def __getattr__(name: str) -> Any:
    for module, cls in ENGINES.values():
        if name == cls and cls != "SparkEngine":
            return getattr(importlib.import_module(module), cls)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DuckDBEngine", "Engine", "EvalOptions", "PolarsEngine", "get_engine"]
