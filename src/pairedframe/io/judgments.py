"""Judgments in each of trec_eval's ``-R`` formats, as the tables the engines take.

========================  ===============================================  ==========================
``judgments_format``      file lines                                       table
========================  ===============================================  ==========================
``"qrels"`` (default)     ``qid iter docno rel``                           qid, docno, rel
``"qrels_jg"``            ``qid jg docno rel`` (iter = judgment group)     qid, jg, docno, rel
``"prefs"``               ``qid jg jsg docno level``                       qid, jg, jsg, docno, level
``"qrels_prefs"``         ``qid jg docno level`` (a qrels file)            qid, jg, jsg, docno, level
========================  ===============================================  ==========================
"""

from __future__ import annotations

import os
from typing import Any, Literal

import polars as pl

from pairedframe.errors import InputFormatError, SchemaError
from pairedframe.io.convert import _check_unique, to_polars, as_qrels
from pairedframe.io.grades import Grades, check_grades_option, int_grades, refuse_text_grades, table_grades
from pairedframe.io.prefs import as_prefs
from pairedframe.io.trec import read_qrels

JudgmentsFormat = Literal["qrels", "qrels_jg", "prefs", "qrels_prefs"]
FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")

#: The kind of judgments an engine evaluates for each format (qrels_prefs are read as prefs).
KIND = {"qrels": "qrels", "qrels_jg": "qrels_jg", "prefs": "prefs", "qrels_prefs": "prefs"}


def check_format(judgments_format: str) -> None:
    if judgments_format not in FORMATS:
        raise ValueError(f"judgments_format must be one of {', '.join(map(repr, FORMATS))} (trec_eval's -R), got "
                         f"{judgments_format!r}")


def as_qrels_jg(obj: Any, *, grades: Grades = "strict") -> pl.DataFrame:
    """Qrels with judgment groups (``qid, jg, docno, rel``) from a path (:func:`pairedframe.read_qrels`
    with ``judgment_groups=True``) or a table with those columns (``iter`` for ``jg`` too).

    Raises
    ------
    SchemaError
        A missing column, null values, no rows or a grade that is not an integer.
    DuplicateError
        The same document judged twice in one group of a query.
    """
    check_grades_option(grades)
    if isinstance(obj, (str, os.PathLike)):
        return read_qrels(obj, grades=grades, judgment_groups=True)
    frame = to_polars(obj, "qrels")
    if "jg" not in frame.columns and "iter" in frame.columns:
        frame = frame.rename({"iter": "jg"})
    missing = [c for c in ("qid", "jg", "docno", "rel") if c not in frame.columns]
    if missing:
        raise SchemaError(f"qrels_jg table lacks column(s) {missing}; it has {frame.columns}")
    if frame.height == 0:
        raise SchemaError("the qrels are empty: no (qid, jg, docno, rel) rows")
    rel = frame["rel"]
    refuse_text_grades(rel, "qrels_jg table")
    grade = table_grades(rel, grades) if rel.dtype.is_float() or rel.dtype == pl.String else int_grades(rel)
    frame = frame.select(*(pl.col(c).cast(pl.String) for c in ("qid", "jg", "docno")), grade.alias("rel"))
    if frame.select(pl.any_horizontal(pl.all().is_null()).any()).item():
        raise SchemaError("qrels_jg table has null values")
    _check_unique(frame, ["qid", "jg", "docno"], "qrels_jg")
    return frame


def as_judgments(obj: Any, judgments_format: JudgmentsFormat = "qrels", *, grades: Grades = "strict") -> pl.DataFrame:
    """The judgments table of ``judgments_format`` (see the module table) from a path or a table.

    ``grades`` applies to the integer grades of ``qrels`` and ``qrels_jg``; preference levels are
    real numbers (trec_eval reads them with atof).
    """
    check_format(judgments_format)
    check_grades_option(grades)
    if isinstance(obj, (str, os.PathLike)) and os.path.isdir(obj):   # named as the qrels of every format
        raise InputFormatError("the qrels argument is a directory, not a file", path=os.fspath(obj))
    if judgments_format == "qrels":
        return as_qrels(obj, grades=grades)
    if judgments_format == "qrels_jg":
        return as_qrels_jg(obj, grades=grades)
    return as_prefs(obj, format=judgments_format)


def plain_qrels(judgments: pl.DataFrame) -> pl.DataFrame:
    """``qid, docno, rel`` of judgments in any format: each judged (qid, docno) once, grade 0 unless
    the judgments are qrels. What the ranking and the query set need (which documents are judged,
    which queries), not what a measure reads."""
    if "jg" not in judgments.columns:
        return judgments
    return judgments.select("qid", "docno").unique(maintain_order=True).with_columns(pl.lit(0, dtype=pl.Int64).alias("rel"))


def kind_of(judgments: pl.DataFrame) -> str:
    """The kind of a judgments table, from its columns: ``qrels``, ``qrels_jg`` or ``prefs``."""
    if "jsg" in judgments.columns:
        return "prefs"
    return "qrels_jg" if "jg" in judgments.columns else "qrels"
