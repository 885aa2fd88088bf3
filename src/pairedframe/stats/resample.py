"""Random streams for paired resampling: bootstrap indices and sign flips.

Design
------
*Reproducible, keyed streams.*  :func:`keyed_seed_sequence` derives a
:class:`numpy.random.SeedSequence` from a user seed plus a *stable* hash
(BLAKE2b of a canonical, length-prefixed encoding; never Python's salted
``hash()``) of a key such as :func:`query_set_key` of the query ids.  A
query set (or segment) therefore always gets the same stream, whatever else is
analysed in the same call and in whatever order.

*Results independent of chunk size.*  Generators here yield the resamples in
chunks of at most ``chunk_size`` rows to bound memory, but every chunk is drawn
with a call whose per-row consumption of the bit generator does not depend on
how rows are grouped:

- bootstrap indices are drawn exactly as :func:`scipy.stats.bootstrap` does,
  ``rng.integers(0, n, size=(rows, n))`` (dtype int64).  numpy's bounded int64
  sampler keeps its 32-bit half-word buffer *inside the bit generator state*
  (PCG64, MT19937, Philox, SFC64 all do), so drawing ``(a, n)`` then
  ``(b, n)`` gives the same integers as one ``(a + b, n)`` draw.  Hence our
  index stream equals scipy's for the same generator state for *any* scipy
  ``batch`` (including ``batch=None``), and is bit-identical whatever our
  ``chunk_size`` (tested in ``tests/stats``).
- sign flips are drawn as full-range ``uint64`` words, ``ceil(n / 64)`` words per
  resample row (``rng.integers(0, 2**64 - 1, endpoint=True, dtype=uint64)``,
  which consumes exactly one 64-bit output per word), so again rows do not
  depend on chunking.  Bit ``j % 64`` (little-endian) of word ``j // 64`` set
  means the sign of observation ``j`` is flipped (``-1``).

No global RNG state is used anywhere: ``seed`` is ``None`` (fresh OS entropy), an
``int`` seed, a :class:`~numpy.random.SeedSequence` or a
:class:`~numpy.random.Generator` (used and advanced in place).
"""

from __future__ import annotations

import hashlib
import numbers
from collections.abc import Iterator, Sequence

import numpy as np

from pairedframe.errors import USE_SEED, InsufficientSampleError, renamed_keywords

__all__ = [
    "DEFAULT_CHUNK_ELEMENTS",
    "MAX_EXACT_SIGN_N",
    "as_generator",
    "check_int",
    "keyed_seed_sequence",
    "query_set_key",
    "default_chunk_rows",
    "bootstrap_index_chunks",
    "sign_flip_chunks",
    "all_sign_patterns",
    "sign_pattern_chunks",
    "kernel_block_rows",
    "reblock",
]

#: Default memory knob: the maximum number of elements (rows x n) of one
#: chunk of resample indices or signs.  2**22 elements is 32 MiB of int64
#: indices (plus as much again for the float64 counts / sign matrix built from
#: it).  Results never depend on it (see module docstring), only memory and
#: speed do.
DEFAULT_CHUNK_ELEMENTS: int = 2**22

#: Largest n for which :func:`all_sign_patterns` will enumerate all ``2**n``
#: patterns in one matrix (2**20 x 20 float64 is 160 MiB).
MAX_EXACT_SIGN_N: int = 20

_UINT64_MAX = np.iinfo(np.uint64).max


# --------------------------------------------------------------------------
# validation helpers (shared by the stats modules; messages name the parameter)
# --------------------------------------------------------------------------

def check_int(value, name: str, *, minimum: int | None = None) -> int:
    """``value`` as an int (numpy integers accepted, bools refused); the error names ``name``.

    Raises
    ------
    TypeError
        ``value`` is not an integer.
    ValueError
        ``value`` is below ``minimum``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"`{name}` must be an integer, got {type(value).__name__}: {value!r}")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"`{name}` must be >= {minimum}, got {value}")
    return value


def _check_chunk_size(chunk_size, n: int) -> int:
    if chunk_size is None:
        return default_chunk_rows(n)
    return check_int(chunk_size, "chunk_size", minimum=1)


def _check_probability(value, name: str) -> float:
    """Check 0 < value < 1 (open interval) and return it as a float."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"`{name}` must be a real number in (0, 1), got {value!r}")
    value = float(value)
    if not (0.0 < value < 1.0):
        raise ValueError(f"`{name}` must be in the open interval (0, 1), got {value}")
    return value


_ALTERNATIVES = ("two-sided", "greater", "less")


def _check_alternative(alternative) -> str:
    if alternative not in _ALTERNATIVES:
        raise ValueError(
            f"`alternative` must be one of {_ALTERNATIVES}, got {alternative!r}")
    return alternative


def _check_array(x, name: str, *, ndim: int, min_n: int, shape_hint: str, what: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != ndim:
        raise ValueError(f"`{name}` must be {shape_hint}, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"`{name}` must contain only finite values (no NaN/inf)")
    if arr.shape[0] < min_n:
        raise InsufficientSampleError(f"`{name}` needs at least {min_n} {what}, got {arr.shape[0]}")
    return arr


def _check_1d(x, name: str, *, min_n: int = 1) -> np.ndarray:
    """Return ``x`` as a finite 1-D float64 array with at least ``min_n`` elements."""
    return _check_array(x, name, ndim=1, min_n=min_n, shape_hint="1-D", what="observations")


def _check_2d(x, name: str, *, min_n: int = 1) -> np.ndarray:
    """Return ``x`` as a finite 2-D (n, k) float64 array with n >= ``min_n``."""
    return _check_array(x, name, ndim=2, min_n=min_n, shape_hint="2-D (n_observations, n_columns)",
                        what="rows (observations)")


def _column_means(X: np.ndarray) -> np.ndarray:
    """Column means computed exactly as ``np.mean`` of each 1-D column.

    ``np.mean(X, axis=0)`` sums a C-ordered array row by row, a different order
    (and rounding) than the pairwise sum of a contiguous 1-D column; we transpose
    to contiguous rows so ``*_many`` functions report the same statistic, bit for
    bit, as their single-column counterparts.
    """
    return np.mean(np.ascontiguousarray(X.T), axis=1)


@renamed_keywords(rng=USE_SEED)
def as_generator(seed=None) -> np.random.Generator:
    """Normalise ``seed`` to a :class:`numpy.random.Generator`.

    Parameters
    ----------
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        ``None`` draws fresh OS entropy; an int or SeedSequence seeds a new
        PCG64 generator (``np.random.default_rng``); a Generator is returned
        as is (and will be advanced by the caller).

    Raises
    ------
    TypeError
        For anything else, notably the legacy ``RandomState`` (its streams differ).
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    if isinstance(seed, numbers.Integral) and not isinstance(seed, (bool, np.bool_)):
        if int(seed) < 0:
            raise ValueError(f"`seed` must be non-negative, got {seed}")
        return np.random.default_rng(int(seed))
    raise TypeError(
        "`seed` must be None, a non-negative int, a numpy SeedSequence or a "
        f"numpy Generator, got {type(seed).__name__}")


# --------------------------------------------------------------------------
# keyed seeds
# --------------------------------------------------------------------------

def _encode_key(key) -> bytes:
    """Canonical, unambiguous, type-tagged, length-prefixed encoding of a key."""
    if isinstance(key, str):
        payload, tag = key.encode("utf-8"), b"s"
    elif isinstance(key, (bytes, bytearray, memoryview)):
        payload, tag = bytes(key), b"b"
    elif isinstance(key, numbers.Integral) and not isinstance(key, (bool, np.bool_)):
        payload, tag = str(int(key)).encode("ascii"), b"i"
    elif isinstance(key, tuple):
        payload, tag = b"".join(_encode_key(k) for k in key), b"t"
    else:
        raise TypeError(
            f"`key` must be str, bytes, int or a tuple of those, got {type(key).__name__}")
    return tag + len(payload).to_bytes(8, "little") + payload


def keyed_seed_sequence(seed: int, key) -> np.random.SeedSequence:
    """Seed sequence for ``(seed, key)``, stable across processes and versions.

    Parameters
    ----------
    seed : int
        Non-negative user seed.
    key : str, bytes, int or tuple of those
        What the stream is for, e.g. ``query_set_key(qids)`` or
        ``("segment", "2004", query_set_key(qids))``.  Tuples are encoded
        element-wise with type tags and length prefixes, so ``("ab", "c")`` and
        ``("a", "bc")`` differ.

    Returns
    -------
    numpy.random.SeedSequence
        ``SeedSequence(entropy=[seed, w0, w1, w2, w3])`` where ``w*`` are the
        four little-endian 32-bit words of ``blake2b(encode(key), digest_size=16)``.
        Use ``np.random.default_rng(keyed_seed_sequence(seed, key))``.

    Raises
    ------
    TypeError, ValueError
        If ``seed`` is not a non-negative int or ``key`` has an unsupported type.
    """
    seed = check_int(seed, "seed", minimum=0)
    digest = hashlib.blake2b(_encode_key(key), digest_size=16,
                             person=b"pairedframe-rng").digest()
    words = [int.from_bytes(digest[i:i + 4], "little") for i in range(0, 16, 4)]
    return np.random.SeedSequence(entropy=[seed, *words])


def query_set_key(ids: Sequence[str]) -> bytes:
    """Stable 32-byte key of a *set* of ids (order and duplicates ignored).

    The ids are converted with ``str``, de-duplicated, sorted (by code point),
    each UTF-8 encoded with an 8-byte length prefix, and hashed with BLAKE2b-256.
    Length prefixes make the encoding unambiguous (``["a,b"]`` != ``["a", "b"]``).

    Parameters
    ----------
    ids : sequence of str

    Returns
    -------
    bytes
        32 bytes, suitable as ``key`` for :func:`keyed_seed_sequence`.
    """
    if isinstance(ids, (str, bytes)):
        raise TypeError("`ids` must be a sequence of ids, not a single string")
    h = hashlib.blake2b(digest_size=32, person=b"pairedframe-qset")
    for s in sorted({str(i) for i in ids}):
        b = s.encode("utf-8")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.digest()


# --------------------------------------------------------------------------
# chunked streams
# --------------------------------------------------------------------------

def default_chunk_rows(n: int, chunk_elements: int = DEFAULT_CHUNK_ELEMENTS) -> int:
    """Rows per chunk so that ``rows * n <= chunk_elements`` (at least 1 row).

    Rounded down to a multiple of :data:`KERNEL_BLOCK_ROWS` when larger, so the
    matmul kernels need no re-blocking copies (results never depend on it).
    """
    rows = max(1, int(chunk_elements) // max(1, int(n)))
    if rows > KERNEL_BLOCK_ROWS:
        rows -= rows % KERNEL_BLOCK_ROWS
    return rows


#: Upper bound on rows per fixed-shape kernel block, see :func:`reblock`.  32
#: rows keep the (rows, n) counts matrix cache-resident for typical n; measured
#: ~2.5x faster than 256 rows for the bincount + matmul kernel at n = 7000.
KERNEL_BLOCK_ROWS: int = 32


def kernel_block_rows(n: int) -> int:
    """Rows per matmul kernel block for ``n`` observations (depends on n only)."""
    return max(1, min(KERNEL_BLOCK_ROWS, DEFAULT_CHUNK_ELEMENTS // max(1, int(n))))


def reblock(chunks: Iterator[np.ndarray], block_rows: int) -> Iterator[tuple[np.ndarray, int]]:
    """Regroup row chunks into blocks of exactly ``block_rows`` rows.

    BLAS matmul results for a row can depend on the shape of the call (kernel
    selection, edge handling), so kernels that must be bit-identical whatever
    the caller's ``chunk_size`` apply the matmul to fixed-shape blocks aligned
    to global resample numbers.  The last block is padded with zeros.

    Yields
    ------
    (block, valid) : (ndarray of shape (block_rows, n), int)
        Only the first ``valid`` rows are real resamples.
    """
    buf: list[np.ndarray] = []
    have = 0
    for chunk in chunks:
        buf.append(chunk)
        have += chunk.shape[0]
        if have < block_rows:
            continue
        allrows = np.concatenate(buf, axis=0) if len(buf) > 1 else buf[0]
        full = (have // block_rows) * block_rows
        for start in range(0, full, block_rows):
            yield allrows[start:start + block_rows], block_rows
        rest = allrows[full:]
        buf, have = ([rest] if rest.shape[0] else []), rest.shape[0]
    if have:
        rest = np.concatenate(buf, axis=0) if len(buf) > 1 else buf[0]
        pad = np.zeros((block_rows - have,) + rest.shape[1:], dtype=rest.dtype)
        yield np.concatenate([rest, pad], axis=0), have


def _row_counts(n_resamples: int, chunk_size: int) -> Iterator[int]:
    for start in range(0, n_resamples, chunk_size):
        yield min(chunk_size, n_resamples - start)


@renamed_keywords(rng=USE_SEED)
def bootstrap_index_chunks(n: int, n_resamples: int, *, seed=None,
                           chunk_size: int | None = None) -> Iterator[np.ndarray]:
    """Yield bootstrap resample indices in chunks of rows.

    Parameters
    ----------
    n : int
        Sample size (>= 1); indices are in ``[0, n)``.
    n_resamples : int
        Total number of resample rows (>= 1).
    seed : None, int, SeedSequence or Generator
        See :func:`as_generator`.  A Generator is advanced in place.
    chunk_size : int, optional
        Maximum rows per chunk; default ``DEFAULT_CHUNK_ELEMENTS // n``.

    Yields
    ------
    ndarray of int64, shape (rows, n), rows <= chunk_size
        Each drawn as ``rng.integers(0, n, size=(rows, n))``.  Concatenated,
        the chunks equal one ``rng.integers(0, n, size=(n_resamples, n))``
        draw, which is what ``scipy.stats.bootstrap`` draws (for any ``batch``)
        from the same generator state; the result does not depend on
        ``chunk_size``.
    """
    n = check_int(n, "n", minimum=1)
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    chunk_size = _check_chunk_size(chunk_size, n)
    gen = as_generator(seed)
    for rows in _row_counts(n_resamples, chunk_size):
        yield gen.integers(0, n, size=(rows, n))


def _words_to_signs(words: np.ndarray, n: int) -> np.ndarray:
    rows = words.shape[0]
    as_bytes = np.ascontiguousarray(words.astype("<u8", copy=False)).view(np.uint8)
    bits = np.unpackbits(as_bytes.reshape(rows, -1), axis=1, bitorder="little")[:, :n]
    signs = np.ones((rows, n), dtype=np.float64)
    signs -= 2.0 * bits  # bit 1 -> -1.0
    return signs


@renamed_keywords(rng=USE_SEED)
def sign_flip_chunks(n: int, n_resamples: int, *, seed=None,
                     chunk_size: int | None = None) -> Iterator[np.ndarray]:
    """Yield random ±1 sign matrices in chunks of rows.

    Parameters
    ----------
    n : int
        Number of paired observations (>= 1).
    n_resamples : int
        Total number of random sign patterns (>= 1).  Patterns are i.i.d. and
        may repeat, and may include the identity (Monte-Carlo sampling with
        replacement, as assumed by the ``(b + 1) / (m + 1)`` p-value).
    seed : None, int, SeedSequence or Generator
    chunk_size : int, optional
        Maximum rows per chunk; default ``DEFAULT_CHUNK_ELEMENTS // n``.

    Yields
    ------
    ndarray of float64, shape (rows, n), values in {-1.0, +1.0}
        Row ``r`` comes from ``ceil(n/64)`` full-range uint64 draws; bit
        ``j % 64`` (little-endian) of word ``j // 64`` set means ``-1``.
        The concatenation does not depend on ``chunk_size``.
    """
    n = check_int(n, "n", minimum=1)
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    chunk_size = _check_chunk_size(chunk_size, n)
    gen = as_generator(seed)
    n_words = -(-n // 64)
    for rows in _row_counts(n_resamples, chunk_size):
        words = gen.integers(0, _UINT64_MAX, size=(rows, n_words), dtype=np.uint64,
                             endpoint=True)
        yield _words_to_signs(words, n)


def _patterns(start: int, stop: int, n: int) -> np.ndarray:
    r = np.arange(start, stop, dtype=np.uint64)[:, None]
    bits = (r >> np.arange(n, dtype=np.uint64)[None, :]) & np.uint64(1)
    return 1.0 - 2.0 * bits.astype(np.float64)


def sign_pattern_chunks(n: int, *, chunk_size: int | None = None) -> Iterator[np.ndarray]:
    """Yield all ``2**n`` sign patterns of :func:`all_sign_patterns` in row chunks."""
    n = check_int(n, "n", minimum=1)
    if n > 62:
        raise ValueError(f"`n` = {n} is too large to enumerate 2**n sign patterns")
    chunk_size = _check_chunk_size(chunk_size, n)
    total = 1 << n
    for start in range(0, total, chunk_size):
        yield _patterns(start, min(total, start + chunk_size), n)


def all_sign_patterns(n: int) -> np.ndarray:
    """All ``2**n`` sign patterns for exact sign-flip enumeration.

    Parameters
    ----------
    n : int
        Number of observations, ``1 <= n <= MAX_EXACT_SIGN_N``.

    Returns
    -------
    ndarray of float64, shape (2**n, n), values in {-1.0, +1.0}
        Row ``r`` has ``-1`` in column ``j`` iff bit ``j`` of ``r`` is set, so
        row 0 is the identity (all ``+1``) and row ``2**n - 1 - r`` is the
        negation of row ``r``.

    Raises
    ------
    ValueError
        If ``n > MAX_EXACT_SIGN_N`` (use :func:`sign_pattern_chunks`).
    """
    n = check_int(n, "n", minimum=1)
    if n > MAX_EXACT_SIGN_N:
        raise ValueError(
            f"`n` = {n} exceeds MAX_EXACT_SIGN_N = {MAX_EXACT_SIGN_N}; "
            "use sign_pattern_chunks to enumerate in pieces")
    return _patterns(0, 1 << n, n)
