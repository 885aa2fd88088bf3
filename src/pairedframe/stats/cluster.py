"""Cluster-level resampling for queries that are not independent.

Queries often come in clusters that share information: variants of one
information need (UQV100), sub-topics / facets of one topic, conversation turns
of one dialogue, or queries generated from one seed document.  Treating them as
independent makes intervals too narrow and p-values too small.  Both functions
here resample whole clusters:

- :func:`cluster_bootstrap` draws ``G`` clusters with replacement (``G`` = the
  number of *distinct* labels; cluster sizes may differ) and recomputes the
  mean delta over all queries of the drawn clusters, i.e. the ratio
  ``sum(drawn cluster sums) / sum(drawn cluster sizes)``.
- :func:`cluster_sign_flip_test` flips the sign of each cluster's *summed* delta
  as one unit (under H0, A and B are exchangeable within every cluster) and
  uses the mean delta ``sum(deltas) / N`` as statistic.

Both are built on the shared resample streams of
:mod:`pairedframe.stats.resample`, applied at cluster level.

Canonical cluster order
-----------------------
Which cluster receives resample index ``g`` (or sign bit ``g``) must not depend
on incidental choices of the caller, otherwise the same data under a seed
gives different intervals after a harmless relabelling.  Everything here
depends only on each cluster's *summary*, ``(size, sum of its deltas)`` (one
sum per column), so clusters are put in the order of
``lexsort(size, sum_col0, sum_col1, ...)`` -- by size first, then by sum(s).
The sum of a cluster is computed over its values *sorted*, so it is a function
of the multiset of its values, bit for bit.  Clusters that tie on the whole key
are indistinguishable to both statistics, so their relative order is
irrelevant.  Guarantee (tested, bit for bit): for a fixed ``seed`` seed the
results are invariant to any permutation of the rows, to any relabelling of
the clusters (any injective map of labels, including one that changes their
sort order or dtype), i.e. they depend only on the multiset of clusters.
Use :func:`cluster_summaries` to obtain the summaries in this order.

A consequence: with one query per cluster, the results equal the plain
(query-level) :func:`~pairedframe.stats.bootstrap.bootstrap_mean` /
:func:`~pairedframe.stats.randomization.sign_flip_test` applied to the deltas
*sorted ascending* (exactly for exact enumeration, whatever the order).
"""

from __future__ import annotations

import warnings

import numpy as np

from pairedframe.errors import USE_SEED, SmallSampleWarning, renamed_keywords, user_stacklevel
from pairedframe.stats.results import BootstrapResult, ConfidenceInterval, HypothesisTestResult
from pairedframe.stats.bootstrap import percentile_interval
from pairedframe.stats.cluster_summaries import cluster_summaries, prepare_clusters
from pairedframe.stats.randomization import _count_extreme, settle_on_nonzero
from pairedframe.stats.studentized import ZERO_SPREAD_RTOL
from pairedframe.stats.resample import (
    _check_alternative,
    _check_chunk_size,
    check_int,
    _check_probability,
    as_generator,
    bootstrap_index_chunks,
    sign_flip_chunks,
    sign_pattern_chunks,
)

__all__ = [
    "cluster_summaries",
    "cluster_bootstrap",
    "cluster_bootstrap_many",
    "cluster_sign_flip_test",
    "cluster_sign_flip_test_many",
]

#: Below this many clusters :func:`pairedframe.compare_clustered` warns.  Set from
#: ``benchmarks/calibration --section clustered`` (real deltas in clusters of 5, icc
#: 0-0.6, 10,000 replications): at G = 6 the exact cluster sign-flip test, which decides the verdict,
#: has 2^6 sign patterns and rejects only 3.1-4.0 % of centred nulls (4.4-6.0 % from G = 8), and the
#: interval inverting it covers 0.959-0.972 at 1.27 times the cluster-t width; for G <= 5 it cannot
#: reject at 5 % at all (2/2^G > 0.05).  The default (Edgeworth-corrected cluster-t) interval covers
#: 0.947-0.958 at G = 6 and 0.944-0.956 from G = 8 up.
MIN_CLUSTERS: int = 8

#: Below this many clusters :func:`cluster_bootstrap` warns: the percentile cluster
#: bootstrap covers 0.84-0.87 at G = 6, 0.88-0.90 at G = 10 and still 0.92-0.94 at
#: G = 30 (same calibration; Cameron, Gelbach & Miller 2008).
PERCENTILE_MIN_CLUSTERS: int = 30

#: Tie tolerance factor (100 machine epsilons, as scipy's resampling tests).
TIE_RTOL: float = 100 * np.finfo(np.float64).eps


# --------------------------------------------------------------------------
# cluster bootstrap
# --------------------------------------------------------------------------

def cluster_bootstrap_columns(X, sums, sizes, n_resamples, confidence_level, alternative, seed, chunk_size):
    G, k = sums.shape
    chunk_size = _check_chunk_size(chunk_size, G)
    theta_b = np.empty((n_resamples, k))
    pos = 0
    equal_sizes = bool(np.all(sizes == sizes[0]))
    row_offsets = np.arange(chunk_size, dtype=np.int64)[:, None] * G
    for idx in bootstrap_index_chunks(G, n_resamples, seed=seed, chunk_size=chunk_size):
        rows = idx.shape[0]
        if k == 1:
            # gather kernel: per-row pairwise sums in draw order, exactly as
            # scipy's ``s[..., i].sum(axis=-1)`` -> bit-identical to scipy and
            # independent of chunk_size
            num = sums[idx, 0].sum(axis=-1)[:, None]
            den = float(G) * sizes[0] if equal_sizes else sizes[idx].sum(axis=-1)[:, None]
        else:
            # shared counts-matrix kernel: one bincount + one matmul for all columns
            flat = (idx + row_offsets[:rows]).ravel()
            counts = np.bincount(flat, minlength=rows * G).reshape(rows, G).astype(np.float64)
            num = counts @ sums
            den = (counts @ sizes)[:, None]  # integer-valued: exact in any order
        theta_b[pos:pos + rows] = num / den
        pos += rows
    n_total = float(sizes.sum())
    theta_hat = sums.sum(axis=0) / n_total
    constant = np.ptp(X, axis=0) == 0
    if constant.any():  # every resample equals the mean exactly; remove ratio rounding
        theta_b[:, constant] = theta_hat[constant]
    ci = percentile_interval(theta_b.T, confidence_level=confidence_level, alternative=alternative)
    se = np.std(theta_b, axis=0, ddof=1)
    return theta_hat, ci, se


def _check_boot_options(n_resamples, confidence_level, alternative):
    return (check_int(n_resamples, "n_resamples", minimum=2),
            _check_probability(confidence_level, "confidence_level"),
            _check_alternative(alternative))


def _warn_few_clusters(G: int) -> None:
    if G < PERCENTILE_MIN_CLUSTERS:
        warnings.warn(f"only {G} clusters (< {PERCENTILE_MIN_CLUSTERS}): the percentile cluster bootstrap "
                      "interval is too narrow (measured coverage of a 95 % interval 0.88-0.90 at 10 "
                      "clusters); the cluster-t or inverted sign-flip interval of "
                      "pairedframe.stats.cluster_interval holds its level", SmallSampleWarning,
                      stacklevel=user_stacklevel())


@renamed_keywords(rng=USE_SEED)
def cluster_bootstrap(values, clusters, *, n_resamples: int = 10_000,
                      confidence_level: float = 0.95, alternative: str = "two-sided",
                      seed=None, chunk_size: int | None = None) -> BootstrapResult:
    """Cluster bootstrap percentile interval of the mean delta.

    Parameters
    ----------
    values : array_like, shape (n,)
        Per-query deltas (or values whose mean is wanted), finite.
    clusters : array_like, shape (n,)
        Cluster label of each query (any hashable dtype; NaN/None rejected).
        ``G`` = number of distinct labels, ``G >= 2``; sizes may differ.
    n_resamples : int, default 10_000
        Number of bootstrap resamples (>= 2).
    confidence_level : float in (0, 1), default 0.95
    alternative : {"two-sided", "less", "greater"}
        One-sided intervals have an infinite bound, as scipy.
    seed : None, int, SeedSequence or Generator
        Source of the cluster indices (a Generator is advanced in place).
    chunk_size : int, optional
        Resamples processed at once (memory knob; results do not depend on it).

    Returns
    -------
    BootstrapResult
        ``statistic`` = mean of all ``n`` deltas (``sum / n``);
        ``confidence_interval`` = percentile interval of the resampled
        statistics; ``standard_error`` = their std (``ddof=1``);
        ``method="percentile"``.

    Raises
    ------
    InsufficientSampleError
        If ``values`` is empty or there are fewer than 2 clusters.
    ValueError, TypeError
        On shape mismatch, non-finite values, missing labels or invalid options.

    Warns
    -----
    SmallSampleWarning
        With fewer than :data:`PERCENTILE_MIN_CLUSTERS` (30) clusters.

    Notes
    -----
    Each resample draws ``G`` cluster indices with replacement from
    :func:`~pairedframe.stats.resample.bootstrap_index_chunks` (the stream of
    ``scipy.stats.bootstrap``) and computes ``sum(sums[idx]) / sum(sizes[idx])``
    -- the mean over all queries of the drawn clusters (a ratio estimator,
    since sizes differ).  With the same generator state this is bit-identical
    to ``scipy.stats.bootstrap((sums, sizes), lambda s, m, axis=-1:
    s.sum(axis) / m.sum(axis), paired=True, vectorized=True,
    method="percentile")`` on the canonical summaries of
    :func:`cluster_summaries`, for any ``chunk_size``.  Clusters are ordered canonically (see
    the module docstring), so results depend only on the multiset of clusters.
    Constant ``values`` give a zero-width interval and zero standard error.
    Only the percentile interval is offered (BCa would need a cluster
    jackknife).

    References
    ----------
    Davison, A. C. & Hinkley, D. V. (1997). *Bootstrap Methods and their
    Application*, sec. 3.8 (multi-stage / clustered data).
    Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2008). Bootstrap-based
    improvements for inference with clustered errors. Rev. Econ. Stat. 90(3).
    """
    n_resamples, confidence_level, alternative = _check_boot_options(
        n_resamples, confidence_level, alternative)
    X, sums, sizes = prepare_clusters(values, clusters, many=False, min_clusters=2)
    _warn_few_clusters(sums.shape[0])
    theta_hat, ci, se = cluster_bootstrap_columns(X, sums, sizes, n_resamples, confidence_level,
                                      alternative, seed, chunk_size)
    return BootstrapResult(statistic=float(theta_hat[0]),
                           confidence_interval=ConfidenceInterval(float(ci.low[0]), float(ci.high[0])),
                           standard_error=float(se[0]), n_resamples=n_resamples,
                           confidence_level=confidence_level, method="percentile", alternative=alternative)


@renamed_keywords(rng=USE_SEED)
def cluster_bootstrap_many(values, clusters, *, n_resamples: int = 10_000,
                           confidence_level: float = 0.95, alternative: str = "two-sided",
                           seed=None, chunk_size: int | None = None) -> BootstrapResult:
    """Cluster bootstrap of many columns with ONE shared cluster-index stream.

    Parameters
    ----------
    values : array_like, shape (n, k)
        Per-query deltas, one column per comparison (system pair x measure).
    clusters, n_resamples, confidence_level, alternative, seed, chunk_size
        As :func:`cluster_bootstrap`.

    Returns
    -------
    BootstrapResult
        ``statistic``, interval bounds and ``standard_error`` are arrays of
        shape (k,).  ``k == 1`` gives exactly :func:`cluster_bootstrap`.  For
        ``k > 1`` each index chunk becomes a counts matrix ``C`` (``C[r, g]`` =
        how often cluster ``g`` is in resample ``r``) and all columns are
        resampled with one matmul ``(C @ sums) / (C @ sizes)``; this sums in a
        different order than the gather kernel, so results agree with scipy
        and across ``chunk_size`` to ~1e-15 relative, not bit for bit.  The
        canonical cluster order then uses all columns' sums (size first), so a
        column's result can differ from its own single-column run by that
        ordering (a different, equally valid realisation).

    Raises
    ------
    InsufficientSampleError, ValueError, TypeError
        As :func:`cluster_bootstrap`.
    """
    n_resamples, confidence_level, alternative = _check_boot_options(
        n_resamples, confidence_level, alternative)
    X, sums, sizes = prepare_clusters(values, clusters, many=True, min_clusters=2)
    _warn_few_clusters(sums.shape[0])
    theta_hat, ci, se = cluster_bootstrap_columns(X, sums, sizes, n_resamples, confidence_level,
                                      alternative, seed, chunk_size)
    return BootstrapResult(statistic=theta_hat, confidence_interval=ci, standard_error=se,
                           n_resamples=n_resamples, confidence_level=confidence_level,
                           method="percentile", alternative=alternative)


# --------------------------------------------------------------------------
# cluster sign-flip test
# --------------------------------------------------------------------------

def _flip_setup(sums, sizes, n_resamples, seed, chunk_size):
    """(N, observed, tie tolerance, exact, number of patterns, chunks of +-1 sign patterns) of the
    cluster sign-flip test: exact enumeration when 2**G <= n_resamples, else the Monte-Carlo stream."""
    G = sums.shape[0]
    n_total = float(sizes.sum())
    observed = sums.sum(axis=0) / n_total
    # rounding in a signed sum is relative to its terms, not to the (possibly
    # cancelled) result: tolerance 100 eps * max(|T|, sum|S_g| / N)
    gamma = TIE_RTOL * np.maximum(np.abs(observed), np.abs(sums).sum(axis=0) / n_total)
    exact = G < 63 and (1 << G) <= n_resamples
    if exact:
        return n_total, observed, gamma, True, 1 << G, sign_pattern_chunks(G, chunk_size=chunk_size)
    chunks = sign_flip_chunks(G, n_resamples, seed=as_generator(seed), chunk_size=chunk_size)
    return n_total, observed, gamma, False, n_resamples, chunks


def noise_sums(sums, scale=None) -> np.ndarray:
    """Columns whose cluster sums are all 0 up to float noise, which the sign-flip test gives ``p = 1`` as
    all-zero deltas: ``max_g |S_g| <= 1e-12 * scale`` (:data:`~pairedframe.stats.studentized.ZERO_SPREAD_RTOL`,
    the rule for deltas without spread), ``scale`` the largest ``|delta|`` of the column -- the terms
    the sums cancelled (0.1 + 0.2 - 0.3 is 5.6e-17, not 0); None: exactly 0."""
    largest = np.max(np.abs(sums), axis=0)
    if scale is None:
        return largest == 0.0
    return largest <= ZERO_SPREAD_RTOL * np.asarray(scale, dtype=np.float64)


def nonzero_sums(sums, scale=None) -> np.ndarray:
    """(G, k) mask of the cluster sums that are not 0: ``|S_g| > 1e-12 * scale`` (:func:`noise_sums`' rule, so
    a column of float noise has none), exactly ``S_g != 0`` when ``scale`` is None."""
    if scale is None:
        return sums != 0.0
    return np.abs(sums) > ZERO_SPREAD_RTOL * np.asarray(scale, dtype=np.float64)


def settle_on_nonzero_sums(pvalue, exact, sums, n_resamples: int, alternative: str, chunk_size=None,
                           scale=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cluster sign-flip p-values settled on the ``k`` non-zero cluster sums of each column, as
    :func:`~pairedframe.stats.randomization.settle_on_nonzero` settles the sign-flip test on the non-zero deltas.

    A zero sum flips to itself, so the ``2**G`` patterns give each of the ``2**k`` statistics of the non-zero
    sums ``2**(G - k)`` times: exact over those when ``2**k <= n_resamples``, else the Monte-Carlo p held at
    its floor ``2 / 2**k`` (``1 / 2**k`` one-sided).  The statistic ``sum_g s_g S_g / N`` is the mean of the
    flipped non-zero sums times ``k / N``, and the tie tolerance ``100 eps max(|T|, sum_g |S_g| / N)`` scales
    the same way, so the extreme patterns are the same.  Columns without a non-zero sum (all float noise) get
    ``p = 1``.  Returns ``(pvalue, exact, k)``, arrays of shape (columns,).
    """
    nonzero = nonzero_sums(sums, scale)
    k = np.count_nonzero(nonzero, axis=0)
    p, done = settle_on_nonzero(pvalue, exact, k, n_resamples, alternative, lambda c: sums[nonzero[:, c], c],
                                chunk_size)
    p[k == 0] = 1.0                         # as all-zero deltas: every pattern ties
    return p, done, k


def _cluster_flip(sums, sizes, n_resamples, alternative, seed, chunk_size, scale=None):
    """(observed, p, patterns of the stream, exact per column, patterns per column: ``2**k`` where the
    non-zero cluster sums were enumerated)."""
    k = sums.shape[1]
    n_total, observed, gamma, exact, m, chunks = _flip_setup(sums, sizes, n_resamples, seed, chunk_size)
    b = np.zeros(k, dtype=np.int64)
    for signs in chunks:
        null = (signs @ sums) / n_total
        b += _count_extreme(null, observed, gamma, alternative)
    p = b / m if exact else (b + 1) / (m + 1)
    p, exact_columns, nonzero = settle_on_nonzero_sums(np.minimum(p, 1.0), exact, sums, n_resamples, alternative,
                                                       chunk_size, scale)
    patterns = np.where(exact_columns & (not exact), np.left_shift(1, np.minimum(nonzero, 62)), m)
    return observed, p, m, exact_columns, patterns


def _check_flip_options(n_resamples, alternative, chunk_size, G):
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    alternative = _check_alternative(alternative)
    chunk_size = _check_chunk_size(chunk_size, G)
    return n_resamples, alternative, chunk_size


@renamed_keywords(rng=USE_SEED)
def cluster_sign_flip_test(values, clusters, *, n_resamples: int = 10_000,
                           alternative: str = "two-sided", seed=None,
                           chunk_size: int | None = None) -> HypothesisTestResult:
    """Cluster randomization (sign-flip) test of the mean delta.

    Parameters
    ----------
    values : array_like, shape (n,)
        Per-query deltas (B - A or A - B), finite, ``n >= 1``.
    clusters : array_like, shape (n,)
        Cluster label of each query (any hashable dtype; NaN/None rejected).
    n_resamples : int, default 10_000
        Random sign patterns for the Monte-Carlo test.  If ``2**G <=
        n_resamples`` all ``2**G`` patterns are enumerated instead (exact test;
        ``seed`` unused); so are the ``2**k`` patterns of the ``k`` clusters
        whose summed delta is not 0 when ``2**k <= n_resamples`` (a zero sum
        flips to itself: the same exact p).
    alternative : {"two-sided", "greater", "less"}
        Two-sided: ``|T*| >= |T|``; greater: ``T* >= T``; less: ``T* <= T``.
    seed : None, int, SeedSequence or Generator
    chunk_size : int, optional
        Sign patterns processed at once (memory knob; results do not depend on it).

    Returns
    -------
    HypothesisTestResult
        ``statistic`` = ``sum(values) / n`` (the mean delta); ``pvalue`` in
        ``(0, 1]``, never below the exact floor ``2 / 2**k`` (``1 / 2**k``
        one-sided) of the ``k`` non-zero cluster sums; ``n_resamples`` = number
        of patterns used (``2**G`` if exact, ``2**k`` when the non-zero sums
        were enumerated); ``exact``; ``method="cluster sign-flip"``.

    Raises
    ------
    InsufficientSampleError
        If ``values`` is empty.
    ValueError, TypeError
        On shape mismatch, non-finite values, missing labels or invalid options.

    Notes
    -----
    Under H0 the two systems are exchangeable within every cluster, so the sum
    of each cluster's deltas is symmetric about 0 and its sign is flipped as
    one unit: ``T* = sum_g s_g * S_g / N``.  p-values: exact enumeration gives
    ``b / 2**G`` (identity included, no +1); Monte Carlo gives
    ``(b + 1) / (n_resamples + 1)`` (never 0).  With ``k < G`` non-zero cluster
    sums (0 up to the float noise of their deltas counts as 0) the exact p is
    that of the ``2**k`` patterns of those sums: enumerated when ``2**k <=
    n_resamples``, else the Monte-Carlo p is held at ``2 / 2**k``
    (:func:`settle_on_nonzero_sums`).  Ties use the tolerance
    ``100 * eps * max(|T|, sum_g |S_g| / N)`` (scipy uses ``100 * eps * |T|``;
    the extra term protects ties when ``T`` is a cancelled sum), the same rule
    as :func:`pairedframe.stats.randomization.sign_flip_test`.  All-zero deltas
    give ``p = 1``, and so do cluster sums that are all float noise of their
    deltas (``max |S_g| <= 1e-12 max |delta|``: 0.1, 0.2, 0.7 against 0.7, 0.1,
    0.2 sum to about 1e-17, not 0), as deltas without spread.  Two-sided uses absolute values (the null is symmetric);
    scipy's ``permutation_test`` instead doubles the smaller one-sided p-value.
    Clusters are ordered canonically (module docstring), so the result depends
    only on the multiset of clusters.

    References
    ----------
    Fisher, R. A. (1935). *The Design of Experiments*.
    Canay, I. A., Romano, J. P. & Shaikh, A. M. (2017). Randomization tests
    under an approximate symmetry assumption. Econometrica 85(3).
    Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero.
    """
    alternative = _check_alternative(alternative)
    X, sums, sizes = prepare_clusters(values, clusters, many=False, min_clusters=1)
    n_resamples, alternative, chunk_size = _check_flip_options(
        n_resamples, alternative, chunk_size, sums.shape[0])
    obs, p, _, exact, patterns = _cluster_flip(sums, sizes, n_resamples, alternative, seed, chunk_size,
                                               scale=np.max(np.abs(X), axis=0))
    return HypothesisTestResult(statistic=float(obs[0]), pvalue=float(p[0]), n_resamples=int(patterns[0]),
                                alternative=alternative, method="cluster sign-flip", exact=bool(exact[0]))


@renamed_keywords(rng=USE_SEED)
def cluster_sign_flip_test_many(values, clusters, *, n_resamples: int = 10_000,
                                alternative: str = "two-sided", seed=None,
                                chunk_size: int | None = None) -> HypothesisTestResult:
    """Cluster sign-flip test of many columns with ONE shared sign stream.

    Parameters
    ----------
    values : array_like, shape (n, k)
        Per-query deltas, one column per comparison.
    clusters, n_resamples, alternative, seed, chunk_size
        As :func:`cluster_sign_flip_test`.

    Returns
    -------
    HypothesisTestResult
        ``statistic``, ``pvalue`` and ``exact`` are arrays of shape (k,).  The
        same sign pattern (per cluster) is applied to every column; a column
        with few non-zero cluster sums is exact over them (``exact[c]``) as in
        :func:`cluster_sign_flip_test`.  ``n_resamples``: the patterns of the
        shared stream (``2**G`` when enumerated).

    Raises
    ------
    InsufficientSampleError, ValueError, TypeError
        As :func:`cluster_sign_flip_test`.
    """
    alternative = _check_alternative(alternative)
    X, sums, sizes = prepare_clusters(values, clusters, many=True, min_clusters=1)
    n_resamples, alternative, chunk_size = _check_flip_options(
        n_resamples, alternative, chunk_size, sums.shape[0])
    obs, p, m, exact, _ = _cluster_flip(sums, sizes, n_resamples, alternative, seed, chunk_size,
                                        scale=np.max(np.abs(X), axis=0))
    return HypothesisTestResult(statistic=obs, pvalue=p, n_resamples=m,
                                alternative=alternative, method="cluster sign-flip", exact=exact)
