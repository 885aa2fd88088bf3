"""engine="spark" by partitions: Spark moves the rows, the exact local engine computes the values.

Spark reads the files (or the tables), hash-partitions the run rows and the qrels rows together by
``qid`` -- one shuffle, so a query's documents and its judgments meet in one partition; files travel
as whole lines, split by the workers (:mod:`pairedframe.engines.spark_lines`) -- and a Python worker
evaluates each partition as ``pf.evaluate`` evaluates a streamed block:
:func:`pairedframe.engines.ranking.rank_judged` ranks the judged documents (scores compared
as numbers, trec_eval's docno rule inside ties) and the local engine (DuckDB, or polars) computes
the measures from those ranks. A query's values depend on its own rows only, so the values are
the local engine's, whatever the partitioning.

One Spark job does everything: the checks of the input (malformed lines, duplicate pairs) travel
as flags and come back as ``problem`` rows, after which the exact readers name the line; the
ranking sizes, the judged queries and the largest grade come back beside the values, so that
``evaluate`` needs no second pass over the data. Where Spark splits a file itself (a run file with
a qrels table, or the reverse), splitting a line on one space (Java's fast path) is several times
cheaper than on a regular expression, so lines of six fields separated by single spaces take that
path and only the others are split on runs of blanks.

The workers need what the driver has: pairedframe, polars, pyarrow and the local engine
(``spark.pyspark.python`` pointing at the same environment; :func:`pairedframe.engines.spark_engine.spark_session`
sets it for the sessions it creates).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import polars as pl
import pyarrow as pa

from pairedframe.engines.base import RESULT_SCHEMA, EvalOptions
from pairedframe.engines.ranking import rank_judged
from pairedframe.engines.spark_files import _BLANKS, _EDGES, spark_path
from pairedframe.errors import DUPLICATE_RULE, DuplicateError, PairedFrameError, SchemaError
from pairedframe.io.trec import pair_hash
from pairedframe.measures import Measure

__all__ = ["OUTPUT_SCHEMA", "evaluate_partitions", "partition_count", "qrels_rows", "run_rows"]

#: What each partition returns: ``kind`` says which columns mean something. ``value``: a per-query
#: value (system, qid, measure, value, text); ``retrieved``: a ranking size (system, qid, n);
#: ``judged``: a judged query (qid); ``grade``: the partition's largest grade (n); ``problem``: a
#: malformed or repeated row (measure names the check, system the run, qid and text the pair).
OUTPUT_SCHEMA = "kind string, system string, qid string, measure string, value double, text string, n long"
_ARROW_OUTPUT = pa.schema([("kind", pa.string()), ("system", pa.string()), ("qid", pa.string()),
                          ("measure", pa.string()), ("value", pa.float64()), ("text", pa.string()), ("n", pa.int64())])
#: Text bytes per partition when the input size is known (a partition is held whole by one worker).
PARTITION_BYTES = 32 * 2**20

_GRADE = "^[+-]?[0-9]+(\\.0*)?$"


def _split(spark: Any, path: str, fields: int) -> Any:
    """``parts`` and ``skip`` of every line of a text file: one-space lines of exactly ``fields``
    fields split on that space, the others stripped and split on runs of blanks; ``skip`` marks
    blank and ``#`` lines.

    One projection, no filter: a filter on the split line would be evaluated apart from the
    projection (Spark eliminates common subexpressions within a projection only), splitting each
    line up to three more times (1.6x the time of this projection on a 62 MB run here). Callers null their
    ``bad`` flag on skipped lines and the partitions drop those rows."""
    from pyspark.sql import functions as F

    value = F.col("value")
    fast = F.split(value, " ")
    simple = (F.size(fast) == fields) & ~F.array_contains(fast, "") & ~(
        value.contains("\t") | value.contains("\r") | value.contains("\x0b") | value.contains("\x0c"))
    stripped = F.regexp_replace(value, _EDGES, "")
    skip = F.when(simple, value.startswith("#")).otherwise((stripped == "") | stripped.startswith("#"))
    parts = F.when(simple, fast).otherwise(F.split(stripped, _BLANKS))
    return spark.read.text(spark_path(path)).select(parts.alias("parts"), skip.alias("skip"))


def _item(i: int) -> Any:
    from pyspark.sql import functions as F

    return F.try_element_at(F.col("parts"), F.lit(i + 1))


def run_rows(spark: Any, path: str, system: str) -> Any:
    """``system, qid, docno, score, rel, bad`` of a run file, lazily (``rel`` null; ``bad``: fewer
    than six fields, or a score that is not a number or is NaN; ``inf`` / ``-inf`` rank first / last;
    null on blank and ``#`` lines, which the partitions drop)."""
    from pyspark.sql import functions as F

    score = F.expr("try_cast(try_element_at(parts, 5) AS DOUBLE)")
    bad = F.when(~F.col("skip"), (F.size("parts") < 6) | score.isNull() | F.isnan(score))
    return _split(spark, path, 6).select(F.lit(system).alias("system"), _item(0).alias("qid"), _item(2).alias("docno"),
                                         score.alias("score"), F.lit(None).cast("long").alias("rel"), bad.alias("bad"))


def qrels_rows(spark: Any, path: str) -> Any:
    """``system, qid, docno, score, rel, bad`` of a qrels file, lazily (``system`` and ``score``
    null; ``bad``: other than four fields or a grade that is not an integer; null on blank and ``#``
    lines, which the partitions drop)."""
    from pyspark.sql import functions as F

    grade = _item(3)
    bad = F.when(~F.col("skip"), (F.size("parts") != 4) | ~F.coalesce(grade.rlike(_GRADE), F.lit(False)))
    rel = F.when(~bad, F.regexp_replace(grade, "\\.0*$", "")).cast("long")
    return _split(spark, path, 4).select(F.lit(None).cast("string").alias("system"), _item(0).alias("qid"),
                                         _item(2).alias("docno"), F.lit(None).cast("double").alias("score"),
                                         rel.alias("rel"), bad.alias("bad"))


def table_rows(run: Any = None, qrels: Any = None) -> Any:
    """The same columns from a Spark run table (``system, qid, docno, score``) or qrels table
    (``qid, docno, rel``); a null or NaN score or a null grade is ``bad``."""
    from pyspark.sql import functions as F

    if run is not None:
        score = F.col("score")
        bad = score.isNull() | F.isnan(score)
        return run.select("system", "qid", "docno", "score", F.lit(None).cast("long").alias("rel"), bad.alias("bad"))
    return qrels.select(F.lit(None).cast("string").alias("system"), "qid", "docno",
                        F.lit(None).cast("double").alias("score"), "rel", F.col("rel").isNull().alias("bad"))


def partition_count(spark: Any, paths: Sequence[str] = (), frame: Any = None) -> int:
    """Partitions of the shuffle: two per core, more when the input is large -- one per
    :data:`PARTITION_BYTES` of the files, two per input partition of a Spark DataFrame ``frame``
    (a worker holds its partition whole) -- rounded up to a multiple of the cores (no last wave
    of one partition while the other cores wait)."""
    cores = max(int(spark.sparkContext.defaultParallelism), 1)
    size = sum(os.path.getsize(p) for p in paths if os.path.isfile(p))
    inputs = 2 * frame.rdd.getNumPartitions() if frame is not None else 0
    wanted = max(2 * cores, math.ceil(size / PARTITION_BYTES), inputs)
    return cores * math.ceil(wanted / cores)


def evaluate_partitions(rows: Any, measures: list[Measure], options: EvalOptions, *, systems: list[str] | None,
                        partitions: int, engine: str = "polars", sample_rows: int = 0,
                        raise_problems: bool = False, line_systems: list[str] | None = None) -> Any:
    """The lazy Spark DataFrame (:data:`OUTPUT_SCHEMA`) of every partition's values and facts.

    ``rows``: run and qrels rows together (:func:`run_rows`, :func:`qrels_rows`, :func:`table_rows`).
    ``systems``: every system's name, needed only with ``options.complete`` (a judged query that a
    system did not retrieve is scored 0 in whichever partition holds its judgments). ``engine``:
    the local engine of the workers (``"polars"`` or ``"duckdb"``: the same values). ``sample_rows``: run rows (of
    its first queries) each partition returns per system (``sample``, their judgments ``sample-judged``)
    for the near-miss docno check. ``raise_problems``: a malformed or repeated row fails the job
    with :func:`problem_error`'s error (for a result that stays lazy) instead of a ``problem`` row.
    ``line_systems``: ``rows`` are lines of files (:func:`pairedframe.engines.spark_lines.line_rows`),
    run file ``i`` naming system ``line_systems[i]``.
    """
    import functools

    options_of_work = dict(measures=list(measures), options=options, systems=list(systems or []), engine=engine,
                           sample_rows=sample_rows, raise_problems=raise_problems)
    if line_systems is None:
        work = functools.partial(evaluate_partition, **options_of_work)
        return rows.repartition(partitions, "qid").mapInArrow(work, OUTPUT_SCHEMA)
    from pairedframe.engines.spark_lines import qid_key

    work = functools.partial(evaluate_line_partition, line_systems=list(line_systems), **options_of_work)
    return rows.repartition(partitions, qid_key()).mapInArrow(work, OUTPUT_SCHEMA)


def evaluate_line_partition(batches: Iterable[pa.RecordBatch], *, line_systems: list[str],
                            **work: Any) -> Iterator[pa.RecordBatch]:
    """One partition of lines of files (``file, value``), in a Python worker: split, then as
    :func:`evaluate_partition`."""
    from pairedframe.engines.spark_lines import split_lines

    batches = [b for b in batches if b.num_rows]
    if not batches:
        return
    run, qrels = split_lines(pl.from_arrow(pa.Table.from_batches(batches)), line_systems)
    yield from _evaluate_rows(run, qrels, **work)


def evaluate_partition(batches: Iterable[pa.RecordBatch], *, measures: list[Measure], options: EvalOptions,
                       systems: list[str], engine: str, sample_rows: int = 0,
                       raise_problems: bool = False) -> Iterator[pa.RecordBatch]:
    """One partition, in a Python worker: run rows (``system`` set) and qrels rows (``system``
    null) of whole queries -> :data:`OUTPUT_SCHEMA` batches."""
    batches = [b for b in batches if b.num_rows]
    if not batches:
        return
    frame = pl.from_arrow(pa.Table.from_batches(batches)).filter(pl.col("bad").is_not_null())  # blank, # lines
    if not frame.height:
        return
    is_run = pl.col("system").is_not_null()
    run = frame.filter(is_run).select("system", "qid", "docno", "score", "bad")
    qrels = frame.filter(~is_run).select("qid", "docno", pl.col("rel").cast(pl.Int64), "bad")
    yield from _evaluate_rows(run, qrels, measures=measures, options=options, systems=systems, engine=engine,
                              sample_rows=sample_rows, raise_problems=raise_problems)


def _evaluate_rows(run: pl.DataFrame, qrels: pl.DataFrame, *, measures: list[Measure], options: EvalOptions,
                   systems: list[str], engine: str, sample_rows: int = 0,
                   raise_problems: bool = False) -> Iterator[pa.RecordBatch]:
    """A partition's run rows (system, qid, docno, score, bad) and qrels rows (qid, docno, rel, bad)
    -> :data:`OUTPUT_SCHEMA` batches."""
    if not run.height and not qrels.height:
        return
    problems = _problems(run, qrels)
    if problems.height and raise_problems:
        raise problem_error(problems.row(0, named=True))
    if problems.height:
        yield _batch(problems.with_columns(pl.lit("problem").alias("kind")))
        return
    run, qrels = run.drop("bad"), qrels.drop("bad")
    ranks, retrieved = rank_judged(run, qrels, score_precision=options.score_precision)
    sizes = retrieved
    if options.complete and systems:  # judged queries a system did not retrieve: trec_eval -c's placeholder,
        missing = (pl.DataFrame({"system": systems}, schema={"system": pl.String})  # a ranking of one unjudged document
                   .join(qrels.select("qid").unique(), how="cross").join(retrieved, on=["system", "qid"], how="anti")
                   .with_columns(pl.lit(1, dtype=retrieved.schema["n"]).alias("n")))
        sizes = pl.concat([retrieved, missing])
        options = dataclasses.replace(options, complete=False)
    parts = [retrieved.select(pl.lit("retrieved").alias("kind"), "system", "qid", "n"),
             qrels.select(pl.lit("judged").alias("kind"), "qid").unique(),
             qrels.select(pl.lit("grade").alias("kind"), pl.col("rel").max().alias("n")),
             qrels.select(pl.lit("positive").alias("kind"), (pl.col("rel") > 0).sum().cast(pl.Int64).alias("n"))]
    if sizes.height:
        values = _local_engine(engine).evaluate_ranked(ranks, sizes, qrels, measures, options)
        parts.insert(0, values.select(pl.lit("value").alias("kind"), *RESULT_SCHEMA))
    if sample_rows:
        parts += _sample(run, qrels, sample_rows)
    for part in parts:
        if part.height:
            yield _batch(part)


def _sample(run: pl.DataFrame, qrels: pl.DataFrame, rows: int) -> list[pl.DataFrame]:
    """Each system's first ``rows`` rows, from as few queries as they come in (``n`` = 1 when the
    system has more rows here), and the judgments of those queries: few queries, few judgments."""
    sizes = run.group_by("system", "qid", maintain_order=True).len()
    before = pl.col("len").cum_sum().over("system") - pl.col("len")
    chosen = sizes.filter(before < rows)
    taken = run.join(chosen.select("system", "qid"), on=["system", "qid"], how="semi", maintain_order="left")
    kept = taken.group_by("system", maintain_order=True).head(rows)
    total = run.group_by("system").len().rename({"len": "total"})
    kept = kept.join(total, on="system", how="left").with_columns(
        (pl.col("total") > rows).cast(pl.Int64).alias("n"))
    judged = qrels.join(kept.select("qid").unique(), on="qid", how="semi")
    return [kept.select(pl.lit("sample").alias("kind"), "system", "qid", pl.col("docno").alias("text"), "n"),
            judged.select(pl.lit("sample-judged").alias("kind"), "qid", pl.col("docno").alias("text"))]


def _problems(run: pl.DataFrame, qrels: pl.DataFrame) -> pl.DataFrame:
    """``measure, system, qid, text`` of the first malformed or repeated row of each kind."""
    found = []
    for name, table, keys in (("run-format", run, ["system"]), ("qrels-format", qrels, [])):
        bad = table.filter(pl.col("bad"))
        if bad.height:
            found.append(bad.head(1).select(pl.lit(name).alias("measure"), *[pl.col(k) for k in keys], "qid",
                                            pl.col("docno").alias("text")))
    for name, table, keys in (("run-duplicate", run, ["system", "qid", "docno"]),
                              ("qrels-duplicate", qrels, ["qid", "docno"])):
        twin = _first_duplicate(table, keys)
        if twin is not None:
            found.append(twin.select(pl.lit(name).alias("measure"), *[pl.col(k) for k in keys[:-2]], "qid",
                                     pl.col("docno").alias("text")))
    schema = {"measure": pl.String, "system": pl.String, "qid": pl.String, "text": pl.String}
    return pl.concat([f.select([pl.col(c).cast(t) if c in f.columns else pl.lit(None, dtype=t).alias(c)
                                for c, t in schema.items()]) for f in found]) if found else pl.DataFrame(schema=schema)


def problem_error(problem: dict) -> PairedFrameError:
    """The error of a ``problem`` row of a table's rows (``measure`` names the check)."""
    check, system, qid, docno = problem["measure"], problem["system"], problem["qid"], problem["text"]
    if check == "run-duplicate":
        return DuplicateError(f"duplicate (qid, docno) = ({qid}, {docno}) in run of system {system!r}; "
                              f"{DUPLICATE_RULE}, remove them")
    if check == "qrels-duplicate":
        return DuplicateError(f"duplicate (qid, docno) = ({qid}, {docno}) in qrels; {DUPLICATE_RULE}, "
                              "remove them", argument="qrels")
    if check == "run-format":
        return SchemaError(f"run of system {system!r} has a score that is null or NaN at (qid, docno) = "
                           f"({qid}, {docno})")
    null_grade = SchemaError(f"qrels has a null grade at (qid, docno) = ({qid}, {docno})")
    null_grade.argument = "qrels"  # type: ignore[attr-defined]  # which input (judgment_sets reads it)
    return null_grade


def _first_duplicate(table: pl.DataFrame, keys: list[str]) -> pl.DataFrame | None:
    """A row whose ``keys`` repeat, or None: 64-bit hashes sorted first (no repeat: no duplicate),
    the strings compared only when a hash repeats."""
    if table.height < 2:
        return None
    hashes = pair_hash(table)
    if "system" in keys:
        hashes = hashes ^ table["system"].hash(0x5157)
    ordered = np.sort(hashes.to_numpy())
    if not (ordered[1:] == ordered[:-1]).any():
        return None
    twins = table.filter(pl.struct(keys).is_duplicated())
    return twins.head(1) if twins.height else None


def _local_engine(name: str) -> Any:
    if name == "polars":
        from pairedframe.engines.polars_engine import PolarsEngine

        return PolarsEngine()
    if name == "duckdb":
        from pairedframe.engines.duckdb_engine import DuckDBEngine

        return DuckDBEngine()
    raise ValueError(f"local engine {name!r}: expected 'duckdb' or 'polars'")


def _batch(frame: pl.DataFrame) -> pa.RecordBatch:
    """``frame``'s columns in :data:`OUTPUT_SCHEMA` (missing ones null), as one Arrow batch."""
    columns = [frame[f.name].to_arrow().cast(f.type) if f.name in frame.columns else pa.nulls(frame.height, f.type)
               for f in _ARROW_OUTPUT]
    return pa.RecordBatch.from_arrays(columns, schema=_ARROW_OUTPUT)


@dataclasses.dataclass(frozen=True)
class SparkFacts:
    """What ``evaluate`` needs from one Spark evaluation, collected: ``values`` (:data:`RESULT_SCHEMA`),
    ``retrieved`` (system, qid), ``judged`` (qid), ``top`` (the qrels' largest grade, a one-row
    ``rel`` frame), ``positive`` (the judgments with a grade > 0: trec_eval's ``num_rel all`` under
    ``-c``), and a bounded ``sample`` of run rows (system, qid, docno) with the qrels rows of its
    queries (``sample_qrels``: qid, docno) and the systems it holds only part of (``partial``)."""

    values: pl.DataFrame
    retrieved: pl.DataFrame
    judged: pl.DataFrame
    top: pl.DataFrame
    sample: pl.DataFrame
    sample_qrels: pl.DataFrame
    positive: int = 0
    partial: frozenset[str] = frozenset()


def facts_of(out: pl.DataFrame) -> SparkFacts:
    """:class:`SparkFacts` from the collected rows of :func:`evaluate_partitions` (no ``problem`` rows)."""
    kind = pl.col("kind")
    values = out.filter(kind == "value").select([pl.col(c).cast(t) for c, t in RESULT_SCHEMA.items()])
    sample = out.filter(kind == "sample")
    return SparkFacts(
        values=values,
        retrieved=out.filter(kind == "retrieved").select("system", "qid"),
        judged=out.filter(kind == "judged").select("qid").unique(),
        top=out.filter(kind == "grade").select(pl.col("n").max().alias("rel")),
        sample=sample.select("system", "qid", pl.col("text").alias("docno")),
        sample_qrels=out.filter(kind == "sample-judged").select("qid", pl.col("text").alias("docno")),
        positive=int(out.filter(kind == "positive")["n"].sum()),
        partial=frozenset(sample.filter(pl.col("n") == 1)["system"].unique().to_list()))


def _import_in_worker(batches: Iterable[pa.RecordBatch], *, engine: str) -> Iterator[pa.RecordBatch]:
    """In a Python worker: import what :func:`evaluate_partition` needs."""
    for _ in batches:
        pass
    _local_engine(engine)
    yield pa.RecordBatch.from_pydict({"ok": [True]})


def probe_workers(spark: Any, engine: str = "polars") -> str | None:
    """None when the session's Python workers can run :func:`evaluate_partition`, else why not (the
    last line of the worker's error, e.g. ``No module named 'pairedframe'``)."""
    import functools

    try:
        spark.range(1).mapInArrow(functools.partial(_import_in_worker, engine=engine), "ok boolean").collect()
    except Exception as exc:  # noqa: BLE001 -- any failure means: not these workers
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        found = [line for line in lines if "Error" in line and ":" in line]
        return (found or lines or [type(exc).__name__])[-1][:300]
    return None
