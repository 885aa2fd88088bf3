"""Intervals kept inside the measure's range, and the default interval's two special cases.

Shared by :func:`pairedframe.compare` (in memory and in an engine: both finish in
:func:`pairedframe.comparison.assemble.finish_table`), :func:`pairedframe.compare_clustered`,
:func:`pairedframe.compare_segments`, :func:`pairedframe.ppi_compare` and :func:`pairedframe.results_table`.

- Ranges come from the measure registry (:attr:`pairedframe.measures.Measure.value_range`): a mean of
  a measure in ``[lo, hi]`` lies in ``[lo, hi]``, a mean delta in ``[lo - hi, hi - lo]`` (``[-1, 1]``
  for measures in ``[0, 1]``).  Interval ends beyond it, infinite ones included, are clipped to it
  (:func:`pairedframe.stats.value_range.clip_to_range`: coverage unchanged); only the open side of a
  one-sided interval stays infinite (scipy's ``[low, inf)``).  Names the registry does not know get no
  range and no clipping.
- Every interval of deltas without spread (the default, t, sign-flip, percentile, BCa) is the
  range-based interval of :func:`pairedframe.stats.value_range.constant_sample_interval`: n equal
  deltas make neither a point certain (t's zero width, the sign-flip inversion from n = 6) nor
  nothing at all (the whole line below that n).
- Where the bootstrap-t quantile reached its cap (:data:`pairedframe.stats.studentized.MAX_QUANTILE_RATIO`
  times Student's; rare once resample SEs are floored), a note says that a few queries dominate.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from pairedframe.errors import SmallSampleWarning, user_stacklevel

from pairedframe.measures.parse import value_range
from pairedframe.stats.signflip_interval import least_resamples, too_few_resamples
from pairedframe.stats.studentized import (MAX_QUANTILE_RATIO, MIN_BOOTSTRAP_N, MIN_ONE_SIDED_BOOTSTRAP_N, quantile_cap,
                                           student_only)
from pairedframe.stats.value_range import clip_to_range, constant_sample_interval
from pairedframe.stats.levels import decision_alpha

__all__ = ["mean_ranges", "delta_ranges", "clip_means", "clip_deltas", "clip_delta_intervals",
           "finish_paired_intervals", "QUANTILE_INTERVALS", "zero_spread_deltas", "capped_at_too_few", "too_few_capped_text",
           "PERCENTILE_MIN_N", "warn_percentile_small_n"]

#: The intervals that are quantiles of resampled means, which under-cover on few queries.
QUANTILE_INTERVALS = ("percentile", "bca")
#: Queries below which ``interval="percentile"`` / ``"bca"`` fall short of their level in the calibration
#: (docs/results/calibration_paired.md: nominal 95 % covers 0.894-0.923 at n = 20, 0.929-0.943 at 50).
PERCENTILE_MIN_N = 50


def mean_ranges(measures: Sequence[str], estimate=None) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) per row: the range of one query's value of each row's measure (``-inf, inf`` if unknown,
    or if the row's ``estimate`` lies outside it: see :func:`_unless_outside`)."""
    names, inverse = np.unique(np.asarray([str(m) for m in measures], dtype=object), return_inverse=True)
    ranges = np.array([value_range(m) for m in names], dtype=np.float64).reshape(-1, 2)[inverse.reshape(-1)]
    return _unless_outside(ranges[:, 0], ranges[:, 1], estimate, measures, "mean")


def delta_ranges(measures: Sequence[str], estimate=None, *, means: Sequence = (),
                 warn: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) per row of a mean delta ``b - a``: ``[lo - hi, hi - lo]`` of the measure's range (none
    where the row's ``estimate``, or one of its ``means`` -- each an array of one mean per row, e.g. the
    baseline's and the system's -- lies outside it: a delta of 0.2 between means of 82 and 82.2 is on
    another scale too). ``warn=False``: a caller that already warned about those rows stays silent."""
    lo, hi = mean_ranges(measures)
    if len(means):
        lo, hi = _unless_outside(lo, hi, np.column_stack([np.asarray(m, dtype=np.float64) for m in means]),
                                 measures, "mean", warn=warn)
    with np.errstate(invalid="ignore"):
        width = hi - lo
    return _unless_outside(-width, width, estimate, measures, "mean delta", warn=warn)


def _unless_outside(lo: np.ndarray, hi: np.ndarray, estimate, measures: Sequence[str],
                    what: str, *, warn: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """No range for rows whose estimate lies outside it (values on another scale, e.g. nDCG x 100, or a
    measure named as pairedframe names another): clipping would make intervals that exclude their own
    estimate. Warns once (unless ``warn`` is False), naming the measure and the value."""
    if estimate is None:
        return lo, hi
    est = np.asarray(estimate, dtype=np.float64)
    est = est.reshape(est.shape[0], -1)           # one column per estimate of the row
    low, high = lo[:, None], hi[:, None]
    beyond = np.isfinite(est) & ((est < low - 1e-9 * np.abs(low)) | (est > high + 1e-9 * np.abs(high)))
    outside = beyond.any(axis=1)
    if not outside.any():
        return lo, hi
    if warn:
        i = int(np.flatnonzero(outside)[0])
        value = est[i, int(np.flatnonzero(beyond[i])[0])]
        warnings.warn(f"a {what} of {measures[i]} is {value:.6g}, outside that measure's range [{lo[i]:g}, "
                      f"{hi[i]:g}] ({int(outside.sum())} row(s)): are the values on another scale (e.g. x 100) or "
                      "from another measure of that name? Their intervals are not kept inside the range",
                      UserWarning, stacklevel=user_stacklevel())
    return np.where(outside, -np.inf, lo), np.where(outside, np.inf, hi)


def clip_means(low, high, measures: Sequence[str], estimate=None, *,
               alternative: str = "two-sided") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interval ends of means clipped to their measure's range; also which rows were clipped."""
    return clip_to_range(low, high, *mean_ranges(measures, estimate), alternative=alternative)


def clip_deltas(low, high, measures: Sequence[str], estimate=None, *, means: Sequence = (),
                alternative: str = "two-sided", warn: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Interval ends of mean deltas clipped to ``[lo - hi, hi - lo]`` (see :func:`delta_ranges`); also
    which rows were clipped."""
    return clip_to_range(low, high, *delta_ranges(measures, estimate, means=means, warn=warn), alternative=alternative)


def _range_text(lo: float, hi: float) -> str:
    return f"[{lo:g}, {hi:g}]"


def _clip_text(measure: str, lo: float, hi: float) -> str:
    return f"interval clipped to the range of a mean delta of {measure}, {_range_text(lo, hi)}"


def clip_delta_intervals(low, high, measures: Sequence[str], estimate=None, *, means: Sequence = (),
                         alternative: str = "two-sided") -> tuple[np.ndarray, np.ndarray, list[str | None]]:
    """:func:`clip_deltas` with a note per clipped row (None elsewhere), for ``verdict_note``."""
    lo, hi = delta_ranges(measures, estimate, means=means)
    low, high, clipped = clip_to_range(low, high, lo, hi, alternative=alternative)
    notes = [_clip_text(str(measures[i]), float(lo[i]), float(hi[i])) if clipped[i] else None
             for i in range(low.shape[0])]
    return low, high, notes


def finish_paired_intervals(*, measures: Sequence[str], delta: np.ndarray, ci_low: np.ndarray, ci_high: np.ndarray,
                            se: np.ndarray, n: np.ndarray, flat: np.ndarray, interval: str, confidence_level: float,
                            alternative: str, n_resamples: int | None = None, means: Sequence = (),
                            one_pass: np.ndarray | None = None, small_sample: str | None = None
                            ) -> tuple[np.ndarray, np.ndarray, list[str | None]]:
    """compare's intervals inside the delta range, the zero-spread and the default's capped cases, and a
    note per row (None where nothing needs saying).

    ``se``: the studentizing SE ``sd / sqrt(n)``; ``flat``: rows whose deltas have zero spread;
    ``n_resamples``: the Monte-Carlo resamples of a resampled interval (None: not said); ``means``: the
    rows' means (baseline's, system's), which must lie in the measure's range for its range to bound them;
    ``one_pass``: rows computed in one pass (:mod:`~pairedframe.comparison.large_n`), whose interval is the
    t interval or the normal approximation's inversion, whatever ``interval`` was asked: nothing resampled,
    so neither capped nor said to lack resamples; ``small_sample``: the warning about too few queries,
    said in one warning with the percentile / BCa one where both apply (:func:`warn_percentile_small_n`).
    """
    lo, hi = delta_ranges(measures, delta, means=means)
    low, high = np.array(ci_low, dtype=np.float64), np.array(ci_high, dtype=np.float64)
    notes: list[list[str]] = [[] for _ in range(low.shape[0])]
    too_few = n_resamples is not None and too_few_resamples(1.0 - confidence_level, n_resamples)
    # the rows whose interval is the one asked for (one-pass rows have another: large_n.row_methods)
    asked = ~flat if one_pass is None else ~flat & ~np.asarray(one_pass, dtype=bool)
    if interval == "studentized":
        cap = quantile_cap(np.maximum(n - 1.0, 1.0), confidence_level, alternative)
        half = high - delta if alternative == "less" else delta - low
        capped = asked & (se > 0) & (half >= cap * se * (1.0 - 1e-9))
        student = student_only(n, alternative)
        for i in np.flatnonzero(asked & student):
            notes[i].append(f"fewer than {MIN_BOOTSTRAP_N} queries have too few distinct bootstrap resamples: "
                            "the interval is Student's t interval" if n[i] < MIN_BOOTSTRAP_N else
                            f"with fewer than {MIN_ONE_SIDED_BOOTSTRAP_N} queries the default one-sided bound is "
                            "Student's t bound, which covers better there than the bootstrap-t's one tail")
        for i in np.flatnonzero(capped & ~student):
            notes[i].append(_too_few_text(n_resamples, confidence_level, "the bootstrap-t quantile is taken at its "
                                          f"cap, {MAX_QUANTILE_RATIO:g} x Student's, the widest the default gives")
                            if too_few else _capped_text(n_resamples, confidence_level))
    warn_percentile_small_n(interval, n[asked] if interval in ("percentile", "bca") else n[:0], small_sample)
    if interval in ("percentile", "bca") and too_few:
        # their quantiles lie beyond every resample: the ends were the extreme resampled means (two of them
        # could both miss the estimate) or NaN (BCa); taken at the default's cap instead, as the default is
        rows = np.flatnonzero(asked & (n >= 2) & (se > 0))
        low, high = capped_at_too_few(low, high, rows, delta=delta, se=se, df=np.maximum(n - 1.0, 1.0),
                                      confidence_level=confidence_level, alternative=alternative)
        for i in rows:
            notes[i].append(too_few_capped_text(n_resamples, confidence_level))
    if interval == "signflip" and too_few:
        for i in np.flatnonzero(asked & ((n >= 63) | (2.0 ** np.minimum(n, 62) > n_resamples))):   # Monte Carlo
            notes[i].append(_too_few_text(n_resamples, confidence_level, "no shift can be rejected, so the "
                                          "sign-flip interval is unbounded"))
    # whatever the interval: n equal deltas never make a point (or the whole line) certain
    low, high, flat_notes = zero_spread_deltas(low, high, measures=measures, delta=delta, n=n, flat=flat,
                                               confidence_level=confidence_level, alternative=alternative,
                                               ranges=(lo, hi))
    for i, text in enumerate(flat_notes):
        if text:
            notes[i].append(text)
    low, high, clipped = clip_to_range(low, high, lo, hi, alternative=alternative)
    for i in np.flatnonzero(clipped):
        notes[i].append(_clip_text(str(measures[i]), float(lo[i]), float(hi[i])))
    return low, high, ["; ".join(parts) if parts else None for parts in notes]


def capped_at_too_few(low, high, rows, *, delta, se, df, confidence_level: float,
                      alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """A percentile (or BCa) interval with too few resamples for its level, on ``rows``: the default's cap,
    ``delta -/+ 1.5 x t(df) x se`` (:func:`~pairedframe.stats.studentized.quantile_cap`; the open side of a
    one-sided interval kept); its quantiles lie beyond every resample, so its ends were the few resampled
    means (B = 2 could give two on one side of the estimate) or NaN (BCa)."""
    low, high = np.array(low, dtype=np.float64), np.array(high, dtype=np.float64)
    rows = np.asarray(rows, dtype=np.intp)
    delta, se = np.asarray(delta, dtype=np.float64)[rows], np.asarray(se, dtype=np.float64)[rows]
    cap = quantile_cap(np.broadcast_to(np.asarray(df, dtype=np.float64), low.shape)[rows], confidence_level,
                       alternative)
    if alternative != "less":
        low[rows] = delta - cap * se
    if alternative != "greater":
        high[rows] = delta + cap * se
    return low, high


def too_few_capped_text(n_resamples: int, confidence_level: float, cap: str = "the default's cap",
                        se: str = "se") -> str:
    """The note of an interval :func:`capped_at_too_few` set (``cap``: whose cap it is; ``se``: which SE)."""
    return _too_few_text(n_resamples, confidence_level, "the resampled means cannot give its quantiles, so it "
                         f"is taken at {cap}, the mean -/+ {MAX_QUANTILE_RATIO:g} x Student's t "
                         f"quantile x {se}")


#: Resamples beyond the bootstrap-t quantile below which its cap is reached by Monte-Carlo noise as often as by a
#: few dominant queries (tester B, round 7: 30 normal deltas, B = 10-40, capped on 1-9 seeds in 40).
THIN_TAIL_RESAMPLES = 10


def _capped_text(n_resamples: int | None, confidence_level: float) -> str:
    """The note of a default interval whose bootstrap-t quantile reached its cap: a few queries dominate, unless so
    few resamples lie beyond the quantile that the cap may be Monte-Carlo noise."""
    capped = (f"the bootstrap-t quantile reached its cap, {MAX_QUANTILE_RATIO:g} x Student's t quantile, so the "
              f"interval is capped at {MAX_QUANTILE_RATIO:g} x the t interval")
    beyond = None if n_resamples is None else n_resamples * (1.0 - confidence_level)
    if beyond is not None and beyond < THIN_TAIL_RESAMPLES:
        return (f"{capped}; with n_resamples = {n_resamples} about {beyond:.1f} resamples lie beyond the quantile, "
                "so Monte-Carlo noise can reach the cap as well as a few dominant queries can: raise n_resamples "
                "(default 10,000) before reading it as skew, and read worst_queries")
    return f"a few queries dominate these deltas: {capped}; read worst_queries and wins / losses"


def _too_few_text(n_resamples: int, confidence_level: float, what: str) -> str:
    """The note of an interval whose level needs more Monte-Carlo resamples than it got."""
    # as the p-value's note: the least B with B + 1 > 1 / alpha (strict p < alpha, alpha without float
    # noise), never below the least B that is not too few
    alpha = decision_alpha(confidence_level)
    want = max(int(math.floor(round(1.0 / alpha, 9))), least_resamples(alpha))
    return (f"n_resamples = {n_resamples} is too few for a {confidence_level:g} interval (its quantile lies beyond "
            f"every resample): {what}; use n_resamples >= {want}")


def zero_spread_deltas(low, high, *, measures: Sequence[str], delta: np.ndarray, n: np.ndarray, flat: np.ndarray,
                       confidence_level: float, alternative: str, means: Sequence = (), ranges=None,
                       described: Sequence[str | None] | None = None
                       ) -> tuple[np.ndarray, np.ndarray, list[str | None]]:
    """Intervals where the ``flat`` rows (``n`` equal deltas, or ``n`` equal cluster deltas) get the
    range-based interval compare gives them (:func:`~pairedframe.stats.value_range.constant_sample_interval`):
    never a point, whatever the interval method; other rows unchanged.  Also compare's note per flat row.
    The ranges are :func:`delta_ranges` of ``measures``, ``delta`` and ``means``, or ``ranges`` (lo, hi)
    where the caller has them.  ``described``: per row, what is equal where it is not every delta (equal
    cluster deltas over queries that spread), said in place of "every delta equals c (no spread)"."""
    low, high = np.array(low, dtype=np.float64), np.array(high, dtype=np.float64)
    flat = np.asarray(flat, dtype=bool)
    notes: list[str | None] = [None] * low.shape[0]
    if flat.any():
        lo, hi = delta_ranges(measures, delta, means=means) if ranges is None else ranges
        n = np.asarray(n, dtype=float)
        low[flat], high[flat] = constant_sample_interval(np.asarray(delta)[flat], n[flat], lo[flat], hi[flat],
                                                         confidence_level=confidence_level, alternative=alternative)
        known_lo, known_hi = mean_ranges(measures)      # the registry's, before values outside it drop it
        for i in np.flatnonzero(flat):
            known = ((float(known_lo[i]), float(known_hi[i])) if np.isfinite(known_lo[i]) and np.isfinite(known_hi[i])
                     else None)
            notes[i] = _zero_spread_text(float(delta[i]), int(n[i]), float(lo[i]), float(hi[i]), known,
                                         str(measures[i]) if len(measures) else "",
                                         described[i] if described is not None else None)
    return low, high, notes


def _zero_spread_text(c: float, n: int, lo: float, hi: float, known: tuple[float, float] | None = None,
                      measure: str = "", described: str | None = None) -> str:
    """``known``: the measure's own range of values, when the registry has one (it is dropped, ``lo, hi``
    infinite, where the values lie outside it); ``described``: what is equal, if not every delta (the
    ``n`` deltas are then cluster deltas)."""
    if math.isinf(lo) and math.isinf(hi) and known is not None:
        bound = (f"the values lie outside the range of {measure or 'this measure'}, {_range_text(*known)} (another "
                 "scale, e.g. x 100?), so that range is not used and nothing bounds the mean")
    elif math.isinf(lo) and math.isinf(hi):
        bound = "no range is known for this measure, so nothing bounds the mean"
    else:
        bound = (f"the interval holds the mean deltas of populations in {_range_text(lo, hi)} that give {n} equal "
                 f"{'cluster ' if described else ''}deltas with at least the level's probability (Clopper-Pearson's "
                 "bound), not a point")
    return f"{described or f'every delta equals {c:+.4g} (no spread)'}: {bound}"


def warn_percentile_small_n(interval: str, n: np.ndarray, small_sample: str | None = None) -> None:
    """A SmallSampleWarning where ``interval`` (percentile or BCa) is asked for with fewer than
    :data:`PERCENTILE_MIN_N` queries: its coverage falls short there, increasingly so as n falls.
    ``small_sample``: the warning about fewer queries than any paired statistic needs (below
    ``MIN_QUERIES``), said in the same warning, so one warning says both (or that one alone)."""
    few = np.asarray(n)[np.asarray(n) < PERCENTILE_MIN_N]
    parts = [small_sample] if small_sample else []
    if few.size:
        parts.append(f"{'In addition, ' if parts else ''}interval={interval!r} with {int(few.min())} queries "
                     f"({few.size} comparison(s) with fewer than {PERCENTILE_MIN_N}): on real TREC deltas its "
                     "nominal 95 % interval covered 0.894-0.923 at 20 queries and 0.929-0.943 at 50 "
                     "(benchmarks/calibration --section paired), less with fewer queries; the default interval "
                     "('studentized') held 0.945-0.959")
    if parts:
        warnings.warn(" ".join(parts), SmallSampleWarning, stacklevel=user_stacklevel())
