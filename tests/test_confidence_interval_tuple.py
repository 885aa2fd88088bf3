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
    assert check_level(level) == float(level)
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
