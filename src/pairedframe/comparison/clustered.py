"""Cluster-aware paired comparisons on per-query frames: cluster sign-flip p, the interval inverting it, TOST.

Queries that share a topic, a clip (five captions), or an original query (its intents) are not
independent.  :func:`compare_clustered` pairs per-query values exactly as
:func:`pairedframe.compare` does (``delta = b - a`` over the queries measured for both
systems) and then treats whole *clusters* as the unit:

- the p-value is the cluster sign-flip test (each cluster's summed delta flips as one unit; exact
  enumeration when ``2**G <= n_resamples``);
- the interval is, by default, cluster-t (Bell-McCaffrey degrees of freedom, ``G - 1`` for equal
  cluster sizes; CR2 standard error, CR1 for equal sizes) with its
  quantile corrected for the skew and kurtosis of the cluster sums (``interval="edgeworth"``,
  :func:`~pairedframe.stats.cluster_interval.cluster_edgeworth_interval`): plain cluster-t and the
  inverted sign-flip test fall short of 95 % at ``G = 10`` when cluster effects are skewed.  With
  ``G = 2-4`` clusters (1-3 df) the correction changes next to nothing (0 at ``G = 2``, under 1 % at
  ``G = 3``) and skewed cluster effects leave the interval short (0.88-0.89 with Exp(1) cluster sums,
  ``benchmarks/cluster_edgeworth_small_g.py``).  It is not
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
(``benchmarks/calibration.py --section clustered``), which also sets :data:`MIN_CLUSTERS`.

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

import hashlib
import math
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import polars as pl

from pairedframe.comparison._cost import check_resampling_cost, column_slices
from pairedframe.comparison._equivalence import with_tost
from pairedframe.comparison._families import family_columns, family_ids, family_text
from pairedframe.comparison.engine_tables import engine_table
from pairedframe.comparison.interval_range import clip_delta_intervals, clip_deltas
from pairedframe.comparison.paired import BASE_COLUMNS, _as_frame, _oriented, _pair
from pairedframe.checks import string_ids
from pairedframe.measures import higher_is_better
from pairedframe.comparison.verdicts import (family_rejections, reachable_levels, smallest_pvalue, t_mde, verdict,
                                             verdict_levels, verdict_notes,
                                             warn_unreachable)
from pairedframe.errors import InsufficientSampleError, SchemaError, SmallSampleWarning, user_stacklevel
from pairedframe.stats.cluster import MIN_CLUSTERS, _cluster_boot
from pairedframe.stats.cluster_interval import (_flip_interval, cluster_df, cluster_edgeworth_interval,
                                                cluster_robust_se, cluster_t_interval)
from pairedframe.stats.studentized import ZERO_SPREAD_RTOL, zero_spread
from pairedframe.stats.mcnemar import mcnemar_exact
from pairedframe.stats.multiple import benjamini_hochberg, holm
from pairedframe.stats.resample import keyed_seed_sequence, query_set_key

__all__ = ["CLUSTER_POLICY", "compare_clustered", "cluster_streams", "cluster_layout", "attach_clusters"]

CLUSTER_POLICY = ("clusters = distinct cluster ids among the paired queries; sign-flip: each cluster's summed "
                  "delta flips as one; interval: cluster-t with the Edgeworth-corrected quantile; SE: cluster-robust CR2 (CR1 for equal sizes), Bell-McCaffrey df; bootstrap (on "
                  "request): ratio of drawn cluster sums to sizes; canonical cluster order by smallest qid; "
                  "one stream per (query set, clusters)")
_INTERVALS = ("edgeworth", "signflip", "t", "percentile")


# ----------------------------------------------------------------------------------------------
# clusters as a partition of a query set
# ----------------------------------------------------------------------------------------------

def cluster_layout(qids: Sequence[str], clusters: Sequence[Any]) -> tuple[np.ndarray, list[list[str]]]:
    """Canonical cluster order of a query set.

    Parameters
    ----------
    qids : sequence of str, shape (n,)
        Distinct query ids.
    clusters : sequence, shape (n,)
        Cluster id of each query (any hashable; only equality is used).

    Returns
    -------
    codes : ndarray of intp, shape (n,)
        Canonical cluster number ``0..G-1`` of each query: clusters are numbered in code-point order
        of their smallest qid, so the numbering depends only on the partition, not on the labels.
    members : list of G lists of str
        The qids of each cluster, sorted, in canonical order.
    """
    groups: dict[Any, list[str]] = {}
    for q, c in zip(qids, clusters):
        groups.setdefault(c, []).append(str(q))
    members = sorted((sorted(m) for m in groups.values()), key=lambda m: m[0])
    where = {q: g for g, m in enumerate(members) for q in m}
    codes = np.fromiter((where[str(q)] for q in qids), dtype=np.intp, count=len(qids))
    return codes, members


def _partition_key(members: list[list[str]]) -> bytes:
    h = hashlib.blake2b(digest_size=32, person=b"pf-partition")
    for m in members:
        h.update(query_set_key(m))
    return h.digest()


def cluster_streams(seed: int, qids: Sequence[Any], clusters: Sequence[Any]
                    ) -> tuple[np.random.Generator, np.random.Generator]:
    """The (cluster bootstrap, cluster sign-flip) generators :func:`compare_clustered` uses.

    Parameters
    ----------
    seed : int
        Non-negative user seed.
    qids, clusters : sequences of shape (n,)
        The paired queries of a comparison and their cluster ids.

    Returns
    -------
    (numpy.random.Generator, numpy.random.Generator)
        Keyed by the seed, the query set and the partition into clusters (module docstring).  With
        singleton clusters these are exactly :func:`pairedframe.comparison.resample_generators`.
    """
    qids = [str(q) for q in qids]
    _, members = cluster_layout(qids, clusters)
    qkey = query_set_key(qids)
    key: Any = qkey if len(members) == len(qids) else ("cluster", qkey, _partition_key(members))
    return (np.random.default_rng(keyed_seed_sequence(seed, key)),
            np.random.default_rng(keyed_seed_sequence(seed, ("sign-flip", key))))


# ----------------------------------------------------------------------------------------------
# attaching a cluster column
# ----------------------------------------------------------------------------------------------

def _no_id(value: Any) -> bool:
    """None, or a float NaN (pandas' missing value): no cluster id at all."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def where_clusters(mapped: bool, column: str = "cluster") -> str:
    """Where a query's cluster was looked for, for messages: the argument or the column."""
    return "in clusters=" if mapped else f"(its {column!r} column is null)"


def cluster_map(clusters: Any, columns: list[str]) -> tuple[pl.DataFrame, list[str]]:
    """A ``{qid: cluster}`` mapping or a ``qid, cluster[, keys]`` table as a checked table, and the
    columns (of ``columns``, qid always) it maps on; ids and clusters as strings."""
    if isinstance(clusters, dict):
        cmap = pl.DataFrame({"qid": [str(k) for k in clusters],
                             "cluster": [None if _no_id(v) else str(v) for v in clusters.values()]},
                            schema={"qid": pl.String, "cluster": pl.String})
    else:
        cmap = clusters if isinstance(clusters, pl.DataFrame) else pl.DataFrame(clusters)
    missing = [c for c in ("qid", "cluster") if c not in cmap.columns]
    if missing:
        raise SchemaError(f"cluster table lacks column(s) {missing}; needs qid, cluster (has {cmap.columns})")
    on = [c for c in cmap.columns if c != "cluster" and c in columns and c not in ("value",)]
    if "qid" not in on:
        on.append("qid")
    cmap = string_ids(cmap.select(*on, "cluster"), [*on, "cluster"], "the cluster table")
    dup = cmap.select(on).is_duplicated()
    if dup.any():
        raise ValueError(f"cluster table maps {dict(cmap.filter(dup).row(0, named=True))} more than once")
    return cmap, on


def attach_clusters(data: Any, clusters: Any = None, *, cluster_column: str = "cluster") -> tuple[pl.DataFrame, list[str]]:
    """Validated per-query frame with a ``cluster`` column, and its key columns.

    Parameters
    ----------
    data : Evaluation or table
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
    df = _as_frame(data, keep_columns=(cluster_column,) if clusters is None else ())
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
        raise ValueError(f"query {row['qid']!r} (system {row['system']!r}, measure {row['measure']!r}) has no "
                         f"cluster {where_clusters(clusters is not None, cluster_column)}; "
                         f"{df['cluster'].null_count()} row(s) lack one")
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


def _zero_spread_interval(theta: np.ndarray, se: np.ndarray, low: np.ndarray, high: np.ndarray, G: int,
                          alpha: float, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """Where se == 0 the t-type interval would be a point whatever G: keep the point only when the exact
    sign-flip test on G equal cluster deltas can reject (``2 / 2**G < alpha``, one-sided ``1 / 2**G``),
    else leave the unbounded side(s) open -- no certainty from zero spread."""
    low, high = np.array(low, dtype=float, copy=True), np.array(high, dtype=float, copy=True)
    floor = math.ldexp(2.0 if alternative == "two-sided" else 1.0, -G)
    if floor >= alpha:
        flat = np.asarray(se) == 0
        low[flat & (alternative != "less")] = -math.inf
        high[flat & (alternative != "greater")] = math.inf
    return low, high


def _check_cluster_counts(rows: pl.DataFrame, n_queries: np.ndarray, n_clusters: np.ndarray, *, keys: list[str],
                          baseline: str) -> None:
    """InsufficientSampleError for a comparison with fewer than 2 queries or clusters (one with none
    named first); SmallSampleWarning below MIN_CLUSTERS. ``rows``: one per comparison, in order."""
    none = np.flatnonzero(n_queries == 0)
    short = none if none.size else np.flatnonzero((n_queries < 2) | (n_clusters < 2))
    if short.size:
        r = int(short[0])
        row = rows.row(r, named=True)
        what = ", ".join(f"{c} {row[c]!r}" for c in ["system", *keys, "measure"])
        raise InsufficientSampleError(
            f"comparison with baseline {baseline!r} ({what}) has {int(n_queries[r])} common queries in "
            f"{int(n_clusters[r])} clusters; a cluster comparison needs at least 2 clusters")
    few = np.flatnonzero(n_clusters < MIN_CLUSTERS)
    if few.size:
        r = int(few[np.argmin(n_clusters[few])])
        row = rows.row(r, named=True)
        warnings.warn(f"{few.size} comparison(s) have fewer than MIN_CLUSTERS = {MIN_CLUSTERS} clusters "
                      f"(smallest: G = {int(n_clusters[r])}, {row['system']} / {row['measure']}); with so few clusters "
                      "the exact sign-flip test has few sign patterns: coarse, conservative p-values (and wide intervals "
                      "with interval='signflip')",
                      SmallSampleWarning, stacklevel=user_stacklevel())


def compare_clustered(data: Any, *, baseline: str, clusters: Any = None, systems: Sequence[str] | str | None = None,
                      measures: Sequence[str] | str | None = None, n_resamples: int = 10_000,
                      confidence_level: float = 0.95,
                      alternative: Literal["two-sided", "greater", "less"] = "two-sided", seed: int = 0,
                      margin: float | None = None, power: float = 0.8,
                      family_by: Sequence[str] | str | None = None, chunk_size: int | None = None,
                      verdict_on: Literal["pvalue", "pvalue_holm", "pvalue_bh"] = "pvalue_holm",
                      progress: Callable[[int, int], None] | None = None,
                      interval: Literal["edgeworth", "signflip", "t", "percentile"] = "edgeworth") -> pl.DataFrame:
    """Compare systems with a baseline when queries come in clusters.

    Parameters
    ----------
    data : Evaluation or table
        Per-query ``system, qid, measure, value`` (polars, pandas, arrow, DuckDB relation, or an
        :class:`~pairedframe.evaluation.Evaluation`), optionally with a ``cluster`` column and other
        key columns (e.g. ``dataset``), which are carried through and define separate comparisons.
        A DuckDB relation or a Spark DataFrame is resampled as joins in its engine, same result
        (:mod:`pairedframe.comparison.by_join_clustered`).
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
        ``>= 2``; the sign-flip test is exact (all ``2**G`` patterns) when ``2**G <= n_resamples``.
    confidence_level : float in (0, 1), default 0.95
        Of the interval; ``alpha = 1 - confidence_level`` for verdicts, TOST and the MDE.
    alternative : {"two-sided", "greater", "less"}
        Of the difference test and interval (TOST is always the two one-sided tests).
    seed : int, default 0
        With the query set and the clusters, determines every resample (:func:`cluster_streams`).
    margin : float, optional
        Equivalence margin ``m > 0``: adds TOST at ``(-m, m)`` with the CR2 cluster SE and Bell-McCaffrey
        degrees of freedom.
    power : float in (0, 1), default 0.8
        For the minimum detectable difference.
    family_by, chunk_size, verdict_on, progress
        As :func:`pairedframe.compare`.
    interval : {"edgeworth", "signflip", "t", "percentile"}, default "edgeworth"
        ``"edgeworth"``: ``delta -/+ q se`` with ``q`` the ``t(df)`` quantile (``df`` the Bell-McCaffrey
        degrees of freedom, ``G - 1`` for equal cluster sizes) corrected by the
        second-order Edgeworth term of the cluster sums' skew and kurtosis (one-sided: plain
        ``t(df)``; :mod:`pairedframe.stats.edgeworth`; no correction to speak of below 4 clusters);
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
        cannot reach that level (``2/2^G`` exact, ``1/(n_resamples+1)`` Monte Carlo);
        ``tost_low/high`` is the unadjusted ``1 - 2 alpha`` (90 %) interval ``delta -/+ t(1-alpha, df)
        se``, which lies inside ``(-margin, margin)`` iff ``pvalue_tost < alpha``; ``pvalue_tost_holm``
        / ``pvalue_tost_bh`` adjust the TOST p-values within the family (as ``pvalue_holm`` /
        ``pvalue_bh``), and ``equivalent`` is true iff the one matching ``verdict_on`` is below
        ``alpha`` (``pvalue_tost`` for ``verdict_on="pvalue"``): an equivalence claim is adjusted for
        multiplicity exactly as a difference claim, so the family's claims of either kind keep its
        error rate.  A row that is not significant but equivalent has the verdict ``"equivalent"``;
        ``verdict_note`` gives the TOST p-value used and the interval, and says so where the interval
        lies inside the margin but the adjusted p-value does not pass.  A comparison whose deltas are all 0 has
        ``se = 0``, ``mde`` NaN and the verdict ``"identical"``.  With ``se = 0`` (no spread between
        clusters: constant deltas, or equal cluster sums) nothing is certain: the ``"edgeworth"`` / ``"t"``
        interval is the point only when the exact sign-flip test on G clusters could reject
        (``2 / 2**G < alpha``), else unbounded, and TOST's p is ``1 / 2**G`` (equivalent from 5 clusters).

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
    from pairedframe.comparison.paired import _check_options

    opt = _check_options(n_resamples, confidence_level, alternative, "randomization", "percentile", seed,
                         chunk_size, power)
    if interval not in _INTERVALS:
        raise ValueError(f"`interval` must be one of {_INTERVALS}, got {interval!r}")
    if margin is not None:
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not (margin > 0 and math.isfinite(margin)):
            raise ValueError(f"`margin` must be a positive number, got {margin!r}")
        margin = float(margin)
    if verdict_on not in ("pvalue", "pvalue_holm", "pvalue_bh"):
        raise ValueError(f"`verdict_on` must be 'pvalue', 'pvalue_holm' or 'pvalue_bh', got {verdict_on!r}")
    in_engine = engine_table(data)
    if in_engine is not None:  # a DuckDB relation or a Spark DataFrame: resampled as joins there
        from pairedframe.comparison.by_join_clustered import compare_clustered_by_join

        return compare_clustered_by_join(in_engine, opt, baseline=baseline, clusters=clusters, systems=systems,
                                         measures=measures, margin=margin, family_by=family_by,
                                         verdict_on=verdict_on, progress=progress, interval=interval)
    df, keys = attach_clusters(data, clusters)
    cmap = df.select(*keys, "qid", "cluster").unique()
    p = _pair(df.drop("cluster"), baseline, systems, measures)
    paired = p.paired.join(cmap, on=[*keys, "qid"], how="left").sort("_row", "qid")
    rows = p.rows
    k_total = rows.height
    names = ("delta", "ci_low", "ci_high", "se", "df", "pvalue", "floor", "baseline_mean", "system_mean")
    st = {n: np.full(k_total, np.nan) for n in names}
    ints = {n: np.zeros(k_total, dtype=np.int64) for n in ("n_queries", "n_clusters", "wins", "losses", "ties")}
    exact = np.zeros(k_total, dtype=bool)
    all_zero = np.zeros(k_total, dtype=bool)
    mc = {n: [None] * k_total for n in ("mcnemar_pvalue", "mcnemar_b", "mcnemar_c")}

    per_row = paired.group_by("_row", maintain_order=True).agg("qid", "cluster", "a", "b", "delta")
    groups: dict[tuple[bytes, bytes], list[int]] = {}
    data_of: dict[int, tuple] = {}
    for r, qids, cl, a, b, d in per_row.iter_rows():
        codes, members = cluster_layout(qids, cl)
        data_of[r] = (qids, cl, codes, members, np.asarray(a, float), np.asarray(b, float), np.asarray(d, float))
        groups.setdefault((query_set_key(qids), _partition_key(members)), []).append(r)
    _check_cluster_counts(rows, np.array([len(data_of[r][0]) if r in data_of else 0 for r in range(k_total)]),
                          np.array([len(data_of[r][3]) if r in data_of else 0 for r in range(k_total)]),
                          keys=keys, baseline=baseline)
    check_cluster_cost(opt, [(len(data_of[m[0]][3]), len(m)) for m in groups.values()], interval)
    done = 0
    for members_rows in groups.values():
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
        theta, pv, ci_low, ci_high, se = (np.concatenate([r[i] for r in res]) for i in range(5))
        ex, df = res[0][5], cluster_df(sizes)      # G - 1 for equal sizes, fewer when a few clusters dominate
        idx = np.asarray(members_rows)
        st["delta"][idx] = theta
        st["ci_low"][idx] = np.asarray(ci_low, float)
        st["ci_high"][idx] = np.asarray(ci_high, float)
        st["se"][idx] = se
        st["df"][idx] = df
        st["pvalue"][idx] = pv
        st["floor"][idx] = smallest_pvalue("randomization", ex, G, opt.alternative, opt.n_resamples)
        exact[idx] = ex
        for r in members_rows:
            _, _, _, _, a, b, d = data_of[r]
            st["baseline_mean"][r] = a.mean()
            st["system_mean"][r] = b.mean()
            ints["n_queries"][r] = d.shape[0]
            ints["n_clusters"][r] = G
            ints["wins"][r], ints["losses"][r], ints["ties"][r] = (d > 0).sum(), (d < 0).sum(), (d == 0).sum()
            all_zero[r] = not np.any(d != 0)
            if _binary(a) and _binary(b):
                m = mcnemar_exact(a, b)
                mc["mcnemar_pvalue"][r], mc["mcnemar_b"][r], mc["mcnemar_c"][r] = m.pvalue, m.b, m.c
        done += len(members_rows)
        if progress is not None:
            progress(done, k_total)

    return _clustered_table(rows, st, ints, exact, all_zero, mc, opt, keys=keys, baseline=baseline,
                            family_by=family_by, verdict_on=verdict_on, margin=margin, interval=interval)


def check_cluster_cost(opt: Any, shapes: Sequence[tuple[int, int]], interval: str,
                       argument: str = "n_resamples") -> None:
    """The up-front cost check (:mod:`pairedframe.comparison._cost`) of partitions of ``(G, k)``: ``G``
    clusters, ``k`` comparisons; the sign-flip test and its inversion always run, the bootstrap for
    ``interval="percentile"``."""
    B = opt.n_resamples
    draws, units, columns, kept = [], [], [], []
    for G, k in shapes:
        patterns = min(B, 2 ** G) if G < 63 else B
        part = column_slices(k, B, 5)[0]
        draws.append(patterns), units.append(G), columns.append(k), kept.append(5 * (part.stop - part.start) + 3)
        if interval == "percentile":
            part = column_slices(k, B, 3)[0]
            draws.append(B), units.append(G), columns.append(k), kept.append(3 * (part.stop - part.start))
    check_resampling_cost(B, argument=argument, draws=draws, units=units, columns=columns, kept=kept)


def _cluster_columns(D: np.ndarray, sums: np.ndarray, sizes: np.ndarray, qids: list[str], cl: list[Any], opt: Any,
                     interval: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]:
    """(delta, p, ci_low, ci_high, se, exact) of the columns of one query set and partition (a slice of
    them, from the set's own streams: the same draws whatever the slice)."""
    G = sums.shape[0]
    boot_rng, flip_rng = cluster_streams(opt.seed, qids, cl)
    theta, pv, lo_f, hi_f, _, ex = _flip_interval(sums, sizes, opt.n_resamples, opt.confidence_level,
                                                  opt.alternative, flip_rng, opt.chunk_size)
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
            _, ci, _ = _cluster_boot(D, sums, sizes, opt.n_resamples, opt.confidence_level, opt.alternative,
                                     boot_rng, opt.chunk_size)
        ci_low, ci_high = ci.low, ci.high
    if interval in ("edgeworth", "t"):
        ci_low, ci_high = _zero_spread_interval(theta, se, ci_low, ci_high, G, 1.0 - opt.confidence_level,
                                                opt.alternative)
    return theta, pv, np.asarray(ci_low, float), np.asarray(ci_high, float), se, ex


def _clustered_table(rows: pl.DataFrame, st: dict[str, np.ndarray], ints: dict[str, np.ndarray], exact: np.ndarray,
                     all_zero: np.ndarray, mc: dict[str, list], opt: Any, *, keys: list[str], baseline: str,
                     family_by: Sequence[str] | str | None, verdict_on: str, margin: float | None,
                     interval: str) -> pl.DataFrame:
    """compare_clustered's result from per-comparison statistics (``st``: delta, ci_low, ci_high, se,
    pvalue, floor, means; ``ints``: n_queries, n_clusters, wins, losses, ties): multiple testing,
    MDE, verdicts and notes (:mod:`pairedframe.comparison.verdicts`), TOST."""
    k_total = rows.height
    alpha = 1.0 - opt.confidence_level
    pv = st["pvalue"]
    p_holm, p_bh = np.full(k_total, np.nan), np.full(k_total, np.nan)
    fam_cols = family_columns(family_by, keys=keys, allowed=["system", *keys, "measure", "baseline"])
    fam = family_ids(rows.sort("_row"), [c for c in fam_cols if c != "baseline"])   # one baseline: constant
    fam_sizes = np.zeros(k_total, dtype=np.int64)
    for f in np.unique(fam):
        sel = fam == f
        p_holm[sel], p_bh[sel] = holm(pv[sel]), benjamini_hochberg(pv[sel])
        fam_sizes[sel] = int(np.count_nonzero(~np.isnan(pv[sel])))
    chosen = {"pvalue": pv, "pvalue_holm": p_holm, "pvalue_bh": p_bh}[verdict_on]
    levels = verdict_levels(alpha, verdict_on, fam_sizes, family_rejections(chosen, fam, alpha))
    G_all = ints["n_clusters"]
    mde = np.array([t_mde(float(st["se"][i]), float(st["df"][i]), float(levels[i]), opt.power, opt.alternative,
                          float(st["floor"][i]), bool(st["se"][i] == 0)) for i in range(k_total)])
    verdicts = [verdict(float(chosen[i]), float(st["delta"][i]), float(mde[i]), bool(all_zero[i]), alpha,
                        opt.alternative) for i in range(k_total)]
    # in the measure's direction: a rank such as FirstRelRank is better when lower
    measures = rows.sort("_row")["measure"].to_list()
    verdicts = [_oriented(v, higher_is_better(m)) for v, m in zip(verdicts, measures)]
    st["ci_low"], st["ci_high"], clip_notes = clip_delta_intervals(st["ci_low"], st["ci_high"], measures)
    notes = verdict_notes(verdicts=verdicts, delta=st["delta"], ci_low=st["ci_low"], ci_high=st["ci_high"],
                          p_raw=pv, p_used=chosen, levels=levels, floors=st["floor"], family_sizes=fam_sizes,
                          exact=exact, n_units=G_all, skewness=np.full(k_total, np.nan), alpha=alpha,
                          alternative=opt.alternative, verdict_on=verdict_on, test="cluster sign-flip",
                          interval=f"cluster {interval}",
                          unit="clusters", n_resamples=opt.n_resamples, interval_notes=clip_notes)
    warn_unreachable(st["floor"], reachable_levels(alpha, verdict_on, fam_sizes), exact, G_all, fam_sizes, verdict_on=verdict_on,
                     test="cluster sign-flip", alpha=alpha, unit="clusters", n_resamples=opt.n_resamples)
    out = rows.sort("_row").select("system", *keys, "measure", pl.lit(baseline).alias("baseline")).with_columns(
        pl.Series("n_queries", ints["n_queries"]), pl.Series("n_clusters", ints["n_clusters"]),
        pl.Series("baseline_mean", st["baseline_mean"]), pl.Series("system_mean", st["system_mean"]),
        *(pl.Series(n, st[n]) for n in ("delta", "ci_low", "ci_high", "se", "df", "pvalue")),
        pl.Series("pvalue_holm", p_holm), pl.Series("pvalue_bh", p_bh),
        *(pl.Series(n, ints[n]) for n in ("wins", "losses", "ties")),
        pl.Series("mde", mde), pl.Series("verdict", verdicts, dtype=pl.String),
        pl.Series("verdict_note", notes, dtype=pl.String),
        pl.Series("mcnemar_pvalue", mc["mcnemar_pvalue"], dtype=pl.Float64),
        pl.Series("mcnemar_b", mc["mcnemar_b"], dtype=pl.Int64),
        pl.Series("mcnemar_c", mc["mcnemar_c"], dtype=pl.Int64),
    )
    if margin is not None:
        out = with_tost(out, st, G_all, fam, margin=margin, alpha=alpha, verdict_on=verdict_on,
                        measures=measures)
    return out.with_columns(
        pl.lit("cluster sign-flip").alias("test"), pl.lit(f"cluster {interval}").alias("interval"),
        pl.lit(opt.confidence_level).alias("confidence_level"), pl.lit(opt.alternative).alias("alternative"),
        pl.lit(opt.n_resamples, dtype=pl.Int64).alias("n_resamples"), pl.Series("exact", exact),
        pl.lit(opt.seed, dtype=pl.Int64).alias("seed"), pl.lit(family_text(fam_cols, fam_sizes)).alias("family"))

