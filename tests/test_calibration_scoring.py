"""The agreement calibration's scorer (benchmarks/calibration/agreement.py) on hand-made intervals: an
interval the method declines to give (a NaN end) is counted apart as undefined, never as a miss."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import numpy as np
import pytest

CALIBRATION = Path(__file__).resolve().parents[1] / "benchmarks" / "calibration"


@pytest.fixture(scope="module")
def agreement():
    """benchmarks/calibration/agreement.py, imported as its runner imports it (its folder on sys.path);
    the generic module names it brings (common, data) are taken out again afterwards."""
    names = ("agreement", "common", "data")
    saved = {name: sys.modules.pop(name) for name in names if name in sys.modules}
    sys.path.insert(0, str(CALIBRATION))
    try:
        yield importlib.import_module("agreement")
    finally:
        sys.path.remove(str(CALIBRATION))
        for name in names:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


def test_score_interval_marks_a_nan_interval_undefined_not_missed(agreement):
    a = agreement
    covered = a.score_interval(0.5, 0.4, (0.3, 0.7))
    below = a.score_interval(0.1, 0.4, (0.3, 0.7))
    undefined = a.score_interval(0.5, 0.4, (math.nan, math.nan))
    assert covered[a.COVERS] == 1 and covered[a.UNDEFINED] == 0 and covered[a.WIDTH] == pytest.approx(0.4)
    assert below[a.COVERS] == 0 and below[a.BELOW] == 1 and below[a.ABOVE] == 0
    assert undefined[a.UNDEFINED] == 1 and undefined[a.ESTIMATE] == 0.4
    assert all(math.isnan(undefined[i]) for i in (a.COVERS, a.BELOW, a.ABOVE, a.WIDTH, a.EXCLUDES))
    assert a.score_interval(0.5, 0.4, (0.3, math.nan))[a.UNDEFINED] == 1        # one end missing: no interval


def test_coverage_is_over_defined_intervals_with_the_undefined_counted_beside(agreement):
    a = agreement
    # two covers, one miss, three declined: coverage 2/3 (not 2/6), 3 undefined
    intervals = [(0.3, 0.7), (0.4, 0.6), (0.6, 0.9), *[(math.nan, math.nan)] * 3]
    records = np.array([a.score_interval(0.5, 0.5, ci) for ci in intervals])
    defined, n_undefined = a.coverage(records)
    assert len(defined) == 3 and n_undefined == 3
    assert defined[:, a.COVERS].mean() == pytest.approx(2 / 3)
    se = math.sqrt(2 / 3 * (1 / 3) / 3)
    assert a._cells(records) == [f"{2 / 3:.3f} ({se:.3f})", f"{1 / 3:.3f} / 0.000", "0.300", "3"]   # widths 0.4, 0.2, 0.3
    none = np.array([a.score_interval(0.5, 0.5, (math.nan, math.nan))] * 2)
    assert a._cells(none) == ["—", "—", "—", "2"]


def test_kappa_report_prints_coverage_of_defined_intervals_and_the_undefined_count(agreement):
    a = agreement
    covered, declined = (a.score_interval(0.5, 0.5, (0.4, 0.6)), a.score_interval(0.5, 0.5, (math.nan, math.nan)))
    rec = {(m, coef): np.array([covered, covered, declined, declined])
           for m in ("jackknife", "percentile (bootstrap)", "i.i.d. (pairs)") for coef in a.KAPPAS}
    text = a.report_kappa({("labels", 20): {"truth": {coef: 0.5 for coef in a.KAPPAS}, "rec": rec}}, reps=4, B=10)
    header = next(line for line in text.splitlines() if line.startswith("| label set"))
    assert [c.strip() for c in header.split("|")].count("undefined") == 3       # one per interval
    row = next(line for line in text.splitlines() if line.startswith("| labels | 20 | unweighted"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[4:] == ["1.000 (0.000)", "0 / 0", "0.200", "2"] * 3         # 2 of 2 defined cover; 2 undefined
    assert "jackknife coverage median 1.000, range 1.000-1.000 (8 of 16 intervals undefined)" in text


def test_rank_report_prints_coverage_of_defined_intervals_and_the_undefined_count(agreement):
    a = agreement
    covered, missed = a.score_interval(0.5, 0.5, (0.4, 0.6)), a.score_interval(0.5, 0.5, (0.6, 0.8))
    declined = a.score_interval(0.5, 0.5, (math.nan, math.nan))
    rec = {(m, coef): np.array([covered, missed, covered, covered] if m != "jackknife" else
                               [covered, declined, covered, declined])
           for m in (*a.RANK_METHODS, *a.CONTRASTS) for coef in a.COEFFICIENT_NAMES}
    text = a.report_rank({("cell", 20): ({coef: 0.5 for coef in a.COEFFICIENT_NAMES}, rec)}, reps=4, B=10)
    row = next(line for line in text.splitlines() if line.startswith("| tau_b |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3:7] == ["1.000 (0.000)", "0 / 0", "0.200", "2"]          # jackknife: 2 defined, both cover
    assert cells[7:11] == [f"0.750 ({math.sqrt(0.75 * 0.25 / 4):.3f})", "0.250 / 0.000", "0.200", "0"]
    summary = next(line for line in text.splitlines() if line.startswith("| cell | 20 |"))
    assert "1.00 1.00 1.00 1.00 1.00 (10 undefined)" in summary and "0.75 0.75 0.75 0.75 0.75 |" in summary
    assert "- jackknife: coverage median 1.000, range 1.000-1.000" in text and "10 of 20 intervals undefined" in text
