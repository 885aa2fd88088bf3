"""Benchmark of ``compare(..., resampling="adaptive")`` on a family of hundreds of real comparisons.

Every TREC DL 2021 passage run of ``../shared/data/syndl`` against p_bm25 on five measures (53
queries): one family of (runs - 1) x 5 comparisons, Holm (the default verdict) or BH.  Rows: the
t-test; the sign-flip test with a fixed B; the adaptive test (certified decisions); and a brute
force with a large fixed B.  Each prints seconds (interval="t", so only the p-values differ), sign
patterns drawn, significant comparisons and their agreement with the brute force.  Timings on a
shared machine are noisy: compare rows of the same run.  A script, not a CI test::

    PYTHONPATH=src python benchmarks/speed --section adaptive_compare [--brute-resamples 1000000]
    PYTHONPATH=src python benchmarks/speed --section adaptive_compare --quick
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

import pairedframe as pf  # noqa: E402

DL21 = Path(__file__).resolve().parents[3] / "shared" / "data" / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
MEASURES = ["nDCG@10", "AP", "RR@10", "R@100", "P@10"]
#: The verdict column each printed section reads, and the correction= that picks it.
CORRECTION_OF = {"pvalue_holm": "holm", "pvalue_bh": "bh"}


def significant(res) -> np.ndarray:
    return res["verdict"].is_in(["better", "worse"]).to_numpy()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DL21)
    ap.add_argument("--runs", type=int, default=0, help="first N runs (0: all)")
    ap.add_argument("--resamples", type=int, default=10_000, help="B of the fixed row")
    ap.add_argument("--brute-resamples", type=int, default=1_000_000)
    ap.add_argument("--quick", action="store_true", help="8 runs, brute force B = 20,000")
    args = ap.parse_args()
    if args.quick:
        args.runs, args.brute_resamples = 8, 20_000
    runs = sorted(p for p in (args.data / "passages-runs").iterdir() if p.name.endswith(".gz"))
    others = [r for r in runs if r.name != "p_bm25.gz"]
    runs = [args.data / "passages-runs" / "p_bm25.gz"] + (others[:args.runs - 1] if args.runs else others)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = pf.evaluate([str(r) for r in runs], str(args.data / "qrels-pass.txt"), MEASURES)
    k = (len(runs) - 1) * len(MEASURES)
    print(f"DL-2021: {len(runs) - 1} runs x {len(MEASURES)} measures = {k} comparisons with p_bm25, one family; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"{'verdict / method':<38}{'seconds':>9}{'patterns':>16}{'significant':>13}{'= brute':>9}{'certified':>11}")
    for verdict_on in CORRECTION_OF:
        rows = {}
        calls = [("t-test", dict(test="t")),
                 (f"fixed B={args.resamples:,}", dict(n_resamples=args.resamples)),
                 ("adaptive", dict(resampling="adaptive")),
                 (f"brute force B={args.brute_resamples:,}", dict(n_resamples=args.brute_resamples))]
        for label, options in calls:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                res = pf.compare(ev, baseline="p_bm25", interval="t", correction=CORRECTION_OF[verdict_on],
                                 **options)
                rows[label] = (time.perf_counter() - t0, res)
        brute = significant(rows[calls[-1][0]][1])
        for label, (secs, res) in rows.items():
            if "resamples_used" in res.columns:
                drawn = int(res["resamples_used"].sum())
                cert = f"{int(res['certified'].sum())}/{res.height}"
            else:
                drawn = int(res["n_resamples"].fill_null(0).sum())
                cert = "-"
            sig = significant(res)
            print(f"{verdict_on + ': ' + label:<38}{secs:>9.2f}{drawn:>16,}{int(sig.sum()):>13}"
                  f"{int((sig == brute).sum()):>9}{cert:>11}")


if __name__ == "__main__":
    main()
