"""Sign-flip counts for many units of different sizes, drawn from counter-based streams.

A *unit* is a run of deltas ``d[offsets[u]:offsets[u+1]]`` (``n_u`` deltas, ``n_u >= 1``) with a 64-bit
stream key ``K_u``.  This module counts, for the sign patterns ``b`` in ``[start, stop)`` of each unit,
how many are at least as extreme as the observed mean -- the numerator of a sign-flip p-value -- so
that a caller can draw patterns in rounds (:mod:`pairedframe.stats.adaptive`) and a unit's count after
``B`` patterns never depends on how the rounds were cut or on the other units of the call.

Patterns
--------
Pattern ``b`` of a unit is a string of ``n_u`` bits; bit ``i`` set means delta ``i`` is negated.  In
Monte-Carlo mode the bits are those of the 64-bit words ::

    z(b, w) = splitmix64(K_u, b + w * 2**40),  w = 0 .. ceil(n_u / 64) - 1,
    splitmix64(K, c) = mix64(K + (c + 1) * 0x9E3779B97F4A7C15)          (mod 2**64)

(``mix64`` the SplitMix64 finaliser, Steele, Lea & Flood 2014), bit ``i % 64`` (least significant
first) of word ``i // 64``.  Word 0 is the output ``b`` of the SplitMix64 stream of ``K_u``, whose top
32 bits are the row seeds of :mod:`pairedframe.comparison.segments`; the other words come from the
same stream 2**40 outputs further on per word (so ``b < 2**40``).  Different counters give distinct
outputs (SplitMix64 is a bijection of the counter), so no pattern word repeats within a unit's
stream.  In exact mode (``n_u <= 62``) pattern ``b`` is the binary expansion of ``b`` itself, and
``b`` runs over all ``2**n_u`` patterns.

Statistic and ties
------------------
A pattern's null mean is ``(S - 2 F) / n_u`` with ``S`` the unit's sum (``np.add.reduceat``, as the
reported mean) and ``F`` the sum of the negated deltas, taken byte by byte from 256-entry tables
(``ceil(n_u / 8)`` look-ups per pattern instead of ``n_u`` multiply-adds; the identity pattern gives
``F = 0`` and the observed mean exactly).  Extremeness and the tie tolerance
``gamma = 100 eps max(|T|, mean|d|)`` are those of :mod:`pairedframe.stats.randomization`.  Each
pattern's statistic is computed on its own (rows never mix), so counts do not depend on chunking.
"""

from __future__ import annotations

import numpy as np

from .randomization import TIE_RTOL, _byte_tables

__all__ = ["splitmix64", "unit_flip_counts", "WORD_STRIDE", "MAX_EXACT_N"]

#: Counter distance between the words of one pattern (patterns ``b`` must stay below it).
WORD_STRIDE: int = 1 << 40
#: Largest unit size whose patterns can be enumerated (pattern numbers are uint64 words).
MAX_EXACT_N: int = 62

_G64 = np.uint64(0x9E3779B97F4A7C15)
_M64A = np.uint64(0xBF58476D1CE4E5B9)
_M64B = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_LITTLE = np.little_endian
#: Table entries (groups of 8 deltas) per block of units: 1024 x 256 float64 = 2 MiB, cache-sized.
GROUP_BUDGET: int = 1024
#: Target (pattern rows x groups) per inner chunk.
CHUNK_ELEMENTS: int = 2**17


def _mix64_inplace(z: np.ndarray, tmp: np.ndarray) -> None:
    """The SplitMix64 finaliser on a uint64 array, in place (``tmp``: scratch of the same shape)."""
    np.right_shift(z, _S30, out=tmp)
    np.bitwise_xor(z, tmp, out=z)
    np.multiply(z, _M64A, out=z)
    np.right_shift(z, _S27, out=tmp)
    np.bitwise_xor(z, tmp, out=z)
    np.multiply(z, _M64B, out=z)
    np.right_shift(z, _S31, out=tmp)
    np.bitwise_xor(z, tmp, out=z)


def _buffers(k: int, W: int, G: int, r: int) -> tuple[np.ndarray, ...]:
    """Work arrays of one chunk of r patterns of k units with W words and G groups each."""
    return (np.empty((k, W, r), dtype=np.uint64), np.empty((k, W, r), dtype=np.uint64),
            np.empty((k, W, 8, r), dtype=np.uint8), np.empty((k, G, r), dtype=np.intp),
            np.empty((k, G, r)), np.empty((k, r)), np.empty((k, r), dtype=bool))


def splitmix64(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """Output ``counters`` of the SplitMix64 streams with seeds ``keys`` (broadcast, uint64, wraps).

    ``mix64(K + (c + 1) * 0x9E3779B97F4A7C15)`` with ``mix64(z)``: ``z ^= z >> 30; z *= 0xBF58476D1CE4E5B9;
    z ^= z >> 27; z *= 0x94D049BB133111EB; z ^= z >> 31`` (Steele, Lea & Flood 2014).
    """
    with np.errstate(over="ignore"):        # 0-d inputs would warn on the (intended) wrap-around
        z = np.asarray(keys, dtype=np.uint64) + (np.asarray(counters, dtype=np.uint64) + np.uint64(1)) * _G64
    z = np.array(z, dtype=np.uint64, ndmin=1)
    _mix64_inplace(z, np.empty_like(z))
    return z.reshape(np.broadcast_shapes(np.shape(keys), np.shape(counters)))


def _tables(d: np.ndarray, offsets: np.ndarray, units: np.ndarray, n_groups: int) -> np.ndarray:
    """Byte tables of units with ``n_groups`` groups of 8 deltas each, shape (units, groups, 256):
    entry ``v`` of a group is the sum of its deltas at the set bits of ``v`` (zeros pad the last group)."""
    k = units.shape[0]
    lengths = offsets[units + 1] - offsets[units]
    row = np.repeat(np.arange(k), lengths)
    within = np.arange(row.shape[0]) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    P = np.zeros((k, n_groups * 8))
    P[row, within] = d[offsets[units][row] + within]
    return _byte_tables(P.T)


def _blocks_by_groups(n_groups: np.ndarray, budget: int) -> list[np.ndarray]:
    """Positions of the units grouped by their number of groups, in blocks of at most ``budget`` groups."""
    out = []
    for g in np.unique(n_groups):
        pos = np.flatnonzero(n_groups == g)
        per = max(1, budget // int(g))
        out += [pos[i:i + per] for i in range(0, pos.shape[0], per)]
    return out


def unit_flip_counts(d: np.ndarray, offsets: np.ndarray, units: np.ndarray, keys: np.ndarray | None,
                     start: int, stop: int, *, alternative: str = "two-sided", exact: bool = False,
                     group_budget: int = GROUP_BUDGET, chunk_elements: int = CHUNK_ELEMENTS) -> np.ndarray:
    """Numbers of sign patterns ``b`` in ``[start, stop)`` at least as extreme as each unit's mean.

    Parameters
    ----------
    d : ndarray of float64, shape (N,)
        Deltas of all units end to end.
    offsets : ndarray of int64, shape (U + 1,)
        Unit boundaries (unit ``u`` is ``d[offsets[u]:offsets[u+1]]``, at least one delta).
    units : ndarray of int, shape (k,)
        The units to count (any subset, any order).
    keys : ndarray of uint64, shape (k,), or None
        Stream key of each of ``units`` (Monte-Carlo mode); ignored when ``exact``.
    start, stop : int
        Pattern range, ``0 <= start <= stop <= 2**40`` (module docstring).
    alternative : {"two-sided", "greater", "less"}
    exact : bool
        Patterns are the binary expansions of ``b`` (enumeration); needs every unit's ``n <= 62``
        and ``stop <= 2**n``.
    group_budget, chunk_elements : int
        Memory / cache knobs; counts do not depend on them.

    Returns
    -------
    ndarray of int64, shape (k,)
        Count of extreme patterns per unit, in the order of ``units``.

    Raises
    ------
    ValueError
        ``stop`` beyond ``2**40``, or an exact range beyond ``2**n``.
    """
    units = np.asarray(units, dtype=np.int64)
    counts = np.zeros(units.shape[0], dtype=np.int64)
    if units.size == 0 or stop <= start:
        return counts
    if stop > WORD_STRIDE:
        raise ValueError(f"pattern numbers must stay below 2**40, got stop={stop}")
    sizes = (offsets[units + 1] - offsets[units]).astype(np.int64)
    if exact and (sizes.max() > MAX_EXACT_N or np.any(stop > np.left_shift(1, np.minimum(sizes, MAX_EXACT_N)))):
        raise ValueError("exact enumeration needs n <= 62 and stop <= 2**n for every unit")
    sums = np.add.reduceat(d, offsets[:-1])[units]
    stat = sums / sizes
    mean_abs = np.add.reduceat(np.abs(d), offsets[:-1])[units] / sizes
    gamma = TIE_RTOL * np.maximum(np.abs(stat), mean_abs)
    n_groups = -(-sizes // 8)
    keys = None if exact else np.asarray(keys, dtype=np.uint64)
    for pos in _blocks_by_groups(n_groups, group_budget):
        G = int(n_groups[pos[0]])
        W = -(-G // 8)
        k = pos.shape[0]
        table = _tables(d, offsets, units[pos], G).reshape(-1)
        base = (np.arange(k * G, dtype=np.intp) * 256).reshape(k, G, 1)
        s_b, n_b, t_b, g_b = (x[pos][:, None] for x in (sums, sizes, stat, gamma))
        threshold = np.abs(t_b) - g_b if alternative == "two-sided" else t_b - g_b if alternative == "greater" \
            else t_b + g_b
        compare = np.less_equal if alternative == "less" else np.greater_equal
        if not exact:
            # splitmix64(K, b + w 2**40) = mix64(K + (w 2**40 + 1) G64 + b G64): a per-word base plus b G64
            word_base = keys[pos][:, None, None] + (
                (np.arange(W, dtype=np.uint64) << np.uint64(40)) + np.uint64(1))[None, :, None] * _G64
        rows_per = max(1, min(stop - start, chunk_elements // (k * G)))
        buffers = None
        for r0 in range(start, stop, rows_per):
            r = min(rows_per, stop - r0)
            if buffers is None or buffers[0].shape[2] != r:
                buffers = _buffers(k, W, G, r)
            z, tmp, byts, idx, vals, flipped, hit = buffers
            if exact:
                z[...] = np.arange(r0, r0 + r, dtype=np.uint64)
            else:
                np.multiply(np.arange(r0, r0 + r, dtype=np.uint64), _G64, out=tmp[0, 0])
                np.add(word_base, tmp[0, 0], out=z)
                _mix64_inplace(z, tmp)
            if not _LITTLE:
                z.byteswap(inplace=True)
            # little-endian bytes as (unit, word, byte, row): group 8 w + j is row 8 w + j
            np.copyto(byts, z.view(np.uint8).reshape(k, W, r, 8).transpose(0, 1, 3, 2))
            np.add(byts.reshape(k, 8 * W, r)[:, :G], base, out=idx)
            np.take(table, idx, out=vals, mode="clip")
            np.einsum("ugr->ur", vals, out=flipped)
            np.multiply(flipped, -2.0, out=flipped)         # (S - 2 F) / n, the same rounding
            np.add(flipped, s_b, out=flipped)
            np.divide(flipped, n_b, out=flipped)
            if alternative == "two-sided":
                np.abs(flipped, out=flipped)
            compare(flipped, threshold, out=hit)
            counts[pos] += np.count_nonzero(hit, axis=1)
    return counts
