"""Verdicts, minimum detectable effects and notes shared by :func:`compare` and :func:`compare_clustered`
(and the skew warning of :func:`compare_segments`).

Levels
------
A verdict compares ``p`` (the column named by ``verdict_on``) with ``alpha = 1 - confidence_level``
(:func:`~pairedframe.stats.levels.decision_alpha`: without float noise), strictly: ``p < alpha``.
The MDE that separates ``"inconclusive"`` from ``"not significant"`` is computed at the level a
*single* true effect must reach in its family for that verdict: ``alpha`` for raw p-values,
``alpha / m`` for Holm (its first step) and for Benjamini-Hochberg (a lone discovery), ``m`` being the
number of comparisons in the family.  It is the MDE of the test actually used (noncentral t with the
test's degrees of freedom: ``n - 1`` queries, ``G - 1`` clusters), and infinite when the smallest
p-value the test can produce (``2 / 2**k`` two-sided for an exact sign-flip test, ``k`` the non-zero
deltas or cluster sums -- a tie flips to itself --; ``1 / (B + 1)`` for a Monte-Carlo one, and never
below that exact floor, which it estimates: :func:`smallest_pvalue`) cannot go below that level: then no
effect, however large, can be declared.  For a
Monte-Carlo test that is :func:`pairedframe.stats.signflip_interval.too_few_resamples` at that level, and
the note's advice is at least its :func:`~pairedframe.stats.signflip_interval.least_resamples`.

Notes
-----
``verdict_note`` explains verdicts a reader could misread: the smallest attainable p-value is above
the level (with advice for that cause), the interval and the verdict disagree (the interval is at the
unadjusted level, or does not invert the test), an adaptive Monte-Carlo p-value falls on the other
side of the level than the interval, the delta points opposite to a one-sided ``alternative``, the
deltas are too skewed for their number (Cochran's rule), or the interval was built in a special way
(capped, without spread, clipped to the measure's range: :mod:`pairedframe.comparison.interval_range`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

import numpy as np

from pairedframe.errors import SkewWarning, TiedQueriesWarning, user_stacklevel
from pairedframe.stats.power import mde_at_level
from pairedframe.stats.signflip_interval import least_resamples
from pairedframe.stats.skewness import cochran_fails, cochran_minimum_n
from pairedframe.stats.studentized import MIN_ONE_SIDED_BOOTSTRAP_N

__all__ = ["CORRECTIONS", "VERDICTS", "verdict_column", "verdict", "verdict_levels", "reachable_levels", "family_rejections", "smallest_pvalue", "tie_floors", "t_mde", "verdict_notes",
           "zero_spread_disagreement", "warn_unreachable", "UnreachableWarning", "warn_skewed", "warn_skewed_segments"]

VERDICTS = ("better", "worse", "inconclusive", "not significant", "identical", "equivalent")

#: ``correction=`` (one name for the multiple-testing correction within a ``family_by`` family): the
#: p-value column the verdicts read.
CORRECTIONS = {"none": "pvalue", "holm": "pvalue_holm", "bh": "pvalue_bh"}


def verdict_column(correction: str) -> str:
    """The p-value column the verdicts read under ``correction`` ("none", "holm" or "bh").

    Raises
    ------
    ValueError
        Any other ``correction``, naming the argument and the choices.
    """
    if not isinstance(correction, str) or correction not in CORRECTIONS:
        raise ValueError(f"`correction` must be one of {tuple(CORRECTIONS)}, got {correction!r}")
    return CORRECTIONS[correction]

#: Largest type-I error (at alpha = 0.05, n = 20) of the two tests on skewed real deltas, quoted in the
#: skew warning; ``benchmarks/calibration --section paired`` prints it (null "centred", DL-2019 nDCG@10).
SKEWED_TYPE_I_AT_20 = 0.065
#: False discovery rate of BH at q = 0.05 over 20 segments of 20 real TREC deltas (5 truly shifted),
#: quoted in the segment skew warning: centred skewed null segments where it exceeded q (DL-2019 and
#: DL-2021 AP), and symmetric ones; ``python benchmarks/calibration --section segments`` prints both
#: (docs/how/calibration.md, "What the runs showed").
SEGMENT_FDR_SKEWED = "0.054-0.079"
SEGMENT_FDR_SYMMETRIC = "0.025-0.039"
#: Share of exactly tied queries (delta 0) above which :func:`warn_many_ties` warns.
TIED_SHARE = 0.25
#: Coverage of the default (studentized) 95 % interval on samples of 20 DL-2019 nDCG@10 deltas with
#: more than TIED_SHARE ties (near-duplicate run pairs), as benchmarks/calibration prints it
#: (0.919, MC SE 0.022; the interval inverting the sign-flip test: 0.791).
TIED_COVERAGE_AT_20 = 0.92


def verdict(p: float, delta: float, mde: float, all_zero: bool, alpha: float,
            alternative: str = "two-sided") -> str:
    """One of :data:`VERDICTS` (module docstring of :mod:`pairedframe.comparison.paired`); the same
    words for every ``alternative`` (it enters through ``p`` and ``mde``)."""
    if all_zero:
        return "identical"
    if not math.isnan(p) and p < alpha:
        return "better" if delta > 0 else "worse"
    # One wording for every alternative: the MDE decides; a delta pointing away from a one-sided
    # alternative is explained in verdict_note, not by another word.
    if mde > abs(delta):
        return "inconclusive"
    return "not significant"


def _opposite(delta: float, alternative: str) -> bool:
    return (alternative == "greater" and delta < 0) or (alternative == "less" and delta > 0)


def verdict_levels(alpha: float, verdict_on: str, family_sizes: np.ndarray,
                   rejections: np.ndarray | None = None) -> np.ndarray:
    """Level a row's raw p-value must reach for its verdict: alpha; alpha / m for Holm (its first
    step); for BH alpha * R / m, R the rejections of the row's family counting the row itself
    (:func:`family_rejections`: BH's threshold on the raw p-values; a lone effect, R = 1, needs
    alpha / m) -- pass ``rejections`` for BH."""
    sizes = np.maximum(np.asarray(family_sizes, dtype=np.float64), 1.0)
    if verdict_on == "pvalue":
        return np.full(sizes.shape, alpha)
    if verdict_on == "pvalue_bh" and rejections is not None:
        return alpha * np.maximum(np.asarray(rejections, dtype=np.float64), 1.0) / sizes
    return alpha / sizes


def reachable_levels(alpha: float, verdict_on: str, family_sizes: np.ndarray) -> np.ndarray:
    """Largest level at which any row could be significant: alpha / m for Holm (nothing passes if
    the first step fails), alpha for BH (every row rejected together) and uncorrected p."""
    sizes = np.maximum(np.asarray(family_sizes, dtype=np.float64), 1.0)
    return alpha / sizes if verdict_on == "pvalue_holm" else np.full(sizes.shape, alpha)


def family_rejections(adjusted: np.ndarray, family_ids: np.ndarray, alpha: float) -> np.ndarray:
    """Per row, the rejections R of its family (adjusted p-value below alpha) counting the row itself:
    R for a significant row, R + 1 for another -- the fewest its own rejection would make, so that
    BH's ``alpha * R / m`` is a level at which it would be significant (p at or below it joins the R)."""
    significant = np.where(np.isnan(adjusted), False, adjusted < alpha)
    _, inverse = np.unique(family_ids, return_inverse=True)
    counts = np.bincount(inverse, weights=significant.astype(np.float64))[inverse].astype(np.int64)
    return counts + ~significant


def smallest_pvalue(test: str, exact: bool, n: int, alternative: str, n_resamples: int,
                    zero_spread: bool = False, nonzero: int | None = None) -> float:
    """Smallest p-value the test can produce: exact sign flips (``2 / 2**k`` two-sided), Monte Carlo
    (``1 / (B + 1)``, and never below the exact floor it estimates), the t-test 0 (or the exact
    sign-flip floor when it falls back on zero spread).

    ``k`` counts the non-zero deltas (``nonzero``; default all ``n``): a delta of 0 flips to itself, so
    ``2**n`` patterns give only ``2**k`` statistics and the exact p is a multiple of ``2**(n - k) / 2**n``.
    A Monte-Carlo p estimates that exact p; it falls below the exact floor only when its draws happen to
    miss the extreme patterns (for an exact floor at or above the level, with chance about one half at
    most), so no effect reaches the MDE's power there."""
    sides = 2.0 if alternative == "two-sided" else 1.0
    if test == "t":
        return min(1.0, sides * 2.0 ** -min(n, 1100)) if zero_spread else 0.0
    k = n if not nonzero else min(n, int(nonzero))    # every delta 0: "identical", no floor to speak of
    exact_floor = min(1.0, sides * 2.0 ** -min(k, 1100))
    if exact:
        return exact_floor
    return 1.0 / (n_resamples + 1) if not nonzero else max(1.0 / (n_resamples + 1), exact_floor)


def tie_floors(floors: np.ndarray, nonzero: np.ndarray, test: str, alternative: str) -> np.ndarray:
    """``floors`` (:func:`smallest_pvalue` of each row, from its number of units) raised to the exact
    sign-flip floor of its ``nonzero`` non-zero deltas (cluster sums): ``sides * 2**-k``.  A sign-flip
    test cannot tell a tie's two signs apart, so its p never goes below that (see :func:`smallest_pvalue`);
    the t-test's floors, and those of rows without a non-zero delta ("identical"), are returned as they are."""
    floors = np.asarray(floors, dtype=np.float64)
    if test == "t":
        return floors
    sides = 2.0 if alternative == "two-sided" else 1.0
    k = np.minimum(np.asarray(nonzero, dtype=np.float64), 1100.0)
    return np.where(k > 0, np.maximum(floors, np.minimum(1.0, sides * np.exp2(-k))), floors)


def t_mde(se: float, df: float, level: float, power: float, alternative: str, floor: float,
          zero_spread: bool, all_zero: bool = False) -> float:
    """Noncentral-t MDE at ``level`` (the t-test's; for a sign-flip test an approximation, not its own);
    NaN for zero spread (no spread seen: the detectable effect is unknown, not 0), and for ``all_zero``
    deltas ("identical") whatever the floor; inf when ``floor >= level``."""
    if all_zero:
        return math.nan
    if floor >= level:
        return math.inf
    if zero_spread or not se > 0:
        return math.nan
    return mde_at_level(se, df, level, power=power, alternative=alternative)


def verdict_notes(*, verdicts: list[str], delta: np.ndarray, ci_low: np.ndarray, ci_high: np.ndarray,
                  p_raw: np.ndarray, p_used: np.ndarray, levels: np.ndarray, floors: np.ndarray,
                  family_sizes: np.ndarray, exact: np.ndarray, n_units: np.ndarray, skewness: np.ndarray,
                  alpha: float, alternative: str, verdict_on: str, test: str, interval: str | Sequence[str],
                  unit: str = "queries",
                  n_resamples: int | None = None, resamples_name: str = "n_resamples",
                  p_estimated: bool = False, interval_notes: Sequence[str | None] | None = None,
                  zero_spread: np.ndarray | None = None, nonzero: np.ndarray | None = None) -> list[str | None]:
    """One note (or None) per row; see the module docstring.  ``p_estimated``: the raw p-values are
    adaptive Monte-Carlo estimates, so they may disagree with an interval that inverts the test;
    ``interval_notes``: what the interval's construction needs said per row (appended first);
    ``zero_spread``: rows whose deltas all equal, whose interval is the range-based bound, not ``interval``;
    ``nonzero``: each row's non-zero deltas (cluster sums), named when their number sets the floor;
    ``interval``: the interval of every row, or of each (one-pass rows computed another than the one asked)."""
    flat = np.zeros(len(verdicts), dtype=bool) if zero_spread is None else np.asarray(zero_spread, dtype=bool)
    notes: list[str | None] = []
    for i, v in enumerate(verdicts):
        parts = [interval_notes[i]] if interval_notes is not None and interval_notes[i] else []
        if v != "identical":
            if floors[i] >= levels[i]:
                parts.append(_unreachable_text(bool(exact[i]), int(n_units[i]), float(floors[i]),
                                               float(levels[i]), int(family_sizes[i]), verdict_on, test,
                                               unit, n_resamples, alpha, resamples_name,
                                               None if nonzero is None else int(nonzero[i]), bool(flat[i])))
            if _opposite(float(delta[i]), alternative):
                parts.append(f"delta {delta[i]:+.4g} points away from alternative='{alternative}': "
                             "a one-sided test cannot find it")
            excludes = bool(ci_low[i] > 0 or ci_high[i] < 0)
            significant = v in ("better", "worse")
            adaptive_split = (p_estimated and _of_row(interval, i) == "signflip" and not math.isnan(float(ci_low[i]))
                              and not math.isnan(float(p_raw[i])) and (p_raw[i] < alpha) != excludes)
            if adaptive_split:
                parts.append(f"the interval {'excludes' if excludes else 'includes'} 0 while the adaptive p = "
                             f"{p_raw[i]:.3g} is {'above' if excludes else 'below'} {alpha:g}: that p is a "
                             "Monte-Carlo estimate drawn only until the family's decisions were certified "
                             "(pvalue_low, pvalue_high bracket it), and the interval inverts the test on its own "
                             "n_resamples patterns")
            if excludes != significant and not adaptive_split and not math.isnan(float(ci_low[i])):
                if verdict_on != "pvalue" and (p_raw[i] < alpha) == excludes:
                    why = (f"{verdict_on} = {p_used[i]:.3g} over {int(family_sizes[i])} comparisons decides; "
                           "the interval is not adjusted for multiplicity")
                elif flat[i]:
                    why = zero_spread_disagreement(test, int(n_units[i]), unit, float(p_raw[i]), verdict_on,
                                                    float(p_used[i]))
                else:
                    why = (f"the {_of_row(interval, i)} interval is not the set of shifts the {test} test accepts, and here "
                           f"they disagree (p = {_p_beside(p_raw[i], alpha)}); the verdict follows the test, "
                           f"{verdict_on} = {_p_beside(p_used[i], alpha)}")
                parts.append(f"the interval {'excludes' if excludes else 'includes'} 0 but the verdict is "
                             f"'{v}': {why}")
            g = float(skewness[i])
            need = cochran_minimum_n(g)
            if n_units[i] < need:
                parts.append(f"skewed deltas (skewness {g:+.2f}, {int(n_units[i])} {unit} < 25 x skewness^2 = "
                             f"{need:.1f}): p-value and interval may be off")
        notes.append("; ".join(parts) if parts else None)
    return notes


def zero_spread_disagreement(test: str, n: int, unit: str, p: float, verdict_on: str, p_used: float,
                             decision: str = "the verdict") -> str:
    """Why the range-based interval of equal deltas and the test disagree: they assume different things.
    ``decision``: what follows the test (compare's verdict, compare_segments' ``significant``)."""
    test_p = (f"with no spread the t test falls back to the exact sign-flip test, whose p = {p:.3g}," if test == "t"
              else f"the {test} test's p = {p:.3g}")
    return (f"{test_p} says all {n} {unit} moved the same way, while the range-based interval allows for "
            "populations with values never observed; any spread in the deltas gives the usual interval instead "
            f"(the rule is discontinuous by design); {decision} follows the test, {verdict_on} = {p_used:.3g}")


def _unreachable_text(exact: bool, n: int, floor: float, level: float, m: int, verdict_on: str, test: str,
                      unit: str, n_resamples: int | None, alpha: float, resamples_name: str = "n_resamples",
                      nonzero: int | None = None, zero_spread: bool = False) -> str:
    family = verdict_on != "pvalue" and m > 1
    need = (f"{verdict_on} over {m} comparisons needs p < {level:.3g}" if family
            else f"the verdict needs p < {level:.3g}")
    fewer = ", fewer comparisons (family_by=)" if family else ""
    if test == "t" and nonzero == 0:
        return (f"all {n} {unit} have a zero delta: the t-test falls back to the exact sign-flip p, exactly 1 (every "
                f"sign flip gives the same statistic); {need}; use {unit} that differ")
    if test == "t":
        return f"zero spread: the t-test falls back to the exact sign-flip p >= {floor:.3g}; {need}; use more {unit}"
    # compare_clustered has no t-test option; with no spread the t-test falls back to this same exact p
    t_option = "" if test == "cluster sign-flip" or zero_spread else " or test='t'"
    # the exact test's floor, or a Monte-Carlo p held above 1/(B+1) by the exact floor it estimates
    # (few non-zero deltas: smallest_pvalue, tie_floors)
    if exact or (n_resamples is not None and floor > 1.0 / (n_resamples + 1)):
        kind = "exact sign-flip p" if exact else "sign-flip p (a Monte-Carlo estimate of the exact one)"
        if nonzero == 0:   # every flip gives the same statistic: p is 1 (2 / 2**0 capped), not the n-unit floor
            what = "summed delta" if unit == "clusters" else "delta"
            return (f"all {n} {unit} have a zero {what} (a zero one flips to itself): every sign flip gives the "
                    f"same statistic, so the {kind} is exactly 1; {need}; use {unit} that differ{fewer}")
        if nonzero is not None and nonzero < n:
            what = "a non-zero summed delta" if unit == "clusters" else "a non-zero delta"
            return (f"{nonzero} of {n} {unit} have {what} (a zero one flips to itself): the {kind} cannot go "
                    f"below {floor:.3g}; {need}; use more {unit} that differ{fewer}{t_option}")
        return (f"{n} {unit}: the {kind} cannot go below {floor:.3g}; {need}; use more {unit}"
                f"{fewer}{t_option}")
    per_test = alpha / m if family else alpha
    # the least B with B + 1 > m / alpha (p strictly below the per-test level), never below the least B
    # the floor check (1 / (B + 1) < alpha / m in floats) accepts
    want = max(int(math.floor(round((m if family else 1) / alpha, 9))), least_resamples(per_test))
    return (f"the Monte-Carlo p cannot go below 1/({resamples_name}+1) = {floor:.3g}; {need}; "
            f"use {resamples_name} >= {want}{t_option}")


class UnreachableWarning(UserWarning):
    """No comparison of a call can be significant; ``reason`` is the why and ``labels`` the comparisons
    (for a caller comparing one thing per call, such as a plan's endpoints, to say it of its own)."""

    def __init__(self, message: str, reason: str = "", labels: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.reason, self.labels = reason, tuple(labels)


def warn_unreachable(floors: np.ndarray, levels: np.ndarray, exact: np.ndarray, n_units: np.ndarray,
                     family_sizes: np.ndarray, *, verdict_on: str, test: str, alpha: float, unit: str,
                     n_resamples: int | None, resamples_name: str = "n_resamples",
                     nonzero: np.ndarray | None = None, zero_spread: np.ndarray | None = None,
                     labels: Sequence[str] = ()) -> None:
    """Warn once when no row can be significant at its verdict level (``nonzero``, ``zero_spread``: as
    :func:`verdict_notes`), naming the rows (``labels``: ``system=b, measure=AP``, one per row)."""
    if floors.size == 0 or not np.all(floors >= levels):
        return
    i = int(np.argmin(floors - levels))
    text = _unreachable_text(bool(exact[i]), int(n_units[i]), float(floors[i]), float(levels[i]),
                             int(family_sizes[i]), verdict_on, test, unit, n_resamples, alpha, resamples_name,
                             None if nonzero is None else int(nonzero[i]),
                             zero_spread is not None and bool(zero_spread[i]))
    which = "" if not labels else (f" (the one comparison: {labels[0]})" if len(labels) == 1 else
                                   f" (all {len(labels)} comparisons: {'; '.join(labels[:3])}"
                                   f"{'; ...' if len(labels) > 3 else ''})")
    warnings.warn(UnreachableWarning(f"no comparison can be significant: {text}{which}", text, labels),
                  stacklevel=user_stacklevel())


def _of_row(interval: str | Sequence[str], i: int) -> str:
    """Row ``i``'s interval: ``interval`` itself, or its ``i``-th entry when given per row."""
    return interval if isinstance(interval, str) else str(interval[i])


def _interval_in_use(interval: str, confidence_level: float) -> str:
    """E.g. "the interval here is t at 90 %"."""
    return f"the interval here is {interval} at {100 * confidence_level:g} %"


def _intervals_of_rows(interval: str | Sequence[str], rows: np.ndarray, i: int, confidence_level: float) -> str:
    """:func:`_interval_in_use` of row ``i``, and the other intervals of ``rows`` (those a warning counts) where
    they differ, e.g. "the interval here is t at 95 % (on the other such rows: studentized)"."""
    own = _of_row(interval, i)
    others = sorted({_of_row(interval, int(r)) for r in rows} - {own})
    return _interval_in_use(own, confidence_level) + (f" (on the other such rows: {', '.join(others)})" if others else "")


def warn_many_ties(ties: np.ndarray, n_units: np.ndarray, labels: list[str], unit: str = "queries", *,
                   interval: str | Sequence[str] = "studentized", confidence_level: float = 0.95) -> None:
    """One :class:`TiedQueriesWarning` naming the row with the largest share of exact ties (delta 0)
    when more than :data:`TIED_SHARE` of a comparison's units tie.  ``interval`` and
    ``confidence_level`` are those in use (``interval`` per row where rows differ: the named row's is
    said): the message sets them beside the calibrated figures.

    Near-duplicate systems (an ablation that changes a few queries) give deltas that are mostly 0 and
    a few large values; a sample of such deltas often misses the rare large ones, so every interval
    for the mean under-covers (benchmarks/calibration), whatever the test.
    """
    share = np.asarray(ties, dtype=float) / np.maximum(np.asarray(n_units, dtype=float), 1.0)
    bad = np.flatnonzero((share > TIED_SHARE) & (share < 1.0))   # all tied: "identical", nothing to warn
    if bad.size == 0:
        return
    i = int(bad[np.argmax(share[bad])])
    warnings.warn(
        f"{bad.size} comparison(s) tie exactly on more than {TIED_SHARE:.0%} of their {unit}; most: "
        f"{int(ties[i])} of {int(n_units[i])} ({labels[i]}). The mean delta rests on the few {unit} that "
        f"differ, and intervals for it under-cover: on such samples of 20 real TREC deltas the default 95 % "
        f"studentized interval covered {TIED_COVERAGE_AT_20:.2f} and interval='signflip' 0.79 "
        f"(benchmarks/calibration, real samples; more ties can cover less); {_intervals_of_rows(interval, bad, i, confidence_level)}. "
        "Read the wins / losses / ties columns and worst_queries before the interval", TiedQueriesWarning, stacklevel=user_stacklevel())


def _p_beside(p: float, alpha: float) -> str:
    """``p`` to 3 significant digits, or as many more as tell it from ``alpha`` (0.0500036 beside 0.05 is not
    'p = 0.05', which reads as a tie with the level)."""
    for digits in range(3, 18):
        text = f"{p:.{digits}g}"
        if p == alpha or float(text) != alpha:
            return text
    return repr(float(p))


def _most_skewed(skewness: np.ndarray, n_units: np.ndarray) -> tuple[int, int] | None:
    """(how many rows fail Cochran's rule, the most skewed of them), or None when none does."""
    bad = np.flatnonzero(cochran_fails(skewness, n_units))
    if bad.size == 0:
        return None
    return int(bad.size), int(bad[np.argmax(np.abs(skewness[bad]))])

def warn_skewed(skewness: np.ndarray, n_units: np.ndarray, labels: list[str], unit: str = "queries", *,
                interval: str | Sequence[str] = "studentized", confidence_level: float = 0.95,
                asked: str | None = None) -> None:
    """One :class:`SkewWarning` naming the worst row whose deltas fail Cochran's rule ``n > 25 g1^2``;
    ``interval`` and ``confidence_level`` (those in use; ``interval`` per row where rows differ: the named
    row's is said, and the others of the rows counted) and ``asked`` (the interval asked for, None: the named
    row's) decide how it points at the studentized interval (:func:`_skew_advice`)."""
    found = _most_skewed(skewness, n_units)
    if found is None:
        return
    count, i = found
    in_use = _intervals_of_rows(interval, np.flatnonzero(cochran_fails(skewness, n_units)), i, confidence_level)
    best = _skew_advice(_of_row(interval, i), _of_row(interval, i) if asked is None else asked, int(n_units[i]), in_use)
    warnings.warn(
        f"{count} comparison(s) have deltas too skewed for their number of {unit} (Cochran's rule "
        f"n > 25 x skewness^2 fails); most skewed: skewness {skewness[i]:+.2f} with n = {int(n_units[i])} "
        f"({labels[i]}). The t-test, the sign-flip test and the intervals inverting them assume nearly "
        f"symmetric deltas: on skewed real TREC deltas at n = 20 both tests rejected up to "
        f"{SKEWED_TYPE_I_AT_20:.1%} at alpha = 5% (benchmarks/calibration); {best}. "
        "See the verdict_note column", SkewWarning, stacklevel=user_stacklevel())


def _skew_advice(interval: str, asked: str, n: int, in_use: str) -> str:
    """What the skew warning says of the studentized interval for a row that has ``interval`` where ``asked``
    was asked: used here; not available with so few queries (Student's t below MIN_ONE_SIDED_BOOTSTRAP_N, 20,
    one-sided); not resampled (one pass: resampling='fixed' resamples it); or another interval's option."""
    if interval == "studentized":
        return "the studentized interval used here covers best there (so it may hold 0 where the test rejects)"
    covers = "the studentized interval covers best there"
    if interval != asked and asked == "studentized" and n < MIN_ONE_SIDED_BOOTSTRAP_N:
        return f"{covers}, but with {n} deltas the default is Student's t ({in_use})"
    if interval != asked:        # computed in one pass: nothing resampled
        return (f"{covers}; this row was computed in one pass, without resampling ({in_use}): resampling='fixed' "
                "with interval='studentized' resamples it")
    return f"the studentized interval (interval='studentized', the randomization test's default) covers best there; {in_use}"


def warn_skewed_segments(skewness: np.ndarray, n_units: np.ndarray, label: Callable[[int], str]) -> None:
    """One :class:`SkewWarning` when some segment comparisons fail Cochran's rule ``n > 25 g1^2``:
    how many of how many, the most skewed (``label(i)`` names row ``i``) and what BH's FDR became on
    such segments.  Vectorised: only the named row is formatted."""
    found = _most_skewed(skewness, n_units)
    if found is None:
        return
    count, i = found
    warnings.warn(
        f"{count} of {len(skewness)} segment comparisons have deltas too skewed for their number of queries "
        f"(Cochran's rule n > 25 x skewness^2 fails); most skewed: skewness {skewness[i]:+.2f} with "
        f"n = {int(n_units[i])} ({label(i)}). The per-segment tests assume nearly symmetric deltas: with BH at "
        f"q = 0.05 over segments of 20 skewed real TREC deltas the false discovery rate was "
        f"{SEGMENT_FDR_SKEWED} on DL-2019 and DL-2021 AP (above q), against {SEGMENT_FDR_SYMMETRIC} with symmetric deltas "
        "(docs/how/calibration.md, 'What the runs showed'; python benchmarks/calibration --section segments). "
        "Read discoveries in such segments with "
        "their 'skewness' column", SkewWarning, stacklevel=user_stacklevel())
