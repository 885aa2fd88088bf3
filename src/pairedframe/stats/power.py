"""Sample-size and minimum-detectable-effect calculations for paired comparisons.

Distribution functions come from :mod:`scipy.special`.

By default power is that of the paired t-test itself: the statistic is noncentral t with ``n - 1``
degrees of freedom and noncentrality ``delta * sqrt(n) / sd`` (Cohen 1988, ch. 2; the function
``power.t.test`` of R and ``statsmodels.stats.power.TTestPower`` compute the same).  The normal
approximation (known ``sd``, ``method="normal"``), which IR papers conventionally report (Webber,
Moffat & Zobel 2008; Sakai 2016), understates the effect needed at small ``n`` (2.0x at ``n = 3``,
1.34x at ``n = 5``, 1.05x at ``n = 20``).
"""

from __future__ import annotations

import functools
import math
import numbers

from scipy.optimize import brentq
from scipy.special import ndtr, ndtri, nctdtr, stdtrit

from pairedframe.errors import USE_CONFIDENCE_LEVEL, renamed_keywords

from .resample import _check_alternative, _check_probability

__all__ = ["MIN_QUERIES", "minimum_detectable_effect", "noncentral_t_mde", "required_queries"]

#: Minimum number of queries (paired observations) recommended before the
#: paired statistics here are trusted.  Below ~20 queries the t-test and the
#: sign-flip test (and the intervals that invert them) lean heavily on the
#: symmetry of the deltas -- on skewed real deltas both reject up to 6.5 % at
#: a nominal 5 % at n = 20 (``benchmarks/calibration``) -- and the
#: exact sign-flip test has few distinct sign patterns.  TREC tracks use 25-50 topics per year and Voorhees & Buckley
#: (2002) found 50 topics the practical minimum for stable system rankings;
#: 20 is a lower bound under which callers should emit
#: :class:`pairedframe.errors.SmallSampleWarning`, not a guarantee above it.
MIN_QUERIES: int = 20

# --------------------------------------------------------------------------
# public power functions
# --------------------------------------------------------------------------

def _check_positive(value, name: str) -> float:
    if isinstance(value, (bool,)) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a positive real number, got {value!r}")
    value = float(value)
    if not (value > 0.0 and math.isfinite(value)):
        raise ValueError(f"`{name}` must be positive and finite, got {value}")
    return value


#: ``power`` this close above the size counts as the size: ``1 - confidence_level`` is off by an ulp (1 - 0.8 is
#: 0.19999999999999996), and the power's root there is rounding noise.
_SIZE_TOLERANCE = 1e-12


def _at_most_size(power: float, alpha: float) -> bool:
    """Whether ``power`` is reached at effect 0: the test's power there is its size ``alpha`` (both tails)."""
    return power - alpha <= _SIZE_TOLERANCE


def _z_sum(alpha: float, power: float, alternative: str) -> float:
    power = _check_probability(power, "power")
    alternative = _check_alternative(alternative)
    if _at_most_size(power, alpha):   # any effect is detected: z_{1-a} + z_power would be noise or negative
        return 0.0
    a = alpha / 2 if alternative == "two-sided" else alpha
    return float(ndtri(1.0 - a) + ndtri(power))


def _nct_cdf(df: float, nc: float, x: float) -> float:
    """The noncentral t's cdf: scipy's, or where that gives NaN (a large ``nc`` against a large ``x``, as at
    few degrees of freedom and a tiny alpha) the integral P(T <= x) = E[Phi(x S / sqrt(df) - nc)], S ~ chi(df)."""
    cdf = float(nctdtr(df, nc, x))
    if math.isfinite(cdf):
        return cdf
    from scipy import stats  # lazy: only this rare path needs it
    return float(stats.chi(df).expect(lambda s: ndtr(x * s / math.sqrt(df) - nc), epsabs=1e-14, epsrel=1e-12))


def _t_power(nc: float, df: float, crit: float, two_sided: bool) -> float:
    """Power of the t-test with critical value ``crit`` at noncentrality ``nc >= 0``."""
    p = 1.0 - _nct_cdf(df, nc, crit)
    if two_sided:
        wrong_tail = float(nctdtr(df, nc, -crit))
        p += wrong_tail if math.isfinite(wrong_tail) else 0.0   # scipy returns NaN for values < ~1e-16
    return p


@functools.lru_cache(maxsize=4096)
def _t_noncentrality(df: float, alpha: float, power: float, alternative: str) -> float:
    """Noncentrality at which the level-``alpha`` t-test with ``df`` degrees of freedom has ``power``."""
    if _at_most_size(power, alpha):  # the power at nc = 0 is the size itself (both tails two-sided): compared
        return 0.0                   # directly, not through the cdf's rounding (noise at power == alpha)
    two_sided = alternative == "two-sided"
    crit = float(stdtrit(df, 1.0 - (alpha / 2 if two_sided else alpha)))
    target = lambda nc: _t_power(nc, df, crit, two_sided) - power  # noqa: E731
    if target(0.0) >= 0.0:
        return 0.0
    hi = max(1.0, crit + float(ndtri(power)))
    while target(hi) < 0.0:
        hi *= 2.0
    return float(brentq(target, 0.0, hi, xtol=1e-13, rtol=1e-13, maxiter=500))


@renamed_keywords(alpha=USE_CONFIDENCE_LEVEL)
def noncentral_t_mde(se: float, df: float, *, confidence_level: float = 0.95, power: float = 0.8,
                     alternative: str = "two-sided") -> float:
    """Smallest true effect a t-test with standard error ``se`` and ``df`` degrees of freedom detects.

    Parameters
    ----------
    se : float
        Standard error of the estimate (> 0), e.g. ``sd / sqrt(n)`` or a cluster-robust SE.
    df : float
        Degrees of freedom of the t reference (> 0), e.g. ``n - 1`` or ``G - 1`` clusters.
    confidence_level : float in (0, 1), default 0.95
        The test's size is ``alpha = 1 - confidence_level`` (already adjusted for multiplicity if the
        verdict is; :func:`mde_at_level` takes the size itself).
    power : float in (0, 1)
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    float
        ``nc * se`` where the noncentral t with ``df`` degrees of freedom and noncentrality ``nc``
        exceeds the critical value ``t(1 - alpha/2, df)`` (one-sided ``t(1 - alpha, df)``) with
        probability ``power`` (both tails counted for two-sided tests); 0 if ``power`` is at most the
        test's size.  A magnitude, also for ``"less"``.

    Raises
    ------
    TypeError, ValueError
        On non-positive ``se`` or ``df`` or probabilities outside (0, 1).

    References
    ----------
    Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., ch. 2.
    """
    confidence_level = _check_probability(confidence_level, "confidence_level")
    return mde_at_level(se, df, 1.0 - confidence_level, power=power, alternative=alternative)


def mde_at_level(se: float, df: float, level: float, *, power: float = 0.8, alternative: str = "two-sided") -> float:
    """:func:`noncentral_t_mde` for a test of size ``level`` (``alpha``, or the multiplicity-adjusted
    ``alpha / m`` of a verdict), taken as given so that adjusted levels are not rounded through
    ``1 - confidence_level``."""
    se = _check_positive(se, "se")
    df = _check_positive(df, "df")
    level = _check_probability(level, "level")
    power = _check_probability(power, "power")
    alternative = _check_alternative(alternative)
    return _t_noncentrality(df, level, power, alternative) * se


@renamed_keywords(alpha=USE_CONFIDENCE_LEVEL)
def minimum_detectable_effect(sd: float, n: int, *, confidence_level: float = 0.95, power: float = 0.8,
                              alternative: str = "two-sided", method: str = "t") -> float:
    """Smallest true mean delta the paired t-test on ``n`` queries detects with the given power.

    Parameters
    ----------
    sd : float
        Standard deviation of the per-query deltas (> 0).
    n : int
        Number of queries (>= 2).
    confidence_level : float in (0, 1), default 0.95
        The test's size is ``alpha = 1 - confidence_level`` (pass the multiplicity-adjusted level,
        e.g. ``1 - alpha / m`` for the first step of Holm over ``m`` comparisons, when the verdict
        uses adjusted p-values).
    power : float in (0, 1)
    alternative : {"two-sided", "greater", "less"}
    method : {"t", "normal"}, default "t"
        ``"t"``: noncentral t with ``n - 1`` degrees of freedom (:func:`noncentral_t_mde` with
        ``se = sd / sqrt(n)``), the power of the test actually run.  ``"normal"``:
        ``(z_{1-a} + z_{power}) * sd / sqrt(n)`` with ``a = alpha / 2`` two-sided (known ``sd``).

    Returns
    -------
    float
        The minimum detectable effect, in the units of ``sd`` (a magnitude, also for ``"less"``); 0 when
        ``power <= 1 - confidence_level`` (up to 1e-12), for either ``method``.

    Raises
    ------
    TypeError, ValueError
        On non-positive ``sd``, ``n < 2``, probabilities outside (0, 1) or an unknown ``method``.

    Notes
    -----
    This is the t-test's MDE (as R's ``power.t.test`` and statsmodels' ``TTestPower``), not the
    sign-flip test's, the default test of :func:`pairedframe.compare`.  The exact sign-flip p-value is at
    least ``2 / 2**m`` two-sided (``1 / 2**m`` one-sided) with ``m`` the non-zero deltas, so below
    ``m = 6`` two-sided (5 one-sided) it cannot reject at ``alpha = 0.05`` however large the effect
    (8 and 7 at 0.01); this function returns a finite MDE there all the same.

    References
    ----------
    Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., ch. 2.
    """
    sd = _check_positive(sd, "sd")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 2:
        raise ValueError(f"`n` must be an integer >= 2, got {n!r}")
    alpha = 1.0 - _check_probability(confidence_level, "confidence_level")
    if method == "normal":
        return _z_sum(alpha, power, alternative) * sd / math.sqrt(int(n))
    if method != "t":
        raise ValueError(f"`method` must be 't' or 'normal', got {method!r}")
    return mde_at_level(sd / math.sqrt(int(n)), int(n) - 1, alpha, power=power, alternative=alternative)


@renamed_keywords(alpha=USE_CONFIDENCE_LEVEL)
def required_queries(delta: float, sd: float, *, confidence_level: float = 0.95, power: float = 0.8,
                     alternative: str = "two-sided", method: str = "t") -> int:
    """Number of queries needed to detect a true mean delta ``delta``.

    Parameters
    ----------
    delta : float
        Effect to detect (non-zero), ``b - a``.  Two-sided: its sign is ignored.  One-sided: its sign must be
        the alternative's (``"greater"``: ``delta > 0``; ``"less"``: ``delta < 0``), since a one-sided test
        has no power against an effect in the other direction (its power is below its size there).
    sd : float
        Standard deviation of per-query deltas (> 0).
    confidence_level, power : float in (0, 1)
        The test's size is ``alpha = 1 - confidence_level``; ``power`` the target power.
    alternative : {"two-sided", "greater", "less"}
    method : {"t", "normal"}, default "t"
        ``"t"``: the least ``n >= 2`` whose noncentral-t MDE (:func:`minimum_detectable_effect`) is
        at most ``|delta|``.  ``"normal"``: ``ceil(((z_{1-a} + z_{power}) * sd / delta) ** 2)``.

    Returns
    -------
    int
        ``>= 2``; 2 when ``power <= 1 - confidence_level`` (up to 1e-12; the test's power at any effect is at
        least its size), for either ``method``.  Compare with :data:`MIN_QUERIES`.

    Raises
    ------
    ValueError
        If ``delta == 0``, ``delta``'s sign is not a one-sided ``alternative``'s, ``sd <= 0``, probabilities
        are outside (0, 1) or ``method`` is unknown.

    Notes
    -----
    The size is the t-test's (as R's ``power.t.test`` and statsmodels' ``TTestPower``), not the
    sign-flip test's, the default test of :func:`pairedframe.compare`, and it can be smaller than that
    test can use: ``required_queries(0.5, 0.2)`` is 4, but the exact sign-flip p-value is at least
    ``2 / 2**m`` two-sided (``1 / 2**m`` one-sided) with ``m`` the non-zero deltas, so it cannot
    reject at ``alpha = 0.05`` with fewer than 6 non-zero deltas two-sided (5 one-sided; 8 and 7 at
    0.01).  For the sign-flip test take the larger of this number and that floor (and see
    :data:`MIN_QUERIES`).
    """
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not math.isfinite(delta):
        raise ValueError(f"`delta` must be a finite real number, got {delta!r}")
    if delta == 0:
        raise ValueError("`delta` must be non-zero")
    if (alternative == "greater" and delta < 0) or (alternative == "less" and delta > 0):
        raise ValueError(f"`delta`={delta!r} points away from alternative={alternative!r}: a one-sided test has "
                         "no power against an effect in the other direction (no number of queries detects it); "
                         f"pass delta {'> 0' if alternative == 'greater' else '< 0'}, or alternative='two-sided'")
    sd = _check_positive(sd, "sd")
    if method not in ("t", "normal"):
        raise ValueError(f"`method` must be 't' or 'normal', got {method!r}")
    confidence_level = _check_probability(confidence_level, "confidence_level")
    z = _z_sum(1.0 - confidence_level, power, alternative)
    n = (z * sd / abs(float(delta))) ** 2
    # guard against 24.000000000000004 -> 25 from rounding noise
    n_int = max(2, math.ceil(n - 1e-9 * n))
    if method == "normal":
        return n_int
    # the normal n is only a first guess: the two-sided t-test's far tail can make it too large (low power,
    # large alpha), its heavier tails too small; the MDE falls as n grows, so bisect for the least n
    target = abs(float(delta)) * (1 + 1e-12)

    def detects(m: int) -> bool:
        return minimum_detectable_effect(sd, m, confidence_level=confidence_level, power=power,
                                         alternative=alternative) <= target

    low, high = 1, n_int  # detects(high) once the doubling below ends; low is 1 or does not detect
    while not detects(high):
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if detects(middle) else (middle, high)
    return max(high, 2)
