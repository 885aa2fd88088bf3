"""The polars engine divides as C (trec_eval) and DuckDB do: an IEEE division, never polars'
multiplication by the reciprocal (polars >= 2 takes that path when the divisor chunk is one repeated
value, e.g. in single-row groups: 3 / log2(3) came out 1 ulp high in G)."""

from __future__ import annotations

import math

import polars as pl
import pytest

from pairedframe.measures.polars_exprs import quotient

LOG2_3 = math.log2(3)


@pytest.mark.parametrize("engine", ["in-memory", "streaming"])
def test_quotient_by_a_repeated_divisor_against_python_division(engine: str):
    # A divisor column made from a literal is stored as one repeated value: polars 2's '/' gives
    # 3 * (1 / log2(3)) there (in-memory engine), as in single-row groups (streaming engine).
    frame = pl.DataFrame({"qid": ["007", "01"], "gain": [2.0, 3.0]}).lazy().with_columns(log=pl.lit(LOG2_3))
    got = (frame.with_columns(quotient(pl.col("gain"), pl.col("log")).alias("term"))
           .group_by("qid").agg(pl.col("term").cum_sum().last()).collect(engine=engine).sort("qid"))
    assert got["term"].to_list() == [2.0 / LOG2_3, 3.0 / LOG2_3]
    assert 3.0 / LOG2_3 != 3.0 * (1.0 / LOG2_3)  # the two differ, so the check above can fail


def test_quotient_broadcast_divisor_nulls_and_integers_against_python_division():
    frame = pl.DataFrame({"num": [3.0, None, 7.0, 1.0], "den": [LOG2_3, LOG2_3, 49.0, None],
                          "hits": [1, 2, 3, 4], "n": [7, 7, 7, 7]})
    got = frame.select(quotient(pl.col("num"), pl.lit(LOG2_3)).alias("lit"),
                       quotient(pl.col("num"), pl.col("den")).alias("cols"),
                       quotient(pl.col("hits"), pl.col("n")).alias("ints"))
    assert got["lit"].to_list() == [3.0 / LOG2_3, None, 7.0 / LOG2_3, 1.0 / LOG2_3]
    assert got["cols"].to_list() == [3.0 / LOG2_3, None, 7.0 / 49.0, None]
    assert got["ints"].to_list() == [h / 7 for h in (1, 2, 3, 4)]
    empty = pl.DataFrame(schema={"num": pl.Float64, "den": pl.Int64}).select(quotient(pl.col("num"), pl.col("den")))
    assert empty.height == 0 and empty.dtypes == [pl.Float64]
