"""The one-sided calibration study (benchmarks/calibration/one_sided.py) measures the bounds and p-values
compare prints: on the same deltas and resample streams, its figures are compare's, bit for bit."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.comparison.streams import resample_generators

CALIBRATION = Path(__file__).resolve().parents[1] / "benchmarks" / "calibration"


@pytest.fixture(scope="module")
def one_sided():
    """benchmarks/calibration/one_sided.py, imported as its entry imports it (its folders on sys.path);
    the generic module names it brings are taken out again afterwards."""
    names = ("one_sided", "common", "data", "_tee")
    saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    path = list(sys.path)
    sys.path.insert(0, str(CALIBRATION))
    try:
        yield importlib.import_module("one_sided")
    finally:
        sys.path[:] = path
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


def _table(n: int = 20):
    rng = np.random.default_rng(3)
    qids = [f"q{i}" for i in range(n)]              # q10 sorts before q2: compare's code-point order
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(0.05, 0.2, n), 0, 1)
    df = pl.DataFrame({"system": ["a"] * n + ["b"] * n, "qid": qids * 2, "measure": ["nDCG@10"] * (2 * n),
                       "value": np.r_[a, b]})
    order = np.argsort(qids)
    return df, qids, (b - a)[order][:, None]


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("level", [0.90, 0.95])
def test_one_sided_study_bounds_and_pvalues_against_compare(one_sided, alternative, level):
    df, qids, D = _table()
    got = one_sided.bounds(D, 999, level, alternative, lambda: resample_generators(0, qids), "nDCG@10")
    assert set(got) == set(one_sided.INTERVALS)
    for interval in one_sided.INTERVALS:
        row = pf.compare(df, baseline="a", alternative=alternative, confidence_level=level, n_resamples=999,
                         seed=0, interval=interval, test="t" if interval == "t" else "randomization")
        printed = row["ci_low" if alternative == "greater" else "ci_high"][0]
        assert got[interval][0] == printed, interval
        assert np.isinf(row["ci_high" if alternative == "greater" else "ci_low"][0])   # the open side
    row = pf.compare(df, baseline="a", alternative=alternative, confidence_level=level, n_resamples=999, seed=0)
    p = one_sided.pvalues(D, 999, alternative, resample_generators(0, qids)[1])
    assert p["randomization"][0] == row["pvalue"][0]
    t_row = pf.compare(df, baseline="a", alternative=alternative, confidence_level=level, test="t")
    assert p["t"][0] == pytest.approx(t_row["pvalue"][0], rel=1e-12)
