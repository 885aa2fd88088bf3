"""ir_measures' measures beyond trec_eval, on real runs: ``Judged@k``, ``ERR@k`` (gdeval, through
ir_measures) and ``nDCG(judged_only=True)@k`` (pytrec_eval with trec_eval's -J, through ir_measures),
and ir_measures' measure names parsing to the same measures.

The oracle gets its inputs parsed with plain Python. ir_measures' Judged provider breaks score ties
by docno ascending (trec_eval: descending), so for Judged it is given the trec_eval ranking as
untied scores (the measure is compared on one ranking); gdeval and pytrec_eval break ties as
trec_eval does and get the run's own scores. gdeval prints 5 decimals: ERR is compared as printed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import pairedframe as pf
from pairedframe.io import system_name_from_path
from pairedframe.measures import parse_measure
from tests.reference.trec_reference import trec_order
from tests.test_evaluate_against_pytrec_eval import collection, parse_qrels, parse_run

ir_measures = pytest.importorskip("ir_measures")

pytestmark = [pytest.mark.oracle, pytest.mark.shared_data]

# collection -> how many of its runs (sorted by name) are compared: a sample (gdeval runs a Perl
# process per run and cutoff, and each run is evaluated alone to name the oracle's run).
RUNS = {"dl2019": 8, "robust03": 4, "dl2021": 8}
CUTOFFS = (5, 10, 20, 100)


def _runs(shared_data: Path, name: str) -> tuple[Path, list[Path]]:
    qrels, runs = collection(shared_data, name)
    return qrels, runs[:RUNS[name]]


def _ours(path: Path, qrels: Path, names: list[str], **kwargs) -> dict[tuple[str, str], float]:
    ev = pf.evaluate(path, qrels, names, **kwargs)
    return {(m, q): v for _, q, m, v in ev.per_query.iter_rows()}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_judged_against_ir_measures(shared_data, name):
    qrels_path, runs = _runs(shared_data, name)
    qrels = parse_qrels(qrels_path)
    measures = [ir_measures.Judged @ k for k in CUTOFFS] + [ir_measures.Judged]
    compared = 0
    for path in runs:
        run = parse_run(path, qrels)
        untied = {q: {d: -float(i) for i, d in enumerate(trec_order(list(docs.items())))} for q, docs in run.items()}
        want = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, qrels, untied)}
        got = _ours(path, qrels_path, [str(m) for m in measures])
        bad = [(system_name_from_path(path), k, got[k], v) for k, v in want.items() if abs(got[k] - v) > 1e-12]
        assert not bad, bad[:5]
        compared += len(want)
    assert compared > 0


@pytest.mark.parametrize("name", sorted(RUNS))
def test_err_against_gdeval_through_ir_measures(shared_data, name):
    if ir_measures.providers.registry["gdeval"].is_available() is False:
        pytest.skip("gdeval needs perl")
    qrels_path, runs = _runs(shared_data, name)
    qrels = parse_qrels(qrels_path)
    measures = [ir_measures.ERR @ 10, ir_measures.ERR @ 20]
    for path in runs:
        want = {(str(m.measure), m.query_id): m.value
                for m in ir_measures.iter_calc(measures, qrels, parse_run(path, qrels))}
        got = _ours(path, qrels_path, [str(m) for m in measures])
        assert want
        bad = [(system_name_from_path(path), k, got[k], v) for k, v in want.items() if f"{got[k]:.5f}" != f"{v:.5f}"]
        assert not bad, bad[:5]


@pytest.mark.parametrize("name", sorted(RUNS))
def test_judged_only_ndcg_against_ir_measures(shared_data, name):
    qrels_path, runs = _runs(shared_data, name)
    qrels = parse_qrels(qrels_path)
    measures = [ir_measures.parse_measure("nDCG(judged_only=True)@10"), ir_measures.parse_measure("nDCG(judged_only=True)")]
    for path in runs:
        want = {(str(m.measure), m.query_id): m.value
                for m in ir_measures.iter_calc(measures, qrels, parse_run(path, qrels))}
        got = _ours(path, qrels_path, [str(m) for m in measures], score_precision="float32")
        assert want
        bad = [(system_name_from_path(path), k, got[k], v) for k, v in want.items() if abs(got[k] - v) > 1e-12]
        assert not bad, bad[:5]


IR_MEASURES_NAMES = ["AP", "AP@100", "AP(rel=2)", "nDCG@10", "nDCG(dcg='exp-log2')@10", "nDCG(judged_only=True)@10",
                     "nDCG(gains={0:0,1:1,2:3,3:7})@20", "P@5", "P(rel=2)@10", "R@100", "R(rel=2)@1000", "RR",
                     "RR(rel=2)@10", "Rprec", "Rprec(rel=2)", "Bpref", "Bpref(rel=2)", "Success@5", "Success(rel=2)@10",
                     "infAP", "IPrec@0.5", "SetP", "SetP(rel=2)", "SetR", "SetF(beta=0.5)", "SetAP", "SetRelP",
                     "NumRet", "NumRet(rel=1)", "NumRelRet", "NumRel", "NumQ", "Judged@10", "ERR@20",
                     "RBP(p=0.8)", "RBP(p=0.9,rel=2)", "RBP(rel=1)"]


@pytest.mark.parametrize("text", IR_MEASURES_NAMES)
def test_ir_measures_names_parse_against_ir_measures(text):
    """A measure list copied from an ir_measures script works unchanged: each name parses, to one
    measure, with the cutoff, rel and parameters ir_measures reads from it."""
    theirs = ir_measures.parse_measure(text)
    (ours,) = parse_measure(text)
    params = theirs.params
    assert ours.cutoff == params.get("cutoff") or ours.spec.at != "cutoff"
    if "rel" in params and theirs.NAME not in ("NumRet",):
        assert ours.rel == params["rel"]
    if params.get("dcg") == "exp-log2":
        assert ours.gain == "exp"
    if params.get("judged_only"):
        assert ours.judged_only
    if "gains" in params:
        assert dict(ours.gains or ()) == {k: float(v) for k, v in params["gains"].items() if k != v}
    for key in ("p", "beta", "recall"):
        if key in params:
            assert ours.param(key) == params[key]
