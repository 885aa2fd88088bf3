"""Agreement of two system rankings (e.g. under NIST and LLM judgments), with approximate intervals.

The systems are ordered by their mean of one measure under each of two evaluations ``a``
(the reference, e.g. NIST qrels) and ``b`` (e.g. an LLM's qrels).  Kendall's tau_b and Spearman's
rho get exact permutation p-values for up to 8 systems, scipy's above
(:func:`pairedframe.stats.rank_agreement.rank_correlation_tests`); tau_AP, its symmetric form and the RBO of the
two orderings from :mod:`pairedframe.stats.rank_agreement`.  Every coefficient gets an interval over
*queries*: by default the delete-one-query jackknife t interval, or a percentile bootstrap whose
resample index is drawn from the keyed stream :func:`pairedframe.compare` uses for that query set
(:func:`~pairedframe.comparison.resample_generators`).  Both are approximate: a rank coefficient of
sample means is biased toward disagreement (near-tied systems swap at random), more than any
resampling of the sample can see, so no interval of either kind reaches its nominal coverage on
every real data set (docs/guide/agreement.md; ``benchmarks/calibration --section agreement``).
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from pairedframe.errors import OLD_LEVEL_AND_SEED, renamed_attribute, renamed_keywords
from pairedframe.comparison._cost import check_resampling_cost
from pairedframe.comparison.judgment_set_rows import judgment_set_names
from pairedframe.comparison.one_slice import one_slice
from pairedframe.comparison.options import check_rank_options
from pairedframe.comparison.pairing import as_frame, by_system
from pairedframe.comparison.rank_intervals import (APPROXIMATE, coefficient_intervals, note_tied_rankings,
                                                   tied_sides, warn_no_spread)
from pairedframe.checks import sample
from pairedframe.errors import (InsufficientSampleError, PartlyEmptyWarning, SchemaError, SmallSampleWarning,
                                user_stacklevel)
from pairedframe.measures import higher_is_better, parse_measure
from pairedframe.measures.base import MIN_GEO_MEAN
from pairedframe.measures.parse import aggregate_of, ranks_runs
from pairedframe.stats.results import ConfidenceInterval
from pairedframe.stats.rank_agreement import (COEFFICIENTS, TIE_DIGITS, rank_correlation_tests, rbo_orderings_many,
                                              tau_ap_many, tie_rounded)
from pairedframe.stats.rbo import rbo

__all__ = ["Coefficient", "RankAgreement", "ORDERING_TIE_RULE", "RANK_INTERVALS", "rank_agreement"]

ORDERING_TIE_RULE = ("systems ordered best first: by mean descending, ascending where lower is better "
                     f"(FirstRelRank); means equal to {TIE_DIGITS} significant digits of the largest |mean| tie "
                     "(float sums leave means equal in exact arithmetic an ulp apart); tau_b, rho and tau_AP "
                     "treat tied means as ties, RBO is its mean over the ways of ordering tied means")
#: The interval methods of :func:`rank_agreement` and how each is computed.
RANK_INTERVALS = {
    "jackknife": "approximate: coefficient +- t(n_queries - 1) x the delete-one-query jackknife standard error, "
                 "clipped to the coefficient's range; NaN when no query changes the coefficient (standard error 0)",
    "percentile": "approximate: percentile bootstrap over queries (one shared resample index)",
}
@dataclass(frozen=True)
class Coefficient:
    """One agreement coefficient, scipy style.

    Attributes
    ----------
    statistic : float
        The coefficient on all queries.
    pvalue : float
        Two-sided p-value of "no association" (tau_b, rho); NaN for tau_AP and RBO.  Exact permutation
        p-value (all ``k!`` orderings of the systems, ``scipy.stats.permutation_test``) for up to
        :data:`~pairedframe.stats.rank_agreement.EXACT_MAX_ITEMS` (8) systems, so 1 for 2 systems
        and at least 1/3 for 3; scipy's ``kendalltau`` / ``spearmanr`` p-value above. Two-sided as
        scipy's: twice the smaller tail, at most 1. With tied means the null distribution is not
        symmetric and this is conservative beside counting orderings with ``|statistic|`` at least as
        large (5 systems in one order with one tie: 1/30, not 1/60).
    confidence_interval : ConfidenceInterval
        Approximate interval over queries (``low``, ``high``; see :func:`rank_agreement`'s Notes).
    note : str
        ``"approximate"``, or a longer note when the interval does not contain ``statistic``
        (possible only with ``interval="percentile"``) or is NaN because the coefficient is the same
        without any one query (``interval="jackknife"``) or in every resample (``"percentile"``): no
        spread seen, which is no certainty.
    """

    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    note: str = APPROXIMATE


@dataclass(frozen=True)
class RankAgreement:
    """Result of :func:`rank_agreement`.

    Attributes
    ----------
    kendall_tau_b, spearman_rho, tau_ap, tau_ap_symmetric, rbo : Coefficient
        ``tau_ap`` weighs the top of ``b``'s ordering against ``a`` as reference (Yilmaz et al.), with
        ``b``'s ties as Urbano & Marrero's ``tauAP_a`` (expected over random tie-breakings: a tie ``a``
        breaks costs half a swap); ``tau_ap_symmetric`` is their ``tauAP_b``; ``rbo`` is ``rbo_ext``
        of the orderings (:mod:`pairedframe.stats.rank_agreement`).
    means : polars.DataFrame
        ``system, mean_a, mean_b, rank_a, rank_b``: one row per system, best under ``a`` first
        (``mean_a`` descending, ascending for measures where lower is better such as FirstRelRank;
        ranks 1 = best; tied means share the lowest rank, see Notes).  Over the same queries, the means
        are the evaluation summary's bit for bit.
    swapped : polars.DataFrame
        ``system_x, system_y, mean_A_x, mean_A_y, mean_B_x, mean_B_y``, where ``A`` and ``B`` are the
        ``names`` (the judgment sets, ``mean_nist_x``; ``a`` and ``b`` for two tables, ``mean_a_x``): one row
        per pair that ``a`` orders ``x`` above ``y`` and ``b`` orders ``y`` above ``x`` (strictly in both);
        sorted by ``a``'s order of ``x`` then ``y``.
    n_queries, n_systems : int
    measure : str
    names : tuple of str
        Labels of ``a`` and ``b``.
    settings : dict
        ``interval`` (its description), ``method`` (``"jackknife"`` or ``"percentile"``),
        ``confidence_level``, ``rbo_p``, ``query_set``, ``tie_rule``; with ``"percentile"`` also
        ``n_resamples`` and ``seed``.
    """

    kendall_tau_b: Coefficient
    spearman_rho: Coefficient
    tau_ap: Coefficient
    tau_ap_symmetric: Coefficient
    rbo: Coefficient
    means: pl.DataFrame = field(repr=False)
    swapped: pl.DataFrame = field(repr=False)
    n_queries: int
    n_systems: int
    measure: str
    names: tuple[str, str]
    settings: dict[str, Any] = field(repr=False)

    @property
    def n_swapped(self) -> int:
        """Pairs of systems ordered one way by ``a`` and the other way by ``b``."""
        return self.swapped.height

    def to_frame(self) -> pl.DataFrame:
        """Renamed: an answer's rows are ``.table`` (one rule for every result object)."""
        raise AttributeError(renamed_attribute("RankAgreement.to_frame()", "RankAgreement.table"))

    @property
    def table(self) -> pl.DataFrame:
        """``coefficient, statistic, ci_low, ci_high, pvalue, note``: one row per coefficient; ``note``
        says the interval is approximate (and when it excludes the statistic)."""
        rows = [(name, c.statistic, c.confidence_interval.low, c.confidence_interval.high, c.pvalue, c.note)
                for name in COEFFICIENTS for c in [getattr(self, name)]]
        return pl.DataFrame(rows, schema={"coefficient": pl.String, "statistic": pl.Float64, "ci_low": pl.Float64,
                                          "ci_high": pl.Float64, "pvalue": pl.Float64, "note": pl.String},
                            orient="row")


def _per_query(obj: Any, what: str) -> pl.DataFrame:
    """``obj`` read as one ordering's per-query table (:func:`~pairedframe.comparison.one_slice.one_slice`):
    two judgment sets or datasets would be mixed."""
    return one_slice(obj, what, reason="rank agreement compares one ordering with another",
                     instead="or give judgment sets with judgments=(reference, other)")


def _resolve_inputs(a: Any, b: Any, judgments: Any) -> tuple[pl.DataFrame, pl.DataFrame, tuple[str, str]]:
    check = getattr(a, "check_names", None)
    if callable(check):                               # a JudgmentSetsEvaluation
        if b is not None:
            raise TypeError("with judgment sets as `a`, name the two sets with judgments=(reference, other), not `b`")
        names = list(judgments) if judgments is not None else a.names
        if len(names) != 2 or len(set(names)) != 2:  # one set against itself agrees perfectly: no question asked
            raise ValueError(f"`judgments` must name two different judgment sets (reference, other); the sets are "
                             f"{a.names}, got {judgments!r}")
        ref, other = check(names, "judgments")
        from pairedframe.evaluation.judgment_sets import split_judgment_sets  # lazy: evaluation loads the engines
        fa, fb = split_judgment_sets(a.per_query, [ref, other])
        return fa, fb, (ref, other)
    if b is None:
        return _judgment_sets_table(a, judgments)
    if judgments is not None:
        raise TypeError("`judgments` applies only when `a` is the result of evaluate_judgment_sets")
    return _per_query(a, "a"), _per_query(b, "b"), ("a", "b")


def _judgment_sets_table(a: Any, judgments: Any) -> tuple[pl.DataFrame, pl.DataFrame, tuple[str, str]]:
    """``a`` alone: a per-query table (or path) with a ``judgments`` column, as evaluate_judgment_sets'
    ``per_query``, split into the (reference, other) sets ``judgments`` names (default: its two sets)."""
    if isinstance(a, bytes) or a is None:
        raise TypeError(f"`a` must be an Evaluation, a per-query table or judgment sets; got {type(a).__name__}")
    try:
        frame = as_frame(a)
    except (SchemaError, InsufficientSampleError, TypeError) as exc:
        raise type(exc)(f"`a`: {exc}") from exc
    if "judgments" not in frame.columns:
        raise TypeError("rank_agreement needs two evaluations `a` and `b`; or, as `a` alone, judgment sets: an "
                        "evaluate_judgment_sets result or a per-query table with a `judgments` column (the "
                        "two sets to compare named with judgments=(reference, other))")
    present = judgment_set_names(frame)
    names = [str(n) for n in judgments] if judgments is not None and not isinstance(judgments, str) else present
    if len(names) != 2 or len(set(names)) != 2 or any(n not in present for n in names):
        raise ValueError(f"`judgments` must name two judgment sets (reference, other) of the table's judgments "
                         f"column; the sets are {present}, got {judgments!r}")
    from pairedframe.evaluation.judgment_sets import split_judgment_sets  # lazy: evaluation loads the engines
    sets = split_judgment_sets(frame, names)
    return _per_query(sets[0], "a"), _per_query(sets[1], "a"), (names[0], names[1])


def _measure_name(measure: str, *frames: pl.DataFrame) -> str:
    present = set(frames[0]["measure"].unique().to_list())
    for f in frames[1:]:
        present &= set(f["measure"].unique().to_list())
    if measure in present:
        return measure
    try:
        candidates = [m.name for m in parse_measure(measure)]
    except ValueError:
        candidates = []
    for name in candidates:
        if name in present:
            return name
    raise ValueError(f"measure {measure!r} is not in both evaluations; measures present in both: {sorted(present)}")


def _matrix(frame: pl.DataFrame, measure: str, systems: list[str], qids: list[str]) -> np.ndarray:
    wide, key = by_system(frame.filter(pl.col("measure") == measure))
    wide = pl.DataFrame({key: qids}).join(wide, on=key, how="left")
    values = wide.select(systems).to_numpy().astype(np.float64)
    if aggregate_of(measure) == "gmean":     # GMAP: systems ranked by the geometric mean, i.e. the mean log
        values = np.vectorize(math.log, otypes=[np.float64])(np.maximum(values, MIN_GEO_MEAN))  # C's log, as summary()
    return values


def _summary_means(values: np.ndarray) -> np.ndarray:
    """Column means as :meth:`Evaluation.summary` computes them (trec_eval's way): added one by one in query
    order (the rows are in qid order), then divided; numpy's pairwise sum can differ in the last bit."""
    return np.cumsum(values, axis=0)[-1] / values.shape[0]


def _common(a: pl.DataFrame, b: pl.DataFrame, measure: str, systems: list[str] | None, names: tuple[str, str]
            ) -> tuple[list[str], list[str]]:
    """The systems to rank and the queries both evaluations measure for every one of them (sorted),
    warning about what is left out on either side."""
    fa = a.filter((pl.col("measure") == measure) & pl.col("value").is_not_null())
    fb = b.filter((pl.col("measure") == measure) & pl.col("value").is_not_null())
    sys_a = fa["system"].unique(maintain_order=True).to_list()
    sys_b = set(fb["system"].unique().to_list())
    if systems is None:
        chosen = [s for s in sys_a if s in sys_b]
        dropped = sorted((set(sys_a) | sys_b) - set(chosen))
        if dropped:
            warnings.warn(f"{len(dropped)} system(s) are in only one of the evaluations and are left out: {dropped[:5]}",
                          UserWarning, stacklevel=user_stacklevel())
    else:
        chosen = list(dict.fromkeys(systems))
        unknown = [s for s in chosen if s not in sys_b or s not in sys_a]
        if unknown:          # a name the data lacks: too few systems to rank, an InsufficientSampleError
            raise InsufficientSampleError(f"system(s) {unknown} not measured in both evaluations (measure "
                                          f"{measure!r}: {len(sys_a)} system(s) under {names[0]!r}, {len(sys_b)} under "
                                          f"{names[1]!r})")
    if len(chosen) < 2:
        raise InsufficientSampleError(f"rank agreement needs at least 2 systems in both evaluations, got {chosen}")
    chosen = sorted(chosen)                          # the RBO tie rule: equal means ordered by name

    def queries(frame: pl.DataFrame) -> tuple[set[str], set[str]]:
        """(queries with a value for some chosen system, queries with a value for every one)."""
        counts = (frame.filter(pl.col("system").is_in(chosen)).select("system", "qid").unique()
                  .group_by("qid").agg(pl.len().alias("n")))
        return set(counts["qid"].to_list()), set(counts.filter(pl.col("n") == len(chosen))["qid"].to_list())

    (any_a, full_a), (any_b, full_b) = queries(fa), queries(fb)
    qids = sorted(full_a & full_b)
    only_a, only_b = sorted(any_a - any_b), sorted(any_b - any_a)
    partial = sorted((any_a & any_b) - set(qids))    # both cover it, but some system has no value on a side
    if len(qids) < 2:
        sides = "; ".join(f"{name!r}: {len(full)}" + (f" ({sample(sorted(full), 3)})" if full else "")
                          for name, full in zip(names, (full_a, full_b)))
        raise InsufficientSampleError(
            f"rank agreement needs at least 2 queries measured for every system under both {names[0]!r} and "
            f"{names[1]!r}; they have {len(qids)} in common ({sides})"
            + ("" if any_a & any_b else ": are they of the same collection and year?"))
    if only_a or only_b or partial:
        parts = [f"{names[1]!r} lacks {len(only_a)} of the {len(any_a)} queries of {names[0]!r}"
                 + (f" ({sample(only_a, 3)})" if only_a else ""),
                 f"{names[0]!r} lacks {len(only_b)} of the {len(any_b)} of {names[1]!r}"
                 + (f" ({sample(only_b, 3)})" if only_b else "")]
        if partial:
            parts.append(f"{len(partial)} more queries lack a value for some system ({sample(partial, 3)})")
        warnings.warn(f"the evaluations cover different queries: {'; '.join(parts)}; the agreement is over the "
                      f"{len(qids)} queries both measure for every system", PartlyEmptyWarning,
                      stacklevel=user_stacklevel())
    return chosen, qids


def _rbo_of_means(oa: np.ndarray, ob: np.ndarray, order_a: list[str], order_b: list[str], p: float) -> float:
    """RBO of the two orderings of the systems; where means tie, its mean over the ways of breaking the
    ties (:func:`~pairedframe.stats.rank_agreement.rbo_orderings_many`: never the systems' names)."""
    if len(np.unique(oa)) == oa.size and len(np.unique(ob)) == ob.size:
        return float(rbo(order_a, order_b, p=p).rbo_ext)
    return float(rbo_orderings_many(oa[None, :], ob[None, :], p=p)[0])


def _swaps(chosen: list[str], ma: np.ndarray, mb: np.ndarray, oa: np.ndarray, ob: np.ndarray,
           order_a: list[str], names: tuple[str, str]) -> pl.DataFrame:
    """The swapped pairs; their means are named after the two sides (``mean_nist_x``, or ``mean_a_x`` for
    two tables ``a`` and ``b``), so a table of judgment sets says which set each mean is under."""
    a, b = names
    position = {s: i for i, s in enumerate(order_a)}
    swapped = [(x, y, ma[i], ma[j], mb[i], mb[j])
               for (i, x), (j, y) in itertools.permutations(enumerate(chosen), 2)
               if oa[i] > oa[j] and ob[i] < ob[j]]
    swapped.sort(key=lambda r: (position[r[0]], position[r[1]]))
    return pl.DataFrame(swapped, orient="row", schema={
        "system_x": pl.String, "system_y": pl.String, f"mean_{a}_x": pl.Float64, f"mean_{a}_y": pl.Float64,
        f"mean_{b}_x": pl.Float64, f"mean_{b}_y": pl.Float64})


@renamed_keywords(**OLD_LEVEL_AND_SEED)
def rank_agreement(a: Any, b: Any = None, *, measure: str, judgments: Any = None, systems: Any = None,
                   interval: str = "jackknife", n_resamples: int = 10_000, confidence_level: float = 0.95,
                   seed: int = 0, rbo_p: float = 0.9) -> RankAgreement:
    """How well two evaluations agree on the ranking of systems by one measure.

    Parameters
    ----------
    a, b : Evaluation, per-query table or path
        ``system, qid, measure, value`` (e.g. the same runs under NIST and under LLM qrels); ``a``
        is the reference ranking for tau_AP.  Or ``a`` a
        :class:`~pairedframe.evaluation.JudgmentSetsEvaluation`, or a per-query table (or path)
        with a ``judgments`` column (as its ``per_query``), and ``b`` omitted.
        A path (or list of paths) is read with :func:`pairedframe.read_results`.
    measure : str
        Measure name as in the ``measure`` column (``"nDCG@10"``; trec_eval names are resolved).
    judgments : (str, str), optional
        With judgment sets as ``a``: the (reference, other) set names; default the two sets when
        there are exactly two (in a table: in order of appearance); two different sets (one set against itself is
        refused: it agrees perfectly whatever it holds).
    systems : sequence of str, optional
        Systems to rank (default: every system measured in both).
    interval : {"jackknife", "percentile"}, default "jackknife"
        How the (approximate) intervals are computed: the delete-one-query jackknife t interval, or
        the percentile bootstrap over queries.  See Notes for their coverage.
    n_resamples : int, default 10_000
        Bootstrap resamples of the queries (``>= 2``); used by ``interval="percentile"`` only (an absurd
        value is refused either way).
    confidence_level : float in (0, 1), default 0.95
    seed : int, default 0
        Keys the bootstrap's resample stream together with the query set (as
        :func:`pairedframe.compare`); used by ``interval="percentile"`` only.
    rbo_p : float in (0, 1), default 0.9
        RBO persistence.

    Returns
    -------
    RankAgreement
        ``kendall_tau_b``, ``spearman_rho``, ``tau_ap``, ``tau_ap_symmetric``, ``rbo`` (each with
        ``statistic``, ``pvalue``, ``confidence_interval``, ``note``), ``means``, ``swapped`` pairs,
        ``n_queries``, ``n_systems``, ``settings``; ``table`` has one row per coefficient.
        Coefficients lie in [-1, 1] (RBO in [0, 1]); NaN when a ranking is constant (``tau_ap``: when
        ``a``'s is; a constant ``b`` gives 0).

    Raises
    ------
    ResamplingCostError
        ``n_resamples`` would take absurd time or memory for this data with ``interval="percentile"``,
        estimated before any resampling (:mod:`pairedframe.comparison._cost`; the message gives the
        largest value that fits); checked whichever interval is asked for.
    InsufficientSampleError
        Fewer than 2 common systems, or fewer than 2 queries both evaluations measure for every system
        (the message gives each side's query count and examples).
    ValueError
        Unknown measure, systems or judgment-set names, or one set named twice; bad options.
    TypeError
        Wrong combination of ``a``, ``b`` and ``judgments``.

    Warns
    -----
    PartlyEmptyWarning
        The evaluations cover different queries (or some system lacks a value on a shared query):
        how many queries each side lacks, with examples; the result is over the common ones.
    UserWarning
        Systems measured in only one evaluation are left out (without ``systems``).
    SmallSampleWarning
        Fewer than 3 systems; or (``interval="jackknife"``) a coefficient is the same without any one
        query, e.g. every leave-one-out tau_b is 1 with a few well separated systems: a jackknife
        standard error of 0 is no spread seen, not certainty, so that interval is NaN, never a point
        (its ``note`` says so), as for :func:`pairedframe.label_agreement`'s kappas.

    Notes
    -----
    The agreement is over the queries both evaluations measure for every system: two judgment sets
    that cover different queries (NIST and an LLM's qrels, say) are compared on the queries they
    share, and a :class:`~pairedframe.errors.PartlyEmptyWarning` names how many of each side's queries
    the other lacks (and how many shared queries lack a value for some system).

    Tie rule: each mean is computed as :meth:`~pairedframe.evaluation.Evaluation.summary` does (the values
    added one by one in query order), and the means are compared to 12 significant digits of the
    largest ``|mean|`` (:func:`~pairedframe.stats.rank_agreement.tie_rounded`), in the point estimate,
    the jackknife and the bootstrap alike.  Float sums leave means equal in exact arithmetic an ulp
    apart (the same values in another query order, or ``0.1 + 0.2`` beside ``0.15 + 0.15``); compared
    as they are, such a tie would be split by rounding noise into a concordant or discordant pair
    and, in ``swapped``, a false swap.  Tied means are ties for tau_b and rho (as scipy's), for
    tau_AP (Urbano & Marrero's form), and RBO is its mean over the ways of ordering them
    (:data:`ORDERING_TIE_RULE`).

    The intervals are approximate, and labelled so (``note``).  A coefficient of the system means
    over a sample of queries is biased toward disagreement: systems whose means are close swap at
    random in a sample while the whole query set orders them alike in both evaluations.  The bias
    depends on how many pairs are nearly tied *in the population*, which resampling the sample
    cannot see (the bootstrap is inconsistent near ties; Hall & Miller 2009), so no resampling
    interval reaches 95 % everywhere.  The jackknife interval (``coefficient +- t(n - 1) x`` the
    delete-one-query jackknife standard error, clipped to the range) always contains the
    coefficient (or is NaN when no query changes it) and is the most robust one measured; the percentile bootstrap sits below its
    coefficient (nearly all its misses have the truth above) and can exclude it, which its ``note``
    then says.  Coverage of the whole-set coefficient by 95 % intervals from samples of 20 and 30
    queries drawn from DL-2019 (20 runs, NIST vs 7 LLM label sets, nDCG@10), DL-2021 (63 runs,
    nDCG@10 vs AP orderings) and a near-tie design, 18 cells x 5 coefficients
    (``benchmarks/calibration --section agreement``; docs/guide/agreement.md): jackknife median
    0.973, range 0.744-1.000 (on the real data tau_b and rho 0.95-1.00, tau_AP 0.86-0.99, RBO
    0.74-0.96), 1.5 times the percentile interval's width; percentile median 0.717, range
    0.000-1.000.

    References
    ----------
    Kendall (1945); Yilmaz, Aslam & Robertson (2008), SIGIR; Urbano & Marrero (2017), ICTIR;
    Webber, Moffat & Zobel (2010), TOIS; Voorhees (2000), IP&M (tau between qrels); Hall & Miller
    (2009), Using the bootstrap to quantify the authority of an empirical ranking, Ann. Statist.
    37(6B); Efron & Tibshirani (1993), ch. 11 (jackknife).
    """
    opt = check_rank_options(interval=interval, n_resamples=n_resamples, confidence_level=confidence_level,
                             seed=seed, rbo_p=rbo_p)
    fa, fb, names = _resolve_inputs(a, b, judgments)
    name = _measure_name(measure, fa, fb)
    if not ranks_runs(name):
        raise ValueError(f"`measure`: {name} ranks no run (a count of the judgments or of what a run returned, or how "
                         "much of it is judged): the orderings of systems by it say nothing about which is better, "
                         "so their agreement measures nothing; pass a measure of the rankings")
    chosen, qids = _common(fa, fb, name, systems, names)
    A, B = _matrix(fa, name, chosen, qids), _matrix(fb, name, chosen, qids)
    ma, mb = _summary_means(A), _summary_means(B)
    # the tie rule: means compared to TIE_DIGITS significant digits, so exact ties are not split by rounding
    ta, tb = tie_rounded(ma)[0], tie_rounded(mb)[0]
    k, n = len(chosen), len(qids)
    # Orderings run best first: the top-weighted tau_AP and RBO, ranks and swaps see negated means
    # for measures where lower is better (FirstRelRank).  tau_b and rho are unchanged by the sign.
    higher = higher_is_better(name)
    sign = 1.0 if higher else -1.0
    oa, ob = sign * ta, sign * tb
    if k < 3:
        warnings.warn(f"only {k} systems are ranked: tau_b and rho can only be +1 or -1 (whether the two "
                      "evaluations order the pair alike), their exact p-value is 1 and their intervals are NaN "
                      "or uninformative; rank agreement needs at least 3 systems to show anything",
                      SmallSampleWarning, stacklevel=user_stacklevel())
    tests = rank_correlation_tests(ta, tb)           # exact permutation p-values up to EXACT_MAX_ITEMS systems
    order_a = [chosen[i] for i in np.argsort(-oa, kind="stable")]
    order_b = [chosen[i] for i in np.argsort(-ob, kind="stable")]
    point = {
        "kendall_tau_b": tests["kendall_tau_b"], "spearman_rho": tests["spearman_rho"],
        "tau_ap": (float(tau_ap_many(oa, ob)[0]), float("nan")),
        "tau_ap_symmetric": (float(tau_ap_many(oa, ob, symmetric=True)[0]), float("nan")),
        "rbo": (_rbo_of_means(oa, ob, order_a, order_b, rbo_p), float("nan")),
    }
    # the percentile path: means and their signed copies per resample, then five coefficients from k x k pair
    # comparisons; an absurd n_resamples is refused whichever interval is asked for
    check_resampling_cost(n_resamples, argument="n_resamples", draws=n_resamples, units=[n, k * k],
                          columns=[2 * k, 5], kept=4 * k + 5)
    intervals = coefficient_intervals(A, B, {key: stat for key, (stat, _) in point.items()}, method=interval,
                                      higher=higher, rbo_p=rbo_p, confidence_level=opt.confidence_level,
                                      n_resamples=opt.n_resamples, seed=opt.seed, qids=qids)
    warn_no_spread(intervals, n, name, names, tied_sides(names, (ta, tb)))
    intervals = note_tied_rankings(intervals, {key: stat for key, (stat, _) in point.items()}, (ta, tb), name, names)
    coefficients = {key: Coefficient(statistic=stat, pvalue=p, confidence_interval=intervals[key][0],
                                     note=intervals[key][1])
                    for key, (stat, p) in point.items()}

    rank = lambda m: pl.Series(m).rank("min", descending=True).cast(pl.Int64)  # noqa: E731
    if aggregate_of(name) == "gmean":        # report trec_eval's value, the geometric mean
        ma, mb = (np.vectorize(math.exp, otypes=[np.float64])(m) for m in (ma, mb))  # C's exp, as summary()
    table = pl.DataFrame({"system": chosen, "mean_a": ma, "mean_b": mb}).with_columns(
        rank(oa).alias("rank_a"), rank(ob).alias("rank_b"), pl.Series("_o", oa))
    settings = {"method": interval, "interval": RANK_INTERVALS[interval], "confidence_level": opt.confidence_level,
                "rbo_p": rbo_p, "query_set": "queries measured for every system under both evaluations",
                "tie_rule": ORDERING_TIE_RULE}
    if interval == "percentile":
        settings.update(n_resamples=opt.n_resamples, seed=opt.seed)
    best_first = table.sort("_o", "system", descending=[True, False])
    return RankAgreement(**coefficients, means=best_first.drop("_o"),
                         swapped=_swaps(chosen, ma, mb, oa, ob, order_a, names), n_queries=n, n_systems=k, measure=name,
                         names=names, settings=settings)
