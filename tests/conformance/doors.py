"""The registry of doors: every public entry point that takes user data, and how to call it.

A :class:`Door` is called with a content delivered in one of its ``forms`` (``inputs.deliver_*``):

- ``kind="evaluation"``: ``call(run, qrels, **params)``; it reads the sides in ``sides``;
- ``kind="table"``: ``call(per_query, **params)`` on a per-query table.

``value(result)`` turns its result into something comparable (a sorted frame, a dict); the cell's
expected value is ``reference(meant_content)`` when given (the evaluation doors: trec_eval's logic),
else the door's own value on the meant content as a plain polars table (``reference_form``).
``params`` lists absurd values of its options, each of which must raise an error naming the option.
``empty`` is its empty-*result* case (no query in common, names that match nothing; issue 12).
Doors whose inputs fit neither kind (``compare_pair``, ``ppi_compare``, measure names, plans, ...)
list their cells in ``OTHER_CELLS`` (``test_other_doors.py``).

Other branches' doors are registered by adding an entry here (and, for a new kind of input, its
cases in ``cases.py``); ``test_registry.py`` fails for a public function or CLI command without one.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import polars as pl
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.errors import (EmptyResultError, InputFormatError, InsufficientSampleError, PartlyEmptyWarning, PlanError,
                               SchemaError)
from tests.conformance.expect import CliExit, Expect, Raises, Value
from tests.conformance.inputs import CLUSTERS, MEASURES, PER_QUERY, QRELS, RUN, SEGMENTS
from tests.conformance.oracle import oracle_per_query, sorted_per_query

EVAL_FORMS = ("polars", "pandas", "arrow", "duckdb", "dict", "trec", "csv", "tsv", "parquet")
FILE_EVAL_FORMS = ("trec", "csv", "tsv", "parquet")
TABLE_FORMS = ("polars", "pandas", "arrow", "duckdb")
RESULT_FILE_FORMS = ("csv", "tsv", "parquet", "json", "ndjson")
#: A per-query door takes a table or the path of a results file (read as pf.read_results reads it).
PER_QUERY_FORMS = TABLE_FORMS + RESULT_FILE_FORMS

#: (call(tmp), error, message pattern): an input whose *result* would be empty.
EmptyCase = tuple[Callable[[Path], Any], type[BaseException], str]


@dataclass(frozen=True)
class Door:
    kind: str                                   # "evaluation" | "table"
    call: Callable[..., Any]
    value: Callable[[Any], Any]
    forms: tuple[str, ...]                      # every form it takes (file and type cases run on these)
    public: str = ""                            # the pf.* function or CLI command it exercises
    content_forms: tuple[str, ...] | None = None  # the forms content cases run on (default: forms)
    cases: frozenset[str] | None = None         # the cases it runs (default: all; slow doors run fewer)
    sides: frozenset[str] = frozenset({"run", "qrels"})
    reader: bool = False                        # returns what it read (rows and all), analyses nothing
    reference: Callable[[Any], Any] | None = None
    reference_form: str = "polars"
    expect: dict[str, Expect] = field(default_factory=dict)   # case -> what this door must do instead
    xfail: dict[str, str] = field(default_factory=dict)       # case -> reason (a fault another branch fixes)
    skip: dict[str, str] = field(default_factory=dict)        # case -> why it does not apply to this door
    params: dict[str, tuple[tuple[Any, ...], str]] = field(default_factory=dict)  # option -> (values, pattern)
    empty: EmptyCase | None = None
    spark: bool = False                         # a Spark door: every cell marked ``spark``
    spark_cases: frozenset[str] = frozenset()   # cases also tried on a Spark DataFrame (marked ``spark``)


# ---- the command line -----------------------------------------------------------------------------

runner = CliRunner()


def run_cli(args: list[str]) -> str:
    """stdout of ``pairedframe ARGS``; exit code 2 raises :class:`CliExit` (stderr), any other failure fails."""
    result = runner.invoke(app, [str(a) for a in args])
    for line in result.stderr.splitlines():  # the command's warnings, as the Python door gives them
        if line.startswith("pairedframe: warning:"):
            warnings.warn(line, UserWarning, stacklevel=2)
    if result.exit_code == 2:  # the error (warnings may come first)
        raise CliExit(result.stderr[max(result.stderr.find("pairedframe: error:"), 0):].strip())
    assert result.exit_code == 0 and result.exception is None or isinstance(result.exception, SystemExit), \
        f"exit {result.exit_code}: {result.output}\n{result.exception!r}"
    assert result.exit_code == 0, f"exit {result.exit_code}: {result.output}"
    return result.stdout


def _paths(run: Any) -> list[str]:
    return [str(p) for p in run] if isinstance(run, (list, tuple)) else [str(run)]


def _measure_flags(measures: tuple[str, ...]) -> list[str]:
    return [x for m in measures for x in ("-m", m)]


def _cli_evaluate(run: Any, qrels: Any, *extra: str) -> pl.DataFrame:
    out = run_cli(["evaluate", qrels, *_paths(run), *_measure_flags(MEASURES), "-q", "-f", "csv", "--engine", "polars",
                   *extra])
    frame = pl.read_csv(io.StringIO(out), schema_overrides={"system": pl.String, "qid": pl.String})
    return frame.filter(~pl.col("summary")).drop("summary")


def _cli(command: str, *options: str) -> Callable[..., str]:
    def call(run: Any, qrels: Any, *extra: str) -> str:
        return run_cli([command, qrels, *_paths(run), "-m", "AP", "-m", "nDCG@10", *options, *extra])
    return call


def _segments_file(tmp: Path) -> str:
    path = tmp / "segments.csv"
    path.write_text("qid,segment_set,segment\n1,all,all\n2,all,all\n3,all,all\n")
    return str(path)


# ---- evaluation doors -----------------------------------------------------------------------------

_EVALUATE_PARAMS = {
    "depth": ((0, -1, 1.5, True), r"depth"),        # True: a bool is no depth (it was read as 1)
    "rel_level": ((-1, 1.5, True), r"rel_level"),
    "system": (("", " "), r"`system`"),              # an empty name is refused as empty ids are
    "score_precision": (("float16",), r"score_precision"),
    "measures": ((["P@0"], ["nDCG@-1"], ["RBP(p=1.5)"], ["R@0.5"], [], None, 3, ["runid"]),
                 r"P@0|nDCG@-1|RBP|R@0\.5|cutoff|\bp\b|`measures` (is empty|is None|must be|\['runid'\] names no measure)"),
}
_CLI_EVAL_PARAMS = {
    "-M": (("0", "-1"), r"-M|--depth|depth"),
    "-l": (("-1",), r"-l|--rel-level|rel.level"),
    "--score-precision": (("float16",), r"score.precision"),
    "-m": (("P@0", "nDCG@-1"), r"P@0|nDCG@-1|cutoff"),
    "-N": (("-1",), r"-N/--collection-size"),
    "-T": (("trec_top",), r"-T/--results-format"),
}
#: evaluate's evaluation options, which every command evaluating run files offers (cli/eval_options.py).
_CLI_EVAL_OPTIONS = {**{flag: _CLI_EVAL_PARAMS[flag] for flag in ("-M", "-l", "--score-precision")},
                     "--grades": (("lenient",), r"--grades")}
_COMPARE_PARAMS = {
    "confidence_level": ((0, 1, 1.5, -0.1, float("nan")), r"confidence_level"),
    "n_resamples": ((0, -1, 1.5), r"n_resamples"),
    "alternative": (("bigger",), r"alternative"),
    "seed": ((-1, 2**64), r"seed"),    # 2**64: more than the result's unsigned 64-bit seed column holds
}
#: -o naming a folder, or a file in a folder that does not exist: refused before any work (require_output_folder).
_CLI_OUTPUT = ((".", "nowhere/out.csv"), r"--output '(\.|nowhere/out\.csv)'(: the folder 'nowhere' does not exist| is a folder)")
_CLI_COMPARE_PARAMS = {
    "-B": (("0", "-1"), r"-B|--n-resamples|n.resamples"),
    "--confidence-level": (("0", "1", "1.5"), r"confidence.level"),
    "--seed": (("-1", str(2**64)), r"--seed"),
}


#: The cases that reach an engine (the others fail in the readers, whatever the engine).
ENGINE_CASES = frozenset({"clean", "inf_score", "minus_inf_score", "tied_inf_scores", "negative_grade",
                          "unrelated_system_and_query"})
#: Spark reads files with its own reader: these cases try it too.
SPARK_CASES = ENGINE_CASES | {"one_row_per_run", "run_query_not_in_qrels", "nan_score", "duplicate_run_pair", "duplicate_qrels_pair", "empty_run", "file_bom",
                              "file_bare_cr", "file_crlf", "file_gzip"}


def _evaluate(engine: str) -> Callable[..., Any]:
    return lambda run, qrels, **kw: pf.evaluate(run, qrels, kw.pop("measures", list(MEASURES)), engine=engine, **kw)


def _evaluate_on_spark(method: str) -> Callable[..., Any]:
    """pf.evaluate on the active session's SparkEngine(method=...) (the inputs: Spark DataFrames)."""
    def call(run: Any, qrels: Any, **kw: Any) -> Any:
        from pyspark.sql import SparkSession

        from pairedframe.engines.spark_engine import SparkEngine

        engine = SparkEngine(SparkSession.getActiveSession(), method=method)
        return pf.evaluate(run, qrels, kw.pop("measures", list(MEASURES)), engine=engine, **kw)
    return call


#: Spark DataFrames are checked as local tables are (the local readers' errors), by both methods.
SPARK_FRAME_CASES = frozenset({"clean", "empty_run", "empty_qrels", "nan_score", "none_score", "none_qid", "none_docno",
                               "none_system", "all_null_qid", "none_rel", "nan_rel", "inf_rel", "fractional_rel",
                               "string_scores", "string_grades", "boolean_scores", "boolean_grades",
                               "fractional_decimal_grades", "whole_decimal_grades", "ids_float", "ids_integer",
                               "duplicate_run_pair", "duplicate_qrels_pair", "ir_measures_columns",
                               "query_id_beside_qid", "relevance_beside_rel", "two_docno_aliases"})
#: system= on a Spark DataFrame run (system a's rows): it names every row, as a polars table's.
SPARK_SYSTEM_CASES = frozenset({"clean", "ir_measures_columns", "query_id_beside_qid", "nan_score", "duplicate_run_pair"})
#: grades="trec_eval" on Spark DataFrame qrels: non-whole grades truncated (with a warning), as locally.
SPARK_GRADES_CASES = frozenset({"clean", "fractional_rel", "fractional_decimal_grades", "whole_decimal_grades",
                                "nan_rel", "string_grades", "relevance_beside_rel", "negative_grade"})
_READ_AS_TREC_EVAL = {"fractional_rel": Value(warns=UserWarning), "fractional_decimal_grades": Value(warns=UserWarning)}


def _named_x(method: str) -> Callable[..., Any]:
    """pf.evaluate(system="X") on system a's rows of a Spark DataFrame run (the SparkEngine of ``method``)."""
    def call(run: Any, qrels: Any, **kw: Any) -> Any:
        return _evaluate_on_spark(method)(run.filter(run["system"] == "a"), qrels, system="X", **kw)
    return call


def _system_a_named_x(content: Any) -> pl.DataFrame:
    return oracle_per_query(content.with_run(_system_a(content.run).with_columns(pl.lit("X").alias("system"))))


def _judgment_sets(run: Any, qrels: Any, **kw: Any) -> Any:
    return pf.evaluate_judgment_sets(run, {"nist": qrels}, kw.pop("measures", list(MEASURES)), engine="polars", **kw)


def _eval_value(ev: Any) -> pl.DataFrame:
    return sorted_per_query(ev.per_query)


def _sorted_run(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.select("system", "qid", "docno", pl.col("score").cast(pl.Float64)).sort("system", "qid", "docno")


def _sorted_qrels(frame: pl.DataFrame) -> pl.DataFrame:
    text = isinstance(frame.schema["rel"], pl.Categorical)   # a category's grade is the number its text spells
    rel = pl.col("rel").cast(pl.String) if text else pl.col("rel")
    return frame.select("qid", "docno", rel.cast(pl.Int64)).sort("qid", "docno")


OTHER_QRELS = pl.DataFrame({"qid": ["9", "9"], "docno": ["d1", "d2"], "rel": [1, 0]})
#: A second qrels (another assessor) and a second run, for the doors that take two.
QRELS_B = QRELS.with_columns(pl.when(pl.col("docno") == "d3").then(0).otherwise(pl.col("rel")).alias("rel"))
RUN_B = RUN.filter(pl.col("system") == "b").with_columns(pl.lit("r").alias("system"))


def _write(tmp: Path, name: str, text: str) -> str:
    path = tmp / name
    path.write_text(text)
    return str(path)


def _two_runs_other_qrels(command: str) -> Callable[[Path], Any]:
    def call(tmp: Path) -> Any:
        a = _write(tmp, "a.run", "1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n")
        b = _write(tmp, "b.run", "1 Q0 d1 1 1.0 b\n1 Q0 d2 2 2.0 b\n")
        extra = ["--segments", _write(tmp, "s.csv", "qid,segment_set,segment\n1,s,g\n")] if command == "segments" else []
        extra += ["-o", str(tmp / "report.html")] if command == "report" else []
        return run_cli([command, _write(tmp, "qrels", "9 0 d1 1\n"), a, b, "-m", "AP", *extra])
    return call


def _system_a(run: Any) -> Any:
    """System a's run: its file of a TREC-text content, its rows of a table."""
    if isinstance(run, (list, tuple)):
        return run[0]
    return run.filter(pl.col("system").cast(pl.String) == "a")


def _rbo_value(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort("qid")


def _agreement_value(result: Any) -> dict:
    return {k: getattr(result, k) for k in ("kappa", "kappa_linear", "kappa_quadratic", "exact_agreement",
                                            "n_common", "missing_from_a", "missing_from_b")}


#: What the comparing commands say about runs they cannot compare.
_TOO_FEW = {"one_row_per_run": Raises(r"fewer than 2 common queries|single paired query"),
            "empty_run": Raises(r"empty|at least two runs")}
#: What the table and report do with runs they cannot compare: show the means unmarked and say why (the
#: statistical door, compare, refuses): a warning on stderr, which the CLI door re-issues as a UserWarning.
_SHOWN_UNMARKED = {**_TOO_FEW, "one_row_per_run": Value(warns=UserWarning)}
_OWN_IDS = {kind: "its second input spells ids as strings ('d1'), which integer ids ('1') never match"
            for kind in ("ids_integer", "ids_mixed")}
#: Doors that never match a run against qrels (readers, RBO of two runs, label agreement of two qrels): no
#: near-miss warning for ids that are the same text in another normalisation form; the value is still checked.
NO_NEAR_MISS_CHECK: dict[str, Expect] = {"unicode_nfd_docno": Value()}

EVAL_DOORS: dict[str, Door] = {
    "evaluate[duckdb]": Door("evaluation", _evaluate("duckdb"), _eval_value, ("polars", "trec"), public="pf.evaluate",
                             reference=oracle_per_query, cases=ENGINE_CASES | {"unicode_nfd_docno"},
                             empty=(lambda t: pf.evaluate(RUN, OTHER_QRELS, "AP"), EmptyResultError,
                                    "no judged query in common")),
    "evaluate[polars]": Door("evaluation", _evaluate("polars"), _eval_value, EVAL_FORMS + ("table_list",), public="pf.evaluate",
                             content_forms=("polars", "pandas", "dict", "trec", "csv", "parquet", "table_list"),
                             reference=oracle_per_query, params=_EVALUATE_PARAMS),
    "evaluate[spark]": Door("evaluation", _evaluate("spark"), _eval_value, ("trec", "polars"), public="pf.evaluate",
                            reference=oracle_per_query, cases=SPARK_CASES, spark=True,
                            empty=(lambda t: pf.evaluate(RUN, OTHER_QRELS, "AP", engine="spark"), EmptyResultError,
                                   "no judged query in common")),
    **{f"evaluate[spark DataFrame, {method}]": Door(
        "evaluation", _evaluate_on_spark(method), _eval_value, (), public="pf.evaluate", reference=oracle_per_query,
        cases=SPARK_FRAME_CASES, spark=True, spark_cases=SPARK_FRAME_CASES) for method in ("partitions", "sql")},
    **{f"evaluate[spark DataFrame, {method}, system=]": Door(
        "evaluation", _named_x(method), _eval_value, (), public="pf.evaluate", reference=_system_a_named_x,
        cases=SPARK_SYSTEM_CASES, spark=True, spark_cases=SPARK_SYSTEM_CASES) for method in ("partitions", "sql")},
    **{f"evaluate[spark DataFrame, {method}, grades='trec_eval']": Door(
        "evaluation", lambda run, qrels, _m=method, **kw: _evaluate_on_spark(_m)(run, qrels, grades="trec_eval", **kw),
        _eval_value, (), public="pf.evaluate", reference=oracle_per_query, cases=SPARK_GRADES_CASES, spark=True,
        spark_cases=SPARK_GRADES_CASES, sides=frozenset({"qrels"}), expect=_READ_AS_TREC_EVAL)
       for method in ("partitions", "sql")},
    "evaluate_judgment_sets": Door(
        "evaluation", _judgment_sets, _eval_value, ("polars", "trec"), public="pf.evaluate_judgment_sets",
        reference=oracle_per_query, params={k: _EVALUATE_PARAMS[k] for k in ("measures", "depth", "system")},
        empty=(lambda t: pf.evaluate_judgment_sets(RUN, {"gold": OTHER_QRELS}, "AP"), EmptyResultError,
               "judgment set 'gold'")),
    "as_run": Door("evaluation", lambda run, qrels, **kw: pf.as_run(run, **kw), _sorted_run, EVAL_FORMS + ("table_list",), public="pf.as_run",
                   sides=frozenset({"run"}), reader=True, reference=lambda c: _sorted_run(c.run),
                   expect=NO_NEAR_MISS_CHECK, empty=(lambda t: pf.as_run(RUN.head(0)), SchemaError, "empty"),
                   params={"system": (("", " "), r"`system`"), "default_system": (("",), r"`default_system`")}),
    "as_qrels": Door("evaluation", lambda run, qrels: pf.as_qrels(qrels), _sorted_qrels, EVAL_FORMS, public="pf.as_qrels",
                     sides=frozenset({"qrels"}), reader=True, reference=lambda c: _sorted_qrels(c.qrels),
                     expect=NO_NEAR_MISS_CHECK, empty=(lambda t: pf.as_qrels(QRELS.head(0)), SchemaError, "empty")),
    "read_run": Door("evaluation", lambda run, qrels, **kw: pf.read_run(run, **kw), _sorted_run, ("trec",), public="pf.read_run",
                     sides=frozenset({"run"}), reader=True, reference=lambda c: _sorted_run(c.run),
                     expect=NO_NEAR_MISS_CHECK, empty=(lambda t: pf.read_run(_write(t, "r.run", "# nothing\n")), InputFormatError, "empty file"),
                     params={"system": ((["", "b"],), r"`system`")}, reference_form="trec"),
    "read_qrels": Door("evaluation", lambda run, qrels: pf.read_qrels(qrels), _sorted_qrels, ("trec",),
                       public="pf.read_qrels", sides=frozenset({"qrels"}), reader=True,
                       reference=lambda c: _sorted_qrels(c.qrels), expect=NO_NEAR_MISS_CHECK,
                       empty=(lambda t: pf.read_qrels(_write(t, "q.txt", "\n")), InputFormatError, "empty file")),
    "rbo": Door("evaluation", lambda run, qrels, **kw: pf.rbo(_system_a(run), RUN_B, **kw), _rbo_value,
                ("polars", "trec"), public="pf.rbo", sides=frozenset({"run"}),
                skip={**_OWN_IDS, "none_system": "the door takes system a's rows",
                      "empty_system": "the door takes system a's rows",
                      "blank_system": "the door takes system a's rows"}, expect=NO_NEAR_MISS_CHECK,
                params={"p": ((0, 1, 1.5, -0.5), r"\bp\b"), "depth": ((0, -1), r"depth")},
                empty=(lambda t: pf.rbo(RUN.filter(pl.col("system") == "a"),
                                        RUN_B.with_columns(pl.col("qid") + "x")), EmptyResultError,
                       "only one of the runs")),
    "label_agreement": Door("evaluation", lambda run, qrels, **kw: pf.label_agreement(qrels, QRELS_B, **kw),
                            _agreement_value, ("polars", "dict", "trec", "csv"), public="pf.label_agreement",
                            sides=frozenset({"qrels"}),
                            params={"binary_at": ((1.5, "2", 9, 0), r"binary_at"), "confidence_level": ((0, 1.5), r"confidence_level"),
                                    "grades": (([], [0, 0], "0123", [0.5]), r"grades"),
                                    "read_grades": (("atol", "", None, 1), r"read_grades"),
                                    "names": ((("a", "b", "c"), "ab", ("a",)), r"names")},
                            skip=_OWN_IDS, expect=NO_NEAR_MISS_CHECK,
                            empty=(lambda t: pf.label_agreement(QRELS, OTHER_QRELS), InsufficientSampleError,
                                   "judged in both")),
    "cli evaluate": Door("evaluation", _cli_evaluate, sorted_per_query, FILE_EVAL_FORMS, public="cli evaluate",
                         content_forms=("trec", "csv"),
                         cases=frozenset({"clean", "one_row_per_run", "empty_qrels", "nan_score", "none_qid", "inf_score",
                                          "duplicate_run_pair", "unrelated_system_and_query", "ids_integer",
                                          "ids_float", "file_bom", "file_zstd", "unicode_nfd_docno", "string_scores",
                                          "huge_integer_scores", "query_named_all"}),
                         reference=oracle_per_query, params=_CLI_EVAL_PARAMS,
                         expect={"unicode_nfd_docno": Value(warns=UserWarning)},  # stderr, re-issued as a UserWarning
                         empty=(_two_runs_other_qrels("evaluate"), CliExit, "no judged query in common")),
    "cli compare": Door("evaluation", _cli("compare", "-B", "200", "-f", "csv"), lambda out: out, ("trec", "csv"),
                        cases=frozenset({"clean", "nan_score", "one_row_per_run", "file_bom"}),
                        public="cli compare", reference_form="trec",
                        params={**_CLI_COMPARE_PARAMS, **_CLI_EVAL_OPTIONS, "-o": _CLI_OUTPUT},
                        expect=_TOO_FEW,
                        empty=(_two_runs_other_qrels("compare"), CliExit, "no judged query in common")),
    "cli table": Door("evaluation", _cli("table", "-B", "200", "-f", "markdown"), lambda out: out, ("trec",),
                      cases=frozenset({"clean", "nan_score", "one_row_per_run"}),
                      public="cli table", reference_form="trec", expect=_SHOWN_UNMARKED,
                      params={"-B": _CLI_COMPARE_PARAMS["-B"], "--digits": (("-1",), r"digits"), **_CLI_EVAL_OPTIONS,
                              "-o": _CLI_OUTPUT},
                      empty=(_two_runs_other_qrels("table"), CliExit, "no judged query in common")),
    "cli leaderboard": Door("evaluation", lambda run, qrels, *extra: run_cli(["leaderboard", qrels, *_paths(run), "-m", "AP",
                                                                               "-B", "200", "-f", "csv", *extra]),
                            lambda out: out, ("trec",), cases=frozenset({"clean", "nan_score", "one_row_per_run"}),
                            public="cli leaderboard", reference_form="trec",
                            expect={"one_row_per_run": Raises(r"at least 2 queries measured for every system")},
                            params={"-B": _CLI_COMPARE_PARAMS["-B"], "--confidence-level": (("0", "1", "1.5"),
                                                                                           r"confidence.level"),
                                    "--seed": (("-1",), r"--seed"), **_CLI_EVAL_OPTIONS, "-o": _CLI_OUTPUT},
                            empty=(_two_runs_other_qrels("leaderboard"), CliExit, "no judged query in common")),
}


def _report(run: Any, qrels: Any, **kw: Any) -> Any:
    options = {"baseline": "a", "n_resamples": 200, "max_delta_plots": 1, **kw}
    return pf.report(run, qrels, options.pop("measures", list(MEASURES)), **options)


def _report_value(report: Any) -> pl.DataFrame:
    """The evaluation behind the report (checked against trec_eval's logic), and that it rendered."""
    assert report.fragment.startswith("<div") and "<table" in report.fragment
    return sorted_per_query(report.evaluation.per_query)


def _cli_report(run: Any, qrels: Any, *extra: str) -> str:
    out = Path(qrels).parent / "report.html"
    run_cli(["report", qrels, *_paths(run), "-m", "AP", "-B", "200", "-o", str(out), *extra])
    text = out.read_text(encoding="utf-8")
    assert "<table" in text and "http://" not in text.replace("http://www.w3.org", "")
    return text


def _cli_segments(run: Any, qrels: Any, *extra: str) -> str:
    tmp = Path(qrels).parent
    return _cli("segments", "-B", "200", "-f", "csv", "--segments", _segments_file(tmp))(run, qrels, *extra)


EVAL_DOORS["report"] = Door("evaluation", _report, _report_value, ("polars", "trec"), public="pf.report",
                            reference=oracle_per_query, cases=ENGINE_CASES | {"one_row_per_run", "nan_score"},
                            # one query in common: the means without marks, and a warning why (not an error)
                            expect={"one_row_per_run": Value(warns=PartlyEmptyWarning)},
                            params={"confidence_level": _COMPARE_PARAMS["confidence_level"],
                                    "n_resamples": _COMPARE_PARAMS["n_resamples"],
                                    "max_delta_plots": ((-1, 1.5), r"max_delta_plots"),
                                    **{k: _EVALUATE_PARAMS[k] for k in ("depth", "rel_level", "score_precision")},
                                    "measures": ((["P@0"], []), r"P@0|cutoff|measures")},
                            empty=(lambda t: pf.report(RUN, OTHER_QRELS, "AP", baseline="a"), EmptyResultError,
                                   "no judged query in common"))
EVAL_DOORS["cli report"] = Door("evaluation", _cli_report, lambda out: "<table" in out, ("trec",), public="cli report",
                                cases=frozenset({"clean", "nan_score", "one_row_per_run", "file_bom"}),
                                reference_form="trec", expect=_SHOWN_UNMARKED,
                                params={"-B": _CLI_COMPARE_PARAMS["-B"], "--delta-plots": (("-1",), r"delta.plots"),
                                        **_CLI_EVAL_OPTIONS},
                                empty=(lambda t: _two_runs_other_qrels("report")(t), CliExit,
                                       "no judged query in common"))
EVAL_DOORS["cli segments"] = Door("evaluation", _cli_segments, lambda out: out, ("trec",), public="cli segments",
                                  cases=frozenset({"clean", "duplicate_qrels_pair", "one_row_per_run"}),
                                  reference_form="trec", params={**_CLI_COMPARE_PARAMS, **_CLI_EVAL_OPTIONS, "-o": _CLI_OUTPUT},
                                  expect=_TOO_FEW,
                                  empty=(_two_runs_other_qrels("segments"), CliExit, "no judged query in common"))


# ---- per-query doors --------------------------------------------------------------------------------

SYSTEMS, TABLE_MEASURES = ["b", "c"], ["AP", "nDCG@10"]
_RESAMPLING = {"n_resamples": 400}
DISJOINT = pl.DataFrame({"system": ["a", "a", "b", "b"], "qid": ["1", "2", "3", "4"], "measure": "AP",
                         "value": [0.1, 0.2, 0.3, 0.4]})
PLAN = """confidence_level = 0.95
margin = 0.02
seed = 1
n_resamples = 400
resampling_unit = "query"
[systems]
baseline = "a"
candidate = "b"
[[endpoints]]
measure = "AP"
direction = "higher is better"
role = "primary"
"""
#: The per-query values of a second judgment set, for rank agreement.
PER_QUERY_B = PER_QUERY.with_columns((pl.col("value") * 0.9 + 0.01).round(4))


def _frame_value(frame: pl.DataFrame) -> pl.DataFrame:
    return frame


def _analysis_value(result: Any) -> pl.DataFrame:
    return result.table


def _results_value(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.with_columns(pl.col("value").cast(pl.Float64)).sort("system", "qid", "measure")


def _judgment_set_table() -> pl.DataFrame:
    ev = pf.evaluate_judgment_sets(RUN, {"proxy": QRELS, "gold": QRELS}, "AP")
    return ev


#: Cases tried on Spark DataFrames by the comparisons that run in the engine (Spark is slow to start).
_ON_SPARK = frozenset({"clean", "nan_value", "blank_qid_in_the_table", "none_qid", "duplicate_key", "all_null_key_column",
                       "partly_null_key_column", "relstring_text_column", "qid_float"})
_OWN_QIDS = {kind: "its cluster / segment table spells query ids 'q1', which integer ids never match"
             for kind in ("qid_integer", "qid_mixed")}

TABLE_DOORS: dict[str, Door] = {
    "compare": Door("table", lambda t, **kw: pf.compare(t, baseline="a", systems=SYSTEMS, measures=TABLE_MEASURES,
                                                        **{**_RESAMPLING, **kw}),
                    _frame_value, PER_QUERY_FORMS, public="pf.compare",
                    params={**_COMPARE_PARAMS, "resampling": (("sometimes", "Auto", None), r"resampling")},
                    spark_cases=_ON_SPARK,
                    empty=(lambda t: pf.compare(DISJOINT, baseline="a"), EmptyResultError, "no common query")),
    "compare_clustered": Door(
        "table", lambda t, **kw: pf.compare_clustered(t, baseline="a", clusters=CLUSTERS, systems=SYSTEMS,
                                                      measures=TABLE_MEASURES, **{**_RESAMPLING, **kw}),
        _frame_value, PER_QUERY_FORMS, public="pf.compare_clustered", params=_COMPARE_PARAMS, skip=_OWN_QIDS,
        spark_cases=_ON_SPARK,
        expect={"query_of_one_system_only": Raises(r"'q9'.*no cluster in clusters="),
                "unrelated_query": Raises(r"'q9'.*no cluster in clusters=")},
        empty=(lambda t: pf.compare_clustered(DISJOINT.with_columns(cluster=pl.col("qid")), baseline="a"),
               EmptyResultError, "no common query")),
    "paired_per_query": Door("table", lambda t: pf.paired_per_query(t, baseline="a", systems=SYSTEMS,
                                                                    measures=TABLE_MEASURES),
                             _frame_value, PER_QUERY_FORMS, public="pf.paired_per_query",
                             empty=(lambda t: pf.paired_per_query(DISJOINT, baseline="a"), EmptyResultError,
                                    "no common query")),
    "worst_queries": Door("table", lambda t, **kw: pf.worst_queries(t, baseline="a", systems=SYSTEMS,
                                                                    measures=TABLE_MEASURES, **{"k": 3, **kw}),
                          _frame_value, PER_QUERY_FORMS, public="pf.worst_queries", params={"k": ((0, -1, 1.5), r"\bk\b")},
                          empty=(lambda t: pf.worst_queries(DISJOINT, baseline="a"), EmptyResultError,
                                 "no common query")),
    "results_table": Door(
        "table", lambda t, **kw: pf.results_table(t, baseline="a", systems=["a", *SYSTEMS], measures=TABLE_MEASURES,
                                                  **{**_RESAMPLING, **kw}),
        lambda table: table.table, PER_QUERY_FORMS, public="pf.results_table",
        skip={"query_of_one_system_only": "documented: a system's mean is over all its evaluated queries (as "
                                          "trec_eval's), the marks over the paired ones"},
        params={"confidence_level": ((0, 1, 1.5), r"confidence_level"),
                "digits": ((-1,), r"digits")},
        expect={"two_datasets": Raises(r"`data` has several values of its key column 'dataset' \(\['x', 'y'\]\)",
                                       SchemaError)},
        empty=(lambda t: pf.results_table(DISJOINT.head(0)), EmptyResultError, "per-query table is empty")),
    "rank_agreement": Door(
        "table", lambda t, **kw: pf.rank_agreement(t, PER_QUERY_B, measure="AP", systems=["a", "b", "c"],
                                                   **{**_RESAMPLING, **kw}),
        lambda result: result.table, PER_QUERY_FORMS, public="pf.rank_agreement", skip=_OWN_QIDS,
        expect={"two_datasets": Raises(r"`a` has several values of its key column 'dataset' \(\['x', 'y'\]\)",
                                       SchemaError)},
        params={"confidence_level": ((0, 1.5), r"confidence_level"), "n_resamples": ((0, -1), r"n_resamples"),
                "rbo_p": ((0, 1, 1.5), r"rbo_p"), "interval": (("bca", None), r"interval")},
        empty=(lambda t: pf.rank_agreement(DISJOINT, DISJOINT.with_columns(pl.col("qid") + "x"), measure="AP"),
               InsufficientSampleError, "at least 2 queries measured for every system")),
    "leaderboard": Door(
        "table", lambda t, **kw: pf.leaderboard(t, measure="AP", systems=["a", "b", "c"], **{**_RESAMPLING, **kw}),
        lambda result: result.table, PER_QUERY_FORMS, public="pf.leaderboard",
        expect={"two_datasets": Raises(r"`per_query` has several values of its key column 'dataset' \(\['x', 'y'\]\)",
                                       SchemaError)},
        params={"confidence_level": ((0, 1.5), r"confidence_level"), "n_resamples": ((0, -1), r"n_resamples"),
                "simultaneous": (("yes", None), r"simultaneous")},
        empty=(lambda t: pf.leaderboard(DISJOINT, measure="AP"), InsufficientSampleError,
               "at least 2 queries measured for every system")),
    "compare_segments": Door(
        "table", lambda t, **kw: pf.compare_segments(t, SEGMENTS, baseline="a", systems=SYSTEMS,
                                                     measures=TABLE_MEASURES, **{**_RESAMPLING, **kw}),
        _frame_value, PER_QUERY_FORMS, public="pf.compare_segments", params=_COMPARE_PARAMS, skip=_OWN_QIDS,
        spark_cases=_ON_SPARK,
        empty=(lambda t: pf.compare_segments(pf.evaluate(RUN, QRELS, "AP"), {"qid": ["x"], "segment_set": ["s"],
                                                                               "segment": ["g"]}, baseline="a"),
               EmptyResultError, "no paired query")),
    "analyze": Door("table", lambda t: pf.analyze(pf.Plan.from_toml(PLAN), t), _analysis_value,
                    TABLE_FORMS + RESULT_FILE_FORMS, public="pf.analyze",
                    expect={"one_row": Raises(r"candidate = 'b' is not a system", PlanError),
                            "two_datasets": Raises(r"dataset is required: the results hold datasets \['x', 'y'\]",
                                                   PlanError)},
                    empty=(lambda t: pf.analyze(pf.Plan.from_toml(PLAN), DISJOINT), EmptyResultError,
                           "no common query")),
    "read_results": Door("table", lambda path, **kw: pf.read_results(path, **kw), _results_value, RESULT_FILE_FORMS,
                         public="pf.read_results", reader=True, reference_form="csv",
                         # a reader returns the values as written; the doors that analyse them refuse these
                         expect={c: Value() for c in ("one_row", "nan_value", "inf_value", "minus_inf_value", "huge_value",
                                                      "duplicate_key", "partly_null_key_column",
                                                      "value_above_measure_range", "value_below_measure_range")},
                         params={"ks": (([0], [-1], [1.5]), r"\bks?\b")},
                         empty=(lambda t: pf.read_results(_write(t, "x.csv", "system,qid,measure,value\n")),
                                EmptyResultError, "no data rows")),
}


def _cli_analyze(path: str, *extra: str) -> str:
    plan = Path(path).parent / "plan.toml"
    plan.write_text(PLAN)
    return run_cli(["analyze", "--plan", str(plan), path, "-f", "csv", *extra])


def _cli_analyze_empty(tmp: Path) -> Any:
    path = tmp / "results.csv"
    DISJOINT.write_csv(path)
    return _cli_analyze(str(path))


TABLE_DOORS["cli analyze"] = Door("table", _cli_analyze, lambda out: out, RESULT_FILE_FORMS, public="cli analyze",
                                  reference_form="csv", empty=(_cli_analyze_empty, CliExit, "no common query"),
                                  # a directory is named as one, not "plan file not found"
                                  params={"--plan": ((".",), r"plan file \. is a directory, not a file: a plan is one "
                                                             r"TOML file")},
                                  expect={"two_datasets": Raises(r"dataset is required: the results hold datasets "
                                                                 r"\['x', 'y'\]"),
                                          # the CLI prints the ValueRangeWarning ("pairedframe: warning: ...")
                                          **{c: Value(warns=UserWarning) for c in ("value_above_measure_range",
                                                                                   "value_below_measure_range")}})

DOORS: dict[str, Door] = {**EVAL_DOORS, **TABLE_DOORS}

#: CLI commands that take no user data, and why.
CLI_EXEMPT = {"example": "takes no data: evaluates the bundled example (--copy-to's folder refusals: "
                         "tests/test_docs_examples.py)",
              "sql": "takes no input: prints the macro script (its macros are the door pf.duckdb.register)"}
