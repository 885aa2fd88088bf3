"""Run and qrels files read by Spark with trec_eval's parse rules, errors naming the file and the line.

:func:`read_run` and :func:`read_qrels` check eagerly (a Spark job each) and return Spark
DataFrames; the partitions method of :class:`pairedframe.engines.spark_engine.SparkEngine` checks in
its one job instead and calls these only to name the line of a row it found malformed or repeated.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Sequence
from typing import Any

from pairedframe.errors import DUPLICATE_RULE, DuplicateError, InputFormatError
from pairedframe.io.detect import file_head
from pairedframe.io.duplicates import ragged_cause, run_duplicate_error
from pairedframe.io.line_ends import bare_return_error, head_bare_return_line
from pairedframe.io.trec import line_hint  # the local reader's hint: the same message
from pairedframe.io.trec import compression, system_name_from_path

__all__ = ["EMPTY_FILE", "read_qrels", "read_run", "refuse_bare_returns", "spark_path", "union"]

#: The local readers' words for a file without a data line.
EMPTY_FILE = "empty file: no data lines (blank and '#' lines are skipped)"
#: Spark picks a codec by the file name's suffix: compressed files named otherwise get a link that has it.
_SUFFIX = {"gzip": ".gz", "zstd": ".zst"}
_LINKS: list[str] = []


def spark_path(path: str) -> str:
    """``path`` as Spark should open it: a local gzip or zstd file whose name lacks the codec's
    suffix (the local readers go by the magic number, Spark by the name) is reached through a
    symbolic link that has it, in a temporary folder removed at exit."""
    if not os.path.isfile(path):
        return path
    suffix = _SUFFIX.get(compression(path) or "")
    if suffix is None or path.endswith(suffix):
        return path
    if not _LINKS:
        _LINKS.append(tempfile.mkdtemp(prefix="pairedframe-spark-"))
        atexit.register(shutil.rmtree, _LINKS[0], True)
    link = os.path.join(_LINKS[0], f"{len(os.listdir(_LINKS[0]))}-{os.path.basename(path)}{suffix}")
    os.symlink(os.path.abspath(path), link)
    return link


def refuse_bare_returns(path: str, what: str) -> None:
    """InputFormatError naming ``path`` and the line when a local file's lines end in a bare CR, as the local
    readers refuse it (:mod:`pairedframe.io.line_ends`): Spark's text source would take the CR for a line
    end.  Its first 64 KiB tell (such lines end so from the first on); a path Spark reaches elsewhere
    (``hdfs://``, ``s3://``) is read as Spark reads it."""
    if not os.path.isfile(path):
        return
    bare = head_bare_return_line(file_head(path)[0], 6 if what == "run" else 4)
    if bare is not None:
        raise bare_return_error(path, what, bare)


_BLANKS = "[ \\t\\r\\x0B\\x0C]+"
# No byte order mark: Spark's text reader drops one at the start of a file (as the local reader does); one on a
# later line is part of its qid, for the local reader too
_EDGES = "^[ \\t\\r\\n\\x0B\\x0C]+|[ \\t\\r\\n\\x0B\\x0C]+$"


def _lines(spark: Any, path: str, *, numbered: bool) -> Any:
    """``line`` (stripped) of the data lines of a text file (plain, gzip or zstd, by Spark's codecs), with
    ``line_no`` (1-based, counting every line) when ``numbered`` -- the slower error path."""
    from pyspark.sql import functions as F

    path = spark_path(path)
    if numbered:
        rdd = spark.sparkContext.textFile(path).zipWithIndex().map(lambda t: (t[0], t[1] + 1))
        frame = spark.createDataFrame(rdd, "value string, line_no long")
    else:
        frame = spark.read.text(path)
    stripped = F.regexp_replace(F.col("value"), _EDGES, "")
    frame = frame.withColumn("line", stripped).filter((F.col("line") != "") & ~F.col("line").startswith("#"))
    return frame


def _fields(frame: Any, names: Sequence[str]) -> Any:
    from pyspark.sql import functions as F

    parts = F.split(F.col("line"), _BLANKS)
    # try_: a short line has no field i (ANSI mode, Spark 4's default, fails element_at out of bounds)
    cols = [F.try_element_at(parts, F.lit(i + 1)).alias(n) for i, n in enumerate(names)]
    return frame.select("*", F.size(parts).alias("_n"), *cols)


def _fail(spark: Any, path: str, names: Sequence[str], condition: Any, message, what: str) -> None:
    """Raise InputFormatError for the first line of ``path`` (the ``what`` argument) meeting ``condition``
    (error path)."""
    from pyspark.sql import functions as F

    bad = _fields(_lines(spark, path, numbered=True), names).filter(condition).orderBy(F.col("line_no")).first()
    if bad is not None:
        text, column = message(bad.asDict())
        raise InputFormatError(text, path=path, line=bad["line_no"], column=column, text=bad["line"], argument=what)


def _duplicate(spark: Any, path: str, names: Sequence[str], what: str) -> None:
    """Raise DuplicateError naming the lines of the first repeated (qid, docno) (error path)."""
    from pyspark.sql import functions as F

    numbered = _fields(_lines(spark, path, numbered=True), names)
    twin = (numbered.groupBy("qid", "docno").agg(F.sort_array(F.collect_list("line_no")).alias("lines"))
            .filter(F.size("lines") > 1).orderBy(F.element_at("lines", 1)).first())
    first = numbered.filter(F.col("line_no") == twin["lines"][0]).first()
    if what == "run":                  # several run tags in the file are named: the likelier cause
        texts = [r["line"] for r in numbered.filter(F.col("line_no").isin(list(twin["lines"]))).orderBy("line_no")
                 .select("line").collect()]
        tags = [r["tag"] for r in numbered.groupBy("tag").agg(F.min("line_no").alias("at")).orderBy("at").collect()]
        raise run_duplicate_error(path, twin["qid"], twin["docno"], list(twin["lines"]), texts, tags=tags,
                                  argument=what, ragged=ragged_cause(_field_counts(numbered), list(twin["lines"]), texts))
    raise DuplicateError(f"duplicate (qid, docno) = ({twin['qid']}, {twin['docno']}) in {what}, also on line(s) "
                         f"{list(twin['lines'][1:6])}; {DUPLICATE_RULE}, remove them",
                         path=path, line=twin["lines"][0], text=first["line"], argument=what)


def _field_counts(numbered: Any) -> dict[tuple[int, str], int]:
    """For :func:`ragged_cause`: how many lines hold each (number of fields, 2nd field) (error path)."""
    from pyspark.sql import functions as F

    second = F.coalesce(F.try_element_at(F.split(F.col("line"), _BLANKS), F.lit(2)), F.lit("")).alias("f2")
    return {(r["_n"], r["f2"]): r["count"] for r in numbered.groupBy("_n", second).count().collect()}


def read_run(spark: Any, paths: str | Sequence[str], *, system: str | Sequence[str] | None = None) -> Any:
    """TREC run files read by Spark into ``system, qid, docno, score`` (trec_eval's parse rules).

    Same rules and errors as :func:`pairedframe.read_run`: fields split on runs of blanks, blank and
    ``#`` lines skipped, at least 6 fields, a numeric score other than NaN (``inf`` / ``-inf`` rank
    first / last), no (qid, docno) twice; system names from the file names unless given. A bad line is named by file and line number.
    """
    from pyspark.sql import functions as F

    path_list = [paths] if isinstance(paths, (str, os.PathLike)) else [os.fspath(p) for p in paths]
    names = ([system] if isinstance(system, str) else list(system)) if system is not None else \
        [system_name_from_path(p) for p in path_list]
    if len(names) != len(path_list) or len(set(names)) != len(names):
        raise ValueError(f"read_run: system names {names} do not name the {len(path_list)} files apart")
    frames = []
    fields = ("qid", "q0", "docno", "rank", "score", "tag")
    for path, name in zip(map(os.fspath, path_list), names):
        refuse_bare_returns(path, "run")
        frame = _fields(_lines(spark, path, numbered=False), fields).select(
            F.lit(name).alias("system"), "qid", "docno", F.col("score").alias("_text"), "_n",
            F.expr("try_cast(score AS DOUBLE)").alias("score"))
        checks = frame.agg(F.sum(F.when(F.col("_n") < 6, 1).otherwise(0)).alias("short"),
                           F.sum(F.when(F.col("score").isNull() | F.isnan("score"), 1).otherwise(0)).alias("bad"),
                           (F.count(F.lit(1)) - F.countDistinct("qid", "docno")).alias("dup"),
                           F.count(F.lit(1)).alias("rows")).first()
        if not checks["rows"]:
            raise InputFormatError(EMPTY_FILE, path=path, argument="run")
        if checks["short"] or checks["bad"]:
            score = F.expr("try_cast(score AS DOUBLE)")
            _fail(spark, path, fields, F.col("_n") < 6, lambda r: (
                f"expected at least 6 fields (qid Q0 docno rank score tag), found {r['_n']}"
                + line_hint(r["line"], "run"), None), "run")
            _fail(spark, path, fields, score.isNull(), lambda r: (
                f"score {r['score']!r} is not a number" + line_hint(r["line"], "run"), 5), "run")
            _fail(spark, path, fields, F.isnan(score),
                  lambda r: (f"score {r['score']!r} is NaN (not a number), which cannot be ranked (inf and -inf can)", 5),
                  "run")
        if checks["dup"]:
            _duplicate(spark, path, fields, "run")
        frames.append(frame.select("system", "qid", "docno", "score"))
    return union(frames)


def union(frames: list) -> Any:
    """The frames stacked by column name."""
    out = frames[0]
    for frame in frames[1:]:
        out = out.unionByName(frame)
    return out


def read_qrels(spark: Any, path: str) -> Any:
    """A TREC qrels file read by Spark into ``qid, docno, rel`` (rules of :func:`pairedframe.read_qrels`)."""
    from pyspark.sql import functions as F

    path = os.fspath(path)
    refuse_bare_returns(path, "qrels")
    fields = ("qid", "iter", "docno", "rel")
    grade = F.col("rel").rlike("^[+-]?[0-9]+(\\.0*)?$")
    frame = _fields(_lines(spark, path, numbered=False), fields)
    checks = frame.agg(F.sum(F.when(F.col("_n") != 4, 1).otherwise(0)).alias("width"),
                       F.sum(F.when(~grade, 1).otherwise(0)).alias("bad"),
                       (F.count(F.lit(1)) - F.countDistinct("qid", "docno")).alias("dup"),
                       F.count(F.lit(1)).alias("rows")).first()
    if not checks["rows"]:
        raise InputFormatError(EMPTY_FILE, path=path, argument="qrels")
    if checks["width"] or checks["bad"]:
        _fail(spark, path, fields, F.col("_n") != 4, lambda r: (
            f"expected exactly 4 fields (qid iter docno rel), found {r['_n']}" + line_hint(r["line"], "qrels"), None),
              "qrels")
        _fail(spark, path, fields, ~grade, lambda r: (
            f"relevance grade {r['rel']!r} is not an integer" + line_hint(r["line"], "qrels"), 4), "qrels")
    if checks["dup"]:
        _duplicate(spark, path, fields, "qrels")
    return frame.select("qid", "docno", F.regexp_replace("rel", "\\.0*$", "").cast("long").alias("rel"))
