"""PPI++ on TREC DL 2019 through :func:`pairedframe.ppi_compare`: LLM labels as the proxy, NIST labels as gold.

For every pair of the 17 DL-2019 runs and every seed, an *independent* sample is drawn i.i.d. (with
replacement) from the 43 judged queries: ``n_gold`` gold queries (their NIST and LLM per-query values)
and 43 proxy-only queries (their LLM values) -- the labelled and unlabelled samples of PPI's model.
Repeated draws of a query get distinct ids (``qid#k``), so each draw is its own observation.  Truth =
the pair's mean NIST delta over the 43 queries.  Printed: coverage of the 95 % PPI++ interval (default
method, jackknife-edgeworth), of the gold-only interval with the same method (``lam=0``: the paired t
interval with the skew-corrected quantile) and of the classical gold-only t interval, with Monte-Carlo
SEs, mean widths relative to the classical t, and the mean absolute errors.

    PYTHONPATH=src python benchmarks/calibration --section ppi_dl19 [--gold 10 20 30] [--seeds 25] [--measure nDCG@10]

Proxy: Llama-3.3-70B labels (``llm_labels_dl/results/dl2019_test_4prompts_llama70b.txt``).
"""

from __future__ import annotations

import argparse
import itertools
import math
import warnings
from pathlib import Path

import numpy as np
import polars as pl
from _tee import output_to

from pairedframe.comparison.ppi import ppi_compare
from pairedframe.evaluation import evaluate_judgment_sets


def _values(pq: pl.DataFrame, measure: str) -> tuple[dict, list[str], list[str]]:
    sub = pq.filter(pl.col("measure") == measure)
    val = {(s, j): dict(zip(g["qid"], g["value"])) for (s, j), g in sub.group_by(["system", "judgments"])}
    systems = sorted({s for s, _ in val})
    qids = sorted(val[(systems[0], "gold")])
    return val, systems, qids


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gold", type=int, nargs="*", default=[10, 20, 30])
    ap.add_argument("--seeds", type=int, default=25)
    ap.add_argument("--measure", default="nDCG@10")
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[3] / "shared" / "data"))
    ap.add_argument("--max-runs", type=int, default=None, help="first runs only (smoke run)")
    ap.add_argument("--output", type=Path, default=None,
                    help="also write the printed table to this file (docs/results/calibration_ppi_dl19.md)")
    args = ap.parse_args()
    with output_to(args.output):
        _run(args)


def _run(args: argparse.Namespace) -> None:
    root = Path(args.data)
    runs = sorted((root / "llm_labels_dl" / "dl2019_runs").glob("input.*.gz"))[:args.max_runs]
    pq = evaluate_judgment_sets([str(r) for r in runs],
                                {"proxy": str(root / "llm_labels_dl" / "results" / "dl2019_test_4prompts_llama70b.txt"),
                                 "gold": str(root / "anserini_tools" / "qrels.dl19-passage.txt")}, args.measure).per_query
    val, systems, qids = _values(pq, args.measure)
    N = len(qids)
    rows = []
    for a, b in itertools.combinations(systems, 2):
        gold = np.array([val[(b, "gold")][q] - val[(a, "gold")][q] for q in qids])
        if not np.any(gold != 0):
            continue                      # identical on every query: nothing to estimate
        proxy_a = np.array([val[(a, "proxy")].get(q, 0.0) for q in qids])
        proxy_b = np.array([val[(b, "proxy")].get(q, 0.0) for q in qids])
        gold_a = np.array([val[(a, "gold")][q] for q in qids])
        gold_b = np.array([val[(b, "gold")][q] for q in qids])
        truth = float(gold.mean())
        for n_gold in args.gold:
            for seed in range(args.seeds):
                rng = np.random.default_rng([seed, n_gold, systems.index(a), systems.index(b)])
                li = rng.integers(0, N, n_gold)
                ui = rng.integers(0, N, N)
                ids = [f"{qids[i]}#{k}" for k, i in enumerate(li)] + [f"{qids[i]}#u{k}" for k, i in enumerate(ui)]
                pa = dict(zip(ids, np.concatenate([proxy_a[li], proxy_a[ui]]).tolist()))
                pb = dict(zip(ids, np.concatenate([proxy_b[li], proxy_b[ui]]).tolist()))
                ga = dict(zip(ids[:n_gold], gold_a[li].tolist()))
                gb = dict(zip(ids[:n_gold], gold_b[li].tolist()))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    r = ppi_compare(pa, pb, ga, gb)
                    r0 = ppi_compare(pa, pb, ga, gb, lam=0)
                    rt = ppi_compare(pa, pb, ga, gb, lam=0, method="t")
                rows.append({"n_gold": n_gold, "a": a, "b": b, "seed": seed, "truth": truth, "ppi": r.statistic,
                             "ppi_low": r.confidence_interval.low, "ppi_high": r.confidence_interval.high,
                             "lam": r.lam, "gold": r0.statistic, "gold_low": r0.confidence_interval.low,
                             "gold_high": r0.confidence_interval.high, "t_low": rt.confidence_interval.low,
                             "t_high": rt.confidence_interval.high})
    df = pl.DataFrame(rows).with_columns(
        ((pl.col("ppi_low") <= pl.col("truth")) & (pl.col("truth") <= pl.col("ppi_high"))).alias("ppi_covers"),
        ((pl.col("gold_low") <= pl.col("truth")) & (pl.col("truth") <= pl.col("gold_high"))).alias("gold_covers"),
        ((pl.col("t_low") <= pl.col("truth")) & (pl.col("truth") <= pl.col("t_high"))).alias("t_covers"),
        (pl.col("t_high") - pl.col("t_low")).alias("t_width"),
        (pl.col("ppi_high") - pl.col("ppi_low")).alias("ppi_width"),
        (pl.col("gold_high") - pl.col("gold_low")).alias("gold_width"),
        (pl.col("ppi") - pl.col("truth")).abs().alias("ppi_abs_err"),
        (pl.col("gold") - pl.col("truth")).abs().alias("gold_abs_err"))
    pairs = df.select("a", "b").unique().height
    print(f"DL-2019 {args.measure}: proxy = Llama-3.3-70B labels, gold = NIST; {pairs} run pairs x {args.seeds} seeds, "
          "an independent i.i.d. sample per (pair, seed): n_gold gold queries + 43 proxy-only queries; "
          "nominal 95 %, MC SE in parentheses")
    print("| n_gold | intervals | PPI++ coverage | gold-only coverage (same method) | gold-only t coverage | "
          "PPI++ / gold-only t mean width | gold-only (same method) / gold-only t | PPI++ mean abs err | "
          "gold-only mean abs err | mean lam |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n_gold in args.gold:
        g = df.filter(pl.col("n_gold") == n_gold)
        R = g.height

        def cov(col: str) -> str:
            p = float(g[col].mean())
            return f"{p:.3f} ({math.sqrt(p * (1 - p) / R):.3f})"

        print(f"| {n_gold} | {R} | {cov('ppi_covers')} | {cov('gold_covers')} | {cov('t_covers')} | "
              f"{_width_ratio(g, 'ppi_width')} | {_width_ratio(g, 'gold_width')} | "
              f"{g['ppi_abs_err'].mean():.4f} | "
              f"{g['gold_abs_err'].mean():.4f} | {g['lam'].mean():.2f} |")



def _width_ratio(g: pl.DataFrame, column: str) -> str:
    """Mean width over the classical t's, on the samples where both are finite (an interval that the few gold
    queries leave unbounded has no width to average), and how many are not."""
    finite = g.filter(pl.col(column).is_finite() & pl.col("t_width").is_finite())
    text = f"{finite[column].mean() / finite['t_width'].mean():.2f}"
    return text + (f" ({g.height - finite.height} unbounded)" if finite.height < g.height else "")


if __name__ == "__main__":
    main()
