"""The wheel carries the SQL and the example; README's commands and .ci/run stay in sync."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT


def _readme_blocks() -> list[str]:
    text = (REPO_ROOT / "README.md").read_text()
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def test_readme_test_command_is_what_ci_runs():
    test_command = _readme_blocks()[1].strip()
    ci_lines = [line.strip() for line in (REPO_ROOT / ".ci" / "run").read_text().splitlines()]
    assert test_command in ci_lines


def test_readme_first_command_runs_the_example():
    assert "pairedframe example" in _readme_blocks()[0]


@pytest.mark.slow
def test_wheel_contains_sql_and_example(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO_ROOT)],
        capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"could not build a wheel here (no build backend reachable?): {result.stderr[-300:]}")
    wheel = next(Path(tmp_path).glob("pairedframe-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for sql in (REPO_ROOT / "sql").glob("*.sql"):
        assert f"pairedframe/_sql/{sql.name}" in names
    for example in ("qrels.txt", "input.bm25", "input.reranker"):
        assert f"pairedframe/example/{example}" in names


def test_sql_loader_finds_every_measure_file():
    from pairedframe.sql_files import load_sql
    from pairedframe.measures import REGISTRY

    for spec in REGISTRY.values():
        assert "SELECT" in load_sql(spec.sql_file).upper()


def test_ci_lowest_versions_are_the_dependency_lower_bounds():
    # .ci/run installs .ci/lowest.txt and smoke-tests it: it must be exactly pyproject's lower bounds.
    import tomllib

    deps = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    bounds = dict(re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", d).groups() for d in deps)
    pinned = dict(line.split("==") for line in (REPO_ROOT / ".ci" / "lowest.txt").read_text().splitlines()
                  if line and not line.startswith("#"))

    def norm(version: str) -> tuple[int, ...]:
        parts = [int(p) for p in version.split(".")]
        return tuple(parts + [0] * (3 - len(parts)))

    assert {k: norm(v) for k, v in bounds.items()} == {k: norm(v) for k, v in pinned.items()}


def test_import_does_not_load_scipy_stats():
    """scipy.stats costs about a second at import; the CLI starts without it (it is imported lazily
    where a function needs it: McNemar's binomial tail, rank correlations)."""
    import subprocess
    import sys

    code = "import sys, pairedframe, pairedframe.cli; print('scipy.stats' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_readme_is_short_and_links_to_existing_docs():
    """README stays a front page (at most 150 lines); the details live in docs/, and every docs/ link of
    the README points at a file that exists."""
    text = (REPO_ROOT / "README.md").read_text()
    assert len(text.splitlines()) <= 150
    links = re.findall(r"\]\((docs/[^)#]+)", text)
    assert links and all((REPO_ROOT / link).is_file() for link in links), \
        [link for link in links if not (REPO_ROOT / link).is_file()]


def test_python_dash_m_pairedframe_runs_the_console_scripts_app():
    """``python -m pairedframe --help`` exits 0 and lists the commands of ``pairedframe --help``."""
    import os

    from typer.testing import CliRunner

    from pairedframe.cli import app

    src = str(REPO_ROOT / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "pairedframe", "--help"], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    script = CliRunner().invoke(app, ["--help"])
    for command in ("evaluate", "compare", "table", "report", "segments", "analyze", "example", "sql"):
        assert command in script.stdout and re.search(rf"\b{command}\b", proc.stdout), (command, proc.stdout)


def test_pairedframe_version_prints_the_version_of_pyproject_and_exits_0():
    """``pairedframe --version`` (and ``python -m pairedframe --version``) prints the package's version, the one
    pyproject.toml declares, on stdout, and runs no command."""
    import os
    import tomllib

    from typer.testing import CliRunner

    import pairedframe
    from pairedframe.cli import app

    declared = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert pairedframe.__version__ == declared
    script = CliRunner().invoke(app, ["--version"])
    assert script.exit_code == 0 and script.stdout == f"pairedframe {declared}\n", script.output
    src = str(REPO_ROOT / "src")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "pairedframe", "--version"], capture_output=True, text=True, env=env,
                          timeout=300)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"pairedframe {declared}\n", "")
    assert CliRunner().invoke(app, ["--version", "evaluate"]).stdout == f"pairedframe {declared}\n"   # eager
