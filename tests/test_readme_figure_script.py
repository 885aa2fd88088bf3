"""examples/readme_figure.py (README's figure command): reads the data folder named by PAIREDFRAME_DATA and
stops with a message, not a traceback, when the data is absent."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "examples" / "readme_figure.py"


def _run(tmp_path: Path, data: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PAIREDFRAME_DATA": str(data)}
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=600)


def test_readme_figure_without_data_says_where_it_looked(tmp_path):
    empty = tmp_path / "no-data-here"
    empty.mkdir()
    done = _run(tmp_path, empty, "--out", str(tmp_path / "f.png"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"not under {empty}" in done.stderr and "PAIREDFRAME_DATA" in done.stderr
    done = _run(tmp_path, empty, "--out", str(tmp_path / "missing" / "f.png"))
    assert done.returncode == 2 and "--out" in done.stderr and "does not exist" in done.stderr


def test_readme_figure_reads_pairedframe_data(tmp_path, shared_data):
    """PAIREDFRAME_DATA names a folder of links to the real data whose "LLM" qrels are the NIST qrels: only
    a script that reads that folder (not its default ../shared/data) finds perfect agreement, tau_b = 1."""
    pytest.importorskip("matplotlib")
    data = tmp_path / "data"
    (data / "llm_labels_dl" / "results").mkdir(parents=True)
    for part in ("syndl", "anserini_tools", "llm_labels_dl/dl2019_runs"):
        (data / part).symlink_to(shared_data / part, target_is_directory=True)
    nist = shared_data / "anserini_tools" / "qrels.dl19-passage.txt"
    (data / "llm_labels_dl" / "results" / "dl2019_test_4prompts_llama70b.txt").symlink_to(nist)
    out = tmp_path / "f.png"
    done = _run(tmp_path, data, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 10_000
    assert re.search(r"kendall_tau_b\s*┆\s*1\.0\s", done.stdout), done.stdout
