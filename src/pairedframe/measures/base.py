"""Measure declarations: an immutable value per measure, and a registry of measure families.

A *family* (nDCG, AP, P, ...) is declared once, in its own module, with the ``@family`` decorator:
its names, whether it takes a cutoff, how it aggregates over queries, its value for a query that
retrieved nothing, its SQL file in ``sql/`` and its polars implementation. A :class:`Measure` is
one parameterised instance (``nDCG@10``, ``AP(rel=2)@100``) whose canonical name is its identity.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import polars as pl

Aggregate = Literal["mean", "sum"]
CutoffRule = Literal["none", "optional", "required"]
Gain = Literal["linear", "exp"]

DEFAULT_REL_LEVEL = 1


@dataclass(frozen=True)
class PolarsContext:
    """Inputs of a family's polars implementation (all lazy frames).

    ranked : one row per retrieved document with a grade >= 0 in the qrels (unjudged documents and
             negative grades cannot change any measure): system, qid, docno, rank (1-based among
             all retrieved documents, trec_eval order, cut at depth), rel, gain (float, grade when
             > 0 else 0), is_rel (rel >= level), is_judged_nonrel (rel < level), num_rel,
             num_nonrel, rel_cum, nonrel_cum (counts at ranks <= rank), log2_rank1 (log2(rank + 1)
             from C's log2, as DuckDB and trec_eval compute it).
    queries : system, qid, num_rel, num_nonrel, num_ret: the evaluated query set.
    ideal : qid, irank, gain, log2_irank1: the qrels' positive gains sorted descending (ideal ranking).
    """

    ranked: pl.LazyFrame
    queries: pl.LazyFrame
    ideal: pl.LazyFrame


@dataclass(frozen=True)
class Family:
    """Declaration of a measure family. See :func:`family`."""

    key: str
    aliases: tuple[str, ...]
    trec_name: str
    trec_cut_name: str | None
    cutoff: CutoffRule
    aggregate: Aggregate
    uses_rel: bool
    uses_gain: bool
    sql_file: str
    empty_value: str
    polars: Callable[[PolarsContext, "Measure"], pl.LazyFrame]
    doc: str
    trec_order: int
    default_cutoffs: tuple[int, ...] = ()
    trec_cut_order: int | None = None


@dataclass(frozen=True, order=True)
class Measure:
    """One measure with its parameters; ``name`` (canonical, ir_measures style) is its identity.

    Attributes
    ----------
    family : str
        Family key, e.g. ``"nDCG"``.
    cutoff : int or None
        Rank cutoff k (``@k``); None for the full ranking.
    rel : int or None
        Minimum grade counted as relevant; None means "the evaluation's ``rel_level``".
    gain : {"linear", "exp"}
        nDCG gain: the grade (trec_eval) or ``2**grade - 1``.
    """

    family: str
    cutoff: int | None = None
    rel: int | None = None
    gain: Gain = "linear"

    @property
    def spec(self) -> Family:
        return REGISTRY[self.family]

    @property
    def name(self) -> str:
        params = []
        if self.spec.uses_rel and self.rel is not None and self.rel != DEFAULT_REL_LEVEL:
            params.append(f"rel={self.rel}")
        if self.spec.uses_gain and self.gain != "linear":
            params.append(f"gain={self.gain}")
        text = self.family + (f"({','.join(params)})" if params else "")
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")

    @property
    def trec_name(self) -> str:
        """trec_eval's name (``ndcg_cut_10``, ``P_5``, ``map``)."""
        spec = self.spec
        if self.cutoff is not None and spec.trec_cut_name:
            return f"{spec.trec_cut_name}_{self.cutoff}"
        return spec.trec_name

    @property
    def trec_sort_key(self) -> tuple[int, int]:
        """Position in trec_eval's output: its measure table order, then the cutoff."""
        spec = self.spec
        order = spec.trec_order
        if self.cutoff is not None and spec.trec_cut_order is not None:
            order = spec.trec_cut_order
        return (order, self.cutoff or 0)

    def resolved(self, rel_level: int) -> "Measure":
        """This measure with ``rel`` filled from the call's level when the name did not set it."""
        if not self.spec.uses_rel:
            return Measure(self.family, self.cutoff, None, self.gain)
        return Measure(self.family, self.cutoff, self.rel if self.rel is not None else rel_level, self.gain)

    def __str__(self) -> str:
        return self.name


REGISTRY: dict[str, Family] = {}


def family(*, key: str, trec_name: str, sql_file: str, cutoff: CutoffRule, empty_value: str,
           trec_order: int, aliases: tuple[str, ...] = (), trec_cut_name: str | None = None,
           aggregate: Aggregate = "mean", uses_rel: bool = True, uses_gain: bool = False,
           default_cutoffs: tuple[int, ...] = (), trec_cut_order: int | None = None) -> Callable:
    """Register a measure family; decorates its polars implementation.

    The decorated function takes a :class:`PolarsContext` and a resolved :class:`Measure` and
    returns a lazy frame ``system, qid, value`` for the queries with at least one retrieved row;
    the engine fills the other evaluated queries with the value the SQL gives an empty ranking.
    Its docstring is the family's documentation (formula, empty-query value, trec_eval source).
    """

    def register(fn: Callable[[PolarsContext, Measure], pl.LazyFrame]) -> Callable:
        if key in REGISTRY:
            raise RuntimeError(f"measure family {key!r} registered twice")
        REGISTRY[key] = Family(
            key=key, aliases=aliases, trec_name=trec_name, trec_cut_name=trec_cut_name, cutoff=cutoff,
            aggregate=aggregate, uses_rel=uses_rel, uses_gain=uses_gain, sql_file=sql_file,
            empty_value=empty_value, polars=fn, doc=fn.__doc__ or "", trec_order=trec_order,
            default_cutoffs=default_cutoffs, trec_cut_order=trec_cut_order)
        return fn

    return register
