"""Id columns (system, qid, docno) holding booleans or dates/times are a SchemaError naming the table and the
column -- never read as the ids 'true' / '2020-01-01 00:00:00.000000' that match nothing, nor a traceback.
Ids are strings; a flag or a timestamp is no id."""

from __future__ import annotations

import pytest

pd = pytest.importorskip("pandas", reason="the pandas table form needs pandas")

import pairedframe as pf
from pairedframe.errors import SchemaError

BOOLS = [True, False, True, False]
DATES = pd.to_datetime(["2020-01-01", "2020-01-02"] * 2)
RUN = {"system": ["a", "a", "b", "b"], "qid": ["1", "2", "1", "2"], "docno": ["d1", "d2", "d1", "d2"],
       "score": [1.0, 2.0, 3.0, 4.0]}
QRELS = {"qid": ["1", "2"], "docno": ["d1", "d2"], "rel": [1, 1]}
PER_QUERY = {"system": ["a", "a", "b", "b"], "qid": ["1", "2", "1", "2"], "measure": ["AP"] * 4,
             "value": [0.1, 0.2, 0.3, 0.4]}


def _with(table: dict, column: str, values) -> pd.DataFrame:
    frame = pd.DataFrame(table)
    frame[column] = list(values)[:len(frame)]
    return frame


@pytest.mark.parametrize("values, kind", [(BOOLS, "Boolean"), (DATES, "Datetime")])
@pytest.mark.parametrize("column", ["system", "qid", "docno"])
def test_a_bool_or_datetime_run_id_column_is_a_schema_error_naming_table_and_column(column, values, kind):
    run = _with(RUN, column, values)
    pattern = rf"id column\(s\) '{column}' \({kind}.*of the run table"
    with pytest.raises(SchemaError, match=pattern):
        pf.as_run(run)
    with pytest.raises(SchemaError, match=pattern):
        pf.evaluate(run, pd.DataFrame(QRELS), "AP")


@pytest.mark.parametrize("values, kind", [(BOOLS, "Boolean"), (DATES, "Datetime")])
@pytest.mark.parametrize("column", ["qid", "docno"])
def test_a_bool_or_datetime_qrels_id_column_is_a_schema_error_naming_table_and_column(column, values, kind):
    with pytest.raises(SchemaError, match=rf"id column\(s\) '{column}' \({kind}.*of the qrels table"):
        pf.as_qrels(_with(QRELS, column, values))


@pytest.mark.parametrize("values, kind", [(BOOLS, "Boolean"), (DATES, "Datetime")])
@pytest.mark.parametrize("column", ["system", "qid"])
def test_a_bool_or_datetime_per_query_id_column_is_a_schema_error_naming_table_and_column(column, values, kind):
    with pytest.raises(SchemaError, match=rf"id column\(s\) '{column}' \({kind}.*of the per-query table"):
        pf.compare(_with(PER_QUERY, column, values), baseline="a")
