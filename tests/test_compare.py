"""compare(): frame-level oracles (scipy, statsmodels), loop reference, invariances, errors."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings, strategies as st

from pairedframe.comparison import compare, compare_pair, paired_per_query, resample_generators, worst_queries
from pairedframe.errors import DuplicateError, InsufficientSampleError, SchemaError, SmallSampleWarning
from pairedframe.stats.randomization import sign_flip_test
from tests.reference.compare_reference import compare_loop, mde_loop

pytestmark = pytest.mark.filterwarnings("ignore::pairedframe.errors.SmallSampleWarning")


def make_frame(n=40, systems=("A", "B", "C", "D"), measures=("m1", "m2"), seed=1, shift=0.05):
    rng = np.random.default_rng(seed)
    rows = []
    base = {m: rng.uniform(0, 1, n) for m in measures}
    for i, s in enumerate(systems):
        for m in measures:
            vals = np.clip(base[m] + i * shift + rng.normal(0, 0.15, n), 0, 1)
            rows += [{"system": s, "qid": f"q{j:03d}", "measure": m, "value": float(v)} for j, v in enumerate(vals)]
    return pl.DataFrame(rows)


def deltas(frame, sys, base, measure):
    p = paired_per_query(frame, baseline=base, systems=[sys], measures=[measure])
    return p["qid"].to_list(), p["delta"].to_numpy()


# ---------------------------------------------------------------- oracles

@pytest.mark.parametrize("seed", [0, 7])
def test_ci_and_se_equal_scipy_bootstrap_on_same_stream(seed):
    stats = pytest.importorskip("scipy.stats")
    frame = make_frame()
    res = compare(frame, baseline="A", n_resamples=2000, seed=seed, interval="percentile")
    for row in res.iter_rows(named=True):
        qids, d = deltas(frame, row["system"], "A", row["measure"])
        boot_rng, _ = resample_generators(seed, qids)
        want = stats.bootstrap((d,), np.mean, n_resamples=2000, method="percentile", rng=boot_rng)
        assert row["ci_low"] == pytest.approx(want.confidence_interval.low, rel=1e-12, abs=1e-14)
        assert row["ci_high"] == pytest.approx(want.confidence_interval.high, rel=1e-12, abs=1e-14)
        assert row["se"] == pytest.approx(want.standard_error, rel=1e-10)
        assert row["delta"] == pytest.approx(np.mean(d), abs=1e-15)


def test_pvalue_equals_stats_layer():
    frame = make_frame()
    res = compare(frame, baseline="A", n_resamples=3000, seed=3)
    for row in res.iter_rows(named=True):
        qids, d = deltas(frame, row["system"], "A", row["measure"])
        _, flip_rng = resample_generators(3, qids)
        assert row["pvalue"] == sign_flip_test(d, n_resamples=3000, seed=flip_rng).pvalue


def test_t_test_equals_scipy_and_statsmodels():
    stats = pytest.importorskip("scipy.stats")
    frame = make_frame()
    res = compare(frame, baseline="A", test="t")
    assert res["interval"].unique().to_list() == ["t"] and res["n_resamples"].is_null().all()
    for row in res.iter_rows(named=True):
        _, d = deltas(frame, row["system"], "A", row["measure"])
        want = stats.ttest_1samp(d, 0.0)
        assert row["pvalue"] == pytest.approx(want.pvalue, rel=1e-9)
        ci = want.confidence_interval(0.95)
        assert row["ci_low"] == pytest.approx(ci.low, rel=1e-9)
        assert row["ci_high"] == pytest.approx(ci.high, rel=1e-9)


def test_exact_pvalue_against_scipy_permutation_null():
    stats = pytest.importorskip("scipy.stats")
    frame = make_frame(n=10)
    res = compare(frame, baseline="A", n_resamples=5000)
    assert res["exact"].all()
    for row in res.iter_rows(named=True):
        _, d = deltas(frame, row["system"], "A", row["measure"])
        perm = stats.permutation_test((d,), lambda x, axis=-1: np.mean(x, axis=axis), vectorized=True,
                                      permutation_type="samples", n_resamples=np.inf)
        obs = np.mean(d)
        gamma = 100 * np.finfo(float).eps * max(abs(obs), np.mean(np.abs(d)))
        want = np.mean(np.abs(perm.null_distribution) >= abs(obs) - gamma)
        assert row["pvalue"] == pytest.approx(want, abs=1e-15)


def test_holm_bh_equal_statsmodels_over_family():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    frame = make_frame(shift=0.02)
    res = compare(frame, baseline="A", n_resamples=999)
    p = res["pvalue"].to_numpy()
    np.testing.assert_allclose(res["pvalue_holm"].to_numpy(), multitest.multipletests(p, method="holm")[1], rtol=1e-12)
    np.testing.assert_allclose(res["pvalue_bh"].to_numpy(), multitest.multipletests(p, method="fdr_bh")[1], rtol=1e-12)
    by = compare(frame, baseline="A", n_resamples=999, family_by="measure")
    for m in ("m1", "m2"):
        sub = by.filter(pl.col("measure") == m)
        np.testing.assert_allclose(sub["pvalue_holm"].to_numpy(),
                                   multitest.multipletests(sub["pvalue"].to_numpy(), method="holm")[1], rtol=1e-12)
    assert not np.array_equal(by["pvalue_holm"].to_numpy(), res["pvalue_holm"].to_numpy())


def test_mde_against_statsmodels_power():
    power = pytest.importorskip("statsmodels.stats.power")
    frame = make_frame()
    for correction in ("holm", "none"):
        res = compare(frame, baseline="A", test="t", correction=correction)
        # the level a lone effect needs: alpha / m at Holm's first step, alpha for raw p-values
        level = 0.05 / res.height if correction == "holm" else 0.05
        for row in res.iter_rows(named=True):
            es = row["mde"] / row["sd"]
            assert power.TTestPower().power(es, row["n_queries"], level) == pytest.approx(0.8, abs=1e-9)
            assert row["mde"] == pytest.approx(mde_loop(row["sd"], row["n_queries"], level), rel=1e-9)


# ---------------------------------------------------------------- loop reference & properties

@pytest.mark.parametrize("interval", [None, "signflip"])
def test_frame_equals_loop_reference(interval):
    frame = make_frame(n=25, systems=("A", "B", "C"), measures=("m1", "m2"))
    frame = frame.filter(~((pl.col("system") == "C") & (pl.col("qid") == "q003")))  # a second query set
    res = compare(frame, baseline="A", n_resamples=500, seed=11, interval=interval)
    ref = compare_loop(frame.to_dicts(), baseline="A", n_resamples=500, seed=11, interval=interval or "studentized")
    assert res.height == len(ref)
    for got, want in zip(res.iter_rows(named=True), ref):
        for key in ("system", "measure", "n_queries", "wins", "losses", "ties"):
            assert got[key] == want[key]
        for key in ("delta", "ci_low", "ci_high", "se", "pvalue", "pvalue_holm", "pvalue_bh"):
            assert got[key] == pytest.approx(want[key], rel=1e-12, abs=1e-15), key


values = st.one_of(st.floats(0, 1, allow_nan=False, allow_subnormal=False),
                   st.integers(0, 10).map(lambda k: k / 10))


@st.composite
def small_tables(draw):
    n = draw(st.integers(2, 14))
    n_sys = draw(st.integers(2, 4))
    measure = draw(st.sampled_from(["m", "nDCG@10"]))   # no known range / [0, 1]: intervals clipped to [-1, 1]
    rows = []
    for s in range(n_sys):
        for j in range(n):
            if s > 0 and j > 1 and draw(st.booleans()) and draw(st.booleans()):
                continue   # some systems miss some queries: several query sets
            rows.append({"system": f"S{s}", "qid": f"q{j}", "measure": measure, "value": draw(values)})
    return pl.DataFrame(rows)


#: Hypothesis's find: 2 non-zero deltas of 5 with B = 20, where the exact p over the non-zero deltas (0.5) is
#: compare's and the loop reference still drew 20 patterns (0.667).
_FEW_NONZERO = pl.DataFrame({"system": ["S0"] * 5 + ["S1"] * 5, "qid": [f"q{i}" for i in range(5)] * 2,
                             "measure": "AP", "value": [0.0] * 5 + [0.0, 0.0, 0.0, 1.0, 1.0]})


@settings(max_examples=40, deadline=None)
@given(frame=small_tables(), seed=st.integers(0, 2**32), B=st.sampled_from([20, 99, 257]))
@example(frame=_FEW_NONZERO, seed=0, B=20)
def test_property_loop_reference(frame, seed, B):
    res = compare(frame, baseline="S0", n_resamples=B, seed=seed)
    ref = compare_loop(frame.to_dicts(), baseline="S0", n_resamples=B, seed=seed)
    for got, want in zip(res.iter_rows(named=True), ref):
        for key in ("delta", "ci_low", "ci_high", "pvalue", "pvalue_holm", "pvalue_bh"):
            assert got[key] == pytest.approx(want[key], rel=1e-12, abs=1e-14), key
        assert got["ties"] == want["ties"]
        lo = 1 / 2 ** got["n_queries"] if got["exact"] else 1 / (B + 1)
        assert lo - 1e-15 <= got["pvalue"] <= 1.0


@settings(max_examples=30, deadline=None)
@given(frame=small_tables(), seed=st.integers(0, 2**32))
def test_property_swap_negates_delta_and_ci_keeps_p(frame, seed):
    ab = compare(frame, baseline="S0", systems=["S1"], n_resamples=199, seed=seed)
    flipped = frame.with_columns(pl.col("system").replace({"S0": "S1", "S1": "S0"}))
    ba = compare(flipped, baseline="S0", systems=["S1"], n_resamples=199, seed=seed)
    r, s = ab.row(0, named=True), ba.row(0, named=True)
    assert s["delta"] == pytest.approx(-r["delta"], abs=1e-15)
    assert s["ci_low"] == pytest.approx(-r["ci_high"], abs=1e-14)
    assert s["ci_high"] == pytest.approx(-r["ci_low"], abs=1e-14)
    assert s["pvalue"] == r["pvalue"]
    assert (s["wins"], s["losses"], s["ties"]) == (r["losses"], r["wins"], r["ties"])


@settings(max_examples=30, deadline=None)
@given(frame=small_tables(), seed=st.integers(0, 2**32), chunk=st.integers(1, 50))
def test_property_independent_of_chunk_size_and_other_systems(frame, seed, chunk):
    full = compare(frame, baseline="S0", n_resamples=150, seed=seed)
    chunked = compare(frame, baseline="S0", n_resamples=150, seed=seed, chunk_size=chunk)
    cols = ["delta", "ci_low", "ci_high", "se", "pvalue"]
    assert chunked.select(cols).equals(full.select(cols))
    alone = compare(frame, baseline="S0", systems=["S1"], n_resamples=150, seed=seed)
    row = full.filter(pl.col("system") == "S1")
    for c in cols:
        assert alone[c][0] == pytest.approx(row[c][0], rel=1e-12, abs=1e-15), c
    assert alone["pvalue"][0] == row["pvalue"][0]


def test_alone_equals_row_in_bigger_call_and_compare_pair():
    frame = make_frame(n=60)
    alone = compare(frame, baseline="A", systems="B", measures="m1")
    big = compare(frame, baseline="A").filter((pl.col("system") == "B") & (pl.col("measure") == "m1"))
    for c in ("delta", "ci_low", "ci_high", "se", "pvalue", "sd"):
        assert alone[c][0] == pytest.approx(big[c][0], rel=1e-13, abs=1e-16)
    # the MDE is at the level the verdict needs: alpha alone, alpha / 6 under Holm over six rows
    assert alone["mde"][0] < big["mde"][0]
    qids, d = deltas(frame, "B", "A", "m1")
    a = frame.filter((pl.col("system") == "A") & (pl.col("measure") == "m1")).sort("qid")["value"].to_numpy()
    pair = compare_pair(a, a + d, qids=qids)
    assert pair.statistic == pytest.approx(alone["delta"][0], abs=1e-15)
    assert pair.confidence_interval.low == alone["ci_low"][0]
    assert pair.confidence_interval.high == alone["ci_high"][0]
    assert pair.standard_error == alone["se"][0]
    assert pair.pvalue == alone["pvalue"][0]


# ---------------------------------------------------------------- semantics and errors

def test_extra_key_columns_define_groups_and_are_carried():
    f1 = make_frame(seed=1).with_columns(pl.lit("d1").alias("dataset"))
    f2 = make_frame(seed=2).with_columns(pl.lit("d2").alias("dataset"))
    res = compare(pl.concat([f1, f2]), baseline="A", n_resamples=500)
    assert res.columns[:3] == ["system", "dataset", "measure"]
    assert res.height == 3 * 2 * 2
    one = compare(f2, baseline="A", n_resamples=500).filter(pl.col("system") == "C")
    got = res.filter((pl.col("system") == "C") & (pl.col("dataset") == "d2"))
    assert got["ci_low"].to_list() == pytest.approx(one["ci_low"].to_list(), rel=1e-12)


def test_only_common_queries_are_paired():
    frame = make_frame(n=30).filter(~((pl.col("system") == "B") & pl.col("qid").is_in(["q000", "q001"])))
    res = compare(frame, baseline="A", systems="B", n_resamples=200)
    assert res["n_queries"].to_list() == [28, 28]
    assert (res["wins"] + res["losses"] + res["ties"]).to_list() == [28, 28]


def test_no_common_query_raises():
    a = pl.DataFrame({"system": ["A"] * 3, "qid": ["1", "2", "3"], "measure": "m", "value": [0.1, 0.2, 0.3]})
    b = pl.DataFrame({"system": ["B"] * 3, "qid": ["4", "5", "6"], "measure": "m", "value": [0.1, 0.2, 0.3]})
    with pytest.raises(InsufficientSampleError, match="no common query"):
        compare(pl.concat([a, b]), baseline="A")
    with pytest.raises(InsufficientSampleError):
        compare_pair([0.1], [0.2])


def test_small_sample_warning_points_to_mde():
    frame = make_frame(n=8)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        compare(frame, baseline="A", n_resamples=100)
    msgs = [str(x.message) for x in w if issubclass(x.category, SmallSampleWarning)]
    assert len(msgs) == 1 and "required_queries" in msgs[0] and "mde" in msgs[0]


def test_small_sample_warnings_say_the_minimum_in_words_not_the_constant_name():
    """They read 'fewer than MIN_QUERIES = 20', a name the user never sees."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        compare(make_frame(n=8), baseline="A", n_resamples=100)
        compare_pair(np.linspace(0, 1, 8), np.linspace(0.1, 1, 8))
    msgs = [str(x.message) for x in w if issubclass(x.category, SmallSampleWarning)]
    assert len(msgs) == 2 and "MIN_QUERIES" not in "".join(msgs), msgs
    assert re.match(r"\d+ comparison\(s\) have fewer than 20 common queries, the fewest for trusted paired "
                    r"statistics \(smallest: n = 8", msgs[0])
    assert msgs[1].startswith("only 8 paired queries, fewer than 20, the fewest for trusted paired statistics; ")


def test_identical_and_constant_deltas():
    """Equal deltas: the exact sign-flip p and verdict; the default interval is no point but the range's
    bound (Clopper-Pearson for n equal outcomes), and so is the t interval (no zero-width certainty)."""
    a = np.linspace(0, 0.75, 30)
    same = compare_pair(a, a, measure="nDCG@10")
    share = 1 - 0.025 ** (1 / 30)
    assert same.verdict == "identical" and same.pvalue == 1.0
    assert (same.confidence_interval.low, same.confidence_interval.high) == pytest.approx((-share, share), rel=1e-12)
    assert "no spread" in same.verdict_note
    shifted = compare_pair(a, a + 0.25, measure="nDCG@10")
    assert shifted.verdict == "better" and shifted.pvalue == pytest.approx(1 / 10_001)
    assert shifted.confidence_interval.low == pytest.approx(0.25 - share * 1.25, rel=1e-12)
    assert shifted.confidence_interval.high == pytest.approx(0.25 + share * 0.75, rel=1e-12)
    t = compare_pair(a, a + 0.25, test="t", measure="nDCG@10")
    assert (t.confidence_interval.low, t.confidence_interval.high) == (shifted.confidence_interval.low,
                                                                       shifted.confidence_interval.high)
    unknown = compare_pair(a, a + 0.25)          # no measure named: no range, nothing bounds the mean
    assert (unknown.confidence_interval.low, unknown.confidence_interval.high) == (-math.inf, math.inf)
    assert "no range is known" in unknown.verdict_note


def test_zero_spread_note_says_the_values_lie_outside_a_known_range():
    """nDCG@10 x 100: the range [0, 1] is known, the values lie outside it (the warning says so), so the note
    says that -- it said "no range is known for this measure"."""
    with pytest.warns(UserWarning, match="outside that measure's range"):
        r = compare_pair(np.full(6, 50.0), np.full(6, 60.0), measure="nDCG@10")
    assert "no range is known" not in r.verdict_note
    assert "the values lie outside the range of nDCG@10, [0, 1]" in r.verdict_note
    assert (r.confidence_interval.low, r.confidence_interval.high) == (-math.inf, math.inf)


def test_verdicts():
    rng = np.random.default_rng(5)
    a = rng.uniform(size=50)
    noisy = compare_pair(a, a + rng.normal(0.0, 0.3, 50), seed=1)
    assert noisy.verdict == "inconclusive" and noisy.mde > abs(noisy.statistic)
    worse = compare_pair(a, a - 0.2 + rng.normal(0, 0.05, 50))
    assert worse.verdict == "worse" and worse.confidence_interval.high < 0


def test_holm_verdict_default_and_raw_option():
    frame = make_frame(shift=0.015, seed=3)
    raw = compare(frame, baseline="A", n_resamples=2000, correction="none")
    adj = compare(frame, baseline="A", n_resamples=2000)
    sig_raw = (raw["pvalue"] < 0.05).sum()
    sig_adj = (adj["pvalue_holm"] < 0.05).sum()
    assert sig_adj <= sig_raw
    assert adj.filter(pl.col("verdict").is_in(["better", "worse"])).height == sig_adj


def test_worst_queries_and_per_query_view():
    frame = make_frame()
    pq = paired_per_query(frame, baseline="A", systems="B")
    assert pq.columns == ["system", "measure", "qid", "a", "b", "delta"]
    np.testing.assert_array_equal(pq["delta"].to_numpy(), (pq["b"] - pq["a"]).to_numpy())
    worst = worst_queries(frame, baseline="A", systems="B", k=3)
    for m in ("m1", "m2"):
        got = worst.filter(pl.col("measure") == m)
        want = pq.filter((pl.col("measure") == m) & (pl.col("delta") < 0)).sort("delta").head(3)
        assert got["qid"].to_list() == want["qid"].to_list()
        assert got["rank"].to_list() == [1, 2, 3]


def test_input_errors():
    frame = make_frame(n=5)
    with pytest.raises(ValueError, match="baseline"):
        compare(frame, baseline="Z")
    with pytest.raises(ValueError, match="measure"):
        compare(frame, baseline="A", measures=["nope"])
    with pytest.raises(SchemaError):
        compare(frame.drop("value"), baseline="A")
    with pytest.raises(DuplicateError):
        compare(pl.concat([frame, frame.head(1)]), baseline="A")
    with pytest.raises(ValueError, match="test"):
        compare(frame, baseline="A", test="wilcoxon")
    with pytest.raises(ValueError, match="family_by"):
        compare(frame, baseline="A", family_by="nope")


def test_accepts_evaluation_and_pandas():
    pytest.importorskip("pandas")
    import pairedframe as pf
    from pairedframe.example import example_paths

    q, runs = example_paths()
    ev = pf.evaluate([str(r) for r in runs], str(q), ["nDCG@10", "AP"])
    r1 = compare(ev, baseline="bm25", n_resamples=500)
    r2 = compare(ev.per_query.to_pandas(), baseline="bm25", n_resamples=500)
    assert r1.equals(r2)
    summary = ev.summary()
    for row in r1.iter_rows(named=True):
        want = summary.filter((pl.col("system") == "reranker") & (pl.col("measure") == row["measure"]))["value"][0]
        assert row["system_mean"] == pytest.approx(want, abs=1e-15)


def test_single_comparison_bit_identical_to_scipy_bootstrap():
    stats = pytest.importorskip("scipy.stats")
    frame = make_frame(n=60)
    row = compare(frame, baseline="A", systems="C", measures="m2", n_resamples=3000, seed=4,
                  interval="percentile").row(0, named=True)
    qids, d = deltas(frame, "C", "A", "m2")
    want = stats.bootstrap((d,), np.mean, n_resamples=3000, method="percentile",
                           rng=resample_generators(4, qids)[0])
    assert (row["ci_low"], row["ci_high"]) == (want.confidence_interval.low, want.confidence_interval.high)
    assert row["se"] == want.standard_error


def test_queries_with_a_value_on_one_side_only_are_left_out_with_a_warning():
    """A null value (undefined measure, e.g. FirstRelRank with nothing relevant retrieved) or a missing
    row on one side drops the query from that comparison: compare says how many, for which row."""
    from pairedframe.errors import PartlyEmptyWarning

    frame = make_frame(n=30, systems=("A", "B", "C"), measures=("m1",))
    undefined = (pl.col("system") == "B") & pl.col("qid").is_in(["q000", "q001", "q002"])
    nulls = frame.with_columns(pl.when(undefined).then(None).otherwise(pl.col("value")).alias("value"))
    with pytest.warns(PartlyEmptyWarning, match=r"1 comparison\(s\) leave out .*27 of 30 queries paired "
                                                 r"\(system=B, measure=m1, baseline=A\)"):
        res = compare(nulls, baseline="A", n_resamples=199)
    assert res["n_queries"].to_list() == [27, 30]
    assert res.row(0, named=True)["delta"] == pytest.approx(compare(frame.filter(~undefined), baseline="A",
                                                                    n_resamples=199)["delta"][0], rel=1e-15)
    missing_baseline = frame.filter(~((pl.col("system") == "A") & (pl.col("qid") == "q005")))
    with pytest.warns(PartlyEmptyWarning, match=r"2 comparison\(s\) .* 29 of 30"):
        compare(missing_baseline, baseline="A", n_resamples=199)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PartlyEmptyWarning)
        compare(frame, baseline="A", n_resamples=199)          # every query paired: silent


def test_family_by_baseline_with_one_baseline_is_one_family():
    frame = make_frame()
    by = compare(frame, baseline="A", family_by="baseline", n_resamples=199)
    assert by["pvalue_holm"].to_list() == compare(frame, baseline="A", n_resamples=199)["pvalue_holm"].to_list()
    with pytest.raises(ValueError, match=r"`family_by` column\(s\) \['nope'\] not among"):
        compare(frame, baseline="A", family_by="nope", n_resamples=199)


def test_the_left_out_warning_names_null_values_only_where_values_are_null():
    """Queries with no row on one side are said to have no row; queries with a null (FirstRelRank where
    nothing relevant is retrieved) are said to be undefined there; a table with both says both."""
    from pairedframe.errors import PartlyEmptyWarning

    values = [("full", f"q{i:02d}", "FirstRelRank", 1.0 + i % 3) for i in range(30)]
    cut = [("cut", f"q{i:02d}", "FirstRelRank", None if i < 4 else 2.0) for i in range(30)]
    frame = pl.DataFrame(values + cut, schema=["system", "qid", "measure", "value"], orient="row")

    def left_out_message(table: pl.DataFrame) -> str:
        with pytest.warns(PartlyEmptyWarning) as caught:
            compare(table, baseline="full", n_resamples=199)
        (message,) = [str(w.message) for w in caught if "leave out queries" in str(w.message)]
        return message

    nulls = left_out_message(frame)
    assert "26 of 30 queries paired" in nulls and "4 have a null value on one side" in nulls
    assert "no row" not in nulls
    absent = left_out_message(frame.drop_nulls())
    assert "26 of 30 queries paired" in absent and "4 have no row on one side" in absent
    assert "null" not in absent and "undefined" not in absent
    both = left_out_message(frame.filter(~((pl.col("system") == "cut") & pl.col("qid").is_in(["q00", "q04"]))))
    assert "25 of 30 queries paired" in both and "2 have no row on one side" in both
    assert "3 have a null value on one side" in both


@pytest.mark.parametrize("n", [5, 6, 30])
@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_mde_of_identical_systems_is_nan_at_every_n_and_alternative(n, alternative):
    """The outside statistician: all deltas 0 gave mde inf at n = 5 two-sided (the floor of 5 queries) and NaN
    otherwise; the guide says NaN at zero spread, and no number of queries changes "identical"."""
    q = [f"q{i}" for i in range(n)]
    table = pl.DataFrame({"system": ["A"] * n + ["B"] * n, "qid": q * 2, "measure": "nDCG@10", "value": [0.3] * (2 * n)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = compare(table, baseline="A", alternative=alternative).row(0, named=True)
    assert math.isnan(row["mde"]) and row["verdict"] == "identical"
