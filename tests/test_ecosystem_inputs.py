"""The doors the Python IR ecosystem already uses (issue 12 item 11): PyTerrier frames, ir_datasets'
namedtuple iterators and ir_measures' Qrel / ScoredDoc tuples, mapped by explicit column names, ids
kept as strings. Record types come from the real packages when they are installed (ir_datasets and
ir_measures install from PyPI; the oracles extra has them) and are built by hand otherwise;
PyTerrier needs Java, so its frames are built by hand with its column names."""

from __future__ import annotations

import re
from collections import namedtuple

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import SchemaError
from pairedframe.example import example_paths

QRELS, RUNS = example_paths()
MEASURES = ["AP", "nDCG@10", "P@10", "RR"]


@pytest.fixture(scope="module")
def want():
    return pf.evaluate(RUNS[0], QRELS, MEASURES, system="bm25").per_query


def _records(path, fields, kinds):
    """TREC file -> namedtuple-shaped rows (strings for ids, as the packages give them)."""
    table = pf.read_run(path) if "score" in fields else pf.read_qrels(path)
    return [dict(zip(fields, row)) for row in table.select(kinds).iter_rows()]


def _record_types():
    try:
        from ir_measures import Qrel, ScoredDoc
    except ImportError:  # the same field names, by hand
        Qrel = namedtuple("Qrel", ["query_id", "doc_id", "relevance", "iteration"])
        ScoredDoc = namedtuple("ScoredDoc", ["query_id", "doc_id", "score"])
    return Qrel, ScoredDoc


def test_ir_measures_qrel_and_scored_doc_tuples(want):
    Qrel, ScoredDoc = _record_types()
    qrels = [Qrel(r["query_id"], r["doc_id"], r["relevance"], "0")
             for r in _records(QRELS, ["query_id", "doc_id", "relevance"], ["qid", "docno", "rel"])]
    run = [ScoredDoc(**r) for r in _records(RUNS[0], ["query_id", "doc_id", "score"], ["qid", "docno", "score"])]
    got = pf.evaluate(run, qrels, MEASURES, system="bm25").per_query
    assert got.equals(want)
    assert got["qid"][0] == "001"                         # ids stay strings: 001 is not 1
    assert pf.as_qrels(iter(qrels)).columns == ["qid", "docno", "rel"]


def test_ir_measures_readers_output_evaluates_as_the_files(want):
    ir_measures = pytest.importorskip("ir_measures")
    run = list(ir_measures.read_trec_run(str(RUNS[0])))
    qrels = ir_measures.read_trec_qrels(str(QRELS))       # a generator of Qrel
    assert pf.evaluate(run, qrels, MEASURES, system="bm25").per_query.equals(want)


def test_ir_datasets_iterators_and_dataset_objects(want):
    pytest.importorskip("ir_datasets")
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TrecScoredDocs
    from ir_datasets.util import LocalDownload

    # A real ir_datasets dataset over local files: no download.
    dataset = Dataset(TrecQrels(LocalDownload(QRELS), {0: "not relevant", 1: "relevant"}),
                      TrecScoredDocs(LocalDownload(RUNS[0])))
    got = pf.evaluate(dataset.scoreddocs_iter(), dataset.qrels_iter(), MEASURES, system="bm25").per_query
    assert got.equals(want)
    assert pf.evaluate(dataset, dataset, MEASURES, system="bm25").per_query.equals(want)   # its *_iter() is used
    assert pf.as_qrels(dataset)["qid"].dtype == pl.String


def test_ir_datasets_record_shapes_by_hand(want):
    # ir_datasets' TrecQrel and GenericScoredDoc field names, for installs without the package
    TrecQrel = namedtuple("TrecQrel", ["query_id", "doc_id", "relevance", "iteration"])
    GenericScoredDoc = namedtuple("GenericScoredDoc", ["query_id", "doc_id", "score"])
    qrels = (TrecQrel(r["query_id"], r["doc_id"], r["relevance"], "0")
             for r in _records(QRELS, ["query_id", "doc_id", "relevance"], ["qid", "docno", "rel"]))
    run = (GenericScoredDoc(**r) for r in _records(RUNS[0], ["query_id", "doc_id", "score"], ["qid", "docno", "score"]))
    assert pf.evaluate(run, qrels, MEASURES, system="bm25").per_query.equals(want)


def test_pyterrier_frames(want):
    pd = pytest.importorskip("pandas")
    run = pf.read_run(RUNS[0]).to_pandas()
    # PyTerrier's results: qid, docid (Terrier's internal integer id), docno, score, rank, query text
    res = pd.DataFrame({"qid": run["qid"], "docid": range(len(run)), "docno": run["docno"], "score": run["score"],
                        "query": "some words"})
    res["rank"] = res.groupby("qid")["score"].rank(ascending=False, method="first").astype(int) - 1
    qrels = pf.read_qrels(QRELS).to_pandas().rename(columns={"rel": "label"})   # PyTerrier qrels: qid, docno, label
    got = pf.evaluate(res, qrels, MEASURES, system="bm25").per_query
    assert got.equals(want)                               # docno (not Terrier's docid) is the document id


def test_ambiguous_columns_are_an_error_not_a_guess():
    run = pl.DataFrame({"query_id": ["1"], "doc_id": ["d1"], "docid": ["7"], "score": [1.0]})
    with pytest.raises(SchemaError, match=r"run table has \['doc_id', 'docid'\] but no 'docno': it is ambiguous"):
        pf.as_run(run, system="s")
    qrels = pl.DataFrame({"qid": ["1"], "docno": ["d1"], "label": [1], "relevance": [0]})
    with pytest.raises(SchemaError, match=r"qrels table has \['label', 'relevance'\] but no 'rel'"):
        pf.as_qrels(qrels)
    # our own name beside an alias is two candidates as well, for every column and every table
    with pytest.raises(SchemaError, match=r"qrels table has both 'rel' and 'label'"):
        pf.as_qrels(qrels.rename({"relevance": "rel"}))
    run = pl.DataFrame({"qid": ["1"], "query_id": ["2"], "docno": ["d1"], "score": [1.0]})
    with pytest.raises(SchemaError, match=r"run table has both 'qid' and 'query_id'"):
        pf.evaluate(run, {"1": {"d1": 1}}, ["AP"], system="s")
    table = pl.DataFrame({"system": ["a", "b"], "qid": ["1", "1"], "run_id": ["x", "y"], "measure": ["AP"] * 2,
                          "value": [0.1, 0.2]})
    with pytest.raises(SchemaError, match=r"per-query table has both 'system' and 'run_id'"):
        pf.compare(table, baseline="a")


def test_records_that_are_not_namedtuples_or_mixed_are_refused():
    with pytest.raises(TypeError, match="records must be namedtuples"):
        pf.as_run([("1", "d1", 1.0)], system="s")
    Qrel, ScoredDoc = _record_types()
    with pytest.raises(TypeError, match="mix"):
        pf.as_qrels([Qrel("1", "d1", 1, "0"), ScoredDoc("1", "d1", 1.0)])
    with pytest.raises(SchemaError, match="iterator yielded no record"):
        pf.as_qrels(iter([]))


@pytest.mark.parametrize("value", [True, np.True_], ids=repr)
@pytest.mark.parametrize("kind, field, record", [
    ("qrels", "relevance", 1), ("qrels", "query_id", 0), ("run", "score", 1), ("run", "doc_id", 0)])
def test_records_refuse_a_bool_among_ids_grades_or_scores_naming_the_field_and_record(kind, field, record, value):
    """A True among a record field's grades was read as grade 1 (and a qid True as 'true'), while a table's
    or dict's boolean grades and scores are refused."""
    Qrel, ScoredDoc = _record_types()
    if kind == "qrels":
        rows = [Qrel("1", "d1", 2, "0"), Qrel("1", "d2", 0, "0")]
        rows[record] = rows[record]._replace(**{field: value})
        read = lambda: pf.as_qrels(rows)  # noqa: E731
    else:
        rows = [ScoredDoc("1", "d1", 2.5), ScoredDoc("1", "d2", 0.5)]
        rows[record] = rows[record]._replace(**{field: value})
        read = lambda: pf.as_run(rows, system="s")  # noqa: E731
    with pytest.raises(SchemaError, match=rf"^{kind} records: field '{field}' of record {record + 1} is "
                                          rf"{re.escape(repr(value))} \(bool\)"):
        read()


def test_a_list_of_dict_runs_or_qrels_says_to_key_the_runs_by_system():
    """pytrec_eval-style dicts in a list were called 'records that must be namedtuples'; several dict runs
    are one dict keyed by system (evaluate's docstring), which evaluates them."""
    run_1, run_2, qrels = {"q1": {"d1": 2.0, "d2": 1.0}}, {"q1": {"d1": 1.0, "d2": 2.0}}, {"q1": {"d1": 1}}
    with pytest.raises(TypeError, match=r"several dict runs as one dict keyed by system, \{system: \{qid"):
        pf.evaluate([run_1, run_2], qrels, "AP")
    with pytest.raises(TypeError, match=r"qrels from a list of dicts: pass one dict \{qid: \{docno: grade\}\}"):
        pf.evaluate(run_1, [qrels, qrels], "AP")
    with pytest.raises(TypeError, match=r"rows as a table, e.g. polars.DataFrame\(rows\)"):
        pf.as_run([{"qid": "q1", "docno": "d1", "score": 1.0}], system="s")
    keyed = pf.evaluate({"bm25": run_1, "rerank": run_2}, qrels, "AP").per_query.sort("system")
    assert keyed["system"].to_list() == ["bm25", "rerank"] and keyed["value"].to_list() == [1.0, 0.5]


@pytest.mark.parametrize("empty", [[], ()])
def test_an_empty_list_as_the_run_or_qrels_is_named_an_empty_list_not_an_iterator(empty):
    """pf.evaluate([], qrels) said "its iterator yielded no record": a list of run files that came out empty
    (a glob that matched nothing) is named as what it is."""
    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    kind = type(empty).__name__
    with pytest.raises(SchemaError, match=rf"^run is an empty {kind}: give a run file path, a list of paths, or a "
                                          rf"table$"):
        pf.evaluate(empty, qrels, ["AP"])
    with pytest.raises(SchemaError, match=rf"^qrels is an empty {kind}: give a qrels file path, or a table$"):
        pf.evaluate(runs[0], empty, ["AP"])
    with pytest.raises(SchemaError, match="iterator yielded no record"):   # an iterator keeps its message
        pf.as_run(iter([]), system="s")
