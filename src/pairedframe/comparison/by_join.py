"""The bootstrap as a join: comparisons of per-query tables that live in DuckDB or Spark.

:func:`~pairedframe.compare` (and :func:`~pairedframe.compare_clustered`,
:func:`~pairedframe.compare_segments`) given a DuckDB relation or a Spark DataFrame run here: the
pairing, the per-comparison moments and every resampled statistic are SQL on the engine, and only
small tables travel (the comparisons, each distinct query set's ids, the resample index, and one
row per (comparison, resample) back). The same SQL text runs on both engines
(:mod:`pairedframe.comparison.engine_tables`).

The resamples are those of :func:`~pairedframe.resample_index` -- the numpy path's keyed streams --
joined on the query's position in its query set. For every comparison ``c`` and resample ``r`` the
engine returns ``s1 = sum(w * delta)`` and ``w = sum(w)``, with ``w`` the count (bootstrap) or the
sign (sign-flip); the studentized interval also asks for ``sum(w * x**2)`` and the smallest and
largest drawn ``x`` of the centred deltas ``x``. Only ``B`` small rows per comparison come back, and
the numpy code of the in-memory path turns them into statistics:

- sign flips (the default): per pattern the null statistic ``s1 / n`` and the unit-shift statistic
  ``w / n`` are all that :func:`pairedframe.stats.signflip_interval.inverted_interval` needs for the
  p-value *and* the interval inverting it (same breakpoints, same tie rule);
- the percentile interval and bootstrap SE from the resampled means ``s1 / n`` (the cluster
  bootstrap's ratio ``s1 / w``);
- the studentized interval from each resample's mean, variance and drawn range
  (:func:`pairedframe.stats.studentized.studentize`, :func:`~pairedframe.stats.studentized.symmetric_interval`);
- the pairing (:mod:`pairedframe.comparison.engine_pairing`): the user's table checked and paired with
  the baseline as SQL, same rules and messages as the polars path;
- the t-test and t interval, zero spread, skewness, MDE, verdicts and notes from per-comparison
  moments (count, sums, central second and third moments, min, max), with the code of
  :mod:`pairedframe.comparison.paired` and :mod:`pairedframe.comparison.verdicts`; from those moments
  alone, with no resampling, a comparison above ``LARGE_N`` non-zero deltas (:mod:`~pairedframe.comparison.large_n`).

The sums run in the engine's order, not numpy's, so results agree to ~1e-15 relative (tested
<= 1e-12), not bit for bit; Monte-Carlo counts agree exactly unless a resampled statistic falls
within rounding of the observed one outside the tie tolerance.

Not available here (a clear error names the option): ``interval="bca"`` on a comparison that is
resampled (BCa's acceleration needs a jackknife over the data; a comparison computed in one pass has the t
interval whatever was asked, in memory as here, so a call whose every comparison goes one pass is
computed) and ``resampling="adaptive"`` (its rounds depend on every family's open decisions; use
``resampling="fixed"`` or collect the table).
"""

from __future__ import annotations

import math
from dataclasses import replace
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import polars as pl
import pyarrow as pa

from pairedframe.comparison.engine_pairing import Paired, leave_out_in_engine, pair_in_engine, warn_unpaired
from pairedframe.comparison.engine_tables import EngineTable
from pairedframe.comparison.assemble import finish_table
from pairedframe.comparison.options import Options, check_cost, mc_patterns
from pairedframe.comparison.comparison_stats import ComparisonStats
from pairedframe.comparison.large_n import LARGE_N, LARGE_N_EFF, engine_row_statistics
from pairedframe.comparison.interval_range import QUANTILE_INTERVALS
from pairedframe.comparison.pairing import check_sizes, describe_row, no_common_query, wins_in_measure_direction
from pairedframe.comparison.resample_index import ResampleIndex, resample_index
from pairedframe.comparison.verdicts import smallest_pvalue
from pairedframe.comparison.printed_precision import grid_sql, small_deltas_sql, warn_mixed_printed_precision_engine
from pairedframe.stats.bootstrap import interval_from_probs
from pairedframe.stats.randomization import TIE_RTOL, settle_on_nonzero
from pairedframe.stats.signflip_interval import agree_with_settled_p, inverted_interval
from pairedframe.stats.skewness import skewness_from_moments
from pairedframe.stats.studentized import (MIN_SE_RATIO, ZERO_SPREAD_RTOL, student_interval, student_only, studentize,
                                           symmetric_interval)
from pairedframe.stats.ttest import t_test_from_moments

__all__ = ["compare_by_join", "Paired", "pair_in_engine", "resampled_sums"]

def comparison_moments(paired: Paired, by: Sequence[str] = (), fingerprint: str = "qid") -> pl.DataFrame:
    """One row per ``comp`` (and ``by`` columns of ``pairs``): n_queries, means, wins/losses/ties,
    delta, dmin/dmax, mean and max |delta|, and a fingerprint of the query set (of the
    ``fingerprint`` expression's values)."""
    t = paired.table
    keys = ", ".join(["comp", *(t.quote(c) for c in by)])
    h = t.hash64(fingerprint)       # min / max of a hash, not of the strings: Spark's sort-free aggregate
    return t.collect(
        f"SELECT {keys}, count(*) AS n_queries, avg(a) AS baseline_mean, avg(b) AS system_mean, "
        f"avg(delta) AS delta, min(delta) AS dmin, max(delta) AS dmax, avg(abs(delta)) AS mean_abs, "
        f"max(abs(delta)) AS max_abs, CAST(sum(CASE WHEN delta > 0 THEN 1 ELSE 0 END) AS BIGINT) AS wins, "
        f"CAST(sum(CASE WHEN delta < 0 THEN 1 ELSE 0 END) AS BIGINT) AS losses, "
        f"CAST(sum(CASE WHEN delta = 0 THEN 1 ELSE 0 END) AS BIGINT) AS ties, "
        f"{grid_sql('a')} AS a_grid, {grid_sql('b')} AS b_grid, {small_deltas_sql()} AS small, "
        f"min({h}) AS qmin, max({h}) AS qmax, {t.hash_sum(fingerprint)} AS qhash "
        f"FROM {paired.pairs} GROUP BY {keys}")


def means_table(paired: Paired, comps: Sequence[int], means: np.ndarray, scale: np.ndarray | None = None) -> str:
    """A registered table ``comp, mu`` (and ``scale`` if given; the means travel as data, never as SQL text)."""
    name = paired.table.name("mu")
    cols = {"comp": pa.array(np.asarray(comps, dtype=np.int64)), "mu": pa.array(np.asarray(means, dtype=np.float64))}
    if scale is not None:
        cols["scale"] = pa.array(np.asarray(scale, dtype=np.float64))
    paired.table.register(name, pa.table(cols))
    return name


def central_moments(paired: Paired, rows: pl.DataFrame) -> pl.DataFrame:
    """``comp, ss, s3, u2, u4``: sums of squared and cubed deviations of the deltas from their mean, per
    comparison (``rows``: ``_row, delta, max_abs``) -- the two-pass moments numpy computes -- and the sums
    of the 2nd and 4th powers of ``delta / max_abs`` (the effective number of deltas, ``large_n.py``)."""
    scale = rows["max_abs"].to_numpy().astype(np.float64)
    mu = means_table(paired, rows["_row"].to_list(), rows["delta"].to_numpy(), np.where(scale > 0, scale, 1.0))
    u2 = "(p.delta / m.scale) * (p.delta / m.scale)"
    got = paired.table.collect(
        f"SELECT p.comp, sum((p.delta - m.mu) * (p.delta - m.mu)) AS ss, "
        f"sum((p.delta - m.mu) * (p.delta - m.mu) * (p.delta - m.mu)) AS s3, sum({u2}) AS u2, "
        f"sum(({u2}) * ({u2})) AS u4 "
        f"FROM {paired.pairs} p JOIN {mu} m ON p.comp = m.comp GROUP BY p.comp")
    paired.table.drop(mu)
    return got


def query_set_groups(paired: Paired, moments: pl.DataFrame, match: Sequence[str] = ("qid",)
                     ) -> list[tuple[list[int], pl.DataFrame]]:
    """Comparisons with the same query set (each group: its comps, and the ``match`` columns of its
    queries in code-point order of qid; ``match = ("qid", "cluster")`` also asks for the same clusters).

    Grouped by a fingerprint (size, smallest, largest and sum of 64-bit hashes), then checked in
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


def wide_deltas(paired: Paired, comps: list[int], qids: Sequence[str], centre: np.ndarray | None = None) -> str:
    """A table ``pos, d0, d1, ...``: the deltas of ``comps`` (same query set) by query position,
    minus ``centre[j]`` for column ``j`` when given (the centred values of the studentized bootstrap)."""
    t = paired.table
    qpos = t.name("qpos")
    t.register(qpos, pa.table({"qid": pa.array(list(qids), pa.string()), "pos": pa.array(np.arange(len(qids)))}))
    mu = means_table(paired, comps, centre) if centre is not None else None
    value = "p.delta - m.mu" if mu else "p.delta"
    join_mu = f" JOIN {mu} m ON p.comp = m.comp" if mu else ""
    wide = t.name("wide")
    cols = ", ".join(f"max(CASE WHEN p.comp = {c} THEN {value} END) AS d{j}" for j, c in enumerate(comps))
    t.create(wide, f"SELECT q.pos, {cols} FROM {paired.pairs} p JOIN {qpos} q ON p.qid = q.qid{join_mu} "
                   f"WHERE p.comp IN ({', '.join(map(str, comps))}) GROUP BY q.pos")
    t.drop(qpos)
    if mu:
        t.drop(mu)
    return wide


def resampled_sums(t: EngineTable, wide: str, k: int, index: ResampleIndex, *, spread: bool = False
                   ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]]:
    """Per chunk of resamples: ``(resample, w, s1, more)`` by joining the index ``resample, pos,
    weight`` with the wide deltas and summing per resample in the engine: ``w = sum(weight)``,
    ``s1 = sum(weight * d)`` (rows, k); with ``spread``, ``more`` holds ``s2 = sum(weight * d**2)``
    and the smallest and largest drawn ``d`` (``lo``, ``hi``)."""
    sums = ", ".join(f"sum(i.w * d.d{j}) AS s{j}" for j in range(k))
    extra = "".join(f", sum(i.w * d.d{j} * d.d{j}) AS q{j}, min(d.d{j}) AS lo{j}, max(d.d{j}) AS hi{j}"
                    for j in range(k)) if spread else ""
    text = (f"SELECT i.resample, sum(i.w) AS w, {sums}{extra} FROM pf_arrow i JOIN {wide} d "
            f"ON i.pos = d.pos GROUP BY i.resample")

    def block(got: pl.DataFrame, prefix: str) -> np.ndarray:
        return got.select(f"{prefix}{j}" for j in range(k)).to_numpy().astype(np.float64)

    for resample, pos, weight in index.weights():
        got = t.collect_with(text, pa.table({"resample": resample, "pos": pos, "w": weight}))
        more = {"s2": block(got, "q"), "lo": block(got, "lo"), "hi": block(got, "hi")} if spread else {}
        yield got["resample"].to_numpy(), got["w"].to_numpy().astype(np.float64), block(got, "s"), more


def bootstrap_from_engine(t: EngineTable, wide: str, index: ResampleIndex, delta: np.ndarray,
                          constant: np.ndarray, opt: Options, *, ratio: bool = False
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
    low, high = interval_from_probs(tb, np.broadcast_to(np.array([a, 1 - a]), (k, 2)), opt.alternative)
    low = np.where(constant & np.isfinite(low), delta, low)
    high = np.where(constant & np.isfinite(high), delta, high)
    se = np.std(tb, axis=1, ddof=1)
    se[constant] = 0.0
    return low, high, se


def studentized_from_engine(paired: Paired, comps: list[int], qids: Sequence[str], delta: np.ndarray,
                            se: np.ndarray, flat: np.ndarray, scale: np.ndarray, opt: Options
                            ) -> tuple[np.ndarray, np.ndarray]:
    """The stabilised symmetric bootstrap-t interval of :func:`pairedframe.stats.studentized.
    studentized_bootstrap_many` (each resample's SE at least MIN_SE_RATIO x ``se``, the quantile capped)
    from per-resample sums of the centred deltas (mean, variance and drawn range of each resample).

    ``se``: the studentizing SEs (0 at zero spread); ``scale``: ``max |d - mean|`` per column."""
    t = paired.table
    k, n = delta.shape[0], len(qids)
    if student_only(n, opt.alternative):   # Student's quantile whatever the resamples: none drawn
        return student_interval(delta, se, flat, n, opt.confidence_level, opt.alternative)
    wide = wide_deltas(paired, comps, qids, centre=delta)
    index = resample_index(qids, n_resamples=opt.n_resamples, seed=opt.seed, chunk_elements=draws_per_chunk(opt, n))
    t_star = np.empty((index.n_resamples, k))
    for resample, _, s1, more in resampled_sums(t, wide, k, index, spread=True):
        m = s1 / n
        var = np.maximum(more["s2"] / n - m * m, 0.0)
        for c in range(k):
            t_star[resample, c] = studentize(m[:, c], var[:, c], more["hi"][:, c] - more["lo"][:, c], scale[c], n,
                                             MIN_SE_RATIO * se[c])
    t.drop(wide)
    return symmetric_interval(t_star, delta, se, flat, opt.n_resamples, opt.confidence_level, opt.alternative, df=n - 1)


def nonzero_deltas(t: EngineTable, wide: str, j: int) -> np.ndarray:
    """Column ``j``'s non-zero deltas of a :func:`wide_deltas` table, in query order (a few: asked for only
    when their ``2**k`` sign patterns can be enumerated)."""
    return t.collect(f"SELECT d{j} AS d FROM {wide} WHERE d{j} <> 0 ORDER BY pos")["d"].to_numpy().astype(np.float64)


def sign_flips_from_engine(t: EngineTable, wide: str, index: ResampleIndex, delta: np.ndarray,
                           scale: np.ndarray, n_total: float, confidence_level: float, alternative: str
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sign-flip p-values of k columns and the intervals inverting them (:func:`~pairedframe.stats.
    signflip_interval.inverted_interval`): per pattern the null statistic ``s1 / n_total`` and the
    unit-shift statistic ``w / n_total``, with the tie rule of :mod:`pairedframe.stats.randomization`
    (``scale``: mean |delta|, or the cluster analogue). Returns ``(p, low, high)``."""
    k = delta.shape[0]
    m = index.n_resamples
    null = np.empty((m, k))
    c = np.empty(m)
    for resample, w, s1, _ in resampled_sums(t, wide, k, index):
        null[resample] = s1 / n_total
        c[resample] = w / n_total
    same_sign = np.abs(c) == 1.0           # sum of signs (x sizes) is +-N exactly: no flip or all flipped
    gamma = TIE_RTOL * np.maximum(np.abs(delta), scale)
    return inverted_interval(null, c, delta, gamma, m, index.exact, confidence_level, alternative,
                             same_sign, c == 1.0)


def compare_by_join(table: EngineTable, opt: Options, *, baseline: str, systems: Sequence[str] | str | None = None,
                    measures: Sequence[str] | str | None = None, family_by: Sequence[str] | str | None = None,
                    progress: Callable[[int, int], None] | None = None) -> pl.DataFrame:
    """:func:`~pairedframe.compare` of a per-query table in an engine (see the module docstring), with the
    options checked by its caller into ``opt``; the table is closed on return."""
    try:
        verdict_on = opt.verdict_column
        not_in_engine(interval=opt.interval if not opt.one_pass else None, adaptive=opt.adaptive)
        paired = pair_in_engine(table, baseline, systems, measures)
        moments, rows = _moment_rows(paired)
        warn_unpaired(paired, baseline, moments)                # the moments counted the paired queries
        fewer = leave_out_in_engine(paired, rows, baseline)     # only for the report and table layers
        if fewer is not None:
            paired = fewer
            moments, rows = _moment_rows(paired)
        require_common_queries(paired, rows, baseline)
        check_sizes(rows, baseline, paired.extras, warn_small=opt.interval not in QUANTILE_INTERVALS)
        warn_mixed_printed_precision_engine(rows, baseline, paired.extras)
        rows = rows.join(central_moments(paired, rows).rename({"comp": "_row"})
                         .with_columns(pl.col("_row").cast(pl.UInt32)), on="_row", how="left").sort("_row")
        k_total = rows.height
        stats, large = engine_row_statistics(rows, opt)     # above LARGE_N non-zero deltas: one pass (large_n.py)
        if opt.interval == "bca":
            refuse_resampled_bca(rows, large, paired.extras)
        # bca's rows left to resample have no non-zero delta: the zero-spread rule gives them, whatever the interval
        resampled_opt = replace(opt, interval="percentile") if opt.interval == "bca" else opt
        groups = query_set_groups(paired, moments.filter(~pl.col("comp").is_in(large.tolist())))
        check_cost(resampled_opt, [(members.height, len(comps)) for comps, members in groups])
        done = large.size
        for comps, members in groups:
            idx = np.asarray(comps)
            stats.put(idx, _analyse_in_engine(paired, comps, members["qid"].to_list(), rows[idx], resampled_opt))
            done += len(comps)
            if progress is not None:
                progress(done, k_total)
        rows = wins_in_measure_direction(rows.with_columns(pl.col("n_queries").cast(pl.Int64)))
        return finish_table(rows, stats, opt, baseline=baseline, extras=paired.extras, family_by=family_by,
                            verdict_on=verdict_on)
    finally:
        table.close()


def _moment_rows(paired: Paired) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The engine's moments per comparison, and ``paired.rows`` joined with them (``n_queries`` 0 where
    the baseline shares no query)."""
    moments = comparison_moments(paired)
    rows = (paired.rows.join(moments.rename({"comp": "_row"}).with_columns(pl.col("_row").cast(pl.UInt32)),
                             on="_row", how="left").sort("_row")
            .with_columns(pl.col("n_queries").fill_null(0),
                          ((pl.col("dmin") != 0) | (pl.col("dmax") != 0)).fill_null(False).alias("_nonzero")))
    return moments, rows


def not_in_engine(*, interval: str | None = None, adaptive: bool = False) -> None:
    """ValueError naming an option the engine path cannot compute."""
    if interval == "bca":
        raise ValueError("interval='bca' is not available for DuckDB relations or Spark DataFrames "
                         "(it needs a jackknife over the data; only comparisons computed in one pass, with "
                         "resampling='auto', need none): use the default ('studentized'), 'signflip', 'percentile' or "
                         "'t', or collect the table")
    if adaptive:
        raise ValueError("resampling='adaptive' is not available for DuckDB relations or Spark DataFrames "
                         "(its rounds of sign patterns follow every family's open decisions): use "
                         "resampling='fixed' with a larger n_resamples, test='t', or collect the table")


def refuse_resampled_bca(rows: pl.DataFrame, large: np.ndarray, extras: list[str]) -> None:
    """ValueError naming ``interval='bca'`` when a comparison of ``rows`` (``_row, system, <extras>, measure,
    n_queries, ties, u2, u4``) is not among those computed in one pass (``large``): resampled, it would need
    BCa's jackknife over the data; the first such comparison is named with what kept it from one pass."""
    resampled = rows.filter(~pl.col("_row").is_in(large.tolist()) & pl.col("_nonzero"))  # all-zero: nothing drawn
    if not resampled.height:
        return
    first = resampled.row(0, named=True)
    nonzero = int(first["n_queries"]) - int(first["ties"])
    n_eff = first["u2"] ** 2 / first["u4"] if first["u4"] else 0.0
    raise ValueError(
        f"interval='bca' is not available for DuckDB relations or Spark DataFrames on a comparison that is resampled "
        f"(it needs a jackknife over the data): {resampled.height} of {rows.height} comparison(s) would be; first: "
        f"{describe_row({k: first[k] for k in ['system', *extras, 'measure']})}, {nonzero:,} non-zero deltas of "
        f"effective number {n_eff:,.0f} (one pass, with the t interval whatever was asked, needs more than "
        f"{LARGE_N:,} and at least {LARGE_N_EFF:,}). Use the default ('studentized'), 'signflip', 'percentile' or "
        "'t', or collect the table")


def require_common_queries(paired: Paired, rows: pl.DataFrame, baseline: str) -> None:
    """EmptyResultError, as the polars path, for a comparison without any query in common with the
    baseline (``rows``: ``_row, system, <keys>, measure, n_queries``)."""
    empty = rows.filter(pl.col("n_queries") == 0)
    if not empty.height:
        return
    t, q = paired.table, paired.table.quote
    first = empty.row(0, named=True)
    keys = ["system", *paired.extras, "measure"]
    pick = t.name("pick")
    t.register(pick, pl.DataFrame([{**{c: first[c] for c in keys}, "pf_baseline": baseline}]).to_arrow())
    same = " AND ".join(f"p.{q(c)} = k.{q(c)}" for c in keys[1:])

    def queries(system: str) -> list[str]:
        got = t.collect(f"SELECT p.qid, min(p.pf_row) AS first FROM {paired.source} p JOIN {pick} k "
                        f"ON p.system = k.{system} AND {same} GROUP BY p.qid")
        return got.sort("first")["qid"].to_list()

    own, base = queries("system"), queries("pf_baseline")
    t.drop(pick)
    raise no_common_query(empty.height, rows.height, baseline, describe_row({k: first[k] for k in keys}), own, base)


def _analyse_in_engine(paired: Paired, comps: list[int], qids: list[str], rows: pl.DataFrame,
                       opt: Options) -> ComparisonStats:
    """The statistics of :func:`pairedframe.comparison.kernels.analyse_block` for comparisons that
    share a query set, from the engine (``rows``: their moments)."""
    t = paired.table
    k, n = len(comps), len(qids)
    delta = rows["delta"].to_numpy().astype(np.float64)
    dmin, dmax = rows["dmin"].to_numpy().astype(np.float64), rows["dmax"].to_numpy().astype(np.float64)
    flat = (dmax - dmin) <= ZERO_SPREAD_RTOL * rows["max_abs"].to_numpy().astype(np.float64)
    ss = rows["ss"].to_numpy().astype(np.float64)
    sd = np.where(flat, 0.0, np.sqrt(ss / (n - 1)))
    out: dict[str, np.ndarray] = {"delta": delta, "sd": sd, "zero_spread": flat, "se": sd / math.sqrt(n),
                                  "skewness": skewness_from_moments(ss / n, rows["s3"].to_numpy() / n, n, flat)}
    if opt.interval == "percentile":
        wide = wide_deltas(paired, comps, qids)
        index = resample_index(qids, n_resamples=opt.n_resamples, seed=opt.seed, chunk_elements=draws_per_chunk(opt, n))
        out["ci_low"], out["ci_high"], out["se"] = bootstrap_from_engine(t, wide, index, delta, dmin == dmax, opt)
        t.drop(wide)
    elif opt.interval == "studentized":
        scale = np.maximum(dmax - delta, delta - dmin)
        out["ci_low"], out["ci_high"] = studentized_from_engine(paired, comps, qids, delta, np.where(flat, 0.0, out["se"]),
                                                                flat, scale, opt)
    tt = None
    if opt.test == "t" or opt.interval in ("t", "studentized"):
        tt = t_test_from_moments(delta, sd, np.full(k, float(n)), flat, opt.alternative, opt.confidence_level)
    if opt.interval == "t" or (opt.interval == "studentized" and flat.any()):
        # zero spread: the exact sign-flip answer for equal deltas (pairedframe.stats.ttest), not certainty
        take = np.ones(k, dtype=bool) if opt.interval == "t" else flat
        out["ci_low"] = np.where(take, tt["ci_low"], out.get("ci_low"))
        out["ci_high"] = np.where(take, tt["ci_high"], out.get("ci_high"))
    if opt.interval == "signflip" or opt.test == "randomization":
        wide = wide_deltas(paired, comps, qids)
        index = resample_index(qids, n_resamples=opt.n_resamples, seed=opt.seed, kind="sign-flip",
                               chunk_elements=draws_per_chunk(opt, n))
        p, low, high = sign_flips_from_engine(t, wide, index, delta, rows["mean_abs"].to_numpy().astype(np.float64),
                                              float(n), opt.confidence_level, opt.alternative)
        # few non-zero deltas: the exact p over them, as in memory (stats.randomization.settle_on_nonzero)
        nonzero = (rows["n_queries"] - rows["ties"]).to_numpy()
        settled_p, exact = settle_on_nonzero(p, index.exact, nonzero, opt.n_resamples, opt.alternative,
                                             lambda j: nonzero_deltas(t, wide, j))
        t.drop(wide)
        if opt.interval == "signflip":
            out["ci_low"], out["ci_high"] = agree_with_settled_p(low, high, settled_p, settled_p != p, delta,
                                                                 opt.confidence_level)
    if opt.test == "randomization":
        out["pvalue"] = settled_p
        out["exact"] = exact
    else:
        out["pvalue"] = tt["pvalue"]
        out["exact"] = np.zeros(k, dtype=bool)
    out["floor"] = np.array([smallest_pvalue(opt.test, bool(out["exact"][c]), n, opt.alternative, mc_patterns(opt),
                                             bool(flat[c])) for c in range(k)])
    return ComparisonStats(**out)


def draws_per_chunk(opt: Options, n: int) -> int | None:
    """Draws per chunk of the index: ``chunk_size`` resamples when given, else the default."""
    return None if opt.chunk_size is None else max(1, int(opt.chunk_size)) * n
