"""One-sided default (studentized) intervals near level 0.5: the cap (a multiple of Student's quantile)
applies only where that quantile is positive, a bound above level 0.5 stays on the estimate's side, and the
comparison functions refuse a one-sided level <= 0.5 naming ``confidence_level``."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

import pairedframe as pf
from pairedframe.stats.studentized import quantile_cap, studentized_bootstrap_many

SPIKY = np.r_[np.zeros(15), np.linspace(0.05, 0.2, 5)]      # the reviewer's deltas: a few queries carry them


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("level", [0.5, 0.3])
def test_quantile_cap_applies_only_where_students_quantile_is_positive(alternative, level):
    # Student's one-sided quantile is 0 at 0.5 and negative below: 1.5 x it bounds no width (the old cap was 0
    # at 0.5, so it decided the interval; below 0.5 it pushed the bound beyond Student's)
    assert np.all(np.isinf(quantile_cap(np.array([19.0, 29.0]), level, alternative)))
    assert quantile_cap(19.0, 0.9, alternative) == pytest.approx(1.5 * stats.t.ppf(0.9, 19))
    capped = studentized_bootstrap_many(SPIKY[:, None], n_resamples=999, confidence_level=level,
                                        alternative=alternative, seed=0).confidence_interval
    hall = studentized_bootstrap_many(SPIKY[:, None], n_resamples=999, confidence_level=level,
                                      alternative=alternative, seed=0, max_quantile_ratio=None).confidence_interval
    assert (capped.low[0], capped.high[0]) == (hall.low[0], hall.high[0])


@pytest.mark.parametrize("seed", [1, 2, 5, 9, 10])      # samples whose old bound at 0.51 excluded the mean
def test_one_sided_studentized_interval_above_one_half_contains_its_estimate(seed):
    d = np.random.default_rng(seed).normal(0, 0.1, 30)
    for alternative in ("greater", "less"):
        res = studentized_bootstrap_many(d[:, None], n_resamples=2000, confidence_level=0.51,
                                         alternative=alternative, seed=0)
        ci = res.confidence_interval
        assert ci.low[0] <= res.statistic[0] <= ci.high[0], (alternative, ci)


@pytest.mark.parametrize("interval", ["studentized", "t", "signflip", "percentile", "bca"])
@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("level", [0.5, 0.3])
def test_one_sided_level_at_most_one_half_is_refused_naming_confidence_level(interval, alternative, level):
    with pytest.raises(ValueError, match=r"`confidence_level` must be above 0.5 with a one-sided alternative"):
        pf.compare_pair(np.zeros(20), SPIKY, measure="nDCG@10", confidence_level=level, alternative=alternative,
                        interval=interval)


@pytest.mark.filterwarnings("ignore")
def test_one_sided_level_at_most_one_half_is_refused_by_every_comparison():
    qs = [f"q{i}" for i in range(20)]
    pq = pl.DataFrame({"system": ["a"] * 20 + ["b"] * 20, "qid": qs + qs, "measure": "nDCG@10",
                       "value": np.r_[np.full(20, 0.3), 0.3 + SPIKY]})
    seg = pl.DataFrame({"qid": qs, "segment_set": "s", "segment": ["x"] * 10 + ["y"] * 10})
    calls = [lambda: pf.compare(pq, baseline="a", confidence_level=0.5, alternative="greater"),
             lambda: pf.compare(pq, pairs="ordered", confidence_level=0.5, alternative="less"),
             lambda: pf.compare_clustered(pq.with_columns(pl.col("qid").alias("cluster")), baseline="a",
                                          confidence_level=0.5, alternative="greater"),
             lambda: pf.compare_segments(pq, seg, baseline="a", confidence_level=0.5, alternative="less")]
    for call in calls:
        with pytest.raises(ValueError, match="`confidence_level` must be above 0.5"):
            call()
    # two-sided at 0.5 stays allowed (its quantile is Student's at 0.75), and one-sided just above 0.5 too
    assert pf.compare_pair(np.zeros(20), SPIKY, confidence_level=0.5).confidence_interval.low < SPIKY.mean()
    pf.compare_pair(np.zeros(20), SPIKY, confidence_level=0.51, alternative="greater")
