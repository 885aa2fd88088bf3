"""The cluster sign-flip test, the interval inverting it and the cluster bootstrap as joins, for
tables in DuckDB or Spark.

:func:`~pairedframe.compare_clustered` on a DuckDB relation or a Spark DataFrame runs here. The
resamples are those of :func:`~pairedframe.resample_index` with ``clusters`` (every query carries
its cluster's sign or count). Per sign pattern the join gives ``sum(sign * delta) = sum_g s_g S_g``
and ``sum(sign) = sum_g s_g n_g``, all that :func:`pairedframe.stats.signflip_interval.inverted_interval`
needs for the p-value and ``interval="signflip"`` (as :mod:`pairedframe.stats.cluster_interval`; a
comparison with few non-zero cluster sums fetches them and enumerates their ``2**k`` sign patterns, as in
memory);
the CR2 standard error and its Bell-McCaffrey df (``interval="t"`` and ``"edgeworth"``, TOST, MDE) come from the per-cluster sums ``S_g``, sizes
``n_g`` and residuals ``S_g - theta n_g`` aggregated in the engine; the cluster bootstrap
(``interval="percentile"``) is ``sum(count * delta) / sum(count)``. Verdicts, MDE, notes and TOST
are :mod:`pairedframe.comparison.clustered`'s. See :mod:`pairedframe.comparison.by_join`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from pairedframe.checks import near_miss_hint, quoted
from pairedframe.comparison.by_join import (
    bootstrap_from_engine,
    comparison_moments,
    draws_per_chunk,
    means_table,
    query_set_groups,
    require_common_queries,
    sign_flips_from_engine,
    wide_deltas,
)
from pairedframe.comparison.engine_pairing import Paired, pair_in_engine, refuse_blank_ids, warn_unpaired
from pairedframe.comparison.cluster_tables import (check_cluster_cost, check_cluster_counts, cluster_map,
                                                   clustered_table, where_clusters, zero_spread_interval)
from pairedframe.comparison.clustered_stats import COUNTS, ClusteredStats, McNemarColumns
from pairedframe.comparison.engine_tables import EngineTable, check_ids
from pairedframe.comparison.resample_index import resample_index
from pairedframe.comparison.printed_precision import warn_mixed_printed_precision_engine
from pairedframe.comparison.verdicts import smallest_pvalue
from pairedframe.errors import SchemaError
from pairedframe.stats.cluster import noise_sums
from pairedframe.stats.cluster_interval import bell_mccaffrey_df, cluster_t_interval
from pairedframe.stats.edgeworth import edgeworth_t_quantile_from_moments
from pairedframe.stats.mcnemar import mcnemar_exact
from pairedframe.stats.randomization import enumerable_on_nonzero, settle_on_nonzero
from pairedframe.stats.signflip_interval import agree_with_settled_p
from pairedframe.stats.studentized import ZERO_SPREAD_RTOL
from pairedframe.io.results import flagged_summary_sql

__all__ = ["compare_clustered_by_join"]


def _with_clusters(table: EngineTable, clusters: Any) -> tuple[str, list[str]]:
    """A table of the user's rows with a String ``cluster`` column, and its columns; the checks of
    :func:`pairedframe.comparison.clustered.attach_clusters` (each query in exactly one cluster)."""
    q = table.quote
    check_ids(table)
    column = "cluster"
    if isinstance(clusters, str):
        column, clusters = clusters, None
    others = [c for c in table.columns if c not in (column, "cluster")]
    source = table.name("clustered")
    if clusters is None:
        if column not in table.columns:
            raise SchemaError(f"no cluster column {column!r} in the per-query table (columns {table.columns}); "
                              "add one or pass clusters= (a qid -> cluster mapping or table)")
        if column != "cluster" and "cluster" in table.columns:
            raise SchemaError(f"table has both 'cluster' and the chosen cluster column {column!r}; drop one")
        table.create(source, f"SELECT {', '.join(q(c) for c in others)}, CAST({q(column)} AS STRING) AS cluster "
                             f"FROM {table.source}")
    else:
        if "cluster" in table.columns:
            raise SchemaError("the per-query table already has a 'cluster' column; do not also pass clusters=")
        cmap, on = cluster_map(clusters, table.columns)
        cmap = cmap.with_columns(pl.col("cluster").cast(pl.String))
        mapping = table.name("cmap")
        table.register(mapping, cmap.unique().to_arrow())
        cond = " AND ".join(f"CAST(u.{q(c)} AS STRING) = m.{q(c)}" for c in on)
        # numbered before the join, which does not keep the rows' order (the order of appearance of datasets)
        table.create(source, f"SELECT {', '.join('u.' + q(c) for c in others)}, m.cluster FROM (SELECT *, "
                             f"{table.row_order()} AS pf_order FROM {table.source}) u LEFT JOIN {mapping} m ON {cond} "
                             "ORDER BY u.pf_order")
    keys = [c for c in others if c not in ("system", "qid", "measure", "value")]
    refuse_blank_ids(table, source)  # a blank qid would read as a query without a cluster
    # a flagged summary row needs no cluster: it is left out (as summary_flags reads the flag)
    flagged = f" AND NOT {flagged_summary_sql()}" if "summary" in others else ""
    lost = table.collect(f"SELECT qid, system, measure FROM {source} WHERE cluster IS NULL AND value IS NOT NULL"
                         f"{flagged} ORDER BY qid, system, measure")  # the message's first row: not the engine's order
    if lost.height:
        row = lost.row(0, named=True)
        known = cmap["qid"].to_list() if clusters is not None and "qid" in on else []
        raise ValueError(f"query {quoted(row['qid'])} (system {quoted(row['system'])}, "
                         f"measure {quoted(row['measure'])}) "
                         f"has no cluster {where_clusters(clusters is not None, column)}; {lost.height} row(s) lack one"
                         + near_miss_hint(lost["qid"].to_list(), known, of="the per-query table", in_="the clusters"))
    key_sql = ", ".join(q(c) for c in [*keys, "qid"])
    two = table.collect(f"SELECT {key_sql}, min(cluster) AS c1, max(cluster) AS c2 FROM {source} "
                        f"WHERE value IS NOT NULL GROUP BY {key_sql} HAVING count(DISTINCT cluster) > 1")
    if two.height:
        row = two.sort("qid").row(0, named=True)
        where = "".join(f", {k} {row[k]!r}" for k in keys)
        raise ValueError(f"query {row['qid']!r}{where} is in more than one cluster ({[row['c1'], row['c2']]} ...)")
    return source, [*others, "cluster"]


def compare_clustered_by_join(table: EngineTable, opt: Any, *, baseline: str, clusters: Any,
                              systems: Sequence[str] | str | None, measures: Sequence[str] | str | None,
                              margin: float | None, family_by: Sequence[str] | str | None, verdict_on: str,
                              progress: Callable[[int, int], None] | None, interval: str = "edgeworth") -> pl.DataFrame:
    """:func:`~pairedframe.compare_clustered` of a per-query table in an engine (``opt`` checked)."""
    try:
        source, columns = _with_clusters(table, clusters)
        paired = pair_in_engine(table, baseline, systems, measures, extra_keys=("cluster",), source=source,
                                columns=columns)
        keys = paired.extras
        moments = comparison_moments(paired, fingerprint="concat(qid, '|', cluster)")
        warn_unpaired(paired, baseline, moments)                # the moments counted the paired queries
        sums, rows = _cluster_rows(table, paired, moments)
        require_common_queries(paired, rows, baseline)
        check_cluster_counts(rows, rows["n_queries"].to_numpy(), rows["n_clusters"].to_numpy(), keys=keys,
                              baseline=baseline)
        warn_mixed_printed_precision_engine(rows, baseline, keys)   # from the moments' grid aggregates: no extra pass
        k_total = rows.height
        cm = _cluster_moments(table, paired, rows, sums)
        st = ClusteredStats.unfilled(
            k_total, delta=cm.delta, se=cm.se, df=cm.df, baseline_mean=rows["baseline_mean"].to_numpy().astype(float),
            system_mean=rows["system_mean"].to_numpy().astype(float), delta_min=rows["dmin"].to_numpy().astype(float),
            delta_max=rows["dmax"].to_numpy().astype(float),
            **{n: rows[n].fill_null(0).to_numpy().astype(np.int64) for n in COUNTS},
            all_zero=((rows["dmin"] == 0) & (rows["dmax"] == 0)).to_numpy(), mcnemar=_mcnemar_columns(rows))
        groups = query_set_groups(paired, moments, match=("qid", "cluster"))
        check_cluster_cost(opt, [(int(st.n_clusters[comps[0]]), len(comps)) for comps, _ in groups], interval)
        done = 0
        for comps, members in groups:
            idx = np.asarray(comps)
            low, high, pv, exact = _query_set_statistics(table, paired, opt, interval, comps, members, rows[idx], cm,
                                                         sums)
            G = int(cm.G[idx[0]])
            st.ci_low[idx], st.ci_high[idx], st.pvalue[idx] = low, high, pv
            st.floor[idx] = [smallest_pvalue("randomization", bool(e), G, opt.alternative, opt.n_resamples,
                                             nonzero=int(z)) for e, z in zip(exact, st.nonzero_clusters[idx])]
            st.exact[idx] = exact
            done += len(comps)
            if progress is not None:
                progress(done, k_total)
        return clustered_table(paired.rows, st, opt, keys=keys, baseline=baseline, family_by=family_by,
                               verdict_on=verdict_on, margin=margin, interval=interval)
    finally:
        table.close()


def _cluster_rows(table: EngineTable, paired: Paired, moments: pl.DataFrame) -> tuple[str, pl.DataFrame]:
    """The engine table of per (comparison, cluster) sums and sizes, and one row per comparison with its
    moments, cluster counts and the 0/1 discordant counts McNemar needs."""
    sums = table.name("csums")                  # per (comparison, cluster): summed delta, size
    table.create(sums, f"SELECT comp, cluster, sum(delta) AS s, count(*) AS size FROM {paired.pairs} "
                       f"GROUP BY comp, cluster")
    # nonzero_clusters: sums that are not 0 up to the float noise of the deltas they sum (noise_sums' rule)
    per_cluster = table.collect(
        f"SELECT c.comp, count(*) AS n_clusters, sum(abs(c.s)) AS abs_sum, max(abs(c.s)) AS max_sum, "
        f"CAST(sum(CASE WHEN abs(c.s) > {ZERO_SPREAD_RTOL!r} * m.max_abs THEN 1 ELSE 0 END) AS BIGINT) "
        f"AS nonzero_clusters FROM {sums} c JOIN (SELECT comp, max(abs(delta)) AS max_abs FROM {paired.pairs} "
        f"GROUP BY comp) m ON c.comp = m.comp GROUP BY c.comp")
    binary = table.collect(
        f"SELECT comp, CAST(min(CASE WHEN a IN (0, 1) AND b IN (0, 1) THEN 1 ELSE 0 END) AS BIGINT) AS binary, "
        f"CAST(sum(CASE WHEN a = 1 AND b = 0 THEN 1 ELSE 0 END) AS BIGINT) AS mb, "
        f"CAST(sum(CASE WHEN a = 0 AND b = 1 THEN 1 ELSE 0 END) AS BIGINT) AS mc FROM {paired.pairs} GROUP BY comp")
    rows = (paired.rows.with_columns(pl.col("_row").cast(pl.Int64))
            .join(moments.rename({"comp": "_row"}), on="_row", how="left")
            .join(per_cluster.rename({"comp": "_row"}), on="_row", how="left")
            .join(binary.rename({"comp": "_row"}), on="_row", how="left").sort("_row")
            .with_columns(pl.col("n_queries").fill_null(0), pl.col("n_clusters").fill_null(0)))
    return sums, rows


@dataclass(frozen=True)
class _ClusterMoments:
    """Per comparison, shape ``(k,)``: delta, the CR2 SE (CR1 for equal sizes), Bell-McCaffrey df, the
    residual sums of squares, cubes and fourth powers (the Edgeworth quantile's), and G."""

    delta: np.ndarray
    se: np.ndarray
    df: np.ndarray
    rss: np.ndarray
    r3: np.ndarray
    r4: np.ndarray
    G: np.ndarray


def _cluster_moments(table: EngineTable, paired: Paired, rows: pl.DataFrame, sums: str) -> _ClusterMoments:
    """Per comparison: delta, the CR2 SE (CR1 for equal sizes), Bell-McCaffrey df (G - 1 for equal sizes),
    the residual sums of squares, cubes and fourth powers the Edgeworth quantile needs, and G."""
    delta_all = rows["delta"].to_numpy().astype(float)
    mu = means_table(paired, rows["_row"].to_list(), delta_all)
    # residual sums r_g = S_g - mu n_g with CR2 weights w_g = 1 / (1 - n_g / N): the CR2 SE and the
    # Bell-McCaffrey df (pairedframe.stats.cluster_interval), the 3rd and 4th moments the Edgeworth quantile
    resid = table.collect(
        f"SELECT comp, sum(r * r) AS rss, sum(w * r * r) AS wrss, sum(power(r, 3)) AS r3, sum(power(r, 4)) AS r4, "
        f"sum(w * size) AS a, sum(w * size * size) AS b, sum(power(w * size - w * size * size / n, 2)) AS c, "
        f"sum(w * w * power(size, 4)) AS d, min(size) AS smallest, max(size) AS largest FROM ("
        f"SELECT comp, size, r, n, 1.0 / (1.0 - size / n) AS w FROM ("
        f"SELECT c.comp, CAST(c.size AS DOUBLE) AS size, c.s - m.mu * c.size AS r, "
        f"CAST(sum(c.size) OVER (PARTITION BY c.comp) AS DOUBLE) AS n FROM {sums} c JOIN {mu} m ON c.comp = m.comp"
        f") AS resid) AS weighted GROUP BY comp")
    table.drop(mu)
    resid = rows.select("_row").join(resid.rename({"comp": "_row"}), on="_row", how="left")
    rss, wrss, r3, r4, a, b, c, d = (resid[k].to_numpy().astype(float)
                                     for k in ("rss", "wrss", "r3", "r4", "a", "b", "c", "d"))
    G_all = rows["n_clusters"].to_numpy().astype(np.int64)
    N_all = rows["n_queries"].to_numpy().astype(float)
    equal = (resid["smallest"] == resid["largest"]).to_numpy()
    # CR2 SE (CR1 for equal sizes) and Bell-McCaffrey df (G - 1 for equal sizes), as cluster_robust_se
    # and cluster_df do; float noise is no spread
    se_all = np.where(equal, np.sqrt(G_all / (G_all - 1.0) * rss), np.sqrt(wrss)) / N_all
    with np.errstate(divide="ignore", invalid="ignore"):
        df_all = np.where(equal, G_all - 1.0, bell_mccaffrey_df(a, b, c, d, N_all))
    flat = ((rows["dmax"] - rows["dmin"]).to_numpy() <= ZERO_SPREAD_RTOL * rows["max_abs"].to_numpy())
    se_all[flat] = 0.0
    se_all[se_all <= ZERO_SPREAD_RTOL * rows["max_abs"].to_numpy()] = 0.0   # equal cluster sums up to float noise
    return _ClusterMoments(delta=delta_all, se=se_all, df=df_all, rss=rss, r3=r3, r4=r4, G=G_all)


def _mcnemar_columns(rows: pl.DataFrame) -> McNemarColumns:
    """The exact McNemar test of each comparison whose values are all 0/1 (None elsewhere)."""
    mc = McNemarColumns.empty(rows.height)
    for r, (is_binary, b, c) in enumerate(rows.select("binary", "mb", "mc").iter_rows()):
        if is_binary:
            m = mcnemar_exact([1] * b + [0] * c, [0] * b + [1] * c)
            mc.put(r, m.pvalue, m.b, m.c)
    return mc


def _nonzero_cluster_sums(table: EngineTable, sums: str, comps: list[int], max_abs: np.ndarray) -> list[np.ndarray]:
    """Each of comparisons ``comps``' cluster sums that are not 0 up to the float noise of its deltas (the
    rule of ``nonzero_clusters``), in ascending order, from one query: only comparisons whose ``2**k`` sign
    patterns of them are enumerated come here, so each has a few."""
    if not comps:
        return []
    wanted = ", ".join(str(int(c)) for c in comps)
    got = table.collect(f"SELECT comp, s FROM {sums} WHERE comp IN ({wanted}) AND s <> 0 ORDER BY comp, s")
    comp, s = got["comp"].to_numpy(), got["s"].to_numpy().astype(np.float64)
    own = [s[comp == c] for c in comps]
    return [mine[np.abs(mine) > ZERO_SPREAD_RTOL * m] for mine, m in zip(own, max_abs)]


def _query_set_statistics(table: EngineTable, paired: Paired, opt: Any, interval: str, comps: list[int],
                          members: pl.DataFrame, sub: pl.DataFrame, cm: _ClusterMoments, sums: str) -> tuple:
    """Interval, sign-flip p-value and its exactness (per comparison) of the comparisons ``comps`` sharing one
    clustered query set (``members``: its qid and cluster; ``sub``: their rows; ``sums``: the engine table of
    cluster sums), resampled as joins."""
    idx = np.asarray(comps)
    qids, cl = members["qid"].to_list(), members["cluster"].to_list()
    n, G = len(qids), int(cm.G[idx[0]])
    delta, se, df = cm.delta[idx], cm.se[idx], float(cm.df[idx[0]])
    wide = wide_deltas(paired, comps, qids)
    flips = resample_index(qids, clusters=cl, n_resamples=opt.n_resamples, seed=opt.seed, kind="sign-flip",
                           chunk_elements=draws_per_chunk(opt, n))
    pv, low, high = sign_flips_from_engine(table, wide, flips, delta, sub["abs_sum"].to_numpy() / n, float(n),
                                           opt.confidence_level, opt.alternative)
    # as in memory: exact over few non-zero cluster sums (stats.cluster.settle_on_nonzero_sums), the interval's
    # end at 0 agreeing with that p; all-zero cluster sums, float noise of their deltas included, give p = 1
    max_abs = sub["max_abs"].to_numpy().astype(np.float64)
    nonzero = sub["nonzero_clusters"].to_numpy()
    enumerated = np.flatnonzero(enumerable_on_nonzero(flips.exact, nonzero, opt.n_resamples))
    fetched = dict(zip(enumerated.tolist(), _nonzero_cluster_sums(table, sums, [comps[j] for j in enumerated],
                                                                  max_abs[enumerated])))
    settled, exact = settle_on_nonzero(pv, flips.exact, nonzero, opt.n_resamples, opt.alternative,
                                       fetched.__getitem__)
    settled[noise_sums(sub["max_sum"].to_numpy()[None, :], max_abs)] = 1.0
    low, high = agree_with_settled_p(low, high, settled, settled != pv, delta, opt.confidence_level)
    pv = settled
    if interval == "t" or (interval == "edgeworth" and opt.alternative != "two-sided"):
        ci = cluster_t_interval(delta, se, G, confidence_level=opt.confidence_level, alternative=opt.alternative,
                                df=df)
        low, high = ci.low, ci.high
    elif interval == "edgeworth":          # as cluster_edgeworth_interval, from the engine's moments
        q = edgeworth_t_quantile_from_moments(cm.rss[idx] / G, cm.r3[idx] / G, cm.r4[idx] / G, G, df,
                                              confidence_level=opt.confidence_level)
        low, high = delta - q * se, delta + q * se
    elif interval == "percentile":
        boot = resample_index(qids, clusters=cl, n_resamples=opt.n_resamples, seed=opt.seed,
                              chunk_elements=draws_per_chunk(opt, n))
        low, high, _ = bootstrap_from_engine(table, wide, boot, delta, (sub["dmin"] == sub["dmax"]).to_numpy(),
                                             opt, ratio=True)
    table.drop(wide)
    if interval in ("edgeworth", "t"):     # no certainty from zero spread, as the in-memory path
        low, high = zero_spread_interval(delta, se, low, high, G, 1.0 - opt.confidence_level, opt.alternative)
    return low, high, pv, exact
