"""pf.resample_index reproduces the resamples of compare, compare_clustered and compare_segments."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.comparison.clustered import cluster_layout, cluster_streams
from pairedframe.stats.bootstrap import percentile_interval
from pairedframe.stats.randomization import TIE_RTOL
from pairedframe.stats.resample import bootstrap_index_chunks, sign_flip_chunks
from pairedframe.stats.signflip_interval import inverted_interval
from pairedframe.comparison.segments import segment_keys
from pairedframe.errors import SmallSampleWarning
from tests.reference.segments_reference import draws

QIDS = [f"{i:03d}" for i in range(37)] + ["10", "1", "zz"]


def _counts(table: pl.DataFrame, qids: list[str], n_resamples: int, weight: str = "count") -> np.ndarray:
    pos = {q: i for i, q in enumerate(qids)}
    out = np.zeros((n_resamples, len(qids)), dtype=np.int64)
    out[table["resample"].to_numpy(), [pos[q] for q in table["qid"].to_list()]] = table[weight].to_numpy()
    return out


@pytest.mark.parametrize("chunk_elements", [50, 10**6])
def test_bootstrap_table_against_the_numpy_stream(chunk_elements):
    index = pf.resample_index(reversed(QIDS), n_resamples=300, seed=11, chunk_elements=chunk_elements)
    qids = sorted(QIDS)
    assert index.qids == tuple(qids)
    table = index.collect()
    assert table.columns == ["resample", "qid", "count"] and (table["count"] > 0).all()
    assert table.equals(table.sort("resample", "qid"))
    boot_rng, _ = pf.comparison.resample_generators(11, qids)
    idx = np.concatenate(list(bootstrap_index_chunks(len(qids), 300, seed=boot_rng)))
    want = np.stack([np.bincount(row, minlength=len(qids)) for row in idx])
    assert np.array_equal(_counts(table, qids, 300), want)


def test_bootstrap_table_reproduces_the_interval_of_compare_pair():
    rng = np.random.default_rng(5)
    a, b = rng.uniform(size=len(QIDS)), rng.uniform(size=len(QIDS))
    res = pf.compare_pair(a, b, qids=QIDS, n_resamples=2000, seed=3, interval="percentile")
    table = pf.resample_index(QIDS, n_resamples=2000, seed=3).collect()
    delta = pl.DataFrame({"qid": QIDS, "d": b - a})
    theta = (table.join(delta, on="qid").group_by("resample")
             .agg((pl.col("count") * pl.col("d")).sum() / pl.col("count").sum()).sort("resample")["count"])
    ci = percentile_interval(theta.to_numpy())
    assert abs(ci.low - res.confidence_interval.low) <= 1e-12
    assert abs(ci.high - res.confidence_interval.high) <= 1e-12


@pytest.mark.parametrize("n_queries", [len(QIDS), 11])
def test_sign_table_reproduces_the_signflip_interval_and_pvalue_of_compare_pair(n_queries):
    """Per sign pattern, sum(sign * d) and sum(sign) -- what an engine's GROUP BY gives -- are all the
    inversion of the sign-flip test needs (Monte Carlo at 40 queries, all 2**11 patterns at 11)."""
    qids = QIDS[:n_queries]
    rng = np.random.default_rng(8)
    a, b = rng.uniform(size=n_queries), rng.uniform(size=n_queries)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        res = pf.compare_pair(a, b, qids=qids, n_resamples=2999, seed=6, interval="signflip")
    index = pf.resample_index(qids, n_resamples=2999, seed=6, kind="sign-flip")
    assert index.exact == (n_queries == 11)
    d = pl.DataFrame({"qid": qids, "d": b - a})
    sums = (index.collect().join(d, on="qid").group_by("resample")
            .agg((pl.col("sign") * pl.col("d")).sum().alias("s1"), pl.col("sign").sum().alias("w")).sort("resample"))
    n = float(n_queries)
    null, c = sums["s1"].to_numpy()[:, None] / n, sums["w"].to_numpy() / n
    delta = np.array([np.mean(b - a)])
    gamma = TIE_RTOL * np.maximum(np.abs(delta), np.mean(np.abs(b - a)))
    p, low, high = inverted_interval(null, c, delta, gamma, index.n_resamples, index.exact, 0.95, "two-sided",
                                     np.abs(c) == 1, c == 1)
    assert p[0] == res.pvalue
    assert abs(low[0] - res.confidence_interval.low) <= 1e-12
    assert abs(high[0] - res.confidence_interval.high) <= 1e-12


def test_sign_table_against_the_numpy_stream_and_exact_enumeration():
    qids = sorted(QIDS)
    table = pf.resample_index(QIDS, n_resamples=64, seed=2, kind="sign-flip").collect()
    _, flip_rng = pf.comparison.resample_generators(2, qids)
    want = np.concatenate(list(sign_flip_chunks(len(qids), 64, seed=flip_rng))).astype(np.int64)
    assert np.array_equal(_counts(table, qids, 64, "sign"), want)
    small = pf.resample_index(["b", "a", "c"], n_resamples=8, kind="sign-flip")
    assert small.exact and small.n_resamples == 8
    signs = _counts(small.collect(), ["a", "b", "c"], 8, "sign")
    assert np.array_equal(signs, [[1 - 2 * ((r >> i) & 1) for i in range(3)] for r in range(8)])


def test_cluster_table_gives_every_query_its_clusters_draws():
    clusters = [q[:2] for q in QIDS]
    table = pf.resample_index(QIDS, clusters=clusters, n_resamples=200, seed=4, chunk_elements=300).collect()
    qids = sorted(QIDS)
    order = sorted(range(len(QIDS)), key=QIDS.__getitem__)
    codes, members = cluster_layout(qids, [clusters[i] for i in order])
    boot_rng, _ = cluster_streams(4, qids, [clusters[i] for i in order])
    idx = np.concatenate(list(bootstrap_index_chunks(len(members), 200, seed=boot_rng)))
    per_cluster = np.stack([np.bincount(row, minlength=len(members)) for row in idx])
    assert np.array_equal(_counts(table, qids, 200), per_cluster[:, codes])


def test_segment_table_against_the_loop_reference():
    qids = sorted(QIDS)
    n = len(qids)
    table = pf.resample_index(QIDS, segment=("len", "short"), n_resamples=50, seed=9).collect()
    kb, kf = segment_keys(9, "len", "short")
    want = np.stack([np.bincount([(u * n) >> 32 for u in draws(kb, b, n)], minlength=n) for b in range(50)])
    assert np.array_equal(_counts(table, qids, 50), want)
    flips = pf.resample_index(QIDS, segment=("len", "short"), n_resamples=50, seed=9, kind="sign-flip").collect()
    want = np.array([[1 - 2 * (u >> 31) for u in draws(kf, b, n)] for b in range(50)])
    assert np.array_equal(_counts(flips, qids, 50, "sign"), want)


def test_bad_options_are_named():
    with pytest.raises(ValueError, match="kind"):
        pf.resample_index(QIDS, n_resamples=10, kind="jackknife")
    with pytest.raises(ValueError, match="clusters"):
        pf.resample_index(QIDS, n_resamples=10, clusters=[1, 2])
    with pytest.raises(ValueError, match="n_resamples"):
        pf.resample_index(QIDS, n_resamples=0)
