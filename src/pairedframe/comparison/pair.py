"""One paired comparison of two arrays: :func:`compare_pair` and its result :class:`PairedComparison`.

The same statistics as one row of :func:`pairedframe.compare`, under the same ``resampling`` option: the numpy
core of :mod:`~pairedframe.comparison.kernels` (above :data:`~pairedframe.comparison.large_n.LARGE_N` non-zero
deltas under ``resampling="auto"``, the one-pass statistics of :mod:`~pairedframe.comparison.large_n`), the
intervals kept in range, the verdict and its note.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl

from pairedframe.checks import require_bool_fields, scalar_ids
from pairedframe.comparison._validate import MAX_ABS_VALUE, warn_values_outside_ranges
from pairedframe.comparison.assemble import decide, noise_free_delta
from pairedframe.comparison.interval_range import QUANTILE_INTERVALS, finish_paired_intervals
from pairedframe.comparison.kernels import analyse_block
from pairedframe.comparison.comparison_stats import ComparisonStats
from pairedframe.comparison.large_n import row_methods, row_resamples, row_statistics
from pairedframe.comparison.options import Options, check_cost, check_options
from pairedframe.comparison.pairing import DELTA_TOLERANCE
from pairedframe.comparison.verdicts import tie_floors, warn_many_ties, warn_skewed
from pairedframe.errors import (OLD_LEVEL_AND_SEED, USE_CORRECTION, InsufficientSampleError, SmallSampleWarning,
                                renamed_keywords, user_stacklevel)
from pairedframe.measures import higher_is_better, parse_measure
from pairedframe.stats.results import ConfidenceInterval
from pairedframe.stats.power import MIN_QUERIES

__all__ = ["PairedComparison", "compare_pair"]


@dataclass(frozen=True)
class PairedComparison:
    """Result of :func:`compare_pair`, with scipy's field names.

    Attributes
    ----------
    statistic : float
        Mean delta ``mean(b - a)``.
    pvalue : float
        Of the chosen test (randomization: in ``[1/(n_resamples+1), 1]`` unless exact).
    confidence_interval : ConfidenceInterval
        ``.low`` / ``.high`` of the mean delta.
    standard_error : float
        ``sd/sqrt(n)`` (bootstrap standard error for the percentile and BCa intervals).
    n : int
        Paired observations.
    wins, losses, ties : int
        Queries where ``b`` improves on ``a``, is worse, or equals it: ``b > a``, ``b < a``, ``b == a``, or
        ``b < a``, ``b > a`` for a ``measure`` where lower is better (ranks such as FirstRelRank), as
        :func:`pairedframe.compare` counts them.
    sd, mde : float
        Standard deviation of the deltas (ddof=1) and the paired t-test's minimum detectable effect
        (also for the sign-flip test, which it approximates).
    verdict : str
        One of :data:`VERDICTS` (on the raw p-value: a single comparison is its own family).
    test, interval, alternative : str
    confidence_level : float
    n_resamples : int or None
        Resamples drawn; the sign patterns enumerated when nothing was drawn at random but the test or the
        sign-flip interval enumerated them (``2**n``, or ``2**k`` of the non-zero deltas); None: neither.
    exact : bool
    seed : int
    skewness : float
        Adjusted sample skewness of the deltas (NaN below 3 queries or at zero spread).
    verdict_note : str or None
        Why the verdict is what it is, where it could be misread (as :func:`compare`).
    method : str
        What produced the p-value and interval, as :func:`compare`'s ``method`` column
        (:data:`~pairedframe.comparison.large_n.METHODS`: ``"resampling"``, ``"exact"``, ``"analytic"`` or ``"one-pass"``).
    """

    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    n: int
    wins: int
    losses: int
    ties: int
    sd: float
    mde: float
    verdict: str
    test: str
    interval: str
    alternative: str
    confidence_level: float
    n_resamples: int | None
    exact: bool
    seed: int
    skewness: float = math.nan
    verdict_note: str | None = None
    method: str = "resampling"

    def __post_init__(self) -> None:
        require_bool_fields(self)   # a bool field given "false" or 0 names the field


def _both_series(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are both pandas Series (or alike), read by their index and ``reindex``."""
    return all(hasattr(x, "index") and hasattr(x, "reindex") for x in (a, b))   # a list's .index is a method


def _aligned_series(a: Any, b: Any) -> tuple[Any, Any]:
    """Two pandas Series keyed by query, ``b`` in the order of ``a``'s index (numpy would pair them by
    position: the same queries in another order gave a wrong delta without a word); other inputs as given.

    Raises ValueError when the indexes hold other labels or repeat one."""
    if not _both_series(a, b):
        return a, b
    for name, series in (("a", a), ("b", b)):
        scalar_ids(list(series.index), f"{name}.index")   # a float label (1.0 is not the id '1'), None, a bool
        _refuse_repeated_label(name, series.index)
    if a.index.equals(b.index):
        return a, b
    only_a, only_b = a.index.difference(b.index), b.index.difference(a.index)
    if len(only_a) or len(only_b):
        example = f"query {only_a[0]!r} only in `a`" if len(only_a) else f"query {only_b[0]!r} only in `b`"
        raise ValueError(f"`a` and `b` are pandas Series whose indexes hold different queries ({example}; "
                         f"{len(only_a)} {'query' if len(only_a) == 1 else 'queries'} only in `a`, {len(only_b)} "
                         "only in `b`): keep the queries both have, "
                         "e.g. a, b = a.align(b, join='inner')")
    return a, b.reindex(a.index)


def _refuse_repeated_label(name: str, index: Any) -> None:
    """Raise ValueError naming argument ``name`` and the first label of its Series' ``index`` (or of ``qids``)
    that repeats one before it as a query id (a string: 1 and "1" are one query; floats, None and bools were
    refused before): which of its values pairs with which of the other Series' would be a guess (positions,
    silently, until now)."""
    seen: dict[str, int] = {}
    labels = list(index)  # as iteration gives them (Python ints), not index[i] (numpy scalars): one repr for both
    for position, label in enumerate(labels):
        first = seen.setdefault(str(label), position)
        if first != position:
            alike = "" if repr(labels[first]) == repr(label) else f" (read as the query id of {labels[first]!r})"
            if name == "qids":
                raise ValueError(f"`qids` repeats an id, {label!r}{alike} at positions {first} and {position}: "
                                 "give each query once")
            raise ValueError(f"`{name}` is a pandas Series whose index repeats a label, {label!r}{alike} at positions "
                             f"{first} and {position}: its values cannot be paired by query; give each query once "
                             f"as the index, or pass `a.to_numpy()` and `b.to_numpy()` in one order (with `qids`) "
                             "to pair them by position")


def _index_qids(a: Any, b: Any) -> list[str] | None:
    """The query ids of two aligned pandas Series (their shared index, as strings, unique: _aligned_series
    refused repeats), or None for other inputs. Ids as :func:`pairedframe.compare` reads them: a float label
    (1.0 is not the id '1') or None is refused."""
    if not _both_series(a, b):
        return None
    return [str(q) for q in a.index]   # checked by _aligned_series


def _given_qids(qids: Sequence[Any] | None, index_qids: list[str] | None) -> list[str] | None:
    """``qids`` as strings (one-dimensional, no None, float or bool, none repeated: as compare reads a qid
    column), or the Series' index ids; both given, they must agree."""
    if qids is None:
        return index_qids
    if isinstance(qids, (str, bytes)) or np.ndim(qids) != 1:
        raise ValueError(f"`qids` must be a one-dimensional sequence of query ids, got {type(qids).__name__} "
                         f"of {np.ndim(qids)} dimension(s)")
    given = qids.tolist() if hasattr(qids, "tolist") else list(qids)   # numpy scalars as Python's, for messages
    ids = scalar_ids(given, "qids")
    _refuse_repeated_label("qids", given)
    if index_qids is not None and ids != index_qids:
        first = next(i for i, (x, y) in enumerate(zip(ids, index_qids)) if x != y)
        raise ValueError(f"`qids` differs from the index of the pandas Series `a` and `b` (position {first}: "
                         f"{ids[first]!r} against {index_qids[first]!r}): the index already names the queries; give "
                         "one or the other")
    return ids


@renamed_keywords(verdict_on=USE_CORRECTION, **OLD_LEVEL_AND_SEED)
def compare_pair(a: Any, b: Any, *, qids: Sequence[Any] | None = None, n_resamples: int = 10_000,
                 confidence_level: float = 0.95,
                 alternative: Literal["two-sided", "greater", "less"] = "two-sided",
                 test: Literal["randomization", "t"] = "randomization", seed: int = 0,
                 chunk_size: int | None = None,
                 interval: Literal["signflip", "percentile", "bca", "t", "studentized"] | None = None,
                 power: float = 0.8, measure: str | None = None,
                 resampling: Literal["auto", "fixed"] = "auto") -> PairedComparison:
    """Compare two paired samples ``a`` (baseline) and ``b``, scipy style.

    Parameters
    ----------
    a, b : array_like, shape (n,)
        Per-query values of the baseline and the system, aligned; finite, ``n >= 2``. Two pandas
        Series are aligned by their indexes (the query ids), which must hold the same unique labels (a
        repeated label is refused: which values pair would be a guess).
    qids : sequence, optional
        Query ids of the positions.  They key the resample streams exactly as :func:`compare`, so with the
        same ids, seed and ``resampling`` the result equals the matching row of :func:`compare`.  Without
        them, two pandas Series use their (aligned) index as the ids, so the result equals
        :func:`compare`'s on the same queries and does not depend on the order of the rows; other inputs
        use the positions (``"0", "1", ...``): the resamples
        then follow the order of the pairs, so the same pairs in another order give another Monte-Carlo
        p-value and resampled interval (within Monte-Carlo error; nothing drawn at random changes: the
        t-test, the t interval, one-pass results, enumerated sign flips).  Give ``qids`` for a
        result that does not depend on the order.  Ids are read as :func:`compare` reads a qid column:
        strings or integers (``7`` is ``"7"``), never None, a float or a bool, each once; given with two
        Series they must be the Series' index.
    n_resamples, confidence_level, alternative, test, seed, chunk_size, interval, power
        As :func:`compare`.
    measure : str, optional
        The measure's name (``"nDCG@10"``): its value range from the registry keeps the interval inside
        the range of a mean delta (``[-1, 1]`` for measures in [0, 1]) and bounds the default interval of
        deltas without spread, as :func:`compare` does, orients the verdict (a lower rank, e.g.
        ``FirstRelRank``, is better: a positive delta is "worse"), and values outside that range warn as
        in :func:`compare`.  None: no range, higher is better -- as for a name the registry does not know,
        which warns (a misspelling, ``"nDCG@1O"``, would silently lose the range; pass None for a measure
        of one's own).
    resampling : {"auto", "fixed"}, default "auto"
        As :func:`compare`: ``"auto"`` computes a comparison of more than 10,000 non-zero deltas
        (of effective number at least 1,000) in one pass from their moments, ``"fixed"`` resamples at every
        size.  ``"adaptive"`` certifies a family's decisions: use :func:`compare`.

    Returns
    -------
    PairedComparison
        ``statistic`` (mean of ``b - a``), ``pvalue``, ``confidence_interval.low/high``,
        ``standard_error``, counts, ``sd``, ``mde`` and ``verdict``.

    Raises
    ------
    ResamplingCostError
        ``n_resamples`` would take absurd time or memory for this data, estimated before any
        resampling (:mod:`pairedframe.comparison._cost`; the message gives the largest value that fits).
    InsufficientSampleError
        If ``n < 2``.
    ValueError
        On shape mismatch, non-finite values, repeated or multi-dimensional qids, qids that differ from the
        Series' index, pandas Series indexed by other queries or by an index that repeats a label (1 and "1"
        too; naming the argument and the label), or bad options.
    SchemaError
        A qid (or a Series' index label) that is None, a float or a bool (a ValueError too).

    Warns
    -----
    SmallSampleWarning
        If ``n < MIN_QUERIES``.
    SkewWarning, TiedQueriesWarning, ValueRangeWarning
        As :func:`compare`.
    UserWarning
        ``measure`` names no pairedframe measure (the message suggests close names).
    """
    if resampling == "adaptive":
        raise ValueError("compare_pair takes resampling='auto' or 'fixed': 'adaptive' certifies the decisions of a "
                         "family of comparisons; use pf.compare")
    opt = check_options(n_resamples, confidence_level, alternative, test, interval, seed, chunk_size, power,
                        resampling)
    if measure is not None and not isinstance(measure, str):
        raise TypeError(f"`measure` must be a measure name (str) or None, got {measure!r}")
    _warn_unknown_measure(measure)
    a, b = _aligned_series(a, b)
    qids = _given_qids(qids, _index_qids(a, b))   # Series: their queries key the resamples, not the row order
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"`a` and `b` must be 1-D of the same length, got shapes {a.shape} and {b.shape}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("`a` and `b` must be finite")
    if max(np.abs(a).max(initial=0.0), np.abs(b).max(initial=0.0)) > MAX_ABS_VALUE:
        raise ValueError(f"`a` and `b` must be at most {MAX_ABS_VALUE:.0e} in magnitude (the statistics raise them to "
                         "powers up to 4): rescale them")
    n = a.shape[0]
    if n < 2:
        raise InsufficientSampleError(f"a paired comparison needs at least 2 queries, got {n}")
    if qids is not None and len(qids) != n:
        raise ValueError(f"`qids` must hold one id per query: {n} values, got {len(qids)} ids")
    ids = [str(i) for i in range(n)] if qids is None else qids
    small = (f"only {n} paired queries, fewer than {MIN_QUERIES}, the fewest for trusted paired statistics; see "
             "mde and pairedframe.stats.power.required_queries") if n < MIN_QUERIES else None
    if small and opt.interval not in QUANTILE_INTERVALS:     # else said with the percentile / BCa warning
        warnings.warn(small, SmallSampleWarning, stacklevel=user_stacklevel())
    if measure is not None:
        warn_values_outside_ranges(pl.DataFrame({"system": ["a"] * n + ["b"] * n, "qid": ids * 2,
                                                 "measure": measure, "value": np.concatenate([a, b])}),
                                   what="compare_pair")
    order = sorted(range(n), key=lambda i: ids[i])
    raw = b - a
    noise = np.abs(raw) <= DELTA_TOLERANCE * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    d = np.where(noise, 0.0, raw)[order]
    res, one_pass = _statistics(d, [ids[i] for i in order], opt)
    p = float(res.pvalue[0])
    one = np.ones(1, dtype=np.int64)
    all_zero = np.array([bool(np.all(d == 0))])
    se_t = np.array([0.0 if res.zero_spread[0] else float(res.sd[0]) / math.sqrt(n)])
    ci_low, ci_high, interval_notes = finish_paired_intervals(
        measures=[measure or ""], delta=res.delta, ci_low=res.ci_low, ci_high=res.ci_high, se=se_t,
        n=np.array([float(n)]), flat=np.asarray(res.zero_spread, dtype=bool), interval=opt.interval,
        confidence_level=opt.confidence_level, alternative=opt.alternative, n_resamples=opt.n_resamples,
        means=(np.array([a.mean()]), np.array([b.mean()])), one_pass=one_pass,
        small_sample=small if opt.interval in QUANTILE_INTERVALS else None)
    nonzero = np.array([int(np.count_nonzero(d))])     # a tie flips to itself: it bounds the sign-flip p
    method, interval = row_methods(opt, np.array([n]), one_pass=one_pass, flat=res.zero_spread, nonzero=~all_zero,
                                   exact=res.exact)
    res = res.replace(ci_low=ci_low, ci_high=ci_high, floor=tie_floors(res.floor, nonzero, opt.test, opt.alternative),
                      delta=noise_free_delta(res.delta, np.array([n]), np.array([np.abs(d).max()])))  # as compare
    delta = float(res.delta[0])
    mde, verdicts, notes = decide(res.delta, se_t, np.array([n]), res.pvalue, res.pvalue, one, all_zero,
                                   res, opt, "pvalue", interval_notes=interval_notes, measures=[measure],
                                   nonzero=nonzero, intervals=interval.tolist())
    in_use = dict(interval=interval.tolist(), confidence_level=opt.confidence_level)
    warn_skewed(res.skewness, np.array([n]), ["this comparison"], asked=opt.interval, **in_use)
    warn_many_ties(np.array([int(np.sum(d == 0))]), np.array([n]), ["this comparison"], **in_use)
    direction = 1 if measure is None or higher_is_better(measure) else -1   # a win is an improvement, as in compare
    return PairedComparison(statistic=delta, pvalue=p,
        confidence_interval=ConfidenceInterval(float(res.ci_low[0]), float(res.ci_high[0])),
        standard_error=float(res.se[0]), n=n, wins=int(np.sum(direction * d > 0)),
        losses=int(np.sum(direction * d < 0)),
        ties=int(np.sum(d == 0)), sd=float(res.sd[0]), mde=float(mde[0]), verdict=verdicts[0],
        test=opt.test, interval=str(interval[0]), alternative=opt.alternative,
        confidence_level=opt.confidence_level, n_resamples=row_resamples(opt, method, np.array([n]), nonzero)[0],
        exact=bool(res.exact[0]), seed=opt.seed, skewness=float(res.skewness[0]), verdict_note=notes[0],
        method=str(method[0]))


def _statistics(d: np.ndarray, ids: list[str], opt: Options) -> tuple[ComparisonStats, np.ndarray]:
    """The comparison's statistics from its deltas ``d`` (in the order of ``ids``) as :func:`compare` computes
    them -- in one pass above ``LARGE_N`` non-zero deltas under ``resampling="auto"``, else resampled -- and
    whether they were computed in one pass (shape ``(1,)``)."""
    ties = int(np.count_nonzero(d == 0))
    rows = pl.DataFrame({"_row": [0], "n_queries": [d.shape[0]], "ties": [ties]})
    stats, large = row_statistics(pl.DataFrame({"_row": np.zeros(d.shape[0], dtype=np.int64), "delta": d}),
                                  rows, opt)
    if large.size:
        return stats, np.array([True])
    check_cost(opt, [(d.shape[0], 1)])
    return analyse_block(d[:, None], ids, opt), np.array([False])


def _warn_unknown_measure(measure: str | None) -> None:
    """Warn when ``measure`` names no pairedframe measure: it would silently bring no range and no orientation."""
    if measure is None:
        return
    try:
        with warnings.catch_warnings():     # the parser's notes on a known name belong to evaluate
            warnings.simplefilter("ignore")
            parse_measure(measure)
    except ValueError as err:
        warnings.warn(f"`measure` {measure!r} is no pairedframe measure ({err}): the comparison has no value range "
                      "and takes higher values as better; pass measure=None for a measure of your own",
                      UserWarning, stacklevel=user_stacklevel())
