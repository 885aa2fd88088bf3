"""Acceptance of resampling="adaptive" on families small enough for exhaustive enumeration.

Segments of 10-17 queries are built from real DL-2021 nDCG@10 deltas (runs minus p_bm25): null
segments have their deltas' signs randomised (the sign-flip null holds exactly), 4 % are shifted by
0.8 to 2 standard deviations of their population.  The brute force enumerates all 2**n sign patterns of
every segment (``sign_flip_test`` with ``n_resamples = 2**n``: the infinite-B p-value, computed by
another kernel than the adaptive one) and applies BH / Holm; the adaptive decisions must equal
those in every seeded replication, every decision must be certified, and every Monte-Carlo
interval must contain the exact p-value.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.comparison.segments import compare_segments
from pairedframe.stats.multiple import benjamini_hochberg, holm
from pairedframe.stats.randomization import sign_flip_test

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]

RUNS21 = ["p_bm25", "pash_f3", "NLE_P_v1", "uogTrPCP", "TUW_DR_Base", "Fast_Forward_3", "WLUPassage"]


@pytest.fixture(scope="module")
def dl21_deltas(shared_data) -> list[np.ndarray]:
    folder = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    runs = [folder / "passages-runs" / f"{r}.gz" for r in RUNS21]
    runs = [r for r in runs if r.exists()]
    if len(runs) < 3:
        pytest.skip("DL-2021 runs missing")
    ev = pf.evaluate([str(r) for r in runs], str(folder / "qrels-pass.txt"), ["nDCG@10"])
    wide = ev.per_query.pivot(on="system", index="qid", values="value").sort("qid")
    base = wide["p_bm25"].to_numpy()
    return [wide[c].to_numpy() - base for c in wide.columns if c not in ("qid", "p_bm25")]


def _family(pools: list[np.ndarray], rng: np.random.Generator, n_segments: int = 500):
    """Per-query table (baseline 0, system = delta: deltas stay exact) and one segment per unit."""
    sizes = rng.integers(10, 18, n_segments)
    shifted = rng.random(n_segments) < 0.04
    qids, segment, values, truth_d = [], [], [], []
    for s in range(n_segments):
        pool = pools[rng.integers(len(pools))]
        d = rng.choice(pool, size=sizes[s]) * rng.choice([-1.0, 1.0], size=sizes[s])
        if shifted[s]:
            d = d + rng.uniform(0.8, 2.0) * np.std(pool, ddof=1)
        ids = [f"s{s:03d}q{i:02d}" for i in range(sizes[s])]
        qids += ids
        segment += [f"seg{s:03d}"] * sizes[s]
        values.append(d)
        truth_d.append(d)
    values = np.concatenate(values)
    per_query = pl.DataFrame({"system": ["base"] * len(qids) + ["sys"] * len(qids), "qid": qids * 2,
                              "measure": "nDCG@10", "value": np.concatenate([np.zeros(len(qids)), values])})
    segments = pl.DataFrame({"qid": qids, "segment_set": "bucket", "segment": segment})
    return per_query, segments, truth_d


@pytest.mark.parametrize("correction", ["bh", "holm"])
def test_adaptive_decisions_equal_exhaustive_decisions_in_every_replication(dl21_deltas, correction):
    reps = 6
    total_rejections = 0
    for rep in range(reps):
        rng = np.random.default_rng([14, rep])
        per_query, segments, deltas = _family(dl21_deltas, rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = compare_segments(per_query, segments, baseline="base", test="randomization",
                                   resampling="adaptive", correction=correction, interval="t", seed=rep)
        res = res.sort("segment")
        exact_p = np.array([sign_flip_test(d, n_resamples=2 ** d.shape[0]).pvalue for d in deltas])
        truth = (benjamini_hochberg(exact_p) if correction == "bh" else holm(exact_p)) <= 0.05
        assert res["certified"].all(), f"replication {rep}"
        np.testing.assert_array_equal(res["significant"].to_numpy(), truth, err_msg=f"replication {rep}")
        inside = (res["pvalue_low"].to_numpy() <= exact_p) & (exact_p <= res["pvalue_high"].to_numpy())
        assert inside.all(), f"replication {rep}"
        enumerated = res["exact"].to_numpy()
        np.testing.assert_array_equal(res["pvalue"].to_numpy()[enumerated], exact_p[enumerated])
        assert (res["resamples_used"].to_numpy()[~enumerated] < 2 ** res["n_queries"].to_numpy()[~enumerated]).all()
        assert res["decision_error"].unique().to_list() == [1e-3]
        total_rejections += int(truth.sum())
    assert total_rejections >= reps          # the families do have discoveries to get right


def test_adaptive_p_that_crosses_the_interval_gets_a_note(shared_data):
    """An adaptive p-value is drawn only until the family's decisions are certified; where it falls on
    the other side of alpha than the interval (which inverts the test on n_resamples patterns), the
    row's verdict_note says so (DL-2019, 17 runs, RR@10 / nDCG@10 / AP vs bm25base_p)."""
    import pairedframe as pf
    import polars as pl

    runs = sorted((shared_data / "llm_labels_dl" / "dl2019_runs").glob("input.*.gz"))
    ev = pf.evaluate(runs, shared_data / "anserini_tools" / "qrels.dl19-passage.txt", ["RR@10", "nDCG@10", "AP"])
    with pytest.warns(UserWarning):
        res = pf.compare(ev, baseline="bm25base_p", resampling="adaptive", seed=0)
    excludes = (pl.col("ci_low") > 0) | (pl.col("ci_high") < 0)
    crossing = res.filter((pl.col("pvalue") < 0.05) != excludes)
    assert crossing.height > 0
    assert crossing["verdict_note"].str.contains("adaptive p = ").all()
    with pytest.warns(UserWarning):
        fixed = pf.compare(ev, baseline="bm25base_p", seed=0)
    assert fixed["verdict_note"].fill_null("").str.contains("adaptive p").sum() == 0
