"""Conventions of the test suite itself: hypothesis tests reject cases with ``assume()`` (an early
``return`` passes the case silently), and test modules are named after what they test."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).parent


def _given_tests(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any("given" in ast.unparse(d) for d in node.decorator_list):
            yield node


def _own_returns(function: ast.FunctionDef):
    """The ``return`` statements of ``function`` itself, not of functions nested in it."""
    stack = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            yield node
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def test_hypothesis_tests_use_assume_not_an_early_return():
    found = [f"{path.relative_to(TESTS)}:{ret.lineno} ({test.name})"
             for path in sorted(TESTS.rglob("*.py"))
             for test in _given_tests(ast.parse(path.read_text()))
             for ret in _own_returns(test)]
    assert not found, "use hypothesis.assume() instead of returning early:\n" + "\n".join(found)


def test_own_returns_finds_a_return_outside_nested_functions():
    tree = ast.parse("def t():\n    def inner():\n        return 1\n    if x:\n        return\n")
    assert [r.lineno for r in _own_returns(tree.body[0])] == [5]


def test_test_modules_are_named_after_what_they_test():
    finder_words = ("finding", "nits", "newcomer", "tester", "reviewer")
    named = [p.name for p in TESTS.rglob("test_*.py") if any(w in p.stem for w in finder_words)]
    assert not named, f"test modules named after who found a bug, not what they test: {named}"
