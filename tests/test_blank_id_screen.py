"""The min-per-column screen before the blank-id pattern never hides a blank id (io.table_values.first_blank_ids)."""

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairedframe.io.table_values import blank_ids, first_blank_ids

IDS = st.text(alphabet=st.sampled_from([" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x01", "\x1f", "!", "0", "a", "é",
                                        "\u00a0", "\u3000"]), max_size=3)


@given(st.lists(IDS, min_size=1, max_size=8), st.lists(IDS, min_size=1, max_size=8))
@settings(max_examples=300, deadline=None)
def test_blank_id_screen_finds_what_the_pattern_alone_finds(qids, systems):
    n = min(len(qids), len(systems))
    frame = pl.DataFrame({"system": systems[:n], "qid": qids[:n]})
    found = first_blank_ids(frame, ["system", "qid"])
    by_pattern = [c for c in ("system", "qid") if frame.select(blank_ids(c).any()).item()]
    assert (found is None) == (not by_pattern)
    if found is not None:
        assert found.column == by_pattern[0]
        assert found.first_row == frame.select(blank_ids(found.column).arg_true().first()).item()


def test_blank_id_screen_reads_integer_and_null_ids():
    frame = pl.DataFrame({"qid": [None, 7, 8]}, schema={"qid": pl.Int64})
    assert first_blank_ids(frame, ["qid"]) is None
    frame = pl.DataFrame({"qid": [None, "", "b"]})
    assert first_blank_ids(frame, ["qid"]).first_row == 1


@pytest.mark.parametrize("blank", ["", " ", "  ", "\t", "\n", "\r", "\x0b", "\x0c", " \t"])
def test_blank_id_screen_finds_each_blank_among_ordinary_ids(blank):
    frame = pl.DataFrame({"system": ["a", "b", "c"], "qid": ["q1", blank, "!"]})
    found = first_blank_ids(frame, ["system", "qid"])
    assert found is not None and (found.column, found.first_row) == ("qid", 1)
