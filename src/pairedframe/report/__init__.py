"""Renderings of results (trec_eval text, tables, JSON, CSV, markdown, LaTeX, the HTML report).

The package is also callable: ``pf.report(runs, qrels, baseline=...)`` is
:func:`pairedframe.report.html_report.report`, while ``import pairedframe.report.plots`` and
``pairedframe.report.forest`` still reach the modules (a function of the same name in the top-level
package would hide them).
"""

import sys
import types

from pairedframe.report.html_report import Report, report as _report


class _CallableModule(types.ModuleType):
    """This package, callable as :func:`pairedframe.report.html_report.report` (no extra stack frame,
    so the report's warnings still point at the caller's line)."""

    __call__ = staticmethod(_report)


sys.modules[__name__].__class__ = _CallableModule

__all__ = ["Report"]
