"""The doors that take neither runs and qrels nor per-query tables (``other_doors.OTHER_DOORS``):
each cell's value equals its reference (an oracle, or the same door on the plain input), or the
door raises a clear error."""

from __future__ import annotations

import warnings

import pytest

from tests.conformance.expect import Raises, assert_raises_clearly, assert_same_value, call_quietly
from tests.conformance.other_doors import OTHER_DOORS


def _cells():
    for name, door in OTHER_DOORS.items():
        for case in door.cells:
            marks = [pytest.mark.xfail(strict=True, reason=door.xfail[case])] if case in door.xfail else []
            yield pytest.param(name, case, id=f"{name}-{case}", marks=marks)


@pytest.mark.parametrize("name, case", list(_cells()))
def test_other_doors_give_the_value_or_a_clear_error(name, case, tmp_path):
    door = OTHER_DOORS[name]
    cell = door.cells[case]
    if isinstance(cell.expect, Raises):
        assert_raises_clearly(lambda: cell.call(tmp_path), cell.expect)
        return
    got = door.value(call_quietly(lambda: cell.call(tmp_path), cell.expect.warns))
    if cell.reference is None:  # the plain input: its value must simply exist
        assert got is not None
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = cell.reference(tmp_path)
    assert_same_value(got, want if cell.oracle else door.value(want))
