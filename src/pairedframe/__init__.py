"""pairedframe: trec_eval-exact evaluation and paired statistics on polars / DuckDB tables.

The flow: :mod:`~pairedframe.io` (readers) -> :mod:`~pairedframe.tables` (schemas) ->
:mod:`~pairedframe.measures` + :mod:`~pairedframe.engines` (SQL / polars) -> :mod:`~pairedframe.evaluation` -> :mod:`~pairedframe.stats`
(pure numpy) -> :mod:`~pairedframe.comparison` (frames) -> :mod:`~pairedframe.report` / CLI.

>>> import pairedframe as pf
>>> ev = pf.evaluate(["input.bm25", "input.reranker"], "qrels.txt", ["nDCG@10", "AP"])  # doctest: +SKIP
>>> pf.compare(ev, baseline="bm25")                                                    # doctest: +SKIP
"""

from pairedframe.comparison import (
    PairedComparison,
    compare,
    compare_pair,
    paired_per_query,
    worst_queries,
)
from pairedframe.comparison.clustered import compare_clustered
from pairedframe.io.endpoints import endpoints_from_ranks
from pairedframe.comparison.label_agreement import LabelAgreement, label_agreement
from pairedframe.comparison.overlap import rbo
from pairedframe.comparison.rank_agreement import RankAgreement, rank_agreement
from pairedframe.comparison.plan import AnalysisResult, Plan, analyze, load_plan
from pairedframe.comparison.ppi import ppi_compare, ppi_compare_segments
from pairedframe.comparison.resample_index import ResampleIndex, resample_index
from pairedframe.comparison.segments import compare_segments
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
    UnknownMeasureError,
)
from pairedframe.evaluation import (
    Evaluation,
    EvaluationSettings,
    JudgmentSetsEvaluation,
    evaluate,
    evaluate_judgment_sets,
)
from pairedframe.io import as_qrels, as_run, read_qrels, read_run
from pairedframe.io.prefs import read_prefs
from pairedframe.io.zscores import read_zscores
from pairedframe.io.results import read_results
from pairedframe.measures import Measure, parse_measure, parse_measures
from pairedframe import report  # the package, callable as the HTML report (pairedframe.report.html_report.report)
from pairedframe.report.html_report import Report
from pairedframe.report.results_table import ResultsTable, results_table
from pairedframe import sql_macros as duckdb  # pf.duckdb.register(con): the DuckDB macros

__version__ = "0.1.0"

__all__ = [
    "AnalysisResult", "DuplicateError", "EmptyResultError", "Evaluation", "EvaluationSettings",
    "InputFormatError", "InsufficientSampleError", "JudgmentSetsEvaluation", "LabelAgreement", "Measure",
    "PairedComparison", "PairedFrameError", "PartlyEmptyWarning", "Plan", "PlanError", "RankAgreement",
    "Report", "ResultsTable",
    "SchemaError", "SkewWarning", "SmallSampleWarning", "TiedQueriesWarning", "UnknownMeasureError", "analyze", "as_qrels", "as_run", "compare",
    "compare_clustered", "compare_pair", "compare_segments", "duckdb", "endpoints_from_ranks", "evaluate",
    "evaluate_judgment_sets", "label_agreement", "load_plan", "paired_per_query", "parse_measure",
    "parse_measures", "ppi_compare", "ppi_compare_segments", "rank_agreement", "rbo", "read_prefs", "read_qrels",
    "read_results", "read_run", "read_zscores", "report", "resample_index", "results_table", "worst_queries",
    "ResampleIndex",
]
