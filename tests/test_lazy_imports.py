"""``import pairedframe`` stays light and ``evaluate`` never loads the statistics.

The package's public names load on first access (``pairedframe.__getattr__``), and the CLI imports
each command's heavy modules inside the command. Each check runs in a fresh interpreter, since this
test process has long imported everything.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pairedframe

SRC = Path(pairedframe.__file__).parent.parent
#: Modules a bare evaluation must not load: statistics, comparisons, reports beyond plain output, Spark.
NEVER_FOR_EVALUATE = ("scipy", "pairedframe.comparison", "pairedframe.stats", "pairedframe.report.compare",
                      "pairedframe.report.results_table", "pyspark", "sqlglot", "matplotlib", "great_tables")
#: ... nor, with the default (polars) engine, DuckDB: importing it costs every evaluation ~0.1 s of start-up.
NEVER_FOR_DEFAULT_ENGINE = ("duckdb", "pairedframe.engines.duckdb_engine")


def _modules_after(code: str) -> list[str]:
    """sys.modules of a fresh interpreter (this worktree's source first) after running ``code``."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)), file=sys.__stderr__)"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stderr.strip().splitlines()[-1])


def _loaded(modules: list[str], roots: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == r or m.startswith(r + ".") for r in roots)]


def test_import_pairedframe_loads_no_table_library():
    modules = _modules_after("import pairedframe")
    assert not _loaded(modules, ("polars", "duckdb", "numpy", "pyarrow", "scipy")), modules
    assert _loaded(modules, ("pairedframe",)) == ["pairedframe", "pairedframe.errors"]


def test_evaluate_in_python_loads_no_statistics_and_no_duckdb():
    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    modules = _modules_after(f"import pairedframe as pf\npf.evaluate({[str(r) for r in runs]!r}, {str(qrels)!r}, "
                             "['nDCG@10', 'AP'])")
    assert "pairedframe.evaluation.pipeline" in modules
    assert not _loaded(modules, NEVER_FOR_EVALUATE + NEVER_FOR_DEFAULT_ENGINE)


@pytest.mark.parametrize("fmt", ["table", "trec", "json"])
def test_evaluate_command_loads_no_statistics_and_no_duckdb(fmt):
    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    argv = ["pairedframe", "evaluate", str(qrels), *map(str, runs), "-m", "nDCG@10", "-m", "AP", "-f", fmt]
    modules = _modules_after(f"import sys\nsys.argv = {argv!r}\nfrom pairedframe.cli import main\n"
                             "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code")
    assert "pairedframe.cli.evaluate_cmd" in modules and "pairedframe.evaluation.pipeline" in modules
    assert not _loaded(modules, NEVER_FOR_EVALUATE + NEVER_FOR_DEFAULT_ENGINE)


def test_compare_loads_the_comparison_layer_on_first_use():
    modules = _modules_after("import pairedframe as pf\npf.compare")
    assert "pairedframe.comparison" in modules and "scipy" in modules


def test_every_public_name_imports_from_the_package():
    names = ", ".join(pairedframe.__all__)
    modules = _modules_after(f"from pairedframe import {names}\nimport pairedframe as pf\n"
                             f"assert all(getattr(pf, n) is not None for n in pf.__all__)\n"
                             "assert set(pf.__all__) <= set(dir(pf))")
    assert "pairedframe.comparison" in modules


def test_lazy_map_type_checking_imports_and_all_agree():
    """Every name of ``__all__`` is eager (an error class) or in the lazy map, and the map names the
    same module as the import type checkers read under TYPE_CHECKING."""
    tree = ast.parse(Path(pairedframe.__file__).read_text())
    checking = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    imports = [node for node in checking.body if isinstance(node, ast.ImportFrom)]
    typed = {alias.name: node.module for node in imports if node.module != "pairedframe" for alias in node.names}
    modules = {alias.asname or alias.name: f"pairedframe.{alias.name}" for node in imports
               if node.module == "pairedframe" for alias in node.names}
    eager = {alias.name for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == "pairedframe.errors"
             for alias in node.names}
    assert typed == pairedframe._LAZY
    assert modules == pairedframe._MODULES
    assert set(pairedframe.__all__) == eager | set(pairedframe._LAZY) | set(pairedframe._MODULES)
    assert len(pairedframe.__all__) == len(set(pairedframe.__all__))


def test_lazy_names_are_the_defining_modules_objects():
    import importlib

    for name, module in pairedframe._LAZY.items():
        assert getattr(pairedframe, name) is getattr(importlib.import_module(module), name), name


def test_module_names_are_the_modules_and_report_stays_callable():
    """``pf.duckdb`` is :mod:`pairedframe.sql_macros`; ``pf.report`` the report package, callable as the
    HTML report, whose plain-output modules load without the comparison layer."""
    modules = _modules_after("import pairedframe as pf\nimport pairedframe.report.output\n"
                             "assert callable(pf.report) and pf.duckdb.register\nimport pairedframe.report.plots\n"
                             "assert pf.report.plots.__name__ == 'pairedframe.report.plots'")
    assert "pairedframe.sql_macros" in modules
    assert pairedframe.duckdb is importlib.import_module("pairedframe.sql_macros")
    assert pairedframe.report is importlib.import_module("pairedframe.report")
    assert pairedframe.report.Report is pairedframe.Report
    plain = _modules_after("import pairedframe.report.output")
    assert not _loaded(plain, NEVER_FOR_EVALUATE)


def test_subpackages_are_attributes_and_unknown_names_raise():
    assert pairedframe.io.as_run is pairedframe.as_run
    assert pairedframe.example.example_paths
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        pairedframe.not_a_name  # noqa: B018


def test_submodules_and_the_report_signature_are_reachable_after_import_pairedframe():
    """pf.report.plots, pf.report.forest and pf.stats.<module> without importing them first; the report's
    own parameters visible to inspect.signature (help() in a notebook)."""
    code = ("import inspect, pairedframe as pf; "
            "assert pf.report.plots.__name__ == 'pairedframe.report.plots'; "
            "assert pf.report.forest.__name__ == 'pairedframe.report.forest'; "
            "assert pf.stats.ttest.paired_t_test; "
            "assert {'baseline', 'judgments', 'max_delta_plots'} <= set(inspect.signature(pf.report).parameters)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_dir_of_the_package_lists_public_names_not_its_imported_helpers():
    import pairedframe as pf

    names = set(dir(pf))
    assert set(pf.__all__) <= names and "stats" in names and "report" in names
    assert not names & {"Any", "TYPE_CHECKING", "importlib", "annotations"}
