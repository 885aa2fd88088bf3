"""Paired comparisons inside thousands of query segments, in one vectorised pass, with BH/Holm.

A *segment table* (``qid, segment_set, segment``) assigns queries to segments; a query may sit in
several segment sets (e.g. ``"length"`` and ``"num_rel"``) and a segment set may have many segments.
:func:`compare_segments` pairs every system with the baseline (as :func:`pairedframe.compare`)
and analyses the deltas of every (system, keys, measure, segment set, segment) -- a *unit* -- at once:
the deltas of all units are laid end to end in one array and every statistic is a segmented
reduction (``np.add.reduceat`` on unit offsets; the pure-numpy kernel is
:func:`pairedframe.stats.segment_resample.segment_resample_stats`).  Python loops run only over blocks
of units (a memory knob) and resample chunks, never over segments.

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
  instead (bit ``i`` of ``b``; exact test, ``p = count / 2**n``), as in :func:`compare`; so are the
  ``2**k`` patterns of the ``k`` non-zero deltas when ``2**k <= n_resamples`` (a zero delta flips to
  itself: the same exact p; :func:`~pairedframe.comparison.segment_tables.settle_segment_flips`).

Units of the same segment with the same number of queries therefore share their resample index
(like :func:`compare` shares one index per query set).  The streams are *not* numpy's PCG64
streams, so results differ (within Monte-Carlo error) from :func:`compare` on the same queries;
``tests/reference/segments_reference.py`` re-implements them with plain loops, one segment at a
time.  This generator is for resampling statistics, not for cryptography.

Monte-Carlo resolution and the false discovery rate
---------------------------------------------------
A Monte-Carlo p-value is never below ``1/(B+1)``, nor (it estimates the exact p) below the exact
floor ``2/2^k`` of the unit's ``k`` non-zero deltas (a tie flips to itself).  Rejection is strict, as
in :func:`compare`: an adjusted p below the level ``q``.  In a family of ``m`` tests BH
rejects the smallest p-value only if ``p < q j / m`` for some ``j``; with every one of ``j``
segments at the floor ``f`` that needs ``j > m f / q`` (``min_discoveries``), and Holm cannot
reject anything once ``m f >= q``.  A row that is not rejected and would not be even at its
floor (the family's other p-values as they are) is flagged ``resolution_limited`` (never a
``significant`` one), a warning names the ``n_resamples`` needed (the least ``B`` with
``1/(B+1) < q/m``) and suggests ``test="t"`` for screening.

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

from pairedframe.comparison._adaptive import DEFAULT_DECISION_ERROR, DEFAULT_MAX_RESAMPLES
from pairedframe.comparison.engine_tables import engine_table
from pairedframe.comparison.options import SegmentOptions, check_segment_options
from pairedframe.comparison.pairing import PairedRows, pair_systems, wins_in_measure_direction
from pairedframe.comparison.segment_stats import SegmentStats
from pairedframe.comparison.streams import segment_keys
from pairedframe.errors import OLD_LEVEL_AND_SEED, USE_CORRECTION, SchemaError, renamed_keywords
from pairedframe.stats.segment_resample import BLOCK_ELEMENTS, CHUNK_ELEMENTS, segment_resample_stats
from pairedframe.stats.skewness import skewness_from_moments
from pairedframe.stats.studentized import ZERO_SPREAD_RTOL
from pairedframe.stats.ttest import t_test_from_moments
from pairedframe.comparison.segment_tables import (as_segments, check_segments_cost, no_segment_query,
                                                   require_two_queries, segments_table, settle_segment_flips,
                                                   warn_unmatched_segment_ids)

__all__ = ["compare_segments", "segment_keys", "segment_resample_stats", "STREAM_POLICY",
           "BLOCK_ELEMENTS", "CHUNK_ELEMENTS"]

STREAM_POLICY = ("counter-based per segment: K = keyed_seed_sequence(seed, ('segment', set, segment)); "
                 "row seed mix64(K+(b+1)*golden64)>>32; draw mix32(row+(i+1)*golden32) (lowbias32); "
                 "bootstrap index floor(u*n/2^32); sign flip = top bit (exact enumeration when 2^n <= B)")


# ----------------------------------------------------------------------------------------------
# units: the paired deltas of every (system, keys, measure, segment_set, segment), end to end
# ----------------------------------------------------------------------------------------------

def _segment_deltas(p: PairedRows, seg: pl.DataFrame) -> tuple[pl.DataFrame, np.ndarray, np.ndarray, np.ndarray,
                                                             np.ndarray, np.ndarray]:
    """The coded segments and every paired delta joined to its segments, sorted into units: returns
    ``distinct`` (``segment_set, segment, _sc``), and per delta ``row, segment code, a, b, delta``."""
    clash = [c for c in ("segment_set", "segment") if c in p.extras]
    if clash:
        raise SchemaError(f"per-query table already has column(s) {clash}; rename them")
    # integer codes for segments (code-point order); the paired table is already sorted by (_row, qid),
    # so a stable integer sort on (_row, segment code) yields units with their queries in qid order
    distinct = seg.select("segment_set", "segment").unique().sort("segment_set", "segment").with_row_index("_sc")
    seg_coded = seg.join(distinct, on=["segment_set", "segment"], how="left", maintain_order="left")
    joined = p.paired.select("_row", "qid", "a", "b", "delta").join(
        seg_coded.select("qid", "_sc"), on="qid", how="inner", maintain_order="left")
    own, theirs = p.paired["qid"].unique(maintain_order=True).to_list(), seg["qid"].unique(maintain_order=True).to_list()
    if joined.height == 0:
        raise no_segment_query(own, theirs)
    warn_unmatched_segment_ids(own, theirs, list(distinct.select("segment_set", "segment").iter_rows()),
                               set(distinct.join(joined.select("_sc").unique(), on="_sc", how="semi")
                                   .select("segment_set", "segment").iter_rows()))
    row_e = joined["_row"].to_numpy().astype(np.int64)
    sc_e = joined["_sc"].to_numpy().astype(np.int64)
    perm = np.lexsort((sc_e, row_e))                       # stable: keeps qid order within a unit
    return (distinct, row_e[perm], sc_e[perm], joined["a"].to_numpy()[perm], joined["b"].to_numpy()[perm],
            joined["delta"].to_numpy()[perm])


def _unit_moments(d_all: np.ndarray, first: np.ndarray, n_all: np.ndarray) -> tuple[pl.Series, ...]:
    """Per unit (deltas ``d_all[first[u]:first[u+1]]``) the unit table's columns ``sd`` (0 at zero spread),
    ``skewness`` and ``_constant`` (zero spread)."""
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
    return pl.Series("sd", sd_all), pl.Series("skewness", skew_all), pl.Series("_constant", constant_all)


def _units(p: PairedRows, seg: pl.DataFrame) -> tuple[pl.DataFrame, np.ndarray]:
    """One row per unit (``system, <keys>, measure, segment_set, segment, n_queries, baseline_mean,
    system_mean, sd, skewness, _constant, wins, losses, ties``) and the units' deltas end to end."""
    distinct, row_e, sc_e, a_e, b_e, d_all = _segment_deltas(p, seg)
    first = np.flatnonzero(np.concatenate([[True], (np.diff(row_e) != 0) | (np.diff(sc_e) != 0)]))
    n_all = np.diff(np.concatenate([first, [row_e.shape[0]]])).astype(np.int64)
    count = lambda hit: np.add.reduceat(hit.astype(np.int64), first)  # noqa: E731
    keys = pl.DataFrame({"_row": row_e[first], "_sc": sc_e[first]}, schema={"_row": p.rows.schema["_row"],
                                                                             "_sc": distinct.schema["_sc"]})
    units = (keys.join(p.rows, on="_row", how="left", maintain_order="left")
             .join(distinct, on="_sc", how="left", maintain_order="left")
             .with_columns(pl.Series("n_queries", n_all),
                           pl.Series("baseline_mean", np.add.reduceat(a_e, first) / n_all),
                           pl.Series("system_mean", np.add.reduceat(b_e, first) / n_all),
                           *_unit_moments(d_all, first, n_all),
                           pl.Series("wins", count(d_all > 0)), pl.Series("losses", count(d_all < 0)),
                           pl.Series("ties", count(d_all == 0))))
    return wins_in_measure_direction(units), d_all


# ----------------------------------------------------------------------------------------------
# statistics of the units with at least 2 queries
# ----------------------------------------------------------------------------------------------

def _unit_stream_keys(units: pl.DataFrame, ok_idx: np.ndarray, seed: int) -> np.ndarray:
    """(bootstrap, sign-flip) stream keys of every unit of ``ok_idx``: its segment's, shape (len(ok_idx), 2)."""
    seg_ids = units.select("segment_set", "segment")[ok_idx]
    distinct = seg_ids.unique(maintain_order=True)
    key_pairs = np.array([segment_keys(seed, s, g) for s, g in distinct.iter_rows()],
                         dtype=np.uint64).reshape(-1, 2)
    code = seg_ids.join(distinct.with_row_index("_k"), on=["segment_set", "segment"],
                        how="left", maintain_order="left")["_k"].to_numpy()
    return key_pairs[code]


def _nonzero(d: np.ndarray) -> np.ndarray:
    return d[d != 0]


def _resampled(opt: SegmentOptions, units: pl.DataFrame, ok_idx: np.ndarray, d: np.ndarray, offsets: np.ndarray
               ) -> tuple[tuple[np.ndarray, ...] | None, tuple[np.ndarray, np.ndarray] | None, tuple | None]:
    """The resampled statistics of the units of ``ok_idx``: the interval (``ci_low, ci_high, se``) and the
    test (``pvalue, exact``), each None when not resampled; with ``resampling="adaptive"`` the sign flips
    are left to the family step, and the third item is their units (else None)."""
    n_ok = np.diff(offsets)
    need_boot = opt.interval == "percentile"
    need_flip = opt.test == "randomization"
    invert = opt.interval == "signflip"     # the segment's own fixed patterns, even when p is adaptive
    check_segments_cost(opt.n_resamples, n_ok, bootstrap=need_boot, sign_flip=need_flip and not opt.adaptive,
                        invert=invert)
    if not (need_boot or need_flip or invert):
        return None, None, None
    keys = _unit_stream_keys(units, ok_idx, opt.seed)
    res = segment_resample_stats(d, offsets, keys[:, 0], keys[:, 1], n_resamples=opt.n_resamples,
                                 confidence_level=opt.confidence_level, alternative=opt.alternative,
                                 bootstrap=need_boot, sign_flip=(need_flip and not opt.adaptive) or invert,
                                 invert=invert)
    interval = tested = flip_units = None
    if need_boot:
        interval = (res["ci_low"], res["ci_high"], res["se"])
    if invert:
        interval = (res["ci_low"], res["ci_high"], units["sd"].to_numpy()[ok_idx] / np.sqrt(n_ok))
    if "pvalue" in res:     # few non-zero deltas: exact over them, the interval agreeing (as compare)
        pvalue, exact, settled_interval = settle_segment_flips(
            res["pvalue"], res["exact"], np.add.reduceat((d != 0).astype(np.int64), offsets[:-1]), res["statistic"],
            interval if invert else None, n_resamples=opt.n_resamples, alternative=opt.alternative,
            confidence_level=opt.confidence_level,
            fetch_nonzero=lambda which: [_nonzero(d[offsets[u]:offsets[u + 1]]) for u in which.tolist()])
        interval = settled_interval if invert else interval
        res = {**res, "pvalue": pvalue, "exact": exact}
    if need_flip and not opt.adaptive:
        tested = (res["pvalue"], res["exact"])
    elif need_flip:
        flip_units = (d, offsets, keys[:, 1])     # drawn per family, in segments_table
    return interval, tested, flip_units


def _unit_statistics(opt: SegmentOptions, units: pl.DataFrame, d_all: np.ndarray
                     ) -> tuple[SegmentStats, tuple | None]:
    """The statistics of every unit (below 2 queries only the delta, the rest NaN), and the units whose sign
    flips the adaptive family step draws (None unless ``resampling="adaptive"``)."""
    n_all = units["n_queries"].to_numpy().astype(np.int64)
    ok = n_all >= 2
    require_two_queries(n_all)
    k = units.height
    ok_idx = np.flatnonzero(ok)
    single = np.flatnonzero(n_all == 1)
    single_delta = d_all[(np.cumsum(n_all) - n_all)[single]]       # the unit's one delta
    if not ok_idx.size:
        return SegmentStats.of_units(k, ok_idx).with_single_queries(single, single_delta), None
    d = np.ascontiguousarray(d_all[np.repeat(ok, n_all)])
    offsets = np.concatenate([[0], np.cumsum(n_all[ok_idx])]).astype(np.int64)
    n_ok = n_all[ok_idx]
    mean = np.add.reduceat(d, offsets[:-1]) / n_ok
    interval, tested, flip_units = _resampled(opt, units, ok_idx, d, offsets)
    if opt.test == "t" or opt.interval == "t":
        tt = t_test_from_moments(mean, units["sd"].to_numpy()[ok_idx], n_ok.astype(float),
                                 units["_constant"].to_numpy()[ok_idx], opt.alternative, opt.confidence_level)
        if opt.test == "t":
            tested = (tt["pvalue"], None)
        if opt.interval == "t":
            interval = (tt["ci_low"], tt["ci_high"], tt["se"])
    pvalue, exact = tested if tested is not None else (None, None)
    return (SegmentStats.of_units(k, ok_idx, delta=mean, interval=interval, pvalue=pvalue, exact=exact)
            .with_single_queries(single, single_delta), flip_units)


# ----------------------------------------------------------------------------------------------
# the entry point
# ----------------------------------------------------------------------------------------------


@renamed_keywords(verdict_on=USE_CORRECTION, **OLD_LEVEL_AND_SEED)
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
    per_query : Evaluation, table or path
        ``system, qid, measure, value`` (plus optional key columns, as :func:`compare`). A DuckDB
        relation or a Spark DataFrame is analysed in its engine, streams included, same result
        (:mod:`pairedframe.comparison.by_join_segments`); ``segments`` may then be a Spark DataFrame.
        A path (or list of paths) is read with :func:`pairedframe.read_results`.
    segments : table or path
        ``qid, segment_set, segment`` (polars, pandas, DuckDB relation, a dict of columns, or a CSV /
        TSV / Parquet / Arrow / JSON file, as the CLI's ``--segments``); one row per (query, segment) membership.  A query may belong to several segment sets (and segments);
        queries absent from it are in no segment. A dict ``{qid: segment}`` is refused (no segment set).
    baseline : str
        System ``a``; deltas are ``b - a``.
    measures, systems : str or sequence of str, optional
        As :func:`compare`.
    test : {"randomization", "t"}, default "randomization"
        Sign-flip randomization test (p never below ``1/(n_resamples+1)`` unless exact) or the paired
        t-test (analytic; the right screening tool for thousands of segments, see module docstring).  As
        :func:`compare`'s, the sign-flip test of a unit whose ``k`` non-zero deltas have ``2**k <=
        n_resamples`` is the exact one of those ``2**k`` patterns (a zero delta flips to itself; ``exact``
        true), and a Monte-Carlo p is never below their exact floor ``2 / 2**k``.
    n_resamples : int, default 10_000
        Bootstrap resamples and (with ``resampling="fixed"``) Monte-Carlo sign patterns per unit.
    confidence_level : float in (0, 1), default 0.95
        Above 0.5 with a one-sided ``alternative``.
    alternative : {"two-sided", "greater", "less"}
        The side of the raw delta, as in :func:`pairedframe.compare`: ``"greater"`` is delta > 0, so
        for a measure where lower is better (FirstRelRank) ``"less"`` is the improvement.
    seed : int, default 0
        With the segment's identity, determines all its resamples (module docstring).
    family_by : str or sequence of str, optional
        Output columns that define a multiple-comparison family; default
        ``("system", <keys>, "measure", "segment_set")``.
    correction : {"bh", "holm"}, default "bh"
        The adjustment within each ``family_by`` family that drives ``significant`` (adjusted p
        strictly below ``alpha = 1 - confidence_level`` without float noise, as :func:`compare`'s
        verdicts: :func:`~pairedframe.stats.levels.decision_alpha`) and ``resolution_limited``; both
        adjusted columns are always returned.
    interval : {"signflip", "percentile", "t"}, optional
        Default: the interval that inverts the test -- ``"signflip"`` for the randomization test (the
        shifts the segment's sign-flip test does not reject, on the same patterns, so it excludes 0
        exactly when the raw ``p < 1 - confidence_level``, unless the deltas are all equal: see Returns;
        ``se`` is then ``sd / sqrt(n)``), ``"t"`` for the t-test.  ``"percentile"``: bootstrap percentile interval (under-covers at n = 20:
        benchmarks/calibration).  With ``resampling="adaptive"`` the sign-flip interval uses the
        segment's ``n_resamples`` fixed patterns, so it need not invert the adaptive p-value exactly.
    resampling : {"fixed", "adaptive"}, default "fixed"
        ``"adaptive"`` (randomization test only) draws sign patterns in rounds until every decision
        of ``correction`` at level ``1 - confidence_level`` is certified (MMCTest, Gandy & Hahn 2014; see
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
        losses, ties, sd, skewness, small_sample, warning, family_size, family, min_discoveries,
        resolution_limited,
        test, interval, n_resamples, exact, method, seed`` (``method`` and ``n_resamples`` as
        :func:`compare`'s: ``"exact"`` where the sign patterns were enumerated and nothing drawn at random,
        ``n_resamples`` then the number of patterns, ``2**n`` or ``2**k`` of the ``k`` non-zero deltas;
        ``"resampling"`` with the ``n_resamples`` asked; ``"analytic"`` with null where nothing was drawn or
        enumerated; both null for a unit of one query); with ``resampling="adaptive"`` also
        ``pvalue_low, pvalue_high`` (interval bracketing the exact p-value; equal to it when
        ``exact``), ``resamples_used`` (sign patterns drawn; ``2**k`` when the patterns of the ``k``
        non-zero deltas are enumerated), ``certified``,
        ``resampling`` and ``decision_error``.  The adaptive ``pvalue`` is ``(b+1)/(B+1)`` clipped to
        ``[pvalue_low, pvalue_high]``, so ``correction`` applied to it reproduces every certified
        decision.

        Units with one paired query get their ``delta`` (that query's), a null interval, ``se`` and
        p-values, and ``warning`` starting "only 1 paired query" (they are left out of their family, and
        their ``family`` says so: ``"no test: one paired query (left out of its family: ...)"``).
        ``family_size`` counts the family's p-values and ``family`` says the rule in words, as
        :func:`ppi_compare_segments`' (e.g. ``"per system, measure, segment_set, 4-13 comparisons"``;
        ``family_by=[]``: ``"all 40 comparisons of the call"``).  ``skewness`` is the adjusted sample skewness
        of the unit's deltas, as :func:`compare`'s (``scipy.stats.skew(bias=False)``; NaN below 3
        queries or at zero spread); a unit whose deltas are all equal gets :func:`compare`'s interval for
        equal deltas, never a point, whatever ``interval`` (which, as in :func:`compare`, still names the
        option); its ``warning`` then says so, and where that interval and the raw p-value disagree (it holds 0
        while ``p < 1 - confidence_level``, or the reverse) why, in the words of :func:`compare`'s ``verdict_note``.  ``small_sample`` is ``n_queries < MIN_QUERIES``.  ``min_discoveries`` is the least number of segments of the family that must
        reach the smallest attainable p-value before ``correction`` can reject any (1 for the
        t-test); null when even the whole family at that p-value could not be rejected (Holm: family
        size times the smallest p-value above the level; BH: more than the family would be needed), and
        on a segment of one query (no test).  ``resolution_limited`` is true for a row that is not ``significant`` and would not be
        even if its p-value were the smallest its test can give (``2/2^k`` two-sided exact, ``k`` the
        non-zero deltas; ``1/(B+1)`` Monte Carlo, never below that exact floor), the other p-values of its
        family as they are: more queries or resamples (or
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
        reached on skewed segments (docs/how/calibration.md; ``python benchmarks/calibration --section segments``).
    SmallSampleWarning
        Once, counting the units with fewer than ``MIN_QUERIES`` paired queries.
    UserWarning
        Once, when ``n_resamples`` (adaptive: ``max_resamples``) is too small for the correction at
        level ``1 - confidence_level``; once, when adaptive decisions are left uncertified at ``max_resamples``.

    References
    ----------
    Benjamini & Hochberg (1995), JRSS B 57(1); Holm (1979); Phipson & Smyth (2010);
    Steele, Lea & Flood (2014), "Fast splittable pseudorandom number generators", OOPSLA;
    Gandy & Hahn (2014), "MMCTest", Scand. J. Stat. 41(4).
    """
    opt = check_segment_options(test=test, interval=interval, correction=correction, n_resamples=n_resamples,
                                confidence_level=confidence_level, alternative=alternative, seed=seed,
                                resampling=resampling, decision_error=decision_error, max_resamples=max_resamples)
    in_engine = engine_table(per_query)
    if in_engine is not None:  # a DuckDB relation or a Spark DataFrame: every statistic is SQL there
        from pairedframe.comparison.by_join_segments import compare_segments_by_join

        return compare_segments_by_join(in_engine, segments, opt, baseline=baseline, measures=measures,
                                        systems=systems, family_by=family_by)
    p = pair_systems(per_query, baseline, systems, measures)
    units, d_all = _units(p, as_segments(segments))
    stats, flip_units = _unit_statistics(opt, units, d_all)
    return segments_table(units, stats, extras=p.extras, baseline=baseline, test=opt.test,
                          interval=opt.interval, correction=opt.correction, level=opt.level, family_by=family_by,
                          n_resamples=opt.n_resamples, alternative=opt.alternative, seed=opt.seed,
                          flip_units=flip_units, adaptive=opt.adaptive, decision_error=opt.decision_error,
                          max_resamples=opt.max_resamples)
