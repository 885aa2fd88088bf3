"""A key column named as a result column (baseline, delta, ...) gave polars' raw 'DuplicateError: projections
contained duplicate output name' (the tester of round 14); it is refused naming the column, in every route."""

from __future__ import annotations

import warnings

import duckdb
import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.comparison.reserved import RESULT_COLUMNS
from pairedframe.errors import SchemaError

N = 12
QIDS = [str(i) for i in range(N)]
SEGMENTS = pl.DataFrame({"qid": QIDS, "segment_set": "s", "segment": ["x", "y"] * (N // 2)})
CLUSTERS = {q: f"c{i // 2}" for i, q in enumerate(QIDS)}


def _table(**keys: str) -> pl.DataFrame:
    rng = np.random.default_rng(0)
    return pl.DataFrame({"system": ["a"] * N + ["b"] * N, "qid": QIDS * 2, "measure": "AP",
                         "value": rng.uniform(size=2 * N)}).with_columns(pl.lit(v).alias(k) for k, v in keys.items())


def _outputs(table) -> list[pl.DataFrame]:
    kw = {"baseline": "a", "n_resamples": 99}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [pf.compare(table, **kw), pf.compare(table, baseline=["a", "b"], n_resamples=99),
                pf.compare_segments(table, SEGMENTS, **kw), pf.compare_clustered(table, clusters=CLUSTERS, **kw),
                pf.compare_clustered(table, clusters=CLUSTERS, margin=0.1, **kw),
                pf.compare(table, baseline="a", resampling="adaptive"),
                pf.compare_segments(table, SEGMENTS, baseline="a", resampling="adaptive"),
                pf.compare(table, pairs="all", n_resamples=99), pf.compare(table, pairs="ordered", n_resamples=99)]


def test_result_columns_list_every_column_a_comparison_adds_against_the_outputs():
    added = set().union(*(out.columns for out in _outputs(_table())))
    assert added - {"system", "measure", "segment_set", "segment"} == set(RESULT_COLUMNS)


@pytest.mark.parametrize("name", ["baseline", "delta", "pvalue", "pvalue_tukey", "pvalue_max_tukey_raw"])
@pytest.mark.parametrize("door", ["compare", "compare_duckdb", "compare_segments", "compare_clustered", "compare_pairs",
                                  "compare_pairs_duckdb"])
def test_a_key_column_named_as_a_result_column_is_refused_naming_it(door, name):
    table = _table(**{name: "x"})
    data = duckdb.from_arrow(table.to_arrow()) if door.endswith("duckdb") else table
    with pytest.raises(SchemaError, match=rf"has a column '{name}', which a comparison would keep as a key"):
        if door.startswith("compare_segments"):
            pf.compare_segments(data, SEGMENTS, baseline="a", n_resamples=99)
        elif door.startswith("compare_clustered"):
            pf.compare_clustered(data, clusters=CLUSTERS, baseline="a", n_resamples=99)
        elif door.startswith("compare_pairs"):    # was: pvalue_tukey silently replaced by the result's
            pf.compare(data, pairs="all", n_resamples=99)
        else:
            pf.compare(data, baseline="a", n_resamples=99)
