"""Exceptions raised by pairedframe.

Every error inherits from :class:`PairedFrameError` *and* from the builtin it
refines, so ``except ValueError`` keeps working in callers that do not know us.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning point at the first caller outside pairedframe,
    for the function that calls ``warnings.warn`` (which calls this)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    return level


#: The attribute of a re-issued warning that names the package that first issued it (:func:`reissue`).
WARNING_ORIGIN = "pairedframe_origin"


def warning_source(message: Warning | str, category: type[Warning], *, skip: tuple[str, ...] = ()) -> str:
    """The top-level package a warning comes from, read while it is being issued or shown.

    The package recorded on a re-issued warning (:func:`reissue`) when there is one; else ``pairedframe``
    for pairedframe's own warning classes; else the package of the code that called ``warnings.warn``:
    the first frame outside the warnings machinery, this module and the modules in ``skip`` (the hook
    that asks).  A warning pointed at the caller with ``stacklevel`` still comes from the code that
    issued it.

    Parameters
    ----------
    message : Warning or str
        The warning as ``warnings.showwarning`` receives it.
    category : type
    skip : tuple of str
        Names of further modules whose frames are passed over (the caller's own).

    Returns
    -------
    str
        e.g. ``"pairedframe"``, ``"pyspark"``; ``""`` when no frame is left.
    """
    origin = getattr(message, WARNING_ORIGIN, None)
    if isinstance(origin, str):
        return origin
    if category.__module__.split(".")[0] == "pairedframe":
        return "pairedframe"
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") in ("warnings", __name__, *skip):
        frame = frame.f_back
    return str(frame.f_globals.get("__name__") or "").split(".")[0] if frame is not None else ""


@contextlib.contextmanager
def recorded_warnings() -> Iterator[list[tuple[Warning, str]]]:
    """Record the block's warnings, every one (as ``catch_warnings(record=True)`` with ``"always"``),
    each as ``(warning, the package that issued it)`` (:func:`warning_source`, read as it is issued),
    for :func:`reissue`."""
    caught: list[tuple[Warning, str]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, category, *_, **__: caught.append(
            (message if isinstance(message, Warning) else category(message), warning_source(message, category)))
        yield caught


def reissue(warning: Warning, origin: str, text: str | None = None) -> None:
    """Issue a recorded warning (:func:`recorded_warnings`) again, pointing at the first caller outside
    pairedframe, with its category and the package that first issued it (so that the command line
    still prints another package's as ``warning (from pyspark): ...``); ``text`` replaces its message."""
    again = copy.copy(warning)
    if text is not None:
        again.args = (text,)
    setattr(again, WARNING_ORIGIN, origin)
    warnings.warn(again, stacklevel=user_stacklevel())


class PairedFrameError(Exception):
    """Root of every error pairedframe raises on purpose."""


@contextlib.contextmanager
def named_as(**parameters: str) -> Iterator[None]:
    """Errors pairedframe raises in the block that start by naming a parameter of an inner call
    (```systems`: ...``) name the caller's own instead (``named_as(systems="system")``): a door that
    takes one ``system=`` passes it on as ``systems``, and the user never wrote ``systems``."""
    try:
        yield
    except PairedFrameError as exc:
        text = str(exc)
        inner = next((p for p in parameters if text.startswith(f"`{p}`")), None)
        if inner is None:
            raise
        named = copy.copy(exc)
        named.args = (f"`{parameters[inner]}`{text[len(inner) + 2:]}",)
        raise named.with_traceback(exc.__traceback__) from None


@contextlib.contextmanager
def naming_input(label: str) -> Iterator[None]:
    """Errors pairedframe raises in the block start with ``label``, the input they are about, as the door's
    other messages name it (``run_b: duplicate ...``, ``'llm' (file llm.txt): ...``), with the same class and
    attributes: for a door that takes two inputs of one kind, whose readers' messages say only "the run
    table"."""
    try:
        yield
    except PairedFrameError as exc:
        named = copy.copy(exc)
        named.args = (f"{label}: {exc}",)
        raise named.with_traceback(exc.__traceback__) from None


class InputFormatError(PairedFrameError, ValueError):
    """A run, qrels or per-query file is malformed.

    The message names the argument the file was given as (``run`` / ``qrels``), the file, the 1-based
    line number and, where it applies, the 1-based column (field) and the offending text.
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 column: int | None = None, text: str | None = None, argument: str | None = None) -> None:
        where = []
        if path is not None:  # "qrels file x.txt": which argument the file was given as
            where.append(f"{argument} file {path}" if argument else str(path))
        if line is not None:
            where.append(f"line {line}")
        if column is not None:
            where.append(f"column {column}")
        prefix = ", ".join(where)
        full = f"{prefix}: {message}" if prefix else message
        if text is not None:
            full += f": {text!r}"
        super().__init__(full)
        self.message = message
        self.path, self.line, self.column, self.text, self.argument = path, line, column, text, argument

    def relocated(self, path: str) -> InputFormatError:
        """The same error naming ``path`` as the file (for a pipe read through a temporary copy)."""
        return type(self)(self.message, path=path, line=self.line, column=self.column, text=self.text,
                          argument=self.argument)


class SchemaError(PairedFrameError, ValueError):
    """A table lacks a required column or has one of the wrong type."""


class DuplicateError(InputFormatError):
    """The same (qid, docno) appears twice in a run or in qrels (trec_eval refuses both)."""


#: How trec_eval and pairedframe treat a duplicate, as every DuplicateError says it: trec_eval checks a
#: query's lines only when it evaluates the query, and a run's only among the top -M it keeps
#: (form_res_rels.c sorts and cuts before it checks); pairedframe checks every line of every query.
DUPLICATE_RULE = ("trec_eval refuses duplicates in the queries it evaluates, in a run only among the top -M "
                  "ranks (pairedframe in any query, at any rank)")
#: Why an empty or all-blank id (qid, docno, system) in a table is refused, as every door says it: no TREC file
#: can hold one.
EMPTY_ID_RULE = ("an id is never empty nor made of blanks only (trec_eval reads ids as runs of non-blank "
                 "characters): is it a missing value?")
#: An empty or all-blank id, as a regular expression (Rust's, RE2's and Java's syntax alike): blanks are the
#: characters trec_eval splits fields on (C's isspace: space, tab, newline, CR, vertical tab, form feed).
BLANK_ID_PATTERN = r"^[ \t\n\r\x0B\x0C]*$"
#: How every door's message names such an id: "column 'qid' is {BLANK_ID} in 2 row(s), ...".
BLANK_ID = "an empty or all-blank string"


@contextlib.contextmanager
def about_argument(argument: str) -> Iterator[None]:
    """Input errors (PairedFrameError, FileNotFoundError) raised inside are about ``argument`` (``"qrels"``):
    each gets that ``argument`` attribute unless it names one already (an InputFormatError about a file), so
    a caller tells which input an error is about by it, never by the words of its message."""
    try:
        yield
    except (PairedFrameError, FileNotFoundError) as exc:
        if getattr(exc, "argument", None) is None:
            exc.argument = argument  # type: ignore[attr-defined]
        raise


def missing_file(path: str, what: str, *, argument: str | None = None, prefix: str = "") -> FileNotFoundError:
    """The error for a file that does not exist, naming the argument it was given as (``what``) in its message
    and in its ``argument`` attribute (``argument``, when the message's ``what`` is not the argument's name),
    as :func:`about_argument` tags errors (not ``filename``: OSError's str would then drop the message); a
    ``NAME=PATH`` string gets a hint: only the command line reads names that way.  ``prefix`` goes before the
    message."""
    hint = ""
    if "=" in path and os.path.exists(path.rsplit("=", 1)[1]):
        name, file = path.rsplit("=", 1)
        hint = (f" (to name a {what} in Python, pass a mapping {{{name!r}: {file!r}}}; NAME=PATH is the command "
                "line's form)")
    error = FileNotFoundError(f"{prefix}{what}: no such file: {path}{hint}")
    error.argument = argument or what  # type: ignore[attr-defined]
    return error


class UnknownMeasureError(PairedFrameError, ValueError):
    """A measure name could not be parsed; the message suggests close matches."""


class InsufficientSampleError(PairedFrameError, ValueError):
    """Too few paired observations (queries, clusters) for the requested statistic."""


class EmptyResultError(InsufficientSampleError):
    """A result the caller asked for would be empty or all-null (no judged query in common, names
    that match nothing, ...): zero observations. The message says why; see :mod:`pairedframe.checks`."""


class PlanError(PairedFrameError, ValueError):
    """An analysis plan is missing, malformed, or does not match the results."""


class ResamplingCostError(PairedFrameError, ValueError):
    """A resampling option (``n_resamples``, ...) would take an absurd time or memory for the call; the
    message names the argument, the estimated time and memory, and the largest value that fits
    (:mod:`pairedframe.comparison._cost`)."""

    def __init__(self, message: str, *, argument: str | None = None, value: int | None = None,
                 largest: int | None = None) -> None:
        super().__init__(message)
        self.argument, self.value, self.largest = argument, value, largest


def renamed_attribute(old: str, new: str) -> str:
    """The message of an attribute an older version spelled ``old``: use ``new`` (no silent aliases)."""
    return f"{old} is renamed {new}: a result's rows are its .table (pairedframe 0.x keeps no old spellings)"


class RenamedKeywordError(PairedFrameError, TypeError):
    """A keyword of an older spelling (``alpha=``, ``rng=``, ``verdict_on=``, ...): the message names the
    keyword to use instead (the package is 0.x and keeps no silent aliases)."""


def renamed_keywords(**renamed: str) -> Callable[[_F], _F]:
    """Decorator: calling the function with an old keyword raises :class:`RenamedKeywordError`.

    ``renamed`` maps each old keyword to the text naming its replacement, e.g.
    ``alpha="confidence_level= (= 1 - alpha)"``.  The wrapped function's signature is unchanged
    (``inspect.signature`` follows ``__wrapped__``).
    """
    def decorate(func: _F) -> _F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not renamed.keys().isdisjoint(kwargs):
                old = next(k for k in renamed if k in kwargs)
                raise RenamedKeywordError(f"{func.__name__}() takes no {old}= any more; use {renamed[old]}")
            return func(*args, **kwargs)
        return wrapper  # type: ignore[return-value]
    return decorate


#: The replacement texts of the renamed keywords, one wording everywhere.
USE_CONFIDENCE_LEVEL = "confidence_level= (the level; alpha = 1 - confidence_level)"
USE_SEED = "seed= (an int, a SeedSequence or a numpy Generator)"
USE_CORRECTION = "correction= (\"none\", \"holm\" or \"bh\"; the family is set by family_by=)"
#: The old spellings every public function that takes a level or a seed refuses by name.
#: The comparisons key their resample streams by a non-negative integer seed (no SeedSequence or Generator).
USE_INT_SEED = "seed= (a non-negative integer: the resamples are keyed by it and the queries)"
OLD_LEVEL_AND_SEED = {"alpha": USE_CONFIDENCE_LEVEL, "fdr_level": USE_CONFIDENCE_LEVEL, "rng": USE_INT_SEED}


class PartlyEmptyWarning(UserWarning):
    """Part of a requested result is empty or all-null (the message names which part and why)."""


class SmallSampleWarning(UserWarning):
    """Fewer observations than recommended; results may be unreliable."""


class SkewWarning(UserWarning):
    """Deltas too skewed for their number (Cochran's rule): tests and intervals may be off."""


class TiedQueriesWarning(UserWarning):
    """Many queries tie exactly (delta 0): the mean rests on the few that differ; intervals under-cover."""


class ValueRangeWarning(UserWarning):
    """Per-query values of a measure with a known range (nDCG, AP: [0, 1]) lie outside it: an error upstream."""
