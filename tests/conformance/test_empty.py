"""No silent empties (issue 12 item 1): every door whose *result* would be empty, or all-null for what
was asked (no judged query in common, names that match nothing), raises saying why; a CLI command
exits 2 with ``pairedframe: error: ...``. The cases are the doors' ``empty`` entries; partly empty
results warn (tests/test_no_silent_empties.py)."""

from __future__ import annotations

import pytest

from tests.conformance.doors import DOORS
from tests.conformance.expect import Raises, assert_raises_clearly
from tests.conformance.other_doors import OTHER_DOORS

_EMPTY = {name: door.empty for name, door in [*DOORS.items(), *OTHER_DOORS.items()] if door.empty is not None}
#: Spark doors' cases need the session (skipped without pyspark or Java).
_SPARK = {name for name, door in DOORS.items() if door.spark}


@pytest.mark.parametrize("name", [pytest.param(n, marks=[pytest.mark.spark] if n in _SPARK else [])
                                  for n in sorted(_EMPTY)])
def test_empty_result_raises_saying_why(name, tmp_path, spark_if_needed):
    call, error, fragment = _EMPTY[name]
    assert_raises_clearly(lambda: call(tmp_path), Raises(fragment, error))
