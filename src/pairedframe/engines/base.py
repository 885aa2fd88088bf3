"""The contract every evaluation engine fulfils."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

import polars as pl

from pairedframe.io.judgments import kind_of, plain_qrels
from pairedframe.io.prefs import preferences
from pairedframe.measures import REGISTRY, Measure

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


#: The DuckDB / Spark SQL steps that build the tables a kind of judgments' measures read, from a run
#: (``pf_run``) or from a ranked run (``pf_ranks`` and ``pf_retrieved`` given). Every kind builds
#: ``pf_queries`` (the evaluated queries; num_q reads it).
STEPS = {
    ("qrels", "run"): ("prep_retrieved.sql", "prep_ranks.sql", "prep_queries.sql", "prep_ranked.sql", "prep_ideal.sql"),
    ("qrels", "ranked"): ("prep_queries.sql", "prep_ranked.sql", "prep_ideal.sql"),
    # a ranked run whose pf_ranks brings its running counts, and the ideal rankings given as pf_ideal_given
    # (ranking.running_counts and ideal_gains; DuckDB's streamed path)
    ("qrels", "counted"): ("prep_queries.sql", "prep_ranked_counted.sql", "prep_ideal_given.sql"),
    ("qrels_jg", "run"): ("prep_retrieved.sql", "prep_ranks.sql", "prep_queries.sql", "prep_jg_queries.sql",
                          "prep_jg_ranked.sql"),
    ("qrels_jg", "ranked"): ("prep_queries.sql", "prep_jg_queries.sql", "prep_jg_ranked.sql"),
    ("prefs", "run"): ("prep_retrieved.sql", "prep_pref_ranks.sql", "prep_queries.sql", "prep_pref_dids.sql",
                       "prep_pref_ranked.sql", "prep_pref_members.sql", "prep_pref_groups.sql"),
    ("prefs", "ranked"): ("prep_queries.sql", "prep_pref_dids.sql", "prep_pref_ranked.sql", "prep_pref_members.sql",
                          "prep_pref_groups.sql"),
}


#: The most documents a system retrieved for a query (``{prefix}``: the engine's table prefix).
LARGEST_RETRIEVED_SQL = "SELECT coalesce(max(n), 0) FROM {prefix}pf_retrieved"


def largest_num_ret(retrieved: int, options: EvalOptions) -> int:
    """A bound on num_ret in every group of measures (``pf_discounts`` holds p**k up to it), from the
    most documents retrieved for a query: the depth cut at most (trec_eval -M), judged_only counts
    fewer, and a query retrieved by no system is ranked as one placeholder (-c)."""
    largest = max(int(retrieved), 1)
    return largest if options.depth is None else min(largest, max(int(options.depth), 1))


def kind_tables(judgments: pl.DataFrame) -> tuple[str, dict[str, pl.DataFrame]]:
    """The kind of a judgments table (``qrels``, ``qrels_jg``, ``prefs``) and the tables the SQL reads:
    ``pf_qrels`` (each judged (qid, docno) once: the ranking and the query set) plus ``pf_qrels_jg``,
    or the ``pf_pref_*`` tables of :func:`pairedframe.io.prefs.preferences`."""
    kind = kind_of(judgments)
    tables = {"pf_qrels": plain_qrels(judgments)}
    if kind == "qrels_jg":
        tables["pf_qrels_jg"] = judgments
    elif kind == "prefs":
        prefs = preferences(judgments)
        tables.update(pf_pref_groups=prefs.groups, pf_pref_docs=prefs.docs, pf_pref_members=prefs.members,
                      pf_pref_pairs=prefs.pairs)
    return kind, tables


def check_kinds(measures: list[Measure], kind: str) -> None:
    """Refuse measures that read another kind of judgments than the one given."""
    wrong = [m.name for m in measures if m.spec.judgments not in (kind, "any")]
    if wrong:
        needs = sorted({REGISTRY[m.family].judgments for m in measures if m.name in wrong})
        raise ValueError(f"{wrong[:5]} read {' / '.join(needs)} judgments, but the judgments given are {kind}; "
                         "evaluate them separately, with judgments_format (-R) naming the judgments' format")


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


def group_by_level(measures: list[Measure], kind: str = "qrels") -> dict[tuple[str, int, bool], list[Measure]]:
    """Measures grouped by (kind of judgments, relevance level, judged_only): the prep tables are built
    once per group. ``kind``: the judgments given (the kind of num_q, which reads any)."""
    groups: dict[tuple[str, int, bool], list[Measure]] = {}
    for m in measures:
        own = kind if m.spec.judgments == "any" else m.spec.judgments
        groups.setdefault((own, m.rel if m.rel is not None else 1, m.judged_only), []).append(m)
    return groups
