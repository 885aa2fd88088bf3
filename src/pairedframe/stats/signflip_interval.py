"""Confidence interval for the mean delta by inverting the sign-flip test.

The interval is the set of shifts ``delta`` whose shifted deltas ``d - delta`` the sign-flip test of
:mod:`pairedframe.stats.randomization` does *not* reject at level ``alpha = 1 - confidence_level``
(taken without float noise, :func:`~pairedframe.stats.levels.decision_alpha`: ``1 - 0.95`` is 0.05, so a
shift whose p equals 0.05 is not rejected, as :func:`pairedframe.compare` does not call p = alpha
significant), with the **same sign patterns for every shift** (those of :func:`~pairedframe.stats.randomization.
sign_flip_test_many` for the same ``seed``).  At ``delta = 0`` it is that test, so the interval
excludes 0 exactly when ``p < alpha``: interval and p-value cannot contradict each other.

Breakpoints
-----------
For a sign pattern ``s`` let ``a = mean(s * d)`` (its null statistic) and ``c = mean(s)``.  Shifting
the deltas by ``delta`` turns the observed statistic into ``m - delta`` (``m = mean(d)``) and the
pattern's into ``a - delta * c``.  Two-sided, the pattern counts as extreme at ``delta`` iff
``|a - delta c| >= |m - delta|``; the difference of squares factors into two lines in ``delta``, so
the set where it counts is the closed interval between ``r1 = (m - a) / (1 - c)`` and
``r2 = (m + a) / (1 + c)``, which always contains ``m`` (patterns with ``c = +-1``, no flip or all
flipped, count for every ``delta``).  ``"greater"`` counts on ``[r1, inf)``, ``"less"`` on
``(-inf, r1]``.  The number of extreme patterns is therefore a step function of ``delta`` that
falls away from ``m``, and the confidence set ``{delta: p(delta) >= alpha}`` is the interval from
the ``k``-th smallest lower breakpoint to the ``k``-th largest upper one, ``k`` being the least count
whose p-value (``(k + 1) / (B + 1)``, or ``k / 2**n`` when every pattern is enumerated) is
``>= alpha``.  Cost per column: one pass over the patterns plus a selection, ``O(B)``.

Ties at zero follow the test: the test counts a pattern when ``|a| >= |m| - gamma`` (the tie
tolerance of :mod:`~pairedframe.stats.randomization`); a breakpoint that lies on the wrong side of
0 only by that tolerance is moved to 0 (or just past it), so ``0`` is inside the interval exactly
when the reported ``p >= alpha``.

The interval assumes what the test assumes for a shift: that ``d - delta`` is symmetric about 0 at
the true ``delta`` (Fisher's sign-flip model for a location shift).  On real per-query deltas it
covers like the t interval (``benchmarks/calibration``), less than nominal when the deltas are
strongly skewed and ``n`` is small.

References
----------
Lehmann, E. L. & Romano, J. P. (2005). *Testing Statistical Hypotheses*, 3rd ed., sec. 3.5
(confidence sets by inverting tests).
Garthwaite, P. H. (1996). Confidence intervals from randomization tests. *Biometrics* 52(4),
1387-1393.
Ernst, M. D. (2004). Permutation methods: a basis for exact inference. *Statistical Science* 19(4),
676-685.
Smucker, M. D., Allan, J. & Carterette, B. (2007). A comparison of statistical significance tests
for information retrieval evaluation. CIKM.
"""

from __future__ import annotations

import math

import numpy as np

from pairedframe.errors import USE_SEED, renamed_keywords

from .levels import decision_alpha
from .results import ConfidenceInterval, SignFlipIntervalResult
from .randomization import _byte_tables, pattern_words, _tie_tolerance, _word_chunks, is_extreme, settle_on_nonzero
from .resample import (_check_1d, _check_2d, _check_alternative, _check_chunk_size, check_int,
                       _check_probability, _column_means)

__all__ = ["sign_flip_interval", "sign_flip_interval_many", "least_count", "too_few_resamples", "least_resamples",
           "inverted_interval", "inverted_interval_units"]

_POPCOUNT = np.array([bin(v).count("1") for v in range(256)], dtype=np.int64)


def least_count(alpha: float, n_patterns: int, exact: bool) -> int:
    """Least number ``k`` of extreme patterns whose sign-flip p-value is ``>= alpha``.

    ``p(k) = k / n_patterns`` (exact) or ``(k + 1) / (n_patterns + 1)`` (Monte Carlo), computed with
    the same floating-point expressions as the test, so ``p(count) >= alpha`` iff ``count >= k``.
    """
    counts = np.arange(n_patterns + 1, dtype=np.int64)
    p = counts / n_patterns if exact else (counts + 1) / (n_patterns + 1)
    p = np.minimum(p, 1.0)
    return int(np.flatnonzero(p >= alpha)[0])


def too_few_resamples(alpha: float, n_resamples: int) -> bool:
    """Whether ``n_resamples`` Monte-Carlo resamples are too few for level ``alpha``.

    The smallest Monte-Carlo p-value is ``1 / (B + 1)`` (no resample at least as extreme as the
    observed statistic); when it is ``>= alpha`` no count of resamples gives ``p < alpha``, so no test
    can reject and no quantile at that level lies among the resamples.  This is
    ``least_count(alpha, n_resamples, False) == 0``, by the same floating-point expression, without
    its array of ``B + 1`` counts.

    Parameters
    ----------
    alpha : float
        Level, ``1 - confidence_level`` (or a family's per-test level).
    n_resamples : int
        Monte-Carlo resamples ``B >= 0``.

    Returns
    -------
    bool
        ``1 / (B + 1) >= alpha``; in exact arithmetic ``(B + 1) * alpha <= 1``.

    See Also
    --------
    least_resamples : the least ``B`` for which this is False.

    Examples
    --------
    >>> too_few_resamples(0.05, 19), too_few_resamples(0.05, 20)
    (True, False)
    """
    return 1.0 / float(int(n_resamples) + 1) >= alpha


def least_resamples(alpha: float) -> int:
    """The least number of Monte-Carlo resamples whose p-value can go below ``alpha``.

    The least ``B`` for which :func:`too_few_resamples` is False, found from ``B + 1 > 1 / alpha``
    (exact arithmetic) and corrected, by the same floating-point test, where rounding moves the
    boundary by a unit: no array, a few float operations whatever ``B`` is.

    Parameters
    ----------
    alpha : float in (0, 1]
        Level, ``1 - confidence_level`` (or a family's per-test level); at least the smallest normal
        float.

    Returns
    -------
    int
        ``B`` with ``too_few_resamples(alpha, B)`` False and ``too_few_resamples(alpha, B - 1)`` True.
        ``1 - confidence_level`` carries rounding: ``1 - 0.95`` is ``0.05000000000000004``, for which
        ``B = 19`` suffices (``1 / 20 < alpha``), where ``alpha = 0.05`` needs 20.

    Raises
    ------
    ValueError
        If ``alpha`` is not in ``[2.2e-308, 1]``.

    Examples
    --------
    >>> least_resamples(0.05), least_resamples(1 - 0.95), least_resamples(0.03)
    (20, 19, 33)
    """
    alpha = float(alpha)
    if not 2.2250738585072014e-308 <= alpha <= 1.0:
        raise ValueError(f"`alpha` must be in [2.2e-308, 1], got {alpha!r}")
    guess = max(int(math.floor(1.0 / alpha)) - 1, 0)
    # bracket the boundary: too_few(low) and not too_few(high); 1 / (B + 1) falls with B, so the test
    # is monotone and the rounding of 1 / alpha puts the guess within a unit or two of it
    low, step = guess, 1
    while low > 0 and not too_few_resamples(alpha, low):
        low, step = max(low - step, 0), 2 * step
    high, step = guess + 1, 1
    while too_few_resamples(alpha, high):
        high, step = high + step, 2 * step
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if too_few_resamples(alpha, mid) else (low, mid)
    return high


def _null_statistics(D: np.ndarray, n_resamples: int, seed, chunk_size: int):
    """Null statistics (m, k), flip counts (m,) and exactness, pattern by pattern as the sign-flip test.

    The arithmetic is that of :func:`pairedframe.stats.randomization._sign_flip` (byte tables, the
    same pattern stream), so the p-values computed from these statistics equal the test's bit for bit.
    """
    n, k = D.shape
    S = np.sum(np.ascontiguousarray(D.T), axis=1)
    exact = n < 63 and (1 << n) <= n_resamples
    m = (1 << n) if exact else n_resamples
    G = -(-n // 8)
    L = _byte_tables(D).reshape(k, G * 256)
    offsets = (np.arange(G, dtype=np.intp) * 256)[None, :]
    chunks = pattern_words(n, chunk_size) if exact else _word_chunks(n, n_resamples, seed, chunk_size)
    null = np.empty((m, k))
    flips = np.empty(m, dtype=np.int64)
    # bits beyond observation n - 1 (Monte-Carlo words are full 64-bit) flip nothing
    masks = np.full(G, 0xFF, dtype=np.uint8)
    masks[-1] = (1 << (n - 8 * (G - 1))) - 1
    pos = 0
    step = max(1, (1 << 20) // G)
    for words in chunks:
        byts = np.ascontiguousarray(words.astype("<u8", copy=False)).view(np.uint8)
        byts = byts.reshape(words.shape[0], -1)[:, :G]
        for start in range(0, byts.shape[0], step):
            block = byts[start:start + step]
            idx = block.astype(np.intp)
            rows = idx.shape[0]
            flips[pos:pos + rows] = _POPCOUNT[block & masks].sum(axis=1)
            idx += offsets
            flipped = np.empty((rows, k))
            for c in range(k):
                flipped[:, c] = np.take(L[c], idx).sum(axis=1)
            null[pos:pos + rows] = (S - 2.0 * flipped) / n
            pos += rows
    return null, flips, m, exact


def _breakpoints(null: np.ndarray, c: np.ndarray, observed: np.ndarray, alternative: str,
                 same_sign: np.ndarray, no_flip: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per pattern and column, the closed set of shifts where the pattern counts as extreme:
    ``[lo, hi]`` (two-sided), ``[lo, inf)`` (greater) or ``(-inf, hi]`` (less).

    ``c`` (m,) is the pattern's weighted mean sign (the null statistic of a shift of 1), or (m, k)
    when every column has patterns of its own; ``same_sign`` marks patterns with every sign equal
    (``c = +-1``), ``no_flip`` those with none flipped (shaped as ``c``).
    """
    c = c[:, None] if c.ndim == 1 else c
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = (observed - null) / (1.0 - c)
        if alternative == "two-sided":
            r2 = (observed + null) / (1.0 + c)
            lo, hi = np.minimum(r1, r2), np.maximum(r1, r2)
            whole = same_sign                        # no flip or all flipped: extreme for every shift
        elif alternative == "greater":
            lo, hi = r1, np.full_like(r1, np.inf)
            whole = no_flip
        else:
            lo, hi = np.full_like(r1, -np.inf), r1
            whole = no_flip
    lo[whole] = -np.inf
    hi[whole] = np.inf
    return lo, hi


def _agree_at_zero(lo: np.ndarray, hi: np.ndarray, counted: np.ndarray, observed: np.ndarray,
                   alternative: str) -> None:
    """Move breakpoints that sit on the wrong side of 0 only by rounding, so that 0 is in a
    pattern's set exactly when the test (with its tie tolerance) counts the pattern at shift 0."""
    tiny = np.nextafter(0.0, 1.0)
    if alternative == "two-sided":
        by_low = np.broadcast_to((observed > 0)[None, :], lo.shape)   # 0 below m: the lower end decides
        by_high = np.broadcast_to((observed < 0)[None, :], lo.shape)  # (m == 0: 0 is in every set)
    else:
        by_low = np.full(lo.shape, alternative == "greater")
        by_high = ~by_low
    lo[by_low & counted & (lo > 0)] = 0.0
    lo[by_low & ~counted & (lo <= 0)] = tiny
    hi[by_high & counted & (hi < 0)] = 0.0
    hi[by_high & ~counted & (hi >= 0)] = -tiny


def inverted_interval(null: np.ndarray, c: np.ndarray, observed: np.ndarray, gamma: np.ndarray,
                      n_patterns: int, exact: bool, confidence_level: float, alternative: str,
                      same_sign: np.ndarray, no_flip: np.ndarray):
    """p-values and the inverted interval from the null statistics of every pattern.

    Parameters
    ----------
    null : (m, k) null statistics of the patterns (shift 0); c : (m,) their statistic for a unit
    shift; observed, gamma : (k,) statistic and tie tolerance; n_patterns, exact : as the test.

    Returns
    -------
    (p, low, high) : arrays of shape (k,)
    """
    k = null.shape[1]
    counted = is_extreme(null, observed, gamma, alternative)
    b = np.count_nonzero(counted, axis=0)
    p = np.minimum(b / n_patterns if exact else (b + 1) / (n_patterns + 1), 1.0)
    need = least_count(decision_alpha(confidence_level), n_patterns, exact)
    lo, hi = _breakpoints(null, c, observed, alternative, same_sign, no_flip)
    _agree_at_zero(lo, hi, counted, observed, alternative)
    low = np.full(k, -np.inf)
    high = np.full(k, np.inf)
    if need > 0:
        if alternative != "less":
            low = np.partition(lo, need - 1, axis=0)[need - 1]
        if alternative != "greater":
            high = -np.partition(-hi, need - 1, axis=0)[need - 1]
    return p, low, high


def inverted_interval_units(null: np.ndarray, flips: np.ndarray, n: np.ndarray, observed: np.ndarray,
                            gamma: np.ndarray, n_patterns: np.ndarray, exact: np.ndarray,
                            confidence_level: float, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """The inverted interval of ``k`` units, each with patterns of its own (segments).

    Parameters
    ----------
    null : (B, k) float64
        Null statistic (mean of the sign-flipped deltas) of pattern ``b`` of unit ``u``; rows
        ``b >= n_patterns[u]`` are ignored (a unit whose ``2**n`` patterns are enumerated uses fewer).
    flips : (B, k) int
        Number of flipped signs of each pattern; ``n`` (k,) the unit sizes.
    observed, gamma : (k,)
        Mean delta and tie tolerance of each unit, as its test used them.
    n_patterns, exact : (k,)
        Patterns behind each unit's p-value and whether they are all ``2**n`` of them.

    Returns
    -------
    (low, high) : arrays of shape (k,); ``p(delta) >= alpha`` exactly on ``[low, high]``, so 0 is
    inside exactly when the unit's test gives ``p >= alpha`` (same patterns, same tie rule).
    """
    B, k = null.shape
    counted = is_extreme(null, observed, gamma, alternative)
    c = (n - 2.0 * flips) / n
    lo, hi = _breakpoints(null, c, observed, alternative, (flips == 0) | (flips == n), flips == 0)
    _agree_at_zero(lo, hi, counted, observed, alternative)
    unused = np.arange(B)[:, None] >= n_patterns[None, :]
    lo[unused] = np.inf                          # never counted: sorts after every real breakpoint
    hi[unused] = -np.inf
    alpha = decision_alpha(confidence_level)
    needs = {key: least_count(alpha, *key) for key in set(zip(n_patterns.tolist(), exact.tolist()))}
    need = np.array([needs[key] for key in zip(n_patterns.tolist(), exact.tolist())], dtype=np.int64)
    low = np.full(k, -np.inf)
    high = np.full(k, np.inf)
    has = np.flatnonzero(need > 0)
    if has.size:
        pick = (need[has] - 1)[None, :]
        if alternative != "less":
            low[has] = np.take_along_axis(np.sort(lo[:, has], axis=0), pick, axis=0)[0]
        if alternative != "greater":
            high[has] = -np.take_along_axis(np.sort(-hi[:, has], axis=0), pick, axis=0)[0]
    return low, high


def agree_with_settled_p(low: np.ndarray, high: np.ndarray, p: np.ndarray, settled: np.ndarray,
                         observed: np.ndarray, confidence_level: float) -> tuple[np.ndarray, np.ndarray]:
    """Where a column's p was settled on its few non-zero deltas (exact over them:
    :func:`~pairedframe.stats.randomization.settle_on_nonzero`) while its interval inverts the Monte-Carlo
    test of every shift, move the interval's end at 0 so that 0 is inside exactly when ``p >= alpha``:
    extended to 0 where the exact p accepts it, cut just past 0 (on the side away from the estimate)
    where it rejects it.  Elsewhere the interval is unchanged."""
    low, high = low.copy(), high.copy()
    accept = p >= decision_alpha(confidence_level)
    inside = (low <= 0.0) & (0.0 <= high)
    tiny = np.nextafter(0.0, 1.0)
    widen, cut = settled & accept & ~inside, settled & ~accept & inside
    low[widen] = np.minimum(low[widen], 0.0)
    high[widen] = np.maximum(high[widen], 0.0)
    low[cut & (observed > 0)] = tiny
    high[cut & (observed < 0)] = -tiny
    return low, high


def _interval(D: np.ndarray, n_resamples: int, confidence_level: float, alternative: str, seed,
              chunk_size: int):
    n, k = D.shape
    observed = _column_means(D)
    null, flips, m, exact = _null_statistics(D, n_resamples, seed, chunk_size)
    gamma = _tie_tolerance(observed, D)
    p, low, high = inverted_interval(null, (n - 2 * flips) / n, observed, gamma, m, exact, confidence_level,
                                     alternative, (flips == 0) | (flips == n), flips == 0)
    # few non-zero deltas: p exact over them (or held at their floor), as sign_flip_test_many's
    settled_p, exact_columns = settle_on_nonzero(p, exact, np.count_nonzero(D, axis=0), n_resamples, alternative,
                                                 lambda c: D[:, c], chunk_size)
    low, high = agree_with_settled_p(low, high, settled_p, settled_p != p, observed, confidence_level)
    return observed, settled_p, low, high, m, exact_columns


def _validate(n_resamples, confidence_level, alternative, chunk_size, n):
    return (check_int(n_resamples, "n_resamples", minimum=1),
            _check_probability(confidence_level, "confidence_level"),
            _check_alternative(alternative), _check_chunk_size(chunk_size, n))


@renamed_keywords(rng=USE_SEED)
def sign_flip_interval_many(D, *, n_resamples: int = 10_000, confidence_level: float = 0.95,
                            alternative: str = "two-sided", seed=None,
                            chunk_size: int | None = None) -> SignFlipIntervalResult:
    """Sign-flip p-values and the intervals that invert them, for many columns sharing one sign stream.

    Parameters
    ----------
    D : array_like, shape (n, k)
        Per-query deltas, one column per comparison (same query set); finite, ``n >= 1``.
    n_resamples : int, default 10_000
        Monte-Carlo sign patterns (``>= 1``).  When ``2**n <= n_resamples`` all ``2**n`` patterns are
        enumerated instead (exact; ``seed`` unused).
    confidence_level : float in (0, 1), default 0.95
        The interval is the set of shifts not rejected at ``alpha = 1 - confidence_level`` (without
        float noise, :func:`~pairedframe.stats.levels.decision_alpha`): those whose ``p >= alpha``.
    alternative : {"two-sided", "greater", "less"}
        Of the test; one-sided intervals have an infinite bound (``"greater"``: ``[low, inf)``).
    seed : None, int, SeedSequence or Generator
        The sign stream of :func:`~pairedframe.stats.randomization.sign_flip_test_many`.
    chunk_size : int, optional
        Sign patterns drawn at once (memory knob; results do not depend on it).

    Returns
    -------
    SignFlipIntervalResult
        ``statistic`` (column means), ``pvalue`` (bit-identical to ``sign_flip_test_many`` with the
        same ``seed`` state), ``confidence_interval`` (arrays of shape (k,)), ``n_resamples``
        (patterns of the shared stream), ``exact`` (per column, as ``sign_flip_test_many``'s).  For
        every column ``low <= 0 <= high`` iff ``pvalue >= alpha``.  A column with ``k`` non-zero
        deltas and ``2**k <= n_resamples`` has the exact p over them (a zero delta flips to itself),
        while every other shift makes all ``n`` deltas non-zero and stays Monte Carlo: where the two
        disagree about 0, the interval's end is moved to 0 (or just past it) to agree with the p.
        A constant column ``c`` gets ``[c, c]`` (up to rounding) once ``n`` is large enough for the
        exact test to reject (two-sided 95 %: ``n >= 6``), the whole line before; all-zero deltas
        give ``p = 1`` and ``[0, 0]``.  When even the most extreme pattern cannot reach ``alpha``
        (few queries, or ``1/(n_resamples+1) >= alpha``) the interval is ``(-inf, inf)``.

    Raises
    ------
    InsufficientSampleError
        If ``n == 0``.
    ValueError, TypeError
        On non-finite data or invalid options.

    Notes
    -----
    Memory: the null statistics of every pattern and column, ``8 * n_resamples * k`` bytes (patterns
    are needed for every shift, so they are kept, not counted on the fly).  See the module docstring
    for the breakpoint construction and the tie rule at 0.

    References
    ----------
    Garthwaite (1996), Biometrics 52(4); Ernst (2004), Statistical Science 19(4); Lehmann & Romano
    (2005), sec. 3.5.
    """
    D = _check_2d(D, "D", min_n=1)
    n_resamples, confidence_level, alternative, chunk_size = _validate(
        n_resamples, confidence_level, alternative, chunk_size, D.shape[0])
    obs, p, low, high, m, exact = _interval(D, n_resamples, confidence_level, alternative, seed, chunk_size)
    return SignFlipIntervalResult(statistic=obs, pvalue=p, confidence_interval=ConfidenceInterval(low, high),
                                  n_resamples=m, confidence_level=confidence_level, alternative=alternative,
                                  exact=exact)


@renamed_keywords(rng=USE_SEED)
def sign_flip_interval(d, *, n_resamples: int = 10_000, confidence_level: float = 0.95,
                       alternative: str = "two-sided", seed=None,
                       chunk_size: int | None = None) -> SignFlipIntervalResult:
    """One column of :func:`sign_flip_interval_many`; fields are floats.

    Parameters
    ----------
    d : array_like, shape (n,)
        Per-query deltas, finite, ``n >= 1``.
    n_resamples, confidence_level, alternative, seed, chunk_size
        As :func:`sign_flip_interval_many`.

    Returns
    -------
    SignFlipIntervalResult
        ``pvalue`` equals :func:`~pairedframe.stats.randomization.sign_flip_test` for the same
        ``seed`` state; ``low <= 0 <= high`` iff ``pvalue >= decision_alpha(confidence_level)``
        (``1 - confidence_level`` without float noise: p = 0.05 at 95 % is inside).

    Raises
    ------
    InsufficientSampleError
        If ``d`` is empty.
    """
    d = _check_1d(d, "d", min_n=1)
    n_resamples, confidence_level, alternative, chunk_size = _validate(
        n_resamples, confidence_level, alternative, chunk_size, d.shape[0])
    obs, p, low, high, m, exact = _interval(d[:, None], n_resamples, confidence_level, alternative, seed,
                                            chunk_size)
    return SignFlipIntervalResult(statistic=float(obs[0]), pvalue=float(p[0]),
                                  confidence_interval=ConfidenceInterval(float(low[0]), float(high[0])),
                                  n_resamples=m, confidence_level=confidence_level, alternative=alternative,
                                  exact=bool(exact[0]))
