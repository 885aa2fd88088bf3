"""Segment comparisons of per-query tables in DuckDB or Spark, with the counter-based streams in SQL.

:func:`~pairedframe.compare_segments` on a DuckDB relation or a Spark DataFrame runs here. Every
statistic of a unit (system, keys, measure, segment set, segment) is an aggregate in the engine:

- every test: the per-unit count, mean, variance and the second and third central moments (summed
  about the unit's mean, two passes as in numpy) in SQL, whence the skewness column;
- ``test="t"`` (screening thousands of segments): the t tail and BH/Holm on the small result
  (:func:`pairedframe.stats.ttest.t_test_from_moments`);
- the percentile bootstrap and the sign-flip test draw from the counter-based streams documented
  in :mod:`pairedframe.comparison.segments`, evaluated by the engine: a table of the 32-bit row
  seeds ``r(b)`` of each segment (``B`` rows per segment, computed here), and for each query
  position ``i`` of a unit the word ``u = lowbias32(r(b) + (i + 1) * 0x9E3779B9)`` in 64-bit integer
  SQL (the 32-bit products split so that no intermediate exceeds 2**63). The bootstrap takes
  position ``floor(u * n / 2**32)`` (as doubles, as numpy does), the sign flip negates when
  ``u >> 31`` is 1 (bit ``i`` of ``b`` when all ``2**n`` patterns are enumerated); a unit whose ``k``
  non-zero deltas have ``2**k <= B`` gets the exact p of those (fetched: at most ``log2(B)`` per unit),
  as in memory (:func:`~pairedframe.comparison.segment_tables.settle_segment_flips`).

So the engine computes the very resamples of the numpy path; quantiles (type 7), standard
deviations and sums run in its own order, so results agree to ~1e-15, not bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import polars as pl
import pyarrow as pa

from pairedframe.comparison.by_join import not_in_engine
from pairedframe.comparison.pairing import wins_in_measure_direction
from pairedframe.comparison.engine_pairing import Paired, pair_in_engine, warn_unpaired
from pairedframe.comparison.engine_tables import NUMERIC_TYPES, EngineTable, is_spark_dataframe
from pairedframe.comparison.options import SegmentOptions
from pairedframe.comparison.segment_stats import SegmentStats
from pairedframe.comparison.segment_tables import (as_segments, check_segments_cost, no_segment_query, null_segment_error,
                                                   require_two_queries, segments_table, settle_segment_flips,
                                                   warn_unmatched_segment_ids)
from pairedframe.comparison.streams import row_seeds, segment_keys
from pairedframe.checks import warn_numeric_ids
from pairedframe.errors import DuplicateError, SchemaError
from pairedframe.stats.randomization import TIE_RTOL
from pairedframe.stats.signflip_interval import inverted_interval_units
from pairedframe.stats.skewness import skewness_from_moments
from pairedframe.stats.studentized import ZERO_SPREAD_RTOL
from pairedframe.stats.ttest import t_test_from_moments

__all__ = ["compare_segments_by_join"]

_MASK = 0xFFFFFFFF


def _segments(table: EngineTable, segments: Any) -> str:
    """The segment table, validated, as a table in the engine (``qid, segment_set, segment``)."""
    name = table.name("segs")
    if is_spark_dataframe(segments) and table.dialect == "spark":
        missing = [c for c in ("qid", "segment_set", "segment") if c not in segments.columns]
        if missing:
            raise SchemaError(f"segment table lacks column(s) {missing}; needs qid, segment_set, segment "
                              f"(has {segments.columns})")
        qid_type = dict(segments.dtypes)["qid"]
        if qid_type.startswith(("double", "float")):
            raise SchemaError(f"id column(s) ['qid ({qid_type})'] of the segment table hold floats: ids are strings")
        types = dict(segments.dtypes)   # integer segment ids warn as in memory (as_segments)
        warn_numeric_ids(["qid"] if qid_type.startswith(NUMERIC_TYPES) else [], "the segment table")
        warn_numeric_ids([c for c in ("segment_set", "segment") if types[c] in ("tinyint", "smallint", "int", "bigint")],
                         "the segment table")
        view = table.name("segs_in")
        segments.createOrReplaceTempView(view)
        table._made.append(view)
        table.create(name, f"SELECT CAST(qid AS STRING) AS qid, CAST(segment_set AS STRING) AS segment_set, "
                           f"CAST(segment AS STRING) AS segment FROM {view}")
        columns = ("qid", "segment_set", "segment")
        counts = table.collect("SELECT " + ", ".join(f"sum(CASE WHEN {c} IS NULL THEN 1 ELSE 0 END) AS {c}"
                                                     for c in columns) + f" FROM {name}").row(0, named=True)
        nulls = [c for c in columns if counts[c]]
        if nulls:   # a Spark table's rows have no order: one such row, not the first
            bad = table.collect(f"SELECT * FROM {name} WHERE {' OR '.join(f'{c} IS NULL' for c in nulls)} LIMIT 1")
            raise null_segment_error(nulls, bad.row(0, named=True), None)
        dup = table.collect(f"SELECT qid, segment_set, segment FROM {name} GROUP BY qid, segment_set, segment "
                            f"HAVING count(*) > 1 LIMIT 1")
        if dup.height:
            row = dup.row(0, named=True)
            raise DuplicateError(f"segment table repeats (qid, segment_set, segment) = "
                                 f"({row['qid']!r}, {row['segment_set']!r}, {row['segment']!r})")
        return name
    if is_spark_dataframe(segments):
        segments = pl.from_arrow(segments.toArrow())
    table.register(name, as_segments(segments).to_arrow())
    return name


def _mix32(t: EngineTable, x: str) -> str:
    """lowbias32 of a 32-bit value held in a BIGINT, in BIGINT arithmetic (no product above 2**63)."""
    x = f"({t.xor(x, t.shift_right(x, 16))})"
    x = f"(({x} * 2146121005) & {_MASK})"                                     # * 0x7FEB352D (< 2**31)
    x = f"({t.xor(x, t.shift_right(x, 15))})"
    hi, lo = 0x846C, 0xA68B                                                      # 0x846CA68B split
    x = f"(({x} * {lo} + ((({x} * {hi}) & 65535) * 65536)) & {_MASK})"
    return f"({t.xor(x, t.shift_right(x, 16))})"


def compare_segments_by_join(table: EngineTable, segments: Any, opt: SegmentOptions, *, baseline: str,
                             measures: Sequence[str] | str | None, systems: Sequence[str] | str | None,
                             family_by: Sequence[str] | str | None) -> pl.DataFrame:
    """:func:`~pairedframe.compare_segments` of a per-query table in an engine (``opt`` checked)."""
    try:
        not_in_engine(adaptive=opt.adaptive)
        paired = pair_in_engine(table, baseline, systems, measures)
        warn_unpaired(paired, baseline)       # the units' moments are per segment: one count of its own
        clash = [c for c in ("segment_set", "segment") if c in paired.extras]
        if clash:
            raise SchemaError(f"per-query table already has column(s) {clash}; rename them")
        units_sql, moments = _unit_moments(table, paired, _segments(table, segments))
        units = _units(moments, paired)
        require_two_queries(units["n_queries"].to_numpy())
        stats = _unit_statistics(opt, table, units_sql, units)
        units = units.drop("dmin", "dmax", "mean_abs", "max_abs", "ss", "s3", "_flat", "delta", "_row")
        return segments_table(units, stats, extras=paired.extras, baseline=baseline, test=opt.test,
                              interval=opt.interval, correction=opt.correction, level=opt.level,
                              family_by=family_by, n_resamples=opt.n_resamples, alternative=opt.alternative,
                              seed=opt.seed)
    finally:
        table.close()


def _unit_moments(t: EngineTable, paired: Paired, segs: str) -> tuple[str, pl.DataFrame]:
    """The engine table of every unit's deltas (position ``i`` in qid order, size ``n``, mean ``mu``) and
    the units' moments; refuses a call where no paired query is in a segment, warns about empty segments."""
    units_sql = t.name("units")
    t.create(units_sql, f"SELECT p.comp, s.segment_set, s.segment, p.qid, p.a, p.b, p.delta, "
                        f"row_number() OVER (PARTITION BY p.comp, s.segment_set, s.segment ORDER BY p.qid) - 1 AS i, "
                        f"count(*) OVER (PARTITION BY p.comp, s.segment_set, s.segment) AS n, "
                        f"avg(p.delta) OVER (PARTITION BY p.comp, s.segment_set, s.segment) AS mu "
                        f"FROM {paired.pairs} p JOIN {segs} s ON p.qid = s.qid")
    moments = t.collect(
        f"SELECT comp, segment_set, segment, count(*) AS n_queries, avg(a) AS baseline_mean, "
        f"avg(b) AS system_mean, avg(delta) AS delta, stddev_samp(delta) AS sd, min(delta) AS dmin, "
        f"max(delta) AS dmax, avg(abs(delta)) AS mean_abs, max(abs(delta)) AS max_abs, "
        f"sum((delta - mu) * (delta - mu)) AS ss, sum((delta - mu) * (delta - mu) * (delta - mu)) AS s3, "
        f"CAST(sum(CASE WHEN delta > 0 THEN 1 ELSE 0 END) AS BIGINT) AS wins, "
        f"CAST(sum(CASE WHEN delta < 0 THEN 1 ELSE 0 END) AS BIGINT) AS losses, "
        f"CAST(sum(CASE WHEN delta = 0 THEN 1 ELSE 0 END) AS BIGINT) AS ties "
        f"FROM {units_sql} GROUP BY comp, segment_set, segment")
    # sorted: DISTINCT's order varies from run to run, and the messages quote the first few ids
    own = t.collect(f"SELECT DISTINCT qid FROM {paired.pairs} ORDER BY qid")["qid"].to_list()
    theirs = t.collect(f"SELECT DISTINCT qid FROM {segs} ORDER BY qid")["qid"].to_list()
    if moments.height == 0:
        raise no_segment_query(own, theirs)
    every = t.collect(f"SELECT DISTINCT segment_set, segment FROM {segs}").sort("segment_set", "segment")
    warn_unmatched_segment_ids(own, theirs, list(every.iter_rows()),
                               set(moments.select("segment_set", "segment").unique().iter_rows()))
    return units_sql, moments


def _units(moments: pl.DataFrame, paired: Paired) -> pl.DataFrame:
    """One row per unit, keyed and sorted as in memory, with its sd (0 at zero spread), skewness and wins
    in the measure's direction."""
    # zero spread (max - min <= 1e-12 max|d|) as the paired t-test rule: sd 0, no certainty from noise
    units = (moments.rename({"comp": "_row"}).with_columns(pl.col("_row").cast(pl.UInt32))
             .join(paired.rows, on="_row", how="left").sort("_row", "segment_set", "segment")
             .with_columns(((pl.col("dmax") - pl.col("dmin")) <= ZERO_SPREAD_RTOL * pl.col("max_abs"))
                           .alias("_flat"))
             .with_columns(pl.when(pl.col("n_queries") < 2).then(float("nan"))
                           .when(pl.col("_flat")).then(0.0).otherwise(pl.col("sd")).alias("sd")))
    n_q = units["n_queries"].to_numpy().astype(np.float64)   # two-pass moments, as numpy: skewness
    return wins_in_measure_direction(units.with_columns(pl.Series("skewness", skewness_from_moments(
        units["ss"].to_numpy().astype(np.float64) / n_q, units["s3"].to_numpy().astype(np.float64) / n_q, n_q,
        units["_flat"].to_numpy()))))


def _unit_statistics(opt: SegmentOptions, t: EngineTable, units_sql: str, units: pl.DataFrame) -> SegmentStats:
    """The statistics of every unit (below 2 queries only the delta, the rest NaN), as in memory."""
    n_all = units["n_queries"].to_numpy().astype(np.int64)
    ok = n_all >= 2
    where = np.flatnonzero(ok)
    delta = units["delta"].to_numpy().astype(float)
    constant = (units["dmin"] == units["dmax"]).to_numpy()
    interval = tested = None
    if opt.test == "t" or opt.interval == "t":
        tt = t_test_from_moments(delta[ok], units["sd"].to_numpy()[ok], n_all[ok].astype(float),
                                 units["_flat"].to_numpy()[ok], opt.alternative, opt.confidence_level)
        if opt.test == "t":
            tested = (tt["pvalue"], None)
        if opt.interval == "t":
            interval = (tt["ci_low"], tt["ci_high"], tt["se"])
    boot, flip, invert = opt.interval == "percentile", opt.test == "randomization", opt.interval == "signflip"
    check_segments_cost(opt.n_resamples, n_all, bootstrap=boot, sign_flip=flip, invert=invert)
    if (boot or flip or invert) and ok.any():
        got_boot, got_flips = _resampled(t, units_sql, units.filter(pl.Series(ok)), n_resamples=opt.n_resamples,
                                         confidence_level=opt.confidence_level, alternative=opt.alternative,
                                         seed=opt.seed, bootstrap=boot, sign_flip=flip or invert, invert=invert)
        if invert:     # as compare_segments: the shifts the segment's own patterns do not reject
            interval = (*got_flips.interval, units["sd"].to_numpy()[ok] / np.sqrt(n_all[ok]))
        if flip or invert:   # (test="t" with a percentile interval draws no sign flips)
            # few non-zero deltas: exact over them, the interval agreeing, as in memory (settle_segment_flips)
            nonzero = (n_all - units["ties"].to_numpy().astype(np.int64))[ok]
            pvalue, exact, settled_interval = settle_segment_flips(
                got_flips.pvalue, got_flips.exact, nonzero, delta[ok], interval if invert else None,
                n_resamples=opt.n_resamples, alternative=opt.alternative, confidence_level=opt.confidence_level,
                fetch_nonzero=lambda which: _nonzero_deltas(t, units_sql, units.filter(pl.Series(ok))[which]))
            got_flips = got_flips._replace(pvalue=pvalue, exact=exact)
            interval = settled_interval if invert else interval
        if boot:
            low, high, se = got_boot
            c_ok = constant[ok]
            interval = (np.where(c_ok & np.isfinite(low), delta[ok], low),
                        np.where(c_ok & np.isfinite(high), delta[ok], high), np.where(c_ok, 0.0, se))
        if flip:
            tested = (got_flips.pvalue, got_flips.exact)
    pvalue, exact = tested if tested is not None else (None, None)
    return SegmentStats.of_units(units.height, where, delta=delta[ok], interval=interval, pvalue=pvalue,
                                 exact=exact).with_single_queries(np.flatnonzero(~ok), delta[~ok])


def _nonzero_deltas(t: EngineTable, units_sql: str, units: pl.DataFrame) -> list[np.ndarray]:
    """The non-zero deltas of each of ``units`` (rows of the unit table), in one query: only units whose
    ``2**k`` patterns of them are enumerated come here, so each has at most ``log2(n_resamples)``."""
    wanted = t.name("settle")
    t.register(wanted, units.select(pl.col("_row").cast(pl.Int64).alias("comp"), "segment_set", "segment",
                                    pl.int_range(pl.len(), dtype=pl.Int64).alias("_unit")).to_arrow())
    got = t.collect(f"SELECT w._unit, u.delta FROM {units_sql} u JOIN {wanted} w ON u.comp = w.comp "
                    f"AND u.segment_set = w.segment_set AND u.segment = w.segment WHERE u.delta <> 0 "
                    f"ORDER BY w._unit, u.i")
    t.drop(wanted)
    unit, delta = got["_unit"].to_numpy(), got["delta"].to_numpy().astype(np.float64)
    cuts = np.searchsorted(unit, np.arange(units.height + 1))
    return [delta[cuts[j]:cuts[j + 1]] for j in range(units.height)]


class _SignFlips(NamedTuple):
    """Per unit (n >= 2): the sign-flip ``pvalue``, ``exact`` (bool, every pattern enumerated) and, with
    ``invert``, the ``interval`` (``ci_low, ci_high``) inverting the test (else None)."""

    pvalue: np.ndarray
    exact: np.ndarray
    interval: tuple[np.ndarray, np.ndarray] | None


_ON = "u.segment_set = s.segment_set AND u.segment = s.segment"
_UNIT = ["comp", "segment_set", "segment"]


def _seed_table(t: EngineTable, units: pl.DataFrame, seed: int, B: int) -> str:
    """The engine table of every segment's row seeds (``segment_set, segment, resample, rb, rf``)."""
    distinct = units.select("segment_set", "segment").unique(maintain_order=True)
    keys = np.array([segment_keys(seed, s, g) for s, g in distinct.iter_rows()], dtype=np.uint64).reshape(-1, 2)
    rows = np.arange(B)
    boot_seeds = row_seeds(keys[:, 0], rows).astype(np.int64)     # (B, S)
    flip_seeds = row_seeds(keys[:, 1], rows).astype(np.int64)
    S = distinct.height
    seeds = t.name("seeds")
    t.register(seeds, pa.table({
        "segment_set": pa.array(np.repeat(distinct["segment_set"].to_numpy(), B), pa.string()),
        "segment": pa.array(np.repeat(distinct["segment"].to_numpy(), B), pa.string()),
        "resample": pa.array(np.tile(rows, S)), "rb": pa.array(boot_seeds.T.ravel()),
        "rf": pa.array(flip_seeds.T.ravel())}))
    return seeds


def _resampled(t: EngineTable, units_sql: str, units: pl.DataFrame, *, n_resamples: int, confidence_level: float,
               alternative: str, seed: int, bootstrap: bool, sign_flip: bool,
               invert: bool = False) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray] | None, _SignFlips | None]:
    """Percentile interval and bootstrap SE (``ci_low, ci_high, se``; None without ``bootstrap``) and the
    sign flips (None without ``sign_flip``) of each unit (rows of ``units``, n >= 2);
    with ``invert`` the interval inverting the sign-flip test instead (each pattern's null
    statistic and flip count, B rows per unit, go to
    :func:`pairedframe.stats.signflip_interval.inverted_interval_units`, as in memory)."""
    B = int(n_resamples)
    seeds = _seed_table(t, units, seed, B)
    order = units.select(pl.col("_row").cast(pl.Int64).alias("comp"), "segment_set", "segment")
    boot = _bootstrap(t, units_sql, seeds, order, confidence_level, alternative) if bootstrap else None
    flips = (_sign_flips(t, units_sql, seeds, order, units, B, confidence_level, alternative, invert)
             if sign_flip else None)
    return boot, flips


def _bootstrap(t: EngineTable, units_sql: str, seeds: str, order: pl.DataFrame, confidence_level: float,
               alternative: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval and bootstrap SE of each unit (``ci_low, ci_high, se``), the resampled means
    computed as a join."""
    a_tail = (1 - confidence_level) / 2 if alternative == "two-sided" else 1 - confidence_level
    same_unit = "d.comp = x.comp AND d.segment_set = x.segment_set AND d.segment = x.segment"
    word = _mix32(t, f"((s.rb + (u.i + 1) * {0x9E3779B9}) & {_MASK})")
    theta = t.name("theta")
    t.create(theta, f"SELECT x.comp, x.segment_set, x.segment, x.resample, sum(d.delta) / max(x.n) AS theta "
                    f"FROM (SELECT u.comp, u.segment_set, u.segment, u.n, s.resample, "
                    f"CAST(floor(CAST({word} AS DOUBLE) * (CAST(u.n AS DOUBLE) / 4294967296.0)) AS BIGINT) AS j "
                    f"FROM {units_sql} u JOIN {seeds} s ON {_ON} WHERE u.n >= 2) x "
                    f"JOIN {units_sql} d ON {same_unit} AND d.i = x.j "
                    f"GROUP BY x.comp, x.segment_set, x.segment, x.resample")
    got = t.collect(f"SELECT comp, segment_set, segment, {t.quantile('theta', a_tail)} AS lo, "
                    f"{t.quantile('theta', 1 - a_tail)} AS hi, stddev_samp(theta) AS se "
                    f"FROM {theta} GROUP BY comp, segment_set, segment")
    got = order.join(got, on=_UNIT, how="left", maintain_order="left")
    low, high = got["lo"].to_numpy().astype(float), got["hi"].to_numpy().astype(float)
    if alternative == "less":
        low = np.full_like(low, -np.inf)
    elif alternative == "greater":
        high = np.full_like(high, np.inf)
    t.drop(theta)
    return low, high, got["se"].to_numpy().astype(float)


def _sign_flips(t: EngineTable, units_sql: str, seeds: str, order: pl.DataFrame, units: pl.DataFrame, B: int,
                confidence_level: float, alternative: str, invert: bool) -> _SignFlips:
    """Sign-flip p-value and exactness of each unit (with ``invert`` also the interval inverting the test),
    each pattern's null statistic computed as a join."""
    word = _mix32(t, f"((s.rf + (u.i + 1) * {0x9E3779B9}) & {_MASK})")
    two_to_n = t.shift_right("4611686018427387904", "62 - least(u.n, 62)")    # 2**n for n <= 62
    exact_unit = f"(u.n < 63 AND {two_to_n} <= {B})"
    bit = (f"CASE WHEN {exact_unit} THEN ({t.shift_right('s.resample', 'least(u.i, 62)')} & 1) "
           f"ELSE {t.shift_right(word, 31)} END")
    patterns = f"CASE WHEN {exact_unit} THEN {two_to_n} ELSE {B} END"
    null = t.name("null")
    t.create(null, f"SELECT u.comp, u.segment_set, u.segment, s.resample, "
                   f"sum(CASE WHEN {bit} = 1 THEN -u.delta ELSE u.delta END) / max(u.n) AS t, "
                   f"CAST(sum({bit}) AS BIGINT) AS flips, "
                   f"max({patterns}) AS m, max(CASE WHEN {exact_unit} THEN 1 ELSE 0 END) AS exact "
                   f"FROM {units_sql} u JOIN {seeds} s ON {_ON} WHERE u.n >= 2 "
                   f"GROUP BY u.comp, u.segment_set, u.segment, s.resample")
    stat = t.name("stat")
    t.register(stat, units.select(pl.col("_row").cast(pl.Int64).alias("comp"), "segment_set", "segment",
                                  "delta", "mean_abs").to_arrow())
    gamma = f"{float(TIE_RTOL)!r} * greatest(abs(o.delta), o.mean_abs)"
    extreme = {"two-sided": f"abs(x.t) >= abs(o.delta) - {gamma}", "greater": f"x.t >= o.delta - {gamma}",
               "less": f"x.t <= o.delta + {gamma}"}[alternative]
    got = t.collect(f"SELECT x.comp, x.segment_set, x.segment, max(x.m) AS m, max(x.exact) AS exact, "
                    f"CAST(sum(CASE WHEN x.resample < x.m AND {extreme} THEN 1 ELSE 0 END) AS BIGINT) AS b "
                    f"FROM {null} x JOIN {stat} o ON x.comp = o.comp AND x.segment_set = o.segment_set "
                    f"AND x.segment = o.segment GROUP BY x.comp, x.segment_set, x.segment")
    got = order.join(got, on=_UNIT, how="left", maintain_order="left")
    b, m = got["b"].to_numpy().astype(float), got["m"].to_numpy().astype(float)
    is_exact = got["exact"].to_numpy().astype(bool)
    interval = (_inverted(t, null, order, units, B, m, is_exact, confidence_level, alternative) if invert
                else None)
    t.drop(null)
    return _SignFlips(np.minimum(np.where(is_exact, b / m, (b + 1) / (B + 1)), 1.0), is_exact, interval)


def _inverted(t: EngineTable, null: str, order: pl.DataFrame, units: pl.DataFrame, B: int, m: np.ndarray,
              is_exact: np.ndarray, confidence_level: float, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """The interval inverting each unit's sign-flip test, from every pattern's null statistic and flip count."""
    every = t.collect(f"SELECT comp, segment_set, segment, resample, t, flips FROM {null}")
    every = every.join(order.with_row_index("_unit"), on=_UNIT)
    cell = every["resample"].to_numpy() * order.height + every["_unit"].to_numpy().astype(np.int64)
    null_all = np.empty(B * order.height)
    flips_all = np.empty(B * order.height, dtype=np.int64)
    null_all[cell], flips_all[cell] = every["t"].to_numpy(), every["flips"].to_numpy()
    own = order.join(units.select(pl.col("_row").cast(pl.Int64).alias("comp"), "segment_set", "segment",
                                  "delta", "mean_abs", "n_queries"), on=_UNIT, how="left", maintain_order="left")
    observed = own["delta"].to_numpy().astype(float)
    gamma = TIE_RTOL * np.maximum(np.abs(observed), own["mean_abs"].to_numpy().astype(float))
    return inverted_interval_units(null_all.reshape(B, order.height), flips_all.reshape(B, order.height),
                                   own["n_queries"].to_numpy().astype(float), observed, gamma, m, is_exact,
                                   confidence_level, alternative)
