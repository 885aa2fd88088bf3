"""PPI++ comparisons of two systems: cheap proxy judgments on every query, gold judgments on a sample.

The statistic is the mean per-query delta ``b - a`` of a metric under *gold* (e.g. NIST) judgments.
Every query is evaluated under the *proxy* judgments (e.g. an LLM judge) and a sample under gold;
prediction-powered inference (:func:`pairedframe.stats.ppi.ppi_mean`) on the per-query *differences*
gives an unbiased estimate and an interval that is narrower than the gold-only one when proxy and gold
deltas correlate (PPI++ power tuning picks how much to trust the proxy, ``lam`` in ``[0, 1]``).

Accepted per-query value shapes (:func:`ppi_compare`)
----------------------------------------------------
Each of ``proxy_a, proxy_b, gold_a, gold_b`` maps query id -> metric value, as any of

- a ``dict`` ``{qid: value}``;
- a pandas ``Series`` indexed by qid;
- a table (polars / pandas / DuckDB relation) with columns ``qid`` and ``value`` (one row per qid);
- a polars ``Series`` of structs is *not* accepted (ambiguous); use a table.

qids are compared as strings: integer qids (dict keys, a Series index, a ``qid`` column) are spelled out
with the warning an integer id column gets everywhere (``7`` cannot match ``"007"``), float and None
qids are refused.  ``proxy_a`` and ``proxy_b`` must cover the same queries, as must
``gold_a`` and ``gold_b``; every gold query must have a proxy value (else :class:`SchemaError`).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import polars as pl

from pairedframe.checks import listed_ids, require_each, require_names, require_rows, string_ids
from pairedframe.comparison._families import untested_family_text
from pairedframe.comparison.interval_range import clip_deltas, zero_spread_deltas
from pairedframe.comparison.pairing import comparable_measures, table_measure_names
from pairedframe.comparison.options import PPIOptions, check_ppi_options, check_segment_correction
from pairedframe.errors import (USE_CONFIDENCE_LEVEL, DuplicateError, EmptyResultError, InsufficientSampleError,
                                SchemaError, SmallSampleWarning, renamed_keywords, user_stacklevel)
from pairedframe.io.convert import is_table, to_polars
from pairedframe.io.results import ids_as_strings, refuse_null_or_blank_ids
from pairedframe.stats.results import ConfidenceInterval
from pairedframe.stats.ppi import CALIBRATED_GOLD_N, SMALL_GOLD_N, PPIResult, ppi_mean

__all__ = ["ppi_compare", "ppi_compare_segments"]


def _as_values(obj: Any, name: str) -> dict[str, float]:
    if isinstance(obj, Mapping):     # keys read as an id column is: integers warned about, floats refused
        items = zip(listed_ids(obj.keys(), name, f"the `{name}` dict"), obj.values())
    elif type(obj).__module__.startswith("pandas") and hasattr(obj, "index") and not hasattr(obj, "columns"):
        items = zip(listed_ids(obj.index, name, f"the `{name}` Series index"), obj.to_numpy())
    else:
        if not is_table(obj):
            raise TypeError(f"`{name}` must be a dict {{qid: value}}, a pandas Series indexed by qid or a "
                            f"table with columns qid, value; got {type(obj).__name__}")
        obj = to_polars(obj, f"`{name}` table")
        missing = [c for c in ("qid", "value") if c not in obj.columns]
        if missing:
            raise SchemaError(f"`{name}` lacks column(s) {missing} (has {obj.columns})")
        obj = string_ids(obj, ["qid"], f"the `{name}` table")
        items = zip(obj["qid"].to_list(), obj["value"].to_list())
    out: dict[str, float] = {}
    for q, v in items:
        q = str(q)
        if q in out:
            raise SchemaError(f"`{name}` has qid {q!r} twice")
        if v is None or not math.isfinite(float(v)):
            raise ValueError(f"`{name}` has a missing or non-finite value for qid {q!r}")
        out[q] = float(v)
    return out


def _deltas(a: dict[str, float], b: dict[str, float], what: str) -> dict[str, float]:
    if a.keys() != b.keys():
        only_a = sorted(a.keys() - b.keys())[:5]
        only_b = sorted(b.keys() - a.keys())[:5]
        raise SchemaError(f"{what} values of A and B cover different queries (only A: {only_a}, only B: {only_b})")
    return {q: b[q] - a[q] for q in a}


def _ppi_from_deltas(gold: dict[str, float], proxy: dict[str, float], opt: PPIOptions, *, warn: bool,
                     measure: str = "") -> PPIResult:
    missing = sorted(gold.keys() - proxy.keys())
    if missing:
        raise SchemaError(f"{len(missing)} gold quer{'y has' if len(missing) == 1 else 'ies have'} no proxy "
                          f"measurement, e.g. {missing[:5]}; PPI needs the proxy value of every gold query")
    qg = sorted(gold)
    qu = sorted(proxy.keys() - gold.keys())
    y = np.array([gold[q] for q in qg])
    f_gold = np.array([proxy[q] for q in qg])
    f_unlab = np.array([proxy[q] for q in qu])
    lam = opt.lam
    if len(qu) < 2 and lam not in (None, 0, 0.0):
        warnings.warn(f"only {len(qu)} proxy-only queries: lam={lam} cannot be used, lam = 0 (gold only)",
                      UserWarning, stacklevel=user_stacklevel())
        lam = 0.0
    with warnings.catch_warnings():
        if not warn:
            warnings.simplefilter("ignore", SmallSampleWarning)
        r = ppi_mean(y, f_gold, f_unlab, lam=lam, confidence_level=opt.confidence_level,
                     alternative=opt.alternative, ddof=opt.ddof, method=opt.method)
    return r if r.standard_error > 0.0 else _without_spread(r, measure, warn=warn)


def _without_spread(r: PPIResult, measure: str, *, warn: bool) -> PPIResult:
    """A result without spread (equal gold deltas, ``lam = 0``) with compare's interval for equal deltas: the
    range of means ``n`` equal values allow (unbounded for a measure without a known range), never a point."""
    low, high, notes = zero_spread_deltas([r.confidence_interval.low], [r.confidence_interval.high],
                                          measures=[measure], delta=np.array([r.statistic]), n=np.array([r.n_gold]),
                                          flat=np.array([True]), confidence_level=r.confidence_level,
                                          alternative=r.alternative)
    if warn:
        said_of_gold = notes[0].replace("every delta equals", "every gold delta equals", 1)
        warnings.warn(f"no standard error: {said_of_gold}; p is the exact sign-flip test's on the {r.n_gold} gold "
                      "deltas", SmallSampleWarning, stacklevel=user_stacklevel())
    return dataclasses.replace(r, confidence_interval=ConfidenceInterval(float(low[0]), float(high[0])))


@renamed_keywords(alpha=USE_CONFIDENCE_LEVEL)
def ppi_compare(proxy_a: Any, proxy_b: Any, gold_a: Any, gold_b: Any, *, lam: float | None = None,
                confidence_level: float = 0.95, alternative: str = "two-sided", ddof: int = 1,
                method: str = "jackknife-edgeworth") -> PPIResult:
    """PPI++ estimate and interval of the mean gold delta ``b - a`` from proxy and gold per-query values.

    Parameters
    ----------
    proxy_a, proxy_b : mapping qid -> value (see module docstring)
        Metric values of systems A (baseline) and B under the proxy judgments, for every query.
    gold_a, gold_b : mapping qid -> value
        Metric values under the gold judgments, for the labelled sample (a subset of the proxy queries).
    lam : float, optional
        ``None`` (default): PPI++ power tuning, clipped to ``[0, 1]``; ``0``: gold only (classical);
        ``1``: plain PPI.  With fewer than two proxy-only queries ``lam = 0``.
    confidence_level : float in (0, 1), default 0.95
        Interval coverage; the test's level is ``1 - confidence_level`` (``ppi_py`` defaults to
        ``alpha = 0.1``).  Above 0.5 with a one-sided ``alternative``.
    alternative : {"two-sided", "greater", "less"}
    ddof : {1, 0}, default 1
        ``1`` makes ``lam = 0`` with ``method="t"`` the usual paired t interval; ``0`` with
        ``method="z"`` reproduces ``ppi_py``.
    method : {"jackknife-edgeworth", "jackknife-t", "t", "z"}, default "jackknife-edgeworth"
        Interval of :func:`pairedframe.stats.ppi.ppi_mean`: jackknife variance of the tuned estimator
        with t on ``n_gold - 2`` df and the quantile corrected for the rectifier's skew and kurtosis
        (default; calibrated for 10-30 gold queries, README "Calibration"), the same without the
        correction, plug-in variance with t on ``n_gold - 1``, or the normal interval of ``ppi_py``.

    Returns
    -------
    PPIResult
        ``statistic`` (the delta), ``confidence_interval``, ``pvalue`` (H0: delta = 0),
        ``standard_error``, ``lam``, ``n_gold``, ``n_proxy`` (proxy-only queries).  Plain values name no
        measure, so the interval is *not* clipped to a measure's range (it may reach beyond ``[-1, 1]``
        for a ``[0, 1]`` measure with few gold queries); :func:`ppi_compare_segments` clips each row
        to its measure's range.

    Raises
    ------
    SchemaError
        A gold query without a proxy value; A and B covering different queries; repeated, float or None qids.
    InsufficientSampleError
        Fewer than 2 gold queries.
    ValueError, TypeError
        Non-finite values, bad shapes or options.

    Warns
    -----
    SmallSampleWarning
        Fewer than 30 gold queries with ``method="z"`` (the normal interval under-covers there); gold
        deltas without spread (below).
    UserWarning
        Integer qids, spelled out as strings (module docstring).

    Notes
    -----
    Gold deltas that are all equal (up to float noise) give no standard error: ``lam`` is 0, ``pvalue``
    the exact sign-flip test's (``2 / 2**n``, 1 when they are 0) and the interval the one
    :func:`pairedframe.compare` gives ``n`` equal deltas (the range of means they allow,
    :func:`~pairedframe.stats.value_range.constant_sample_interval`), never a point.  Plain values name
    no measure, so that range is unknown and the interval unbounded; :func:`ppi_compare_segments` knows
    each measure's range.

    References
    ----------
    Angelopoulos, Duchi & Zrnic (2023), PPI++: Efficient prediction-powered inference, arXiv:2311.01453.
    """
    opt = check_ppi_options(lam=lam, confidence_level=confidence_level, alternative=alternative, ddof=ddof,
                            method=method)
    proxy = _deltas(_as_values(proxy_a, "proxy_a"), _as_values(proxy_b, "proxy_b"), "proxy")
    gold = _deltas(_as_values(gold_a, "gold_a"), _as_values(gold_b, "gold_b"), "gold")
    return _ppi_from_deltas(gold, proxy, opt, warn=True)


@renamed_keywords(alpha=USE_CONFIDENCE_LEVEL)
def ppi_compare_segments(per_query: pl.DataFrame, *, baseline: str, systems: Sequence[str] | str | None = None,
                         measures: Sequence[str] | str | None = None, segments: Any = None,
                         proxy: str = "proxy", gold: str = "gold", gold_qids: Sequence[Any] | None = None,
                         lam: float | None = None, confidence_level: float = 0.95, alternative: str = "two-sided",
                         ddof: int = 1, method: str = "jackknife-edgeworth",
                         family_by: Sequence[str] | str | None = None, correction: str = "bh") -> pl.DataFrame:
    """PPI++ comparisons for every (system, measure[, segment]) of a two-judgment per-query table.

    Parameters
    ----------
    per_query : JudgmentSetsEvaluation or polars.DataFrame
        The result of :func:`pairedframe.evaluate_judgment_sets`, or a table ``system, judgments, qid,
        measure, value``.
    baseline : str
        System A.
    systems, measures : str or sequence, optional
        Default: every other system / every measure.
    segments : table or path, optional
        ``qid, segment_set, segment`` (as :func:`compare_segments`); default one segment
        ``("all", "all")``.
    proxy, gold : str
        Values of the ``judgments`` column.
    gold_qids : sequence of str, optional
        Restrict the gold rows to these queries (the labelled sample); default all gold rows.  Ids are
        strings: integers are spelled out with a warning (``7`` cannot match ``"007"``), as an integer
        ``qid`` column is; None and floats are refused.
    lam, confidence_level, alternative, ddof, method
        As :func:`ppi_compare`.
    family_by : str or sequence of str, optional
        Output columns that define a multiple-comparison family, as :func:`compare_segments`: default
        ``("system", "measure", "segment_set")`` (without ``segments``, one row per family: nothing to
        adjust); ``[]``: one family over every row of the call.
    correction : {"bh", "holm"}, default "bh"
        The adjustment within each family that drives ``significant`` at level ``1 - confidence_level``
        (as :func:`compare_segments`); both adjusted columns are always returned.

    Returns
    -------
    polars.DataFrame
        One row per (system, measure, segment_set, segment), intervals inside the range of the measure's
        mean delta (an unbounded end becomes the range's end, except a one-sided interval's open side):
        ``delta, ci_low, ci_high, pvalue, pvalue_bh, pvalue_holm, significant, se, lam,
        n_gold, n_proxy, gold_only_delta, gold_only_ci_low, gold_only_ci_high, warning, family_size, family``;
        ``pvalue_bh`` / ``pvalue_holm`` adjust the PPI p-values within each ``family_by`` family
        (:func:`compare_segments`' helper; null p-values are left out), ``family_size`` counts the
        family's p-values and ``family`` says the rule in words (a unit without a p-value: ``"no test: one
        gold query (left out of its family: ...)"``, as :func:`compare_segments` words one paired query); the gold-only
        columns are the classical (``lam = 0``, same ``method``: by default the paired t interval with
        the skew-corrected quantile)
        interval on the same gold queries.  Units with fewer
        than 2 gold queries get nulls and a ``warning``; with ``method="z"``, fewer than 30 gold queries
        are flagged in ``warning``, with any method fewer than 10 (no per-row warning is printed; one
        summary :class:`SmallSampleWarning`) -- the default jackknife-edgeworth interval is calibrated
        for 10-30 gold queries.

    Raises
    ------
    SchemaError
        A required column is missing; ``gold_qids`` holds None or a float.
    EmptyResultError
        ``baseline``, ``systems``, ``measures``, ``proxy`` or ``gold`` name nothing in the table; no
        ``gold_qids`` query has a gold value; no unit has 2 gold queries (every estimate would be null).

    Warns
    -----
    PartlyEmptyWarning
        Some ``gold_qids`` have no gold value, or some units have no estimate (their rows are null).
    UserWarning
        ``gold_qids`` holds integers (spelled out as strings).

    Notes
    -----
    The estimator is closed-form, so this loops over units in Python (cheap: no resampling).
    """
    opt = check_ppi_options(lam=lam, confidence_level=confidence_level, alternative=alternative, ddof=ddof,
                            method=method)
    correction = check_segment_correction(correction)
    df = _two_judgment_table(per_query, proxy, gold, gold_qids)
    systems, measures = _systems_and_measures(df, baseline, systems, measures)
    if segments is None:
        seg = df.select("qid").unique().with_columns(pl.lit("all").alias("segment_set"), pl.lit("all").alias("segment"))
    else:
        from pairedframe.comparison.segment_tables import as_segments
        seg = as_segments(segments)
    rows = [_unit_row(vals, members, opt, {"system": system, "measure": measure, "segment_set": sset,
                                           "segment": sname, "baseline": baseline}, proxy, gold, baseline, system)
            for system in systems for measure in measures
            for vals in [_values_by_side(df, measure, proxy, gold, baseline, system)]
            for (sset, sname), members in seg.group_by(["segment_set", "segment"], maintain_order=True)]
    return _adjusted(_ppi_table(rows, opt.method, opt.alternative), family_by, correction, 1.0 - opt.confidence_level)


def _two_judgment_table(per_query: Any, proxy: str, gold: str, gold_qids: Sequence[Any] | None) -> pl.DataFrame:
    """``system, judgments, qid, measure, value`` of a two-judgment per-query table, checked (columns, the two
    judgment sets, repeated keys, rows), with the gold rows restricted to ``gold_qids``."""
    if isinstance(getattr(per_query, "per_query", None), pl.DataFrame):   # a JudgmentSetsEvaluation
        per_query = per_query.per_query
    need = ["system", "judgments", "qid", "measure", "value"]
    missing = [c for c in need if c not in per_query.columns]
    if missing:
        raise SchemaError(f"per-query table lacks column(s) {missing}")
    present = per_query["judgments"].cast(pl.String).unique(maintain_order=True).to_list()
    unknown = [f"{arg}={name!r}" for arg, name in (("proxy", proxy), ("gold", gold)) if name not in present]
    if unknown:
        raise EmptyResultError(f"{', '.join(unknown)} not among the judgment sets {present}; pass proxy= and gold= "
                         "with the names given to evaluate_judgment_sets")
    per_query = ids_as_strings(per_query, "the per-query table")
    refuse_null_or_blank_ids(per_query)
    df = per_query.select(pl.col("system").cast(pl.String), pl.col("judgments").cast(pl.String),
                          pl.col("qid").cast(pl.String), pl.col("measure").cast(pl.String),
                          pl.col("value").cast(pl.Float64))
    repeated = df.filter(pl.struct("system", "judgments", "measure", "qid").is_duplicated())
    if repeated.height:
        raise DuplicateError(f"per-query table has {repeated.height} rows with a repeated key (system, judgments, "
                             f"measure, qid), e.g. {repeated.row(0, named=True)}")
    require_rows(df, what="the per-query table", why="no (system, judgments, qid, measure, value) row")
    if gold_qids is not None:
        keep = listed_ids(gold_qids, "gold_qids")
        gold_rows = df.filter(pl.col("judgments") == gold)["qid"].unique().to_list()
        require_each(keep, gold_rows, what="query of gold_qids", plural="queries of gold_qids",
                     lacking="no gold value",
                     consequence="left out of the sample")
        df = df.filter((pl.col("judgments") != gold) | pl.col("qid").is_in(keep))
    return df


def _systems_and_measures(df: pl.DataFrame, baseline: str, systems: Any, measures: Any
                          ) -> tuple[list[str], list[str]]:
    """The systems compared with ``baseline`` and the measures, checked against the table."""
    where = "the per-query table"
    all_systems = df["system"].unique(maintain_order=True).to_list()
    require_names(baseline, all_systems, what="system", parameter="baseline", source=where)
    others = [s for s in all_systems if s != baseline]
    systems = [s for s in require_names(systems if systems is not None else others or [baseline], all_systems,
                                        what="system", parameter="systems", source=where) if s != baseline]
    if not systems:
        raise ValueError(f"nothing to compare: no system other than the baseline {baseline!r} (systems: {all_systems})")
    present = df["measure"].unique(maintain_order=True).to_list()
    chosen = require_names(table_measure_names(measures, present), present, what="measure", parameter="measures",
                           source=where)
    return systems, comparable_measures(chosen, everything=measures is None)


def _values_by_side(df: pl.DataFrame, measure: str, proxy: str, gold: str, baseline: str, system: str
                    ) -> dict[tuple[str, str], dict[str, float]]:
    """{(judgments, system): {qid: value}} of one measure, for the two judgment sets and the two systems."""
    sub = df.filter(pl.col("measure") == measure)
    vals = {}
    for j in (proxy, gold):
        for s in (baseline, system):
            t = sub.filter((pl.col("system") == s) & (pl.col("judgments") == j))
            vals[(j, s)] = dict(zip(t["qid"].to_list(), t["value"].to_list()))
    return vals


def _unit_row(vals: dict[tuple[str, str], dict[str, float]], members: pl.DataFrame, opt: PPIOptions,
              row: dict[str, Any], proxy: str, gold: str, baseline: str, system: str) -> dict[str, Any]:
    """The result row of one (system, measure, segment): the PPI++ and the gold-only estimate on its queries."""
    qs = set(members["qid"].to_list())
    pa, pb, ga, gb = ({q: v for q, v in vals[key].items() if q in qs}
                      for key in ((proxy, baseline), (proxy, system), (gold, baseline), (gold, system)))
    pdel = {q: pb[q] - pa[q] for q in pa.keys() & pb.keys()}
    gdel = {q: gb[q] - ga[q] for q in ga.keys() & gb.keys()}
    try:
        r = _ppi_from_deltas(gdel, pdel, opt, warn=False, measure=row["measure"])
        r0 = _ppi_from_deltas(gdel, pdel, dataclasses.replace(opt, lam=0.0), warn=False, measure=row["measure"])
    except InsufficientSampleError:
        return {**row, "n_gold": len(gdel), "n_proxy": len(pdel.keys() - gdel.keys()),
                "warning": "fewer than 2 gold queries: no estimate"}
    small = r.n_gold < SMALL_GOLD_N and opt.method == "z"
    few = r.n_gold < CALIBRATED_GOLD_N
    size = (f"n_gold < {SMALL_GOLD_N}: normal interval may under-cover" if small
            else f"n_gold < {CALIBRATED_GOLD_N}: below the calibrated 10-30" if few else None)
    flat = _FLAT if r.standard_error == 0.0 else None
    return {**row, "delta": r.statistic, "ci_low": r.confidence_interval.low,
            "ci_high": r.confidence_interval.high, "pvalue": r.pvalue, "se": r.standard_error,
            "lam": r.lam, "n_gold": r.n_gold, "n_proxy": r.n_proxy,
            "gold_only_delta": r0.statistic, "gold_only_ci_low": r0.confidence_interval.low,
            "gold_only_ci_high": r0.confidence_interval.high,
            "warning": "; ".join(w for w in (flat, size) if w) or None}


#: The ``warning`` of a unit whose gold deltas have no spread (its interval: :func:`_without_spread`).
_FLAT = ("every gold delta equals the estimate (no spread): the interval is the range of means that n equal deltas "
         "allow")


_SCHEMA = {"system": pl.String, "measure": pl.String, "segment_set": pl.String, "segment": pl.String,
           "baseline": pl.String, "delta": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64,
           "pvalue": pl.Float64, "se": pl.Float64, "lam": pl.Float64, "n_gold": pl.Int64, "n_proxy": pl.Int64,
           "gold_only_delta": pl.Float64, "gold_only_ci_low": pl.Float64, "gold_only_ci_high": pl.Float64,
           "warning": pl.String}


def _ppi_table(rows: list[dict[str, Any]], method: str, alternative: str) -> pl.DataFrame:
    """The rows as a frame, intervals inside the measure's range, units without an estimate and small
    gold samples warned about once each."""
    out = pl.DataFrame(rows, schema=_SCHEMA)
    measure_names = out["measure"].to_list()         # intervals inside the range of a mean delta ([-1, 1] on [0, 1])
    for low, high, est in (("ci_low", "ci_high", "delta"), ("gold_only_ci_low", "gold_only_ci_high", "gold_only_delta")):
        lo, hi, _ = clip_deltas(out[low].to_numpy(), out[high].to_numpy(), measure_names, out[est].to_numpy(),
                               alternative=alternative)
        out = out.with_columns(pl.Series(low, lo, dtype=pl.Float64, nan_to_null=True),
                               pl.Series(high, hi, dtype=pl.Float64, nan_to_null=True))
    units = [(r["system"], r["measure"], r["segment_set"], r["segment"]) for r in rows]
    estimated = [u for u, r in zip(units, rows) if r.get("delta") is not None]
    require_each(units, estimated, what="(system, measure, segment_set, segment) unit", lacking="fewer than 2 gold "
                 "queries paired with the baseline (no estimate)", consequence="null in the result")
    n_flat = sum(1 for r in rows if (r.get("warning") or "").startswith(_FLAT))
    if n_flat:
        warnings.warn(f"{n_flat} of {out.height} PPI comparisons have gold deltas without spread: no standard error, "
                      "so their interval is the range of means that n equal deltas allow (unbounded without a known "
                      "range), never a point, and p the exact sign-flip test's; see the 'warning' column",
                      SmallSampleWarning, stacklevel=user_stacklevel())
    n_small = sum(1 for r in rows if "n_gold <" in (r.get("warning") or "") and r.get("delta") is not None)
    if n_small:
        few = SMALL_GOLD_N if method == "z" else CALIBRATED_GOLD_N
        warnings.warn(f"{n_small} of {out.height} PPI comparisons have fewer than {few} gold queries; "
                      "see the 'warning' column", SmallSampleWarning, stacklevel=user_stacklevel())
    return out


def _adjusted(out: pl.DataFrame, family_by: Any, correction: str, level: float) -> pl.DataFrame:
    """The result with compare_segments' BH / Holm columns and families (same rule, same helper)."""
    from pairedframe.comparison.segment_tables import family_adjusted
    p_bh, p_holm, size, rule = family_adjusted(out, out["pvalue"].to_numpy(), family_by=family_by)
    used = p_bh if correction == "bh" else p_holm
    out = out.with_columns(pl.Series("pvalue_bh", p_bh, nan_to_null=True),
                           pl.Series("pvalue_holm", p_holm, nan_to_null=True),
                           pl.Series("significant", np.where(np.isnan(used), False, used < level)),  # as compare
                           pl.Series("family_size", size, dtype=pl.Int64),
                           pl.Series("family", _family_texts(out, rule), dtype=pl.String))
    first = out.columns[:out.columns.index("pvalue") + 1]
    return out.select(*first, "pvalue_bh", "pvalue_holm", "significant",
                      *[c for c in out.columns if c not in (*first, "pvalue_bh", "pvalue_holm", "significant")])


def _family_texts(out: pl.DataFrame, rule: str) -> list[str]:
    """Each row's ``family``: the rule, or for a unit without a p-value why it has no test and which family it is
    left out of, worded as compare_segments words a segment of one paired query."""
    untested = {0: untested_family_text(rule, "no gold query"), 1: untested_family_text(rule, "one gold query")}
    return [rule if p is not None and p == p else untested.get(n, untested_family_text(rule, "no estimate"))
            for p, n in zip(out["pvalue"].to_list(), out["n_gold"].to_list())]
