"""Confidence sets for the ranks of systems from paired per-query values (Mogstad et al. 2024).

``p`` systems are measured on the same ``n`` queries (``X``, shape ``(n, p)``). A system's rank is
``1 + #{k : theta_k > theta_j}`` (1 = best; tied systems share the better rank), ``theta`` the
population means. For every pair the mean difference ``D_jk`` gets the paired standard error
``se_jk = sd(X_j - X_k) / sqrt(n)``; the bootstrap over queries gives the ``confidence_level``
quantile ``c`` of ``max |D*_jk - D_jk| / se*_jk`` (each resample studentized by its own paired standard
error, floored at ``se_jk / 2`` as compare's default interval: with the sample's in its place the
sets miss far more than they promise when systems are close) -- over every pair (``simultaneous``: the sets of
all systems hold their true ranks jointly) or over the pairs of one system (``marginal``: each set
on its own). A pair with ``|D_jk| > c se_jk`` is ordered with confidence; then, as in Romano & Wolf's
step-down (Mogstad et al.'s stepwise sets), ``c`` is drawn again over the pairs not yet ordered, until
no new pair is ordered (the same coverage, sets never wider). Then

    rank_low_j  = 1 + #{k confidently above j},     rank_high_j = p - #{k confidently below j}.

Pairs whose means tie (:func:`~pairedframe.stats.rank_agreement.tie_rounded`) or whose differences
have no spread (identical systems) are never ordered, so a set always holds the point rank.

References
----------
Mogstad, M., Romano, J. P., Shaikh, A. M. and Wilhelm, D. (2024). Inference for ranks with
applications to mobility across neighbourhoods and academic achievement across countries.
Review of Economic Studies 91(1), 476-518 (section 3: simultaneous and marginal sets).
Romano, J. P. and Wolf, M. (2005). Exact and approximate stepdown methods for multiple hypothesis
testing. Journal of the American Statistical Association 100(469), 94-108.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import numpy as np

from pairedframe.stats.rank_agreement import tie_rounded
from pairedframe.stats.results import ConfidenceInterval
from pairedframe.stats.studentized import MIN_SE_RATIO, ZERO_SPREAD_RTOL

__all__ = ["RankSetsResult", "rank_sets", "point_ranks"]

#: Elements of the (resamples, p, p) blocks handled at once (memory knob; results do not depend on it).
_BLOCK_ELEMENTS = 2**21
#: T* is kept between the step-down's steps up to this many elements (8 bytes each), else drawn again.
_CACHED_ELEMENTS = 2**23



@dataclass(frozen=True)
class RankSetsResult:
    """Result of :func:`rank_sets` (arrays, one entry per system in the columns' order).

    Attributes
    ----------
    statistic : ndarray of int64
        Point ranks (1 = best; tied means share the better rank).
    confidence_interval : ConfidenceInterval
        ``low``, ``high``: int64 arrays, the rank sets ``{low, ..., high}``.
    critical_value : ndarray of float64
        The first step's ``c`` per system (one value repeated when ``simultaneous``); the later steps'
        are at most this; ``inf`` when ``n_resamples`` is too few for the level (every set is then
        ``{1, ..., p}``).
    n_resamples : int
    """

    statistic: np.ndarray
    confidence_interval: ConfidenceInterval
    critical_value: np.ndarray
    n_resamples: int


def point_ranks(means: np.ndarray) -> np.ndarray:
    """``1 + #{k : mean_k > mean_j}`` with means compared under the tie rule (higher = better)."""
    tied = tie_rounded(np.asarray(means, dtype=np.float64)[None, :])[0]
    return 1 + (tied[None, :] > tied[:, None]).sum(axis=1).astype(np.int64)


def _pair_se(X: np.ndarray) -> np.ndarray:
    """``se_jk`` (p, p) of the paired differences; 0 where the differences are float noise."""
    n, p = X.shape
    se = np.zeros((p, p))
    for j in range(p - 1):
        D = X[:, j + 1:] - X[:, [j]]
        spread = np.ptp(D, axis=0) > ZERO_SPREAD_RTOL * np.maximum(np.abs(X[:, j + 1:]).max(axis=0),
                                                                   np.abs(X[:, j]).max())
        se[j, j + 1:] = np.where(spread, D.std(axis=0, ddof=1) / math.sqrt(n), 0.0)
    return se + se.T


def _studentized_blocks(X: np.ndarray, resamples: Iterable[np.ndarray], se: np.ndarray,
                        orderable: np.ndarray) -> Iterator[np.ndarray]:
    """``T[b, j, k] = ((M*_j - M_j) - (M*_k - M_k)) / max(se*_jk, se_jk / 2)`` in blocks of resamples
    (antisymmetric; 0 where the pair is not orderable): each resample studentized by its own paired
    standard error, floored at half the sample's (:data:`~pairedframe.stats.studentized.MIN_SE_RATIO`), as
    compare's default interval."""
    n, p = X.shape
    Xc = X - X.mean(axis=0)                       # centred: M* - M is the resample's mean of Xc
    floor = np.where(orderable, MIN_SE_RATIO * se, 1.0)
    step = max(1, _BLOCK_ELEMENTS // (p * p + n))
    for index in resamples:
        for start in range(0, index.shape[0], step):
            block = index[start:start + step]
            b = block.shape[0]
            flat = (block + (np.arange(b) * n)[:, None]).ravel()
            weights = np.bincount(flat, minlength=b * n).reshape(b, n) / n
            shift = weights @ Xc                                  # (b, p)
            second = np.stack([weights @ (Xc * Xc[:, [j]]) for j in range(p)], axis=1)   # (b, p, p): E*[x_j x_k]
            diff = shift[:, :, None] - shift[:, None, :]
            square = np.diagonal(second, axis1=1, axis2=2)
            var = square[:, :, None] + square[:, None, :] - 2.0 * second - diff * diff    # divisor n
            se_star = np.sqrt(np.maximum(var, 0.0) / (n - 1))
            yield np.where(orderable, diff / np.maximum(se_star, floor), 0.0)


def _critical(blocks: Iterable[np.ndarray], above: np.ndarray, below: np.ndarray, confidence_level: float,
              n_resamples: int, joint: bool) -> np.ndarray:
    """Per family (row ``j``; one family of every row when ``joint``), the ``ceil(level (B + 1))``-th
    smallest over resamples of ``max T[b, j, k]`` over its hypotheses still open: "j above k" where
    ``above[j, k]``, "k above j" (``-T[b, j, k]``) where ``below[j, k]``; ``inf`` past ``B``."""
    closed_above = np.where(above, 0.0, -np.inf)       # added: a closed hypothesis never is the maximum
    closed_below = np.where(below, 0.0, -np.inf) if below.any() else None

    def maxima(T: np.ndarray) -> np.ndarray:
        if closed_below is None:
            return (T + closed_above).max(axis=(1, 2))[:, None] if joint else (T + closed_above).max(axis=2)
        per_row = np.maximum(T + closed_above, closed_below - T).max(axis=2)
        return per_row.max(axis=1, keepdims=True) if joint else per_row
    stats = np.concatenate([maxima(T) for T in blocks])
    at = math.ceil(confidence_level * (n_resamples + 1))
    crit = np.full(stats.shape[1], np.inf) if at > stats.shape[0] else np.sort(stats, axis=0)[at - 1]
    return np.broadcast_to(crit, (above.shape[0],)).copy()


def _step_down(blocks: Callable[[], Iterable[np.ndarray]], z: np.ndarray, open_pairs: np.ndarray,
               confidence_level: float, n_resamples: int, simultaneous: bool
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Romano & Wolf's step-down over the hypotheses "j above k" (``z[j, k] > c``): the pairs ordered
    (``above[j, k]``: j confidently above k; ``below[j, k]``: k above j, in j's family) and the first
    step's ``c`` per family (every pair open)."""
    p = z.shape[0]
    above, below = open_pairs.copy(), open_pairs.T.copy()        # still open, per family j
    found_above, found_below = np.zeros((p, p), bool), np.zeros((p, p), bool)
    first = None
    while True:
        # simultaneous: one family of every open hypothesis, each once (row j holds "j above k")
        crit = _critical(blocks(), above, np.zeros((p, p), bool) if simultaneous else below, confidence_level,
                         n_resamples, simultaneous)
        first = crit if first is None else first
        new_above, new_below = above & (z > crit[:, None]), below & (-z > crit[:, None])
        if simultaneous:
            new_below = new_above.T
        if not (new_above.any() or new_below.any()):
            return found_above, found_below, first
        found_above |= new_above
        found_below |= new_below
        above &= ~new_above
        below &= ~new_below


def rank_sets(X, resamples: Callable[[], Iterable[np.ndarray]], *, n_resamples: int,
              confidence_level: float = 0.95, simultaneous: bool = True, order: bool = True) -> RankSetsResult:
    """Confidence sets for the ranks of ``p`` systems (higher values better).

    Parameters
    ----------
    X : array_like, shape (n, p)
        One row per query, one column per system; finite, ``n >= 2``, ``p >= 2``.
    resamples : callable
        Returns the bootstrap indices into the ``n`` rows, chunks of shape ``(rows, n)`` adding up to
        ``n_resamples`` rows (:func:`pairedframe.stats.resample.bootstrap_index_chunks`), the same
        resamples at every call (each step of the step-down reads them again: never held whole).
    n_resamples : int
    confidence_level : float in (0, 1)
    simultaneous : bool, default True
        Joint coverage of every system's rank (True) or of each rank on its own (False).
    order : bool, default True
        False: order no pair (every set ``{1, ..., p}``, ``c = inf``), drawing nothing; for samples too
        small for the bootstrap.

    Returns
    -------
    RankSetsResult
        The quantile is the ``ceil(confidence_level * (B + 1))``-th smallest maximum (``inf`` past
        ``B``): the sets are never narrower than the resamples can support.

    Raises
    ------
    ValueError
        ``X`` not 2-D, with fewer than 2 rows or columns, or not finite.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 2:
        raise ValueError(f"`X` must have shape (n >= 2 queries, p >= 2 systems), got {X.shape}")
    if not np.isfinite(X).all():
        raise ValueError("`X` must be finite")
    p = X.shape[1]
    means = X.mean(axis=0)
    ranks = point_ranks(means)
    se = _pair_se(X)
    tied = tie_rounded(means[None, :])[0]
    orderable = (se > 0) & (tied[:, None] != tied[None, :])
    with np.errstate(divide="ignore"):
        scale = np.where(orderable, 1.0 / np.where(orderable, se, 1.0), 0.0)
    z = (means[:, None] - means[None, :]) * scale              # z[j, k] > c: j confidently above k
    if not order:
        return RankSetsResult(statistic=ranks, confidence_interval=ConfidenceInterval(np.ones(p, np.int64),
                                                                                      np.full(p, p, np.int64)),
                              critical_value=np.full(p, np.inf), n_resamples=0)

    def fresh() -> Iterable[np.ndarray]:
        return _studentized_blocks(X, resamples(), se, orderable)
    kept = list(fresh()) if n_resamples * p * p <= _CACHED_ELEMENTS else None  # each step reads the same T*
    blocks = fresh if kept is None else (lambda: kept)
    above, below, crit = _step_down(blocks, z, orderable, confidence_level, n_resamples, simultaneous)
    low = 1 + below.sum(axis=1).astype(np.int64)
    high = p - above.sum(axis=1).astype(np.int64)
    return RankSetsResult(statistic=ranks, confidence_interval=ConfidenceInterval(low, high), critical_value=crit,
                          n_resamples=n_resamples)
