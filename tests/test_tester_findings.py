"""Regressions for a newcomer tester's findings: silent zeros from mis-spelled docnos, measure labels
under ``-l``, nameless non-finite rows in compare, and integer query ids in per-query tables."""

from __future__ import annotations

import warnings

import duckdb
import polars as pl
import pytest

import pairedframe as pf


def _per_query(values: list[float]) -> pl.DataFrame:
    return pl.DataFrame({"system": ["a", "a", "a", "b", "b", "b"], "qid": ["1", "2", "3"] * 2,
                         "measure": "AP", "value": values})


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_compare_names_the_first_non_finite_row_on_polars_and_duckdb(bad):
    pq = _per_query([0.1, 0.2, 0.3, 0.4, bad, bad])
    with pytest.raises(ValueError) as on_polars:
        pf.compare(pq, baseline="a")
    message = str(on_polars.value)
    assert "2 row(s)" in message and "system='b'" in message and "qid='2'" in message and "measure='AP'" in message
    with pytest.raises(ValueError) as on_duckdb:
        pf.compare(duckdb.sql("SELECT * FROM pq"), baseline="a")
    assert str(on_duckdb.value) == message
