"""Calibration of the agreement intervals: :func:`pairedframe.rank_agreement` and :func:`pairedframe.label_agreement`.

Rank agreement (tau_b, rho, tau_AP, its symmetric form, RBO) of two orderings of the same systems:

- ``DL-2019 NIST vs <label set>``: the 20 DL-2019 runs of the data README (17 in ``llm_labels_dl/dl2019_runs``
  plus the 3 ICT runs of ``syndl``), nDCG@10 under the NIST qrels (the reference ``a``) and under each of
  the 7 DL-2019 LLM label sets of ``llm_labels_dl/results`` (``b``), 43 queries;
- ``DL-2021 nDCG@10 vs AP``: the 63 DL-2021 runs ordered by nDCG@10 (``a``) and by AP (``b``), NIST
  qrels, 53 queries;
- ``near-tie``: a synthetic design of 8 systems whose population means under ``a`` are
  0.60 0.58 0.56 0.54 0.52 0.50 0.47 0.47 (steps of 0.02, the last two tied) and under ``b``
  0.60 0.58 0.56 0.54 0.52 0.60 0.48 0.46 (the sixth tied with the first, above the four between);
  population tau_b = 18 / 27 = 2/3.  A query's value is mean + a query effect N(0, 0.2^2) shared by
  every system and both sides + a system-by-query effect N(0, 0.1^2), correlated 0.6 between a and b
  (so one pair's standard error is about one step at 30 queries: the near ties).

Each replication draws n = 20 or 30 queries i.i.d. (with replacement) from the collection's queries (a
fresh sample from the design for near-tie) and computes the package's intervals with the package's
kernel (:func:`~pairedframe.comparison.rank_intervals.coefficient_intervals`); truth = the coefficient
of the full set's means (of the population means for near-tie).  Reported per interval: coverage with
its Monte-Carlo SE, the share of misses with the truth below / above the interval, the median width,
the coefficient's mean over the samples (its bias), and for the percentile bootstrap how often it
excludes its own estimate; then the coverage of the intervals tried and not chosen (basic, BCa,
symmetric, m-out-of-n basic) from the same replicates.

Label agreement (Cohen's kappa, linear, quadratic, binary at grade 2) of NIST and each DL-2019 LLM label
set on their common pairs: each replication draws n = 20 or 30 of the 43 queries i.i.d. with all their
pairs; truth = kappa over all 43 queries.  Beside the package's jackknife interval
(:func:`~pairedframe.comparison.label_agreement.kappa_intervals`), two contrasts that the package does
not print: the percentile bootstrap over queries (B resamples) and the i.i.d. Fleiss-Cohen-Everitt
normal interval (statsmodels' ``cohens_kappa`` standard error), which treats the pairs as independent.
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path

import numpy as np

from common import rate, table
from data import DATA

RANK_METHODS = ("jackknife", "percentile")
#: Intervals tried and not chosen, reported for comparison (computed in :func:`_contrasts`).
CONTRASTS = ("basic", "BCa", "symmetric", "m-out-of-n basic")
SIZES = (20, 30)
COEFFICIENT_NAMES = {"kendall_tau_b": "tau_b", "spearman_rho": "rho", "tau_ap": "tau_AP",
                     "tau_ap_symmetric": "tau_AP sym", "rbo": "RBO"}
KAPPAS = {"kappa": "unweighted", "kappa_linear": "linear", "kappa_quadratic": "quadratic",
          "kappa_binary": "binary (>= 2)"}
NEAR_TIE_A = np.array([0.60, 0.58, 0.56, 0.54, 0.52, 0.50, 0.47, 0.47])
NEAR_TIE_B = np.array([0.60, 0.58, 0.56, 0.54, 0.52, 0.60, 0.48, 0.46])


def _dl19_inputs(data: Path, max_runs: int | None) -> tuple[list[str], Path, list[Path]]:
    runs = sorted(str(p) for p in (data / "llm_labels_dl" / "dl2019_runs").glob("input.*.gz"))
    ict = data / "syndl" / "TREC-DLs-files" / "TREC-DL-2019" / "passages-runs"
    runs += [str(ict / r) for r in ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50")]
    labels = sorted(p for p in (data / "llm_labels_dl" / "results").glob("*.txt") if "dl2019" in p.name)
    nist = data / "anserini_tools" / "qrels.dl19-passage.txt"
    missing = [p for p in (*runs, nist) if not Path(p).exists()]
    if missing or not labels:
        raise FileNotFoundError(f"DL-2019 runs, NIST qrels or LLM labels missing under {data}: {missing[:2]}")
    return runs[:max_runs] if max_runs else runs, nist, labels


def _wide(per_query, systems: list[str] | None = None, qids: list[str] | None = None):
    import polars as pl

    wide = per_query.pivot(on="system", index="qid", values="value")
    if qids is not None:
        wide = pl.DataFrame({"qid": qids}).join(wide, on="qid", how="left")
    wide = wide.sort("qid")
    systems = systems or sorted(c for c in wide.columns if c != "qid")
    return wide["qid"].to_list(), systems, wide.select(systems).fill_null(0.0).to_numpy()


def load_rankings(data: Path = DATA, max_runs: int | None = None, label_sets: int | None = None) -> dict:
    """``{cell name: (A, B)}``: per-query values (queries x systems) of the two orderings of each cell.
    A run without a value on a judged query scores 0 there (as ``data.load``)."""
    import polars as pl

    import pairedframe as pf

    runs, nist, labels = _dl19_inputs(data, max_runs)
    labels = labels[:label_sets] if label_sets else labels
    sets = {"NIST": str(nist), **{p.stem: str(p) for p in labels}}
    pq = pf.evaluate_judgment_sets(runs, sets, "nDCG@10").per_query
    qids, systems, A = _wide(pq.filter(pl.col("judgments") == "NIST"))
    cells = {}
    for p in labels:
        _, _, B = _wide(pq.filter(pl.col("judgments") == p.stem), systems, qids)
        cells[f"DL-2019 NIST vs {p.stem}"] = (A, B)
    folder = data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    runs21 = sorted(str(p) for p in (folder / "passages-runs").glob("*.gz"))
    ev = pf.evaluate(runs21[:max_runs] if max_runs else runs21, str(folder / "qrels-pass.txt"), ["nDCG@10", "AP"])
    qids, systems, A = _wide(ev.per_query.filter(pl.col("measure") == "nDCG@10"))
    _, _, B = _wide(ev.per_query.filter(pl.col("measure") == "AP"), systems, qids)
    cells["DL-2021 nDCG@10 vs AP"] = (A, B)
    return cells


def load_labels(data: Path = DATA, label_sets: int | None = None) -> dict:
    """``{label set: (per-query confusions (43, 4, 4), binary per-query confusions (43, 2, 2))}`` of NIST
    vs each DL-2019 LLM label set on their common pairs, grades 0-3."""
    from pairedframe.comparison.label_agreement import per_query_confusions
    from pairedframe.io.convert import as_qrels

    _, nist, labels = _dl19_inputs(data, None)
    gold = as_qrels(str(nist))
    out = {}
    for p in labels[:label_sets] if label_sets else labels:
        common = gold.join(as_qrels(str(p)), on=["qid", "docno"], suffix="_b")
        qids, ga, gb = common["qid"].to_numpy(), common["rel"].to_numpy(), common["rel_b"].to_numpy()
        if min(ga.min(), gb.min()) < 0 or max(ga.max(), gb.max()) > 3:
            raise ValueError(f"{p.name}: grades outside 0-3 on a common pair")
        out[p.stem] = (per_query_confusions(qids, ga, gb, 4),
                       per_query_confusions(qids, (ga >= 2).astype(np.int64), (gb >= 2).astype(np.int64), 2))
    return out


def _near_tie_draw(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    query = rng.normal(0.0, 0.2, (n, 1))
    ea = rng.normal(0.0, 0.1, (n, 8))
    eb = 0.6 * ea + math.sqrt(1 - 0.6 ** 2) * rng.normal(0.0, 0.1, (n, 8))
    return NEAR_TIE_A + query + ea, NEAR_TIE_B + query + eb


#: Columns of a replication's record (:func:`score_interval`).
COVERS, BELOW, ABOVE, WIDTH, EXCLUDES, ESTIMATE, UNDEFINED = range(7)


def score_interval(truth: float, estimate: float, ci) -> tuple[float, ...]:
    """One replication's record of an interval ``ci = (low, high)``: (covers the truth, truth below it,
    truth above it, width, excludes its own estimate, estimate, undefined), indexed by :data:`COVERS` ...
    :data:`UNDEFINED`.  An interval with a NaN end is one the method declined to give (e.g. the jackknife
    when no query changes the coefficient): undefined, neither a cover nor a miss, so its first five
    entries are NaN and the scorers (:func:`coverage`) count it apart."""
    low, high = ci
    if math.isnan(low) or math.isnan(high):
        return (math.nan,) * 5 + (estimate, 1.0)
    return (float(low <= truth <= high), float(truth < low), float(truth > high), high - low,
            float(not (low <= estimate <= high)), estimate, 0.0)


def coverage(records: np.ndarray) -> tuple[np.ndarray, int]:
    """(the rows of ``records`` whose interval is defined, how many are undefined): coverage, misses and
    widths are taken over the first; the second is printed beside them."""
    defined = records[:, UNDEFINED] == 0
    return records[defined], int((~defined).sum())


def _record(rec: dict, key, truth: float, estimate: float, ci) -> None:
    rec.setdefault(key, []).append(score_interval(truth, estimate, ci))


def _contrasts(estimate: float, boot: np.ndarray, loo: np.ndarray, half: np.ndarray, bounds) -> dict:
    """Intervals the package does not print, from the same bootstrap replicates ``boot``, the leave-one-out
    values ``loo`` and m-out-of-n replicates ``half`` (m = n / 2): basic (reversed percentile), BCa (mid-p
    bias correction, jackknife acceleration; Efron & Tibshirani 1993 ch. 14), symmetric (estimate +- the
    95 % quantile of |replicate - estimate|) and m-out-of-n basic (Hall & Miller 2009's resample size)."""
    from scipy.special import ndtr, ndtri

    boot, half = boot[np.isfinite(boot)], half[np.isfinite(half)]
    if boot.size < 2 or half.size < 2 or not np.isfinite(loo).all() or not math.isfinite(estimate):
        return {m: (math.nan, math.nan) for m in CONTRASTS}
    lo, hi = np.quantile(boot, [0.025, 0.975])
    share = (np.sum(boot < estimate) + 0.5 * np.sum(boot == estimate)) / boot.size
    z0 = float(ndtri(np.clip(share, 0.5 / boot.size, 1 - 0.5 / boot.size)))
    u = loo.mean() - loo
    accel = float(np.sum(u ** 3) / (6 * np.sum(u ** 2) ** 1.5)) if np.any(u) else 0.0
    levels = [float(ndtr(z0 + (z0 + z) / (1 - accel * (z0 + z)))) for z in (-1.959964, 1.959964)]
    spread = float(np.quantile(np.abs(boot - estimate), 0.95))
    mlo, mhi = np.quantile(half, [0.025, 0.975])
    raw = {"basic": (2 * estimate - hi, 2 * estimate - lo), "BCa": tuple(np.quantile(boot, levels)),
           "symmetric": (estimate - spread, estimate + spread),
           "m-out-of-n basic": (2 * estimate - mhi, 2 * estimate - mlo)}
    return {m: (max(bounds[0], a), min(bounds[1], b)) for m, (a, b) in raw.items()}


def rank_cell(draw, truth: dict, reps: int, B: int, seed: int) -> dict:
    """One cell: the package's jackknife interval (its kernel), the percentile interval from the package's
    keyed bootstrap (checked equal to the kernel's on the first replication) and the contrasts."""
    from pairedframe.comparison.paired import resample_generators
    from pairedframe.comparison.rank_intervals import coefficient_intervals
    from pairedframe.stats.bootstrap import bootstrap_means_matrix, percentile_interval
    from pairedframe.stats.rank_agreement import agreement_coefficients_many, leave_one_out_means
    from pairedframe.stats.resample import bootstrap_index_chunks

    rng, extra = np.random.default_rng(seed), np.random.default_rng([seed, 2])
    rec: dict = {}
    for r in range(reps):
        A, Bm = draw(rng)
        n, k = A.shape
        X = np.hstack([A, Bm])
        point = {c: float(v[0]) for c, v in agreement_coefficients_many(A.mean(0)[None], Bm.mean(0)[None]).items()}
        qids, key = [f"q{i}" for i in range(n)], seed * 100_003 + r
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            jack = coefficient_intervals(A, Bm, point, method="jackknife", higher=True, rbo_p=0.9,
                                         confidence_level=0.95, n_resamples=B, seed=key, qids=qids)
            means = bootstrap_means_matrix(X, bootstrap_index_chunks(n, B, seed=resample_generators(key, qids)[0]))
            boot = agreement_coefficients_many(means[:, :k], means[:, k:])
            loo_means = leave_one_out_means(X)
            loo = agreement_coefficients_many(loo_means[:, :k], loo_means[:, k:])
            m = n // 2
            counts = np.apply_along_axis(np.bincount, 1, extra.integers(0, n, (B // 2, m)), minlength=n)
            half_means = counts @ X / m
            half = agreement_coefficients_many(half_means[:, :k], half_means[:, k:])
            if r == 0:                               # the benchmark's percentile is the package's
                check = coefficient_intervals(A, Bm, point, method="percentile", higher=True, rbo_p=0.9,
                                              confidence_level=0.95, n_resamples=B, seed=key, qids=qids)
        for name in COEFFICIENT_NAMES:
            bounds = (0.0, 1.0) if name == "rbo" else (-1.0, 1.0)
            finite = boot[name][np.isfinite(boot[name])]
            pct = percentile_interval(finite) if finite.size >= 2 else (math.nan, math.nan)
            if r == 0 and tuple(pct) != tuple(check[name][0]):
                raise AssertionError(f"percentile interval differs from the package's: {tuple(pct)} {check[name][0]}")
            _record(rec, ("jackknife", name), truth[name], point[name], jack[name][0])
            _record(rec, ("percentile", name), truth[name], point[name], pct)
            for method, ci in _contrasts(point[name], boot[name], loo[name], half[name], bounds).items():
                _record(rec, (method, name), truth[name], point[name], ci)
    return {key: np.array(v, dtype=float) for key, v in rec.items()}


def run_rank(cells: dict, reps: int, B: int, seed: int, sizes=SIZES, near_tie: bool = True, log=print) -> dict:
    from pairedframe.stats.rank_agreement import agreement_coefficients_many

    results = {}
    for i, (name, (A, Bm)) in enumerate(cells.items()):
        truth = {k: float(v[0]) for k, v in agreement_coefficients_many(A.mean(0)[None], Bm.mean(0)[None]).items()}
        for n in sizes:
            def draw(rng, A=A, Bm=Bm, n=n):
                idx = rng.integers(0, A.shape[0], n)
                return A[idx], Bm[idx]
            results[(name, n)] = (truth, rank_cell(draw, truth, reps, B, seed + 7919 * i + n))
        log(f"  agreement {name} done")
    if near_tie:
        truth = {k: float(v[0]) for k, v in agreement_coefficients_many(NEAR_TIE_A[None], NEAR_TIE_B[None]).items()}
        for n in sizes:
            results[("near-tie (8 systems)", n)] = (truth, rank_cell(lambda rng, n=n: _near_tie_draw(n, rng), truth,
                                                                    reps, B, seed + 104_729 + n))
        log("  agreement near-tie done")
    return results


def _iid_interval(confusion: np.ndarray, weights: str | None) -> tuple[float, float]:
    from statsmodels.stats.inter_rater import cohens_kappa

    res = cohens_kappa(confusion, wt=weights) if weights else cohens_kappa(confusion)
    return res.kappa - 1.959964 * res.std_kappa, res.kappa + 1.959964 * res.std_kappa


def kappa_cell(per_query: np.ndarray, binary: np.ndarray, n: int, reps: int, B: int, seed: int) -> dict:
    from pairedframe.comparison.label_agreement import kappa_intervals
    from pairedframe.stats.kappa import cohen_kappa_many

    values = np.arange(per_query.shape[1], dtype=np.float64)
    truth = {name: stat for name, (stat, _) in kappa_intervals(per_query, values, binary, 0.95).items()}
    weights = {"kappa": None, "kappa_linear": "linear", "kappa_quadratic": "quadratic", "kappa_binary": None}
    rng = np.random.default_rng(seed)
    rec: dict = {}
    nq = per_query.shape[0]
    for _ in range(reps):
        idx = rng.integers(0, nq, n)
        res = kappa_intervals(per_query[idx], values, binary[idx], 0.95)
        boot = rng.integers(0, n, (B, n))
        counts = np.bincount((boot + (np.arange(B) * n)[:, None]).ravel(), minlength=B * n).reshape(B, n)
        for name, (stat, ci) in res.items():
            _record(rec, ("jackknife", name), truth[name], stat, ci)
            tables = (binary if name == "kappa_binary" else per_query)[idx]
            vals = None if name == "kappa_binary" else values
            rep = cohen_kappa_many(np.einsum("bn,nij->bij", counts, tables), weights=weights[name], values=vals)
            _record(rec, ("percentile (bootstrap)", name), truth[name], stat,
                    tuple(np.nanquantile(rep, [0.025, 0.975])))
            _record(rec, ("i.i.d. (pairs)", name), truth[name], stat, _iid_interval(tables.sum(0), weights[name]))
    return {"truth": truth, "rec": {k: np.array(v, dtype=float) for k, v in rec.items()}}


def run_kappa(label_sets: dict, reps: int, B: int, seed: int, sizes=SIZES, log=print) -> dict:
    results = {}
    for i, (name, (per_query, binary)) in enumerate(label_sets.items()):
        for n in sizes:
            results[(name, n)] = kappa_cell(per_query, binary, n, reps, B, seed + 6271 * i + n)
    log("  kappa done")
    return results


def _cells(v: np.ndarray) -> list[str]:
    """Coverage, misses below / above and median width over the defined intervals; the undefined count."""
    d, undefined = coverage(v)
    if not len(d):
        return ["—", "—", "—", str(undefined)]
    miss = d[:, BELOW].sum() + d[:, ABOVE].sum()
    sides = f"{d[:, BELOW].mean():.3f} / {d[:, ABOVE].mean():.3f}" if miss else "0 / 0"
    return [rate(d[:, COVERS]), sides, f"{np.median(d[:, WIDTH]):.3f}", str(undefined)]


def _mean_coverage(v: np.ndarray) -> float:
    """Coverage over the defined intervals (NaN when none is)."""
    d, _ = coverage(v)
    return float(d[:, COVERS].mean()) if len(d) else math.nan


def _median_width(v: np.ndarray) -> float:
    d, _ = coverage(v)
    return float(np.median(d[:, WIDTH])) if len(d) else math.nan


def _overall(covs: list[float], undefined: int, total: int) -> tuple[str, np.ndarray, str]:
    """(median and range of the cell coverages, those coverages, "U of N intervals undefined"); a cell with
    no defined interval (NaN coverage) is left out of the first two."""
    cov = np.array([c for c in covs if not math.isnan(c)])
    text = (f"coverage median {np.median(cov):.3f}, range {cov.min():.3f}-{cov.max():.3f}" if cov.size
            else "coverage — (no interval defined)")
    return text, cov, f"{undefined} of {total} intervals undefined"


UNDEFINED_NOTE = ("'undefined' = intervals the method declined to give (a NaN end: e.g. the jackknife when no query "
                  "changes the coefficient), counted apart: coverage, misses and widths are over the defined ones")


def report_rank(results: dict, reps: int, B: int) -> str:
    out = (f"### rank_agreement: coverage of the full-set coefficient by its 95 % intervals\n\n{reps} replications "
           f"per cell (MC SE in parentheses); queries drawn i.i.d. from the full set; mean est. = the coefficient's "
           f"mean over the samples (its bias: truth - mean est.); misses = share of replications with the truth "
           f"below / above the interval; width = median; percentile B = {B}; 'excl.' = share of percentile "
           f"intervals that exclude their own estimate (the jackknife's never does); {UNDEFINED_NOTE}.\n")
    for (name, n), (truth, rec) in results.items():
        rows = []
        for coef, label in COEFFICIENT_NAMES.items():
            jk, pc = rec[("jackknife", coef)], rec[("percentile", coef)]
            pc_defined, _ = coverage(pc)
            excl = f"{pc_defined[:, EXCLUDES].mean():.3f}" if len(pc_defined) else "—"
            rows.append([label, f"{truth[coef]:.3f}", f"{jk[:, ESTIMATE].mean():.3f}", *_cells(jk), *_cells(pc), excl])
        out += f"\n#### {name}, n = {n}\n\n" + table(
            ["coefficient", "truth", "mean est.", "jackknife (default)", "misses below / above", "width", "undefined",
             "percentile", "misses below / above", "width", "undefined", "excl."], rows) + "\n"
    methods = (*RANK_METHODS, *CONTRASTS)
    rows = []
    for (name, n), (_, rec) in results.items():
        covs = [coverage(rec[(m, c)])[0][:, COVERS] for m in methods for c in COEFFICIENT_NAMES]
        worst_se = max((math.sqrt(v.mean() * (1 - v.mean()) / v.size) for v in covs if v.size), default=math.nan)
        cells = []
        for m in methods:
            text = " ".join(f"{_mean_coverage(rec[(m, c)]):.2f}" for c in COEFFICIENT_NAMES)
            undefined = sum(coverage(rec[(m, c)])[1] for c in COEFFICIENT_NAMES)
            cells.append(text + (f" ({undefined} undefined)" if undefined else ""))
        rows.append([name, str(n), *cells, f"({worst_se:.3f})"])
    out += ("\n#### Every interval tried: coverage of tau_b, rho, tau_AP, tau_AP sym, RBO (in this order)\n\n"
            "basic = reversed percentile; BCa = bias-corrected and accelerated percentile; symmetric = estimate +- "
            "the 95 % quantile of |replicate - estimate|; m-out-of-n basic = basic with resamples of n / 2 queries "
            f"({B // 2} of them); coverage over the defined intervals, the undefined counted beside (nan: none "
            "defined).\n\n")
    out += table(["cell", "n", *methods, "largest MC SE"], rows) + "\n"
    out += "\nOver all cells and coefficients:\n\n"
    for m in methods:
        recs = [rec[(m, c)] for _, rec in results.values() for c in COEFFICIENT_NAMES]
        text, cov, undefined = _overall([_mean_coverage(v) for v in recs], sum(coverage(v)[1] for v in recs),
                                        sum(len(v) for v in recs))
        pairs = [(_median_width(rec[(m, c)]), _median_width(rec[("percentile", c)]))
                 for _, rec in results.values() for c in COEFFICIENT_NAMES]
        width = np.array([a / b for a, b in pairs if b > 0 and not math.isnan(a)])
        share = (f"{np.mean((cov >= 0.93) & (cov <= 0.97)):.0%} of cells in 0.93-0.97, {np.mean(cov >= 0.90):.0%} "
                 "at least 0.90" if cov.size else "no cell")
        ratio = f"{np.median(width):.2f}" if width.size else "—"
        out += f"- {m}: {text}, {share}; median width / percentile's {ratio}; {undefined}\n"
    return out


def report_kappa(results: dict, reps: int, B: int) -> str:
    methods = ("jackknife", "percentile (bootstrap)", "i.i.d. (pairs)")
    rows = []
    for (name, n), r in results.items():
        for coef, label in KAPPAS.items():
            rows.append([name, str(n), label, f"{r['truth'][coef]:.3f}"]
                        + [c for m in methods for c in _cells(r["rec"][(m, coef)])])
    out = (f"### label_agreement: coverage of the 43-query kappa by its 95 % interval (NIST vs DL-2019 LLM labels)\n\n"
           f"{reps} replications per cell (MC SE in parentheses); n queries drawn i.i.d. with all their pairs; "
           f"jackknife = the package's interval; percentile bootstrap over queries (B = {B}) and the i.i.d. "
           f"Fleiss-Cohen-Everitt interval are contrasts the package does not print; {UNDEFINED_NOTE}.\n\n")
    header = ["label set", "n", "kappa", "truth"]
    for m in methods:
        header += [m + (" (default)" if m == "jackknife" else ""), "misses below / above", "width", "undefined"]
    out += table(header, rows)
    summaries = []
    for m in methods:
        recs = [r["rec"][(m, c)] for r in results.values() for c in KAPPAS]
        text, _, undefined = _overall([_mean_coverage(v) for v in recs], sum(coverage(v)[1] for v in recs),
                                      sum(len(v) for v in recs))
        summaries.append(f"{m} {text} ({undefined})")
    out += "\n\nOver all cells: " + "; ".join(summaries) + ".\n"
    return out


if __name__ == "__main__":
    sys.exit("run benchmarks/calibration --section agreement")
