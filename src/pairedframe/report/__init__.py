"""Renderings of results (trec_eval text, tables, JSON, CSV, markdown, LaTeX, the HTML report).

The package is also callable: ``pf.report(runs, qrels, baseline=...)`` is
:func:`pairedframe.report.html_report.report`, while ``import pairedframe.report.plots`` and
``pairedframe.report.forest`` still reach the modules (a function of the same name in the top-level
package would hide them). The HTML report (and with it the comparison layer) loads on the first call
or on ``Report``, so plain output (``pairedframe.report.output``) stays light for ``evaluate``.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pairedframe.report.html_report import Report


class _CallableModule(types.ModuleType):
    """This package, callable as :func:`pairedframe.report.html_report.report` (its warnings find the
    caller's line with ``user_stacklevel``, which skips this frame as it skips every pairedframe frame)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Report:
        from pairedframe.report.html_report import report

        return report(*args, **kwargs)


def __getattr__(name: str) -> Any:
    if name == "Report":
        return importlib.import_module("pairedframe.report.html_report").Report
    if name == "__signature__":      # inspect.signature(pf.report) and notebooks' help show the report's own
        import inspect

        return inspect.signature(importlib.import_module("pairedframe.report.html_report").report)
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")      # pf.report.plots without importing it first
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["Report"]
