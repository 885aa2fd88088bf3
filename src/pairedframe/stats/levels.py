"""The significance level every decision compares a p-value with."""

from __future__ import annotations

import numpy as np

__all__ = ["decision_alpha", "level_value", "percent"]


def level_value(level) -> float:
    """A level (``confidence_level``, ``power``) as a Python float; a numpy float narrower than 64 bits as
    the decimal it prints as: ``np.float32(0.95)`` is 0.95, not 0.949999988 (a level read from a float32
    array or config means what it shows; taken bit for bit, p = 0.05 would be significant "at 95 %")."""
    if isinstance(level, np.floating) and level.dtype.itemsize < 8:
        return float(str(level))
    return float(level)


def decision_alpha(confidence_level: float) -> float:
    """The level ``alpha`` of every decision: ``1 - confidence_level`` without its float noise.

    ``1 - 0.95`` is ``0.05000000000000004`` and ``1 - 0.9`` is ``0.09999999999999998``, so comparing
    ``p < 1 - confidence_level`` would call ``p = 0.05`` significant at 95 % but ``p = 0.1``
    not at 90 %.  Rounded to 12 decimals, the rule ``p < alpha`` is the same at every level: a
    p-value equal to ``alpha`` is never significant.  The intervals that invert a sign-flip test
    (:mod:`pairedframe.stats.signflip_interval`, :mod:`pairedframe.stats.cluster_interval`) hold the shifts
    whose p is not below this same ``alpha``, so they exclude 0 exactly when ``p < alpha``; the other
    intervals take their quantiles at ``1 - confidence_level``.

    Parameters
    ----------
    confidence_level : float
        In ``(0, 1)``.

    Returns
    -------
    float
        ``round(1 - confidence_level, 12)``.

    Examples
    --------
    >>> decision_alpha(0.95), decision_alpha(0.9), decision_alpha(0.99)
    (0.05, 0.1, 0.01)
    """
    return round(1.0 - float(confidence_level), 12)


def percent(level: float) -> str:
    """A level as a percentage without the % sign, as many digits as it has: ``0.95`` -> ``"95"``,
    ``0.999`` -> ``"99.9"``, ``0.975`` -> ``"97.5"`` (a whole-percent format printed 0.999 as "100").

    Examples
    --------
    >>> percent(0.95), percent(0.999), percent(1 - 2 * 0.05)
    ('95', '99.9', '90')
    """
    return f"{round(100.0 * float(level), 10):g}"
