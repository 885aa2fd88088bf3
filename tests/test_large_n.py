"""compare above LARGE_N non-zero deltas: one pass over the moments (issue 22), against scipy and resampling."""

from __future__ import annotations

import math
import warnings

import duckdb
import numpy as np
import polars as pl
import pytest
from scipy import stats

import pairedframe as pf
from pairedframe.comparison.large_n import LARGE_N, LARGE_N_EFF, METHODS, moments_table
from pairedframe.stats.moments import (moments_of, one_pass_statistics, sign_flip_normal_interval,
                                       sign_flip_normal_pvalue)
from pairedframe.stats.randomization import sign_flip_test_many


def _table(d_by_system: dict[str, np.ndarray], a: np.ndarray) -> pl.DataFrame:
    n = a.shape[0]
    qids = [f"q{i:06d}" for i in range(n)]
    parts = [pl.DataFrame({"system": "base", "qid": qids, "measure": "nDCG@10", "value": a})]
    parts += [pl.DataFrame({"system": s, "qid": qids, "measure": "nDCG@10", "value": a + d})
              for s, d in d_by_system.items()]
    return pl.concat(parts)


def _deltas(n: int, seed: int, shift: float = 0.004) -> tuple[np.ndarray, np.ndarray]:
    """Baseline values on a 1/1024 grid and deltas on it with no zero (so every delta counts)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(256, 768, n) / 1024
    d = rng.integers(1, 200, n) / 1024 * rng.choice([-1.0, 1.0], n) + shift
    d = np.round(d * 1024) / 1024
    d[d == 0] = 1 / 1024
    return a, d


def _compare(table, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pf.compare(table, baseline="base", **kw)


def test_one_pass_t_values_against_scipy_ttest_1samp():
    a, d = _deltas(LARGE_N + 2_000, 1)
    out = _compare(_table({"x": d}, a), test="t")
    ref = stats.ttest_1samp(d, 0.0)
    ci = ref.confidence_interval(0.95)
    row = out.row(0, named=True)
    assert row["method"] == "analytic"
    assert row["pvalue"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-9)
    assert row["sd"] == pytest.approx(np.std(d, ddof=1), rel=1e-12)
    assert row["skewness"] == pytest.approx(stats.skew(d, bias=False), rel=1e-9)


def test_one_pass_default_interval_is_the_t_interval_against_scipy():
    a, d = _deltas(LARGE_N + 1, 2)
    row = _compare(_table({"x": d}, a), n_resamples=200).row(0, named=True)
    ci = stats.ttest_1samp(d, 0.0).confidence_interval(0.95)
    assert row["method"] == "one-pass" and row["n_resamples"] is None and row["exact"] is False
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-9)
    z = d.sum() / math.sqrt(np.sum(d * d))
    assert row["pvalue"] == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_sign_flip_normal_pvalue_against_large_b_sign_flip_test(alternative):
    rng = np.random.default_rng(7)
    n, B = 2_000, 100_000
    # skewed, tied, real-looking deltas: a mixture with many small and a few large values
    D = np.column_stack([np.round(rng.gamma(0.6, 0.08, n) * rng.choice([-1, 1], n, p=[0.46, 0.54]), 3)
                         for _ in range(3)])
    D[:, 1] -= D[:, 1].mean() * 0.5
    mc = np.asarray(sign_flip_test_many(D, n_resamples=B, alternative=alternative, seed=3).pvalue)
    m = moments_of(D)
    approx = sign_flip_normal_pvalue(m["mean"], m["mean_square"], m["n"], alternative)
    se = np.sqrt(np.maximum(mc * (1 - mc), 1e-6) / B)
    assert np.all(np.abs(approx - mc) <= 4 * se + 0.003), (approx, mc)


def test_sign_flip_normal_interval_inverts_the_normal_pvalue():
    rng = np.random.default_rng(4)
    d = rng.normal(0.01, 0.2, 20_000)
    m = moments_of(d)
    for alternative in ("two-sided", "greater", "less"):
        low, high = sign_flip_normal_interval(m["mean"], m["sd"], m["n"], 0.95, alternative)
        for end in (low[0], high[0]):
            if math.isfinite(end):     # at an end the shifted deltas are rejected at exactly alpha
                shifted = d - end
                p = sign_flip_normal_pvalue([shifted.mean()], [np.mean(shifted * shifted)], d.size, alternative)[0]
                assert p == pytest.approx(0.05, abs=1e-9)


def test_one_pass_statistics_zero_spread_keeps_the_exact_sign_flip_answer():
    res = one_pass_statistics([20.0], [0.25], [0.0], [0.0625], [True], test="randomization", interval="studentized",
                              alternative="two-sided", confidence_level=0.95)
    assert res["pvalue"][0] == pytest.approx(2.0 / 2**20)
    assert (res["ci_low"][0], res["ci_high"][0]) == (0.25, 0.25)


def test_switch_boundary_counts_non_zero_deltas():
    a, d = _deltas(LARGE_N + 1, 5)
    at = _compare(_table({"x": d[:-1]}, a[:-1]), n_resamples=200)
    above = _compare(_table({"x": d}, a), n_resamples=200)
    assert at["method"].to_list() == ["resampling"] and at["n_resamples"].to_list() == [200]
    assert above["method"].to_list() == ["one-pass"] and above["n_resamples"].to_list() == [None]
    assert at.columns == above.columns
    tied = d.copy()
    tied[:3] = 0.0          # LARGE_N + 1 queries, LARGE_N - 2 of them differ: still resampled
    assert _compare(_table({"x": tied}, a), n_resamples=200)["method"].to_list() == ["resampling"]


def test_resampling_fixed_forces_resampling_at_large_n():
    a, d = _deltas(LARGE_N + 50, 6)
    table = _table({"x": d}, a)
    forced = _compare(table, n_resamples=300, resampling="fixed").row(0, named=True)
    one = _compare(table, n_resamples=300).row(0, named=True)
    assert forced["method"] == "resampling" and forced["n_resamples"] == 300
    assert one["method"] == "one-pass"
    # the bootstrap interval and the one-pass t interval agree to Monte-Carlo error (B = 300)
    assert abs(forced["ci_low"] - one["ci_low"]) < 0.1 * (one["ci_high"] - one["ci_low"])


@pytest.mark.parametrize("value", ["sometimes", "Auto", None, 1])
def test_unknown_resampling_value_is_an_error_naming_the_argument(value):
    a, d = _deltas(50, 8)
    with pytest.raises(ValueError, match="`resampling` must be one of"):
        _compare(_table({"x": d}, a), resampling=value)


def test_method_column_names_every_method_and_mixes_within_a_call():
    a, d = _deltas(LARGE_N + 10, 9)
    table = _table({"x": d, "y": np.where(np.arange(d.size) < 20, 0.0, d)}, a)
    small = table.filter(pl.col("qid") < "q000050")
    assert set(METHODS) == {"resampling", "exact", "analytic", "one-pass"}
    assert _compare(small, test="t")["method"].to_list() == ["analytic", "analytic"]
    assert _compare(small, n_resamples=200)["method"].to_list() == ["resampling", "resampling"]
    mixed = _compare(table, n_resamples=200)        # y has 20 ties: LARGE_N - 10 non-zero deltas
    assert mixed["method"].to_list() == ["one-pass", "resampling"]
    assert mixed["n_resamples"].to_list() == [None, 200]


def test_one_pass_interval_stays_inside_the_measure_range():
    n = LARGE_N + 100
    rng = np.random.default_rng(10)
    a = np.zeros(n)
    d = np.where(rng.uniform(size=n) < 0.995, 1.0, 0.5)      # mean delta just below the range's end, 1
    row = _compare(_table({"x": d}, a)).row(0, named=True)
    assert row["method"] == "one-pass"
    assert row["ci_high"] <= 1.0 and row["ci_low"] < row["delta"] <= row["ci_high"]


def test_one_pass_in_duckdb_against_the_polars_path():
    a, d = _deltas(LARGE_N + 300, 11)
    table = _table({"x": d, "y": -d[::-1]}, a)
    con = duckdb.connect()
    con.register("pq_arrow", table.to_arrow())
    for kw in ({}, {"test": "t"}, {"interval": "signflip", "alternative": "greater"}):
        mem = _compare(table, **kw)
        eng = _compare(con.table("pq_arrow"), **kw)
        assert eng["method"].to_list() == mem["method"].to_list()
        for column in ("delta", "ci_low", "ci_high", "pvalue", "sd", "skewness", "mde"):
            np.testing.assert_allclose(eng[column].to_numpy(), mem[column].to_numpy(), rtol=1e-12, atol=1e-15)


def test_results_table_caption_names_the_one_pass_method_not_resampling():
    """Above LARGE_N non-zero deltas nothing is resampled: the caption describes the normal
    approximation of the sign-flip test and its inverted interval, not bootstrap and sign flips."""
    rng = np.random.default_rng(0)
    n = 12_000
    a = rng.uniform(size=n)
    qids = [f"q{i}" for i in range(n)]
    big = pl.DataFrame({"system": ["a"] * n + ["b"] * n, "qid": qids * 2, "measure": "nDCG@10",
                        "value": np.concatenate([a, np.clip(a + rng.normal(0.003, 0.1, n), 0, 1)])})
    caption = pf.results_table(big, baseline="a", seed=0).caption
    assert "sign-flip test by its normal approximation" in caption and "delta intervals: t" in caption
    assert "bootstrap" not in caption and "sign flips" not in caption and "inverting" not in caption
    inverted = pf.results_table(big, baseline="a", seed=0, interval="signflip").caption
    assert "delta intervals: the interval inverting the test's normal approximation" in inverted
    c = pl.DataFrame({"system": "c", "qid": qids, "measure": "nDCG@10",     # differs from a on 50 queries
                      "value": np.where(np.arange(n) < 50, np.clip(a + 0.1, 0, 1), a)})
    mixed = pf.results_table(pl.concat([big, c]), baseline="a", seed=0, n_resamples=99).caption
    assert f"effective number (the squared sum of squares over the sum of fourth powers) at least {LARGE_N_EFF:,}" in mixed
    assert "delta intervals: studentized bootstrap (symmetric bootstrap-t) (t on the rows computed in one pass)" in mixed


def test_json_settings_state_how_the_one_pass_and_t_pvalues_were_computed():
    """format_comparison (what `pairedframe compare --format json` prints) names the normal approximation
    on one-pass rows and the t distribution for test='t', not the resampled p's (b+1)/(m+1) rule."""
    import json

    from pairedframe.report.compare import format_comparison

    a, d = _deltas(LARGE_N + 5, 14)
    table = _table({"x": d}, a)
    rule = {}
    for name, kw in (("one-pass", {}), ("t", {"test": "t"})):
        rule[name] = json.loads(format_comparison(_compare(table, **kw), "json"))["settings"]["pvalue_tie_rule"]
    assert "normal approximation" in rule["one-pass"] and "(b+1)/(m+1)" not in rule["one-pass"]
    assert "Student's t" in rule["t"] and "(b+1)/(m+1)" not in rule["t"]
    small = json.loads(format_comparison(_compare(table.filter(pl.col("qid") < "q000050"), n_resamples=99), "json"))
    assert "(b+1)/(m+1)" in small["settings"]["pvalue_tie_rule"]


def _spikes(n: int, k: int) -> pl.DataFrame:
    """n deltas of -2e-6 of which k are 0.8: k deltas carry the variance (n_eff about k)."""
    d = np.full(n, -2e-6)
    d[:k] = 0.8
    return _table({"x": d}, np.full(n, 0.1))


def test_few_dominant_deltas_are_resampled_above_large_n_against_sign_pattern_enumeration():
    """Four deltas of 0.8 among LARGE_N + 1: |mean| is reached only when the four flip alike, so the
    sign-flip p is 2 / 2**4 (the 2**4 patterns of the four enumerated); the normal approximation gave 0.047."""
    signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * 4)).reshape(4, -1)
    exact = np.mean(np.abs(0.8 * signs.sum(axis=0)) >= 0.8 * 4 - 1e-9)
    table = _spikes(LARGE_N + 1, 4)
    row = _compare(table, seed=0, n_resamples=4000).row(0, named=True)
    assert row["method"] == "resampling" and row["n_resamples"] == 4000
    assert abs(row["pvalue"] - exact) < 4 * math.sqrt(exact * (1 - exact) / 4000)
    con = duckdb.connect()
    con.register("pq_arrow", table.to_arrow())
    assert _compare(con.table("pq_arrow"), seed=0, n_resamples=4000)["method"].to_list() == ["resampling"]


def test_moments_table_effective_n_against_numpy_at_any_scale():
    rng = np.random.default_rng(12)
    d = rng.standard_t(3, 500)
    for scale in (1.0, 1e-90, 1e90):
        x = d * scale
        paired = pl.DataFrame({"_row": np.zeros(x.size, dtype=np.uint32), "delta": x})
        want = np.sum(d**2) ** 2 / np.sum(d**4)
        assert moments_table(paired, np.array([0]))["n_eff"][0] == pytest.approx(want, rel=1e-12)


def test_normal_pvalue_type_i_at_the_effective_n_threshold_against_the_binomial_lattice():
    """The worst case for the normal approximation at n_eff = LARGE_N_EFF: that many equal deltas, whose
    sign-flip sum is binomial.  Its exact rejection rate at alpha = 0.05 stays within 0.0045 of alpha."""
    k = LARGE_N_EFF
    heads = np.arange(k + 1)
    p = sign_flip_normal_pvalue((2.0 * heads - k) / k, np.ones(k + 1), k)
    assert abs(stats.binom.pmf(heads, k, 0.5)[p < 0.05].sum() - 0.05) < 0.0045


def test_method_text_states_the_effective_n_rule():
    assert f"{LARGE_N_EFF:,}" in METHODS["one-pass"] and "sum d^4" in METHODS["one-pass"]


def test_one_pass_pvalue_is_never_zero_but_the_smallest_positive_double():
    """10,001 deltas from U(0.1, 0.3): z near 96, where Phi underflows to 0; a sign-flip p is at least 2 / 2**n > 0."""
    rng = np.random.default_rng(13)
    n = LARGE_N + 1
    got = _compare(_table({"x": rng.uniform(0.1, 0.3, n), "y": rng.uniform(0.1, 0.3, n)}, np.zeros(n)))
    assert got["method"].to_list() == ["one-pass", "one-pass"]
    for column in ("pvalue", "pvalue_holm", "pvalue_bh"):
        assert got[column].min() >= math.ulp(0.0) and got[column].max() <= 2 * math.ulp(0.0), column
    assert sign_flip_normal_pvalue(np.array([1.0]), np.array([1.0]), 10**6)[0] == math.ulp(0.0)


def test_interval_column_names_the_interval_one_pass_computed_in_polars_and_duckdb():
    """A one-pass row's interval is the t interval (interval='signflip': the inversion), whatever was asked;
    its ``interval`` column says so, in memory and by DuckDB's join, and the resampled rows keep the one asked."""
    a, d = _deltas(LARGE_N + 10, 15)
    table = _table({"x": d, "y": np.where(np.arange(d.size) < 20, 0.0, d)}, a)  # y: resampled (ties)
    con = duckdb.connect()
    con.register("pq_arrow", table.to_arrow())
    for asked, computed in (("percentile", "t"), ("studentized", "t"), ("t", "t"), ("signflip", "signflip")):
        for source in (table, con.table("pq_arrow")):
            out = _compare(source, interval=asked, n_resamples=200)
            assert out["method"].to_list() == ["one-pass", "resampling"]
            assert out["interval"].to_list() == [computed, asked]


def test_cli_settings_name_the_interval_one_pass_computed():
    """format_comparison's settings (compare --format json / csv / markdown) state the interval computed:
    ``t`` where every row is one-pass, both intervals where rows differ."""
    import json

    from pairedframe.report.compare import format_comparison

    a, d = _deltas(LARGE_N + 10, 16)
    one_pass = _compare(_table({"x": d}, a), interval="percentile")
    assert json.loads(format_comparison(one_pass, "json"))["settings"]["interval"] == "t"
    assert "- interval: t" in format_comparison(one_pass, "markdown")
    assert pl.read_csv(format_comparison(one_pass, "csv").encode())["interval"].to_list() == ["t"]
    mixed = _compare(_table({"x": d, "y": np.where(np.arange(d.size) < 20, 0.0, d)}, a), n_resamples=200)
    assert json.loads(format_comparison(mixed, "json"))["settings"]["interval"] == ["t", "studentized"]
    caption = pf.results_table(_table({"x": d}, a), baseline="base", seed=0, interval="percentile").caption
    assert "delta intervals: t" in caption and "percentile" not in caption
