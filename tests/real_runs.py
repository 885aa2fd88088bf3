"""Every run file of ../shared/data that has TREC qrels, by qrels file: the real-run sweeps of the engines
(tests/test_duckdb_macros_values.py, tests/test_spark_engine.py) read the same list."""

from __future__ import annotations

from pathlib import Path

#: qrels path -> globs of its run files (relative to the shared data folder).
REAL_RUNS = {
    "syndl/TREC-DLs-files/TREC-DL-2021/qrels-pass.txt": ["syndl/TREC-DLs-files/TREC-DL-2021/passages-runs/*"],
    "syndl/TREC-DLs-files/TREC-DL-2019/qrels-pass.txt": ["syndl/TREC-DLs-files/TREC-DL-2019/passages-runs/*",
                                                          "llm_labels_dl/dl2019_runs/input.*"],
    "trectools_robust03/qrel/robust03_qrels.txt": ["trectools_robust03/runs/input.*.gz"],
    "trec_eval/qrels.test": ["trec_eval/results.test", "trec_eval/results.trunc"],
    "dl_mia/qrels.txt": ["dl_mia/runs/*"],
    "ranx/qrels.trec": ["ranx/run.trec"],
    "ir_measures/compat.qrels": ["ir_measures/compat.run"],
}


def run_paths(shared_data: Path, globs: list[str]) -> list[Path]:
    """The files the globs match under ``shared_data``, sorted, each once."""
    return sorted({p for g in globs for p in shared_data.glob(g) if p.is_file()})
