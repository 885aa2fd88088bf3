"""Pure-numpy statistics on arrays: no polars, no DuckDB, so each piece can be tested on plain arrays.

These are the kernels, scipy-style, not the comparisons built on them (:func:`pairedframe.compare`,
:func:`pairedframe.compare_pair`, ...), and two of the comparisons' rules do not apply here:

- **no "never a point" rule.**  Deltas without spread give the kernels' degenerate answer:
  ``bootstrap.bootstrap_mean([0.1, 0.1])`` has the interval ``(0.1, 0.1)``, where a comparison gives the
  range-based interval of equal deltas (:mod:`pairedframe.stats.value_range`); only
  ``ttest.paired_t_test`` given ``delta_range`` applies it.
- **``seed=None`` is not reproducible**, as in scipy: the resampling functions default to ``seed=None``
  (fresh entropy), so two calls give different Monte-Carlo p-values and intervals.  Pass an int, a
  ``SeedSequence`` or a ``Generator`` to repeat a result; the comparisons default to ``seed=0``.
"""

import importlib as _importlib
import importlib.util as _importlib_util


def __getattr__(name: str):
    """``pairedframe.stats.ttest`` and the other modules without importing them first."""
    if not name.startswith("_") and _importlib_util.find_spec(f"{__name__}.{name}") is not None:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
