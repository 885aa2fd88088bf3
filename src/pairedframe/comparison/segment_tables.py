"""The segment table and the unit table of a segment comparison, shared by the in-memory and the in-engine
backends: reading and checking ``qid, segment_set, segment``, the checks on units, the resampling cost,
and the final table with BH / Holm within each family.
"""

from __future__ import annotations

import functools
import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from pairedframe.comparison._adaptive import (DEFAULT_DECISION_ERROR, DEFAULT_MAX_RESAMPLES, adaptive_columns,
                                              segment_adaptive, warn_uncertified)
from pairedframe.comparison._cost import check_resampling_cost
from pairedframe.comparison._families import family_columns, family_ids, family_text, untested_family_text
from pairedframe.comparison.large_n import row_methods, row_resamples
from pairedframe.comparison.options import SegmentOptions
from pairedframe.comparison.interval_range import (capped_at_too_few, clip_deltas, too_few_capped_text,
                                                   zero_spread_deltas)
from pairedframe.comparison.segment_stats import SegmentStats
from pairedframe.comparison.verdicts import warn_skewed_segments, zero_spread_disagreement
from pairedframe.checks import near_miss_hint, quoted, sample, string_ids, warn_numeric_ids
from pairedframe.io.convert import to_polars
from pairedframe.io.results import read_one
from pairedframe.errors import (DuplicateError, EmptyResultError, PartlyEmptyWarning, SchemaError, SmallSampleWarning,
                               user_stacklevel)
from pairedframe.stats.multiple import benjamini_hochberg, holm, rejected_at_floor
from pairedframe.stats.power import MIN_QUERIES
from pairedframe.stats.randomization import nonzero_floor
from pairedframe.stats.segment_resample import THETA_ELEMENTS  # the kernel's cap, re-exported
from pairedframe.stats.sign_flip_units import unit_flip_counts
from pairedframe.stats.signflip_interval import agree_with_settled_p, least_resamples, too_few_resamples

__all__ = ["THETA_ELEMENTS", "as_segments", "refuse_null_segments", "refuse_repeated_segments", "no_segment_query", "warn_unmatched_segment_ids",
           "require_two_queries", "check_segments_cost", "settle_segment_flips", "unit_label", "segments_table",
           "family_adjusted"]


def as_segments(segments: Any) -> pl.DataFrame:
    """Any segment table form as a polars frame ``qid, segment_set, segment`` (as text; integers with integer qids'
    warning); the checks name the column. A path is read as the CLI's ``--segments`` reads it (CSV/TSV, ...)."""
    source = segments if isinstance(segments, (str, os.PathLike)) else None
    if source is not None:
        segments = read_one(Path(source), argument="segments")
    _refuse_query_mapping(segments)
    segments = to_polars(segments, "segment table")
    missing = [c for c in ("qid", "segment_set", "segment") if c not in segments.columns]
    if missing:
        raise SchemaError(f"segment table lacks column(s) {missing}; needs qid, segment_set, segment "
                          f"(has {segments.columns})")
    segments = string_ids(segments, ["qid"], "the segment table")  # float query ids refused
    warn_numeric_ids([c for c in ("segment_set", "segment") if segments.schema[c].is_integer()], "the segment table")
    seg = segments.select(pl.col("qid").cast(pl.String), pl.col("segment_set").cast(pl.String),
                          pl.col("segment").cast(pl.String))
    refuse_null_segments(seg, source)
    refuse_repeated_segments(seg, source)
    return seg


def refuse_null_segments(seg: pl.DataFrame, source: str | os.PathLike[str] | None = None) -> None:
    """SchemaError naming the columns with nulls and the first row holding one (its line of a CSV/TSV
    ``source`` file, else its row), as :func:`null_segment_error` says it."""
    nulls = [c for c in ("qid", "segment_set", "segment") if seg[c].null_count()]
    if nulls:
        first = seg.select(pl.any_horizontal(pl.col("qid", "segment_set", "segment").is_null()).arg_true()
                           .first()).item()
        raise null_segment_error(nulls, seg.select("qid", "segment_set", "segment").row(first, named=True),
                                 first + 1, source)


def refuse_repeated_segments(seg: pl.DataFrame, source: str | os.PathLike[str] | None = None) -> None:
    """DuplicateError naming the first row that repeats an earlier (qid, segment_set, segment): its line of a
    CSV/TSV ``source`` file (after the header), else its row (counting from 1), and the earlier one's."""
    if not seg.select(pl.col("qid").is_duplicated().over("segment_set", "segment").any()).item():
        return
    keys = pl.struct("qid", "segment_set", "segment")
    indexed = seg.select("qid", "segment_set", "segment").with_row_index("_row")
    again = indexed.filter(~keys.is_first_distinct()).row(0, named=True)
    first = indexed.filter((pl.col("qid") == again["qid"]) & (pl.col("segment_set") == again["segment_set"])
                           & (pl.col("segment") == again["segment"]))["_row"][0]
    line, first_line = _file_lines(source, again["_row"], first)          # one read of the file for both
    if line is not None and first_line is not None:
        where = f"segment file {os.fspath(source)}, line {line} (first at line {first_line})"
    else:
        where = (f"segment {'file ' + os.fspath(source) if source is not None else 'table'}, row {again['_row'] + 1} "
                 f"(counting from 1; first at row {first + 1})")
    raise DuplicateError(f"{where} repeats (qid, segment_set, segment) = ({again['qid']!r}, "
                         f"{again['segment_set']!r}, {again['segment']!r}): list each query once per segment")


def null_segment_error(columns: list[str], row: dict[str, Any], number: int | None,
                       source: str | os.PathLike[str] | None = None) -> SchemaError:
    """The error for a segment table with nulls: the columns that hold one, and the first such row with its
    number (counting from 1) and values; ``number`` None for a table whose rows have no order (Spark). Read
    from a ``source`` file, the file is named, and for CSV/TSV the line (line 1 is the header)."""
    where = f"the first at row {number} (counting from 1)" if number is not None else "e.g. the row"
    line = _file_lines(source, number - 1)[0] if number is not None else None
    if line is not None:
        where = f"the first at line {line}"
    what = "segment table" if source is None else f"segment file {os.fspath(source)}"
    return SchemaError(f"{what} has null values in column(s) {columns}, {where}: {row}; every row needs a "
                       "qid, segment_set and segment (drop the rows of queries outside a segment)")


def _file_lines(source: str | os.PathLike[str] | None, *rows: int) -> list[int | None]:
    """The lines of CSV/TSV file ``source`` on which 0-based data ``rows`` start (the header is line 1; a quoted
    field may span lines, so not ``row + 2``), in one read; None each for another source."""
    from pairedframe.io.table_values import csv_lines_of_rows

    name = "" if source is None else os.fspath(source).lower().removesuffix(".gz").removesuffix(".zst")
    if source is None or not name.endswith((".csv", ".tsv")) or not os.path.isfile(source):
        return [None] * len(rows)     # read as read_one reads it: no comment lines
    return csv_lines_of_rows(source, "\t" if name.endswith(".tsv") else ",", rows, comments=False)


def _refuse_query_mapping(segments: Any) -> None:
    """A dict without the columns' names is read as {qid: segment}, whose segment set is unnamed: refused
    with the shape expected (else its qids would be reported as the table's columns)."""
    if not isinstance(segments, Mapping) or not segments or {"qid", "segment_set", "segment"} & set(segments):
        return
    key, value = next(iter(segments.items()))
    raise SchemaError(f"segments is a dict of {len(segments)} key(s) (e.g. {key!r}: {value!r}) without the columns "
                      "qid, segment_set, segment: a table (or a dict of columns) of one row per (query, segment) is "
                      "expected; for {qid: segment}, pl.DataFrame({'qid': list(d), 'segment_set': 'length', "
                      "'segment': list(d.values())})")


def no_segment_query(own: list[str], theirs: list[str]) -> EmptyResultError:
    """The error when no paired query is in any segment: names a few of each side's distinct query ids
    (``own``, ``theirs``), and the ids that differ only by leading zeros, case or blanks."""
    return EmptyResultError("no paired query of the per-query table is in any segment of the segment table "
                            f"(its queries e.g. {own[:3]}, the segment table's {theirs[:3]})"
                            + near_miss_hint(own, theirs, of="the per-query table", in_="the segment table"))


def warn_unmatched_segment_ids(own: list[str], theirs: list[str], segments: Sequence[tuple[str, str]],
                               found: set[tuple[str, str]]) -> None:
    """One warning when query ids of the segment table match no paired query (``theirs`` minus ``own``):
    those queries leave their segments in silence, so it names a few and their count, the segments
    (``segment_set, segment`` of ``segments`` not in ``found``) left with no paired query at all (they get
    no row), and which ids match a paired query except for leading zeros, case, blanks or Unicode
    normalisation (a CSV read with its ids as numbers turns '001' into 1). A segment is empty only when all
    its ids are unmatched, so one message says both."""
    unmatched = sorted(set(theirs) - set(own))
    if not unmatched:
        return
    hint = near_miss_hint(unmatched, own, of="the segment table", in_="the per-query table")
    shown = ", ".join(repr(q) for q in unmatched[:5]) + (", ..." if len(unmatched) > 5 else "")
    empty = [s for s in segments if s not in found]
    left_out = (f"; {len(empty)} of {len(segments)} segments have no paired query, left out of the result: "
                f"{sample(empty)}" if empty else "")
    warnings.warn(f"{len(unmatched)} query id(s) of the segment table are in no paired query ({shown}), so they "
                  f"count in no segment{left_out}{hint}", PartlyEmptyWarning, stacklevel=user_stacklevel())


def require_two_queries(n_queries: np.ndarray) -> None:
    """Refuse a call where every segment comparison holds a single paired query."""
    if not (n_queries >= 2).any():
        raise EmptyResultError(f"every one of the {n_queries.shape[0]} segment comparison(s) has a single paired "
                               "query: no interval or test can be computed (each needs 2; a unit's delta is its query's)")


def check_segments_cost(n_resamples: int, n_queries: np.ndarray, *, bootstrap: bool, sign_flip: bool,
                        invert: bool) -> None:
    """The up-front cost check (:mod:`pairedframe.comparison._cost`) of units of ``n_queries`` (those with
    at least 2): every resample of every unit is drawn (exact units too), and a block keeps its
    bootstrap means or null statistics for at most ``max(B, THETA_ELEMENTS)`` resamples x units."""
    total = float(np.sum(n_queries[n_queries >= 2]))
    per_draw = max(1, THETA_ELEMENTS // max(1, int(n_resamples)))       # units held per resample in a block
    draws, kept = [], []
    if bootstrap:
        draws.append(n_resamples), kept.append(3 * per_draw)
    if sign_flip or invert:
        draws.append(n_resamples), kept.append(5 * per_draw if invert else 0)
    check_resampling_cost(n_resamples, argument="n_resamples", draws=draws, units=total, columns=1, kept=kept,
                          advice=" (screening thousands of segments: test='t' or resampling='adaptive')")


def settle_segment_flips(pvalue: np.ndarray, exact: np.ndarray, nonzero: np.ndarray, delta: np.ndarray,
                         interval: tuple[np.ndarray, ...] | None, *, n_resamples: int, alternative: str,
                         confidence_level: float, fetch_nonzero: Callable[[np.ndarray], list[np.ndarray]]
                         ) -> tuple[np.ndarray, np.ndarray, tuple[np.ndarray, ...] | None]:
    """Units' sign-flip p-values settled on their few non-zero deltas, as :func:`~pairedframe.compare`'s.

    A zero delta flips to itself, so a unit of ``k`` non-zero deltas with ``2**k <= n_resamples`` gets
    the exact p of those ``2**k`` patterns (``exact`` then True), and a Monte-Carlo p below their exact
    floor ``2 / 2**k`` is raised to it (:func:`~pairedframe.stats.randomization.settle_on_nonzero`).
    ``interval`` (``ci_low, ci_high, ...``, the inverted sign-flip interval; None for another) is then
    moved at 0 to agree with the settled p (:func:`~pairedframe.stats.signflip_interval.agree_with_settled_p`).
    ``fetch_nonzero(units)``: the non-zero deltas of each of ``units`` (indices into these arrays), called
    once, for the units enumerated only; a unit without zero delta is never enumerated here (its own test
    enumerated it already when ``2**n <= n_resamples``), so its p is unchanged but for that floor.  The
    rule of :func:`~pairedframe.stats.randomization.settle_on_nonzero`, the units of one ``k`` enumerated
    together."""
    k = np.asarray(nonzero, dtype=np.int64)
    settled, exact_units = np.array(pvalue, dtype=np.float64), np.array(exact, dtype=bool)
    enumerable = ~exact_units & (k > 0) & (k <= 62) & (np.left_shift(1, np.minimum(k, 62)) <= n_resamples)
    which = np.flatnonzero(enumerable)
    if which.size:
        settled[which] = _exact_pvalues_of_nonzero(fetch_nonzero(which), alternative)
        exact_units[which] = True
    monte_carlo = ~exact_units & (k > 0)
    settled[monte_carlo] = np.maximum(settled[monte_carlo], nonzero_floor(k[monte_carlo], alternative))
    if interval is not None:
        low, high = agree_with_settled_p(interval[0], interval[1], settled, settled != pvalue, delta,
                                         confidence_level)
        interval = (low, high, *interval[2:])
    return settled, exact_units, interval


def _exact_pvalues_of_nonzero(deltas: list[np.ndarray], alternative: str) -> np.ndarray:
    """Exact sign-flip p of each unit's ``k`` non-zero ``deltas`` over all ``2**k`` patterns, units of one ``k``
    enumerated together (:func:`~pairedframe.stats.sign_flip_units.unit_flip_counts`; the tie rule of
    :func:`~pairedframe.stats.randomization.exact_pvalue_of_nonzero`), not one Python call per unit."""
    sizes = np.array([x.shape[0] for x in deltas], dtype=np.int64)
    p = np.empty(sizes.shape[0])
    for k in np.unique(sizes).tolist():
        sel = np.flatnonzero(sizes == k)
        own = np.concatenate([deltas[i] for i in sel.tolist()])
        counts = unit_flip_counts(own, np.arange(sel.size + 1, dtype=np.int64) * k, np.arange(sel.size), None,
                                  0, 1 << k, alternative=alternative, exact=True)
        p[sel] = np.minimum(counts / float(1 << k), 1.0)
    return p


def unit_label(out: pl.DataFrame, extras: list[str], i: int) -> str:
    """Row ``i`` of compare_segments' result named by its key columns (``system 'bm25', measure 'AP', ...``),
    each name as written between quotes (:func:`~pairedframe.checks.quoted`; its ``repr`` doubled a backslash)."""
    row = out.row(i, named=True)
    return ", ".join(f"{c} {quoted(row[c])}" for c in ("system", *extras, "measure", "segment_set", "segment"))


def segments_table(units: pl.DataFrame, stats: SegmentStats, *, extras: list[str],
                    baseline: str, test: str, interval: str, correction: str, level: float,
                    family_by: Sequence[str] | str | None, n_resamples: int, alternative: str,
                    seed: int, flip_units: tuple | None = None, adaptive: bool = False,
                    decision_error: float = DEFAULT_DECISION_ERROR,
                    max_resamples: int = DEFAULT_MAX_RESAMPLES) -> pl.DataFrame:
    """compare_segments' result from one row per unit (``system, <keys>, measure, segment_set,
    segment, n_queries, baseline_mean, system_mean, sd, skewness, wins, losses, ties``) and its statistics
    (``stats``, in the units' order): families, BH / Holm (adaptive sign flips drawn here from
    ``flip_units``), Monte-Carlo resolution, flags and warnings."""
    k = units.height
    n_all = units["n_queries"].to_numpy().astype(np.int64)
    ok = n_all >= 2
    ok_idx = np.flatnonzero(ok)
    flips = None
    cols = _family_cols(extras, family_by)
    fam = family_ids(units, cols)
    if flip_units is not None:     # resampling="adaptive": drawn until the family's decisions are certified
        flips = segment_adaptive(*flip_units, fam[ok_idx], correction=correction, level=level,
                                 alternative=alternative, decision_error=decision_error, max_resamples=max_resamples)
        stats = stats.with_tests(ok_idx, flips.pvalue, flips.exact)
    # the kernels settled each p on the unit's non-zero deltas (settle_segment_flips; adaptive: its floors)
    families = _Families(fam)
    pv, exact = stats.pvalue, stats.exact
    p_bh, p_holm, fam_size = families.adjusted(pv)
    adjusted = p_bh if correction == "bh" else p_holm
    # strictly below the level, as compare's verdicts (pairedframe.stats.levels.decision_alpha)
    significant = np.where(np.isnan(adjusted), False, adjusted < level)
    B = max_resamples if adaptive else n_resamples
    nonzero = n_all - units["ties"].to_numpy().astype(np.int64)
    nonzero = np.where(nonzero > 0, nonzero, n_all)     # every delta 0: identical, no floor (as compare)
    exact_bound = np.zeros(k, dtype=bool)
    if test == "randomization":
        min_disc, limited, exact_bound = _resolution(families, pv, exact, nonzero, fam_size, significant,
                                              correction=correction, level=level, alternative=alternative, B=B)
    else:
        min_disc, limited = np.ones(k, dtype=np.int64), np.zeros(k, dtype=bool)
    min_disc = np.where(ok, min_disc, 0)
    limited &= ok
    opt = SegmentOptions(n_resamples, 1.0 - level, alternative, seed, test, interval, correction, adaptive,
                         decision_error, max_resamples)
    out = _result_frame(units, stats, extras=extras, baseline=baseline, test=test, interval=interval,
                        n_resamples=n_resamples, methods=_unit_methods(units, stats, opt), seed=seed, level=level, alternative=alternative,
                        correction=correction,
                        adjusted=(p_bh, p_holm, significant), flags=(fam_size, min_disc, limited),
                        family=family_text(cols, fam_size[~np.isnan(pv)]))
    if adaptive:
        out = out.with_columns(adaptive_columns(flips, k, ok_idx))
        if flips is not None:
            warn_uncertified(flips, max_resamples, "segment comparisons")
    warn_skewed_segments(out["skewness"].to_numpy(), n_all, functools.partial(unit_label, out, extras))
    _warn_small(n_all)
    _warn_resolution(limited, exact | exact_bound, fam_size, min_disc, correction=correction, level=level,
                     name="max_resamples" if adaptive else "n_resamples", B=B)
    return out


def _family_cols(extras: list[str], family_by: Sequence[str] | str | None) -> list[str]:
    """The columns that split the families (default: system, keys, measure and segment set)."""
    return family_columns(family_by, keys=["system", *extras, "measure", "segment_set"],
                          allowed=["system", *extras, "measure", "segment_set", "segment"])


def family_adjusted(rows: pl.DataFrame, pvalue: np.ndarray, *, family_by: Sequence[str] | str | None,
                    extras: Sequence[str] = ()) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """compare_segments' families and adjustment for another segment comparison (``ppi_compare_segments``):
    BH and Holm p-values of ``pvalue`` (NaN left out) within each family of ``rows`` (columns ``system,
    <extras>, measure, segment_set, segment``), each row's family size, and the rule in words."""
    cols = _family_cols(list(extras), family_by)
    p_bh, p_holm, size = _Families(family_ids(rows, cols)).adjusted(pvalue)
    return p_bh, p_holm, size, family_text(cols, size[~np.isnan(pvalue)])


class _Families:
    """The units of each family (one numpy call per family, never per segment)."""

    def __init__(self, fam: np.ndarray) -> None:
        order = np.argsort(fam, kind="stable")
        self.k = fam.shape[0]
        self.members = np.split(order, np.flatnonzero(np.diff(fam[order])) + 1)

    def adjusted(self, pv: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """BH and Holm p-values within each family, and each unit's family size (its non-NaN p-values)."""
        p_bh, p_holm = np.full(self.k, np.nan), np.full(self.k, np.nan)
        fam_size = np.zeros(self.k, dtype=np.int64)
        for sel in self.members:
            p_bh[sel] = benjamini_hochberg(pv[sel])
            p_holm[sel] = holm(pv[sel])
            fam_size[sel] = int(np.count_nonzero(~np.isnan(pv[sel])))
        return p_bh, p_holm, fam_size


def _resolution(families: _Families, pv: np.ndarray, exact: np.ndarray, nonzero: np.ndarray, fam_size: np.ndarray,
                significant: np.ndarray, *, correction: str, level: float, alternative: str, B: int
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Monte-Carlo resolution of the randomization test: ``min_discoveries``, ``resolution_limited``
    (not rejected, and not even at the floor with the family's other p-values as they are) and the
    rows whose floor is set by their few non-zero deltas, not by ``B``.  Rejection is strict
    (adjusted p < level), as ``significant``."""
    # Smallest attainable p of k non-zero deltas (a tie flips to itself): exact 2/2^k two-sided (the
    # observed pattern and its mirror), 1/2^k one-sided; by Monte Carlo 1/(B+1), never below that exact
    # floor it estimates (pairedframe.comparison.verdicts.smallest_pvalue).
    sides = 2.0 if alternative == "two-sided" else 1.0
    exact_floor = np.minimum(1.0, sides * np.exp2(-np.minimum(nonzero, 1000).astype(float)))
    p_floor = np.where(exact, exact_floor, np.maximum(1.0 / (B + 1), exact_floor))
    exact_bound = ~exact & (exact_floor > 1.0 / (B + 1))
    # BH rejects j segments at the floor when p / (j / m) < level (its adjusted p, in the same floats):
    # the least such j is floor(m p / level) + 1 in exact arithmetic; the floats decide among its neighbours
    m = np.maximum(fam_size, 1).astype(np.float64)
    base = np.maximum(np.floor(fam_size * p_floor / level).astype(np.int64) - 1, 1)
    need = base + 3
    for off in (2, 1, 0):
        need = np.where(p_floor / ((base + off) / m) < level, base + off, need)
    # fam_size + 1 (more than the family holds): no number of discoveries suffices; the result shows null
    min_disc = need if correction == "bh" else np.where(fam_size * p_floor >= level, fam_size + 1, 1)
    limited = np.zeros(families.k, dtype=bool)
    for sel in families.members:
        limited[sel] = ~rejected_at_floor(pv[sel], p_floor[sel], level, correction, strict=True)
    return min_disc, limited & ~significant, exact_bound


def _unit_methods(units: pl.DataFrame, stats: SegmentStats, opt: SegmentOptions) -> tuple[list, list]:
    """Each unit's ``method`` and ``n_resamples``, decided as compare's rows' (:func:`row_methods`,
    :func:`row_resamples`): "exact" with the sign patterns enumerated (``2**n``, or ``2**k`` of its ``k``
    non-zero deltas) where the p-value was enumerated and nothing drawn at random, "resampling" with
    ``n_resamples`` where something was drawn, "analytic" with None where nothing was (the t-test and t
    interval, no non-zero delta); both None for a unit of one query (no test)."""
    n = units["n_queries"].to_numpy().astype(np.int64)
    nonzero = n - units["ties"].to_numpy().astype(np.int64)
    flat = (n >= 2) & (units["sd"].to_numpy() == 0)
    method, _ = row_methods(opt, n, one_pass=np.zeros(n.shape, dtype=bool), flat=flat,  # type: ignore[arg-type]
                            nonzero=nonzero > 0, exact=stats.exact)
    used = row_resamples(opt, method, n, nonzero)  # type: ignore[arg-type]
    tested = (n >= 2).tolist()
    return ([m if ok else None for m, ok in zip(method.tolist(), tested)],
            [u if ok else None for u, ok in zip(used, tested)])


def _result_frame(units: pl.DataFrame, stats: SegmentStats, *, extras: list[str],
                  baseline: str, test: str, interval: str, n_resamples: int, methods: tuple[list, list], seed: int,
                  level: float, alternative: str,
                  correction: str, adjusted: tuple[np.ndarray, ...], flags: tuple[np.ndarray, ...],
                  family: str) -> pl.DataFrame:
    """The result's columns, in order; of a unit with a single query only the delta (no interval or
    test); ``family`` the family rule in words (as ppi_compare_segments', units without a p-value left
    out of its sizes), which a unit with a single query says it is left out of."""
    p_bh, p_holm, significant = adjusted
    fam_size, min_disc, limited = flags
    # more than the family holds: null, no number of discoveries suffices
    reachable = pl.Series(min_disc, dtype=pl.Int64).set(pl.Series(min_disc > fam_size), None)
    n_all = units["n_queries"].to_numpy()
    small = n_all < MIN_QUERIES
    warn_text = np.where(n_all < 2, "only 1 paired query: its delta, no interval or p-value",
                         np.where(small, f"fewer than {MIN_QUERIES} paired queries: unreliable interval and p-value",
                                  None))
    # n equal deltas: compare's range-based interval, never a point; then inside the range of a mean delta
    flat = (n_all >= 2) & (units["sd"].to_numpy() == 0)
    means = (units["baseline_mean"].to_numpy(), units["system_mean"].to_numpy())
    low, high = stats.ci_low, stats.ci_high
    capped = np.zeros(n_all.shape[0], dtype=bool)
    # as compare's: the default's cap; 1 - confidence_level with its float noise, as compare tests it
    if interval == "percentile" and too_few_resamples(1.0 - (1.0 - level), n_resamples):
        capped = ~flat & (n_all >= 2)
        with np.errstate(invalid="ignore", divide="ignore"):
            se = units["sd"].to_numpy().astype(float) / np.sqrt(n_all)
        low, high = capped_at_too_few(low, high, np.flatnonzero(capped), delta=stats.delta, se=se, df=n_all - 1.0,
                                      confidence_level=1.0 - level, alternative=alternative)
        note = too_few_capped_text(n_resamples, 1.0 - level)
        warn_text = np.array([_joined(w, note if c else None) for w, c in zip(warn_text.tolist(), capped)], dtype=object)
    low, high, flat_notes = zero_spread_deltas(low, high, measures=units["measure"].to_list(),
                                               delta=stats.delta, n=n_all, flat=flat, confidence_level=1.0 - level,
                                               alternative=alternative, means=means)
    low, high, _ = clip_deltas(low, high, units["measure"], stats.delta, means=means, alternative=alternative)
    stats = stats.replace(ci_low=low, ci_high=high)
    p_used = p_bh if correction == "bh" else p_holm
    warn_text = [_joined(w, _equal_deltas_note(note, stats, p_used, i, test=test, level=level, correction=correction,
                                               n=int(n_all[i])))
                 for i, (w, note) in enumerate(zip(warn_text.tolist(), flat_notes))]
    return units.select(
        "system", *extras, "measure", "segment_set", "segment", pl.lit(baseline).alias("baseline"),
        pl.col("n_queries").cast(pl.Int64), "baseline_mean", "system_mean",
    ).with_columns(
        pl.Series("delta", stats.delta), pl.Series("ci_low", stats.ci_low),
        pl.Series("ci_high", stats.ci_high), pl.Series("se", stats.se),
        pl.Series("pvalue", stats.pvalue), pl.Series("pvalue_bh", p_bh), pl.Series("pvalue_holm", p_holm),
        pl.Series("significant", significant),
        units["wins"].cast(pl.Int64), units["losses"].cast(pl.Int64), units["ties"].cast(pl.Int64),
        units["sd"], units["skewness"].cast(pl.Float64), pl.Series("small_sample", small),
        pl.Series("warning", warn_text, dtype=pl.String),
        pl.Series("family_size", fam_size),
        pl.Series("family", np.where(n_all < 2, untested_family_text(family, "one paired query"), family),
                  dtype=pl.String),
        reachable.alias("min_discoveries"),
        pl.Series("resolution_limited", limited),
        pl.lit(test).alias("test"), pl.lit(interval).alias("interval"),
        pl.Series("n_resamples", methods[1], dtype=pl.Int64),
        pl.Series("exact", stats.exact), pl.Series("method", methods[0], dtype=pl.String),
        pl.lit(int(seed), dtype=pl.UInt64).alias("seed"),
    ).with_columns(pl.when(pl.col("n_queries") >= 2).then(pl.col(c)).otherwise(None).alias(c)
                   for c in ("ci_low", "ci_high", "se", "pvalue", "pvalue_bh", "pvalue_holm", "significant",
                             "min_discoveries"))  # one query: untested, so neither significant nor not


def _equal_deltas_note(note: str | None, stats: SegmentStats, p_used: np.ndarray, i: int, *, test: str, level: float,
                       correction: str, n: int) -> str | None:
    """Unit ``i``'s note when its deltas are all equal (``note``, from the range-based interval it then gets
    instead of ``interval``'s): as compare's ``verdict_note``, with why that interval and the test disagree
    when one excludes 0 and the other does not reject (the interval no longer inverts the test)."""
    if note is None:
        return None
    excludes = bool(stats.ci_low[i] > 0 or stats.ci_high[i] < 0)
    p = float(stats.pvalue[i])
    if math.isnan(p) or (p < level) == excludes:
        return note
    why = zero_spread_disagreement(test, n, "queries", p, f"pvalue_{correction}", float(p_used[i]),
                                   decision="significant")
    return (f"{note}; the interval {'excludes' if excludes else 'includes'} 0 although the raw p "
            f"{'>=' if excludes else '<'} {level:g}: {why}")


def _joined(*parts: str | None) -> str | None:
    """The non-null parts, joined by "; " (None when there is none)."""
    kept = [part for part in parts if part]
    return "; ".join(kept) if kept else None


def _warn_small(n_all: np.ndarray) -> None:
    """One SmallSampleWarning counting the units below MIN_QUERIES paired queries."""
    n_small = int(np.count_nonzero(n_all < MIN_QUERIES))
    if n_small:
        warnings.warn(f"{n_small} of {n_all.shape[0]} segment comparisons have fewer than {MIN_QUERIES} paired "
                      f"queries, the fewest for trusted paired statistics ({int(np.count_nonzero(n_all < 2))} with "
                      "only one); see the 'warning' and 'small_sample' columns",
                      SmallSampleWarning, stacklevel=user_stacklevel())


def _warn_resolution(limited: np.ndarray, exact: np.ndarray, fam_size: np.ndarray, min_disc: np.ndarray, *,
                     correction: str, level: float, name: str, B: int) -> None:
    """Warn once about rows that few queries or few non-zero deltas (``exact``: the floor is the exact
    test's) or too few resamples (Monte Carlo) keep from rejecting."""
    tiny = limited & exact
    if tiny.any():
        warnings.warn(f"{int(np.count_nonzero(tiny))} segment comparisons are not significant and could not be "
                      f"with their few queries: even the most extreme sign pattern (exact p = 2/2^n two-sided, 1/2^n "
                      f"one-sided, n counting the non-zero deltas: a tie flips to itself) would not get below level "
                      f"{level:g} after {correction.upper()} with the other p-values "
                      "of their family; they are flagged in 'resolution_limited'", UserWarning,
                      stacklevel=user_stacklevel())
    limited_mc = limited & ~exact
    if limited_mc.any():
        worst = int(fam_size[limited_mc].max())
        needed = least_resamples(level / worst)      # 1/(B+1) strictly below level / worst
        least, method = int(min_disc[limited_mc].max()), "BH" if correction == "bh" else "Holm"
        what = (f"BH can only reject a segment if at least {least} segments of its family reach that floor"
                if method == "BH" and least <= worst else f"{method} cannot reject any segment")
        warnings.warn(
            f"{name}={B} is too small for {correction.upper()} at level {level:g}: Monte-Carlo "
            f"p-values are >= 1/({name}+1) = {1 / (B + 1):.2g}, and with families of up to "
            f"{worst} segments {what}. Use {name} >= {needed} or test='t' for screening "
            "(see the 'min_discoveries' and 'resolution_limited' columns).", UserWarning,
            stacklevel=user_stacklevel())
