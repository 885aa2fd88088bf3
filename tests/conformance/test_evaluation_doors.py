"""Every door that reads runs and qrels (``doors.EVAL_DOORS``) x every form x every bad-input class
(``cases.EVAL_CASES``): the value trec_eval's logic gives for what the input means, or a clear error."""

from __future__ import annotations

import warnings

import pytest

import pairedframe as pf
from pairedframe.errors import PartlyEmptyWarning

from tests.conformance.cases import EVAL_CASES
from tests.conformance.cells import cells
from tests.conformance.doors import EVAL_DOORS
from tests.conformance.expect import Raises, assert_raises_clearly, assert_same_value, call_quietly, quietly
from tests.conformance.inputs import EvalContent, deliver_eval


#: (door, case) -> the door's value on what the case means (the same for every form).
_REFERENCES: dict[tuple[str, str], object] = {}


@pytest.mark.parametrize("name, case, form", list(cells(EVAL_DOORS, EVAL_CASES)))
def test_run_and_qrels_doors_give_the_value_or_a_clear_error(name, case, form, tmp_path, spark_if_needed):
    door = EVAL_DOORS[name]
    args = deliver_eval(case.change(EvalContent()), form, tmp_path, case.style, case.retype)
    expect = door.expect.get(case.name, case.expectation(form))
    if isinstance(expect, Raises):
        assert_raises_clearly(lambda: door.call(*args), expect)
        return
    key = (name, case.name)
    if key not in _REFERENCES:
        meant = case.meant(EvalContent(), reader=door.reader)
        if door.reference is not None:
            _REFERENCES[key] = door.reference(meant)
        else:
            (tmp_path / "reference").mkdir()
            plain = deliver_eval(meant, door.reference_form, tmp_path / "reference")
            _REFERENCES[key] = door.value(quietly(lambda: door.call(*plain)))
    want = _REFERENCES[key]
    got = door.value(call_quietly(lambda: door.call(*args), expect.warns))
    assert_same_value(got, want)


def test_near_miss_docno_warning_of_judgment_sets_names_the_set_at_the_callers_line(tmp_path):
    """Under several judgment sets a docno warning names the set it is about (with its file), pointing at
    the caller's line: 'run s: only 0 of 2 ...' alone does not say that the llm set is spelled otherwise."""
    llm = tmp_path / "llm.txt"
    llm.write_text("7 0 D1 1\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.evaluate_judgment_sets({"s": {"7": {"d1": 1.0, "d2": 0.5}}}, {"nist": {"7": {"d1": 1}}, "llm": str(llm)}, "P@1")
    near = [w for w in caught if issubclass(w.category, PartlyEmptyWarning)]
    assert [str(w.message).split(": run")[0] for w in near] == [f"judgment set 'llm' (file {llm})"], \
        [str(w.message) for w in near]
    assert near[0].filename == __file__
