"""Prediction-powered inference (PPI++) for the mean of a per-query quantity.

Typical use in IR: the gold metric (from human judgments) is known for a few
queries, a proxy metric (from LLM / automatic judgments) for many.  Apply this
to *paired differences* (system B minus system A, per query): ``gold`` holds the
true metric deltas on the labelled queries, ``proxy_on_gold`` the proxy deltas
on the same queries, ``proxy_unlabelled`` the proxy deltas on the queries
without gold labels.  The estimate of the mean delta is then unbiased whatever
the quality of the proxy, and its interval is narrower than the gold-only
interval when the proxy correlates with the gold metric.

Small gold samples
------------------
The PPI++ normal interval (``method="z"``, as ``ppi_py``) assumes many gold
labels; at 10-30 it is too narrow twice over: the z quantile, and the
power-tuned ``lam`` fitted on the same few labels (its plug-in variance is the
minimised one).  ``method="jackknife-t"`` takes the variance of the
gold part from the delete-one jackknife of the whole estimator (``lam``
re-tuned without each gold query; the jackknife variance is conservative in
expectation, Efron & Stein 1981) plus the proxy-only part, with Student-t
quantiles on ``n - 2`` degrees of freedom when ``lam`` is tuned (a mean adjusted
by one fitted coefficient, as Cochran's regression estimator, 1977 sec. 7.3)
and ``n - 1`` when it is fixed (then the jackknife variance is the plug-in one).
Skewed gold deltas still leave it short of 95 % at 10 gold labels; the default
``method="jackknife-edgeworth"`` corrects its two-sided t quantile by the
second-order Edgeworth term of the rectifier's skew and kurtosis
(:mod:`pairedframe.stats.edgeworth`; conservative when the proxy-only part of
the variance is large) and takes the p-value dual to that interval.
Calibration on TREC DL-2019 (NIST gold, Llama-3.3-70B proxy, gold queries drawn
i.i.d.): docs/how/calibration.md (``benchmarks/calibration --section ppi``).
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from pairedframe.errors import (
    USE_CONFIDENCE_LEVEL,
    InsufficientSampleError,
    SmallSampleWarning,
    renamed_keywords,
    user_stacklevel,
)
from scipy.special import ndtr, ndtri, stdtr, stdtrit

from pairedframe.stats.results import ConfidenceInterval
from pairedframe.stats.edgeworth import edgeworth_t_pvalue, edgeworth_t_quantile
from pairedframe.stats.studentized import zero_spread
from pairedframe.stats.ttest import _zero_spread_result
from pairedframe.stats.resample import _check_1d, _check_alternative, _check_probability

__all__ = ["PPIResult", "ppi_mean", "PPI_METHODS", "CALIBRATED_GOLD_N"]

#: Interval methods of :func:`ppi_mean`.
PPI_METHODS = ("jackknife-edgeworth", "jackknife-t", "t", "z")

#: Below this many gold (labelled) queries a :class:`SmallSampleWarning` is issued for
#: ``method="z"``: the normal approximation of the rectifier's mean is doubtful.
SMALL_GOLD_N = 30

#: Below this many gold queries every method warns: the calibration (docs/how/calibration.md) starts at
#: 10, and with a tuned ``lam`` the t reference has ``max(n - 2, 1)`` degrees of freedom.
CALIBRATED_GOLD_N = 10


@dataclass(frozen=True)
class PPIResult:
    """Result of :func:`ppi_mean`.

    Attributes
    ----------
    statistic : float
        The PPI++ point estimate ``mean(lam * f_unlab) + mean(gold - lam * f_gold)``.
    confidence_interval : ConfidenceInterval
        At ``confidence_level`` (one-sided bounds are infinite), ``statistic -/+ q * standard_error``
        with ``q`` by ``method``: the default ``"jackknife-edgeworth"`` takes the ``t(df)`` quantile
        corrected by the Edgeworth term of the rectifier's skew and kurtosis (two-sided; one-sided
        plain ``t(df)``), ``"jackknife-t"`` and ``"t"`` the ``t(df)`` quantile, ``"z"`` the normal
        one.  With no spread (``standard_error = 0``) the whole line, as
        :func:`~pairedframe.stats.ttest.paired_t_test` gives without ``delta_range``: never a point.
    pvalue : float
        Of H0: mean = 0 against ``alternative``, dual to the interval (but with no spread, whose interval is
        the whole line): the Edgeworth-corrected t
        p-value (``"jackknife-edgeworth"``, two-sided), a t-test on ``df`` (``"jackknife-t"``,
        ``"t"``, and one-sided ``"jackknife-edgeworth"``) or a z-test (``"z"``); the exact sign-flip
        p-value ``2 / 2**n`` (one-sided ``1 / 2**n``; 1 for a zero estimate) with no spread.
    standard_error : float
        ``sqrt(V_gold + var(lam * f_unlab) / N)`` (the second term only when ``lam != 0``), where
        ``V_gold`` is the delete-one jackknife variance of the estimator over the gold queries, ``lam``
        re-tuned per deletion (jackknife methods with a tuned ``lam``), else the plug-in
        ``var(gold - lam * f_gold) / n``; variances with ``ddof``.  0 with no spread.
    lam : float
        The power-tuning parameter used (estimated or fixed).
    n_gold : int
        Number of labelled queries ``n``.
    n_proxy : int
        Number of unlabelled queries ``N`` (proxy only).
    confidence_level : float
    alternative : str
    ddof : int
        Delta degrees of freedom of the plug-in variances in ``standard_error``.
    method : str
        ``"jackknife-edgeworth"``, ``"jackknife-t"``, ``"t"`` or ``"z"`` (see :func:`ppi_mean`).
    df : float or None
        Degrees of freedom of the t reference (``max(n - 2, 1)`` for a tuned ``lam`` with a
        jackknife method, else ``n - 1``), None for ``"z"``.
    """

    statistic: float
    confidence_interval: ConfidenceInterval
    pvalue: float
    standard_error: float
    lam: float
    n_gold: int
    n_proxy: int
    confidence_level: float
    alternative: str
    ddof: int
    method: str = "z"
    df: float | None = None


def _ndtri(p: float) -> float:
    return float(ndtri(p))


def _upper_tail(z: float) -> float:
    return float(ndtr(-z))


def _jackknife_gold_variance(y: np.ndarray, f_gold: np.ndarray, f_unlab: np.ndarray, lam: float | None) -> float:
    """Delete-one jackknife variance of the PPI++ estimate over the gold queries (``lam`` re-tuned)."""
    n = y.shape[0]
    f_mean = float(f_unlab.mean()) if f_unlab.shape[0] else 0.0
    keep = ~np.eye(n, dtype=bool)
    loo = np.empty(n)
    for i in range(n):
        yi, fi = y[keep[i]], f_gold[keep[i]]
        li = _tuned_lambda(yi, fi, f_unlab) if lam is None else lam
        loo[i] = li * f_mean + float(np.mean(yi - li * fi))
    return float((n - 1) / n * np.sum((loo - loo.mean()) ** 2))


def _tuned_lambda(gold: np.ndarray, f_gold: np.ndarray, f_unlab: np.ndarray) -> float:
    """Power-tuned lambda, computed exactly as ``ppi_py`` (0.2.x) does for the mean."""
    n, big_n = gold.shape[0], f_unlab.shape[0]
    if big_n < 2 or zero_spread(gold)[0]:
        return 0.0     # equal gold values: their covariance with the proxy is 0 (float noise otherwise)
    cov = float(np.mean((gold - gold.mean()) * (f_gold - f_gold.mean())))  # 1/n, as ppi_py
    var_f = float(np.var(np.concatenate([f_gold, f_unlab]), ddof=1))  # np.cov of pooled proxies
    if not var_f > 0.0:
        return 0.0  # constant proxy: it carries no information
    lam = cov / ((1.0 + n / big_n) * var_f)
    return float(min(1.0, max(0.0, lam)))


@renamed_keywords(alpha=USE_CONFIDENCE_LEVEL)
def ppi_mean(gold, proxy_on_gold, proxy_unlabelled, *, lam: float | None = None,
             confidence_level: float = 0.95, alternative: str = "two-sided", ddof: int = 1,
             method: str = "jackknife-edgeworth") -> PPIResult:
    """PPI++ estimate, confidence interval and p-value for a mean.

    Parameters
    ----------
    gold : array_like, shape (n,)
        Gold (true) values on the labelled queries, e.g. per-query metric deltas
        computed from human judgments.  ``n >= 2``.
    proxy_on_gold : array_like, shape (n,)
        Proxy (predicted) values on the *same* labelled queries, same order.
    proxy_unlabelled : array_like, shape (N,)
        Proxy values on the queries without gold labels (may be empty).
    lam : float, optional
        Power-tuning parameter.  ``None`` (default) estimates
        ``lam = Cov(gold, proxy_on_gold) / ((1 + n/N) * Var(proxy))`` clipped to
        ``[0, 1]`` (PPI++ power tuning).  ``0`` gives the classical interval
        on the gold values only; ``1`` gives plain PPI.  A fixed value must be
        finite.
    confidence_level : float in (0, 1), default 0.95
        Coverage of the interval; the test's level is ``alpha = 1 - confidence_level``.  (``ppi_py``
        defaults to ``alpha = 0.1``.)
    alternative : {"two-sided", "greater", "less"}
        For the p-value (H0: mean = 0) and the interval: ``"greater"`` gives
        ``[low, inf)``, ``"less"`` gives ``(-inf, high]``.
    ddof : {1, 0}, default 1
        Delta degrees of freedom of the two plug-in variances in the standard
        error (the proxy-only part always; the gold part unless jackknifed).
        ``1`` (default) makes ``lam = 0`` with ``method="t"`` the usual paired
        t interval ``mean +/- t(n-1) * sd(ddof=1) / sqrt(n)``; ``0`` with
        ``method="z"`` reproduces ``ppi_py`` exactly.
    method : {"jackknife-edgeworth", "jackknife-t", "t", "z"}, default "jackknife-edgeworth"
        ``"jackknife-edgeworth"``: as ``"jackknife-t"`` with the two-sided quantile corrected for
        the skew and kurtosis of the rectifier ``gold - lam * proxy_on_gold``
        (:func:`~pairedframe.stats.edgeworth.edgeworth_t_quantile`) and the two-sided p-value
        dual to that interval (excludes 0 iff ``p < alpha``; one-sided: as ``"jackknife-t"``).
        ``"jackknife-t"``: gold-part variance from the delete-one jackknife of the
        estimator (``lam`` re-tuned per deletion), t quantiles and p-value on
        ``n - 2`` degrees of freedom for a tuned ``lam`` (``n - 1`` for a fixed
        one; module docstring).  ``"t"``: plug-in
        variance, t on ``n - 1``.  ``"z"``: plug-in variance, normal quantiles
        (``ppi_py``; under-covers with few gold queries).

    Returns
    -------
    PPIResult
        ``statistic``, ``confidence_interval``, ``pvalue``, ``standard_error``,
        ``lam``, ``n_gold``, ``n_proxy`` (and the options used).

    Raises
    ------
    InsufficientSampleError
        If ``n < 2``, or a fixed non-zero ``lam`` is given with ``N < 2``.
    ValueError
        On shape mismatch between ``gold`` and ``proxy_on_gold``, non-finite
        values, non-1-D input, ``confidence_level`` outside ``(0, 1)``, unknown
        ``alternative`` or ``ddof`` not in {0, 1}.
    TypeError
        If ``lam`` is not a real number.

    Warns
    -----
    SmallSampleWarning
        If ``n < 30`` with ``method="z"`` (the normal interval is too narrow there), or ``n < 10``
        with any method (below the calibrated range; ``df = max(n - 2, 1)`` with a tuned ``lam``).

    Notes
    -----
    *Degenerate inputs.*  With ``N < 2`` unlabelled proxies (and ``lam=None``),
    a constant proxy or gold values without spread (up to float noise), ``lam = 0``.  If the rectifier ``gold - lam * proxy_on_gold`` (and, for
    ``lam != 0``, the imputed proxies) is constant up to float noise (spread <= 1e-12 of its scale),
    there is no spread to estimate an error from, and the result is that of the exact sign-flip test
    on the ``n`` gold values (as :func:`~pairedframe.stats.ttest.paired_t_test` does): ``p = 2 / 2**n``
    (one-sided ``1 / 2**n``) for a non-zero estimate, 1 for 0, ``standard_error = 0``, ``df`` None, and
    the interval is the whole line (n equal values bound nothing about the spread; the point it once was,
    when ``p < alpha``, claimed certainty).

    *Relation to ppi_py 0.2.3* (``ppi_mean_pointestimate``, ``ppi_mean_ci``):
    the point estimate and ``lam`` are computed as there (its ``lam`` uses a
    ``1/n`` covariance on the gold queries and the ``ddof=1`` variance of all
    ``n + N`` proxies pooled).  Deliberate differences: standard errors use
    ``ddof=1`` by default (``ddof=0`` matches ``ppi_py``); ``alternative`` is
    honoured also when ``lam`` is estimated (``ppi_mean_ci`` drops it in that
    case); the p-value uses the clipped ``lam`` (``ppi_mean_pval`` does not
    clip); ``ppi_py`` floors the standard error at ``1e-16``, we do not.

    References
    ----------
    Angelopoulos, A. N., Duchi, J. C., & Zrnic, T. (2023). PPI++: Efficient
    prediction-powered inference. arXiv:2311.01453.
    Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I., & Zrnic, T.
    (2023). Prediction-powered inference. Science 382(6671), 669-674.
    Efron, B. & Stein, C. (1981). The jackknife estimate of variance. Ann.
    Statist. 9(3), 586-596.
    Cochran, W. G. (1977). Sampling Techniques, 3rd ed., sec. 7.3 (regression
    estimator: n - 2 degrees of freedom).
    Zrnic, T. & Candes, E. J. (2024). Cross-prediction-powered inference. PNAS
    121(15) (re-using the labels that tune the predictor inflates error).
    Hall, P. (1992). *The Bootstrap and Edgeworth Expansion*, sec. 2.6, 3.5
    (the two-sided correction of ``"jackknife-edgeworth"``).
    """
    y = _check_1d(gold, "gold", min_n=2)
    f_gold = _check_1d(proxy_on_gold, "proxy_on_gold", min_n=0)
    f_unlab = _check_1d(proxy_unlabelled, "proxy_unlabelled", min_n=0)
    if f_gold.shape != y.shape:
        raise ValueError(
            f"proxy_on_gold must have the same length as gold ({y.shape[0]}), got {f_gold.shape[0]}")
    confidence_level = _check_probability(confidence_level, "confidence_level")
    alpha = 1.0 - confidence_level
    alternative = _check_alternative(alternative)
    if isinstance(ddof, (bool, np.bool_)) or ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    if method not in PPI_METHODS:
        raise ValueError(f"method must be one of {PPI_METHODS}, got {method!r}")
    n, big_n = y.shape[0], f_unlab.shape[0]
    if n < SMALL_GOLD_N and method == "z":
        warnings.warn(
            f"only {n} gold queries (< {SMALL_GOLD_N}): the normal interval may undercover; "
            "method='jackknife-edgeworth' is calibrated for 10-30 gold labels", SmallSampleWarning,
            stacklevel=user_stacklevel())
    elif n < CALIBRATED_GOLD_N:
        warnings.warn(
            f"only {n} gold queries (< {CALIBRATED_GOLD_N}, below the calibrated 10-30): with a tuned lam the t "
            f"reference has max(n - 2, 1) = {max(n - 2, 1)} degree(s) of freedom and the interval's coverage is unmeasured",
            SmallSampleWarning, stacklevel=user_stacklevel())

    if lam is None:
        lam_v = _tuned_lambda(y, f_gold, f_unlab)
    else:
        if isinstance(lam, (bool, np.bool_)) or not isinstance(lam, numbers.Real):
            raise TypeError(f"lam must be None or a real number, got {lam!r}")
        lam_v = float(lam)
        if not (math.isfinite(lam_v) and 0.0 <= lam_v <= 1.0):
            raise ValueError(f"lam must be in [0, 1] (0 = gold only, 1 = plain PPI), got {lam_v!r}")
        if lam_v != 0.0 and big_n < 2:
            raise InsufficientSampleError(
                f"lam={lam_v} needs at least 2 values in proxy_unlabelled, got {big_n}")

    rectifier = y - lam_v * f_gold
    estimate = float(rectifier.mean())
    jackknife = method.startswith("jackknife")
    if jackknife and lam is None and n > 2:
        var = _jackknife_gold_variance(y, f_gold, f_unlab, None)
    else:   # a fixed lam: the jackknife variance of the rectifier's mean is this plug-in one (ddof=1); so for
        # 2 gold queries too, whose leave-one-out samples (one value each) cannot tune lam: re-tuned to 0 there,
        # the jackknife measured the gold-only mean, not the estimate (12 times too wide an interval)
        var = float(np.var(rectifier, ddof=ddof)) / n
    if lam_v != 0.0:
        imputed = lam_v * f_unlab
        estimate = float(imputed.mean()) + estimate
        var += float(np.var(imputed, ddof=ddof)) / big_n
    se = math.sqrt(var)
    if zero_spread(rectifier)[0] and (lam_v == 0.0 or zero_spread(lam_v * f_unlab)[0]):
        # constant up to float noise: no certainty from it -- the exact sign-flip test on the n gold values
        # its interval is paired_t_test's without a delta_range: the whole line, never the point (n equal
        # values say nothing of the spread of the population they came from)
        _, pvalue, _, _, _ = _zero_spread_result(n, estimate, alternative, confidence_level)
        whole_line = ConfidenceInterval(-math.inf, math.inf)
        return PPIResult(statistic=estimate, confidence_interval=whole_line, pvalue=pvalue,
                         standard_error=0.0, lam=lam_v, n_gold=n, n_proxy=big_n, confidence_level=confidence_level, alternative=alternative,
                         ddof=int(ddof), method=method, df=None)
    if method == "z":
        df = None
    elif jackknife and lam is None:
        df = float(max(n - 2, 1))        # the mean and the tuned lam are fitted on the gold queries
    else:
        df = float(n - 1)

    def quantile(p: float) -> float:
        return _ndtri(p) if df is None else float(stdtrit(df, p))

    edgeworth = method == "jackknife-edgeworth" and alternative == "two-sided"
    if edgeworth:
        half = float(edgeworth_t_quantile(rectifier, df, confidence_level=confidence_level)) * se
        ci = ConfidenceInterval(estimate - half, estimate + half)
    elif alternative == "two-sided":
        half = quantile(1.0 - alpha / 2.0) * se
        ci = ConfidenceInterval(estimate - half, estimate + half)
    elif alternative == "greater":
        ci = ConfidenceInterval(estimate - quantile(1.0 - alpha) * se, math.inf)
    else:
        ci = ConfidenceInterval(-math.inf, estimate + quantile(1.0 - alpha) * se)

    if se == 0.0:  # degenerate: the estimate is certain
        if alternative == "two-sided":
            pvalue = 1.0 if estimate == 0.0 else 0.0
        elif alternative == "greater":
            pvalue = 0.0 if estimate > 0.0 else 1.0
        else:
            pvalue = 0.0 if estimate < 0.0 else 1.0
    else:
        z = estimate / se

        def tail(x: float) -> float:
            return _upper_tail(x) if df is None else float(stdtr(df, -x))

        if edgeworth:
            pvalue = edgeworth_t_pvalue(z, rectifier, df)
        elif alternative == "two-sided":
            pvalue = min(1.0, 2.0 * tail(abs(z)))
        elif alternative == "greater":
            pvalue = tail(z)
        else:
            pvalue = tail(-z)

    return PPIResult(statistic=estimate, confidence_interval=ci, pvalue=pvalue,
                     standard_error=se, lam=lam_v, n_gold=n, n_proxy=big_n,
                     confidence_level=confidence_level, alternative=alternative, ddof=int(ddof), method=method,
                     df=df)
