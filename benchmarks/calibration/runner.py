"""Calibration of pairedframe's intervals and tests on real per-query deltas (the figures docs/how/calibration.md quotes).

Usage::

    PYTHONPATH=src python benchmarks/calibration                     # every section, 3,000 reps per cell
    PYTHONPATH=src python benchmarks/calibration --section paired    # one section
    PYTHONPATH=src python benchmarks/calibration --quick             # smoke run (tiny, every method)

Data: ``../shared/data`` (``--data``): TREC DL-2019 (17 runs, 43 queries, NIST qrels; Llama-3.3-70B
labels for PPI), DL-2021 (63 runs, 53 queries; a seeded sample of 200 run pairs) and Robust03 (17
runs, 100 topics), nDCG@10 and AP; every run pair is a population of real per-query deltas
(``data.py``).  Replications draw query subsets i.i.d. (with replacement) from a pair's
queries, pairs in turn; truth = the pair's full-set mean delta (centred deltas for type-I error).

Sections (modules of this folder; ``python benchmarks/calibration --help`` also lists the studies run alone):

``paired``      compare: coverage and median width / t of every interval, type-I of both tests, power at
                the MDE, Cochran's skew rule (n = 20, 50, 100); spiky cells (RR@10, one dominant
                query, occasional jumps: ``spiky.py``);
``clustered``   compare_clustered: coverage of the cluster intervals, type-I of the cluster sign-flip
                test (G = 6 ... 30 clusters of 5 queries, icc 0, 0.3, 0.6);
``equivalence`` TOST with the true delta on the margin (G = 10, 20, 30; 1 or 3 queries per cluster);
``ppi``         PPI++ on DL-2019 (n_gold = 10, 20, 30);
``segments``    FDR of compare_segments' BH;
``agreement``   rank_agreement's intervals (tau_b, rho, tau_AP, RBO) on DL-2019 NIST vs 7 LLM label sets,
                DL-2021 nDCG@10 vs AP and a near-tie design, and label_agreement's kappa interval
                (n = 20, 30 queries; 500 replications per cell by default);
``large_n``     compare's one-pass path above LARGE_N non-zero deltas against the resampling default, on the
                same replications (n = 10,000 and 20,000; ``--reps`` default 500, B = 499:
                ``large_n.py``; docs/results/large_n.md), and spike cells: k dominant deltas among 10,001;
``means``       results_table's interval of each system's mean: the clipped t interval of nDCG@10 and AP, the
                exponentiated t interval of GMAP's mean log (n = 20, 50, 100; every run of each collection:
                ``means.py``).

Every rate is printed with its Monte-Carlo standard error sqrt(p (1 - p) / R).  Replications are
vectorised: each batch of 250 is one (n, 250) matrix fed to the library's many-column kernels with its
own resample streams.  B (resamples / sign patterns) is kept moderate (999 by default; the library's
default is 10,000): a Monte-Carlo p-value or interval with B = 999 is slightly noisier, which adds
randomness to each replication's decision but does not bias the rates.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

import agreement  # noqa: E402
import clustered  # noqa: E402
import data  # noqa: E402
import large_n  # noqa: E402
import means  # noqa: E402
import paired  # noqa: E402
import ppi  # noqa: E402
import segments  # noqa: E402
import spiky  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # _tee, shared with the other folder
from _tee import output_to  # noqa: E402

SECTIONS = ("paired", "clustered", "unequal", "equivalence", "ppi", "segments", "agreement", "large_n", "means")
#: Replications per cell by default (agreement: each replication runs a bootstrap of every coefficient).
DEFAULT_REPS = 3000
AGREEMENT_REPS = 500
#: large_n: replications per n and B (n = 10,000 and 20,000 queries per replication: the cost is n x B per column).
LARGE_N_REPS, LARGE_N_B = 500, 499


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--section", nargs="*", choices=SECTIONS, default=list(SECTIONS))
    ap.add_argument("--reps", type=int, default=None,
                    help=f"replications per cell (default {DEFAULT_REPS:,}; agreement {AGREEMENT_REPS})")
    ap.add_argument("--n-resamples", type=int, default=999, help="B for bootstrap and sign flips (default 999)")
    ap.add_argument("--symmetric-reps", type=int, default=20_000,
                    help="paired: replications per cell of the symmetric null for the two tests (default 20,000)")
    ap.add_argument("--clusters", type=int, nargs="*", default=None,
                    help="clustered / equivalence: numbers of clusters G (default 6 8 10 20 30 / 10 20 30)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--data", type=Path, default=data.DATA)
    ap.add_argument("--measures", nargs="*", default=list(data.MEASURES),
                    help="measures of the delta populations (default nDCG@10 AP; e.g. RR@10)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke run: 60 replications, B = 99, few runs and sizes (every method still runs)")
    ap.add_argument("--output", type=Path, default=None,
                    help="also write the printed tables to this file (e.g. docs/results/paired.md)")
    args = ap.parse_args(argv)
    with output_to(args.output):
        _run(args)


def _run(args: argparse.Namespace) -> None:
    quick = args.quick
    reps = 60 if quick else args.reps or DEFAULT_REPS
    agreement_reps = 60 if quick else args.reps or AGREEMENT_REPS
    B = 99 if quick else args.n_resamples
    max_runs = 4 if quick else None
    t0 = time.perf_counter()

    def log(msg: str) -> None:
        print(f"[{time.perf_counter() - t0:6.0f} s]{msg}", file=sys.stderr, flush=True)

    collections = ("DL-2019",) if quick else data.COLLECTIONS
    need_pops = {"paired", "clustered", "unequal", "equivalence", "segments", "large_n"} & set(args.section)
    pops = data.load(args.data, collections=collections, measures=tuple(args.measures), seed=args.seed,
                                 max_runs=max_runs) if need_pops else {}
    n_pairs = {k: len(v) for k, v in pops.items()}
    print(f"# Calibration on real per-query deltas (benchmarks/calibration{' --quick' if quick else ''}; "
          f"seed {args.seed})\n")
    if "paired" in args.section:
        sizes = (20,) if quick else (20, 50, 100)
        res = paired.run(pops, sizes, reps, B, args.seed, log=log,
                                     sym_reps=None if quick else args.symmetric_reps)
        print(paired.report(res, reps, B, n_pairs), "\n", flush=True)
        rr = data.load(args.data, collections=collections, measures=("RR@10",), seed=args.seed,
                                   max_runs=max_runs)
        res = spiky.run(pops, rr, reps, B, args.seed, log=log, quick=quick)
        print(spiky.report(res, reps, B), "\n", flush=True)
    if "clustered" in args.section:
        Gs, iccs = ((10,), (0.3,)) if quick else (tuple(args.clusters or (6, 8, 10, 20, 30)), (0.0, 0.3, 0.6))
        res = clustered.run(pops, Gs, iccs, reps, B, args.seed, log=log)
        print(clustered.report(res, reps, B), "\n", flush=True)
    if "unequal" in args.section:
        res = clustered.run_unequal(pops, (0.3,) if quick else (0.0, 0.3), reps, B, args.seed, log=log)
        print(clustered.report_unequal(res, reps, B), "\n", flush=True)
    if "equivalence" in args.section:
        Gs = (10,) if quick else tuple(args.clusters or (10, 20, 30))
        res = clustered.run_equivalence(pops, Gs, (1, 3), reps, B, args.seed, log=log)
        print(clustered.report_equivalence(res, reps, B), "\n", flush=True)
    if "ppi" in args.section:
        ppi_pops = data.load_ppi(args.data, max_runs=max_runs)
        sizes = (10,) if quick else (10, 20, 30)
        res = ppi.run(ppi_pops, sizes, reps, args.seed, log=log)
        print(ppi.report(res, reps, {m: len(p) for m, p in ppi_pops.items()}), "\n", flush=True)
    if "segments" in args.section:
        seg_pops = pops if not quick else dict(list(pops.items())[:1])
        res = segments.run(seg_pops, reps, B, args.seed, log=log)
        print(segments.report(res, reps, B), "\n", flush=True)
    if "agreement" in args.section:
        cells = agreement.load_rankings(args.data, max_runs=max_runs, label_sets=1 if quick else None)
        res = agreement.run_rank(cells, agreement_reps, B, args.seed, sizes=(20,) if quick else (20, 30),
                                             log=log)
        print(agreement.report_rank(res, agreement_reps, B), "\n", flush=True)
        labels = agreement.load_labels(args.data, label_sets=1 if quick else None)
        res = agreement.run_kappa(labels, agreement_reps, B, args.seed, sizes=(20,) if quick else (20, 30),
                                              log=log)
        print(agreement.report_kappa(res, agreement_reps, B), "\n", flush=True)
    if "large_n" in args.section:
        large_reps, large_B = (60, 99) if quick else (args.reps or LARGE_N_REPS, LARGE_N_B)
        res = large_n.run(pops, large_reps, large_B, args.seed, log=log,
                          sizes=(2_000,) if quick else large_n.SIZES)
        print(large_n.report(res, large_reps, large_B, sum(n_pairs.values()), list(pops)), "\n", flush=True)
        res = large_n.spikes(large_reps, large_B, args.seed, log=log, ks=(4,) if quick else large_n.SPIKES)
        print(large_n.spikes_report(res, large_reps, large_B), "\n", flush=True)
    if "means" in args.section:
        mean_pops = means.load(args.data, collections=collections, max_runs=max_runs)
        res = means.run(mean_pops, reps, args.seed, sizes=(20,) if quick else means.SIZES, log=log)
        print(means.report(res, reps), "\n", flush=True)
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
