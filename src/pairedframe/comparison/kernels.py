"""The numpy core of :func:`pairedframe.compare`: one query set, ``k`` comparison columns of deltas.

Rows are the set's queries in code-point order of their ids, which key the resample streams
(:func:`~pairedframe.comparison.streams.resample_generators`), so a comparison's draws depend only on
the seed and its query set.  :func:`analyse_block` returns a
:class:`~pairedframe.comparison.comparison_stats.ComparisonStats` of the columns; :func:`pairedframe.compare_pair`
runs it on one column, and :func:`pairedframe.compare` on every query set of a table.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from pairedframe.comparison._cost import column_slices
from pairedframe.comparison.comparison_stats import ComparisonStats
from pairedframe.comparison.options import Options, kept_per_column, mc_patterns
from pairedframe.comparison.streams import resample_generators
from pairedframe.comparison.verdicts import smallest_pvalue
from pairedframe.stats.bootstrap import bootstrap_mean_many
from pairedframe.stats.randomization import sign_flip_test_many
from pairedframe.stats.signflip_interval import sign_flip_interval_many
from pairedframe.stats.skewness import sample_skewness
from pairedframe.stats.studentized import student_interval, student_only, studentized_bootstrap_many, zero_spread
from pairedframe.stats.ttest import paired_t_test_many

__all__ = ["analyse_block", "analyse_columns"]


def analyse_block(D: np.ndarray, qids: Sequence[str], opt: Options) -> ComparisonStats:
    """Statistics of the k columns of D (n, k), rows = queries in code-point order of qids; the
    columns in slices whose kept statistics fit ``KEPT_BYTES``, each slice from the query set's
    streams (the same draws: counts equal, sums to ~1e-15)."""
    kept = kept_per_column(opt)
    parts = column_slices(D.shape[1], opt.n_resamples, kept) if kept else [slice(None)]
    if len(parts) == 1:
        return analyse_columns(D, qids, opt)
    return ComparisonStats.concat([analyse_columns(D[:, part], qids, opt) for part in parts])


def analyse_columns(D: np.ndarray, qids: Sequence[str], opt: Options) -> ComparisonStats:
    """:func:`analyse_block` of one slice of columns."""
    n, k = D.shape
    boot_rng, flip_rng = resample_generators(opt.seed, qids)
    out: dict[str, np.ndarray] = {}
    Dt = np.ascontiguousarray(D.T)
    out["delta"] = np.mean(Dt, axis=1)
    flat = zero_spread(D)
    sd = np.std(Dt, axis=1, ddof=1)
    sd[flat] = 0.0
    out["sd"] = sd
    out["zero_spread"] = flat
    out["skewness"] = sample_skewness(D)
    out["se"] = sd / math.sqrt(n)
    if opt.interval in ("percentile", "bca"):
        boot = bootstrap_mean_many(D, n_resamples=opt.n_resamples, confidence_level=opt.confidence_level,
                                   method=opt.interval, alternative=opt.alternative, seed=boot_rng,
                                   chunk_size=opt.chunk_size)
        out["ci_low"], out["ci_high"] = (np.asarray(boot.confidence_interval.low, dtype=float),
                                         np.asarray(boot.confidence_interval.high, dtype=float))
        out["se"] = np.asarray(boot.standard_error, dtype=float)
    elif opt.interval == "studentized" and student_only(n, opt.alternative):
        # Student's quantile whatever the resamples: none drawn (this query set's stream is its own)
        out["ci_low"], out["ci_high"] = student_interval(out["delta"], out["se"], flat, n,
                                                         opt.confidence_level, opt.alternative)
    elif opt.interval == "studentized":
        boot = studentized_bootstrap_many(D, n_resamples=opt.n_resamples, confidence_level=opt.confidence_level,
                                          alternative=opt.alternative, seed=boot_rng, chunk_size=opt.chunk_size)
        out["ci_low"] = np.asarray(boot.confidence_interval.low, dtype=float)
        out["ci_high"] = np.asarray(boot.confidence_interval.high, dtype=float)
    tt = None
    if opt.test == "t" or opt.interval in ("t", "studentized"):
        tt = paired_t_test_many(D, alternative=opt.alternative, confidence_level=opt.confidence_level)
    if opt.interval == "t" or (opt.interval == "studentized" and flat.any()):
        # zero spread: the exact sign-flip answer for equal deltas (pairedframe.stats.ttest), not certainty
        take = np.ones(k, dtype=bool) if opt.interval == "t" else flat
        out["ci_low"] = np.where(take, np.asarray(tt.confidence_interval.low, dtype=float), out.get("ci_low"))
        out["ci_high"] = np.where(take, np.asarray(tt.confidence_interval.high, dtype=float), out.get("ci_high"))
    flips = None
    if opt.interval == "signflip":
        flips = sign_flip_interval_many(D, n_resamples=opt.n_resamples, confidence_level=opt.confidence_level,
                                        alternative=opt.alternative, seed=flip_rng, chunk_size=opt.chunk_size)
        out["ci_low"] = np.asarray(flips.confidence_interval.low, dtype=float)
        out["ci_high"] = np.asarray(flips.confidence_interval.high, dtype=float)
    if opt.test == "randomization" and opt.adaptive:
        # p-values come from the adaptive rounds over the whole family (comparison/_adaptive.py);
        # exact = the 2**n patterns can be enumerated within max_resamples
        out["pvalue"] = np.full(k, np.nan)
        out["exact"] = np.full(k, n < 63 and (1 << n) <= opt.max_resamples)
    elif opt.test == "randomization":
        res = flips if flips is not None else sign_flip_test_many(
            D, n_resamples=opt.n_resamples, alternative=opt.alternative, seed=flip_rng, chunk_size=opt.chunk_size)
        out["pvalue"] = np.asarray(res.pvalue, dtype=float)
        # per column: few non-zero deltas are enumerated (stats.randomization.settle_on_nonzero)
        out["exact"] = np.broadcast_to(np.asarray(res.exact, dtype=bool), (k,)).copy()
    else:
        out["pvalue"] = np.asarray(tt.pvalue, dtype=float)
        out["exact"] = np.zeros(k, dtype=bool)
    out["floor"] = np.array([smallest_pvalue(opt.test, bool(out["exact"][c]), n, opt.alternative, mc_patterns(opt),
                                             bool(flat[c])) for c in range(k)])
    return ComparisonStats(**out)
