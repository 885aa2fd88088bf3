"""The cells of the suite: door x form x case, as pytest parameters with readable ids."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conformance.cases import Case
from tests.conformance.doors import Door


def cells(doors: dict[str, Door], cases: list[Case]) -> Iterator:
    """One pytest.param per (door, case, form) where the case applies to a form the door takes and
    changes a side the door reads; Spark doors' cells are marked ``spark``, known faults xfail (strict:
    a fixed fault fails the cell until its marker goes). ``Door.xfail`` keys: ``case``, ``case@form``
    or ``*@form``."""
    for name, door in doors.items():
        for case in cases:
            if case.side not in ("both", "table") and case.side not in door.sides or case.name in door.skip:
                continue
            if door.cases is not None and case.name not in door.cases:
                continue
            about_form = case.retype is not None or case.style.label != "plain"
            forms = door.forms if about_form else door.content_forms or door.forms
            for form in (*forms, "spark") if case.name in door.spark_cases else forms:
                if not case.applies(form) and form != "spark":
                    continue
                marks = [pytest.mark.spark] if door.spark or form == "spark" else []
                reason = next((door.xfail[k] for k in (f"{case.name}@{form}", case.name, f"*@{form}")
                               if k in door.xfail), None)
                if reason:
                    marks.append(pytest.mark.xfail(strict=True, reason=reason))
                yield pytest.param(name, case, form, id=f"{name}-{case.name}-{form}", marks=marks)
