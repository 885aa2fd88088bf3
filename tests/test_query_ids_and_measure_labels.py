"""Query ids and measure labels: nameless non-finite rows refused in compare, integer query ids in
per-query tables warned about, and measure labels under ``-l`` in CSV/JSON/trec output."""

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


def _integer_ids() -> pl.DataFrame:
    return pl.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "qid": [1, 2, 3, 4] * 2, "measure": "AP",
                         "value": [0.1, 0.2, 0.3, 0.4, 0.2, 0.2, 0.5, 0.3]})


@pytest.mark.parametrize("call", [
    lambda pq: pf.compare(pq, baseline="a", n_resamples=99),
    lambda pq: pf.compare(duckdb.sql("SELECT * FROM pq"), baseline="a", n_resamples=99),
    lambda pq: pf.compare_clustered(pq, clusters={"1": "x", "2": "x", "3": "y", "4": "y"}, baseline="a", n_resamples=99),
    lambda pq: pf.compare_segments(pq, {"qid": ["1", "2", "3", "4"], "segment_set": "s", "segment": "t"},
                                   baseline="a", n_resamples=99),
], ids=["compare", "compare-duckdb", "compare_clustered", "compare_segments"])
def test_integer_qids_of_a_per_query_table_warn_that_leading_zeros_may_be_lost(call):
    pq = _integer_ids()  # noqa: F841 (read by DuckDB's replacement scan)
    with pytest.warns(UserWarning, match=r"\['qid'\] of the per-query table converted to strings.*'007'") as got:
        call(pq)
    assert any(w.filename == __file__ for w in got if "numeric id" in str(w.message))  # points at the caller


@pytest.mark.parametrize("table, what", [
    ({"qid": [1, 2, 3, 4], "segment_set": "s", "segment": "t"}, "segment table"),
])
def test_integer_qids_of_a_segment_table_warn(table, what):
    pq = _integer_ids().with_columns(pl.col("qid").cast(pl.String))
    with pytest.warns(UserWarning, match=f"of the {what} converted to strings"):
        pf.compare_segments(pq, pl.DataFrame(table), baseline="a", n_resamples=99)


def test_integer_qids_of_a_cluster_table_warn():
    pq = _integer_ids().with_columns(pl.col("qid").cast(pl.String))
    with pytest.warns(UserWarning, match="of the cluster table converted to strings"):
        pf.compare_clustered(pq, clusters=pl.DataFrame({"qid": [1, 2, 3, 4], "cluster": ["x", "x", "y", "y"]}),
                             baseline="a", n_resamples=99)


def test_string_qids_give_no_id_warning():
    pq = _integer_ids().with_columns(pl.col("qid").cast(pl.String))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.filterwarnings("ignore", category=pf.SmallSampleWarning)
        try:
            pf.compare(pq, baseline="a", n_resamples=99)
        except UserWarning as w:
            assert "numeric id" not in str(w)


def _csv_measures(output: str) -> list[str]:
    return pl.read_csv(output.encode())["measure"].to_list()


def test_csv_and_json_labels_state_the_relevance_level_used_under_l2(shared_data):
    from typer.testing import CliRunner

    from pairedframe.cli import app
    folder = shared_data / "trec_eval"
    args = ["evaluate", str(folder / "qrels.rel_level"), str(folder / "results.test"), "-l", "2",
            "-m", "P(rel=1)@10", "-m", "P@10", "-m", "map"]
    out = CliRunner().invoke(app, [*args, "-f", "csv"])
    assert out.exit_code == 0, out.output
    assert _csv_measures(out.stdout) == ["P(rel=1)@10", "P(rel=2)@10", "AP(rel=2)"]
    json_out = CliRunner().invoke(app, [*args, "-f", "json"])
    assert [row["measure"] for row in __import__("json").loads(json_out.stdout)] == [
        "P(rel=1)@10", "P(rel=2)@10", "AP(rel=2)"]
    # Values: P(rel=1)@10 under -l 2 is P@10 under -l 1, and -m P@10 is P(rel=2)@10 under -l 1.
    level_1 = CliRunner().invoke(app, [*args[:3], "-m", "P@10", "-m", "P(rel=2)@10", "-f", "csv"])
    assert pl.read_csv(out.stdout.encode())["value"].to_list()[:2] == \
        pl.read_csv(level_1.stdout.encode())["value"].to_list()


def test_csv_names_are_canonical_and_trec_names_are_trec_evals(shared_data):
    from typer.testing import CliRunner

    from pairedframe.cli import app
    folder = shared_data / "trec_eval"
    args = ["evaluate", str(folder / "qrels.test"), str(folder / "results.test"), "-m", "map", "-m", "P.10"]
    assert _csv_measures(CliRunner().invoke(app, [*args, "-f", "csv"]).stdout) == ["AP", "P@10"]
    trec = CliRunner().invoke(app, [*args, "-f", "trec"]).stdout
    assert [line.split()[0] for line in trec.splitlines()] == ["map", "P_10"]
    assert "canonical name" in CliRunner().invoke(app, ["evaluate", "--help"]).stdout


def test_a_measure_resolved_under_another_level_round_trips_through_its_name():
    from pairedframe.measures import parse_measure
    for text in ["P(rel=1)@10", "P@10", "AP", "R(rel=3)@100"]:
        for level in (1, 2):
            resolved = parse_measure(text)[0].resolved(level)
            assert parse_measure(resolved.name)[0].resolved(level) == resolved




def test_trec_eval_names_select_the_tables_measures_in_compare_and_results_table_against_canonical_names():
    """evaluate accepts trec_eval's names (map, ndcg_cut_10); so do the functions that read its per-query
    table: a name that parses to exactly one of the table's measures selects it, a name that does not is
    still refused by name."""
    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    ev = pf.evaluate(runs, qrels, ["nDCG@10", "AP"])
    baseline = ev.per_query["system"][0]
    by_trec = pf.compare(ev, baseline=baseline, measures=["map", "ndcg_cut_10"], n_resamples=200)
    canonical = pf.compare(ev, baseline=baseline, measures=["AP", "nDCG@10"], n_resamples=200)
    assert by_trec.equals(canonical)
    assert pf.results_table(ev, measures="map").table.equals(pf.results_table(ev, measures="AP").table)
    with pytest.raises(pf.EmptyResultError, match=r"'P_10'.*match nothing"):
        pf.compare(ev, baseline=baseline, measures=["P_10"])
