"""Measure declarations: an immutable value per measure, and a registry of measure families.

A *family* (nDCG, AP, P, ...) is declared once, in its own module, with the ``@family`` decorator:
its names (ir_measures style and trec_eval's), its parameters, how it aggregates over queries, its
SQL file in ``sql/`` and its polars implementation. A :class:`Measure` is one parameterised
instance (``nDCG@10``, ``AP(rel=2)@100``, ``RBP(p=0.9)``) whose canonical name is its identity.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import polars as pl

from pairedframe.checks import require_bool, require_bool_fields
from pairedframe.errors import UnknownMeasureError
from pairedframe.measures.ideal import ideal_ranking
from pairedframe.measures.param_text import (Gains, check_whole, checked_gains, exact_gains, fmt_number, gains_text,
                                             list_key)

Aggregate = Literal["mean", "sum", "gmean", "none"]
CutoffRule = Literal["none", "optional", "required"]
Gain = Literal["linear", "exp"]
RelRule = Literal["level", "optional", "none"]
ParamKind = Literal["float", "int", "floats"]
TrecKind = Literal["single", "long_cutoffs", "double_cutoffs", "params"]
#: The judgments a family reads: qrels (``qid, docno, rel``), qrels with judgment groups (trec_eval
#: ``-R qrels_jg``), preferences (``-R prefs`` / ``qrels_prefs``), or any of them (num_q).
JudgmentsKind = Literal["qrels", "qrels_jg", "prefs", "any"]

DEFAULT_REL_LEVEL = 1

#: trec_eval's floor for the geometric means (gm_map, gm_bpref): MIN_GEO_MEAN in trec_eval.h.
MIN_GEO_MEAN = 0.00001

#: The name parser (:func:`pairedframe.measures.parse.parse_measure`), which registers itself here when
#: it loads, as the families register in :data:`REGISTRY`: it reads this module, so this module cannot
#: import it, and :attr:`Measure.trec_name` parses its trec_eval text back with it.
NAME_PARSER: list[Callable[[str], list[Measure]]] = []

#: The value range of a family that declares none: no bound is known.
UNBOUNDED: tuple[float, float] = (-math.inf, math.inf)
#: The families whose per-query values are shares, probabilities or normalised gains.
UNIT: tuple[float, float] = (0.0, 1.0)


@dataclass(frozen=True)
class Interval:
    """The values a numeric parameter may take: finite numbers from ``low`` to ``high``, each end
    excluded when open (``Interval(0, 1, open_low=True, open_high=True)`` is (0, 1))."""

    low: float = -math.inf
    high: float = math.inf
    open_low: bool = False
    open_high: bool = False

    def __contains__(self, value: float) -> bool:
        v = float(value)
        if not math.isfinite(v):
            return False
        return (v > self.low if self.open_low else v >= self.low) and (v < self.high if self.open_high else v <= self.high)

    def __str__(self) -> str:
        left = "(" if self.open_low or math.isinf(self.low) else "["
        right = ")" if self.open_high or math.isinf(self.high) else "]"
        return f"{left}{self.low:g}, {self.high:g}{right}"


@dataclass(frozen=True)
class Param:
    """A family-specific parameter (beyond cutoff, rel, gain, gains and judged_only).

    ``kind`` is ``"float"``, ``"int"`` or ``"floats"`` (a tuple of floats); ``default`` is its value
    when a name does not set it (and it is then left out of the canonical name). ``domain`` holds
    the values it may take (each value, for ``"floats"``); ``length`` the number of values a
    ``"floats"`` parameter must have (None: any, at least one).
    """

    name: str
    kind: ParamKind
    default: Any
    doc: str = ""
    domain: Interval = Interval()
    length: int | None = None

    def problem(self, value: Any) -> str | None:
        """Why ``value`` (of the right kind) is not allowed, naming the parameter, the value and the
        allowed range; None when it is allowed."""
        what = f"{self.name}={fmt_number(value)}" + (f" ({self.doc})" if self.doc else "")
        values = tuple(value) if self.kind == "floats" else (value,)
        if self.length is not None and len(values) != self.length:
            return f"parameter {what} has {len(values)} values; it takes exactly {self.length}"
        if all(v in self.domain for v in values):
            return None
        each = "each value must be" if self.kind == "floats" else "must be"
        number = "an integer" if self.kind == "int" else "a finite number"
        return f"parameter {what} is out of range: {each} {number} in {self.domain}"


@dataclass(frozen=True)
class TrecForm:
    """One of trec_eval's names for a family and how its ``-m name.params`` text is read.

    kind
        ``"single"``: no parameters (``map``). ``"long_cutoffs"``: integer cutoffs printed
        ``name_%ld`` (``P_10``). ``"double_cutoffs"``: the family's float ``@`` parameter printed
        ``name_%3.2f`` (``iprec_at_recall_0.10``). ``"params"``: trec_eval keeps the parameter text
        and prints ``name_<text>`` (``utility_2,-1,0,0``), ``name`` alone with the defaults.
    order
        Position in trec_eval's measure table (measures.c), which orders its output.
    defaults
        Cutoffs a bare name expands to (``P`` -> P_5 ... P_1000).
    parse
        For ``"params"``: trec_eval's parameter text -> Measure fields (``cutoff``, ``gains``,
        ``params``); raises ValueError on malformed text.
    printable
        For ``"params"``: the text trec_eval would print for a measure built without one.
    bare
        For ``"params"``: the Measure fields of the bare name (trec_eval's defaults, where they
        differ from the family's: ``rbp`` is ``RBP(p=0.9)``).
    """

    name: str
    kind: TrecKind
    order: int
    defaults: tuple = ()
    parse: Callable[[str], dict] | None = None
    printable: Callable[[Measure], str] | None = None
    bare: dict = field(default_factory=dict)


@dataclass(frozen=True)
class PolarsContext:
    """Inputs of a family's polars implementation (all lazy frames).

    ranked : one row per retrieved document that is in the qrels (any grade), at ranks <= depth:
             system, qid, docno, rank (1-based among all retrieved documents, trec_eval order; among
             judged ones with ``judged_only``), rel, gain (float, grade when > 0 else 0; negative
             grades 0), is_rel (rel >= level), is_judged (rel >= 0), is_judged_nonrel
             (0 <= rel < level), num_rel, num_nonrel, rel_cum, nonrel_cum, unjudged_cum (relevant /
             judged non-relevant / negative-grade documents at ranks <= rank), log2_rank1
             (log2(rank + 1) from C's log2, as DuckDB and trec_eval compute it). Sorted by system,
             qid, rank (:func:`~pairedframe.measures.polars_exprs.ordered_sum` relies on it).
    queries : system, qid, num_rel, num_nonrel, num_ret, max_grade: the evaluated query set.
    judgments : qid, rel: the judged documents (grade >= 0) of the evaluated queries.
    gain_maps : gain-map key -> {grade: gain} for the maps of the measures evaluated.
    """

    ranked: pl.LazyFrame
    queries: pl.LazyFrame
    judgments: pl.LazyFrame
    gain_maps: dict[str, dict[int, float]] = field(default_factory=dict)
    _ideal: dict[str, pl.LazyFrame] = field(default_factory=dict)

    def ideal(self, key: str) -> pl.LazyFrame:
        """qid, irank, gain, log2_irank1: the judged documents' positive gains under the gain map
        ``key`` (``''`` the grade, ``'exp'`` 2**grade - 1), sorted descending: the ideal ranking
        (rows sorted by qid, irank)."""
        if key not in self._ideal:
            self._ideal[key] = ideal_ranking(self.judgments, self.gain_maps.get(key), exp=key == "exp")
        return self._ideal[key]


@dataclass(frozen=True)
class Family:
    """Declaration of a measure family. See :func:`family`."""

    key: str
    aliases: tuple[str, ...]
    trec: tuple[TrecForm, ...]
    cutoff: CutoffRule
    aggregate: Aggregate
    rel_rule: RelRule
    uses_gain: bool
    sql_file: str
    empty_value: str
    polars: Callable[[PolarsContext, "Measure"], pl.LazyFrame]
    doc: str
    params: tuple[Param, ...] = ()
    at: str = "cutoff"
    value_kind: Literal["number", "text"] = "number"
    per_query_printed: bool = True
    higher_is_better: bool = True
    max_grade: int | None = None
    examples: tuple[str, ...] = ()
    judgments: JudgmentsKind = "qrels"
    trec_named: bool = False
    ranking_based: bool = True
    value_range: tuple[float, float] = UNBOUNDED
    run_independent: bool = False
    ranks_runs: bool = True
    complete_reset: Literal["all", "bare"] | None = None

    @property
    def uses_rel(self) -> bool:
        return self.rel_rule != "none"

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def trec_name(self) -> str | None:
        """trec_eval's main name of the family (the first form); None for a family trec_eval 10 lacks."""
        return self.trec[0].name if self.trec else None


@dataclass(frozen=True)
class Measure:
    """One measure with its parameters; ``name`` (canonical, ir_measures style) is its identity.

    Attributes
    ----------
    family : str
        Family key, e.g. ``"nDCG"``.
    cutoff : int or None
        Rank cutoff k (``@k``); None for the full ranking.
    rel : int or None
        Minimum grade counted as relevant; None means "the evaluation's ``rel_level``" (for
        families that use one) or graded relevance (RBP).
    gain : {"linear", "exp"}
        Gain of a grade: the grade (trec_eval) or ``2**grade - 1`` (ir_measures ``dcg='exp-log2'``).
    gains : tuple of (grade, gain) pairs, or None
        trec_eval's gain map (``ndcg.1=3,2=9``, ir_measures ``gains={1:3,2:9}``): grades listed get
        these gains, the others their grade; a grade given twice is refused (which gain was meant is unknown).
    judged_only : bool
        Drop documents without a grade >= 0 from the ranking first and rank the rest (trec_eval
        ``-J``, ir_measures ``judged_only=True``): condensed lists.
    judged_only_stated : bool
        The name says ``judged_only=False``, overriding the call's ``judged_only`` (``-J``) as ``rel=``
        overrides its level (ranking-based families only; kept by :meth:`resolved` under ``-J`` only).
    params : tuple of (name, value) pairs
        Family-specific parameters (``p`` of RBP, ``beta`` of SetF, ...), defaults left out.
    trec_label : str, optional
        The trec_eval name to print, when it was read from trec_eval's syntax (it keeps the
        parameter text as typed: ``utility_2,-1,0,0``). Not part of the identity.
    rel_in_name : bool
        Name ``rel`` even when it is the default 1 (set by :meth:`resolved` under another level).
        Not part of the identity.
    """

    family: str
    cutoff: int | None = None
    rel: int | None = None
    gain: Gain = "linear"
    params: tuple[tuple[str, Any], ...] = ()
    gains: Gains | None = None
    judged_only: bool = False
    trec_label: str | None = field(default=None, compare=False, repr=False)
    rel_in_name: bool = field(default=False, compare=False, repr=False)
    judged_only_stated: bool = False

    def __post_init__(self) -> None:
        require_bool_fields(self)
        spec = REGISTRY[self.family]
        for key, low in (("cutoff", 1), ("rel", 0)):
            check_whole(self.family, key, getattr(self, key), low)
        if self.judged_only or not spec.ranking_based:  # judged_only=False then says nothing the default doesn't
            object.__setattr__(self, "judged_only_stated", False)
        kept = []
        for name, value in self.params:
            p = spec.param(name)
            value = tuple(float(v) for v in value) if p.kind == "floats" else (
                float(value) if p.kind == "float" else int(value))
            why = p.problem(value)
            if why is not None:
                raise UnknownMeasureError(f"measure {self.family}: {why}")
            if value != p.default:
                kept.append((name, value))
        object.__setattr__(self, "params", tuple(sorted(kept)))
        if self.gains is not None:
            object.__setattr__(self, "gains", checked_gains(self.family, self.gains))

    @property
    def spec(self) -> Family:
        """The measure family's declaration in the registry (parameters, defaults, trec_eval names)."""
        return REGISTRY[self.family]

    def param(self, name: str) -> Any:
        """The value of a family parameter (its default when the name did not set it)."""
        return dict(self.params).get(name, self.spec.param(name).default)

    @property
    def at(self) -> int | float | None:
        """The ``@`` value: the cutoff, or the family's float ``@`` parameter (IPrec's recall)."""
        spec = self.spec
        if spec.at == "cutoff":
            return self.cutoff
        return self.param(spec.at)

    @property
    def value_range(self) -> tuple[float, float]:
        """``(low, high)``: the values one query's value can take (``-inf`` / ``inf`` where unbounded).

        The family's range, except that a gain map with a negative gain (``nDCG(gains={0:-1})``) can
        push gain-based values below 0 (RBP rescales its gains to [0, 1] and keeps its range); then no
        bound is claimed.
        """
        spec = self.spec
        if spec.uses_gain and self.family != "RBP" and any(g < 0 for _, g in self.gains or ()):
            return UNBOUNDED
        return spec.value_range

    @property
    def gain_key(self) -> str:
        """Identifies the gain of a grade: ``''`` (the grade), ``'exp'``, or the map's text."""
        if self.gains:
            return "map:" + gains_text(self.gains, "=")
        return "exp" if self.gain == "exp" else ""

    @property
    def name(self) -> str:
        """The canonical name (ir_measures style, or trec_eval's spelling when it was given so): the
        ``measure`` column of results."""
        if self._trec_named():
            text = self._trec_text()
            if self._trec_parses_back(text):
                return text
        return self._generic_name()

    def _generic_name(self) -> str:
        spec = self.spec
        parts = []
        if spec.uses_rel and self.rel is not None and (self.rel != DEFAULT_REL_LEVEL or self.rel_in_name):
            parts.append(f"rel={self.rel}")
        if spec.uses_gain and self.gain == "exp":
            parts.append("dcg='exp-log2'")
        if self.gains:
            parts.append("gains={" + gains_text(self.gains) + "}")
        if self.judged_only or self.judged_only_stated:
            parts.append(f"judged_only={bool(self.judged_only)}")
        parts += [f"{k}={fmt_number(v)}" for k, v in self.params if k != spec.at]
        text = self.family + (f"({','.join(parts)})" if parts else "")
        at = self.at
        if spec.at != "cutoff":
            return f"{text}@{fmt_number(at)}"
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")

    def _trec_named(self) -> bool:
        """Whether the canonical name is trec_eval's (families ir_measures lacks), i.e. no ``rel``
        to state and no judged_only."""
        spec = self.spec
        rel_stated = spec.uses_rel and self.rel is not None and (self.rel != DEFAULT_REL_LEVEL or self.rel_in_name)
        return spec.trec_named and not rel_stated and not self.judged_only and not self.judged_only_stated

    def _trec_form(self) -> TrecForm | None:
        forms = self.spec.trec
        if not forms:
            return None
        if self.at is not None:
            for form in forms:
                if form.kind in ("long_cutoffs", "double_cutoffs"):
                    return form
        for form in forms:
            if form.kind in ("single", "params"):
                return form
        return forms[0]

    @cached_property
    def trec_name(self) -> str:
        """trec_eval's name (``ndcg_cut_10``, ``P_5``, ``map``, ``iprec_at_recall_0.10``).

        ``rel`` and ``judged_only`` are trec_eval command-line options (-l, -J), not part of its
        names. A measure trec_eval cannot name (exponential gain, a gain map with a cutoff, RBP@k,
        RR@10, and the families trec_eval 10 lacks: ERR, Judged, FirstRelRank, TopGradeRank) keeps
        its canonical name; :attr:`has_trec_name` tells them apart.
        """
        if self.trec_label is not None:
            return self.trec_label
        text = self._trec_text()
        return text if self._trec_parses_back(text) else self.name

    @property
    def has_trec_name(self) -> bool:
        """Whether trec_eval 10 names it (up to its -l and -J): not ``nDCG(dcg='exp-log2')@10``, not
        ``RR@10`` (trec_eval's recip_rank has no cutoff), not ``ERR@20`` (no such trec_eval measure)."""
        return self.trec_label is not None or self._trec_parses_back(self._trec_text())

    def _trec_parses_back(self, text: str | None) -> bool:
        """Whether trec_eval's ``text`` names this measure (up to rel and judged_only, which are options)."""
        if text is None:
            return False
        plain = Measure(self.family, self.cutoff, None, self.gain, self.params, self.gains)
        try:
            return NAME_PARSER[0](text) == [plain]
        except ValueError:
            return False

    def _trec_text(self) -> str | None:
        form = self._trec_form()
        if form is None:
            return None
        if form.kind == "long_cutoffs" and self.cutoff is not None:
            return f"{form.name}_{self.cutoff}"
        if form.kind == "double_cutoffs":
            return f"{form.name}_{self.at:3.2f}"
        if form.kind == "params" and form.printable is not None:
            text = form.printable(self)
            return f"{form.name}_{text}" if text else form.name
        return form.name

    @property
    def trec_sort_key(self) -> tuple[int, float]:
        """Position in trec_eval's output: its measure table order, then the cutoff (families trec_eval
        lacks last: they are never printed in its format, only sorted beside measures that are)."""
        at = self.at
        form = self._trec_form()
        return (form.order if form is not None else sys.maxsize, float(at) if at is not None else 0.0)

    def resolved(self, rel_level: int, judged_only: bool = False) -> "Measure":
        """This measure with ``rel`` filled from the call's level when the name did not set it, and
        judged-only when the call asks for it (trec_eval ``-J``; not for families whose value does
        not depend on the ranking, such as num_q, num_rel and the preference measures).

        Under a level other than the default 1 the name always states the level used, ``rel=1``
        included (``P(rel=1)@10`` under ``-l 2``), so that a plain ``P@10`` never means two things.
        Likewise a name's ``judged_only=False`` overrides a judged-only call, and under such a call the
        name states it (``nDCG(judged_only=False)@10`` beside ``nDCG(judged_only=True)@10``)."""
        rule = self.spec.rel_rule
        rel = None if rule == "none" else self.rel if (self.rel is not None or rule == "optional") else rel_level
        call_judged = require_bool(judged_only, "judged_only") and self.spec.ranking_based
        judged = self.judged_only or (call_judged and not self.judged_only_stated)
        return Measure(self.family, self.cutoff, rel, self.gain, self.params, self.gains, judged, self.trec_label,
                       rel_in_name=rel_level != DEFAULT_REL_LEVEL, judged_only_stated=call_judged and not judged)

    def sql_values(self) -> dict[str, Any]:
        """Values bound to the SQL's ``$parameters``: ``k`` (cutoff), ``gain_map`` (see
        :attr:`gain_key`) and each family parameter (a tuple as the key of its rows in ``pf_lists``)."""
        values: dict[str, Any] = {"k": self.cutoff, "gain_map": self.gain_key, "rel": self.rel,
                                  "exact_gains": exact_gains(self.gains)}
        for p in self.spec.params:
            value = self.param(p.name)
            values[p.name] = list_key(value) if p.kind == "floats" else value
        return values

    def __str__(self) -> str:
        return self.name


REGISTRY: dict[str, Family] = {}


def family(*, key: str, trec: tuple[TrecForm, ...] | TrecForm, sql_file: str, cutoff: CutoffRule,
           empty_value: str, aliases: tuple[str, ...] = (), aggregate: Aggregate = "mean",
           rel: RelRule = "level", uses_gain: bool = False, params: tuple[Param, ...] = (), at: str = "cutoff",
           value_kind: Literal["number", "text"] = "number", per_query_printed: bool = True,
           higher_is_better: bool = True, max_grade: int | None = None,
           examples: tuple[str, ...] = (), judgments: JudgmentsKind = "qrels", trec_named: bool = False,
           ranking_based: bool = True, value_range: tuple[float, float] = UNBOUNDED,
           run_independent: bool = False, ranks_runs: bool = True, complete_reset: Literal["all", "bare"] | None = None
           ) -> Callable:
    """Register a measure family; decorates its polars implementation.

    The decorated function takes a :class:`PolarsContext` and a resolved :class:`Measure` and
    returns a lazy frame ``system, qid, value`` (``text`` for string-valued families) with one
    row per evaluated query. Its docstring is the family's documentation (formula, value for an
    empty ranking, the trec_eval source file it follows). ``examples`` are names the tests
    evaluate besides the generic cutoff/rel/gain combinations (parameters worth checking).
    ``trec``: trec_eval 10's names of the family (its ``m_*.c`` files); ``()`` for a family trec_eval
    lacks (ERR, Judged@k), which trec format then refuses instead of printing an invented name.
    ``judgments``: the judgments it reads (see :data:`JudgmentsKind`); its implementation then takes
    that kind's context. ``trec_named``: its canonical name is trec_eval's (a family ir_measures
    lacks). ``ranking_based``: trec_eval's ``-J`` changes its value.
    ``value_range`` is ``(low, high)``, the values one query's value can take with non-negative gains
    (:attr:`Measure.value_range`; ``tests/test_measures_properties.py`` checks it against the reference
    implementations); intervals of means and deltas stay inside it.  ``run_independent``: its value
    depends on the judgments only (NumQ, NumRel), so two runs on the same queries never differ in it
    and comparisons leave it out.  ``ranks_runs``: a better run has a larger (or, with
    ``higher_is_better=False``, smaller) value; False for what describes the run's output rather than
    how well it ranks: a count of what it returned (NumRet, NumNonRelJudgedRet) or how much of it is
    judged (Judged, Unjudged, RBPResid).
    ``complete_reset``: which of its measures trec_eval ``-c`` resets by name on a judged query a run lacks:
    ``"all"``, or ``"bare"`` (the one named exactly the family's trec_eval name; ``evaluation.judgments``).
    """
    forms = (trec,) if isinstance(trec, TrecForm) else tuple(trec)

    def register(fn: Callable[[PolarsContext, Measure], pl.LazyFrame]) -> Callable:
        if key in REGISTRY:
            raise RuntimeError(f"measure family {key!r} registered twice")
        if at != "cutoff" and not any(p.name == at and p.kind == "float" for p in params):
            raise RuntimeError(f"{key}: the @ parameter {at!r} must be a float parameter")
        REGISTRY[key] = Family(
            key=key, aliases=aliases, trec=forms, cutoff=cutoff, aggregate=aggregate, rel_rule=rel,
            uses_gain=uses_gain, sql_file=sql_file, empty_value=empty_value, polars=fn, doc=fn.__doc__ or "",
            params=params, at=at, value_kind=value_kind, per_query_printed=per_query_printed,
            higher_is_better=higher_is_better, max_grade=max_grade, examples=examples, judgments=judgments,
            trec_named=trec_named, ranking_based=ranking_based,
            value_range=(float(value_range[0]), float(value_range[1])), run_independent=run_independent,
            ranks_runs=ranks_runs, complete_reset=complete_reset)
        return fn

    return register
