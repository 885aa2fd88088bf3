"""The result of :func:`pairedframe.evaluate`: per-query values, their ``all`` rows and the settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import polars as pl

from pairedframe.evaluation.trec_text import format_trec
from pairedframe.measures import Measure

TIE_RULE = "score descending, then docno descending (byte order), as trec_eval; rank column ignored"


@dataclass(frozen=True)
class EvaluationSettings:
    """Everything needed to reproduce an evaluation."""

    rel_level: int
    complete: bool
    depth: int | None
    score_precision: str
    engine: str
    tie_rule: str = TIE_RULE

    @property
    def query_set(self) -> str:
        if self.complete:
            return "all judged queries; not retrieved = 0 (trec_eval -c)"
        return "queries both retrieved and judged (trec_eval default)"

    def as_dict(self) -> dict[str, Any]:
        return {"rel_level": self.rel_level, "complete": self.complete, "depth": self.depth,
                "score_precision": self.score_precision, "engine": self.engine,
                "tie_rule": self.tie_rule, "query_set": self.query_set,
                "gain": "linear (grade) unless a measure says gain=exp"}


@dataclass(frozen=True)
class Evaluation:
    """Result of :func:`evaluate`.

    Attributes
    ----------
    per_query : polars.DataFrame
        ``system, qid, measure, value``: one row per (system, evaluated query, measure), sorted by
        system, qid and the order of ``measures``.
    measures : tuple of Measure
        The measures, resolved against the relevance level (their ``name`` is the ``measure`` column).
    settings : EvaluationSettings
        Tie rule, score precision, relevance level, query-set policy, depth, engine.
    excluded : polars.DataFrame
        ``system, qid, reason``: queries left out of the evaluation and why.
    run_tags : dict
        system -> the tag column of its run file (trec_eval's ``runid``), when read from files.
    """

    per_query: pl.DataFrame
    measures: tuple[Measure, ...]
    settings: EvaluationSettings
    excluded: pl.DataFrame = field(repr=False)
    run_tags: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def systems(self) -> list[str]:
        """System names in the order of ``per_query``."""
        return self.per_query["system"].unique(maintain_order=True).to_list()

    def summary(self) -> pl.DataFrame:
        """One row per (system, measure), as trec_eval's ``all`` rows.

        Returns
        -------
        polars.DataFrame
            ``system, measure, value, n_queries``: the mean over evaluated queries, or the sum for
            counts (num_q, num_ret, num_rel, num_rel_ret).
        """
        how = {m.name: m.spec.aggregate for m in self.measures}
        order = {m.name: i for i, m in enumerate(self.measures)}
        agg = self.per_query.group_by("system", "measure", maintain_order=True).agg(
            pl.col("value").mean().alias("mean"), pl.col("value").sum().alias("sum"),
            pl.len().alias("n_queries"))
        return (agg.with_columns(
                    pl.when(pl.col("measure").replace_strict(how, return_dtype=pl.String) == "sum")
                    .then(pl.col("sum")).otherwise(pl.col("mean")).alias("value"),
                    pl.col("measure").replace_strict(order, return_dtype=pl.Int64).alias("_order"))
                .sort("system", "_order").select("system", "measure", "value", pl.col("n_queries").cast(pl.Int64)))

    def to_trec(self, *, per_query: bool = True, runids: dict[str, str] | None = None, runid: bool = True) -> str:
        """trec_eval's text output (``trec_eval -q`` when ``per_query``); see :func:`pairedframe.evaluation.trec_text.format_trec`."""
        return format_trec(self.per_query, self.summary(), self.measures, systems=self.systems,
                           run_tags=self.run_tags, per_query=per_query, runids=runids, runid=runid)
