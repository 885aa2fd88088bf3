"""Confidence sets for the ranks of systems from paired per-query values (Mogstad et al. 2024).

``p`` systems are measured on the same ``n`` queries (``X``, shape ``(n, p)``). A system's rank is
``1 + #{k : theta_k > theta_j}`` (1 = best; tied systems share the better rank), ``theta`` the
population means. For every pair the mean difference ``D_jk`` gets the paired standard error
``se_jk = sd(X_j - X_k) / sqrt(n)``, floored at a tenth of the unpaired ``u_jk = sqrt((s_j^2 + s_k^2) / n)``
(:data:`MIN_UNPAIRED_SE_RATIO`); the bootstrap over queries gives the ``confidence_level`` quantile ``c`` of
``max |D*_jk - D_jk| / se*_jk``, each resample studentized by the same rule on its own values
(``max(se*_jk, u*_jk / 10)``: the bootstrap-t of the statistic the sample uses, Hall 1992) -- over every
pair (``simultaneous``: the sets of all systems hold their true ranks jointly) or over the pairs of one
system (``marginal``: each set on its own). A pair with ``|D_jk| > c se_jk`` is ordered with confidence;
then, as in Romano & Wolf's step-down (Mogstad et al.'s stepwise sets), ``c`` is drawn again over the
pairs not yet ordered, until no new pair is ordered (the same coverage, sets never wider). Then

    rank_low_j  = 1 + #{k confidently above j},     rank_high_j = p - #{k confidently below j}.

Pairs whose means tie (:func:`~pairedframe.stats.rank_agreement.tie_rounded`) or whose differences
have no spread (a run and its copy, or a run better by the same amount on every query: the resamples see no
variation, and ordering such pairs cost exactly tied runs' sets their coverage) are never ordered, so a set
always holds the point rank.

Why this floor: a floor at half the *sample's* paired SE (compare's interval rule) has no counterpart in
the sample's own statistic, so it cut the resamples' tail that the maximum over many pairs reads, and
exactly tied runs were all covered less often than promised (ten tied DL-2019 runs on nDCG@10). With no
floor, a pair of near-identical runs (a few queries differ) leaves those queries out of a third of the
resamples, whose ``T*`` is then infinite, and the sets of real runs widen. The floor on the unpaired SE
binds only for such pairs (per-query correlation above 0.99), in the sample and in each resample alike.
A resample in which both systems of a pair are constant (near-ceiling runs, RR@10 at 1 on all but a few
queries) has neither SE: it is studentized by the sample's, else its ``T*`` was infinite and one such pair
made every set ``{1, ..., p}``. ``benchmarks/calibration --section rank_sets`` prints the coverage.

References
----------
Mogstad, M., Romano, J. P., Shaikh, A. M. and Wilhelm, D. (2024). Inference for ranks with
applications to mobility across neighbourhoods and academic achievement across countries.
Review of Economic Studies 91(1), 476-518 (section 3: simultaneous and marginal sets).
Hall, P. (1992). The Bootstrap and Edgeworth Expansion, sec. 3.5-3.6 (the bootstrap-t re-computes the
statistic's own studentization in every resample). Springer.
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
from pairedframe.stats.studentized import ZERO_SPREAD_RTOL

__all__ = ["RankSetsResult", "rank_sets", "point_ranks"]

#: Elements of the (resamples, p, p) blocks handled at once (memory knob; results do not depend on it).
_BLOCK_ELEMENTS = 2**21
#: A pair's paired SE is floored at this share of its unpaired SE, in the sample and in every resample.
MIN_UNPAIRED_SE_RATIO = 0.1
#: A resample's unpaired variance at most this share of its second moments is 0 (float noise of E[x^2] - E[x]^2).
_CONSTANT_RTOL = 1e-12
#: T* of the pairs still open is kept between the step-down's steps up to this many elements (8 bytes each),
#: else drawn again; also the bound on the products of pairs held for the second moments.
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
    """``max(se_jk, u_jk / 10)`` (p, p): the paired SE floored at a tenth of the unpaired one; 0 where the
    differences are float noise."""
    n, p = X.shape
    se = np.zeros((p, p))
    var = X.var(axis=0, ddof=1)
    for j in range(p - 1):
        D = X[:, j + 1:] - X[:, [j]]
        spread = np.ptp(D, axis=0) > ZERO_SPREAD_RTOL * np.maximum(np.abs(X[:, j + 1:]).max(axis=0),
                                                                   np.abs(X[:, j]).max())
        floor = MIN_UNPAIRED_SE_RATIO * np.sqrt((var[j + 1:] + var[j]) / n)
        se[j, j + 1:] = np.where(spread, np.maximum(D.std(axis=0, ddof=1) / math.sqrt(n), floor), 0.0)
    return se + se.T


def _studentized_pairs(X: np.ndarray, resamples: Iterable[np.ndarray], j: np.ndarray, k: np.ndarray
                       ) -> Iterator[np.ndarray]:
    """``T[b, i] = ((M*_j - M_j) - (M*_k - M_k)) / max(se*_jk, u*_jk / 10)`` for the pairs ``(j[i], k[i])``, in
    blocks of resamples: each resample studentized by its own paired and unpaired standard errors, as the
    sample (:func:`_pair_se`). A resample in which both systems are constant (near-ceiling runs: RR@10 at 1 on
    all but a few queries, which a third of the resamples leave out) has neither; it is studentized by the
    sample's floor ``u_jk / 10`` instead (it was infinite, and one such pair made every set ``{1, ..., p}``)."""
    n, p = X.shape
    Xc = X - X.mean(axis=0)                       # centred: M* - M is the resample's mean of Xc
    sample_se = _pair_se(X)[j, k]
    step = max(1, _BLOCK_ELEMENTS // (p * p + n))
    # E*[x_j x_k] of every pair is one matmul over the products, held whole when small, else by bands
    band = max(1, _CACHED_ELEMENTS // n - p)
    squares = Xc * Xc
    whole = Xc[:, j] * Xc[:, k] if j.size <= band else None
    for index in resamples:
        for start in range(0, index.shape[0], step):
            block = index[start:start + step]
            b = block.shape[0]
            flat = (block + (np.arange(b) * n)[:, None]).ravel()
            weights = np.bincount(flat, minlength=b * n).reshape(b, n) / n
            shift = weights @ Xc                                  # (b, p)
            square = weights @ squares                            # (b, p): E*[x_j^2]
            second = weights @ whole if whole is not None else np.concatenate(
                [weights @ (Xc[:, j[i:i + band]] * Xc[:, k[i:i + band]]) for i in range(0, j.size, band)], axis=1)
            diff = shift[:, j] - shift[:, k]
            var = square[:, j] + square[:, k] - 2.0 * second - diff * diff    # divisor n
            own = square - shift * shift
            unpaired = own[:, j] + own[:, k]
            se_star = np.sqrt(np.maximum(np.maximum(var, MIN_UNPAIRED_SE_RATIO ** 2 * unpaired), 0.0) / (n - 1))
            # both systems constant in the resample (their variances are 0, or the float noise of the
            # cancellation): it has no SE of its own, so the sample's floor keeps T* finite
            constant = unpaired <= _CONSTANT_RTOL * (square[:, j] + square[:, k])
            se_star = np.where(constant, sample_se, se_star)
            with np.errstate(divide="ignore", invalid="ignore"):
                yield np.where(se_star > 0, diff / se_star, np.where(diff == 0, 0.0, np.sign(diff) * np.inf))


class _Draws:
    """The resamples' ``T*`` over the orderable pairs ``j < k``, as (b, p, p) blocks (antisymmetric, 0 off
    the pairs asked for). Each step of the step-down reads them: held in memory when the pairs still open
    fit in :data:`_CACHED_ELEMENTS` (drawn once, or again once after the first step), else drawn anew."""

    def __init__(self, X: np.ndarray, resamples: Callable[[], Iterable[np.ndarray]], orderable: np.ndarray,
                 n_resamples: int) -> None:
        self.X, self.resamples, self.n_resamples = X, resamples, n_resamples
        self.j, self.k = np.nonzero(np.triu(orderable, 1))
        self.kept: list[np.ndarray] | None = None
        self.kept_columns = np.zeros(self.j.size, bool)

    def blocks(self, still_open: np.ndarray) -> Iterator[np.ndarray]:
        """Blocks holding at least the pairs with ``still_open[j, k] | still_open[k, j]``."""
        wanted = still_open[self.j, self.k] | still_open[self.k, self.j]
        if self.kept is not None and not (wanted & ~self.kept_columns).any():
            columns, chunks = np.nonzero(self.kept_columns)[0], iter(self.kept)
        else:
            columns = np.nonzero(wanted)[0]
            chunks = _studentized_pairs(self.X, self.resamples(), self.j[columns], self.k[columns])
            if self.n_resamples * columns.size <= _CACHED_ELEMENTS:
                self.kept, self.kept_columns = list(chunks), wanted
                chunks = iter(self.kept)
        j, k, p = self.j[columns], self.k[columns], self.X.shape[1]
        for T in chunks:
            full = np.zeros((T.shape[0], p, p))
            full[:, j, k] = T
            full[:, k, j] = -T
            yield full


def _critical(blocks: Iterable[np.ndarray], above: np.ndarray, below: np.ndarray, confidence_level: float,
              n_resamples: int, joint: bool) -> np.ndarray:
    """Per family (row ``j``; one family of every row when ``joint``), the ``ceil(level (B + 1))``-th
    smallest over resamples of ``max T[b, j, k]`` over its hypotheses still open: "j above k" where
    ``above[j, k]``, "k above j" (``-T[b, j, k]``) where ``below[j, k]``; ``inf`` past ``B``."""
    # a closed hypothesis never is the maximum (masked, not added: T* may be infinite)
    def maxima(T: np.ndarray) -> np.ndarray:
        up = np.where(above, T, -np.inf)
        if not below.any():
            return up.max(axis=(1, 2))[:, None] if joint else up.max(axis=2)
        per_row = np.maximum(up, np.where(below, -T, -np.inf)).max(axis=2)
        return per_row.max(axis=1, keepdims=True) if joint else per_row
    stats = np.concatenate([maxima(T) for T in blocks])
    at = math.ceil(confidence_level * (n_resamples + 1))
    crit = np.full(stats.shape[1], np.inf) if at > stats.shape[0] else np.sort(stats, axis=0)[at - 1]
    return np.broadcast_to(crit, (above.shape[0],)).copy()


def _step_down(blocks: Callable[[np.ndarray], Iterable[np.ndarray]], z: np.ndarray, open_pairs: np.ndarray,
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
        crit = _critical(blocks(above | below), above, np.zeros((p, p), bool) if simultaneous else below,
                         confidence_level, n_resamples, simultaneous)
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

    draws = _Draws(X, resamples, orderable, n_resamples)
    above, below, crit = _step_down(draws.blocks, z, orderable, confidence_level, n_resamples, simultaneous)
    low = 1 + below.sum(axis=1).astype(np.int64)
    high = p - above.sum(axis=1).astype(np.int64)
    return RankSetsResult(statistic=ranks, confidence_interval=ConfidenceInterval(low, high), critical_value=crit,
                          n_resamples=n_resamples)
