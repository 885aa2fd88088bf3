"""Calibration of compare's one-pass path (issue 22) against the resampling default, on real per-query deltas.

Above ``LARGE_N`` (10,000) non-zero deltas ``resampling="auto"`` replaces the default's resampled
statistics by their one-pass limits (:mod:`pairedframe.comparison.large_n`): the studentized bootstrap
interval by the t interval, the Monte-Carlo sign-flip p-value by its normal approximation (null variance
``sum(d**2) / n**2``).  This section draws, on the *same* replications, both:

- coverage of the 95 % interval of the true mean delta: the default's studentized bootstrap (B resamples)
  and the one-pass t interval; how often exactly one of them covers, and the median |difference| of their
  ends in units of the standard error;
- type-I error at alpha = 0.05 on centred deltas (true mean 0, each pair's skew kept) of the Monte-Carlo
  sign-flip test (B sign patterns) and of its normal approximation, and how often their decisions differ;
- as the yardstick for those disagreements, the same counts between the resampling default and itself run
  with another seed (its own Monte-Carlo noise).

Replications draw n queries i.i.d. from one run pair's deltas (all pairs of every collection and measure in
turn, ``data.py``), n at and above the switch point; the deltas of a replication are
those of n real queries, their ties included.  The share of replications whose effective number of
deltas ``(sum d**2)**2 / sum d**4`` reaches ``LARGE_N_EFF`` (the second condition of the switch) is printed.

The spike cells (:func:`spikes`) show why that condition exists: k deltas of 0.8 among 10,001 whose other
deltas are N(0, 1e-4), each delta's sign fair (the sign-flip null holds exactly, true mean 0).  For each k:
type-I error at alpha = 0.05 and coverage of 0 by the 95 % interval of the one-pass method, of the
resampling default (Monte-Carlo sign-flip test, studentized bootstrap) and of what compare does under the
rule (one pass where ``n_eff >= LARGE_N_EFF``, else resampling), and the exact rejection rate of the normal
approximation for k equal deltas and no others (the binomial lattice, its worst case).
"""

from __future__ import annotations

import numpy as np

from common import ALPHA, batches, draw, rate, table
from scipy.stats import binom

from pairedframe.comparison.large_n import LARGE_N, LARGE_N_EFF
from pairedframe.stats.moments import moments_of, one_pass_statistics, sign_flip_normal_pvalue
from pairedframe.stats.randomization import sign_flip_test_many
from pairedframe.stats.studentized import studentized_bootstrap_many

SIZES = (LARGE_N, 2 * LARGE_N)
#: Spike cells: k dominant deltas of SPIKE among SPIKE_N, the others N(0, SPIKE_NOISE).
SPIKES, SPIKE, SPIKE_N, SPIKE_NOISE = (1, 4, 5, 10, 100, 1000), 0.8, LARGE_N + 1, 1e-4


def effective_n(D: np.ndarray) -> np.ndarray:
    """``(sum d**2)**2 / sum d**4`` of each column of ``D`` (n, k)."""
    u = D / np.maximum(np.abs(D).max(axis=0), np.finfo(float).tiny)
    u2 = u * u
    return u2.sum(axis=0) ** 2 / (u2 * u2).sum(axis=0)


def _one_pass(D: np.ndarray, interval: str) -> dict[str, np.ndarray]:
    m = moments_of(D)
    return one_pass_statistics(m["n"], m["mean"], m["sd"], m["mean_square"], m["flat"], test="randomization",
                               interval=interval, alternative="two-sided", confidence_level=1 - ALPHA)


def cell(pops, n: int, reps: int, B: int, seed: int) -> dict[str, np.ndarray]:
    """Per replication: coverage of both intervals, their end differences / SE, both tests' rejections."""
    rng = np.random.default_rng([seed, n, 22])
    out: dict[str, list] = {k: [] for k in ("cover_boot", "cover_t", "shift", "rej_mc", "rej_normal", "cover_boot2",
                                            "shift2", "rej_mc2", "switch")}
    for b, (lo, hi) in enumerate(batches(reps)):
        D, truth, _ = draw(pops, n, hi - lo, rng)
        out["switch"].append(effective_n(D) >= LARGE_N_EFF)
        boot = studentized_bootstrap_many(D, n_resamples=B, seed=np.random.default_rng([seed, n, b, 1]))
        bl, bh = np.asarray(boot.confidence_interval.low, float), np.asarray(boot.confidence_interval.high, float)
        one = _one_pass(D, "studentized")
        out["cover_boot"].append((bl <= truth) & (truth <= bh))
        out["cover_t"].append((one["ci_low"] <= truth) & (truth <= one["ci_high"]))
        again = studentized_bootstrap_many(D, n_resamples=B, seed=np.random.default_rng([seed, n, b, 3]))
        al, ah = np.asarray(again.confidence_interval.low, float), np.asarray(again.confidence_interval.high, float)
        out["cover_boot2"].append((al <= truth) & (truth <= ah))
        with np.errstate(invalid="ignore", divide="ignore"):
            out["shift"].append(np.maximum(np.abs(bl - one["ci_low"]), np.abs(bh - one["ci_high"])) / one["se"])
            out["shift2"].append(np.maximum(np.abs(bl - al), np.abs(bh - ah)) / one["se"])
        Dc, _, _ = draw(pops, n, hi - lo, rng, centre=True)
        flip = sign_flip_test_many(Dc, n_resamples=B, seed=np.random.default_rng([seed, n, b, 2]))
        out["rej_mc"].append(np.asarray(flip.pvalue) < ALPHA)
        flip2 = sign_flip_test_many(Dc, n_resamples=B, seed=np.random.default_rng([seed, n, b, 4]))
        out["rej_mc2"].append(np.asarray(flip2.pvalue) < ALPHA)
        out["rej_normal"].append(_one_pass(Dc, "signflip")["pvalue"] < ALPHA)
    return {k: np.concatenate(v) for k, v in out.items()}


def run(pops: dict, reps: int, B: int, seed: int, sizes=SIZES, log=print) -> dict[int, dict]:
    every = [p for group in pops.values() for p in group]
    res = {}
    for n in sizes:
        res[n] = cell(every, n, reps, B, seed)
        log(f" large_n n = {n:,} done")
    return res


def report(res: dict[int, dict], reps: int, B: int, n_pops: int, collections) -> str:
    def median(x: np.ndarray) -> str:
        x = x[np.isfinite(x)]
        return f"{np.median(x):.3f}" if x.size else "—"

    rows = []
    for n, r in res.items():
        differ = lambda x, y: int(np.sum(r[x] != r[y]))  # noqa: E731
        rows.append([f"{n:,}", rate(r["cover_boot"]), rate(r["cover_t"]),
                     f"{differ('cover_boot', 'cover_t')} / {differ('cover_boot', 'cover_boot2')}",
                     f"{median(r['shift'])} / {median(r['shift2'])}", rate(r["rej_mc"]), rate(r["rej_normal"]),
                     f"{differ('rej_mc', 'rej_normal')} / {differ('rej_mc', 'rej_mc2')}", rate(r["switch"])])
    head = (f"## Large n: the one-pass path against the resampling default ({reps:,} replications per n, "
            f"B = {B:,}; {n_pops} run pairs of {', '.join(sorted({c for c, _ in collections}))} on "
            f"{', '.join(sorted({m for _, m in collections}))}, in turn)\n\n"
            f"Switch point: more than LARGE_N = {LARGE_N:,} non-zero deltas.  Same replications for both "
            "methods; rates with their Monte-Carlo SE.  'differ': replications where exactly one of the two "
            "covers / rejects; 'ends / SE': median over replications of the larger |difference| of the two "
            "intervals' ends, in standard errors.  Each 'x / y' pair: one-pass vs the resampling default / "
            "the resampling default vs itself with another seed (its Monte-Carlo noise at this B).  "
            f"'n_eff >= {LARGE_N_EFF:,}': share of replications whose deltas' effective number "
            "(sum d^2)^2 / sum d^4 also meets the switch's second condition.\n\n")
    return head + table(["n", "studentized bootstrap covers", "t interval covers", "differ (vs reseeded)",
                         "ends / SE (vs reseeded)", "sign-flip MC type-I", "normal approx. type-I",
                         "differ (vs reseeded)", f"n_eff >= {LARGE_N_EFF:,}"], rows)


def lattice_type_i(k: int, alpha: float = ALPHA) -> float:
    """Exact rejection rate of the normal approximation for k equal deltas: their sign sum is binomial."""
    heads = np.arange(k + 1)
    p = sign_flip_normal_pvalue((2.0 * heads - k) / k, np.ones(k + 1), k)
    return float(binom.pmf(heads, k, 0.5)[p < alpha].sum())


def spike_cell(k: int, reps: int, B: int, seed: int) -> dict[str, np.ndarray]:
    """Per replication of the spike design: rejections and coverage of 0 by one pass, resampling and the rule."""
    rng = np.random.default_rng([seed, k, 23])
    out: dict[str, list] = {c: [] for c in ("rej_one", "cov_one", "rej_mc", "cov_boot", "switch")}
    for b, (lo, hi) in enumerate(batches(reps)):
        D = rng.normal(0.0, SPIKE_NOISE, (SPIKE_N, hi - lo))
        D[:k] = SPIKE
        D *= rng.choice([-1.0, 1.0], D.shape)
        m = moments_of(D)
        one = one_pass_statistics(m["n"], m["mean"], m["sd"], m["mean_square"], m["flat"], test="randomization",
                                  interval="studentized", alternative="two-sided", confidence_level=1 - ALPHA)
        flip = sign_flip_test_many(D, n_resamples=B, seed=np.random.default_rng([seed, k, b, 1]))
        boot = studentized_bootstrap_many(D, n_resamples=B, seed=np.random.default_rng([seed, k, b, 2]))
        ci = boot.confidence_interval
        out["rej_one"].append(one["pvalue"] < ALPHA)
        out["cov_one"].append((one["ci_low"] <= 0) & (0 <= one["ci_high"]))
        out["rej_mc"].append(np.asarray(flip.pvalue) < ALPHA)
        out["cov_boot"].append((np.asarray(ci.low, float) <= 0) & (0 <= np.asarray(ci.high, float)))
        out["switch"].append(effective_n(D) >= LARGE_N_EFF)
    return {c: np.concatenate(v) for c, v in out.items()}


def spikes(reps: int, B: int, seed: int, ks=SPIKES, log=print) -> dict[int, dict]:
    res = {}
    for k in ks:
        res[k] = spike_cell(k, reps, B, seed)
        log(f" large_n spikes k = {k} done")
    return res


def spikes_report(res: dict[int, dict], reps: int, B: int) -> str:
    rows = []
    for k, r in res.items():
        s = r["switch"]
        rows.append([str(k), rate(s), rate(r["rej_one"]), rate(r["cov_one"]), rate(r["rej_mc"]), rate(r["cov_boot"]),
                     rate(np.where(s, r["rej_one"], r["rej_mc"])), rate(np.where(s, r["cov_one"], r["cov_boot"])),
                     f"{lattice_type_i(k):.4f}"])
    head = (f"## Large n, few dominant deltas: k deltas of {SPIKE} among {SPIKE_N:,} ({reps:,} replications per k, "
            f"B = {B:,})\n\nThe other deltas are N(0, {SPIKE_NOISE:g}); every delta's sign is fair, so the sign-flip "
            f"null holds and the true mean is 0.  alpha = {ALPHA:.2f}; rates with their Monte-Carlo SE.  'rule': compare "
            f"with resampling='auto' (one pass where n_eff = (sum d^2)^2 / sum d^4 >= {LARGE_N_EFF:,}, else resampled: "
            "Monte-Carlo sign flips and the studentized bootstrap).  'lattice': the exact rejection rate of the "
            "normal approximation for k equal deltas and no others.\n\n")
    return head + table(["k", f"n_eff >= {LARGE_N_EFF:,}", "one-pass type-I", "t interval covers 0",
                         "sign-flip MC type-I", "bootstrap covers 0", "rule type-I", "rule covers 0",
                         "lattice type-I"], rows)
