"""Turn anything run- or qrels-like into pairedframe's tables.

Accepted: paths (TREC files; ``{name: path}`` names them), polars / pandas / pyarrow tables and DuckDB
relations (a list of run tables is their concatenation), the dict-of-dicts used by pytrec_eval and ranx (``{qid: {docno: score}}`` /
``{qid: {docno: rel}}``), and namedtuple records: ir_measures' ``Qrel`` / ``ScoredDoc``, ir_datasets'
``qrels_iter()`` / ``scoreddocs_iter()`` (or the dataset itself). Column names map explicitly
(:data:`pairedframe.tables.COLUMN_ALIASES`): ir_measures / ir_datasets ``query_id, doc_id, relevance, score``; PyTerrier
``qid, docno, score, rank`` and qrels ``qid, docno, label``. Two candidates for one column (our own
name and an alias, ``qid`` and ``query_id``, or two aliases, ``doc_id`` and ``docid``) are an error
naming both, never a guess; only PyTerrier's ``query`` (the query's text) beside ``qid``, ``docid``
(Terrier's internal number) beside ``docno`` and ``name`` (its per-query system column) beside ``system`` are
other columns. Ids stay strings.
"""

from __future__ import annotations

import decimal
import math
import numbers
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

import polars as pl

from pairedframe.checks import check_system_name, string_ids, warn_numeric_ids
from pairedframe.errors import DUPLICATE_RULE, DuplicateError, InputFormatError, SchemaError
from pairedframe.io.csv_columns import refuse_bad_grades
from pairedframe.io.detect import detect_format, read_table_file, table_system_name
from pairedframe.io.pandas_columns import pandas_as_polars
from pairedframe.io.grades import (INT64_RANGE, INTEGER, Grades, check_grades_option, int_grades, refuse_text_grades,
                                   plain_grades, row_out_of_range, table_grades)
from pairedframe.io.table_values import (inexact_dict_scores, numeric_scores, refuse_blank_ids_in_file, refuse_bools_in_records,
                                         refuse_empty_ids, refuse_nan_scores)
from pairedframe.io.spark_frames import is_spark_dataframe, spark_as_polars
from pairedframe.io.line_hints import SWAPPED_HINT
from pairedframe.io.run_mappings import (refuse_blank_run_names, refuse_several_systems, run_mapping_layout,
                                         system_names_runs_error)
from pairedframe.io.trec import read_qrels, read_run
from pairedframe.tables import QRELS_SCHEMA, RUN_SCHEMA, check_schema, column_renames, names_system

#: The method of an ir_datasets dataset that yields its records, per kind of table.
_RECORD_ITERATORS = {"run": "scoreddocs_iter", "qrels": "qrels_iter"}


def is_table(obj: Any) -> bool:
    """Whether ``obj`` is a polars / pandas / pyarrow table or a DuckDB relation (what :func:`to_polars`
    converts whole, whatever it holds)."""
    return isinstance(obj, (pl.DataFrame, pl.LazyFrame)) or callable(getattr(obj, "pl", None)) or (
        type(obj).__module__.startswith(("pandas", "pyarrow", "duckdb")) and hasattr(obj, "columns")) or (
        is_spark_dataframe(obj))


def _refuse_list_as_qrels(obj: Any) -> None:
    """A list of paths or tables given as the qrels is, almost always, the runs in the qrels' place."""
    if not isinstance(obj, (list, tuple)) or not obj:
        return
    if all(isinstance(p, (str, os.PathLike)) for p in obj):
        shown = [os.fspath(p) for p in obj[:3]]
        raise InputFormatError(f"the qrels is a list of {len(obj)} paths {shown}{' ...' if len(obj) > 3 else ''}, "
                               f"but qrels are one file or table; it looks like runs: {SWAPPED_HINT}", argument="qrels")
    if all(is_table(t) for t in obj):
        raise InputFormatError(f"the qrels is a list of {len(obj)} tables, but qrels are one table; "
                               f"if these are runs: {SWAPPED_HINT}", argument="qrels")


def _run_tables(tables: list | tuple, system: str | None, default_system: str | None) -> pl.DataFrame:
    """Run tables given in a list, one after the other; a system in two of them is an error (never merged)."""
    if system is not None and len(tables) > 1:
        raise SchemaError(f"system={system!r} names a single run, but a list of {len(tables)} run tables was given; "
                          "pass a mapping {name: table} to name them")
    frames, held_by = [], {}
    for i, table in enumerate(tables):
        table = to_polars(table, "run")
        if len(tables) > 1 and not names_system(table.columns):
            raise SchemaError(f"run table {i} of the list has no 'system' column, so its system is unnamed; "
                              "pass a mapping {name: table} (pf.evaluate({'bm25': t1, 'dense': t2}, qrels)) instead")
        frame = as_run(table, system=system, default_system=default_system)
        for name in frame["system"].unique(maintain_order=True).to_list():
            if name in held_by:
                raise DuplicateError(f"run tables {held_by[name]} and {i} of the list both hold system {name!r}; "
                                     "systems must be distinct across the tables (rename one, or concatenate them "
                                     "yourself if they are parts of one run)", argument="run")
            held_by[name] = i
        frames.append(frame)
    return pl.concat(frames)


#: The forms :func:`to_polars` reads for a table other than a run or qrels (named in its TypeError).
TABLE_FORMS = "a polars / pandas / pyarrow table, a DuckDB relation or a dict of columns"


def to_polars(obj: Any, what: str, *, expected: str = TABLE_FORMS) -> pl.DataFrame:
    """``obj`` as a polars frame: the one conversion of every table the package reads from memory.

    Parameters
    ----------
    obj : table
        A polars DataFrame or LazyFrame (collected), a pandas DataFrame, a pyarrow Table or a DuckDB
        relation (a pandas Series / pyarrow Array becomes a one-column frame). For ``what`` ``"run"`` /
        ``"qrels"`` also namedtuple records (ir_measures' ``Qrel`` / ``ScoredDoc``, ir_datasets'
        ``scoreddocs_iter()`` / ``qrels_iter()`` or the dataset itself); for any other ``what`` whatever
        ``polars.DataFrame`` reads (a dict of columns, a list of rows).
    what : str
        What the table is (``"run"``, ``"qrels"``, ``"per-query table"``, ...), as the error names it.
    expected : str
        The forms the caller accepts, as a TypeError names them (not used for a run or qrels).

    Returns
    -------
    polars.DataFrame
        The columns as given: no renaming, casting or checks (each caller checks its own columns).

    Raises
    ------
    TypeError
        ``obj`` is none of these forms (the message names ``what``, the type given and the forms read),
        or a path (the callers that read files read them first).
    SchemaError
        Records that yield no row, or a pandas column of mixed types (not ids; :mod:`~pairedframe.io.pandas_columns`).
    """
    frame = _table_as_polars(obj, what, nan_to_null=what != "run")
    if frame is not None:
        return frame.to_frame() if isinstance(frame, pl.Series) else frame
    if what in _RECORD_ITERATORS:
        records = _from_records(obj, what)
        if records is not None:
            return records
        raise TypeError(f"cannot read a {what} from {type(obj).__name__}; pass a path, a polars/pandas/"
                        f"pyarrow table, a DuckDB relation, a dict {{qid: {{docno: value}}}} or namedtuple records "
                        f"(ir_measures' Qrel / ScoredDoc, ir_datasets' {_RECORD_ITERATORS[what]}())")
    if isinstance(obj, (str, os.PathLike)):  # else polars reads the path as a one-column table of its text
        raise TypeError(f"cannot read the {what} from the path {os.fspath(obj)!r}: pass {expected} (read the file "
                        "first, e.g. with polars.read_csv; a per-query results file with pf.read_results)")
    try:
        return pl.DataFrame(obj)
    except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        raise TypeError(f"cannot read the {what} from {type(obj).__name__}; pass {expected}") from exc


def _table_as_polars(obj: Any, what: str = "table", *, nan_to_null: bool = True) -> pl.DataFrame | pl.Series | None:
    """A table object converted whole (None when ``obj`` is no table of a library we know); a pandas
    NaN is null unless ``nan_to_null`` is False (a run's NaN score is reported as NaN, as it was given)."""
    if isinstance(obj, pl.LazyFrame):
        return obj.collect()
    if isinstance(obj, pl.DataFrame):
        return obj
    module = type(obj).__module__
    if module.startswith("pandas"):
        return pandas_as_polars(obj, what, nan_to_null=nan_to_null)
    if module.startswith("pyarrow"):
        return pl.from_arrow(obj)
    if callable(getattr(obj, "pl", None)):  # a DuckDB relation (its module is duckdb or _duckdb)
        return obj.pl()
    if is_spark_dataframe(obj):     # collected to the driver: the routes that read a table into memory
        return spark_as_polars(obj)
    return None


def _dicts_in_a_list(records: list, what: str) -> str:
    """What to pass instead of a list of dicts: nested dicts (pytrec_eval's layout) are one run or qrels
    each, and several runs are one dict keyed by system; flat dicts are rows of a table."""
    value = "score" if what == "run" else "grade"
    if all(isinstance(r, Mapping) and r and all(isinstance(v, Mapping) for v in r.values()) for r in records):
        if what == "run":
            return ("cannot read runs from a list of dicts: give several dict runs as one dict "
                    "keyed by system, {system: {qid: {docno: score}}}, e.g. "
                    "{'bm25': run_1, 'rerank': run_2} (a list holds paths or tables)")
        return (f"cannot read the {what} from a list of dicts: pass one dict {{qid: {{docno: "
                f"{value}}}}} (merge the judgments first)")
    return (f"cannot read a {what} from a list of dicts: pass a dict {{qid: {{docno: {value}}}}}, or rows as a "
            f"table, e.g. polars.DataFrame(rows)")


def _from_records(obj: Any, what: str) -> pl.DataFrame | None:
    """A table of namedtuple records, one column per field (None when ``obj`` is not iterable):
    ir_datasets' ``qrels_iter()`` / ``scoreddocs_iter()`` (or a dataset that has them) and
    ir_measures' ``Qrel`` / ``ScoredDoc``. Field values are kept as given (ids stay strings)."""
    method = getattr(obj, _RECORD_ITERATORS[what], None)
    if callable(method):
        obj = method()
    if isinstance(obj, (list, tuple)) and not obj:  # most likely a list of run files that came out empty (a glob)
        paths = "a run file path, a list of paths" if what == "run" else f"a {what} file path"
        raise SchemaError(f"{what} is an empty {type(obj).__name__}: give {paths}, or a table")
    if isinstance(obj, (str, bytes, Mapping)) or not isinstance(obj, Iterable):
        return None
    records = list(obj)
    if not records:
        raise SchemaError(f"the {what} is empty: its iterator yielded no record")
    kind = type(records[0])
    fields = getattr(kind, "_fields", None)
    if isinstance(records[0], Mapping):
        raise TypeError(_dicts_in_a_list(records, what))
    if not fields:
        raise TypeError(f"cannot read a {what} from an iterable of {kind.__name__}; records must be namedtuples "
                        f"such as ir_measures' Qrel / ScoredDoc or ir_datasets' TrecQrel / GenericScoredDoc")
    odd = next((r for r in records if type(r) is not kind), None)
    if odd is not None:
        raise TypeError(f"{what} records mix {kind.__name__} and {type(odd).__name__}")
    columns = dict(zip(fields, zip(*records)))
    refuse_bools_in_records(columns, what)
    return pl.DataFrame({f: pl.Series(f, column, strict=False) for f, column in columns.items()})


def _dict_id(key: Any, column: str, what: str, numeric: dict[str, None]) -> str:
    """A dict key as an id: strings as they are, integers spelled out (``column`` noted in ``numeric``,
    for the warning integer id columns get); anything else is refused."""
    if isinstance(key, str):
        return key
    if isinstance(key, int) and not isinstance(key, bool):
        numeric[column] = None
        return str(key)
    raise SchemaError(f"{what} dict: a {column} key is {key!r} ({type(key).__name__}); ids are strings (or "
                      f"integers), so that they match the ids of the other table")


def _from_nested(obj: Mapping, value_col: str, what: str) -> pl.DataFrame:
    qids, docnos, values = [], [], []
    numeric: dict[str, None] = {}
    for qid, docs in obj.items():
        if not isinstance(docs, Mapping):
            raise TypeError(f"{what} dict must map qid -> {{docno: {value_col}}}; qid {qid!r} maps to "
                            f"{type(docs).__name__}")
        qid = _dict_id(qid, "qid", what, numeric)
        for docno, value in docs.items():
            qids.append(qid)
            docnos.append(_dict_id(docno, "docno", what, numeric))
            values.append(value)
    warn_numeric_ids(sorted(numeric, key=["qid", "docno"].index), f"the {what} dict")
    i = next((i for i, v in enumerate(values) if isinstance(v, bool)), None) if value_col == "score" else None
    if i is not None:  # polars would cast True to 1.0, as a table's boolean scores are refused
        raise SchemaError(f"{what} dict: the score of (qid, docno) = ({qids[i]!r}, {docnos[i]!r}) is {values[i]!r} (bool), not a number")
    try:
        frame = pl.DataFrame({"qid": qids, "docno": docnos, value_col: values},
                             schema_overrides={"qid": pl.String, "docno": pl.String,
                                               value_col: pl.Float64 if value_col == "score" else pl.Object})
        if value_col == "score":
            inexact_dict_scores(values, frame["score"])
        return frame
    except TypeError as exc:  # polars' own message names no row
        i = next((i for i, v in enumerate(values) if not isinstance(v, numbers.Real) and v is not None), None)
        if i is None:
            raise SchemaError(f"{what} dict: scores must be numbers: {exc}") from None
        raise SchemaError(f"{what} dict: the score of (qid, docno) = ({qids[i]!r}, {docnos[i]!r}) is {values[i]!r} "
                          f"({type(values[i]).__name__}), not a number") from None


def _normalise_columns(frame: pl.DataFrame, what: str) -> pl.DataFrame:
    renames = column_renames(frame.columns, f"{what} table")
    return string_ids(frame.rename(renames), ("system", "qid", "docno"), f"the {what} table")


def _refuse_nulls(frame: pl.DataFrame, what: str) -> None:
    """SchemaError naming the columns with null values and the first such row."""
    counts = frame.null_count().row(0, named=True)
    columns = [c for c, n in counts.items() if n]
    if columns:
        row = frame.filter(pl.any_horizontal(pl.col(columns).is_null())).row(0, named=True)
        raise SchemaError(f"{what} table has null values in column(s) {columns} ({sum(counts.values())} in all), "
                          f"e.g. the row {row}; every row needs {', '.join(frame.columns)}")


def _check_unique(frame: pl.DataFrame, keys: list[str], what: str) -> None:
    last, groups = keys[-1], keys[:-1]
    if not frame.select(pl.col(last).is_duplicated().over(groups).any()).item():
        return
    dup = frame.filter(pl.struct(keys).is_duplicated())
    if dup.height:
        row = dup.row(0, named=True)
        raise DuplicateError(f"duplicate {tuple(keys)} = {tuple(row[k] for k in keys)} in the {what} table "
                             f"({dup.height} rows involved); {DUPLICATE_RULE}")


def _read_run_paths(paths: Any, system: str | None) -> pl.DataFrame:
    """Run files: TREC text through :func:`read_run`, tables (Parquet, Arrow IPC, CSV/TSV; detected by
    their first bytes) through polars; a table without a ``system`` column is named like a run file."""
    path_list = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    formats = [detect_format(p, what="run") for p in path_list]
    if all(f == "trec" for f in formats):
        return read_run(paths, system=system)
    if system is not None and len(path_list) != 1:
        raise ValueError(f"system={system!r} names one run but {len(path_list)} files were given")
    frames = []
    named_by: dict[str, str] = {}      # system name given by a file's name -> that file
    for path, fmt in zip(path_list, formats):
        if fmt == "trec":
            frame = read_run(path, system=system or None)
        else:
            table = read_table_file(path, what="run", fmt=fmt)
            refuse_blank_ids_in_file(table, path, fmt, "run")
            has_system = names_system(table.columns)
            frame = as_run(table, system=system if system is not None or has_system else table_system_name(path))
            if has_system:
                frames.append(frame)
                continue
        for name in frame["system"].unique().to_list():
            if name in named_by:
                raise ValueError(f"run files {named_by[name]!r} and {os.fspath(path)!r} are both named {name!r} "
                                 f"(after their file names); name them apart with a mapping, e.g. "
                                 f"pf.evaluate({{'{name}_a': ..., '{name}_b': ...}}, qrels)")
            named_by[name] = os.fspath(path)
        frames.append(frame)
    run = pl.concat(frames)
    _check_unique(run, ["system", "qid", "docno"], "run")
    return run


def as_run(obj: Any, *, system: str | None = None, default_system: str | None = None) -> pl.DataFrame:
    """A run table (``system, qid, docno, score``) from a path, table or dict.

    Parameters
    ----------
    obj : path, list of paths, mapping name -> path, mapping name -> table, table, list of tables or dict
        See the module docstring. A list (or tuple) of tables is their concatenation; each table has
        its own ``system`` column (a system in two tables is a DuplicateError). A table without a ``system`` column gets ``system`` (required then).
        Paths may be TREC run files or tables -- Parquet, Arrow IPC, CSV/TSV with a header row --
        told apart by their first bytes (:mod:`pairedframe.io.detect`); a table file without a
        ``system`` column is named after the file (``input.bm25.parquet`` -> ``bm25``).
    system : str, optional
        System name for a single run; default for files is TREC's naming (see :func:`read_run`),
        for a dict ``"run"``; a table without a ``system`` column needs it. It overrides a table's
        own ``system`` column of one system; over several it is a SchemaError (it would merge them).
    default_system : str, optional
        Name for a table that has no ``system`` column when ``system`` is not given; a table's own
        ``system`` column is kept (so a table holding several systems stays several).

    Returns
    -------
    polars.DataFrame
        ``system, qid, docno`` (str), ``score`` (float64); one row per retrieved document.

    Raises
    ------
    InputFormatError
        A file that is neither TREC text nor a table (the message names the run argument).
    SchemaError
        Missing columns, non-numeric or NaN scores, null values, float ids, or no system name. Scores
        ``inf`` / ``-inf`` are kept: they rank first / last, as trec_eval ranks them.
    DuplicateError
        The same (system, qid, docno) twice; in a list of tables, a system in two of them.
    ValueError
        An empty ``system`` or ``default_system`` name.

    Warns
    -----
    UserWarning
        Integer id columns or dict keys, converted to strings (leading zeros were lost before pairedframe
        saw them).
    """
    check_system_name(system)
    check_system_name(default_system, "default_system")
    if isinstance(obj, (str, os.PathLike)) or (isinstance(obj, (list, tuple)) and obj
                                                and all(isinstance(p, (str, os.PathLike)) for p in obj)):
        return _read_run_paths(obj, system)
    if isinstance(obj, (list, tuple)) and obj and all(is_table(t) for t in obj):
        return _run_tables(obj, system, default_system)  # [pf.read_run(a), pf.read_run(b)]
    layout = run_mapping_layout(obj)
    if layout is not None and layout != "one run" and system is not None:
        raise SchemaError(system_names_runs_error(obj, system))
    if layout in ("named", "systems"):
        refuse_blank_run_names(obj)
    if layout == "named":
        # {system: path or table}: run files named by the caller (e.g. two "run.txt" in different folders),
        # or runs already loaded (polars, pandas, arrow, DuckDB).
        return pl.concat([as_run(source, system=str(name)) for name, source in obj.items()])
    if layout == "systems":  # {system: {qid: {docno: score}}}: several runs at once.
        return pl.concat([as_run(run, system=str(name)) for name, run in obj.items()])
    if isinstance(obj, Mapping):
        frame, system = _from_nested(obj, "score", "run"), system or "run"
    else:
        frame = to_polars(obj, "run")
    frame = _normalise_columns(frame, "run")
    if system is not None and "system" in frame.columns:
        refuse_several_systems(frame, system)
    if "system" not in frame.columns or system is not None:
        system = system if system is not None else default_system
        if system is None:
            raise SchemaError("run table has no 'system' column: pass system='name'")
        frame = frame.with_columns(pl.lit(system, dtype=pl.String).alias("system"))
    if "score" not in frame.columns:
        raise SchemaError(f"run table lacks column 'score'; it has {frame.columns}")
    try:
        frame = numeric_scores(frame)
    except pl.exceptions.PolarsError as exc:
        raise SchemaError(f"run scores must be numbers: {exc}") from None
    frame = check_schema(frame, RUN_SCHEMA, what="run").select(list(RUN_SCHEMA))
    _refuse_nulls(frame, "run")
    refuse_nan_scores(frame, pandas=type(obj).__module__.startswith("pandas"))
    refuse_empty_ids(frame, "run")
    if frame.height == 0:
        raise SchemaError("the run is empty: no (qid, docno, score) rows")
    _check_unique(frame, ["system", "qid", "docno"], "run")
    return frame


def as_qrels(obj: Any, *, grades: Grades = "strict") -> pl.DataFrame:
    """A qrels table (``qid, docno, rel``) from a path, table or dict.

    A path may be a TREC qrels file or a table (Parquet, Arrow IPC, CSV/TSV with a header row),
    told apart by its first bytes (:mod:`pairedframe.io.detect`). ``grades`` says how a grade that
    is not an integer is read (see :func:`pairedframe.read_qrels`): refused (``"strict"``) or
    truncated to its integer prefix as trec_eval does, with one warning (``"trec_eval"``).

    Raises
    ------
    InputFormatError
        A file that is neither TREC text nor a table (the message names the qrels argument).
    SchemaError
        Missing columns, null values (named by column), float ids, no rows, or a grade that is not an
        integer (``1.0`` is accepted as 1); a table's or dict's text or boolean grades (a file's text is parsed).
    DuplicateError
        The same (qid, docno) judged twice.

    Warns
    -----
    UserWarning
        Integer id columns or dict keys, converted to strings (leading zeros were lost before pairedframe
        saw them);
        grades read as trec_eval reads them (``grades="trec_eval"``).
    """
    check_grades_option(grades)
    from_file = isinstance(obj, (str, os.PathLike))  # a table file's grades may be text, parsed as a TREC file's
    what = f"qrels file {os.fspath(obj)}" if from_file else "qrels dict" if isinstance(obj, Mapping) else "qrels table"
    if from_file:
        fmt = detect_format(obj, what="qrels")
        if fmt == "trec":
            return read_qrels(obj, grades=grades)
        path, obj = obj, read_table_file(obj, what="qrels", fmt=fmt)
        refuse_blank_ids_in_file(obj, path, fmt, "qrels")
        refuse_bad_grades(obj, path, fmt, strict=grades == "strict")
    _refuse_list_as_qrels(obj)
    frame = _from_nested(obj, "rel", "qrels") if isinstance(obj, Mapping) else to_polars(obj, "qrels")
    frame = _normalise_columns(frame, "qrels")
    if "rel" not in frame.columns:
        raise SchemaError(f"qrels table lacks column 'rel'; it has {frame.columns}")
    refuse_text_grades(frame["rel"], what, from_file=from_file)
    rel = plain_grades(frame["rel"])
    if rel.dtype == pl.Object or rel.dtype == pl.String:
        if grades == "trec_eval":
            frame = frame.with_columns(table_grades(rel, grades))
        else:
            values = rel.to_list()
            bad = next((i for i, v in enumerate(values) if not _is_integral(v)), None)
            if bad is not None:
                raise SchemaError(f"qrels column 'rel' must hold integer grades, got {values[bad]!r} (row {bad + 1})")
            frame = frame.with_columns(_whole_grades(values))
    elif rel.dtype.is_float():
        frame = frame.with_columns(table_grades(rel, grades))
    else:
        frame = frame.with_columns(int_grades(rel))
    frame = check_schema(frame, QRELS_SCHEMA, what="qrels").select(list(QRELS_SCHEMA))
    _refuse_nulls(frame, "qrels")
    refuse_empty_ids(frame, "qrels")
    if frame.height == 0:
        raise SchemaError("the qrels are empty: no (qid, docno, rel) rows")
    _check_unique(frame, ["qid", "docno"], "qrels")
    return frame


def _whole_grades(values: list) -> pl.Series:
    """Grades that passed :func:`_is_integral` as int64 (text through int, not float, which would
    round a long number), refusing (naming the row) one outside int64."""
    ints = [int(v) if isinstance(v, (numbers.Integral, float, decimal.Decimal)) else int(v.strip().split(".")[0])
            for v in values]
    low, high = INT64_RANGE
    for i, v in enumerate(ints):
        if not low <= v <= high:
            raise row_out_of_range(i + 1, str(values[i]))
    return pl.Series("rel", ints, dtype=pl.Int64)


def _is_integral(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, numbers.Integral):   # numpy's integers too (np.bool_ is none)
        return True
    if isinstance(v, decimal.Decimal):
        return v.is_finite() and v == v.to_integral_value()
    if isinstance(v, float):
        return math.isfinite(v) and v == int(v)
    if isinstance(v, str):
        return re.search(INTEGER, v.strip()) is not None  # ASCII digits: float('２') is 2.0
    return False


__all__ = ["TABLE_FORMS", "as_qrels", "as_run", "is_table", "to_polars", "InputFormatError"]
