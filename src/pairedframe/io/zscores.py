"""trec_eval's z-score file (``-Z FILE``, get_zscores.c): lines ``qid measure mean stddev`` giving, for
each query and measure, the mean and standard deviation of a reference set of runs."""

from __future__ import annotations

import os
from typing import Any

import polars as pl

from pairedframe.errors import DuplicateError, SchemaError
from pairedframe.io.convert import to_polars
from pairedframe.io.path_args import path_list
from pairedframe.io.trec import PathLike, _check_duplicates, _field_count, _fail, _first_bad, _read_data_lines, \
    _split_fields, spooled

ZSCORES_SCHEMA: dict[str, pl.DataType] = {"qid": pl.String(), "measure": pl.String(), "mean": pl.Float64(),
                                          "stddev": pl.Float64()}


def read_zscores(path: PathLike) -> pl.DataFrame:
    """Read a z-score file: lines ``qid measure mean stddev`` (exactly 4 fields; ``measure`` is the
    name trec_eval prints, e.g. ``P_5``, ``map``, ``iprec_at_recall_0.10``).

    Returns
    -------
    polars.DataFrame
        ``qid, measure`` (str), ``mean, stddev`` (float64), one row per line.

    Raises
    ------
    InputFormatError
        Empty file, a line without exactly 4 fields, a mean or standard deviation that is not a
        finite number (the message names the file, the line and the column).
    DuplicateError
        The same (qid, measure) twice: trec_eval would use one of them, which one depending on its
        sort (undefined), so pairedframe refuses.
    TypeError
        ``path`` is not a path (a table or dict: the message says where it goes).
    """
    path_list(path, reader="read_zscores", argument="path", instead="Evaluation.zscore takes a table of them as it is")
    with spooled([path]) as (readable,):
        fields = _split_fields(_read_data_lines(readable, "zscores"), ("qid", "measure", "mean", "stddev"))
        bad = _first_bad(fields, pl.col("stddev").is_null() | pl.col("_extra").is_not_null())
        if bad:
            _fail(f"expected exactly 4 fields (qid measure mean stddev), found {_field_count(bad['line'])}", bad,
                  readable, "zscores")
        for column, name in ((3, "mean"), (4, "stddev")):
            value = pl.col(name).cast(pl.Float64, strict=False)
            bad = _first_bad(fields, value.is_null() | ~value.is_finite())
            if bad:
                _fail(f"{name} {bad[name]!r} is not a finite number", bad, readable, "zscores", column=column)
        _check_duplicates(fields, readable, "zscores", ("qid", "measure"))
        return fields.select("qid", "measure", *(pl.col(c).cast(pl.Float64) for c in ("mean", "stddev")))


def as_zscores(obj: Any) -> pl.DataFrame:
    """Z-score statistics from a path (:func:`read_zscores`) or a table with the same columns.

    Raises
    ------
    SchemaError
        A missing column, null or non-finite values.
    DuplicateError
        The same (qid, measure) twice.
    """
    if isinstance(obj, (str, os.PathLike)):
        return read_zscores(obj)
    frame = to_polars(obj, "zscores table")
    missing = [c for c in ZSCORES_SCHEMA if c not in frame.columns]
    if missing:
        raise SchemaError(f"zscores table lacks column(s) {missing}; it has {frame.columns}")
    try:
        frame = frame.select([pl.col(c).cast(t) for c, t in ZSCORES_SCHEMA.items()])
    except pl.exceptions.PolarsError as exc:
        raise SchemaError(f"zscores table: qid and measure must be text, mean and stddev numbers ({exc})") from None
    if frame.select(pl.any_horizontal(pl.all().is_null()).any()).item() or not (
            frame["mean"].is_finite().all() and frame["stddev"].is_finite().all()):
        raise SchemaError("zscores table has null or non-finite values")
    dup = frame.filter(pl.struct("qid", "measure").is_duplicated())
    if dup.height:
        raise DuplicateError(f"duplicate (qid, measure) = {dup.row(0)[:2]} in the zscores table; remove one")
    return frame
