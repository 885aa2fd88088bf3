"""Every door that reads per-query tables (``doors.TABLE_DOORS``) x every form x every bad-input class
(``cases.TABLE_CASES``): the value of what the input means, or a clear error. Unrelated rows (another
system, query or measure than those compared) must not change a result."""

from __future__ import annotations

import pytest

from tests.conformance.cases import TABLE_CASES
from tests.conformance.cells import cells
from tests.conformance.doors import TABLE_DOORS
from tests.conformance.expect import Raises, assert_raises_clearly, assert_same_value, call_quietly, quietly
from tests.conformance.inputs import TableContent, deliver_table

#: (door, case) -> the door's value on what the case means (the same for every form).
_REFERENCES: dict[tuple[str, str], object] = {}


@pytest.mark.parametrize("name, case, form", list(cells(TABLE_DOORS, TABLE_CASES)))
def test_per_query_doors_give_the_value_or_a_clear_error(name, case, form, tmp_path, spark_if_needed):
    door = TABLE_DOORS[name]
    data = deliver_table(case.change(TableContent()), form, tmp_path, case.style, case.retype)
    expect = door.expect.get(case.name, case.expectation(form))
    if isinstance(expect, Raises):
        assert_raises_clearly(lambda: door.call(data), expect)
        return
    key = (name, case.name)
    if key not in _REFERENCES:
        meant = case.meant(TableContent(), reader=door.reader)
        (tmp_path / "reference").mkdir()
        plain = deliver_table(meant, door.reference_form, tmp_path / "reference")
        _REFERENCES[key] = door.value(quietly(lambda: door.call(plain)))
    got = door.value(call_quietly(lambda: door.call(data), expect.warns))
    assert_same_value(got, _REFERENCES[key])
