"""Intervals of means and deltas stay inside the measure's range (issue 20 item 7), and compare's default
interval stays bounded and within 1.5 x the t interval when a few deltas dominate (item 18).

Oracles: scipy.stats.t (the t interval and its quantile), scipy.stats.binomtest (Clopper-Pearson)."""

from __future__ import annotations

import math
import warnings

import duckdb
import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.comparison import compare, compare_pair
from pairedframe.comparison.ppi import ppi_compare_segments
from pairedframe.stats.studentized import studentized_bootstrap_many
from pairedframe.stats.value_range import clip_to_range, constant_sample_interval

stats = pytest.importorskip("scipy.stats")


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _frame(values: dict[str, np.ndarray], measure: str) -> pl.DataFrame:
    return pl.DataFrame([{"system": s, "qid": f"q{j:02d}", "measure": measure, "value": float(v)}
                         for s, vals in values.items() for j, v in enumerate(vals)])


def _t_interval(x: np.ndarray) -> tuple[float, float]:
    ci = stats.ttest_1samp(x, 0).confidence_interval(0.95)
    return float(ci.low), float(ci.high)


NEAR_ONE = np.r_[np.ones(17), 0.5, 0.5, 0.25]          # RR@10-like: a mean near 1 whose t interval passes 1


# ---------------------------------------------------------------- the examples (item 18)

@pytest.mark.parametrize("n", [20, 30])
def test_default_interval_bounded_with_one_dominant_delta(n):
    """n - 1 deltas ~ N(0.02, 0.01) and one 0.9: Hall's bootstrap-t is many times the t interval (the issue
    saw [-0.588, 0.681] at n = 30, [-1.32, 1.45] at n = 20); the default (resample SEs floored at half the
    sample's) is about the t interval, inside [-1, 1]."""
    d = np.r_[np.abs(np.random.default_rng(n).normal(0.02, 0.01, n - 1)), 0.9]
    a = np.full(n, 0.05)
    r = _quiet(compare_pair, a, a + d, measure="nDCG@10")
    t_low, t_high = _t_interval(d)
    low, high = r.confidence_interval
    assert -1 <= low < high <= 1
    assert high - low <= 1.1 * (t_high - t_low)
    assert (low + high) / 2 == pytest.approx(d.mean(), abs=1e-12)
    uncapped = studentized_bootstrap_many(d[:, None], min_se_ratio=None, max_quantile_ratio=None, seed=0).confidence_interval
    assert uncapped.high[0] - uncapped.low[0] > 3 * (t_high - t_low)       # what the cap prevents


def test_default_interval_bounded_with_one_large_delta_among_equal_ones():
    """Eleven deltas of 0.01 and one 0.5: a third of the resamples are constant and Hall's interval was
    (-inf, inf) while the sign-flip test gives p = 1/2048 ("better"); the default is finite, at most
    1.5 x the t interval, and equals the plain-loop reference on compare's resamples."""
    from pairedframe.comparison.paired import resample_generators
    from tests.reference.stats_reference import studentized_interval_loop

    d = np.r_[np.full(11, 0.01), 0.5]
    r = _quiet(compare_pair, np.zeros(12), d, measure="nDCG@10")
    t_low, t_high = _t_interval(d)
    low, high = r.confidence_interval
    assert np.isfinite(low) and np.isfinite(high) and high - low <= 1.5 * (t_high - t_low)
    order = sorted(range(12), key=str)                  # compare_pair sorts the positions' ids "0".."11"
    idx = resample_generators(0, [str(i) for i in range(12)])[0].integers(0, 12, size=(10_000, 12))
    want = studentized_interval_loop(list(d[order]), idx.tolist())
    assert (low, high) == pytest.approx(want, rel=1e-9)
    hall = studentized_interval_loop(list(d[order]), idx.tolist(), max_quantile_ratio=None, min_se_ratio=None)
    assert hall == (-math.inf, math.inf)
    assert r.verdict == "better" and "verdict follows the test" in r.verdict_note


def test_default_interval_of_six_identical_deltas_is_not_a_point():
    r = _quiet(compare_pair, np.zeros(6), np.full(6, 0.1), measure="nDCG@10")
    share = 1 - 0.025 ** (1 / 6)
    assert (r.confidence_interval.low, r.confidence_interval.high) == pytest.approx((0.1 - share * 1.1,
                                                                                     0.1 + share * 0.9))
    assert r.confidence_interval.high - r.confidence_interval.low > 0.5


# ---------------------------------------------------------------- compare: inside [-1, 1] (item 7)

@pytest.mark.parametrize("interval", [None, "t", "signflip", "percentile", "bca"])
def test_interval_inside_measure_range_for_every_interval_of_compare(interval):
    """Deltas of a [0, 1] measure near +1: every interval ends at 1 at most; the t interval's other end is
    scipy's; a measure name the registry does not know is not clipped."""
    frame = _frame({"A": np.zeros(20), "B": NEAR_ONE}, "RR@10")
    row = _quiet(compare, frame, baseline="A", interval=interval, n_resamples=2000).row(0, named=True)
    assert -1.0 <= row["ci_low"] <= row["ci_high"] <= 1.0
    t_low, t_high = _t_interval(NEAR_ONE)
    assert t_high > 1
    if interval == "t":
        assert row["ci_low"] == pytest.approx(t_low, rel=1e-12) and row["ci_high"] == 1.0
        assert "clipped to the range of a mean delta of RR@10, [-1, 1]" in row["verdict_note"]
        unknown = _quiet(compare, frame.with_columns(pl.lit("my_score").alias("measure")), baseline="A",
                         interval="t").row(0, named=True)
        assert unknown["ci_high"] == pytest.approx(t_high, rel=1e-12)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_interval_keeps_its_infinite_end_and_clips_the_other(alternative):
    frame = _frame({"A": np.zeros(20), "B": np.r_[np.ones(18), 0.5, 0.5]}, "RR@10")     # one-sided t high 1.0095
    row = _quiet(compare, frame, baseline="A", test="t", alternative=alternative).row(0, named=True)
    if alternative == "greater":
        assert row["ci_high"] == math.inf and row["ci_low"] < 1
    else:
        assert row["ci_low"] == -math.inf and row["ci_high"] == 1.0


def test_interval_inside_measure_range_on_duckdb_against_polars():
    frame = _frame({"A": np.zeros(20), "B": NEAR_ONE, "C": np.r_[np.ones(19), 0.0]}, "RR@10")
    want = _quiet(compare, frame, baseline="A", n_resamples=999)
    got = _quiet(compare, duckdb.sql("SELECT * FROM frame"), baseline="A", n_resamples=999)
    for c in ("ci_low", "ci_high", "delta"):
        assert got[c].to_list() == pytest.approx(want[c].to_list(), rel=1e-12, abs=1e-14)
    assert got["verdict_note"].to_list() == want["verdict_note"].to_list()
    assert want["ci_high"].max() <= 1.0


def test_clustered_segments_and_ppi_intervals_inside_measure_range():
    frame = _frame({"A": np.zeros(40), "B": np.r_[np.ones(36), 0.5, 0.5, 0.25, 0.0]}, "RR@10")
    clusters = {f"q{j:02d}": f"c{j % 10}" for j in range(40)}
    cl = _quiet(pf.compare_clustered, frame, baseline="A", clusters=clusters, margin=0.05).row(0, named=True)
    assert -1 <= cl["ci_low"] <= cl["ci_high"] <= 1 and cl["tost_high"] <= 1
    segs = pl.DataFrame({"qid": [f"q{j:02d}" for j in range(40)], "segment_set": "s", "segment": "all"})
    seg = _quiet(pf.compare_segments, frame, segs, baseline="A", test="t").row(0, named=True)
    t_low, t_high = _t_interval(np.r_[np.ones(36), 0.5, 0.5, 0.25, 0.0])
    assert t_high > 1 and seg["ci_high"] == 1.0 and seg["ci_low"] == pytest.approx(t_low, rel=1e-12)
    pq = pl.concat([frame.with_columns(pl.lit(j).alias("judgments")) for j in ("proxy", "gold")])
    ppi = _quiet(ppi_compare_segments, pq.select("system", "judgments", "qid", "measure", "value"), baseline="A")
    assert ppi["ci_high"][0] <= 1 and ppi["gold_only_ci_high"][0] <= 1


# ---------------------------------------------------------------- results_table: means inside [0, 1]

def test_results_table_mean_interval_inside_measure_range_against_scipy_t():
    """RR@10 mean 0.8625 over 20 queries: t's interval passes 1; the table's ends at 1 with t's lower end."""
    frame = _frame({"A": NEAR_ONE, "B": np.full(20, 0.5) + np.linspace(-0.2, 0.2, 20)}, "RR@10")
    data = pf.results_table(frame, ci="halfwidth")
    row = data.table.filter(pl.col("system") == "A").row(0, named=True)
    t_low, t_high = _t_interval(NEAR_ONE)
    assert row["ci_low"] == pytest.approx(t_low, rel=1e-12) and row["ci_high"] == 1.0 and row["halfwidth"] is None
    other = data.table.filter(pl.col("system") == "B").row(0, named=True)
    assert other["halfwidth"] == pytest.approx((other["ci_high"] - other["ci_low"]) / 2, rel=1e-12)
    text = data.to_markdown()
    assert "[" in text and "clipped to the measure's range" in text


@pytest.mark.parametrize("n", [10, 43])
def test_results_table_mean_without_spread_against_clopper_pearson(n):
    """n queries all 0 on Success@1: the mean's interval is scipy's exact binomial interval for 0 of n."""
    frame = _frame({"A": np.zeros(n), "B": np.ones(n)}, "Success@1")
    data = pf.results_table(frame, ci="range")
    for system, k in (("A", 0), ("B", n)):
        row = data.table.filter(pl.col("system") == system).row(0, named=True)
        cp = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((cp.low, cp.high), rel=1e-9, abs=1e-15)


# ---------------------------------------------------------------- the numpy helpers and bad options

def test_clip_to_range_clips_infinite_ends_except_a_one_sided_open_side_and_keeps_nan():
    low, high, clipped = clip_to_range([-2.0, -math.inf, math.nan, 0.2], [0.5, 3.0, math.nan, 0.4], -1.0, 1.0)
    assert low.tolist()[:2] == [-1.0, -1.0] and high.tolist()[:2] == [0.5, 1.0]
    assert math.isnan(low[2]) and clipped.tolist() == [True, True, False, False]
    low, high, clipped = clip_to_range([-math.inf, 0.2], [math.inf, math.inf], -1.0, 1.0, alternative="greater")
    assert low.tolist() == [-1.0, 0.2] and high.tolist() == [math.inf, math.inf] and clipped.tolist() == [True, False]
    low, high, _ = clip_to_range([-math.inf], [math.inf], -1.0, 1.0, alternative="less")
    assert (low[0], high[0]) == (-math.inf, 1.0)
    low, high, clipped = clip_to_range([-math.inf], [math.inf], -math.inf, math.inf)     # no known range
    assert (low[0], high[0], clipped[0]) == (-math.inf, math.inf, False)


@pytest.mark.parametrize("n", [2, 3])
def test_unbounded_signflip_interval_becomes_the_delta_range_in_every_door(n):
    """n = 2 or 3 distinct deltas: no shift is rejected by the exact sign-flip test (smallest p 2 / 2**n > 0.05),
    so the inverted interval is the whole line; a [0, 1] measure's mean delta lies in [-1, 1], which is the
    interval compare, compare_segments, compare_clustered and ppi_compare_segments print."""
    deltas = np.array([0.9, 0.05, 0.8])[:n]
    frame = _frame({"A": np.zeros(n), "B": deltas}, "AP")
    for interval in ("signflip", "t", None, "percentile", "bca"):
        row = _quiet(compare, frame, baseline="A", interval=interval, n_resamples=500).row(0, named=True)
        assert -1.0 <= row["ci_low"] <= row["ci_high"] <= 1.0, interval
    assert _quiet(compare, frame, baseline="A", interval="signflip")[["ci_low", "ci_high"]].row(0) == (-1.0, 1.0)
    one = _quiet(compare, frame, baseline="A", interval="signflip", alternative="greater").row(0, named=True)
    assert (one["ci_low"], one["ci_high"]) == (-1.0, math.inf)                  # scipy's [low, inf) kept
    segs = pl.DataFrame({"qid": [f"q{j:02d}" for j in range(n)], "segment_set": "s", "segment": "all"})
    seg = _quiet(pf.compare_segments, frame, segs, baseline="A", interval="signflip").row(0, named=True)
    assert (seg["ci_low"], seg["ci_high"]) == (-1.0, 1.0)
    clusters = {f"q{j:02d}": f"c{j}" for j in range(n)}
    cl = _quiet(pf.compare_clustered, frame, baseline="A", clusters=clusters).row(0, named=True)
    assert -1.0 <= cl["ci_low"] <= cl["ci_high"] <= 1.0
    pq = pl.concat([frame.with_columns(pl.lit(j).alias("judgments")) for j in ("proxy", "gold")])
    ppi = _quiet(ppi_compare_segments, pq.select("system", "judgments", "qid", "measure", "value"), baseline="A")
    assert -1.0 <= ppi["ci_low"][0] <= ppi["ci_high"][0] <= 1.0


def test_constant_sample_interval_with_an_unbounded_side_is_unbounded_there():
    low, high = constant_sample_interval([3.0], 20, 1.0, math.inf)      # a rank: [1, inf)
    assert 1.0 < low[0] < 3.0 and high[0] == math.inf


@pytest.mark.parametrize("bad", [0.5, -1, True, "1.5", math.nan])
def test_studentized_max_quantile_ratio_refuses_values_below_one_naming_the_argument(bad):
    with pytest.raises(ValueError, match="max_quantile_ratio"):
        studentized_bootstrap_many(np.arange(10.0)[:, None], max_quantile_ratio=bad)


@pytest.mark.parametrize("bad", [0, 1.5, -0.5, True, "0.5", math.nan])
def test_studentized_min_se_ratio_refuses_values_outside_zero_one_naming_the_argument(bad):
    with pytest.raises(ValueError, match="min_se_ratio"):
        studentized_bootstrap_many(np.arange(10.0)[:, None], min_se_ratio=bad)


@pytest.mark.parametrize("bad", [1, ["nDCG@10"], b"nDCG@10"])
def test_compare_pair_measure_must_be_a_name(bad):
    with pytest.raises(TypeError, match="measure"):
        compare_pair(np.zeros(5), np.ones(5), measure=bad)


def test_quantile_cap_binds_at_the_given_multiple_of_scipy_t_quantile():
    """The cap is a guarantee (with the SE floor it binds on at most 1.4 % of the calibration's RR@10
    samples): forced to 1 x t's quantile, Hall's wider interval becomes exactly scipy's t interval."""
    x = np.random.default_rng(3).lognormal(0, 2, 12)
    hall = studentized_bootstrap_many(x[:, None], min_se_ratio=None, max_quantile_ratio=None, seed=0).confidence_interval
    t_low, t_high = _t_interval(x)
    assert hall.high[0] - hall.low[0] > t_high - t_low
    capped = studentized_bootstrap_many(x[:, None], min_se_ratio=None, max_quantile_ratio=1.0, seed=0).confidence_interval
    assert (capped.low[0], capped.high[0]) == pytest.approx((t_low, t_high), rel=1e-12)


def test_capped_default_interval_is_named_in_the_note():
    from pairedframe.comparison.interval_range import finish_paired_intervals

    se = np.array([0.01, 0.01])
    half = np.array([1.5, 1.0]) * stats.t.ppf(0.975, 19) * se     # at the cap, and inside it
    low, high, notes = finish_paired_intervals(
        measures=["nDCG@10", "nDCG@10"], delta=np.zeros(2), ci_low=-half, ci_high=half, se=se, n=np.full(2, 20.0),
        flat=np.zeros(2, dtype=bool), interval="studentized", confidence_level=0.95, alternative="two-sided")
    assert "capped at 1.5 x the t interval" in notes[0] and notes[1] is None


def test_values_outside_the_measure_range_warn_and_keep_their_interval_against_scipy_t():
    """nDCG@10 exported x 100: clipping to [-1, 1] would give an interval that excludes its own delta;
    instead a warning names the measure and the first mean outside its range, and the t interval is left
    as scipy gives it."""
    from scipy import stats as sps

    base = np.linspace(0, 50, 20)
    deltas = 2.0 + np.arange(20) * 0.01
    with pytest.warns(UserWarning, match=r"a mean of nDCG@10 is 25, outside that measure's range \[0, 1\]"):
        r = pf.compare_pair(base, base + deltas, measure="nDCG@10", test="t")
    want = sps.ttest_rel(base + deltas, base).confidence_interval(0.95)
    assert (r.confidence_interval.low, r.confidence_interval.high) == pytest.approx((want.low, want.high), rel=1e-12)
    assert r.confidence_interval.low <= r.statistic <= r.confidence_interval.high


SCALED_RR = np.r_[np.full(14, 100.0), np.full(6, 50.0), np.full(5, 33.3), np.zeros(5)]   # RR x 100, mean ~72


@pytest.mark.parametrize("door", ["compare", "compare_duckdb", "compare_pair", "segments", "clustered"])
def test_interval_is_not_clipped_when_the_means_are_on_another_scale_against_scipy_t(door):
    """RR exported x 100 with a small mean delta: the delta (-0.5) lies inside [-1, 1], but the means (~72)
    do not, so [-1, 1] is not the range of this delta; every door warns naming the mean and keeps its
    interval unclipped (the tester's DL-2019 case: t interval [-7.07, 6.73] printed as [-1, 1])."""
    rng = np.random.default_rng(3)
    base = SCALED_RR.copy()
    plus = np.clip(base + rng.choice([-50.0, 0.0, 0.0, 50.0], base.size), 0.0, 100.0)
    plus[0] += -0.5 * base.size - (plus - base).sum()   # mean delta exactly -0.5
    per_query = _frame({"base": base, "plus": plus}, "RR")
    want = stats.ttest_rel(plus, base).confidence_interval(0.95)
    with pytest.warns(UserWarning, match=r"a mean of RR is \d+(\.\d+)?, outside that measure's range \[0, 1\]"):
        if door == "compare":
            row = pf.compare(per_query, baseline="base", test="t").row(0, named=True)
        elif door == "compare_duckdb":
            con = duckdb.connect()
            con.register("pq", per_query.to_arrow())
            row = pf.compare(con.table("pq"), baseline="base", test="t").row(0, named=True)
        elif door == "compare_pair":
            r = pf.compare_pair(base, plus, measure="RR", test="t")
            row = {"delta": r.statistic, "ci_low": r.confidence_interval.low, "ci_high": r.confidence_interval.high}
        elif door == "segments":
            segments = pl.DataFrame({"qid": per_query["qid"].unique().to_list(), "segment_set": "s",
                                     "segment": "all"})
            row = pf.compare_segments(per_query, segments, baseline="base", test="t").row(0, named=True)
        else:
            row = pf.compare_clustered(per_query.with_columns(pl.col("qid").alias("cluster")), baseline="base",
                                       interval="t").row(0, named=True)
    assert row["delta"] == pytest.approx(-0.5, abs=1e-9)
    assert row["ci_low"] < -1.0 and row["ci_high"] > 1.0
    if door != "clustered":     # the clustered t interval uses CR2's degrees of freedom, not n - 1
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((want.low, want.high), rel=1e-9)


def test_equal_deltas_get_compares_range_interval_in_segments_and_clustered_too():
    """Thirty queries all improved by exactly 0.1: compare, compare_segments (one segment of every query)
    and compare_clustered (one query per cluster, any interval) give the same range-based interval, never
    the point [0.1, 0.1], and the clustered note says why."""
    rng = np.random.default_rng(0)
    a = rng.uniform(0.2, 0.6, 30)
    qids = [f"q{i:02d}" for i in range(30)]
    per_query = pl.DataFrame({"system": ["base"] * 30 + ["plus"] * 30, "qid": qids * 2, "measure": "AP",
                              "value": np.concatenate([a, a + 0.1])})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = pf.compare(per_query, baseline="base").select("ci_low", "ci_high").row(0)
        segments = pl.DataFrame({"qid": qids, "segment_set": "s", "segment": "all"})
        seg = pf.compare_segments(per_query, segments, baseline="base").select("ci_low", "ci_high").row(0)
        clustered = [pf.compare_clustered(per_query.with_columns(pl.col("qid").alias("cluster")), baseline="base",
                                          interval=interval).row(0, named=True)
                     for interval in ("edgeworth", "signflip", "t", "percentile")]
    assert want[0] < 0.1 < want[1]
    assert seg == pytest.approx(want, rel=1e-12)
    for row in clustered:
        assert (row["ci_low"], row["ci_high"]) == pytest.approx(want, rel=1e-12)
        assert "every delta equals +0.1 (no spread)" in row["verdict_note"]


def _forty_ap_deltas():
    """40 AP values of A, B = A + N(0.02, 0.05) clipped, and their per-query table."""
    import polars as pl

    rng = np.random.default_rng(3)
    a = rng.uniform(0.2, 0.6, 40)
    b = np.clip(a + rng.normal(0.02, 0.05, 40), 0, 1)
    frame = pl.DataFrame({"system": ["A"] * 40 + ["B"] * 40, "qid": [f"q{i}" for i in range(40)] * 2,
                          "measure": "AP", "value": np.concatenate([a, b])})
    return a, b, frame


def test_default_interval_with_too_few_resamples_for_its_level_is_capped_at_one_and_a_half_t_against_scipy():
    """B = 100 at 99.9 %: the bootstrap quantile lies beyond every resample; the default stays what its
    docs promise -- never wider than 1.5 x the t interval (scipy's t quantile) -- and the note says B is too
    few, not that a few queries dominate; the sign-flip interval is unbounded (clipped) and says why."""
    from scipy import stats as sps

    import pairedframe as pf

    a, b, frame = _forty_ap_deltas()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = pf.compare(frame, baseline="A", n_resamples=100, confidence_level=0.999, seed=0).row(0, named=True)
        flip = pf.compare(frame, baseline="A", n_resamples=100, confidence_level=0.999, interval="signflip",
                          seed=0).row(0, named=True)
    d = b - a
    half_t = sps.t.ppf(0.9995, 39) * d.std(ddof=1) / np.sqrt(40)
    assert row["ci_high"] - row["ci_low"] == pytest.approx(2 * 1.5 * half_t, rel=1e-9)
    assert "n_resamples = 100 is too few for a 0.999 interval" in row["verdict_note"]
    assert "a few queries dominate" not in row["verdict_note"]
    assert (flip["ci_low"], flip["ci_high"]) == (-1.0, 1.0)
    assert "sign-flip interval is unbounded; use n_resamples >= 1000" in flip["verdict_note"]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_default_interval_with_too_few_resamples_equals_the_loop_reference(alternative):
    """B = 40 at 99 %: (count + 1) / (B + 1) >= alpha already at count 0, so the reference's quantile is
    the cap (1.5 x scipy's t quantile), on compare_pair's own resamples; 20 deltas, the fewest whose one-sided
    default is the bootstrap-t (MIN_ONE_SIDED_BOOTSTRAP_N)."""
    from pairedframe.comparison.paired import resample_generators
    from tests.reference.stats_reference import studentized_interval_loop

    rng = np.random.default_rng(5)
    d = rng.normal(0.02, 0.1, 20)
    r = _quiet(compare_pair, np.zeros(20), d, n_resamples=40, confidence_level=0.99, alternative=alternative)
    order = sorted(range(20), key=str)
    idx = resample_generators(0, [str(i) for i in range(20)])[0].integers(0, 20, size=(40, 20))
    want = studentized_interval_loop(list(d[order]), idx.tolist(), confidence_level=0.99, alternative=alternative)
    assert tuple(r.confidence_interval) == pytest.approx(want, rel=1e-9)
    assert all(np.isfinite(v) for v in want if alternative == "two-sided")


def test_tost_interval_on_another_scale_is_unclipped_and_warned_about_once():
    """compare_clustered with an equivalence margin on RR x 100: the TOST interval, like the difference's,
    is not cut to [-1, 1], and the off-scale mean is warned about once (at the difference's interval), not
    again for TOST -- without a warnings filter that would also hide other warnings."""
    rng = np.random.default_rng(3)
    base = SCALED_RR.copy()
    plus = np.clip(base + rng.choice([-50.0, 0.0, 0.0, 50.0], base.size), 0.0, 100.0)
    per_query = _frame({"base": base, "plus": plus}, "RR").with_columns(pl.col("qid").alias("cluster"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        row = pf.compare_clustered(per_query, baseline="base", interval="t", margin=5.0).row(0, named=True)
    scale = [w for w in caught if "outside that measure's range" in str(w.message)]
    assert len(scale) == 1, [str(w.message) for w in caught]
    assert row["tost_low"] < -1.0 and row["tost_low"] <= row["delta"] <= row["tost_high"]


@pytest.mark.parametrize("interval", ["percentile", "bca"])
def test_percentile_and_bca_intervals_say_when_their_level_needs_more_resamples_than_given(interval):
    """At 0.999 with B = 500 their ends were the extreme resampled means, silently (the studentized and sign-flip
    intervals said n_resamples was too few); now the note says so too, and not at a level B resolves."""
    import pairedframe as pf

    a, b, frame = _forty_ap_deltas()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rough = pf.compare(frame, baseline="A", n_resamples=500, confidence_level=0.999, interval=interval)
        fine = pf.compare(frame, baseline="A", n_resamples=500, confidence_level=0.95, interval=interval)
    assert "n_resamples = 500 is too few for a 0.999 interval" in rough["verdict_note"][0]
    assert "taken at the default's cap" in rough["verdict_note"][0]
    assert fine["verdict_note"][0] is None or "too few" not in fine["verdict_note"][0]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("interval", ["percentile", "bca"])
def test_percentile_and_bca_with_too_few_resamples_are_capped_as_the_default_against_scipy_t(shared_data, interval,
                                                                                              alternative):
    """DL-2019, idst_bert_p1 against bm25base_p on nDCG@10, n_resamples = 2 at 95 %: the percentile interval
    was [0.1945, 0.2437], excluding its own estimate 0.2586 (the two resampled means), BCa (nan, nan) under a
    note calling its ends the extreme resampled means.  Now both are the default's too-few interval, the mean
    -/+ 1.5 x scipy's t quantile x sd / sqrt(n), and the note says so."""
    stats = pytest.importorskip("scipy.stats")
    runs = shared_data / "llm_labels_dl" / "dl2019_runs"
    ev = pf.evaluate([str(runs / "input.bm25base_p.gz"), str(runs / "input.idst_bert_p1.gz")],
                     str(shared_data / "anserini_tools" / "qrels.dl19-passage.txt"), ["nDCG@10"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = pf.compare(ev, baseline="bm25base_p", interval=interval, n_resamples=2, seed=0,
                         alternative=alternative).row(0, named=True)
        default = pf.compare(ev, baseline="bm25base_p", n_resamples=2, seed=0, alternative=alternative).row(0, named=True)
    n, delta, sd = row["n_queries"], row["delta"], row["sd"]
    level = 0.975 if alternative == "two-sided" else 0.95
    half = 1.5 * stats.t.ppf(level, n - 1) * sd / math.sqrt(n)
    want = (-math.inf if alternative == "less" else delta - half, math.inf if alternative == "greater" else delta + half)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(want, rel=1e-9)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((default["ci_low"], default["ci_high"]), rel=1e-12)
    assert row["ci_low"] <= delta <= row["ci_high"]
    assert "n_resamples = 2 is too few for a 0.95 interval" in row["verdict_note"]
    assert "taken at the default's cap" in row["verdict_note"] and "extreme resampled" not in row["verdict_note"]


def test_segment_and_cluster_percentile_with_too_few_resamples_are_capped_against_scipy_t(shared_data):
    """compare_segments and compare_clustered had the same fault as compare: with n_resamples = 2 their
    percentile intervals were two resampled means that could both miss the estimate (0.278 outside [0.237,
    0.248] on a DL-2019 segment), without a word.  Now they are capped as compare's: the mean -/+ 1.5 x scipy's
    t quantile x the SE (sd / sqrt(n); cluster-robust on Bell-McCaffrey df), and say so."""
    stats = pytest.importorskip("scipy.stats")
    runs = shared_data / "llm_labels_dl" / "dl2019_runs"
    ev = pf.evaluate([str(runs / "input.bm25base_p.gz"), str(runs / "input.idst_bert_p1.gz")],
                     str(shared_data / "anserini_tools" / "qrels.dl19-passage.txt"), ["nDCG@10"])
    qids = sorted(ev.per_query["qid"].unique().to_list())
    seg = pl.DataFrame({"qid": qids, "segment_set": "s", "segment": ["x" if i % 2 else "y" for i in range(len(qids))]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        segs = pf.compare_segments(ev, seg, baseline="bm25base_p", interval="percentile", n_resamples=2)
        clustered = pf.compare_clustered(ev, baseline="bm25base_p", clusters={q: str(i // 3) for i, q in enumerate(qids)},
                                         interval="percentile", n_resamples=2)
    for row in segs.iter_rows(named=True):
        half = 1.5 * stats.t.ppf(0.975, row["n_queries"] - 1) * row["sd"] / math.sqrt(row["n_queries"])
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((row["delta"] - half, row["delta"] + half), rel=1e-9)
        assert "taken at the default's cap" in row["warning"]
    row = clustered.row(0, named=True)
    half = 1.5 * stats.t.ppf(0.975, row["df"]) * row["se"]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((row["delta"] - half, row["delta"] + half), rel=1e-9)
    assert "n_resamples = 2 is too few for a 0.95 interval" in row["verdict_note"]


def test_capped_default_interval_with_few_resamples_blames_resampling_not_queries():
    """30 normal deltas, B = 10 at 90 %: one resample lies beyond the bootstrap-t quantile, so its cap binds by
    Monte-Carlo noise; the note says so and asks for more resamples instead of blaming a few queries."""
    rng = np.random.default_rng(0)
    a = rng.uniform(0.2, 0.8, 30)
    b = np.clip(a + rng.normal(0.08, 0.1, 30), 0, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        note = pf.compare_pair(a, b, measure="nDCG@10", confidence_level=0.9, n_resamples=10, seed=0).verdict_note
    assert "reached its cap" in note and "raise n_resamples" in note
    assert "a few queries dominate" not in note


def test_capped_note_blames_queries_only_when_enough_resamples_lie_beyond_the_quantile():
    from pairedframe.comparison.interval_range import THIN_TAIL_RESAMPLES, _capped_text
    assert _capped_text(10_000, 0.95).startswith("a few queries dominate these deltas")
    assert _capped_text(None, 0.95).startswith("a few queries dominate these deltas")
    thin = int(THIN_TAIL_RESAMPLES / 0.05) - 1            # 199 resamples at 95 %: 9.95 beyond the quantile
    assert "raise n_resamples" in _capped_text(thin, 0.95)
    assert _capped_text(thin + 1, 0.95).startswith("a few queries dominate")
