"""Every ```python block of the documentation (README's tour, getting started, the guides) runs, in
order, one namespace per page (so the docs cannot drift from the code); the docs' structure holds
every guide and every public name."""

from __future__ import annotations

import os
import re
import shutil
import warnings
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

DOCS = REPO_ROOT / "docs"
PAGES = [REPO_ROOT / "README.md", *sorted([DOCS / "getting_started.md", *(DOCS / "guide").glob("*.md")])]
_BLOCK = re.compile(r"^```python\n(.*?)^```", flags=re.S | re.M)


def python_blocks(page: Path) -> list[tuple[int, str]]:
    """(line number, code) of each ```python block of a markdown page."""
    text = page.read_text(encoding="utf-8")
    return [(text[:m.start()].count("\n") + 2, m.group(1)) for m in _BLOCK.finditer(text)]


def requirements(page: Path) -> set[str]:
    """What a page declares it needs at its top: ``<!-- requires: spark, shared_data -->``."""
    found = re.search(r"<!--\s*requires:\s*([^>]*?)\s*-->", page.read_text(encoding="utf-8"))
    return {w.strip() for w in found.group(1).split(",")} if found else set()


def test_python_blocks_are_found():
    pages = {p.name: len(python_blocks(p)) for p in PAGES}
    assert pages["getting_started.md"] >= 5 and pages["report.md"] >= 2
    assert sum(pages.values()) >= 30


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_guide_examples_run(page, tmp_path, monkeypatch, request):
    pytest.importorskip("matplotlib", reason="the guides draw plots (pip install '.[plot]')")
    pytest.importorskip("great_tables", reason="the guides render HTML tables ('.[report]')")
    blocks = python_blocks(page)
    if not blocks:
        pytest.skip(f"{page.name} has no python example")
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    needs = requirements(page)
    if "shared_data" in needs:
        namespace["DATA"] = request.getfixturevalue("shared_data")
    if "spark" in needs:  # skips without pyspark or Java; the page makes its own session (never a given name)
        request.getfixturevalue("spark")
    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    for f in (qrels, *runs):
        shutil.copy(f, tmp_path / Path(f).name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    for line, code in blocks:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")       # the examples' warnings are part of what they show
            try:
                exec(compile(code, f"{page.relative_to(REPO_ROOT)}:{line}", "exec"), namespace)
            except Exception as exc:  # noqa: BLE001 -- name the page and line of the failing block
                raise AssertionError(f"{page.name}, the python block at line {line} failed: "
                                     f"{type(exc).__name__}: {exc}") from exc


def test_every_guide_page_is_in_the_guide_index():
    index = (DOCS / "guide" / "index.md").read_text(encoding="utf-8")
    assert re.search(r"^\*$", index, flags=re.M), "the guide index globs the remaining pages"


def test_api_reference_lists_every_public_name():
    import sys

    import pairedframe

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import pf_api
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    text = pf_api.api_text()
    listed = set(re.findall(r"^   ~?([\w.]+)$", text, flags=re.M))
    names = {n.rsplit(".", 1)[-1] for n in listed}
    assert names == set(pairedframe.__all__)


def test_cli_reference_covers_every_command_and_option():
    import sys

    import typer

    from pairedframe.cli import app

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import pf_cli
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    text = "\n".join(pf_cli.cli_rst())
    group = typer.main.get_command(app)
    ctx = group.make_context("pairedframe", [], resilient_parsing=True)
    for name in group.list_commands(ctx):
        assert f"pairedframe {name}\n" in text
        for p in group.get_command(ctx, name).params:
            if p.param_type_name == "option" and p.name != "help":
                assert f"``{', '.join([*p.opts, *p.secondary_opts])}``" in text, (name, p.name)


@pytest.mark.skipif(os.environ.get("PAIREDFRAME_DOCS_BUILD") != "1",
                    reason="the Sphinx build runs in .ci/run (set PAIREDFRAME_DOCS_BUILD=1 to run it here)")
def test_docs_build_without_warnings(tmp_path):
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS),
                           str(tmp_path / "html")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_included_results_nest_under_the_page_and_a_missing_one_names_its_command(tmp_path):
    import sys
    from types import SimpleNamespace

    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        import pf_results
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    assert pf_results._nest("<!-- x -->\n# Title\n\n## A\n### B\n#notaheading\n") == \
        "<!-- x -->\n**Title**\n\n### A\n### B\n#notaheading\n"
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "parity.md").write_text("## counts\n| a |\n")
    pf_results._copy(SimpleNamespace(srcdir=str(tmp_path)))
    assert (tmp_path / "_generated" / "parity.md").read_text() == "### counts\n| a |\n"
    missing = (tmp_path / "_generated" / "report_dl2021.md").read_text()
    assert "Not generated in this checkout" in missing and "benchmarks/speed --section report_dl2021 --output" in missing


def _resolves(dotted: str) -> bool:
    """Whether ``pairedframe.a.b`` names a module or an attribute of one."""
    import importlib

    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for a in parts[i:]:
                obj = getattr(obj, a)
        except AttributeError:
            return False
        return True
    return False


def test_every_pf_name_in_the_docs_exists():
    """Prose and code alike: `pf.<name>` is a public name and `pairedframe.<dotted>` resolves (the runnable
    examples cover only the names their code blocks call)."""
    import pairedframe as pf

    built = ("_build", "_generated", "generated")   # what sphinx writes into docs/ (.gitignore): .ci/run builds first
    pages = [REPO_ROOT / "README.md",
             *(p for p in sorted([*DOCS.rglob("*.md"), *DOCS.rglob("*.rst")])
               if not set(p.relative_to(DOCS).parts[:-1]) & set(built) and p != DOCS / "reference" / "api.rst")]
    missing = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for m in re.finditer(r"(?<![\w.])pf\.([A-Za-z_]\w*)", text):
            if not hasattr(pf, m.group(1)):
                missing.append(f"{page.relative_to(REPO_ROOT)}:{text[:m.start()].count(chr(10)) + 1}: pf.{m.group(1)}")
        for m in re.finditer(r"(?<![\w.])(pairedframe(?:\.[A-Za-z_]\w*)+)(?!\w)", text):
            if not m.group(1).endswith(".sql") and not _resolves(m.group(1)):
                missing.append(f"{page.relative_to(REPO_ROOT)}:{text[:m.start()].count(chr(10)) + 1}: {m.group(1)}")
    assert not missing, "names in the docs that pairedframe does not have:\n" + "\n".join(missing)


def test_readme_cli_tour_runs_as_written_in_a_fresh_folder(tmp_path):
    """README's ```bash block of the tour (pairedframe commands only) runs line by line in an empty folder:
    the example's files come from `pairedframe example --copy-to .`, not from the package's folder."""
    import shlex
    import subprocess
    import sys

    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [m.group(1) for m in re.finditer(r"^```bash\n(.*?)^```", text, flags=re.S | re.M)
              if "pairedframe report" in m.group(1)]
    assert len(blocks) == 1
    lines = [shlex.split(line, comments=True) for line in blocks[0].splitlines() if line.strip()]
    assert all(words[0] == "pairedframe" for words in lines)
    for words in lines:
        proc = subprocess.run([sys.executable, "-m", "pairedframe", *words[1:]], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert proc.returncode == 0, (words, proc.stderr)
    assert (tmp_path / "report.html").stat().st_size > 10_000


def test_example_copy_to_refuses_to_overwrite_and_a_missing_folder(tmp_path):
    import subprocess
    import sys

    def example(*args):
        return subprocess.run([sys.executable, "-m", "pairedframe", "example", *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=300)

    (tmp_path / "input.bm25").write_text("mine\n")
    clash = example("--copy-to", ".")
    assert clash.returncode == 2 and "input.bm25 already exist" in clash.stderr and "nothing was copied" in clash.stderr
    assert (tmp_path / "input.bm25").read_text() == "mine\n" and not (tmp_path / "qrels.txt").exists()
    missing = example("--copy-to", "nowhere")
    assert missing.returncode == 2 and "nowhere is not an existing folder" in missing.stderr
