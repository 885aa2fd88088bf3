"""A per-query table read as one slice (one ``dataset`` / ``judgments``), for the doors that rank one set of
systems: :func:`pairedframe.rank_agreement` (each side) and :func:`pairedframe.leaderboard`."""

from __future__ import annotations

from typing import Any

import polars as pl

from pairedframe.comparison._validate import require_one_slice
from pairedframe.comparison.pairing import as_frame
from pairedframe.errors import DuplicateError, InsufficientSampleError, SchemaError

__all__ = ["one_slice"]


def one_slice(obj: Any, what: str, *, reason: str, instead: str, keep_nulls: bool = False,
              cluster: str | None = None) -> pl.DataFrame:
    """``obj`` as compare reads a per-query table (any table form; ids as strings, float or null ids, NaN /
    inf values and empty tables refused; null values dropped unless ``keep_nulls``), without repeated
    (system, qid, measure) and with one value of each key column, which is dropped. Errors name ``what``;
    ``reason`` and ``instead`` say why a second slice is refused (:func:`require_one_slice`); ``cluster``, when
    given, is the ValueError's message for a ``cluster`` key column (as compare refuses one)."""
    if isinstance(obj, bytes) or obj is None:
        raise TypeError(f"`{what}` must be an Evaluation or a per-query table (system, qid, measure, value); "
                        f"got {type(obj).__name__}")
    try:
        frame = as_frame(obj, keep_nulls=keep_nulls)
    except (SchemaError, InsufficientSampleError, TypeError) as exc:
        raise type(exc)(f"`{what}`: {exc}") from exc
    keys = [c for c in frame.columns if c != "value"]
    if frame.select(pl.struct(keys).is_duplicated().any()).item():
        example = frame.filter(pl.struct(keys).is_duplicated()).row(0, named=True)
        raise DuplicateError(f"`{what}` has rows with a repeated key {keys}, e.g. { {k: example[k] for k in keys} }")
    extra = [c for c in keys if c not in ("system", "qid", "measure")]
    if cluster is not None and "cluster" in extra:
        raise ValueError(cluster)
    require_one_slice(frame, extra, what, reason=reason, instead=instead)
    return frame.drop(extra)
