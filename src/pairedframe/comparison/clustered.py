"""Cluster-aware paired comparisons on per-query frames: cluster sign-flip p, the interval inverting it, TOST.

Queries that share a topic, a clip (five captions), or an original query (its intents) are not
independent.  :func:`compare_clustered` pairs per-query values exactly as
:func:`pairedframe.compare` does (``delta = b - a`` over the queries measured for both
systems) and then treats whole *clusters* as the unit:

- the p-value is the cluster sign-flip test (each cluster's summed delta flips as one unit; exact
  enumeration when ``2**G <= n_resamples``, or over the ``2**k`` patterns of the ``k`` non-zero cluster
  sums when ``2**k <= n_resamples``: a zero sum flips to itself);
- the interval is, by default, cluster-t (Bell-McCaffrey degrees of freedom, ``G - 1`` for equal
  cluster sizes; CR2 standard error, CR1 for equal sizes) with its
  quantile corrected for the skew and kurtosis of the cluster sums (``interval="edgeworth"``,
  :func:`~pairedframe.stats.cluster_interval.cluster_edgeworth_interval`): plain cluster-t and the
  inverted sign-flip test fall short of 95 % at ``G = 10`` when cluster effects are skewed.  With
  ``G = 2-4`` clusters (1-3 df) the correction changes next to nothing (0 at ``G = 2``, under 1 % at
  ``G = 3``) and skewed cluster effects leave the interval short (0.88-0.89 with Exp(1) cluster sums,
  ``benchmarks/calibration --section edgeworth``).  It is not
  the inverted test, so it can exclude 0 where ``p >= alpha`` (or hold it where ``p < alpha``);
  ``verdict_note`` says so and the verdict follows the test.  ``interval="signflip"`` is the set of
  shifts the test does not reject (same sign patterns; excludes 0 exactly when ``p < alpha``),
  ``"t"`` plain cluster-t and ``"percentile"`` the cluster bootstrap percentile interval (too narrow
  with few clusters);
- ``se`` is the bias-reduced cluster-robust (CR2) standard error; TOST equivalence at a margin and the
  minimum detectable difference use it with a Student-t reference on the same degrees of freedom, so
  "equivalent" keeps its 5 % at ``G = 10`` (a z reference on the bootstrap SE gave 7.2 % on Gaussian
  deltas).

Calibration on real TREC deltas grouped into clusters: README "Calibration"
(``benchmarks/calibration --section clustered``), which also sets :data:`MIN_CLUSTERS`.

``G`` is the number of *distinct* cluster ids among the paired queries (never ``max id + 1``);
cluster sizes may differ.

Shared resample streams
-----------------------
Every comparison (system x keys x measure) with the same query set *and* the same partition of that
set into clusters shares one cluster-index stream and one sign stream.  Clusters are put in a
canonical order that depends only on the partition (by the code-point-smallest qid of each
cluster), so relabelling clusters or reordering rows changes nothing, bit for bit.  The streams are

- ``default_rng(keyed_seed_sequence(seed, key))`` for the bootstrap and
- ``default_rng(keyed_seed_sequence(seed, ("sign-flip", key)))`` for sign flips,

with ``key = ("cluster", query_set_key(qids), partition_key)``, except that when every cluster holds
one query the key is ``query_set_key(qids)`` -- the key :func:`~pairedframe.compare` uses --
so that with singleton clusters the results equal the plain comparison (see :func:`cluster_streams`).
A comparison's resamples therefore depend only on the seed, its query set and its clusters, never
on what else is in the call.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from pairedframe.errors import OLD_LEVEL_AND_SEED
from pairedframe.comparison._cost import column_slices
from pairedframe.comparison.engine_tables import engine_table
from pairedframe.comparison.pairing import BASE_COLUMNS, as_frame, pair_systems
from pairedframe.comparison.printed_precision import warn_mixed_printed_precision
from pairedframe.comparison.clustered_stats import ClusteredStats
from pairedframe.comparison.streams import cluster_layout, cluster_streams, partition_key
from pairedframe.checks import near_miss_hint, quoted, string_ids
from pairedframe.comparison.verdicts import smallest_pvalue, verdict_column
from pairedframe.errors import USE_CORRECTION, SchemaError, SmallSampleWarning, renamed_keywords
from pairedframe.stats.cluster import cluster_bootstrap_columns
from pairedframe.stats.cluster_interval import (cluster_df, cluster_edgeworth_interval, cluster_robust_se,
                                                cluster_t_interval, flip_interval_from_sums)
from pairedframe.stats.studentized import ZERO_SPREAD_RTOL, zero_spread
from pairedframe.stats.mcnemar import mcnemar_exact
from pairedframe.stats.resample import query_set_key
from pairedframe.comparison.cluster_tables import (check_cluster_cost, check_cluster_counts, cluster_map,
                                                   clustered_table, where_clusters, zero_spread_interval)

__all__ = ["CLUSTER_POLICY", "cluster_policy", "compare_clustered", "cluster_streams", "cluster_layout", "attach_clusters"]

def cluster_policy(interval: str = "cluster-t with the Edgeworth-corrected quantile") -> str:
    """How clusters are formed and resampled, with the ``interval`` a caller computes (``analyze``: the
    inversion of the cluster sign-flip test)."""
    return ("clusters = distinct cluster ids among the paired queries; sign-flip: each cluster's summed "
            f"delta flips as one; interval: {interval}; SE: cluster-robust CR2 (CR1 for equal sizes), "
            "Bell-McCaffrey df; bootstrap (on request): ratio of drawn cluster sums to sizes; canonical cluster "
            "order by smallest qid; one stream per (query set, clusters)")


CLUSTER_POLICY = cluster_policy()
_INTERVALS = ("edgeworth", "signflip", "t", "percentile")


# ----------------------------------------------------------------------------------------------
# clusters as a partition of a query set
# ----------------------------------------------------------------------------------------------

# ----------------------------------------------------------------------------------------------
# attaching a cluster column
# ----------------------------------------------------------------------------------------------


def attach_clusters(data: Any, clusters: Any = None, *, cluster_column: str = "cluster") -> tuple[pl.DataFrame, list[str]]:
    """Validated per-query frame with a ``cluster`` column, and its key columns.

    Parameters
    ----------
    data : Evaluation, table or path
        ``system, qid, measure, value`` plus optional key columns (e.g. ``dataset``) and, when
        ``clusters`` is None, the column ``cluster_column``.
    clusters : None, str, mapping or table
        None: use ``data[cluster_column]``.  A str: the name of the cluster column of ``data``.  A
        mapping ``{qid: cluster}`` or a table with columns ``qid, cluster`` (and optionally any key
        columns of ``data``, e.g. ``dataset``, to map per dataset).
    cluster_column : str, default "cluster"

    Returns
    -------
    (polars.DataFrame, list of str)
        The frame with a String column ``cluster`` and the key columns (other than ``cluster``).

    Raises
    ------
    SchemaError
        No cluster column / mapping, or the mapping lacks ``qid``/``cluster``.
    ValueError
        A query without a cluster (names it), or a query in two clusters (names it).
    """
    if isinstance(clusters, str):
        cluster_column, clusters = clusters, None
    df = as_frame(data, keep_columns=(cluster_column,) if clusters is None else ())
    if clusters is None:
        if cluster_column not in df.columns:
            raise SchemaError(f"no cluster column {cluster_column!r} in the per-query table (columns {df.columns}); "
                              "add one or pass clusters= (a qid -> cluster mapping or table)")
        if cluster_column != "cluster":
            if "cluster" in df.columns:
                raise SchemaError("table has both 'cluster' and the chosen cluster column "
                                  f"{cluster_column!r}; drop one")
            df = df.rename({cluster_column: "cluster"})
    else:
        if "cluster" in df.columns:
            raise SchemaError("the per-query table already has a 'cluster' column; do not also pass clusters=")
        cmap, on = cluster_map(clusters, df.columns)
        df = df.join(cmap.unique(), on=on, how="left")
    df = string_ids(df, ["cluster"], "the per-query table")  # float (and NaN) cluster ids refused
    if df["cluster"].null_count():
        row = df.filter(pl.col("cluster").is_null()).row(0, named=True)
        known = cmap["qid"].to_list() if clusters is not None and "qid" in on else []
        raise ValueError(f"query {quoted(row['qid'])} (system {quoted(row['system'])}, measure "
                         f"{quoted(row['measure'])}) has no "
                         f"cluster {where_clusters(clusters is not None, cluster_column)}; "
                         f"{df['cluster'].null_count()} row(s) lack one"
                         + near_miss_hint(df.filter(pl.col("cluster").is_null())["qid"].to_list(), known,
                                          of="the per-query table", in_="the clusters"))
    keys = [c for c in df.columns if c not in (*BASE_COLUMNS, "cluster")]
    per_q = df.select(*keys, "qid", "cluster").unique()
    two = per_q.select(*keys, "qid").is_duplicated()
    if two.any():
        row = per_q.filter(two).sort("cluster").row(0, named=True)
        where = "".join(f", {k} {row[k]!r}" for k in keys)
        raise ValueError(f"query {row['qid']!r}{where} is in more than one cluster "
                         f"({per_q.filter(two & (pl.col('qid') == row['qid']))['cluster'].to_list()})")
    return df, keys


# ----------------------------------------------------------------------------------------------
# the comparison
# ----------------------------------------------------------------------------------------------

def _binary(x: np.ndarray) -> bool:
    return bool(np.all((x == 0) | (x == 1)))


@renamed_keywords(verdict_on=USE_CORRECTION, **OLD_LEVEL_AND_SEED)
def compare_clustered(data: Any, *, baseline: str, clusters: Any = None, systems: Sequence[str] | str | None = None,
                      measures: Sequence[str] | str | None = None, n_resamples: int = 10_000,
                      confidence_level: float = 0.95,
                      alternative: Literal["two-sided", "greater", "less"] = "two-sided", seed: int = 0,
                      margin: float | None = None, power: float = 0.8,
                      family_by: Sequence[str] | str | None = None, chunk_size: int | None = None,
                      correction: Literal["none", "holm", "bh"] = "holm",
                      progress: Callable[[int, int], None] | None = None,
                      interval: Literal["edgeworth", "signflip", "t", "percentile"] | None = None) -> pl.DataFrame:
    """Compare systems with a baseline when queries come in clusters.

    Parameters
    ----------
    data : Evaluation, table or path
        Per-query ``system, qid, measure, value`` (polars, pandas, arrow, DuckDB relation, or an
        :class:`~pairedframe.evaluation.Evaluation`), optionally with a ``cluster`` column and other
        key columns (e.g. ``dataset``), which are carried through and define separate comparisons.
        A DuckDB relation or a Spark DataFrame is resampled as joins in its engine, same result
        (:mod:`pairedframe.comparison.by_join_clustered`).
        A path (or list of paths) is read with :func:`pairedframe.read_results`.
    baseline : str
        System ``a`` (exact name); deltas are ``b - a``.
    clusters : None, str, mapping or table, optional
        Where the clusters come from: None = the ``cluster`` column of ``data``; a str = another
        column of ``data``; a ``{qid: cluster}`` mapping or a ``qid, cluster[, dataset...]`` table
        (see :func:`attach_clusters`).  Every paired query needs exactly one cluster.
    systems, measures
        As :func:`pairedframe.compare`.
    n_resamples : int, default 10_000
        Monte-Carlo sign patterns (and cluster bootstrap resamples for ``interval="percentile"``),
        ``>= 2``; the sign-flip test is exact (all ``2**G`` patterns) when ``2**G <= n_resamples``, and
        so is it when the ``k`` clusters whose summed delta is not 0 have ``2**k <= n_resamples`` (their
        ``2**k`` patterns are enumerated; a zero sum flips to itself); otherwise its Monte-Carlo p is
        never below ``2 / 2**k`` (``1 / 2**k`` one-sided).  The ``n_resamples`` column is this argument,
        or, where the p-value enumerated its patterns and nothing else was drawn (no percentile bootstrap;
        a sign-flip interval that enumerated all ``2**G`` too), that number of patterns (``2**G`` or
        ``2**k``), as in :func:`pairedframe.compare`.
    confidence_level : float in (0, 1), default 0.95
        Of the interval; ``alpha = 1 - confidence_level`` for verdicts, TOST and the MDE.  Above 0.5 with
        a one-sided ``alternative``.
    alternative : {"two-sided", "greater", "less"}
        Of the difference test and interval (TOST is always the two one-sided tests). The side of
        the raw delta, as in :func:`pairedframe.compare`: ``"greater"`` is delta > 0, so for a measure
        where lower is better (FirstRelRank) ``"less"`` is the improvement.
    seed : int, default 0
        With the query set and the clusters, determines every resample (:func:`cluster_streams`).
    margin : float, optional
        Equivalence margin ``m > 0``: adds TOST at ``(-m, m)`` with the CR2 cluster SE and Bell-McCaffrey
        degrees of freedom.
    power : float in (0, 1), default 0.8
        For the minimum detectable difference.
    family_by, chunk_size, correction, progress
        As :func:`pairedframe.compare`.
    interval : {"edgeworth", "signflip", "t", "percentile"} or None, default None
        None: the default, ``"edgeworth"`` (as :func:`compare`'s None is its test's default interval).
        ``"edgeworth"``: ``delta -/+ q se`` with ``q`` the ``t(df)`` quantile (``df`` the Bell-McCaffrey
        degrees of freedom, ``G - 1`` for equal cluster sizes) corrected by the
        second-order Edgeworth term of the cluster sums' skew and kurtosis (one-sided: plain
        ``t(df)``, named ``"cluster t (one-sided: no Edgeworth step)"`` in the ``interval`` column;
        :mod:`pairedframe.stats.edgeworth`; no correction to speak of below 4 clusters);
        ``"signflip"``: the shifts the cluster sign-flip test does not reject (agrees with ``pvalue`` by
        construction); ``"t"``: cluster-t, ``delta -/+ t(df) se``; ``"percentile"``: the cluster bootstrap
        percentile interval (bit for bit scipy's on the cluster summaries; too narrow below about 30
        clusters).

    Returns
    -------
    polars.DataFrame
        One row per (system, keys, measure), in the given system and measure order, with the columns
        of :func:`~pairedframe.compare` where they apply -- ``system, <keys>, measure, baseline,
        n_queries, n_clusters, baseline_mean, system_mean, delta, ci_low, ci_high, se, df, pvalue,
        pvalue_holm, pvalue_bh, wins, losses, ties, mde, verdict, verdict_note`` -- then ``mcnemar_pvalue,
        mcnemar_b, mcnemar_c`` (exact McNemar on the paired values when both are 0/1, a reference that
        ignores clusters; null otherwise), with ``margin``: ``margin, pvalue_tost, pvalue_tost_holm,
        pvalue_tost_bh, tost_low, tost_high, equivalent``; and ``test, interval, confidence_level,
        alternative, n_resamples, exact, seed, family`` (the Holm/BH family in words, as :func:`~pairedframe.compare`).

        ``se`` is the cluster-robust CR2 standard error (CR1 for equal cluster sizes; a dominant cluster's
        residual weighs more) and ``df`` its Bell-McCaffrey degrees of freedom, the t reference of the
        interval, TOST and MDE; ``mde`` the noncentral-t minimum detectable difference of cluster-t (not of the
        cluster sign-flip test that decides the verdict, which it approximates; Bell-McCaffrey
        degrees of freedom, :func:`~pairedframe.stats.cluster_interval.cluster_df`: ``G - 1`` for equal
        sizes) at the level the verdict needs (``alpha``, or
        ``alpha / m`` for Holm and BH over ``m`` comparisons), inf when the cluster sign-flip test
        cannot reach that level (``2/2^k`` with ``k`` the non-zero cluster sums, ``1/(n_resamples+1)``
        Monte Carlo);
        ``tost_low/high`` is the unadjusted ``1 - 2 alpha`` (90 %) interval ``delta -/+ t(1-alpha, df)
        se``, which lies inside ``(-margin, margin)`` iff ``pvalue_tost < alpha``; ``pvalue_tost_holm``
        / ``pvalue_tost_bh`` adjust the TOST p-values within the family (as ``pvalue_holm`` /
        ``pvalue_bh``), and ``equivalent`` is true iff the one matching ``correction`` is below
        ``alpha`` (``pvalue_tost`` for ``correction="none"``): an equivalence claim is adjusted for
        multiplicity exactly as a difference claim, so the family's claims of either kind keep its
        error rate.  A row that is not significant but equivalent has the verdict ``"equivalent"``;
        ``verdict_note`` gives the TOST p-value used and the interval, and says so where the interval
        lies inside the margin but the adjusted p-value does not pass.  A comparison whose deltas are all 0 has
        ``se = 0``, ``mde`` NaN and the verdict ``"identical"``; one whose cluster sums are all 0 (up to the float
        noise of its deltas) while its deltas are not has ``delta`` 0, ``pvalue`` 1 and no attainable
        significance (every sign pattern ties), so ``mde`` inf and the verdict ``"inconclusive"``.
        With ``se = 0`` (no spread between
        clusters: constant deltas, or equal cluster sums) nothing is certain: whatever ``interval``, it is
        :func:`compare`'s interval for equal deltas over G units (the mean deltas of populations in the
        measure's range that give G equal cluster deltas with at least the level's probability; the whole
        line for a measure with no known range), never a point, and so is TOST's: ``tost_low/high`` is that
        interval at ``1 - 2 alpha`` and ``pvalue_tost`` the exact p-value it inverts (the largest chance that
        a population in the range with its mean on a margin gives G equal deltas; 1 for a measure with no
        known range), so "equivalent" needs that interval inside ``(-margin, margin)`` -- G equal deltas alone
        certify nothing.  Cluster sums that are all 0 up to float noise (``max |S_g| <= 1e-12 max |delta|``:
        0.1, 0.2, 0.7 against 0.7, 0.1, 0.2) are such equal deltas of 0: ``pvalue = 1``, as :func:`compare`
        gives deltas of 0, never the sign flips of the noise.

    Raises
    ------
    ResamplingCostError
        ``n_resamples`` would take absurd time or memory for this data, estimated before any
        resampling (:mod:`pairedframe.comparison._cost`; the message gives the largest value that fits).
    InsufficientSampleError
        A comparison with fewer than 2 common queries or fewer than 2 clusters.
    SchemaError, DuplicateError, ValueError, TypeError
        Bad input, a query without a cluster or in two clusters, bad options.

    Warns
    -----
    SmallSampleWarning
        A comparison with fewer than :data:`~pairedframe.stats.cluster.MIN_CLUSTERS` (8) clusters:
        there the exact sign-flip test that decides the verdict has few patterns (at 6 clusters it
        rejected 3.1-4.0 % of true nulls at 5 %; at 5 or fewer nothing can be significant at 5 %),
        while the default interval still covered 0.947-0.958 at 6 clusters.
    UserWarning
        No comparison can be significant at its verdict level (too few clusters for the exact test).

    References
    ----------
    Davison & Hinkley (1997), *Bootstrap Methods and their Application*, sec. 3.8; Cameron, Gelbach &
    Miller (2008), Rev. Econ. Stat. 90(3); Cameron & Miller (2015), J. Human Resources 50(2); Canay,
    Romano & Shaikh (2017), Econometrica 85(3); Garthwaite (1996); Schuirmann (1987); McNemar (1947);
    Holm (1979).
    """
    from pairedframe.comparison.options import check_options

    opt = check_options(n_resamples, confidence_level, alternative, "randomization", "percentile", seed,
                        chunk_size, power)
    interval = "edgeworth" if interval is None else interval     # None: the default, as compare's
    if interval not in _INTERVALS:
        raise ValueError(f"`interval` must be one of {_INTERVALS}, got {interval!r}")
    if margin is not None:
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not (margin > 0 and math.isfinite(margin)):
            raise ValueError(f"`margin` must be a positive number, got {margin!r}")
        margin = float(margin)
    verdict_on = verdict_column(correction)
    in_engine = engine_table(data)
    if in_engine is not None:  # a DuckDB relation or a Spark DataFrame: resampled as joins there
        from pairedframe.comparison.by_join_clustered import compare_clustered_by_join

        return compare_clustered_by_join(in_engine, opt, baseline=baseline, clusters=clusters, systems=systems,
                                         measures=measures, margin=margin, family_by=family_by,
                                         verdict_on=verdict_on, progress=progress, interval=interval)
    df, keys = attach_clusters(data, clusters)
    cmap = df.select(*keys, "qid", "cluster").unique()
    # summary rows are gone (attach_clusters read the table once): flagged so a query 'all' is not read as one
    p = pair_systems(df.drop("cluster").with_columns(summary=pl.lit(False)), baseline, systems, measures)
    paired = p.paired.join(cmap, on=[*keys, "qid"], how="left").sort("_row", "qid")
    st = _clustered_statistics(p.rows, paired, opt, keys=keys, baseline=baseline, interval=interval,
                               progress=progress)
    return clustered_table(p.rows, st, opt, keys=keys, baseline=baseline, family_by=family_by,
                           verdict_on=verdict_on, margin=margin, interval=interval)


def _clustered_statistics(rows: pl.DataFrame, paired: pl.DataFrame, opt: Any, *, keys: list[str], baseline: str,
                          interval: str, progress: Callable[[int, int], None] | None) -> ClusteredStats:
    """The statistics of every comparison (``rows``), computed per shared (query set, partition): each such
    group's comparisons are resampled together, from the group's own streams."""
    k_total = rows.height
    st = ClusteredStats.unfilled(k_total)
    per_row = paired.group_by("_row", maintain_order=True).agg("qid", "cluster", "a", "b", "delta")
    groups: dict[tuple[bytes, bytes], list[int]] = {}
    data_of: dict[int, tuple] = {}
    for r, qids, cl, a, b, d in per_row.iter_rows():
        codes, members = cluster_layout(qids, cl)
        data_of[r] = (qids, cl, codes, members, np.asarray(a, float), np.asarray(b, float), np.asarray(d, float))
        groups.setdefault((query_set_key(qids), partition_key(members)), []).append(r)
    check_cluster_counts(rows, np.array([len(data_of[r][0]) if r in data_of else 0 for r in range(k_total)]),
                          np.array([len(data_of[r][3]) if r in data_of else 0 for r in range(k_total)]),
                          keys=keys, baseline=baseline)
    warn_mixed_printed_precision(paired, rows, baseline, keys)
    check_cluster_cost(opt, [(len(data_of[m[0]][3]), len(m)) for m in groups.values()], interval)
    done = 0
    for members_rows in groups.values():
        _fill_query_set(st, members_rows, data_of, opt, interval)
        done += len(members_rows)
        if progress is not None:
            progress(done, k_total)
    return st


def _fill_query_set(st: ClusteredStats, members_rows: list[int], data_of: dict[int, tuple], opt: Any,
                    interval: str) -> None:
    """Write the statistics of the comparisons ``members_rows`` (one query set and partition) into ``st``."""
    qids, cl, codes, members, *_ = data_of[members_rows[0]]
    G = len(members)
    D = np.column_stack([data_of[r][6] for r in members_rows])           # (n, k), qid code-point order
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=G).astype(np.float64)
    starts = np.zeros(G, dtype=np.intp)
    np.cumsum(sizes[:-1].astype(np.intp), out=starts[1:])
    sums = np.ascontiguousarray(np.add.reduceat(D[order], starts, axis=0))   # (G, k) canonical order
    parts = column_slices(D.shape[1], opt.n_resamples, 3 if interval == "percentile" else 5)
    res = [_cluster_columns(D[:, part], sums[:, part], sizes, qids, cl, opt, interval) for part in parts]
    idx = np.asarray(members_rows)
    st.delta[idx], st.pvalue[idx], st.ci_low[idx], st.ci_high[idx], st.se[idx] = (
        np.concatenate([r[i] for r in res]) for i in range(5))
    st.df[idx] = cluster_df(sizes)      # G - 1 for equal sizes, fewer when a few clusters dominate
    exact = np.concatenate([r[5] for r in res])     # per column: few non-zero cluster sums are enumerated
    st.exact[idx] = exact
    # a zero cluster sum flips to itself; 0 up to the float noise of its deltas counts as 0 (noise_sums' rule)
    nonzero = np.count_nonzero(np.abs(sums) > ZERO_SPREAD_RTOL * np.max(np.abs(D), axis=0), axis=0)
    st.nonzero_clusters[idx] = nonzero
    st.floor[idx] = [smallest_pvalue("randomization", bool(e), G, opt.alternative, opt.n_resamples, nonzero=int(z))
                     for e, z in zip(exact, nonzero)]
    for r in members_rows:
        _, _, _, _, a, b, d = data_of[r]
        st.baseline_mean[r], st.system_mean[r] = a.mean(), b.mean()
        st.delta_min[r], st.delta_max[r] = d.min(), d.max()
        st.n_queries[r], st.n_clusters[r] = d.shape[0], G
        st.wins[r], st.losses[r], st.ties[r] = (d > 0).sum(), (d < 0).sum(), (d == 0).sum()
        st.all_zero[r] = not np.any(d != 0)
        if _binary(a) and _binary(b):
            m = mcnemar_exact(a, b)
            st.mcnemar.put(r, m.pvalue, m.b, m.c)


def _cluster_columns(D: np.ndarray, sums: np.ndarray, sizes: np.ndarray, qids: list[str], cl: list[Any], opt: Any,
                     interval: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(delta, p, ci_low, ci_high, se, exact) of the columns of one query set and partition (a slice of
    them, from the set's own streams: the same draws whatever the slice); ``exact`` per column."""
    G = sums.shape[0]
    boot_rng, flip_rng = cluster_streams(opt.seed, qids, cl)
    # cluster sums that are float noise of the deltas they sum test as all-zero ones (p = 1), as se is 0 below
    theta, pv, lo_f, hi_f, _, ex = flip_interval_from_sums(sums, sizes, opt.n_resamples, opt.confidence_level,
                                                  opt.alternative, flip_rng, opt.chunk_size,
                                                  scale=np.max(np.abs(D), axis=0))
    se = cluster_robust_se(sums, sizes)
    se[zero_spread(D)] = 0.0          # float noise is no spread: no certainty from it (TOST, MDE)
    se[se <= ZERO_SPREAD_RTOL * np.max(np.abs(D), axis=0)] = 0.0     # equal cluster sums up to float noise
    df = cluster_df(sizes)            # G - 1 for equal sizes, fewer when a few clusters dominate
    if interval == "signflip":
        ci_low, ci_high = lo_f, hi_f
    elif interval == "edgeworth":
        ci_low, ci_high = cluster_edgeworth_interval(sums, sizes, se=se, confidence_level=opt.confidence_level,
                                                     alternative=opt.alternative)
    elif interval == "t":
        ci_low, ci_high = cluster_t_interval(theta, se, G, confidence_level=opt.confidence_level,
                                             alternative=opt.alternative, df=df)
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SmallSampleWarning)
            _, ci, _ = cluster_bootstrap_columns(D, sums, sizes, opt.n_resamples, opt.confidence_level, opt.alternative,
                                     boot_rng, opt.chunk_size)
        ci_low, ci_high = ci.low, ci.high
    if interval in ("edgeworth", "t"):
        ci_low, ci_high = zero_spread_interval(theta, se, ci_low, ci_high, G, 1.0 - opt.confidence_level,
                                                opt.alternative)
    return theta, pv, np.asarray(ci_low, float), np.asarray(ci_high, float), se, ex


