"""What a cell may find: the documented value, or a clear error of pairedframe's own.

``Raises(pattern)``: the door raises an error that pairedframe raised on purpose -- a
:class:`~pairedframe.errors.PairedFrameError`, or a ``ValueError`` / ``TypeError`` /
``FileNotFoundError`` raised by pairedframe's own code, never from inside polars, numpy, pyarrow,
DuckDB or Spark -- whose message matches ``pattern`` (the argument, file, line or column it names).
A CLI door's error is exit code 2 with ``pairedframe: error: ...`` on stderr and no traceback.

``Value()``: the door returns, and its value (the door's ``value`` function of the result) equals
the door's value on the cell's *reference* content: the content the case means, given as a plain
polars table (ids as strings). For the evaluation doors the reference is also checked against
trec_eval's logic in ``tests/reference/trec_reference.py``. Never empty.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import PairedFrameError

PACKAGE = os.path.dirname(os.path.abspath(pf.__file__))


class CliExit(Exception):
    """A CLI door's exit code 2: the message is what the command printed on stderr."""


@dataclass(frozen=True)
class Raises:
    pattern: str
    error: type[BaseException] = Exception


@dataclass(frozen=True)
class Value:
    """The door's value equals its value on the reference content; ``warns`` must then be given."""

    warns: type[Warning] | None = None


Expect = Raises | Value


def _raised_in_package(info: pytest.ExceptionInfo) -> bool:
    """Whether the innermost frame of the traceback is pairedframe's code (not a library's)."""
    tb = info.tb
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    return last is not None and os.path.abspath(last.tb_frame.f_code.co_filename).startswith(PACKAGE)


def assert_raises_clearly(call: Callable[[], Any], expect: Raises) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as info:
            call()
    exc = info.value
    message = str(exc)
    if isinstance(exc, CliExit):
        assert message.startswith("pairedframe: error:") and "Traceback" not in message, message
    else:
        own = isinstance(exc, PairedFrameError) or (
            isinstance(exc, (ValueError, TypeError, FileNotFoundError)) and _raised_in_package(info))
        assert own, f"a library's error reached the user: {type(exc).__module__}.{type(exc).__name__}: {message}"
        assert isinstance(exc, expect.error), f"{type(exc).__name__} is not a {expect.error.__name__}: {message}"
    assert re.search(expect.pattern, message, flags=re.S), f"the error does not name {expect.pattern!r}: {message}"


def quietly(call: Callable[[], Any]) -> Any:
    """``call()`` with its warnings dropped (a reference computation's warnings are not the cell's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def call_quietly(call: Callable[[], Any], warns: type[Warning] | None) -> Any:
    """The result of ``call``; when ``warns`` is given, that warning must have been raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    if warns is not None:
        assert any(issubclass(w.category, warns) for w in caught), \
            f"expected a {warns.__name__}, got {[str(w.message) for w in caught]}"
    return result


def assert_same_value(got: Any, want: Any) -> None:
    """Equal values: frames row by row (floats within 1e-12, NaN equal to NaN), else ``==``; never empty."""
    if isinstance(want, pl.DataFrame):
        assert isinstance(got, pl.DataFrame), type(got)
        assert want.height > 0, "the reference value is empty"
        assert got.columns == want.columns, (got.columns, want.columns)
        assert got.height == want.height, f"{got.height} rows, expected {want.height}:\n{got}\n{want}"
        for g, w in zip(got.iter_rows(), want.iter_rows()):
            assert all(_close(a, b) for a, b in zip(g, w)), f"{g} != {w}"
        return
    if isinstance(want, dict):
        assert got.keys() == want.keys(), (sorted(got), sorted(want))
        assert want, "the reference value is empty"
        assert all(_close(got[k], want[k]) for k in want), {k: (got[k], want[k]) for k in want if not _close(got[k], want[k])}
        return
    assert _close(got, want), (got, want)


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b or abs(a - b) <= 1e-12 * max(1.0, abs(b))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    return a == b
