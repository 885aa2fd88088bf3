"""Calibration of :func:`pairedframe.compare`'s intervals and tests on real per-query deltas.

For each collection, measure and size n, ``reps`` replications each draw n queries i.i.d. (with
replacement) from one run pair's deltas (pairs in turn); truth = the pair's full-set mean delta.

- coverage of the 95 % intervals compare offers, as compare prints them (finite ends clipped to the
  measure's delta range, [-1, 1]; zero-spread samples of the bootstrap-t family get the range-based
  interval): ``studentized`` (the default: the stabilised symmetric bootstrap-t, each resample's SE at
  least half the sample's, quantile at most 1.5 x Student's), Hall's ``bootstrap-t`` (neither rule; the
  default before), ``signflip`` (the shifts the sign-flip test does not reject), ``t``, ``percentile``
  (scipy's), ``bca``; and the other candidates the default was chosen from (:data:`CANDIDATES`); the
  median over samples of each interval's width / the t interval's width;
- type-I error at alpha = 0.05 of the randomization (sign-flip) and t tests on *centred* deltas (true
  mean 0, the pair's skew kept) and on *symmetric* ones (labels swapped at random; ``sym_reps``
  replications, more than the other cells, so that a rate's MC SE is about 0.0015), and how often the
  studentized interval excludes 0 on both (1 - its coverage of 0);
- power at the t-test's MDE (noncentral t, n - 1 df, from the pair's sd): deltas centred and shifted by
  the MDE should be rejected 80 % of the time;
- Cochran's skew rule (n > 25 skewness^2) as compare applies it: how often it warns, and the default
  interval's coverage with and without the warning;
- the tied-queries rule (more than TIED_SHARE of the deltas exactly 0, near-duplicate systems) likewise.

Spiky cells (RR@10, one dominant query, occasional jumps) are in ``spiky.py``.
Every statistic comes from the library's many-column kernels, one (n, batch) matrix per batch.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.special import stdtrit

from common import ALPHA, batches, draw, rate, table
from pairedframe.comparison.verdicts import TIED_SHARE
from pairedframe.measures.parse import value_range
from pairedframe.stats.bootstrap import bootstrap_mean_many
from pairedframe.stats.power import mde_at_level
from pairedframe.stats.randomization import sign_flip_test_many
from pairedframe.stats.resample import bootstrap_index_chunks
from pairedframe.stats.signflip_interval import least_count, sign_flip_interval_many
from pairedframe.stats.skewness import cochran_minimum_n, sample_skewness
from pairedframe.stats.studentized import MAX_QUANTILE_RATIO, _t_star, studentized_bootstrap_many, zero_spread
from pairedframe.stats.ttest import paired_t_test_many
from pairedframe.stats.value_range import clip_to_range, constant_sample_interval

INTERVALS = ("studentized", "bootstrap-t", "signflip", "t", "percentile", "bca")
#: Other ways to tame Hall's bootstrap-t that were measured against the default (same resamples): its
#: equal-tailed form; its symmetric quantile capped at MAX_QUANTILE_RATIO x Student's without the SE floor;
#: falling back to the t interval or to the sign-flip inversion where that quantile passes the cap.
CANDIDATES = ("equal-tailed", "capped only", "t fallback", "sign-flip fallback")
#: The intervals whose zero-spread samples get compare's range-based interval (the bootstrap-t family),
#: so that they differ from the default only in how they treat samples with spread.
#: Intervals that get compare's range-based interval on deltas without spread: every one, as compare
#: gives it whatever the interval (interval_range.finish_paired_intervals); the t, sign-flip, percentile
#: and BCa columns lacked it until 2026-12-03, which understated their RR@10 coverage (t 0.875 at n = 20).
RANGE_RULE = ("studentized", "bootstrap-t", "t", "signflip", "percentile", "bca", *CANDIDATES)
WIDTHS = ("studentized", "bootstrap-t", "signflip", "percentile")
DEFAULT = "studentized"


def delta_range(measure: str) -> tuple[float, float]:
    """Range of a mean delta of ``measure`` from the registry, as compare clips to."""
    lo, hi = value_range(measure)
    return lo - hi, hi - lo


def _candidates(D: np.ndarray, B: int, boot_ss, flip: tuple[np.ndarray, np.ndarray],
                t: tuple[np.ndarray, np.ndarray]) -> dict:
    """The candidates of :data:`CANDIDATES` from Hall's T* on the bootstrap stream of the default."""
    n = D.shape[0]
    m = D.mean(axis=0)
    se = D.std(axis=0, ddof=1) / math.sqrt(n)
    T = _t_star(D - m, bootstrap_index_chunks(n, B, seed=np.random.default_rng(boot_ss)), n)
    tail = least_count(ALPHA / 2, B, False)
    upper, lower = -np.partition(-T, tail - 1, axis=0)[tail - 1], np.partition(T, tail - 1, axis=0)[tail - 1]
    need = least_count(ALPHA, B, False)
    q = -np.partition(-np.abs(T), need - 1, axis=0)[need - 1]
    cap = MAX_QUANTILE_RATIO * float(stdtrit(n - 1, 1 - ALPHA / 2))
    far, capped = q > cap, np.minimum(q, cap)
    with np.errstate(invalid="ignore"):
        return {"equal-tailed": (m - upper * se, m - lower * se), "capped only": (m - capped * se, m + capped * se),
                "t fallback": (np.where(far, t[0], m - q * se), np.where(far, t[1], m + q * se)),
                "sign-flip fallback": (np.where(far, flip[0], m - q * se), np.where(far, flip[1], m + q * se))}


def intervals(D: np.ndarray, B: int, seed, measure: str, candidates: bool = True) -> dict[str, tuple]:
    """Every interval of :data:`INTERVALS` (and :data:`CANDIDATES`) of the columns of D, as compare
    prints them: clipped to the delta range; zero-spread columns get the range interval."""
    boot_ss, flip_ss = np.random.SeedSequence(seed).spawn(2)
    out = {}
    sf = sign_flip_interval_many(D, n_resamples=B, seed=np.random.default_rng(flip_ss))
    out["signflip"] = sf.confidence_interval
    out["t"] = paired_t_test_many(D).confidence_interval
    out["studentized"] = studentized_bootstrap_many(D, n_resamples=B, seed=np.random.default_rng(boot_ss)).confidence_interval
    out["bootstrap-t"] = studentized_bootstrap_many(D, n_resamples=B, seed=np.random.default_rng(boot_ss),
                                                    min_se_ratio=None, max_quantile_ratio=None).confidence_interval
    with warnings.catch_warnings():      # BCa is NaN (and warns) for samples whose resamples lie on one side
        warnings.simplefilter("ignore", RuntimeWarning)
        for method in ("percentile", "bca"):
            out[method] = bootstrap_mean_many(D, n_resamples=B, method=method,
                                              seed=np.random.default_rng(boot_ss)).confidence_interval
    out = {k: (np.asarray(v.low, float), np.asarray(v.high, float)) for k, v in out.items()}
    hall_unbounded = ~(np.isfinite(out["bootstrap-t"][0]) & np.isfinite(out["bootstrap-t"][1]))
    if candidates:
        out.update(_candidates(D, B, boot_ss, out["signflip"], out["t"]))
    lo, hi = delta_range(measure)
    flat = zero_spread(D)
    n = D.shape[0]
    se = D.std(axis=0, ddof=1) / math.sqrt(n)
    cap = MAX_QUANTILE_RATIO * float(stdtrit(n - 1, 1 - ALPHA / 2))
    capped = ~flat & (se > 0) & (D.mean(axis=0) - out[DEFAULT][0] >= cap * se * (1 - 1e-9))
    if flat.any():       # compare's default on deltas without spread: the range-based interval
        cl, ch = constant_sample_interval(D[0, flat], D.shape[0], lo, hi)
        for name in (k for k in RANGE_RULE if k in out):
            low, high = out[name]
            low[flat], high[flat] = cl, ch
    clipped = {}
    for name, (low, high) in out.items():
        a, b, c = clip_to_range(low, high, lo, hi)
        clipped[name] = (a, b)
        if name == DEFAULT:
            clipped["_clipped"] = (c, c)
    clipped["_capped"] = (capped, capped)
    clipped["_hall_unbounded"] = (hall_unbounded, hall_unbounded)   # as computed, before the range rule and clipping
    return clipped


def accumulate(store: dict, res: dict, truth: np.ndarray) -> None:
    """Coverage, width / t width and clipping of one batch into ``store`` (lists per interval)."""
    t_width = res["t"][1] - res["t"][0]
    for name, (low, high) in res.items():
        if name.startswith("_"):
            store.setdefault(name, []).append(low)
            continue
        store.setdefault(("cover", name), []).append((low <= truth) & (truth <= high))
        width = high - low
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(t_width > 0, width / t_width, np.where(width > 0, np.inf, 1.0))
        store.setdefault(("width", name), []).append(ratio)


def median_ratio(ratios: np.ndarray, seed: int = 0) -> str:
    """Median of the per-sample width ratios with its Monte-Carlo SE (200 bootstrap resamples)."""
    r = np.asarray(ratios, dtype=float)
    if r.size == 0:
        return "—"
    rng = np.random.default_rng(seed)
    boots = np.median(r[rng.integers(0, r.size, (200, r.size))], axis=1)
    med = float(np.median(r))
    if not np.isfinite(med):
        return "inf"
    return f"{med:.2f} ({float(np.std(boots[np.isfinite(boots)])):.3f})"


def _rejections(D: np.ndarray, B: int, seed) -> dict[str, np.ndarray]:
    flip = sign_flip_test_many(D, n_resamples=B, seed=np.random.default_rng(np.random.SeedSequence(seed)))
    return {"randomization": np.asarray(flip.pvalue) < ALPHA, "t": np.asarray(paired_t_test_many(D).pvalue) < ALPHA}


def cell(pops, n: int, reps: int, B: int, seed: int, sym_reps: int | None = None) -> dict:
    rng = np.random.default_rng([seed, n, 17])
    measure = pops[0].measure
    store: dict = {}
    rej = {f"{t}_{null}": [] for t in ("randomization", "t", "studentized") for null in ("centred", "symmetric", "mde")}
    warn, tied = [], []
    sd = np.array([p.deltas.std() for p in pops])
    mde = np.array([mde_at_level(s / math.sqrt(n), n - 1, ALPHA) if s > 0 else 0.0 for s in sd])
    nulls = ("centred", "symmetric", "mde")
    for b, (lo, hi) in enumerate(batches(reps)):
        k = hi - lo
        D, truth, _ = draw(pops, n, k, rng)
        accumulate(store, intervals(D, B, [seed, n, b, 1], measure), truth)
        g = sample_skewness(D)
        w = n < np.array([cochran_minimum_n(float(x)) for x in g])
        warn.append(w)
        share = (D == 0).mean(axis=0)
        tied.append((share > TIED_SHARE) & (share < 1.0))
        for null, kw in (("centred", {"centre": True}), ("symmetric", {"symmetric": True}), ("mde", {"shift": mde})):
            Dn, _, _ = draw(pops, n, k, rng, **kw)
            for test, r in _rejections(Dn, B, [seed, n, b, 2, nulls.index(null)]).items():
                rej[f"{test}_{null}"].append(r)
            if null != "mde":
                low, high = _studentized(Dn, B, [seed, n, b, 3, nulls.index(null)], measure)
                rej[f"studentized_{null}"].append((low > 0) | (high < 0))
    if sym_reps and sym_reps > reps:      # the symmetric null alone, with more replications
        for b, (lo, hi) in enumerate(batches(sym_reps - reps)):
            Dn, _, _ = draw(pops, n, hi - lo, rng, symmetric=True)
            for test, r in _rejections(Dn, B, [seed, n, 10_000 + b, 2, 1]).items():
                rej[f"{test}_symmetric"].append(r)
    cat = lambda x: np.concatenate(x) if x else np.empty(0, dtype=bool)  # noqa: E731
    return {"cover": {k[1]: cat(v) for k, v in store.items() if k[0] == "cover"},
            "width": {k[1]: cat(v) for k, v in store.items() if k[0] == "width"}, "clipped": cat(store["_clipped"]),
            "capped": cat(store["_capped"]),
            "rej": {k: cat(v) for k, v in rej.items()}, "warn": cat(warn), "tied": cat(tied)}


def _studentized(D: np.ndarray, B: int, seed, measure: str) -> tuple[np.ndarray, np.ndarray]:
    """The default interval's ends as compare prints them (zero-spread columns: the range interval)."""
    r = studentized_bootstrap_many(D, n_resamples=B, seed=np.random.default_rng(np.random.SeedSequence(seed)))
    low, high = np.asarray(r.confidence_interval.low, float), np.asarray(r.confidence_interval.high, float)
    flat = zero_spread(D)
    if flat.any():
        low[flat], high[flat] = constant_sample_interval(D[0, flat], D.shape[0], *delta_range(measure))
    return low, high


def run(populations: dict, sizes, reps: int, B: int, seed: int, log=print, sym_reps: int | None = None) -> dict:
    results = {}
    for (collection, measure), pops in populations.items():
        for n in sizes:
            results[(collection, measure, n)] = cell(pops, n, reps, B, seed, sym_reps)
            log(f"  paired {collection} {measure} n={n} done")
    return results


def report(results: dict, reps: int, B: int, n_pairs: dict) -> str:
    head = (f"### compare: 95 % intervals and 5 % tests on real deltas\n\n{reps} replications per cell (MC SE in "
            f"parentheses), B = {B} resamples / sign patterns; pairs per collection and measure: "
            + ", ".join(f"{c} {m} {k}" for (c, m), k in n_pairs.items()) + ".\n\n")
    rows = []
    for (c, m, n), r in results.items():
        rows.append([c, m, str(n)] + [rate(r["cover"][k]) for k in INTERVALS]
                    + [median_ratio(r["width"][k]) for k in WIDTHS] + [rate(r["clipped"]), rate(r["capped"])])
    out = head + ("Coverage of the truth (full-set mean delta) by the intervals as compare prints them (finite ends "
                  "clipped to [-1, 1]; clipping cannot remove the truth, so coverage is that of the unclipped "
                  "interval); width = median over samples of the interval's width / the t interval's width (MC SE "
                  "of the median from 200 bootstrap resamples); clipped = share of samples whose default interval "
                  f"was clipped; capped = share whose default quantile reached its cap, {MAX_QUANTILE_RATIO:g} x "
                  "Student's.\n\n")
    out += table(["collection", "measure", "n", "studentized (default)", "bootstrap-t (Hall)", "signflip", "t",
                  "percentile", "BCa", "width studentized", "width bootstrap-t", "width signflip", "width percentile",
                  "clipped", "capped"], rows)
    rows = [[c, m, str(n)] + [f"{rate(r['cover'][k])}; {median_ratio(r['width'][k])}" for k in CANDIDATES]
            for (c, m, n), r in results.items()]
    out += ("\n\nThe other candidates for the default, on the same resamples (coverage; median width / t): Hall's "
            f"equal-tailed bootstrap-t; his symmetric one with its quantile capped at {MAX_QUANTILE_RATIO:g} x Student's "
            "(no SE floor); the t interval or the sign-flip inversion where that quantile passes the cap.\n\n")
    out += table(["collection", "measure", "n", *CANDIDATES], rows)
    keys = ("randomization_centred", "t_centred", "randomization_symmetric", "t_symmetric", "studentized_centred",
            "studentized_symmetric")
    rows = [[c, m, str(n)] + [rate(r["rej"][k]) for k in keys] for (c, m, n), r in results.items()]
    for n in sorted({n for (_, _, n) in results}):
        rows.append(["all", "pooled", str(n)] + [rate(np.concatenate([r["rej"][k] for (_, _, nn), r in results.items()
                                                                      if nn == n])) for k in keys])
    rows.append(["all", "pooled", "all"] + [rate(np.concatenate([r["rej"][k] for r in results.values()]))
                                            for k in keys])
    sym = next(iter(results.values()))["rej"]["randomization_symmetric"].size
    out += ("\n\nType-I error at alpha = 0.05: centred deltas (true mean 0, skew kept), symmetric (labels swapped; "
            f"{sym} replications per cell for the two tests); studentized = how often the default interval excludes 0 "
            f"({reps} replications); pooled rows over every collection and measure.\n\n")
    out += table(["collection", "measure", "n", "randomization centred", "t centred", "randomization symmetric",
                  "t symmetric", "studentized centred", "studentized symmetric"], rows)
    rows = []
    for (c, m, n), r in results.items():
        w, tie, cov, flip = r["warn"], r["tied"], r["cover"][DEFAULT], r["cover"]["signflip"]
        rows.append([c, m, str(n), rate(r["rej"]["randomization_mde"]), rate(r["rej"]["t_mde"]), rate(w),
                     rate(cov[~w]) if (~w).any() else "—", rate(cov[w]) if w.any() else "—", rate(tie),
                     rate(cov[~tie]) if (~tie).any() else "—", rate(cov[tie]) if tie.any() else "—",
                     rate(flip[tie]) if tie.any() else "—"])
    out += ("\n\nPower at the t-test's MDE (noncentral t, target 0.80); Cochran's skew rule as compare applies it "
            "(share of samples warned, default interval's coverage without / with the warning); the same for the "
            f"tied-queries rule (more than {TIED_SHARE:.0%} of the deltas exactly 0).\n\n")
    out += table(["collection", "measure", "n", "power randomization", "power t", "skew warning",
                  "coverage no warning", "coverage warned", "tie warning", "coverage no tie warning",
                  "coverage tie-warned", "signflip coverage tie-warned"], rows)
    return out
