"""The evaluate benchmark script runs end to end on tiny sizes (a smoke run: no timing is asserted;
speed claims come from running the script itself, see docs/how/benchmarks.md)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "evaluate.py"


def test_evaluate_benchmark_quick_run_prints_ratios_against_pytrec_eval():
    pytest.importorskip("pytrec_eval", reason="pytrec_eval is in the oracles extra")
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--tools", "pairedframe", "pairedframe-polars",
                           "pytrec_eval", "pairedframe-all_trec"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    table = [line.split() for line in proc.stdout.splitlines()]
    # tool, process s, script s, cpu s, peak MB, rows, x pairedframe
    rows = {parts[0]: parts for parts in table if len(parts) == 7 and parts[5].isdigit()}
    assert {"pairedframe", "pairedframe-polars", "pytrec_eval", "pairedframe-all_trec"} <= set(rows)
    assert rows["pairedframe"][5] == rows["pytrec_eval"][5] == "800"  # 200 queries x 4 measures each
    assert rows["pairedframe-all_trec"][5] == str(200 * 98)  # all_trec: 98 numeric values per query
    assert "pytrec_eval / pairedframe" in proc.stdout  # the whole-process ratios against the targets
    assert "faster than the fastest peer" in proc.stdout
    assert re.search(r"pairedframe: all_trec costs [\d.]+x the four measures in wall time", proc.stdout)


def test_interleaved_benchmark_quick_run_prints_the_ratio_to_grouped(tmp_path):
    script = SCRIPT.parent / "interleaved.py"
    proc = subprocess.run([sys.executable, str(script), "--queries", "300", "--docs", "50", "--dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "x the grouped time" in proc.stdout
    rows = [line.split() for line in proc.stdout.splitlines() if line.startswith(("grouped ", "shuffled "))]
    assert len(rows) == 2 and rows[0][4] == rows[1][4] == "1200"    # same per-query rows both ways
    assert not list(tmp_path.iterdir())                               # the generated files are gone


CALIBRATION = Path(__file__).resolve().parents[1] / "benchmarks" / "calibration.py"


@pytest.mark.shared_data
def test_calibration_quick_run_exercises_every_section_and_method(shared_data):
    """Smoke run on the real data: every interval, test and section runs (no rate is asserted here;
    the figures come from the full run, docs/how/calibration.md)."""
    proc = subprocess.run([sys.executable, str(CALIBRATION), "--quick", "--data", str(shared_data)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for heading in ("### compare:", "### compare: spiky cells", "### compare_clustered:", "### compare_clustered with unequal cluster sizes",
                    "### Equivalence:", "### PPI++", "### compare_segments:",
                    "### rank_agreement:", "### label_agreement:"):
        assert heading in out
    for column in ("edgeworth (default)", "| signflip |", "| t |", "studentized", "percentile", "BCa",
                   "bootstrap-t (Hall)", "width studentized", "equal-tailed", "t fallback", "capped only",
                   "one dominant, synthetic", "jumps, synthetic", "| RR@10 |", "| synthetic |",
                   "randomization centred", "t symmetric", "power randomization", "skew warning", "cluster-t",
                   "type-I sign-flip", "t-based TOST (default)", "z on bootstrap SE", "jackknife-edgeworth (default)",
                   "| jackknife-t |", "z (ppi_py)",
                   "gold-only t", "FDR t", "FDR randomization", "jackknife (default)", "m-out-of-n basic",
                   "i.i.d. (pairs)", "| near-tie (8 systems) |"):
        assert column in out, column
    # every table row carries rates with their Monte-Carlo SE
    rows = [line for line in out.splitlines() if line.startswith("| DL-2019") or line.startswith("| nDCG@10")]
    assert rows and all("(" in line for line in rows)


@pytest.mark.shared_data
@pytest.mark.slow
def test_table_benchmark_quick_run(shared_data):
    """benchmarks/table_dl2021.py runs end to end on 6 DL-2021 runs (no timing asserted)."""
    if not (shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021" / "passages-runs" / "p_bm25.gz").exists():
        pytest.skip("DL-2021 runs missing from the shared data")
    script = SCRIPT.parent / "table_dl2021.py"
    proc = subprocess.run([sys.executable, str(script), "--quick", "--no-ranx", "--data", str(shared_data)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "pairedframe table (evaluate + compare + LaTeX)" in proc.stdout and "5 s target" in proc.stdout


@pytest.mark.shared_data
@pytest.mark.slow
def test_adaptive_calibration_quick_run_prints_rates_with_monte_carlo_errors(shared_data):
    script = SCRIPT.parent / "adaptive_calibration.py"
    proc = subprocess.run([sys.executable, str(script), "--quick", "--data", str(shared_data)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("|")[1:-1] for line in proc.stdout.splitlines() if line.startswith("| ") and "+-" in line]
    cells = {(r[0].split(" (")[0].strip(), r[1].strip()) for r in rows}
    assert cells == {(data, null) for data in ("DL-2021", "DL-2019", "Robust03") for null in ("relabel", "centered")}
    assert len(rows) == 18                                   # adaptive, fixed B, t-test per cell
    for r in rows:
        fdr, fdr_se = (float(x) for x in r[3].split("+-"))
        power, power_se = (float(x) for x in r[4].split("+-"))
        assert 0 <= fdr <= 1 and 0 <= power <= 1 and fdr_se >= 0 and power_se >= 0


def _quick_dl21(script: str, shared_data) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, str(SCRIPT.parent / script), "--quick", "--data",
                           str(shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021")],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.shared_data
@pytest.mark.slow
def test_segments_benchmark_quick_run_reports_the_adaptive_row(shared_data):
    proc = _quick_dl21("segments.py", shared_data)
    assert "real DL-2021 nDCG@10 pairs" in proc.stdout
    assert "adaptive randomization + t CI" in proc.stdout
    assert "certified 200 of 200 rows" in proc.stdout
    agree = re.search(r"BH decisions agree on (\d+) of 20", proc.stdout)
    assert agree and int(agree.group(1)) >= 19          # the brute force has Monte-Carlo error of its own


@pytest.mark.shared_data
@pytest.mark.slow
def test_adaptive_compare_quick_run_certifies_the_family(shared_data):
    proc = _quick_dl21("adaptive_compare.py", shared_data)
    adaptive = [line.split() for line in proc.stdout.splitlines() if ": adaptive" in line]
    assert len(adaptive) == 2                                   # Holm and BH
    assert all(row[-1] == "35/35" for row in adaptive)


@pytest.mark.shared_data
@pytest.mark.slow
def test_tukey_calibration_quick_run_prints_fwer_with_monte_carlo_errors(shared_data):
    script = SCRIPT.parent / "tukey_calibration.py"
    proc = subprocess.run([sys.executable, str(script), "--quick", "--data", str(shared_data)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| DL-2019")]
    assert len(rows) == 2 and all(re.search(r"\d\.\d{3} \(\d\.\d{3}\)", row) for row in rows)


@pytest.mark.shared_data
@pytest.mark.slow
def test_report_benchmark_quick_run_writes_its_table_with_the_command(shared_data, tmp_path):
    """benchmarks/report_dl2021.py times the report next to ``pairedframe evaluate`` (the reference),
    ``table`` and start-up and, with --output, writes what it printed under a first line naming the
    command (docs/guide/report.md and docs/how/benchmarks.md include it)."""
    out = tmp_path / "report.md"
    proc = subprocess.run([sys.executable, str(SCRIPT.parent / "report_dl2021.py"), "--quick", "--data",
                           str(shared_data), "--output", str(out)], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!-- printed by: python benchmarks/report_dl2021.py --quick")
    assert proc.stdout.strip() in text
    row = r"^\| pairedframe (report|evaluate|table|--help)[^|]*((?:\| [\d.]+ ){5})\|$"
    rows = re.findall(row, text, flags=re.M)
    assert [r[0] for r in rows] == ["report", "evaluate", "table", "--help"]
    wall, slowest, cpu, x_wall, x_cpu = rows[1][1].replace("|", "").split()
    assert (x_wall, x_cpu) == ("1.00", "1.00") and float(slowest) >= float(wall) > 0 and float(cpu) > 0
    assert re.search(r"report: [\d.]+ MB \(within 5 MB\)", text)


def test_cluster_edgeworth_small_g_quick_run_shows_no_correction_at_two_clusters():
    script = SCRIPT.parent / "cluster_edgeworth_small_g.py"
    proc = subprocess.run([sys.executable, str(script), "--quick"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = {int(line.split()[0]): line.split() for line in proc.stdout.splitlines()
            if re.match(r"\s*\d+\s+\d+\s", line)}
    assert sorted(rows) == [2, 3, 4, 5, 6, 8, 10]
    assert rows[2][-2:] == ["1.000", "1.000"]                 # G = 2: the Edgeworth quantile is the t quantile
    assert float(rows[3][-1]) < 1.01                           # G = 3: under 1 % at most
    assert rows[2][2] == rows[2][5]                            # so the two coverages are the same
