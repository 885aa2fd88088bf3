"""Shared fixtures: where the real evaluation data lives, and skips when it (or an oracle) is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("PAIREDFRAME_DATA", REPO_ROOT.parent / "shared" / "data"))


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

    session = (SparkSession.builder.master("local[2]").appName("pairedframe-tests")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2").config("spark.default.parallelism", "2")
               .config("spark.driver.memory", "4g").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
