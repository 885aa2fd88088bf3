"""Pure-numpy statistics on arrays: no polars, no DuckDB, so each piece can be tested on plain arrays."""

import importlib as _importlib
import importlib.util as _importlib_util


def __getattr__(name: str):
    """``pairedframe.stats.ttest`` and the other modules without importing them first."""
    if not name.startswith("_") and _importlib_util.find_spec(f"{__name__}.{name}") is not None:
        return _importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
