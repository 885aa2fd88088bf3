"""Small frozen result containers shared by the statistics layer.

Field names follow :mod:`scipy.stats` where a scipy counterpart exists
(``confidence_interval``, ``standard_error``, ``pvalue``, ``n_resamples``), so
code written against scipy results reads the same against ours.

Fields hold Python floats for scalar results and numpy arrays for the
``*_many`` (column-vectorised) variants.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = [
    "ConfidenceInterval",
    "BootstrapResult",
    "HypothesisTestResult",
    "TTestResult",
    "PowerResult",
    "SignFlipIntervalResult",
]


class ConfidenceInterval(NamedTuple):
    """A confidence interval ``[low, high]``: a named tuple, as scipy's, so ``ci.low``, ``ci[0]`` and
    ``low, high = ci`` all work, and it is immutable.

    ``low`` is ``-inf`` for ``alternative="less"`` and ``high`` is ``+inf`` for
    ``alternative="greater"`` (one-sided bounds), as in scipy.
    """

    low: Any
    high: Any


@dataclass(frozen=True)
class BootstrapResult:
    """Result of a bootstrap of the mean.

    Attributes
    ----------
    statistic : float or ndarray
        The statistic on the original sample (the mean of the deltas).
    confidence_interval : ConfidenceInterval
    standard_error : float or ndarray
        Sample standard deviation (``ddof=1``) of the bootstrap distribution,
        as ``scipy.stats.bootstrap(...).standard_error``.
    n_resamples : int
    confidence_level : float
    method : str
        ``"percentile"``, ``"bca"`` or ``"studentized"``.
    alternative : str
        ``"two-sided"``, ``"greater"`` (interval ``[low, inf)``) or ``"less"`` (``(-inf, high]``), as the
        call asked (scipy's ``bootstrap`` takes it too; it records nothing, hence this field).  There is
        no ``pvalue``: a bootstrap here gives an interval, not a test.
    """

    statistic: Any
    confidence_interval: ConfidenceInterval
    standard_error: Any
    n_resamples: int
    confidence_level: float
    method: str
    alternative: str = "two-sided"


@dataclass(frozen=True)
class HypothesisTestResult:
    """Result of a (resampling or analytic) hypothesis test.

    Attributes
    ----------
    statistic : float or ndarray
        The observed statistic (mean of the deltas for the sign-flip test).
    pvalue : float or ndarray
    n_resamples : int or None
        Number of random resamples, or the number of enumerated patterns
        (``2**n``) when ``exact`` is true; ``None`` for analytic tests.
    alternative : str
    method : str
    exact : bool or ndarray of bool
        True when the null distribution was enumerated exactly (or the test is
        analytic), False for a Monte-Carlo p-value; per column for the sign-flip
        tests of many columns, where a column with few non-zero deltas is
        enumerated over them (:func:`~pairedframe.stats.randomization.settle_on_nonzero`).
    """

    statistic: Any
    pvalue: Any
    n_resamples: int | None
    alternative: str
    method: str
    exact: Any


@dataclass(frozen=True)
class TTestResult:
    """Result of a paired (one-sample on deltas) t-test.

    Attributes
    ----------
    statistic : float or ndarray
        Mean delta (note: scipy's ``statistic`` is the t value; ours is in ``t``).
    t : float or ndarray
        The t statistic ``mean / (sd / sqrt(n))``.
    df : int
        Degrees of freedom ``n - 1``.
    pvalue : float or ndarray
    confidence_interval : ConfidenceInterval
        t-based interval for the mean delta.
    standard_error : float or ndarray
        ``sd / sqrt(n)`` with ``ddof=1``.
    alternative : str
    confidence_level : float
    """

    statistic: Any
    t: Any
    df: int
    pvalue: Any
    confidence_interval: ConfidenceInterval
    standard_error: Any
    alternative: str = "two-sided"
    confidence_level: float = 0.95


@dataclass(frozen=True)
class PowerResult:
    """Result of a power computation (kept for callers that want all inputs echoed)."""

    effect: float
    sd: float
    n: int
    alpha: float
    power: float
    alternative: str


@dataclass(frozen=True)
class SignFlipIntervalResult:
    """Sign-flip test and the confidence interval that inverts it
    (:func:`pairedframe.stats.signflip_interval.sign_flip_interval_many`).

    ``statistic``: mean delta; ``pvalue``: the sign-flip p-value at shift 0;
    ``confidence_interval``: the shifts not rejected at ``1 - confidence_level``;
    ``n_resamples``: sign patterns of the shared stream (``2**n`` if enumerated);
    ``exact``: the p-value is exact (per column for many columns: few non-zero
    deltas are enumerated, as :func:`~pairedframe.stats.randomization.sign_flip_test_many`).
    """

    statistic: Any
    pvalue: Any
    confidence_interval: ConfidenceInterval
    n_resamples: int
    confidence_level: float
    alternative: str
    exact: Any
