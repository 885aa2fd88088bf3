"""engine="spark" on files: Spark moves whole lines of text, the workers split them.

Arrow hands a Python worker every column of every row, and on a run that conversion, not the
evaluation, is most of the time: repartitioning a 7M-line run by ``qid`` and handing it to the
workers took 15.5 s as six split columns and 5.1 s as one column of lines (local[2], same session).
So when the runs and the qrels are files, each line travels whole with the number of its file,
partitioned by its first field, and the worker splits it with the rules of
:func:`pairedframe.engines.spark_partitions.run_rows` / ``qrels_rows`` (trec_eval's: fields split on
runs of blanks, blank and ``#`` lines skipped) into the rows
:func:`pairedframe.engines.spark_partitions.evaluate_partition` evaluates.

The partition key is the line's first field as the worker splits it, so a query's run lines and
judgments meet in one partition however their blanks are written.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import polars as pl

__all__ = ["QRELS_FILE", "line_rows", "qid_key", "split_lines"]

#: The ``file`` number of the qrels' lines (run files are numbered 0, 1, ... in the order of their systems).
QRELS_FILE = -1

# Stripped before the first field. Not a byte order mark: Spark's text reader (Hadoop's LineRecordReader) drops
# one at the start of a file, as the local reader does, and one on a later line is part of its qid for both.
_LEADING = " \t\r\n\x0b\x0c"
_TRAILING = " \t\r\n\x0b\x0c"
_SEPARATORS = "[ \t\r\x0b\x0c]+"  # trec_eval splits on C's isspace()
_GRADE = r"^[+-]?[0-9]+(\.0*)?$"


def line_rows(spark: Any, run_paths: Sequence[str], qrels_path: str) -> Any:
    """``file, value`` of every line of the run files (``file`` = 0, 1, ...) and of the qrels
    (``file`` = :data:`QRELS_FILE`), lazily."""
    from pyspark.sql import DataFrame
    from pyspark.sql import functions as F

    from pairedframe.engines.spark_files import refuse_bare_returns, spark_path

    numbered = [*enumerate(run_paths), (QRELS_FILE, qrels_path)]
    for i, path in numbered:
        refuse_bare_returns(path, "qrels" if i == QRELS_FILE else "run")
    parts = [spark.read.text(spark_path(p)).select(F.lit(i).cast("int").alias("file"), "value") for i, p in numbered]
    return functools.reduce(DataFrame.unionByName, parts)


def qid_key() -> Any:
    """The first field of ``value`` as :func:`split_lines` splits it: the text before the first
    space of a line with no other blank and no leading blank (most lines; no regular expression),
    else a regular expression's first field."""
    from pyspark.sql import functions as F

    value = F.col("value")
    plain = ~(value.startswith(" ") | value.contains("\t") | value.contains("\r") | value.contains("\x0b")
              | value.contains("\x0c"))
    first = F.regexp_extract(value, f"^[{_LEADING}]*([^{_TRAILING}]*)", 1)
    return F.when(plain, F.substring_index(value, " ", 1)).otherwise(first)


def split_lines(lines: pl.DataFrame, systems: Sequence[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``run`` (system, qid, docno, score, bad) and ``qrels`` (qid, docno, rel, bad) rows of a
    partition's ``file, value`` lines; ``systems[i]`` names run file ``i``. Blank and ``#`` lines are
    dropped; ``bad``: a run line with fewer than six fields or a score that is not a number or is
    NaN, a qrels line of other than four fields or a grade that is not a whole number."""
    text = pl.col("value").str.strip_chars_start(_LEADING).str.strip_chars_end(_TRAILING)
    lines = lines.select("file", text.alias("line")).filter(
        (pl.col("line") != "") & ~pl.col("line").str.starts_with("#"))
    if lines.select(pl.col("line").str.contains("[\t\r\x0b\x0c]|  ").any()).item():
        lines = lines.with_columns(pl.col("line").str.replace_all(_SEPARATORS, " "))
    is_run = pl.col("file") != QRELS_FILE
    return _run(lines.filter(is_run), systems), _qrels(lines.filter(~is_run))


def _run(lines: pl.DataFrame, systems: Sequence[str]) -> pl.DataFrame:
    fields = pl.col("line").str.splitn(" ", 7).struct.rename_fields(["qid", "q0", "docno", "rank", "text", "tag", "_"])
    if len(systems) == 1:
        system = pl.lit(systems[0], dtype=pl.String)
    else:
        system = pl.col("file").replace_strict(dict(enumerate(systems)), return_dtype=pl.String)
    rows = lines.select(system.alias("system"), fields.alias("f")).unnest("f")
    score = pl.col("text").cast(pl.Float64, strict=False)
    return rows.select("system", "qid", "docno", score.alias("score"),
                       (pl.col("tag").is_null() | score.is_null() | score.is_nan()).alias("bad"))


def _qrels(lines: pl.DataFrame) -> pl.DataFrame:
    fields = pl.col("line").str.splitn(" ", 5).struct.rename_fields(["qid", "iter", "docno", "grade", "_"])
    rows = lines.select(fields.alias("f")).unnest("f")
    whole = pl.col("grade").str.contains(_GRADE).fill_null(False) & pl.col("_").is_null()
    rel = pl.when(whole).then(pl.col("grade").str.replace(r"\.0*$", "")).cast(pl.Int64, strict=False)
    return rows.select("qid", "docno", rel.alias("rel"), (~whole | rel.is_null()).alias("bad"))
