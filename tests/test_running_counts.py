"""The running counts and ideal rankings a ranked run hands the DuckDB engine (ranking.running_counts
and ideal_gains, read by sql/prep_ranked_counted.sql and prep_ideal_given.sql) against the window
sums and sort of sql/prep_ranked.sql and prep_ideal.sql, and the fallback to those where the
counts do not apply (ranks out of rank order, judged_only, queries' judgments not adjacent); the
polars engine's ranked table from the running counts against its window sums."""

from __future__ import annotations

from unittest import mock

import duckdb
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairedframe.engines import EvalOptions, ranking
from pairedframe.engines import duckdb_engine, polars_engine
from pairedframe.engines.base import STEPS
from pairedframe.engines.duckdb_engine import DuckDBEngine, prepare
from pairedframe.measures.gains import gain_table, list_table
from pairedframe.measures.parse import parse_measures
from tests.strategies import cases
from tests.test_ranking import LAYOUTS, _rows

RUN_SCHEMA = {"system": pl.String, "qid": pl.String, "docno": pl.String, "score": pl.Float64}


def _ranked(case, layout: str, seed: int, sort_ties: bool = False) -> tuple[pl.DataFrame, pl.DataFrame]:
    rows, starts = _rows(case, layout, seed)
    run = pl.DataFrame(rows, schema=RUN_SCHEMA, orient="row")
    with mock.patch.object(ranking, "MAX_TIE_PAIRS", 0 if sort_ties else ranking.MAX_TIE_PAIRS):
        return ranking.rank_judged(run, case.qrels_frame(), group_starts=starts)


#: Gain maps: the grade, 2^grade - 1, and explicit gains with a tie (grades 1 and 3), a negative gain
#: and a grade no document has.
GAIN_KEYS = ["", "exp", "map:1=3.0,2=-1.0,3=3.0,7=2.5"]


def _prepared(ranks: pl.DataFrame, retrieved: pl.DataFrame, qrels: pl.DataFrame, steps: tuple[str, ...],
              rel_level: int, depth: int | None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """pf_ranked and pf_ideal, sorted, after ``steps``."""
    con = duckdb.connect()
    gains = gain_table(GAIN_KEYS, qrels["rel"].unique())
    ideal = ranking.ideal_gains(qrels, gains)
    assert ideal is not None
    for name, frame in {"pf_ranks": ranks, "pf_retrieved": retrieved, "pf_qrels": qrels, "pf_gains": gains,
                        "pf_lists": list_table([]), "pf_ideal_given": ideal}.items():
        con.register(name, frame)
    prepare(con, rel_level=rel_level, options=EvalOptions(depth=depth), steps=steps, validate=False)
    return (con.sql("SELECT * FROM pf_ranked").pl().sort("system", "qid", "rank"),
            con.sql("SELECT * FROM pf_ideal").pl().sort("qid", "gain_map", "irank"))


@settings(max_examples=200, deadline=None)
@given(case=cases(), layout=st.sampled_from(LAYOUTS), sort_ties=st.booleans(), seed=st.integers(0, 2**16))
def test_rank_judged_lists_each_ranking_by_rank(case, layout, sort_ties, seed):
    ranks, _ = _ranked(case, layout, seed, sort_ties)
    seen, previous, previous_rank = set(), None, 0
    for system, qid, rank in ranks.select("system", "qid", "rank").iter_rows():
        if (system, qid) != previous:
            assert (system, qid) not in seen, f"the ranking {(system, qid)} is split"
            seen.add((system, qid))
        else:
            assert rank > previous_rank, f"{(system, qid)}: rank {rank} after {previous_rank}"
        previous, previous_rank = (system, qid), rank
    assert ranking.running_counts(ranks, 1) is not None


@settings(max_examples=150, deadline=None)
@given(case=cases(), layout=st.sampled_from(LAYOUTS), seed=st.integers(0, 2**16),
       rel_level=st.sampled_from([-1, 0, 1, 2, 3]), depth=st.sampled_from([None, 1, 3, 100]))
def test_running_counts_and_ideal_gains_against_the_window_sums(case, layout, seed, rel_level, depth):
    """Depth cuts, ties, negative grades and every relevance level: pf_ranked from the handed-in counts
    equals the one from window sums, and pf_ideal from each query's gain counts the one from a window
    sort, row for row (under three gain maps)."""
    ranks, retrieved = _ranked(case, layout, seed)
    qrels = case.qrels_frame()
    counted = ranking.running_counts(ranks, rel_level)
    assert counted is not None
    want, want_ideal = _prepared(ranks, retrieved, qrels, STEPS["qrels", "ranked"], rel_level, depth)
    got, got_ideal = _prepared(counted, retrieved, qrels, STEPS["qrels", "counted"], rel_level, depth)
    # DuckDB's window sums are 128-bit integers; the handed-in counts are 64-bit (as Spark's sums are)
    want = want.with_columns(pl.col("rel_cum", "nonrel_cum", "unjudged_cum").cast(pl.Int64))
    assert got.schema == want.schema
    assert got.equals(want)
    assert got_ideal.schema == want_ideal.schema
    assert got_ideal.equals(want_ideal)


@settings(max_examples=150, deadline=None)
@given(case=cases(), layout=st.sampled_from(LAYOUTS), seed=st.integers(0, 2**16),
       rel_level=st.sampled_from([-1, 0, 1, 2, 3]), depth=st.sampled_from([None, 1, 3, 100]))
def test_polars_context_from_running_counts_against_the_window_sums(case, layout, seed, rel_level, depth):
    """The polars engine's ranked table from rank_judged's order (running counts, no sort) equals the
    one from its window sums row for row once sorted, and lists each ranking by rank (what the
    measures' ordered sums read)."""
    ranks, retrieved = _ranked(case, layout, seed)
    qrels, options = case.qrels_frame(), EvalOptions(depth=depth)
    got = polars_engine.build_context(ranks, retrieved, qrels, rel_level=rel_level, options=options).ranked.collect()
    with mock.patch.object(polars_engine, "running_counts", lambda *_: None):
        want = polars_engine.build_context(ranks, retrieved, qrels, rel_level=rel_level,
                                           options=options).ranked.collect()
    assert got.schema == want.schema
    assert got.sort("system", "qid", "rank").equals(want)
    assert got.select((pl.col("rank").diff().over("system", "qid").fill_null(1) > 0).all()).item()


TIES_RUN = pl.DataFrame(
    [("s", "1", d, sc) for d, sc in [("a", 3.0), ("c", 2.0), ("b", 2.0), ("e", 2.0), ("d", 1.0), ("f", 1.0)]]
    + [("s", "2", d, sc) for d, sc in [("a", 1.0), ("b", 1.0), ("c", 1.0), ("x", 0.5)]],
    schema=RUN_SCHEMA, orient="row")
TIES_QRELS = pl.DataFrame({"qid": ["1"] * 6 + ["2"] * 3, "docno": ["a", "b", "c", "d", "e", "f", "a", "b", "c"],
                           "rel": [0, 2, -1, 1, 1, 3, 1, -1, 2]})


def test_running_counts_refuse_ranks_out_of_rank_order():
    ranks, _ = ranking.rank_judged(TIES_RUN, TIES_QRELS)
    assert ranking.running_counts(ranks, 1) is not None
    assert ranking.running_counts(ranks.reverse(), 1) is None  # rank descending
    split = pl.concat([ranks.slice(0, 2), ranks.filter(pl.col("qid") == "2"), ranks.slice(2, 4)])
    assert ranking.running_counts(split, 1) is None  # query 1 in two pieces, each by rank


@pytest.mark.parametrize("depth", [None, 2, 4])
@pytest.mark.parametrize("shuffled", ["nothing", "ranks", "qrels"])
def test_evaluate_ranked_with_ties_depth_and_judged_only_against_the_run_sql(depth, shuffled):
    """The engine from ranks (counted, or the window sums when the ranks or the qrels are out of
    order, or judged_only) against the engine from the run itself (prep_ranks.sql, then the window
    sums and sort of prep_ranked.sql and prep_ideal.sql)."""
    plain = parse_measures(["AP", "P@2", "P(rel=2)@3", "RR", "nDCG@4", "nDCG(dcg='exp-log2')@3", "ndcg.1=3,2=9",
                            "bpref", "infAP", "relstring@5", "unj@3", "Rndcg", "G"])
    measures = [m.resolved(1) for m in plain] + [m.resolved(1, judged_only=True) for m in plain]
    options = EvalOptions(depth=depth)
    ranks, retrieved = ranking.rank_judged(TIES_RUN, TIES_QRELS)
    qrels = TIES_QRELS
    if shuffled == "ranks":
        ranks = ranks.sample(fraction=1.0, shuffle=True, seed=3)
    elif shuffled == "qrels":  # query 1's judgments around query 2's
        qrels = pl.concat([TIES_QRELS.slice(0, 3), TIES_QRELS.slice(6), TIES_QRELS.slice(3, 3)])
    steps = []
    real_prepare = duckdb_engine.prepare

    def spy(con, **kwargs):
        steps.append((kwargs["rel_level"], kwargs["judged_only"], kwargs["steps"]))
        return real_prepare(con, **kwargs)

    with mock.patch.object(duckdb_engine, "prepare", spy):
        got = DuckDBEngine().evaluate_ranked(ranks, retrieved, qrels, measures, options)
    want = DuckDBEngine().evaluate(TIES_RUN, TIES_QRELS, measures, options)
    keys = ["system", "qid", "measure"]
    assert got.sort(keys).equals(want.sort(keys))
    counted = sorted((level, judged_only) for level, judged_only, s in steps if s == STEPS["qrels", "counted"])
    assert counted == ([(1, False), (2, False)] if shuffled == "nothing" else [])
    assert len(steps) == 4


def test_running_counts_of_no_ranks():
    empty = pl.DataFrame(schema=ranking.RANKS_SCHEMA)
    counted = ranking.running_counts(empty, 1)
    assert counted is not None and counted.height == 0
    assert counted.columns == [*ranking.RANKS_SCHEMA, "rel_cum", "nonrel_cum", "unjudged_cum"]


def test_ideal_gains_refuse_judgments_of_a_query_in_two_pieces():
    assert ranking.ideal_gains(TIES_QRELS, gain_table([""], range(4))) is not None
    split = pl.concat([TIES_QRELS.slice(0, 2), TIES_QRELS.slice(6), TIES_QRELS.slice(2, 4)])
    assert ranking.ideal_gains(split, gain_table([""], range(4))) is None
