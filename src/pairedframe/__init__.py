"""pairedframe: trec_eval-exact evaluation and paired statistics on polars / DuckDB tables.

>>> import pairedframe as pf
>>> ev = pf.evaluate("run.txt", "qrels.txt", ["nDCG@10", "AP"])   # doctest: +SKIP
>>> ev.per_query   # system, qid, measure, value                    # doctest: +SKIP
"""

from pairedframe.errors import (
    DuplicateError,
    InputFormatError,
    InsufficientSampleError,
    PairedFrameError,
    PlanError,
    SchemaError,
    SmallSampleWarning,
    UnknownMeasureError,
)
from pairedframe.evaluate import Evaluation, EvaluationSettings, evaluate
from pairedframe.io import as_qrels, as_run, read_qrels, read_run
from pairedframe.measures import Measure, parse_measure, parse_measures

__version__ = "0.1.0"

__all__ = [
    "DuplicateError", "Evaluation", "EvaluationSettings", "InputFormatError", "InsufficientSampleError",
    "Measure", "PairedFrameError", "PlanError", "SchemaError", "SmallSampleWarning", "UnknownMeasureError",
    "as_qrels", "as_run", "evaluate", "parse_measure", "parse_measures", "read_qrels", "read_run",
]
