"""Paired comparisons inside thousands of query segments, in one vectorised pass, with BH/Holm.

A *segment table* (``qid, segment_set, segment``) assigns queries to segments; a query may sit in
several segment sets (e.g. ``"length"`` and ``"num_rel"``) and a segment set may have many segments.
:func:`compare_segments` pairs every system with the baseline (as :func:`pairedframe.compare`)
and analyses the deltas of every (system, keys, measure, segment set, segment) -- a *unit* -- at once:
the deltas of all units are laid end to end in one array and every statistic is a segmented
reduction (``np.add.reduceat`` on unit offsets).  Python loops run only over blocks of units (a
memory knob) and resample chunks, never over segments.

Random streams (counter-based, per segment)
-------------------------------------------
Resampling must be vectorised across segments yet a segment's draws must not depend on the other
segments of the call.  Each segment ``(segment_set, segment)`` gets two 64-bit keys ::

    K_boot, K_flip = keyed_seed_sequence(seed, ("segment", segment_set, segment)).generate_state(2, uint64)

(:func:`pairedframe.stats.resample.keyed_seed_sequence`: BLAKE2b of the key, stable across
processes).  Resample ``b`` (0-based) of the segment has the 32-bit row seed ::

    r(b) = mix64(K + (b + 1) * 0x9E3779B97F4A7C15) >> 32          # SplitMix64 output b of seed K

with ``mix64`` the SplitMix64 finaliser (Steele, Lea & Flood 2014).  Position ``i`` (0-based, queries
of the unit in code-point order of ``qid``) of that resample draws the 32-bit word ::

    u(b, i) = mix32(r(b) + (i + 1) * 0x9E3779B9)                  # SplitMix32 with the lowbias32 mixer

``mix32`` is Wellons' "lowbias32" (x ^= x>>16; x *= 0x7feb352d; x ^= x>>15; x *= 0x846ca68b;
x ^= x>>16), a bijection of 32-bit words.  All arithmetic wraps modulo 2^64 / 2^32; everything runs on
numpy ``uint32`` arrays (which numpy vectorises with SIMD, unlike ``uint64`` multiplies).

- Bootstrap: the unit's resample ``b`` takes query ``floor(u(b, i) * n / 2**32)`` at position ``i``
  (Lemire's multiply-shift, bias below ``n / 2**32``), from the ``K_boot`` stream.
- Sign flips: query ``i`` has its delta negated in pattern ``b`` when the top bit of ``u(b, i)`` from
  the ``K_flip`` stream is 1.  When ``2**n <= n_resamples`` every pattern ``b < 2**n`` is enumerated
  instead (bit ``i`` of ``b``; exact test, ``p = count / 2**n``), as in :func:`compare`.

Units of the same segment with the same number of queries therefore share their resample index
(like :func:`compare` shares one index per query set).  The streams are *not* numpy's PCG64
streams, so results differ (within Monte-Carlo error) from :func:`compare` on the same queries;
``tests/reference/segments_reference.py`` re-implements them with plain loops, one segment at a
time.  This generator is for resampling statistics, not for cryptography.

Monte-Carlo resolution and the false discovery rate
---------------------------------------------------
A Monte-Carlo p-value is never below ``1/(B+1)``.  In a family of ``m`` tests BH at level ``q``
rejects the smallest p-value only if ``p <= q j / m`` for some ``j``; with every one of ``j``
segments at the floor that needs ``j >= m / (q (B+1))`` (``min_discoveries``), and Holm cannot
reject anything once ``m / (B+1) > q``.  A row that is not rejected and would not be even at its
floor (the family's other p-values as they are) is flagged ``resolution_limited`` (never a
``significant`` one), a warning names the ``n_resamples`` needed (``ceil(m/q) - 1``) and suggests
``test="t"`` for screening.

``resampling="adaptive"`` removes the problem without drawing ``m/q`` patterns everywhere: patterns
are drawn in rounds (256, 512, ...) only for the units whose BH / Holm decision is still open, until
every decision equals that of the exact p-values with probability ``1 - decision_error``
(:mod:`pairedframe.stats.adaptive`); its pattern words are the full 64-bit outputs of the same
``K_flip`` SplitMix64 stream (:mod:`pairedframe.stats.sign_flip_units`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from pairedframe.comparison._adaptive import DEFAULT_DECISION_ERROR, DEFAULT_MAX_RESAMPLES, check_adaptive_options
from pairedframe.comparison._validate import check_resampling_options, resolve_interval
from pairedframe.comparison.engine_tables import engine_table
from pairedframe.comparison.pairing import pair_systems
from pairedframe.comparison.streams import mix32_inplace, row_seeds, segment_keys
from pairedframe.measures import higher_is_better
from pairedframe.errors import OLD_LEVEL_AND_SEED, USE_CONFIDENCE_LEVEL, USE_CORRECTION, SchemaError, renamed_keywords
from pairedframe.stats.bootstrap import interval_from_probs
from pairedframe.stats.signflip_interval import inverted_interval_units
from pairedframe.stats.randomization import TIE_RTOL, is_extreme
from pairedframe.stats.skewness import skewness_from_moments
from pairedframe.stats.studentized import ZERO_SPREAD_RTOL
from pairedframe.stats.ttest import t_test_from_moments
from pairedframe.comparison.segment_tables import (THETA_ELEMENTS, as_segments, check_segments_cost, no_segment_query,
                                                   require_segments_matched, require_two_queries, segments_table)

__all__ = ["compare_segments", "segment_keys", "segment_resample_stats", "STREAM_POLICY",
           "BLOCK_ELEMENTS", "CHUNK_ELEMENTS"]

STREAM_POLICY = ("counter-based per segment: K = keyed_seed_sequence(seed, ('segment', set, segment)); "
                 "row seed mix64(K+(b+1)*golden64)>>32; draw mix32(row+(i+1)*golden32) (lowbias32); "
                 "bootstrap index floor(u*n/2^32); sign flip = top bit (exact enumeration when 2^n <= B)")

#: Largest number of deltas in a multi-unit block (a unit larger than this forms its own block).
#: Memory/speed knob only: results do not depend on it.
BLOCK_ELEMENTS: int = 2**14
#: Target (resample rows x deltas) per inner chunk; 256 KiB per uint32 work array (cache-sized).
CHUNK_ELEMENTS: int = 2**16

_TESTS = ("randomization", "t")
_INTERVALS = ("signflip", "percentile", "t")
_DEFAULT_INTERVAL = {"randomization": "signflip", "t": "t"}
_CORRECTIONS = ("bh", "holm")


# ----------------------------------------------------------------------------------------------
# numpy kernel
# ----------------------------------------------------------------------------------------------

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
        Stream keys of each unit (:func:`segment_keys` of its segment).
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
    """
    d = np.ascontiguousarray(d, dtype=np.float64)
    offsets = np.asarray(offsets, dtype=np.int64)
    n_units = offsets.shape[0] - 1
    sizes = np.diff(offsets)
    if n_units and sizes.min() < 2:
        raise ValueError("every unit needs at least 2 deltas")
    B = int(n_resamples)
    out = {"statistic": np.empty(n_units)}
    if bootstrap:
        out.update(ci_low=np.empty(n_units), ci_high=np.empty(n_units), se=np.empty(n_units))
    if sign_flip:
        out.update(pvalue=np.empty(n_units), exact=np.zeros(n_units, dtype=bool))
    if invert:
        if bootstrap or not sign_flip:
            raise ValueError("invert needs sign_flip and excludes bootstrap (both give ci_low, ci_high)")
        out.update(ci_low=np.empty(n_units), ci_high=np.empty(n_units))
    a_tail = (1 - confidence_level) / 2 if alternative == "two-sided" else 1 - confidence_level
    max_units = max(1, THETA_ELEMENTS // B) if bootstrap or invert else n_units
    for ua, ub in _blocks(offsets, n_units, max_units, block_elements):
        lo, hi = int(offsets[ua]), int(offsets[ub])
        m = hi - lo
        n_u = sizes[ua:ub]
        nu = ub - ua
        ro = offsets[ua:ub] - lo
        unit_e = np.repeat(np.arange(nu), n_u)
        pos_e = np.arange(m) - ro[unit_e]
        base_e = ((pos_e.astype(np.uint64) + 1) * np.uint64(0x9E3779B9) & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        dd = d[lo:hi]
        sums = np.add.reduceat(dd, ro)
        stat = sums / n_u
        out["statistic"][ua:ub] = stat
        rows_per = max(1, chunk_elements // m)
        X = np.empty((min(rows_per, B), m), dtype=np.uint32)
        T = np.empty_like(X)
        if bootstrap:
            theta = np.empty((B, nu))
            scale_e = n_u[unit_e] * 2.0**-32
            off_e = ro[unit_e].astype(np.float64)
            F = np.empty(X.shape)
            II = np.empty(X.shape, dtype=np.intp)
            V = np.empty(X.shape)
            keys = boot_keys[ua:ub]
            for b0 in range(0, B, rows_per):
                r = min(rows_per, B - b0)
                x, t, f, ii, v = X[:r], T[:r], F[:r], II[:r], V[:r]
                np.take(row_seeds(keys, np.arange(b0, b0 + r)), unit_e, axis=1, out=x)
                np.add(x, base_e, out=x)
                mix32_inplace(x, t)
                np.multiply(x, scale_e, out=f)
                np.add(f, off_e, out=f)          # exact: off + u*n/2^32 < off + n <= 2^14 (or off = 0)
                np.copyto(ii, f, casting="unsafe")
                np.take(dd, ii, out=v)
                theta[b0:b0 + r] = np.add.reduceat(v, ro, axis=1) / n_u
            tb = np.ascontiguousarray(theta.T)
            probs = np.broadcast_to(np.array([a_tail, 1 - a_tail]), (nu, 2))
            low, high = interval_from_probs(tb, probs, alternative)
            constant = np.maximum.reduceat(dd, ro) == np.minimum.reduceat(dd, ro)
            low = np.where(constant & np.isfinite(low), stat, low)
            high = np.where(constant & np.isfinite(high), stat, high)
            out["ci_low"][ua:ub], out["ci_high"][ua:ub] = low, high
            out["se"][ua:ub] = np.where(constant, 0.0, np.std(tb, axis=1, ddof=1))
            del theta, tb
        if sign_flip:
            exact_u = (n_u < 63) & (np.left_shift(1, np.minimum(n_u, 62)) <= B)
            n_pat = np.where(exact_u, np.left_shift(1, np.minimum(n_u, 62)), B)
            exact_e = exact_u[unit_e]
            ex_idx = np.flatnonzero(exact_e)
            ex_pos = pos_e[ex_idx].astype(np.int64)
            gamma = TIE_RTOL * np.maximum(np.abs(stat), np.add.reduceat(np.abs(dd), ro) / n_u)
            neg2d = -2.0 * dd
            count = np.zeros(nu, dtype=np.int64)
            if invert:     # every pattern's null statistic and flip count, per unit
                null_all = np.empty((B, nu))
                flips_all = np.empty((B, nu), dtype=np.int64)
            keys = flip_keys[ua:ub]
            V = np.empty(X.shape)
            for b0 in range(0, B, rows_per):
                r = min(rows_per, B - b0)
                x, t, v = X[:r], T[:r], V[:r]
                rows = np.arange(b0, b0 + r)
                np.take(row_seeds(keys, rows), unit_e, axis=1, out=x)
                np.add(x, base_e, out=x)
                mix32_inplace(x, t)
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
            p = np.where(exact_u, count / n_pat, (count + 1) / (B + 1))
            out["pvalue"][ua:ub] = np.minimum(p, 1.0)
            out["exact"][ua:ub] = exact_u
            if invert:
                out["ci_low"][ua:ub], out["ci_high"][ua:ub] = inverted_interval_units(
                    null_all, flips_all, n_u.astype(np.float64), stat, gamma, n_pat, exact_u, confidence_level,
                    alternative)
                del null_all, flips_all
    return out


# ----------------------------------------------------------------------------------------------
# t statistics with per-unit degrees of freedom
# ----------------------------------------------------------------------------------------------

# ----------------------------------------------------------------------------------------------
# frames
# ----------------------------------------------------------------------------------------------


@renamed_keywords(fdr_level=USE_CONFIDENCE_LEVEL, verdict_on=USE_CORRECTION, **OLD_LEVEL_AND_SEED)
def compare_segments(per_query: Any, segments: Any, *, baseline: str,
                     measures: Sequence[str] | str | None = None,
                     systems: Sequence[str] | str | None = None,
                     test: Literal["randomization", "t"] = "randomization", n_resamples: int = 10_000,
                     confidence_level: float = 0.95,
                     alternative: Literal["two-sided", "greater", "less"] = "two-sided", seed: int = 0,
                     family_by: Sequence[str] | str | None = None,
                     correction: Literal["bh", "holm"] = "bh",
                     interval: Literal["signflip", "percentile", "t"] | None = None,
                     resampling: Literal["fixed", "adaptive"] = "fixed",
                     decision_error: float = DEFAULT_DECISION_ERROR,
                     max_resamples: int = DEFAULT_MAX_RESAMPLES) -> pl.DataFrame:
    """Compare systems with a baseline inside every segment of queries, with BH q-values per family.

    Parameters
    ----------
    per_query : Evaluation or table
        ``system, qid, measure, value`` (plus optional key columns, as :func:`compare`). A DuckDB
        relation or a Spark DataFrame is analysed in its engine, streams included, same result
        (:mod:`pairedframe.comparison.by_join_segments`); ``segments`` may then be a Spark DataFrame.
    segments : table
        ``qid, segment_set, segment`` (polars, pandas, DuckDB relation or a dict of columns); one row
        per (query, segment) membership.  A query may belong to several segment sets (and segments);
        queries absent from it are in no segment. A dict ``{qid: segment}`` is refused (no segment set).
    baseline : str
        System ``a``; deltas are ``b - a``.
    measures, systems : str or sequence of str, optional
        As :func:`compare`.
    test : {"randomization", "t"}, default "randomization"
        Sign-flip randomization test (p never below ``1/(n_resamples+1)`` unless exact) or the paired
        t-test (analytic; the right screening tool for thousands of segments, see module docstring).
    n_resamples : int, default 10_000
        Bootstrap resamples and (with ``resampling="fixed"``) Monte-Carlo sign patterns per unit.
    confidence_level : float in (0, 1), default 0.95
    alternative : {"two-sided", "greater", "less"}
    seed : int, default 0
        With the segment's identity, determines all its resamples (module docstring).
    family_by : str or sequence of str, optional
        Output columns that define a multiple-comparison family; default
        ``("system", <keys>, "measure", "segment_set")``.
    correction : {"bh", "holm"}, default "bh"
        The adjustment within each ``family_by`` family that drives ``significant`` and
        ``resolution_limited`` at level ``1 - confidence_level``; both adjusted columns are always
        returned.
    interval : {"signflip", "percentile", "t"}, optional
        Default: the interval that inverts the test -- ``"signflip"`` for the randomization test (the
        shifts the segment's sign-flip test does not reject, on the same patterns, so it excludes 0
        exactly when the raw ``p < 1 - confidence_level``; ``se`` is then ``sd / sqrt(n)``), ``"t"``
        for the t-test.  ``"percentile"``: bootstrap percentile interval (under-covers at n = 20:
        benchmarks/calibration).  With ``resampling="adaptive"`` the sign-flip interval uses the
        segment's ``n_resamples`` fixed patterns, so it need not invert the adaptive p-value exactly.
    resampling : {"fixed", "adaptive"}, default "fixed"
        ``"adaptive"`` (randomization test only) draws sign patterns in rounds until every decision
        of ``correction`` at ``fdr_level`` is certified (MMCTest, Gandy & Hahn 2014; see
        :mod:`pairedframe.stats.adaptive`).  Guarantee: for any data, with probability at least
        ``1 - decision_error`` over the draws, every row of a family with ``certified = true`` has the
        ``significant`` value that ``correction`` gives on the *exact* sign-flip p-values (the
        fractions of all ``2**n`` sign patterns at least as extreme: the limit ``B -> infinity``).
        Patterns come from the segment's counter-based sign-flip stream (64-bit words, see
        :mod:`pairedframe.stats.sign_flip_units`), so a segment's patterns never depend on the other
        segments; how many it draws does (the BH threshold depends on the whole family).
    decision_error : float in (0, 1), default 1e-3
        The bound above, per family (adaptive only).
    max_resamples : int in [256, 2**40), default 2**27
        Most sign patterns one unit may draw (adaptive only); a decision still open there is reported
        with ``certified = false`` and a warning.

    Returns
    -------
    polars.DataFrame
        One row per (system, keys, measure, segment_set, segment) with at least one paired query,
        sorted in that order (systems and measures in the given order, segments in code-point order):
        ``system, <keys>, measure, segment_set, segment, baseline, n_queries, baseline_mean,
        system_mean, delta, ci_low, ci_high, se, pvalue, pvalue_bh, pvalue_holm, significant, wins,
        losses, ties, sd, skewness, small_sample, warning, family_size, min_discoveries, resolution_limited,
        test, interval, n_resamples, exact, seed``; with ``resampling="adaptive"`` also
        ``pvalue_low, pvalue_high`` (interval bracketing the exact p-value; equal to it when
        ``exact``), ``resamples_used`` (sign patterns drawn; ``2**n`` when enumerated), ``certified``,
        ``resampling`` and ``decision_error``.  The adaptive ``pvalue`` is ``(b+1)/(B+1)`` clipped to
        ``[pvalue_low, pvalue_high]``, so ``correction`` applied to it reproduces every certified
        decision.

        Units with one paired query get null statistics and ``warning = "only 1 paired query"``
        (NaN p-values are left out of their family).  ``skewness`` is the adjusted sample skewness
        of the unit's deltas, as :func:`compare`'s (``scipy.stats.skew(bias=False)``; NaN below 3
        queries or at zero spread).  ``small_sample`` is ``n_queries < MIN_QUERIES``.  ``min_discoveries`` is the least number of segments of the family that must
        reach the smallest attainable p-value before ``correction`` can reject any (1 for the
        t-test).  ``resolution_limited`` is true for a row that is not ``significant`` and would not be
        even if its p-value were the smallest its test can give (``2/2^n`` two-sided exact, ``1/(B+1)``
        Monte Carlo), the other p-values of its family as they are: more queries or resamples (or
        ``test="t"``), not a larger effect, would be needed.  It is never true where ``significant``
        is (:func:`pairedframe.stats.multiple.rejected_at_floor`); always false for the t-test.

    Raises
    ------
    ResamplingCostError
        ``n_resamples`` would take absurd time or memory for this data, estimated before any
        resampling (:mod:`pairedframe.comparison._cost`; the message gives the largest value that fits).
    SchemaError, DuplicateError, ValueError, TypeError
        Bad tables or options (as :func:`compare`).
    EmptyResultError
        No paired query is in any segment, or every segment comparison has a single query.

    Warns
    -----
    PartlyEmptyWarning
        Segments of the segment table that hold no paired query (they get no row).
    SkewWarning
        Once, when some units' deltas fail Cochran's rule ``n > 25 skewness^2`` (units with fewer than
        3 queries never do): how many, the most skewed (its keys, skewness and n) and the FDR BH
        reached on skewed segments in ``benchmarks/calibration/segments.py``.
    SmallSampleWarning
        Once, counting the units with fewer than ``MIN_QUERIES`` paired queries.
    UserWarning
        Once, when ``n_resamples`` (adaptive: ``max_resamples``) is too small for the correction at
        ``fdr_level``; once, when adaptive decisions are left uncertified at ``max_resamples``.

    References
    ----------
    Benjamini & Hochberg (1995), JRSS B 57(1); Holm (1979); Phipson & Smyth (2010);
    Steele, Lea & Flood (2014), "Fast splittable pseudorandom number generators", OOPSLA;
    Gandy & Hahn (2014), "MMCTest", Scand. J. Stat. 41(4).
    """
    interval = resolve_interval(test, interval, tests=_TESTS, intervals=_INTERVALS, defaults=_DEFAULT_INTERVAL)
    if correction not in _CORRECTIONS:
        raise ValueError(f"`correction` must be one of {_CORRECTIONS}, got {correction!r}")
    check_resampling_options(n_resamples=n_resamples, confidence_level=confidence_level,
                             alternative=alternative, seed=seed)
    level = 1 - confidence_level
    adaptive = check_adaptive_options(resampling=resampling, test=test, decision_error=decision_error,
                                      max_resamples=max_resamples)
    n_resamples = int(n_resamples)
    in_engine = engine_table(per_query)
    if in_engine is not None:  # a DuckDB relation or a Spark DataFrame: every statistic is SQL there
        from pairedframe.comparison.by_join_segments import compare_segments_by_join

        return compare_segments_by_join(in_engine, segments, baseline=baseline, measures=measures, systems=systems,
                                        test=test, interval=interval, n_resamples=n_resamples,
                                        confidence_level=confidence_level, alternative=alternative, seed=int(seed),
                                        family_by=family_by, correction=correction, level=level, adaptive=adaptive)

    p = pair_systems(per_query, baseline, systems, measures)
    extras = p.extras
    seg = as_segments(segments)
    clash = [c for c in ("segment_set", "segment") if c in extras]
    if clash:
        raise SchemaError(f"per-query table already has column(s) {clash}; rename them")
    # integer codes for segments (code-point order); the paired table is already sorted by (_row, qid),
    # so a stable integer sort on (_row, segment code) yields units with their queries in qid order
    distinct = seg.select("segment_set", "segment").unique().sort("segment_set", "segment").with_row_index("_sc")
    seg_coded = seg.join(distinct, on=["segment_set", "segment"], how="left", maintain_order="left")
    joined = p.paired.select("_row", "qid", "a", "b", "delta").join(
        seg_coded.select("qid", "_sc"), on="qid", how="inner", maintain_order="left")
    if joined.height == 0:
        raise no_segment_query(p.paired["qid"].unique().head(3).to_list(), seg["qid"].unique().head(3).to_list())
    require_segments_matched(list(distinct.select("segment_set", "segment").iter_rows()),
                              set(distinct.join(joined.select("_sc").unique(), on="_sc", how="semi")
                                  .select("segment_set", "segment").iter_rows()))
    row_e = joined["_row"].to_numpy().astype(np.int64)
    sc_e = joined["_sc"].to_numpy().astype(np.int64)
    perm = np.lexsort((sc_e, row_e))                       # stable: keeps qid order within a unit
    row_e, sc_e = row_e[perm], sc_e[perm]
    a_e = joined["a"].to_numpy()[perm]
    b_e = joined["b"].to_numpy()[perm]
    d_all = joined["delta"].to_numpy()[perm]
    first = np.flatnonzero(np.concatenate([[True], (np.diff(row_e) != 0) | (np.diff(sc_e) != 0)]))
    n_all = np.diff(np.concatenate([first, [row_e.shape[0]]])).astype(np.int64)
    seg_mean = np.add.reduceat(d_all, first) / n_all
    dev = d_all - np.repeat(seg_mean, n_all)
    dev2 = dev * dev
    ss_all = np.add.reduceat(dev2, first)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd_all = np.where(n_all >= 2, np.sqrt(ss_all / (n_all - 1)), np.nan)
    # zero spread (max - min <= 1e-12 max|d|, float noise included) as the paired t-test rule
    spread = np.maximum.reduceat(d_all, first) - np.minimum.reduceat(d_all, first)
    constant_all = spread <= ZERO_SPREAD_RTOL * np.maximum.reduceat(np.abs(d_all), first)
    sd_all = np.where(constant_all & (n_all >= 2), 0.0, sd_all)
    skew_all = skewness_from_moments(ss_all / n_all, np.add.reduceat(dev2 * dev, first) / n_all, n_all, constant_all)
    keys = pl.DataFrame({"_row": row_e[first], "_sc": sc_e[first]}, schema={"_row": p.rows.schema["_row"],
                                                                             "_sc": distinct.schema["_sc"]})
    units = (keys.join(p.rows, on="_row", how="left", maintain_order="left")
             .join(distinct, on="_sc", how="left", maintain_order="left")
             .with_columns(pl.Series("n_queries", n_all),
                           pl.Series("baseline_mean", np.add.reduceat(a_e, first) / n_all),
                           pl.Series("system_mean", np.add.reduceat(b_e, first) / n_all),
                           pl.Series("sd", sd_all), pl.Series("skewness", skew_all),
                           pl.Series("_constant", constant_all),
                           pl.Series("wins", np.add.reduceat((d_all > 0).astype(np.int64), first)),
                           pl.Series("losses", np.add.reduceat((d_all < 0).astype(np.int64), first)),
                           pl.Series("ties", np.add.reduceat((d_all == 0).astype(np.int64), first))))
    # a win is an improvement in the measure's direction (a lower FirstRelRank), as in compare
    lower = [m for m in units["measure"].unique().to_list() if not higher_is_better(m)]
    if lower:
        down = pl.col("measure").is_in(lower)
        units = units.with_columns(pl.when(down).then(pl.col("losses")).otherwise(pl.col("wins")).alias("wins"),
                                   pl.when(down).then(pl.col("wins")).otherwise(pl.col("losses")).alias("losses"))
    n_all = units["n_queries"].to_numpy().astype(np.int64)
    ok = n_all >= 2
    require_two_queries(n_all)
    k = units.height
    stats = {c: np.full(k, np.nan) for c in ("delta", "ci_low", "ci_high", "se", "pvalue")}
    exact = np.zeros(k, dtype=bool)
    ok_idx = np.flatnonzero(ok)
    flip_units = None
    if ok_idx.size:
        keep = np.repeat(ok, n_all)
        d = np.ascontiguousarray(d_all[keep])
        offsets = np.concatenate([[0], np.cumsum(n_all[ok_idx])]).astype(np.int64)
        n_ok = n_all[ok_idx]
        const = units["_constant"].to_numpy()[ok_idx]
        mean = np.add.reduceat(d, offsets[:-1]) / n_ok
        stats["delta"][ok_idx] = mean
        need_boot = interval == "percentile"
        need_flip = test == "randomization"
        invert = interval == "signflip"     # the segment's own fixed patterns, even when p is adaptive
        check_segments_cost(n_resamples, n_ok, bootstrap=need_boot, sign_flip=need_flip and not adaptive,
                            invert=invert)
        if need_boot or need_flip or invert:
            seg_ids = units.select("segment_set", "segment")[ok_idx]
            distinct = seg_ids.unique(maintain_order=True)
            key_pairs = np.array([segment_keys(int(seed), s, g) for s, g in distinct.iter_rows()],
                                 dtype=np.uint64).reshape(-1, 2)
            code = seg_ids.join(distinct.with_row_index("_k"), on=["segment_set", "segment"],
                                how="left", maintain_order="left")["_k"].to_numpy()
            res = segment_resample_stats(d, offsets, key_pairs[code, 0], key_pairs[code, 1],
                                         n_resamples=n_resamples, confidence_level=confidence_level,
                                         alternative=alternative, bootstrap=need_boot,
                                         sign_flip=(need_flip and not adaptive) or invert, invert=invert)
            if need_boot:
                for c in ("ci_low", "ci_high", "se"):
                    stats[c][ok_idx] = res[c]
            if invert:
                stats["ci_low"][ok_idx], stats["ci_high"][ok_idx] = res["ci_low"], res["ci_high"]
                stats["se"][ok_idx] = units["sd"].to_numpy()[ok_idx] / np.sqrt(n_ok)
            if need_flip and not adaptive:
                stats["pvalue"][ok_idx] = res["pvalue"]
                exact[ok_idx] = res["exact"]
            elif need_flip:
                flip_units = (d, offsets, key_pairs[code, 1])     # drawn per family, below
        if test == "t" or interval == "t":
            sd = units["sd"].to_numpy()[ok_idx]
            tt = t_test_from_moments(mean, sd, n_ok.astype(float), const, alternative, confidence_level)
            if test == "t":
                stats["pvalue"][ok_idx] = tt["pvalue"]
            if interval == "t":
                for c in ("ci_low", "ci_high", "se"):
                    stats[c][ok_idx] = tt[c]

    return segments_table(units, stats, exact, extras=extras, baseline=baseline, test=test, interval=interval,
                           correction=correction, level=level, family_by=family_by, n_resamples=n_resamples,
                           alternative=alternative, seed=seed, flip_units=flip_units, adaptive=adaptive,
                           decision_error=decision_error, max_resamples=max_resamples)


