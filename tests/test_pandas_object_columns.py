"""pandas ``object`` columns pyarrow cannot convert: ids mixing integers and strings are read as strings
(with the warning of integer ids), ir_measures' measure objects as their names, and any other such column
is a SchemaError naming the table, the column, the value of another type and its row -- never a bare
pyarrow traceback."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas", reason="the pandas table form needs pandas")

import pairedframe as pf
from pairedframe.errors import SchemaError

QRELS = {"1": {"d1": 1, "d3": 0}, "2": {"d1": 0, "d3": 2}}


def _run(**columns) -> pd.DataFrame:
    return pd.DataFrame({"qid": ["1", "2"], "docno": ["d1", "d3"], "score": [1.0, 1.0], **columns})


@pytest.mark.parametrize("column, mixed", [("qid", [1, "2"]), ("docno", ["d1", 3])])
def test_run_id_column_mixing_ints_and_strings_is_read_as_strings(column, mixed):
    as_strings = _run(**{column: [str(v) for v in mixed]})
    expected = pf.evaluate(as_strings, QRELS, ["P@1"], system="s").per_query
    with pytest.warns(UserWarning, match=rf"numeric id column\(s\) \['{column}'\] of the run table"):
        got = pf.evaluate(_run(**{column: mixed}), QRELS, ["P@1"], system="s").per_query
    assert got.equals(expected)


def test_qrels_rel_column_mixing_ints_and_strings_names_table_column_and_row():
    qrels = pd.DataFrame({"qid": ["1", "2"], "docno": ["d1", "d3"], "rel": [1, "2"]})
    with pytest.raises(SchemaError, match=r"qrels table: column 'rel' mixes int .* str values \(row 2: '2'\)"):
        pf.evaluate(_run(), qrels, ["P@1"], system="s")


def _per_query(**columns) -> pd.DataFrame:
    return pd.DataFrame({"system": ["a", "a", "b", "b"], "qid": ["1", "2", "1", "2"], "measure": ["AP"] * 4,
                         "value": [0.1, 0.2, 0.3, 0.5], **columns})


def test_compare_value_column_mixing_floats_and_strings_names_the_column_and_row():
    with pytest.raises(SchemaError, match=r"per-query table: column 'value' mixes float .* str values \(row 3: '0.3'\)"):
        pf.compare(_per_query(value=[0.1, 0.2, "0.3", 0.5]), baseline="a")


@pytest.mark.filterwarnings("ignore::pairedframe.errors.SmallSampleWarning", "ignore:no comparison can be")
def test_compare_qid_column_mixing_ints_and_strings_is_read_as_strings():
    expected = pf.compare(_per_query(), baseline="a")
    with pytest.warns(UserWarning, match=r"numeric id column\(s\) \['qid'\] of the per-query table"):
        got = pf.compare(_per_query(qid=[1, "2", 1, "2"]), baseline="a")
    assert got.equals(expected)


def test_ir_measures_measure_objects_are_read_as_their_names():
    ir_measures = pytest.importorskip("ir_measures")
    measures = [ir_measures.AP, ir_measures.nDCG @ 10] * 2
    table = _per_query(measure=measures)
    frame = pf.io.convert.to_polars(table, "per-query table")
    assert frame["measure"].to_list() == [str(m) for m in measures] == ["AP", "nDCG@10", "AP", "nDCG@10"]


def test_column_of_objects_pyarrow_cannot_read_names_the_column_and_type():
    with pytest.raises(SchemaError, match=r"per-query table: column 'value' holds object values \(row 1"):
        pf.compare(_per_query(value=[object() for _ in range(4)]), baseline="a")
