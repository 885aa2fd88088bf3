"""The skewed-clusters calibration study (benchmarks/calibration/clustered_skewed.py): its draws are what it
says, and the ranges the docs quote are the printed table's (docs/results/calibration_clustered_skewed.md)."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.calibration_tables import RESULTS, columns as table_columns, table

ROOT = Path(__file__).resolve().parents[1]
CALIBRATION = ROOT / "benchmarks" / "calibration"
PRINTED = RESULTS / "calibration_clustered_skewed.md"


@pytest.fixture(scope="module")
def clustered():
    """benchmarks/calibration/clustered.py, imported as the study imports it; its generic names are taken out after."""
    names = ("clustered", "common")
    saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    path = list(sys.path)
    sys.path.insert(0, str(CALIBRATION))
    try:
        yield importlib.import_module("clustered")
    finally:
        sys.path[:] = path
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


def test_skewed_cluster_draws_share_a_right_skewed_effect_per_cluster_with_true_mean_zero(clustered):
    sizes = np.array([10, 6, 4, 3, 2, 2, 1, 1, 1, 1])
    X, truth = clustered.draw_clusters(clustered.SKEWED, len(sizes), sizes, 0.0, 4000, np.random.default_rng(3))
    assert X.shape == (int(sizes.sum()), 4000) and np.all(truth == 0.0)
    assert abs(X.mean()) < 0.02
    of = np.repeat(np.arange(len(sizes)), sizes)
    within = X[of == 0] - X[of == 0].mean(axis=0)  # the first cluster's queries differ by noise only
    assert within.std() == pytest.approx(clustered.SKEW_NOISE * np.sqrt(9 / 10), rel=0.03)  # 10 queries, 9 df
    effects = X[of == 0].mean(axis=0)
    assert np.mean((effects - effects.mean()) ** 3) / effects.std() ** 3 > 1.5  # Exp(1): skewness 2


def _span(values: list[float]) -> str:
    return f"{min(values):.3f}–{max(values):.3f}"


def test_quoted_skewed_cluster_figures_against_the_calibration_table():
    columns, (_, rows) = table_columns(PRINTED, first=3), table(PRINTED)
    unequal = [i for i, row in enumerate(rows) if "/" in row[0]]
    default = columns["edgeworth (default)"]
    quoted = {
        "cluster-t": _span(columns["cluster-t"]),
        "percentile": _span(columns["percentile"]),
        "signflip": _span(columns["signflip"]),
        "type-I": _span(columns["type-I sign-flip"]),
        "unequal default": _span([default[i] for i in unequal]),
    }
    for page in (ROOT / "docs" / "how" / "calibration.md",):
        text = re.sub(r"\s+", " ", page.read_text(encoding="utf-8"))
        for what, span in quoted.items():
            assert span in text, f"{page.name} should quote {what} {span}"
    guide = re.sub(r"\s+", " ", (ROOT / "docs" / "guide" / "clusters.md").read_text(encoding="utf-8"))
    for what in ("unequal default", "type-I", "cluster-t", "signflip"):
        assert quoted[what] in guide, f"clusters.md should quote {what} {quoted[what]}"
