"""The cluster bootstrap and cluster sign-flip test as joins, for tables in DuckDB or Spark.

:func:`~pairedframe.compare_clustered` on a DuckDB relation or a Spark DataFrame runs here. The
resamples are those of :func:`~pairedframe.resample_index` with ``clusters`` (every query carries
its cluster's count or sign), so the cluster bootstrap's statistic ``sum(drawn cluster sums) /
sum(drawn cluster sizes)`` is ``sum(count * delta) / sum(count)`` of the join, and the sign-flip
null statistic ``sum(sign * delta) / N``. See :mod:`pairedframe.comparison.by_join`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import polars as pl

from pairedframe.comparison.by_join import (
    _elements,
    bootstrap_from_engine,
    comparison_moments,
    pair_in_engine,
    query_set_groups,
    sign_flip_from_engine,
    wide_deltas,
)
from pairedframe.comparison.clustered import _clustered_table, cluster_map
from pairedframe.comparison.engine_tables import EngineTable
from pairedframe.comparison.resample_index import resample_index
from pairedframe.errors import InsufficientSampleError, SchemaError, SmallSampleWarning, user_stacklevel
from pairedframe.stats.cluster import MIN_CLUSTERS
from pairedframe.stats.equivalence import minimum_detectable_difference
from pairedframe.stats.mcnemar import mcnemar_exact

__all__ = ["compare_clustered_by_join"]


def _with_clusters(table: EngineTable, clusters: Any) -> tuple[str, list[str]]:
    """A table of the user's rows with a String ``cluster`` column, and its columns; the checks of
    :func:`pairedframe.comparison.clustered.attach_clusters` (each query in exactly one cluster)."""
    q = table.quote
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
        table.create(source, f"SELECT {', '.join('u.' + q(c) for c in others)}, m.cluster FROM {table.source} u "
                             f"LEFT JOIN {mapping} m ON {cond}")
    keys = [c for c in others if c not in ("system", "qid", "measure", "value")]
    lost = table.collect(f"SELECT qid, system, measure FROM {source} WHERE cluster IS NULL AND value IS NOT NULL")
    if lost.height:
        row = lost.row(0, named=True)
        raise ValueError(f"query {row['qid']!r} (system {row['system']!r}, measure {row['measure']!r}) "
                         f"has no cluster; {lost.height} row(s) lack one")
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
                              progress: Callable[[int, int], None] | None) -> pl.DataFrame:
    """:func:`~pairedframe.compare_clustered` of a per-query table in an engine (``opt`` checked)."""
    try:
        source, columns = _with_clusters(table, clusters)
        paired = pair_in_engine(table, baseline, systems, measures, extra_keys=("cluster",), source=source,
                                columns=columns)
        keys = paired.extras
        moments = comparison_moments(paired, fingerprint="concat(qid, '|', cluster)")
        per_cluster = table.collect(
            f"SELECT comp, count(*) AS n_clusters, sum(abs(s)) AS abs_sum, max(abs(s)) AS max_abs FROM "
            f"(SELECT comp, cluster, sum(delta) AS s FROM {paired.pairs} GROUP BY comp, cluster) g GROUP BY comp")
        binary = table.collect(
            f"SELECT comp, CAST(min(CASE WHEN a IN (0, 1) AND b IN (0, 1) THEN 1 ELSE 0 END) AS BIGINT) AS binary, "
            f"CAST(sum(CASE WHEN a = 1 AND b = 0 THEN 1 ELSE 0 END) AS BIGINT) AS mb, "
            f"CAST(sum(CASE WHEN a = 0 AND b = 1 THEN 1 ELSE 0 END) AS BIGINT) AS mc FROM {paired.pairs} GROUP BY comp")
        rows = (paired.rows.with_columns(pl.col("_row").cast(pl.Int64))
                .join(moments.rename({"comp": "_row"}), on="_row", how="left")
                .join(per_cluster.rename({"comp": "_row"}), on="_row", how="left")
                .join(binary.rename({"comp": "_row"}), on="_row", how="left").sort("_row")
                .with_columns(pl.col("n_queries").fill_null(0), pl.col("n_clusters").fill_null(0)))
        short = rows.filter((pl.col("n_queries") < 2) | (pl.col("n_clusters") < 2))
        if short.height:
            row = short.row(0, named=True)
            what = ", ".join(f"{c} {row[c]!r}" for c in ["system", *keys, "measure"])
            raise InsufficientSampleError(
                f"comparison with baseline {baseline!r} ({what}) has {row['n_queries']} common queries in "
                f"{row['n_clusters']} clusters; a cluster comparison needs at least 2 clusters")
        few = rows.filter(pl.col("n_clusters") < MIN_CLUSTERS)
        if few.height:
            row = few.sort("n_clusters").row(0, named=True)
            warnings.warn(f"{few.height} comparison(s) have fewer than MIN_CLUSTERS = {MIN_CLUSTERS} clusters "
                          f"(smallest: G = {row['n_clusters']}, {row['system']} / {row['measure']}); the cluster "
                          "bootstrap interval is likely too narrow and the p-value coarse", SmallSampleWarning,
                          stacklevel=user_stacklevel())
        k_total = rows.height
        alpha = 1.0 - opt.confidence_level
        st = {n: np.full(k_total, np.nan) for n in ("delta", "ci_low", "ci_high", "se", "pvalue", "mde")}
        st["baseline_mean"] = rows["baseline_mean"].to_numpy().astype(float)
        st["system_mean"] = rows["system_mean"].to_numpy().astype(float)
        ints = {n: rows[n].fill_null(0).to_numpy().astype(np.int64)
                for n in ("n_queries", "n_clusters", "wins", "losses", "ties")}
        exact = np.zeros(k_total, dtype=bool)
        all_zero = ((rows["dmin"] == 0) & (rows["dmax"] == 0)).to_numpy()
        mc: dict[str, list] = {n: [None] * k_total for n in ("mcnemar_pvalue", "mcnemar_b", "mcnemar_c")}
        for r, (is_binary, b, c) in enumerate(rows.select("binary", "mb", "mc").iter_rows()):
            if is_binary:
                m = mcnemar_exact([1] * b + [0] * c, [0] * b + [1] * c)
                mc["mcnemar_pvalue"][r], mc["mcnemar_b"][r], mc["mcnemar_c"][r] = m.pvalue, m.b, m.c
        done = 0
        for comps, members in query_set_groups(paired, moments, match=("qid", "cluster")):
            idx = np.asarray(comps)
            sub = rows[idx]
            qids, cl = members["qid"].to_list(), members["cluster"].to_list()
            n = len(qids)
            delta = sub["delta"].to_numpy().astype(float)
            constant = (sub["dmin"] == sub["dmax"]).to_numpy()
            wide = wide_deltas(paired, comps, qids)
            boot = resample_index(qids, clusters=cl, n_resamples=opt.n_resamples, seed=opt.seed,
                                  chunk_elements=_elements(opt, n))
            low, high, se = bootstrap_from_engine(table, wide, boot, delta, constant, opt, ratio=True)
            flips = resample_index(qids, clusters=cl, n_resamples=opt.n_resamples, seed=opt.seed, kind="sign-flip",
                                   chunk_elements=_elements(opt, n))
            pv = sign_flip_from_engine(table, wide, flips, delta, sub["abs_sum"].to_numpy() / n, float(n),
                                       opt.alternative)
            pv[(sub["max_abs"] == 0).to_numpy()] = 1.0
            table.drop(wide)
            st["delta"][idx], st["ci_low"][idx], st["ci_high"][idx], st["se"][idx] = delta, low, high, se
            st["pvalue"][idx] = pv
            exact[idx] = flips.exact
            st["mde"][idx] = [0.0 if s == 0 else minimum_detectable_difference(
                float(s), alpha=alpha, power=opt.power, alternative=opt.alternative) for s in se]
            G = int(sub["n_clusters"][0])
            if flips.exact and (2.0 if opt.alternative == "two-sided" else 1.0) / 2.0 ** G > alpha:
                st["mde"][idx] = np.inf
            done += len(comps)
            if progress is not None:
                progress(done, k_total)
        return _clustered_table(paired.rows, st, ints, exact, all_zero, mc, opt, keys=keys, baseline=baseline,
                                family_by=family_by, verdict_on=verdict_on, margin=margin)
    finally:
        table.close()
