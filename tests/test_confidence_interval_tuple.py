"""ConfidenceInterval indexes and unpacks as a (low, high) tuple, as scipy's; levels accept any real number type."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

import pairedframe as pf
from pairedframe.comparison.options import check_level
from pairedframe.stats.results import ConfidenceInterval
from pairedframe.stats.ttest import paired_t_test

A = np.array([0.1, 0.2, 0.3, 0.5, 0.4, 0.3, 0.25, 0.6])
B = np.array([0.2, 0.3, 0.35, 0.6, 0.3, 0.5, 0.3, 0.65])


def test_confidence_interval_indexes_unpacks_and_compares_as_scipys_tuple():
    ours = paired_t_test(B - A).confidence_interval
    theirs = stats.ttest_1samp(B - A, 0.0).confidence_interval()
    low, high = ours
    assert (ours[0], ours[1]) == (ours.low, ours.high) == (low, high)
    assert len(ours) == len(theirs) == 2 and ours[-1] == ours.high
    assert tuple(ours) == pytest.approx(tuple(theirs), rel=1e-12)
    assert isinstance(ours, tuple) and isinstance(theirs, tuple)


def test_confidence_interval_stays_immutable():
    ci = ConfidenceInterval(0.1, 0.2)
    with pytest.raises(AttributeError):
        ci.low = 0.0
    with pytest.raises(TypeError):
        ci[0] = 0.0


def test_compare_pair_interval_is_subscriptable():
    r = pf.compare_pair(A, B, measure="nDCG@10", seed=0)
    assert r.confidence_interval[0] == r.confidence_interval.low and r.confidence_interval[1] == r.confidence_interval.high


@pytest.mark.parametrize("level", [np.float32(0.9), np.float64(0.9), 0.9])
def test_confidence_level_accepts_any_real_number_type(level):
    assert check_level(level) == 0.9             # np.float32(0.9) read as the decimal it prints as
    n = 8
    q = [f"q{i}" for i in range(n)]
    table = pl.DataFrame({"system": ["a"] * n + ["b"] * n, "qid": q + q, "measure": "nDCG@10", "value": np.r_[A, B]})
    with pytest.warns(UserWarning):
        got = pf.compare(table, baseline="a", seed=0, confidence_level=level, power=np.float32(0.8))
    assert got["ci_low"][0] < got["delta"][0] < got["ci_high"][0]


@pytest.mark.parametrize("level", [True, np.bool_(True), "0.9", np.float32(1.5)])
def test_confidence_level_refuses_bools_strings_and_out_of_range_values(level):
    with pytest.raises(ValueError, match="`confidence_level` must be in"):
        check_level(level)


def test_float32_level_is_read_as_the_decimal_it_prints_so_p_equal_to_alpha_is_not_significant():
    """np.float32(0.95) was taken as 0.949999988, so alpha became 0.050000012 and p = 0.05 (n_resamples=19)
    turned 'better' while the caption said p < alpha = 0.05; the guide names that case not significant."""
    d = np.abs(np.random.default_rng(0).normal(0.05, 0.02, 30))
    q = [f"q{i}" for i in range(30)]
    table = pl.DataFrame({"system": ["a"] * 30 + ["b"] * 30, "qid": q + q, "measure": "nDCG@10",
                          "value": np.r_[np.full(30, 0.5), 0.5 + d]})
    rows = []
    for level in (0.95, np.float32(0.95), np.float16(0.95)):
        with pytest.warns(UserWarning, match="cannot go below"):
            rows.append(pf.compare(table, baseline="a", confidence_level=level, n_resamples=19, seed=0).row(0, named=True))
    assert [r["pvalue"] for r in rows] == [0.05] * 3
    assert [r["verdict"] for r in rows] == ["inconclusive"] * 3
    assert [r["confidence_level"] for r in rows] == [0.95] * 3
