"""Read per-query result tables (Parquet, CSV/TSV, JSON/NDJSON) written by pairedframe or another harness.

Two layouts are accepted, told apart by their columns:

- per-query values: ``system, qid, measure, value`` plus optional key columns (``dataset``,
  ``cluster``, ...), e.g. ``Evaluation.per_query`` written with ``write_parquet``;
- a first-hit-rank export: ``qid, first_hit_rank`` plus optional ``system``, ``cluster``, ``dataset``,
  ``ap`` -- converted with :func:`pairedframe.io.endpoints.endpoints_from_ranks`.

A file without a ``system`` column is one system, named after the file (its name without the
extension(s) and a leading ``input.``).  ``qid``, ``system``, ``measure``, ``dataset`` and
``cluster`` are read as text, so ``007`` stays ``007``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl

from pairedframe.io.detect import detect_format, read_table_file
from pairedframe.io.endpoints import endpoints_from_ranks, is_rank_export
from pairedframe.checks import require_rows
from pairedframe.errors import InputFormatError, SchemaError

__all__ = ["RESULT_FORMATS", "SUMMARY_QID", "read_results", "as_results", "system_name_from_results_path",
           "drop_flagged_summary_rows"]

RESULT_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv", ".txt": "tsv",
                  ".json": "json", ".jsonl": "ndjson", ".ndjson": "ndjson"}
_TEXT_COLUMNS = ("system", "qid", "measure", "dataset", "cluster")
#: trec_eval's id of its summary ("all") rows, which ``pairedframe evaluate -q -f csv|json`` also writes.
SUMMARY_QID = "all"


def drop_flagged_summary_rows(frame: pl.DataFrame) -> pl.DataFrame:
    """The rows that are not flagged ``summary`` (``pairedframe evaluate -q -f csv|json`` flags its
    ``all`` rows so that a query whose id is ``all`` stays a query), without that column."""
    if "summary" not in frame.columns:
        return frame
    flag = frame["summary"]
    if flag.dtype == pl.String:
        flag = flag.str.to_lowercase() == "true"
    return frame.filter(~flag.cast(pl.Boolean).fill_null(False)).drop("summary")


def system_name_from_results_path(path: str | os.PathLike) -> str:
    """``runs/BM25 (title).csv.gz`` -> ``BM25 (title)`` (also strips a leading ``input.``)."""
    name = Path(path).name
    if name.endswith(".gz"):
        name = name[:-3]
    stem, ext = os.path.splitext(name)
    if ext.lower() in RESULT_FORMATS:
        name = stem
    if name.startswith("input.") and len(name) > len("input."):
        name = name[len("input."):]
    return name


def _read_one(path: Path) -> pl.DataFrame:
    name = path.name[:-3] if path.name.endswith(".gz") else path.name
    kind = RESULT_FORMATS.get(os.path.splitext(name)[1].lower())
    if not path.exists():
        raise FileNotFoundError(str(path))
    if kind not in ("json", "ndjson"):
        detected = detect_format(path, what="results")   # the first bytes decide, not the extension
        if detected == "arrow":
            df = read_table_file(path, what="results", fmt="arrow")
            return df.with_columns(pl.col(c).cast(pl.String) for c in _TEXT_COLUMNS if c in df.columns)
        if detected != "trec" or kind is None:
            kind = detected if detected != "trec" else None
    if kind is None:
        raise InputFormatError(f"unknown results format; use one of {sorted(RESULT_FORMATS)} or an Arrow IPC "
                               "file", path=str(path))
    try:  # glob=False: a file name with [ * ? is a name, not a pattern
        if kind == "parquet":
            df = pl.read_parquet(path, glob=False)
        elif kind in ("csv", "tsv"):
            head = pl.read_csv(path, separator="," if kind == "csv" else "\t", n_rows=0, glob=False)
            overrides = {c: pl.String for c in _TEXT_COLUMNS + ("first_hit_rank",) if c in head.columns}
            df = pl.read_csv(path, separator="," if kind == "csv" else "\t", schema_overrides=overrides, glob=False)
        elif kind == "json":  # file objects: polars would read a path with [ * ? as a glob
            with open(path, "rb") as fh:
                df = pl.read_json(fh)
        else:
            with open(path, "rb") as fh:
                df = pl.read_ndjson(fh)
    except (pl.exceptions.ComputeError, pl.exceptions.PolarsError) as exc:
        raise InputFormatError(f"cannot read as {kind}: {exc}", path=str(path)) from exc
    return df.with_columns(pl.col(c).cast(pl.String) for c in _TEXT_COLUMNS if c in df.columns)


def _normalise(df: pl.DataFrame, *, ks: Iterable[int], system: str | None, source: str) -> pl.DataFrame:
    require_rows(df, what=source or "the per-query table", why="no data rows (only a header, or nothing)")
    df = drop_flagged_summary_rows(df)
    if is_rank_export(df):
        return endpoints_from_ranks(df, ks=ks, system=system, source=source)
    if "system" not in df.columns:
        if system is None:
            raise SchemaError(f"per-query table {source or ''} has no 'system' column".replace("  ", " "))
        df = df.with_columns(pl.lit(system).alias("system"))
    missing = [c for c in ("qid", "measure", "value") if c not in df.columns]
    if missing:
        raise SchemaError(f"{source or 'per-query table'}: lacks column(s) {missing}; expected system, qid, measure, "
                          f"value (+ dataset, cluster) or a first-hit-rank export qid, first_hit_rank (has {df.columns})")
    keys = [c for c in df.columns if c not in ("system", "qid", "measure", "value")]
    return df.select("system", *keys, "qid", "measure", pl.col("value").cast(pl.Float64))


def read_results(paths: str | os.PathLike | Iterable[str | os.PathLike], *, ks: Iterable[int] = (1, 5, 10)
                 ) -> pl.DataFrame:
    """Read one or more per-query result files into one per-query table.

    Parameters
    ----------
    paths : path or iterable of paths
        ``.parquet``/``.pq``, ``.csv``, ``.tsv``/``.txt`` (tab-separated with a header), ``.json`` (an
        array of records) or ``.jsonl``/``.ndjson``; see the module docstring for the two layouts.
    ks : iterable of int, default (1, 5, 10)
        Cutoffs of the ``hit@k`` measures derived from first-hit-rank exports.

    Returns
    -------
    polars.DataFrame
        ``system, <key columns>, qid, measure, value``: one row per (system, keys, query, measure),
        the files stacked (a key column missing from one file is null there).

    Raises
    ------
    FileNotFoundError
        A path does not exist.
    InputFormatError
        Unknown extension or unreadable file (names the file).
    SchemaError
        Required columns missing, or a bad first-hit rank (names file and row).
    EmptyResultError
        A file without data rows.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    frames = []
    for p in paths:
        path = Path(p)
        frames.append(_normalise(_read_one(path), ks=ks, system=system_name_from_results_path(path),
                                 source=str(path)))
    if not frames:
        raise ValueError("no results files given")
    return pl.concat(frames, how="diagonal_relaxed")


def as_results(data: Any, *, ks: Iterable[int] = (1, 5, 10)) -> pl.DataFrame:
    """Per-query table from an Evaluation, a table (values or first-hit ranks), or path(s).

    Parameters
    ----------
    data : Evaluation, polars/pandas table, dict of columns, path or list of paths
    ks : iterable of int
        As :func:`read_results`.

    Returns
    -------
    polars.DataFrame
        ``system, <key columns>, qid, measure, value``.

    Raises
    ------
    SchemaError, InputFormatError, FileNotFoundError
        As :func:`read_results`.
    """
    per_query = getattr(data, "per_query", None)
    if isinstance(per_query, pl.DataFrame):
        return per_query
    if isinstance(data, (str, os.PathLike)) or (isinstance(data, (list, tuple)) and data
                                                 and all(isinstance(d, (str, os.PathLike)) for d in data)):
        return read_results(data, ks=ks)
    if isinstance(data, (list, tuple)):
        return pl.concat([as_results(d, ks=ks) for d in data], how="diagonal_relaxed")
    if isinstance(data, pl.LazyFrame):
        data = data.collect()
    if not isinstance(data, pl.DataFrame):
        data = pl.from_pandas(data) if type(data).__module__.startswith("pandas") else pl.DataFrame(data)
    data = data.with_columns(pl.col(c).cast(pl.String) for c in _TEXT_COLUMNS if c in data.columns)
    return _normalise(data, ks=ks, system=None, source="")
