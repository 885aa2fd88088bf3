"""``resampling="adaptive"``: the glue between the frames and :mod:`pairedframe.stats.adaptive`.

:func:`compare_segments` draws its patterns from the counter-based segment streams
(:mod:`pairedframe.stats.sign_flip_units`), :func:`compare` from the per-query-set PCG64 sign-flip
generators of :func:`~pairedframe.comparison.paired.resample_generators` (pattern ``b`` is row ``b`` of
the generator, so after ``B`` patterns a comparison's count equals the fixed-``B`` count).
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from pairedframe.errors import user_stacklevel
from pairedframe.stats.adaptive import (DEFAULT_DECISION_ERROR, DEFAULT_MAX_RESAMPLES, AdaptiveResult,
                                        AdaptiveSchedule, adaptive_sign_flip)
from pairedframe.stats.randomization import FlipCounter, extreme_count_of_nonzero, nonzero_floor
from pairedframe.stats.resample import default_chunk_rows
from pairedframe.stats.sign_flip_units import unit_flip_counts

__all__ = ["RESAMPLINGS", "check_adaptive_options", "segment_adaptive", "query_set_adaptive",
           "adaptive_columns", "warn_uncertified", "DEFAULT_DECISION_ERROR", "DEFAULT_MAX_RESAMPLES"]

RESAMPLINGS = ("fixed", "adaptive")


def check_adaptive_options(*, resampling: Any, test: str, decision_error: Any, max_resamples: Any) -> bool:
    """Validate the adaptive options (messages name the argument); True when adaptive is asked for."""
    if resampling not in RESAMPLINGS:
        raise ValueError(f"`resampling` must be one of {RESAMPLINGS}, got {resampling!r}")
    if not (isinstance(decision_error, numbers.Real) and not isinstance(decision_error, bool)
            and 0 < decision_error < 1):
        raise ValueError(f"`decision_error` must be in (0, 1), got {decision_error!r}")
    if (isinstance(max_resamples, bool) or not isinstance(max_resamples, numbers.Integral)
            or not 256 <= max_resamples < 2**40):
        raise ValueError(f"`max_resamples` must be an integer in [256, 2**40), got {max_resamples!r}")
    if resampling == "adaptive" and test != "randomization":
        raise ValueError(f"resampling='adaptive' applies to test='randomization', got test={test!r}")
    return resampling == "adaptive"


def _schedule(max_resamples: int) -> AdaptiveSchedule:
    return AdaptiveSchedule(initial=256, growth=2, max_resamples=int(max_resamples))


def segment_adaptive(d: np.ndarray, offsets: np.ndarray, flip_keys: np.ndarray, family: np.ndarray, *,
                     correction: str, level: float, alternative: str, decision_error: float,
                     max_resamples: int) -> AdaptiveResult:
    """Adaptive sign-flip p-values of segment units (deltas ``d`` cut at ``offsets``, keys per unit).

    As :func:`query_set_adaptive`, a unit's size is its number ``k`` of non-zero deltas (a zero delta flips
    to itself): its ``2**k`` patterns of them are enumerated once they fit a checkpoint, and its p is never
    below ``2 / 2**k``; Monte-Carlo patterns flip all its deltas (the segment's stream, zeros included)."""
    nonzero = d != 0
    sizes = np.add.reduceat(nonzero.astype(np.int64), offsets[:-1]) if d.size else np.zeros(0, dtype=np.int64)
    d_nonzero = d[nonzero]
    offsets_nonzero = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)

    def count_mc(tests: np.ndarray, start: int, stop: int) -> np.ndarray:
        return unit_flip_counts(d, offsets, tests, flip_keys[tests], start, stop, alternative=alternative)

    def count_exact(tests: np.ndarray, n: int) -> np.ndarray:
        if n == 0:      # every delta 0: the one pattern ties, p = 1
            return np.ones(tests.shape[0], dtype=np.int64)
        own = d_nonzero[offsets_nonzero[tests][:, None] + np.arange(n)].ravel()   # each test's n, end to end
        return unit_flip_counts(own, np.arange(tests.shape[0] + 1, dtype=np.int64) * n, np.arange(tests.shape[0]),
                                None, 0, 1 << n, alternative=alternative, exact=True)

    # strict (adjusted p < level): compare_segments' ``significant``, as compare's verdicts
    return adaptive_sign_flip(sizes, family, count_mc, count_exact, correction=correction, level=level,
                              strict=True, decision_error=decision_error, schedule=_schedule(max_resamples),
                              floors=nonzero_floor(sizes, alternative))


def query_set_adaptive(blocks: Sequence[tuple[np.ndarray, np.ndarray, np.random.Generator]], k: int,
                       family: np.ndarray, *, correction: str, level: float, strict: bool, alternative: str,
                       decision_error: float, max_resamples: int, chunk_size: int | None) -> AdaptiveResult:
    """Adaptive sign-flip p-values of comparisons grouped by query set.

    ``blocks`` holds, per query set, ``(D, members, generator)``: the (n, c) deltas, the indices (in
    ``0 .. k-1``) of its c comparisons and its sign-flip generator, whose row ``b`` is pattern ``b`` of
    every comparison of the set (as :func:`~pairedframe.stats.randomization.sign_flip_test_many`).

    A comparison's size is its number ``k`` of non-zero deltas: a zero delta flips to itself, so the exact
    p is that of the ``2**k`` patterns of the non-zero ones, enumerated once they fit a checkpoint (as
    ``resampling="fixed"`` enumerates them within ``n_resamples``), and never below ``2 / 2**k``.
    """
    sizes = np.zeros(k, dtype=np.int64)
    block_of = np.zeros(k, dtype=np.int64)
    column_of = np.zeros(k, dtype=np.int64)
    for j, (D, members, _) in enumerate(blocks):
        sizes[members] = np.count_nonzero(D, axis=0)
        block_of[members] = j
        column_of[members] = np.arange(len(members))
    drawn = [0] * len(blocks)

    def per_block(tests: np.ndarray):
        for j in np.unique(block_of[tests]):
            sel = tests[block_of[tests] == j]
            D, _, gen = blocks[j]
            yield sel, j, D[:, column_of[sel]], gen

    def count_mc(tests: np.ndarray, start: int, stop: int) -> np.ndarray:
        out = np.zeros(tests.shape[0], dtype=np.int64)
        pos = {t: i for i, t in enumerate(tests.tolist())}
        for sel, j, D, gen in per_block(tests):
            if drawn[j] != start:      # every undecided comparison of a set is at the same checkpoint
                raise RuntimeError("adaptive rounds out of step with the query set's pattern stream")
            counter = FlipCounter(D, alternative)
            n_words = -(-D.shape[0] // 64)
            rows = default_chunk_rows(D.shape[0]) if chunk_size is None else int(chunk_size)
            counts = np.zeros(sel.shape[0], dtype=np.int64)
            for r0 in range(start, stop, rows):
                words = gen.integers(0, np.iinfo(np.uint64).max, size=(min(rows, stop - r0), n_words),
                                     dtype=np.uint64, endpoint=True)
                counts += counter.count(words)
            drawn[j] = stop
            out[[pos[t] for t in sel.tolist()]] = counts
        return out

    def count_exact(tests: np.ndarray, n: int) -> np.ndarray:
        """Extreme patterns among the 2**n of each test's n non-zero deltas."""
        rows = default_chunk_rows(n) if chunk_size is None else int(chunk_size)
        out = np.zeros(tests.shape[0], dtype=np.int64)
        pos = {t: i for i, t in enumerate(tests.tolist())}
        for sel, _, D, _ in per_block(tests):
            for c, test in enumerate(sel.tolist()):
                out[pos[test]] = extreme_count_of_nonzero(D[:, c], alternative, rows)[0]
        return out

    return adaptive_sign_flip(sizes, family, count_mc, count_exact, correction=correction, level=level,
                              strict=strict, decision_error=decision_error, schedule=_schedule(max_resamples),
                              floors=nonzero_floor(sizes, alternative))


def adaptive_columns(res: AdaptiveResult | None, k: int, rows: np.ndarray | None = None) -> list[pl.Series]:
    """The adaptive result columns for k output rows (``rows``: where the results go; others null)."""
    rows = np.arange(k) if rows is None else rows
    low = np.full(k, np.nan)
    high = np.full(k, np.nan)
    used = np.zeros(k, dtype=np.int64)
    certified = np.zeros(k, dtype=bool)
    valid = np.zeros(k, dtype=bool)
    if res is not None:
        low[rows], high[rows], used[rows] = res.pvalue_low, res.pvalue_high, res.resamples
        certified[rows] = res.certified
        valid[rows] = True
    error = res.decision_error if res is not None else None

    def masked(name: str, values: np.ndarray, dtype: Any) -> pl.Series:
        return pl.Series(name, values, dtype=dtype).scatter(np.flatnonzero(~valid), None)

    return [masked("pvalue_low", low, pl.Float64), masked("pvalue_high", high, pl.Float64),
            masked("resamples_used", used, pl.Int64), masked("certified", certified, pl.Boolean),
            pl.Series("resampling", ["adaptive"] * k, dtype=pl.String),
            pl.Series("decision_error", [error] * k, dtype=pl.Float64)]


def warn_uncertified(res: AdaptiveResult, max_resamples: int, what: str) -> None:
    """Warn once when some decisions could not be certified within ``max_resamples`` patterns."""
    bad = ~res.certified
    if not bad.any():
        return
    width = float(np.max(res.pvalue_high[bad] - res.pvalue_low[bad]))
    warnings.warn(
        f"{int(bad.sum())} {what} drew max_resamples={max_resamples:,} sign patterns and their decision is "
        f"still open (the p-value interval straddles the correction's threshold; widest {width:.2g}): "
        "'significant' comes from the estimate there and 'certified' is false. Raise max_resamples "
        "(each doubling narrows the intervals by about 30%) to certify them.",
        UserWarning, stacklevel=user_stacklevel())
