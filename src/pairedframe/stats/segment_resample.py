"""Percentile bootstrap and sign-flip test of the mean of many units of deltas at once, on counter-based
streams (the kernel of :func:`pairedframe.compare_segments`; pure numpy).

The units' deltas are laid end to end in one array and every statistic is a segmented reduction
(``np.add.reduceat`` on unit offsets); Python loops run only over blocks of units (a memory knob) and
resample chunks.  Resample ``b`` of a unit with stream key ``K`` has the 32-bit row seed
``row_seeds(K, b) = mix64(K + (b + 1) * 0x9E3779B97F4A7C15) >> 32`` (SplitMix64, Steele, Lea & Flood
2014) and position ``i`` of it draws ``mix32(row + (i + 1) * 0x9E3779B9)`` (Wellons' lowbias32); the
bootstrap takes query ``floor(u * n / 2**32)``, a sign flip is the word's top bit, and all ``2**n``
patterns are enumerated instead when ``2**n <= n_resamples``.  :mod:`pairedframe.comparison.segments`
documents the stream policy; :mod:`pairedframe.comparison.streams` derives the keys.
"""

from __future__ import annotations

import numpy as np

from .bootstrap import interval_from_probs
from .randomization import is_extreme, TIE_RTOL
from .signflip_interval import inverted_interval_units

__all__ = ["segment_resample_stats", "row_seeds", "mix32_inplace", "BLOCK_ELEMENTS", "CHUNK_ELEMENTS",
           "THETA_ELEMENTS"]

#: Largest number of deltas in a multi-unit block (a unit larger than this forms its own block).
#: Memory/speed knob only: results do not depend on it.
BLOCK_ELEMENTS: int = 2**14
#: Target (resample rows x deltas) per inner chunk; 256 KiB per uint32 work array (cache-sized).
CHUNK_ELEMENTS: int = 2**16
#: Cap on (n_resamples x units) bootstrap means held at once per block (float64: 64 MiB).
THETA_ELEMENTS: int = 2**23

_G64 = np.uint64(0x9E3779B97F4A7C15)
_M64A = np.uint64(0xBF58476D1CE4E5B9)
_M64B = np.uint64(0x94D049BB133111EB)
_M32A = np.uint32(0x7FEB352D)
_M32B = np.uint32(0x846CA68B)


def row_seeds(keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """uint32 row seeds (len(rows), len(keys)): top half of SplitMix64 output ``row`` of each key."""
    with np.errstate(over="ignore"):
        z = keys[None, :] + (rows.astype(np.uint64)[:, None] + np.uint64(1)) * _G64
        z ^= z >> np.uint64(30)
        z *= _M64A
        z ^= z >> np.uint64(27)
        z *= _M64B
        z ^= z >> np.uint64(31)
    return (z >> np.uint64(32)).astype(np.uint32)


def mix32_inplace(x: np.ndarray, tmp: np.ndarray) -> None:
    """lowbias32 on a uint32 array, in place (``tmp`` is scratch of the same shape)."""
    np.right_shift(x, np.uint32(16), out=tmp)
    np.bitwise_xor(x, tmp, out=x)
    np.multiply(x, _M32A, out=x)
    np.right_shift(x, np.uint32(15), out=tmp)
    np.bitwise_xor(x, tmp, out=x)
    np.multiply(x, _M32B, out=x)
    np.right_shift(x, np.uint32(16), out=tmp)
    np.bitwise_xor(x, tmp, out=x)


def _blocks(offsets: np.ndarray, n_units: int, max_units: int, block_elements: int) -> list[tuple[int, int]]:
    """Contiguous unit ranges with at most block_elements deltas (or one unit) and max_units units."""
    out = []
    a = 0
    while a < n_units:
        limit = offsets[a] + block_elements
        b = int(np.searchsorted(offsets, limit, side="right")) - 1   # offsets[b] <= limit
        b = max(a + 1, min(b, n_units, a + max_units))
        out.append((a, b))
        a = b
    return out


class _Block:
    """One block of units: its deltas, sizes, offsets and the per-position stream words' base."""

    def __init__(self, d: np.ndarray, offsets: np.ndarray, sizes: np.ndarray, ua: int, ub: int, B: int,
                 chunk_elements: int) -> None:
        lo, hi = int(offsets[ua]), int(offsets[ub])
        self.m, self.n_u, self.nu = hi - lo, sizes[ua:ub], ub - ua
        self.ro = offsets[ua:ub] - lo
        self.unit_e = np.repeat(np.arange(self.nu), self.n_u)
        self.pos_e = np.arange(self.m) - self.ro[self.unit_e]
        self.base_e = ((self.pos_e.astype(np.uint64) + 1) * np.uint64(0x9E3779B9)
                       & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        self.dd = d[lo:hi]
        self.stat = np.add.reduceat(self.dd, self.ro) / self.n_u
        self.rows_per = max(1, chunk_elements // self.m)
        self.X = np.empty((min(self.rows_per, B), self.m), dtype=np.uint32)
        self.T = np.empty_like(self.X)

    def chunks(self, B: int):
        """(first resample, rows) of every chunk of the block's ``B`` resamples."""
        for b0 in range(0, B, self.rows_per):
            yield b0, min(self.rows_per, B - b0)

    def words(self, keys: np.ndarray, b0: int, r: int) -> np.ndarray:
        """The 32-bit words u(b, i) of resamples ``b0 .. b0 + r`` of the block's units (module docstring)."""
        x, t = self.X[:r], self.T[:r]
        np.take(row_seeds(keys, np.arange(b0, b0 + r)), self.unit_e, axis=1, out=x)
        np.add(x, self.base_e, out=x)
        mix32_inplace(x, t)
        return x


def _bootstrap(blk: _Block, keys: np.ndarray, B: int, a_tail: float, alternative: str) -> tuple[np.ndarray, ...]:
    """Percentile interval and bootstrap standard error of each unit of the block."""
    theta = np.empty((B, blk.nu))
    scale_e = blk.n_u[blk.unit_e] * 2.0**-32
    off_e = blk.ro[blk.unit_e].astype(np.float64)
    F, II, V = np.empty(blk.X.shape), np.empty(blk.X.shape, dtype=np.intp), np.empty(blk.X.shape)
    for b0, r in blk.chunks(B):
        x, f, ii, v = blk.words(keys, b0, r), F[:r], II[:r], V[:r]
        np.multiply(x, scale_e, out=f)
        np.add(f, off_e, out=f)          # exact: off + u*n/2^32 < off + n <= 2^14 (or off = 0)
        np.copyto(ii, f, casting="unsafe")
        np.take(blk.dd, ii, out=v)
        theta[b0:b0 + r] = np.add.reduceat(v, blk.ro, axis=1) / blk.n_u
    tb = np.ascontiguousarray(theta.T)
    probs = np.broadcast_to(np.array([a_tail, 1 - a_tail]), (blk.nu, 2))
    low, high = interval_from_probs(tb, probs, alternative)
    constant = np.maximum.reduceat(blk.dd, blk.ro) == np.minimum.reduceat(blk.dd, blk.ro)
    low = np.where(constant & np.isfinite(low), blk.stat, low)
    high = np.where(constant & np.isfinite(high), blk.stat, high)
    return low, high, np.where(constant, 0.0, np.std(tb, axis=1, ddof=1))


def _sign_flips(blk: _Block, keys: np.ndarray, B: int, alternative: str, invert: bool,
                confidence_level: float) -> tuple[np.ndarray, ...]:
    """Sign-flip p-value, exactness and (with ``invert``) the inverted interval of each unit of the block."""
    n_u, ro, dd, stat = blk.n_u, blk.ro, blk.dd, blk.stat
    exact_u = (n_u < 63) & (np.left_shift(1, np.minimum(n_u, 62)) <= B)
    n_pat = np.where(exact_u, np.left_shift(1, np.minimum(n_u, 62)), B)
    ex_idx = np.flatnonzero(exact_u[blk.unit_e])
    ex_pos = blk.pos_e[ex_idx].astype(np.int64)
    gamma = TIE_RTOL * np.maximum(np.abs(stat), np.add.reduceat(np.abs(dd), ro) / n_u)
    neg2d = -2.0 * dd
    count = np.zeros(blk.nu, dtype=np.int64)
    if invert:     # every pattern's null statistic and flip count, per unit
        null_all, flips_all = np.empty((B, blk.nu)), np.empty((B, blk.nu), dtype=np.int64)
    V = np.empty(blk.X.shape)
    for b0, r in blk.chunks(B):
        x, v, rows = blk.words(keys, b0, r), V[:r], np.arange(b0, b0 + r)
        np.right_shift(x, np.uint32(31), out=x)
        if ex_idx.size:
            x[:, ex_idx] = (rows[:, None] >> ex_pos[None, :]) & 1
        if invert:
            flips_all[b0:b0 + r] = np.add.reduceat(x, ro, axis=1, dtype=np.int64)
        np.multiply(x, neg2d, out=v)      # bit * (-2d) + d: exactly -d or d
        np.add(v, dd, out=v)
        null = np.add.reduceat(v, ro, axis=1) / n_u
        if invert:
            null_all[b0:b0 + r] = null
        cmp = is_extreme(null, stat, gamma, alternative)
        cmp &= rows[:, None] < n_pat[None, :]
        count += np.count_nonzero(cmp, axis=0)
    p = np.minimum(np.where(exact_u, count / n_pat, (count + 1) / (B + 1)), 1.0)
    if not invert:
        return p, exact_u
    low, high = inverted_interval_units(null_all, flips_all, n_u.astype(np.float64), stat, gamma, n_pat, exact_u,
                                        confidence_level, alternative)
    return p, exact_u, low, high


def segment_resample_stats(d: np.ndarray, offsets: np.ndarray, boot_keys: np.ndarray, flip_keys: np.ndarray,
                           *, n_resamples: int, confidence_level: float = 0.95,
                           alternative: str = "two-sided", bootstrap: bool = True, sign_flip: bool = True,
                           invert: bool = False,
                           block_elements: int = BLOCK_ELEMENTS,
                           chunk_elements: int = CHUNK_ELEMENTS) -> dict[str, np.ndarray]:
    """Percentile bootstrap and sign-flip test of the mean of many units of deltas at once.

    Parameters
    ----------
    d : ndarray of float64, shape (N,)
        The deltas of all units laid end to end; unit ``u`` is ``d[offsets[u]:offsets[u+1]]`` (its
        positions are the ``i`` of the module docstring).
    offsets : ndarray of int64, shape (U + 1,)
        Increasing unit boundaries, ``offsets[0] = 0``, ``offsets[-1] = N``; every unit has >= 2 deltas.
    boot_keys, flip_keys : ndarray of uint64, shape (U,)
        Stream keys of each unit (:func:`pairedframe.comparison.streams.segment_keys` of its segment).
    n_resamples : int
        ``B``: bootstrap resamples and Monte-Carlo sign patterns.
    confidence_level : float
    alternative : {"two-sided", "greater", "less"}
    bootstrap, sign_flip : bool
        Which of the two to compute.
    invert : bool, default False
        With ``sign_flip``: also the interval inverting each unit's test on its own patterns
        (:func:`pairedframe.stats.signflip_interval.inverted_interval_units`), as ``ci_low, ci_high``;
        not with ``bootstrap``.
    block_elements, chunk_elements : int
        Memory knobs (results do not depend on them).

    Returns
    -------
    dict of ndarray, each shape (U,)
        ``statistic`` (mean, as ``sum/n`` of the sequential segment sum), and when requested
        ``ci_low, ci_high, se`` (percentile interval, std (ddof=1) of the bootstrap means) and
        ``pvalue, exact`` (sign-flip; tie rule of :mod:`pairedframe.stats.randomization`).

    Raises
    ------
    ValueError
        A unit with fewer than 2 deltas; ``invert`` without ``sign_flip`` or with ``bootstrap``.
    """
    d = np.ascontiguousarray(d, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    n_units = offsets.shape[0] - 1
    sizes = np.diff(offsets)
    if n_units and sizes.min() < 2:
        raise ValueError("every unit needs at least 2 deltas")
    if invert and (bootstrap or not sign_flip):
        raise ValueError("invert needs sign_flip and excludes bootstrap (both give ci_low, ci_high)")
    B = int(n_resamples)
    out = {"statistic": np.empty(n_units)}
    if bootstrap or invert:
        out.update(ci_low=np.empty(n_units), ci_high=np.empty(n_units))
    if bootstrap:
        out.update(se=np.empty(n_units))
    if sign_flip:
        out.update(pvalue=np.empty(n_units), exact=np.zeros(n_units, dtype=bool))
    a_tail = (1 - confidence_level) / 2 if alternative == "two-sided" else 1 - confidence_level
    max_units = max(1, THETA_ELEMENTS // B) if bootstrap or invert else n_units
    for ua, ub in _blocks(offsets, n_units, max_units, block_elements):
        blk = _Block(d, offsets, sizes, ua, ub, B, chunk_elements)
        out["statistic"][ua:ub] = blk.stat
        if bootstrap:
            out["ci_low"][ua:ub], out["ci_high"][ua:ub], out["se"][ua:ub] = _bootstrap(
                blk, boot_keys[ua:ub], B, a_tail, alternative)
        if sign_flip:
            res = _sign_flips(blk, flip_keys[ua:ub], B, alternative, invert, confidence_level)
            out["pvalue"][ua:ub], out["exact"][ua:ub] = res[0], res[1]
            if invert:
                out["ci_low"][ua:ub], out["ci_high"][ua:ub] = res[2], res[3]
    return out
