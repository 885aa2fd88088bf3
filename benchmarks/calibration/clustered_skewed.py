"""Calibration of compare_clustered's two-sided intervals when cluster effects are strongly skewed.

``python benchmarks/calibration --section clustered_skewed [--reps R] [--n-resamples B]`` (10,000 replications
per design, B = 999 by default: MC SE 0.002; a few minutes)

The other clustered sections build clusters from real per-query deltas, whose skew is moderate.  Here the
cluster effects are synthetic and far more skewed: ``u_g`` ~ Exp(1) - 1 (mean 0, skewness 2) shared by the
queries of cluster g, plus N(0, 0.25^2) per query, so that a few clusters with large positive effects decide
the mean.  Truth = 0.  For equal (G clusters of m queries) and unequal cluster sizes (the
designs of the ``unequal`` section, G = 10), on the same replications: coverage of the 95 % default (cluster t with
the Edgeworth-corrected quantile; CR2 SE with Bell-McCaffrey df), the inverted cluster sign-flip test,
plain cluster-t and the cluster percentile bootstrap (the kernels compare_clustered calls,
``clustered.cell``); the width of each over cluster-t's; and the sign-flip test's type-I error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
from _tee import output_to  # noqa: E402
from clustered import INTERVALS, SKEW_NOISE, SKEWED, UNEQUAL_SIZES, cell  # noqa: E402
from common import rate, ratio, table  # noqa: E402
from pairedframe.stats.cluster_interval import cluster_df  # noqa: E402

#: Designs: cluster sizes (equal ones first).
DESIGNS = ((3,) * 10, (5,) * 10, (5,) * 20, (5,) * 30, *UNEQUAL_SIZES[1:])


def label(sizes: tuple[int, ...]) -> str:
    return f"{len(sizes)} x {sizes[0]}" if len(set(sizes)) == 1 else "/".join(map(str, sizes))


def run(reps: int, B: int, seed: int, designs=DESIGNS, log=print) -> dict:
    results = {}
    for sizes in designs:
        m = sizes[0] if len(set(sizes)) == 1 else np.asarray(sizes)
        results[sizes] = cell(SKEWED, len(sizes), m, 0.0, reps, B, seed)
        log(f"  clustered_skewed {label(sizes)} done")
    return results


def report(results: dict, reps: int, B: int) -> str:
    rows = [[label(sizes), str(len(sizes)), f"{cluster_df(np.asarray(sizes, float)):.1f}"]
            + [rate(r["cover"][k]) for k in INTERVALS]
            + [ratio(r["width"][k], r["width"]["t"]) for k in ("edgeworth", "signflip", "percentile")]
            + [rate(r["reject"])] for sizes, r in results.items()]
    head = (f"### compare_clustered with strongly skewed cluster effects\n\n{reps:,} replications per design "
            f"(MC SE in parentheses), B = {B}; cluster effects Exp(1) - 1 (skewness 2), per-query noise "
            f"N(0, {SKEW_NOISE:g}^2), truth 0; coverage of the 95 % intervals; df = Bell-McCaffrey degrees of "
            "freedom; width / width of cluster-t; type-I error of the cluster sign-flip test at 0.05.\n\n")
    return head + table(["clusters", "G", "df", "edgeworth (default)", "signflip", "cluster-t", "percentile",
                         "width edgeworth", "width signflip", "width percentile", "type-I sign-flip"], rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=10_000)
    ap.add_argument("--n-resamples", type=int, default=999)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--quick", action="store_true", help="smoke run: 250 replications, B = 99, two designs")
    ap.add_argument("--output", type=Path, default=None)
    args = ap.parse_args(argv)
    reps, B = (250, 99) if args.quick else (args.reps, args.n_resamples)
    designs = DESIGNS[:1] + DESIGNS[-1:] if args.quick else DESIGNS
    with output_to(args.output):
        results = run(reps, B, args.seed, designs, log=lambda msg: print(msg, file=sys.stderr, flush=True))
        print(report(results, reps, B))


if __name__ == "__main__":
    main()
