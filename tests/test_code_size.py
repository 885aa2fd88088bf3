"""comparison/ stays readable: no function longer than 80 lines of code, no module over 500 lines (issue 21).

Lines of code: docstrings, blank lines and comment-only lines aside.  The functions and modules that are
still over the limit are listed with their present size as a ceiling: they may shrink (then lower or drop
the entry; a stale entry fails too), never grow, and nothing new joins them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pairedframe

COMPARISON = Path(pairedframe.__file__).parent / "comparison"
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 500

#: Still too long (issue 21 item 1 and 3 split them): ``module:function`` -> lines of code today.
LONG_FUNCTIONS: dict[str, int] = {}
#: Still too large: module -> lines today.
LARGE_MODULES: dict[str, int] = {}


def _code_lines(source: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    body = node.body
    docstring = isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
        and isinstance(body[0].value.value, str)
    first = (body[1].lineno if len(body) > 1 else node.end_lineno + 1) if docstring else body[0].lineno
    lines = source[first - 1:node.end_lineno]
    return sum(1 for line in lines if line.strip() and not line.strip().startswith("#"))


def _function_sizes() -> dict[str, int]:
    sizes = {}
    for path in sorted(COMPARISON.glob("*.py")):
        text = path.read_text()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                sizes[f"{path.name}:{node.name}"] = _code_lines(text.splitlines(), node)
    return sizes


def test_code_lines_count_code_only():
    text = 'def f():\n    """Doc.\n\n    More."""\n    # why\n\n    x = 1\n    return x\n'
    node = ast.parse(text).body[0]
    assert _code_lines(text.splitlines(), node) == 2


def test_no_comparison_function_grows_past_80_lines():
    sizes = _function_sizes()
    too_long = {name: n for name, n in sizes.items() if n > LONG_FUNCTIONS.get(name, MAX_FUNCTION_LINES)}
    assert not too_long, f"functions over their limit (80 lines of code, or their listed ceiling): {too_long}"
    stale = {name: sizes.get(name) for name in LONG_FUNCTIONS if sizes.get(name, 0) <= MAX_FUNCTION_LINES}
    assert not stale, f"now within 80 lines (or gone): drop them from LONG_FUNCTIONS: {stale}"


def test_no_comparison_module_grows_past_500_lines():
    sizes = {p.name: len(p.read_text().splitlines()) for p in COMPARISON.glob("*.py")}
    too_large = {name: n for name, n in sizes.items() if n > LARGE_MODULES.get(name, MAX_MODULE_LINES)}
    assert not too_large, f"modules over their limit (500 lines, or their listed ceiling): {too_large}"
    stale = {name: sizes.get(name) for name in LARGE_MODULES if sizes.get(name, 0) <= MAX_MODULE_LINES}
    assert not stale, f"now within 500 lines (or gone): drop them from LARGE_MODULES: {stale}"


def test_no_package_module_grows_past_500_lines():
    package = COMPARISON.parent
    sizes = {str(p.relative_to(package)): len(p.read_text().splitlines()) for p in package.rglob("*.py")}
    too_large = {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES}
    assert not too_large, f"modules over 500 lines (split them by what they do): {too_large}"
