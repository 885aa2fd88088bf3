"""pairedframe: trec_eval-exact evaluation and paired statistics on polars / DuckDB tables.

The flow: :mod:`~pairedframe.io` (readers) -> :mod:`~pairedframe.tables` (schemas) ->
:mod:`~pairedframe.measures` + :mod:`~pairedframe.engines` (SQL / polars) -> :mod:`~pairedframe.evaluation` -> :mod:`~pairedframe.stats`
(pure numpy) -> :mod:`~pairedframe.comparison` (frames) -> :mod:`~pairedframe.report` / CLI.

>>> import pairedframe as pf
>>> ev = pf.evaluate(["input.bm25", "input.reranker"], "qrels.txt", ["nDCG@10", "AP"])  # doctest: +SKIP
>>> pf.compare(ev, baseline="bm25")                                                    # doctest: +SKIP

The public names load on first use (SPEC 1 lazy loading through a module ``__getattr__``): ``import
pairedframe`` costs no more than its table libraries, and ``pf.evaluate`` never loads scipy or the
comparison layer. ``from pairedframe import X`` works as before; type checkers read the imports
under ``TYPE_CHECKING`` below.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from pairedframe.errors import (
    DuplicateError,
    EmptyResultError,
    InputFormatError,
    InsufficientSampleError,
    PairedFrameError,
    PartlyEmptyWarning,
    PlanError,
    SchemaError,
    SkewWarning,
    SmallSampleWarning,
    TiedQueriesWarning,
    ValueRangeWarning,
    UnknownMeasureError,
)

if TYPE_CHECKING:  # the same names, imported eagerly for type checkers and IDEs
    from pairedframe.comparison import PairedComparison, compare, compare_pair, paired_per_query, worst_queries
    from pairedframe.comparison.clustered import compare_clustered
    from pairedframe.comparison.label_agreement import LabelAgreement, label_agreement
    from pairedframe.comparison.leaderboard import Leaderboard, leaderboard
    from pairedframe.comparison.overlap import rbo
    from pairedframe.comparison.plan import AnalysisResult, Plan, analyze, load_plan
    from pairedframe.comparison.ppi import ppi_compare, ppi_compare_segments
    from pairedframe.comparison.rank_agreement import RankAgreement, rank_agreement
    from pairedframe.comparison.resample_index import ResampleIndex, resample_index
    from pairedframe.comparison.segments import compare_segments
    from pairedframe.evaluation import (Evaluation, EvaluationSettings, JudgmentSetsEvaluation, evaluate,
                                        evaluate_judgment_sets)
    from pairedframe.io import as_qrels, as_run, read_qrels, read_run
    from pairedframe.io.endpoints import endpoints_from_ranks
    from pairedframe.io.prefs import read_prefs
    from pairedframe.io.results import read_results
    from pairedframe.io.zscores import read_zscores
    from pairedframe.measures import Measure, parse_measure, parse_measures
    from pairedframe.report.html_report import Report
    from pairedframe.report.results_table import ResultsTable, results_table
    from pairedframe import report  # the package, callable as the HTML report (html_report.report)
    from pairedframe import sql_macros as duckdb  # pf.duckdb.register(con): the DuckDB macros

__version__ = "0.1.0"

#: Public name -> the module that defines it, imported on first access. A new public name is one
#: entry here, one in ``__all__`` and one import under TYPE_CHECKING (tests/test_lazy_imports.py checks
#: that the three agree).
_LAZY: dict[str, str] = {
    "PairedComparison": "pairedframe.comparison",
    "compare": "pairedframe.comparison",
    "compare_pair": "pairedframe.comparison",
    "paired_per_query": "pairedframe.comparison",
    "worst_queries": "pairedframe.comparison",
    "compare_clustered": "pairedframe.comparison.clustered",
    "LabelAgreement": "pairedframe.comparison.label_agreement",
    "label_agreement": "pairedframe.comparison.label_agreement",
    "Leaderboard": "pairedframe.comparison.leaderboard",
    "leaderboard": "pairedframe.comparison.leaderboard",
    "rbo": "pairedframe.comparison.overlap",
    "AnalysisResult": "pairedframe.comparison.plan",
    "Plan": "pairedframe.comparison.plan",
    "analyze": "pairedframe.comparison.plan",
    "load_plan": "pairedframe.comparison.plan",
    "ppi_compare": "pairedframe.comparison.ppi",
    "ppi_compare_segments": "pairedframe.comparison.ppi",
    "RankAgreement": "pairedframe.comparison.rank_agreement",
    "rank_agreement": "pairedframe.comparison.rank_agreement",
    "ResampleIndex": "pairedframe.comparison.resample_index",
    "resample_index": "pairedframe.comparison.resample_index",
    "compare_segments": "pairedframe.comparison.segments",
    "Evaluation": "pairedframe.evaluation",
    "EvaluationSettings": "pairedframe.evaluation",
    "JudgmentSetsEvaluation": "pairedframe.evaluation",
    "evaluate": "pairedframe.evaluation",
    "evaluate_judgment_sets": "pairedframe.evaluation",
    "as_qrels": "pairedframe.io",
    "as_run": "pairedframe.io",
    "read_qrels": "pairedframe.io",
    "read_run": "pairedframe.io",
    "endpoints_from_ranks": "pairedframe.io.endpoints",
    "read_prefs": "pairedframe.io.prefs",
    "read_results": "pairedframe.io.results",
    "read_zscores": "pairedframe.io.zscores",
    "Measure": "pairedframe.measures",
    "parse_measure": "pairedframe.measures",
    "parse_measures": "pairedframe.measures",
    "Report": "pairedframe.report.html_report",
    "ResultsTable": "pairedframe.report.results_table",
    "results_table": "pairedframe.report.results_table",
}

#: Public names that are modules: ``pf.report`` (the report subpackage, callable as the HTML report)
#: and ``pf.duckdb`` (:mod:`pairedframe.sql_macros`, the DuckDB macros).
_MODULES: dict[str, str] = {"duckdb": "pairedframe.sql_macros", "report": "pairedframe.report"}

#: Subpackages reachable as attributes (``pf.io.as_run``) without an import of their own.
_SUBPACKAGES = frozenset({"checks", "comparison", "engines", "errors", "evaluation", "example", "io", "measures",
                          "sql_macros", "stats", "tables"})

__all__ = [
    "AnalysisResult", "DuplicateError", "EmptyResultError", "Evaluation", "EvaluationSettings",
    "InputFormatError", "InsufficientSampleError", "JudgmentSetsEvaluation", "LabelAgreement", "Measure",
    "PairedComparison", "PairedFrameError", "PartlyEmptyWarning", "Plan", "PlanError", "RankAgreement",
    "Report", "ResultsTable",
    "SchemaError", "SkewWarning", "SmallSampleWarning", "TiedQueriesWarning", "UnknownMeasureError", "ValueRangeWarning", "analyze", "as_qrels", "as_run", "compare",
    "compare_clustered", "compare_pair", "compare_segments", "duckdb", "endpoints_from_ranks", "evaluate",
    "evaluate_judgment_sets", "label_agreement", "load_plan", "paired_per_query", "parse_measure",
    "parse_measures", "ppi_compare", "ppi_compare_segments", "rank_agreement", "rbo", "read_prefs", "read_qrels",
    "read_results", "read_run", "read_zscores", "report", "resample_index", "results_table", "worst_queries",
    "ResampleIndex", "Leaderboard", "leaderboard",
]


def __getattr__(name: str) -> Any:
    """Import a public name's module on first access and keep the name on the package."""
    module = _LAZY.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
    elif name in _MODULES:
        value = importlib.import_module(_MODULES[name])
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later accesses are plain attribute reads
    return value


def __dir__() -> list[str]:
    dunder = {name for name in globals() if name.startswith("__")}   # not the helpers this module imports
    return sorted({*dunder, *__all__, *_SUBPACKAGES, "__version__"} & ({*globals(), *__all__, *_SUBPACKAGES}))
