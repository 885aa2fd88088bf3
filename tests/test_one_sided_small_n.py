"""Below MIN_ONE_SIDED_BOOTSTRAP_N (20) queries the default one-sided bound is Student's t bound, as the
calibration (docs/results/calibration_one_sided_small_n.md) found t covering at least as well there."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.stats import studentized
from pairedframe.stats.studentized import MIN_ONE_SIDED_BOOTSTRAP_N, studentized_bootstrap_many
from pairedframe.stats.ttest import paired_t_test_many
from tests.calibration_tables import RESULTS, first_number, rows

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide" / "default-interval.md"


def _pair(n: int, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.2, 0.6, n)
    return a, np.clip(a + rng.gamma(0.5, 0.1, n) - 0.03, 0.0, 1.0)      # skewed deltas: bootstrap-t != t


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("n", [5, 10, MIN_ONE_SIDED_BOOTSTRAP_N - 1])
def test_default_one_sided_bound_below_20_queries_is_the_t_bound(alternative, n):
    a, b = _pair(n)
    r = _quiet(lambda: pf.compare_pair(a, b, measure="nDCG@10", alternative=alternative, n_resamples=999))
    t = _quiet(lambda: pf.compare_pair(a, b, measure="nDCG@10", alternative=alternative, test="t"))
    assert tuple(r.confidence_interval) == pytest.approx(tuple(t.confidence_interval), rel=1e-12)
    assert f"with fewer than {MIN_ONE_SIDED_BOOTSTRAP_N} queries the default one-sided bound is Student's t" \
        in r.verdict_note


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_default_one_sided_bound_from_20_queries_and_two_sided_below_stay_the_bootstrap_t(alternative):
    a, b = _pair(MIN_ONE_SIDED_BOOTSTRAP_N)
    r = _quiet(lambda: pf.compare_pair(a, b, measure="nDCG@10", alternative=alternative, n_resamples=999))
    t = _quiet(lambda: pf.compare_pair(a, b, measure="nDCG@10", alternative=alternative, test="t"))
    assert tuple(r.confidence_interval) != pytest.approx(tuple(t.confidence_interval), rel=1e-6)
    a, b = _pair(10)
    r = _quiet(lambda: pf.compare_pair(a, b, measure="nDCG@10", n_resamples=999))
    t = _quiet(lambda: pf.compare_pair(a, b, measure="nDCG@10", test="t"))
    assert tuple(r.confidence_interval) != pytest.approx(tuple(t.confidence_interval), rel=1e-6)


def test_default_one_sided_bound_below_20_queries_is_t_in_compare_on_a_table_and_a_duckdb_relation():
    import duckdb

    a, b = _pair(12)
    q = [f"q{i}" for i in range(12)]
    table = pl.DataFrame({"system": ["a"] * 12 + ["b"] * 12, "qid": q + q, "measure": "nDCG@10",
                          "value": np.r_[a, b]})
    t = _quiet(lambda: pf.compare(table, baseline="a", alternative="less", test="t")).row(0, named=True)
    con = duckdb.connect()
    con.register("t12", table.to_arrow())
    for source in (table, con.table("t12")):
        row = _quiet(lambda: pf.compare(source, baseline="a", alternative="less", n_resamples=999)).row(0, named=True)
        assert row["ci_low"] == -np.inf and row["ci_high"] == pytest.approx(t["ci_high"], rel=1e-12)


def test_studentized_kernel_one_sided_below_20_rows_is_students_bound():
    rng = np.random.default_rng(3)
    D = rng.gamma(0.5, 0.1, size=(12, 4)) - 0.03
    for alternative in ("greater", "less"):
        boot = studentized_bootstrap_many(D, n_resamples=999, alternative=alternative, seed=1).confidence_interval
        t = paired_t_test_many(D, alternative=alternative).confidence_interval
        np.testing.assert_allclose(boot.low, t.low, rtol=1e-12)
        np.testing.assert_allclose(boot.high, t.high, rtol=1e-12)


def _pooled() -> dict[int, dict[str, float]]:
    """The pooled rows of the printed table: n -> column -> coverage (or difference)."""
    return {int(row["n"]): {c: first_number(v) for c, v in list(row.items())[3:]}
            for row in rows(RESULTS / "calibration_one_sided_small_n.md")
            if (row["collection"], row["measure"]) == ("all", "pooled")}


def _range(values) -> str:
    return f"{min(values):.3f}–{max(values):.3f}"


def test_quoted_one_sided_small_n_figures_against_the_calibration_table():
    """The ranges the guide and the module quote are the pooled rows below 20 queries of the printed table,
    and in them t covers at least as well as the bootstrap-t (the reason for the rule)."""
    pooled = _pooled()
    small = [n for n in pooled if n < MIN_ONE_SIDED_BOOTSTRAP_N]
    assert sorted(small) == [5, 8, 10, 15]
    default = [pooled[n][f"bootstrap-t at any n {s}"] for n in small for s in ("lower", "upper")]
    t = [pooled[n][f"t {s}"] for n in small for s in ("lower", "upper")]
    assert all(pooled[n][f"t - bootstrap-t {s}"] >= 0 for n in small for s in ("lower", "upper"))
    # printed after the rule: the default as compare prints it is the t bound below 20 queries only
    assert all(pooled[n][f"default (as printed) {s}"] == pooled[n][f"t {s}"] for n in small for s in ("lower", "upper"))
    assert pooled[20]["default (as printed) upper"] == pooled[20]["bootstrap-t at any n upper"]
    guide = GUIDE.read_text()
    assert f"{_range(default)} against {_range(t)}" in guide
    ascii_text = f"{_range(default)} against {_range(t)}".replace("–", "-")
    assert ascii_text in re.sub(r"\s+", " ", studentized.__doc__)
