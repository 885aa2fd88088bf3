"""Sample-size and minimum-detectable-effect calculations for paired comparisons,
plus the distribution functions the statistics layer needs at runtime.

Runtime dependencies are numpy and the Python standard library only: the
normal distribution comes from :class:`statistics.NormalDist` (Wichura's AS241
quantile, ``math.erf`` CDF) and Student's t from a continued-fraction
regularized incomplete beta function (Lentz's algorithm).  scipy is only a test
oracle (``tests/stats``); agreement is checked to ~1e-12.

The power formulas use the normal approximation to the paired t-test (known
``sd``), which is what IR papers conventionally report (e.g. Webber, Moffat &
Zobel 2008; Sakai 2016).  For small ``n`` the t-test has slightly less power
than stated, which is one reason for :data:`MIN_QUERIES`.
"""

from __future__ import annotations

import math
import numbers
from statistics import NormalDist

from .resample import _check_alternative, _check_probability

__all__ = ["MIN_QUERIES", "minimum_detectable_effect", "required_queries"]

#: Minimum number of queries (paired observations) recommended before the
#: paired statistics here are trusted.  Below ~20 queries the percentile
#: bootstrap under-covers noticeably (its intervals are too narrow by a factor
#: of about sqrt((n-1)/n) plus skewness effects), the t-test leans heavily on
#: normality of the deltas, and a Monte-Carlo sign-flip test has few distinct
#: sign patterns.  TREC tracks use 25-50 topics per year and Voorhees & Buckley
#: (2002) found 50 topics the practical minimum for stable system rankings;
#: 20 is a lower bound under which callers should emit
#: :class:`pairedframe.errors.SmallSampleWarning`, not a guarantee above it.
MIN_QUERIES: int = 20

_STD_NORMAL = NormalDist()


# --------------------------------------------------------------------------
# normal distribution
# --------------------------------------------------------------------------

def _norm_cdf(x: float) -> float:
    """Standard normal CDF (accurate in the lower tail via erfc)."""
    if math.isnan(x):
        return math.nan
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _norm_ppf(p: float) -> float:
    """Standard normal quantile; ``-inf``/``inf`` at 0/1, NaN outside [0, 1]."""
    if math.isnan(p) or p < 0.0 or p > 1.0:
        return math.nan
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    return _STD_NORMAL.inv_cdf(p)


# --------------------------------------------------------------------------
# Student's t via the regularized incomplete beta function
# --------------------------------------------------------------------------

_TINY = 1e-300
_EPS = 2.0 ** -53


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for I_x(a, b) (modified Lentz; Numerical Recipes 6.4)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    if abs(d) < _TINY:
        d = _TINY
    d = 1.0 / d
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        if abs(d) < _TINY:
            d = _TINY
        c = 1.0 + aa / c
        if abs(c) < _TINY:
            c = _TINY
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 4 * _EPS:
            return h
    raise ArithmeticError("incomplete beta continued fraction did not converge")  # pragma: no cover


def _stirlerr(x: float) -> float:
    """lgamma(x) - ((x - 0.5) log x - x + 0.5 log 2 pi), for x >= 10 by its series."""
    if x < 10.0:
        return math.lgamma(x) - ((x - 0.5) * math.log(x) - x + 0.5 * math.log(2 * math.pi))
    x2 = x * x
    series = 1.0 / 1680 - 1.0 / (1188 * x2)
    series = 1.0 / 1260 - series / x2
    series = 1.0 / 360 - series / x2
    return (1.0 / 12 - series / x2) / x


def _lbeta(a: float, b: float) -> float:
    """log B(a, b), without the cancellation of lgamma differences for large a or b."""
    if a < b:
        a, b = b, a
    if a < 10.0:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    # lgamma(a) - lgamma(a + b) by Stirling with the large terms combined analytically
    diff = (-(a - 0.5) * math.log1p(b / a) - b * math.log(a + b) + b
            + _stirlerr(a) - _stirlerr(a + b))
    return math.lgamma(b) + diff


def _betainc(a: float, b: float, x: float, y: float) -> float:
    """Regularized incomplete beta I_x(a, b) with ``y = 1 - x`` passed exactly."""
    if x <= 0.0:
        return 0.0
    if y <= 0.0:
        return 1.0
    log_x = math.log1p(-y) if y < 0.5 else math.log(x)
    log_y = math.log1p(-x) if x < 0.5 else math.log(y)
    log_front = a * log_x + b * log_y - _lbeta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, y) / b


def _t_sf(t: float, df: float) -> float:
    """Survival function P(T > t) of Student's t with ``df`` degrees of freedom."""
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    if t == 0.0:
        return 0.5
    t2 = t * t
    # P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2); pass both x and 1-x exactly.
    x = df / (df + t2)
    y = t2 / (df + t2)
    tail = 0.5 * _betainc(0.5 * df, 0.5, x, y)
    return tail if t > 0 else 1.0 - tail


def _t_cdf(t: float, df: float) -> float:
    return _t_sf(-t, df)


def _t_pdf(t: float, df: float) -> float:
    return math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)
                    - 0.5 * math.log(df * math.pi)
                    - (df + 1) / 2 * math.log1p(t * t / df))


def _t_ppf(q: float, df: float) -> float:
    """Quantile of Student's t (Newton on the CDF from a normal start, bracketed)."""
    if math.isnan(q) or q < 0.0 or q > 1.0:
        return math.nan
    if q == 0.0:
        return -math.inf
    if q == 1.0:
        return math.inf
    if q == 0.5:
        return 0.0
    if q > 0.5:
        return -_t_ppf(1.0 - q, df) if (1.0 - q) > 0 else math.inf
    # q < 0.5: solve F(t) = q for t < 0 (lower tail, accurate).
    lo, hi = -math.inf, 0.0
    t = _norm_ppf(q)
    for _ in range(200):
        f = _t_cdf(t, df) - q
        if f > 0:
            hi = min(hi, t)
        else:
            lo = max(lo, t)
        pdf = _t_pdf(t, df)
        step = f / pdf if pdf > 0 else math.inf
        t_new = t - step
        if not (lo < t_new < hi) or not math.isfinite(t_new):
            t_new = (lo + hi) / 2 if math.isfinite(lo) else 2.0 * min(t, -1.0)
        if abs(t_new - t) <= 4 * _EPS * max(1.0, abs(t)):
            return t_new
        t = t_new
    return t  # pragma: no cover


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


def _z_sum(alpha: float, power: float, alternative: str) -> float:
    alpha = _check_probability(alpha, "alpha")
    power = _check_probability(power, "power")
    alternative = _check_alternative(alternative)
    a = alpha / 2 if alternative == "two-sided" else alpha
    return _norm_ppf(1.0 - a) + _norm_ppf(power)


def minimum_detectable_effect(sd: float, n: int, *, alpha: float = 0.05, power: float = 0.8,
                              alternative: str = "two-sided") -> float:
    """Smallest true mean delta detectable with the given power.

    ``MDE = (z_{1-a} + z_{power}) * sd / sqrt(n)`` where ``a = alpha / 2`` for a
    two-sided test and ``alpha`` for a one-sided one (normal approximation).

    Parameters
    ----------
    sd : float
        Standard deviation of the per-query deltas (> 0).
    n : int
        Number of queries (>= 2).
    alpha : float in (0, 1)
    power : float in (0, 1)
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    float
        The minimum detectable effect, in the units of ``sd`` (always >= 0 for
        ``power >= 0.5``; a magnitude, also for ``"less"``).

    Raises
    ------
    TypeError, ValueError
        On non-positive ``sd``, ``n < 2`` or probabilities outside (0, 1).

    References
    ----------
    Cohen, J. (1988). *Statistical Power Analysis for the Behavioral Sciences*.
    """
    sd = _check_positive(sd, "sd")
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 2:
        raise ValueError(f"`n` must be an integer >= 2, got {n!r}")
    return _z_sum(alpha, power, alternative) * sd / math.sqrt(int(n))


def required_queries(delta: float, sd: float, *, alpha: float = 0.05, power: float = 0.8,
                     alternative: str = "two-sided") -> int:
    """Number of queries needed to detect a true mean delta ``delta``.

    ``n = ceil(((z_{1-a} + z_{power}) * sd / delta) ** 2)``, at least 2 (normal
    approximation; the t-test needs a couple more queries at small n).

    Parameters
    ----------
    delta : float
        Effect to detect; its sign is ignored (must be non-zero).
    sd : float
        Standard deviation of per-query deltas (> 0).
    alpha, power : float in (0, 1)
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    int
        ``>= 2``.  Compare with :data:`MIN_QUERIES`.

    Raises
    ------
    ValueError
        If ``delta == 0``, ``sd <= 0`` or probabilities are outside (0, 1).
    """
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real) or not math.isfinite(delta):
        raise ValueError(f"`delta` must be a finite real number, got {delta!r}")
    if delta == 0:
        raise ValueError("`delta` must be non-zero")
    sd = _check_positive(sd, "sd")
    z = _z_sum(alpha, power, alternative)
    n = (z * sd / abs(float(delta))) ** 2
    # guard against 24.000000000000004 -> 25 from rounding noise
    n_int = math.ceil(n - 1e-9 * n)
    return max(2, n_int)
