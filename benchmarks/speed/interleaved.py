"""Benchmark: a run file whose queries' lines are scattered (shuffled) vs the same lines grouped.

Writes, in a temporary folder (default under /tmp, deleted at the end unless --keep), a run of
QUERIES x DOCS lines with tied scores and graded qrels, once with each query's lines together (as
TREC runs are) and once in a uniformly shuffled line order (as parallel workers appending to one
file leave it), then evaluates each with nDCG@10, AP, R@100, RR@10 in its own subprocess and
prints seconds, peak RSS and the ratio shuffled / grouped. A script, not a test:

    python benchmarks/speed --section interleaved                     # 100,000 x 1,000 = 100 M lines (3.5 GB each)
    python benchmarks/speed --section interleaved --queries 7000      # 7 M lines
    python benchmarks/speed --section interleaved --quick             # 2,000 x 100, a smoke run
    python benchmarks/speed --section interleaved --keep; python benchmarks/speed --section interleaved --data /tmp/pf-interleaved-...
                                                         # time again on the files kept

Targets (issue 13): the shuffled file within 1.5 GB peak and at most 3x the grouped time.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import polars as pl

from _subprocess import EVALUATE, add_folder_options, data_folder, generated_data_parser, measure, timed_script

BLOCK_QUERIES = 1000
BUCKETS = 64

WRAPPER = timed_script(EVALUATE + '\nresult = {"rows": rows}', setup="import pairedframe as pf")


def _block(rng: np.random.Generator, first: int, n_queries: int, docs: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Run lines (one text column) and qrels lines of queries first .. first + n_queries - 1."""
    qid = np.repeat(np.arange(first, first + n_queries), docs)
    doc = rng.integers(0, 20 * docs, size=(n_queries, docs))
    score = np.round(rng.normal(size=(n_queries, docs)), 2)  # 2 decimals: many ties
    order = np.argsort(-score, axis=1, kind="stable")
    score = np.take_along_axis(score, order, axis=1).ravel()
    doc = np.take_along_axis(doc, order, axis=1)
    # distinct docnos in a query: the position breaks repeats of the random number
    docno = (doc * docs + np.arange(docs)[None, :]).ravel()
    rank = np.tile(np.arange(1, docs + 1), n_queries)
    run = pl.DataFrame({"q": qid, "d": docno, "r": rank, "s": score}).select(
        pl.format("{} Q0 d{} {} {} bench", pl.col("q").cast(pl.String).str.zfill(6), "d", "r",
                  pl.col("s").round(2).cast(pl.String)).alias("line"))
    judged = 60
    jq = np.repeat(np.arange(first, first + n_queries), judged)
    pick = rng.integers(0, docs, size=(n_queries, judged // 2))
    retrieved = (doc[np.arange(n_queries)[:, None], pick] * docs + pick).ravel()
    other = (rng.integers(0, 20 * docs, size=(n_queries, judged // 2)) * docs + docs).ravel()  # never retrieved
    dn = np.concatenate([retrieved.reshape(n_queries, -1), other.reshape(n_queries, -1)], axis=1).ravel()
    grade = rng.choice([0, 0, 0, 1, 2, 3], size=n_queries * judged)
    qrels = (pl.DataFrame({"q": jq, "d": dn, "g": grade}).unique(["q", "d"], keep="first", maintain_order=True)
             .select(pl.format("{} 0 d{} {}", pl.col("q").cast(pl.String).str.zfill(6), "d", "g").alias("line")))
    return run, qrels


def generate(folder: Path, n_queries: int, docs: int) -> tuple[Path, Path, Path]:
    """grouped run, shuffled run, qrels; the shuffle goes through BUCKETS files (bounded memory)."""
    rng = np.random.default_rng(13)
    grouped, shuffled, qrels = folder / "run.grouped", folder / "run.shuffled", folder / "qrels"
    buckets = [open(folder / f"bucket{i}", "wb") for i in range(BUCKETS)]
    with open(grouped, "wb") as g, open(qrels, "wb") as q:
        for first in range(0, n_queries, BLOCK_QUERIES):
            run, judged = _block(rng, first, min(BLOCK_QUERIES, n_queries - first), docs)
            run.write_csv(g, include_header=False, quote_style="never")
            judged.write_csv(q, include_header=False, quote_style="never")
            where = rng.integers(0, BUCKETS, size=run.height)
            for i, part in run.with_columns(pl.Series("b", where)).partition_by("b", as_dict=True).items():
                part.select("line").write_csv(buckets[i[0]], include_header=False, quote_style="never")
    for fh in buckets:
        fh.close()
    with open(shuffled, "wb") as out:
        for i in range(BUCKETS):
            path = folder / f"bucket{i}"
            lines = pl.read_csv(path, has_header=False, separator="\x1f", quote_char=None, new_columns=["line"],
                                schema_overrides={"line": pl.String})
            lines.sample(fraction=1.0, shuffle=True, seed=i).write_csv(out, include_header=False, quote_style="never")
            path.unlink()
    return grouped, shuffled, qrels


def main() -> None:
    parser = generated_data_parser(__doc__, queries=100_000)
    parser.add_argument("--repeats", type=int, default=1)
    add_folder_options(parser, quick="2,000 x 100, one repeat")
    parser.add_argument("--data", default=None, help="a folder kept by --keep: time its files again, keep them")
    args = parser.parse_args()
    if args.quick:
        args.queries, args.docs, args.repeats = 2000, 100, 1
    args.keep = args.keep or bool(args.data)
    with data_folder("pf-interleaved-", args.dir, args.keep, args.data) as folder:
        t = time.perf_counter()
        if args.data:
            grouped, shuffled, qrels = folder / "run.grouped", folder / "run.shuffled", folder / "qrels"
        else:
            grouped, shuffled, qrels = generate(folder, args.queries, args.docs)
        print(f"data: {grouped.stat().st_size / 1e9:.2f} GB per run file, ready in {time.perf_counter() - t:.0f} s")
        results = {}
        for name, path in (("grouped", grouped), ("shuffled", shuffled)):
            runs = [measure(WRAPPER, path, qrels) for _ in range(args.repeats)]
            results[name] = min(runs, key=lambda r: r["seconds"])
        assert results["grouped"]["rows"] == results["shuffled"]["rows"]
        print(f"{'line order':<12}{'seconds':>10}{'cpu s':>8}{'peak MB':>10}{'rows':>12}{'x grouped':>11}{'cpu x':>8}")
        g = results["grouped"]
        for name, r in results.items():
            print(f"{name:<12}{r['seconds']:>10.1f}{r['cpu']:>8.1f}{r['peak_mb']:>10.0f}{r['rows']:>12}"
                  f"{r['seconds'] / g['seconds']:>11.2f}{r['cpu'] / g['cpu']:>8.2f}")
        s = results["shuffled"]
        print(f"shuffled: {s['seconds'] / results['grouped']['seconds']:.2f}x the grouped time (target <= 3x), "
              f"{s['cpu'] / g['cpu']:.2f}x its CPU time, peak {s['peak_mb']:.0f} MB (target <= 1500 MB); load average "
              f"{os.getloadavg()[0]:.1f} (CPU time, all threads, is steadier than wall time when other jobs run)")


if __name__ == "__main__":
    os.environ.setdefault("POLARS_MAX_THREADS", "2")
    main()
