"""The intervals over queries of rank-agreement coefficients (the kernel of
:func:`pairedframe.rank_agreement`, also run by ``benchmarks/calibration --section agreement``): the
delete-one-query jackknife t interval, or the percentile bootstrap over the keyed resample stream; the
note each carries, and the warning for those that are NaN because no resample or left-out query changes
the coefficient."""

from __future__ import annotations

import warnings

import numpy as np

from pairedframe.comparison.streams import resample_generators
from pairedframe.errors import SmallSampleWarning, user_stacklevel
from pairedframe.stats.bootstrap import bootstrap_means_matrix, percentile_interval
from pairedframe.stats.jackknife import NO_SPREAD, jackknife_se, jackknife_t_interval
from pairedframe.stats.rank_agreement import COEFFICIENTS, agreement_coefficients_many, leave_one_out_means
from pairedframe.stats.resample import bootstrap_index_chunks
from pairedframe.stats.results import ConfidenceInterval
from pairedframe.stats.studentized import zero_spread

__all__ = ["APPROXIMATE", "NO_SPREAD_NOTE", "NO_SPREAD_BOOTSTRAP_NOTE", "EXCLUDES_ESTIMATE", "coefficient_intervals",
           "warn_no_spread", "note_tied_rankings", "tied_sides"]

#: The note every rank-agreement interval carries in ``table``.
APPROXIMATE = "approximate"
NO_SPREAD_NOTE = ("approximate; no interval (NaN): the coefficient is the same without any one query, a jackknife "
                  "standard error of 0, which is no certainty")
NO_SPREAD_BOOTSTRAP_NOTE = ("approximate; no interval (NaN): every bootstrap resample of the queries gives the same "
                            "coefficient, which is no certainty")
EXCLUDES_ESTIMATE = ("approximate; excludes the estimate: resampled queries pull the coefficient down "
                     "(near-tied systems swap), use interval='jackknife'")


def _bounds(name: str) -> tuple[float, float]:
    return (0.0, 1.0) if name == "rbo" else (-1.0, 1.0)


def coefficient_intervals(A: np.ndarray, B: np.ndarray, point: dict[str, float], *, method: str, higher: bool,
                          rbo_p: float, confidence_level: float, n_resamples: int, seed: int, qids: list[str]
                          ) -> dict[str, tuple[ConfidenceInterval, str]]:
    """Each coefficient's interval over the queries and its note (the kernel of :func:`pairedframe.rank_agreement`,
    also run by ``benchmarks/calibration/agreement.py``).

    ``A``, ``B``: (n queries, k systems) values under ``a`` and ``b``; ``point``: the coefficients
    of the column means; ``method``: a key of :data:`RANK_INTERVALS`; ``n_resamples``, ``seed`` and
    ``qids`` key the bootstrap (``"percentile"`` only).  Returns ``{coefficient: (interval, note)}``.
    """
    k = A.shape[1]
    if method == "jackknife":
        loo = leave_one_out_means(np.hstack([A, B]))
        values = agreement_coefficients_many(loo[:, :k], loo[:, k:], higher_is_better=higher, rbo_p=rbo_p)
        return {name: (jackknife_t_interval(point[name], values[name], confidence_level=confidence_level,
                                            bounds=_bounds(name)),
                       NO_SPREAD_NOTE if jackknife_se(values[name]) == 0.0 else APPROXIMATE) for name in COEFFICIENTS}
    boot_rng, _ = resample_generators(seed, qids)
    means = bootstrap_means_matrix(np.hstack([A, B]), bootstrap_index_chunks(A.shape[0], n_resamples, seed=boot_rng))
    values = agreement_coefficients_many(means[:, :k], means[:, k:], higher_is_better=higher, rbo_p=rbo_p)
    out = {}
    for name in COEFFICIENTS:
        finite = values[name][np.isfinite(values[name])]    # NaN: a constant resampled ranking
        nan = ConfidenceInterval(float("nan"), float("nan"))
        if finite.size >= 2 and zero_spread(finite)[0]:  # a point (up to float noise) would claim certainty
            out[name] = (nan, NO_SPREAD_BOOTSTRAP_NOTE)
            continue
        ci = percentile_interval(finite, confidence_level=confidence_level) if finite.size >= 2 else nan
        tol = 1e-12                                          # the kernels and the point value differ by ~1e-16
        inside = not np.isfinite(point[name]) or not np.isfinite(ci.low) or ci.low - tol <= point[name] <= ci.high + tol
        out[name] = (ci, APPROXIMATE if inside else EXCLUDES_ESTIMATE)
    return out


def tied_sides(names: tuple[str, str], tied_means: tuple[np.ndarray, np.ndarray]) -> list[str]:
    """The sides (judgment sets) that give every system the same mean: no ordering of the systems."""
    return [name for name, means in zip(names, tied_means) if means.size >= 2 and np.all(means == means[0])]


def warn_no_spread(intervals: dict[str, tuple[ConfidenceInterval, str]], n: int, measure: str,
                    names: tuple[str, str], tied: list[str] | None = None) -> None:
    """Say which coefficients got a NaN interval because no query changes them (jackknife) or every resample
    gives the same value (percentile), on which measure and between which two sides (a report computes one
    agreement per measure and judgment set); ``tied``: the sides that tie every system (:func:`tied_sides`),
    then the reason."""
    where = f"rank agreement on {measure} between {names[0]!r} and {names[1]!r}"
    why = (f"{' and '.join(map(repr, tied))} ties every system, so no query can change it" if tied
           else "common with few systems, well separated, that both label sets order alike")
    flat = [name for name, (_, note) in intervals.items() if note == NO_SPREAD_NOTE]
    if flat:
        warnings.warn(f"{where}: {', '.join(flat)}: the coefficient is the same without any one of the {n} queries "
                      f"({why}), so {NO_SPREAD}", SmallSampleWarning, stacklevel=user_stacklevel())
    constant = [name for name, (_, note) in intervals.items() if note == NO_SPREAD_BOOTSTRAP_NOTE]
    if constant:
        warnings.warn(f"{where}: {', '.join(constant)}: every bootstrap resample of the {n} queries gives the same "
                      "coefficient; that is no certainty (with few well separated systems it is common), so the "
                      "interval is NaN, not a point", SmallSampleWarning, stacklevel=user_stacklevel())


def note_tied_rankings(intervals: dict[str, tuple[ConfidenceInterval, str]], point: dict[str, float],
                       tied_means: tuple[np.ndarray, np.ndarray], measure: str, names: tuple[str, str]
                       ) -> dict[str, tuple[ConfidenceInterval, str]]:
    """Where one side gives every system the same mean (e.g. a label set of all 0s), the coefficients that
    need an ordering are NaN: say so in their notes and in a warning naming that side."""
    tied = tied_sides(names, tied_means)
    undefined = [key for key, value in point.items() if not np.isfinite(value)]
    if not tied or not undefined:
        return intervals
    who = " and ".join(repr(name) for name in tied)
    why = f"{who} ties every system (the same mean {measure} for all), so there is no ordering to compare"
    warnings.warn(f"rank agreement on {measure} between {names[0]!r} and {names[1]!r}: {', '.join(undefined)} "
                  f"are NaN: {why}; check that judgment set (e.g. labels all 0)",
                  SmallSampleWarning, stacklevel=user_stacklevel())
    return {key: (ci, f"{APPROXIMATE}; NaN: {why}" if key in undefined else note) for key, (ci, note) in intervals.items()}
