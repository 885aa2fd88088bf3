"""Verdicts that tell the truth at small sizes (issue 9): float noise, n = 2, MDE at the verdict's level,
"no row can be significant" for exact tests, one-sided alternatives, interval/verdict agreement."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest

from pairedframe.comparison import compare, compare_pair
from pairedframe.errors import SkewWarning, SmallSampleWarning
from pairedframe.stats.power import mde_at_level

pytestmark = pytest.mark.filterwarnings("ignore::pairedframe.errors.SmallSampleWarning",
                                        "ignore::pairedframe.errors.SkewWarning")


def frame_of(a, bs):
    rows = [{"system": "A", "qid": f"q{j:02d}", "measure": "m", "value": float(v)} for j, v in enumerate(a)]
    for name, b in bs.items():
        rows += [{"system": name, "qid": f"q{j:02d}", "measure": "m", "value": float(v)} for j, v in enumerate(b)]
    return pl.DataFrame(rows)


@pytest.mark.parametrize("test", ["randomization", "t"])
def test_float_noise_deltas_give_no_certainty(test):
    # deltas 0.10000000000000003 and 0.09999999999999998: the t-test used to say p = 1.8e-16, "better"
    r = compare_pair([0.3, 0.5], [0.4, 0.6], test=test)
    assert r.pvalue == 0.5 and r.verdict == "inconclusive" and r.sd == 0.0
    assert (r.confidence_interval.low, r.confidence_interval.high) == (-math.inf, math.inf)
    row = compare(frame_of([0.3, 0.5], {"B": [0.4, 0.6]}), baseline="A", test=test).row(0, named=True)
    assert row["pvalue"] == 0.5 and row["verdict"] == "inconclusive" and row["mde"] == math.inf


@pytest.mark.parametrize("test", ["randomization", "t"])
def test_two_equal_deltas_are_not_certain_and_six_are_the_exact_sign_flip_result(test):
    r = compare_pair([0.1, 0.2], [0.2, 0.3], test=test)
    assert r.pvalue == 0.5 and r.verdict == "inconclusive"
    assert ("2 queries" if test == "randomization" else "zero spread") in r.verdict_note
    six = compare_pair(np.zeros(6), np.full(6, 0.25), test=test)     # 2/2^6 = 0.03125 < 0.05
    assert six.pvalue == pytest.approx(2 / 64) and six.verdict == "better"
    # no interval is a point: without a measure nothing bounds the mean (with one: the next test)
    assert (six.confidence_interval.low, six.confidence_interval.high) == (-math.inf, math.inf)


@pytest.mark.parametrize("test", ["randomization", "t"])
def test_equal_deltas_note_says_the_range_interval_and_the_test_differ_not_that_the_test_interval_does(test):
    """Twenty deltas of +0.1 on AP: the sign-flip p says 'better' while the range bound holds 0.  The note
    must not claim the t (or studentized) interval disagrees with its own test -- that interval is not the
    one printed -- and says the rule is discontinuous (one delta moved by 1e-6 gives the usual interval)."""
    a = np.linspace(0.1, 0.8, 20)
    row = compare(frame_of(a, {"B": a + 0.1}).with_columns(measure=pl.lit("AP")), baseline="A",
                  test=test, seed=0).row(0, named=True)
    assert row["verdict"] == "better" and row["ci_low"] < 0 < row["ci_high"]
    note = row["verdict_note"]
    assert "is not the set of shifts" not in note and "all 20 queries moved the same way" in note
    assert "discontinuous by design" in note
    assert ("falls back to the exact sign-flip test" in note) == (test == "t")
    nudged = a + 0.1 + np.r_[1e-6, np.zeros(19)]
    near = compare(frame_of(a, {"B": nudged}).with_columns(measure=pl.lit("AP")), baseline="A", test=test,
                   seed=0).row(0, named=True)
    assert near["ci_high"] - near["ci_low"] < 1e-5 and "discontinuous" not in (near["verdict_note"] or "")


@pytest.mark.parametrize("interval", ["t", "signflip", "percentile", "bca"])
def test_every_interval_of_equal_deltas_is_the_range_bound_not_a_point(interval):
    """Six or thirty equal deltas: t's zero-width interval and the sign-flip inversion's point would
    claim certainty; every interval is the default's range bound (Clopper-Pearson, next test)."""
    for n in (3, 6, 30):
        base = compare_pair(np.zeros(n), np.full(n, 0.05), measure="nDCG@10")
        r = compare_pair(np.zeros(n), np.full(n, 0.05), measure="nDCG@10", interval=interval,
                         test="t" if interval == "t" else "randomization")
        assert (r.confidence_interval.low, r.confidence_interval.high) == (base.confidence_interval.low,
                                                                          base.confidence_interval.high)
        assert -1 < r.confidence_interval.low < 0.05 < r.confidence_interval.high < 1


@pytest.mark.parametrize("n", [6, 20, 43])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_default_interval_of_equal_deltas_is_the_range_bound_against_clopper_pearson(n, alternative):
    """n equal deltas of +1 (a [0, 1] measure: deltas in [-1, 1]): not the point [1, 1] but, mapped to
    (delta + 1) / 2 in [0, 1], scipy's exact Clopper-Pearson interval for n successes in n trials."""
    stats = pytest.importorskip("scipy.stats")
    r = compare_pair(np.zeros(n), np.ones(n), measure="Success@1", alternative=alternative)
    cp = stats.binomtest(n, n, alternative=alternative).proportion_ci(0.95, method="exact")
    want_low = -math.inf if alternative == "less" else 2 * cp.low - 1
    assert r.confidence_interval.low == pytest.approx(want_low, rel=1e-9)
    assert r.confidence_interval.high == (math.inf if alternative == "greater" else 1.0)
    assert "no spread" in r.verdict_note


def test_t_mde_is_the_noncentral_t_one_and_labels_small_samples_inconclusive():
    # deltas [.1, .2, .3]: p = .074; the t-test's MDE at 80 % power is .33 > .2 -> "inconclusive"
    r = compare_pair([0, 0, 0], [0.1, 0.2, 0.3], test="t")
    assert r.pvalue == pytest.approx(0.0742, abs=1e-4)
    assert r.mde == pytest.approx(0.3264, abs=1e-4) and r.verdict == "inconclusive"


def test_mde_is_at_holms_first_step_level():
    # ten systems, n = 50, each t = 2.9: p = .0056, Holm .056; at alpha/10 the MDE exceeds |delta|
    rng = np.random.default_rng(0)
    a = rng.uniform(0.2, 0.8, 50)
    z = rng.normal(size=50)
    z = (z - z.mean()) / z.std(ddof=1)
    bs = {f"S{i}": a + 0.041 + 0.1 * z for i in range(10)}     # delta .041, sd .1: t = 2.9
    res = compare(frame_of(a, bs), baseline="A", test="t")
    row = res.row(0, named=True)
    assert row["pvalue"] == pytest.approx(0.0056, abs=2e-4) and row["pvalue_holm"] > 0.05
    assert row["mde"] == pytest.approx(mde_at_level(0.1 / math.sqrt(50), 49, 0.005), rel=1e-9)
    assert row["mde"] > 0.041 and set(res["verdict"]) == {"inconclusive"}
    raw = compare(frame_of(a, bs), baseline="A", test="t", correction="none")
    assert set(raw["verdict"]) == {"better"}


def test_exact_test_that_cannot_reach_holm_level_warns_and_says_why():
    # n = 8 exact: smallest p = 2/256 = .0078; Holm over ten systems needs p < .005
    rng = np.random.default_rng(1)
    a = rng.uniform(size=8)
    bs = {f"S{i}": a + 0.3 + rng.normal(0, 0.01, 8) for i in range(10)}
    with pytest.warns(UserWarning, match="no comparison can be significant: 8 queries"):
        res = compare(frame_of(a, bs), baseline="A")
    assert res["exact"].all() and (res["mde"] == math.inf).all() and set(res["verdict"]) == {"inconclusive"}
    note = res["verdict_note"][0]
    assert "2/2^n" not in note and "0.0078" in note and "test='t'" in note and "n_resamples" not in note
    # the same with raw p-values can be significant, and then nothing warns
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.simplefilter("ignore", SkewWarning)
        warnings.simplefilter("ignore", SmallSampleWarning)
        raw = compare(frame_of(a, bs), baseline="A", correction="none")
    assert set(raw["verdict"]) == {"better"}


def test_monte_carlo_floor_advice_names_n_resamples():
    rng = np.random.default_rng(2)
    a = rng.uniform(size=40)
    bs = {f"S{i}": a + 0.3 + rng.normal(0, 0.05, 40) for i in range(30)}
    with pytest.warns(UserWarning, match="n_resamples >= 600"):
        res = compare(frame_of(a, bs), baseline="A", n_resamples=200)
    assert set(res["verdict"]) == {"inconclusive"}


def test_one_sided_alternative_against_the_delta_is_explained():
    rng = np.random.default_rng(3)
    a = rng.uniform(size=30)
    r = compare_pair(a, a - 0.2 + rng.normal(0, 0.05, 30), alternative="greater")
    assert r.verdict == "not significant" and "points away from alternative='greater'" in r.verdict_note
    assert r.confidence_interval.high == math.inf and r.confidence_interval.low < r.statistic


def test_signflip_interval_agrees_with_the_p_value_in_every_row_and_the_default_says_when_it_does_not():
    rng = np.random.default_rng(4)
    a = rng.uniform(size=25)
    bs = {f"S{i}": np.clip(a + rng.normal(0.02 * i, 0.15, 25), 0, 1) for i in range(12)}
    res = compare(frame_of(a, bs), baseline="A", correction="none", n_resamples=999, interval="signflip")
    excludes = (res["ci_low"] > 0) | (res["ci_high"] < 0)
    assert (excludes == (res["pvalue"] < 0.05)).all()
    assert (excludes == res["verdict"].is_in(["better", "worse"])).all()
    # the default (studentized) interval is not the test's inversion: every disagreement is explained
    default = compare(frame_of(a, bs), baseline="A", correction="none", n_resamples=999)
    assert default["interval"].unique().to_list() == ["studentized"]
    split = 0
    for row in default.iter_rows(named=True):
        excludes = row["ci_low"] > 0 or row["ci_high"] < 0
        assert (row["pvalue"] < 0.05) == (row["verdict"] in ("better", "worse"))      # the test decides
        if excludes != (row["verdict"] in ("better", "worse")):
            split += 1
            assert "studentized interval is not the set of shifts the randomization test accepts" in row["verdict_note"]
            assert f"p = {row['pvalue']:.3g}" in row["verdict_note"]
        else:
            assert row["verdict_note"] is None or "disagree" not in row["verdict_note"]
    # with Holm the unadjusted interval can exclude 0 for a non-significant row: the note says so
    holm = compare(frame_of(a, bs), baseline="A", n_resamples=999, interval="signflip")
    for row in holm.iter_rows(named=True):
        if (row["ci_low"] > 0 or row["ci_high"] < 0) and row["verdict"] not in ("better", "worse"):
            assert "pvalue_holm" in row["verdict_note"] and "not adjusted" in row["verdict_note"]


def test_studentized_default_and_randomization_test_disagreement_is_named():
    """A row where the sign-flip test rejects but the wider studentized interval holds 0 (or the reverse)."""
    rng = np.random.default_rng(0)
    found = False
    for trial in range(300):
        a = rng.uniform(size=20)
        b = np.clip(a + rng.exponential(0.1, 20) - 0.07, 0, 1)
        row = compare(frame_of(a, {"B": b}), baseline="A", n_resamples=999, seed=trial).row(0, named=True)
        excludes = row["ci_low"] > 0 or row["ci_high"] < 0
        if excludes != (row["pvalue"] < 0.05):
            found = True
            assert "the verdict follows the test, pvalue_holm" in row["verdict_note"]
            break
    assert found


def test_skewed_small_sample_warns_with_skewness_and_n():
    d = np.array([0.0] * 17 + [0.5, 0.6, 0.9])
    with pytest.warns(SkewWarning, match=r"skewness \+\d\.\d\d with n = 20"):
        r = compare_pair(np.zeros(20), d)
    assert r.skewness == pytest.approx(__import__("scipy.stats").stats.skew(d, bias=False), rel=1e-12)
    assert "skewed deltas" in r.verdict_note


@pytest.mark.parametrize("options, in_use", [
    (dict(test="t", confidence_level=0.9), "the interval here is t at 90 %"),
    (dict(), "used here covers best"),
])
def test_skew_and_tie_warnings_name_the_interval_in_use(options, in_use):
    """The calibrated figures are for the default 95 % studentized interval; a t interval at 90 % is
    named as the one in use, not passed off as the default."""
    from pairedframe.errors import TiedQueriesWarning

    d = np.array([0.0] * 17 + [0.5, 0.6, 0.9])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compare_pair(np.zeros(20), d, n_resamples=199, **options)
    skew = [str(w.message) for w in caught if issubclass(w.category, SkewWarning)]
    ties = [str(w.message) for w in caught if issubclass(w.category, TiedQueriesWarning)]
    assert len(skew) == 1 and in_use in skew[0]
    assert len(ties) == 1 and "the default 95 % studentized interval covered" in ties[0]
    assert "real samples; more ties can cover less" in ties[0]  # the calibrated figure is no floor
    if options:
        assert "the default studentized interval covers" not in skew[0] and in_use in ties[0]


def test_forest_colour_follows_the_decision_never_the_interval():
    from pairedframe.report.forest import row_styles

    frame = pl.DataFrame({"delta": [0.1, -0.1, 0.1, 0.05, 0.0], "ci_low": [0.02, -0.2, 0.01, -0.01, -0.1],
                          "ci_high": [0.2, -0.01, 0.2, 0.11, 0.1],
                          "verdict": ["better", "worse", "inconclusive", "better", "identical"]})
    assert row_styles(frame) == [("better", False), ("worse", False), ("not significant", True),
                                 ("better", True), ("not significant", False)]
    segs = frame.drop("verdict").with_columns(pl.Series("significant", [True, True, False, False, False]))
    assert [d for d, _ in row_styles(segs)] == ["better", "worse", "not significant", "not significant",
                                                "not significant"]
    assert [x for _, x in row_styles(segs)] == [False, False, True, False, False]
    ranks = segs.with_columns(pl.lit("FirstRelRank").alias("measure"))      # lower is better
    assert [d for d, _ in row_styles(ranks)][:2] == ["worse", "better"]


def test_bh_verdicts_use_bh_threshold_not_bonferroni():
    """BH rejects every row at p <= alpha when all p are small: 20 clear effects with B = 99 (p floor
    0.01) are all significant under pvalue_bh, so nothing may warn "no comparison can be significant",
    the MDE is finite (at BH's threshold alpha * R / m) and no note calls the level unreachable."""
    rng = np.random.default_rng(0)
    base = np.full(30, 0.5)
    table = frame_of(base, {f"S{i:02d}": base + rng.normal(0.2, 0.1, 30) for i in range(20)})
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message="no comparison can be significant")
        res = compare(table, baseline="A", n_resamples=99, seed=0, correction="bh")
    assert (res["pvalue_bh"] < 0.05).all() and set(res["verdict"]) == {"better"}
    assert np.isfinite(res["mde"].to_numpy()).all()
    se = res["sd"].to_numpy() / math.sqrt(30)
    want = [mde_at_level(s, 29, 0.05 * 20 / 20, power=0.8) for s in se]   # R = m = 20
    np.testing.assert_allclose(res["mde"].to_numpy(), want, rtol=1e-12)
    assert not res["verdict_note"].fill_null("").str.contains("cannot go below").any()
    # Holm's first step does need alpha / m: there the floor 0.01 > 0.05 / 20 is unreachable
    with pytest.warns(UserWarning, match="no comparison can be significant"):
        holm = compare(table, baseline="A", n_resamples=99, seed=0)
    assert np.isinf(holm["mde"].to_numpy()).all()


def test_zero_spread_mde_is_unknown_not_zero():
    res = compare(frame_of(np.full(30, 0.5), {"B": np.full(30, 0.5)}), baseline="A").row(0, named=True)
    assert res["verdict"] == "identical" and math.isnan(res["mde"])


def test_default_interval_bounded_with_mostly_tied_deltas():
    """18 of 20 deltas tie: many resamples are constant and Hall's bootstrap-t quantile is infinite; the
    default studentizes each resample by at least half the sample's SE and caps its quantile at 1.5 x
    scipy's t quantile: finite and at most 1.5 x the t interval."""
    stats = pytest.importorskip("scipy.stats")
    d = np.zeros(20)
    d[:2] = [0.5, 0.3]
    r = compare(frame_of(np.full(20, 0.4), {"B": np.full(20, 0.4) + d}), baseline="A").row(0, named=True)
    half = stats.t.ppf(0.975, 19) * d.std(ddof=1) / math.sqrt(20)
    assert np.isfinite(r["ci_low"]) and np.isfinite(r["ci_high"])
    assert r["ci_high"] - r["ci_low"] <= 2 * 1.5 * half * (1 + 1e-12)
    assert (r["ci_low"] + r["ci_high"]) / 2 == pytest.approx(d.mean(), abs=1e-15)


def test_default_interval_bounded_with_two_of_43_queries_differing():
    """Two of 43 queries differ (the case that gave an unbounded interval): finite, inside [-1, 1], at most
    1.5 x the t interval; the sign-flip inversion stays finite too."""
    a = np.zeros(43)
    b = a.copy()
    b[:2] = [1.0, 0.5]
    frame = frame_of(a, {"B": b}).with_columns(pl.lit("nDCG@10").alias("measure"))
    row = compare(frame, baseline="A", n_resamples=999).row(0, named=True)
    t = compare(frame, baseline="A", test="t").row(0, named=True)
    assert row["interval"] == "studentized"
    assert -1 <= row["ci_low"] < row["ci_high"] <= 1
    assert row["ci_high"] - row["ci_low"] <= 1.5 * (t["ci_high"] - t["ci_low"]) * (1 + 1e-12)
    assert row["verdict"] in ("inconclusive", "not significant")
    finite = compare(frame_of(a, {"B": b}), baseline="A", n_resamples=999, interval="signflip").row(0, named=True)
    assert np.isfinite(finite["ci_low"]) and np.isfinite(finite["ci_high"])


def test_verdict_note_quotes_the_verdict_in_the_measures_direction_for_lower_is_better_measures():
    """FirstRelRank (lower is better): the note that explains an interval/test disagreement quotes the
    oriented verdict of its own row, never the raw delta's sign (a newcomer saw 'better' beside a note
    saying the verdict is 'worse')."""
    rng = np.random.default_rng(0)
    for trial in range(400):
        a = rng.integers(1, 30, size=20).astype(float)
        b = np.maximum(1.0, a - rng.exponential(3.0, 20) + 2.0)
        per_query = frame_of(a, {"B": b}).with_columns(pl.lit("FirstRelRank").alias("measure"))
        row = compare(per_query, baseline="A", n_resamples=999, seed=trial).row(0, named=True)
        note = row["verdict_note"] or ""
        if "but the verdict is" in note:
            assert f"but the verdict is '{row['verdict']}'" in note
            assert row["verdict"] == ("better" if row["delta"] < 0 else "worse")
            return
    pytest.fail("no interval/test disagreement in 400 trials: the check never ran")


def test_compare_pair_verdict_is_oriented_by_the_measure_against_compare():
    a = np.arange(1.0, 21.0)
    b = a + 3.0 + np.linspace(0.0, 1.0, 20)          # every rank worse by 3-4 places
    pair = compare_pair(a, b, measure="FirstRelRank", seed=0)
    row = compare(frame_of(a, {"B": b}).with_columns(pl.lit("FirstRelRank").alias("measure")),
                  baseline="A", seed=0, correction="none").row(0, named=True)
    assert pair.verdict == row["verdict"] == "worse"
    assert compare_pair(a, b, seed=0).verdict == "better"      # no measure: higher is better


def test_bh_mde_of_a_row_not_rejected_is_at_the_level_that_would_reject_it_against_statsmodels():
    """BH with R rows rejected: a row that is not needs p <= alpha (R + 1) / m to join them (its own
    rejection makes R + 1), so its MDE is taken there, not at the R rejected rows' alpha R / m;
    statsmodels' BH confirms that this level rejects it."""
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(1)
    base = rng.uniform(0.2, 0.8, 40)
    shifts = {"S0": 0.3, "S1": 0.25, "S2": 0.0, "S3": 0.01}
    table = frame_of(base, {k: base + v + rng.normal(0, 0.1, 40) for k, v in shifts.items()})
    res = compare(table, baseline="A", test="t", correction="bh").sort("system")
    significant = (res["pvalue_bh"] < 0.05).to_numpy()
    assert significant.tolist() == [True, True, False, False]
    R, m = 2, 4
    se = res["sd"].to_numpy() / math.sqrt(40)
    want = [mde_at_level(s, 39, 0.05 * (R if sig else R + 1) / m, power=0.8) for s, sig in zip(se, significant)]
    np.testing.assert_allclose(res["mde"].to_numpy(), want, rtol=1e-12)
    p = res["pvalue"].to_numpy().copy()
    p[2] = 0.05 * (R + 1) / m * (1 - 1e-9)          # just inside the level the MDE is taken at
    assert multitest.multipletests(p, alpha=0.05, method="fdr_bh")[0][2]


def test_verdict_note_p_is_told_apart_from_the_level_it_is_beside():
    """Tester C round 7: a note printed 'p = 0.05' for p = 0.0500036 at alpha = 0.05."""
    from pairedframe.comparison.verdicts import _p_beside
    assert _p_beside(0.0500036, 0.05) == "0.050004"
    assert _p_beside(0.04999999, 0.05) == "0.04999999"
    assert _p_beside(0.05, 0.05) == "0.05"
    assert _p_beside(0.0123, 0.05) == "0.0123"


def test_unreachable_warning_names_the_comparisons_and_the_unit_resampled():
    """The warning said "no comparison can be significant" naming none, and compare_clustered said clusters
    of clusters holding one query each (a plan's resampling_unit = "query"): it names the rows it concerns,
    and the queries when each cluster is one query."""
    from pairedframe.comparison.clustered import compare_clustered

    rng = np.random.default_rng(1)
    a = rng.uniform(size=8)
    bs = {f"S{i}": a + 0.3 + rng.normal(0, 0.01, 8) for i in range(10)}
    with pytest.warns(UserWarning, match=r"no comparison can be significant: 8 queries.*\(all 10 comparisons: "
                                         r"system=S0, measure=\w+; system=S1, measure=\w+; system=S2, measure=\w+; "
                                         r"\.\.\.\)$"):
        compare(frame_of(a, bs), baseline="A")
    qids = [f"q{i}" for i in range(8)]
    df = pl.DataFrame({"system": ["A"] * 8 + ["B"] * 8, "qid": qids * 2, "measure": "m",
                       "value": [0.1 * i for i in range(8)] + [0.1 * i + 0.05 + 0.01 * (i % 3) for i in range(8)]})
    four = df.filter(pl.col("qid").is_in(qids[:4]))      # four clusters of one query each: four queries
    for data, clusters, unit in ((df, {q: f"c{int(q[1:]) // 2}" for q in qids}, "clusters"),
                                 (four, {q: q for q in qids[:4]}, "queries")):
        with pytest.warns(UserWarning, match=rf"can be significant: 4 {unit}: .*use more {unit}"
                                             r" \(the one comparison: system=B, measure=m\)$"):
            compare_clustered(data, baseline="A", clusters=clusters)
