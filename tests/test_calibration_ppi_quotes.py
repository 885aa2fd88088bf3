"""The PPI++ figures the PPI guide quotes are the ones benchmarks/calibration --section ppi_dl19 printed
(docs/results/calibration_ppi_dl19.md), so a re-run that moves them fails here until the guide follows."""

from __future__ import annotations

import re
from pathlib import Path

from tests.calibration_tables import RESULTS, columns, first_number, rows as table_rows

ROOT = Path(__file__).resolve().parents[1]
GUIDE = ROOT / "docs" / "guide" / "ppi.md"


def test_quoted_ppi_dl19_coverage_and_width_against_the_calibration_table():
    rows = table_rows(RESULTS / "calibration_ppi_dl19.md")
    assert [row["n_gold"] for row in rows] == ["10", "20", "30"]
    guide = re.sub(r"\s+", " ", GUIDE.read_text(encoding="utf-8"))
    ppi = " / ".join(row["PPI++ coverage"].split()[0] for row in rows)
    gold_t = " / ".join(row["gold-only t coverage"].split()[0] for row in rows)
    assert f"covered the all-gold truth {ppi} (SE" in guide
    assert f"against {gold_t} for the classical gold-only t intervals" in guide
    narrower = [round(100 * (1 - first_number(row["PPI++ / gold-only t mean width"]))) for row in rows]
    assert f"were {min(narrower)}–{max(narrower)} % narrower" in guide
    unbounded = [int(m[1]) for row in rows if (m := re.search(r"\((\d+) unbounded\)", row["PPI++ / gold-only t mean width"]))]
    if unbounded:
        assert f"all but {min(unbounded)}–{max(unbounded)} of {int(rows[0]['intervals']):,}" in guide


CALIBRATION_PAGE = ROOT / "docs" / "how" / "calibration.md"


def test_quoted_ppi_section_figures_against_the_calibration_table():
    printed = columns(RESULTS / "calibration_ppi.md", first=2)
    page = re.sub(r"\s+", " ", CALIBRATION_PAGE.read_text(encoding="utf-8"))

    def span(name: str) -> str:
        return f"{min(printed[name]):.3f}–{max(printed[name]):.3f}"

    def narrower(name: str) -> str:
        return f"{round(100 * (1 - max(printed[name])))}–{round(100 * (1 - min(printed[name])))} %"

    assert f"jackknife-edgeworth interval covers {span('jackknife-edgeworth (default)')}" in page
    assert f"gold samples covers {span('gold-only t')}" in page
    assert f"jackknife-t {span('jackknife-t')}" in page
    assert f"normal interval {span('z (ppi_py)')} and plain t {span('t')}" in page
    assert f"it is {narrower('width jackknife-edgeworth')} narrower" in page
    assert f"(jackknife-t {narrower('width jackknife-t')})" in page
