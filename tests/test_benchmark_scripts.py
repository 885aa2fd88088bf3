"""The benchmark sections run end to end on tiny sizes through their folder's one entry (``python benchmarks/speed
--section NAME``, ``python benchmarks/calibration --section NAME``; a smoke run: no timing is asserted, speed
claims come from running the script itself, see docs/how/benchmarks.md)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def speed(section: str) -> list[str]:
    """The command of a speed section, before its options."""
    return [sys.executable, str(BENCHMARKS / "speed"), "--section", section]


def calibration(*section: str) -> list[str]:
    """The command of the calibration runner, or of one study with its section name."""
    return [sys.executable, str(BENCHMARKS / "calibration"), *(["--section", *section] if section else [])]


def test_evaluate_benchmark_quick_run_prints_ratios_against_pytrec_eval():
    pytest.importorskip("pytrec_eval", reason="pytrec_eval is in the oracles extra")
    proc = subprocess.run([*speed("evaluate"), "--quick", "--tools", "pairedframe", "pairedframe-duckdb",
                           "pytrec_eval", "pairedframe-all_trec"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    table = [line.split() for line in proc.stdout.splitlines()]
    # tool, process s, script s, cpu s, peak MB, rows, x pairedframe
    rows = {parts[0]: parts for parts in table if len(parts) == 7 and parts[5].isdigit()}
    assert {"pairedframe", "pairedframe-duckdb", "pytrec_eval", "pairedframe-all_trec"} <= set(rows)
    assert rows["pairedframe"][5] == rows["pytrec_eval"][5] == "800"  # 200 queries x 4 measures each
    assert rows["pairedframe-all_trec"][5] == str(200 * 98)  # all_trec: 98 numeric values per query
    assert "pytrec_eval / pairedframe" in proc.stdout  # the whole-process ratios against the targets
    assert "faster than the fastest peer" in proc.stdout
    assert re.search(r"pairedframe: all_trec costs [\d.]+x the four measures in wall time", proc.stdout)


def test_interleaved_benchmark_quick_run_prints_the_ratio_to_grouped(tmp_path):
    proc = subprocess.run([*speed("interleaved"), "--queries", "300", "--docs", "50", "--dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "x the grouped time" in proc.stdout
    rows = [line.split() for line in proc.stdout.splitlines() if line.startswith(("grouped ", "shuffled "))]
    assert len(rows) == 2 and rows[0][4] == rows[1][4] == "1200"    # same per-query rows both ways
    assert not list(tmp_path.iterdir())                               # the generated files are gone


def test_irregular_benchmark_quick_run_prints_each_variant_and_its_outcome(tmp_path):
    proc = subprocess.run([*speed("irregular"), "--quick", "--dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    # variant, seconds, cpu s, peak MB, peak/file, rows, outcome
    rows = {parts[0]: parts for parts in (line.split() for line in proc.stdout.splitlines()) if len(parts) == 7}
    outcomes = {name: (parts[5], parts[6]) for name, parts in rows.items() if name != "variant"}
    valid = ["clean", "comment", "extra-5", "extra-all", "blanks", "shuffled"]
    assert {outcomes[name] for name in valid} == {("800", "values")}    # 200 queries x 4 measures, every layout
    assert outcomes["duplicate"] == ("0", "DuplicateError")
    assert outcomes["bad-score"] == outcomes["not-utf8"] == ("0", "InputFormatError")
    assert not list(tmp_path.iterdir())                                 # the generated files are gone


@pytest.mark.shared_data
def test_calibration_quick_run_exercises_every_section_and_method(shared_data):
    """Smoke run on the real data: every interval, test and section runs (no rate is asserted here;
    the figures come from the full run, docs/how/calibration.md)."""
    proc = subprocess.run([*calibration(), "--quick", "--data", str(shared_data)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for heading in ("### compare:", "### compare: spiky cells", "### compare_clustered:", "### compare_clustered with unequal cluster sizes",
                    "### Equivalence:", "### PPI++", "### compare_segments:",
                    "### rank_agreement:", "### label_agreement:", "### results_table:"):
        assert heading in out
    for column in ("edgeworth (default)", "| signflip |", "| t |", "studentized", "percentile", "BCa",
                   "bootstrap-t (Hall)", "width studentized", "equal-tailed", "t fallback", "capped only",
                   "one dominant, synthetic", "jumps, synthetic", "| RR@10 |", "| synthetic |",
                   "randomization centred", "t symmetric", "power randomization", "skew warning", "cluster-t",
                   "type-I sign-flip", "t-based TOST (default)", "z on bootstrap SE", "jackknife-edgeworth (default)",
                   "| jackknife-t |", "z (ppi_py)",
                   "gold-only t", "FDR t", "FDR randomization", "jackknife (default)", "m-out-of-n basic",
                   "i.i.d. (pairs)", "| near-tie (8 systems) |", "| GMAP | exp(t of mean log) |",
                   "| AP | t, clipped to range |"):
        assert column in out, column
    # every table row carries rates with their Monte-Carlo SE
    rows = [line for line in out.splitlines() if line.startswith("| DL-2019") or line.startswith("| nDCG@10")]
    assert rows and all("(" in line for line in rows)


@pytest.mark.shared_data
@pytest.mark.slow
def test_table_benchmark_quick_run(shared_data):
    """benchmarks/speed --section table_dl2021 runs end to end on 6 DL-2021 runs (no timing asserted)."""
    if not (shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021" / "passages-runs" / "p_bm25.gz").exists():
        pytest.skip("DL-2021 runs missing from the shared data")
    proc = subprocess.run([*speed("table_dl2021"), "--quick", "--no-ranx", "--data", str(shared_data)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "pairedframe table (evaluate + compare + LaTeX)" in proc.stdout and "5 s target" in proc.stdout


@pytest.mark.shared_data
@pytest.mark.slow
def test_evaluate_table_benchmark_quick_run(shared_data):
    """benchmarks/speed --section evaluate_table_dl2021 times both formats on 6 DL-2021 runs (no timing asserted)."""
    if not (shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021" / "passages-runs" / "p_bm25.gz").exists():
        pytest.skip("DL-2021 runs missing from the shared data")
    proc = subprocess.run([*speed("evaluate_table_dl2021"), "--quick", "--data", str(shared_data)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "| table |" in proc.stdout and "| csv |" in proc.stdout and "1.5x target" in proc.stdout


@pytest.mark.shared_data
@pytest.mark.slow
def test_adaptive_calibration_quick_run_prints_rates_with_monte_carlo_errors(shared_data):
    proc = subprocess.run([*calibration("adaptive"), "--quick", "--data", str(shared_data)],
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


def _quick_dl21(section: str, shared_data) -> subprocess.CompletedProcess:
    proc = subprocess.run([*speed(section), "--quick", "--data",
                           str(shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021")],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return proc


@pytest.mark.shared_data
@pytest.mark.slow
def test_segments_benchmark_quick_run_reports_the_adaptive_row(shared_data):
    proc = _quick_dl21("segments", shared_data)
    assert "real DL-2021 nDCG@10 pairs" in proc.stdout
    assert "adaptive randomization + t CI" in proc.stdout
    assert "certified 200 of 200 rows" in proc.stdout
    agree = re.search(r"BH decisions agree on (\d+) of 20", proc.stdout)
    assert agree and int(agree.group(1)) >= 19          # the brute force has Monte-Carlo error of its own


@pytest.mark.shared_data
@pytest.mark.slow
def test_adaptive_compare_quick_run_certifies_the_family(shared_data):
    proc = _quick_dl21("adaptive_compare", shared_data)
    adaptive = [line.split() for line in proc.stdout.splitlines() if ": adaptive" in line]
    assert len(adaptive) == 2                                   # Holm and BH
    assert all(row[-1] == "35/35" for row in adaptive)


@pytest.mark.shared_data
@pytest.mark.slow
def test_tukey_calibration_quick_run_prints_fwer_with_monte_carlo_errors(shared_data):
    proc = subprocess.run([*calibration("tukey"), "--quick", "--data", str(shared_data)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| DL-2019")]
    assert len(rows) == 2 and all(re.search(r"\d\.\d{3} \(\d\.\d{3}\)", row) for row in rows)


@pytest.mark.shared_data
@pytest.mark.slow
def test_report_benchmark_quick_run_writes_its_table_with_the_command(shared_data, tmp_path):
    """benchmarks/speed --section report_dl2021 times the report next to ``pairedframe evaluate`` (the reference),
    ``table`` and start-up and, with --output, writes what it printed under a first line naming the
    command (docs/guide/report.md and docs/how/benchmarks.md include it)."""
    out = tmp_path / "report.md"
    proc = subprocess.run([*speed("report_dl2021"), "--quick", "--data",
                           str(shared_data), "--output", str(out)], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!-- printed by: python benchmarks/speed --section report_dl2021 --quick")
    assert proc.stdout.strip() in text
    row = r"^\| pairedframe (report|evaluate|table|--help)[^|]*((?:\| [\d.]+ ){5})\|$"
    rows = re.findall(row, text, flags=re.M)
    assert [r[0] for r in rows] == ["report", "evaluate", "table", "--help"]
    wall, slowest, cpu, x_wall, x_cpu = rows[1][1].replace("|", "").split()
    assert (x_wall, x_cpu) == ("1.00", "1.00") and float(slowest) >= float(wall) > 0 and float(cpu) > 0
    assert re.search(r"report: [\d.]+ MB \(within 5 MB\)", text)


def test_cluster_edgeworth_small_g_quick_run_shows_no_correction_at_two_clusters():
    proc = subprocess.run([*calibration("edgeworth"), "--quick"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = {int(line.split()[0]): line.split() for line in proc.stdout.splitlines()
            if re.match(r"\s*\d+\s+\d+\s", line)}
    assert sorted(rows) == [2, 3, 4, 5, 6, 8, 10]
    assert rows[2][-2:] == ["1.000", "1.000"]                 # G = 2: the Edgeworth quantile is the t quantile
    assert float(rows[3][-1]) < 1.01                           # G = 3: under 1 % at most
    assert rows[2][2] == rows[2][5]                            # so the two coverages are the same


def test_each_benchmark_folder_has_one_entry_that_lists_its_sections_and_refuses_an_unknown_one():
    """benchmarks/speed and benchmarks/calibration are the two entries (issue 21 item 6); every module of a
    folder other than shared helpers is a section of its entry."""
    listing = subprocess.run([*speed("evaluate")[:2], "--help"], capture_output=True, text=True, timeout=120)
    assert listing.returncode == 0
    sections = {p.stem for p in (BENCHMARKS / "speed").glob("*.py") if not p.stem.startswith("_")}
    assert sections and all(f"  {name} " in listing.stdout for name in sections)
    studies = subprocess.run([*calibration(), "--help"], capture_output=True, text=True, timeout=120)
    assert studies.returncode == 0 and "--section" in studies.stdout
    for name in ("adaptive", "cluster_fpr", "edgeworth", "tukey", "ppi_dl19", "too_few", "one_sided",
                 "clustered_one_sided"):
        assert f"  {name} " in studies.stdout
    unknown = subprocess.run(speed("nope"), capture_output=True, text=True, timeout=120)
    assert unknown.returncode == 2 and "unknown section 'nope'" in unknown.stderr


@pytest.mark.shared_data
def test_small_n_calibration_quick_run_shows_the_default_equal_to_t_below_five_queries(shared_data):
    proc = subprocess.run([*calibration("small_n"), "--quick", "--data", str(shared_data)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("|")[1:-1] for line in proc.stdout.splitlines() if line.startswith("| DL-2019")]
    assert {int(r[2]) for r in rows} == {2, 3, 4, 5, 6, 10}
    for r in rows:
        default, resampled, t = (cell.strip() for cell in r[3:6])
        assert "(" in default and "(" in t                      # rates with their Monte-Carlo SE
        if int(r[2]) < 5:
            assert default == t and r[6].strip() == "1.00"      # below MIN_BOOTSTRAP_N: the t interval
        else:
            assert default == resampled


@pytest.mark.shared_data
def test_too_few_calibration_quick_run_shows_the_capped_default_containing_the_t_interval(shared_data):
    proc = subprocess.run([*calibration("too_few"), "--quick", "--data", str(shared_data)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in proc.stdout.splitlines()
            if line.startswith("| DL-2019")]
    assert {(r[3], r[4]) for r in rows} == {("0.999", "100 / 4999"), ("0.95", "18 / 999")}
    for r in rows:
        assert all("(" in cell for cell in r[5:8])                 # rates with their Monte-Carlo SE
        capped, t, _ = (int(v) for v in r[8].split(" / "))
        assert capped <= t                # 1.5 x t's quantile: the capped interval contains the t interval
        assert r[9] == "1.50 (0.000)"     # the cap itself, on every sample with spread


@pytest.mark.shared_data
def test_one_sided_calibration_quick_run_prints_both_bounds_and_both_tests_with_monte_carlo_errors(shared_data):
    proc = subprocess.run([*calibration("one_sided"), "--quick", "--data", str(shared_data)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "default lower | default upper | t lower | t upper" in proc.stdout
    assert "randomization greater centred | randomization less centred" in proc.stdout
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in proc.stdout.splitlines()
            if line.startswith(("| DL-2019", "| all"))]
    coverage = [r for r in rows if r[3] in ("0.90", "0.95")]
    type_one = [r for r in rows if r[3] in ("0.10", "0.05")]
    assert {(r[1], r[3]) for r in coverage} == {(m, lv) for m in ("nDCG@10", "AP") for lv in ("0.90", "0.95")}
    assert {(r[1], r[3]) for r in type_one} >= {("pooled", "0.10"), ("pooled", "0.05")}
    for r in coverage:
        assert len(r) == 14 and all(re.fullmatch(r"\d\.\d{3} \(\d\.\d{3}\)", c) for c in r[4:])
    for r in type_one:
        assert len(r) == 12 and all(re.fullmatch(r"\d\.\d{3} \(\d\.\d{3}\)", c) for c in r[4:])


@pytest.mark.shared_data
def test_clustered_one_sided_calibration_quick_run_prints_bounds_tests_and_the_skewed_rows(shared_data):
    proc = subprocess.run([*calibration("clustered_one_sided"), "--quick", "--data", str(shared_data)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "default (cluster t) lower | default (cluster t) upper | signflip lower" in proc.stdout
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in proc.stdout.splitlines()
            if line.startswith(("| DL-2019", "| Exp(1)"))]
    coverage = [r for r in rows if r[3] in ("0.90", "0.95")]
    type_one = [r for r in rows if r[3] in ("0.10", "0.05")]
    assert {(r[1], r[3]) for r in coverage} == {(m, lv) for m in ("nDCG@10", "AP") for lv in ("0.90", "0.95")}
    assert {r[0] for r in type_one} == {"DL-2019", "Exp(1) - 1 cluster effects"}
    for r in coverage:
        assert len(r) == 10 and all(re.fullmatch(r"\d\.\d{3} \(\d\.\d{3}\)", c) for c in r[4:])
    for r in type_one:
        assert len(r) == 6 and all(re.fullmatch(r"\d\.\d{3} \(\d\.\d{3}\)", c) for c in r[4:])
