"""Preference measures (trec_eval ``-R prefs`` / ``-R qrels_prefs``, ``-m all_prefs``): the DuckDB and
polars engines against the scalar reference of tests/reference/prefs_reference.py (itself checked
against trec_eval's expected outputs), on random judgments and runs; the engines bit for bit."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pairedframe as pf
from pairedframe.errors import InputFormatError, PartlyEmptyWarning
from pairedframe.measures import REGISTRY, parse_measures
from tests.measure_grid import families
from tests.reference.prefs_reference import NAMES, prefs_query
from tests.strategies import TIE_SCORES, budget

QIDS = ("1", "01", "q#A", "Qb")
DOCS = ("a", "B", "c#1", "d", "E", "007", "7", "zz")
LEVELS = (0.0, 0.0, 1.0, 2.0, 3.0, 1.5, -1.0)
TOL = 1e-12


@st.composite
def prefs_cases(draw) -> tuple[dict[str, list], dict[str, dict[str, list]]]:
    """(lines per qid: (jg, jsg, docno, level)), runs[system][qid] = [(docno, score)]. Each judgment
    group orders its documents by hidden levels that every sub-group rescales, so groups are
    consistent (no cycle, a document never both 0 and > 0); sub-groups pick documents at random."""
    lines: dict[str, list] = {}
    for qid in draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=3, unique=True)):
        out = []
        for jg in draw(st.lists(st.sampled_from(("0", "1", "x")), min_size=1, max_size=3, unique=True)):
            hidden = {d: draw(st.sampled_from(LEVELS)) for d in DOCS}
            for jsg in draw(st.lists(st.sampled_from(("0", "1", "b")), min_size=1, max_size=3, unique=True)):
                scale = draw(st.sampled_from((1.0, 2.0, 0.5)))
                for docno in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True)):
                    out.append((jg, jsg, docno, hidden[docno] * scale))
        lines[qid] = out
    runs = {}
    for i in range(draw(st.integers(1, 2))):
        retrieved = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True))
        runs[f"sys{i}"] = {q: draw(st.lists(st.tuples(st.sampled_from(DOCS + ("yy", "Z")), st.sampled_from(TIE_SCORES)),
                                            min_size=1, max_size=8, unique_by=lambda p: p[0])) for q in retrieved}
    return lines, runs


def prefs_frame(lines: dict[str, list]) -> pl.DataFrame:
    rows = [(q, jg, jsg, d, lvl) for q, ls in lines.items() for jg, jsg, d, lvl in ls]
    return pl.DataFrame(rows, schema={"qid": pl.String, "jg": pl.String, "jsg": pl.String, "docno": pl.String,
                                      "level": pl.Float64}, orient="row")


def run_frame(runs: dict[str, dict[str, list]]) -> pl.DataFrame:
    rows = [(s, q, d, sc) for s, by_q in runs.items() for q, docs in by_q.items() for d, sc in docs]
    return pl.DataFrame(rows, schema={"system": pl.String, "qid": pl.String, "docno": pl.String, "score": pl.Float64},
                        orient="row")


def reference(lines: dict[str, list], runs: dict[str, dict[str, list]], *, complete: bool, depth: int | None,
              score_precision: str) -> dict[tuple[str, str, str], float]:
    out = {}
    for system, by_q in runs.items():
        for qid in (set(lines) if complete else set(lines) & set(by_q)):
            ranking = by_q.get(qid, [])
            if score_precision == "float32":
                ranking = [(d, float(np.float32(s))) for d, s in ranking]
            out[(system, qid, "NumQ")] = 1.0
            out.update({(system, qid, name): v for name, v in prefs_query(ranking, lines[qid], depth).items()})
    return out


def evaluations(run: pl.DataFrame, judgments: pl.DataFrame, fmt: str, **options) -> dict[str, dict]:
    got = {}
    for engine in ("duckdb", "polars"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PartlyEmptyWarning)
            ev = pf.evaluate(run, judgments, "all_prefs", judgments_format=fmt, engine=engine, **options)
        got[engine] = {(s, q, m): v for s, q, m, v in ev.per_query.iter_rows()}
    return got


def assert_against(got: dict, want: dict, label: str) -> None:
    assert set(got) == set(want), f"{label}: keys differ: {sorted(set(got) ^ set(want))[:5]}"
    bad = [(k, got[k], v) for k, v in want.items() if not abs(got[k] - v) <= TOL]  # NaN fails too
    assert not bad, f"{label}: {len(bad)} values differ, e.g. {bad[:4]}"


options = st.fixed_dictionaries({"complete": st.booleans(), "depth": st.sampled_from([None, None, 1, 3]),
                                 "score_precision": st.sampled_from(["float64", "float32"])})


@settings(max_examples=budget(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=prefs_cases(), opts=options)
def test_prefs_measures_against_reference(case, opts):
    lines, runs = case
    assume(any(set(by_q) & set(lines) for by_q in runs.values()))
    want = reference(lines, runs, **opts)
    got = evaluations(run_frame(runs), prefs_frame(lines), "prefs", **opts)
    for engine, values in got.items():
        assert_against(values, want, engine)
    assert got["duckdb"] == got["polars"]


@settings(max_examples=budget(20), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=prefs_cases(), depth=st.sampled_from([None, 2]))
def test_qrels_read_as_preferences_against_reference(case, depth):
    """-R qrels_prefs: a qrels table (its iteration column the judgment group, grades the levels), one
    sub-group per group."""
    lines, runs = case
    assume(any(set(by_q) & set(lines) for by_q in runs.values()))
    qrels, as_lines = [], {}
    for qid, ls in lines.items():
        first = {}
        for jg, _, docno, level in ls:
            first.setdefault((jg, docno), int(level))
        qrels += [(qid, jg, docno, grade) for (jg, docno), grade in first.items()]
        as_lines[qid] = [(jg, "0", docno, float(grade)) for (jg, docno), grade in first.items()]
    table = pl.DataFrame(qrels, schema={"qid": pl.String, "iter": pl.String, "docno": pl.String, "rel": pl.Int64},
                         orient="row")
    want = reference(as_lines, runs, complete=False, depth=depth, score_precision="float64")
    got = evaluations(run_frame(runs), table, "qrels_prefs", depth=depth)
    for engine, values in got.items():
        assert_against(values, want, engine)
    assert got["duckdb"] == got["polars"]


def test_prefs_families_are_trec_named_and_take_no_level_or_judged_only():
    keys = families("prefs")
    assert sorted(keys) == sorted(NAMES)
    for m in parse_measures("all_prefs")[1:]:
        assert m.name == m.trec_name and m.resolved(2, judged_only=True) == m
    assert [m.name for m in parse_measures("prefs")] == ["NumQ", *NAMES[:6]]
    assert all(REGISTRY[k].ranking_based is False for k in keys)


def test_preference_cycle_is_refused_naming_query_group_and_documents():
    judgments = prefs_frame({"q1": [("u", "s1", "A", 2.0), ("u", "s1", "B", 1.0),
                                    ("u", "s2", "B", 2.0), ("u", "s2", "C", 1.0),
                                    ("u", "s3", "C", 2.0), ("u", "s3", "A", 1.0)]})
    run = run_frame({"sys": {"q1": [("A", 1.0)]}})
    with pytest.raises(InputFormatError, match=r"preference cycle in query 'q1', judgment group 'u'.*'A' and 'B'"):
        pf.evaluate(run, judgments, "prefs_simp", judgments_format="prefs")


@settings(max_examples=budget(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=prefs_cases(), other=st.lists(st.tuples(st.sampled_from(DOCS + ("yy",)), st.sampled_from(TIE_SCORES)),
                                          max_size=8, unique_by=lambda p: p[0]))
def test_run_independent_prefs_measures_against_reference(case, other):
    """A preference measure the registry flags as run-independent (compare leaves it out) takes the reference's
    one value per query whatever the ranking; at least one such measure exists (prefs_num_prefs_poss)."""
    from pairedframe.measures.parse import run_independent

    lines, _ = case
    flagged = [name for name in NAMES if run_independent(name)]
    assert "prefs_num_prefs_poss" in flagged
    for qid, judged in lines.items():
        empty, ranked = prefs_query([], judged, None), prefs_query(other, judged, None)
        assert all(empty[name] == ranked[name] for name in flagged), qid
