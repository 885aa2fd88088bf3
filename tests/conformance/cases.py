"""The bad-input classes, per kind of input, with what each door must do with them.

A :class:`Case` changes a clean content (``inputs.py``) and says what is expected: the value the
changed content means (:class:`~tests.conformance.expect.Value`), or a clear error
(:class:`~tests.conformance.expect.Raises`) whose pattern may differ by the form the content came
in: ``frame`` (polars, pandas, pyarrow, DuckDB, dict, Parquet), ``trec`` (TREC text) or
``delimited`` (CSV / TSV). ``ids`` maps the changed content to what its ids mean as strings, and
``means`` to what an analysis must see in it (a reader returns what it read, rows and all).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import polars as pl

from pairedframe.errors import (DuplicateError, EmptyResultError, InsufficientSampleError, PartlyEmptyWarning,
                               SchemaError, ValueRangeWarning)
from tests.conformance.expect import Expect, Raises, Value
from tests.conformance.inputs import FILE_STYLES, PLAIN, EvalContent, FileStyle, TableContent

FRAME_FORMS = ("polars", "pandas", "arrow", "duckdb", "dict", "parquet")
TEXT_FORMS = ("trec", "csv", "tsv")


def family_of(form: str) -> str:
    return "trec" if form == "trec" else "delimited" if form in ("csv", "tsv") else "frame"


@dataclass(frozen=True)
class Case:
    """One bad-input class: how it changes the content, where it applies, what is expected."""

    name: str
    change: Callable[[Any], Any] = lambda c: c
    expect: Expect | dict[str, Expect] = field(default_factory=Value)
    side: str = "both"                      # "run" | "qrels" | "both" | "table": what it changes
    forms: tuple[str, ...] | None = None    # forms it applies to (None: all)
    style: FileStyle = PLAIN                # how files are finished (BOM, CRLF, compression)
    retype: tuple[tuple[str, ...], str] | None = None  # (id columns, kind) for inputs.retype
    ids: Callable[[Any], Any] | None = None    # what the changed content's ids mean as strings (default: as given)
    means: Callable[[Any], Any] | None = None  # what an analysis sees in it (rows it must ignore dropped)

    def expectation(self, form: str) -> Expect:
        if isinstance(self.expect, dict):
            return self.expect.get(family_of(form), self.expect.get("*", Value()))
        return self.expect

    def applies(self, form: str) -> bool:
        return self.forms is None or form in self.forms

    def meant(self, content: Any, *, reader: bool = False) -> Any:
        """The content the case means: the changed content with ids as strings, and for a door that
        analyses it (not a reader, which returns what it read) without the rows it must ignore."""
        meant = self.change(content)
        if self.ids is not None:
            meant = self.ids(meant)
        if self.means is not None and not reader:
            meant = self.means(meant)
        return meant


# ---- runs and qrels ------------------------------------------------------------------------------

def _set(column: str, value: Any, row: int = 1, dtype: pl.DataType | None = None) -> Callable[[pl.DataFrame], pl.DataFrame]:
    """Set ``column`` of one row (0-based ``row``) to ``value``."""
    def change(frame: pl.DataFrame) -> pl.DataFrame:
        col = frame[column].to_list()
        col[row] = value
        return frame.with_columns(pl.Series(column, col, dtype=dtype or frame.schema[column], strict=False))
    return change


def _run(change: Callable[[pl.DataFrame], pl.DataFrame]) -> Callable[[EvalContent], EvalContent]:
    return lambda c: c.with_run(change(c.run))


def _qrels(change: Callable[[pl.DataFrame], pl.DataFrame]) -> Callable[[EvalContent], EvalContent]:
    return lambda c: c.with_qrels(change(c.qrels))


def _add_run_rows(rows: list[tuple]) -> Callable[[pl.DataFrame], pl.DataFrame]:
    return lambda run: pl.concat([run, pl.DataFrame(rows, schema=run.schema, orient="row")])


def _add_qrels_rows(rows: list[tuple]) -> Callable[[pl.DataFrame], pl.DataFrame]:
    return lambda qrels: pl.concat([qrels, pl.DataFrame(rows, schema=qrels.schema, orient="row")])


def _both(run_change, qrels_change) -> Callable[[EvalContent], EvalContent]:
    return lambda c: EvalContent(run_change(c.run), qrels_change(c.qrels))


#: Our run and qrels columns -> their names in ir_measures / ir_datasets (``ScoredDoc``, ``Qrel``).
IR_MEASURES_NAMES = {"qid": "query_id", "docno": "doc_id", "rel": "relevance"}


def _renamed(names: dict[str, str]) -> Callable[[pl.DataFrame], pl.DataFrame]:
    return lambda frame: frame.rename(names, strict=False)


def _digits(frame: pl.DataFrame, columns: tuple[str, ...]) -> pl.DataFrame:
    """What integer-typed ids mean once read as strings: their digits (``d1`` -> ``1``)."""
    return frame.with_columns(pl.col(c).str.extract(r"(\d+)") for c in columns if c in frame.columns)


NAMES_COLUMN = r"(qid|docno|system|score|rel)"
# The error of a value that is missing or not a number, per form family: frames name the column,
# TREC text the line (and column), CSV / TSV the column.
_NAMES_SCORE = {"frame": Raises(r"score"), "trec": Raises(r"line 2\b.*(column 5|score)"), "delimited": Raises(r"score")}
# a NaN score of a table (pandas' too) is reported as NaN, never as a null
_NAMES_NAN_SCORE = {**_NAMES_SCORE, "frame": Raises(r"'score' is NaN")}
_NAMES_REL = {"frame": Raises(r"\brel\b|grade"), "trec": Raises(r"line 2\b.*(column 4|grade)"),
              "delimited": Raises(r"\brel\b|grade")}


def _missing(column: str, line: int = 2) -> dict[str, Raises]:
    """A missing value: CSV / TSV files name the line too (their header is line 1)."""
    return {"frame": Raises(rf"\b{column}\b.*null|null.*\b{column}\b"), "trec": Raises(rf"line {line}\b"),
            "delimited": Raises(rf"line {line + 1}\b.*\b{column}\b")}


def _integer_ids(c: EvalContent) -> EvalContent:
    return EvalContent(_digits(c.run, ("qid", "docno")), _digits(c.qrels, ("qid", "docno")))


def _nfd_docno(c: EvalContent) -> EvalContent:
    """Docno d3 as 'dé3': NFC (one code point) in the qrels, NFD ('e' and a combining accent) in the run."""
    nfc, nfd = "d\u00e93", "de\u03013"
    return EvalContent(c.run.with_columns(pl.col("docno").replace("d3", nfd)),
                       c.qrels.with_columns(pl.col("docno").replace("d3", nfc)))


def _huge_integer_scores(run: pl.DataFrame) -> pl.DataFrame:
    """Scores 2**53 + 2 x score + 1 as integers: odd, so a double rounds every one (some into ties)."""
    return run.with_columns((2**53 + 1 + (2 * pl.col("score")).cast(pl.Int64)).alias("score"))


def _as_doubles(c: EvalContent) -> EvalContent:
    return c.with_run(c.run.with_columns(pl.col("score").cast(pl.Float64)))


def _grades_as_ints(c: EvalContent) -> EvalContent:   # text (a category's too) as the number it spells
    return c.with_qrels(c.qrels.with_columns(pl.col("rel").cast(pl.String).cast(pl.Float64).cast(pl.Int64)))


_TEXT_GRADES = _qrels(lambda q: q.with_columns(pl.col("rel").cast(pl.String)))


def _id_type_cases() -> list[Case]:
    cases = []
    for kind, forms, expect in [
        ("categorical", ("polars",), Value()),
        ("enum", ("polars",), Value()),
        ("dictionary", ("arrow",), Value()),
        ("large_string", ("arrow",), Value()),
        ("integer", ("polars", "pandas", "arrow", "parquet"), Value(warns=UserWarning)),
        ("float", ("polars", "pandas", "arrow", "parquet"), Raises(r"float.*\b(qid|docno)\b|\b(qid|docno)\b.*float")),
        ("null", ("polars", "arrow", "parquet"), Raises(r"\b(qid|docno)\b.*(no value|null)")),
        *[(kind, ("polars", "pandas", "arrow", "parquet"), Raises(rf"id column\(s\) '(qid|docno)' \({dtype}.* of the "
                                                                 r"(run|qrels) table hold booleans or dates/times"))
          for kind, dtype in (("boolean", "Boolean"), ("datetime", "Datetime"))],
        ("mixed", ("pandas",), Value(warns=UserWarning)),  # ints among strings: read as strings, as integer ids
    ]:
        reference = _integer_ids if kind in ("integer", "mixed") else None
        cases.append(Case(f"ids_{kind}", retype=(("qid", "docno"), kind), forms=forms, expect=expect,
                          ids=reference))
    return cases


def _blank_id_cases() -> list[Case]:
    """Ids of blanks only (a space, two, a tab: trec_eval's separators) in the run's system, qid, docno and the
    qrels' docno: each refused as an empty id is (a TREC file with one has a field too few on line 2)."""
    cases = []
    for name, side, column, blanks, forms in [
        ("blank_docno", "run", "docno", "  ", None),
        ("blank_qid", "run", "qid", " ", ("polars", "pandas", "arrow", "duckdb", "parquet", "trec", "csv", "tsv")),
        ("tab_qid", "run", "qid", "\t", ("polars", "pandas", "arrow", "duckdb", "parquet")),
        ("blank_system", "run", "system", " ", ("polars", "pandas", "arrow", "duckdb", "parquet", "csv", "tsv")),
        ("blank_qrels_docno", "qrels", "docno", "   ", None),
    ]:
        change = (_run if side == "run" else _qrels)(_set(column, blanks))
        expect = {"frame": Raises(rf"column '{column}' is an empty or all-blank string.*row 2\b"),
                  "trec": Raises(r"line 2\b"), "delimited": Raises(rf"\b{column}\b")}
        cases.append(Case(name, change, expect, side=side, forms=forms))
    return cases


EVAL_CASES: list[Case] = [
    Case("clean"),
    Case("one_row_per_run", _run(lambda r: r.group_by("system", maintain_order=True).head(1)), side="run"),
    Case("empty_run", _run(lambda r: r.head(0)), Raises(r"empty"), side="run"),
    Case("empty_qrels", _qrels(lambda q: q.head(0)), Raises(r"empty"), side="qrels"),
    Case("nan_score", _run(_set("score", float("nan"))), _NAMES_NAN_SCORE, side="run"),
    Case("inf_score", _run(_set("score", float("inf"))), side="run"),
    Case("minus_inf_score", _run(_set("score", float("-inf"), row=0)), side="run"),
    Case("tied_inf_scores", _run(lambda r: _set("score", float("inf"), row=1)(_set("score", float("inf"), row=2)(r))),
         side="run"),
    Case("none_score", _run(_set("score", None)), _missing("score"), side="run", forms=FRAME_FORMS[:4] + TEXT_FORMS),
    Case("none_qid", _run(_set("qid", None)), _missing("qid"), side="run", forms=FRAME_FORMS[:4] + TEXT_FORMS),
    Case("none_docno", _run(_set("docno", None)), _missing("docno"), side="run", forms=FRAME_FORMS[:4] + TEXT_FORMS),
    Case("none_system", _run(_set("system", None)), _missing("system"), side="run",
         forms=("polars", "pandas", "arrow", "duckdb", "csv", "tsv")),
    Case("all_null_qid", _run(lambda r: r.with_columns(pl.lit(None, dtype=pl.String).alias("qid"))),
         _missing("qid", line=1), side="run", forms=FRAME_FORMS[:4] + ("parquet", "csv", "tsv")),
    Case("none_rel", _qrels(_set("rel", None)), _missing("rel"), side="qrels", forms=FRAME_FORMS[:4] + TEXT_FORMS),
    Case("nan_rel", _qrels(_set("rel", float("nan"), dtype=pl.Float64)), _NAMES_REL, side="qrels"),
    Case("inf_rel", _qrels(_set("rel", float("inf"), dtype=pl.Float64)), _NAMES_REL, side="qrels"),
    Case("fractional_rel", _qrels(_set("rel", 1.5, dtype=pl.Float64)), _NAMES_REL, side="qrels"),
    Case("negative_grade", _qrels(_set("rel", -1, row=0)), side="qrels"),
    Case("duplicate_run_pair", _run(_add_run_rows([("a", "1", "d2", 0.1)])),
         {"*": Raises(r"duplicate.*\b1\b.*\bd2\b", DuplicateError), "trec": Raises(r"line \d+.*duplicate.*d2", DuplicateError)},
         side="run", forms=tuple(f for f in FRAME_FORMS if f != "dict") + TEXT_FORMS),
    Case("duplicate_qrels_pair", _qrels(_add_qrels_rows([("1", "d1", 0)])),
         {"*": Raises(r"duplicate.*\b1\b.*\bd1\b", DuplicateError), "trec": Raises(r"line \d+.*duplicate.*d1", DuplicateError)},
         side="qrels", forms=tuple(f for f in FRAME_FORMS if f != "dict") + TEXT_FORMS),
    Case("run_query_not_in_qrels", _run(_add_run_rows([("a", "4", "d1", 1.0), ("b", "4", "d2", 1.0)])), side="run"),
    Case("qrels_query_not_in_run", _qrels(_add_qrels_rows([("5", "d1", 1)])), side="qrels"),
    # a grade no other judgment has, on a query no run retrieved
    Case("unmatched_judgment_of_a_new_grade", _qrels(_add_qrels_rows([("8", "d1", 4)])), side="qrels"),
    Case("unrelated_system_and_query", _both(_add_run_rows([("z", "1", "d1", 1.0), ("z", "6", "d6", 2.0),
                                                             ("a", "6", "d6", 1.0)]),
                                             _add_qrels_rows([("6", "d6", 1)]))),
    *_id_type_cases(),
    *[Case(f"file_{style.label}", style=style, forms=TEXT_FORMS) for style in FILE_STYLES],
    # a NUL byte: trec_eval reads C strings and would stop there, ignoring the rest: refused naming the line
    Case("nul_byte_in_run", _run(_set("docno", "d\x00x")), Raises(r"run file .*line 2: a NUL byte"), side="run",
         forms=("trec",)),
    Case("nul_byte_in_qrels", _qrels(_set("docno", "d\x00x")), Raises(r"qrels file .*line 2: a NUL byte"),
         side="qrels", forms=("trec",)),
    # lines ending in a lone CR: one long line to trec_eval (and to the exact reader): refused, never misread
    Case("file_bare_cr", style=FileStyle(bare_cr=True, label="bare_cr"), forms=("trec",),
         expect=Raises(r"line 1: the lines end in a bare carriage return")),
    # another name of one of our columns beside it (different ids): an error naming both, never a guess
    # the same text in another Unicode normalisation form: bytes differ, so the value is trec_eval's (d3 not
    # judged), with a near-miss warning from the doors that evaluate (doors.NO_NEAR_MISS_CHECK: the others)
    # trec_eval's output (measure, qid, value) given as a run: said so, not "a TSV table's header row"
    Case("trec_eval_output_as_run", style=FileStyle(trec_eval_run=True, label="trec_eval_output"), side="run",
         forms=("trec",), expect=Raises(r"trec_eval('s)? (-q )?output")),
    Case("unicode_nfd_docno", _nfd_docno, Value(warns=PartlyEmptyWarning)),
    # a table's score column must be numbers; text is parsed only when read from a file
    Case("string_scores", _run(lambda r: r.with_columns(pl.col("score").cast(pl.String))),
         {"frame": Raises(r"'score' holds [Ss]tring values|score of .* is '.*' \(str\)"), "trec": Value(), "delimited": Value()},
         side="run", means=_as_doubles),
    # a table's grade column must be integers (as its scores must be numbers): text is parsed only when read
    # from a file (TREC, CSV, and a Parquet column of strings); booleans are never grades (True was read as 1)
    Case("string_grades", _TEXT_GRADES, {"frame": Raises(r"column 'rel' holds [Ss]tring values \(e\.g\. '\d'\)|"
                                                         r"'rel' must hold integer grades, got '\d'"),
                                         "trec": Value(), "delimited": Value()},
         side="qrels", forms=("polars", "pandas", "arrow", "duckdb", "dict") + TEXT_FORMS, means=_grades_as_ints),
    Case("string_grades_in_a_parquet_file", _TEXT_GRADES, side="qrels", forms=("parquet",), means=_grades_as_ints),
    Case("boolean_grades", _qrels(lambda q: q.with_columns(pl.col("rel") > 0)),
         Raises(r"column 'rel' holds [Bb]oolean values \(e\.g\. (True|False)\)|'rel' must hold integer grades, got (True|False)"),
         side="qrels", forms=("polars", "pandas", "arrow", "duckdb", "dict", "parquet")),
    # a dictionary-encoded grade column (polars Categorical, pandas category, Arrow dictionary) is text, never
    # its category codes; a Parquet file's is parsed as text (polars' error advised .cat.physical(): the codes)
    Case("categorical_grades", _qrels(lambda q: q.with_columns(pl.col("rel").cast(pl.String).cast(pl.Categorical))),
         Raises(r"column 'rel' holds Categorical values"), side="qrels", forms=("polars", "pandas", "arrow")),
    Case("categorical_grades_in_a_parquet_file", _qrels(lambda q: q.with_columns(
        pl.col("rel").cast(pl.String).cast(pl.Categorical))), side="qrels", forms=("parquet",), means=_grades_as_ints),
    # Decimal grades follow the float rules: 1.5 is refused (it was cut to 1 without a word), 2.0 is 2
    Case("fractional_decimal_grades", _qrels(lambda q: q.with_columns((pl.col("rel") + 0.5).cast(pl.Decimal(6, 1)))),
         Raises(r"must hold integer grades, got \d\.5"), side="qrels", forms=("polars", "arrow", "duckdb", "parquet")),
    Case("whole_decimal_grades", _qrels(lambda q: q.with_columns(pl.col("rel").cast(pl.Decimal(6, 1)))),
         side="qrels", forms=("polars", "arrow", "duckdb", "parquet"), means=_grades_as_ints),
    # booleans are no scores (a run dict's True was read as 1.0)
    Case("boolean_scores", _run(lambda r: r.with_columns(pl.col("score") > 1)), Raises(r"score.*(Boolean|bool)"),
         side="run", forms=("polars", "pandas", "arrow", "duckdb", "dict", "parquet")),
    # trec_eval's reader never yields an empty id; a file with one has a line with a field too few
    Case("empty_docno", _run(_set("docno", "")), {"frame": Raises(r"column 'docno' is an empty or all-blank string.*row 2\b"),
                                                  "trec": Raises(r"line 2\b"), "delimited": Raises(r"\bdocno\b")},
         side="run"),
    Case("empty_qid", _run(_set("qid", "")), {"frame": Raises(r"column 'qid' is an empty or all-blank string.*row 2\b"),
                                              "trec": Raises(r"line 2\b"), "delimited": Raises(r"\bqid\b")},
         side="run", forms=("polars", "pandas", "arrow", "duckdb", "parquet", "trec", "csv", "tsv")),  # a dict has no row 2
    # a system is an id too (a file's is its name): an empty one is refused as an empty qid is, in every door
    Case("empty_system", _run(_set("system", "")), {"frame": Raises(r"column 'system' is an empty or all-blank string.*row 2\b"),
                                                    "delimited": Raises(r"\bsystem\b")},
         side="run", forms=("polars", "pandas", "arrow", "duckdb", "parquet", "csv", "tsv")),
    Case("empty_qrels_docno", _qrels(_set("docno", "")),
         {"frame": Raises(r"column 'docno' is an empty or all-blank string.*row 2\b"), "trec": Raises(r"line 2\b"),
          "delimited": Raises(r"\bdocno\b")}, side="qrels"),
    # an id of blanks only is as empty for trec_eval (ids are runs of non-blank characters): refused alike
    *_blank_id_cases(),
    # a dict's system keys name its runs: None (read as the system 'None') or blank refused naming `run`, not
    # later by a comparison as a per-query table's blank system
    Case("none_system_key", _run(_set("system", None)), Raises(r"`run`: a system name is None"), side="run",
         forms=("dict",)),
    Case("blank_system_key", _run(_set("system", " ")), Raises(r"`run`: a system name is empty or made of blanks only"),
         side="run", forms=("dict",)),
    # integers a double cannot hold: rounded as trec_eval's atof rounds them as text, with a warning from tables
    Case("huge_integer_scores", _run(_huge_integer_scores),
         {"frame": Value(warns=UserWarning), "delimited": Value(warns=UserWarning), "trec": Value()},
         side="run", means=_as_doubles),
    # a query named 'all' is a query (trec_eval's format prints it like the summary, with a warning)
    Case("query_named_all", _both(lambda r: r.with_columns(pl.col("qid").replace("3", "all")),
                                  lambda q: q.with_columns(pl.col("qid").replace("3", "all")))),
    Case("query_id_beside_qid", _run(lambda r: r.with_columns(("x" + pl.col("qid")).alias("query_id"))),
         Raises(r"both 'qid' and 'query_id'"), side="run", forms=("polars", "pandas", "arrow", "duckdb", "parquet",
                                                                  "csv", "tsv")),
    Case("relevance_beside_rel", _qrels(lambda q: q.with_columns((1 - pl.col("rel")).alias("relevance"))),
         Raises(r"both 'rel' and 'relevance'"), side="qrels",
         forms=("polars", "pandas", "arrow", "duckdb", "parquet", "csv", "tsv")),
    # ir_measures' / ir_datasets' names of our columns: read as ours by every table reader (Spark's asked for qid)
    Case("ir_measures_columns", _both(_renamed(IR_MEASURES_NAMES), _renamed(IR_MEASURES_NAMES)),
         forms=("polars", "pandas", "arrow", "duckdb", "parquet", "csv", "tsv"),
         ids=_both(_renamed({v: k for k, v in IR_MEASURES_NAMES.items()}),
                   _renamed({v: k for k, v in IR_MEASURES_NAMES.items()}))),
    # two other names of one column and not ours: an error naming both, never a guess
    Case("two_docno_aliases", _qrels(lambda q: q.rename({"docno": "doc_id"}).with_columns(pl.col("doc_id").alias("doc"))),
         Raises(r"\['doc', 'doc_id'\] but no 'docno'"), side="qrels",
         forms=("polars", "pandas", "arrow", "duckdb", "parquet", "csv", "tsv")),    # a pandas object column of numbers and strings: an error naming the table, column and row, never pyarrow's
    Case("mixed_types_grade", retype=(("rel",), "mixed"), expect=Raises(r"qrels table: column 'rel' mixes .* \(row 2",
                                                                          SchemaError), side="qrels", forms=("pandas",)),
]


# ---- per-query tables ----------------------------------------------------------------------------

def _table(change: Callable[[pl.DataFrame], pl.DataFrame]) -> Callable[[TableContent], TableContent]:
    return lambda c: TableContent(change(c.table))


def _add(rows: list[tuple]) -> Callable[[pl.DataFrame], pl.DataFrame]:
    return lambda t: pl.concat([t, pl.DataFrame(rows, schema=t.schema, orient="row")], how="diagonal_relaxed")


def _other_system(name: str = "d", qids: range = range(1, 9), measure: str | None = None) -> Callable[[pl.DataFrame], pl.DataFrame]:
    def change(t: pl.DataFrame) -> pl.DataFrame:
        extra = t.filter(pl.col("system") == "c").with_columns(pl.lit(name).alias("system"), pl.col("value") * 0.9)
        extra = extra.filter(pl.col("qid").is_in([f"q{i}" for i in qids]))
        if measure:
            extra = extra.filter(pl.col("measure") == "AP").with_columns(pl.lit(measure).alias("measure"))
        return pl.concat([t, extra])
    return change


def _other_measure(t: pl.DataFrame) -> pl.DataFrame:
    return pl.concat([t, t.filter(pl.col("measure") == "AP").with_columns(pl.lit("P@5").alias("measure"),
                                                                          (pl.col("value") * 0.5).round(4))])


def _drop_row(system: str, qid: str, measure: str) -> Callable[[pl.DataFrame], pl.DataFrame]:
    return lambda t: t.filter(~((pl.col("system") == system) & (pl.col("qid") == qid) & (pl.col("measure") == measure)))


def _set_where(column: str, value: Any, system: str = "b", qid: str = "q2", measure: str = "AP",
               dtype: pl.DataType | None = None) -> Callable[[pl.DataFrame], pl.DataFrame]:
    def change(t: pl.DataFrame) -> pl.DataFrame:
        hit = (pl.col("system") == system) & (pl.col("qid") == qid) & (pl.col("measure") == measure)
        return t.with_columns(pl.when(hit).then(pl.lit(value, dtype=dtype or t.schema[column]))
                              .otherwise(pl.col(column)).alias(column))
    return change


_NAMES_NONFINITE = Raises(r"per-query table: .*finite.*system='b'.*qid='q2'|qid='q2'.*finite")


def _table_id_cases() -> list[Case]:
    cases = []
    for kind, forms, expect in [
        ("categorical", ("polars",), Value()),
        ("enum", ("polars",), Value()),
        ("dictionary", ("arrow",), Value()),
        ("large_string", ("arrow",), Value()),
        ("integer", ("polars", "pandas", "arrow", "duckdb", "parquet"), Value(warns=UserWarning)),
        ("float", ("polars", "pandas", "arrow", "duckdb", "parquet"), Raises(r"\bqid\b.*float|float.*\bqid\b")),
        ("null", ("polars", "arrow"), Raises(r"\bqid\b.*(no value|null)")),
        *[(kind, ("polars", "pandas", "arrow", "duckdb", "parquet"),
           Raises(r"id column\(s\) 'qid' \(.* of (the per-query table|\S+\.parquet) hold booleans or dates/times"))
          for kind in ("boolean", "datetime")],
        # pandas' object column, and JSON's number beside strings ({"qid": 7}, {"qid": "8"}: polars reads "7")
        ("mixed", ("pandas", "json", "ndjson"), Value(warns=UserWarning)),
        # JSON's 2.0 beside "3": read as the id "2" before, where a float column is refused
        ("mixed_float", ("json", "ndjson"), Raises(r"id column 'qid' of \S+ holds a float, \d+\.0, beside text ids")),
        # JSON's true beside "3": read as the id 'true' before, where a boolean column is refused
        ("mixed_bool", ("json", "ndjson"), Raises(r"id column 'qid' of \S+ holds the JSON boolean true: a flag is no id")),
    ]:
        reference = (lambda c: TableContent(_digits(c.table, ("qid",)))) if kind in ("integer", "mixed") else None
        cases.append(Case(f"qid_{kind}", retype=(("qid",), kind), forms=forms, expect=expect, side="table",
                          ids=reference))
    cases.append(Case("system_categorical", retype=(("system", "measure"), "categorical"), forms=("polars",),
                      side="table"))
    return cases


TABLE_FORMS_ALL = ("polars", "pandas", "arrow", "duckdb", "csv", "tsv", "parquet", "json", "ndjson")
#: The forms that can hold a NaN value (JSON has none; pandas reads NaN as missing).
_HOLDS_NAN = ("polars", "arrow", "duckdb", "csv", "tsv", "parquet")

TABLE_CASES: list[Case] = [
    Case("clean", side="table"),
    Case("empty", _table(lambda t: t.head(0)), Raises(r"empty|no data rows", EmptyResultError), side="table"),
    Case("one_row", _table(lambda t: t.head(1)), Raises(r"system|query|queries", InsufficientSampleError), side="table"),
    Case("nan_value", _table(_set_where("value", float("nan"))), _NAMES_NONFINITE, side="table", forms=_HOLDS_NAN),
    # pandas marks a missing value with NaN: it reads as null, 'not measured', like None
    Case("nan_value_in_pandas", _table(_set_where("value", float("nan"))), side="table", forms=("pandas",),
         means=lambda c: TableContent(_drop_row("b", "q2", "AP")(c.table))),
    Case("inf_value", _table(_set_where("value", float("inf"))), _NAMES_NONFINITE, side="table",
         forms=("pandas", *_HOLDS_NAN)),
    Case("minus_inf_value", _table(_set_where("value", float("-inf"))), _NAMES_NONFINITE, side="table",
         forms=("pandas", *_HOLDS_NAN)),
    # the statistics raise values to the fourth power: 1e300 would overflow into inf / NaN statistics
    Case("huge_value", _table(_set_where("value", 1e300)), _NAMES_NONFINITE, side="table", forms=TABLE_FORMS_ALL),
    # a value of a bounded measure (AP: [0, 1]) outside its range points at an error upstream: a warning
    # naming it (an error would refuse tables of synthetic values named AP); float rounding past the end is none
    Case("value_above_measure_range", _table(_set_where("value", 1.2)), Value(warns=ValueRangeWarning), side="table"),
    Case("value_below_measure_range", _table(_set_where("value", -0.1)), Value(warns=ValueRangeWarning), side="table"),
    Case("value_rounded_past_measure_range", _table(_set_where("value", 1.0000000000000002)), side="table"),
    Case("none_value", _table(_set_where("value", None)), side="table",
         means=lambda c: TableContent(_drop_row("b", "q2", "AP")(c.table))),
    Case("mixed_types_value", retype=(("value",), "mixed"), expect=Raises(r"per-query table: column 'value' mixes .* "
                                                                          r"\(row 2", SchemaError), side="table",
         forms=("pandas",)),
    Case("none_qid", _table(_set_where("qid", None)), Raises(r"\bqid\b.*null|null.*\bqid\b"), side="table"),
    # a summary flag spelled 1/0 (a CSV's integers): the flagged row left out, as true/false are (it read as false)
    Case("summary_flag_1_0", _table(lambda t: _add([("b", "all", "AP", 0.5, "1")])(
        t.with_columns(pl.lit("0").alias("summary")))), side="table", forms=("polars", "duckdb", "csv")),
    Case("summary_flag_unknown", _table(lambda t: t.with_columns(pl.lit("maybe").alias("summary"))),
         Raises(r"column 'summary' holds 'maybe'"), side="table", forms=("polars", "duckdb", "csv")),
    # ids of blanks only: no TREC file holds one, and each would be a query (system, measure) of its own
    *[Case(f"blank_{column}_in_the_table", _table(_set_where(column, value)),
           Raises(rf"column '{column}' is an empty or all-blank string"), side="table",
           forms=("polars", "pandas", "arrow", "duckdb", "parquet"))
      for column, value in (("qid", "  "), ("system", "\t"), ("measure", " "))],
    Case("none_system", _table(_set_where("system", None)), Raises(r"\bsystem\b.*null|null.*\bsystem\b"), side="table"),
    Case("none_measure", _table(_set_where("measure", None)), Raises(r"\bmeasure\b.*null|null.*\bmeasure\b"),
         side="table"),
    Case("duplicate_key", _table(_add([("b", "q2", "AP", 0.5)])), Raises(r"(per-query table|`\w+`).*(repeated|duplicate)", DuplicateError),
         side="table"),
    Case("query_of_one_system_only", _table(_add([("b", "q9", "AP", 0.5), ("b", "q9", "nDCG@10", 0.5)])),
         side="table", means=lambda c: TableContent(c.table.filter(pl.col("qid") != "q9"))),
    Case("all_null_key_column", _table(lambda t: t.with_columns(pl.lit(None, dtype=pl.String).alias("dataset"))),
         side="table", means=lambda c: TableContent(c.table.drop("dataset"))),
    # a key column some measured rows leave null: those rows would pair with nothing; an error naming it
    Case("partly_null_key_column", _table(lambda t: t.with_columns(
        pl.when(pl.col("qid") == "q3").then(None).otherwise(pl.lit("x")).alias("dataset"))),
         Raises(r"key column 'dataset' is null in 6 of its 48 measured rows \(e\.g\. qid 'q3'", SchemaError),
         side="table"),
    Case("relstring_text_column", _table(lambda t: pl.concat([
        t.with_columns(pl.lit(None, dtype=pl.String).alias("text")),
        t.filter(pl.col("measure") == "AP").select("system", "qid", pl.lit("RelString@5").alias("measure"),
                                                   pl.lit(None, dtype=pl.Float64).alias("value"),
                                                   pl.lit("10.2.").alias("text"))])),
         side="table", means=lambda c: TableContent(c.table.filter(pl.col("measure") != "RelString@5").drop("text"))),
    Case("unrelated_system", _table(_other_system()), side="table",
         means=lambda c: TableContent(c.table.filter(pl.col("system") != "d"))),
    # systems called like the table's columns are names like any other (a system 'qid' broke pivots)
    Case("systems_named_like_columns", _table(lambda t: _other_system("qid")(_other_system("value")(
        _other_system("system")(_other_system("measure")(_other_system("delta")(t)))))), side="table",
         means=lambda c: TableContent(c.table.filter(pl.col("system").is_in(["a", "b", "c"])))),
    Case("unrelated_query", _table(_add([("d", "q9", "AP", 0.5)])), side="table",
         means=lambda c: TableContent(c.table.filter(pl.col("system") != "d"))),
    Case("unrelated_measure", _table(_other_measure), side="table",
         means=lambda c: TableContent(c.table.filter(pl.col("measure") != "P@5"))),
    *_table_id_cases(),
    # two slices of one table (two datasets): compared per dataset; a door showing one slice refuses
    Case("two_datasets", _table(lambda t: pl.concat([t.with_columns(pl.lit("x").alias("dataset")),
                                                     t.with_columns(pl.lit("y").alias("dataset"),
                                                                    (pl.col("value") * 0.5).round(4))])),
         side="table"),
    Case("query_id_beside_qid", _table(lambda t: t.with_columns(("x" + pl.col("qid")).alias("query_id"))),
         Raises(r"both 'qid' and 'query_id'"), side="table"),
    # ir_measures' name of the qid (pd.DataFrame(ir_measures.iter_calc(...))): read as qid, as in runs and qrels
    Case("query_id_for_qid", _table(lambda t: t.rename({"qid": "query_id"})), side="table", forms=TABLE_FORMS_ALL,
         ids=lambda c: TableContent(c.table.rename({"query_id": "qid"}))),
    # PyTerrier's name of the system (pt.Experiment(..., perquery=True)): read as system, as run_id is
    Case("name_for_system", _table(lambda t: t.rename({"system": "name"})), side="table", forms=TABLE_FORMS_ALL,
         ids=lambda c: TableContent(c.table.rename({"name": "system"}))),
    # a comparison's output (pairedframe compare -f csv) handed back as per-query values: named as one
    Case("comparison_output_for_per_query", _table(lambda t: t.group_by("system", "measure").agg(
        pl.col("value").mean().alias("delta")).with_columns(pl.lit("a").alias("baseline"),
                                                             pl.lit(0.5).alias("pvalue"))),
         Raises(r"comparison's output \(columns baseline, delta, pvalue", SchemaError), side="table",
         forms=TABLE_FORMS_ALL),
    *[Case(f"file_{style.label}", style=style, forms=("csv", "tsv"), side="table") for style in FILE_STYLES
      if style.compression != "zstd"],
]
