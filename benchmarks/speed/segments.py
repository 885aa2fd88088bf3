"""Benchmark of compare_segments: 10,000 segments, 1,000,000 queries in all, one measure.

Data: per-query nDCG@10 pairs (p_bm25, run) of real TREC DL 2021 passage runs (53 queries each,
``../shared/data``), drawn with replacement and with the labels A/B swapped with probability 1/2 (so
the sign-flip null holds exactly); each query falls in one of the segments (uneven sizes, about 100
queries), and 2 % of the segments are truly shifted: B gains 0.5 standard deviation of the real
deltas on each of their queries.  Without the shared data, synthetic pairs stand in (said so).

Rows: t-test screening; randomization with a fixed B; randomization with ``resampling="adaptive"``
(certified BH decisions).  Each reports wall seconds (one call, no tracing) and the tracemalloc
peak of a second, traced call (Python/numpy allocations); at the end the process's maximum resident
set size.  For the adaptive run it also prints the sign patterns drawn, the rounds, the certified
rows, its BH decisions against the t-test's and against the truth, and against a brute-force
fixed-B run (``--brute-resamples``) of a subset family (``--brute-segments`` segments as their own
segment set).  A script, not a CI test::

    PYTHONPATH=src python benchmarks/speed --section segments [--queries 1000000] [--segments 10000] [--resamples 1000]
    PYTHONPATH=src python benchmarks/speed --section segments --quick
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from pairedframe.comparison.paired import pair_systems  # noqa: E402
from pairedframe.comparison.segments import compare_segments  # noqa: E402

DL21 = Path(__file__).resolve().parents[3] / "shared" / "data" / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
RUNS = ["pash_f3", "NLE_P_v1", "TUW_DR_Base", "Fast_Forward_3", "uogTrPCP", "WLUPassage"]


def real_pairs(data: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """(baseline, system) nDCG@10 of every (run, query) of DL-2021 (p_bm25 as baseline), or None."""
    runs = [data / "passages-runs" / f"{r}.gz" for r in ["p_bm25", *RUNS]]
    runs = [r for r in runs if r.exists()]
    if len(runs) < 2:
        return None
    import pairedframe as pf

    ev = pf.evaluate([str(r) for r in runs], str(data / "qrels-pass.txt"), ["nDCG@10"])
    wide = ev.per_query.pivot(on="system", index="qid", values="value").sort("qid")
    base = wide["p_bm25"].to_numpy()
    others = [c for c in wide.columns if c not in ("qid", "p_bm25")]
    return np.tile(base, len(others)), np.concatenate([wide[c].to_numpy() for c in others])


def make_data(n_queries: int, n_segments: int, pairs, shifted_share: float = 0.02, seed: int = 0):
    """Per-query table (A, B), segment table, and the truly shifted segments (see module docstring)."""
    rng = np.random.default_rng(seed)
    qids = np.char.add("q", np.arange(n_queries).astype(str))
    seg = rng.integers(0, n_segments, n_queries)
    if pairs is None:
        a = rng.uniform(size=n_queries)
        b = np.clip(a + rng.normal(0, 0.1, n_queries), 0, 1)
        sd = 0.1
    else:
        pick = rng.integers(0, pairs[0].shape[0], n_queries)
        a, b = pairs[0][pick], pairs[1][pick]
        swap = rng.random(n_queries) < 0.5
        a, b = np.where(swap, b, a), np.where(swap, a, b)
        sd = float(np.std(pairs[1] - pairs[0], ddof=1))
    shifted = rng.choice(n_segments, size=int(round(shifted_share * n_segments)), replace=False)
    is_shifted = np.zeros(n_segments, dtype=bool)
    is_shifted[shifted] = True
    b = b + np.where(is_shifted[seg], 0.5 * sd, 0.0)
    per_query = pl.DataFrame({"system": np.repeat(["A", "B"], n_queries), "qid": np.tile(qids, 2),
                              "measure": "nDCG@10", "value": np.concatenate([a, b])})
    names = np.char.add("s", np.char.zfill(np.arange(n_segments).astype(str), 5))
    segments = pl.DataFrame({"qid": qids, "segment_set": "bucket", "segment": names[seg]})
    return per_query, segments, set(names[is_shifted].tolist())


def timed(label: str, fn) -> pl.DataFrame:
    """Wall time of one call (no tracing), then tracemalloc peak of a second, traced call."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t0
        tracemalloc.start()
        fn()
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    print(f"{label:<52s} {dt:7.2f} s   tracemalloc peak {peak / 2**20:7.1f} MiB   rows {out.height}")
    for w in caught:
        print(f"    warning: {str(w.message)[:160]}")
    return out


def decisions(res: pl.DataFrame, truth: set[str]) -> str:
    sig = res.filter(pl.col("significant"))["segment"].to_list()
    true = len(set(sig) & truth)
    return f"{len(sig)} significant, {true} of {len(truth)} shifted found, {len(sig) - true} false"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=1_000_000)
    ap.add_argument("--segments", type=int, default=10_000)
    ap.add_argument("--resamples", type=int, default=1_000, help="B of the fixed run and of the bootstrap")
    ap.add_argument("--decision-error", type=float, default=1e-3)
    ap.add_argument("--brute-segments", type=int, default=200)
    ap.add_argument("--brute-resamples", type=int, default=200_000)
    ap.add_argument("--seed", type=int, default=0, help="data seed")
    ap.add_argument("--data", type=Path, default=DL21)
    ap.add_argument("--skip-fixed", action="store_true", help="leave out the fixed-B randomization row")
    ap.add_argument("--more-seeds", type=int, default=0,
                    help="then rerun the adaptive row (t CI, untraced) on data drawn with seeds 1..N")
    ap.add_argument("--quick", action="store_true", help="20,000 queries, 200 segments (smoke run)")
    args = ap.parse_args()
    if args.quick:
        args.queries, args.segments, args.brute_segments, args.brute_resamples = 20_000, 200, 20, 20_000
    pairs = real_pairs(args.data)
    per_query, segments, truth = make_data(args.queries, args.segments, pairs, seed=args.seed)
    source = ("real DL-2021 nDCG@10 pairs (p_bm25 vs 6 runs), labels swapped at random" if pairs is not None
              else "SYNTHETIC pairs (shared data not found)")
    print(f"{args.queries:,} queries, {args.segments:,} segments, 1 measure, 2 systems; {source}; "
          f"{len(truth)} segments shifted by 0.5 sd; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs")
    t0 = time.perf_counter()
    pair_systems(per_query, "A", None, None)
    print(f"{'  of which pairing (comparison.paired.pair_systems)':<52s} {time.perf_counter() - t0:7.2f} s")
    res_t = timed("t-test screening (test='t')",
                  lambda: compare_segments(per_query, segments, baseline="A", test="t"))
    print(f"    BH 0.05: {decisions(res_t, truth)}")
    if not args.skip_fixed:
        res = timed(f"randomization + signflip CI (default), B={args.resamples:,}",
                    lambda: compare_segments(per_query, segments, baseline="A", n_resamples=args.resamples))
        print(f"    BH 0.05: {decisions(res, truth)}; resolution_limited rows: "
              f"{int(res['resolution_limited'].sum())}")
    for interval in ("t", "signflip"):
        label = f"adaptive randomization + {interval} CI" + (f", B={args.resamples:,}" if interval != "t" else "")
        res_a = timed(label, lambda: compare_segments(
            per_query, segments, baseline="A", resampling="adaptive", interval=interval,
            n_resamples=args.resamples, decision_error=args.decision_error))
    used = res_a["resamples_used"].to_numpy()
    print(f"    BH 0.05: {decisions(res_a, truth)}; certified {int(res_a['certified'].sum()):,} of "
          f"{res_a.height:,} rows (decision error <= {args.decision_error:g} for the family)")
    print(f"    sign patterns drawn: {int(used.sum()):,} in all ({used.sum() / res_a.height:,.0f} per segment; "
          f"median {int(np.median(used)):,}, max {int(used.max()):,}); a fixed B reaching the same "
          f"resolution everywhere would draw {int(used.max()) * res_a.height:,}")
    both = res_a.join(res_t.select("segment", pl.col("significant").alias("t_sig")), on="segment")
    agree = int((both["significant"] == both["t_sig"]).sum())
    print(f"    agreement with the t-test's BH decisions: {agree:,} of {both.height:,} segments "
          f"(both significant {int((both['significant'] & both['t_sig']).sum())}, adaptive only "
          f"{int((both['significant'] & ~both['t_sig']).sum())}, t only {int((~both['significant'] & both['t_sig']).sum())})")

    # brute force on a subset family: the first --brute-segments segments as their own segment set
    names = sorted(segments["segment"].unique().to_list())[:args.brute_segments]
    sub = segments.filter(pl.col("segment").is_in(names)).with_columns(pl.lit("subset").alias("segment_set"))
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ad = compare_segments(per_query, sub, baseline="A", resampling="adaptive", interval="t",
                              decision_error=args.decision_error)
        t_ad = time.perf_counter() - t0
        t0 = time.perf_counter()
        brute = compare_segments(per_query, sub, baseline="A", n_resamples=args.brute_resamples, interval="t")
        t_brute = time.perf_counter() - t0
    same = int((ad["significant"] == brute["significant"]).sum())
    print(f"subset family of {len(names)} segments: adaptive {t_ad:.2f} s ({int(ad['resamples_used'].sum()):,} "
          f"patterns, {int(ad['certified'].sum())} certified, {int(ad['significant'].sum())} significant) vs "
          f"brute force B={args.brute_resamples:,} {t_brute:.1f} s ({int(brute['significant'].sum())} significant): "
          f"BH decisions agree on {same} of {len(names)}")
    for seed in range(1, args.more_seeds + 1):
        per_query, segments, truth = make_data(args.queries, args.segments, pairs, seed=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0 = time.perf_counter()
            res_t = compare_segments(per_query, segments, baseline="A", test="t")
            t_t = time.perf_counter() - t0
            t0 = time.perf_counter()
            res_a = compare_segments(per_query, segments, baseline="A", resampling="adaptive", interval="t",
                                     decision_error=args.decision_error)
            t_a = time.perf_counter() - t0
        print(f"data seed {seed}: adaptive + t CI {t_a:.2f} s (t-test {t_t:.2f} s, ratio {t_a / t_t:.1f}); "
              f"{int(res_a['resamples_used'].sum()):,} patterns (max {int(res_a['resamples_used'].max()):,}); "
              f"certified {int(res_a['certified'].sum()):,} of {res_a.height:,}; BH: {decisions(res_a, truth)}; "
              f"t-test: {decisions(res_t, truth)}")
    print(f"max resident set size of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
          f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
