"""Pre-registered analyses: a TOML plan fixes systems, endpoints, margin, confidence level and seed; ``analyze`` runs exactly it.

A plan is written before any result is seen.  :func:`analyze` refuses to run without one, runs exactly
its endpoints (no more, no fewer), applies Holm within each family (the primary endpoints alone; the
secondaries apart), and reports per endpoint the delta, its
``1 - alpha`` interval (the shifts the cluster sign-flip test does not reject), the cluster sign-flip
p-value, the Holm-adjusted p-value, the TOST equivalence p-value at the margin (t reference with
Bell-McCaffrey degrees of freedom (``G - 1`` for equal cluster sizes) on the CR2 cluster SE, which keeps "equivalent" at its 5 % with 10
clusters), the minimum detectable difference (noncentral t, at Holm's first-step level
``alpha / m`` of the endpoint's family), the exact McNemar p-value
(a reference for binary endpoints only; it assumes independent queries) and one verdict:

``"difference"``
    significant after Holm (``pvalue_holm < alpha``) and *not* equivalent within the margin;
``"difference within the margin"``
    significant after Holm *and* TOST-equivalent after Holm (a real but practically negligible difference);
``"equivalent within ±margin"``
    not significant, TOST-equivalent after Holm (``pvalue_tost_holm < alpha``; with one endpoint in
    the family: the 90 % interval lies inside ``(-margin, margin)`` for ``alpha = 0.05``);
``"inconclusive"``
    neither: the data cannot tell.

TOST p-values are Holm-adjusted in the same family as the difference p-values (``pvalue_tost_holm``):
an equivalence verdict is a claim too, so the family-wise error rate covers claims of either kind.
Holm families follow the roles: the primary endpoints alone form the confirmatory family (adding
secondaries never weakens the primary claim), and the secondary endpoints form their own family; the
``family`` column and the JSON say which.

The plan file and its keys: :mod:`pairedframe.comparison.plan_file`.
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from pairedframe.comparison.clustered import cluster_policy, compare_clustered
from pairedframe.comparison.verdicts import UnreachableWarning
from pairedframe.comparison.plan_file import ROLES as _ROLES, Endpoint, Plan, load_plan
from pairedframe.comparison.verdicts import smallest_pvalue, t_mde
from pairedframe.errors import PlanError, ResamplingCostError, SmallSampleWarning, user_stacklevel
from pairedframe.stats.multiple import holm
from pairedframe.stats.levels import decision_alpha, percent

__all__ = ["ANALYSIS_VERDICTS", "Endpoint", "Plan", "AnalysisResult", "load_plan", "analyze"]

ANALYSIS_VERDICTS = ("difference", "difference within the margin", "equivalent within ±margin", "inconclusive")
#: The Holm family of each role, as the table's ``family`` column names it.
FAMILIES = {"primary": "confirmatory (primary endpoints)", "secondary": "secondary endpoints"}


# ----------------------------------------------------------------------------------------------
# running a plan
# ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AnalysisResult:
    """Result of :func:`analyze`.

    Attributes
    ----------
    table : polars.DataFrame
        One row per endpoint, in plan order (see :func:`analyze` for the columns).
    plan : Plan
        The plan that was run (``plan.sha256`` identifies its file).
    settings : dict
        Methods and policies, enough to reproduce the analysis.
    """

    table: pl.DataFrame
    plan: Plan
    settings: dict[str, Any]

    @property
    def plan_sha256(self) -> str:
        """SHA-256 of the plan file's bytes, as the report records it."""
        return self.plan.sha256

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready report: plan (with sha256), settings and one record per endpoint."""
        def clean(v: Any) -> Any:
            return None if isinstance(v, float) and not math.isfinite(v) else v

        return {"plan": self.plan.as_dict(), "settings": self.settings,
                "endpoints": [{k: clean(v) for k, v in r.items()} for r in self.table.to_dicts()]}


def _verdict(significant: bool, equivalent: bool) -> str:
    if significant:
        return "difference within the margin" if equivalent else "difference"
    return "equivalent within ±margin" if equivalent else "inconclusive"


def _favours(delta: float, direction: str, plan: Plan, significant: bool) -> str | None:
    if not significant or delta == 0:
        return None
    better = delta > 0 if direction == "higher is better" else delta < 0
    return plan.candidate if better else plan.baseline


def _method_descriptions(unit: str, alpha: float, power: float) -> dict[str, str]:
    """The methods as the header states them, in the plan's resampling unit: clusters of queries, or
    queries (each its own cluster, where the cluster test is the plain paired sign-flip test and the
    CR2 SE the paired-t SE)."""
    if unit == "cluster":
        test, se = "cluster sign-flip", "the CR2 cluster SE"
        dof = "Bell-McCaffrey df (G - 1 for equal cluster sizes)"
        exact = "2^G <= n_resamples, G clusters"
    else:
        test, se, dof = "paired sign-flip", "the paired SE", "n - 1 df"
        exact = "2^n <= n_resamples, n queries"
    return {
        "interval": f"{percent(1 - alpha)}% interval of the mean delta (candidate - baseline): the shifts the {test} "
                    "test does not reject",
        "test": f"{test} randomization test, two-sided (exact when {exact})",
        "equivalence": f"TOST at ±margin, t with {dof} on {se}; {percent(1 - 2 * alpha)}% interval (unadjusted); "
                       "p-values Holm-adjusted within the endpoint's family (pvalue_tost_holm), as the difference",
        "mdd": f"noncentral t ({dof}, {se}) at power {power} and level alpha / m, m = the size of the "
               "endpoint's Holm family (Holm's first step)",
    }


def _results_frame(results: Any, plan: Plan) -> pl.DataFrame:
    from pairedframe.io.results import as_results, refuse_partly_null_keys

    ks = sorted({e.hit_k for e in plan.endpoints if e.hit_k is not None}) or [1, 5, 10]
    frame = as_results(results, ks=ks)
    refuse_partly_null_keys(frame, keep=("cluster",))    # a null cluster is reported with the clusters
    return frame


def analyze(plan: Plan | str | os.PathLike | None, results: Any, *, clusters: Any = None) -> AnalysisResult:
    """Run a pre-registered plan on per-query results: exactly its endpoints, Holm within each role.

    Parameters
    ----------
    plan : Plan or path
        From :func:`load_plan` / :meth:`Plan.from_toml`, or the path of a TOML plan file.  ``None``
        is refused.
    results : Evaluation, table, path or list of paths
        Per-query values ``system, qid, measure, value`` (+ ``dataset``, ``cluster``), or first-hit-rank
        exports ``qid, first_hit_rank[, cluster, dataset, ap]``; files in Parquet, CSV/TSV or JSON
        (see :func:`pairedframe.io.results.read_results`).
    clusters : mapping or table, optional
        A ``qid -> cluster`` mapping (or ``qid, cluster[, dataset]`` table) when the results have no
        ``cluster`` column.

    Returns
    -------
    AnalysisResult
        ``table`` has one row per endpoint in plan order with columns ``endpoint, role, family, dataset,
        measure, direction, baseline, candidate, n_queries, n_clusters, baseline_mean,
        candidate_mean, delta, ci_low, ci_high, confidence_level, pvalue, pvalue_holm, margin,
        pvalue_tost, pvalue_tost_holm, tost_low, tost_high, equivalent, mdd, mcnemar_pvalue, mcnemar_b,
        mcnemar_c, verdict, favours, resampling_unit``.  ``ci_*`` is the ``1 - alpha`` interval inverting the cluster
        sign-flip test (each query its own cluster with ``resampling_unit = "query"``); ``pvalue`` the cluster sign-flip p-value (two-sided); ``tost_*`` the ``1 - 2
        alpha`` interval ``delta -/+ t(1 - alpha, df) se`` with the CR2 cluster SE and its Bell-McCaffrey
        ``df`` (``G - 1`` for equal cluster sizes); ``mdd`` the
        noncentral-t minimum detectable difference at the plan's power and level ``alpha / m`` (``m``
        endpoints; inf when the exact test cannot reach it); ``mcnemar_*`` the exact McNemar test and discordant counts (b = baseline only,
        c = candidate only) for 0/1 endpoints, else null -- a reference that ignores clusters;
        ``favours`` names the better system when the verdict is a difference.  ``pvalue_holm`` is
        Holm-adjusted within the endpoint's ``family``: the primaries alone (the confirmatory claim)
        or the secondaries alone; ``pvalue_tost_holm`` the TOST p-value adjusted likewise, and
        ``equivalent`` is ``pvalue_tost_holm < alpha`` (``tost_*`` stays the unadjusted interval).

    Raises
    ------
    ResamplingCostError
        The plan's ``n_resamples`` would take absurd time or memory for this data, estimated before any
        resampling (:mod:`pairedframe.comparison._cost`; the message names the plan key and gives the
        largest value that fits).
    PlanError
        No plan; an endpoint's ``direction`` contradicts its measure's (``lower is better`` for
        ``nDCG@10``; raised when the plan is parsed); a system of the plan is not in the results (exact names only, never a suffix or
        prefix match); an endpoint's measure or dataset is missing; the results have key columns the
        plan does not resolve; ``resampling_unit = "cluster"`` without clusters.
    InsufficientSampleError
        An endpoint with fewer than 2 common queries / clusters.

    Warns
    -----
    SmallSampleWarning
        An endpoint with fewer than 20 clusters.
    """
    plan = _as_plan(plan)
    df, unit = _analysis_frame(_results_frame(results, plan), plan, clusters)
    datasets = df["dataset"].unique(maintain_order=True).to_list() if "dataset" in df.columns else []
    rows = [_endpoint_row(_endpoint_values(df, i, ep, datasets), ep, plan, unit, clusters)
            for i, ep in enumerate(plan.endpoints)]
    roles = _adjust(rows, plan, unit)
    table = pl.DataFrame([{k: r[k] for k in _COLUMNS} for r in rows], schema_overrides=_SCHEMA,
                         infer_schema_length=None)
    alpha = decision_alpha(plan.confidence_level)
    settings = {
        "plan_sha256": plan.sha256, "plan_source": plan.source, "confidence_level": plan.confidence_level,
        "alpha": round(alpha, 12), "seed": plan.seed,   # 1 - 0.95 prints 0.05, not 0.050000000000000044
        "n_resamples": plan.n_resamples, "power": plan.power, "resampling_unit": unit,
        **_method_descriptions(unit, alpha, plan.power),   # interval, test, equivalence, mdd
        "multiple_comparisons": "; ".join(f"Holm within the {FAMILIES[role]} ({int(np.sum(roles == role))})"
                                          for role in _ROLES if np.any(roles == role)),
        "mcnemar": "exact two-sided McNemar on 0/1 endpoints, reference only (assumes independent queries)",
        "cluster_policy": cluster_policy("the shifts the cluster sign-flip test does not reject (the plan's test)")
        if unit == "cluster" else "each query its own cluster (= plain paired test)",
        "verdicts": list(ANALYSIS_VERDICTS),
    }
    return AnalysisResult(table=table, plan=plan, settings=settings)


_COLUMNS = ["endpoint", "role", "family", "dataset", "measure", "direction", "baseline", "candidate",
            "n_queries", "n_clusters", "baseline_mean", "candidate_mean", "delta", "ci_low", "ci_high",
            "confidence_level", "se", "pvalue", "pvalue_holm", "exact", "margin", "pvalue_tost", "pvalue_tost_holm",
            "tost_low", "tost_high", "equivalent", "mdd", "mcnemar_pvalue", "mcnemar_b", "mcnemar_c", "verdict",
            "favours", "resampling_unit"]
_SCHEMA = {"dataset": pl.String, "mcnemar_pvalue": pl.Float64, "mcnemar_b": pl.Int64, "mcnemar_c": pl.Int64,
           "favours": pl.String}


def _as_plan(plan: Any) -> Plan:
    """The plan given (a Plan or a plan file's path); refuses to run without one."""
    if plan is None:
        raise PlanError("no analysis plan given: analyze runs only a pre-registered plan (a TOML file; see "
                        "examples/plan.toml); write it before looking at results")
    if isinstance(plan, Plan):
        return plan
    if isinstance(plan, (str, os.PathLike)):
        return load_plan(plan)
    raise PlanError(f"plan must be a Plan or the path of a TOML plan file, got {type(plan).__name__}")


def _analysis_frame(df: pl.DataFrame, plan: Plan, clusters: Any) -> tuple[pl.DataFrame, str]:
    """The results of the plan's two systems (exact names), and the resampling unit (cluster or query)."""
    if clusters is not None and "cluster" in df.columns:
        raise PlanError("results already have a 'cluster' column; do not also pass clusters=")
    systems = df["system"].cast(pl.String).unique(maintain_order=True).to_list()
    for key, name in (("systems.baseline", plan.baseline), ("systems.candidate", plan.candidate)):
        if name not in systems:
            near = [s for s in systems if name in s or s in name]
            hint = f"; similar names (not matched: exact names only): {near}" if near else ""
            raise PlanError(f"plan key {key} = {name!r} is not a system of the results {systems}{hint}")
    has_clusters = "cluster" in df.columns or clusters is not None
    unit = plan.resampling_unit or ("cluster" if has_clusters else "query")
    if unit == "cluster" and not has_clusters:
        raise PlanError("plan key resampling_unit = 'cluster' but the results have no 'cluster' column "
                        "and no clusters= mapping was given")
    if unit == "query" and "cluster" in df.columns:
        df = df.drop("cluster")
    extra = [c for c in df.columns if c not in ("system", "qid", "measure", "value", "dataset", "cluster")]
    if extra:
        raise PlanError(f"results have key column(s) {extra} that the plan cannot resolve; keep only "
                        "system, qid, measure, value, dataset, cluster")
    return df.filter(pl.col("system").is_in([plan.baseline, plan.candidate])), unit


def _endpoint_values(df: pl.DataFrame, i: int, ep: Endpoint, datasets: list[str]) -> pl.DataFrame:
    """The rows of endpoint ``i``: its dataset (required when the results hold several) and measure."""
    sub = df
    if ep.dataset is not None:
        if "dataset" not in df.columns:
            raise PlanError(f"plan key endpoints[{i}].dataset = {ep.dataset!r} but the results have no "
                            "'dataset' column")
        if ep.dataset not in datasets:
            raise PlanError(f"plan key endpoints[{i}].dataset = {ep.dataset!r} is not a dataset of the "
                            f"results {datasets}")
        sub = sub.filter(pl.col("dataset") == ep.dataset)
    elif len(datasets) > 1:
        raise PlanError(f"plan key endpoints[{i}].dataset is required: the results hold datasets {datasets}")
    measures = sub["measure"].unique(maintain_order=True).to_list()
    if ep.measure not in measures:
        hit = "" if ep.hit_k is None else (
            f"; hit@k is derived from a first-hit-rank export (columns qid, first_hit_rank, with system, cluster, "
            f"dataset as needed), which these results are not; for evaluated runs the same endpoint is "
            f"Success@{ep.hit_k}" + (" (in the results)" if f"Success@{ep.hit_k}" in measures else ""))
        raise PlanError(f"plan key endpoints[{i}].measure = {ep.measure!r} is not a measure of the results "
                        f"{measures} (exact names){hit}")
    return sub.filter(pl.col("measure") == ep.measure)


def _endpoint_row(sub: pl.DataFrame, ep: Endpoint, plan: Plan, unit: str, clusters: Any) -> dict[str, Any]:
    """One endpoint compared (clustered, or each query its own cluster), before the Holm step."""
    if unit == "query":
        sub = sub.with_columns(pl.col("qid").cast(pl.String).alias("cluster"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if unit == "query":  # the plain test warns below, on queries
            warnings.simplefilter("ignore", SmallSampleWarning)
        try:
            res = compare_clustered(sub, baseline=plan.baseline, systems=[plan.candidate], clusters=clusters,
                                    measures=[ep.measure], n_resamples=plan.n_resamples,
                                    confidence_level=plan.confidence_level, seed=plan.seed, margin=ep.margin,
                                    power=plan.power, correction="none",
                                    interval="signflip")     # a plan's interval agrees with its test
        except ResamplingCostError as exc:       # checked before any resampling: name the plan's key
            raise ResamplingCostError(str(exc).replace("`n_resamples`", "plan key n_resamples", 1),
                                      argument="plan key n_resamples", value=exc.value,
                                      largest=exc.largest) from None
    for w in caught:   # said of this endpoint: compare_clustered's "no comparison" is this call's one row
        if isinstance(w.message, UnreachableWarning):
            w.message = UserWarning(f"endpoint {ep.name!r} ({plan.candidate} vs {plan.baseline}) cannot be "
                                    f"significant: {w.message.reason}")
        warnings.warn(w.message, stacklevel=user_stacklevel())
    r = res.row(0, named=True)
    if unit == "query" and r["n_queries"] < 20:
        warnings.warn(f"endpoint {ep.name!r}: only {r['n_queries']} queries (< 20)", SmallSampleWarning,
                      stacklevel=user_stacklevel())
    return {"endpoint": ep.name, "role": ep.role, "dataset": ep.dataset, "measure": ep.measure,
            "direction": ep.direction, "baseline": plan.baseline, "candidate": plan.candidate,
            "n_queries": r["n_queries"], "n_clusters": r["n_clusters"],
            "baseline_mean": r["baseline_mean"], "candidate_mean": r["system_mean"],
            "delta": r["delta"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
            "confidence_level": plan.confidence_level, "se": r["se"], "df": r["df"], "pvalue": r["pvalue"],
            "exact": r["exact"], "margin": ep.margin,
            "pvalue_tost": r["pvalue_tost"], "tost_low": r["tost_low"], "tost_high": r["tost_high"],
            "equivalent": r["equivalent"], "mdd": r["mde"], "mcnemar_pvalue": r["mcnemar_pvalue"],
            "mcnemar_b": r["mcnemar_b"], "mcnemar_c": r["mcnemar_c"]}


def _adjust(rows: list[dict[str, Any]], plan: Plan, unit: str) -> np.ndarray:
    """Holm within each role's family (differences and equivalences alike), the MDD at Holm's first step,
    and each row's verdict, in place; returns the rows' roles."""
    alpha = decision_alpha(plan.confidence_level)
    pvalues = np.array([r["pvalue"] for r in rows], dtype=float)
    roles = np.array([r["role"] for r in rows])
    p_tost = np.array([r["pvalue_tost"] for r in rows], dtype=float)
    p_holm, p_tost_holm = np.full(len(rows), np.nan), np.full(len(rows), np.nan)
    for role in _ROLES:  # one Holm family per role: secondaries never dilute the confirmatory claim
        p_holm[roles == role] = holm(pvalues[roles == role])
        p_tost_holm[roles == role] = holm(p_tost[roles == role])    # equivalence claims, adjusted alike
    for r in rows:
        level = alpha / int(np.sum(roles == r["role"]))   # Holm's first step: what a lone true difference must reach
        floor = smallest_pvalue("randomization", bool(r["exact"]), int(r["n_clusters"]), "two-sided",
                                plan.n_resamples)
        r["mdd"] = t_mde(float(r["se"]), float(r["df"]), level, plan.power, "two-sided", floor,
                         bool(r["se"] == 0))
    for r, ph, pth in zip(rows, p_holm, p_tost_holm):
        r["pvalue_holm"], r["pvalue_tost_holm"] = float(ph), float(pth)
        r["family"] = FAMILIES[r["role"]]
        sig = bool(ph < alpha)
        r["equivalent"] = bool(pth < alpha)
        r["verdict"] = _verdict(sig, r["equivalent"])
        r["favours"] = _favours(r["delta"], r["direction"], plan, sig)
        r["resampling_unit"] = unit
    return roles
