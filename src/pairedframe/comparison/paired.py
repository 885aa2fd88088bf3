"""Paired comparisons of systems on per-query tables: deltas, bootstrap CI, tests, power, verdicts.

This is the frame layer over the pure-numpy :mod:`pairedframe.stats`.  It pairs per-query values of
each system with the baseline's, stacks the delta columns of every comparison that shares a query
set into one matrix, and feeds that matrix to the many-column kernels, so one resample index (and
one stream of sign flips) serves every (system, measure) with that query set.

Pairing and query sets
----------------------
Deltas are ``b - a`` (system minus baseline) per query, over the queries measured for *both*
(an inner join on ``qid`` plus any extra key columns).  Within a comparison the queries are put in
code-point order of ``qid``; the bootstrap stream is
``numpy.random.default_rng(keyed_seed_sequence(seed, query_set_key(qids)))`` and the sign-flip stream
``default_rng(keyed_seed_sequence(seed, ("sign-flip", query_set_key(qids))))``.  A comparison's
resamples therefore depend only on ``seed`` and its own query set, never on what else is in the call
(the floating-point sums of the shared matmul kernel may differ in the last bits, ~1e-15 relative,
with the number of stacked columns; sign-flip counts are computed column by column and do not).
A comparison alone in its query set is bit-identical to ``scipy.stats.bootstrap(..., method=
"percentile")`` on the same generator (see :func:`resample_generators`).

Intervals and tests
-------------------
By default the p-value is the sign-flip randomization test (exact under the null of symmetric
deltas; Fisher, as used in IR by Smucker et al. 2007) and the interval is the symmetric studentized
bootstrap interval (bootstrap-t, Hall 1992), stabilised: each resample is studentized by at least half
the sample's SE, and its quantile is at most 1.5 x Student's t quantile
(:mod:`pairedframe.stats.studentized`).  It covers 0.94-0.96 on real TREC deltas at every size
measured, skewed ones included, as Hall's does (README "Calibration", ``benchmarks/calibration
--section paired``: 0.945-0.959 at n = 20, 50 and 100, median width 1.02-1.04 x the t interval's at
n = 20 and 1.00-1.01 at n = 100), and stays near the t interval where a few queries dominate the
deltas, where Hall's interval is many times wider or unbounded (never more than 1.5 x the t interval;
``verdict_note`` says when that cap binds).  The interval that inverts the sign-flip test (``"signflip"``: the shifts the test
does not reject, so it excludes 0 exactly when ``p < alpha``) covers only 0.930 at n = 20 on DL-2019
nDCG@10, where skewed deltas make the test itself reject 6.5 % of true nulls.  The two rarely disagree
(the studentized interval is a little wider at small n); where they do, or where a
multiplicity-adjusted p-value disagrees with the unadjusted interval, the verdict follows the test and
``verdict_note`` says so and why.  ``test="t"`` pairs with the t interval, which inverts it.
``"percentile"`` (bit for bit scipy's) and ``"bca"`` cover 0.894-0.923 at n = 20.  Above 10,000 non-zero
deltas ``resampling="auto"`` (the default) computes their one-pass limits (:mod:`~pairedframe.comparison.large_n`).

Every interval stays inside the range of a mean delta of its measure (``[-1, 1]`` for measures in
``[0, 1]``; the measure registry, :attr:`pairedframe.measures.Measure.value_range`): finite ends beyond
it are clipped, which cannot remove the true mean, so coverage is unchanged
(:mod:`pairedframe.comparison.interval_range`).  Deltas without spread (all equal) get, as the default
interval, not the point ``[c, c]`` but the mean deltas of every population in that range that gives
``n`` equal deltas with at least the level's probability (Clopper-Pearson's bound for ``n`` equal
outcomes, :mod:`pairedframe.stats.value_range`); with no known range, the whole line.

Verdicts
--------
With ``alpha = 1 - confidence_level`` and ``p`` the column named by ``verdict_on`` (Holm-adjusted by
default, so the verdicts of a family control its family-wise error rate; a family is one value of the
key columns -- one judgment set, one dataset -- or every row of a call without key columns, unless
``family_by`` says otherwise; the ``family`` column says which, :mod:`pairedframe.comparison._families`):

``"better"`` / ``"worse"``
    ``p < alpha`` and the mean delta is positive / negative (negative / positive for measures where
    lower is better, such as FirstRelRank).
``"inconclusive"``
    ``p >= alpha`` and ``mde > |delta|``: the experiment could not have reliably detected an effect of
    the observed size; this is *not* evidence of no difference.  ``mde`` is the minimum detectable
    effect (80 % power) of the *paired t-test* (noncentral t on ``n - 1`` df) -- with the default
    sign-flip test too, whose own MDE is not computed: the t-test's approximates it (the two tests
    have the same Pitman efficiency, Hoeffding 1952), less well with few or skewed deltas -- at the
    level a single effect needs in its family
    (``alpha`` raw, ``alpha / m`` for Holm over ``m`` comparisons, ``alpha * R / m`` for BH with ``R``
    rejections in the family counting the row itself, R + 1 for a row not rejected -- BH's threshold on
    raw p-values), infinite when the test's smallest
    attainable p-value (``2/2**n`` exact, ``1/(n_resamples+1)`` Monte Carlo) cannot reach that level,
    and NaN at zero spread (no spread seen, nothing to base it on) (:mod:`pairedframe.comparison.verdicts`).
``"not significant"``
    ``p >= alpha`` although ``mde <= |delta|`` (the observed effect is large for this sample, yet the
    test did not reject: typically outlying deltas, or a Monte-Carlo p-value close to alpha).  Never
    read it as "no difference" (that needs an equivalence test).  The same rule holds for every
    ``alternative``; a delta pointing away from a one-sided one is named in ``verdict_note``.
``"identical"``
    every paired delta is exactly 0.
``"equivalent"``
    (``compare_clustered`` with ``margin=``) not significant, and the TOST interval lies inside
    ``+-margin``.

``verdict_note`` gives the cause where a verdict could be misread, with advice for that cause.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from pairedframe.comparison._adaptive import DEFAULT_DECISION_ERROR, DEFAULT_MAX_RESAMPLES
from pairedframe.comparison.assemble import finish_table
from pairedframe.comparison.options import Options, check_cost, check_options
from pairedframe.comparison.interval_range import QUANTILE_INTERVALS
from pairedframe.comparison.pairing import DELTA_TOLERANCE, check_sizes, pair_systems
from pairedframe.comparison.engine_tables import engine_table
from pairedframe.comparison.kernels import analyse_block
from pairedframe.comparison.per_query import gain_expr
from pairedframe.comparison.printed_precision import warn_mixed_printed_precision
from pairedframe.comparison.large_n import row_statistics
from pairedframe.comparison.streams import resample_generators
from pairedframe.comparison.verdicts import VERDICTS
from pairedframe.errors import OLD_LEVEL_AND_SEED, USE_CORRECTION, renamed_keywords
from pairedframe.stats.resample import query_set_key

__all__ = [
    "QUERY_SET_POLICY", "PVALUE_TIE_RULE", "WIN_RULE", "VERDICTS", "compare", "compare_checked", "resample_generators",
]

QUERY_SET_POLICY = ("paired over the queries measured for both systems (inner join on qid and key columns); "
                    "one resample stream per distinct query set, keyed by seed and the set")
PVALUE_TIE_RULE = ("sign-flip null statistics with |T*| >= |T| - 100*eps*max(|T|, mean|d|) count as extreme; "
                   "p = (b+1)/(m+1), or b/2^n when all 2^n sign patterns are enumerated")
WIN_RULE = (f"delta = b - a, set to 0 when |b - a| <= {DELTA_TOLERANCE:g} * max(1, |a|, |b|) (float noise); "
            "win: an improvement in the measure's direction (delta > 0; delta < 0 where lower is better, as for "
            "FirstRelRank), loss: the opposite, tie: delta == 0")


@renamed_keywords(verdict_on=USE_CORRECTION, **OLD_LEVEL_AND_SEED)
def compare(data: Any, *, baseline: str, systems: Sequence[str] | str | None = None,
            measures: Sequence[str] | str | None = None, n_resamples: int = 10_000,
            confidence_level: float = 0.95, alternative: Literal["two-sided", "greater", "less"] = "two-sided",
            test: Literal["randomization", "t"] = "randomization", seed: int = 0,
            family_by: Sequence[str] | str | None = None, chunk_size: int | None = None,
            interval: Literal["signflip", "percentile", "bca", "t", "studentized"] | None = None,
            power: float = 0.8, correction: Literal["none", "holm", "bh"] = "holm",
            progress: Callable[[int, int], None] | None = None,
            resampling: Literal["auto", "fixed", "adaptive"] = "auto", decision_error: float = DEFAULT_DECISION_ERROR,
            max_resamples: int = DEFAULT_MAX_RESAMPLES) -> pl.DataFrame:
    """Compare systems with a baseline, query by query, with honest paired statistics.

    Parameters
    ----------
    data : Evaluation, table or path
        An :class:`~pairedframe.evaluation.Evaluation` or a per-query table ``system, qid, measure,
        value`` (polars, pandas, arrow, DuckDB relation, Spark DataFrame).  Other columns (e.g.
        ``dataset``, ``cluster``) are keys: they are carried through and define separate comparisons.
        A DuckDB relation or a Spark DataFrame is compared where it lives: the bootstrap and the
        sign-flip test run as joins with :func:`~pairedframe.resample_index` in the engine, with the
        same result to ~1e-15 (:mod:`pairedframe.comparison.by_join`; ``interval="bca"`` only where every
        comparison goes one pass, which needs no jackknife). Several baselines and ``pairs=`` read it
        into memory as polars instead, where every option works.
        A path (or list of paths) is read with :func:`pairedframe.read_results`.
    baseline : str
        System ``a``; deltas are ``b - a`` (positive = the system beats the baseline).
    systems : str or sequence of str, optional
        Systems ``b`` (default: all but the baseline, in order of appearance).
    measures : str or sequence of str, optional
        Default: every measure of the table, in order of appearance.  Names as :func:`pairedframe.evaluate`
        reads them (``"P.5"``, ``"map"``); a trec_eval family named bare (``"P"``) or a set (``"official"``)
        stands for its measures in the table, with trec_eval's rule for several names together
        (``["P", "P.5"]``: P@5 alone, as the CLI's ``compare -m P -m P.5``; warned), and its measures no
        paired test fits (NumQ, NumRet, GMAP) left out with a warning
        (:mod:`pairedframe.comparison.measure_names`).
    n_resamples : int, default 10_000
        Bootstrap resamples and Monte-Carlo sign patterns (``>= 2``).  The sign-flip test enumerates
        all ``2**n`` patterns instead when ``2**n <= n_resamples`` (then ``exact`` is true), and the
        ``2**k`` patterns of the ``k`` non-zero deltas when ``2**k <= n_resamples`` (a zero delta
        flips to itself, so that is the same exact p); otherwise its Monte-Carlo p is never below the
        exact floor ``2 / 2**k`` it estimates.
    confidence_level : float in (0, 1), default 0.95
        For the interval; ``alpha = 1 - confidence_level`` for the verdict and the MDE.  Above 0.5 with a
        one-sided ``alternative`` (a one-sided bound at 0.5 or below lies on or beyond the estimate).
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: delta > 0, the system is better than the baseline (for measures where lower
        is better, such as FirstRelRank, ``"less"`` is the improvement; ``wins``, ``losses`` and
        ``verdict`` follow the measure's direction).  One-sided intervals have an
        infinite bound on their open side, as in scipy; every other end lies inside the range of the
        measure's mean delta (an end the data do not bound becomes the range's end).
    test : {"randomization", "t"}, default "randomization"
        Paired sign-flip randomization test (p never below ``1/(n_resamples + 1)`` unless exact) or
        the paired t-test (analytic; use it when p-values must be very small, e.g. before a
        correction over many comparisons).
    seed : int, default 0
        With the query set, determines every resample (see :func:`resample_generators`).
    family_by : str or sequence of str, optional
        Output columns that split the multiple-comparison family (e.g. ``"measure"``).  Default: the
        key columns (one family per judgment set of :func:`~pairedframe.evaluate_judgment_sets`, per
        dataset, ...: each is its own experiment, as a results table of one of them shows), every row
        of the call without key columns; ``[]``: one family over every row of the call.
    chunk_size : int, optional
        Resample rows held in memory at once (memory knob; results do not depend on it).
    interval : {"signflip", "percentile", "bca", "t", "studentized"}, optional
        Default: ``"studentized"`` for the randomization test (the symmetric bootstrap-t, Hall 1992,
        on the bootstrap stream, stabilised: resample SEs at least half the sample's, quantile at most
        1.5 x Student's; covers 0.945-0.959 on real TREC deltas at n = 20-100, never wider than 1.5 x the
        t interval; Student's t interval below 5 queries, and a one-sided bound below 20 queries is Student's
        t bound, which covered 0.942-0.949 there against the bootstrap-t's 0.933-0.939,
        :data:`~pairedframe.stats.studentized.MIN_ONE_SIDED_BOOTSTRAP_N`), ``"t"`` for the t-test.  ``"signflip"`` is the set of shifts the sign-flip test does not reject (same sign
        patterns; Garthwaite 1996, Ernst 2004), so it agrees with the raw p-value by construction, but
        covers only 0.930-0.951 at n = 20.  ``"percentile"`` (bit for bit ``scipy.stats.bootstrap``)
        and ``"bca"`` under-cover at small n (0.894-0.923 at n = 20; a SmallSampleWarning below 50 queries; below 20, one
        warning says that and the small-sample one).  Where the interval and the
        verdict disagree, ``verdict_note`` says which decides and why.  Coverage on real TREC deltas:
        README "Calibration" (``benchmarks/calibration``).  Every interval is clipped to the range
        of a mean delta of its measure (module docstring).
    power : float in (0, 1), default 0.8
        Power for the minimum detectable effect.
    correction : {"none", "holm", "bh"}, default "holm"
        The multiple-testing correction within each ``family_by`` family behind the verdict: the
        verdict reads ``pvalue``, ``pvalue_holm`` or ``pvalue_bh`` (the ``verdict_on`` column says which).
    progress : callable, optional
        Called as ``progress(done, total)`` (in comparisons) after each query set is analysed.
    resampling : {"auto", "fixed", "adaptive"}, default "auto"
        ``"auto"``: ``"fixed"`` up to 10,000 non-zero deltas (:data:`~pairedframe.comparison.large_n.LARGE_N`),
        above it the one-pass limits of the same statistics (normal approximation of the sign-flip test, t
        interval; :mod:`pairedframe.comparison.large_n`, which shows they agree) -- if the deltas' effective
        number ``(sum d**2)**2 / sum d**4`` is at least 1,000 (:data:`~pairedframe.comparison.large_n.LARGE_N_EFF`;
        a few dominant deltas are resampled).  ``"fixed"``: ``n_resamples``
        at every size.  ``"adaptive"`` (randomization test only): sign patterns are drawn in rounds (256, 512, ...)
        only for the comparisons whose decision ``p < alpha`` on the ``correction``'s column is still
        open, until it is certified (MMCTest, Gandy & Hahn 2014; :mod:`pairedframe.stats.adaptive`).
        Guarantee: for any data, with probability at least ``1 - decision_error`` over the draws,
        every comparison of a family with ``certified = true`` gets the significant / not
        significant decision that ``correction`` gives on the *exact* sign-flip p-values (fractions
        of all ``2**n`` sign patterns, the limit ``B -> infinity``).  Patterns are the rows of the
        query set's sign-flip generator (:func:`resample_generators`), so after ``B`` patterns a
        count equals the fixed-``B`` count; ``n_resamples`` still sets the bootstrap of the interval
        (and the sign patterns of ``interval="signflip"``, which then need not invert the adaptive
        p-value exactly); ``verdict_note`` says so where interval and verdict disagree.
    decision_error : float in (0, 1), default 1e-3
        The bound above, per family (adaptive only).
    max_resamples : int in [256, 2**40), default 2**27
        Most sign patterns per comparison (adaptive only); an open decision there is reported with
        ``certified = false`` and a warning.

    Returns
    -------
    polars.DataFrame
        One row per (system, extra keys, measure), in the given system and measure order, with
        columns ``system, <keys>, measure, baseline, n_queries, baseline_mean, system_mean, delta,
        ci_low, ci_high, se, pvalue, pvalue_holm, pvalue_bh, wins, losses, ties, sd, skewness, mde,
        verdict, verdict_on, verdict_note, test, interval, confidence_level, alternative, n_resamples,
        exact, method, seed, family`` (``method``: ``"resampling"``, ``"exact"``, ``"analytic"`` or
        ``"one-pass"``, :data:`~pairedframe.comparison.large_n.METHODS`, what produced the row's p-value and
        interval; ``"exact"`` where sign patterns were enumerated and nothing drawn at random, its
        ``n_resamples`` the number of patterns (``2**n``, or ``2**k`` of the non-zero deltas);
        ``"analytic"`` also where no delta is non-zero, which the zero-spread rule gives without drawing;
        ``interval``: the one computed, ``"t"`` on one-pass rows (``"signflip"`` if asked) and where the
        default is Student's t bound (too few queries); ``n_resamples`` is null where nothing was
        resampled or enumerated, counting ``pvalue_tukey`` (``pairs="all"``) too; ``family``: the Holm/BH family rule
        in words with its size, e.g. ``"per judgments, 4 comparisons each"`` or ``"all 6 comparisons of
        the call"``); with
        ``resampling="adaptive"`` also ``pvalue_low, pvalue_high`` (interval bracketing the exact p-value),
        ``resamples_used``, ``certified``, ``resampling`` and ``decision_error`` (``pvalue`` is
        ``(b+1)/(B+1)`` clipped to that interval, so the adjusted columns reproduce every certified decision).

        Means are over the paired queries (which can differ from the evaluation summary when the
        query sets differ).  ``se`` is ``sd / sqrt(n)`` (the bootstrap standard error for the
        percentile and BCa intervals); ``sd`` is the standard deviation of the deltas (ddof=1; 0 when
        their spread is float noise, at most 1e-12 of their magnitude); ``skewness`` their adjusted
        sample skewness (NaN below 3 queries or at zero spread); ``mde`` the paired t-test's minimum
        detectable effect at ``power`` (also with the sign-flip test, which it approximates; module
        docstring), at the level the verdict needs (inf when the
        test cannot reach that level, NaN at zero spread); p-values lie in ``[0, 1]`` (randomization:
        ``[1/(n_resamples+1), 1]``, or ``[2^-n, 1]`` when exact; the t-test never reports 0 or
        certainty for zero spread, it then gives the exact sign-flip result).  Holm and
        Benjamini-Hochberg adjust within each family; a NaN p-value is left out of its family and
        stays NaN.  ``verdict`` is one of :data:`VERDICTS` and ``verdict_note`` explains it where
        needed (module docstring).

    Raises
    ------
    ResamplingCostError
        ``n_resamples`` would take absurd time or memory for this data, estimated before any
        resampling (:mod:`pairedframe.comparison._cost`; the message gives the largest value that fits).
    InsufficientSampleError
        A comparison with no common query, or with a single one.
    SchemaError, DuplicateError, ValueError, TypeError
        Bad input or options.

    Warns
    -----
    PartlyEmptyWarning
        Some comparison leaves out queries that only one side has a value for (a null value: the
        measure is undefined there, e.g. FirstRelRank with nothing relevant retrieved; or no row),
        naming the row and how many of its queries are paired.
    SmallSampleWarning
        Some comparison has fewer than ``MIN_QUERIES`` (20) common queries; see the ``mde`` column
        and :func:`pairedframe.stats.power.required_queries`.
    SkewWarning
        Some comparison's deltas fail Cochran's rule ``n > 25 skewness^2`` (named with its skewness
        and n): its test and interval may be off (README "Calibration").
    TiedQueriesWarning
        More than a quarter of some comparison's queries tie exactly (delta 0), as with near-duplicate
        systems: the mean rests on the few queries that differ and intervals under-cover (README
        "Calibration").
    UserWarning
        No comparison can be significant at its verdict level (the test's smallest p-value is too
        large: few queries for an exact test, or too few resamples), with advice for the cause.

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*; Garthwaite (1996), Biometrics
    52(4); Ernst (2004), Statistical Science 19(4); Hall (1992), *The Bootstrap and Edgeworth
    Expansion*; Smucker, Allan & Carterette (2007), CIKM; Cohen (1988); Cochran (1977); Holm (1979);
    Benjamini & Hochberg (1995).
    """
    opt = check_options(n_resamples, confidence_level, alternative, test, interval, seed, chunk_size, power,
                        resampling, decision_error, max_resamples, correction)
    return compare_checked(data, opt, baseline=baseline, systems=systems, measures=measures, family_by=family_by,
                           progress=progress)


def compare_checked(data: Any, opt: Options, *, baseline: str, systems: Sequence[str] | str | None = None,
                    measures: Sequence[str] | str | None = None, family_by: Sequence[str] | str | None = None,
                    progress: Callable[[int, int], None] | None = None) -> pl.DataFrame:
    """:func:`compare` with its options already checked into ``opt`` (:func:`~pairedframe.comparison.options.
    check_options`): ``pf.compare`` checks them once and calls this, for one baseline or for its stacked copies."""
    in_engine = engine_table(data)
    if in_engine is not None:  # a DuckDB relation or a Spark DataFrame: the resampling runs as joins there
        from pairedframe.comparison.by_join import compare_by_join

        return compare_by_join(in_engine, opt, baseline=baseline, systems=systems, measures=measures,
                               family_by=family_by, progress=progress)
    verdict_on = opt.verdict_column
    p = pair_systems(data, baseline, systems, measures)
    extras = p.extras
    gain = gain_expr(p.rows)  # delta with the sign of an improvement (ranks: lower is better)
    counts = p.paired.with_columns(gain.alias("_gain")).group_by("_row").agg(
        pl.len().alias("n_queries"), pl.col("a").mean().alias("baseline_mean"),
        pl.col("b").mean().alias("system_mean"), (pl.col("_gain") > 0).sum().alias("wins"),
        (pl.col("_gain") < 0).sum().alias("losses"), (pl.col("delta") == 0).sum().alias("ties"),
        (pl.col("delta") != 0).any().alias("_nonzero"), pl.col("delta").abs().max().alias("max_abs"))
    rows = p.rows.join(counts, on="_row", how="left").sort("_row")
    rows = rows.with_columns(pl.col("n_queries").fill_null(0))
    check_sizes(rows, baseline, extras, warn_small=opt.interval not in QUANTILE_INTERVALS)  # else with their own
    warn_mixed_printed_precision(p.paired, p.rows, baseline, extras)

    k_total = rows.height
    stats, large = row_statistics(p.paired, rows, opt)      # above LARGE_N non-zero deltas: one pass (large_n.py)
    small = p.paired.filter(~pl.col("_row").is_in(large.tolist())) if large.size else p.paired
    qsets = small.group_by("_row", maintain_order=True).agg(pl.col("qid"), pl.col("delta"))  # by query set
    groups: dict[bytes, list[int]] = {}
    qid_lists: dict[int, list[str]] = {}
    delta_lists: dict[int, np.ndarray] = {}
    for r, qids, deltas in qsets.iter_rows():
        qid_lists[r] = qids
        delta_lists[r] = np.asarray(deltas, dtype=np.float64)
        groups.setdefault(query_set_key(qids), []).append(r)
    check_cost(opt, [(len(qid_lists[m[0]]), len(m)) for m in groups.values()])
    done, flip_blocks = large.size, []
    for members in groups.values():
        D = np.column_stack([delta_lists[r] for r in members])
        idx = np.asarray(members)
        stats.put(idx, analyse_block(D, qid_lists[members[0]], opt))
        if opt.adaptive and opt.test == "randomization":
            flip_blocks.append((D, idx, resample_generators(opt.seed, qid_lists[members[0]])[1]))
        done += len(members)
        if progress is not None:
            progress(done, k_total)

    return finish_table(rows, stats, opt, baseline=baseline, extras=extras, family_by=family_by,
                        verdict_on=verdict_on, flip_blocks=flip_blocks)


