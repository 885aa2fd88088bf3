"""Absurd option values (levels outside (0, 1), n_resamples <= 0, k <= 0, cutoffs <= 0, unknown
choices) are refused by every door with an error naming the option, before any work."""

from __future__ import annotations

import pytest

from tests.conformance.doors import DOORS
from tests.conformance.expect import Raises, assert_raises_clearly
from tests.conformance.inputs import EvalContent, TableContent, deliver_eval, deliver_table
from tests.conformance.other_doors import OTHER_DOORS


def _cells():
    for name, door in [*DOORS.items(), *OTHER_DOORS.items()]:
        for option, (values, pattern) in door.params.items():
            for value in values:
                marks = [pytest.mark.spark] if getattr(door, "spark", False) else []
                yield pytest.param(name, option, value, pattern, id=f"{name}-{option}={value!r}", marks=marks)


@pytest.mark.parametrize("name, option, value, pattern", list(_cells()))
def test_absurd_options_are_refused_naming_the_option(name, option, value, pattern, tmp_path):
    if name in OTHER_DOORS:
        door = OTHER_DOORS[name]
        call = lambda: door.call_with(**{option: value})  # noqa: E731
    elif name.startswith("cli "):
        door = DOORS[name]
        form = "trec" if door.kind == "evaluation" else "csv"
        args = (deliver_eval(EvalContent(), form, tmp_path) if door.kind == "evaluation"
                else (deliver_table(TableContent(), form, tmp_path),))
        call = lambda: door.call(*args, option, str(value))  # noqa: E731
    else:
        door = DOORS[name]
        form = "polars" if "polars" in door.forms else door.reference_form
        args = (deliver_eval(EvalContent(), form, tmp_path) if door.kind == "evaluation"
                else (deliver_table(TableContent(), form, tmp_path),))
        call = lambda: door.call(*args, **{option: value})  # noqa: E731
    assert_raises_clearly(call, Raises(pattern))
