import math

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from pairedframe.errors import InsufficientSampleError
from pairedframe.stats.ttest import paired_t_test, paired_t_test_many

finite = st.floats(-1, 1, allow_nan=False, allow_subnormal=False)
alternatives = st.sampled_from(["two-sided", "greater", "less"])


@settings(max_examples=60, deadline=None)
@given(d=arrays(np.float64, st.integers(2, 60), elements=finite), alt=alternatives,
       cl=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_paired_t_test_against_scipy_ttest_1samp(d, alt, cl):
    stats = pytest.importorskip("scipy.stats")
    # degenerate / ill-conditioned: documented deviation, tested separately
    assume(np.ptp(d) > 0 and np.std(d, ddof=1) >= 1e-8 * np.max(np.abs(d)))
    ours = paired_t_test(d, alternative=alt, confidence_level=cl)
    theirs = stats.ttest_1samp(d, 0.0, alternative=alt)
    assert ours.df == theirs.df
    # t and p are scale-free: scipy on d / max|d| keeps the digits its squares lose below ~1e-150
    scaled = stats.ttest_1samp(d / np.max(np.abs(d)), 0.0, alternative=alt)
    assert ours.t == pytest.approx(scaled.statistic, rel=1e-12, abs=1e-12)
    assert ours.pvalue == pytest.approx(scaled.pvalue, rel=1e-9, abs=1e-12)
    if np.max(np.abs(d)) > 1e-140:
        assert ours.t == pytest.approx(theirs.statistic, rel=1e-12, abs=1e-12)
    ci = theirs.confidence_interval(cl)
    np.testing.assert_allclose(tuple(ours.confidence_interval), (ci.low, ci.high),
                               rtol=1e-11, atol=1e-12)
    assert ours.statistic == np.mean(d)


def test_paired_t_test_against_scipy_ttest_rel():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    a, b = rng.uniform(size=50), rng.uniform(size=50)
    ours = paired_t_test(a - b)
    theirs = stats.ttest_rel(a, b)
    assert ours.pvalue == pytest.approx(theirs.pvalue, rel=1e-12)
    assert ours.t == pytest.approx(theirs.statistic, rel=1e-12)


@settings(max_examples=20, deadline=None)
@given(D=arrays(np.float64, st.tuples(st.integers(2, 30), st.integers(1, 5)), elements=finite),
       alt=alternatives)
def test_paired_t_test_many_against_single_columns(D, alt):
    many = paired_t_test_many(D, alternative=alt)
    for c in range(D.shape[1]):
        one = paired_t_test(D[:, c], alternative=alt)
        assert many.statistic[c] == one.statistic
        assert many.pvalue[c] == one.pvalue
        assert many.confidence_interval.low[c] == one.confidence_interval.low


def test_paired_t_test_zero_spread_gives_the_exact_sign_flip_p_and_never_a_point_interval():
    r = paired_t_test(np.zeros(10))
    assert (r.t, r.pvalue, tuple(r.confidence_interval)) == (0.0, 1.0, (-math.inf, math.inf))
    r = paired_t_test(np.full(10, 0.1))
    assert r.t == math.inf and r.pvalue == 2.0 / 2**10      # never 0: n equal signs
    assert tuple(r.confidence_interval) == (-math.inf, math.inf)      # no range given: nothing bounds the mean
    assert paired_t_test(np.full(10, 0.1), alternative="less").pvalue == 1.0
    assert paired_t_test(np.full(10, -0.1), alternative="less").pvalue == 1.0 / 2**10
    r = paired_t_test(np.full(5, 0.1))
    assert r.pvalue == 2.0 / 32 and tuple(r.confidence_interval) == (-math.inf, math.inf)


@pytest.mark.parametrize("gain", [0.1, 0.0])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_paired_t_test_zero_spread_against_compare_test_t(gain, alternative):
    """Six equal deltas: paired_t_test gives compare(test="t")'s p-value and interval (the range of means six
    equal deltas allow: [-0.405, 0.513] for +0.1 on nDCG@10), not the point [0.1, 0.1] it used to give;
    without a range, the whole line, as compare for a measure it knows no range of."""
    import warnings

    import polars as pl

    import pairedframe as pf
    from pairedframe.stats.value_range import constant_sample_interval

    a = [0.3, 0.5, 0.7, 0.1, 0.2, 0.6]
    b = [v + gain for v in a]
    d = np.array(b) - np.array(a)
    for measure, delta_range in (("nDCG@10", (-1.0, 1.0)), ("my_score", None)):
        pq = pl.DataFrame({"system": ["A"] * 6 + ["B"] * 6, "qid": [str(i) for i in range(6)] * 2,
                           "measure": measure, "value": a + b})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = pf.compare(pq, baseline="A", test="t", alternative=alternative).row(0, named=True)
        got = paired_t_test(d, alternative=alternative, delta_range=delta_range)
        assert got.pvalue == want["pvalue"] and got.statistic == pytest.approx(want["delta"], abs=1e-15)
        assert tuple(got.confidence_interval) == pytest.approx((want["ci_low"], want["ci_high"]), rel=1e-12)
        assert got.t == (math.copysign(math.inf, got.statistic) if gain else 0.0)
    low, high = constant_sample_interval(np.array([np.mean(d)]), 6, -1.0, 1.0)
    assert tuple(paired_t_test(d, delta_range=(-1, 1)).confidence_interval) == (low[0], high[0])
    if gain:
        assert (round(low[0], 3), round(high[0], 3)) == (-0.405, 0.513)


@pytest.mark.parametrize("bad", [(0.1, 1.0), (-1.0, -0.1), (1.0,), "x", (math.nan, 1.0)])
def test_paired_t_test_refuses_a_delta_range_without_0_naming_it(bad):
    with pytest.raises(ValueError, match="delta_range"):
        paired_t_test([0.1, 0.2, 0.3], delta_range=bad)


def test_paired_t_test_float_noise_is_zero_spread():
    # A = [0.3, 0.5], B = [0.4, 0.6]: deltas 0.10000000000000003 and 0.09999999999999998 (issue 9)
    d = np.array([0.4, 0.6]) - np.array([0.3, 0.5])
    assert np.ptp(d) > 0
    r = paired_t_test(d)
    assert r.pvalue == 0.5 and tuple(r.confidence_interval) == (-math.inf, math.inf)
    assert tuple(paired_t_test(d, delta_range=(-1, 1)).confidence_interval) == pytest.approx(
        (0.1 - (1 - 0.025 ** 0.5) * 1.1, 0.1 + (1 - 0.025 ** 0.5) * 0.9))
    # exactly equal deltas at n = 2: no certainty either
    r = paired_t_test([0.1, 0.1])
    assert r.pvalue == 0.5 and r.standard_error == 0.0
    many = paired_t_test_many(np.column_stack([d, [0.1, 0.1], [0.1, 0.3]]))
    assert many.pvalue[0] == many.pvalue[1] == 0.5 and 0 < many.pvalue[2] < 1
    with pytest.raises(InsufficientSampleError):
        paired_t_test([0.5])
    with pytest.raises(ValueError, match="confidence_level"):
        paired_t_test([0.5, 0.1], confidence_level=1.0)


@pytest.mark.parametrize("n", [1023, 1024, 1100, 20_000])
def test_zero_spread_with_a_thousand_queries_or_more_does_not_overflow(n):
    """2**n overflowed a float from n = 1024 (a CI gate on an unchanged run crashed); p stays > 0."""
    d = np.full(n, 0.25)
    for alternative in ("two-sided", "greater", "less"):
        res = paired_t_test(d, alternative=alternative)
        assert res.pvalue > 0.0
        assert res.pvalue == (1.0 if alternative == "less" else max(2.0 ** -(n - (alternative == "two-sided")),
                                                                    5e-324))
    assert paired_t_test(np.zeros(n)).pvalue == 1.0


def test_compare_identical_and_shifted_runs_with_many_queries():
    import polars as pl

    import pairedframe as pf

    n = 1500
    qids = [f"q{i}" for i in range(n)]
    a = np.random.default_rng(0).uniform(size=n)
    frame = pl.DataFrame({"system": ["A"] * n + ["C"] * n + ["D"] * n, "qid": qids * 3, "measure": "m",
                          "value": np.concatenate([a, a + 0.25, a])})
    for test in ("randomization", "t"):
        out = pf.compare(frame, baseline="A", test=test, n_resamples=999)
        assert out["verdict"].to_list() == ["better", "identical"]
        assert out["pvalue"][1] == 1.0 and out["pvalue"][0] > 0.0


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("b", [[0.5, 0.0, 0.9, 0.2], [1.0, 0.0, 0.3, 0.4, 0.8, 0.5, 0.6, 0.2, 0.1, 0.7]])
def test_paired_t_test_interval_inside_delta_range_against_compare_test_t(alternative, b):
    """Deltas with spread: paired_t_test(delta_range=(-1, 1)) keeps its interval inside [-1, 1] as compare(test="t")
    does for a [0, 1] measure (four queries: t's [-1.45, 1.70] reads [-1, 1]; ten queries: nothing to clip);
    without delta_range, and for a measure compare knows no range of, scipy's interval, unclipped."""
    import warnings

    import polars as pl

    import pairedframe as pf

    stats = pytest.importorskip("scipy.stats")
    a = [0.0, 0.5, 0.1, 0.9, 0.3, 0.2, 0.4, 0.6, 0.8, 0.7][:len(b)]
    d = np.array(b) - np.array(a)
    n = len(d)
    scipy_ci = stats.ttest_1samp(d, 0.0, alternative=alternative).confidence_interval(0.95)
    for measure, delta_range in (("nDCG@10", (-1.0, 1.0)), ("my_score", None)):
        pq = pl.DataFrame({"system": ["A"] * n + ["B"] * n, "qid": [str(i) for i in range(n)] * 2,
                           "measure": measure, "value": a + b})
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = pf.compare(pq, baseline="A", test="t", alternative=alternative).row(0, named=True)
        got = paired_t_test(d, alternative=alternative, delta_range=delta_range)
        assert tuple(got.confidence_interval) == pytest.approx((want["ci_low"], want["ci_high"]), rel=1e-12)
        assert got.pvalue == pytest.approx(want["pvalue"], rel=1e-12)
    unclipped = tuple(paired_t_test(d, alternative=alternative).confidence_interval)
    assert unclipped == pytest.approx((scipy_ci.low, scipy_ci.high), rel=1e-11)
    clipped = tuple(paired_t_test(d, alternative=alternative, delta_range=(-1, 1)).confidence_interval)
    assert clipped == tuple(float(np.clip(end, -1, 1)) if math.isfinite(end) else end for end in unclipped)
    if n == 4 and alternative == "two-sided":
        assert unclipped[0] < -1 and unclipped[1] > 1 and clipped == (-1.0, 1.0)


def test_paired_t_test_many_clips_every_column_to_delta_range():
    """The repro of the fault: deltas +0.5 and -0.5 gave t's [-6.35, 6.35] despite delta_range=(-1, 1)."""
    D = np.array([[0.5, 0.1], [-0.5, 0.2]])
    assert tuple(paired_t_test(D[:, 0]).confidence_interval) == pytest.approx((-6.3531, 6.3531), abs=1e-4)
    many = paired_t_test_many(D, delta_range=(-1, 1))
    one = paired_t_test(D[:, 1], delta_range=(-1, 1))
    assert (many.confidence_interval.low[0], many.confidence_interval.high[0]) == (-1.0, 1.0)
    assert (many.confidence_interval.low[1], many.confidence_interval.high[1]) == tuple(one.confidence_interval)
    assert one.confidence_interval.low > -1 and one.confidence_interval.high < 1


@pytest.mark.parametrize(("call", "where"), [(lambda: paired_t_test([0.5, -1.5, 0.2], delta_range=(-1, 1)), r"d\[1\] = -1\.5"),
                                             (lambda: paired_t_test_many([[0.1, 0.2], [0.3, 40.0]], delta_range=(-1, 1)),
                                              r"D\[1, 1\] = 40")])
def test_a_delta_outside_delta_range_is_refused_naming_the_argument_and_the_delta(call, where):
    with pytest.raises(ValueError, match=r"`delta_range` \(-1, 1\) does not hold " + where):
        call()


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_t_pvalue_is_never_exactly_zero_where_scipy_underflows_against_scipy(alternative):
    """test='t' gave p = 0.0 at large n where every sign-flip path floors at 5e-324; scipy's tail underflows
    to 0 there, so the floor is the smallest positive double, and elsewhere the p is scipy's."""
    d = np.ones(10_001)
    d[0] = 0.5
    scipy_stats = pytest.importorskip("scipy.stats")
    want = scipy_stats.ttest_1samp(d, 0.0, alternative=alternative).pvalue
    assert want == 0.0
    assert paired_t_test(d, alternative=alternative).pvalue == math.ulp(0.0)
    small = np.array([0.1, 0.3, -0.05, 0.2, 0.15])
    assert paired_t_test(small, alternative=alternative).pvalue == pytest.approx(
        scipy_stats.ttest_1samp(small, 0.0, alternative=alternative).pvalue, rel=1e-12)


def test_t_pvalue_below_the_smallest_normal_double_is_the_floor_against_scipy_stdtr():
    """scipy's tail is subnormal (few digits) just below 2.2e-308 and 0 further out: both are reported as 5e-324,
    as the SQL macro pf_compare reports them; just above, the p is scipy's."""
    import sys

    from scipy.special import stdtr

    from pairedframe.stats.ttest import t_pvalue

    assert 0.0 < 2.0 * stdtr(1000, -55.821) < sys.float_info.min
    assert t_pvalue(1000, 55.821, "two-sided") == math.ulp(0.0)
    assert t_pvalue(1000, 57.0, "two-sided") == math.ulp(0.0)
    assert t_pvalue(1000, 55.0, "two-sided") == 2.0 * stdtr(1000, -55.0) > sys.float_info.min
