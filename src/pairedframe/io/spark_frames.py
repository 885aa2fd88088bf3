"""A Spark DataFrame read into memory as a polars frame, for the routes that work on a whole table in memory
(several baselines, ``pairs=``, per-query views, tables); one baseline compares it in Spark instead."""

from __future__ import annotations

from typing import Any

import polars as pl


def is_spark_dataframe(obj: Any) -> bool:
    """Whether ``obj`` is a pyspark DataFrame (classic or Spark Connect), without importing pyspark."""
    return any(c.__module__.startswith("pyspark.sql") and c.__name__ == "DataFrame" for c in type(obj).__mro__)


def spark_as_polars(frame: Any) -> pl.DataFrame:
    """The rows of a Spark DataFrame collected to the driver as polars (through Arrow where pyspark has it)."""
    if callable(getattr(frame, "toArrow", None)):   # pyspark >= 4.0
        return pl.from_arrow(frame.toArrow())
    return pl.from_pandas(frame.toPandas())
