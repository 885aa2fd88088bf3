"""pf.leaderboard: ranks with confidence sets, on the resamples compare draws, unmoved by unrelated rows."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import EmptyResultError, InsufficientSampleError, PartlyEmptyWarning, SmallSampleWarning



def _table(k: int = 4, n: int = 30, seed: int = 0, measure: str = "AP") -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    values = np.clip(rng.normal(0.4, 0.2, size=(n, 1)) + rng.normal(0, 0.1, size=(n, k)) + np.arange(k) * 0.05, 0, 1)
    return pl.DataFrame({"system": np.repeat([f"s{j}" for j in range(k)], n).tolist(),
                         "qid": [f"{i:03d}" for i in range(n)] * k, "measure": measure,
                         "value": values.T.ravel()})


def test_leaderboard_critical_value_against_the_resample_index_compare_draws():
    frame = _table()
    got = pf.leaderboard(frame, n_resamples=300, seed=11)
    wide = frame.pivot(on="system", index="qid", values="value").sort("qid")
    X = wide.select([f"s{j}" for j in range(4)]).to_numpy()
    n = X.shape[0]
    maxima = np.zeros(300)
    index = pf.resample_index(wide["qid"].to_list(), n_resamples=300, seed=11)
    for resample, positions, counts in index.weights():
        for r in np.unique(resample):
            take = resample == r
            star = (counts[take][:, None] * X[positions[take]]).sum(axis=0) / n
            shift = star - X.mean(axis=0)
            for a in range(4):
                for b in range(a + 1, 4):
                    d = X[:, a] - X[:, b]
                    se = np.std(d, ddof=1) / np.sqrt(n)
                    drawn = d[positions[take]]
                    own = np.sqrt((counts[take] * (drawn - drawn @ counts[take] / n) ** 2).sum() / n / (n - 1))
                    maxima[r] = max(maxima[r], abs(shift[a] - shift[b]) / max(own, se / 2))
    expected = np.sort(maxima)[int(np.ceil(0.95 * 301)) - 1]
    assert got.critical_value == pytest.approx(expected, rel=1e-12)


def test_leaderboard_means_against_trec_eval_summary(shared_data):
    robust = shared_data / "trectools_robust03"
    runs = [str(robust / "runs" / f"input.{name}.gz") for name in ("pircRBa1", "humR03dc", "NLPR03vb10")]
    ev = pf.evaluate(runs, str(robust / "qrel" / "robust03_qrels.txt"), ["AP", "GMAP"])
    summary = {(r["system"], r["measure"]): r["value"] for r in ev.summary().iter_rows(named=True)}
    for measure in ("AP", "GMAP"):
        table = pf.leaderboard(ev, measure=measure, n_resamples=99).table
        assert table.height == 3
        for row in table.iter_rows(named=True):
            assert row["mean"] == pytest.approx(summary[row["system"], measure], rel=1e-12)


def test_leaderboard_is_unchanged_by_unrelated_rows_and_row_order():
    frame = _table()
    base = pf.leaderboard(frame, measure="AP", n_resamples=500)
    other = _table(measure="P@10", seed=3).with_columns(pl.col("value") * 0)
    extra = pl.concat([frame, other, _table(k=1, seed=4).with_columns(system=pl.lit("zz"))]).sample(fraction=1.0,
                                                                                                   shuffle=True, seed=1)
    moved = pf.leaderboard(extra, measure="AP", systems=[f"s{j}" for j in range(4)], n_resamples=500)
    assert moved.table.equals(base.table)
    assert moved.critical_value == base.critical_value


def test_leaderboard_ranks_ascending_where_lower_is_better():
    frame = _table(measure="FirstRelRank").with_columns((pl.col("value") * 100).round(0) + 1)
    board = pf.leaderboard(frame, n_resamples=200)
    means = board.table["mean"].to_list()
    assert means == sorted(means)
    assert board.table["rank"].to_list()[0] == 1


def test_leaderboard_sets_hold_their_ranks_and_best_set_is_the_rank_one_sets():
    board = pf.leaderboard(_table(k=6, n=40), n_resamples=999)
    t = board.table
    assert ((t["rank_low"] <= t["rank"]) & (t["rank"] <= t["rank_high"])).all()
    assert board.best == t.filter(pl.col("rank_low") == 1)["system"].to_list()
    assert board.statistic.tolist() == t["rank"].to_list()
    assert board.confidence_interval.low.tolist() == t["rank_low"].to_list()


def test_leaderboard_marginal_sets_are_no_wider_than_simultaneous_ones():
    frame = _table(k=6, n=40)
    joint = pf.leaderboard(frame, n_resamples=999).table
    each = pf.leaderboard(frame, n_resamples=999, simultaneous=False).table
    assert (each["rank_low"] >= joint["rank_low"]).all() and (each["rank_high"] <= joint["rank_high"]).all()


def test_leaderboard_warns_about_queries_some_system_lacks():
    frame = _table().filter(~((pl.col("system") == "s1") & (pl.col("qid") == "003")))
    with pytest.warns(PartlyEmptyWarning, match=r"1 of 30 queries lack a value for some system \(\['003'\]\)"):
        board = pf.leaderboard(frame, n_resamples=99)
    assert board.n_queries == 29


def test_leaderboard_warns_below_twenty_queries():
    with pytest.warns(SmallSampleWarning, match="only 10 queries"):
        pf.leaderboard(_table(n=10), n_resamples=99)


@pytest.mark.parametrize("kwargs, error, pattern", [
    ({"measure": "nDCG@10"}, EmptyResultError, r"`measure`: measure\(s\) \['nDCG@10'\] match nothing"),
    ({"systems": ["s0"]}, InsufficientSampleError, r"at least 2 systems"),
    ({"systems": ["s0", "nope"]}, EmptyResultError, r"`systems`: system\(s\) \['nope'\]"),
    ({"simultaneous": "yes"}, ValueError, r"simultaneous must be True or False"),
    ({"n_resamples": 0}, ValueError, r"n_resamples"),
    ({"confidence_level": 1.0}, ValueError, r"confidence_level"),
])
def test_leaderboard_refuses_bad_arguments_naming_them(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        pf.leaderboard(_table(), **kwargs)


def test_leaderboard_needs_the_measure_named_among_several():
    with pytest.raises(ValueError, match=r"`measure` is required: the table holds 2 measures"):
        pf.leaderboard(pl.concat([_table(), _table(measure="P@10")]))


@pytest.mark.parametrize("measure, said", [("official", r"'official' names a set of 29 measures"),
                                           ("P.5,10", r"'P.5,10' names 2 measures \(\['P@5', 'P@10'\]\)")])
def test_leaderboard_refuses_a_measure_name_that_names_several(measure, said):
    """measure='official' said "NumQ ranks no run" (the set's first measure): a leaderboard ranks by exactly one."""
    with pytest.raises(ValueError, match=rf"^`measure` {said}.*, but a leaderboard ranks by exactly one: give one, "
                                         r"e\.g\. measure='(AP|P@5)'$"):
        pf.leaderboard(pl.concat([_table(), _table(measure="P@5")]), measure=measure)


def test_leaderboard_on_a_cluster_column_advises_as_compare_does():
    """leaderboard advised one leaderboard per cluster (filter(pl.col('cluster') == 'c0')), where compare,
    compare_segments and results_table say to use compare_clustered or drop the column."""
    table = _table().with_columns(cluster="c" + (pl.col("qid").cast(pl.Int64) // 3).cast(pl.String))
    with pytest.raises(ValueError) as compared:
        pf.compare(table, baseline="s0")
    with pytest.raises(ValueError) as ranked:
        pf.leaderboard(table)
    advice = str(compared.value).split("each on its own few queries); ")[1].split("; drop the column")[0]
    assert advice.startswith("for one comparison that resamples whole clusters use pf.compare_clustered"), advice
    said = str(ranked.value)
    assert said.startswith("the per-query table has a 'cluster' column, which a leaderboard would treat as a key (one "
                           f"leaderboard per cluster, each on its own few queries); {advice}; drop the column to rank "
                           "the systems over all queries"), said
    assert "filter" not in said


def test_leaderboard_refuses_a_measure_that_ranks_no_run():
    with pytest.raises(ValueError, match="num_rel ranks no run"):
        pf.leaderboard(_table(measure="num_rel"))


def test_leaderboard_needs_two_queries_every_system_has():
    frame = _table(n=3).filter(~((pl.col("system") == "s0") & (pl.col("qid") != "000")))
    with pytest.raises(InsufficientSampleError, match="at least 2 queries measured for every system; 1 of 3 are"):
        pf.leaderboard(frame)


def test_leaderboard_orders_nothing_below_five_queries_where_the_bootstrap_cannot():
    # two queries, one system ahead on both: a bootstrap of 2 queries would call the order certain
    frame = pl.DataFrame({"system": ["A", "A", "B", "B"], "qid": ["q1", "q2"] * 2, "measure": "nDCG@10",
                          "value": [0.5, 0.6, 0.49, 0.2]})
    with pytest.warns(SmallSampleWarning, match="only 2 queries: with fewer than 5 .* every set is 1..2"):
        board = pf.leaderboard(frame)
    assert board.table["rank"].to_list() == [1, 2]
    assert board.table["rank_low"].to_list() == [1, 1] and board.table["rank_high"].to_list() == [2, 2]


def test_leaderboard_leaves_out_a_system_of_null_values_with_a_warning():
    frame = pl.concat([_table(), _table(k=1).with_columns(system=pl.lit("empty"), value=pl.lit(None, pl.Float64))])
    with pytest.warns(PartlyEmptyWarning, match=r"system\(s\) \['empty'\] have no value of AP"):
        board = pf.leaderboard(frame, n_resamples=200)
    assert board.n_systems == 4 and board.n_queries == 30
    with pytest.raises(InsufficientSampleError, match=r"`systems`: \['empty'\] have no value of AP"):
        pf.leaderboard(frame, systems=["s0", "empty"], n_resamples=200)


def test_leaderboard_reads_trec_eval_measure_names():
    assert pf.leaderboard(_table(), measure="map", n_resamples=200).measure == "AP"


def test_leaderboard_sets_hold_tied_systems_ranks_at_their_level():
    """Every system equal in true mean (the worst case): each true rank is 1, so a set with rank_low > 1 misses.
    Studentizing every resample by its own standard error holds the level; with the sample's SE in its
    place 14 of these 120 samples missed."""
    rng = np.random.default_rng(8)
    misses = 0
    for rep in range(120):
        X = rng.normal(0.5, 0.2, size=(20, 1)) + rng.normal(0, 0.1, size=(20, 5))   # every true mean 0.5
        frame = pl.DataFrame({"system": np.repeat([f"s{j}" for j in range(5)], 20).tolist(),
                              "qid": [f"q{i:02d}" for i in range(20)] * 5, "measure": "my score",
                              "value": X.T.ravel()})
        misses += int((pf.leaderboard(frame, n_resamples=499, seed=rep).table["rank_low"] > 1).any())
    assert misses / 120 < 0.10, f"{misses} of 120 tied samples missed (nominal 5 %)"


def test_leaderboard_warns_when_resamples_are_too_few_for_the_level():
    with pytest.warns(UserWarning, match=r"n_resamples=10 is too few for confidence_level=0.95: .* every set is 1..4"):
        board = pf.leaderboard(_table(), n_resamples=10)
    assert board.table["rank_low"].to_list() == [1] * 4 and board.table["rank_high"].to_list() == [4] * 4


def test_leaderboard_leaves_a_pair_without_spread_unordered_as_the_guide_says():
    # a run +0.3 on all 30 queries: no variation for the bootstrap to measure, so never ordered (the guide's
    # "no spread" rule, which keeps exactly tied runs covered), while a noisy copy of it is ordered above a
    rng = np.random.default_rng(2)
    a = rng.uniform(0, 0.5, 30)
    values = {"a": a, "b": a + 0.3, "c": a + 0.3 + rng.normal(0, 0.001, 30)}
    frame = pl.DataFrame({"system": np.repeat(list(values), 30).tolist(), "qid": [f"q{i}" for i in range(30)] * 3,
                          "measure": "nDCG@10", "value": np.concatenate(list(values.values()))})
    rows = {r["system"]: r for r in pf.leaderboard(frame, n_resamples=999, seed=0).table.iter_rows(named=True)}
    assert (rows["b"]["rank_low"], rows["b"]["rank_high"]) == (1, 3)
    assert (rows["c"]["rank_low"], rows["c"]["rank_high"]) == (1, 2) and rows["a"]["rank_low"] == 2


def test_leaderboard_of_a_heavy_tailed_measure_spans_every_rank_as_the_guide_says(shared_data):
    """The outside researcher: on Robust03 FirstRelRank every set was 1..17 where pf.compare separates many
    pairs, and nothing said why. The guide now says it (mostly-zero differences, a few huge ones: resamples
    that miss them have a tiny standard error); this holds it to the data, beside AP."""
    robust = shared_data / "trectools_robust03"
    runs = sorted(str(p) for p in (robust / "runs").glob("input.*.gz"))
    ev = pf.evaluate(runs, str(robust / "qrel" / "robust03_qrels.txt"), ["AP", "FirstRelRank"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ap, first = (pf.leaderboard(ev, measure=m, n_resamples=999) for m in ("AP", "FirstRelRank"))
        worst = first.table["system"][-1]
        tested = pf.compare(ev, baseline=worst, measures="FirstRelRank", n_resamples=999)
    assert first.critical_value > 3 * ap.critical_value
    assert (first.table["rank_low"] == 1).all() and (first.table["rank_high"] == first.n_systems).all()
    assert (tested["pvalue_holm"] < 0.05).sum() >= 10


def test_leaderboard_of_runs_differing_on_one_query_spans_every_rank_as_the_guide_says(shared_data):
    """The outside testers' 17 DL-2019 runs: pairs of runs that differ on one query only (p_bert and test1)
    are equal in every resample that misses it, and the floor makes their statistic 10/sqrt(2) whatever n:
    c is 7.07 on RR@10 and P@1 and every simultaneous set is 1..17, while nDCG@10's sets are narrower."""
    runs = sorted(str(p) for p in (shared_data / "llm_labels_dl" / "dl2019_runs").glob("input.*.gz"))
    ev = pf.evaluate(runs, str(shared_data / "anserini_tools" / "qrels.dl19-passage.txt"), ["RR@10", "nDCG@10"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rr, ndcg = (pf.leaderboard(ev, measure=m, n_resamples=999) for m in ("RR@10", "nDCG@10"))
    assert rr.critical_value == pytest.approx(10 / math.sqrt(2), rel=1e-9)
    assert math.isfinite(rr.critical_value) and rr.critical_value > ndcg.critical_value
    assert rr.n_systems == 17 and (rr.table["rank_low"] == 1).all() and (rr.table["rank_high"] == 17).all()
    assert (ndcg.table["rank_high"] - ndcg.table["rank_low"] + 1 < 17).all()


def _near_ceiling(rng: np.random.Generator, n: int = 43) -> dict[str, np.ndarray]:
    """Two RR@10-like runs at 1 on all but one query each (not the same one), and a clearly worse third."""
    a, b = np.ones(n), np.ones(n)
    a[0], b[1] = 0.5, 0.25
    return {"a": a, "b": b, "c": rng.choice([1.0, 0.5, 0.333, 0.25, 0.0], size=n, p=[0.55, 0.2, 0.1, 0.05, 0.1])}


def test_leaderboard_orders_a_clear_pair_beside_near_ceiling_runs_that_resamples_make_constant():
    """The outside statistician: RR@10 of two runs at 1 on 41 of 43 queries: a resample missing their two
    other queries (13 % of them) holds both constant, its SE was 0 and T* infinite (or 1e8 from float noise), so adding the
    second run to a settled pair made every set {1, ..., 3} (c = 2.3e8), with no word. Such a resample is
    studentized by the sample's SE now: the worse run stays ranked last, the near-tied pair is left unordered."""
    values = _near_ceiling(np.random.default_rng(4))
    frame = pl.DataFrame({"system": np.repeat(list(values), 43).tolist(), "qid": [f"q{i}" for i in range(43)] * 3,
                          "measure": "RR@10", "value": np.concatenate(list(values.values()))})
    for simultaneous in (True, False):
        board = pf.leaderboard(frame, n_resamples=999, seed=0, simultaneous=simultaneous)
        rows = {r["system"]: (r["rank_low"], r["rank_high"]) for r in board.table.iter_rows(named=True)}
        assert np.isfinite(np.asarray(board.critical_value, dtype=float)).all()
        assert rows == {"a": (1, 2), "b": (1, 2), "c": (3, 3)}, rows


def test_rank_sets_studentize_a_constant_resample_by_the_sample_se_against_a_direct_computation():
    """T* of a resample in which both systems are constant is the centred difference over the sample's SE
    (max of the paired SE and a tenth of the unpaired one); other resamples keep their own SE."""
    from pairedframe.stats.rank_sets import _pair_se, _studentized_pairs

    X = np.column_stack(list(_near_ceiling(np.random.default_rng(4)).values()))
    constant = np.resize(np.arange(2, 43), 43)                   # misses the queries where a and b differ
    T = next(_studentized_pairs(X, [np.vstack([constant, np.arange(43)])], np.array([0]), np.array([1])))
    centred = X[constant].mean(axis=0) - X.mean(axis=0)
    assert T[0, 0] == pytest.approx((centred[0] - centred[1]) / _pair_se(X)[0, 1], rel=1e-12)
    d = X[:, 0] - X[:, 1]
    own = max(d.std(ddof=1), 0.1 * np.sqrt(X[:, 0].var(ddof=1) + X[:, 1].var(ddof=1))) / np.sqrt(43)
    assert T[1, 0] == pytest.approx(0.0 / own, abs=1e-12)        # the sample itself: no shift
