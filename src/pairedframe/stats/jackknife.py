"""Delete-one jackknife interval of a statistic over independent units (queries).

``statistic +- t_{n-1, (1 + level) / 2} * se_jack`` with
``se_jack = sqrt((n - 1) / n * sum_i (theta_(i) - mean_i theta_(i))^2)``, ``theta_(i)`` the
statistic without unit ``i`` (Efron & Tibshirani 1993, ch. 11; Fleiss & Davies 1982 for kappa).
Centred on the statistic (no jackknife bias correction) and clipped to the statistic's range.  When
every leave-one-out value is equal (up to float noise, ``1e-12`` of their size: ``zero_spread``) the standard error is 0: the jackknife saw no spread between units,
which is no certainty (common with few units), so the interval is NaN, never a point
(:data:`NO_SPREAD` says so in words).

References
----------
Efron, B. and Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, ch. 11. Chapman & Hall.
Fleiss, J. L. and Davies, M. (1982). Jackknifing functions of multinomial frequencies, with an
application to a measure of concordance. *American Journal of Epidemiology* 115(6).
"""

from __future__ import annotations

import math

import numpy as np

from .results import ConfidenceInterval
from .studentized import zero_spread

__all__ = ["NO_SPREAD", "jackknife_se", "jackknife_t_interval"]

#: Why a statistic whose leave-one-out values are all equal gets a NaN jackknife interval (for warnings).
NO_SPREAD = ("the jackknife sees no spread between queries and its standard error is 0; that is no certainty, "
             "so the interval is NaN, not a point")


def jackknife_se(leave_one_out) -> float:
    """Jackknife standard error from the ``n`` leave-one-out values (NaN if any is NaN or ``n < 2``).

    Parameters
    ----------
    leave_one_out : array_like, shape (n,)
        The statistic recomputed without each unit in turn.

    Returns
    -------
    float
        ``sqrt((n - 1) / n * sum((v - mean(v))^2))``, >= 0.
    """
    v = np.asarray(leave_one_out, dtype=np.float64).ravel()
    n = v.size
    if n < 2 or not np.isfinite(v).all():
        return math.nan
    if zero_spread(v)[0]:     # equal up to float noise (1e-12 of their size): no spread, not a point interval
        return 0.0
    d = v - v[0]
    return float(math.sqrt((n - 1) / n * np.sum((d - d.mean()) ** 2)))


def jackknife_t_interval(statistic: float, leave_one_out, *, confidence_level: float = 0.95,
                         bounds: tuple[float, float] = (-math.inf, math.inf)) -> ConfidenceInterval:
    """Two-sided jackknife t interval ``statistic +- t_{n-1} * se_jack``, clipped to ``bounds``.

    Parameters
    ----------
    statistic : float
        The statistic on all ``n`` units.
    leave_one_out : array_like, shape (n,)
        The statistic without each unit in turn.
    confidence_level : float in (0, 1), default 0.95
    bounds : (float, float)
        The statistic's range; the ends are clipped to it.

    Returns
    -------
    ConfidenceInterval
        Contains ``statistic`` whenever finite; NaN ends when ``statistic`` or a leave-one-out value is
        NaN, ``n < 2``, or every leave-one-out value is equal (a standard error of 0: :data:`NO_SPREAD`).
    """
    se = jackknife_se(leave_one_out)
    if not (math.isfinite(statistic) and math.isfinite(se)) or se == 0.0:
        return ConfidenceInterval(math.nan, math.nan)
    from scipy.stats import t  # lazy: scipy.stats costs ~1 s at import

    n = np.asarray(leave_one_out).size
    half = float(t.ppf((1 + confidence_level) / 2, n - 1)) * se
    return ConfidenceInterval(float(max(bounds[0], statistic - half)), float(min(bounds[1], statistic + half)))
