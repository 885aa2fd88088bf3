"""Preference judgments (trec_eval ``-R prefs`` and ``-R qrels_prefs``) and the preferences they express.

A prefs file has lines ``qid jg jsg docno level`` (get_prefs.c): within a judgment sub-group (jsg) of
a judgment group (jg), a document with a higher level is preferred to one with a lower level. One
jg is one judge's (consistent) view: the preferences of its sub-groups are combined transitively. A
qrels file read as preferences (``qrels_prefs``, get_qrels_prefs.c) is ``qid jg docno level`` with one
sub-group per jg (its iteration column is the jg). Levels are real numbers; a level > 0 marks a
relevant document, 0 a non-relevant one.

:func:`preferences` turns the lines into the tables the engines evaluate (form_prefs_counts.c's
structures, independent of any run): the judgment groups, the judged documents, each group's members
and its preference pairs ``a`` preferred to ``b`` (for a group of several sub-groups, closed under
transitivity). Their number grows as the square of the documents judged in a group.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Literal

import polars as pl

from pairedframe.errors import DuplicateError, InputFormatError, SchemaError
from pairedframe.io.convert import to_polars
from pairedframe.io.path_args import path_list
from pairedframe.io.trec import PathLike, _field_count, _first_bad, _fail, _read_data_lines, _split_fields, spooled

PrefsFormat = Literal["prefs", "qrels_prefs"]

PREFS_SCHEMA: dict[str, pl.DataType] = {"qid": pl.String(), "jg": pl.String(), "jsg": pl.String(),
                                        "docno": pl.String(), "level": pl.Float64()}
_FIELDS = {"prefs": ("qid", "jg", "jsg", "docno", "level"), "qrels_prefs": ("qid", "jg", "docno", "level")}
_KEYS = ["qid", "jg", "jsg", "docno"]


def read_prefs(path: PathLike, *, format: PrefsFormat = "prefs") -> pl.DataFrame:  # noqa: A002 - trec_eval's -R
    """Read preference judgments (plain, gzip or zstd: ``.gz``, ``.zst``).

    Parameters
    ----------
    path : path
        ``format="prefs"``: lines ``qid jg jsg docno level`` (exactly 5 fields; trec_eval's
        ``prefs.test``). ``format="qrels_prefs"``: a qrels file ``qid iter docno level`` read as
        preferences, the iteration column naming the judgment group, one sub-group ``"0"`` per group.
        ``level`` is a real number (``1``, ``5.5``, ``1e3``). Blank lines and lines starting with
        ``#`` are skipped.
    format : {"prefs", "qrels_prefs"}
        trec_eval's ``-R`` name of the file's layout.

    Returns
    -------
    polars.DataFrame
        ``qid, jg, jsg, docno`` (str) and ``level`` (float64), one row per line.

    Raises
    ------
    InputFormatError
        Empty file, a line with another number of fields, a level that is not a finite number, or a
        document given a level 0 in one sub-group and a level > 0 in the next of its group (trec_eval
        stops there: "has both 0 and non-0 rel_level"); the message names the file and the line.
    DuplicateError
        The same (qid, jg, jsg, docno) twice (trec_eval counts such a line twice in some groups and
        once in others).
    TypeError
        ``path`` is not a path (a table or dict: the message says where it goes).
    """
    if format not in _FIELDS:
        raise ValueError(f"format must be 'prefs' or 'qrels_prefs', got {format!r}")
    path_list(path, reader="read_prefs", argument="path", instead="pf.evaluate(..., judgments_format='prefs') "
              "takes a table of preferences as it is")
    with spooled([path]) as (readable,):
        return _read_prefs(readable, format)


def _read_prefs(path: str, fmt: PrefsFormat) -> pl.DataFrame:
    what = "prefs" if fmt == "prefs" else "qrels"
    names = _FIELDS[fmt]
    fields = _split_fields(_read_data_lines(path, what), names)
    bad = _first_bad(fields, pl.col("level").is_null() | pl.col("_extra").is_not_null())
    if bad:
        _fail(f"expected exactly {len(names)} fields ({' '.join(names)}), found {_field_count(bad['line'])}",
              bad, path, what)
    fields = fields.with_columns(pl.col("level").alias("_text"), pl.col("level").cast(pl.Float64, strict=False))
    bad = _first_bad(fields, pl.col("level").is_null() | ~pl.col("level").is_finite())
    if bad:
        _fail(f"level {bad['_text']!r} is not a finite number", bad, path, what, column=len(names))
    if fmt == "qrels_prefs":
        fields = fields.with_columns(pl.lit("0").alias("jsg"))
    _check_lines(fields, path, what)
    return fields.select(list(PREFS_SCHEMA))


def _check_lines(frame: pl.DataFrame, path: str | None, what: str) -> None:
    """Duplicates and trec_eval's 0 / non-0 check, naming lines when ``frame`` has ``line_no``."""
    dup = frame.filter(pl.struct(_KEYS).is_duplicated())
    if dup.height:
        first = dup.sort("line_no").row(0, named=True) if "line_no" in dup.columns else dup.row(0, named=True)
        key = tuple(first[k] for k in _KEYS)
        if "line_no" in dup.columns:
            twin = dup.filter(pl.all_horizontal([pl.col(k) == first[k] for k in _KEYS]))["line_no"].sort().to_list()
            raise DuplicateError(f"duplicate (qid, jg, jsg, docno) = {key}, also on line(s) {twin[1:6]}; "
                                 "remove one", path=path, line=twin[0], text=first["line"], argument=what)
        raise DuplicateError(f"duplicate (qid, jg, jsg, docno) = {key} in the {what} table; remove one")
    flips = _sign_flips(frame)
    if flips.height:
        row = flips.row(0, named=True)
        message = (f"document {row['docno']!r} of query {row['qid']!r}, judgment group {row['jg']!r}, has level "
                   f"{row['_prev']:g} in sub-group {row['_prev_jsg']!r} and {row['level']:g} in sub-group "
                   f"{row['jsg']!r}: a document is non-relevant (0) or relevant (> 0) throughout its group")
        if "line_no" in frame.columns:
            raise InputFormatError(message, path=path, line=int(row["line_no"]), text=row["line"], argument=what)
        raise InputFormatError(message)


def _sign_flips(frame: pl.DataFrame) -> pl.DataFrame:
    """Lines whose level is 0 where the same document's previous sub-group (byte order) gave it a level
    > 0, or the reverse (form_prefs_counts.c checks each line against the level last assigned)."""
    key = ["qid", "jg", "docno"]
    ordered = frame.sort([*key, pl.col("jsg").cast(pl.Binary)])
    prev = ordered.with_columns(pl.col("level").shift(1).over(key).alias("_prev"),
                                pl.col("jsg").shift(1).over(key).alias("_prev_jsg"))
    return prev.filter(((pl.col("_prev") > 0) & (pl.col("level") == 0))
                       | ((pl.col("_prev") == 0) & (pl.col("level") > 0)))


def as_prefs(obj: Any, *, format: PrefsFormat = "prefs") -> pl.DataFrame:  # noqa: A002
    """Preference judgments from a path (:func:`read_prefs`) or a table.

    A table has columns ``qid, jg, jsg, docno, level``; ``jsg`` may be absent (one sub-group per
    group) and, with ``format="qrels_prefs"``, ``jg`` too (one group) and ``level`` named ``rel``
    (a qrels table). Ids are cast to strings, levels to float64.

    Raises
    ------
    SchemaError
        A missing column, null values, no rows, or a level that is not a finite number.
    DuplicateError, InputFormatError
        As :func:`read_prefs`.
    """
    if isinstance(obj, (str, os.PathLike)):
        return read_prefs(obj, format=format)
    frame = to_polars(obj, "prefs table")
    if format == "qrels_prefs":
        frame = frame.rename({"rel": "level"}) if "rel" in frame.columns and "level" not in frame.columns else frame
        frame = frame.rename({"iter": "jg"}) if "iter" in frame.columns and "jg" not in frame.columns else frame
        frame = frame if "jg" in frame.columns else frame.with_columns(pl.lit("0").alias("jg"))
    if "jsg" not in frame.columns:
        frame = frame.with_columns(pl.lit("0").alias("jsg"))
    missing = [c for c in PREFS_SCHEMA if c not in frame.columns]
    if missing:
        raise SchemaError(f"prefs table lacks column(s) {missing}; it has {frame.columns}")
    try:
        frame = frame.select([pl.col(c).cast(t) for c, t in PREFS_SCHEMA.items()])
    except pl.exceptions.PolarsError as exc:
        raise SchemaError(f"prefs table: ids must be strings and levels numbers ({exc})") from None
    if frame.height == 0:
        raise SchemaError("the prefs are empty: no (qid, jg, jsg, docno, level) rows")
    if frame.select(pl.any_horizontal(pl.all().is_null()).any()).item():
        raise SchemaError("prefs table has null values")
    if not frame["level"].is_finite().all():
        raise SchemaError("prefs levels must be finite numbers")
    _check_lines(frame, None, "prefs")
    return frame


@dataclass(frozen=True)
class Preferences:
    """The preferences judgments express, as tables (form_prefs_counts.c, without a run).

    groups : g, qid, jg, ec, n_jgs -- one row per judgment group; ``g`` numbers the groups in (qid,
             jg) byte order; ``ec``: one sub-group (trec_eval's equivalence classes), else a
             preference array over several; ``n_jgs``: groups of the query.
    docs : doc, qid, docno -- the judged documents of each query (``doc`` an integer id).
    members : g, doc, rel, nonrel, low -- each group's documents: relevant (level > 0); non-relevant
              (level <= 0 in a one-sub-group group, level == 0 otherwise, the level of the doc's
              last sub-group); ``low``: in the group's lowest level class (one-sub-group groups).
    pairs : g, a, b -- document ``a`` preferred to ``b`` in group ``g`` (each pair once).
    """

    groups: pl.DataFrame
    docs: pl.DataFrame
    members: pl.DataFrame
    pairs: pl.DataFrame


def preferences(prefs: pl.DataFrame) -> Preferences:
    """The :class:`Preferences` of preference lines (``qid, jg, jsg, docno, level``, as :func:`as_prefs`
    returns them).

    Raises
    ------
    InputFormatError
        Two documents preferred to each other within one judgment group, directly or through its
        sub-groups (trec_eval aborts on this "Pref inconsistency").
    """
    binary = [pl.col("qid").cast(pl.Binary), pl.col("jg").cast(pl.Binary)]
    groups = (prefs.group_by("qid", "jg").agg(pl.col("jsg").n_unique().alias("_n_jsg"))
              .sort(binary).with_row_index("g")
              .select(pl.col("g").cast(pl.Int64), "qid", "jg", (pl.col("_n_jsg") == 1).alias("ec"),
                      pl.len().over("qid").cast(pl.Int64).alias("n_jgs")))
    docs = (prefs.select("qid", "docno").unique().sort(pl.col("qid").cast(pl.Binary), pl.col("docno").cast(pl.Binary))
            .with_row_index("doc").with_columns(pl.col("doc").cast(pl.Int64)))
    lines = (prefs.join(groups.select("g", "qid", "jg", "ec"), on=["qid", "jg"])
             .join(docs, on=["qid", "docno"]).select("g", "ec", "jsg", "doc", "level"))
    pairs = _direct_pairs(lines)
    several = lines.filter(~pl.col("ec"))["g"].unique()
    if several.len():
        closed = _closure(pairs.filter(pl.col("g").is_in(several.implode())))
        _check_cycles(closed, groups, docs)
        pairs = pl.concat([pairs.filter(~pl.col("g").is_in(several.implode())),
                           closed.filter(pl.col("a") != pl.col("b"))])
    return Preferences(groups=groups, docs=docs, members=_members(lines), pairs=pairs)


def _direct_pairs(lines: pl.DataFrame) -> pl.DataFrame:
    """(g, a, b) with a's level above b's in one sub-group, each pair once (a group of one sub-group
    lists each document once, so only groups of several need the repeats dropped)."""
    left = lines.lazy().select("g", "ec", "jsg", pl.col("doc").alias("a"), pl.col("level").alias("la"))
    right = lines.lazy().select("g", "jsg", pl.col("doc").alias("b"), pl.col("level").alias("lb"))
    pairs = (left.join(right, on=["g", "jsg"]).filter(pl.col("la") > pl.col("lb"))
             .select("g", "ec", "a", "b").collect())
    several = pairs.filter(~pl.col("ec")).select("g", "a", "b").unique()
    return pl.concat([pairs.filter(pl.col("ec")).select("g", "a", "b"), several])


def _closure(pairs: pl.DataFrame) -> pl.DataFrame:
    """The transitive closure of each group's pairs: pairs composed with themselves until none is new
    (each round doubles the length of the chains covered)."""
    while True:
        step = (pairs.join(pairs.rename({"a": "b", "b": "c"}), on=["g", "b"])
                .select("g", "a", pl.col("c").alias("b")))
        grown = pl.concat([pairs, step]).unique()
        if grown.height == pairs.height:
            return pairs
        pairs = grown


def _check_cycles(pairs: pl.DataFrame, groups: pl.DataFrame, docs: pl.DataFrame) -> None:
    both = pairs.join(pairs.rename({"a": "b", "b": "a"}), on=["g", "a", "b"]).filter(pl.col("a") != pl.col("b"))
    if both.height:
        row = both.sort("g", "a", "b").row(0, named=True)
        group = groups.filter(pl.col("g") == row["g"]).row(0, named=True)
        names = dict(docs.filter(pl.col("doc").is_in([row["a"], row["b"]])).select("doc", "docno").iter_rows())
        raise InputFormatError(
            f"preference cycle in query {group['qid']!r}, judgment group {group['jg']!r}: documents "
            f"{names[row['a']]!r} and {names[row['b']]!r} are each preferred to the other through its sub-groups; "
            "a judgment group must be consistent (put conflicting judges in different groups)", argument="prefs")


def _members(lines: pl.DataFrame) -> pl.DataFrame:
    """g, doc, rel, nonrel, low (see :class:`Preferences`)."""
    last = (lines.sort("g", "doc", pl.col("jsg").cast(pl.Binary)).group_by("g", "doc", maintain_order=True)
            .agg(pl.col("ec").first(), pl.col("level").last()))
    low = pl.col("level").min().over("g")
    return last.select("g", "doc", (pl.col("level") > 0).alias("rel"),
                       pl.when(pl.col("ec")).then(pl.col("level") <= 0).otherwise(pl.col("level") == 0).alias("nonrel"),
                       (pl.col("ec") & (pl.col("level") == low)).alias("low")).sort("g", "doc")
