"""The up-front cost check of resampling options: one validator that every resampling entry point calls.

What grows with ``n_resamples``
-------------------------------
Draws never grow memory: bootstrap indices and sign patterns are made in chunks of about
``DEFAULT_CHUNK_ELEMENTS`` (2**22) values (:mod:`pairedframe.stats.resample`).  What an interval has
to keep is one float64 per resample and comparison (the bootstrap means or t statistics whose
quantiles it reads, the null statistics of an inverted sign-flip test; the sign-flip *test* keeps
counts only), and the comparison kernels hold those for at most :data:`KEPT_BYTES` at once by
resampling the columns of a query set in slices, each from the same keyed stream (so slicing changes
no result beyond the last bits of a sum).  One comparison alone still keeps its ``n_resamples``
values, and time grows as resamples x units (queries or clusters) x comparisons.

The check
---------
Before any resampling, the entry point describes its work as blocks run one after another, each
``draws`` resamples of ``units`` values for ``columns`` statistics, keeping ``kept`` float64 per
resample; :func:`check_resampling_cost` estimates

- time: ``sum(draws * units * (columns + PER_DRAW_COLUMNS)) / ELEMENTS_PER_SECOND``, a lower bound
  (the kernels measured 2-20x slower on a 2-core machine, ``benchmarks/speed --section compare``);
- memory: ``max(draws * kept * 8) + WORK_BYTES``,

and raises :class:`~pairedframe.errors.ResamplingCostError` naming the argument (the CLI replaces it
by its flag) when the time exceeds :data:`MAX_SECONDS` or the memory :func:`memory_limit`, with both
estimates and the largest value that fits.  The limits can be raised with the environment variables
``PAIREDFRAME_MAX_RESAMPLING_SECONDS`` and ``PAIREDFRAME_MAX_RESAMPLING_BYTES``.
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from pairedframe.errors import ResamplingCostError
from pairedframe.stats.resample import DEFAULT_CHUNK_ELEMENTS

__all__ = ["ELEMENTS_PER_SECOND", "KEPT_BYTES", "MAX_SECONDS", "check_resampling_cost", "column_slices",
           "memory_limit"]

#: Resampled values per second assumed by the time estimate (optimistic: the estimate is a lower bound).
ELEMENTS_PER_SECOND = 5e8
#: Per-resample overhead of a block, in columns (drawing, counting, bookkeeping).
PER_DRAW_COLUMNS = 4
#: Longest estimated time accepted, in seconds (a lower bound of the real time).
MAX_SECONDS = 3600.0
#: Kept statistics a kernel holds at once before it resamples a query set's columns in slices.
KEPT_BYTES = 2**28
#: Working memory of a block besides its kept statistics: a few chunks of draws.
WORK_BYTES = 4 * 8 * DEFAULT_CHUNK_ELEMENTS


def memory_limit() -> float:
    """Bytes a call may keep: ``PAIREDFRAME_MAX_RESAMPLING_BYTES``, else half of the machine's memory
    (the smaller of physical memory and a cgroup limit; 8 GiB when neither is known)."""
    override = os.environ.get("PAIREDFRAME_MAX_RESAMPLING_BYTES")
    if override:
        return float(override)
    total = math.inf
    try:
        total = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            text = f.read().strip()
        if text.isdigit():
            total = min(total, float(text))
    except OSError:
        pass
    return total / 2 if math.isfinite(total) else 8.0 * 2**30


def _max_seconds() -> float:
    override = os.environ.get("PAIREDFRAME_MAX_RESAMPLING_SECONDS")
    return float(override) if override else MAX_SECONDS


def column_slices(k: int, draws: int, kept_per_column: float) -> list[slice]:
    """Slices of ``k`` columns, each keeping at most :data:`KEPT_BYTES` of statistics (one column at
    least): ``draws * kept_per_column * 8`` bytes per column."""
    per = max(1, int(KEPT_BYTES // max(1.0, draws * kept_per_column * 8)))
    return [slice(a, min(k, a + per)) for a in range(0, k, per)]


def _size(nbytes: float) -> str:
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{nbytes / 1e3:.3g} kB"


def _duration(seconds: float) -> str:
    for unit, scale in (("years", 3.15e7), ("days", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds:.3g} s"


def check_resampling_cost(value: Any, *, argument: str, draws: Any, units: Any, columns: Any = 1,
                          kept: Any = 0, advice: str = "") -> None:
    """Refuse a resampling option whose work would take absurd time or memory (module docstring).

    Parameters
    ----------
    value : int
        The option's value as given (for the message).
    argument : str
        Its name as the caller spells it (``"n_resamples"``, ``"plan key n_resamples"``); the CLI
        replaces a parameter name by its flag.
    draws, units, columns, kept : array_like, broadcast to one entry per block
        Per block run in turn: resamples drawn (``min(n_resamples, 2**n)`` where all sign patterns
        are enumerated), values per resample (queries, clusters, ...), statistics per resample, and
        float64 values kept per resample until the block ends.
    advice : str, optional
        Appended to "Use fewer" (e.g. how to get small p-values without resamples).

    Raises
    ------
    ResamplingCostError
        Estimated time above ``MAX_SECONDS`` or memory above :func:`memory_limit`.
    """
    d, u, c, kk = np.broadcast_arrays(*(np.atleast_1d(np.asarray(x, dtype=np.float64))
                                        for x in (draws, units, columns, kept)))
    if d.size == 0:
        return
    seconds = float(np.sum(d * u * (c + PER_DRAW_COLUMNS))) / ELEMENTS_PER_SECOND
    kept_bytes = float(np.max(d * kk * 8.0))
    nbytes = kept_bytes + WORK_BYTES
    limit_s, limit_b = _max_seconds(), memory_limit()
    if seconds <= limit_s and nbytes <= limit_b:
        return
    # time and kept memory grow about linearly with the option (less where enumeration caps the draws)
    room = max(0.0, limit_b - WORK_BYTES)
    scale = min(limit_s / seconds if seconds > 0 else math.inf,
                room / kept_bytes if kept_bytes > 0 else math.inf if room > 0 else 0.0)
    largest = max(0, int(float(value) * scale)) if math.isfinite(scale) else 0
    whose = "" if os.environ.get("PAIREDFRAME_MAX_RESAMPLING_BYTES") else ", half of this machine"
    over = [f"at least {_duration(seconds)} (limit {_duration(limit_s)})" if seconds > limit_s else
            f"at least {_duration(seconds)}",
            f"about {_size(nbytes)} of memory (limit {_size(limit_b)}{whose})"]
    raise ResamplingCostError(
        f"`{argument}` = {value!r} is too large for this call: resampling would take {over[0]} and need "
        f"{over[1]}; at most about {largest:,} fits. Use fewer{advice}, or raise the limits with the "
        "environment variables PAIREDFRAME_MAX_RESAMPLING_SECONDS / PAIREDFRAME_MAX_RESAMPLING_BYTES",
        argument=argument, value=int(value), largest=largest)
