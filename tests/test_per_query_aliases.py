"""A per-query table's columns under ir_measures' names (``query_id``, ``run_id``) are read as ``qid`` and
``system`` by every per-query reader, as in runs and qrels; one of ours beside its alias stays an error."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import SchemaError

TABLE = pl.DataFrame({"system": ["a", "a", "a", "b", "b", "b"], "qid": ["1", "2", "3"] * 2, "measure": ["AP"] * 6,
                      "value": [0.1, 0.2, 0.3, 0.5, 0.4, 0.6]})


def _compare(table):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pf.compare(table, baseline="a")


@pytest.mark.parametrize("renames", [{"qid": "query_id"}, {"system": "run_id"}, {"qid": "query_id", "system": "run_id"}])
def test_compare_reads_ir_measures_column_names_as_ours(renames):
    assert _compare(TABLE.rename(renames)).equals(_compare(TABLE))


def test_compare_of_several_baselines_reads_run_id_as_system():
    expected = pf.compare(TABLE, baseline=["a"])
    assert pf.compare(TABLE.rename({"system": "run_id"}), baseline=["a"]).equals(expected)


def test_read_results_reads_query_id_as_qid(tmp_path):
    TABLE.write_csv(tmp_path / "ours.csv")
    TABLE.rename({"qid": "query_id"}).write_csv(tmp_path / "theirs.csv")
    assert pf.read_results(tmp_path / "theirs.csv").equals(pf.read_results(tmp_path / "ours.csv"))


def test_qid_beside_query_id_is_still_refused():
    with pytest.raises(SchemaError, match=r"both 'qid' and 'query_id'"):
        _compare(TABLE.with_columns(pl.col("qid").alias("query_id")))


def test_compare_of_an_ir_measures_iter_calc_frame():
    ir_measures = pytest.importorskip("ir_measures")
    pd = pytest.importorskip("pandas")
    qrels = [ir_measures.Qrel(q, d, r) for q in "123" for d, r in (("d1", 1), ("d2", 0), ("d3", 2))]
    runs = {"a": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "b": {"d3": 3.0, "d1": 2.0, "d2": 1.0}}
    frames = []
    for system, scores in runs.items():
        run = [ir_measures.ScoredDoc(q, d, s) for q in "123" for d, s in scores.items()]
        frame = pd.DataFrame(ir_measures.iter_calc([ir_measures.AP, ir_measures.nDCG @ 10], qrels, run))
        frames.append(frame.assign(system=system))
    got = _compare(pd.concat(frames))
    ours = pf.evaluate({s: {q: scores for q in "123"} for s, scores in runs.items()},
                       {q: {r.doc_id: r.relevance for r in qrels if r.query_id == q} for q in "123"}, ["AP", "nDCG@10"])
    assert got.select("measure", "delta").equals(_compare(ours).select("measure", "delta"))


def test_compare_reads_pyterrier_name_column_as_system():
    """pt.Experiment(..., perquery=True) names the system column ``name``: read as ``system``, as run_id is."""
    assert _compare(TABLE.rename({"system": "name"})).equals(_compare(TABLE))
    assert pf.compare(TABLE.rename({"system": "name"}), baseline=["a"]).equals(pf.compare(TABLE, baseline=["a"]))


def test_name_beside_system_keeps_its_own_meaning():
    """Beside ``system`` a ``name`` column is something else (a label): no error, the result as without it
    when it holds one value."""
    labelled = TABLE.with_columns(pl.lit("label").alias("name"))
    columns = ["system", "measure", "delta", "pvalue", "ci_low", "ci_high"]
    assert _compare(labelled).select(columns).equals(_compare(TABLE).select(columns))


def test_as_run_reads_a_name_column_as_system():
    run = pl.DataFrame({"name": ["bm25", "bm25"], "qid": ["1", "1"], "docno": ["d1", "d2"], "score": [2.0, 1.0]})
    assert pf.as_run(run)["system"].to_list() == ["bm25", "bm25"]
    assert set(pf.evaluate([run, run.with_columns(pl.lit("dense").alias("name"))], {"1": {"d1": 1}},
                           "AP").per_query["system"]) == {"bm25", "dense"}
