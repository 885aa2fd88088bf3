"""A leaderboard with confidence sets for the ranks: which places each system may hold, given the queries.

The systems are ranked by their mean of one measure over the queries every one of them has; each
gets the set of ranks ``{rank_low, ..., rank_high}`` of Mogstad, Romano, Shaikh & Wilhelm (2024)
(:mod:`pairedframe.stats.rank_sets`), from a bootstrap over queries drawn from the keyed stream
:func:`pairedframe.compare` uses for that query set. By default the sets hold every system's true
rank jointly; ``simultaneous=False`` gives each system's set on its own.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from pairedframe.checks import require_bool, require_names, sample
from pairedframe.comparison._cost import check_resampling_cost
from pairedframe.comparison.one_slice import one_slice
from pairedframe.comparison.options import check_resampling
from pairedframe.comparison.pairing import by_system
from pairedframe.comparison.reserved import cluster_key_message
from pairedframe.comparison.streams import resample_generators
from pairedframe.errors import InsufficientSampleError, PartlyEmptyWarning, SmallSampleWarning, user_stacklevel
from pairedframe.measures import NICKNAMES, higher_is_better, parse_measure
from pairedframe.measures.base import MIN_GEO_MEAN
from pairedframe.measures.parse import aggregate_of, ranks_runs
from pairedframe.stats.rank_sets import rank_sets
from pairedframe.stats.resample import bootstrap_index_chunks
from pairedframe.stats.results import ConfidenceInterval
from pairedframe.stats.studentized import MIN_BOOTSTRAP_N

__all__ = ["Leaderboard", "leaderboard", "SMALL_N"]

#: Below this many queries the sets' coverage was not measured at its level (docs/guide/leaderboard.md).
SMALL_N = 20
TIE_RULE = ("rank = 1 + the number of systems with a higher mean (lower where lower is better); means equal to "
            "12 significant digits of the largest |mean| tie and share the better rank; a pair whose means tie "
            "or whose per-query differences have no spread is never ordered")


@dataclass(frozen=True)
class Leaderboard:
    """Result of :func:`leaderboard`.

    Attributes
    ----------
    statistic : ndarray of int64
        Point ranks, in the order of ``table`` (best first).
    confidence_interval : ConfidenceInterval
        ``low``, ``high``: the rank sets' ends (int64 arrays, ``table``'s order).
    table : polars.DataFrame
        ``system, mean, rank, rank_low, rank_high``: one row per system, best first (ties by name).
    n_queries, n_systems : int
    measure : str
    critical_value : float or ndarray
        The first step's bootstrap quantile ``c`` (one value when ``simultaneous``, one per system in
        ``table``'s order otherwise; the later steps' are at most this); ``inf`` when ``n_resamples`` is too
        few for the level.
    settings : dict
        ``simultaneous``, ``confidence_level``, ``n_resamples``, ``seed``, ``method``, ``query_set``,
        ``tie_rule``.
    """

    statistic: np.ndarray = field(repr=False)
    confidence_interval: ConfidenceInterval = field(repr=False)
    table: pl.DataFrame
    n_queries: int
    n_systems: int
    measure: str
    critical_value: Any
    settings: dict[str, Any] = field(repr=False)

    @property
    def best(self) -> list[str]:
        """The systems that may rank first (``rank_low == 1``): a confidence set for the best system."""
        return self.table.filter(pl.col("rank_low") == 1)["system"].to_list()


def _per_query(obj: Any) -> pl.DataFrame:
    """``obj`` read as one slice; a system of null values only is kept, to be named, not lost."""
    return one_slice(obj, "per_query", reason="a leaderboard ranks one set of systems",
                     instead="one leaderboard per {column}", keep_nulls=True,
                     cluster=cluster_key_message("a leaderboard", "leaderboard", "to rank the systems over all queries "
                                                 "(its rank sets resample queries, not clusters)"))


def _measure(frame: pl.DataFrame, measure: str | None) -> str:
    present = frame["measure"].unique(maintain_order=True).to_list()
    if measure is None:
        if len(present) > 1:
            raise ValueError(f"`measure` is required: the table holds {len(present)} measures ({sample(present)})")
        name = present[0]
    else:
        refuse_several_measures(measure, "`measure`", "measure={!r}")   # official was read as its first, NumQ
        name = next((m for m in _spellings(measure) if m in present), measure)   # map: AP, as compare
        name = require_names(name, present, what="measure", parameter="measure", source="the per-query table")[0]
    if not ranks_runs(name):
        raise ValueError(f"`measure`: {name} ranks no run (a count of the judgments or of what a run returned): "
                         "a leaderboard by it says nothing about which system is better")
    return name


def refuse_several_measures(measure: str, argument: str, spelled: str) -> None:
    """ValueError when ``measure`` names several measures (a set such as official, ``P.5,10``, a bare ``P``): a
    leaderboard ranks by exactly one. ``argument`` names the argument (`measure`, -m) and ``spelled`` formats the
    example of one measure (``measure={!r}``, ``-m {}``)."""
    names = _spellings(measure)[1:]
    if len(names) > 1:
        kind = "a set of " if measure in NICKNAMES else ""
        example = next((n for n in names if ranks_runs(n) and aggregate_of(n) == "mean"), names[0])
        raise ValueError(f"{argument} {measure!r} names {kind}{len(names)} measures ({sample(names)}), but a leaderboard "
                         f"ranks by exactly one: give one, e.g. {spelled.format(example)}")


def _spellings(measure: str) -> list[str]:
    """``measure`` and the name pairedframe gives it (``map`` -> ``AP``, ``ndcg_cut_10`` -> ``nDCG@10``)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [measure, *(m.name for m in parse_measure(measure))]
    except ValueError:
        return [measure]


def _systems(frame: pl.DataFrame, systems: Any, measure: str) -> list[str]:
    """The systems to rank, sorted; a system with no value of ``measure`` (only nulls) is refused when named in
    ``systems``, else left out with a warning."""
    present = frame["system"].unique(maintain_order=True).to_list()
    chosen = require_names(systems, present, what="system", parameter="systems", source="the per-query table")
    valued = set(frame.filter(pl.col("value").is_not_null())["system"].unique().to_list())
    empty = [s for s in chosen if s not in valued]
    if empty and systems is not None:
        raise InsufficientSampleError(f"`systems`: {sample(empty)} have no value of {measure} (every value is null)")
    if empty:
        warnings.warn(f"system(s) {sample(empty)} have no value of {measure} (every value is null) and are left out",
                      PartlyEmptyWarning, stacklevel=user_stacklevel())
    chosen = sorted(s for s in chosen if s in valued)
    if len(chosen) < 2:
        raise InsufficientSampleError(f"a leaderboard needs at least 2 systems, got {chosen}")
    return chosen


def _common_queries(frame: pl.DataFrame, systems: list[str]) -> list[str]:
    """The queries every system has a value for (sorted), warning about the others."""
    counts = frame.group_by("qid").agg(pl.col("system").n_unique().alias("n"))
    qids = sorted(counts.filter(pl.col("n") == len(systems))["qid"].to_list())
    partial = sorted(counts.filter(pl.col("n") < len(systems))["qid"].to_list())
    if len(qids) < 2:
        raise InsufficientSampleError(f"a leaderboard needs at least 2 queries measured for every system; "
                                      f"{len(qids)} of {counts.height} are")
    if partial:
        warnings.warn(f"{len(partial)} of {counts.height} queries lack a value for some system ({sample(partial, 3)}); "
                      f"the leaderboard is over the {len(qids)} queries every system has", PartlyEmptyWarning,
                      stacklevel=user_stacklevel())
    return qids


def _values(frame: pl.DataFrame, systems: list[str], qids: list[str], measure: str) -> np.ndarray:
    wide, key = by_system(frame)
    values = pl.DataFrame({key: qids}).join(wide, on=key, how="left").select(systems).to_numpy().astype(np.float64)
    if aggregate_of(measure) == "gmean":     # GMAP ranks by the geometric mean: the mean log, as summary()
        values = np.vectorize(math.log, otypes=[np.float64])(np.maximum(values, MIN_GEO_MEAN))
    return values


def leaderboard(per_query: Any, *, measure: str | None = None, systems: Any = None, confidence_level: float = 0.95,
                simultaneous: bool = True, n_resamples: int = 10_000, seed: int = 0) -> Leaderboard:
    """Rank systems by one measure, with a confidence set for each system's rank.

    Parameters
    ----------
    per_query : Evaluation, per-query table or path
        ``system, qid, measure, value`` (any table form :func:`pairedframe.compare` reads; a path is read
        with :func:`pairedframe.read_results`); one slice (one ``dataset`` / ``judgments``).
    measure : str, optional
        The measure to rank by (trec_eval's names too: ``map`` is ``AP``); required when the table holds
        several.
    systems : sequence of str, optional
        Systems to rank (default: all; at least 2).
    confidence_level : float in (0, 1), default 0.95
    simultaneous : bool, default True
        Sets that hold every system's true rank at once with probability ``confidence_level`` (True),
        or each system's on its own (False: narrower; for a claim about one system).
    n_resamples : int, default 10_000
        Bootstrap resamples of the queries.
    seed : int, default 0
        Keys the resample stream together with the query set (as :func:`pairedframe.compare`).

    Returns
    -------
    Leaderboard
        ``table`` (``system, mean, rank, rank_low, rank_high``, best first), ``best`` (the systems that
        may rank first), ``statistic`` / ``confidence_interval`` (ranks and set ends as arrays),
        ``critical_value``, ``n_queries``, ``n_systems``, ``settings``. Ranks are 1 = best; the mean
        is over the leaderboard's queries (the geometric mean for GMAP): trec_eval's when every system
        has every query.

    Raises
    ------
    InsufficientSampleError
        Fewer than 2 systems, fewer than 2 queries measured for every system, or a system named in
        ``systems`` with no value (only nulls).
    EmptyResultError
        ``measure`` or ``systems`` names nothing in the table.
    ValueError
        ``measure`` missing with several measures, or naming several (``official``, ``P.5,10``), or a measure
        that ranks no run; a ``cluster`` column (as compare refuses one); bad options.
    ResamplingCostError
        ``n_resamples`` would take absurd time or memory for this data.

    Warns
    -----
    PartlyEmptyWarning
        Some queries lack a value for some system: the leaderboard is over the others; a system with no
        value at all (only nulls) is left out.
    SmallSampleWarning
        Fewer than :data:`SMALL_N` (20) queries: coverage was not measured there; below 5 the bootstrap
        cannot order ranks, so no pair is ordered and every set is ``1..n_systems``.
    UserWarning
        ``n_resamples`` too few for ``confidence_level`` (the quantile is past the largest resample): every
        set is then ``1..n_systems``.

    Notes
    -----
    For every pair of systems the difference of their means is divided by its paired standard error
    (``sd`` of the per-query differences over ``sqrt(n)``, floored at a tenth of the unpaired one
    ``sqrt((sd_a^2 + sd_b^2) / n)``, which binds only for near-identical systems); ``c`` is the
    ``confidence_level`` quantile of the largest such statistic over bootstrap resamples of the queries,
    each centred at the sample's difference and studentized by the same rule on its own values (Hall's
    bootstrap-t: floored at half the sample's SE instead, as compare's interval, ten exactly tied systems
    were all covered well short of the level), over every pair or, with ``simultaneous=False``, the
    system's own pairs. A system is below another with confidence when their difference exceeds ``c``
    standard errors. Step-down (Romano & Wolf 2005; Mogstad et al.'s stepwise sets): ``c`` is then drawn
    again over the pairs not yet ordered, on the same resamples, until no new pair is ordered. ``rank_low`` is 1 plus the systems
    confidently above it, ``rank_high`` the number of systems minus those confidently below. Tie rule:
    :data:`TIE_RULE`. Coverage on real data, tied systems included: docs/guide/leaderboard.md
    (``benchmarks/calibration --section rank_sets``).

    References
    ----------
    Mogstad, Romano, Shaikh & Wilhelm (2024), Inference for ranks with applications to mobility across
    neighbourhoods and academic achievement across countries, Review of Economic Studies 91(1); Romano &
    Wolf (2005), Exact and approximate stepdown methods for multiple hypothesis testing, JASA 100(469).
    """
    opt = check_resampling(n_resamples, confidence_level, "two-sided", seed)
    simultaneous = require_bool(simultaneous, "simultaneous")
    frame = _per_query(per_query)
    name = _measure(frame, measure)
    frame = frame.filter(pl.col("measure") == name)
    chosen = _systems(frame, systems, name)
    frame = frame.filter(pl.col("system").is_in(chosen) & pl.col("value").is_not_null())
    qids = _common_queries(frame, chosen)
    n, p = len(qids), len(chosen)
    if n < MIN_BOOTSTRAP_N:
        warnings.warn(f"only {n} queries: with fewer than {MIN_BOOTSTRAP_N} the bootstrap cannot tell ranks apart, "
                      f"so no pair is ordered and every set is 1..{p}", SmallSampleWarning, stacklevel=user_stacklevel())
    elif n < SMALL_N:
        warnings.warn(f"only {n} queries: the rank sets' coverage was measured from {SMALL_N} queries up "
                      "(docs/guide/leaderboard.md)", SmallSampleWarning, stacklevel=user_stacklevel())
    check_resampling_cost(n_resamples, argument="n_resamples", draws=opt.n_resamples, units=[n, p * p],
                          columns=[p, 1], kept=p if simultaneous else 2 * p)
    values = _values(frame, chosen, qids, name)
    sign = 1.0 if higher_is_better(name) else -1.0

    def resamples():  # the same resamples at each step of the step-down: compare's stream for this query set
        return bootstrap_index_chunks(n, opt.n_resamples, seed=resample_generators(opt.seed, qids)[0])

    out = rank_sets(sign * values, resamples, n_resamples=opt.n_resamples, confidence_level=opt.confidence_level,
                    simultaneous=simultaneous, order=n >= MIN_BOOTSTRAP_N)
    if n >= MIN_BOOTSTRAP_N and np.isposinf(out.critical_value).any():
        warnings.warn(f"n_resamples={opt.n_resamples} is too few for confidence_level={opt.confidence_level}: the "
                      f"quantile would be past the largest resample, so every set is 1..{p}; use at least "
                      f"{math.ceil(opt.confidence_level / (1 - opt.confidence_level)) + 1} resamples", UserWarning,
                      stacklevel=user_stacklevel())
    means = np.cumsum(values, axis=0)[-1] / n          # trec_eval's summary: added in query order
    if aggregate_of(name) == "gmean":
        means = np.vectorize(math.exp, otypes=[np.float64])(means)
    low, high = out.confidence_interval
    table = (pl.DataFrame({"system": chosen, "mean": means, "rank": out.statistic, "rank_low": low,
                           "rank_high": high, "_c": out.critical_value})
             .sort("rank", "system"))
    critical = table["_c"].to_numpy()
    settings = {"simultaneous": simultaneous, "confidence_level": opt.confidence_level,
                "n_resamples": opt.n_resamples, "seed": opt.seed, "query_set": "queries measured for every system",
                "method": "Mogstad et al. (2024) rank sets: step-down bootstrap max |t| over "
                          + ("all pairs" if simultaneous else "each system's pairs"),
                "tie_rule": TIE_RULE}
    table = table.drop("_c")
    return Leaderboard(statistic=table["rank"].to_numpy(),
                       confidence_interval=ConfidenceInterval(table["rank_low"].to_numpy(),
                                                              table["rank_high"].to_numpy()),
                       table=table, n_queries=n, n_systems=p, measure=name,
                       critical_value=float(critical[0]) if simultaneous else critical, settings=settings)
