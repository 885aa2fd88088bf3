"""Writes ``reference/api.rst`` at the start of each build: an autosummary of every name in
``pairedframe.__all__`` (so a new public name is documented without editing the docs, and a name that
goes away leaves no stale page), grouped into functions, result classes, errors and warnings."""

from __future__ import annotations

import inspect
from pathlib import Path

#: Names whose object lives elsewhere than ``pairedframe.<name>`` says: ``pf.report`` is the callable
#: ``pairedframe.report`` package, documented as the function it calls.
TARGETS = {"report": "pairedframe.report.html_report.report"}

HEADER = """API reference
=============

Everything ``import pairedframe as pf`` exports (``pairedframe.__all__``), generated from the docstrings.
Plots live in :mod:`pairedframe.report.plots` and :mod:`pairedframe.report.forest`
(see :doc:`../guide/plots`).

.. currentmodule:: pairedframe
"""


def _group(name: str, obj: object) -> str:
    if inspect.isclass(obj) and issubclass(obj, Warning):
        return "Warnings"
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return "Errors"
    if inspect.isclass(obj):
        return "Result classes"
    return "Functions"


def api_text() -> str:
    import pairedframe

    groups: dict[str, list[str]] = {"Functions": [], "Result classes": [], "Errors": [], "Warnings": []}
    for name in sorted(pairedframe.__all__, key=str.lower):
        target = TARGETS.get(name)
        groups[_group(name, getattr(pairedframe, name))].append(f"~{target}" if target else name)
    parts = [HEADER]
    for title, names in groups.items():
        names = ["~" + n[1:].removeprefix("pairedframe.") if n.startswith("~") else n for n in names]
        parts.append(f"{title}\n{'-' * len(title)}\n\n.. autosummary::\n   :toctree: generated\n\n"
                     + "".join(f"   {n}\n" for n in names))
    return "\n".join(parts)


def _write(app) -> None:
    out = Path(app.srcdir) / "reference" / "api.rst"
    text = api_text()
    if not out.exists() or out.read_text(encoding="utf-8") != text:   # unchanged: keep the cached build
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")


def setup(app):
    # config-inited runs before autosummary generates its stubs (on builder-inited), so a fresh
    # checkout, where api.rst does not exist yet, builds in one pass
    app.connect("config-inited", lambda app, config: _write(app))
    return {"parallel_read_safe": True, "version": "1"}
