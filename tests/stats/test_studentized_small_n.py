"""Below MIN_BOOTSTRAP_N values the default (studentized) interval is Student's t interval: n values have
too few distinct bootstrap resamples for a 95 % quantile (calibration study small_n)."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import pairedframe as pf
from pairedframe.stats.studentized import MIN_BOOTSTRAP_N, studentized_bootstrap_many

deltas = st.lists(st.floats(-0.4, 0.4, allow_nan=False).map(lambda x: round(x, 3)), min_size=2,
                  max_size=MIN_BOOTSTRAP_N - 1).filter(lambda d: np.ptp(d) > 1e-6)


@settings(max_examples=60, deadline=None)
@given(d=deltas, alternative=st.sampled_from(["two-sided", "greater", "less"]),
       level=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_studentized_interval_below_five_values_is_students_t_against_scipy_ttest(d, alternative, level):
    got = studentized_bootstrap_many(np.array(d)[:, None], n_resamples=999, confidence_level=level,
                                     alternative=alternative, seed=1).confidence_interval
    want = stats.ttest_1samp(d, 0.0, alternative=alternative).confidence_interval(level)
    np.testing.assert_allclose([got.low[0], got.high[0]], [want.low, want.high], rtol=1e-12, atol=1e-12)


def _pair(d: list[float]) -> pl.DataFrame:
    n = len(d)
    return pl.DataFrame({"system": ["a"] * n + ["b"] * n, "qid": [f"q{i}" for i in range(n)] * 2,
                         "measure": "AP", "value": [0.5] * n + [0.5 + x for x in d]})


@pytest.mark.parametrize("d", [[0.1, 0.3, -0.05], [0.2, 0.25, 0.4, -0.1]])
def test_compares_default_interval_with_three_or_four_queries_is_the_t_interval_against_scipy_ttest(d):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = pf.compare(_pair(d), baseline="a").row(0, named=True)
    want = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    assert row["interval"] == "t"     # what was computed, though the default was asked
    assert row["ci_low"] == pytest.approx(want.low, abs=1e-12) and row["ci_high"] == pytest.approx(want.high, abs=1e-12)
    assert "the interval is Student's t interval" in row["verdict_note"]


def test_compares_default_interval_from_five_queries_on_is_the_bootstrap_and_says_nothing_of_t():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = pf.compare(_pair([0.2, 0.25, 0.4, -0.1, 0.3]), baseline="a").row(0, named=True)
    want = stats.ttest_1samp([0.2, 0.25, 0.4, -0.1, 0.3], 0.0).confidence_interval(0.95)
    assert row["ci_low"] != pytest.approx(want.low, abs=1e-6)
    assert "Student's t interval" not in (row["verdict_note"] or "")
