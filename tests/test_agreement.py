"""rank_agreement and label_agreement on frames: hand-checked orderings, swapped pairs, the keyed
bootstrap, judgment sets as input, errors; Cohen's kappa against scikit-learn on qrels."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
import scipy.stats as sps

import pairedframe as pf
from pairedframe.errors import InsufficientSampleError
from pairedframe.stats.bootstrap import bootstrap_means_matrix
from pairedframe.stats.rank_agreement import kendall_tau_b_many
from pairedframe.stats.resample import bootstrap_index_chunks
from tests.reference.agreement_reference import tau_ap_a_loop


def _per_query(means_by_system, n=30, noise=0.05, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for s, m in means_by_system.items():
        for q in range(n):
            rows.append((s, f"q{q:03d}", "AP", float(m + noise * rng.standard_normal())))
    return pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")


def test_rank_agreement_orders_swaps_and_matches_scipy():
    a = _per_query({"s1": 0.5, "s2": 0.4, "s3": 0.3, "s4": 0.2}, noise=0.0)
    b = _per_query({"s1": 0.4, "s2": 0.5, "s3": 0.3, "s4": 0.1}, noise=0.0)
    r = pf.rank_agreement(a, b, measure="AP", n_resamples=200)
    assert r.kendall_tau_b.statistic == pytest.approx(sps.kendalltau([.5, .4, .3, .2], [.4, .5, .3, .1]).statistic)
    assert r.spearman_rho.statistic == pytest.approx(0.8)
    # a: s1 > s2 > s3 > s4, b: s2 > s1 > s3 > s4 -> one swapped pair at the top
    assert r.swapped.select("system_x", "system_y").rows() == [("s1", "s2")]
    assert r.tau_ap.statistic == pytest.approx(2 / 3 * (0 + 1 + 1) - 1)
    assert r.means["system"].to_list() == ["s1", "s2", "s3", "s4"]
    assert r.means["rank_b"].to_list() == [2, 1, 3, 4]
    assert r.n_queries == 30 and r.n_systems == 4
    # constant per-query values: no query changes the coefficient -> no spread seen, a NaN interval, never a point
    assert np.isnan(r.kendall_tau_b.confidence_interval.low) and np.isnan(r.kendall_tau_b.confidence_interval.high)
    assert r.table["coefficient"].to_list() == ["kendall_tau_b", "spearman_rho", "tau_ap", "tau_ap_symmetric", "rbo"]


def test_rank_agreement_bootstrap_uses_the_keyed_query_stream():
    a = _per_query({f"s{i}": 0.1 * i for i in range(6)}, noise=0.3, seed=1)
    b = _per_query({f"s{i}": 0.1 * i for i in range(6)}, noise=0.3, seed=2)
    r = pf.rank_agreement(a, b, measure="AP", interval="percentile", n_resamples=500, seed=7)
    qids = sorted(a["qid"].unique().to_list())
    systems = sorted(a["system"].unique().to_list())
    A = a.pivot(on="system", index="qid", values="value").sort("qid").select(systems).to_numpy()
    B = b.pivot(on="system", index="qid", values="value").sort("qid").select(systems).to_numpy()
    boot, _ = pf.comparison.resample_generators(7, qids)
    means = bootstrap_means_matrix(np.hstack([A, B]), bootstrap_index_chunks(len(qids), 500, seed=boot))
    taus = kendall_tau_b_many(means[:, :6], means[:, 6:])
    assert r.kendall_tau_b.confidence_interval.low == pytest.approx(np.quantile(taus, 0.025))
    assert r.kendall_tau_b.confidence_interval.high == pytest.approx(np.quantile(taus, 0.975))
    again = pf.rank_agreement(a, b, measure="AP", interval="percentile", n_resamples=500, seed=7)
    assert again.table.equals(r.table)
    # the result does not depend on the row order of the input
    shuffled = pf.rank_agreement(a.sample(fraction=1.0, shuffle=True, seed=3), b, measure="AP", interval="percentile",
                                 n_resamples=500, seed=7)
    assert shuffled.table.equals(r.table)


def test_rank_agreement_accepts_judgment_sets_and_checks_names():
    run = pl.DataFrame({"system": ["x", "x", "y", "y", "z", "z"], "qid": ["1", "2"] * 3,
                        "docno": ["d1", "d2", "d2", "d1", "d1", "d1"], "score": [1.0] * 6})
    q1 = pl.DataFrame({"qid": ["1", "2", "2"], "docno": ["d1", "d2", "d1"], "rel": [1, 1, 0]})
    q2 = pl.DataFrame({"qid": ["1", "2", "2"], "docno": ["d1", "d2", "d1"], "rel": [0, 0, 1]})
    js = pf.evaluate_judgment_sets(run, {"nist": q1, "llm": q2}, "P@1")
    r = pf.rank_agreement(js, measure="P@1", n_resamples=50)
    assert r.names == ("nist", "llm")
    with pytest.raises(ValueError, match=r"\['gold'\] that are not present"):
        pf.rank_agreement(js, measure="P@1", judgments=("nist", "gold"))
    with pytest.raises(TypeError, match="judgments="):
        pf.rank_agreement(js, js, measure="P@1")
    with pytest.raises(ValueError, match="measure 'AP' is not in both"):
        pf.rank_agreement(js, measure="AP")


def test_rank_agreement_of_a_table_with_a_judgments_column_against_the_judgment_sets(tmp_path):
    """docs/guide/inputs.md lists rank_agreement among the readers of per-query tables and paths: the
    per_query of evaluate_judgment_sets (a table, or its CSV) is read as the judgment sets themselves."""
    run = pl.DataFrame({"system": [s for s in "wxyz" for _ in range(8)],
                        "qid": [str(q) for _ in range(4) for q in range(4) for _ in range(2)],
                        "docno": ["d1", "d2"] * 16, "score": np.random.default_rng(0).uniform(size=32)})
    q1 = pl.DataFrame({"qid": [str(q) for q in range(4) for _ in range(2)], "docno": ["d1", "d2"] * 4,
                       "rel": [1, 0, 0, 1, 1, 1, 0, 1]})
    js = pf.evaluate_judgment_sets(run, {"nist": q1, "llm": q1.with_columns(rel=pl.Series([1, 1, 0, 1, 0, 1, 0, 0]))},
                                   "AP")
    path = tmp_path / "sets.csv"
    js.per_query.write_csv(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for order in (None, ("llm", "nist")):
            want = pf.rank_agreement(js, measure="AP", judgments=order)
            for given in (js.per_query, str(path)):
                got = pf.rank_agreement(given, measure="AP", judgments=order)
                assert got.names == want.names and got.table.equals(want.table)
    with pytest.raises(ValueError, match=r"`judgments` must name two .*\['nist', 'llm'\]"):
        pf.rank_agreement(js.per_query, measure="AP", judgments=("nist", "gold"))
    with pytest.raises(TypeError, match="or a per-query table with a `judgments` column"):
        pf.rank_agreement(js.evaluations["nist"], measure="AP")


def test_rank_agreement_warns_about_dropped_systems_and_queries():
    a = _per_query({"s1": 0.5, "s2": 0.4, "s3": 0.3})
    b = _per_query({"s1": 0.5, "s2": 0.4, "s4": 0.3})
    with pytest.warns(UserWarning, match="only one of the evaluations"):
        r = pf.rank_agreement(a, b, measure="AP", n_resamples=50)
    assert r.n_systems == 2
    with pytest.raises(InsufficientSampleError), pytest.warns(UserWarning, match="left out"):
        pf.rank_agreement(a.filter(pl.col("system") == "s1"), b, measure="AP")
    short = b.filter(~((pl.col("system") == "s2") & (pl.col("qid") == "q000")))
    with pytest.warns(pf.PartlyEmptyWarning, match=r"'b' lacks 0 of the 30 queries of 'a'; 'a' lacks 0 of the 30 of 'b'; "
                                                  r"1 more queries lack a value for some system \(\['q000'\]\)"):
        pf.rank_agreement(a, short, measure="AP", systems=["s1", "s2"], n_resamples=50)


def test_rank_agreement_of_evaluations_covering_different_queries_uses_the_common_ones():
    # a measured q000-q019, b q010-q029: the agreement is over q010-q019, as on those queries alone
    a = _per_query({"s1": 0.5, "s2": 0.45, "s3": 0.3, "s4": 0.2}, seed=1).filter(pl.col("qid") < "q020")
    b = _per_query({"s1": 0.4, "s2": 0.5, "s3": 0.3, "s4": 0.1}, seed=2).filter(pl.col("qid") >= "q010")
    with pytest.warns(pf.PartlyEmptyWarning, match=r"'b' lacks 10 of the 20 queries of 'a' \(\['q000', [^;]*\(10 in all\)\); "
                                                   r"'a' lacks 10 of the 20 of 'b' \(\['q020', .*over the 10 queries") \
            as record:
        got = pf.rank_agreement(a, b, measure="AP", n_resamples=200, seed=3)
    assert {w.filename for w in record} == {__file__}                    # points at the caller's line
    common = pl.col("qid").is_between(pl.lit("q010"), pl.lit("q019"))
    want = pf.rank_agreement(a.filter(common), b.filter(common), measure="AP", n_resamples=200, seed=3)
    assert got.n_queries == want.n_queries == 10 and got.table.equals(want.table)
    assert got.means.equals(want.means)
    with pytest.raises(InsufficientSampleError, match=r"0 in common \('a': 10 \(\['q000', .*same collection"):
        pf.rank_agreement(a.filter(pl.col("qid") < "q010"), b, measure="AP")
    with pytest.raises(InsufficientSampleError, match=r"1 in common \('a': 11 .*; 'b': 20 "):
        pf.rank_agreement(a.filter(pl.col("qid") <= "q010"), b, measure="AP")


def test_rank_agreement_of_judgment_sets_covering_different_queries_names_the_sets():
    # NIST judged queries 1-6, the LLM 4-9 (as LLM qrels often cover another subset); runs retrieve 1-9
    rng = np.random.default_rng(5)
    runs = pl.DataFrame([(s, str(q), f"d{d}", float(rng.random())) for s in ("x", "y", "z") for q in range(1, 10)
                         for d in range(5)], schema=["system", "qid", "docno", "score"], orient="row")
    def qrels(qids, seed):
        r = np.random.default_rng(seed)
        return pl.DataFrame([(str(q), f"d{d}", int(r.integers(0, 2))) for q in qids for d in range(5)],
                            schema=["qid", "docno", "rel"], orient="row")
    js = pf.evaluate_judgment_sets(runs, {"nist": qrels(range(1, 7), 1), "llm": qrels(range(4, 10), 2)}, "P@5")
    with pytest.warns(pf.PartlyEmptyWarning, match=r"'llm' lacks 3 of the 6 queries of 'nist' \(\['1', '2', '3'\]\); "
                                                   r"'nist' lacks 3 of the 6 of 'llm' \(\['7', '8', '9'\]\); "
                                                   r"the agreement is over the 3 queries"):
        r = pf.rank_agreement(js, measure="P@5", n_resamples=50)
    assert r.n_queries == 3 and r.names == ("nist", "llm")


def _qrels(pairs):
    return pl.DataFrame(pairs, schema=["qid", "docno", "rel"], orient="row")


def test_label_agreement_counts_and_coverage():
    a = _qrels([("1", "d1", 0), ("1", "d2", 1), ("1", "d3", 2), ("2", "d1", 3), ("2", "d9", 0)])
    b = _qrels([("1", "d1", 0), ("1", "d2", 2), ("1", "d3", 2), ("2", "d1", 1), ("3", "x", 1), ("3", "y", 1)])
    la = pf.label_agreement(a, b, names=("nist", "llm"), binary_at=2)
    assert la.n_common == 4
    assert la.missing_from_b == pytest.approx(1 / 5) and la.missing_from_a == pytest.approx(2 / 6)
    assert la.exact_agreement == pytest.approx(2 / 4)
    got = {(r["grade_a"], r["grade_b"]): r["count"] for r in la.confusion.iter_rows(named=True) if r["count"]}
    assert got == {(0, 0): 1, (1, 2): 1, (2, 2): 1, (3, 1): 1}
    assert la.grade_counts.rows() == [(0, 1, 1, 2, 1), (1, 1, 1, 1, 3), (2, 1, 2, 1, 2), (3, 1, 0, 1, 0)]
    assert la.confusion_matrix().columns == ["grade_a", "0", "1", "2", "3"]
    with pytest.raises(InsufficientSampleError, match="no \\(qid, docno\\) pair"):
        pf.label_agreement(a, _qrels([("7", "z", 1)]))


@pytest.mark.oracle
def test_label_agreement_against_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    pairs = [(str(q), f"d{d}") for q in range(20) for d in range(15)]
    ga = rng.integers(0, 4, len(pairs))
    gb = np.clip(ga + rng.integers(-1, 2, len(pairs)), 0, 3)
    a = _qrels([(q, d, int(g)) for (q, d), g in zip(pairs, ga)])
    b = _qrels([(q, d, int(g)) for (q, d), g in zip(pairs, gb)]).sample(fraction=1.0, shuffle=True, seed=1)
    la = pf.label_agreement(a, b, binary_at=2)
    assert la.kappa == pytest.approx(metrics.cohen_kappa_score(ga, gb), abs=1e-12)
    assert la.kappa_linear == pytest.approx(metrics.cohen_kappa_score(ga, gb, weights="linear"), abs=1e-12)
    assert la.kappa_quadratic == pytest.approx(metrics.cohen_kappa_score(ga, gb, weights="quadratic"), abs=1e-12)
    assert la.kappa_binary == pytest.approx(metrics.cohen_kappa_score(ga >= 2, gb >= 2), abs=1e-12)


def test_rank_agreement_orders_lower_is_better_best_first_against_tau_ap_a_loop():
    # FirstRelRank: lower is better.  a: s4 best ... s1 worst; b swaps the two best (s4, s3).
    ranks_a, ranks_b = {"s1": 9.0, "s2": 6.0, "s3": 3.0, "s4": 1.0}, {"s1": 9.0, "s2": 6.0, "s3": 1.0, "s4": 2.0}
    a = _per_query(ranks_a, noise=0.0).with_columns(pl.lit("FirstRelRank").alias("measure"))
    b = _per_query(ranks_b, noise=0.0).with_columns(pl.lit("FirstRelRank").alias("measure"))
    r = pf.rank_agreement(a, b, measure="FirstRelRank", n_resamples=200)
    # tau_AP weighs the top of the ranking, best first: the oracle sees the negated ranks (higher = better)
    names = list(ranks_a)
    expected = tau_ap_a_loop([-ranks_a[s] for s in names], [-ranks_b[s] for s in names])
    assert r.tau_ap.statistic == pytest.approx(expected)
    assert r.tau_ap.statistic != pytest.approx(tau_ap_a_loop(list(ranks_a.values()), list(ranks_b.values())))
    assert r.means["system"].to_list() == ["s4", "s3", "s2", "s1"] and r.means["rank_a"].to_list() == [1, 2, 3, 4]
    assert r.swapped.select("system_x", "system_y").rows() == [("s4", "s3")]     # a puts s4 above s3
    assert r.kendall_tau_b.statistic == pytest.approx(sps.kendalltau([9, 6, 3, 1], [9, 6, 1, 2]).statistic)
    assert r.rbo.statistic < 1.0


def _exact_pvalue(x, y, statistic):
    """Two-sided p of ``statistic(x, y_permuted)`` over every ordering of y, as scipy defines it."""
    import itertools

    observed = statistic(x, y)
    null = np.array([statistic(x, np.array(p)) for p in itertools.permutations(y)])
    eps = 1e-12
    return min(1.0, 2 * min(np.mean(null >= observed - eps), np.mean(null <= observed + eps)))


@pytest.mark.parametrize("means_b", [
    {"s1": 0.5, "s2": 0.4, "s3": 0.3},                                  # 3 systems in the same order
    {"s1": 0.3, "s2": 0.4, "s3": 0.5, "s4": 0.45, "s5": 0.1},           # 5, partly swapped
    {"s1": 0.6, "s2": 0.5, "s3": 0.5, "s4": 0.2, "s5": 0.1, "s6": 0.3},  # 6 with a tie under b
])
def test_rank_agreement_small_pvalues_against_exact_enumeration(means_b):
    """With 3 systems in the same order scipy's spearmanr gave p = 0 (its t approximation) beside
    tau_b's exact 1/3; up to 8 systems both p-values are exact permutation p-values."""
    means_a = {f"s{i + 1}": 0.6 - 0.1 * i for i in range(len(means_b))}
    a, b = _per_query(means_a, noise=0.0), _per_query(means_b, noise=0.0)
    r = pf.rank_agreement(a, b, measure="AP", n_resamples=50)
    x, y = np.array(list(means_a.values())), np.array(list(means_b.values()))
    rho = lambda u, v: sps.spearmanr(u, v).statistic  # noqa: E731
    tau = lambda u, v: sps.kendalltau(u, v).statistic  # noqa: E731
    assert r.spearman_rho.pvalue == pytest.approx(_exact_pvalue(x, y, rho), abs=1e-12)
    assert r.kendall_tau_b.pvalue == pytest.approx(_exact_pvalue(x, y, tau), abs=1e-12)
    both = lambda u: sps.spearmanr(x, u).statistic  # noqa: E731
    scipy_exact = sps.permutation_test((y,), both, permutation_type="pairings", vectorized=False, n_resamples=np.inf)
    assert r.spearman_rho.pvalue == pytest.approx(scipy_exact.pvalue, abs=1e-12)
    if len(means_b) == 3:
        assert r.spearman_rho.statistic == 1.0 and r.kendall_tau_b.statistic == 1.0
        assert r.spearman_rho.pvalue == pytest.approx(1 / 3) and r.kendall_tau_b.pvalue == pytest.approx(1 / 3)


def test_rank_agreement_exact_pvalue_with_tied_means_doubles_the_smaller_tail_against_scipy_permutation_test():
    """The figures the agreement guide quotes: 5 systems in one order with one tie give p = 1/30 (scipy's two-sided
    convention, twice the smaller tail), while counting orderings with |tau| >= 1 gives 1/60."""
    import itertools

    means = {"s1": 0.1, "s2": 0.2, "s3": 0.3, "s4": 0.3, "s5": 0.5}
    r = pf.rank_agreement(_per_query(means, noise=0.0), _per_query(means, noise=0.0), measure="AP", n_resamples=50)
    x = np.array(list(means.values()))
    tau = lambda u: sps.kendalltau(x, u).statistic  # noqa: E731
    ref = sps.permutation_test((x,), tau, permutation_type="pairings", vectorized=False, n_resamples=np.inf)
    assert r.kendall_tau_b.pvalue == pytest.approx(ref.pvalue, abs=1e-12) == pytest.approx(1 / 30, abs=1e-12)
    count = sum(abs(tau(np.array(p))) >= 1 - 1e-12 for p in itertools.permutations(x))
    assert count / 120 == pytest.approx(1 / 60)


def test_percentile_rank_interval_is_nan_not_a_point_when_every_resample_gives_the_same_coefficient():
    """Three well separated systems in one order under both sets: tau_b is 1 in every resample; the percentile
    interval was the point [1, 1], now NaN with a note and a warning naming the measure and the sides."""
    from pairedframe.errors import SmallSampleWarning

    a = _per_query({"s1": 0.9, "s2": 0.5, "s3": 0.1})
    b = _per_query({"s1": 0.8, "s2": 0.4, "s3": 0.2}, seed=1)
    with pytest.warns(SmallSampleWarning, match=r"rank agreement on AP between 'a' and 'b': kendall_tau_b.*every "
                                                r"bootstrap resample of the 30 queries gives the same coefficient"):
        r = pf.rank_agreement(a, b, measure="AP", interval="percentile", n_resamples=200, seed=1)
    assert r.kendall_tau_b.statistic == 1.0
    assert all(math.isnan(v) for v in r.kendall_tau_b.confidence_interval)
    assert r.kendall_tau_b.note.startswith("approximate; no interval (NaN): every bootstrap resample")


def test_rank_agreement_of_two_systems_warns_and_has_pvalue_one():
    """Two systems: rho was 0.9999999999999999 with p NaN and no warning."""
    from pairedframe.errors import SmallSampleWarning

    a = _per_query({"s1": 0.5, "s2": 0.4})
    b = _per_query({"s1": 0.6, "s2": 0.3})
    with pytest.warns(SmallSampleWarning, match="only 2 systems"):
        r = pf.rank_agreement(a, b, measure="AP", n_resamples=50)
    assert r.spearman_rho.statistic == 1.0 and r.kendall_tau_b.statistic == 1.0
    assert r.spearman_rho.pvalue == 1.0 and r.kendall_tau_b.pvalue == 1.0


def test_rank_agreement_above_the_exact_limit_uses_scipy():
    from pairedframe.stats.rank_agreement import EXACT_MAX_ITEMS

    k = EXACT_MAX_ITEMS + 1
    rng = np.random.default_rng(1)
    ma, mb = rng.random(k), rng.random(k)
    a = _per_query({f"s{i}": m for i, m in enumerate(ma)}, noise=0.0)
    b = _per_query({f"s{i}": m for i, m in enumerate(mb)}, noise=0.0)
    r = pf.rank_agreement(a, b, measure="AP", n_resamples=50)
    assert r.spearman_rho.pvalue == pytest.approx(sps.spearmanr(ma, mb).pvalue)
    assert r.kendall_tau_b.pvalue == pytest.approx(sps.kendalltau(ma, mb).pvalue)


def test_swapped_pairs_name_their_means_after_the_judgment_sets():
    """With judgments=("nist", "moved") the swapped pairs' means are mean_nist_x ... mean_moved_y (which set
    each mean is under); two tables a and b keep mean_a_x ... mean_b_y."""
    scores = {"s1": (2.0, 1.0), "s2": (1.0, 2.0), "s3": (2.0, 2.0)}   # d1, d2 of both queries; s3 ties (d2 first)
    run = pl.DataFrame([(s, q, d, score[i]) for s, score in scores.items() for q in ("1", "2")
                        for i, d in enumerate(("d1", "d2"))], schema=["system", "qid", "docno", "score"], orient="row")
    nist = pl.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["d1", "d2", "d1", "d2"], "rel": [1, 0, 1, 0]})
    moved = nist.with_columns((1 - pl.col("rel")).alias("rel"))
    js = pf.evaluate_judgment_sets(run, {"nist": nist, "moved": moved}, ["RR"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # three systems, two queries: small-sample warnings
        r = pf.rank_agreement(js, measure="RR", judgments=("nist", "moved"))
    assert r.swapped.columns == ["system_x", "system_y", "mean_nist_x", "mean_nist_y", "mean_moved_x", "mean_moved_y"]
    assert r.swapped.row(0, named=True) == {"system_x": "s1", "system_y": "s2", "mean_nist_x": 1.0,
                                            "mean_nist_y": 0.5, "mean_moved_x": 0.5, "mean_moved_y": 1.0}
    a = _per_query({"s1": 0.5, "s2": 0.4, "s3": 0.3}, noise=0.0)
    b = _per_query({"s1": 0.4, "s2": 0.5, "s3": 0.3}, noise=0.0)
    assert pf.rank_agreement(a, b, measure="AP").swapped.columns == [
        "system_x", "system_y", "mean_a_x", "mean_a_y", "mean_b_x", "mean_b_y"]


def test_label_agreement_refuses_two_equal_names():
    qrels = pl.DataFrame({"qid": ["q1"] * 4, "docno": ["d1", "d2", "d3", "d4"], "rel": [0, 1, 2, 1]})
    with pytest.raises(ValueError, match=r"`names` must be two different labels"):
        pf.label_agreement(qrels, qrels, names=("a", "a"))


@pytest.mark.parametrize("names", [("qid", "system", "measure", "value"), ("delta", "_qid", "qid", "judgments")])
def test_rank_agreement_treats_system_names_as_data(names):
    """Systems called like columns (``qid`` raised polars' DuplicateError in the pivot) rank as any name."""
    means_a, means_b = {"s1": 0.5, "s2": 0.4, "s3": 0.3, "s4": 0.2}, {"s1": 0.4, "s2": 0.5, "s3": 0.35, "s4": 0.1}
    a, b = _per_query(means_a), _per_query(means_b, seed=1)
    rename = dict(zip(means_a, names))
    want = pf.rank_agreement(a, b, measure="AP")
    got = pf.rank_agreement(*(f.with_columns(pl.col("system").replace_strict(rename)) for f in (a, b)), measure="AP")
    assert got.table.equals(want.table)
    assert got.means.with_columns(pl.col("system").replace_strict({v: k for k, v in rename.items()})).sort("system") \
        .equals(want.means.sort("system"))


def test_rank_agreement_rbo_with_tied_means_does_not_depend_on_system_names():
    """Two systems tie under one judgment set: renaming the systems (which reorders them) must not
    change RBO -- it is the mean over the ways of breaking the tie, between its two values."""
    def build(names):
        rows = []
        for s, vx, vy in zip(names, [0.5, 0.4, 0.4, 0.3], [0.5, 0.45, 0.35, 0.3]):
            for q in range(4):
                o = 0.02 if q % 2 else -0.02
                rows += [(s, "nist", f"q{q}", "nDCG@10", vx + o), (s, "llm", f"q{q}", "nDCG@10", vy + o)]
        return pl.DataFrame(rows, schema=["system", "judgments", "qid", "measure", "value"], orient="row")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = [pf.rank_agreement(build(names), measure="nDCG@10", judgments=("nist", "llm")).rbo.statistic
                  for names in (["a", "b", "c", "d"], ["a", "c", "b", "d"], ["z", "y", "x", "w"])]
    assert values[0] == values[1] == values[2]
    assert 0.955 < values[0] < 1.0


def test_rank_agreement_charges_an_llm_tie_nist_breaks_against_tau_ap_a_loop():
    # the outside report: LLM means tying two systems NIST orders gave tau_AP = 1; tau_AP_a gives 0.9375
    nist, llm = [.5, .4, .3, .2, .1], [.5, .4, .3, .2, .2]
    a = _per_query({f"s{i}": m for i, m in enumerate(nist)}, noise=0.0)
    b = _per_query({f"s{i}": m for i, m in enumerate(llm)}, noise=0.0)
    r = pf.rank_agreement(a, b, measure="AP")
    assert r.tau_ap.statistic == pytest.approx(tau_ap_a_loop(nist, llm), abs=1e-12) == pytest.approx(0.9375)
    assert r.tau_ap_symmetric.statistic == pytest.approx(0.9375)       # tau_AP_b here happens to agree
