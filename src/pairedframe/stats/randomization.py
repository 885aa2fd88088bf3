"""Paired randomization (sign-flip) test of the mean delta.

Under H0 "A and B are exchangeable within each query", each delta's sign is
equally likely to be + or -.  The test statistic is the mean delta; its null
distribution is obtained by flipping signs, either exhaustively (all ``2**n``
patterns, exact) or by Monte-Carlo sampling of sign patterns.

p-values
--------
With ``b`` the number of null statistics at least as extreme as the observed
one (see *Ties*):

- Monte Carlo (``2**n > n_resamples``): ``p = (b + 1) / (n_resamples + 1)``,
  which is a valid (never anti-conservative) p-value and never 0
  (Phipson & Smyth 2010).
- Exact (``2**n <= n_resamples``): all patterns are enumerated, including the
  identity, and ``p = b / 2**n`` (no +1; ``p >= 2 / 2**n`` two-sided since the
  identity and its negation always count).
- Few non-zero deltas: a zero delta flips to itself, so the ``2**n`` patterns
  give each statistic of the ``k`` non-zero deltas ``2**(n - k)`` times and the
  exact p is theirs, never below ``2 / 2**k`` two-sided (``1 / 2**k`` one-sided).
  When ``2**k <= n_resamples`` those ``2**k`` patterns are enumerated (exact,
  whatever ``n``); otherwise the Monte-Carlo p, which estimates that exact p,
  is raised to its floor ``2 / 2**k`` where the draws missed the extreme
  patterns (:func:`settle_on_nonzero`).  Without that, 2 non-zero deltas of 30
  gave a Monte-Carlo p of 0.494 where the exact p is 0.5 at the least.

Two-sided extremeness is ``|T*| >= |T|``; ``"greater"`` is ``T* >= T``,
``"less"`` is ``T* <= T``.  (scipy's ``permutation_test`` instead doubles the
smaller one-sided p-value; ours is the usual absolute-value rule for a
symmetric null, which the sign-flip null is.)

Ties
----
Sign-flipped means that are equal in exact arithmetic can differ by rounding,
so comparisons use a tolerance ``gamma = 100 * eps * max(|T|, mean(|d|))``:
``|T*| >= |T| - gamma``.  scipy uses ``100 * eps * |T|``; we also scale by the
magnitude of the deltas because rounding error in a mean is relative to the
terms, not to the (possibly cancelled, tiny) result -- with discrete IR
measures (P@10 in steps of 0.1) exact ties between patterns are common.

All-zero deltas give ``T = 0`` and every pattern ties, so ``p = 1``.

References
----------
Fisher, R. A. (1935). *The Design of Experiments*.
Smucker, M. D., Allan, J. and Carterette, B. (2007). A comparison of
statistical significance tests for information retrieval evaluation. CIKM.
Phipson, B. and Smyth, G. K. (2010). Permutation p-values should never be zero.
Statistical Applications in Genetics and Molecular Biology 9(1).
"""

from __future__ import annotations

import numpy as np

from pairedframe.errors import USE_SEED, renamed_keywords

from .results import HypothesisTestResult
from .resample import (_check_1d, _check_2d, _check_alternative, _check_chunk_size,
                       check_int, _column_means)

__all__ = ["sign_flip_test", "sign_flip_test_many", "sign_flip_pvalue_from_null", "FlipCounter", "pattern_words",
           "nonzero_floor", "extreme_count_of_nonzero", "exact_pvalue_of_nonzero", "enumerable_on_nonzero",
           "settle_on_nonzero"]

#: Relative tolerance factor for ties (as scipy: 100 machine epsilons).
TIE_RTOL: float = 100 * np.finfo(np.float64).eps


def _tie_tolerance(observed: np.ndarray, D: np.ndarray) -> np.ndarray:
    scale = np.maximum(np.abs(observed), np.mean(np.abs(D), axis=0))
    return TIE_RTOL * scale


def is_extreme(null: np.ndarray, observed: np.ndarray, gamma: np.ndarray, alternative: str) -> np.ndarray:
    """null (rows, k), observed/gamma (k,) -> (rows, k): is each null statistic at least as extreme as
    the observed one (tie tolerance gamma)? The one rule of every sign-flip test here."""
    if alternative == "two-sided":
        return np.abs(null) >= (np.abs(observed) - gamma)
    if alternative == "greater":
        return null >= observed - gamma
    return null <= observed + gamma


def _count_extreme(null: np.ndarray, observed: np.ndarray, gamma: np.ndarray,
                   alternative: str) -> np.ndarray:
    """null (rows, k), observed/gamma (k,) -> counts (k,)."""
    return np.count_nonzero(is_extreme(null, observed, gamma, alternative), axis=0)


def sign_flip_pvalue_from_null(null_distribution, observed, *, alternative: str = "two-sided",
                               exact: bool = False, scale=None):
    """p-value of the sign-flip test from a given null distribution.

    Exposed so callers (and tests) can apply our tie and +1 rules to any null
    distribution, e.g. ``scipy.stats.permutation_test(...).null_distribution``.

    Parameters
    ----------
    null_distribution : array_like, shape (m,) or (m, k)
        Null statistics (means of sign-flipped deltas).
    observed : float or array_like, shape (k,)
    alternative : {"two-sided", "greater", "less"}
    exact : bool
        True if ``null_distribution`` enumerates all patterns (``p = b / m``);
        otherwise ``p = (b + 1) / (m + 1)``.
    scale : float or array_like, optional
        ``mean(|d|)`` for the tie tolerance; default ``|observed|`` (scipy's rule).

    Returns
    -------
    float or ndarray
    """
    alternative = _check_alternative(alternative)
    null = np.asarray(null_distribution, dtype=np.float64)
    one = null.ndim == 1
    null = null.reshape(null.shape[0], -1)
    obs = np.atleast_1d(np.asarray(observed, dtype=np.float64))
    sc = np.abs(obs) if scale is None else np.maximum(np.abs(obs), np.atleast_1d(scale))
    b = _count_extreme(null, obs, TIE_RTOL * sc, alternative)
    m = null.shape[0]
    p = b / m if exact else (b + 1) / (m + 1)
    p = np.minimum(p, 1.0)
    return float(p[0]) if one else p


_UINT64_MAX = np.iinfo(np.uint64).max
_LOWBIT = np.array([0] + [(v & -v).bit_length() - 1 for v in range(1, 256)], dtype=np.intp)


def _byte_tables(D: np.ndarray) -> np.ndarray:
    """L[c, g, v] = sum of D[8g + i, c] over the set bits i of byte value v (flipped part of a mean).

    Built entry by entry as ``L[v] = L[v & (v - 1)] + d[lowest bit of v]`` (element-wise, so every
    column's table is independent of the other columns).
    """
    n, k = D.shape
    G = -(-n // 8)
    P = np.zeros((k, G * 8))
    P[:, :n] = D.T
    Pt = np.ascontiguousarray(P.reshape(k * G, 8).T)          # (bit, column x group): rows are contiguous
    L = np.zeros((256, k * G))
    for v in range(1, 256):
        np.add(L[v & (v - 1)], Pt[_LOWBIT[v]], out=L[v])
    return np.ascontiguousarray(L.T).reshape(k, G, 256)


def _word_chunks(n: int, n_resamples: int, seed, chunk_size: int):
    """The uint64 words behind :func:`~pairedframe.stats.resample.sign_flip_chunks` (same draws)."""
    from .resample import as_generator

    gen = as_generator(seed)
    n_words = -(-n // 64)
    for start in range(0, n_resamples, chunk_size):
        rows = min(chunk_size, n_resamples - start)
        yield gen.integers(0, _UINT64_MAX, size=(rows, n_words), dtype=np.uint64, endpoint=True)


def pattern_words(n: int, chunk_size: int):
    """All ``2**n`` sign patterns of ``n`` observations (``n <= 63``) as pattern numbers, in chunks of
    ``chunk_size``: uint64 arrays of shape (rows, 1) for :meth:`FlipCounter.count`."""
    total = 1 << n
    for start in range(0, total, chunk_size):
        yield np.arange(start, min(total, start + chunk_size), dtype=np.uint64)[:, None]


class FlipCounter:
    """Counts of extreme sign-flipped means of the columns of D for given pattern words.

    A pattern's null statistic is ``(S - 2 F) / n`` with ``S = sum(d)`` and ``F`` the sum of the
    flipped deltas; ``F`` is the sum over bytes ``g`` of the pattern bits of ``L[g, byte_g]``
    (:func:`_byte_tables`), i.e. ``ceil(n/8)`` table look-ups per pattern instead of ``n``
    multiply-adds.  Bit ``j % 64`` of word ``j // 64`` set = observation ``j`` flipped (the bits of
    :func:`~pairedframe.stats.resample.sign_flip_chunks`, or of the pattern number when enumerating).
    Each row and column is computed on its own, so counts do not depend on how the words are chunked
    or on the other columns; the identity pattern reproduces ``mean(d)`` exactly.
    """

    def __init__(self, D: np.ndarray, alternative: str):
        n, k = D.shape
        self.n, self.k, self.alternative = n, k, alternative
        self.observed = _column_means(D)
        self.gamma = _tie_tolerance(self.observed, D)
        self.S = np.sum(np.ascontiguousarray(D.T), axis=1)
        self.G = -(-n // 8)
        self.L = _byte_tables(D).reshape(k, self.G * 256)
        self.offsets = (np.arange(self.G, dtype=np.intp) * 256)[None, :]
        # bound the (rows, G) index block to ~2**20 elements whatever the chunk of words
        self.step = max(1, (1 << 20) // self.G)

    def count(self, words: np.ndarray) -> np.ndarray:
        """Extreme patterns among the rows of ``words`` (uint64, shape (rows, ceil(n/64))), per column."""
        b = np.zeros(self.k, dtype=np.int64)
        byts = np.ascontiguousarray(words.astype("<u8", copy=False)).view(np.uint8)
        byts = byts.reshape(words.shape[0], -1)[:, :self.G]
        for start in range(0, byts.shape[0], self.step):
            idx = byts[start:start + self.step].astype(np.intp) + self.offsets
            flipped = np.empty((idx.shape[0], self.k))
            for c in range(self.k):
                flipped[:, c] = np.take(self.L[c], idx).sum(axis=1)
            null = (self.S - 2.0 * flipped) / self.n
            b += _count_extreme(null, self.observed, self.gamma, self.alternative)
        return b


def nonzero_floor(nonzero, alternative: str) -> np.ndarray:
    """The least exact sign-flip p of ``k`` non-zero deltas: ``2 / 2**k`` two-sided, ``1 / 2**k`` one-sided
    (the identity pattern, and its negation, always count); 0 where ``k`` is 0 (every pattern ties, p = 1)."""
    k = np.asarray(nonzero, dtype=np.float64)
    sides = 2.0 if alternative == "two-sided" else 1.0
    return np.where(k > 0, np.minimum(1.0, sides * np.exp2(-np.minimum(k, 1100.0))), 0.0)


def extreme_count_of_nonzero(d, alternative: str, chunk_size: int | None = None) -> tuple[int, int]:
    """``(b, 2**k)``: the extreme patterns among all ``2**k`` sign patterns of the ``k`` non-zero deltas of
    ``d`` (``k <= 62``), and their number; ``(1, 1)`` when every delta is 0 (the one pattern ties)."""
    d = np.asarray(d, dtype=np.float64)
    d = d[d != 0]
    k = d.shape[0]
    if k == 0:
        return 1, 1
    if k > 62:
        raise ValueError(f"enumerating 2**{k} sign patterns is not possible; use a Monte-Carlo test")
    counter = FlipCounter(d[:, None], alternative)
    rows = min(1 << k, 1 << 16) if chunk_size is None else int(chunk_size)
    return sum(int(counter.count(words)[0]) for words in pattern_words(k, rows)), 1 << k


def exact_pvalue_of_nonzero(d, alternative: str, chunk_size: int | None = None) -> float:
    """Exact sign-flip p of the deltas ``d`` from all ``2**k`` patterns of its ``k`` non-zero ones (``k <= 62``):
    the exact p of ``d`` itself, since a zero delta flips to itself.  1 when every delta is 0."""
    b, patterns = extreme_count_of_nonzero(d, alternative, chunk_size)
    return min(1.0, b / patterns)


def enumerable_on_nonzero(exact, nonzero, n_resamples: int) -> np.ndarray:
    """The columns :func:`settle_on_nonzero` enumerates over their non-zero deltas (bool, shape of
    ``nonzero``): not ``exact`` already, with ``k >= 1`` non-zero deltas and ``2**k <= n_resamples``; a
    caller fetching the deltas from an engine asks for these columns' in one query."""
    k = np.asarray(nonzero, dtype=np.int64).reshape(-1)
    done = np.broadcast_to(np.asarray(exact, dtype=bool), k.shape)
    return ~done & (k > 0) & (k <= 62) & (np.left_shift(1, np.minimum(k, 62)) <= n_resamples)


def settle_on_nonzero(pvalue, exact, nonzero, n_resamples: int, alternative: str, nonzero_deltas,
                      chunk_size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Sign-flip p-values of columns with few non-zero deltas made exact, or held at their exact floor.

    Parameters
    ----------
    pvalue, exact : array_like, shape (k,)
        Each column's p-value and whether it enumerated all its ``2**n`` patterns.
    nonzero : array_like of int, shape (k,)
        Each column's non-zero deltas.
    n_resamples : int
        The Monte-Carlo patterns: a column whose ``2**k`` patterns of non-zero deltas number no more is
        enumerated instead.
    alternative : {"two-sided", "greater", "less"}
    nonzero_deltas : callable
        ``nonzero_deltas(c)``: column ``c``'s non-zero deltas (called only for the columns enumerated).

    Returns
    -------
    (pvalue, exact) : ndarrays, shape (k,)
        The exact p over the non-zero deltas where ``2**k <= n_resamples`` (``exact`` then True); a
        Monte-Carlo p below :func:`nonzero_floor` raised to it (the exact p it estimates is never lower).
    """
    p = np.array(pvalue, dtype=np.float64, copy=True).reshape(-1)
    done = np.broadcast_to(np.asarray(exact, dtype=bool), p.shape).copy()
    k = np.asarray(nonzero, dtype=np.int64).reshape(-1)
    enumerable = enumerable_on_nonzero(done, k, n_resamples)
    for c in np.flatnonzero(enumerable):
        p[c] = exact_pvalue_of_nonzero(nonzero_deltas(int(c)), alternative, chunk_size)
    done |= enumerable
    monte_carlo = ~done & (k > 0)
    p[monte_carlo] = np.maximum(p[monte_carlo], nonzero_floor(k[monte_carlo], alternative))
    return p, done


def _sign_flip(D: np.ndarray, n_resamples: int, alternative: str, seed, chunk_size):
    """Sign-flip counts with byte lookup tables (:class:`FlipCounter`), Monte Carlo or exact; columns with
    few non-zero deltas exact over those (:func:`settle_on_nonzero`).  ``exact`` per column."""
    n, k = D.shape
    counter = FlipCounter(D, alternative)
    exact = n < 63 and (1 << n) <= n_resamples
    b = np.zeros(k, dtype=np.int64)
    if exact:
        m = 1 << n
        chunks = pattern_words(n, chunk_size)
    else:
        m = n_resamples
        chunks = _word_chunks(n, n_resamples, seed, chunk_size)
    for words in chunks:
        b += counter.count(words)
    if exact:
        p = b / m
    else:
        p = (b + 1) / (m + 1)
    nonzero = np.count_nonzero(D, axis=0)
    p, exact_columns = settle_on_nonzero(np.minimum(p, 1.0), exact, nonzero, n_resamples, alternative,
                                         lambda c: D[:, c], chunk_size)
    patterns = np.where(exact_columns & (not exact), np.left_shift(1, np.minimum(nonzero, 62)), m)
    return counter.observed, p, m, exact_columns, patterns


def _validate(n_resamples, alternative, chunk_size, n):
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    alternative = _check_alternative(alternative)
    chunk_size = _check_chunk_size(chunk_size, n)
    return n_resamples, alternative, chunk_size


@renamed_keywords(rng=USE_SEED)
def sign_flip_test(d, *, n_resamples: int = 10_000, alternative: str = "two-sided",
                   seed=None, chunk_size: int | None = None) -> HypothesisTestResult:
    """Paired sign-flip randomization test of H0: mean delta is 0 (symmetric null).

    Parameters
    ----------
    d : array_like, shape (n,)
        Per-query deltas A - B; finite, ``n >= 1``.
    n_resamples : int, default 10_000
        Monte-Carlo sign patterns.  If ``2**n <= n_resamples`` all ``2**n``
        patterns are enumerated instead (exact test; ``seed`` is not used);
        so are the ``2**k`` patterns of the ``k`` non-zero deltas when
        ``2**k <= n_resamples`` (a zero delta flips to itself: the same exact p).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: mean delta > 0 (A better than B when d = A - B).
    seed : None, int, SeedSequence or Generator
    chunk_size : int, optional
        Sign-pattern rows processed at once; results do not depend on it.

    Returns
    -------
    HypothesisTestResult
        ``statistic`` = ``mean(d)``; ``pvalue`` in ``[1/(n_resamples+1), 1]``
        (Monte Carlo) or ``[1/2**n, 1]`` (exact), and never below the exact
        floor ``2 / 2**k`` (``1 / 2**k`` one-sided) of the ``k`` non-zero deltas;
        ``n_resamples`` = number of patterns used (``2**k`` when the non-zero
        deltas were enumerated); ``exact`` flags enumeration; ``method="sign-flip"``.
        Negating ``d`` negates ``statistic`` and, for the same ``seed`` state,
        leaves the two-sided p-value unchanged and swaps "greater"/"less".

    Raises
    ------
    InsufficientSampleError
        If ``d`` is empty.
    ValueError, TypeError
        On non-finite data or invalid options.

    Notes
    -----
    See the module docstring for the p-value and tie rules.  All-zero deltas
    give ``p = 1``.

    References
    ----------
    Phipson & Smyth (2010), Permutation p-values should never be zero.
    """
    d = _check_1d(d, "d", min_n=1)
    n_resamples, alternative, chunk_size = _validate(n_resamples, alternative, chunk_size,
                                                     d.shape[0])
    obs, p, _, exact, patterns = _sign_flip(d[:, None], n_resamples, alternative, seed, chunk_size)
    return HypothesisTestResult(statistic=float(obs[0]), pvalue=float(p[0]), n_resamples=int(patterns[0]),
                                alternative=alternative, method="sign-flip", exact=bool(exact[0]))


@renamed_keywords(rng=USE_SEED)
def sign_flip_test_many(D, *, n_resamples: int = 10_000, alternative: str = "two-sided",
                        seed=None, chunk_size: int | None = None) -> HypothesisTestResult:
    """Sign-flip tests of many columns sharing ONE stream of sign patterns.

    Parameters
    ----------
    D : array_like, shape (n, k)
        Per-query deltas, one column per comparison (same query set).
    n_resamples, alternative, seed, chunk_size
        As :func:`sign_flip_test`.

    Returns
    -------
    HypothesisTestResult
        ``statistic``, ``pvalue`` and ``exact`` are arrays of shape (k,).  Column
        ``c`` equals ``sign_flip_test(D[:, c])`` for the same ``seed`` state (the
        same sign matrix is applied to every column: ``signs @ D / n``); a column
        with few non-zero deltas is exact over them (``exact[c]``) as there.
        ``n_resamples``: the patterns of the shared stream (``2**n`` when enumerated).

    Raises
    ------
    InsufficientSampleError
        If ``n == 0``.
    """
    D = _check_2d(D, "D", min_n=1)
    n_resamples, alternative, chunk_size = _validate(n_resamples, alternative, chunk_size,
                                                     D.shape[0])
    obs, p, m, exact, _ = _sign_flip(D, n_resamples, alternative, seed, chunk_size)
    return HypothesisTestResult(statistic=obs, pvalue=p, n_resamples=m,
                                alternative=alternative, method="sign-flip", exact=exact)
