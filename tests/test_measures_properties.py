"""Random inputs: DuckDB engine, polars engine and the scalar reference agree on every registered
measure family (the engines bit for bit); the row order of the run does not matter; ids stay strings."""

from __future__ import annotations

import math
import random
import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import pairedframe as pf
from pairedframe.errors import EmptyResultError, PartlyEmptyWarning
from pairedframe.measures import REGISTRY, Measure
from tests.measure_grid import every_measure, families
from tests.reference.trec_reference import REFERENCE, evaluate_reference
from tests.strategies import Case, budget, cases

TOL = 1e-12


def all_measures() -> list[Measure]:
    """Every registered family: cutoffs, rel None and 2, both gains, judged-only, its examples."""
    return every_measure()


def as_dict(result: pf.Evaluation) -> dict[tuple[str, str, str], float | str | None]:
    """Numeric values and string values (relstring) of an evaluation, by (system, qid, measure)."""
    values = {(s, q, m): v for s, q, m, v in result.per_query.select("system", "qid", "measure", "value").iter_rows()}
    values.update({(s, q, m): t for s, q, m, t in result.text.select("system", "qid", "measure", "text").iter_rows()})
    return values


def _same(got, want) -> bool:
    if got is None or want is None or isinstance(want, str):
        return got == want
    return abs(got - want) <= TOL


def assert_close(got: dict, want: dict, label: str) -> None:
    assert set(got) == set(want), (f"{label}: key sets differ; missing {sorted(set(want) - set(got))[:5]}, "
                                   f"extra {sorted(set(got) - set(want))[:5]}")
    bad = [(k, got[k], want[k]) for k in want if not _same(got[k], want[k])]
    assert not bad, f"{label}: {len(bad)} values differ, e.g. {bad[:5]}"


def evaluate_or_none(case: Case, *args, **kwargs):
    """pf.evaluate, or None after checking that it raises EmptyResultError when no run shares a judged
    query with the qrels (issue 12 item 1: never an empty result)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PartlyEmptyWarning)   # a run without judged queries among others
        if any(set(by_q) & set(case.qrels) for by_q in case.runs.values()):
            return pf.evaluate(*args, **kwargs)
        with pytest.raises(EmptyResultError, match="no judged query in common"):
            pf.evaluate(*args, **kwargs)
    return None


def test_every_family_has_a_reference_function():
    """Qrels families here; the preference and judgment-group families in tests/test_prefs_measures.py
    and tests/test_judgment_groups.py."""
    missing = sorted(set(families()) - set(REFERENCE))
    assert not missing, (f"measure families without a reference in tests/reference/trec_reference.py: "
                         f"{missing}; add one with @reference(key)")
    assert not set(REFERENCE) - set(REGISTRY), "reference functions for unregistered families"


def test_all_measures_cover_every_family():
    assert {m.family for m in all_measures()} == set(families())


options = st.fixed_dictionaries({
    "complete": st.booleans(),
    "depth": st.sampled_from([None, None, 1, 2, 5]),
    "score_precision": st.sampled_from(["float64", "float32"]),
    "rel_level": st.sampled_from([1, 2]),
})


# Found by a random run: polars divided G's 3 / log2(3) as 3 * (1 / log2(3)) (1 ulp off) when the
# divisor column was one repeated value (two single-row groups with the same log2).
G_RECIPROCAL = Case(
    runs={"sys0": {"01": [("9", 0.0), ("7", 0.0), ("z", 0.0), ("007", 12.25), ("d#1", 1.0000000000009095),
                          ("10", 0.0), ("DOC", 2.086295835902211e-50), ("01", 1.0000000000009095)],
                   "q#A": [("1", 1e-05), ("DOC", 1.0), ("b#", -433021.7532173969), ("z", 2.0)],
                   "7": [("doc", 6.074082870203883e-144), ("01", -7.92462947667954e-09), ("D#1", 2.220446049250313e-16),
                         ("1", 565667.0812289848), ("z", -155594.93483032868)],
                   "007": [("d#1", 1.2289892018379293e-80)]}},
    qrels={"01": {"d#1": 3, "007": -2}, "007": {"007": -2, "d#1": 0, "7": 3, "01": -2}, "7": {"007": -2}})


@settings(max_examples=budget(35), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), opts=options)
@example(case=G_RECIPROCAL, opts={"complete": True, "depth": 2, "score_precision": "float64", "rel_level": 2})
def test_engines_against_reference(case: Case, opts: dict):
    measures = all_measures()
    resolved = list(dict.fromkeys(m.resolved(opts["rel_level"]) for m in measures))
    want = evaluate_reference(case.runs, case.qrels, resolved, complete=opts["complete"],
                              depth=opts["depth"], score_precision=opts["score_precision"])
    got = {}
    for engine in ("duckdb", "polars"):
        result = evaluate_or_none(case, case.run_frame(), case.qrels_frame(), measures, engine=engine, **opts)
        if result is None:
            continue
        assert [m.name for m in result.measures] == [m.name for m in resolved]
        got[engine] = as_dict(result)
        assert_close(got[engine], want, engine)
    # The two engines agree bit for bit (same additions in the same order, C's log2 and pow).
    assert got.get("duckdb") == got.get("polars")


@settings(max_examples=budget(10), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), seed=st.integers(0, 2 ** 32 - 1), engine=st.sampled_from(["duckdb", "polars"]),
       precision=st.sampled_from(["float64", "float32"]))
def test_shuffled_run_rows_give_identical_values(case: Case, seed: int, engine: str, precision: str):
    run = case.run_frame()
    order = list(range(run.height))
    random.Random(seed).shuffle(order)
    shuffled = run[order]
    qrels = case.qrels_frame()
    qrels_shuffled = qrels[random.Random(seed + 1).sample(range(qrels.height), qrels.height)]
    measures = all_measures()
    a = evaluate_or_none(case, run, qrels, measures, engine=engine, score_precision=precision)
    b = evaluate_or_none(case, shuffled, qrels_shuffled, measures, engine=engine, score_precision=precision)
    assert a is b is None or (a.per_query.equals(b.per_query) and a.text.equals(b.text))


@settings(max_examples=budget(25), deadline=None)
@given(case=cases(), complete=st.booleans())
def test_ids_stay_strings_and_query_set_against_reference(case: Case, complete: bool):
    for engine in ("duckdb", "polars"):
        result = evaluate_or_none(case, case.run_frame(), case.qrels_frame(), ["NumQ", "nDCG@3"],
                                  complete=complete, engine=engine)
        if result is None:
            continue
        pq = result.per_query
        assert pq.schema["qid"] == pl.String and pq.schema["system"] == pl.String
        got = set(pq.select("system", "qid").unique().iter_rows())
        want = {(s, q) for s, by_q in case.runs.items()
                for q in (case.qrels if complete else set(by_q) & set(case.qrels))}
        assert got == want  # "007", "7", "01", "1" are four different queries
        excluded = set(result.excluded.select("system", "qid").iter_rows())
        assert not got & excluded


def test_numeric_looking_ids_are_distinct_queries_against_reference():
    case = Case(runs={"s": {"007": [("01", 1.0), ("1", 1.0)], "7": [("1", 2.0)]}},
                qrels={"007": {"1": 1, "01": 0}, "7": {"01": 1}, "01": {"1": 2}})
    result = pf.evaluate(case.run_frame(), case.qrels_frame(), ["RR", "NumRelRet"], complete=True)
    got = as_dict(result)
    assert got == {("s", "007", "RR"): 1.0, ("s", "007", "NumRelRet"): 1.0,
                   ("s", "7", "RR"): 0.0, ("s", "7", "NumRelRet"): 0.0,
                   ("s", "01", "RR"): 0.0, ("s", "01", "NumRelRet"): 0.0}
    resolved = [m.resolved(1) for m in result.measures]
    assert got == evaluate_reference(case.runs, case.qrels, resolved, complete=True)


@pytest.mark.parametrize("precision, first", [("float64", "a"), ("float32", "b")])
def test_float32_ties_break_by_docno_descending_against_reference(precision: str, first: str):
    # 1 + 2**-30 > 1 in float64, equal in float32 -> docno descending puts "b" first.
    case = Case(runs={"s": {"q": [("a", 1.0 + 2.0 ** -30), ("b", 1.0)]}}, qrels={"q": {first: 1}})
    result = pf.evaluate(case.run_frame(), case.qrels_frame(), ["RR"], score_precision=precision)
    assert result.per_query["value"].to_list() == [1.0]


@settings(max_examples=budget(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), opts=options)
def test_per_query_values_inside_the_declared_value_range_against_reference(case: Case, opts: dict):
    """Measure.value_range (what compare and results_table clip intervals to) holds for every value the
    reference implementations give, on every family of the registry, up to rounding (RBPResid, p^n plus
    (1 - p) times its unjudged discounts added one by one, can read 1.0000000000000002)."""
    resolved = list(dict.fromkeys(m.resolved(opts["rel_level"]) for m in all_measures()))
    values = evaluate_reference(case.runs, case.qrels, resolved, complete=opts["complete"], depth=opts["depth"],
                                score_precision=opts["score_precision"])
    ranges = {m.name: m.value_range for m in resolved}
    outside = [(key, v, ranges[key[2]]) for key, v in values.items()
               if isinstance(v, float) and not ranges[key[2]][0] - TOL <= v <= ranges[key[2]][1] + TOL]
    assert not outside, f"{len(outside)} values outside their measure's declared range, e.g. {outside[:3]}"


def test_value_range_of_gain_maps_with_a_negative_gain_is_unbounded():
    assert Measure("nDCG", 10).value_range == (0.0, 1.0)
    assert Measure("nDCG", 10, gains=((0, -1.0),)).value_range == (-math.inf, math.inf)
    assert Measure("RBP", gains=((0, -1.0),)).value_range == (0.0, 1.0)    # RBP rescales its gains to [0, 1]
    assert pf.measures.parse.value_range("not a measure") == (-math.inf, math.inf)


RBP_MEASURES = [f"RBP(p={p}{rel}){at}" for p in (0.5, 0.9, 0.95) for rel in ("", ",rel=2") for at in ("", "@5")] + [
    f"RBPResid(p={p})" for p in (0.5, 0.9, 0.95)] + ["rbp", "rbp_resid", "RBP(p=0.9,gains={0:-1,2:5})"]
# Ten documents, the judged ones at ranks 5..10: p**(r - 1) by C's pow differs from trec_eval's repeated
# product from r = 5 on (p = 0.9), and the residual's geometric series from its loop.
LONG_RANKING = Case(runs={"s": {"q": [(d, 10.0 - i) for i, d in enumerate(("a", "b", "c", "d", "doc", "Doc", "DOC", "z",
                                                                             "Z9", "10"))]}},
                    qrels={"q": {"doc": 1, "Doc": 2, "DOC": 0, "z": 1, "Z9": 3, "10": 1, "a": -1}})


@settings(max_examples=budget(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), opts=options)
@example(case=LONG_RANKING, opts={"complete": False, "depth": None, "score_precision": "float64", "rel_level": 1})
def test_rbp_and_residual_bit_identical_against_trec10_reference(case: Case, opts: dict):
    """RBP and RBPResid equal trec_eval 10's loops (tests/reference/trec10_reference.py) exactly, on both
    engines: p**k by repeated products, the residual's unjudged ranks added one by one in rank order."""
    measures = pf.parse_measures(RBP_MEASURES)
    resolved = list(dict.fromkeys(m.resolved(opts["rel_level"]) for m in measures))
    want = evaluate_reference(case.runs, case.qrels, resolved, complete=opts["complete"], depth=opts["depth"],
                              score_precision=opts["score_precision"])
    for engine in ("duckdb", "polars"):
        result = evaluate_or_none(case, case.run_frame(), case.qrels_frame(), measures, engine=engine, **opts)
        if result is None:
            continue
        got = as_dict(result)
        bad = [(key, got.get(key), value) for key, value in want.items() if got.get(key) != value]
        assert set(got) == set(want) and not bad, f"{engine}: {len(bad)} values differ, e.g. {bad[:3]}"


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_rbp_resid_of_the_min_case_against_trec_eval(engine: str):
    """trec_eval 10 (f425365; printing with %.17g) on this qrels and run:
    ``trec_eval -q -m rbp -m rbp_resid min.qrels min.run``; its usual 4-decimal output reads
    ``rbp_resid all 0.7876``, which the geometric series minus the judged ranks rounded to 0.7875."""
    qrels = pl.DataFrame({"qid": ["2", "2", "7", "7", "7"], "docno": ["d_1", "D2", "d3", "d2", "d10"],
                          "rel": [0, 3, 1, 3, 3]})
    run = pl.DataFrame({"system": "t", "qid": ["2"] * 4 + ["7"] * 4,
                        "docno": ["f", "d_1", "D2", "d1", "d3", "d100", "d2", "d10"],
                        "score": [4.0, 3.0, 2.0, 1.0] * 2})
    result = pf.evaluate(run, qrels, ["rbp", "rbp_resid"], engine=engine)
    got = {(m, q): v for q, m, v in result.per_query.select("qid", "measure", "value").iter_rows()}
    assert got == {("RBP(p=0.9)", "2"): float("0.080999999999999989"), ("RBP(p=0.9)", "7"): float("0.18723333333333331"),
                   ("RBPResid(p=0.9)", "2"): float("0.82900000000000007"),
                   ("RBPResid(p=0.9)", "7"): float("0.7461000000000001")}
    summary = dict(result.summary().select("measure", "value").iter_rows())
    assert summary["RBPResid(p=0.9)"] == float("0.78755000000000008")
    assert f"{summary['RBPResid(p=0.9)']:.4f}" == "0.7876"


@pytest.mark.parametrize("batch", [1, 3, 8, 1 << 22])
def test_rbp_resid_in_batches_of_any_size_against_trec10_reference(monkeypatch, batch: int):
    """The polars RBPResid walks the ranks of whole queries RANKS_PER_BATCH at a time (one query alone
    when it is longer): any batch size gives trec_eval's values (queries of 10, 4, 1 and, with -c, a
    placeholder's ranks)."""
    from pairedframe.measures import rbp as rbp_module

    monkeypatch.setattr(rbp_module, "RANKS_PER_BATCH", batch)
    short = [("b#", 1.0), ("doc", 0.5), ("7", 0.25), ("Z9", 0.0)]
    case = Case(runs={"s": {**LONG_RANKING.runs["s"], "7": short, "01": [("7", 1.0)]}},
                qrels={**LONG_RANKING.qrels, "7": {"doc": 1, "Z9": -1}, "01": {"7": 0}, "1": {"a": 1}})
    measures = pf.parse_measures(["RBPResid(p=0.9)", "RBPResid(p=0.95)", "RBPResid(p=0.5)"])
    resolved = [m.resolved(1) for m in measures]
    result = pf.evaluate(case.run_frame(), case.qrels_frame(), measures, engine="polars", complete=True)
    assert as_dict(result) == evaluate_reference(case.runs, case.qrels, resolved, complete=True)
