"""Randomised Tukey HSD test: every pair of m systems from one set of within-query permutations.

Under the global null "the m systems are exchangeable within each query", the m values of a
query may be shuffled among the systems.  Each of ``n_resamples`` permutations shuffles every
query's row independently and records the range of the system means, ``max_s mean - min_s mean``.
The adjusted p-value of the pair (i, j) is the share of permutations whose range reaches the
observed ``|mean_i - mean_j|``:

    p_ij = (b_ij + 1) / (n_resamples + 1),   b_ij = #{r : range_r >= |mean_i - mean_j| - gamma_ij}

(with the +1 of Phipson & Smyth 2010, so p is never 0; ``gamma_ij = 100 eps * max(|mean_i -
mean_j|, mean|X|)`` absorbs rounding, as the sign-flip test).  Because every pair is compared with
the distribution of the *largest* difference, rejecting ``p_ij < alpha`` controls the family-wise
error rate over all pairs (in the strong sense under the usual subset-pivotality argument).  A pair's
p-value depends on every system in the call -- that is the price of the joint test.

Streams: the permutation of query ``q`` in resample ``r`` is ``argsort(u, kind="stable")`` of
``u = rng.random(m)``, drawn for r = 0, 1, ... and within each r for q = 0, 1, ... -- i.e. one
``rng.random((rows, n, m))`` call per chunk, so results do not depend on ``chunk_size``.

References
----------
Carterette, B. (2012). Multiple testing in statistical analysis of systems-based information
retrieval experiments. ACM TOIS 30(1).
Sakai, T. (2014). Statistical reform in information retrieval? SIGIR Forum 48(1); and
Sakai, T. (2018). Laboratory Experiments in Information Retrieval, ch. 4 (randomised Tukey HSD).
Phipson, B. and Smyth, G. K. (2010). Permutation p-values should never be zero. SAGMB 9(1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pairedframe.errors import USE_SEED, renamed_keywords

from .randomization import TIE_RTOL
from .resample import DEFAULT_CHUNK_ELEMENTS, _check_2d, check_int, as_generator

__all__ = ["TukeyHSDResult", "randomised_tukey_hsd"]


@dataclass(frozen=True)
class TukeyHSDResult:
    """Result of :func:`randomised_tukey_hsd`.

    Attributes
    ----------
    statistic : ndarray, shape (m, m)
        ``mean_j - mean_i`` at ``[i, j]`` (antisymmetric; 0 on the diagonal).
    pvalue : ndarray, shape (m, m)
        Family-wise adjusted p-values, symmetric, in ``[1/(n_resamples+1), 1]``; 1 on the diagonal.
    null_distribution : ndarray, shape (n_resamples,)
        Range of the system means under each permutation.
    n_resamples : int
    """

    statistic: np.ndarray
    pvalue: np.ndarray
    null_distribution: np.ndarray
    n_resamples: int


def _permuted_ranges(X: np.ndarray, rows: int, seed: np.random.Generator) -> np.ndarray:
    n, m = X.shape
    perm = np.argsort(seed.random((rows, n, m)), axis=2, kind="stable")
    means = np.take_along_axis(np.broadcast_to(X, (rows, n, m)), perm, axis=2).sum(axis=1) / n
    return means.max(axis=1) - means.min(axis=1)


@renamed_keywords(rng=USE_SEED)
def randomised_tukey_hsd(X, *, n_resamples: int = 10_000, seed=None, chunk_size: int | None = None
                         ) -> TukeyHSDResult:
    """Randomised Tukey HSD over the columns (systems) of ``X``.

    Parameters
    ----------
    X : array_like, shape (n, m)
        Per-query values: row = query, column = system; finite; ``n >= 2``, ``m >= 2``.
    n_resamples : int, default 10_000
        Permutations (``>= 1``).
    seed : None, int, SeedSequence or Generator
        Source of the permutations (module docstring); a Generator is advanced in place.
    chunk_size : int, optional
        Permutations held in memory at once (default: about 4M values); results do not depend on it.

    Returns
    -------
    TukeyHSDResult
        ``statistic`` (differences of means), ``pvalue`` (adjusted), ``null_distribution``.

    Raises
    ------
    InsufficientSampleError
        Fewer than 2 queries.
    ValueError
        Fewer than 2 systems, non-finite values or bad options.
    """
    X = _check_2d(X, "X", min_n=2)
    n, m = X.shape
    if m < 2:
        raise ValueError(f"Tukey HSD needs at least 2 systems (columns), got {m}")
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    step = (max(1, DEFAULT_CHUNK_ELEMENTS // (n * m)) if chunk_size is None
            else check_int(chunk_size, "chunk_size", minimum=1))
    gen = as_generator(seed)
    null = np.concatenate([_permuted_ranges(X, min(step, n_resamples - start), gen)
                           for start in range(0, n_resamples, step)])
    means = np.mean(np.ascontiguousarray(X.T), axis=1)
    diff = means[None, :] - means[:, None]
    gamma = TIE_RTOL * np.maximum(np.abs(diff), np.mean(np.abs(X)))
    sorted_null = np.sort(null)
    below = np.searchsorted(sorted_null, (np.abs(diff) - gamma).ravel(), side="left").reshape(m, m)
    p = (n_resamples - below + 1) / (n_resamples + 1)
    np.fill_diagonal(p, 1.0)
    return TukeyHSDResult(statistic=diff, pvalue=np.minimum(p, 1.0), null_distribution=null,
                          n_resamples=n_resamples)
