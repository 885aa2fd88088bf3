"""TOST and minimum detectable difference: statsmodels / scipy oracles, hand cases, validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pairedframe.stats.equivalence import minimum_detectable_difference, tost


def test_tost_hand_computed_symmetric_case():
    # delta = 0, se = 1, margin = 1.645 -> both one-sided z = 1.645, p ~ 0.05
    res = tost(0.0, 1.0, margin=1.6448536269514722)
    assert res.pvalue == pytest.approx(0.05, rel=1e-12)
    assert res.pvalue_lower == pytest.approx(res.pvalue_upper, rel=1e-15)
    assert res.confidence_interval.low == pytest.approx(-1.6448536269514722, rel=1e-12)
    assert res.margin == (-1.6448536269514722, 1.6448536269514722)


def test_tost_equivalent_iff_ci_inside_margin_and_p_below_alpha():
    inside = tost(0.01, 0.01, margin=0.05)
    assert inside.equivalent and inside.pvalue < 0.05
    lo, hi = inside.confidence_interval
    assert -0.05 < lo < hi < 0.05
    outside = tost(0.04, 0.01, margin=0.05)
    assert not outside.equivalent and outside.pvalue > 0.05


def test_tost_asymmetric_margin():
    res = tost(0.0, 1.0, margin=(-1.0, 3.0))
    assert res.pvalue == res.pvalue_lower  # the nearer bound decides
    assert res.margin == (-1.0, 3.0)


def test_tost_extreme_tail_does_not_underflow_to_one_minus_cdf():
    res = tost(0.0, 1e-3, margin=0.05)  # z = 50: p ~ 1e-545 underflows to 0, not cancellation noise
    assert 0.0 <= res.pvalue < 1e-300


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1, 1, allow_nan=False, allow_subnormal=False), min_size=5, max_size=60),
    st.floats(0.01, 0.5),
    st.floats(0.0, 0.5),
)
def test_tost_against_statsmodels_ztost(x, half_width, shift):
    ws = pytest.importorskip("statsmodels.stats.weightstats")
    x = np.asarray(x)
    sd = x.std(ddof=1)
    assume(sd >= 1e-6)
    se = sd / math.sqrt(x.size)
    low, high = -half_width + shift, half_width + shift
    res = tost(x.mean(), se, margin=(low, high))
    p, (z1, p1), (z2, p2) = ws.ztost(x, low, high)
    assert res.pvalue == pytest.approx(p, rel=1e-9, abs=1e-300)
    assert res.pvalue_lower == pytest.approx(p1, rel=1e-9, abs=1e-300)
    assert res.pvalue_upper == pytest.approx(p2, rel=1e-9, abs=1e-300)
    assert res.z_lower == pytest.approx(z1, rel=1e-9, abs=1e-12)
    assert res.z_upper == pytest.approx(z2, rel=1e-9, abs=1e-12)


def test_tost_ci_against_statsmodels_zconfint():
    ws = pytest.importorskip("statsmodels.stats.weightstats")
    x = np.random.default_rng(3).normal(0.01, 0.1, 50)
    se = x.std(ddof=1) / math.sqrt(x.size)
    res = tost(x.mean(), se, margin=0.05, confidence_level=0.95)
    lo, hi = ws.zconfint(x, alpha=0.10)
    assert res.confidence_interval.low == pytest.approx(lo, rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(hi, rel=1e-12)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(delta=0.0, se=0.0, margin=0.1), "se"),
        (dict(delta=0.0, se=-1.0, margin=0.1), "se"),
        (dict(delta=float("nan"), se=1.0, margin=0.1), "delta"),
        (dict(delta=0.0, se=1.0, margin=0.0), "margin"),
        (dict(delta=0.0, se=1.0, margin=(0.1, -0.1)), "margin"),
        (dict(delta=0.0, se=1.0, margin=(0.1,)), "margin"),
        (dict(delta=0.0, se=1.0, margin=0.1, confidence_level=0.5), "confidence_level"),
        (dict(delta=0.0, se=1.0, margin=0.1, confidence_level=1.0), "confidence_level"),
    ],
)
def test_tost_validation(kwargs, match):
    delta, se = kwargs.pop("delta"), kwargs.pop("se")
    with pytest.raises(ValueError, match=match):
        tost(delta, se, **kwargs)


def test_tost_rejects_non_numbers():
    with pytest.raises(TypeError, match="delta"):
        tost("a", 1.0, margin=0.1)


def test_minimum_detectable_difference_hand_computed():
    # classic 2.8 * se for alpha=.05 two-sided, power=.8
    assert minimum_detectable_difference(1.0) == pytest.approx(1.959963984540054 + 0.8416212335729143, rel=1e-12)
    assert minimum_detectable_difference(0.01, alternative="greater") == pytest.approx(
        0.01 * (1.6448536269514722 + 0.8416212335729143), rel=1e-12)


@pytest.mark.parametrize("alpha,power", [(0.05, 0.8), (0.01, 0.9), (0.1, 0.5)])
def test_minimum_detectable_difference_against_statsmodels_power(alpha, power):
    pw = pytest.importorskip("statsmodels.stats.power")
    se = 0.02
    mdd = minimum_detectable_difference(se, confidence_level=1 - alpha, power=power, alternative="greater")
    # NormalIndPower with nobs1=1, ratio=0: effect size in sd units = mdd / se
    achieved = pw.NormalIndPower().power(mdd / se, nobs1=1, alpha=alpha, ratio=0, alternative="larger")
    assert achieved == pytest.approx(power, rel=1e-9)


@pytest.mark.parametrize(
    "kwargs,match",
    [(dict(se=0.0), "se"), (dict(se=1.0, confidence_level=0.0), "confidence_level"), (dict(se=1.0, power=1.0), "power"),
     (dict(se=1.0, alternative="both"), "alternative")],
)
def test_minimum_detectable_difference_validation(kwargs, match):
    se = kwargs.pop("se")
    with pytest.raises(ValueError, match=match):
        minimum_detectable_difference(se, **kwargs)


@settings(max_examples=40, deadline=None)
@given(x=st.lists(st.floats(-0.5, 0.5, allow_nan=False, allow_subnormal=False), min_size=3, max_size=40),
       half_width=st.floats(0.01, 0.5), shift=st.floats(-0.2, 0.2))
def test_t_tost_against_statsmodels_ttost_paired(x, half_width, shift):
    ws = pytest.importorskip("statsmodels.stats.weightstats")
    x = np.asarray(x) + shift
    se = x.std(ddof=1) / np.sqrt(x.size)
    assume(se > 1e-9)
    res = tost(x.mean(), se, margin=half_width, df=x.size - 1)
    want = ws.ttost_paired(x, np.zeros_like(x), -half_width, half_width)[0]
    assert res.pvalue == pytest.approx(want, rel=1e-9, abs=1e-14)
    assert res.df == x.size - 1 and res.equivalent == (res.pvalue < 0.05)


@pytest.mark.parametrize("df", [4, 9, 29])
def test_t_minimum_detectable_difference_against_statsmodels_ttest_power(df):
    smp = pytest.importorskip("statsmodels.stats.power")
    se = 0.02
    mdd = minimum_detectable_difference(se, df=df)
    n = df + 1                               # one-sample t with n = df + 1 and sd = se sqrt(n)
    assert smp.TTestPower().power(mdd / (se * np.sqrt(n)), n, 0.05) == pytest.approx(0.8, abs=1e-9)
    assert mdd > minimum_detectable_difference(se)
