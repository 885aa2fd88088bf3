"""A null id in a DuckDB relation is refused naming its first such row, word for word as in polars."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import SchemaError


@pytest.mark.parametrize("column", ["qid", "system", "measure"])
def test_null_id_in_duckdb_names_the_first_such_row_as_polars(column):
    per_query = pl.DataFrame({"system": ["a", "a", "b", "b"], "qid": ["1", "2", "1", "2"], "measure": "AP",
                              "value": [0.1, 0.2, 0.3, 0.4]})
    per_query = per_query.with_columns(pl.when(pl.int_range(pl.len()) == 3).then(None)
                                       .otherwise(pl.col(column)).alias(column))
    with pytest.raises(SchemaError) as on_polars:
        pf.compare(per_query, baseline="a")
    with pytest.raises(SchemaError, match=r"e\.g\. the row \{") as on_duckdb:
        pf.compare(duckdb.sql("SELECT * FROM per_query"), baseline="a")
    assert str(on_duckdb.value) == str(on_polars.value)
