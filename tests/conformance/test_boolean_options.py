"""Every ``bool`` keyword of every public function and method takes True or False only (numpy's too):
``complete="false"`` read from a config file is truthy and would silently switch trec_eval -c on, so a
string, 0 / 1 or None is refused with an error naming the keyword.

The keywords are found by walking the public signatures for ``bool``-annotated parameters: a new one
fails :func:`test_every_boolean_keyword_has_a_call_here` until it gets a call in ``CALLS``. The ``bool``
fields of public records (dataclasses: ``pf.Measure("AP", judged_only="false")`` was named
``AP(judged_only=True)``) are refused the same way, naming ``Class.field``; a new one fails
:func:`test_every_boolean_record_field_has_an_instance_here` until its record gets one in ``RECORDS``.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from tests.conformance.inputs import PER_QUERY, QRELS, RUN, trec_qrels_text

REFUSED = ("false", "no", 0, 1, None)


def _public_callables() -> Iterator[tuple[str, Callable[..., Any]]]:
    """``pf.NAME`` functions (``pf.report`` too), the public functions of a public module, and the public
    methods / classmethods / staticmethods of public classes (not their dataclass ``__init__``: records)."""
    for name in pf.__all__:
        obj = getattr(pf, name)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            for attr, member in vars(obj).items():
                func = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
                if not attr.startswith("_") and inspect.isfunction(func):
                    yield f"pf.{name}.{attr}", func
        elif inspect.isfunction(obj) or (inspect.ismodule(obj) and callable(obj)):
            yield f"pf.{name}", obj
        elif inspect.ismodule(obj):
            yield from ((f"pf.{name}.{a}", getattr(obj, a)) for a in getattr(obj, "__all__", ())
                        if inspect.isfunction(getattr(obj, a)))


def _boolean_keywords() -> list[tuple[str, str, bool]]:
    """(public name, parameter, whether None is allowed) for each parameter annotated ``bool`` (or
    ``bool | None``)."""
    found = []
    for public, func in _public_callables():
        for p in inspect.signature(func).parameters.values():
            parts = {part.strip() for part in str(p.annotation).split("|")}
            if "bool" in parts:
                found.append((public, p.name, "None" in parts))
    return found


def _qrels_file(tmp: Path) -> str:
    path = tmp / "qrels.txt"
    path.write_bytes(trec_qrels_text(QRELS))
    return str(path)


def _evaluation() -> pf.Evaluation:
    return pf.evaluate(RUN, QRELS, ["AP"])


#: public name -> a call on a minimal clean input taking the keyword(s) under test.
CALLS: dict[str, Callable[..., Any]] = {
    "pf.evaluate": lambda tmp, **kw: pf.evaluate(RUN, QRELS, ["AP"], **kw),
    "pf.report": lambda tmp, **kw: pf.report(RUN, QRELS, ["AP"], baseline="a", n_resamples=100, **kw),
    "pf.compare": lambda tmp, **kw: pf.compare(PER_QUERY, pairs="all", n_resamples=100, **kw),
    "pf.read_qrels": lambda tmp, **kw: pf.read_qrels(_qrels_file(tmp), **kw),
    "pf.Evaluation.to_trec": lambda tmp, **kw: _evaluation().to_trec(**kw),
    "pf.ResultsTable.to_terminal": lambda tmp, **kw: pf.results_table(PER_QUERY, baseline="a",
                                                                       n_resamples=100).to_terminal(**kw),
    "pf.leaderboard": lambda tmp, **kw: pf.leaderboard(PER_QUERY, measure="AP", n_resamples=100, **kw),
    "pf.Measure.resolved": lambda tmp, **kw: pf.parse_measure("AP")[0].resolved(1, **kw),
}


def test_every_boolean_keyword_has_a_call_here():
    missing = sorted({public for public, _, _ in _boolean_keywords()} - CALLS.keys())
    assert not missing, f"add a call for {missing} to CALLS in tests/conformance/test_boolean_options.py"


def _refused_cells() -> list[Any]:
    """Each keyword with each refused value (None is a keyword's default when it is ``bool | None``)."""
    return [pytest.param(public, keyword, value, id=f"{public}-{keyword}={value!r}")
            for public, keyword, none_allowed in _boolean_keywords() for value in REFUSED
            if not (value is None and none_allowed)]


@pytest.mark.parametrize("public, keyword, value", _refused_cells())
def test_boolean_keyword_refuses_anything_but_true_or_false_naming_it(public, keyword, value, tmp_path):
    with pytest.raises(ValueError, match=rf"^{keyword} must be True or False, got {re.escape(repr(value))}$"):
        CALLS[public](tmp_path, **{keyword: value})


@pytest.mark.filterwarnings("ignore")   # the tiny inputs' small-sample warnings: not what is checked
@pytest.mark.parametrize("public, keyword, none_allowed", _boolean_keywords(), ids=str)
def test_boolean_keyword_takes_a_numpy_bool(public, keyword, none_allowed, tmp_path):
    CALLS[public](tmp_path, **{keyword: np.True_})


def test_complete_as_a_numpy_bool_evaluates_as_the_python_bool():
    qrels = QRELS.vstack(QRELS.head(1).with_columns(qid=pl.lit("9")))  # a judged query no run retrieved for
    summary = {flag: pf.evaluate(RUN, qrels, ["AP"], complete=flag).summary() for flag in (True, False, np.True_)}
    assert summary[np.True_].equals(summary[True]) and not summary[np.True_].equals(summary[False])


def _boolean_record_fields() -> list[tuple[str, str]]:
    """(public name, field) for each ``bool`` field of a public dataclass (a record)."""
    records = [(f"pf.{name}", getattr(pf, name)) for name in pf.__all__]
    return [(public, f.name) for public, cls in records if inspect.isclass(cls) and dataclasses.is_dataclass(cls)
            for f in dataclasses.fields(cls) if f.type in ("bool", bool)]


#: public record -> an instance as the package builds it (dataclasses.replace sets a field through __init__).
RECORDS: dict[str, Callable[[], Any]] = {
    "pf.Measure": lambda: pf.Measure("AP"),
    "pf.Evaluation": _evaluation,
    "pf.EvaluationSettings": lambda: _evaluation().settings,
    "pf.PairedComparison": lambda: pf.compare_pair([0.1, 0.4, 0.3, 0.9], [0.2, 0.5, 0.3, 1.0], n_resamples=100),
    "pf.ResampleIndex": lambda: pf.resample_index(["1", "2", "3"], n_resamples=100, kind="sign-flip"),
}


def test_every_boolean_record_field_has_an_instance_here():
    missing = sorted({public for public, _ in _boolean_record_fields()} - RECORDS.keys())
    assert not missing, f"add an instance of {missing} to RECORDS in tests/conformance/test_boolean_options.py"


@pytest.mark.filterwarnings("ignore")   # the tiny inputs' small-sample warnings: not what is checked
@pytest.mark.parametrize("public, field", _boolean_record_fields(), ids=str)
@pytest.mark.parametrize("value", REFUSED, ids=repr)
def test_boolean_record_field_refuses_anything_but_true_or_false_naming_it(public, field, value):
    record = RECORDS[public]()
    with pytest.raises(ValueError, match=rf"^{type(record).__name__}\.{field} must be True or False, "
                                         rf"got {re.escape(repr(value))}$"):
        dataclasses.replace(record, **{field: value})


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("public, field", _boolean_record_fields(), ids=str)
def test_boolean_record_field_keeps_a_numpy_bool_as_the_python_bool(public, field):
    assert getattr(dataclasses.replace(RECORDS[public](), **{field: np.True_}), field) is True
