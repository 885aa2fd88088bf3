"""compare_pair gives the row compare gives for the same data and options: the same ``resampling`` default
(one pass above LARGE_N non-zero deltas), the same measure checks (values outside the range warn), and an
unknown measure name warns instead of silently losing the range."""

import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.comparison.large_n import LARGE_N
from pairedframe.errors import ValueRangeWarning

_FIELDS = {"delta": "statistic", "pvalue": "pvalue", "se": "standard_error", "sd": "sd", "mde": "mde",
           "skewness": "skewness"}
_LABELS = {"verdict": "verdict", "method": "method", "interval": "interval", "n_resamples": "n_resamples",
           "exact": "exact", "verdict_note": "verdict_note"}


def _pair(n: int, seed: int = 4) -> tuple[np.ndarray, np.ndarray, list[str], pl.DataFrame]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(0.002, 0.1, n), 0, 1)
    q = [f"q{i}" for i in range(n)]
    table = pl.DataFrame({"system": ["A"] * n + ["B"] * n, "qid": q * 2, "measure": "nDCG@10",
                          "value": np.r_[a, b]})
    return a, b, q, table


@pytest.mark.parametrize("n", [LARGE_N, 2 * LARGE_N])
def test_compare_pair_equals_the_compare_row_below_and_above_the_one_pass_threshold(n):
    a, b, q, table = _pair(n)
    row = pf.compare(table, baseline="A", n_resamples=199).row(0, named=True)
    res = pf.compare_pair(a, b, qids=q, measure="nDCG@10", n_resamples=199)
    assert row["method"] == ("one-pass" if n > LARGE_N else "resampling")
    for column, field in _FIELDS.items():
        assert getattr(res, field) == pytest.approx(row[column], rel=1e-9), column
    assert (res.confidence_interval.low, res.confidence_interval.high) == pytest.approx(
        (row["ci_low"], row["ci_high"]), rel=1e-9)
    assert {c: getattr(res, f) for c, f in _LABELS.items()} == {c: row[c] for c in _LABELS}


def test_compare_pair_resamples_above_the_threshold_under_fixed_resampling():
    a, b, q, table = _pair(LARGE_N + 1)
    row = pf.compare(table, baseline="A", n_resamples=99, resampling="fixed").row(0, named=True)
    res = pf.compare_pair(a, b, qids=q, measure="nDCG@10", n_resamples=99, resampling="fixed")
    assert (res.method, res.n_resamples, res.pvalue) == ("resampling", 99, row["pvalue"])


def test_compare_pair_refuses_adaptive_resampling_naming_compare():
    a, b, q, _ = _pair(30)
    with pytest.raises(ValueError, match="resampling='auto' or 'fixed'.*pf.compare"):
        pf.compare_pair(a, b, resampling="adaptive")


def test_compare_pair_warns_about_a_measure_name_it_does_not_know():
    a, b, _, _ = _pair(30)
    with pytest.warns(UserWarning, match=r"'nDCG@1O' is no pairedframe measure.*nDCG@10.*measure=None"):
        pf.compare_pair(a, b, measure="nDCG@1O")


def test_compare_pair_says_nothing_about_a_known_measure_name_in_trec_eval_spelling():
    a, b, _, _ = _pair(30)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pf.compare_pair(a, b, measure="ndcg_cut_10")
        pf.compare_pair(a, b)


@pytest.mark.filterwarnings("ignore::pairedframe.errors.SkewWarning")
def test_compare_pair_warns_about_values_outside_the_measure_range_as_compare_does():
    a, b, q, table = _pair(30)
    b[3] = 1.2
    table = table.with_columns(pl.Series("value", np.r_[a, b]))
    with pytest.warns(ValueRangeWarning, match=r"measure 'nDCG@10' takes values in \[0, 1\].*qid 'q3' has 1\.2"):
        pf.compare(table, baseline="A")
    with pytest.warns(ValueRangeWarning, match=r"^compare_pair: measure 'nDCG@10' takes values in \[0, 1\], but "
                                               r"system 'b', qid 'q3' has 1\.2"):
        pf.compare_pair(a, b, qids=q, measure="nDCG@10")


def _series_pair(n: int = 30):
    pd = pytest.importorskip("pandas")
    a, b, q, table = _pair(n, seed=0)
    return pd.Series(a, index=q), pd.Series(b, index=q), table


def test_compare_pair_series_against_compare():
    # without qids two Series key the resamples by their index, the queries compare keys them by
    a, b, table = _series_pair()
    row = pf.compare(table, baseline="A", n_resamples=999).row(0, named=True)
    res = pf.compare_pair(a, b, measure="nDCG@10", n_resamples=999)
    assert (res.pvalue, res.confidence_interval.low, res.confidence_interval.high) == (
        row["pvalue"], row["ci_low"], row["ci_high"])


@pytest.mark.parametrize("interval", ["signflip", "percentile", "bca"])
def test_compare_pair_series_does_not_change_under_a_permutation_of_the_rows(interval):
    a, b, _ = _series_pair()
    perm = np.random.default_rng(1).permutation(len(a))
    before = pf.compare_pair(a, b, n_resamples=999, interval=interval)
    after = pf.compare_pair(a.iloc[perm], b.iloc[perm[::-1]], n_resamples=999, interval=interval)
    assert (after.pvalue, tuple(after.confidence_interval)) == (before.pvalue, tuple(before.confidence_interval))
    # positions key arrays: the same pairs in another order draw other resamples (why the index is used)
    shuffled = pf.compare_pair(a.to_numpy()[perm], b.to_numpy()[perm], n_resamples=999, interval=interval)
    assert tuple(shuffled.confidence_interval) != tuple(before.confidence_interval)
