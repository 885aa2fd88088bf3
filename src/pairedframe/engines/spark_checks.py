"""The checks of a Spark DataFrame run or qrels, as :func:`pairedframe.io.convert.as_run` /
:func:`~pairedframe.io.convert.as_qrels` check a local table, with the same errors and wording.

The column types are read from the schema (no Spark job); everything about the values -- the rows,
the nulls of each column, NaN scores, empty ids, grades that are no integers -- comes from one
aggregation, one Spark job per table, before anything is cast: Spark's casts would turn ``1.5`` into
1 and ``"high"`` into an ANSI cast error, and the partitions method told run rows from qrels rows by
a null ``system``. Duplicates are checked apart (by the partitions, or one ``groupBy``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlparse

from pairedframe.checks import warn_numeric_ids
from pairedframe.errors import BLANK_ID, EMPTY_ID_RULE, InputFormatError, SchemaError, about_argument
from pairedframe.io.grades import Grades, check_grades_option, out_of_range, warn_read_as_trec_eval
from pairedframe.io.run_mappings import system_over_systems_error
from pairedframe.io.table_values import EXACT_INTEGER_LIMIT, ID_COLUMNS, warn_inexact_integers
from pairedframe.sql_files import blank_id_sql
from pairedframe.tables import column_renames

__all__ = ["check_qrels", "check_run"]

#: The grades a long holds: a whole double at or beyond this magnitude does not fit.
_LONG_LIMIT = 2.0**63


def _kind(data_type: Any) -> str:
    """``text``, ``integer``, ``fraction`` (float, double, decimal), ``null`` or ``other``."""
    from pyspark.sql import types as T

    if isinstance(data_type, (T.StringType, T.VarcharType, T.CharType)):
        return "text"
    if isinstance(data_type, T.IntegralType):
        return "integer"
    if isinstance(data_type, T.FractionalType):
        return "fraction"
    return "null" if isinstance(data_type, T.NullType) else "other"


def _types(frame: Any) -> dict[str, Any]:
    return {f.name: f.dataType for f in frame.schema.fields}


def _our_names(frame: Any, what: str) -> Any:
    """``frame`` with the other names of our columns renamed as a local table's are
    (:func:`pairedframe.tables.column_renames`: ir_measures' ``query_id, doc_id, relevance``, ...),
    with the same errors for two candidates of one column."""
    renames = column_renames(frame.columns, what)
    return frame.withColumnsRenamed(renames) if renames else frame


def _ids(frame: Any, columns: tuple[str, ...], what: str) -> list[str]:
    """Refuse float, null-typed and other non-text id columns (as ``string_ids`` does); warn about
    integer ones, which are then read as strings. The columns to cast."""
    types = _types(frame)
    kinds = {c: _kind(types[c]) for c in columns}
    floats = [f"{c} ({types[c].simpleString()})" for c in columns if kinds[c] == "fraction"]
    if floats:
        raise SchemaError(f"id column(s) {floats} of {what} hold floats: ids are strings ('007', 'd1'), and a float "
                          "such as 1.0 does not match the id '1' of another table (NaN is no id at all); read the "
                          "ids as strings, or cast whole-number ids to integers first")
    empty = [c for c in columns if kinds[c] == "null"]
    if empty:
        raise SchemaError(f"id column(s) {empty} of {what} hold no value (every value is null)")
    other = [f"{c} ({types[c].simpleString()})" for c in columns if kinds[c] == "other"]
    if other:
        raise SchemaError(f"id column(s) {other} of {what} are neither strings nor integers: ids are strings "
                          "('007', 'd1'); cast them yourself")
    warn_numeric_ids([c for c in columns if kinds[c] == "integer"], what)
    return [c for c in columns if kinds[c] != "text"]


def _facts(frame: Any, columns: tuple[str, ...], extra: dict[str, tuple[Any, list[str]]]) -> dict[str, Any]:
    """One aggregation: ``rows``; per column its nulls (``null:c``) and, for ids, empty or all-blank strings
    (``empty:c``); a row with a null (``null_row``); a first non-null value of each column
    (``value:c``); and for each ``extra`` name -> (condition, shown columns) its count and a row."""
    from pyspark.sql import functions as F

    def count(cond: Any) -> Any:
        return F.count(F.when(cond, F.lit(1)))

    def example(cond: Any, shown: list[str]) -> Any:
        return F.first(F.when(cond, F.struct(*[F.col(c) for c in shown])), ignorenulls=True)

    any_null = F.lit(False)
    aggs = [F.count(F.lit(1)).alias("rows")]
    for c in columns:
        aggs += [count(F.col(c).isNull()).alias(f"null:{c}"), F.first(F.col(c), ignorenulls=True).alias(f"value:{c}")]
        any_null = any_null | F.col(c).isNull()
    aggs.append(example(any_null, list(columns)).alias("null_row"))
    for c in (c for c in ID_COLUMNS if c in columns):
        if _kind(_types(frame)[c]) == "text":
            empty = F.expr(blank_id_sql(f"`{c}`", "spark"))
            aggs += [count(empty).alias(f"empty:{c}"), example(empty, list(columns)).alias(f"empty_row:{c}")]
    for name, (cond, shown) in extra.items():
        aggs += [count(cond).alias(f"{name}:n"), example(cond, shown).alias(f"{name}:row")]
    return frame.select(*aggs).first().asDict()


def _refuse_nulls(facts: dict[str, Any], columns: tuple[str, ...], what: str) -> None:
    """As ``convert._refuse_nulls``: the columns with nulls, their count and a row."""
    counts = {c: facts[f"null:{c}"] for c in columns}
    nulls = [c for c, n in counts.items() if n]
    if nulls:
        raise SchemaError(f"{what} table has null values in column(s) {nulls} ({sum(counts.values())} in all), "
                          f"e.g. the row {facts['null_row'].asDict()}; every row needs {', '.join(columns)}")


def _refuse_empty_ids(facts: dict[str, Any], what: str) -> None:
    """As ``table_values.refuse_empty_ids``, naming the row by its values (a Spark table has no row order)."""
    for c in ID_COLUMNS:
        if facts.get(f"empty:{c}"):
            row = facts[f"empty_row:{c}"].asDict()
            shown = ", ".join(f"{k}={v!r}" for k, v in row.items() if k != c)
            raise SchemaError(f"{what} table: column {c!r} is {BLANK_ID} in {facts[f'empty:{c}']} row(s), e.g. "
                              f"the row ({shown}); {EMPTY_ID_RULE}")


def _not_numbers(column: str, data_type: Any, value: Any, what: str, wanted: str, cast: str) -> SchemaError:
    return SchemaError(f"{what} table: column {column!r} holds {data_type.simpleString()} values (e.g. {value!r}), "
                       f"not {wanted}; {cast}: cast it yourself once you know what its values mean, e.g. "
                       f"F.col({column!r}).cast({'double' if column == 'score' else 'long'!r})")


def _empty(frame: Any, what: str, unread: SchemaError) -> Exception:
    """The error for a table with no rows: a frame Spark read from files is named by them, as the local
    readers name an empty table file (``run file x.parquet: empty table: no rows``); ``unread`` else."""
    files = [_local_path(f) for f in frame.inputFiles()]
    if not files:
        return unread
    named = ", ".join(files[:3]) + (f" (and {len(files) - 3} more)" if len(files) > 3 else "")
    return InputFormatError(f"empty table: no rows (columns {', '.join(frame.columns)})", path=named, argument=what)


def _local_path(uri: str) -> str:
    """A ``file:`` URI as the path it names (as a user wrote it); any other URI as it is."""
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def _refuse_several_systems(run: Any, system: str) -> None:
    """``system=`` renames one run; over a frame of several systems it would merge their rankings (one
    small Spark job, reading at most a few distinct names)."""
    systems = run.select("system").where("system IS NOT NULL").distinct()
    names = sorted(r[0] for r in systems.limit(7).collect())
    if len(names) > 1:
        n_systems = len(names) if len(names) < 7 else systems.count()
        raise SchemaError(system_over_systems_error(system, names[:6], n_systems))


def check_run(run: Any, system: str | None) -> Any:
    """A Spark run table as ``system, qid, docno, score`` (strings and a double) after the local checks
    (one Spark job). Columns are named as :func:`pairedframe.io.as_run` names a local table's
    (``query_id``, ``doc_id``, ``run_id``, ...); ``system``, when given, names every row, as it
    overrides a local table's own ``system`` column.

    Raises
    ------
    SchemaError
        Two candidates for one column (``qid`` and ``query_id``); no ``system`` column and no
        ``system``; a missing column; float, null-typed or other non-text ids; a score column that
        is not numeric (text, booleans: never parsed); null values (named by column); NaN scores;
        empty ids; no rows.
    InputFormatError
        No rows in a frame Spark read from files (naming them, as the local readers name a file).

    Warns
    -----
    UserWarning
        Integer id columns (read as strings); long scores beyond +-2**53 (rounded to doubles).
    """
    from pyspark.sql import functions as F

    run = _our_names(run, "run table")
    if system is not None:
        if "system" in run.columns:
            _refuse_several_systems(run, system)
        run = run.withColumn("system", F.lit(system))
    elif "system" not in run.columns:
        raise SchemaError("run table has no 'system' column: pass system='name'")
    columns = ("system", "qid", "docno", "score")
    missing = [c for c in columns if c not in run.columns]
    if missing:
        raise SchemaError(f"run table lacks column(s) {missing}; it has {run.columns}")
    _ids(run, columns[:3], "the run table")
    score_type = _types(run)["score"]
    kind = _kind(score_type)
    keys = ["system", "qid", "docno"]
    extra = {}
    if kind == "fraction" and score_type.simpleString() in ("float", "double"):
        extra["nan"] = (F.isnan(F.col("score")), keys)
    if score_type.simpleString() == "bigint":
        extra["huge"] = (F.abs(F.col("score")) > EXACT_INTEGER_LIMIT, ["score"])
    facts = _facts(run, columns, extra)
    if kind in ("text", "other") and facts["value:score"] is not None:
        raise _not_numbers("score", score_type, facts["value:score"], "run", "numbers",
                           "scores must be a numeric column (int or float)")
    if facts.get("huge:n"):
        warn_inexact_integers("run table: column 'score' (bigint)", facts["huge:n"], facts["huge:row"]["score"])
    _refuse_nulls(facts, columns, "run")
    if facts.get("nan:n"):
        row = facts["nan:row"]
        raise SchemaError(f"run table: column 'score' is NaN (not a number) in {facts['nan:n']} row(s), e.g. (system, "
                          f"qid, docno) = ({row['system']}, {row['qid']}, {row['docno']}); NaN cannot be ranked "
                          "(+-inf can)")
    _refuse_empty_ids(facts, "run")
    if not facts["rows"]:
        raise _empty(run, "run", SchemaError("the run is empty: no (qid, docno, score) rows"))
    return run.select(*[F.col(c).cast("string") for c in keys], F.col("score").cast("double"))


def check_qrels(qrels: Any, grades: Grades = "strict") -> Any:
    """A Spark qrels table as ``qid, docno, rel`` (strings and a long) after the local checks (one
    Spark job). Columns are named as :func:`pairedframe.io.as_qrels` names a local table's
    (``query_id``, ``doc_id``, ``relevance``, ``label``, ...). ``grades``: a grade that is not whole
    (``1.5``) is refused (``"strict"``) or read as trec_eval reads it, truncated toward zero with one
    warning (``"trec_eval"``), as :func:`~pairedframe.io.as_qrels` reads a local table's.

    Raises
    ------
    SchemaError
        Two candidates for one column (``rel`` and ``relevance``); a missing column; float,
        null-typed or other non-text ids; grades that are text or booleans (never parsed), NaN,
        infinite, not whole under ``grades="strict"`` (``2.0`` is 2) or beyond a long; null values
        (named by column); empty ids; no rows.
    InputFormatError
        No rows in a frame Spark read from files (naming them, as the local readers name a file).
    ValueError
        ``grades`` is neither ``"strict"`` nor ``"trec_eval"``.

    Warns
    -----
    UserWarning
        Integer id columns (read as strings); grades read as trec_eval reads them (naming one).
    """
    with about_argument("qrels"):   # which input an error is about, by an attribute (judgment sets read it)
        return _checked_qrels(qrels, grades)


def _checked_qrels(qrels: Any, grades: Grades) -> Any:
    """:func:`check_qrels`' work."""
    from pyspark.sql import functions as F

    check_grades_option(grades)
    qrels = _our_names(qrels, "qrels table")
    columns = ("qid", "docno", "rel")
    missing = [c for c in columns if c not in qrels.columns]
    if missing:
        raise SchemaError(f"qrels table lacks column(s) {missing}; it has {qrels.columns}")
    _ids(qrels, columns[:2], "the qrels table")
    rel_type = _types(qrels)["rel"]
    kind = _kind(rel_type)
    extra = {}
    if kind == "fraction":  # NaN % 1 and inf % 1 are NaN, which Spark finds != 0 as well
        rel = F.col("rel")
        nonfinite = F.isnan(rel) | (F.abs(rel) == float("inf")) if rel_type.simpleString() in ("float", "double") \
            else F.lit(False)
        extra["nonfinite"] = (nonfinite, list(columns))
        extra["fraction"] = (~nonfinite & (rel % 1 != 0), list(columns))
        extra["beyond"] = (~nonfinite & (F.abs(rel) >= _LONG_LIMIT), list(columns))
    facts = _facts(qrels, columns, extra)
    if kind in ("text", "other") and facts["value:rel"] is not None:
        raise _not_numbers("rel", rel_type, facts["value:rel"], "qrels", "integer grades",
                           "grades must be an integer column (whole floats such as 2.0 are read as integers)")
    if facts.get("nonfinite:n"):
        raise SchemaError("qrels column 'rel' must hold integer grades, got NaN or inf")
    if facts.get("fraction:n") and grades == "trec_eval":  # Spark's cast to long truncates toward zero, as atol
        row = facts["fraction:row"]
        warn_read_as_trec_eval(facts["fraction:n"], f"qrels table at (qid, docno) = ({row['qid']}, {row['docno']})",
                               str(row["rel"]), int(row["rel"]))
    elif facts.get("fraction:n"):
        row = facts["fraction:row"]
        raise SchemaError(f"qrels column 'rel' must hold integer grades, got {row['rel']} at (qid, docno) = "
                          f"({row['qid']}, {row['docno']}) ({facts['fraction:n']} such grade(s)); grades='trec_eval' "
                          "reads it as trec_eval does: 1.5 -> 1")
    if facts.get("beyond:n"):
        row = facts["beyond:row"]
        raise SchemaError(f"qrels column 'rel' at (qid, docno) = ({row['qid']}, {row['docno']}): "
                          f"{out_of_range(str(row['rel']))}")
    _refuse_nulls(facts, columns, "qrels")
    _refuse_empty_ids(facts, "qrels")
    if not facts["rows"]:
        raise _empty(qrels, "qrels", SchemaError("the qrels are empty: no (qid, docno, rel) rows"))
    return qrels.select(F.col("qid").cast("string"), F.col("docno").cast("string"), F.col("rel").cast("long"))
