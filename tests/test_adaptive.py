"""resampling="adaptive" in compare_segments and compare: columns, brackets, streams, exhaustive truth."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.comparison.segments import compare_segments, segment_keys
from pairedframe.stats.multiple import benjamini_hochberg, holm
from pairedframe.stats.randomization import sign_flip_test
from tests.reference.segments_reference import unit_flip_count_reference
from tests.test_segments import _data


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


ADAPTIVE_COLUMNS = ["pvalue_low", "pvalue_high", "resamples_used", "certified", "resampling", "decision_error"]


def test_segments_adaptive_columns_brackets_and_decisions():
    per_query, segs = _data(n_q=240, seed=6)
    segs = pl.concat([segs, pl.DataFrame({"qid": ["q000"], "segment_set": ["one"], "segment": ["o"]})])
    res = _quiet(compare_segments, per_query, segs, baseline="A", resampling="adaptive", decision_error=0.01,
                 seed=3)
    assert res.columns[-len(ADAPTIVE_COLUMNS):] == ADAPTIVE_COLUMNS
    assert res["resampling"].unique().to_list() == ["adaptive"]
    assert res["decision_error"].unique().to_list() == [0.01]
    single = res.filter(pl.col("n_queries") < 2)
    assert single.height and single.select(ADAPTIVE_COLUMNS[:4]).null_count().row(0) == (single.height,) * 4
    ok = res.filter(pl.col("n_queries") >= 2)
    assert ok["certified"].all()
    assert ((ok["pvalue_low"] <= ok["pvalue"]) & (ok["pvalue"] <= ok["pvalue_high"])).all()
    assert (ok["resamples_used"] >= 256).all()
    for fam in ok.partition_by(["system", "measure", "segment_set"]):
        np.testing.assert_array_equal(fam["significant"].to_numpy(),
                                      benjamini_hochberg(fam["pvalue"].to_numpy()) <= 0.05)
    assert ok["significant"].any() and not ok["significant"].all()


def test_segments_adaptive_pvalue_comes_from_the_segment_counter_stream():
    per_query, segs = _data(n_q=120, seed=8, systems=("A", "B"), measures=("m1",))
    res = _quiet(compare_segments, per_query, segs, baseline="A", resampling="adaptive", seed=21,
                 alternative="greater")
    pq = per_query.filter(pl.col("measure") == "m1")
    wide = (pq.filter(pl.col("system") == "B").select("qid", pl.col("value").alias("b"))
            .join(pq.filter(pl.col("system") == "A").select("qid", pl.col("value").alias("a")), on="qid")
            .join(segs, on="qid").sort("qid"))
    checked = 0
    for row in res.filter(pl.col("resamples_used") == 256).head(4).iter_rows(named=True):
        g = wide.filter((pl.col("segment_set") == row["segment_set"]) & (pl.col("segment") == row["segment"]))
        d = (g["b"] - g["a"]).to_numpy()
        key = segment_keys(21, row["segment_set"], row["segment"])[1]
        b = unit_flip_count_reference(d, key, 0, 256, alternative="greater")
        assert row["pvalue"] == pytest.approx(np.clip((b + 1) / 257, row["pvalue_low"], row["pvalue_high"]),
                                              rel=1e-15)
        checked += 1
    assert checked


def test_segments_adaptive_does_not_need_other_segments_for_its_stream():
    per_query, segs = _data(n_q=150, seed=3)
    full = _quiet(compare_segments, per_query, segs, baseline="A", resampling="adaptive", seed=11,
                  family_by=["system", "measure", "segment"])
    only = _quiet(compare_segments, per_query, segs.filter(pl.col("segment") == "b5"), baseline="A",
                  resampling="adaptive", seed=11, family_by=["system", "measure", "segment"])
    cols = ["pvalue", "pvalue_low", "pvalue_high", "resamples_used", "certified"]
    assert full.filter(pl.col("segment") == "b5").select(cols).equals(only.select(cols))


def test_adaptive_option_errors():
    per_query, segs = _data(n_q=40, seed=1)
    with pytest.raises(ValueError, match="`resampling`"):
        compare_segments(per_query, segs, baseline="A", resampling="sequential")
    with pytest.raises(ValueError, match="test='randomization'"):
        compare_segments(per_query, segs, baseline="A", test="t", resampling="adaptive")
    with pytest.raises(ValueError, match="`decision_error`"):
        compare_segments(per_query, segs, baseline="A", resampling="adaptive", decision_error=0)
    with pytest.raises(ValueError, match="`max_resamples`"):
        pf.compare(per_query, baseline="A", resampling="adaptive", max_resamples=100)
    with pytest.raises(ValueError, match="test='randomization'"):
        pf.compare(per_query, baseline="A", test="t", resampling="adaptive")


def _systems_measures(n_q: int, n_systems: int, n_measures: int, seed: int) -> pl.DataFrame:
    """Values on a 1/1024 grid (exact deltas); every 8th system is better by 0.1 on every measure."""
    rng = np.random.default_rng(seed)
    qids = [f"q{i:02d}" for i in range(n_q)]
    base = rng.integers(0, 1024, (n_measures, n_q))
    frames = [pl.DataFrame({"system": "base", "qid": qids * n_measures,
                            "measure": np.repeat([f"m{j}" for j in range(n_measures)], n_q),
                            "value": base.reshape(-1) / 1024})]
    for s in range(1, n_systems + 1):
        shift = rng.uniform(80, 200) if s % 8 == 0 else 0
        v = np.clip(base + shift + rng.integers(-150, 150, base.shape), 0, 1023)
        frames.append(pl.DataFrame({"system": f"s{s:02d}", "qid": qids * n_measures,
                                    "measure": np.repeat([f"m{j}" for j in range(n_measures)], n_q),
                                    "value": v.reshape(-1) / 1024}))
    return pl.concat(frames)


@pytest.mark.parametrize("correction", ["holm", "bh", "none"])
def test_compare_adaptive_verdicts_equal_exhaustive_ones_on_hundreds_of_comparisons(correction):
    per_query = _systems_measures(n_q=15, n_systems=40, n_measures=5, seed=4)      # 200 comparisons
    res = _quiet(pf.compare, per_query, baseline="base", resampling="adaptive", correction=correction,
                 interval="t", seed=2)
    assert res.height == 200 and res["certified"].all()
    deltas = (per_query.filter(pl.col("system") != "base")
              .join(per_query.filter(pl.col("system") == "base").select("qid", "measure", pl.col("value").alias("a")),
                    on=["qid", "measure"]).sort("qid"))
    exact = []
    for row in res.iter_rows(named=True):
        g = deltas.filter((pl.col("system") == row["system"]) & (pl.col("measure") == row["measure"]))
        exact.append(sign_flip_test((g["value"] - g["a"]).to_numpy(), n_resamples=2**15).pvalue)
    exact = np.array(exact)
    adjusted = {"none": exact, "holm": holm(exact), "bh": benjamini_hochberg(exact)}[correction]
    significant = res["verdict"].is_in(["better", "worse"]).to_numpy()
    np.testing.assert_array_equal(significant, adjusted < 0.05)
    assert significant.sum() >= 5
    assert ((res["pvalue_low"].to_numpy() <= exact) & (exact <= res["pvalue_high"].to_numpy())).all()


def test_compare_adaptive_counts_equal_fixed_counts_at_the_same_number_of_patterns():
    per_query = _systems_measures(n_q=40, n_systems=12, n_measures=2, seed=5)
    res = _quiet(pf.compare, per_query, baseline="base", resampling="adaptive", correction="bh",
                 interval="t", seed=9)
    checked = 0
    for B in sorted(set(res["resamples_used"].to_list()))[:3]:
        fixed = _quiet(pf.compare, per_query, baseline="base", n_resamples=B, interval="t", seed=9)
        rows = res.with_row_index().filter((pl.col("resamples_used") == B)
                                           & (pl.col("pvalue") > pl.col("pvalue_low"))
                                           & (pl.col("pvalue") < pl.col("pvalue_high")))
        idx = rows["index"].to_numpy()
        np.testing.assert_array_equal(rows["pvalue"].to_numpy(), fixed["pvalue"].to_numpy()[idx])
        checked += len(idx)
    assert checked >= 10


def test_compare_adaptive_warns_when_a_decision_stays_open():
    per_query = _systems_measures(n_q=40, n_systems=12, n_measures=2, seed=5)
    with pytest.warns(UserWarning, match="max_resamples=256 sign patterns"):
        res = pf.compare(per_query, baseline="base", resampling="adaptive", max_resamples=256, interval="t")
    assert not res["certified"].all()
    assert (res["resamples_used"] <= 256).all()


def test_certified_error_bound_is_stated_in_the_output_settings():
    from pairedframe.report.compare import comparison_settings, format_comparison

    per_query = _systems_measures(n_q=20, n_systems=3, n_measures=1, seed=1)
    res = _quiet(pf.compare, per_query, baseline="base", resampling="adaptive", decision_error=0.002, interval="t")
    settings = comparison_settings(res)
    assert settings["resampling"] == "adaptive" and settings["decision_error"] == 0.002
    assert settings["certified_decisions"].endswith("<= 0.002")
    text = format_comparison(res, "markdown")
    assert "certified_decisions: P(some certified verdict" in text and "| certified |" in text
    fixed = comparison_settings(_quiet(pf.compare, per_query, baseline="base", interval="t", n_resamples=500))
    assert "certified_decisions" not in fixed and "resampling" not in fixed
