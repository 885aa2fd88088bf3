"""Shared fixtures: where the real evaluation data lives, and skips when it (or an oracle) is absent."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("PAIREDFRAME_DATA", REPO_ROOT.parent / "shared" / "data"))

# Hypothesis profiles. "default": random examples, as hypothesis draws them (finds new cases over
# time). "ci" (loaded when env CI is set, as .ci/run does): the same examples on every run, so CI
# never fails by chance; cases a random run found stay checked through @example. "deep" (opt-in,
# HYPOTHESIS_PROFILE=deep): many random examples per test (1500, or HYPOTHESIS_DEEP_EXAMPLES) to
# hunt for engine/reference discrepancies; tests take their budget from tests.strategies.budget.
settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("deep", max_examples=int(os.environ.get("HYPOTHESIS_DEEP_EXAMPLES", "1500")))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "default"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Root of the real public evaluation data (env PAIREDFRAME_DATA, default ../shared/data)."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real evaluation data not found at {SHARED_DATA} (set PAIREDFRAME_DATA)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def spark():
    """One local[2] Spark session for the whole run; skips (saying why) without pyspark or Java."""
    import shutil
    import subprocess

    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install '.[spark]')")
    pytest.importorskip("sqlglot", reason="sqlglot is not installed (pip install '.[spark]')")
    java = shutil.which("java") or (os.environ.get("JAVA_HOME") and os.path.join(os.environ["JAVA_HOME"], "bin", "java"))
    if not java or subprocess.run([java, "-version"], capture_output=True).returncode != 0:
        pytest.skip("Spark needs Java 17+ and no working `java` was found (install a JDK or set JAVA_HOME)")
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # Python workers with this environment's packages
    session = (SparkSession.builder.master("local[2]").appName("pairedframe-tests")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2").config("spark.default.parallelism", "2")
               .config("spark.driver.memory", "4g").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def four_systems_per_query():
    """Synthetic per-query table: bm25, rm3, bert_base, t5 on 30 queries, nDCG@10 and AP (seeded)."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(0)
    rows = []
    for s, m in {"bm25": 0.40, "rm3": 0.42, "bert_base": 0.55, "t5": 0.56}.items():
        for q in range(30):
            rows.append((s, f"q{q:02d}", "nDCG@10", float(np.clip(m + 0.15 * rng.standard_normal(), 0, 1))))
            rows.append((s, f"q{q:02d}", "AP", float(np.clip(m - 0.1 + 0.15 * rng.standard_normal(), 0, 1))))
    return pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")


@pytest.fixture
def duckdb_relation():
    """``relation(table)``: a polars table as a DuckDB relation on one connection held for the whole test and
    closed after it (duckdb 1.1 closes a connection nobody holds, and every relation of it with it)."""
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    yield lambda table: con.from_arrow(table.to_arrow())
    con.close()
