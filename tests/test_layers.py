"""Every import points down the flow: io -> measures/engines -> evaluation -> stats -> comparison -> report/cli.

Function-local imports count too (a lazy import up the flow is still a back-edge).  The package's
``__init__`` (the public API) may import from every layer.  ``stats/`` is pure numpy/scipy: it imports
nothing of the package but ``errors`` and itself, and no table library.  No module imports itself back
through a chain of others (no import circle).
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
    "errors": 0, "checks": 0, "tables": 0, "sql_files": 0, "example": 0,
    "io": 1,
    "measures": 2,
    "engines": 3,
    "evaluation": 4, "sql_macros": 4,
    "stats": 5,
    "comparison": 6,
    "report": 7,
    "cli": 8, "__main__": 8,
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


def _all_imports(path: Path) -> list[tuple[int, str, tuple[str, ...]]]:
    """Every import of ``path`` (top-level or inside a function): line, absolute module, names taken."""
    module = _module_name(path)
    return _parse_imports(path.read_text(), module if path.name == "__init__.py" else module.rsplit(".", 1)[0])


def _parse_imports(source: str, package: str) -> list[tuple[int, str, tuple[str, ...]]]:
    """The imports of a module of ``package`` (relative imports resolved against it)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name, ()) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.append((node.lineno, target, tuple(a.name for a in node.names)))
    return found


def _imports(path: Path) -> list[tuple[int, str]]:
    return [(line, target) for line, target, _ in _all_imports(path) if target.startswith("pairedframe")]


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


#: What ``stats/`` may import of the package besides itself.
STATS_MAY_IMPORT = {"pairedframe.errors"}
#: Table and engine libraries ``stats/`` never imports (it works on numpy arrays only).
TABLE_LIBRARIES = {"polars", "duckdb", "pyarrow", "pandas", "pyspark", "sqlglot"}


def test_stats_is_pure_numpy():
    """``stats/`` imports only ``errors`` and itself of the package, and no table or engine library."""
    offending = []
    for path in sorted((PACKAGE / "stats").rglob("*.py")):
        for line, target, _ in _all_imports(path):
            top = target.split(".")[0]
            own = target.startswith("pairedframe.stats") or target in STATS_MAY_IMPORT
            if (top == "pairedframe" and not own) or top in TABLE_LIBRARIES:
                offending.append(f"{path.relative_to(PACKAGE)}:{line} imports {target}")
    assert not offending, "stats/ must stay pure numpy:\n" + "\n".join(offending)


def _import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (``from pkg import sub`` counts as importing ``pkg.sub``)."""
    modules = {_module_name(p): p for p in _sources()}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        edges = set()
        for _, target, names in _all_imports(path):
            if not target.startswith("pairedframe"):
                continue
            submodules = {f"{target}.{n}" for n in names} & modules.keys()
            edges |= submodules or ({target} & modules.keys())
        graph[module] = edges - {module}
    return graph


def _import_circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    return circles


def test_import_circle_finder_against_known_graphs():
    """The circle finder sees a three-module circle, a self-contained pair, and nothing in a chain."""
    chain = {"a": {"b"}, "b": {"c"}, "c": set()}
    assert _import_circles(chain) == []
    circle = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _import_circles(circle) == [["a", "b", "c"]]
    two = {"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c", "a"}}
    assert sorted(_import_circles(two)) == [["a", "b"], ["c", "d"]]


#: Circles still to be broken (issue 21); strict, so removing one fails here until its mark goes.
_KNOWN_CIRCLES: dict[str, str] = {}


@pytest.mark.parametrize("layer", [
    pytest.param(layer, marks=pytest.mark.xfail(strict=True, reason=_KNOWN_CIRCLES[layer]))
    if layer in _KNOWN_CIRCLES else layer
    for layer in sorted(LAYERS)
])
def test_package_has_no_import_circle(layer):
    """No module of the layer reaches itself through its imports, lazy (function-local) imports included."""
    circles = [c for c in _import_circles(_import_graph()) if any(_layer_of(m) == layer for m in c)]
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


#: The comparison entry points and the in-engine backends they hand engine tables to.
ENTRY_POINTS = {"pairedframe.comparison.paired", "pairedframe.comparison.multi", "pairedframe.comparison.clustered",
                "pairedframe.comparison.segments", "pairedframe.comparison.pair"}
BACKENDS = ("by_join", "by_join_clustered", "by_join_segments", "resample_index", "streams", "options", "pairing",
            "assemble", "segment_tables", "cluster_tables", "kernels", "per_query", "comparison_stats",
            "segment_stats", "clustered_stats")


@pytest.mark.parametrize("module", BACKENDS)
def test_shared_comparison_steps_import_no_entry_point(module):
    """The backends and shared steps of comparison/ depend only on shared modules, never on an entry point
    (so an entry point may dispatch to its backend without an import circle)."""
    graph = _import_graph()
    assert not graph[f"pairedframe.comparison.{module}"] & ENTRY_POINTS


def _subpackage(module: str) -> str:
    """``pairedframe.io.convert`` -> ``io``; a top-level module is its own (``errors``); the package ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _private_imports_across(module: str, imports: list[tuple[int, str, tuple[str, ...]]]) -> list[str]:
    """The imports of ``module`` that reach into another subpackage's privates: an underscore name
    (``from pairedframe.io.stream import _x``) or a name in an underscore module (``stats._results``)."""
    found = []
    for line, target, names in imports:
        if not target.startswith("pairedframe.") or _subpackage(target) == _subpackage(module):
            continue
        taken = [n for n in names if _private(n)] + [p for p in target.split(".")[1:] if _private(p)]
        if taken:
            found.append(f"{module}:{line} takes {taken} from {target}")
    return found


def test_private_import_finder_against_known_imports():
    """The finder sees a private name and a private module of another subpackage, resolves relative
    imports, and lets a subpackage use its own privates."""
    source = ("from pairedframe.io.stream import _starts, frames\n"
              "from ..stats._results import Result\n"
              "from ._adaptive import counter\n"
              "def f():\n    from pairedframe.errors import _hint\n")
    found = _private_imports_across("pairedframe.comparison.kernels",
                                    _parse_imports(source, "pairedframe.comparison"))
    assert [f.split(" takes ")[1] for f in found] == [
        "['_starts'] from pairedframe.io.stream", "['_results'] from pairedframe.stats._results",
        "['_hint'] from pairedframe.errors"]


def test_no_private_name_is_imported_across_subpackages():
    """A name another subpackage needs is public in its module (issue 21): no underscore name or
    underscore module is imported from outside its subpackage, lazy imports included."""
    found = []
    for path in [*_sources(), PACKAGE / "__init__.py"]:
        found += _private_imports_across(_module_name(path), _all_imports(path))
    assert not found, "private names imported across subpackages:\n" + "\n".join(found)
