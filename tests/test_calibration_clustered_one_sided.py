"""The clustered one-sided calibration study (benchmarks/calibration/clustered_one_sided.py) measures the
bounds and p-values compare_clustered prints: on the same deltas, clusters and query ids, its figures are
compare_clustered's, bit for bit."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import pairedframe as pf

CALIBRATION = Path(__file__).resolve().parents[1] / "benchmarks" / "calibration"


@pytest.fixture(scope="module")
def study():
    """The study module, imported as its entry imports it (its folders on sys.path); the generic module
    names it brings are taken out again afterwards."""
    names = ("clustered_one_sided", "clustered", "common", "data", "_tee")
    saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    path = list(sys.path)
    sys.path.insert(0, str(CALIBRATION))
    try:
        yield importlib.import_module("clustered_one_sided")
    finally:
        sys.path[:] = path
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


def _table(G: int = 10, m: int = 3):
    rng = np.random.default_rng(5)
    n = G * m
    labels = np.repeat(np.arange(G), m)
    a = rng.uniform(0, 1, n)
    b = np.clip(a + rng.normal(0.03, 0.2, n) + rng.normal(0, 0.1, G)[labels], 0, 1)
    qids = [f"tq{i:04d}" for i in range(n)]       # the ids the study gives its queries, in code-point order
    df = pl.DataFrame({"system": ["a"] * n + ["b"] * n, "qid": qids * 2, "measure": ["nDCG@10"] * (2 * n),
                       "value": np.r_[a, b]})
    clusters = pl.DataFrame({"qid": qids, "cluster": [f"c{g}" for g in labels]})
    return df, clusters, labels, (b - a)[:, None]


@pytest.mark.parametrize("alternative", ["greater", "less"])
@pytest.mark.parametrize("level", [0.90, 0.95])
def test_clustered_one_sided_study_bounds_and_pvalues_against_compare_clustered(study, alternative, level):
    df, clusters, labels, D = _table()
    for interval in study.INTERVALS:
        p, low, high = study.clustered_statistics(D, labels, "t", 999, level, alternative, interval, seed=0)
        row = pf.compare_clustered(df, clusters=clusters, baseline="a", alternative=alternative, confidence_level=level,
                                   n_resamples=999, seed=0, interval=interval)
        assert low[0] == row["ci_low"][0] and high[0] == row["ci_high"][0], interval
        assert p[0] == row["pvalue"][0], interval
        assert np.isinf(row["ci_high" if alternative == "greater" else "ci_low"][0])   # the open side


def test_clustered_one_sided_default_is_cluster_t_against_interval_t(study):
    """One-sided, the default (edgeworth) prints plain cluster-t's bound: the study reports it once."""
    df, clusters, labels, D = _table()
    default = pf.compare_clustered(df, clusters=clusters, baseline="a", alternative="greater", n_resamples=999, seed=0)
    t = pf.compare_clustered(df, clusters=clusters, baseline="a", alternative="greater", n_resamples=999, seed=0,
                             interval="t")
    assert default["ci_low"][0] == t["ci_low"][0]
    assert "one-sided" in default["interval"][0]
