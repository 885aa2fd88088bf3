"""The options of a paired comparison: one frozen record, checked once (issue 21).

:func:`check_options` validates every option of :func:`pairedframe.compare` (n_resamples, level,
alternative, test, interval, seed, power, ``resampling`` with its adaptive settings, the multiple-testing
``correction``; each error names its argument) and returns :class:`Options`, which the in-memory and the
in-engine backends share (``pf.compare`` checks once and hands the record down, so no layer re-checks it);
:func:`check_cost` refuses a call whose resampling would take absurd time or memory.

Every entry point checks its options the same way, once, into a frozen record built on the shared
:class:`Resampling` part (``n_resamples, confidence_level, alternative, seed``; :func:`check_resampling`):
:class:`Options`, :class:`SegmentOptions` (:func:`pairedframe.compare_segments`), :class:`RankOptions`
(:func:`pairedframe.rank_agreement`); :class:`PPIOptions` (the closed-form ``ppi_compare*``) and
:func:`check_level` (``label_agreement``, ``results_table``) check the level alone.  Every error quotes
the parameter (```seed` must be ...``), so the CLI can name its flag instead.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pairedframe.comparison._cost import check_resampling_cost, column_slices
from pairedframe.comparison._adaptive import DEFAULT_DECISION_ERROR, DEFAULT_MAX_RESAMPLES, check_adaptive_options
from pairedframe.comparison._validate import check_resampling_options, resolve_interval
from pairedframe.comparison.verdicts import CORRECTIONS, verdict_column
from pairedframe.stats.levels import decision_alpha, level_value
from pairedframe.stats.studentized import student_only

__all__ = ["DEFAULT_INTERVAL", "RESAMPLING_MODES", "check_level", "Resampling", "check_resampling", "Options",
           "check_options", "kept_per_column", "check_cost", "mc_patterns"]

_TESTS = ("randomization", "t")
_INTERVALS = ("signflip", "percentile", "bca", "t", "studentized")
#: The default interval of each test (the t-test's inverts it; module docstring for the randomization test's).
DEFAULT_INTERVAL = {"randomization": "studentized", "t": "t"}
#: ``resampling=``: "auto" resamples up to :data:`pairedframe.comparison.large_n.LARGE_N` non-zero deltas and
#: computes larger comparisons in one pass; "fixed" resamples at every size; "adaptive" draws sign patterns in rounds.
RESAMPLING_MODES = ("auto", "fixed", "adaptive")


# ----------------------------------------------------------------------------------------------
# the shared part of every entry point (compare, compare_segments, ppi_compare*, rank_agreement,
# label_agreement, results_table): one record per entry point, built on one checked base
# ----------------------------------------------------------------------------------------------

def is_real(value: Any) -> bool:
    """A real number of any type (Python's, numpy's float32 ...), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)   # numpy bools are not Real


def check_level(confidence_level: Any, parameter: str = "confidence_level") -> float:
    """``confidence_level`` as a float in (0, 1); the error names ``parameter`` (bools refused)."""
    if not (is_real(confidence_level) and 0 < confidence_level < 1):
        raise ValueError(f"`{parameter}` must be in (0, 1), got {confidence_level!r}")
    return level_value(confidence_level)


@dataclass(frozen=True)
class Resampling:
    """The checked options every resampling entry point shares: scipy's ``n_resamples``,
    ``confidence_level``, ``alternative`` and the non-negative integer ``seed``."""

    n_resamples: int
    confidence_level: float
    alternative: str
    seed: int

    @property
    def level(self) -> float:
        """The tests' level, ``1 - confidence_level`` without float noise (:func:`decision_alpha`)."""
        return decision_alpha(self.confidence_level)


def check_resampling(n_resamples: Any, confidence_level: Any, alternative: Any = "two-sided",
                     seed: Any = 0) -> Resampling:
    """The shared options checked once (errors name the argument: ```n_resamples` must be ...``)."""
    check_resampling_options(n_resamples=n_resamples, confidence_level=confidence_level,
                             alternative=alternative, seed=seed)
    return Resampling(int(n_resamples), check_level(confidence_level), alternative, int(seed))


@dataclass(frozen=True)
class Options(Resampling):
    """The checked options of a paired comparison (:func:`check_options` builds it)."""

    test: str
    interval: str
    chunk_size: int | None
    power: float
    adaptive: bool = False
    decision_error: float = DEFAULT_DECISION_ERROR
    max_resamples: int = DEFAULT_MAX_RESAMPLES
    correction: str = "holm"
    one_pass: bool = False      # resampling="auto": comparisons above LARGE_N non-zero deltas in one pass

    @property
    def verdict_column(self) -> str:
        """The p-value column the verdicts read (``pvalue``, ``pvalue_holm`` or ``pvalue_bh``)."""
        return CORRECTIONS[self.correction]


def check_options(n_resamples, confidence_level, alternative, test, interval, seed, chunk_size,
                  power, resampling="fixed", decision_error=DEFAULT_DECISION_ERROR,
                  max_resamples=DEFAULT_MAX_RESAMPLES, correction="holm") -> Options:
    """Check every resampling option of :func:`pairedframe.compare` once (errors name the argument);
    ``interval=None`` becomes the test's default interval."""
    interval = resolve_interval(test, interval, tests=_TESTS, intervals=_INTERVALS, defaults=DEFAULT_INTERVAL)
    base = check_resampling(n_resamples, confidence_level, alternative, seed)
    if not (is_real(power) and 0 < power < 1):
        raise ValueError(f"`power` must be in (0, 1), got {power!r}")
    if not isinstance(resampling, str) or resampling not in RESAMPLING_MODES:
        raise ValueError(f"`resampling` must be one of {RESAMPLING_MODES}, got {resampling!r}")
    adaptive = check_adaptive_options(resampling="fixed" if resampling == "auto" else resampling, test=test,
                                      decision_error=decision_error, max_resamples=max_resamples)
    verdict_column(correction)
    return Options(base.n_resamples, base.confidence_level, base.alternative, base.seed, test, interval,
                   chunk_size, level_value(power), adaptive, float(decision_error), int(max_resamples), correction,
                   resampling == "auto")


def kept_per_column(opt: Options) -> int:
    """float64 values per resample and column an interval keeps (sorted copies included)."""
    return 5 if opt.interval == "signflip" else 3 if opt.interval in ("percentile", "bca", "studentized") else 0


def check_cost(opt: Options, shapes: Sequence[tuple[int, int]], argument: str = "n_resamples") -> None:
    """The up-front cost check (:mod:`pairedframe.comparison._cost`) of query sets of ``(n, k)``:
    ``n`` queries, ``k`` comparisons each; the kept statistics are those of one column slice."""
    kept = kept_per_column(opt)
    B = opt.n_resamples
    draws, units, columns, held = [], [], [], []
    for n, k in shapes:
        per = column_slices(k, B, kept)[0] if kept else slice(0, k)
        slice_k = min(k, per.stop - per.start)
        if opt.interval in ("percentile", "bca") or (opt.interval == "studentized"
                                                     and not student_only(n, opt.alternative)):
            draws.append(B), units.append(n), columns.append(k), held.append(kept * slice_k)
        if (opt.test == "randomization" and not opt.adaptive) or opt.interval == "signflip":
            patterns = min(B, 2 ** n) if n < 63 else B
            draws.append(patterns), units.append(n), columns.append(k)
            held.append((kept * slice_k + 1) if opt.interval == "signflip" else 0)
    advice = "" if opt.test == "t" else " (p-values below 1e-4 need test='t' or resampling='adaptive')"
    check_resampling_cost(B, argument=argument, draws=draws, units=units, columns=columns, kept=held, advice=advice)


def mc_patterns(opt: Options) -> int:
    """Most Monte-Carlo sign patterns a p-value can rest on (max_resamples when adaptive)."""
    return opt.max_resamples if opt.adaptive else opt.n_resamples


__all__ += ["SegmentOptions", "check_segment_options", "RankOptions", "check_rank_options", "PPIOptions",
            "check_ppi_options", "check_segment_correction"]


_SEGMENT_TESTS = ("randomization", "t")
_SEGMENT_INTERVALS = ("signflip", "percentile", "t")
_SEGMENT_CORRECTIONS = ("bh", "holm")


@dataclass(frozen=True)
class SegmentOptions(Resampling):
    """The checked options of :func:`pairedframe.compare_segments` (:func:`check_segment_options`)."""

    test: str
    interval: str
    correction: str
    adaptive: bool
    decision_error: float
    max_resamples: int


def check_segment_options(*, test: Any, interval: Any, correction: Any, n_resamples: Any, confidence_level: Any,
                          alternative: Any, seed: Any, resampling: Any, decision_error: Any,
                          max_resamples: Any) -> SegmentOptions:
    """Every option of :func:`pairedframe.compare_segments` checked once; ``interval=None`` becomes the
    interval inverting the test (sign flips for the randomization test, t for the t-test)."""
    interval = resolve_interval(test, interval, tests=_SEGMENT_TESTS, intervals=_SEGMENT_INTERVALS,
                                defaults={"randomization": "signflip", "t": "t"})
    check_segment_correction(correction)
    base = check_resampling(n_resamples, confidence_level, alternative, seed)
    adaptive = check_adaptive_options(resampling=resampling, test=test, decision_error=decision_error,
                                      max_resamples=max_resamples)
    return SegmentOptions(base.n_resamples, base.confidence_level, base.alternative, base.seed, test, interval,
                          correction, adaptive, float(decision_error), int(max_resamples))


def check_segment_correction(correction: Any) -> str:
    """``correction`` of the segment comparisons (compare_segments, ppi_compare_segments): "bh" or "holm"."""
    if correction not in _SEGMENT_CORRECTIONS:
        raise ValueError(f"`correction` must be one of {_SEGMENT_CORRECTIONS}, got {correction!r}")
    return correction


_RANK_INTERVALS = ("jackknife", "percentile")


@dataclass(frozen=True)
class RankOptions(Resampling):
    """The checked options of :func:`pairedframe.rank_agreement` (its intervals are two-sided)."""

    interval: str
    rbo_p: float


def check_rank_options(*, interval: Any, n_resamples: Any, confidence_level: Any, seed: Any,
                       rbo_p: Any) -> RankOptions:
    """Every option of :func:`pairedframe.rank_agreement` checked once (errors name the argument)."""
    if interval not in _RANK_INTERVALS:
        raise ValueError(f"`interval` must be one of {sorted(_RANK_INTERVALS)}, got {interval!r}")
    base = check_resampling(n_resamples, confidence_level, "two-sided", seed)
    if isinstance(rbo_p, bool) or not (isinstance(rbo_p, (int, float)) and 0 < rbo_p < 1):
        raise ValueError(f"`rbo_p` must be in the open interval (0, 1), got {rbo_p!r}")
    return RankOptions(base.n_resamples, base.confidence_level, base.alternative, base.seed, interval, float(rbo_p))


_PPI_METHODS = ("jackknife-edgeworth", "jackknife-t", "t", "z")


@dataclass(frozen=True)
class PPIOptions:
    """The checked options of :func:`pairedframe.ppi_compare` and ``ppi_compare_segments`` (closed form:
    no resampling, so only the level and alternative of :class:`Resampling`)."""

    confidence_level: float
    alternative: str
    lam: float | None
    ddof: int
    method: str


def check_ppi_options(*, lam: Any, confidence_level: Any, alternative: Any, ddof: Any, method: Any) -> PPIOptions:
    """Every option of the PPI++ comparisons checked once, before any unit is estimated."""
    level = check_level(confidence_level)
    check_resampling_options(n_resamples=2, confidence_level=level, alternative=alternative, seed=0)
    if lam is not None and (isinstance(lam, bool) or not isinstance(lam, numbers.Real)):
        raise TypeError(f"`lam` must be None or a real number, got {lam!r}")
    if lam is not None and not 0 <= lam <= 1:
        raise ValueError(f"`lam` must be in [0, 1] (0 = gold only, 1 = plain PPI), got {lam!r}")
    if isinstance(ddof, bool) or ddof not in (0, 1):
        raise ValueError(f"`ddof` must be 0 or 1, got {ddof!r}")
    if method not in _PPI_METHODS:
        raise ValueError(f"`method` must be one of {_PPI_METHODS}, got {method!r}")
    return PPIOptions(level, alternative, None if lam is None else float(lam), int(ddof), method)
