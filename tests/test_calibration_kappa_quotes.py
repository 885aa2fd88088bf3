"""docs/guide/agreement.md quotes the κ calibration (docs/results/calibration_agreement.md): the coverage
median and range of each interval and its weakest cells, checked here against the printed table."""

from __future__ import annotations

import re
import statistics

from tests.calibration_tables import RESULTS, cells, first_number

GUIDE = RESULTS.parent / "guide" / "agreement.md"


def _kappa_rows() -> list[dict[str, str]]:
    lines = (RESULTS / "calibration_agreement.md").read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| label set | n | kappa |"))
    header, body = cells(lines[start]), lines[start + 2:]
    end = next((i for i, line in enumerate(body) if not line.startswith("|")), len(body))
    return [dict(zip(header, cells(line))) for line in body[:end]]


def _guide_text() -> str:
    return " ".join(GUIDE.read_text(encoding="utf-8").split())


def test_kappa_coverage_median_and_range_quoted_in_the_guide_against_the_printed_table():
    rows = _kappa_rows()
    assert len(rows) == 56
    for column, words in (("jackknife (default)", "the jackknife interval covers"),
                          ("percentile (bootstrap)", "the percentile bootstrap over queries"),
                          ("i.i.d. (pairs)", "the i.i.d. interval")):
        values = [first_number(row[column]) for row in rows]
        median = statistics.median(values)
        assert f"{words} {median:.3f}" in _guide_text(), column
        assert f"{min(values):.3f}–{max(values):.3f}" in _guide_text(), column


def test_kappa_weakest_cells_quoted_in_the_guide_against_the_printed_table():
    """The guide named two weakest cells where the table has five below 0.91 (outside statistician)."""
    weak = [first_number(row["jackknife (default)"]) for row in _kappa_rows()
            if first_number(row["jackknife (default)"]) < 0.91]
    text = _guide_text()
    sentence = text[text.index("The weakest cells"):][:400]
    assert sorted(float(x) for x in re.findall(r"0\.\d{3}", sentence)) == sorted(weak)
