"""The bootstrap as a join: comparisons of per-query tables that live in DuckDB or Spark.

:func:`~pairedframe.compare` (and :func:`~pairedframe.compare_clustered`,
:func:`~pairedframe.compare_segments`) given a DuckDB relation or a Spark DataFrame run here: the
pairing, the per-comparison moments and every resampled statistic are SQL on the engine, and only
small tables travel (the comparisons, each distinct query set's ids, the resample index, and one
row per (comparison, resample) back). The same SQL text runs on both engines
(:mod:`pairedframe.comparison.engine_tables`).

The resamples are those of :func:`~pairedframe.resample_index` -- the numpy path's keyed streams --
joined on the query's position in its query set. For every comparison ``c`` and resample ``r``
the engine returns ``s1 = sum(w * delta)``, ``s2 = sum(w * delta**2)`` and ``w = sum(w)`` with ``w`` the
count (bootstrap) or the sign (sign-flip), from which the resampled means (``s1 / w``; the cluster
bootstrap's ratio), studentized statistics or sign-flip null statistics (``s1 / n``) follow. The
intervals, standard errors and p-values are then computed by the same numpy rules as the in-memory
path. The sums run in the engine's order, not numpy's, so results agree to ~1e-15 relative
(tested <= 1e-12), not bit for bit; Monte-Carlo counts agree exactly unless a resampled statistic
falls within rounding of the observed one outside the tie tolerance.

Not covered: ``interval="bca"`` (it needs a jackknife over the data).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa

from pairedframe.comparison.engine_tables import EngineTable
from pairedframe.comparison.paired import (
    DELTA_TOLERANCE,
    SUMMARY_QID,
    _check_options,
    _check_sizes,
    _choose_comparisons,
    _finish_table,
    _Options,
    _VERDICT_ON,
)
from pairedframe.comparison.resample_index import ResampleIndex, resample_index
from pairedframe.comparison.segments import _t_stats
from pairedframe.errors import DuplicateError, InsufficientSampleError, SchemaError, user_stacklevel
from pairedframe.stats.bootstrap import _interval_from_probs
from pairedframe.stats.power import minimum_detectable_effect
from pairedframe.stats.randomization import TIE_RTOL, _count_extreme

__all__ = ["compare_by_join", "Paired", "pair_in_engine", "resampled_sums"]

_NUMERIC = ("double", "float", "real", "int", "bigint", "smallint", "tinyint", "hugeint", "decimal", "long",
            "short", "byte", "ubigint", "uinteger", "usmallint", "utinyint", "numeric")
BASE = ("system", "qid", "measure", "value")


@dataclass
class Paired:
    """The paired deltas of every comparison, as a table ``pairs`` (``comp, qid, a, b, delta``) in
    the engine, and ``rows`` (polars: ``_row, system, <keys>, measure``) describing each ``comp``."""

    table: EngineTable
    pairs: str
    rows: pl.DataFrame
    extras: list[str]


def _frame(rows: list[tuple], names: Sequence[str]) -> pa.Table:
    return pl.DataFrame(rows, schema=list(names), orient="row").to_arrow()


def pair_in_engine(table: EngineTable, baseline: str, systems: Sequence[str] | str | None,
                   measures: Sequence[str] | str | None, *, extra_keys: Sequence[str] = (),
                   source: str | None = None, columns: Sequence[str] | None = None) -> Paired:
    """Validate the user's per-query table and pair every system with ``baseline``, in the engine.

    Same rules and messages as the polars path (:func:`pairedframe.comparison.paired._pair`): null
    values are 'not measured', ``qid == "all"`` rows are dropped with a warning, non-finite values and
    repeated keys are errors, systems and measures default to their order of first appearance.
    ``extra_keys`` are columns carried into ``pairs`` but not comparison keys (the cluster); ``source``
    and ``columns`` name a table made from the user's (default: the user's table itself).
    """
    q = table.quote
    types = table.column_types()
    source = table.source if source is None else source
    columns = table.columns if columns is None else list(columns)
    missing = [c for c in BASE if c not in columns]
    if missing:
        raise SchemaError(f"per-query table lacks column(s) {missing}; needs system, qid, measure, value "
                          f"(has {columns})")
    if not types["value"].lower().startswith(_NUMERIC):
        raise SchemaError(f"column 'value' must be numeric, got {types['value']}")
    extras = [c for c in columns if c not in BASE and c not in extra_keys]
    keep = [*extras, *extra_keys]
    pq = table.name("pq")
    cols = ", ".join(q(c) for c in keep)
    table.create(pq, f"SELECT CAST(system AS STRING) AS system, CAST(qid AS STRING) AS qid, "
                     f"CAST(measure AS STRING) AS measure, {cols + ', ' if cols else ''}"
                     f"CAST(value AS DOUBLE) AS value, {table.row_order()} AS pf_row "
                     f"FROM {source} WHERE value IS NOT NULL")
    checks = table.collect(f"SELECT CAST(sum(CASE WHEN qid = '{SUMMARY_QID}' THEN 1 ELSE 0 END) AS BIGINT) AS summary, "
                           f"CAST(sum(CASE WHEN qid <> '{SUMMARY_QID}' AND NOT (value - value = 0) THEN 1 ELSE 0 END) AS BIGINT) "
                           f"AS nonfinite FROM {pq}").row(0, named=True)
    if checks["summary"]:
        warnings.warn(f"dropped {checks['summary']} summary rows with qid == {SUMMARY_QID!r} (trec_eval's 'all' "
                      f"rows are means over queries, not a query)", UserWarning, stacklevel=user_stacklevel())
    if checks["nonfinite"]:
        raise ValueError("per-query values must be finite (NaN/inf found); drop or fix those rows "
                         "(null values are treated as 'not measured')")
    keys = ["system", *keep, "measure", "qid"]
    key_sql = ", ".join(q(c) for c in keys)
    dup = table.collect(f"SELECT {key_sql}, count(*) AS n, min(pf_row) AS first FROM {pq} "
                        f"WHERE qid <> '{SUMMARY_QID}' GROUP BY {key_sql} HAVING count(*) > 1")
    if dup.height:
        example = dup.sort("first").row(0, named=True)
        raise DuplicateError(f"per-query table has {int(dup['n'].sum())} rows with a repeated key {keys}, "
                             f"e.g. { {k: example[k] for k in keys} }")
    order = table.collect(f"SELECT system, measure, min(pf_row) AS first FROM {pq} "
                          f"WHERE qid <> '{SUMMARY_QID}' GROUP BY system, measure")
    def in_order(column: str) -> list[str]:
        return order.group_by(column).agg(pl.col("first").min()).sort("first")[column].to_list()

    systems, measures = _choose_comparisons(in_order("system"), in_order("measure"), baseline, systems, measures)
    present = set(order.filter(pl.col("system").is_in(systems)).select("system", "measure").iter_rows()) & {
        (s, m) for m in order.filter(pl.col("system") == baseline)["measure"].to_list() for s in systems}
    absent = [(s, m) for s in systems for m in measures if (s, m) not in present]
    if absent:
        raise InsufficientSampleError(
            f"no values to pair for (system, measure) {absent[:5]}{' ...' if len(absent) > 5 else ''}: the "
            f"system or the baseline {baseline!r} has no rows of that measure; pass measures=/systems= to "
            f"choose what to compare")
    chosen = table.name("chosen")
    table.register(chosen, _frame([(s, m) for s in systems for m in measures], ["system", "measure"]))
    group = ", ".join("p." + q(c) for c in ["system", *extras, "measure"])
    found = table.collect(f"SELECT {group}, min(p.pf_row) AS first FROM {pq} p JOIN {chosen} c "
                          f"ON p.system = c.system AND p.measure = c.measure GROUP BY {group}")
    sys_order = {s: i for i, s in enumerate(systems)}
    meas_order = {m: i for i, m in enumerate(measures)}
    rows = (found.with_columns(pl.col("system").replace_strict(sys_order, return_dtype=pl.Int64).alias("_s"),
                               pl.col("measure").replace_strict(meas_order, return_dtype=pl.Int64).alias("_m"))
            .sort("_s", "_m", "first").drop("_s", "_m", "first").with_row_index("_row"))
    comps = table.name("comps")
    table.register(comps, rows.rename({"_row": "comp"}).with_columns(pl.col("comp").cast(pl.Int64))
                   .with_columns(pl.lit(baseline).alias("pf_baseline")).to_arrow())
    same = "".join(f" AND b.{q(c)} = c.{q(c)}" for c in extras)
    same_ab = "".join(f" AND a.{q(c)} = b.{q(c)}" for c in keep)
    pairs = table.name("pairs")
    raw = "b.value - a.value"
    table.create(pairs, f"SELECT c.comp, b.qid, {', '.join('b.' + q(c) + ', ' for c in extra_keys)}"
                        f"a.value AS a, b.value AS b, "
                        f"CASE WHEN abs({raw}) <= {DELTA_TOLERANCE!r} * greatest(1.0, abs(a.value), abs(b.value)) "
                        f"THEN 0.0 ELSE {raw} END AS delta "
                        f"FROM {pq} b JOIN {comps} c ON b.system = c.system AND b.measure = c.measure{same} "
                        f"JOIN {pq} a ON a.system = c.pf_baseline AND a.measure = b.measure AND a.qid = b.qid{same_ab} "
                        f"WHERE b.qid <> '{SUMMARY_QID}'")
    return Paired(table=table, pairs=pairs, rows=rows.select("_row", "system", *extras, "measure"), extras=extras)


def comparison_moments(paired: Paired, by: Sequence[str] = (), fingerprint: str = "qid") -> pl.DataFrame:
    """One row per ``comp`` (and ``by`` columns of ``pairs``): n_queries, means, wins/losses/ties,
    delta, sd (ddof=1), dmin/dmax, mean |delta| and a fingerprint of the query set (of the
    ``fingerprint`` expression's values)."""
    t = paired.table
    keys = ", ".join(["comp", *(t.quote(c) for c in by)])
    return t.collect(
        f"SELECT {keys}, count(*) AS n_queries, avg(a) AS baseline_mean, avg(b) AS system_mean, "
        f"avg(delta) AS delta, stddev_samp(delta) AS sd, min(delta) AS dmin, max(delta) AS dmax, "
        f"avg(abs(delta)) AS mean_abs, CAST(sum(CASE WHEN delta > 0 THEN 1 ELSE 0 END) AS BIGINT) AS wins, "
        f"CAST(sum(CASE WHEN delta < 0 THEN 1 ELSE 0 END) AS BIGINT) AS losses, CAST(sum(CASE WHEN delta = 0 THEN 1 ELSE 0 END) AS BIGINT) AS ties, "
        f"min(qid) AS qmin, max(qid) AS qmax, {t.hash_sum(fingerprint)} AS qhash "
        f"FROM {paired.pairs} GROUP BY {keys}")


def query_set_groups(paired: Paired, moments: pl.DataFrame, match: Sequence[str] = ("qid",)
                     ) -> list[tuple[list[int], pl.DataFrame]]:
    """Comparisons with the same query set (each group: its comps, and the ``match`` columns of its
    queries in code-point order of qid; ``match = ("qid", "cluster")`` also asks for the same clusters).

    Grouped by a fingerprint (size, smallest and largest qid, sum of 64-bit hashes), then checked in
    the engine: every member must share all its ``match`` rows with the group's first comparison."""
    t = paired.table
    cols = ", ".join(match)

    def members(comp: int) -> pl.DataFrame:
        return t.collect(f"SELECT {cols} FROM {paired.pairs} WHERE comp = {comp}").sort("qid")

    groups: list[tuple[list[int], pl.DataFrame]] = []
    for _, grp in moments.group_by(["n_queries", "qmin", "qmax", "qhash"], maintain_order=True):
        comps = sorted(grp["comp"].to_list())
        rep = members(comps[0])
        if len(comps) > 1:
            on = " AND ".join(f"p.{c} = r.{c}" for c in match)
            shared = t.collect(f"SELECT p.comp, count(*) AS n FROM {paired.pairs} p JOIN "
                               f"(SELECT {cols} FROM {paired.pairs} WHERE comp = {comps[0]}) r ON {on} "
                               f"WHERE p.comp IN ({', '.join(map(str, comps))}) GROUP BY p.comp")
            same = set(shared.filter(pl.col("n") == rep.height)["comp"].to_list())
            for c in [c for c in comps if c not in same]:  # a fingerprint collision: its own group
                comps.remove(c)
                groups.append(([c], members(c)))
        groups.append((comps, rep))
    return groups


def wide_deltas(paired: Paired, comps: list[int], qids: Sequence[str]) -> str:
    """A table ``pos, d0, d1, ...``: the deltas of ``comps`` (same query set) by query position."""
    t = paired.table
    qpos = t.name("qpos")
    t.register(qpos, pa.table({"qid": pa.array(list(qids), pa.string()), "pos": pa.array(np.arange(len(qids)))}))
    wide = t.name("wide")
    cols = ", ".join(f"max(CASE WHEN p.comp = {c} THEN p.delta END) AS d{j}" for j, c in enumerate(comps))
    t.create(wide, f"SELECT q.pos, {cols} FROM {paired.pairs} p JOIN {qpos} q ON p.qid = q.qid "
                   f"WHERE p.comp IN ({', '.join(map(str, comps))}) GROUP BY q.pos")
    t.drop(qpos)
    return wide


def resampled_sums(t: EngineTable, wide: str, k: int, index: ResampleIndex, *, squares: bool = False
                   ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]]:
    """Per chunk of resamples: (resample, w, s1 (rows, k), s2 (rows, k) or None), by joining the index
    ``resample, pos, weight`` with the wide deltas and summing per resample in the engine."""
    sums = ", ".join(f"sum(i.w * d.d{j}) AS s{j}" for j in range(k))
    squares_sql = "".join(f", sum(i.w * d.d{j} * d.d{j}) AS q{j}" for j in range(k)) if squares else ""
    text = (f"SELECT i.resample, sum(i.w) AS w, {sums}{squares_sql} FROM pf_arrow i JOIN {wide} d "
            f"ON i.pos = d.pos GROUP BY i.resample")
    for resample, pos, weight in index.weights():
        got = t.collect_with(text, pa.table({"resample": resample, "pos": pos, "w": weight}))
        s1 = got.select(f"s{j}" for j in range(k)).to_numpy().astype(np.float64)
        s2 = got.select(f"q{j}" for j in range(k)).to_numpy().astype(np.float64) if squares else None
        yield got["resample"].to_numpy(), got["w"].to_numpy().astype(np.float64), s1, s2


def bootstrap_from_engine(t: EngineTable, wide: str, index: ResampleIndex, delta: np.ndarray,
                          constant: np.ndarray, opt: _Options, *, ratio: bool = False
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile interval and standard error of the mean delta of k columns from the join.

    ``ratio``: the resampled statistic is ``s1 / w`` (cluster bootstrap) instead of ``s1 / n``."""
    k = delta.shape[0]
    n = len(index.qids)
    theta = np.empty((index.n_resamples, k))
    for resample, w, s1, _ in resampled_sums(t, wide, k, index):
        theta[resample] = s1 / (w[:, None] if ratio else n)
    theta[:, constant] = delta[constant]
    a = (1 - opt.confidence_level) / 2 if opt.alternative == "two-sided" else 1 - opt.confidence_level
    tb = np.ascontiguousarray(theta.T)
    low, high = _interval_from_probs(tb, np.broadcast_to(np.array([a, 1 - a]), (k, 2)), opt.alternative)
    low = np.where(constant & np.isfinite(low), delta, low)
    high = np.where(constant & np.isfinite(high), delta, high)
    se = np.std(tb, axis=1, ddof=1)
    se[constant] = 0.0
    return low, high, se


def sign_flip_from_engine(t: EngineTable, wide: str, index: ResampleIndex, delta: np.ndarray,
                          scale: np.ndarray, n_total: float, alternative: str) -> np.ndarray:
    """Sign-flip p-values of k columns: null statistic ``s1 / n_total`` per pattern, counted with the
    tie rule of :mod:`pairedframe.stats.randomization` (``scale``: mean |delta|, or the cluster analogue)."""
    k = delta.shape[0]
    gamma = TIE_RTOL * np.maximum(np.abs(delta), scale)
    b = np.zeros(k, dtype=np.int64)
    for _, _, s1, _ in resampled_sums(t, wide, k, index):
        b += _count_extreme(s1 / n_total, delta, gamma, alternative)
    m = index.n_resamples
    p = b / m if index.exact else (b + 1) / (m + 1)
    return np.minimum(p, 1.0)


def compare_by_join(table: EngineTable, *, baseline: str, systems: Sequence[str] | str | None = None,
                    measures: Sequence[str] | str | None = None, n_resamples: int = 10_000,
                    confidence_level: float = 0.95, alternative: str = "two-sided", test: str = "randomization",
                    seed: int = 0, family_by: Sequence[str] | str | None = None, chunk_size: int | None = None,
                    interval: str | None = None, power: float = 0.8, verdict_on: str = "pvalue_holm",
                    progress: Callable[[int, int], None] | None = None) -> pl.DataFrame:
    """:func:`~pairedframe.compare` of a per-query table in an engine (see the module docstring)."""
    opt = _check_options(n_resamples, confidence_level, alternative, test, interval, seed, chunk_size, power)
    if verdict_on not in _VERDICT_ON:
        raise ValueError(f"`verdict_on` must be one of {_VERDICT_ON}, got {verdict_on!r}")
    if opt.interval == "bca":
        raise ValueError("interval='bca' is not available for DuckDB relations or Spark DataFrames "
                         "(it needs a jackknife over the data): use 'percentile' or 't', or collect the table")
    try:
        paired = pair_in_engine(table, baseline, systems, measures)
        moments = comparison_moments(paired)
        rows = (paired.rows.join(moments.rename({"comp": "_row"}).with_columns(pl.col("_row").cast(pl.UInt32)),
                                 on="_row", how="left").sort("_row")
                .with_columns(pl.col("n_queries").fill_null(0),
                              ((pl.col("dmin") != 0) | (pl.col("dmax") != 0)).alias("_nonzero")))
        _check_sizes(rows, baseline, paired.extras)
        k_total = rows.height
        stats = {name: np.full(k_total, np.nan) for name in ("delta", "ci_low", "ci_high", "se", "pvalue", "sd", "mde")}
        exact = np.zeros(k_total, dtype=bool)
        done = 0
        for comps, members in query_set_groups(paired, moments):
            qids = members["qid"].to_list()
            idx = np.asarray(comps)
            res = _analyse_in_engine(paired, comps, qids, rows[idx], opt)
            for name in stats:
                stats[name][idx] = res[name]
            exact[idx] = res["exact"]
            done += len(comps)
            if progress is not None:
                progress(done, k_total)
        rows = rows.with_columns(pl.col("n_queries").cast(pl.Int64))
        return _finish_table(rows, stats, exact, opt, baseline=baseline, extras=paired.extras,
                             family_by=family_by, verdict_on=verdict_on)
    finally:
        table.close()


def _analyse_in_engine(paired: Paired, comps: list[int], qids: list[str], rows: pl.DataFrame,
                       opt: _Options) -> dict[str, np.ndarray]:
    """The statistics of :func:`pairedframe.comparison.paired._analyse_block` for comparisons that
    share a query set, from the engine."""
    t = paired.table
    k, n = len(comps), len(qids)
    delta = rows["delta"].to_numpy().astype(np.float64)
    constant = (rows["dmin"] == rows["dmax"]).to_numpy()
    sd = np.where(constant, 0.0, rows["sd"].to_numpy().astype(np.float64))
    out: dict[str, np.ndarray] = {"delta": delta, "sd": sd}
    need_boot = opt.interval == "percentile"
    need_flip = opt.test == "randomization"
    wide = wide_deltas(paired, comps, qids) if (need_boot or need_flip) else None
    if need_boot:
        index = resample_index(qids, n_resamples=opt.n_resamples, seed=opt.seed,
                               chunk_elements=_elements(opt, n))
        out["ci_low"], out["ci_high"], out["se"] = bootstrap_from_engine(t, wide, index, delta, constant, opt)
    if opt.test == "t" or opt.interval == "t":
        tt = _t_stats(delta, sd, np.full(k, float(n)), constant, opt.alternative, opt.confidence_level)
        if opt.interval == "t":
            out["ci_low"], out["ci_high"], out["se"] = tt["ci_low"], tt["ci_high"], tt["se"]
    if need_flip:
        index = resample_index(qids, n_resamples=opt.n_resamples, seed=opt.seed, kind="sign-flip",
                               chunk_elements=_elements(opt, n))
        out["pvalue"] = sign_flip_from_engine(t, wide, index, delta, rows["mean_abs"].to_numpy(), float(n),
                                              opt.alternative)
        out["exact"] = np.full(k, index.exact)
    else:
        out["pvalue"] = tt["pvalue"]
        out["exact"] = np.zeros(k, dtype=bool)
    alpha = 1.0 - opt.confidence_level
    out["mde"] = np.array([0.0 if s == 0 else minimum_detectable_effect(
        float(s), n, alpha=alpha, power=opt.power, alternative=opt.alternative) for s in sd])
    if need_flip and out["exact"].all():
        floor = (2.0 if opt.alternative == "two-sided" else 1.0) / 2.0 ** n
        if floor > alpha:
            out["mde"] = np.full(k, np.inf)
    if wide is not None:
        t.drop(wide)
    return out


def _elements(opt: _Options, n: int) -> int | None:
    """Draws per chunk of the index: ``chunk_size`` resamples when given, else the default."""
    return None if opt.chunk_size is None else max(1, int(opt.chunk_size)) * n
