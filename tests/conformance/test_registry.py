"""Every public entry point that takes user data is a registered door (``doors.py``,
``other_doors.py``): each ``pf.*`` function, each public classmethod of a ``pf.*`` class, each CLI
command and each engine. A new one fails here until it is registered (or exempted, saying why)."""

from __future__ import annotations

import inspect

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.engines import ENGINES
from tests.conformance.doors import CLI_EXEMPT, DOORS
from tests.conformance.other_doors import OTHER_DOORS

#: Public functions that take no user data, and why.
EXEMPT: dict[str, str] = {"pf.duckdb.script": "takes no input: returns the macro script's text",
                          "pf.duckdb.check_duckdb": "takes no user data: a DuckDB version (default the installed one), "
                                                    "compared with MIN_DUCKDB; tests/test_duckdb_macros_values.py checks it"}


def _registered() -> set[str]:
    return {door.public for door in DOORS.values()} | {door.public for door in OTHER_DOORS.values()}


def _callable_module(obj: object) -> bool:
    """``pf.report``: a subpackage that is also the function of its name."""
    return inspect.ismodule(obj) and callable(obj)


def _public_functions() -> set[str]:
    """``pf.NAME`` for each function in ``pf.__all__``, and ``pf.MODULE.NAME`` for each function in the
    ``__all__`` of a public module (``pf.duckdb``)."""
    found = {f"pf.{name}" for name in pf.__all__ if inspect.isfunction(getattr(pf, name)) or _callable_module(getattr(pf, name))}
    for name in pf.__all__:
        module = getattr(pf, name)
        if inspect.ismodule(module) and not _callable_module(module):
            found |= {f"pf.{name}.{attr}" for attr in getattr(module, "__all__", ())
                      if inspect.isfunction(getattr(module, attr))}
    return found


def _public_classmethods() -> set[str]:
    found = set()
    for name in pf.__all__:
        cls = getattr(pf, name)
        if inspect.isclass(cls) and not issubclass(cls, BaseException):
            found |= {f"pf.{name}.{attr}" for attr, member in vars(cls).items()
                      if isinstance(member, (classmethod, staticmethod)) and not attr.startswith("_")}
    return found


def _commands() -> set[str]:
    return {c.name or c.callback.__name__ for c in app.registered_commands}


def test_every_public_function_and_classmethod_is_a_registered_door():
    missing = (_public_functions() | _public_classmethods()) - _registered() - EXEMPT.keys()
    assert not missing, f"register {sorted(missing)} in tests/conformance/doors.py or other_doors.py"


def test_every_cli_command_is_a_registered_door():
    missing = {f"cli {c}" for c in _commands() - CLI_EXEMPT.keys()} - _registered()
    assert not missing, f"register {sorted(missing)} in tests/conformance/doors.py"


def test_every_engine_is_a_registered_door():
    missing = {f"evaluate[{name}]" for name in ENGINES} - DOORS.keys()
    assert not missing, f"register {sorted(missing)} in tests/conformance/doors.py"


def test_every_registered_door_exists():
    public = _public_functions() | _public_classmethods() | {f"cli {c}" for c in _commands()}
    stale = _registered() - public
    assert not stale, f"registered doors that no longer exist: {sorted(stale)}"


def test_every_public_function_and_command_has_an_empty_case():
    with_empty = {d.public for d in [*DOORS.values(), *OTHER_DOORS.values()] if d.empty is not None}
    wanted = _public_functions() | {f"cli {c}" for c in _commands() - CLI_EXEMPT.keys()}
    missing = wanted - with_empty - EXEMPT.keys()
    assert not missing, f"give {sorted(missing)} an empty case (empty=...) in their door"
