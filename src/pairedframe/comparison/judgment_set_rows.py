"""The rows of one judgment set of a per-query table with a ``judgments`` column (as
:func:`pairedframe.evaluate_judgment_sets`' ``per_query``, or that table saved to a file): one lookup for the
results table and rank agreement.  The whole table gets compare's input checks once
(:func:`~pairedframe.comparison.pairing.as_frame`), then the set is filtered out of it."""

from __future__ import annotations

from typing import Any

import polars as pl

from pairedframe.comparison.pairing import as_frame
from pairedframe.io.convert import is_table
from pairedframe.io.results import read_if_paths

__all__ = ["judgment_set_names", "one_set_of_table"]


def judgment_set_names(frame: pl.DataFrame) -> list[str]:
    """The sets of a per-query frame's ``judgments`` column, in order of appearance."""
    return frame["judgments"].cast(pl.String).unique(maintain_order=True).to_list()


def one_set_of_table(table: Any, judgments: str) -> pl.DataFrame:
    """The rows under set ``judgments`` of a per-query table (or path) with a ``judgments`` column (kept),
    checked as compare's input (the whole table, once: the rows returned need no second pass)."""
    table = read_if_paths(table)
    frame = as_frame(table, keep_nulls=True) if isinstance(table, pl.DataFrame) or is_table(table) else None
    if frame is None or "judgments" not in frame.columns:
        raise TypeError("`judgments` picks one judgment set: pass evaluate_judgment_sets' result or a per-query table "
                        "with a `judgments` column (its per_query, e.g. saved to a file) as `data`, or leave judgments= out")
    present = judgment_set_names(frame)
    if not isinstance(judgments, str) or judgments not in present:
        raise ValueError(f"`judgments` must name one judgment set of the table's judgments column; the sets are "
                         f"{present}, got {judgments!r}")
    return frame.filter(pl.col("judgments").cast(pl.String) == judgments)
