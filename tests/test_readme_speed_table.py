"""README's speed table is the one benchmarks/readme_table.py writes from the printed results (issue 22 item 4)."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _module():
    spec = importlib.util.spec_from_file_location("readme_table", ROOT / "benchmarks" / "readme_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_readme_speed_table_matches_the_tables_the_benchmarks_printed():
    table = _module()
    assert table.readme_block((ROOT / "README.md").read_text(encoding="utf-8")) == table.render()


def test_readme_speed_table_quotes_each_ratio_as_printed_in_its_results_file():
    table = _module()
    text = table.render()
    evaluate = (ROOT / "docs" / "results" / "evaluate.md").read_text(encoding="utf-8")
    ratio = next(line.split()[3] for line in evaluate.splitlines() if "pytrec_eval / pairedframe" in line)
    assert f"{ratio}× faster than pytrec_eval" in text
    assert text.count("compare_large.md") == 3 and "spark.md" in text


def test_readme_speed_table_names_the_results_file_a_ratio_is_missing_from(tmp_path, monkeypatch):
    table = _module()
    for name in ("evaluate.md", "compare_large.md", "spark.md"):
        shutil.copy(ROOT / "docs" / "results" / name, tmp_path / name)
    text = (tmp_path / "spark.md").read_text(encoding="utf-8")
    (tmp_path / "spark.md").write_text(text.replace("partitions", "by sql"), encoding="utf-8")
    monkeypatch.setattr(table, "RESULTS", tmp_path)
    with pytest.raises(ValueError, match="spark.md: no 'partitions' row"):
        table.render()
    (tmp_path / "evaluate.md").unlink()
    with pytest.raises(FileNotFoundError, match="evaluate.md is missing"):
        table.render()
