"""The options of a paired comparison: one frozen record, checked once (issue 21).

:func:`check_options` validates every option of :func:`pairedframe.compare` (n_resamples, level,
alternative, test, interval, seed, power, ``resampling`` with its adaptive settings, the multiple-testing
``correction``; each error names its argument) and returns :class:`Options`, which the in-memory and the
in-engine backends share; :func:`check_cost` refuses a call whose resampling would take absurd time or memory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pairedframe.comparison._cost import check_resampling_cost, column_slices
from pairedframe.comparison._adaptive import DEFAULT_DECISION_ERROR, DEFAULT_MAX_RESAMPLES, check_adaptive_options
from pairedframe.comparison._validate import check_resampling_options, resolve_interval
from pairedframe.comparison.verdicts import CORRECTIONS, verdict_column

__all__ = ["DEFAULT_INTERVAL", "RESAMPLING_MODES", "Options", "check_options", "kept_per_column", "check_cost",
           "mc_patterns"]

_TESTS = ("randomization", "t")
_INTERVALS = ("signflip", "percentile", "bca", "t", "studentized")
#: The default interval of each test (the t-test's inverts it; module docstring for the randomization test's).
DEFAULT_INTERVAL = {"randomization": "studentized", "t": "t"}
#: ``resampling=``: "auto" resamples up to :data:`pairedframe.comparison.large_n.LARGE_N` non-zero deltas and
#: computes larger comparisons in one pass; "fixed" resamples at every size; "adaptive" draws sign patterns in rounds.
RESAMPLING_MODES = ("auto", "fixed", "adaptive")


@dataclass(frozen=True)
class Options:
    """The checked options of a paired comparison (:func:`check_options` builds it)."""

    n_resamples: int
    confidence_level: float
    alternative: str
    test: str
    interval: str
    seed: int
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
    check_resampling_options(n_resamples=n_resamples, confidence_level=confidence_level,
                             alternative=alternative, seed=seed)
    if not (isinstance(power, (int, float)) and 0 < power < 1):
        raise ValueError(f"`power` must be in (0, 1), got {power!r}")
    if not isinstance(resampling, str) or resampling not in RESAMPLING_MODES:
        raise ValueError(f"`resampling` must be one of {RESAMPLING_MODES}, got {resampling!r}")
    adaptive = check_adaptive_options(resampling="fixed" if resampling == "auto" else resampling, test=test,
                                      decision_error=decision_error, max_resamples=max_resamples)
    verdict_column(correction)
    return Options(int(n_resamples), float(confidence_level), alternative, test, interval, int(seed),
                   chunk_size, float(power), adaptive, float(decision_error), int(max_resamples), correction,
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
        if opt.interval in ("percentile", "bca", "studentized"):
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
