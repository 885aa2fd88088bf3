"""PPI++ mean: ppi_py oracle (method="z", ddof=0), classical intervals (lam=0), the jackknife-t default, degenerate cases."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairedframe.errors import InsufficientSampleError, SmallSampleWarning
from pairedframe.stats.ppi import ppi_mean
from pairedframe.stats.studentized import zero_spread


def _data(seed, n=60, big_n=500, noise=0.05, bias=0.02):
    rng = np.random.default_rng(seed)
    true_unlab = rng.normal(0.03, 0.1, big_n)
    gold = rng.normal(0.03, 0.1, n)
    proxy_gold = gold + bias + rng.normal(0, noise, n)
    proxy_unlab = true_unlab + bias + rng.normal(0, noise, big_n)
    return gold, proxy_gold, proxy_unlab


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("lam", [None, 0.0, 0.5, 1.0])
def test_ppi_mean_against_ppi_py(seed, lam):
    ppi = pytest.importorskip("ppi_py")
    y, fy, fu = _data(seed, noise=0.02 + 0.1 * seed)
    res = ppi_mean(y, fy, fu, lam=lam, confidence_level=0.9, ddof=0, method="z")
    lo, hi = ppi.ppi_mean_ci(y, fy, fu, alpha=0.1, lam=lam)
    est = ppi.ppi_mean_pointestimate(y, fy, fu, lam=lam)
    assert res.statistic == pytest.approx(float(np.ravel(est)[0]), rel=1e-12, abs=1e-15)
    assert res.confidence_interval.low == pytest.approx(float(np.ravel(lo)[0]), rel=1e-12, abs=1e-15)
    assert res.confidence_interval.high == pytest.approx(float(np.ravel(hi)[0]), rel=1e-12, abs=1e-15)
    # ppi_mean_pval does not clip an estimated lam; compare at our (clipped) lam
    p = ppi.ppi_mean_pval(y, fy, fu, lam=res.lam)
    assert res.pvalue == pytest.approx(float(np.ravel(p)[0]), rel=1e-9, abs=1e-300)


def test_ppi_tuned_lambda_against_ppi_py_internal():
    ppi = pytest.importorskip("ppi_py")
    from ppi_py.ppi import _calc_lam_glm

    y, fy, fu = _data(11)
    theta = float(np.ravel(ppi.ppi_mean_pointestimate(y, fy, fu, lam=1))[0])
    ref = _calc_lam_glm(y - theta, fy - theta, fu - theta, np.eye(1), clip=True)
    assert ppi_mean(y, fy, fu).lam == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("alternative,sm_alt", [("greater", "larger"), ("less", "smaller")])
def test_ppi_one_sided_against_ppi_py(alternative, sm_alt):
    ppi = pytest.importorskip("ppi_py")
    y, fy, fu = _data(5)
    res = ppi_mean(y, fy, fu, lam=0.7, alternative=alternative, ddof=0, method="z")
    lo, hi = ppi.ppi_mean_ci(y, fy, fu, lam=0.7, alpha=0.05, alternative=sm_alt)
    assert tuple(res.confidence_interval) == pytest.approx((float(np.ravel(lo)[0]), float(np.ravel(hi)[0])))
    p = ppi.ppi_mean_pval(y, fy, fu, lam=0.7, alternative=sm_alt)
    assert res.pvalue == pytest.approx(float(np.ravel(p)[0]), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1, 1, allow_nan=False, allow_subnormal=False), min_size=30, max_size=80),
       st.integers(0, 10_000))
def test_ppi_lambda_zero_against_classical_paired_normal_interval(gold, seed):
    y = np.asarray(gold)
    rng = np.random.default_rng(seed)
    res = ppi_mean(y, y + rng.normal(0, 0.1, y.size), rng.normal(0, 1, 40), lam=0.0, confidence_level=0.95, method="z")
    se = y.std(ddof=1) / math.sqrt(y.size)
    z = 1.959963984540054
    assert res.statistic == pytest.approx(y.mean(), abs=1e-15)
    assert res.standard_error == pytest.approx(se, rel=1e-12, abs=1e-300)
    # equal gold values: the whole line, never the point the classical interval is
    flat = bool(zero_spread(y)[0])
    low, high = (-np.inf, np.inf) if flat else (y.mean() - z * se, y.mean() + z * se)
    assert res.confidence_interval.low == pytest.approx(low, rel=1e-12, abs=1e-15)
    assert res.confidence_interval.high == pytest.approx(high, rel=1e-12, abs=1e-15)


def test_ppi_lambda_zero_against_ppi_py_classical_mean_ci():
    ppi = pytest.importorskip("ppi_py")
    y, fy, fu = _data(2)
    res = ppi_mean(y, fy, fu, lam=0, confidence_level=0.9, ddof=0, method="z")
    lo, hi = ppi.classical_mean_ci(y, alpha=0.1)
    assert tuple(res.confidence_interval) == pytest.approx((lo, hi), rel=1e-12)


def test_ppi_good_proxy_narrows_interval():
    y, fy, fu = _data(0, noise=0.01, big_n=2000)
    tuned = ppi_mean(y, fy, fu)
    classical = ppi_mean(y, fy, fu, lam=0)
    assert 0.5 < tuned.lam <= 1.0
    assert tuned.standard_error < 0.6 * classical.standard_error
    assert (tuned.n_gold, tuned.n_proxy) == (60, 2000)


def test_ppi_useless_proxy_gives_lambda_near_zero_and_clips():
    rng = np.random.default_rng(1)
    y = rng.normal(0, 1, 100)
    fy = -y  # anti-correlated: raw lambda < 0, clipped to 0
    fu = rng.normal(0, 1, 300)
    assert ppi_mean(y, fy, fu).lam == 0.0


def test_ppi_few_unlabelled_gives_lambda_zero():
    y, fy, fu = _data(3)
    for few in (fu[:0], fu[:1]):
        res = ppi_mean(y, fy, few)
        assert res.lam == 0.0
        assert res.statistic == pytest.approx(y.mean())
    with pytest.raises(InsufficientSampleError, match="proxy_unlabelled"):
        ppi_mean(y, fy, fu[:1], lam=1.0)


def test_ppi_constant_proxy_gives_lambda_zero():
    y, _, _ = _data(4)
    assert ppi_mean(y, np.zeros_like(y), np.zeros(50)).lam == 0.0


def test_ppi_small_gold_warns_for_the_normal_interval_only():
    y, fy, fu = _data(6, n=10)
    with pytest.warns(SmallSampleWarning, match="10 gold"):
        ppi_mean(y, fy, fu, method="z")
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        ppi_mean(y, fy, fu)


@pytest.mark.parametrize("method", ["t", "jackknife-t"])
def test_ppi_lambda_zero_is_scipys_t_interval(method):
    stats = pytest.importorskip("scipy.stats")
    y, fy, fu = _data(8, n=15)
    res = ppi_mean(y, fy, fu, lam=0.0, method=method)
    want = stats.ttest_1samp(y, 0)
    ci = want.confidence_interval(0.95)
    assert tuple(res.confidence_interval) == pytest.approx((ci.low, ci.high), rel=1e-12)
    assert res.pvalue == pytest.approx(want.pvalue, rel=1e-10) and res.df == 14


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 25), st.integers(0, 10_000))
def test_ppi_jackknife_t_against_a_plain_loop(n, seed):
    from tests.reference.stats_reference import ppi_jackknife_loop

    stats = pytest.importorskip("scipy.stats")
    y, fy, fu = _data(seed, n=n, big_n=43, noise=0.05)
    res = ppi_mean(y, fy, fu, method="jackknife-t")
    est, se = ppi_jackknife_loop(list(y), list(fy), list(fu))
    assert res.method == "jackknife-t" and res.df == n - 2
    assert res.statistic == pytest.approx(est, rel=1e-12, abs=1e-15)
    assert res.standard_error == pytest.approx(se, rel=1e-10)
    q = stats.t.ppf(0.975, n - 2)
    assert tuple(res.confidence_interval) == pytest.approx((est - q * se, est + q * se), rel=1e-10, abs=1e-14)
    # with a fixed lam the jackknife variance is the plug-in one: "jackknife-t" = "t"
    a, b = ppi_mean(y, fy, fu, lam=0.4, method="jackknife-t"), ppi_mean(y, fy, fu, lam=0.4, method="t")
    assert a.standard_error == pytest.approx(b.standard_error, rel=1e-12) and a.df == b.df == n - 1


def test_ppi_zero_spread_falls_back_to_the_exact_sign_flip_test():
    """No certainty from constant gold deltas (issue 9 item 4): p = 2 / 2**n, never 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        res = ppi_mean(np.zeros(5), np.zeros(5), np.zeros(3), lam=0)
        assert res.pvalue == 1.0 and tuple(res.confidence_interval) == (-np.inf, np.inf)   # 2/2^5 > 0.05
        for method in ("jackknife-edgeworth", "jackknife-t", "t", "z"):
            r = ppi_mean(np.full(10, 0.1), np.full(10, 0.1), np.random.default_rng(0).uniform(size=43), method=method)
            assert r.pvalue == 2.0 / 2 ** 10 and tuple(r.confidence_interval) == (-np.inf, np.inf)
            assert r.standard_error == 0
        noise = 0.1 + np.array([1e-17, -1e-17, 0.0] * 4)     # float noise is no spread
        assert ppi_mean(noise, noise, np.zeros(3), lam=0).pvalue == 2.0 / 2 ** 12
        assert ppi_mean(np.full(5, 0.1), np.zeros(5), np.zeros(3), lam=0).pvalue == 2.0 / 2 ** 5
        assert ppi_mean(np.full(5, 0.1), np.zeros(5), [], lam=0, alternative="less").pvalue == 1.0
        assert ppi_mean(np.full(5, 0.1), np.zeros(5), [], lam=0, alternative="greater").pvalue == 1.0 / 2 ** 5


@pytest.mark.parametrize(
    "args,kwargs,exc,match",
    [
        (([1.0], [1.0], [1.0, 2.0]), {}, InsufficientSampleError, "gold"),
        (([1.0, 2.0], [1.0], [1.0, 2.0]), {}, ValueError, "proxy_on_gold"),
        (([1.0, np.nan], [1.0, 2.0], [1.0]), {}, ValueError, "gold"),
        (([1.0, 2.0], [1.0, 2.0], [[1.0]]), {}, ValueError, "proxy_unlabelled"),
        (([1.0, 2.0], [1.0, 2.0], [1.0, 2.0]), {"confidence_level": 1.5}, ValueError, "confidence_level"),
        (([1.0, 2.0], [1.0, 2.0], [1.0, 2.0]), {"alternative": "larger"}, ValueError, "alternative"),
        (([1.0, 2.0], [1.0, 2.0], [1.0, 2.0]), {"ddof": 2}, ValueError, "ddof"),
        (([1.0, 2.0], [1.0, 2.0], [1.0, 2.0]), {"lam": float("inf")}, ValueError, "lam"),
        (([1.0, 2.0], [1.0, 2.0], [1.0, 2.0]), {"lam": "auto"}, TypeError, "lam"),
        (([1.0, 2.0], [1.0, 2.0], [1.0, 2.0]), {"method": "bootstrap"}, ValueError, "method"),
    ],
)
def test_ppi_validation(args, kwargs, exc, match):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        with pytest.raises(exc, match=match):
            ppi_mean(*args, **kwargs)


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 25), st.integers(0, 10_000), st.sampled_from([0.9, 0.95, 0.99]))
def test_ppi_jackknife_edgeworth_against_a_plain_loop(n, seed, level):
    """The default: jackknife SE, Hall's corrected quantile of the rectifier, p-value dual to the interval."""
    from tests.reference.stats_reference import edgeworth_t_quantile_loop, ppi_jackknife_loop

    y, fy, fu = _data(seed, n=n, big_n=43, noise=0.05)
    res = ppi_mean(y, fy, fu, confidence_level=level)
    est, se = ppi_jackknife_loop(list(y), list(fy), list(fu))
    assert res.method == "jackknife-edgeworth" and res.df == n - 2
    q = edgeworth_t_quantile_loop(list(y - res.lam * fy), n - 2, level)
    assert tuple(res.confidence_interval) == pytest.approx((est - q * se, est + q * se), rel=1e-10, abs=1e-14)
    assert (res.confidence_interval.low > 0 or res.confidence_interval.high < 0) == (res.pvalue < 1 - level)
    if 1e-9 < res.pvalue < 1 - 1e-9:     # at level 1 - p the interval's end is exactly at 0
        q_at_p = edgeworth_t_quantile_loop(list(y - res.lam * fy), n - 2, 1 - res.pvalue)
        assert q_at_p == pytest.approx(abs(res.statistic) / res.standard_error, rel=1e-8)
    one = ppi_mean(y, fy, fu, confidence_level=level, alternative="greater")       # one-sided: plain jackknife-t
    ref = ppi_mean(y, fy, fu, confidence_level=level, alternative="greater", method="jackknife-t")
    assert one.confidence_interval == ref.confidence_interval and one.pvalue == ref.pvalue


@pytest.mark.parametrize("n", [2, 3, 9])
def test_ppi_below_ten_gold_queries_warns_with_every_method(n):
    y, fy, fu = _data(4, n=n)
    for method in ("jackknife-edgeworth", "jackknife-t", "t"):
        with pytest.warns(SmallSampleWarning, match=f"only {n} gold queries .*below the calibrated 10-30"):
            res = ppi_mean(y, fy, fu, method=method)
        assert res.df == (max(n - 2, 1) if method.startswith("jackknife") else n - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        ppi_mean(*_data(4, n=10))


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_ppi_zero_spread_interval_against_paired_t_test(alternative):
    """Equal gold deltas: ppi_mean gave the point (0.1, inf) one-sided where paired_t_test, whose p-value it
    copies, gives the whole line (the outside statistician, round 13): n equal values are no certainty."""
    from pairedframe.stats.ttest import paired_t_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        res = ppi_mean([0.1] * 5, [0.08, 0.12, 0.1, 0.09, 0.11], np.random.default_rng(0).normal(0.1, 0.05, 20),
                       alternative=alternative)
    t = paired_t_test(np.full(5, 0.1), alternative=alternative)
    assert res.pvalue == t.pvalue
    assert tuple(res.confidence_interval) == tuple(t.confidence_interval) == (-np.inf, np.inf)


@pytest.mark.parametrize("method", ["jackknife-t", "jackknife-edgeworth"])
def test_ppi_two_gold_queries_use_the_plug_in_variance_of_the_tuned_lambda_against_a_direct_computation(method):
    """The outside statistician: with 2 gold queries each leave-one-out sample holds one gold value, which tunes
    lam to 0, so the jackknife measured the gold-only mean (SE 0.460, interval [-5.8, 5.9]) beside an estimate
    made with lam = 1 (rectifier SE about 0.025). The tuned lam is kept: the plug-in variance, as a fixed lam."""
    y, yh = np.array([0.458, -0.461]), np.array([0.479, -0.490])
    yu = np.random.default_rng(0).normal(0.05, 0.2, 30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        res = ppi_mean(y, yh, yu, method=method)
    lam = res.lam
    assert lam == pytest.approx(1.0)
    se = math.sqrt(np.var(y - lam * yh, ddof=1) / 2 + np.var(lam * yu, ddof=1) / 30)
    assert res.standard_error == pytest.approx(se, rel=1e-12)
    assert res.confidence_interval.high - res.confidence_interval.low < 2.0
