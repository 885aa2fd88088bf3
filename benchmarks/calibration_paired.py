"""Calibration of :func:`pairedframe.compare`'s intervals and tests on real per-query deltas.

For each collection, measure and size n, ``reps`` replications each draw n queries i.i.d. (with
replacement) from one run pair's deltas (pairs in turn); truth = the pair's full-set mean delta.

- coverage of the 95 % intervals compare offers: ``studentized`` (symmetric bootstrap-t, the default
  with the randomization test), ``signflip`` (the shifts the sign-flip test does not reject), ``t``
  (default with the t-test), ``percentile`` (scipy's), ``bca``; mean width relative to the t interval;
- type-I error at alpha = 0.05 of the randomization (sign-flip) and t tests on *centred* deltas (true
  mean 0, the pair's skew kept) and on *symmetric* ones (labels swapped at random; ``sym_reps``
  replications, more than the other cells, so that a rate's MC SE is about 0.0015), and how often the
  studentized interval excludes 0 on both (1 - its coverage of 0);
- power at the t-test's MDE (noncentral t, n - 1 df, from the pair's sd): deltas centred and shifted by
  the MDE should be rejected 80 % of the time;
- Cochran's skew rule (n > 25 skewness^2) as compare applies it: how often it warns, and the default
  interval's coverage with and without the warning;
- the tied-queries rule (more than TIED_SHARE of the deltas exactly 0, near-duplicate systems) likewise.

Every statistic comes from the library's many-column kernels, one (n, batch) matrix per batch.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from calibration_common import ALPHA, batches, draw, rate, ratio, table
from pairedframe.comparison.verdicts import TIED_SHARE
from pairedframe.stats.bootstrap import bootstrap_mean_many
from pairedframe.stats.power import noncentral_t_mde
from pairedframe.stats.randomization import sign_flip_test_many
from pairedframe.stats.signflip_interval import sign_flip_interval_many
from pairedframe.stats.skewness import cochran_minimum_n, sample_skewness
from pairedframe.stats.studentized import studentized_bootstrap_many
from pairedframe.stats.ttest import paired_t_test_many

INTERVALS = ("studentized", "signflip", "t", "percentile", "bca")
DEFAULT = "studentized"


def _intervals(D: np.ndarray, B: int, seed) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    boot_ss, flip_ss = np.random.SeedSequence(seed).spawn(2)
    out = {}
    sf = sign_flip_interval_many(D, n_resamples=B, rng=np.random.default_rng(flip_ss))
    out["signflip"] = sf.confidence_interval
    out["t"] = paired_t_test_many(D).confidence_interval
    out["studentized"] = studentized_bootstrap_many(D, n_resamples=B, rng=np.random.default_rng(boot_ss)).confidence_interval
    with warnings.catch_warnings():      # BCa is NaN (and warns) for samples whose resamples lie on one side
        warnings.simplefilter("ignore", RuntimeWarning)
        for method in ("percentile", "bca"):
            out[method] = bootstrap_mean_many(D, n_resamples=B, method=method,
                                              rng=np.random.default_rng(boot_ss)).confidence_interval
    return {k: (np.asarray(v.low, float), np.asarray(v.high, float)) for k, v in out.items()}


def _rejections(D: np.ndarray, B: int, seed) -> dict[str, np.ndarray]:
    flip = sign_flip_test_many(D, n_resamples=B, rng=np.random.default_rng(np.random.SeedSequence(seed)))
    return {"randomization": np.asarray(flip.pvalue) < ALPHA, "t": np.asarray(paired_t_test_many(D).pvalue) < ALPHA}


def cell(pops, n: int, reps: int, B: int, seed: int, sym_reps: int | None = None) -> dict:
    rng = np.random.default_rng([seed, n, 17])
    cover = {k: [] for k in INTERVALS}
    width = {k: [] for k in INTERVALS}
    rej = {f"{t}_{null}": [] for t in ("randomization", "t", "studentized") for null in ("centred", "symmetric", "mde")}
    warn, tied = [], []
    sd = np.array([p.deltas.std() for p in pops])
    mde = np.array([noncentral_t_mde(s / math.sqrt(n), n - 1, alpha=ALPHA) if s > 0 else 0.0 for s in sd])
    nulls = ("centred", "symmetric", "mde")
    for b, (lo, hi) in enumerate(batches(reps)):
        k = hi - lo
        D, truth, _ = draw(pops, n, k, rng)
        for name, (low, high) in _intervals(D, B, [seed, n, b, 1]).items():
            cover[name].append((low <= truth) & (truth <= high))
            width[name].append(high - low)
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
                low, high = _studentized(Dn, B, [seed, n, b, 3, nulls.index(null)])
                rej[f"studentized_{null}"].append((low > 0) | (high < 0))
    if sym_reps and sym_reps > reps:      # the symmetric null alone, with more replications
        for b, (lo, hi) in enumerate(batches(sym_reps - reps)):
            Dn, _, _ = draw(pops, n, hi - lo, rng, symmetric=True)
            for test, r in _rejections(Dn, B, [seed, n, 10_000 + b, 2, 1]).items():
                rej[f"{test}_symmetric"].append(r)
    cat = lambda x: np.concatenate(x) if x else np.empty(0, dtype=bool)  # noqa: E731
    return {"cover": {k: cat(v) for k, v in cover.items()}, "width": {k: cat(v) for k, v in width.items()},
            "rej": {k: cat(v) for k, v in rej.items()}, "warn": cat(warn), "tied": cat(tied)}


def _studentized(D: np.ndarray, B: int, seed) -> tuple[np.ndarray, np.ndarray]:
    r = studentized_bootstrap_many(D, n_resamples=B, rng=np.random.default_rng(np.random.SeedSequence(seed)))
    return np.asarray(r.confidence_interval.low, float), np.asarray(r.confidence_interval.high, float)


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
                    + [ratio(r["width"][k], r["width"]["t"]) for k in ("studentized", "signflip", "percentile")])
    out = head + "Coverage of the truth (full-set mean delta); width = mean width / mean width of the t interval.\n\n"
    out += table(["collection", "measure", "n", "studentized (default)", "signflip", "t", "percentile", "BCa",
                  "width studentized", "width signflip", "width percentile"], rows)
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
