"""The contract every evaluation engine fulfils."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

import polars as pl

from pairedframe.measures import Measure

ScorePrecision = Literal["float64", "float32"]

#: Columns of an engine's result: ``value`` for numeric measures, ``text`` for string-valued ones
#: (trec_eval's relstring); the other is null.
RESULT_SCHEMA = {"system": pl.String, "qid": pl.String, "measure": pl.String, "value": pl.Float64,
                 "text": pl.String}


@dataclass(frozen=True)
class EvalOptions:
    """How queries are selected and ranked; see :func:`pairedframe.evaluate`."""

    complete: bool = False
    depth: int | None = None
    score_precision: ScorePrecision = "float64"


class Engine(Protocol):
    name: str

    def evaluate(self, run: pl.DataFrame, qrels: pl.DataFrame, measures: list[Measure],
                 options: EvalOptions) -> pl.DataFrame:
        """Per-query values ``system, qid, measure, value, text`` (:data:`RESULT_SCHEMA`) for resolved
        measures (``rel`` set).

        Every evaluated (system, qid) gets one row per measure; the row order is unspecified.
        """
        ...

    def evaluate_ranked(self, ranks: pl.DataFrame, retrieved: pl.DataFrame, qrels: pl.DataFrame,
                        measures: list[Measure], options: EvalOptions) -> pl.DataFrame:
        """The same values from a run already ranked: ``ranks`` (``system, qid, docno, rank, rel``
        for the retrieved documents in the qrels, any grade, not cut at depth) and ``retrieved``
        (``system, qid, n``), as :func:`pairedframe.engines.ranking.rank_judged` returns them."""
        ...


def group_by_level(measures: list[Measure]) -> dict[tuple[int, bool], list[Measure]]:
    """Measures grouped by (relevance level, judged_only): the ranked table is built once per group."""
    groups: dict[tuple[int, bool], list[Measure]] = {}
    for m in measures:
        groups.setdefault((m.rel if m.rel is not None else 1, m.judged_only), []).append(m)
    return groups
