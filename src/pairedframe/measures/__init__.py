"""Measures: declarations (one module per family), the registry and name parsing.

Adding a measure: write ``measures/<name>.py`` with an ``@family`` declaration and its polars
implementation, ``sql/<name>.sql``, import the module below, and add a reference function in
``tests/reference/trec_reference.py``. The tests pick it up from the registry.
"""

from pairedframe.measures import (ap, bpref, counts, err, gain_walk, geometric, infap, iprec, judged,  # noqa: F401
                                  ndcg, precision, ranks, rbp, recall, relative_p, relstring, rprec, rprec_mult,
                                  rr, set_measures, success, utility)
from pairedframe.measures.base import (DEFAULT_REL_LEVEL, REGISTRY, Family, Measure, Param, PolarsContext,
                                       TrecForm, higher_is_better)
from pairedframe.measures.parse import NICKNAMES, OFFICIAL, RUNID_NICKNAMES, known_names, parse_measure, parse_measures

__all__ = ["DEFAULT_REL_LEVEL", "NICKNAMES", "OFFICIAL", "REGISTRY", "RUNID_NICKNAMES", "Family", "Measure", "Param",
           "PolarsContext", "TrecForm", "higher_is_better", "known_names", "parse_measure", "parse_measures"]
