"""Real input: DL-2021 segments (topic length, number of relevant passages) and PPI++ on DL-2019
with Llama-3.3-70B labels as proxy and NIST labels as gold; RBO between real runs."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.comparison.overlap import rbo
from pairedframe.comparison.ppi import ppi_compare, ppi_compare_segments
from pairedframe.evaluation import evaluate_judgment_sets
from pairedframe.comparison.segments import compare_segments
from pairedframe.errors import SmallSampleWarning

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]

RUNS21 = ["p_bm25", "pash_f3", "NLE_P_v1", "uogTrPCP"]


@pytest.fixture(scope="module")
def dl21(shared_data):
    folder = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    runs = [folder / "passages-runs" / f"{r}.gz" for r in RUNS21]
    if not all(r.exists() for r in runs):
        pytest.skip("DL-2021 runs missing")
    qrels = folder / "qrels-pass.txt"
    ev = pf.evaluate([str(r) for r in runs], str(qrels), ["nDCG@10", "AP"])
    topics = pl.read_csv(folder / "test-queries.tsv", separator="\t", has_header=False,
                         new_columns=["qid", "text"], schema_overrides={"qid": pl.String}, quote_char=None)
    nrel = (pl.read_csv(qrels, separator=" ", has_header=False, new_columns=["qid", "it", "docno", "rel"],
                        schema_overrides={"qid": pl.String})
            .group_by("qid").agg((pl.col("rel") >= 2).sum().alias("nrel")))   # DL: relevant = grade >= 2
    judged = ev.per_query["qid"].unique().to_list()
    words = (topics.filter(pl.col("qid").is_in(judged))
             .with_columns(pl.col("text").str.split(" ").list.len().alias("w"))
             .select("qid", pl.lit("words").alias("segment_set"),
                     pl.when(pl.col("w") <= 5).then(pl.lit("<=5")).when(pl.col("w") <= 8).then(pl.lit("6-8"))
                     .otherwise(pl.lit(">=9")).alias("segment")))
    rel = (nrel.filter(pl.col("qid").is_in(judged))
           .select("qid", pl.lit("num_rel").alias("segment_set"),
                   pl.when(pl.col("nrel") <= 20).then(pl.lit("<=20")).when(pl.col("nrel") <= 60)
                   .then(pl.lit("21-60")).otherwise(pl.lit(">60")).alias("segment")))
    return ev, pl.concat([words, rel])


def test_dl21_segments_randomization_and_t(dl21):
    ev, segs = dl21
    assert segs.filter(pl.col("segment_set") == "words").height == 53
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = compare_segments(ev, segs, baseline="p_bm25", n_resamples=5000, seed=1)
    assert sum("fewer than 20 paired queries" in str(w.message) for w in caught) <= 1
    assert res.height == 3 * 2 * 6
    # every segment set partitions the 53 queries
    for (_, _, _), g in res.group_by(["system", "measure", "segment_set"]):
        assert g["n_queries"].sum() == 53
    pash = res.filter((pl.col("system") == "pash_f3") & (pl.col("measure") == "nDCG@10"))
    assert (pash["delta"] > 0.15).all() and (pash["ci_low"] > 0).all()
    assert pash["significant"].all()                      # q-values within families of 3 segments
    # the segment means recombine into the overall mean delta
    overall = (ev.per_query.filter(pl.col("measure") == "nDCG@10")
               .pivot(on="system", index="qid", values="value")
               .select((pl.col("pash_f3") - pl.col("p_bm25")).mean()).item())
    words = pash.filter(pl.col("segment_set") == "words")
    assert (words["delta"] * words["n_queries"]).sum() / 53 == pytest.approx(overall, rel=1e-12)
    t = compare_segments(ev, segs, baseline="p_bm25", test="t")
    assert t.select("system", "measure", "segment_set", "segment").equals(
        res.select("system", "measure", "segment_set", "segment"))
    print("\n" + str(res.select("system", "measure", "segment_set", "segment", "n_queries", "delta", "ci_low",
                                "ci_high", "pvalue", "pvalue_bh").filter(pl.col("measure") == "nDCG@10")))


@pytest.fixture(scope="module")
def dl19(shared_data):
    root = shared_data / "llm_labels_dl"
    runs = [root / "dl2019_runs" / f"input.{r}.gz" for r in ("bm25base_p", "p_bert", "idst_bert_p1", "UNH_bm25")]
    llm = root / "results" / "dl2019_test_4prompts_llama70b.txt"
    nist = shared_data / "anserini_tools" / "qrels.dl19-passage.txt"
    if not (llm.exists() and nist.exists() and all(r.exists() for r in runs)):
        pytest.skip("DL-2019 LLM-label data missing")
    pq = evaluate_judgment_sets([str(r) for r in runs], {"proxy": str(llm), "gold": str(nist)}, "nDCG@10").per_query
    return pq


def test_dl19_ppi_llm_proxy_nist_gold(dl19):
    pq = dl19
    assert pq.filter(pl.col("judgments") == "gold")["qid"].n_unique() == 43
    qids = sorted(pq["qid"].unique().to_list())
    sample = sorted(np.random.default_rng(2019).choice(qids, 15, replace=False).tolist())

    def values(system, j, keep=None):
        t = pq.filter((pl.col("system") == system) & (pl.col("judgments") == j))
        return {q: v for q, v in zip(t["qid"], t["value"]) if keep is None or q in keep}

    a, b = "bm25base_p", "idst_bert_p1"
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)      # the default jackknife-t interval is
        res = ppi_compare(values(a, "proxy"), values(b, "proxy"), values(a, "gold", sample),  # calibrated
                          values(b, "gold", sample))                                          # for 15 gold
    truth = np.mean([values(b, "gold")[q] - values(a, "gold")[q] for q in qids])
    assert truth == pytest.approx(0.7645 - 0.5058, abs=1e-4)          # README's NIST nDCG@10 values
    assert res.n_gold == 15 and res.n_proxy == 28 and 0 <= res.lam <= 1
    assert res.confidence_interval.low < truth < res.confidence_interval.high
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tab = ppi_compare_segments(pq, baseline=a, gold_qids=sample)
    row = tab.filter(pl.col("system") == b).row(0, named=True)
    assert row["delta"] == pytest.approx(res.statistic, rel=1e-12)
    print(f"\nDL-19 {b} - {a}: truth {truth:.4f}; PPI++ {res.statistic:.4f} "
          f"[{res.confidence_interval.low:.4f}, {res.confidence_interval.high:.4f}] lam={res.lam:.2f}; "
          f"gold-only {row['gold_only_delta']:.4f} [{row['gold_only_ci_low']:.4f}, {row['gold_only_ci_high']:.4f}]")


def test_rbo_real_runs(shared_data):
    folder = shared_data / "llm_labels_dl" / "dl2019_runs"
    a, b = folder / "input.TUA1-1.gz", folder / "input.test1.gz"
    if not (a.exists() and b.exists()):
        pytest.skip("DL-2019 runs missing")
    near = rbo(str(a), str(b), p=0.9)
    self_ = rbo(str(a), str(a), p=0.9)
    far = rbo(str(a), str(folder / "input.bm25base_p.gz"), p=0.9)
    assert near.height == 200 and (self_["rbo_ext"] == 1.0).all()
    assert near["rbo_ext"].mean() > far["rbo_ext"].mean()           # near-duplicate runs (README)
    assert ((near["rbo_ext"] >= 0) & (near["rbo_ext"] <= 1)).all()
