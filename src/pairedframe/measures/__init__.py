"""Measures: declarations (one module per family), the registry and name parsing.

Adding a measure touches three files: ``measures/<name>.py`` with an ``@family`` declaration and its
polars implementation (its docstring names the trec_eval file it follows), ``sql/<name>.sql``, and a
reference function in ``tests/reference/`` (``@reference("<key>")``). The module is found and
imported here; the tests pick the family up from the registry.
"""

import importlib
import pkgutil

from pairedframe.measures._trec import NOT_TREC_EVAL
from pairedframe.measures.base import DEFAULT_REL_LEVEL, REGISTRY, Family, Measure, Param, PolarsContext, TrecForm
from pairedframe.measures.parse import (NICKNAMES, OFFICIAL, RUNID_NICKNAMES, higher_is_better, known_names,
                                        parse_measure, parse_measures)

#: Modules of this package that declare no family.
_INFRASTRUCTURE = {"base", "parse", "gains", "ideal", "polars_exprs", "prefs_context"}

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if not _module.startswith("_") and _module not in _INFRASTRUCTURE:
        importlib.import_module(f"{__name__}.{_module}")

__all__ = ["DEFAULT_REL_LEVEL", "NICKNAMES", "NOT_TREC_EVAL", "OFFICIAL", "REGISTRY", "RUNID_NICKNAMES", "Family", "Measure", "Param",
           "PolarsContext", "TrecForm", "higher_is_better", "known_names", "parse_measure", "parse_measures"]
