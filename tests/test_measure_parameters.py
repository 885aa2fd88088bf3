"""Measure parameters outside their domain are refused when the name is parsed (never a garbage
number with exit code 0), naming the text as given, the parameter, the value and the allowed range;
values on the edge of a domain still evaluate, as trec_eval 10 / the scalar reference computes them.

Domains (trec_eval 10 checks only cutoffs > 0, duplicate cutoffs and utility's 4 coefficients;
the rest follows the measures' definitions): RBP / RBPResid persistence p in (0, 1); IPrec recall
and IPrecAvg levels in [0, 1]; RprecMult multiple > 0; SetF beta >= 0 (trec_eval's x: 0 gives set
precision); Utility exactly 4 weights, collection_size >= 0; cutoffs (relstring's length too)
positive integers; gains finite (negative and zero gains are allowed, as m_ndcg.c documents).
"""

from __future__ import annotations

import math

import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.errors import UnknownMeasureError
from pairedframe.example import example_paths
from pairedframe.measures import Measure, parse_measure
from tests.reference.trec_reference import evaluate_reference
from tests.strategies import Case

# (name as given, fragments the message must hold: parameter=value and the allowed range)
BAD = [
    ("RBP(p=1.5)", "p=1.5", "(0, 1)"),
    ("RBPResid(p=1.5)", "p=1.5", "(0, 1)"),
    ("RBP(p=-0.5)", "p=-0.5", "(0, 1)"),
    ("RBP(p=1)", "p=1", "(0, 1)"),
    ("RBP(p=0)@10", "p=0", "(0, 1)"),
    ("RBP(p=1e999)", "p=inf", "(0, 1)"),
    ("rbp.p=1.5", "p=1.5", "(0, 1)"),
    ("rbp.p=-2,1=3", "p=-2.0", "(0, 1)"),
    ("rbp_resid.p=1", "p=1.0", "(0, 1)"),
    ("IPrec@1.5", "recall=1.5", "[0, 1]"),
    ("IPrec@-0.1", "recall=-0.1", "[0, 1]"),
    ("iprec_at_recall.0.5,1.5", "recall=1.5", "[0, 1]"),
    ("iprec_at_recall_1.50", "recall=1.5", "[0, 1]"),
    ("IPrecAvg(levels=(0.5,1.5))", "levels=(0.5,1.5)", "[0, 1]"),
    ("11pt_avg.-0.2,0.5", "levels=(-0.2,0.5)", "[0, 1]"),
    ("RprecMult@0", "mult=0", "(0, inf)"),
    ("Rprec_mult.-1", "mult=-1.0", "(0, inf)"),
    ("SetF(beta=-1)", "beta=-1", "[0, inf)"),
    ("set_F.-0.5", "beta=-0.5", "[0, inf)"),
    ("Utility(weights=(1,2))", "weights=(1,2)", "exactly 4"),
    ("Utility(weights=(1,-1,0,0,5))", "weights=(1,-1,0,0,5)", "exactly 4"),
    ("utility.1,2", "4 coefficients", "improper number of coefficients: 2"),
    ("utility.1,-1,0,0,0", "4 coefficients", "improper number of coefficients: 5"),
    ("Utility(collection_size=-5)", "collection_size=-5", "[0, inf)"),
    ("P@0", "cutoff=0", "positive integer"),
    ("P@-1", "cutoff=-1", "positive integer"),
    ("P@1.5", "cutoff=1.5", "positive integer"),
    ("nDCG(cutoff=0)", "cutoff=0", "positive integer"),
    ("P.0,5", "cutoff=0", "positive integer"),
    ("ndcg_cut.-10", "cutoff=-10", "positive integer"),
    ("relstring.0", "cutoff=0", "positive integer"),
    ("relstring.-3", "cutoff=-3", "positive integer"),
    ("nDCG(gains={1:1e999})@10", "gain inf", "finite"),
    ("ndcg.1=1e999", "gain '1e999' of grade 1", "finite"),
]


@pytest.mark.parametrize("text, parameter, allowed", BAD, ids=[b[0] for b in BAD])
def test_out_of_range_parameters_are_refused_naming_text_parameter_value_and_range(text, parameter, allowed):
    with pytest.raises(UnknownMeasureError) as exc:
        parse_measure(text)
    message = str(exc.value)
    assert isinstance(exc.value, ValueError)
    assert repr(text) in message and parameter in message and allowed in message, message
    assert "did you mean" not in message  # the name is right; only its parameter is not


@pytest.mark.parametrize("text", ["RBP(p=1.5)", "IPrec@1.5", "SetF(beta=-1)", "Utility(weights=(1,2))"])
def test_out_of_range_parameters_raise_from_evaluate(text):
    qrels, runs = example_paths()
    with pytest.raises(ValueError, match="out of range|exactly 4"):
        pf.evaluate(runs[0], qrels, [text])


def test_out_of_range_parameter_exits_2_on_the_cli():
    qrels, runs = example_paths()
    result = CliRunner().invoke(app, ["evaluate", "-m", "RBP(p=1.5)", str(qrels), str(runs[0])])
    assert result.exit_code == 2
    assert "'RBP(p=1.5)'" in result.stderr and "p=1.5" in result.stderr and "(0, 1)" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


@pytest.mark.parametrize("kwargs", [{"params": (("p", 1.5),)}, {"params": (("p", math.nan),)},
                                    {"gains": ((1, math.inf),)}], ids=["p=1.5", "p=nan", "gain=inf"])
def test_measures_built_directly_are_checked_too(kwargs):
    with pytest.raises(UnknownMeasureError, match="measure RBP: .*finite"):
        Measure("RBP", **kwargs)


# Edges of each domain, and trec_eval's negative gains.
BOUNDARY = ["RBP(p=1e-9)", "RBP(p=0.999999)", "rbp.p=0.999999", "RBPResid(p=1e-9)", "RBPResid(p=0.999999)",
            "IPrec@0", "IPrec@1", "iprec_at_recall.0,1", "IPrecAvg(levels=(0,1))", "11pt_avg.1",
            "RprecMult@1e-9", "Rprec_mult.0.001,100", "SetF(beta=0)", "set_F.0", "SetF(beta=1e6)",
            "Utility(weights=(0,0,0,0))", "Utility(weights=(1,-1,0,0.5),collection_size=0)", "utility.0,0,0,0",
            "P@1", "relstring.1", "relstring.2.9", "nDCG(gains={1:-3,2:-1})@10", "ndcg.0=-1,1=0",
            "RBP(gains={0:-2,2:-1})", "G(gains={1:-1})"]

EDGE_CASE = Case(
    runs={"sys": {"q1": [("a", 5.0), ("u", 4.0), ("b", 3.0), ("c", 2.0), ("n", 1.0)],
                  "q2": [("x", 2.0), ("d", 1.0)], "q3": [("e", 1.0)]}},
    qrels={"q1": {"a": 2, "b": 0, "c": 1, "d": 3, "n": -1}, "q2": {"d": 1, "e": 0}, "q3": {"e": 0}})


@pytest.mark.parametrize("text", BOUNDARY)
def test_boundary_parameters_against_trec10_reference(text):
    measures = parse_measure(text)
    want = evaluate_reference(EDGE_CASE.runs, EDGE_CASE.qrels, [m.resolved(1) for m in measures])
    for engine in ("duckdb", "polars"):
        result = pf.evaluate(EDGE_CASE.run_frame(), EDGE_CASE.qrels_frame(), measures, engine=engine)
        got = {(s, q, m): v for s, q, m, v in result.per_query.select("system", "qid", "measure", "value").iter_rows()}
        got.update({(s, q, m): t for s, q, m, t in result.text.select("system", "qid", "measure", "text").iter_rows()})
        assert set(got) == set(want), engine
        for key, value in want.items():
            assert got[key] == value if isinstance(value, str) else abs(got[key] - value) <= 1e-12, (engine, key)
            assert isinstance(value, str) or math.isfinite(value), key


def test_set_f_with_beta_0_is_set_precision_against_trec_eval_formula():
    """trec_eval's set_F: (x + 1) P R / (x P + R), so x = 0 gives P (precision; beta >= 0 is the domain)."""
    result = pf.evaluate(EDGE_CASE.run_frame(), EDGE_CASE.qrels_frame(), ["SetF(beta=0)", "SetP"])
    values = result.per_query.pivot(on="measure", index="qid", values="value")
    assert values["SetF(beta=0.0)"].to_list() == values["SetP"].to_list()


@pytest.mark.oracle
@pytest.mark.shared_data
@pytest.mark.parametrize("trec_name", ["set_F.0", "iprec_at_recall.0,1", "Rprec_mult.0.01,5"])
def test_boundary_parameters_against_pytrec_eval(shared_data, trec_name):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    from tests.test_evaluate_against_pytrec_eval import parse_qrels, parse_run

    qrels_path, run_path = shared_data / "trec_eval" / "qrels.test", shared_data / "trec_eval" / "results.test"
    qrels = parse_qrels(qrels_path)
    want = pytrec_eval.RelevanceEvaluator(qrels, {trec_name}).evaluate(parse_run(run_path, qrels))
    result = pf.evaluate(str(run_path), str(qrels_path), [trec_name], score_precision="float32")
    trec = {m.name: m.trec_name for m in result.measures}
    if len(trec) == 1:  # pytrec_eval prints set_F, trec_eval 10 set_F_0 (the parameter text)
        trec = dict.fromkeys(trec, next(iter(next(iter(want.values())))))
    got = {(q, trec[m]): v for _, q, m, v in result.per_query.iter_rows()}
    assert got and set(got) == {(q, name) for q, values in want.items() for name in values}
    assert all(abs(got[q, name] - v) <= 1e-12 for q, values in want.items() for name, v in values.items())
