"""Adaptive Monte-Carlo sign-flip tests whose multiple-testing decisions are certified (MMCTest).

A Monte-Carlo p-value estimates the *exact* p-value ``p`` -- the fraction of all ``2**n`` sign patterns
at least as extreme as the observed mean (the infinite-B limit) -- and a fixed number ``B`` of patterns
per test is both wasteful (most tests are far from any threshold) and too coarse where it matters
(BH over ``m`` tests needs p-values near ``q j / m``).  Following MMCTest (Gandy & Hahn 2014), this
module draws patterns in rounds only for the tests whose decision is still open, and stops when the
decision of every test of a family provably equals the decision the exact p-values would give.

Algorithm
---------
Every test ``i`` of a family of ``m`` tests starts with ``B_0`` patterns; round ``k`` brings every
still-undecided test to ``B_k = min(B_0 * growth**k, max_resamples)`` patterns (``K`` checkpoints in
all, the last one ``max_resamples``).  After each round test ``i`` (``b_i`` extreme patterns out of
``B_i``) has the Clopper-Pearson interval ``[L_i, U_i]`` for ``p_i`` at error ``delta = eps / (m K)``
(two-sided, ``delta / 2`` per side), intersected with its intervals of the previous rounds.  With
``D(p)`` the set the correction (BH, Holm or none) rejects when applied to a vector of p-values, a
test is

* *certified rejected* if ``i in D(U)``,
* *certified not rejected* if ``i not in D(L)``,
* *undecided* otherwise.

``D`` is monotone (a smaller p-value vector never rejects fewer tests), so whenever every ``p_i`` lies
in its interval, ``D(U) <= D(p) <= D(L)``: certified decisions are those of the exact p-values.  The
decision of a certified test never reverts, and refining a certified test's interval changes neither
``D(U)`` on the rejected side nor ``D(L)`` on the other (for BH and Holm), so only undecided tests draw
more patterns.  A test whose ``2**n`` patterns number no more than its next checkpoint is enumerated
instead (its exact p-value is then known, ``L = U = p``).  The loop ends when no Monte-Carlo test is
undecided, or at ``max_resamples``; then the undecided tests (p-values within a hair of a threshold)
are reported as not certified.

Guarantee
---------
Let the pattern streams behave as independent uniform draws (the pseudo-random generator
assumption of every Monte-Carlo test).  A checkpoint's interval misses ``p_i`` with probability at
most ``delta``; checkpoints are fixed in advance (they do not depend on the data), so by the union
bound over the ``m`` tests and ``K`` checkpoints,

    P(some certified decision of the family differs from its exact-p decision) <= eps,

for every data set and every ``p``; no assumption on the test statistic or on independence between
tests is needed.  (MMCTest spends the error along a sequence ``n / (n + r)`` over the currently
undecided tests; a fixed split over fixed checkpoints keeps the union bound elementary.)

Reported p-value
----------------
``(b + 1) / (B + 1)`` (Phipson & Smyth 2010) clipped to ``[L, U]``, or ``b / 2**n`` when enumerated.
Because it lies in ``[L, U]``, the correction applied to the reported p-values gives, on every
certified test, the certified decision; so adjusted p-values computed from them agree with
``significant``.

References
----------
Besag, J. and Clifford, P. (1991). Sequential Monte Carlo p-values. Biometrika 78(2), 301-304.
Gandy, A. (2009). Sequential implementation of Monte Carlo tests with uniformly bounded resampling
risk. JASA 104(488), 1504-1511.
Gandy, A. and Hahn, G. (2014). MMCTest -- a safe algorithm for implementing multiple Monte Carlo
tests. Scandinavian Journal of Statistics 41(4), 1083-1101.
Gandy, A. and Hahn, G. (2016). A framework for Monte Carlo based multiple testing. Scandinavian
Journal of Statistics 43(4), 1046-1063.
Gandy, A. and Hahn, G. (2017). QuickMMCTest: quick multiple Monte Carlo testing. Statistics and
Computing 27(3), 823-832.
Clopper, C. J. and Pearson, E. S. (1934). The use of confidence or fiducial limits illustrated in the
case of the binomial. Biometrika 26(4), 404-413.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import betaincinv

from .multiple import benjamini_hochberg, holm
from .resample import check_int, _check_probability

__all__ = ["AdaptiveSchedule", "AdaptiveResult", "clopper_pearson", "family_rejections",
           "adaptive_sign_flip", "CORRECTIONS", "DEFAULT_DECISION_ERROR", "DEFAULT_MAX_RESAMPLES"]

CORRECTIONS = ("bh", "holm", "none")
#: Default bound on the probability that some certified decision of a family is wrong.
DEFAULT_DECISION_ERROR: float = 1e-3
#: Default cap on the sign patterns of one test (2**27 ~ 1.3e8).
DEFAULT_MAX_RESAMPLES: int = 2**27


@dataclass(frozen=True)
class AdaptiveSchedule:
    """Checkpoints ``B_k = min(initial * growth**k, max_resamples)`` of the adaptive test.

    Attributes
    ----------
    initial : int
        Patterns of every test in the first round (``>= 1``).
    growth : int
        Factor between checkpoints (``>= 2``).
    max_resamples : int
        Last checkpoint: no Monte-Carlo test draws more patterns (``>= initial``).
    """

    initial: int = 256
    growth: int = 2
    max_resamples: int = DEFAULT_MAX_RESAMPLES

    def __post_init__(self) -> None:
        check_int(self.initial, "initial", minimum=1)
        check_int(self.growth, "growth", minimum=2)
        check_int(self.max_resamples, "max_resamples", minimum=int(self.initial))

    def checkpoints(self) -> np.ndarray:
        """The increasing checkpoints, shape (K,); the last is ``max_resamples``."""
        out = []
        b = int(self.initial)
        while b < self.max_resamples:
            out.append(b)
            b *= int(self.growth)
        out.append(int(self.max_resamples))
        return np.array(out, dtype=np.int64)


def clopper_pearson(count, n, error) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided Clopper-Pearson interval for a binomial proportion, ``error / 2`` in each tail.

    Parameters
    ----------
    count, n : array_like of int
        Successes and trials (``0 <= count <= n``, ``n >= 1``).
    error : float or array_like
        Total miss probability of the interval, in (0, 1).

    Returns
    -------
    (ndarray, ndarray)
        ``low = Beta(error/2; count, n - count + 1)`` quantile (0 when ``count = 0``) and
        ``high = Beta(1 - error/2; count + 1, n - count)`` quantile (1 when ``count = n``).
    """
    count = np.asarray(count, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    half = np.asarray(error, dtype=np.float64) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(count > 0, betaincinv(np.maximum(count, 1), n - count + 1, half), 0.0)
        high = np.where(count < n, betaincinv(count + 1, np.maximum(n - count, 1), 1 - half), 1.0)
    return low, high


def family_rejections(p: np.ndarray, correction: str, level: float, *, strict: bool = False) -> np.ndarray:
    """Which tests of one family the correction rejects: adjusted p ``<= level`` (``< level`` if strict).

    The adjusted p-values are those of :func:`~pairedframe.stats.multiple.benjamini_hochberg` and
    :func:`~pairedframe.stats.multiple.holm` (``"none"``: p itself), so decisions match the adjusted
    columns bit for bit.  Monotone: lowering any p-value never removes a rejection.
    """
    if correction == "bh":
        adj = benjamini_hochberg(p)
    elif correction == "holm":
        adj = holm(p)
    else:
        adj = np.asarray(p, dtype=np.float64)
    return adj < level if strict else adj <= level


@dataclass(frozen=True)
class AdaptiveResult:
    """Outcome of :func:`adaptive_sign_flip`, one entry per test (arrays of shape (k,)).

    Attributes
    ----------
    pvalue : ndarray
        Reported p-value (module docstring), in ``[pvalue_low, pvalue_high]``.
    pvalue_low, pvalue_high : ndarray
        Interval bracketing the exact p-value (both equal to it when enumerated).
    count : ndarray of int64
        Extreme patterns among those drawn (or enumerated).
    resamples : ndarray of int64
        Patterns drawn (``2**n`` when enumerated).
    exact : ndarray of bool
        Enumerated.
    certified : ndarray of bool
        The decision provably equals the exact-p decision (module docstring).
    rejected : ndarray of bool
        The correction's decision on ``pvalue``.
    interval_error : ndarray
        Miss probability of one interval, ``decision_error / (m K)`` for the test's family.
    rounds : int
        Rounds run.
    decision_error : float
        The bound per family.
    """

    pvalue: np.ndarray
    pvalue_low: np.ndarray
    pvalue_high: np.ndarray
    count: np.ndarray
    resamples: np.ndarray
    exact: np.ndarray
    certified: np.ndarray
    rejected: np.ndarray
    interval_error: np.ndarray
    rounds: int
    decision_error: float


def _classify(families: list[np.ndarray], todo: np.ndarray, low: np.ndarray, high: np.ndarray,
              correction: str, level: float, strict: bool, undecided: np.ndarray) -> None:
    for f in np.flatnonzero(todo):
        sel = families[f]
        sure = family_rejections(high[sel], correction, level, strict=strict)
        maybe = family_rejections(low[sel], correction, level, strict=strict)
        undecided[sel] = maybe & ~sure


def adaptive_sign_flip(sizes, family, count_mc: Callable[[np.ndarray, int, int], np.ndarray],
                       count_exact: Callable[[np.ndarray, int], np.ndarray], *, correction: str = "bh",
                       level: float = 0.05, strict: bool = False,
                       decision_error: float = DEFAULT_DECISION_ERROR,
                       schedule: AdaptiveSchedule | None = None, floors=None) -> AdaptiveResult:
    """Sign-flip p-values drawn adaptively until every family's decisions are certified (MMCTest).

    Parameters
    ----------
    sizes : array_like of int, shape (k,)
        Number of deltas ``n`` of each test (enumeration when ``2**n`` fits a checkpoint).
    family : array_like of int, shape (k,)
        Family id of each test; the correction runs within families.
    count_mc : callable
        ``count_mc(tests, start, stop)``: for each of ``tests`` (int array), the number of extreme
        patterns among its Monte-Carlo patterns ``start .. stop - 1``.  Pattern ``b`` of a test must
        not depend on the round (counter-based or sequential streams), so counts add up.
    count_exact : callable
        ``count_exact(tests, n)``: extreme patterns among all ``2**n`` patterns of tests of size n.
    correction : {"bh", "holm", "none"}
    level : float in (0, 1)
        Level of the decision (BH's q, Holm's alpha).
    strict : bool
        Reject when the adjusted p-value is ``< level`` (default ``<=``).
    decision_error : float in (0, 1), default 1e-3
        Bound on the probability that some certified decision of a family is wrong.
    schedule : AdaptiveSchedule, optional
    floors : array_like, shape (k,), optional
        The least each exact p-value can be, known before any draw (a sign-flip test of ``k`` non-zero
        deltas: ``2 / 2**k`` two-sided, :func:`~pairedframe.stats.randomization.nonzero_floor`).  Each
        interval starts there, so no reported p-value falls below it; default 0.

    Returns
    -------
    AdaptiveResult
        Empty arrays for ``k = 0``.

    Raises
    ------
    ValueError, TypeError
        Bad ``correction``, ``level`` or ``decision_error``.
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"`correction` must be one of {CORRECTIONS}, got {correction!r}")
    level = _check_probability(level, "level")
    decision_error = _check_probability(decision_error, "decision_error")
    schedule = AdaptiveSchedule() if schedule is None else schedule
    sizes = np.asarray(sizes, dtype=np.int64)
    fam = np.unique(np.asarray(family), return_inverse=True)[1].reshape(-1)
    k = sizes.shape[0]
    checkpoints = schedule.checkpoints()
    families = np.split(np.argsort(fam, kind="stable"), np.cumsum(np.bincount(fam))[:-1]) if k else []
    m = np.bincount(fam)[fam] if k else np.zeros(0, dtype=np.int64)
    interval_error = decision_error / (m * checkpoints.shape[0])
    n_patterns = np.where(sizes <= 62, np.left_shift(1, np.minimum(sizes, 62)), np.iinfo(np.int64).max)

    count = np.zeros(k, dtype=np.int64)
    resamples = np.zeros(k, dtype=np.int64)
    exact = np.zeros(k, dtype=bool)
    low = np.zeros(k) if floors is None else np.asarray(floors, dtype=np.float64).copy()
    high = np.ones(k)
    undecided = np.ones(k, dtype=bool)
    active = np.ones(k, dtype=bool)
    drawn = 0
    rounds = 0
    for target in checkpoints:
        act = np.flatnonzero(active)
        if act.size == 0:
            break
        rounds += 1
        enum = act[n_patterns[act] <= target]
        for n in np.unique(sizes[enum]):
            tests = enum[sizes[enum] == n]
            count[tests] = count_exact(tests, int(n))
            resamples[tests] = n_patterns[tests]
            exact[tests] = True
            low[tests] = high[tests] = count[tests] / n_patterns[tests]
        mc = act[n_patterns[act] > target]
        if mc.size:
            count[mc] += count_mc(mc, drawn, int(target))
            resamples[mc] = target
            lo, hi = clopper_pearson(count[mc], target, interval_error[mc])
            low[mc] = np.maximum(low[mc], lo)
            high[mc] = np.minimum(high[mc], hi)
        drawn = int(target)
        todo = np.zeros(len(families), dtype=bool)
        todo[fam[act]] = True
        _classify(families, todo, low, high, correction, level, strict, undecided)
        active = undecided & ~exact

    pvalue = np.where(exact, count / np.maximum(resamples, 1),
                      np.clip((count + 1) / (resamples + 1), low, high))
    rejected = np.zeros(k, dtype=bool)
    for sel in families:
        rejected[sel] = family_rejections(pvalue[sel], correction, level, strict=strict)
    return AdaptiveResult(pvalue=pvalue, pvalue_low=low, pvalue_high=high, count=count, resamples=resamples,
                          exact=exact, certified=~undecided, rejected=rejected, interval_error=interval_error,
                          rounds=rounds, decision_error=decision_error)
