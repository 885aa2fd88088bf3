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
those of n real queries, their ties included.
"""

from __future__ import annotations

import numpy as np

from common import ALPHA, batches, draw, rate, table
from pairedframe.comparison.large_n import LARGE_N
from pairedframe.stats.moments import moments_of, one_pass_statistics
from pairedframe.stats.randomization import sign_flip_test_many
from pairedframe.stats.studentized import studentized_bootstrap_many

SIZES = (LARGE_N, 2 * LARGE_N)


def _one_pass(D: np.ndarray, interval: str) -> dict[str, np.ndarray]:
    m = moments_of(D)
    return one_pass_statistics(m["n"], m["mean"], m["sd"], m["mean_square"], m["flat"], test="randomization",
                               interval=interval, alternative="two-sided", confidence_level=1 - ALPHA)


def cell(pops, n: int, reps: int, B: int, seed: int) -> dict[str, np.ndarray]:
    """Per replication: coverage of both intervals, their end differences / SE, both tests' rejections."""
    rng = np.random.default_rng([seed, n, 22])
    out: dict[str, list] = {k: [] for k in ("cover_boot", "cover_t", "shift", "rej_mc", "rej_normal", "cover_boot2",
                                            "shift2", "rej_mc2")}
    for b, (lo, hi) in enumerate(batches(reps)):
        D, truth, _ = draw(pops, n, hi - lo, rng)
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
                     f"{differ('rej_mc', 'rej_normal')} / {differ('rej_mc', 'rej_mc2')}"])
    head = (f"## Large n: the one-pass path against the resampling default ({reps:,} replications per n, "
            f"B = {B:,}; {n_pops} run pairs of {', '.join(sorted({c for c, _ in collections}))} on "
            f"{', '.join(sorted({m for _, m in collections}))}, in turn)\n\n"
            f"Switch point: more than LARGE_N = {LARGE_N:,} non-zero deltas.  Same replications for both "
            "methods; rates with their Monte-Carlo SE.  'differ': replications where exactly one of the two "
            "covers / rejects; 'ends / SE': median over replications of the larger |difference| of the two "
            "intervals' ends, in standard errors.  Each 'x / y' pair: one-pass vs the resampling default / "
            "the resampling default vs itself with another seed (its Monte-Carlo noise at this B).\n\n")
    return head + table(["n", "studentized bootstrap covers", "t interval covers", "differ (vs reseeded)",
                         "ends / SE (vs reseeded)", "sign-flip MC type-I", "normal approx. type-I",
                         "differ (vs reseeded)"], rows)
