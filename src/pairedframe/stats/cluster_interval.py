"""Small-G inference for clustered deltas: cluster-robust SE, cluster-t, and the inverted cluster sign-flip test.

With ``G`` clusters of summed deltas ``S_g`` and sizes ``n_g`` (``N = sum n_g``), the mean delta is
``theta = sum S_g / N``.

- :func:`cluster_robust_se` is Bell & McCaffrey's bias-reduced CR2 standard error
  ``sqrt(sum_g (S_g - theta n_g)**2 / (1 - n_g/N)) / N``, which with equal cluster sizes is CR1,
  ``sqrt(G / (G - 1) * sum_g (S_g - theta n_g)**2) / N`` (Cameron & Miller 2015, sec. VI.B); with one
  query per cluster it is ``sd(ddof=1) / sqrt(n)``.  :func:`cluster_df` gives its Bell-McCaffrey
  degrees of freedom: ``G - 1`` for equal sizes, fewer when a few clusters hold most queries (CR1 with
  ``G - 1`` then under-covers badly: with one cluster of 21 queries and nine of 1 the Edgeworth
  interval on them covered 0.719-0.861, on CR2 with these df 0.956-0.990; docs/how/calibration.md).
  With equal sizes the cluster bootstrap's spread of resampled means is this SE times
  ``sqrt((G - 1) / G)``, 5 % too small at ``G = 10``.
- :func:`cluster_t_interval` is ``theta -/+ t(df) * SE`` (Bell & McCaffrey 2002; Cameron, Gelbach &
  Miller 2008 recommend ``G - 1`` degrees of freedom with few clusters; Imbens & Kolesar 2016 the
  Bell-McCaffrey ones with unequal sizes).
- :func:`cluster_edgeworth_interval` widens (or narrows) cluster-t's quantile by the second-order
  Edgeworth term estimated from the clusters' residual sums ``S_g - theta n_g``
  (:mod:`pairedframe.stats.edgeworth`): skewed cluster effects make cluster-t short of its level at
  ``G = 10`` (0.939-0.952 on real deltas), the corrected interval is not (0.946-0.956).  With very
  few clusters it corrects nothing: the term is estimated from ``G`` residual sums, exactly 0 at
  ``G = 2`` (two residuals have no skewness) and under 1 % of the quantile at ``G = 3``; with Exp(1)
  cluster sums both intervals cover 0.88-0.89 at ``G = 3-4``
  (``benchmarks/calibration --section edgeworth``).
- :func:`cluster_sign_flip_interval_many` inverts the cluster sign-flip test of
  :mod:`pairedframe.stats.cluster`: shifting every delta by ``delta`` shifts cluster ``g``'s sum by
  ``delta n_g``, so a pattern's null statistic becomes ``a - delta c`` with ``c = sum s_g n_g / N``
  and the breakpoints of :mod:`pairedframe.stats.signflip_interval` apply unchanged.  Same patterns as
  the test, same tie rule: the interval excludes 0 exactly when the test's ``p < alpha``.

On real TREC deltas grouped into clusters (``benchmarks/calibration --section clustered``) the
cluster percentile bootstrap covers 0.885-0.899 at ``G = 10``, cluster-t and the inverted test
0.939-0.952, the Edgeworth-corrected interval 0.946-0.956 (docs/how/calibration.md).

References
----------
Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear regression with
multi-stage samples. *Survey Methodology* 28(2).
Cameron, A. C., Gelbach, J. B. & Miller, D. L. (2008). Bootstrap-based improvements for inference
with clustered errors. *Rev. Econ. Stat.* 90(3).
Cameron, A. C. & Miller, D. L. (2015). A practitioner's guide to cluster-robust inference. *J. Human
Resources* 50(2).
Imbens, G. W. & Kolesar, M. (2016). Robust standard errors in small samples: some practical advice.
*Rev. Econ. Stat.* 98(4).
Canay, I. A., Romano, J. P. & Shaikh, A. M. (2017). Randomization tests under an approximate symmetry
assumption. *Econometrica* 85(3).
"""

from __future__ import annotations

import numpy as np
from scipy.special import stdtrit

from pairedframe.errors import USE_SEED, renamed_keywords

from .results import ConfidenceInterval, SignFlipIntervalResult
from .cluster import _flip_setup, settle_on_nonzero_sums
from .cluster_summaries import prepare_clusters
from .edgeworth import edgeworth_t_quantile
from .resample import _check_alternative, _check_chunk_size, check_int, _check_probability
from .signflip_interval import agree_with_settled_p, inverted_interval

__all__ = ["cluster_robust_se", "cluster_df", "bell_mccaffrey_df", "cluster_t_interval", "cluster_edgeworth_interval",
           "cluster_sign_flip_interval_many"]


def cluster_robust_se(sums, sizes) -> np.ndarray:
    """Bias-reduced (CR2) cluster-robust standard error of ``sum(sums) / sum(sizes)`` per column.

    Parameters
    ----------
    sums : array_like, shape (G,) or (G, k)
        Per-cluster sums of the deltas.
    sizes : array_like, shape (G,)
        Queries per cluster.

    Returns
    -------
    ndarray, shape (k,) (or a 0-d array for 1-D ``sums``)
        ``sqrt(sum_g (S_g - theta n_g)**2 / (1 - n_g / N)) / N`` -- Bell & McCaffrey's CR2 for a mean
        (the adjustment ``(I - H_gg)^(-1/2)`` of the residuals of cluster ``g``, with ``H`` the hat
        matrix of the mean, scales their sum by ``(1 - n_g/N)^(-1/2)``).  With equal cluster sizes it
        is CR1, ``sqrt(G / (G - 1) * sum_g (S_g - theta n_g)**2) / N``; a large cluster's residual is
        inflated more, which CR1 does not do.

    Raises
    ------
    ValueError
        If ``G < 2`` or the shapes disagree.
    """
    S = np.asarray(sums, dtype=np.float64)
    n = np.asarray(sizes, dtype=np.float64)
    one = S.ndim == 1
    S = S[:, None] if one else S
    if S.shape[0] != n.shape[0] or S.shape[0] < 2:
        raise ValueError(f"need G >= 2 clusters with one size each, got sums {S.shape} and sizes {n.shape}")
    N = float(n.sum())
    theta = S.sum(axis=0) / N
    resid = S - n[:, None] * theta
    weight = _cr2_weights(n, N)
    if np.all(n == n[0]):            # equal sizes: CR1 exactly (G / (G - 1) without rounding)
        G = S.shape[0]
        se = np.sqrt(G / (G - 1.0) * np.sum(resid * resid, axis=0)) / N
    else:
        se = np.sqrt(np.sum(weight[:, None] * resid * resid, axis=0)) / N
    return se[0] if one else se


def _cr2_weights(sizes: np.ndarray, N: float) -> np.ndarray:
    return 1.0 / (1.0 - sizes / N)


def cluster_df(sizes) -> float:
    """Bell-McCaffrey degrees of freedom of the CR2 standard error of a mean over clusters.

    Parameters
    ----------
    sizes : array_like, shape (G,)
        Queries per cluster (``G >= 2``).

    Returns
    -------
    float
        Satterthwaite's ``(sum lambda)^2 / sum lambda^2`` over the eigenvalues ``lambda`` of ``K`` with
        ``K_gh = c_g n_g [g = h] - sqrt(c_g c_h) n_g n_h / N``, ``c_g = 1 / (1 - n_g/N)`` (the CR2
        variance as a quadratic form in i.i.d. normal errors; Bell & McCaffrey 2002, Imbens & Kolesar
        2016), from closed-form traces.  ``G - 1`` when the sizes are equal; fewer when a few clusters
        hold most queries (one cluster of 21 and nine of 1: about 1.9).

    Raises
    ------
    ValueError
        If ``G < 2`` or a size is not positive.
    """
    n = np.asarray(sizes, dtype=np.float64)
    if n.ndim != 1 or n.shape[0] < 2 or not np.all(n > 0):
        raise ValueError(f"need G >= 2 positive cluster sizes, got {np.asarray(sizes)!r}")
    if np.all(n == n[0]):
        return float(n.shape[0] - 1)
    N = float(n.sum())
    c = _cr2_weights(n, N)
    return float(bell_mccaffrey_df(np.sum(c * n), np.sum(c * n * n), np.sum((c * n - c * n * n / N) ** 2),
                                   np.sum(c * c * n ** 4), N))


def bell_mccaffrey_df(a, b, c, d, N):
    """:func:`cluster_df` from per-comparison sums ``a = sum c_g n_g``, ``b = sum c_g n_g^2``,
    ``c = sum (c_g n_g - c_g n_g^2 / N)^2``, ``d = sum c_g^2 n_g^4`` (e.g. aggregated in an engine):
    ``tr(K)^2 / tr(K^2)`` with ``tr(K) = a - b/N`` and ``tr(K^2) = c + (b^2 - d) / N^2``."""
    a, b, c, d, N = (np.asarray(v, dtype=np.float64) for v in (a, b, c, d, N))
    return (a - b / N) ** 2 / (c + (b * b - d) / (N * N))


def cluster_t_interval(theta, se, G: int, *, confidence_level: float = 0.95,
                       alternative: str = "two-sided", df=None) -> ConfidenceInterval:
    """``theta -/+ t(1 - alpha/2, df) * se`` (one-sided: ``t(1 - alpha, df)``, infinite other bound).

    Parameters
    ----------
    theta, se : float or array_like
        Estimates and their (cluster-robust) standard errors.
    G : int
        Number of clusters (``>= 2``).
    confidence_level : float in (0, 1)
    alternative : {"two-sided", "greater", "less"}
    df : float, optional
        Degrees of freedom of the t reference; default ``G - 1`` (:func:`cluster_df` for unequal sizes).

    Returns
    -------
    ConfidenceInterval
    """
    G = check_int(G, "G", minimum=2)
    confidence_level = _check_probability(confidence_level, "confidence_level")
    alternative = _check_alternative(alternative)
    theta = np.asarray(theta, dtype=np.float64)
    se = np.asarray(se, dtype=np.float64)
    df = G - 1 if df is None else float(df)
    if alternative == "two-sided":
        q = float(stdtrit(df, 0.5 + confidence_level / 2))
        return ConfidenceInterval(theta - q * se, theta + q * se)
    q = float(stdtrit(df, confidence_level))
    if alternative == "greater":
        return ConfidenceInterval(theta - q * se, np.full_like(theta, np.inf))
    return ConfidenceInterval(np.full_like(theta, -np.inf), theta + q * se)


def cluster_edgeworth_interval(sums, sizes, *, se=None, confidence_level: float = 0.95,
                               alternative: str = "two-sided") -> ConfidenceInterval:
    """Cluster-t interval with the Edgeworth-corrected quantile of the clusters' residual sums.

    Parameters
    ----------
    sums : array_like, shape (G,) or (G, k)
        Per-cluster sums of the deltas, one column per comparison.
    sizes : array_like, shape (G,)
        Queries per cluster.
    se : array_like, shape (k,), optional
        Standard errors to use instead of the CR2 one (e.g. with float-noise spread set to 0).
    confidence_level : float in (0, 1), default 0.95
    alternative : {"two-sided", "greater", "less"}
        One-sided bounds use the plain t quantile (the correction is the two-sided one).

    Returns
    -------
    ConfidenceInterval
        ``theta -/+ q * se`` with ``theta = sum(sums) / sum(sizes)``, ``se`` the CR2 standard error
        (:func:`cluster_robust_se`) and ``q`` = :func:`~pairedframe.stats.edgeworth.edgeworth_t_quantile`
        of the residual sums ``S_g - theta n_g`` on :func:`cluster_df` degrees of freedom (``G - 1``
        for equal sizes).  The correction vanishes at ``G = 2`` and is below 1 % at ``G = 3``: it
        does not make up for skewed cluster effects with so few clusters (module docstring).

    Raises
    ------
    ValueError
        If ``G < 2``, the shapes disagree or an option is invalid.
    """
    S = np.asarray(sums, dtype=np.float64)
    n = np.asarray(sizes, dtype=np.float64)
    one = S.ndim == 1
    S2 = S[:, None] if one else S
    se = np.asarray(cluster_robust_se(S2, n) if se is None else se, dtype=np.float64).reshape(-1)
    G = S2.shape[0]
    theta = S2.sum(axis=0) / n.sum()
    alternative = _check_alternative(alternative)
    df = cluster_df(n)
    if alternative != "two-sided":
        ci = cluster_t_interval(theta, se, G, confidence_level=confidence_level, alternative=alternative, df=df)
    else:
        q = edgeworth_t_quantile(S2 - theta * n[:, None], df, confidence_level=confidence_level)
        ci = ConfidenceInterval(theta - q * se, theta + q * se)
    if one:
        return ConfidenceInterval(float(ci.low[0]), float(ci.high[0]))
    return ci

def flip_interval_from_sums(sums, sizes, n_resamples, confidence_level, alternative, seed, chunk_size, scale=None):
    """Cluster sign-flip p-values and inverted intervals (same patterns and tie rule as the test; ``scale``
    the largest ``|delta|`` per column, below which cluster sums are float noise:
    :func:`~pairedframe.stats.cluster.noise_sums`).

    Returns ``(observed, p, low, high, patterns of the stream, exact per column)``: a column with few non-zero
    cluster sums has the test's p settled on them (:func:`~pairedframe.stats.cluster.settle_on_nonzero_sums`)
    and its interval's end at 0 moved to agree with it
    (:func:`~pairedframe.stats.signflip_interval.agree_with_settled_p`), as
    :func:`~pairedframe.stats.signflip_interval.sign_flip_interval_many` does."""
    k = sums.shape[1]
    n_total, observed, gamma, exact, m, chunks = _flip_setup(sums, sizes, n_resamples, seed, chunk_size)
    null = np.empty((m, k))
    c = np.empty(m)
    same = np.empty(m, dtype=bool)
    none = np.empty(m, dtype=bool)
    pos = 0
    for signs in chunks:
        rows = signs.shape[0]
        null[pos:pos + rows] = (signs @ sums) / n_total
        c[pos:pos + rows] = (signs @ sizes) / n_total
        none[pos:pos + rows] = np.all(signs > 0, axis=1)
        same[pos:pos + rows] = none[pos:pos + rows] | np.all(signs < 0, axis=1)
        pos += rows
    p, low, high = inverted_interval(null, c, observed, gamma, m, exact, confidence_level, alternative, same, none)
    # as the test: exact over few non-zero cluster sums, p = 1 for sums that are all 0 up to float noise
    settled, exact_columns, _ = settle_on_nonzero_sums(p, exact, sums, n_resamples, alternative, chunk_size, scale)
    low, high = agree_with_settled_p(low, high, settled, settled != p, observed, confidence_level)
    return observed, settled, low, high, m, exact_columns


@renamed_keywords(rng=USE_SEED)
def cluster_sign_flip_interval_many(values, clusters, *, n_resamples: int = 10_000,
                                    confidence_level: float = 0.95, alternative: str = "two-sided",
                                    seed=None, chunk_size: int | None = None) -> SignFlipIntervalResult:
    """Cluster sign-flip p-values and the intervals that invert them, one sign stream for all columns.

    Parameters
    ----------
    values : array_like, shape (n, k)
        Per-query deltas, one column per comparison.
    clusters : array_like, shape (n,)
        Cluster label of each query (any hashable; NaN/None rejected).
    n_resamples : int, default 10_000
        Random sign patterns; all ``2**G`` are enumerated when ``2**G <= n_resamples`` (exact), and the
        p-value of a column with ``k`` non-zero cluster sums is exact over their ``2**k`` patterns when
        ``2**k <= n_resamples`` (a zero sum flips to itself), as the test's.
    confidence_level : float in (0, 1), default 0.95
    alternative : {"two-sided", "greater", "less"}
    seed : None, int, SeedSequence or Generator
        The stream of :func:`~pairedframe.stats.cluster.cluster_sign_flip_test_many`.
    chunk_size : int, optional
        Patterns drawn at once (memory knob; results do not depend on it).

    Returns
    -------
    SignFlipIntervalResult
        ``pvalue`` and ``exact`` (per column) equal :func:`~pairedframe.stats.cluster.cluster_sign_flip_test_many`
        for the same ``seed`` state, bit for bit; ``low <= 0 <= high`` iff ``pvalue >=
        decision_alpha(confidence_level)`` (``1 - confidence_level`` without float noise:
        :mod:`pairedframe.stats.levels`).  Where the p was settled on few non-zero cluster sums while every
        other shift makes all sums non-zero and stays Monte Carlo, the interval's end is moved to 0 (or just
        past it) to agree with the p, as :func:`~pairedframe.stats.signflip_interval.sign_flip_interval_many`
        does.  ``n_resamples``: the patterns of the shared stream.

    Raises
    ------
    InsufficientSampleError
        If ``values`` is empty.
    ValueError, TypeError
        On shape mismatch, non-finite values, missing labels or invalid options.

    References
    ----------
    Garthwaite (1996), Biometrics 52(4); Canay, Romano & Shaikh (2017), Econometrica 85(3).
    """
    X, sums, sizes = prepare_clusters(values, clusters, many=True, min_clusters=1)
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    confidence_level = _check_probability(confidence_level, "confidence_level")
    alternative = _check_alternative(alternative)
    chunk_size = _check_chunk_size(chunk_size, sums.shape[0])
    obs, p, low, high, m, exact = flip_interval_from_sums(sums, sizes, n_resamples, confidence_level, alternative, seed,
                                                 chunk_size, scale=np.max(np.abs(X), axis=0))
    return SignFlipIntervalResult(statistic=obs, pvalue=p, confidence_interval=ConfidenceInterval(low, high),
                                  n_resamples=m, confidence_level=confidence_level, alternative=alternative,
                                  exact=exact)
