"""The evaluate benchmark script runs end to end on tiny sizes (a smoke run: no timing is asserted;
speed claims come from running the script itself, see README's Benchmarks)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "evaluate.py"


def test_evaluate_benchmark_quick_run_prints_ratios_against_pytrec_eval():
    pytest.importorskip("pytrec_eval", reason="pytrec_eval is in the oracles extra")
    proc = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--tools", "pairedframe", "pairedframe-polars",
                           "pytrec_eval"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    table = [line.split() for line in proc.stdout.splitlines()]
    rows = {parts[0]: parts for parts in table if len(parts) == 5 and parts[3].isdigit()}
    assert {"pairedframe", "pairedframe-polars", "pytrec_eval"} <= set(rows)
    assert rows["pairedframe"][3] == rows["pytrec_eval"][3] == "800"  # 200 queries x 4 measures each
    assert "faster than the fastest peer" in proc.stdout


def test_interleaved_benchmark_quick_run_prints_the_ratio_to_grouped(tmp_path):
    script = SCRIPT.parent / "interleaved.py"
    proc = subprocess.run([sys.executable, str(script), "--queries", "300", "--docs", "50", "--dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "x the grouped time" in proc.stdout
    rows = [line.split() for line in proc.stdout.splitlines() if line.startswith(("grouped ", "shuffled "))]
    assert len(rows) == 2 and rows[0][3] == rows[1][3] == "1200"    # same per-query rows both ways
    assert not list(tmp_path.iterdir())                               # the generated files are gone


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
