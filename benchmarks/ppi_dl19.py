"""PPI++ on TREC DL 2019: LLM labels (Llama-3.3-70B, 4 prompts) as proxy on all 43 queries, NIST labels
as gold on a seeded random sample; compares the PPI++ interval with the gold-only interval and the
all-gold truth (mean nDCG@10 delta over the 43 queries with NIST labels), over run pairs and seeds.

    PYTHONPATH=src python benchmarks/ppi_dl19.py [--gold 15] [--seeds 50] [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import itertools
import warnings
from pathlib import Path

import numpy as np
import polars as pl

from pairedframe.comparison.ppi import ppi_compare
from pairedframe.evaluation import evaluate_judgment_sets

RUNS = ["bm25base_p", "bm25tuned_rm3_p", "UNH_bm25", "ms_duet_passage", "p_bert", "idst_bert_p1", "TUW19-p3-f",
        "srchvrs_ps_run2"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--gold", type=int, default=15)
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--measure", default="nDCG@10")
    ap.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "data"))
    args = ap.parse_args()
    root = Path(args.data)
    runs = [str(root / "llm_labels_dl" / "dl2019_runs" / f"input.{r}.gz") for r in RUNS]
    pq = evaluate_judgment_sets(runs, {"proxy": str(root / "llm_labels_dl" / "results" / "dl2019_test_4prompts_llama70b.txt"),
                                       "gold": str(root / "anserini_tools" / "qrels.dl19-passage.txt")}, args.measure).per_query
    val = {(s, j): dict(zip(g["qid"], g["value"])) for (s, j), g in pq.group_by(["system", "judgments"])}
    qids = sorted(val[(RUNS[0], "gold")])
    rows = []
    for a, b in itertools.combinations(RUNS, 2):
        truth = float(np.mean([val[(b, "gold")][q] - val[(a, "gold")][q] for q in qids]))
        for seed in range(args.seeds):
            sample = set(np.random.default_rng(seed).choice(qids, args.gold, replace=False).tolist())
            g = lambda s: {q: v for q, v in val[(s, "gold")].items() if q in sample}  # noqa: E731
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = ppi_compare(val[(a, "proxy")], val[(b, "proxy")], g(a), g(b))
                r0 = ppi_compare(val[(a, "proxy")], val[(b, "proxy")], g(a), g(b), lam=0)
            rows.append({"a": a, "b": b, "seed": seed, "truth": truth, "ppi": r.statistic,
                         "ppi_low": r.confidence_interval.low, "ppi_high": r.confidence_interval.high, "lam": r.lam,
                         "gold": r0.statistic, "gold_low": r0.confidence_interval.low,
                         "gold_high": r0.confidence_interval.high})
    df = pl.DataFrame(rows).with_columns(
        ((pl.col("ppi_low") <= pl.col("truth")) & (pl.col("truth") <= pl.col("ppi_high"))).alias("ppi_covers"),
        ((pl.col("gold_low") <= pl.col("truth")) & (pl.col("truth") <= pl.col("gold_high"))).alias("gold_covers"),
        (pl.col("ppi_high") - pl.col("ppi_low")).alias("ppi_width"),
        (pl.col("gold_high") - pl.col("gold_low")).alias("gold_width"),
        (pl.col("ppi") - pl.col("truth")).abs().alias("ppi_abs_err"),
        (pl.col("gold") - pl.col("truth")).abs().alias("gold_abs_err"))
    pairs = df["a"].n_unique() and df.select("a", "b").unique().height
    print(f"DL-2019 {args.measure}: proxy = llama70b labels on 43 queries, gold = NIST on {args.gold} sampled "
          f"queries; {pairs} run pairs x {args.seeds} seeds = {df.height} intervals (nominal 95%)")
    print(df.select(pl.col("ppi_covers").mean().alias("PPI++ coverage"),
                    pl.col("gold_covers").mean().alias("gold-only coverage"),
                    pl.col("ppi_width").mean().alias("PPI++ mean width"),
                    pl.col("gold_width").mean().alias("gold-only mean width"),
                    pl.col("ppi_abs_err").mean().alias("PPI++ mean |err|"),
                    pl.col("gold_abs_err").mean().alias("gold-only mean |err|"),
                    pl.col("lam").mean().alias("mean lam")))
    with pl.Config(tbl_rows=40, tbl_cols=12):
        print(df.group_by("a", "b", maintain_order=True).agg(
            pl.first("truth"), pl.col("ppi_covers").mean().alias("ppi_cov"), pl.col("gold_covers").mean().alias("gold_cov"),
            pl.col("ppi_width").mean().alias("ppi_w"), pl.col("gold_width").mean().alias("gold_w"),
            pl.col("lam").mean().alias("lam")))
        print("seed 0, a few pairs:")
        print(df.filter(pl.col("seed") == 0).select("a", "b", "truth", "ppi", "ppi_low", "ppi_high", "lam",
                                                     "gold", "gold_low", "gold_high").head(8))


if __name__ == "__main__":
    main()
