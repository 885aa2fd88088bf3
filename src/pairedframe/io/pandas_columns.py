"""pandas ``object`` columns that pyarrow cannot convert: read as ids are read, or refused naming them.

A pandas ``object`` column may hold values of several Python types (``[1, "2"]``) or objects pyarrow does
not know (ir_measures' measures in ``pd.DataFrame(ir_measures.iter_calc(...))``); pyarrow then fails with a
message naming neither the table nor the column. Ids are strings, and integer ids are read as strings with a
warning, so an id column mixing integers and strings is read the same way; a measure object is read as its
name (``str(AP)`` is ``'AP'``, ``str(nDCG@10)`` ``'nDCG@10'``, as ir_measures prints them). Any other
column pyarrow cannot convert is a SchemaError naming the table, the column, and the first value of
another type, its type and its (1-based) row.
"""

from __future__ import annotations

import numbers
from typing import Any

import polars as pl

from pairedframe.checks import warn_numeric_ids
from pairedframe.errors import SchemaError
from pairedframe.tables import COLUMN_ALIASES

#: Columns holding ids (ours and their aliases): integers among their strings are read as strings.
_ID_NAMES = {"system", "qid", "docno", "measure", "dataset", "cluster"} | {
    alias for alias, ours in COLUMN_ALIASES.items() if ours in ("system", "qid", "docno")}


def pandas_as_polars(frame: Any, what: str, *, nan_to_null: bool) -> pl.DataFrame | pl.Series:
    """``pl.from_pandas(frame)``, with the object columns pyarrow cannot convert read as ids / measure
    names (see the module) or refused as a SchemaError naming ``what``, the column, the value and its row."""
    try:
        return pl.from_pandas(frame, nan_to_null=nan_to_null)
    except (TypeError, ValueError, pl.exceptions.PolarsError) as exc:
        if not hasattr(frame, "columns"):  # a Series: convert it as a one-column frame
            frame = frame.to_frame()
        readable = _readable(frame, _table_name(what))
        if readable is None:
            raise SchemaError(f"{_table_name(what)}: cannot convert it ({type(exc).__name__}: {exc})") from exc
        return pl.from_pandas(readable, nan_to_null=nan_to_null)


def _table_name(what: str) -> str:
    return f"{what} table" if what in ("run", "qrels") else what


def _readable(frame: Any, table: str) -> Any | None:
    """``frame`` with its mixed id columns and measure objects as strings (None if no object column is at
    fault); raises for a column that is neither."""
    changed, numeric_ids = {}, []
    for name in frame.columns:
        if frame[name].dtype != object:
            continue
        values = frame[name].tolist()
        present = [(row, v) for row, v in enumerate(values) if v is not None and v == v]  # NaN != NaN
        if all(isinstance(v, str) or _is_measure(v) for _, v in present) and any(_is_measure(v) for _, v in present):
            changed[name] = [str(v) if _is_measure(v) else v for v in values]
        elif str(name) in _ID_NAMES and all(isinstance(v, str) or _is_integer(v) for _, v in present):
            changed[name] = [str(v) if _is_integer(v) else v for v in values]
            numeric_ids.append(str(name))
        elif _converts(frame[[name]]) is False:
            raise SchemaError(_fault(table, str(name), present))
    if not changed:
        return None
    warn_numeric_ids(numeric_ids, f"the {table}")
    return frame.assign(**changed)


def _is_measure(value: Any) -> bool:
    return type(value).__module__.startswith("ir_measures")


def _is_integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _converts(column: Any) -> bool:
    try:
        pl.from_pandas(column)
    except (TypeError, ValueError, pl.exceptions.PolarsError):
        return False
    return True


def _fault(table: str, name: str, present: list[tuple[int, Any]]) -> str:
    """What is wrong with column ``name``: the first value of a type other than the first value's (or the
    first value, when every value has a type pyarrow does not read)."""
    first_type = type(present[0][1])
    row, value = next(((r, v) for r, v in present if type(v) is not first_type), present[0])
    if type(value) is first_type:
        return (f"{table}: column {name!r} holds {first_type.__name__} values (row {row + 1}: {value!r}), which "
                "cannot be read as a column; convert them to numbers or strings first")
    return (f"{table}: column {name!r} mixes {first_type.__name__} values (e.g. row {present[0][0] + 1}: "
            f"{present[0][1]!r}) and {type(value).__name__} values (row {row + 1}: {value!r}); a column holds one "
            "type: convert it first (ids with .astype(str), numbers with pd.to_numeric)")
