"""Paired t-test on per-query deltas (one-sample t-test of ``d = A - B`` against 0).

Distribution functions from :mod:`scipy.special`; equals ``scipy.stats.ttest_1samp(d, 0)`` /
``ttest_rel(a, b)`` including its ``confidence_interval`` to ~1e-12 (tested) whenever the deltas
have a real spread and no ``delta_range`` is given.

``delta_range=(lo, hi)`` -- the values one delta can take, ``(-1, 1)`` for a measure in ``[0, 1]`` --
keeps the interval inside it, as :func:`pairedframe.compare` keeps its intervals inside the measure's
range of mean deltas (:mod:`pairedframe.comparison.interval_range`): the mean of deltas in
``[lo, hi]`` lies in ``[lo, hi]``, so an end beyond it is moved to it (coverage unchanged, the interval
only shorter; two deltas +0.5 and -0.5 give ``[-1, 1]``, not t's ``[-6.35, 6.35]``); the open side of a
one-sided interval stays infinite.  A delta outside ``delta_range`` is an error (the range is wrong, or
the values are on another scale).

Zero spread (documented deviation from scipy): a spread ``max(d) - min(d)`` of at most ``1e-12`` of
``max|d|`` is float noise (e.g. ``0.5 - 0.4`` and ``0.6 - 0.5``), and the t statistic of such data
measures rounding, not evidence (scipy reports ``p ~ 1e-16`` for those two deltas).  The t-test then
follows the rule :func:`pairedframe.compare` follows for ``n`` equal deltas ``c = mean(d)``
(docs/guide/comparing.md), whatever its ``test``:

- the p-value is the **exact sign-flip test**'s: ``c == 0`` (all zero): ``t = 0``, ``p = 1``;
  ``c != 0``: ``t = +-inf``, two-sided ``p = 2 / 2**n`` (``"greater"``: ``1 / 2**n`` if ``c > 0``
  else 1; ``"less"`` mirrored) -- never 0, and 0.5 at ``n = 2``;
- the interval is the range of means that ``n`` equal deltas allow
  (:func:`pairedframe.stats.value_range.constant_sample_interval`, Clopper-Pearson's bound): with
  ``delta_range=(lo, hi)`` it is
  ``[c - (1 - beta)(c - lo), c + (1 - beta)(hi - c)]``, ``beta = (alpha/2)**(1/n)`` (one-sided:
  ``alpha**(1/n)`` on the bounded side), and without a known range (the default) the whole line --
  never a point: ``n`` equal deltas say nothing about the spread of their population.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np
from scipy.special import stdtr, stdtrit

from .results import ConfidenceInterval, TTestResult
from .resample import _check_1d, _check_2d, _check_alternative, _check_probability
from .studentized import zero_spread
from .value_range import clip_to_range, constant_sample_interval

__all__ = ["paired_t_test", "paired_t_test_many", "t_pvalue", "t_test_from_moments", "SMALLEST_NORMAL", "P_FLOOR"]


def _t_value(d: np.ndarray, mean: float, sd: float) -> tuple[float, float]:
    """(t, se); t recomputed on rescaled data when the deltas are so small (|d| < 1e-140) that their
    squares lose precision or underflow."""
    n = d.shape[0]
    se = sd / math.sqrt(n)
    # squares of |d| < ~1e-150 are subnormal and lose digits: then t comes from rescaled data
    if se > 0 and math.isfinite(se) and float(np.max(np.abs(d))) > 1e-140:
        return mean / se, se
    ds = d / np.max(np.abs(d))
    return float(np.mean(ds)) / (float(np.std(ds, ddof=1)) / math.sqrt(n)), se


def _zero_spread_result(n: int, mean: float, alternative: str,
                        confidence_level: float) -> tuple[float, float, float, float, float]:
    """(t, p, se, low, high) of n equal deltas ``mean``: the exact sign-flip test and its inversion."""
    alpha = 1.0 - confidence_level
    # 2**-n without overflow at n >= 1024; below the smallest float it is still > 0 (never p = 0)
    floor = max(math.ldexp(2.0 if alternative == "two-sided" else 1.0, -n), math.ulp(0.0))
    if mean == 0.0:
        t, p = 0.0, 1.0
    else:
        t = math.copysign(math.inf, mean)
        towards = alternative == "two-sided" or (mean > 0) == (alternative == "greater")
        p = floor if towards else 1.0
    if floor < alpha:           # every other shift leaves n equal non-zero deltas: rejected
        low = -math.inf if alternative == "less" else mean
        high = math.inf if alternative == "greater" else mean
    else:
        low, high = -math.inf, math.inf
    return t, p, 0.0, low, high


def _check_delta_range(delta_range, d: np.ndarray, name: str) -> tuple[float, float]:
    """(lo, hi) of ``delta_range`` (unbounded if None), checked to hold 0 and every delta of ``d``
    (up to 1e-9 of the bound, compare's tolerance for values on the measure's scale)."""
    if delta_range is None:
        return -math.inf, math.inf
    try:
        lo, hi = (float(v) for v in delta_range)
    except (TypeError, ValueError):
        raise ValueError(f"`delta_range` must be a pair (low, high) of numbers, got {delta_range!r}") from None
    if math.isnan(lo) or math.isnan(hi) or not lo <= 0.0 <= hi:
        raise ValueError(f"`delta_range` must be (low, high) with low <= 0 <= high, got {delta_range!r}")
    beyond = (d < lo - 1e-9 * abs(lo)) | (d > hi + 1e-9 * abs(hi))
    if beyond.any():
        where = tuple(int(i) for i in np.argwhere(beyond)[0])
        raise ValueError(f"`delta_range` {delta_range!r} does not hold {name}[{', '.join(map(str, where))}] = "
                         f"{float(d[where]):.6g} ({int(beyond.sum())} delta(s) outside it): give the range of one "
                         "delta of these values (on another scale, e.g. x 100, it is wider), or none")
    return lo, hi


#: Smallest normal double (2.2e-308): a t tail below it is reported as :data:`P_FLOOR`.
SMALLEST_NORMAL = sys.float_info.min
#: The p-value reported for a t tail below :data:`SMALLEST_NORMAL`: the smallest positive double, 5e-324.
P_FLOOR = math.ulp(0.0)


def t_pvalue(df: int, t: float, alternative: str) -> float:
    """Student's t p-value of ``t`` on ``df`` degrees of freedom; below the smallest normal double
    (:data:`SMALLEST_NORMAL`, 2.2e-308) it is :data:`P_FLOOR`, ``math.ulp(0.0)``: scipy's tail keeps only a few
    digits in the subnormal range and then underflows to 0.0, and the SQL macro ``pf_compare`` (whose continued
    fraction would give other subnormals) floors it alike.  No test's p is ever exactly 0, as the sign-flip
    paths' are not, so -log10(p) and the Holm / BH steps stay defined."""
    if alternative == "two-sided":
        p = min(1.0, 2.0 * float(stdtr(df, -abs(t))))
    else:
        p = float(stdtr(df, -t if alternative == "greater" else t))
    return p if p >= SMALLEST_NORMAL else P_FLOOR


def _one(d: np.ndarray, mean: float, sd: float, constant: bool, alternative: str,
         confidence_level: float, delta_range: tuple[float, float]) -> tuple[float, float, float, float, float]:
    n = d.shape[0]
    df = n - 1
    if constant:     # compare's rule for equal deltas: the sign-flip p, the range-based interval
        t, p, se, _, _ = _zero_spread_result(n, mean, alternative, confidence_level)
        low, high = constant_sample_interval(np.array([mean]), n, *delta_range, confidence_level=confidence_level,
                                             alternative=alternative)
        return t, p, se, float(low[0]), float(high[0])
    t, se = _t_value(d, mean, sd)
    p = t_pvalue(df, t, alternative)
    if alternative == "two-sided":
        q = float(stdtrit(df, 0.5 + confidence_level / 2))
        low, high = mean - q * se, mean + q * se
    elif alternative == "greater":
        q = float(stdtrit(df, confidence_level))
        low, high = mean - q * se, math.inf
    else:
        q = float(stdtrit(df, confidence_level))
        low, high = -math.inf, mean + q * se
    # the mean of deltas in delta_range lies in it: ends beyond it move to it (compare's clipping)
    low_in, high_in, _ = clip_to_range([low], [high], *delta_range, alternative=alternative)
    return t, p, se, float(low_in[0]), float(high_in[0])


def paired_t_test(d, *, alternative: str = "two-sided",
                  confidence_level: float = 0.95, delta_range: tuple[float, float] | None = None) -> TTestResult:
    """Paired t-test of H0: mean delta = 0.

    Parameters
    ----------
    d : array_like, shape (n,)
        Per-query deltas A - B; finite, ``n >= 2``.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: mean delta > 0.
    confidence_level : float in (0, 1), default 0.95
        For the t interval of the mean delta (one-sided for one-sided tests,
        as ``scipy.stats.ttest_1samp(...).confidence_interval``).
    delta_range : (float, float), optional
        The values one delta can take, ``(lo, hi)`` with ``lo <= 0 <= hi`` (``(-1, 1)`` for a measure
        in ``[0, 1]``, as :func:`pairedframe.compare` takes it from the measure).  The interval is kept
        inside it (ends beyond it moved to it; the open side of a one-sided interval stays infinite),
        and it bounds the interval of deltas without spread.  Default: unbounded (no clipping; the
        interval of deltas without spread is then the whole line).

    Returns
    -------
    TTestResult
        ``statistic`` = mean delta, ``t``, ``df = n - 1``, ``pvalue``,
        ``confidence_interval``, ``standard_error = sd(ddof=1) / sqrt(n)``.

    Raises
    ------
    InsufficientSampleError
        If ``n < 2`` (no degrees of freedom).
    ValueError, TypeError
        On non-finite data or invalid options, or a delta outside ``delta_range``.

    Notes
    -----
    Zero spread (all deltas equal up to ``1e-12`` of their magnitude) follows
    :func:`pairedframe.compare`'s rule, see the module docstring: the exact sign-flip p-value, ``t = 0``
    (all zero) or ``+-inf``, and the range-based interval of ``n`` equal deltas (the whole line when
    ``delta_range`` is not given), never a point.

    References
    ----------
    Student (1908). The probable error of a mean. Biometrika 6(1).
    """
    d = _check_1d(d, "d", min_n=2)
    alternative = _check_alternative(alternative)
    confidence_level = _check_probability(confidence_level, "confidence_level")
    delta_range = _check_delta_range(delta_range, d, "d")
    n = d.shape[0]
    mean = float(np.mean(d))
    sd = float(np.std(d, ddof=1))
    t, p, se, low, high = _one(d, mean, sd, bool(zero_spread(d)[0]), alternative,
                               confidence_level, delta_range)
    return TTestResult(statistic=mean, t=t, df=n - 1, pvalue=p,
                       confidence_interval=ConfidenceInterval(low, high), standard_error=se,
                       alternative=alternative, confidence_level=confidence_level)


def paired_t_test_many(D, *, alternative: str = "two-sided",
                       confidence_level: float = 0.95, delta_range: tuple[float, float] | None = None) -> TTestResult:
    """Column-wise :func:`paired_t_test` of ``D`` (n, k); fields are arrays of shape (k,) (``delta_range``
    the same for every column: it clips every column's interval).

    Raises
    ------
    InsufficientSampleError
        If ``n < 2``.
    ValueError
        If a delta lies outside ``delta_range``.
    """
    D = _check_2d(D, "D", min_n=2)
    alternative = _check_alternative(alternative)
    confidence_level = _check_probability(confidence_level, "confidence_level")
    delta_range = _check_delta_range(delta_range, D, "D")
    n, k = D.shape
    cols = np.ascontiguousarray(D.T)  # same summation order as the 1-D function
    means = np.mean(cols, axis=1)
    sds = np.std(cols, axis=1, ddof=1)
    constant = zero_spread(D)
    rows = [_one(cols[c], float(means[c]), float(sds[c]), bool(constant[c]), alternative,
                 confidence_level, delta_range) for c in range(k)]
    arr = np.array(rows, dtype=np.float64).reshape(k, 5)
    return TTestResult(statistic=means, t=arr[:, 0], df=n - 1, pvalue=arr[:, 1],
                       confidence_interval=ConfidenceInterval(arr[:, 3], arr[:, 4]),
                       standard_error=arr[:, 2], alternative=alternative,
                       confidence_level=confidence_level)


@functools.lru_cache(maxsize=4096)
def _t_quantile(q: float, df: int) -> float:
    return float(stdtrit(df, q))


def t_test_from_moments(mean: np.ndarray, sd: np.ndarray, n: np.ndarray, constant: np.ndarray, alternative: str,
                        confidence_level: float) -> dict[str, np.ndarray]:
    """Paired t-tests of many samples from their moments (the rules of :func:`paired_t_test`).

    Parameters
    ----------
    mean, sd : ndarray of float, shape (k,)
        Mean and standard deviation (ddof 1) of each sample of deltas.
    n : ndarray, shape (k,)
        Sample sizes (>= 2).
    constant : ndarray of bool, shape (k,)
        Samples with no spread (n equal deltas ``mean``): the exact sign-flip test instead of the t-test
        (never ``p = 0``): ``p = 2 / 2**n`` two-sided, ``1 / 2**n`` one-sided towards ``mean`` and 1 away
        from it, 1 when ``mean == 0``; the interval is the point ``mean`` (open on a one-sided test's far
        side) when that smallest p is below ``1 - confidence_level``, else unbounded.  No ``delta_range``
        here: :func:`paired_t_test` clips to it and bounds the unbounded case by it, callers of this
        function do both themselves.
    alternative : {"two-sided", "greater", "less"}
    confidence_level : float in (0, 1)

    Returns
    -------
    dict of ndarray, shape (k,)
        ``pvalue``, ``ci_low``, ``ci_high`` (the t interval; infinite on the open side of a one-sided
        test) and ``se`` (0 for constant samples).  Only the t tail is computed per sample (scalar
        incomplete beta); no resampling.
    """
    k = mean.shape[0]
    se = np.where(constant, 0.0, sd / np.sqrt(n))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(constant, 0.0, mean / se)
    p = np.empty(k)
    q = np.empty(k)
    low = np.empty(k)
    high = np.empty(k)
    tail_q = 0.5 + confidence_level / 2 if alternative == "two-sided" else confidence_level
    for i in range(k):          # scalar special functions only (incomplete beta); no resampling here
        df = int(n[i]) - 1
        ti = float(t[i])
        if constant[i]:
            _, p[i], _, low[i], high[i] = _zero_spread_result(int(n[i]), float(mean[i]), alternative,
                                                               confidence_level)
            continue
        p[i] = t_pvalue(df, ti, alternative)
        q[i] = _t_quantile(tail_q, df)
        low[i] = -np.inf if alternative == "less" else mean[i] - q[i] * se[i]
        high[i] = np.inf if alternative == "greater" else mean[i] + q[i] * se[i]
    return {"pvalue": p, "ci_low": low, "ci_high": high, "se": se}
