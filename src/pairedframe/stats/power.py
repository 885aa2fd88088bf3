"""Sample-size and minimum-detectable-effect calculations for paired comparisons.

Distribution functions come from :mod:`scipy.special`.

The power formulas use the normal approximation to the paired t-test (known
``sd``), which is what IR papers conventionally report (e.g. Webber, Moffat &
Zobel 2008; Sakai 2016).  For small ``n`` the t-test has slightly less power
than stated, which is one reason for :data:`MIN_QUERIES`.
"""

from __future__ import annotations

import math
import numbers

from scipy.special import ndtri

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
    return float(ndtri(1.0 - a) + ndtri(power))


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
