"""Every import points down the flow: io -> measures -> engines -> evaluation -> stats -> comparison -> report -> cli.

Function-local imports count too (a lazy import up the flow is still a back-edge).  The package's
``__init__`` (the public API) may import from every layer.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import pairedframe

PACKAGE = Path(pairedframe.__file__).parent

# Lower number = lower layer; a module may import its own layer and any layer below it.
LAYERS = {
    "errors": 0, "checks": 0, "tables": 0, "_sql": 0, "example": 0,
    "io": 1,
    "measures": 2,
    "engines": 3,
    "evaluation": 4, "sql_macros": 4,
    "stats": 5,
    "comparison": 6,
    "report": 7,
    "cli": 8,
}


def _layer_of(module: str) -> str:
    parts = module.split(".")
    assert parts[0] == "pairedframe", module
    return parts[1]


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.startswith("pairedframe")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if target.startswith("pairedframe"):
                found.append((node.lineno, target))
    return found


def _sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py")


def test_every_module_belongs_to_a_layer():
    unknown = {_layer_of(_module_name(p)) for p in _sources()} - set(LAYERS)
    assert not unknown, f"modules outside the declared layers: {sorted(unknown)}"


def test_imports_point_down_the_flow():
    back_edges = []
    for path in _sources():
        own = _layer_of(_module_name(path))
        for line, target in _imports(path):
            if target == "pairedframe":
                back_edges.append(f"{path.relative_to(PACKAGE)}:{line} imports the top-level package")
                continue
            other = _layer_of(target)
            if LAYERS[other] > LAYERS[own]:
                back_edges.append(f"{path.relative_to(PACKAGE)}:{line} ({own}) imports {target} ({other})")
    assert not back_edges, "imports pointing up the flow:\n" + "\n".join(back_edges)


#: Top-level packages of optional extras a module may import at its top.
OPTIONAL_DEPENDENCIES = {"sqlglot", "pyspark", "matplotlib"}


@pytest.mark.parametrize("module", sorted({_module_name(p) for p in _sources()}))
def test_import_as_binds_the_module(module):
    """``import pairedframe.x.y as m`` gives the module, never a function of the same name."""
    try:
        imported = importlib.import_module(module)
    except ModuleNotFoundError as exc:       # a module of an optional extra (spark: pyspark, sqlglot)
        if exc.name not in OPTIONAL_DEPENDENCIES:
            raise
        pytest.skip(f"{module} needs {exc.name} (an optional extra)")
    bound = pairedframe
    for part in module.split(".")[1:]:
        bound = getattr(bound, part)
    assert bound is imported, f"pairedframe attribute path {module} is {bound!r}, not the module"
