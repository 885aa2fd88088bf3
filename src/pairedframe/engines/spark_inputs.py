"""The inputs of :class:`pairedframe.engines.spark_engine.SparkEngine`: runs and qrels as Spark DataFrames.

A run or qrels argument is a Spark DataFrame (checked as a local table is, once per frame:
:mod:`pairedframe.engines.spark_checks`), the name of a table of the session, a path or paths read by
Spark (:mod:`pairedframe.engines.spark_files`), or a local table (checked locally, sent to Spark).
:class:`SparkInputs` holds the engine's methods that turn them into checked Spark DataFrames.
"""

from __future__ import annotations

import os
import weakref
from typing import Any

import polars as pl

from pairedframe.engines.spark_files import read_qrels, read_run
from pairedframe.engines.spark_partitions import problem_error
from pairedframe.errors import about_argument
from pairedframe.io.grades import Grades
from pairedframe.io.trec import system_name_from_path

__all__ = ["SparkInputs", "is_spark_frame", "named_paths", "other_judgments"]


class SparkInputs:
    """The input methods of the Spark engine (a mixin: the engine gives :attr:`spark`, the session)."""

    spark: Any

    def __init__(self) -> None:
        # input frame -> {(kind, system): its checked frame}; and the frames checked already
        self._checked: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._clean: weakref.WeakSet = weakref.WeakSet()

    def run_frame(self, run: Any, system: str | None = None) -> Any:
        """A Spark DataFrame ``system, qid, docno, score`` from a Spark DataFrame, a table name, a path
        or list of paths (read by Spark), or a local table; duplicates raise as locally."""
        run = self._table(run, "run")
        if _paths(run) is not None:
            return self._trusted(read_run(self.spark, run, system=system))
        if not is_spark_frame(run):
            from pairedframe.io.convert import as_run

            return self._trusted(as_run(run, system=system))
        run = self._checked_frame(run, "run", system)
        dup = run.groupBy("system", "qid", "docno").count().filter("count > 1").first()
        if dup is not None:
            raise problem_error({"measure": "run-duplicate", "system": dup["system"], "qid": dup["qid"],
                                 "text": dup["docno"]})
        return run

    def qrels_frame(self, qrels: Any, grades: Grades = "strict") -> Any:
        """A Spark DataFrame ``qid, docno, rel`` as :meth:`run_frame`; ``grades`` as
        :func:`pairedframe.io.as_qrels` reads a table's (a file read by Spark: strict)."""
        qrels = self._table(qrels, "qrels")
        if isinstance(qrels, (str, os.PathLike)):
            return self._trusted(read_qrels(self.spark, os.fspath(qrels)))
        if not is_spark_frame(qrels):
            from pairedframe.io.convert import as_qrels

            return self._trusted(as_qrels(qrels, grades=grades))
        qrels = self._checked_frame(qrels, "qrels", grades)
        dup = qrels.groupBy("qid", "docno").count().filter("count > 1").first()
        if dup is not None:
            raise problem_error({"measure": "qrels-duplicate", "system": None, "qid": dup["qid"], "text": dup["docno"]})
        return qrels

    def _checked_frame(self, frame: Any, kind: str, option: str | None = None) -> Any:
        """A Spark DataFrame run or qrels in the engine's columns, checked as a local table is
        (:mod:`pairedframe.engines.spark_checks`: one Spark job), once per frame and ``option``: a
        run's ``system``, the qrels' ``grades`` (None: strict)."""
        from pairedframe.engines.spark_checks import check_qrels, check_run

        if frame in self._clean:
            return frame
        option = (option or "strict") if kind == "qrels" else option
        known = self._checked.setdefault(frame, {})
        if (kind, option) not in known:
            known[kind, option] = check_run(frame, option) if kind == "run" else check_qrels(frame, option)
            self._clean.add(known[kind, option])
        return known[kind, option]

    def _trusted(self, frame: Any) -> Any:
        """``frame``, checked already: read by :func:`read_run` / :func:`read_qrels`, or a local table
        sent to Spark (a ``pl.DataFrame``, checked by ``as_run`` / ``as_qrels``)."""
        if isinstance(frame, pl.DataFrame):
            frame = self.spark.createDataFrame(frame.to_arrow())
        self._clean.add(frame)
        return frame

    def _table(self, data: Any, what: str) -> Any:
        """A name of a table in the session's catalog (not an existing file) as that table. A local path
        (no ``scheme://``) that is neither a file nor a table is a FileNotFoundError naming ``what``, in its
        message and its ``argument`` (:func:`pairedframe.errors.about_argument`), as locally (Spark's own
        error named a path under the working folder, not the argument)."""
        if isinstance(data, (str, os.PathLike)) and not os.path.exists(data) and self._is_table(os.fspath(data)):
            return self.spark.table(os.fspath(data))
        named = _paths(data) or (list(map(os.fspath, data.values())) if isinstance(data, dict) and data and all(
            isinstance(p, (str, os.PathLike)) for p in data.values()) else [])
        with about_argument(what):
            for path in named:
                if "://" not in path and not os.path.exists(path):
                    raise FileNotFoundError(f"{what}: no such file, nor a table of that name in the Spark session: "
                                            f"{path}")
        return data

    def in_spark(self, data: Any) -> bool:
        """Whether ``data`` is a Spark DataFrame or the name of a table of the session (no existing file):
        read by Spark whatever ``grades=`` (not sent to the local readers)."""
        return is_spark_frame(data) or (isinstance(data, (str, os.PathLike)) and not os.path.exists(data)
                                         and self._is_table(os.fspath(data)))

    def collect(self, data: Any, what: str) -> pl.DataFrame:
        """A Spark DataFrame or a table of the session (:meth:`in_spark`) as a polars table, for the local
        readers (judgments of another format than qrels)."""
        return pl.from_arrow(self._table(data, what).toArrow())

    def _is_table(self, name: str) -> bool:
        from pyspark.errors import ParseException

        try:
            return self.spark.catalog.tableExists(name)
        except ParseException:     # '/tmp/x.run' is no table name at all
            return False

    def top_grade(self, qrels: Any, grades: Grades = "strict") -> pl.DataFrame:
        """The qrels' largest grade, a one-row ``rel`` frame (a Spark job over the qrels)."""
        return pl.from_arrow(self.qrels_frame(qrels, grades).selectExpr("max(rel) AS rel").toArrow())


def is_spark_frame(data: Any) -> bool:
    """Whether ``data`` is a Spark DataFrame (checked by class name: pyspark need not be imported)."""
    return any(c.__module__.startswith("pyspark.sql") and c.__name__ == "DataFrame" for c in type(data).__mro__)


def other_judgments(qrels: Any) -> bool:
    """A local table of judgment groups or preferences (:mod:`pairedframe.io.judgments`), not qrels."""
    return isinstance(qrels, pl.DataFrame) and "jg" in qrels.columns


def _paths(data: Any) -> list[str] | None:
    if isinstance(data, (str, os.PathLike)):
        return [os.fspath(data)]
    if isinstance(data, (list, tuple)) and data and all(isinstance(p, (str, os.PathLike)) for p in data):
        return [os.fspath(p) for p in data]
    return None


def named_paths(run: Any, system: str | None) -> dict[str, str] | None:
    """{system: file} of run files (``{name: path}``, a path or a list of paths, named as
    :func:`read_run` names them), or None for a table."""
    if isinstance(run, dict) and run and all(isinstance(p, (str, os.PathLike)) for p in run.values()):
        return {str(name): os.fspath(p) for name, p in run.items()}
    paths = _paths(run)
    if paths is None:
        return None
    names = [system] if system is not None and len(paths) == 1 else [system_name_from_path(p) for p in paths]
    if len(set(names)) != len(names):
        raise ValueError(f"read_run: system names {names} do not name the {len(paths)} files apart")
    return dict(zip(names, paths))
