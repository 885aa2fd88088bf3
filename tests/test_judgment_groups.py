"""Measures averaged over judgment groups (trec_eval ``-R qrels_jg``, ``-m qrels_jg``): the DuckDB and
polars engines against the scalar reference of tests/reference/judgment_groups_reference.py on random
qrels with several assessors, with every option that changes them (depth, complete, float32 ties,
a relevance level, judged_only); the engines bit for bit. The files: tests/test_against_trec_eval_suite.py."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pairedframe as pf
from pairedframe.errors import DuplicateError, PartlyEmptyWarning
from pairedframe.measures import parse_measure
from tests.measure_grid import families, family_grid
from tests.reference.judgment_groups_reference import avgjg_query
from tests.strategies import DOCNOS, GRADES, QIDS, budget, ranking

TOL = 1e-12


@st.composite
def jg_cases(draw) -> tuple[dict[str, dict[str, dict[str, int]]], dict[str, dict[str, list]]]:
    """groups[qid][jg] = {docno: grade}; runs[system][qid] = [(docno, score)]."""
    groups = {q: {jg: draw(st.dictionaries(st.sampled_from(DOCNOS), st.sampled_from(GRADES), min_size=1, max_size=8))
                  for jg in draw(st.lists(st.sampled_from(("0", "1", "10", "b")), min_size=1, max_size=3, unique=True))}
              for q in draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=3, unique=True))}
    runs = {f"sys{i}": {q: draw(ranking()) for q in draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4,
                                                                   unique=True))}
            for i in range(draw(st.integers(1, 2)))}
    return groups, runs


def jg_measures() -> list:
    return [m for key in families("qrels_jg") for m in family_grid(key)]


def _tables(groups, runs) -> tuple[pl.DataFrame, pl.DataFrame]:
    qrels = pl.DataFrame([(q, jg, d, g) for q, by_jg in groups.items() for jg, by_d in by_jg.items()
                          for d, g in by_d.items()],
                         schema={"qid": pl.String, "jg": pl.String, "docno": pl.String, "rel": pl.Int64}, orient="row")
    run = pl.DataFrame([(s, q, d, sc) for s, by_q in runs.items() for q, docs in by_q.items() for d, sc in docs],
                       schema={"system": pl.String, "qid": pl.String, "docno": pl.String, "score": pl.Float64},
                       orient="row")
    return qrels, run


options = st.fixed_dictionaries({"complete": st.booleans(), "depth": st.sampled_from([None, None, 1, 3]),
                                 "score_precision": st.sampled_from(["float64", "float32"]),
                                 "rel_level": st.sampled_from([1, 2]), "judged_only": st.booleans()})


@settings(max_examples=budget(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=jg_cases(), opts=options)
def test_judgment_group_measures_against_reference(case, opts):
    groups, runs = case
    assume(any(set(by_q) & set(groups) for by_q in runs.values()))
    qrels, run = _tables(groups, runs)
    measures = [*jg_measures(), *parse_measure("num_q")]
    resolved = [m.resolved(opts["rel_level"], opts["judged_only"]) for m in measures]
    want = {}
    for system, by_q in runs.items():
        for qid in (set(groups) if opts["complete"] else set(groups) & set(by_q)):
            for m in resolved:
                want[(system, qid, m.name)] = 1.0 if m.family == "NumQ" else avgjg_query(
                    by_q.get(qid, []), groups[qid], m, depth=opts["depth"], score_precision=opts["score_precision"])
    got = {}
    for engine in ("duckdb", "polars"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PartlyEmptyWarning)
            ev = pf.evaluate(run, qrels, measures, judgments_format="qrels_jg", engine=engine, **opts)
        got[engine] = {(s, q, m): v for s, q, m, v in ev.per_query.iter_rows()}
        assert set(got[engine]) == set(want), engine
        bad = [(k, got[engine][k], v) for k, v in want.items() if not abs(got[engine][k] - v) <= TOL]
        assert not bad, f"{engine}: {bad[:4]}"
    assert got["duckdb"] == got["polars"]


def test_judgment_group_names_are_trec_eval_names_unless_a_level_is_stated():
    (p10,) = parse_measure("P_avgjg_10")
    assert p10.name == "P_avgjg_10" and p10.resolved(1).name == "P_avgjg_10"
    assert p10.resolved(2).name == "P_avgjg(rel=2)@10" and parse_measure("P_avgjg(rel=2)@10") == [p10.resolved(2)]
    assert p10.resolved(1, judged_only=True).name == "P_avgjg(judged_only=True)@10"
    assert [m.name for m in parse_measure("Rprec_mult_avgjg.0.2,1")] == ["Rprec_mult_avgjg_0.20", "Rprec_mult_avgjg_1.00"]
    assert parse_measure("Rprec_mult_avgjg_0.125")[0].name == "Rprec_mult_avgjg@0.125"  # 0.13 would not read back
    assert [m.trec_name for m in parse_measure("qrels_jg")][:3] == ["num_q", "map_avgjg", "P_avgjg_5"]


def test_a_document_judged_twice_in_one_group_is_refused_but_once_per_group_is_fine(tmp_path):
    path = tmp_path / "qrels.jg"
    path.write_text("1 0 d1 1\n1 1 d1 0\n1 0 d2 2\n")
    table = pf.read_qrels(path, judgment_groups=True)
    assert table.columns == ["qid", "jg", "docno", "rel"] and table.height == 3
    path.write_text("1 0 d1 1\n1 1 d1 0\n1 0 d1 2\n")
    with pytest.raises(DuplicateError, match=r"duplicate \(qid, iter, docno\) = \(1, 0, d1\).*line\(s\) \[3\]"):
        pf.read_qrels(path, judgment_groups=True)
