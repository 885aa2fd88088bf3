"""Paired comparisons of systems on per-query tables: deltas, bootstrap CI, tests, power, verdicts.

This is the frame layer over the pure-numpy :mod:`pairedframe.stats`.  It pairs per-query values of
each system with the baseline's, stacks the delta columns of every comparison that shares a query
set into one matrix, and feeds that matrix to the many-column kernels, so one resample index (and
one stream of sign flips) serves every (system, measure) with that query set.

Pairing and query sets
----------------------
Deltas are ``b - a`` (system minus baseline) per query, over the queries measured for *both*
(an inner join on ``qid`` plus any extra key columns).  Within a comparison the queries are put in
code-point order of ``qid``; the bootstrap stream is
``numpy.random.default_rng(keyed_seed_sequence(seed, query_set_key(qids)))`` and the sign-flip stream
``default_rng(keyed_seed_sequence(seed, ("sign-flip", query_set_key(qids))))``.  A comparison's
resamples therefore depend only on ``seed`` and its own query set, never on what else is in the call
(the floating-point sums of the shared matmul kernel may differ in the last bits, ~1e-15 relative,
with the number of stacked columns; sign-flip counts are computed column by column and do not).
A comparison alone in its query set is bit-identical to ``scipy.stats.bootstrap(..., method=
"percentile")`` on the same generator (see :func:`resample_generators`).

Verdicts
--------
With ``alpha = 1 - confidence_level`` and ``p`` the column named by ``verdict_on`` (Holm-adjusted by
default, so the verdicts of a whole call control the family-wise error rate):

``"better"`` / ``"worse"``
    ``p < alpha`` and the mean delta is positive / negative.
``"inconclusive"``
    ``p >= alpha`` and ``mde > |delta|``: the experiment could not have reliably detected an effect of
    the observed size; this is *not* evidence of no difference.
``"not significant"``
    ``p >= alpha`` although ``mde <= |delta|``: the observed effect is large for this sample size, yet
    the test did not reject.  Typical causes: the resolution of a Monte-Carlo p-value (never below
    ``1/(n_resamples+1)``) after a correction over many comparisons -- :func:`compare` warns when no row
    can reach significance -- or heavy tails.  Raise ``n_resamples`` or use ``test="t"``.  Never read it
    as "no difference" (that needs an equivalence test).
``"identical"``
    every paired delta is exactly 0.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import polars as pl

from pairedframe.comparison._validate import check_resampling_options, resolve_interval
from pairedframe.comparison.engine_tables import engine_table
from pairedframe.errors import (DuplicateError, InsufficientSampleError, SchemaError, SmallSampleWarning,
                                user_stacklevel)
from pairedframe.stats._results import ConfidenceInterval
from pairedframe.stats.bootstrap import bootstrap_mean_many
from pairedframe.stats.multiple import benjamini_hochberg, holm
from pairedframe.stats.power import MIN_QUERIES, minimum_detectable_effect
from pairedframe.stats.randomization import sign_flip_test_many
from pairedframe.stats.resample import keyed_seed_sequence, query_set_key
from pairedframe.stats.ttest import paired_t_test_many

__all__ = [
    "QUERY_SET_POLICY", "PVALUE_TIE_RULE", "WIN_RULE", "VERDICTS", "PairedComparison",
    "compare", "compare_pair", "paired_per_query", "worst_queries", "resample_generators",
]

BASE_COLUMNS = ("system", "qid", "measure", "value")
QUERY_SET_POLICY = ("paired over the queries measured for both systems (inner join on qid and key columns); "
                    "one resample stream per distinct query set, keyed by seed and the set")
PVALUE_TIE_RULE = ("sign-flip null statistics with |T*| >= |T| - 100*eps*max(|T|, mean|d|) count as extreme; "
                   "p = (b+1)/(m+1), or b/2^n when all 2^n sign patterns are enumerated")
#: Relative size below which b - a is float noise (e.g. 0.1 + 0.2 vs 0.3) and counts as exactly 0.
DELTA_TOLERANCE = 1e-12
WIN_RULE = (f"delta = b - a, set to 0 when |b - a| <= {DELTA_TOLERANCE:g} * max(1, |a|, |b|) (float noise); "
            "win: delta > 0, loss: delta < 0, tie: delta == 0")


def _delta_expr() -> pl.Expr:
    """b - a with float noise (|b - a| <= DELTA_TOLERANCE * max(1, |a|, |b|)) turned into an exact 0."""
    raw = pl.col("b") - pl.col("a")
    scale = pl.max_horizontal(pl.lit(1.0), pl.col("a").abs(), pl.col("b").abs())
    return pl.when(raw.abs() <= DELTA_TOLERANCE * scale).then(0.0).otherwise(raw)
VERDICTS = ("better", "worse", "inconclusive", "not significant", "identical")

_TESTS = ("randomization", "t")
_INTERVALS = ("percentile", "bca", "t")
_VERDICT_ON = ("pvalue", "pvalue_holm", "pvalue_bh")


# ----------------------------------------------------------------------------------------------
# numpy core: one query set, k comparison columns
# ----------------------------------------------------------------------------------------------

def resample_generators(seed: int, qids: Iterable[Any]) -> tuple[np.random.Generator, np.random.Generator]:
    """The (bootstrap, sign-flip) generators :func:`compare` uses for a query set.

    Parameters
    ----------
    seed : int
        Non-negative user seed.
    qids : iterable
        The query ids of the comparison (order and duplicates ignored; converted with ``str``).

    Returns
    -------
    (numpy.random.Generator, numpy.random.Generator)
        ``default_rng(keyed_seed_sequence(seed, query_set_key(qids)))`` for the bootstrap index, and
        ``default_rng(keyed_seed_sequence(seed, ("sign-flip", query_set_key(qids))))`` for sign flips.
        With the deltas in code-point order of ``qid``, ``scipy.stats.bootstrap((d,), np.mean,
        rng=<first generator>, method="percentile")`` reproduces the interval of :func:`compare`.
    """
    key = query_set_key([str(q) for q in qids])
    return (np.random.default_rng(keyed_seed_sequence(seed, key)),
            np.random.default_rng(keyed_seed_sequence(seed, ("sign-flip", key))))


@dataclass(frozen=True)
class _Options:
    n_resamples: int
    confidence_level: float
    alternative: str
    test: str
    interval: str
    seed: int
    chunk_size: int | None
    power: float


def _check_options(n_resamples, confidence_level, alternative, test, interval, seed, chunk_size,
                   power) -> _Options:
    interval = resolve_interval(test, interval, tests=_TESTS, intervals=_INTERVALS)
    check_resampling_options(n_resamples=n_resamples, confidence_level=confidence_level,
                             alternative=alternative, seed=seed)
    if not (isinstance(power, (int, float)) and 0 < power < 1):
        raise ValueError(f"`power` must be in (0, 1), got {power!r}")
    return _Options(int(n_resamples), float(confidence_level), alternative, test, interval, int(seed),
                    chunk_size, float(power))


def _analyse_block(D: np.ndarray, qids: Sequence[str], opt: _Options) -> dict[str, np.ndarray]:
    """Statistics of the k columns of D (n, k), rows = queries in code-point order of qids."""
    n, k = D.shape
    boot_rng, flip_rng = resample_generators(opt.seed, qids)
    out: dict[str, np.ndarray] = {}
    Dt = np.ascontiguousarray(D.T)
    out["delta"] = np.mean(Dt, axis=1)
    sd = np.std(Dt, axis=1, ddof=1)
    constant = np.ptp(Dt, axis=1) == 0
    sd[constant] = 0.0
    out["sd"] = sd
    if opt.interval in ("percentile", "bca"):
        boot = bootstrap_mean_many(D, n_resamples=opt.n_resamples, confidence_level=opt.confidence_level,
                                   method=opt.interval, alternative=opt.alternative, rng=boot_rng,
                                   chunk_size=opt.chunk_size)
        out["ci_low"], out["ci_high"] = (np.asarray(boot.confidence_interval.low, dtype=float),
                                         np.asarray(boot.confidence_interval.high, dtype=float))
        out["se"] = np.asarray(boot.standard_error, dtype=float)
    tt = None
    if opt.test == "t" or opt.interval == "t":
        tt = paired_t_test_many(D, alternative=opt.alternative, confidence_level=opt.confidence_level)
    if opt.interval == "t":
        out["ci_low"] = np.asarray(tt.confidence_interval.low, dtype=float)
        out["ci_high"] = np.asarray(tt.confidence_interval.high, dtype=float)
        out["se"] = np.asarray(tt.standard_error, dtype=float)
    if opt.test == "randomization":
        res = sign_flip_test_many(D, n_resamples=opt.n_resamples, alternative=opt.alternative,
                                  rng=flip_rng, chunk_size=opt.chunk_size)
        out["pvalue"] = np.asarray(res.pvalue, dtype=float)
        out["exact"] = np.full(k, bool(res.exact))
    else:
        out["pvalue"] = np.asarray(tt.pvalue, dtype=float)
        out["exact"] = np.zeros(k, dtype=bool)
    alpha = 1.0 - opt.confidence_level
    out["mde"] = np.array([0.0 if s == 0 else minimum_detectable_effect(
        float(s), n, alpha=alpha, power=opt.power, alternative=opt.alternative) for s in sd])
    if opt.test == "randomization" and out["exact"].all():
        # With n queries the smallest exact sign-flip p is 2/2^n (two-sided) or 1/2^n: when that is
        # above alpha no effect, however large, can be detected.
        floor = (2.0 if opt.alternative == "two-sided" else 1.0) / 2.0 ** n
        if floor > alpha:
            out["mde"] = np.full(k, np.inf)
    return out


def _verdict(p: float, delta: float, mde: float, all_zero: bool, alpha: float) -> str:
    if all_zero:
        return "identical"
    if not math.isnan(p) and p < alpha:
        return "better" if delta > 0 else "worse"
    if mde > abs(delta):
        return "inconclusive"
    return "not significant"


# ----------------------------------------------------------------------------------------------
# frames
# ----------------------------------------------------------------------------------------------

SUMMARY_QID = "all"


def _as_frame(data: Any) -> pl.DataFrame:
    per_query = getattr(data, "per_query", None)
    if isinstance(per_query, pl.DataFrame):
        data = per_query
    if isinstance(data, pl.LazyFrame):
        data = data.collect()
    if not isinstance(data, pl.DataFrame):
        if hasattr(data, "pl") and callable(data.pl):        # DuckDB relation
            data = data.pl()
        else:
            try:
                data = pl.from_pandas(data) if type(data).__module__.startswith("pandas") else pl.DataFrame(data)
            except Exception as exc:  # noqa: BLE001
                raise TypeError("expected an Evaluation or a per-query table (polars/pandas/arrow/DuckDB) "
                                f"with columns system, qid, measure, value; got {type(data).__name__}") from exc
    missing = [c for c in BASE_COLUMNS if c not in data.columns]
    if missing:
        raise SchemaError(f"per-query table lacks column(s) {missing}; needs system, qid, measure, value "
                          f"(has {data.columns})")
    if not data.schema["value"].is_numeric():
        raise SchemaError(f"column 'value' must be numeric, got {data.schema['value']}")
    data = data.with_columns(pl.col("system").cast(pl.String), pl.col("qid").cast(pl.String),
                             pl.col("measure").cast(pl.String), pl.col("value").cast(pl.Float64))
    data = data.filter(pl.col("value").is_not_null())
    summary_rows = data.filter(pl.col("qid") == SUMMARY_QID).height
    if summary_rows:
        # trec_eval's reserved id: `pairedframe evaluate -q -f csv|json` writes these mean rows too.
        warnings.warn(f"dropped {summary_rows} summary rows with qid == {SUMMARY_QID!r} (trec_eval's 'all' "
                      f"rows are means over queries, not a query)", UserWarning, stacklevel=3)
        data = data.filter(pl.col("qid") != SUMMARY_QID)
    if not data["value"].is_finite().all():
        raise ValueError("per-query values must be finite (NaN/inf found); drop or fix those rows "
                         "(null values are treated as 'not measured')")
    return data


@dataclass(frozen=True)
class _Paired:
    paired: pl.DataFrame          # _row, system, *extras, measure, qid, a, b, delta (sorted by _row, qid)
    rows: pl.DataFrame            # _row, system, *extras, measure
    extras: list[str]


def _unique_in_order(values: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(values))


def _choose(requested: Sequence[str] | str | None, default: list[str], available: list[str],
            what: str) -> list[str]:
    """The requested names (one name, a list, or None for ``default``) in order, without repeats;
    ValueError naming the unknown ones and the available ones."""
    names = default if requested is None else [requested] if isinstance(requested, str) else requested
    names = _unique_in_order(names)
    unknown = [n for n in names if n not in available]
    if unknown:
        raise ValueError(f"{what}(s) {unknown} not in the table; {what}s: {available}")
    return names


def _choose_comparisons(all_systems: list[str], all_measures: list[str], baseline: Any,
                        systems: Sequence[str] | str | None, measures: Sequence[str] | str | None
                        ) -> tuple[list[str], list[str]]:
    """The systems compared with ``baseline`` and the measures, checked against those of the table
    (given in order of appearance); errors name the unknown ones."""
    if not isinstance(baseline, str):
        raise TypeError(f"`baseline` must be a system name (str), got {baseline!r}")
    if baseline not in all_systems:
        raise ValueError(f"baseline {baseline!r} is not a system of the table; systems: {all_systems}")
    systems = [s for s in _choose(systems, [s for s in all_systems if s != baseline], all_systems, "system")
               if s != baseline]
    if not systems:
        raise ValueError("nothing to compare: no system other than the baseline "
                         f"{baseline!r} (systems in the table: {all_systems})")
    return systems, _choose(measures, all_measures, all_measures, "measure")


def _pair(data: Any, baseline: str, systems: Sequence[str] | str | None,
          measures: Sequence[str] | str | None) -> _Paired:
    df = _as_frame(data)
    extras = [c for c in df.columns if c not in BASE_COLUMNS]
    keys = ["system", *extras, "measure", "qid"]
    # A cheap grouped check first; the full row mask only when a duplicate exists.
    if df.select(pl.col("qid").is_duplicated().over(keys[:-1]).any()).item():
        dup = df.select(keys).is_duplicated()
        example = df.filter(dup).row(0, named=True)
        raise DuplicateError(f"per-query table has {int(dup.sum())} rows with a repeated key {keys}, "
                             f"e.g. { {k: example[k] for k in keys} }")
    systems, measures = _choose_comparisons(df["system"].unique(maintain_order=True).to_list(),
                                            df["measure"].unique(maintain_order=True).to_list(),
                                            baseline, systems, measures)
    df = df.filter(pl.col("measure").is_in(measures))
    a = df.filter(pl.col("system") == baseline).select(*extras, "measure", "qid", pl.col("value").alias("a"))
    b = df.filter(pl.col("system").is_in(systems)).select("system", *extras, "measure", "qid",
                                                           pl.col("value").alias("b"))
    present = set(b.select("system", "measure").unique().iter_rows()) & {
        (s, m) for m in a["measure"].unique().to_list() for s in systems}
    absent = [(s, m) for s in systems for m in measures if (s, m) not in present]
    if absent:
        # A comparison asked for (or implied by the table) must not vanish from the family silently.
        raise InsufficientSampleError(
            f"no values to pair for (system, measure) {absent[:5]}{' ...' if len(absent) > 5 else ''}: the "
            f"system or the baseline {baseline!r} has no rows of that measure; pass measures=/systems= to "
            f"choose what to compare")
    sys_order = {s: i for i, s in enumerate(systems)}
    meas_order = {m: i for i, m in enumerate(measures)}
    rows = (b.select("system", *extras, "measure").unique(maintain_order=True)
            .with_columns(pl.col("system").replace_strict(sys_order, return_dtype=pl.Int64).alias("_s"),
                          pl.col("measure").replace_strict(meas_order, return_dtype=pl.Int64).alias("_m"))
            .with_row_index("_first")
            .sort("_s", "_m", "_first").drop("_s", "_m", "_first").with_row_index("_row"))
    paired = (b.join(a, on=[*extras, "measure", "qid"], how="inner")
              .join(rows, on=["system", *extras, "measure"], how="left")
              .with_columns(_delta_expr().alias("delta"))
              .select("_row", "system", *extras, "measure", "qid", "a", "b", "delta")
              .sort("_row", "qid"))
    return _Paired(paired=paired, rows=rows, extras=extras)


def _describe_row(row: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in row.items() if k != "_row")


def paired_per_query(data: Any, *, baseline: str, systems: Sequence[str] | str | None = None,
                     measures: Sequence[str] | str | None = None) -> pl.DataFrame:
    """Per-query view of paired comparisons against a baseline.

    Parameters
    ----------
    data : Evaluation or table
        An :class:`~pairedframe.evaluation.Evaluation` or a per-query table with columns
        ``system, qid, measure, value`` (polars, pandas, arrow or a DuckDB relation); any other
        column is a key carried through (e.g. ``dataset``).  Null values mean "not measured".
    baseline : str
        The system ``a`` of every pair.
    systems : str or sequence of str, optional
        Systems ``b`` (default: every system except the baseline, in order of appearance).
    measures : str or sequence of str, optional
        Measures to keep (default: all, in order of appearance).

    Returns
    -------
    polars.DataFrame
        ``system, <extra keys>, measure, qid, a, b, delta``: one row per (system, keys, measure, query
        measured for both the system and the baseline), ``delta = b - a``; sorted by system (given
        order), keys, measure (given order) and qid (code-point order).

    Raises
    ------
    SchemaError
        If a required column is missing or ``value`` is not numeric.
    DuplicateError
        If a (system, keys, measure, qid) appears twice.
    ValueError
        Unknown baseline, systems or measures; non-finite values.
    """
    p = _pair(data, baseline, systems, measures)
    return p.paired.drop("_row")


def worst_queries(data: Any, *, baseline: str, k: int = 5, systems: Sequence[str] | str | None = None,
                  measures: Sequence[str] | str | None = None) -> pl.DataFrame:
    """The ``k`` queries on which each system lost most against the baseline.

    Parameters
    ----------
    data, baseline, systems, measures
        As :func:`paired_per_query`.
    k : int, default 5
        Queries per (system, keys, measure); only losses (``delta < 0``) are listed.

    Returns
    -------
    polars.DataFrame
        ``system, <extra keys>, measure, rank, qid, a, b, delta``: at most ``k`` rows per comparison,
        ``rank`` 1 = largest loss; ties in delta are ordered by qid.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"`k` must be a positive integer, got {k!r}")
    p = _pair(data, baseline, systems, measures)
    return (p.paired.filter(pl.col("delta") < 0)
            .sort("_row", "delta", "qid")
            .with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("_row").alias("rank"))
            .filter(pl.col("rank") <= k)
            .select("system", *p.extras, "measure", "rank", "qid", "a", "b", "delta"))


def _check_sizes(rows: pl.DataFrame, baseline: str, extras: list[str]) -> None:
    """InsufficientSampleError for a comparison with fewer than 2 queries; SmallSampleWarning below
    MIN_QUERIES. ``rows``: one row per comparison with ``n_queries``."""
    bad = rows.filter(pl.col("n_queries") < 2)
    if bad.height:
        first = bad.row(0, named=True)
        what = "no common query" if first["n_queries"] == 0 else "only one common query"
        raise InsufficientSampleError(
            f"{bad.height} comparison(s) with the baseline {baseline!r} have fewer than 2 common queries; "
            f"first: {_describe_row({k: first[k] for k in ['system', *extras, 'measure']})} ({what})")
    small = rows.filter(pl.col("n_queries") < MIN_QUERIES)
    if small.height:
        first = small.sort("n_queries").row(0, named=True)
        warnings.warn(
            f"{small.height} comparison(s) have fewer than MIN_QUERIES = {MIN_QUERIES} common queries "
            f"(smallest: n = {first['n_queries']}, {_describe_row({k: first[k] for k in ['system', *extras, 'measure']})}); "
            "intervals and p-values are unreliable. See the mde column and "
            "pairedframe.stats.power.required_queries / minimum_detectable_effect for the queries needed.",
            SmallSampleWarning, stacklevel=user_stacklevel())


def _finish_table(rows: pl.DataFrame, stats: dict[str, np.ndarray], exact: np.ndarray, opt: _Options, *,
                  baseline: str, extras: list[str], family_by: Sequence[str] | str | None,
                  verdict_on: str) -> pl.DataFrame:
    """compare's result from the comparisons (``rows``: system, keys, measure, n_queries, means, wins,
    losses, ties, _nonzero) and their statistics: multiple testing, verdicts and the settings."""
    k_total = rows.height
    pv = stats["pvalue"]
    p_holm = np.full(k_total, np.nan)
    p_bh = np.full(k_total, np.nan)
    if family_by is None:
        fam_ids = np.zeros(k_total, dtype=np.int64)
    else:
        fam_cols = [family_by] if isinstance(family_by, str) else list(family_by)
        allowed = ["system", *extras, "measure"]
        unknown = [c for c in fam_cols if c not in allowed]
        if unknown:
            raise ValueError(f"`family_by` column(s) {unknown} not among {allowed}")
        fam_ids = rows.select(pl.struct(fam_cols).rank("dense").cast(pl.Int64)).to_series().to_numpy()
    for f in np.unique(fam_ids):
        sel = fam_ids == f
        p_holm[sel] = holm(pv[sel])
        p_bh[sel] = benjamini_hochberg(pv[sel])
    adjusted = {"pvalue": pv, "pvalue_holm": p_holm, "pvalue_bh": p_bh}[verdict_on]
    alpha = 1.0 - opt.confidence_level
    if opt.test == "randomization" and verdict_on != "pvalue" and not exact.all():
        floor = {"pvalue_holm": p_holm, "pvalue_bh": p_bh}[verdict_on]
        sizes = np.bincount(fam_ids)
        smallest = sizes[fam_ids] / (opt.n_resamples + 1)   # Holm/BH value of the smallest possible p
        if np.all(smallest >= alpha) and np.all(floor >= alpha):
            warnings.warn(
                f"no comparison can be significant: the smallest Monte-Carlo p-value is 1/(n_resamples+1) = "
                f"{1 / (opt.n_resamples + 1):.2g} and {verdict_on} multiplies it by up to {int(sizes.max())} "
                f"comparisons; use n_resamples >= {int(math.ceil(sizes.max() / alpha))} or test='t'",
                UserWarning, stacklevel=user_stacklevel())
    nonzero = rows["_nonzero"].to_numpy()
    verdicts = [_verdict(float(adjusted[i]), float(stats["delta"][i]), float(stats["mde"][i]),
                         not bool(nonzero[i]), alpha) for i in range(k_total)]
    resampled = opt.test == "randomization" or opt.interval in ("percentile", "bca")
    out = rows.select(
        "system", *extras, "measure", pl.lit(baseline).alias("baseline"),
        pl.col("n_queries").cast(pl.Int64), "baseline_mean", "system_mean",
    ).with_columns(
        pl.Series("delta", stats["delta"]), pl.Series("ci_low", stats["ci_low"]),
        pl.Series("ci_high", stats["ci_high"]), pl.Series("se", stats["se"]),
        pl.Series("pvalue", pv), pl.Series("pvalue_holm", p_holm), pl.Series("pvalue_bh", p_bh),
        rows["wins"].cast(pl.Int64), rows["losses"].cast(pl.Int64), rows["ties"].cast(pl.Int64),
        pl.Series("sd", stats["sd"]), pl.Series("mde", stats["mde"]),
        pl.Series("verdict", verdicts, dtype=pl.String), pl.lit(verdict_on).alias("verdict_on"),
        pl.lit(opt.test).alias("test"), pl.lit(opt.interval).alias("interval"),
        pl.lit(opt.confidence_level).alias("confidence_level"), pl.lit(opt.alternative).alias("alternative"),
        pl.lit(opt.n_resamples if resampled else None, dtype=pl.Int64).alias("n_resamples"),
        pl.Series("exact", exact), pl.lit(opt.seed, dtype=pl.Int64).alias("seed"),
    )
    return out


def compare(data: Any, *, baseline: str, systems: Sequence[str] | str | None = None,
            measures: Sequence[str] | str | None = None, n_resamples: int = 10_000,
            confidence_level: float = 0.95, alternative: Literal["two-sided", "greater", "less"] = "two-sided",
            test: Literal["randomization", "t"] = "randomization", seed: int = 0,
            family_by: Sequence[str] | str | None = None, chunk_size: int | None = None,
            interval: Literal["percentile", "bca", "t"] | None = None, power: float = 0.8,
            verdict_on: Literal["pvalue", "pvalue_holm", "pvalue_bh"] = "pvalue_holm",
            progress: Callable[[int, int], None] | None = None) -> pl.DataFrame:
    """Compare systems with a baseline, query by query, with honest paired statistics.

    Parameters
    ----------
    data : Evaluation or table
        An :class:`~pairedframe.evaluation.Evaluation` or a per-query table ``system, qid, measure,
        value`` (polars, pandas, arrow, DuckDB relation, Spark DataFrame).  Other columns (e.g.
        ``dataset``, ``cluster``) are keys: they are carried through and define separate comparisons.
        A DuckDB relation or a Spark DataFrame is compared where it lives: the bootstrap and the
        sign-flip test run as joins with :func:`~pairedframe.resample_index` in the engine, with the
        same result to ~1e-15 (:mod:`pairedframe.comparison.by_join`; not ``interval="bca"``).
    baseline : str
        System ``a``; deltas are ``b - a`` (positive = the system beats the baseline).
    systems : str or sequence of str, optional
        Systems ``b`` (default: all but the baseline, in order of appearance).
    measures : str or sequence of str, optional
        Default: every measure of the table, in order of appearance.
    n_resamples : int, default 10_000
        Bootstrap resamples and Monte-Carlo sign patterns (``>= 2``).  The sign-flip test enumerates
        all ``2**n`` patterns instead when ``2**n <= n_resamples`` (then ``exact`` is true).
    confidence_level : float in (0, 1), default 0.95
        For the interval; ``alpha = 1 - confidence_level`` for the verdict and the MDE.
    alternative : {"two-sided", "greater", "less"}
        ``"greater"``: the system is better than the baseline.  One-sided intervals have an
        infinite bound, as in scipy.
    test : {"randomization", "t"}, default "randomization"
        Paired sign-flip randomization test (p never below ``1/(n_resamples + 1)`` unless exact) or
        the paired t-test (analytic; use it when p-values must be very small, e.g. before a
        correction over many comparisons).
    seed : int, default 0
        With the query set, determines every resample (see :func:`resample_generators`).
    family_by : str or sequence of str, optional
        Output columns that split the multiple-comparison family (e.g. ``"measure"``); default one
        family = every row of the call.
    chunk_size : int, optional
        Resample rows held in memory at once (memory knob; results do not depend on it).
    interval : {"percentile", "bca", "t"}, optional
        Default ``"percentile"`` (bootstrap) for the randomization test and ``"t"`` for the t-test.
        The percentile interval under-covers at small n: on DL-2021 null comparisons
        (``benchmarks/calibration.py``, 7,600 replications) 95% intervals covered 0.92 at n = 20,
        0.94 at n = 50 and 0.947 at n = 200; BCa did not help (0.92 at n = 20) while the t
        interval covered 0.944-0.951 at every n.  Use ``interval="t"`` below about 50 queries.
    power : float in (0, 1), default 0.8
        Power for the minimum detectable effect.
    verdict_on : {"pvalue", "pvalue_holm", "pvalue_bh"}, default "pvalue_holm"
        The p-value column the verdict uses.
    progress : callable, optional
        Called as ``progress(done, total)`` (in comparisons) after each query set is analysed.

    Returns
    -------
    polars.DataFrame
        One row per (system, extra keys, measure), in the given system and measure order, with
        columns ``system, <keys>, measure, baseline, n_queries, baseline_mean, system_mean, delta,
        ci_low, ci_high, se, pvalue, pvalue_holm, pvalue_bh, wins, losses, ties, sd, mde, verdict,
        test, interval, confidence_level, alternative, n_resamples, exact, seed``.

        Means are over the paired queries (which can differ from the evaluation summary when the
        query sets differ).  ``se`` is the bootstrap standard error (``sd/sqrt(n)`` for the t
        interval); ``sd`` is the standard deviation of the deltas (ddof=1); ``mde`` the minimum
        detectable effect ``(z(1-alpha/2) + z(power)) sd / sqrt(n)``; p-values lie in ``[0, 1]``
        (randomization: ``[1/(n_resamples+1), 1]``, or ``[2^-n, 1]`` when exact).  Holm and
        Benjamini-Hochberg adjust within each family; a NaN p-value is left out of its family and
        stays NaN.  ``verdict`` is one of :data:`VERDICTS` (module docstring).

    Raises
    ------
    InsufficientSampleError
        A comparison with no common query, or with a single one.
    SchemaError, DuplicateError, ValueError, TypeError
        Bad input or options.

    Warns
    -----
    SmallSampleWarning
        Some comparison has fewer than ``MIN_QUERIES`` (20) common queries; see the ``mde`` column
        and :func:`pairedframe.stats.power.required_queries`.

    References
    ----------
    Efron & Tibshirani (1993), *An Introduction to the Bootstrap*; Smucker, Allan & Carterette
    (2007), CIKM; Holm (1979); Benjamini & Hochberg (1995).
    """
    in_engine = engine_table(data)
    if in_engine is not None:  # a DuckDB relation or a Spark DataFrame: the bootstrap runs as a join there
        from pairedframe.comparison.by_join import compare_by_join

        return compare_by_join(in_engine, baseline=baseline, systems=systems, measures=measures,
                               n_resamples=n_resamples, confidence_level=confidence_level, alternative=alternative,
                               test=test, seed=seed, family_by=family_by, chunk_size=chunk_size, interval=interval,
                               power=power, verdict_on=verdict_on, progress=progress)
    opt = _check_options(n_resamples, confidence_level, alternative, test, interval, seed, chunk_size, power)
    if verdict_on not in _VERDICT_ON:
        raise ValueError(f"`verdict_on` must be one of {_VERDICT_ON}, got {verdict_on!r}")
    p = _pair(data, baseline, systems, measures)
    extras = p.extras
    counts = p.paired.group_by("_row").agg(
        pl.len().alias("n_queries"), pl.col("a").mean().alias("baseline_mean"),
        pl.col("b").mean().alias("system_mean"), (pl.col("delta") > 0).sum().alias("wins"),
        (pl.col("delta") < 0).sum().alias("losses"), (pl.col("delta") == 0).sum().alias("ties"),
        (pl.col("delta") != 0).any().alias("_nonzero"))
    rows = p.rows.join(counts, on="_row", how="left").sort("_row")
    rows = rows.with_columns(pl.col("n_queries").fill_null(0))
    _check_sizes(rows, baseline, extras)

    k_total = rows.height
    stats = {name: np.full(k_total, np.nan) for name in ("delta", "ci_low", "ci_high", "se", "pvalue", "sd", "mde")}
    exact = np.zeros(k_total, dtype=bool)
    # group comparisons by query set
    qsets = p.paired.group_by("_row", maintain_order=True).agg(pl.col("qid"), pl.col("delta"))
    groups: dict[bytes, list[int]] = {}
    qid_lists: dict[int, list[str]] = {}
    delta_lists: dict[int, np.ndarray] = {}
    for r, qids, deltas in qsets.iter_rows():
        qid_lists[r] = qids
        delta_lists[r] = np.asarray(deltas, dtype=np.float64)
        groups.setdefault(query_set_key(qids), []).append(r)
    done = 0
    for members in groups.values():
        D = np.column_stack([delta_lists[r] for r in members])
        res = _analyse_block(D, qid_lists[members[0]], opt)
        idx = np.asarray(members)
        for name in stats:
            stats[name][idx] = res[name]
        exact[idx] = res["exact"]
        done += len(members)
        if progress is not None:
            progress(done, k_total)

    return _finish_table(rows, stats, exact, opt, baseline=baseline, extras=extras, family_by=family_by,
                         verdict_on=verdict_on)


# ----------------------------------------------------------------------------------------------
# a single comparison on arrays
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class PairedComparison:
    """Result of :func:`compare_pair`, with scipy's field names.

    Attributes
    ----------
    statistic : float
        Mean delta ``mean(b - a)``.
    pvalue : float
        Of the chosen test (randomization: in ``[1/(n_resamples+1), 1]`` unless exact).
    confidence_interval : ConfidenceInterval
        ``.low`` / ``.high`` of the mean delta.
    standard_error : float
        Bootstrap standard error (``sd/sqrt(n)`` for the t interval).
    n : int
        Paired observations.
    wins, losses, ties : int
        Queries with ``b > a``, ``b < a``, ``b == a``.
    sd, mde : float
        Standard deviation of the deltas (ddof=1) and minimum detectable effect.
    verdict : str
        One of :data:`VERDICTS` (on the raw p-value: a single comparison is its own family).
    test, interval, alternative : str
    confidence_level : float
    n_resamples : int or None
    exact : bool
    seed : int
    """

    statistic: float
    pvalue: float
    confidence_interval: ConfidenceInterval
    standard_error: float
    n: int
    wins: int
    losses: int
    ties: int
    sd: float
    mde: float
    verdict: str
    test: str
    interval: str
    alternative: str
    confidence_level: float
    n_resamples: int | None
    exact: bool
    seed: int


def compare_pair(a: Any, b: Any, *, qids: Sequence[Any] | None = None, n_resamples: int = 10_000,
                 confidence_level: float = 0.95,
                 alternative: Literal["two-sided", "greater", "less"] = "two-sided",
                 test: Literal["randomization", "t"] = "randomization", seed: int = 0,
                 chunk_size: int | None = None, interval: Literal["percentile", "bca", "t"] | None = None,
                 power: float = 0.8) -> PairedComparison:
    """Compare two paired samples ``a`` (baseline) and ``b``, scipy style.

    Parameters
    ----------
    a, b : array_like, shape (n,)
        Per-query values of the baseline and the system, aligned; finite, ``n >= 2``.
    qids : sequence, optional
        Query ids of the positions (default ``"0", "1", ...``).  They key the resample streams exactly
        as :func:`compare`, so with the same ids and seed the result equals the matching row of
        :func:`compare`.
    n_resamples, confidence_level, alternative, test, seed, chunk_size, interval, power
        As :func:`compare`.

    Returns
    -------
    PairedComparison
        ``statistic`` (mean of ``b - a``), ``pvalue``, ``confidence_interval.low/high``,
        ``standard_error``, counts, ``sd``, ``mde`` and ``verdict``.

    Raises
    ------
    InsufficientSampleError
        If ``n < 2``.
    ValueError
        On shape mismatch, non-finite values, repeated qids or bad options.

    Warns
    -----
    SmallSampleWarning
        If ``n < MIN_QUERIES``.
    """
    opt = _check_options(n_resamples, confidence_level, alternative, test, interval, seed, chunk_size, power)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"`a` and `b` must be 1-D of the same length, got shapes {a.shape} and {b.shape}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("`a` and `b` must be finite")
    n = a.shape[0]
    if n < 2:
        raise InsufficientSampleError(f"a paired comparison needs at least 2 queries, got {n}")
    ids = [str(i) for i in range(n)] if qids is None else [str(q) for q in qids]
    if len(ids) != n or len(set(ids)) != n:
        raise ValueError("`qids` must hold n distinct ids")
    if n < MIN_QUERIES:
        warnings.warn(f"only {n} paired queries (< MIN_QUERIES = {MIN_QUERIES}); see mde and "
                      "pairedframe.stats.power.required_queries", SmallSampleWarning, stacklevel=2)
    order = sorted(range(n), key=lambda i: ids[i])
    raw = b - a
    noise = np.abs(raw) <= DELTA_TOLERANCE * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
    d = np.where(noise, 0.0, raw)[order]
    res = _analyse_block(d[:, None], [ids[i] for i in order], opt)
    delta = float(res["delta"][0])
    p = float(res["pvalue"][0])
    mde = float(res["mde"][0])
    resampled = opt.test == "randomization" or opt.interval in ("percentile", "bca")
    return PairedComparison(
        statistic=delta, pvalue=p,
        confidence_interval=ConfidenceInterval(float(res["ci_low"][0]), float(res["ci_high"][0])),
        standard_error=float(res["se"][0]), n=n, wins=int(np.sum(d > 0)), losses=int(np.sum(d < 0)),
        ties=int(np.sum(d == 0)), sd=float(res["sd"][0]), mde=mde,
        verdict=_verdict(p, delta, mde, bool(np.all(d == 0)), 1.0 - opt.confidence_level),
        test=opt.test, interval=opt.interval, alternative=opt.alternative,
        confidence_level=opt.confidence_level, n_resamples=opt.n_resamples if resampled else None,
        exact=bool(res["exact"][0]), seed=opt.seed)
