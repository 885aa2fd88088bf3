"""Read per-query result tables (Parquet, CSV/TSV, JSON/NDJSON) written by pairedframe or another harness,
and trec_eval's own text output (``trec_eval -q``, :mod:`pairedframe.io.trec_eval_output`).

Two table layouts are accepted, told apart by their columns:

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
import warnings
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl

from pairedframe.io.convert import to_polars
from pairedframe.io.csv_columns import ragged_line_error, typed_columns
from pairedframe.io.detect import detect_format, file_head, read_table_file
from pairedframe.io.endpoints import check_ks, endpoints_from_ranks, is_rank_export
from pairedframe.io.json_ids import check_json_ids
from pairedframe.io.not_per_query import (COMPARISON_OUTPUT, display_table_format, is_comparison_output,
                                          refuse_display_table)
from pairedframe.io.table_values import blank_ids, csv_line_of_row, first_blank_ids
from pairedframe.io.path_args import path_list, uncompressed_name
from pairedframe.io.trec_eval_output import (SUMMARY_TOLERANCE, is_trec_eval_output, read_trec_eval_output,
                                             summary_value)
from pairedframe.checks import require_rows, string_ids
from pairedframe.errors import (BLANK_ID, BLANK_ID_PATTERN, EMPTY_ID_RULE, InputFormatError, SchemaError, missing_file,
                                user_stacklevel)
from pairedframe.tables import per_query_renames

__all__ = ["RESULT_FORMATS", "SUMMARY_QID", "SUMMARY_TOLERANCE", "PER_QUERY_HINT", "read_results", "as_results",
           "system_name_from_results_path",
           "drop_flagged_summary_rows", "summary_flags", "flagged_summary_sql", "SUMMARY_TRUE", "SUMMARY_FALSE", "unflagged_summary_rows", "summary_value", "evaluation_rows", "drop_unused_keys", "ids_as_strings",
           "refuse_null_or_blank_ids", "ID_COLUMNS",
           "refuse_partly_null_keys", "partly_null_key_error",
           "read_one", "is_paths", "read_if_paths", "results_file_kind"]

RESULT_FORMATS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv", ".txt": "tsv",
                  ".json": "json", ".jsonl": "ndjson", ".ndjson": "ndjson"}
#: Columns holding ids: strings, never floats (checks.string_ids).
ID_COLUMNS = ("system", "qid", "dataset", "cluster")
_VALUE_COLUMNS = ("system", "qid", "measure", "value", "summary")
#: trec_eval's id of its summary ("all") rows, which ``pairedframe evaluate -q -f csv|json`` also writes.
SUMMARY_QID = "all"
#: What a table of summary rows only lacks, and how to get it (the tail of the errors that refuse one).
PER_QUERY_HINT = ("per-query values are needed, one row per query: write them with "
                  "`pairedframe evaluate -q` (or trec_eval -q)")


#: How a ``summary`` flag may be spelled (case and surrounding blanks aside); null is false.
SUMMARY_TRUE, SUMMARY_FALSE = ("true", "1", "t", "yes", "y"), ("false", "0", "f", "no", "n", "")


def flagged_summary_sql(column: str = "summary") -> str:
    """SQL: true where ``column`` flags a summary row as :func:`summary_flags` reads it (null false)."""
    truthy = ", ".join(f"'{v}'" for v in SUMMARY_TRUE)
    return f"coalesce(lower(trim(CAST({column} AS STRING))) IN ({truthy}), false)"


def summary_flags(flag: pl.Series) -> pl.Series:
    """A ``summary`` column as booleans: true/false, 1/0, t/f, yes/no in any case (text or numbers), null false.

    Raises
    ------
    SchemaError
        A value that is none of these (it was read as false: a summary row taken for a query)."""
    if flag.dtype == pl.Boolean:
        return flag.fill_null(False)
    text = flag.cast(pl.String).str.strip_chars().str.to_lowercase()
    bad = text.filter(text.is_not_null() & ~text.is_in([*SUMMARY_TRUE, *SUMMARY_FALSE]))
    if bad.len():
        raise SchemaError(f"column 'summary' holds {flag.filter(text == bad[0])[0]!r}: a summary flag is true or "
                          "false (also 1/0, t/f, yes/no), as `pairedframe evaluate -q -f csv|json` writes it")
    return text.is_in(SUMMARY_TRUE).fill_null(False)


def drop_flagged_summary_rows(frame: pl.DataFrame) -> pl.DataFrame:
    """The rows that are not flagged ``summary`` (``pairedframe evaluate -q -f csv|json`` flags its
    ``all`` rows so that a query whose id is ``all`` stays a query), without that column
    (:func:`summary_flags` reads the flag)."""
    if "summary" not in frame.columns:
        return frame
    return frame.filter(~summary_flags(frame["summary"])).drop("summary")


def evaluation_rows(data: Any) -> Any:
    """An Evaluation's ``per_query`` (``data`` itself when it has none), with a ``summary`` column, all False,
    when it holds a query named ``all``: an evaluation has no summary rows, so no door may read that query's
    rows as trec_eval's (:func:`unflagged_summary_rows`), however its value falls."""
    per_query = getattr(data, "per_query", None)
    if not isinstance(per_query, pl.DataFrame):
        return data
    if "summary" in per_query.columns or not per_query["qid"].eq(SUMMARY_QID).any():
        return per_query
    return per_query.with_columns(pl.lit(False).alias("summary"))


def unflagged_summary_rows(keys: Iterable[str] = (), aggregate: pl.Expr | None = None) -> pl.Expr:
    """True on the rows of a table without a ``summary`` column that are trec_eval's summary rows: qid ``all``,
    and either the only measured row of its (system, ``keys``, measure) group or the mean or the sum of that
    group's other values (trec_eval's summary is their mean, or their sum for its counts), to
    :data:`SUMMARY_TOLERANCE` when they are printed to 4 decimals, else to float noise.  Any other ``all`` row
    is a query named ``all`` (an evaluation's per-query table may hold one; the rare one whose value is its
    system's mean, or the only row of its measure, is left out with the summary rows, and warned about).
    ``aggregate``: per row, how trec_eval summarises its measure (``"mean"``, ``"sum"``, ...; the comparison
    layer knows, :func:`pairedframe.measures.parse.aggregate_of`), so that only that one is tested (a query
    retrieving as many documents as every other is not the sum of their counts); None: the mean or the sum."""
    group = ["system", *keys, "measure"]
    others = pl.col("value").filter(pl.col("qid") != SUMMARY_QID)
    off = ((pl.col("value") * 1e4).round() - pl.col("value") * 1e4).abs().max().over(group)
    return (pl.col("qid") == SUMMARY_QID) & summary_value(pl.col("value"), others.count().over(group),
                                                          others.mean().over(group), others.sum().over(group), off,
                                                          aggregate)


def drop_unused_keys(frame: pl.DataFrame, keep: tuple[str, ...] = ()) -> pl.DataFrame:
    """``frame`` without the extra columns that no measured row fills (null wherever ``value`` is not):
    such a column -- all null, or the ``text`` of string-valued measures (relstring) that
    ``pairedframe evaluate -q -f csv`` and Spark's per-query tables carry -- is not a key that pairs
    queries (pairing on it would pair nothing). ``keep``: columns kept all the same (a cluster column
    the caller named, whose nulls are then reported as such)."""
    extras = [c for c in frame.columns if c not in _VALUE_COLUMNS and c not in keep]
    if not extras or "value" not in frame.columns:
        return frame
    measured = frame.filter(pl.col("value").is_not_null())
    unused = [c for c in extras if measured[c].null_count() == measured.height]
    return frame.drop(unused) if measured.height else frame


def partly_null_key_error(column: str, n_null: int, n_measured: int, example: dict[str, Any]) -> SchemaError:
    """The error for a key column that some measured rows leave null: the column, how many rows, one of them."""
    where = ", ".join(f"{k} {example[k]!r}" for k in ("qid", "system", "measure") if k in example)
    return SchemaError(f"the per-query table's key column {column!r} is null in {n_null} of its {n_measured} measured "
                       f"rows (e.g. {where}): rows are paired within each {column}, so a null {column} pairs with "
                       f"nothing; fill those rows' {column} or drop the column")


def refuse_partly_null_keys(frame: pl.DataFrame, keep: tuple[str, ...] = ()) -> None:
    """:func:`partly_null_key_error` for the first key column that some measured rows fill and others leave
    null (one that none fills is no key: :func:`drop_unused_keys`); ``keep``: columns whose nulls the caller
    reports."""
    measured = frame.filter(pl.col("value").is_not_null()) if "value" in frame.columns else frame
    for column in [c for c in frame.columns if c not in _VALUE_COLUMNS and c not in keep]:
        n_null = measured[column].null_count()
        if 0 < n_null < measured.height:        # none filled: no key (drop_unused_keys drops it)
            example = measured.filter(pl.col(column).is_null()).row(0, named=True)
            raise partly_null_key_error(column, n_null, measured.height, example)


def refuse_null_or_blank_ids(frame: pl.DataFrame, what: str = "the per-query table") -> None:
    """SchemaError naming the id columns (system, qid, measure) that hold a null, and the first such row; then
    the first id column holding an empty or all-blank string (errors.EMPTY_ID_RULE), and its first row."""
    columns = [c for c in ("system", "qid", "measure") if c in frame.columns and frame[c].null_count()]
    if columns:
        row = frame.filter(pl.any_horizontal(pl.col(columns).is_null())).row(0, named=True)
        raise SchemaError(f"{what} has null values in column(s) {columns}, e.g. the row {row}; every row needs a "
                          "system, qid and measure (a null value means 'not measured', a null id means nothing)")
    found = first_blank_ids(frame, ("system", "qid", "measure"))
    if found is not None:
        raise SchemaError(f"{what}: column {found.column!r} is {BLANK_ID} in {found.rows.height} row(s), e.g. the row "
                          f"{found.rows.row(0, named=True)}; {EMPTY_ID_RULE}")


def _refuse_blank_ids_by_line(table: pl.DataFrame, path: Path) -> None:
    """A CSV / TSV results file's first per-query row (not flagged ``summary``) with a null, empty or all-blank
    id (system, qid, measure) as a SchemaError naming the file and line, as the run / qrels table readers name one
    (the header is line 1); other files are named by row (:func:`refuse_null_or_blank_ids`)."""
    ids = [c for c in ("system", "qid", "measure") if c in table.columns]
    if not ids or not table.height:
        return
    kept = drop_flagged_summary_rows(table.with_row_index("_row"))
    bad = kept.filter(pl.any_horizontal(pl.col(c).is_null() | blank_ids(c).fill_null(False) for c in ids))
    fmt = detect_format(path, what="results") if bad.height else None
    if fmt not in ("csv", "tsv"):
        return
    first = bad.row(0, named=True)
    line = csv_line_of_row(path, "\t" if fmt == "tsv" else ",", first.pop("_row"), comments=False)
    if line is None:
        return
    column = next(c for c in ids if first[c] is None or re.fullmatch(BLANK_ID_PATTERN, str(first[c])))
    kind, rule = ((BLANK_ID, EMPTY_ID_RULE) if first[column] is not None else
                  ("empty (null)", "every row needs a system, qid and measure (a null id means nothing)"))
    shown = ", ".join(f"{c}={v!r}" for c, v in first.items() if c != column)
    raise SchemaError(f"results file {path}, line {line}: column {column!r} is {kind} ({shown}; {bad.height} row(s) "
                      f"with an empty id in all); {rule}")


def ids_as_strings(df: pl.DataFrame, what: str) -> pl.DataFrame:
    """The id columns as strings (float ids refused, :func:`~pairedframe.checks.string_ids`); a key
    column (dataset, cluster) without any value becomes an all-null string column, which
    :func:`drop_unused_keys` then drops."""
    df = df.with_columns(pl.col(c).cast(pl.String) for c in ID_COLUMNS[2:] if c in df.columns and df.schema[c] == pl.Null)
    return string_ids(df, [c for c in ID_COLUMNS if c in df.columns], what)


def _text_ids(df: pl.DataFrame, what: str) -> pl.DataFrame:
    """:func:`ids_as_strings`, and ``measure`` as text; ir_measures' ``query_id`` (and the other aliases of
    ``system`` / ``qid``) read as ours, as in runs."""
    df = ids_as_strings(df.rename(per_query_renames(df.columns, what)), what)
    return df.with_columns(pl.col("measure").cast(pl.String)) if "measure" in df.columns else df


def _check_json_ids(df: pl.DataFrame, data: bytes, kind: str, what: str) -> None:
    """:func:`~pairedframe.io.json_ids.check_json_ids` on the id columns of ``df`` (as the file names them)."""
    renames = per_query_renames(df.columns, what)
    check_json_ids(df, data, kind, what, [c for c in df.columns if renames.get(c, c) in ID_COLUMNS])


def system_name_from_results_path(path: str | os.PathLike) -> str:
    """``runs/BM25 (title).csv.gz`` -> ``BM25 (title)`` (also strips ``.zst`` and a leading ``input.``)."""
    name = uncompressed_name(Path(path).name)
    stem, ext = os.path.splitext(name)
    if ext.lower() in RESULT_FORMATS:
        name = stem
    if name.startswith("input.") and len(name) > len("input."):
        name = name[len("input."):]
    return name


def read_one(path: Path, *, argument: str = "results") -> pl.DataFrame:
    """One table file as it is (Parquet, Arrow IPC, CSV/TSV, JSON/NDJSON; the first bytes decide over the
    extension), id columns as text; no column checks (the CLI reads cluster and segment tables with it).
    ``argument`` names the file in errors (``--segments``).

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    InputFormatError
        A format it cannot tell or read, or a directory (the message names the file).
    """
    name = uncompressed_name(path.name)
    kind = RESULT_FORMATS.get(os.path.splitext(name)[1].lower())
    if not path.exists():
        raise missing_file(str(path), argument)
    if path.is_dir():   # not "[Errno 21] Is a directory", nor "the results argument" for a --segments file
        raise InputFormatError(f"the {argument} argument is a directory, not a file", path=str(path))
    refuse_display_table(path)   # before the trec_eval -q sniffing: a markdown table is no TREC text either
    if kind not in ("json", "ndjson"):
        detected = detect_format(path, what="results")   # the first bytes decide, not the extension
        if detected == "arrow":
            return _text_ids(read_table_file(path, what="results", fmt="arrow"), str(path))
        if detected == "trec" and is_trec_eval_output(path):
            return read_trec_eval_output(path, system_name_from_results_path(path))
        if detected != "trec" or kind is None:
            kind = detected if detected != "trec" else None
    if kind is None:
        raise InputFormatError(f"unknown results format; use one of {sorted(RESULT_FORMATS)} or an Arrow IPC "
                               "file", path=str(path))
    try:  # glob=False: a file name with [ * ? is a name, not a pattern
        if kind == "parquet":
            df = pl.read_parquet(path, glob=False)
        elif kind in ("csv", "tsv"):
            # every column as text, ``value`` then parsed from every row (polars' inference from the first
            # 100 rows refused a 0.5 after 100 whole numbers)
            df = typed_columns(pl.read_csv(path, separator="," if kind == "csv" else "\t", infer_schema=False,
                                           glob=False), path, kind, "results")
        else:  # file objects: polars would read a path with [ * ? as a glob
            with open(path, "rb") as fh:
                data = fh.read()
            if not data.strip() or data.strip() == b"[]":
                return pl.DataFrame()
            # every row decides the types: a text measure's first value may come after polars' 100 rows
            df = (pl.read_json(data, infer_schema_length=None) if kind == "json"
                  else pl.read_ndjson(data, infer_schema_length=None))
            _check_json_ids(df, data, kind, str(path))
    except (pl.exceptions.ComputeError, pl.exceptions.PolarsError) as exc:
        ragged = ragged_line_error(path, kind, "results") if kind in ("csv", "tsv") else None
        raise ragged or InputFormatError(f"cannot read as {kind}: {exc}", path=str(path)) from exc
    return _text_ids(df, str(path))


def results_file_kind(path: str | os.PathLike) -> str | None:
    """What per-query results file ``path`` is, read from its first bytes and header only -- ``"trec_eval -q
    output"`` or ``"a per-query results table"`` (columns qid, measure, value, or a first-hit-rank export; JSON
    or NDJSON by name), or one a reader refuses (``"a markdown table"``, ``"a terminal table"``, ``"a comparison's
    output"``) -- or None for anything else (a run, qrels, no such file): for commands that take
    runs to say what they were given."""
    path = Path(path)
    shown = display_table_format(path) if path.is_file() else None
    if shown is not None:
        return f"a {shown} table"
    if path.is_file() and RESULT_FORMATS.get(os.path.splitext(uncompressed_name(path.name))[1].lower()) in (
            "json", "ndjson"):
        return "a per-query results table"
    try:
        fmt = detect_format(path, what="results")
        if fmt == "trec":   # a header naming no qid: a comparison's CSV, or a run or qrels
            if is_trec_eval_output(path):
                return "trec_eval -q output"
            first = file_head(str(path))[0].split(b"\n", 1)[0].decode("utf-8", "replace")
            return "a comparison's output" if is_comparison_output(re.split(r"[,\t]", first)) else None
        if fmt == "parquet":
            columns = list(pl.read_parquet_schema(path))
        elif fmt == "arrow":
            columns = read_table_file(path, what="results", fmt="arrow").columns
        else:
            columns = pl.read_csv(path, separator="," if fmt == "csv" else "\t", n_rows=0, infer_schema=False,
                                  glob=False, comment_prefix="#").columns
    except (OSError, InputFormatError, pl.exceptions.PolarsError):
        return None                # the reader of the argument reports it
    names = {c.strip().lower() for c in columns}
    if is_comparison_output(names):
        return "a comparison's output"
    per_query = {"qid", "measure", "value"} <= names or {"qid", "first_hit_rank"} <= names
    return "a per-query results table" if per_query else None


def _normalise(df: pl.DataFrame, *, ks: Iterable[int], system: str | None, source: str) -> pl.DataFrame:
    require_rows(df, what=source or "the per-query table", why="no data rows (only a header, or nothing)")
    df = df.rename(per_query_renames(df.columns, source or "the per-query table"))  # query_id: qid, as in runs
    df = drop_flagged_summary_rows(df)
    require_rows(df, what=source or "the per-query table",
                 why=f"it holds only summary rows (flagged in column 'summary'); {PER_QUERY_HINT}")
    refuse_null_or_blank_ids(df, source or "the per-query table")
    if is_rank_export(df):
        return endpoints_from_ranks(df, ks=ks, system=system, source=source)
    if "system" not in df.columns:
        if system is None:
            raise SchemaError(f"per-query table {source or ''} has no 'system' column".replace("  ", " "))
        df = df.with_columns(pl.lit(system).alias("system"))
    missing = [c for c in ("qid", "measure", "value") if c not in df.columns]
    if missing and is_comparison_output(df.columns):
        raise SchemaError(f"{source or 'per-query table'}: {COMPARISON_OUTPUT}")
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
        array of records) or ``.jsonl``/``.ndjson``; see the module docstring for the two layouts. A
        text file of trec_eval's output (``trec_eval -q``, ``pairedframe evaluate -q -f trec``; any
        name) is read as its per-query lines: measures under trec_eval's names, text values
        (``runid``, ``relstring``) and the summary (``all``) lines left out, the system named by a
        ``# run:`` line or after the file.
    ks : iterable of int, default (1, 5, 10)
        Cutoffs of the ``hit@k`` measures derived from first-hit-rank exports.

    Returns
    -------
    polars.DataFrame
        ``system, <key columns>, qid, measure, value``: one row per (system, keys, query, measure),
        the files stacked (a key column missing from one file is null there). When a file that tells its
        summary rows apart (a ``summary`` column, trec_eval's text) holds a query named ``all``, a boolean
        ``summary`` column (False on that file's rows) says so, so that every door given the table keeps
        that query.

    Raises
    ------
    FileNotFoundError
        A path does not exist.
    InputFormatError
        Unknown extension or unreadable file (names the file).
    SchemaError
        Required columns missing, a null or float id (names the column), an empty or all-blank id
        (names the column; in a CSV / TSV file the file and line), or a bad first-hit rank (names file
        and row).
    EmptyResultError
        A file without data rows.
    TypeError
        ``paths`` is not a path or a list of paths (a per-query table is used as it is).
    """
    ks = check_ks(ks)
    frames, sources = [], []
    # directories=True: read_one names a directory as the results argument, analyze's RESULTS on the command line
    for p in path_list(paths, reader="read_results", argument="paths", many=True, directories=True,
                       instead="a per-query table is used as it is (pf.compare, pf.report and the others take it)"):
        path = Path(p)
        sources.append(path)
        table = read_one(path)
        _refuse_blank_ids_by_line(table, path)
        frame = _normalise(table, ks=ks, system=system_name_from_results_path(path), source=str(path))
        told = "summary" in table.columns and frame["qid"].eq(SUMMARY_QID).any()
        # a query named 'all' that the file told from its summary: the column says so to every door (all False)
        frames.append(frame.with_columns(pl.lit(False).alias("summary")) if told else frame)
    if not frames:
        raise ValueError("no results files given")
    if any("summary" in f.columns for f in frames):     # the other files' 'all' rows judged as without it
        frames = [f if "summary" in f.columns else _judged_summary(f, p) for f, p in zip(frames, sources)]
    return pl.concat(frames, how="diagonal_relaxed")


def _judged_summary(frame: pl.DataFrame, path: str | os.PathLike) -> pl.DataFrame:
    """``frame`` (a file without a summary column, read beside one that has it) with a summary column by the
    rule for unflagged tables (:func:`unflagged_summary_rows`), warning as a comparison does when it drops such
    rows: the flag leaves them out downstream without another word."""
    flagged = frame.with_columns(
        unflagged_summary_rows([c for c in frame.columns if c not in _VALUE_COLUMNS]).alias("summary"))
    count = int(flagged["summary"].sum())
    if count:
        warnings.warn(f"{os.fspath(path)}: {count} row{'s' if count > 1 else ''} with qid {SUMMARY_QID!r} read as "
                      "trec_eval's summary (each its "
                      "system's only row for its measure, or the mean or sum of its other values), as the file has "
                      "no 'summary' column; to keep a query named 'all', write the file with "
                      "`pairedframe evaluate -q -f csv|json` (it flags its summary rows)", UserWarning,
                      stacklevel=user_stacklevel())
    return flagged


def is_paths(data: Any) -> bool:
    """Whether ``data`` is a path (str or os.PathLike) or a non-empty list / tuple of paths."""
    return isinstance(data, (str, os.PathLike)) or (isinstance(data, (list, tuple)) and bool(data)
                                                     and all(isinstance(d, (str, os.PathLike)) for d in data))


def read_if_paths(data: Any) -> Any:
    """``data`` read with :func:`read_results` when it is a path or a list of paths, else as given: so
    every door that takes a per-query table takes its file too (never a one-column table of the path)."""
    return read_results(data) if is_paths(data) else data


def as_results(data: Any, *, ks: Iterable[int] = (1, 5, 10)) -> pl.DataFrame:
    """Per-query table from an Evaluation, a table (values or first-hit ranks), or path(s), without
    the columns no measured row fills (:func:`drop_unused_keys`): ready to be paired.

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
    return drop_unused_keys(_as_results(data, ks=ks))


def _as_results(data: Any, *, ks: Iterable[int]) -> pl.DataFrame:
    per_query = getattr(data, "per_query", None)
    if isinstance(per_query, pl.DataFrame):
        return per_query
    if is_paths(data):
        return read_results(data, ks=ks)
    if isinstance(data, (list, tuple)):
        return pl.concat([as_results(d, ks=ks) for d in data], how="diagonal_relaxed")
    return _normalise(_text_ids(to_polars(data, "per-query table"), "the per-query table"), ks=ks, system=None,
                      source="")
