"""Rank-biased overlap (RBO) of two rankings (Webber, Moffat & Zobel 2010).

RBO compares two top-weighted, possibly non-conjoint and differently long
rankings (e.g. the top-k documents of two runs for one query).  With
persistence ``p`` the weight of depth ``d`` is ``(1 - p) * p**(d - 1)``.  From
two finite prefixes three quantities follow:

``rbo_min`` (eq. 11, uneven form)
    Lower bound: assume no further overlap beyond what was seen.
``rbo_res`` (eq. 13 / 30, uneven form)
    Residual: the largest amount RBO could still rise, ``rbo_max - rbo_min``.
``rbo_ext`` (eq. 32)
    Point estimate: extrapolate the agreement seen at the end of the prefixes
    (for uneven lists, also the shorter list's agreement over the rest of the
    longer one).  ``0 <= rbo_min <= rbo_ext <= rbo_min + rbo_res <= 1``, exactly:
    where rounding of the separate sums would break it, the bounds are moved to
    ``rbo_ext`` or 1 (by ~1e-14 at most).

Notation (``S`` the shorter list of length ``s``, ``L`` the longer of length
``l``; if equal, ``S`` is ``ranking_a``): ``X_d`` = overlap of the top
``min(d, s)`` of ``S`` and top ``d`` of ``L``; ``f = l + s - X_l``.

- ``RBO_ext = (1-p)/p * sum_{d=1..l} a_d p^d + a_l p^l`` with agreement
  ``a_d = X_d / d`` for ``d <= s`` and ``a_d = (X_d - X_s) / d + X_s / s``
  for ``d > s`` (an algebraic rewrite of eq. 32).
- ``RBO_min = (1-p)/p * (sum_{d=1..l} X_d p^d / d + X_l sum_{d>l} p^d / d)``.
- ``RBO_res = (1-p)/p * (sum_{d=s+1..l} (d-s)/d p^d
  + sum_{d=l+1..f} (2d-s-l)/d p^d + sum_{d>f} (d - X_l)/d p^d)``.

Numerics: infinite tails are summed term by term (all terms positive) until
they are below 1e-18 relative, never as ``log(1/(1-p)) - partial sum``
(catastrophic cancellation for long lists).  ``rbo_ext`` is computed both as
the sum of agreements and as ``1 - sum of disagreements`` and the form that is
accurate at its end of the range is returned, so identical rankings (or one a
prefix of the other) give exactly ``1.0`` and disjoint rankings exactly ``0.0``.

Oracle and known quirks of the ``rbo`` package (PyPI ``rbo`` 0.1.3,
``rbo.RankingSimilarity(a, b).rbo_ext(p)``): it implements the same eq. 32 and
agrees to ~1e-15; but it asserts (``AssertionError``) on duplicates and on
non-list input, prints a message and clips when rounding leaves [0, 1], may
return ``1.0000000000000002``-style values before clipping, and its
``rbo(ext=True)`` is eq. 23 truncated at the *shorter* length (not eq. 32),
while its ``rbo()`` defaults to ``p=1`` (average overlap, not RBO).  It has no
``rbo_min`` / ``rbo_res``.

Ties within a ranking are not supported (see Corsi & Urbano 2024 for tie-aware
variants); the caller breaks ties before calling.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["RBOResult", "exact_bounds", "rbo"]

_TAIL_RTOL = 1e-18
_MAX_TAIL_TERMS = 5_000_000


class RBOResult(NamedTuple):
    """Result of :func:`rbo` (a named tuple: ``ext, lo, res = rbo(a, b)``).

    Attributes
    ----------
    rbo_ext : float
        Extrapolated RBO (eq. 32), in [0, 1].
    rbo_min : float
        Lower bound (eq. 11), in [0, 1].
    rbo_res : float
        Residual (eq. 13 / 30): ``rbo_max - rbo_min``, in [0, 1].
    """

    rbo_ext: float
    rbo_min: float
    rbo_res: float

    @property
    def rbo_max(self) -> float:
        """Upper bound ``rbo_min + rbo_res`` (clipped to 1)."""
        return min(1.0, self.rbo_min + self.rbo_res)


def _as_ranking(x, name: str, depth: int | None) -> list:
    if isinstance(x, (str, bytes)):
        raise TypeError(f"`{name}` must be a sequence of ids, not a single {type(x).__name__}")
    if isinstance(x, np.ndarray):
        if x.ndim != 1:
            raise ValueError(f"`{name}` must be one-dimensional, got shape {x.shape}")
        items = x.tolist()
    elif isinstance(x, Sequence) or hasattr(x, "__iter__"):
        items = list(x)
    else:
        raise TypeError(f"`{name}` must be a sequence of ids, got {type(x).__name__}")
    if depth is not None:
        items = items[:depth]
    seen: set = set()
    for i, item in enumerate(items):
        try:
            if item in seen:
                raise ValueError(
                    f"`{name}` must hold distinct ids; {item!r} appears again at rank {i + 1}")
        except TypeError:
            raise TypeError(f"`{name}` holds an unhashable id at rank {i + 1}: {item!r}") from None
        seen.add(item)
    return items


def _tail(start: int, p: float, coef=None) -> float:
    """``sum_{d >= start} c(d) p^d`` with ``c(d) = coef(d)`` (positive, <= 1), term by term."""
    if p == 0.0:
        return 0.0
    k = int(math.ceil(math.log(_TAIL_RTOL) / math.log(p))) + 1
    k = max(1, min(k, _MAX_TAIL_TERMS))
    d = np.arange(start, start + k, dtype=np.float64)
    terms = np.power(p, d)
    if coef is not None:
        terms = terms * coef(d)
    return float(terms[::-1].sum())  # small terms first


def _overlaps(S: list, L: list) -> np.ndarray:
    """X_d for d = 1..l: overlap of S[:min(d, s)] and L[:d]."""
    s, l = len(S), len(L)
    X = np.empty(l, dtype=np.int64)
    seen_s: set = set()
    seen_l: set = set()
    x = 0
    for d in range(l):
        item_l = L[d]
        if d < s:
            item_s = S[d]
            if item_s == item_l:
                x += 1
            else:
                x += (item_s in seen_l) + (item_l in seen_s)
            seen_s.add(item_s)
        else:
            x += item_l in seen_s
        seen_l.add(item_l)
        X[d] = x
    return X


def rbo(ranking_a, ranking_b, *, p: float = 0.9, depth: int | None = None) -> RBOResult:
    """Rank-biased overlap of two rankings: extrapolated value, lower bound and residual.

    Parameters
    ----------
    ranking_a, ranking_b : sequence of hashable ids
        Rankings, best first, each without duplicates (e.g. docnos of two runs
        for one query, already sorted by the caller).  They may differ in
        length and need not share any id.  Lists, tuples or 1-D numpy arrays.
    p : float, default 0.9
        Persistence, in ``(0, 1)``.  The top ``d`` ranks carry weight about
        ``1 - p**d`` (+ a log term); ``p = 0.9`` puts ~86 % of the weight on
        the top 10 (eq. 21).
    depth : int, optional
        If given (``>= 1``), both rankings are truncated to their first
        ``depth`` ids before anything else.

    Returns
    -------
    RBOResult
        Named tuple ``(rbo_ext, rbo_min, rbo_res)`` of floats in ``[0, 1]``
        with ``rbo_min <= rbo_ext <= rbo_min + rbo_res <= 1`` exactly (in floating point).
        Identical rankings, and a ranking compared with its own prefix, give
        ``rbo_ext == 1.0`` exactly; disjoint rankings give ``0.0`` exactly.

    Raises
    ------
    ValueError
        If a ranking holds a duplicate id (the message names the ranking and
        the rank), ``p`` is outside ``(0, 1)`` or ``depth < 1``.
    TypeError
        If a ranking is a string or holds unhashable ids, or ``p`` / ``depth``
        have the wrong type.

    Notes
    -----
    *Empty rankings.*  Two empty rankings are treated as identical:
    ``(1.0, 0.0, 1.0)`` -- nothing was observed, so the bounds are the trivial
    ``[0, 1]`` and the extrapolation (agreement of what was seen, vacuously
    perfect) is 1, the limit of identical rankings of length -> 0 and what the
    ``rbo`` package returns.  One empty and one non-empty ranking give
    ``(0.0, 0.0, 1.0)``: no agreement is observed (the ``rbo`` package also
    returns 0), while the bounds stay trivial.  (Eq. 32 itself is 0/0 for
    ``s = 0``.)

    The formulas are in the module docstring; they are eqs. 11, 13/30 and 32
    of the paper generalised to uneven lengths as in its section 4.3, and
    agree with Corsi & Urbano's reference implementation in the tie-free case.

    References
    ----------
    Webber, W., Moffat, A. & Zobel, J. (2010). A similarity measure for
    indefinite rankings. ACM TOIS 28(4), article 20.
    Corsi, M. & Urbano, J. (2024). The treatment of ties in rank-biased
    overlap. SIGIR 2024.
    """
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real):
        raise TypeError(f"`p` must be a real number in (0, 1), got {p!r}")
    p = float(p)
    if not 0.0 < p < 1.0:
        raise ValueError(f"`p` must be in the open interval (0, 1), got {p}")
    if depth is not None:
        if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, numbers.Integral):
            raise TypeError(f"`depth` must be None or an integer, got {depth!r}")
        depth = int(depth)
        if depth < 1:
            raise ValueError(f"`depth` must be >= 1, got {depth}")
    a = _as_ranking(ranking_a, "ranking_a", depth)
    b = _as_ranking(ranking_b, "ranking_b", depth)

    if not a and not b:
        return RBOResult(1.0, 0.0, 1.0)
    if not a or not b:
        return RBOResult(0.0, 0.0, 1.0)
    S, L = (a, b) if len(a) <= len(b) else (b, a)
    s, l = len(S), len(L)
    X = _overlaps(S, L).astype(np.float64)
    d = np.arange(1, l + 1, dtype=np.float64)
    w = (1.0 - p) * np.power(p, d - 1.0)  # (1-p)/p * p^d, sums with p^l to 1
    p_l = p ** l
    x_s, x_l = X[s - 1], X[l - 1]

    # --- extrapolated (eq. 32) ---------------------------------------------
    agree = X / d
    if l > s:
        agree[s:] = (X[s:] - x_s) / d[s:] + x_s / s
    agree = np.minimum(agree, 1.0)
    a_tail = agree[-1]
    up = float(np.sum(w * agree)) + a_tail * p_l
    down = float(np.sum(w * (1.0 - agree))) + (1.0 - a_tail) * p_l
    ext = up if up <= 0.5 else 1.0 - down
    ext = min(1.0, max(0.0, ext))

    # --- lower bound (eq. 11, uneven) ---------------------------------------
    coef = (1.0 - p) / p
    rbo_min = float(np.sum(w * X / d)) + coef * x_l * _tail(l + 1, p, lambda t: 1.0 / t)
    rbo_min = min(1.0, max(0.0, rbo_min))

    # --- residual (eq. 13 / 30, uneven) -------------------------------------
    f = int(l + s - x_l)
    res = 0.0
    if l > s:
        ds = d[s:]
        res += float(np.sum(w[s:] * (ds - s) / ds))
    if f > l:
        df = np.arange(l + 1, f + 1, dtype=np.float64)
        res += coef * float(np.sum(np.power(p, df) * (2.0 * df - s - l) / df))
    res += coef * _tail(f + 1, p, lambda t: (t - x_l) / t)
    res = min(1.0, max(0.0, res))
    rbo_min, res = exact_bounds(ext, rbo_min, res)
    return RBOResult(float(ext), float(rbo_min), float(res))


def exact_bounds(rbo_ext, rbo_min, rbo_res) -> tuple[np.ndarray, np.ndarray]:
    """``(rbo_min, rbo_res)`` moved so that ``rbo_min <= rbo_ext <= rbo_min + rbo_res <= 1`` holds exactly in
    floating point (scalars or arrays, each in [0, 1]): the separate sums round apart, by ~1e-14 on lists
    of 1,000 where ``rbo_res`` is ~0. Shared by :func:`rbo` and :func:`pairedframe.rbo`."""
    rbo_ext = np.asarray(rbo_ext, dtype=np.float64)
    rbo_min = np.minimum(np.asarray(rbo_min, dtype=np.float64), rbo_ext)
    rbo_res = np.minimum(np.maximum(rbo_res, rbo_ext - rbo_min), 1.0 - rbo_min)
    # each step moves rbo_min + rbo_res by at most one float, so it stops inside [rbo_ext, 1] (rbo_ext <= 1)
    while (over := rbo_min + rbo_res > 1.0).any():
        rbo_res = np.where(over, np.nextafter(rbo_res, 0.0), rbo_res)
    while (under := rbo_min + rbo_res < rbo_ext).any():
        rbo_res = np.where(under, np.nextafter(rbo_res, np.inf), rbo_res)
    return rbo_min, rbo_res
