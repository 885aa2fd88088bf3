"""The evaluation doors' reference: trec_eval's logic in plain Python (tests/reference/trec_reference.py)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures import parse_measures
from tests.conformance.inputs import MEASURES, EvalContent
from tests.reference.trec_reference import evaluate_reference

PER_QUERY_ORDER = ("system", "qid", "measure")


def oracle_per_query(content: EvalContent, measures: tuple[str, ...] = MEASURES) -> pl.DataFrame:
    """``system, qid, measure, value`` as trec_eval computes them for the content (string ids),
    sorted by system, qid, measure. Scores may be +-inf: Python orders them as C's ``>`` does."""
    runs: dict[str, dict[str, list[tuple[str, float]]]] = {}
    for system, qid, docno, score in content.run.select("system", "qid", "docno", "score").iter_rows():
        runs.setdefault(system, {}).setdefault(qid, []).append((docno, float(score)))
    qrels: dict[str, dict[str, int]] = {}
    for qid, docno, rel in content.qrels.select("qid", "docno", "rel").iter_rows():
        qrels.setdefault(qid, {})[docno] = int(rel)
    resolved = [m.resolved(1) for m in parse_measures(list(measures))]
    values = evaluate_reference(runs, qrels, resolved)
    rows = [(s, q, m, float(v)) for (s, q, m), v in values.items()]
    return (pl.DataFrame(rows, schema={"system": pl.String, "qid": pl.String, "measure": pl.String,
                                       "value": pl.Float64}, orient="row").sort(PER_QUERY_ORDER))


def sorted_per_query(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.select("system", "qid", "measure", pl.col("value").cast(pl.Float64)).sort(PER_QUERY_ORDER)
