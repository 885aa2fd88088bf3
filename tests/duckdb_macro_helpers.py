"""Shared by the tests of the DuckDB macros (tests/test_duckdb_macros_*.py): whether the installed duckdb
runs them, a connection with them registered, and evaluate / comparison helpers."""

from __future__ import annotations

import shutil
import sys
import warnings
from pathlib import Path

import duckdb
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import PairedFrameError

sys.path.insert(0, str(Path(__file__).parent))
from real_runs import run_paths  # noqa: E402

KEYS = ["system", "qid", "measure"]
#: A run and qrels every reader accepts.
RUN_OK = "301 Q0 d1 1 2.5 tag\n301 Q0 d2 2 1.5 tag\n"
QRELS_OK = "301 0 d1 1\n301 0 d2 0\n"


def macros_run_here() -> bool:
    try:
        pf.duckdb.check_duckdb()
    except PairedFrameError:
        return False
    return True


#: The macros need duckdb >= MIN_DUCKDB (the lowest-versions CI run has an older one: it checks the refusal).
NEED = ".".join(map(str, pf.duckdb.MIN_DUCKDB))
needs_macros = pytest.mark.skipif(not macros_run_here(),
                                  reason=f"the DuckDB macros need duckdb >= {NEED}, installed {duckdb.__version__}")


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    if not macros_run_here():
        pytest.skip(f"the DuckDB macros need duckdb >= {NEED}, installed {duckdb.__version__}")
    return pf.duckdb.register(duckdb.connect())


def evaluate_quietly(*args, **kwargs) -> pf.Evaluation:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # partly empty runs and levels above the grades warn; values are the point
        return pf.evaluate(*args, **kwargs)


def assert_same(expected: pl.DataFrame, got: pl.DataFrame) -> None:
    """Same rows and values bit for bit (both run the measure files of sql/ on DuckDB, sums in rank order)."""
    joined = expected.join(got, on=KEYS, how="full", suffix="_sql", coalesce=True)
    missing = joined.filter(pl.col("value").is_null() != pl.col("value_sql").is_null())
    assert expected.height == got.height and missing.height == 0, missing.head()
    differ = joined.filter(pl.col("value") != pl.col("value_sql"))
    assert differ.height == 0, differ.head()


def str_paths(shared_data: Path, globs: list[str]) -> list[str]:
    return [str(p) for p in run_paths(shared_data, globs)]


def duckdb_shell() -> str:
    found = shutil.which("duckdb") or str(Path(sys.executable).parent / "duckdb")
    if not Path(found).is_file():
        pytest.skip("the DuckDB shell is not installed (pip install duckdb-cli, the [test] extra)")
    return found
