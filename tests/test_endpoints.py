"""First-hit-rank exports -> hit@k / RR / AP, and reading per-query tables from Parquet, CSV and JSON."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from pairedframe.io.endpoints import endpoints_from_ranks, parse_hit_measure
from pairedframe.errors import InputFormatError, SchemaError
from pairedframe.io.results import as_results, read_results, system_name_from_results_path


def export():
    return pl.DataFrame({"qid": ["a1", "a2", "b1", "c1"], "cluster": ["a", "a", "b", "c"],
                         "first_hit_rank": [1.0, 4.0, float("inf"), 12.0], "ap": [1.0, 0.25, 0.0, 0.05]})


def test_hits_reciprocal_rank_and_ap():
    out = endpoints_from_ranks(export(), ks=[1, 5, 10], system="s")
    assert out.columns == ["system", "cluster", "qid", "measure", "value"]
    got = {m: out.filter(pl.col("measure") == m)["value"].to_list() for m in ("hit@1", "hit@5", "hit@10", "RR", "AP")}
    assert got == {"hit@1": [1, 0, 0, 0], "hit@5": [1, 1, 0, 0], "hit@10": [1, 1, 0, 0],
                   "RR": [1.0, 0.25, 0.0, 1 / 12], "AP": [1.0, 0.25, 0.0, 0.05]}
    assert out["cluster"].unique().sort().to_list() == ["a", "b", "c"]


@pytest.mark.parametrize("rank, why", [(0, "is 0, not a rank"), (-3, "is negative, not a rank"), (2.5, "not an integer"),
                                       (None, "missing"), (float("nan"), "missing")])
def test_bad_ranks_are_errors_naming_the_row(rank, why):
    df = export().with_columns(pl.Series("first_hit_rank", [1.0, 4.0, rank, 12.0], dtype=pl.Float64))
    with pytest.raises(SchemaError, match=rf"row 3 in ex\.csv \(system 's', qid 'b1'\).*{why}"):
        endpoints_from_ranks(df.with_columns(pl.lit("s").alias("system")), source="ex.csv")


@pytest.mark.parametrize("rank, why", [(0, r"0\.0 is 0, not a rank \(1/rank would divide by zero\)"),
                                       (-1, r"-1\.0 is negative, not a rank"),
                                       (float("-inf"), r"-inf is negative, not a rank")])
def test_the_reason_a_rank_below_1_is_refused_fits_its_value(rank, why):
    """A rank of -1 was refused "(rank 0 would divide by zero)": the reason given only fits 0."""
    df = export().with_columns(pl.Series("first_hit_rank", [1.0, rank, 4.0, 12.0], dtype=pl.Float64))
    with pytest.raises(SchemaError, match=rf"^row 2 \(system 's', qid 'a2'\): first_hit_rank {why}; ranks are "
                                          r"1-based integers, use inf for 'no relevant item retrieved'$"):
        endpoints_from_ranks(df, system="s")


def test_text_ranks_inf_words_and_bad_ap():
    df = pl.DataFrame({"system": "s", "qid": ["1", "2"], "first_hit_rank": ["3", "none"]})
    assert endpoints_from_ranks(df, ks=[3]).filter(pl.col("measure") == "hit@3")["value"].to_list() == [1, 0]
    with pytest.raises(SchemaError, match="row 2.*'0'"):
        endpoints_from_ranks(df.with_columns(pl.Series("first_hit_rank", ["3", "0"])))
    with pytest.raises(SchemaError, match="ap"):
        endpoints_from_ranks(export().with_columns(pl.Series("ap", [1.0, 2.0, 0.0, 0.1])), system="s")
    with pytest.raises(SchemaError, match="system"):
        endpoints_from_ranks(export())


@pytest.mark.parametrize("rank", [float("inf"), "inf", "none"])
def test_ap_above_zero_without_a_relevant_item_retrieved_is_refused_naming_both_columns(rank):
    """first_hit_rank inf says nothing relevant was retrieved, so AP is 0: ap = 0.5 there is an error."""
    df = pl.DataFrame({"system": "s", "qid": ["1", "2"], "first_hit_rank": [3, rank], "ap": [0.4, 0.5]},
                      strict=False)
    with pytest.raises(ValueError, match=r"row 2 in ex\.csv \(qid '2'\): ap 0\.5 > 0 with first_hit_rank .*\(no relevant item retrieved\)"):
        endpoints_from_ranks(df, source="ex.csv")
    ok = endpoints_from_ranks(df.with_columns(pl.Series("ap", [0.4, 0.0])))  # AP 0 at inf is consistent
    assert ok.filter(pl.col("measure") == "AP")["value"].to_list() == [0.4, 0.0]


def test_parse_hit_measure():
    assert parse_hit_measure("hit@10") == 10 and parse_hit_measure("success@1") == 1
    assert parse_hit_measure("R@10") is None and parse_hit_measure("nDCG@10") is None


def test_read_results_parquet_csv_json_and_rank_exports(tmp_path):
    per_query = pl.DataFrame({"system": ["x", "x", "y", "y"], "dataset": "d", "cluster": ["1", "1", "1", "1"],
                              "qid": ["007", "008", "007", "008"], "measure": "AP", "value": [0.1, 0.2, 0.3, 0.4]})
    per_query.write_parquet(tmp_path / "pq.parquet")
    per_query.write_csv(tmp_path / "pq.csv")
    (tmp_path / "pq.json").write_text(json.dumps(per_query.to_dicts()))
    for name in ("pq.parquet", "pq.csv", "pq.json"):
        got = read_results(tmp_path / name)
        assert got.sort("system", "qid").equals(per_query.select("system", "dataset", "cluster", "qid", "measure",
                                                                 "value")), name
        assert got["qid"].to_list()[0] == "007"
    export().write_csv(tmp_path / "input.my system (v2).csv")
    both = read_results([tmp_path / "pq.csv", tmp_path / "input.my system (v2).csv"], ks=[5])
    assert set(both["system"]) == {"x", "y", "my system (v2)"}
    assert set(both.filter(pl.col("system") == "my system (v2)")["measure"]) == {"hit@5", "RR", "AP"}
    assert system_name_from_results_path("runs/BM25 (a).csv.gz") == "BM25 (a)"


def test_read_results_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        read_results(tmp_path / "missing.csv")
    (tmp_path / "x.xlsx").write_text("")
    with pytest.raises(InputFormatError, match="unknown results format"):
        read_results(tmp_path / "x.xlsx")
    pl.DataFrame({"qid": ["1"], "score": [1.0]}).write_csv(tmp_path / "bad.csv")
    with pytest.raises(SchemaError, match=r"bad\.csv.*lacks column"):
        read_results(tmp_path / "bad.csv")
    export().with_columns(pl.Series("first_hit_rank", [1.0, 0.0, 2.0, 3.0])).write_csv(tmp_path / "zero.csv")
    with pytest.raises(SchemaError, match=r"row 2 in .*zero\.csv.*qid 'a2'"):
        read_results(tmp_path / "zero.csv")


def test_as_results_accepts_evaluation_like_and_tables():
    class Ev:
        per_query = pl.DataFrame({"system": ["s"], "qid": ["1"], "measure": ["AP"], "value": [0.5]})

    assert as_results(Ev()) is Ev.per_query
    assert as_results(export().with_columns(pl.lit("s").alias("system")), ks=[1])["measure"].unique().len() == 3
    assert np.isclose(as_results({"system": ["s"], "qid": [1], "measure": ["AP"], "value": [1]})["value"][0], 1.0)
