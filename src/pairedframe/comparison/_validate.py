"""Validation of the options shared by the comparison functions (messages name the parameter)."""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import polars as pl

from pairedframe.errors import SchemaError, ValueRangeWarning, user_stacklevel
from pairedframe.measures.parse import value_range

#: The largest seed: every result records its seed in an unsigned 64-bit column (a wider one, u128 or
#: text, would not cross to Arrow, pandas or DuckDB as a number).  numpy's SeedSequence takes any
#: non-negative integer; 2**64 distinct keys are plenty.
MAX_SEED = 2**64 - 1
#: The largest |per-query value| a comparison takes: the statistics sum values raised up to the fourth power
#: (variances, skewness, the Edgeworth correction): below 1e70 such sums stay far from overflowing a double.
MAX_ABS_VALUE = 1e70


def check_resampling_options(*, n_resamples: Any, confidence_level: Any, alternative: Any, seed: Any) -> None:
    """Raise ValueError naming the first bad option among the scipy-style resampling options."""
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 2:
        raise ValueError(f"`n_resamples` must be an integer >= 2, got {n_resamples!r}")
    if not (isinstance(confidence_level, numbers.Real) and not isinstance(confidence_level, bool)
            and 0 < confidence_level < 1):
        raise ValueError(f"`confidence_level` must be in (0, 1), got {confidence_level!r}")
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"`alternative` must be 'two-sided', 'greater' or 'less', got {alternative!r}")
    if alternative != "two-sided" and confidence_level <= 0.5:
        # a one-sided bound at level <= 0.5 is the test at alpha >= 0.5: Student's quantile is <= 0, so the bound
        # sits on or past the estimate and the default interval's cap (a multiple of that quantile) means nothing
        raise ValueError(f"`confidence_level` must be above 0.5 with a one-sided alternative ({alternative!r}), got "
                         f"{confidence_level!r}: a one-sided bound at level <= 0.5 lies on or beyond the estimate "
                         "(its test's alpha is 0.5 or more)")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"`seed` must be a non-negative integer, got {seed!r}")
    if seed > MAX_SEED:     # before any work: the result's seed column could not hold it
        raise ValueError(f"`seed` must be at most 2**64 - 1 ({MAX_SEED}), got {seed!r}: results record the seed "
                         "in an unsigned 64-bit column")


def resolve_interval(test: Any, interval: Any, *, tests: tuple[str, ...], intervals: tuple[str, ...],
                     defaults: dict[str, str] | None = None) -> str:
    """Check ``test`` and return the interval to use (``defaults[test]``; without ``defaults``:
    percentile with the randomization test, t with the t-test)."""
    if test not in tests:
        raise ValueError(f"`test` must be one of {tests}, got {test!r}")
    if interval is None:
        interval = (defaults or {"randomization": "percentile", "t": "t"})[test]
    if interval not in intervals:
        raise ValueError(f"`interval` must be one of {intervals} or None, got {interval!r}")
    return interval


def nonfinite_error(count: int, first: dict[str, Any]) -> ValueError:
    """The error for NaN/inf per-query values, or values beyond :data:`MAX_ABS_VALUE`: how many rows, and the
    first one's system, qid and measure."""
    extra = {k: v for k, v in first.items() if k not in ("system", "qid", "measure", "value")}
    where = ", ".join(f"{k}={v!r}" for k, v in {"system": first["system"], **extra, "qid": first["qid"],
                                                 "measure": first["measure"]}.items())
    return ValueError(f"per-query table: values must be finite and at most {MAX_ABS_VALUE:.0e} in magnitude (the "
                      f"statistics raise them to powers up to 4): {count} row(s) are NaN/inf or larger, the first "
                      f"({where}) is {first['value']!r}; drop, fix or rescale those rows (null values are treated "
                      "as 'not measured')")


def require_one_slice(frame: pl.DataFrame, columns: list[str], argument: str, *,
                      reason: str = "a results table shows one {column}",
                      instead: str = "compare gives rows per {column}") -> None:
    """SchemaError naming ``argument``, the column and its values when a key column (``dataset``,
    ``judgments``) holds several, for a door that reads one slice (a results table, a rank agreement)
    where compare gives rows per slice; ``reason`` and ``instead`` (``{column}`` filled in) say why and
    what else to do."""
    for column in columns:
        values = frame[column].unique(maintain_order=True).to_list()
        if len(values) > 1:
            shown = values[:5] + (["..."] if len(values) > 5 else [])
            raise SchemaError(f"`{argument}` has several values of its key column {column!r} ({shown}): "
                              f"{reason.format(column=column)}; filter `{argument}` to one {column} first, e.g. "
                              f"{argument}.filter(pl.col({column!r}) == {values[0]!r}) "
                              f"({instead.format(column=column)})")


def _slack(bound: float) -> float:
    """How far past a range's end float rounding may put a value (1.0000000000000002 is 1)."""
    return 1e-9 * max(1.0, abs(bound))


def groups_outside_ranges(groups: pl.DataFrame) -> list[tuple[dict[str, Any], float, float, bool]]:
    """The groups (rows of ``measure, low, high, median`` and key columns: one system's values of one measure)
    holding a value outside the measure's known range (nDCG, AP, P, R, RR: ``[0, 1]``), each with that range
    and whether the group is on another scale: values no evaluation gives, an error upstream.  Not values on
    another scale (nDCG x 100): a group whose median lies above the range (most of its values, so not one
    wrong value lifting its mean) keeps its values above, and the intervals warn about it
    (:mod:`pairedframe.comparison.interval_range`); below the range no scale explains them.  Names
    pairedframe does not know (a measure of one's own) have no range."""
    out = []
    for group in groups.iter_rows(named=True):
        lo, hi = value_range(str(group["measure"]))
        scaled = group["median"] is not None and group["median"] > hi + _slack(hi)
        below = group["low"] is not None and group["low"] < lo - _slack(lo)
        above = group["high"] is not None and group["high"] > hi + _slack(hi) and not scaled
        if below or above:
            out.append((group, lo, hi, scaled))
    return out


def outside_sql(lo: float, hi: float, scaled: bool = False) -> str:
    """SQL: ``value`` lies outside ``[lo, hi]`` beyond float rounding (only below it when its group is on
    another scale: :func:`groups_outside_ranges`)."""
    if scaled:
        return f"(value < {lo - _slack(lo)!r})"
    return f"(value < {lo - _slack(lo)!r} OR value > {hi + _slack(hi)!r})"


def warn_outside_range(first: dict[str, Any], count: int, groups: int, lo: float, hi: float,
                       what: str = "per-query table") -> None:
    """Warn about ``count`` values of ``first``'s measure and system outside ``[lo, hi]`` (and ``groups``
    systems and measures with such values in all), naming the first; ``what``: the input, as the message
    starts."""
    others = f"; {groups - 1} other system/measure pair(s) too" if groups > 1 else ""
    warnings.warn(
        f"{what}: measure {first['measure']!r} takes values in [{lo:g}, {hi:g}], but system "
        f"{first['system']!r}, qid {first['qid']!r} has {first['value']!r} ({count} value(s) of that system outside "
        f"that range{others}): no evaluation gives such a value, so it points at an error upstream; fix or drop "
        "those rows (a measure of your own needs a name that is not a pairedframe measure)",
        ValueRangeWarning, stacklevel=user_stacklevel())


def _within_every_range(data: pl.DataFrame) -> bool:
    """Whether every value lies in the range of every measure of ``data`` (its smallest and largest value
    against the measures' names): the usual case, decided without grouping the rows by system and measure,
    which cost a second of CPU on 10^7 rows."""
    value = pl.col("value")
    low, high = data.select(value.min().alias("low"), value.max().alias("high")).row(0)
    if low is None:
        return True
    ranges = [value_range(str(name)) for name in data["measure"].unique()]
    return all(lo - _slack(lo) <= low and high <= hi + _slack(hi) for lo, hi in ranges)


def warn_values_outside_ranges(data: pl.DataFrame, what: str = "per-query table") -> None:
    """Warn naming the measure, system, qid and value of the first value outside its measure's known range
    (:func:`groups_outside_ranges`); ``what``: the input, as the message starts."""
    value = pl.col("value")
    if _within_every_range(data):
        return
    keys = [c for c in data.columns if c not in ("qid", "value", "summary")]   # system, measure, dataset, ...
    groups = data.group_by(keys, maintain_order=True).agg(value.min().alias("low"), value.max().alias("high"),
                                                         value.median().alias("median"))
    outside = groups_outside_ranges(groups.filter(pl.col("low").is_not_null()))
    if outside:
        group, lo, hi, scaled = outside[0]
        off = (value < lo - _slack(lo)) if scaled else (value < lo - _slack(lo)) | (value > hi + _slack(hi))
        rows = data.filter(*[pl.col(k).eq_missing(group[k]) for k in keys], off)
        warn_outside_range(rows.row(0, named=True), rows.height, len(outside), lo, hi, what)
