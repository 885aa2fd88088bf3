"""compare_clustered: scipy/statsmodels oracles, loop reference, invariances, errors, and the DL-MIA real input."""

from __future__ import annotations

import math

import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairedframe.comparison import compare
from pairedframe.comparison.clustered import attach_clusters, cluster_layout, cluster_streams, compare_clustered
from pairedframe.errors import InsufficientSampleError, SchemaError, SmallSampleWarning
from pairedframe.stats.cluster import cluster_sign_flip_test
from tests.reference.clustered_reference import ref_cluster_compare, ref_pair

pytestmark = pytest.mark.filterwarnings("ignore::pairedframe.errors.SmallSampleWarning")


def make(seed=0, G=25, max_size=5, systems=("A", "B"), measures=("m",), effect=0.0, binary=False):
    """Long per-query table with a cluster effect; returns (frame, {qid: cluster})."""
    rng = np.random.default_rng(seed)
    rows, cmap = [], {}
    for g in range(G):
        shared = rng.normal(0, 0.1)
        for j in range(int(rng.integers(1, max_size + 1))):
            q = f"t{g:03d}-{j}"
            cmap[q] = f"c{(g * 37) % 101}"          # sparse labels, unrelated to order
            for m in measures:
                base = rng.uniform()
                for i, s in enumerate(systems):
                    v = base + (i > 0) * (effect + shared + rng.normal(0, 0.05))
                    rows.append((s, q, m, float(v > 0.5) if binary else float(v)))
    return pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row"), cmap


def _dicts(df, sysname, measure="m"):
    sub = df.filter((pl.col("system") == sysname) & (pl.col("measure") == measure))
    return dict(zip(sub["qid"].to_list(), sub["value"].to_list()))


# ------------------------------------------------------------------ oracles

@pytest.mark.parametrize("G", [5, 9, 12])
def test_exact_cluster_sign_flip_equals_scipy_permutation_test_on_cluster_sums(G):
    stats = pytest.importorskip("scipy.stats")
    df, cmap = make(seed=G, G=G, effect=0.03)
    out = compare_clustered(df, baseline="A", clusters=cmap, n_resamples=10_000)
    _, _, _, sums, sizes = ref_pair(_dicts(df, "A"), _dicts(df, "B"), cmap)
    N = sizes.sum()
    res = stats.permutation_test((sums,), lambda s, axis=-1: s.sum(axis=axis) / N, permutation_type="samples",
                                 n_resamples=np.inf, vectorized=True)
    obs = res.statistic
    gamma = 100 * np.finfo(float).eps * max(abs(obs), np.abs(sums).sum() / N)
    p_scipy = np.mean(np.abs(res.null_distribution) >= abs(obs) - gamma)   # our |T| rule, from scipy's null
    assert res.null_distribution.size == 2 ** G
    assert out["exact"][0] and out["n_clusters"][0] == G
    assert out["pvalue"][0] == pytest.approx(p_scipy, abs=0, rel=1e-15)
    # and the frame layer agrees with the stats layer (exact p does not depend on cluster order)
    d = np.array([_dicts(df, "B")[q] - _dicts(df, "A")[q] for q in sorted(cmap)])
    assert out["pvalue"][0] == cluster_sign_flip_test(d, [cmap[q] for q in sorted(cmap)], n_resamples=10_000).pvalue


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cluster_bootstrap_equals_scipy_bootstrap_ratio_on_the_same_stream(seed):
    stats = pytest.importorskip("scipy.stats")
    df, cmap = make(seed=seed, G=30 + seed)
    out = compare_clustered(df, baseline="A", clusters=cmap, n_resamples=2000, seed=seed, interval="percentile")
    qids, _, members, sums, sizes = ref_pair(_dicts(df, "A"), _dicts(df, "B"), cmap)
    boot_rng, _ = cluster_streams(seed, qids, [cmap[q] for q in qids])
    ref = stats.bootstrap((sums, sizes), lambda s, m, axis=-1: s.sum(axis=axis) / m.sum(axis=axis), paired=True,
                          vectorized=True, method="percentile", n_resamples=2000, rng=boot_rng)
    np.testing.assert_allclose([out["ci_low"][0], out["ci_high"][0]],
                               [ref.confidence_interval.low, ref.confidence_interval.high], rtol=1e-12, atol=1e-15)
    # se is the CR2 cluster-robust SE (explicit-matrix reference; CR1 when the sizes are equal)
    from tests.reference.clustered_reference import cr2_se_and_df_by_matrices

    qd = [_dicts(df, "B")[q] - _dicts(df, "A")[q] for q in qids]
    se, _ = cr2_se_and_df_by_matrices(qd, [cmap[q] for q in qids])
    assert out["se"][0] == pytest.approx(se, rel=1e-10)


@pytest.mark.parametrize("sizes", [[5] * 10, [21] + [1] * 9, [10, 6, 4, 3, 2, 2, 1, 1, 1, 1], [3, 1], [2, 2, 7]])
def test_cr2_se_and_bell_mccaffrey_df_against_explicit_matrices(sizes):
    from pairedframe.stats.cluster_interval import cluster_df, cluster_edgeworth_interval, cluster_robust_se
    from tests.reference.clustered_reference import cr2_se_and_df_by_matrices
    from tests.reference.stats_reference import edgeworth_t_quantile_loop

    rng = np.random.default_rng(len(sizes))
    labels = np.repeat(np.arange(len(sizes)), sizes)
    d = rng.exponential(size=labels.size) - 0.8
    sums = np.bincount(labels, weights=d)
    n = np.array(sizes, float)
    se, df = cr2_se_and_df_by_matrices(d, labels)
    assert cluster_robust_se(sums, n) == pytest.approx(se, rel=1e-10)
    assert cluster_df(n) == pytest.approx(df, rel=1e-10)
    if len(set(sizes)) == 1:       # equal sizes: CR1 and G - 1 exactly
        G, theta = len(sizes), sums.sum() / n.sum()
        assert cluster_df(n) == G - 1
        assert cluster_robust_se(sums, n) == pytest.approx(np.sqrt(G / (G - 1) * np.sum((sums - theta * n) ** 2))
                                                           / n.sum(), rel=1e-13)
    theta = sums.sum() / n.sum()
    q = edgeworth_t_quantile_loop(list(sums - theta * n), df, 0.95)
    ci = cluster_edgeworth_interval(sums, n)
    assert (ci.low, ci.high) == pytest.approx((theta - q * se, theta + q * se), rel=1e-9)


def test_frame_layer_equals_loop_reference_monte_carlo_and_exact():
    for G, B in [(40, 999), (8, 1000)]:
        df, cmap = make(seed=G, G=G, effect=0.02)
        a, b = _dicts(df, "A"), _dicts(df, "B")
        qids = sorted(set(a) & set(b))
        for interval in ("edgeworth", "signflip", "percentile"):
            out = compare_clustered(df, baseline="A", clusters=cmap, n_resamples=B, seed=7,
                                    interval=interval).row(0, named=True)
            boot, flip = cluster_streams(7, qids, [cmap[q] for q in qids])
            ref = ref_cluster_compare(a, b, cmap, boot_rng=boot, flip_rng=flip, n_resamples=B, interval=interval)
            assert out["pvalue"] == ref["pvalue"] and out["n_clusters"] == ref["n_clusters"]
            for k in ("delta", "ci_low", "ci_high", "se"):
                assert out[k] == pytest.approx(ref[k], rel=1e-12, abs=1e-15), (interval, k)
            assert out["exact"] == (2 ** G <= B)
            if interval == "signflip":        # the inverted test agrees with its p-value by construction
                assert (out["ci_low"] > 0 or out["ci_high"] < 0) == (out["pvalue"] < 0.05)
            if interval == "edgeworth":       # the default, and never narrower than the normal interval
                assert out["interval"] == "cluster edgeworth"
                assert out["ci_high"] - out["ci_low"] >= 2 * 1.959963984540054 * out["se"] * (1 - 1e-12)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_default_interval_is_named_plain_cluster_t_in_memory_and_on_duckdb(alternative):
    """The Edgeworth term is two-sided only: a one-sided default interval is cluster-t's bound, and its
    ``interval`` column says so (it used to say "cluster edgeworth"), in memory and as joins in DuckDB."""
    duckdb = pytest.importorskip("duckdb")
    df, cmap = make(seed=3, G=12, effect=0.02)
    frame = df.with_columns(pl.col("qid").replace_strict(cmap).alias("cluster"))
    t = compare_clustered(frame, baseline="A", n_resamples=999, alternative=alternative, interval="t")
    for data in (frame, duckdb.sql("SELECT * FROM frame")):
        out = compare_clustered(data, baseline="A", n_resamples=999, alternative=alternative)
        assert out["interval"].to_list() == ["cluster t (one-sided: no Edgeworth step)"]
        assert (out["ci_low"][0], out["ci_high"][0]) == pytest.approx((t["ci_low"][0], t["ci_high"][0]), rel=1e-12)
    two = compare_clustered(frame, baseline="A", n_resamples=999)
    assert two["interval"].to_list() == ["cluster edgeworth"]     # two-sided: the corrected quantile, as named


def test_tost_and_mdd_use_t_with_bell_mccaffrey_df_and_equal_statsmodels_with_singleton_clusters():
    from collections import Counter

    from pairedframe.stats.cluster_interval import cluster_df

    stats = pytest.importorskip("scipy.stats")
    ws = pytest.importorskip("statsmodels.stats.weightstats")
    smp = pytest.importorskip("statsmodels.stats.power")
    df, cmap = make(seed=3, G=40, effect=0.01)
    r = compare_clustered(df, baseline="A", clusters=cmap, margin=0.05, correction="none").row(0, named=True)
    d, se, m = r["delta"], r["se"], 0.05
    dof = cluster_df(np.array(list(Counter(cmap.values()).values()), float))   # unequal sizes: < G - 1
    assert dof < r["n_clusters"] - 1
    p = max(stats.t.sf((d + m) / se, dof), stats.t.cdf((d - m) / se, dof))
    assert r["pvalue_tost"] == pytest.approx(p, rel=1e-12)
    q = stats.t.ppf(0.95, dof)
    assert (r["tost_low"], r["tost_high"]) == pytest.approx((d - q * se, d + q * se), rel=1e-12)
    assert r["equivalent"] == (r["pvalue_tost"] < 0.05) == (-m < r["tost_low"] and r["tost_high"] < m)
    # MDD: the noncentral t with those df has power 0.8 at it
    crit, nc = stats.t.ppf(0.975, dof), r["mde"] / se
    assert stats.nct.sf(crit, dof, nc) + stats.nct.cdf(-crit, dof, nc) == pytest.approx(0.8, abs=1e-9)
    # one query per cluster: CR1 SE = sd / sqrt(n), so TOST is statsmodels' paired t TOST and the MDD its power
    x = np.array([_dicts(df, "B")[q] - _dicts(df, "A")[q] for q in sorted(cmap)])
    single = compare_clustered(df, baseline="A", clusters={q: q for q in cmap}, margin=m,
                               correction="none").row(0, named=True)
    assert single["se"] == pytest.approx(x.std(ddof=1) / np.sqrt(x.size), rel=1e-12)
    assert single["pvalue_tost"] == pytest.approx(ws.ttost_paired(x, np.zeros_like(x), -m, m)[0], rel=1e-10)
    assert smp.TTestPower().power(single["mde"] / x.std(ddof=1), x.size, 0.05) == pytest.approx(0.8, abs=1e-9)


def test_mcnemar_columns_equal_statsmodels_exact_on_binary_values():
    ct = pytest.importorskip("statsmodels.stats.contingency_tables")
    df, cmap = make(seed=5, G=60, binary=True, effect=0.05)
    r = compare_clustered(df, baseline="A", clusters=cmap).row(0, named=True)
    a, b = _dicts(df, "A"), _dicts(df, "B")
    qs = sorted(a)
    x, y = np.array([a[q] for q in qs], bool), np.array([b[q] for q in qs], bool)
    table = [[np.sum(x & y), np.sum(x & ~y)], [np.sum(~x & y), np.sum(~x & ~y)]]
    assert (r["mcnemar_b"], r["mcnemar_c"]) == (int(np.sum(x & ~y)), int(np.sum(~x & y)))
    assert r["mcnemar_pvalue"] == pytest.approx(ct.mcnemar(table, exact=True).pvalue, rel=1e-12)
    # non-binary measures get null McNemar columns
    df2, cmap2 = make(seed=5, G=30)
    assert compare_clustered(df2, baseline="A", clusters=cmap2)["mcnemar_pvalue"].is_null().all()


# ------------------------------------------------------------------ properties

def test_one_query_per_cluster_equals_plain_compare():
    df, _ = make(seed=11, G=60, systems=("A", "B", "C"), measures=("m1", "m2"), effect=0.01)
    single = {q: f"cl-{q}" for q in df["qid"].unique()}
    c = compare_clustered(df, baseline="A", clusters=single, n_resamples=3000, seed=4, interval="signflip")
    p = compare(df, baseline="A", n_resamples=3000, seed=4, interval="signflip")
    assert c["pvalue"].to_list() == p["pvalue"].to_list()
    assert c["pvalue_holm"].to_list() == p["pvalue_holm"].to_list()
    for k in ("delta", "ci_low", "ci_high", "se", "baseline_mean", "system_mean"):
        np.testing.assert_allclose(c[k].to_numpy(), p[k].to_numpy(), rtol=1e-12, atol=1e-15, err_msg=k)
    assert c["n_clusters"].to_list() == c["n_queries"].to_list() == p["n_queries"].to_list()
    assert c["verdict"].to_list() == p["verdict"].to_list()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), relabel=st.integers(0, 2 ** 31), G=st.integers(2, 30))
def test_relabelling_and_reordering_clusters_changes_nothing(seed, relabel, G):
    df, cmap = make(seed=seed, G=G, systems=("A", "B", "C"), measures=("m1", "m2"))
    rng = np.random.default_rng(relabel)
    labels = sorted(set(cmap.values()))
    new = dict(zip(labels, rng.permutation(10_000)[:len(labels)].tolist()))   # injective, other order/dtype
    cmap2 = {q: new[c] for q, c in cmap.items()}
    df_col = df.with_columns(pl.col("qid").replace_strict(cmap).alias("cluster"))
    df2 = df.with_columns(pl.col("qid").replace_strict(cmap2, return_dtype=pl.Int64).alias("cluster"))
    df2 = df2.sample(fraction=1.0, shuffle=True, seed=relabel % 1000)
    a = compare_clustered(df_col, baseline="A", n_resamples=500, margin=0.1)
    # row order follows order of appearance (as compare()); give it explicitly for the shuffled table
    b = compare_clustered(df2, baseline="A", systems=["B", "C"], measures=["m1", "m2"], n_resamples=500, margin=0.1)
    assert a.equals(b)   # bit for bit


def test_shared_stream_result_does_not_depend_on_other_comparisons_in_the_call():
    df, cmap = make(seed=2, G=30, systems=("A", "B", "C"), measures=("m1", "m2"))
    both = compare_clustered(df, baseline="A", clusters=cmap, n_resamples=2000)
    alone = compare_clustered(df, baseline="A", systems="C", measures="m2", clusters=cmap, n_resamples=2000)
    row = both.filter((pl.col("system") == "C") & (pl.col("measure") == "m2"))
    assert row["pvalue"][0] == alone["pvalue"][0]
    np.testing.assert_allclose(row.select("ci_low", "ci_high", "se").to_numpy(),
                               alone.select("ci_low", "ci_high", "se").to_numpy(), rtol=1e-12)


def test_clusters_counted_as_distinct_ids_and_cluster_column_or_table():
    df, _ = make(seed=1, G=4, max_size=1)
    qs = sorted(df["qid"].unique())
    cmap = dict(zip(qs, [0, 100, 100, 7]))
    r = compare_clustered(df, baseline="A", clusters=cmap)
    assert r["n_clusters"][0] == 3 and r["n_queries"][0] == 4
    table = pl.DataFrame({"qid": qs, "cluster": [0, 100, 100, 7]})
    col = df.with_columns(pl.col("qid").replace_strict(cmap, return_dtype=pl.Int64).alias("topic"))
    assert compare_clustered(df, baseline="A", clusters=table).equals(r)
    assert compare_clustered(col, baseline="A", clusters="topic").equals(r)


def test_key_columns_carried_through_and_clusters_per_dataset():
    d1, c1 = make(seed=1, G=22)
    d2, c2 = make(seed=2, G=25)
    df = pl.concat([d1.with_columns(pl.lit("x").alias("dataset")), d2.with_columns(pl.lit("y").alias("dataset"))])
    tab = pl.concat([pl.DataFrame({"dataset": "x", "qid": list(c1), "cluster": list(c1.values())}),
                     pl.DataFrame({"dataset": "y", "qid": list(c2), "cluster": list(c2.values())})])
    out = compare_clustered(df, baseline="A", clusters=tab)
    assert out["dataset"].to_list() == ["x", "y"]
    alone = compare_clustered(d2, baseline="A", clusters=c2)
    assert out["pvalue"][1] == alone["pvalue"][0] and out["n_clusters"].to_list() == [22, 25]


# ------------------------------------------------------------------ errors and warnings

def test_errors_name_the_problem():
    df, cmap = make(seed=0, G=5)
    q0 = sorted(cmap)[0]
    with pytest.raises(ValueError, match=f"query '{q0}'.*has no cluster"):
        compare_clustered(df, baseline="A", clusters={q: c for q, c in cmap.items() if q != q0})
    bad = df.with_columns(pl.when((pl.col("qid") == q0) & (pl.col("system") == "B")).then(pl.lit("zz"))
                          .otherwise(pl.col("qid").replace_strict(cmap)).alias("cluster"))
    with pytest.raises(ValueError, match=f"query '{q0}' is in more than one cluster"):
        compare_clustered(bad, baseline="A")
    with pytest.raises(SchemaError, match="no cluster column"):
        compare_clustered(df, baseline="A")
    with pytest.raises(InsufficientSampleError, match="at least 2 clusters"):
        compare_clustered(df, baseline="A", clusters={q: "one" for q in cmap})
    with pytest.raises(ValueError, match="margin"):
        compare_clustered(df, baseline="A", clusters=cmap, margin=0)


def test_a_cluster_table_mapping_a_query_twice_names_its_clusters():
    """It read "cluster table maps {'qid': '146187', 'cluster': 'x'} more than once", naming one cluster."""
    df, cmap = make(seed=0, G=10)
    q0 = sorted(cmap)[0]
    table = pl.DataFrame({"qid": list(cmap), "cluster": list(cmap.values())})
    twice = pl.concat([table, pl.DataFrame({"qid": [q0], "cluster": ["zz"]})])
    with pytest.raises(ValueError, match=f"maps qid '{q0}' to clusters '{cmap[q0]}' and 'zz': a query belongs to one"):
        compare_clustered(df, baseline="A", clusters=twice)
    with pytest.raises(ValueError, match=f"maps qid '{q0}' to cluster '{cmap[q0]}' 2 times: give each query one row"):
        compare_clustered(df, baseline="A", clusters=pl.concat([table, table.filter(pl.col("qid") == q0)]))


def test_few_clusters_warn_and_constant_deltas_are_degenerate_but_defined():
    df, cmap = make(seed=0, G=6)
    with pytest.warns(SmallSampleWarning, match="fewer than 8 clusters, the fewest for a calibrated cluster test"):
        compare_clustered(df, baseline="A", clusters=cmap)
    same = pl.concat([df.filter(pl.col("system") == "A"),
                      df.filter(pl.col("system") == "A").with_columns(pl.lit("B").alias("system"))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compare_clustered(same, baseline="A", clusters=cmap, margin=0.01).row(0, named=True)
    assert (r["delta"], r["se"], r["pvalue"]) == (0, 0, 1)
    # no spread: compare's interval for equal deltas, never the point [0, 0] (the measure 'm' has no range: the line)
    assert (r["ci_low"], r["ci_high"]) == compare(same, baseline="A").select("ci_low", "ci_high").row(0) == (-np.inf, np.inf)
    assert math.isnan(r["mde"])          # no spread seen: the detectable effect is unknown, not 0
    # nor is TOST's: a measure with no range bounds nothing, so no margin holds the interval
    assert r["verdict"] == "identical" and not r["equivalent"] and r["pvalue_tost"] == 1.0
    assert (r["tost_low"], r["tost_high"]) == (-np.inf, np.inf)


def test_cluster_layout_is_label_free():
    codes, members = cluster_layout(["b", "a", "c", "d"], [9, 1, 9, "x"])
    assert members == [["a"], ["b", "c"], ["d"]] and codes.tolist() == [1, 0, 1, 2]
    df, cmap = make(seed=0, G=3)
    frame, keys = attach_clusters(df, cmap)
    assert keys == [] and frame["cluster"].dtype == pl.String


# ------------------------------------------------------------------ real input: DL-MIA intents clustered by query

@pytest.mark.shared_data
def test_dl_mia_cluster_p_values_larger_and_intervals_wider(shared_data):
    import pairedframe as pf

    folder = shared_data / "dl_mia"
    runs = [str(folder / "runs" / "BM25 (intents as queries).res.gz"),
            str(folder / "runs" / "BM25 (intents with original queries).res.gz")]
    ev = pf.evaluate(runs, str(folder / "qrels.txt"), ["nDCG@10", "AP", "RR"])
    mapping = pl.read_csv(folder / "qid_iid_qrel.txt", separator=" ", has_header=False,
                          new_columns=["query", "intent", "doc", "rel"],
                          schema_overrides={"query": pl.String, "intent": pl.String})
    cmap = mapping.select(pl.col("intent").alias("qid"), pl.col("query").alias("cluster")).unique()
    base = "BM25 (intents with original queries).res"
    clustered = compare_clustered(ev, baseline=base, clusters=cmap, seed=1)
    plain = compare(ev, baseline=base, seed=1)
    assert clustered["n_queries"].to_list() == [69] * 3 and clustered["n_clusters"].to_list() == [24] * 3
    np.testing.assert_allclose(clustered["delta"].to_numpy(), plain["delta"].to_numpy(), rtol=1e-12)
    # what holds on this data (numbers in the issue report): clustering by original query widens every
    # interval and raises every p-value; nDCG@10 goes from p ~ 0.01 (plain) to ~ 0.04
    assert (clustered["pvalue"].to_numpy() > plain["pvalue"].to_numpy()).all()
    width_c = (clustered["ci_high"] - clustered["ci_low"]).to_numpy()
    width_p = (plain["ci_high"] - plain["ci_low"]).to_numpy()
    assert (width_c > width_p).all()
    assert (clustered["se"].to_numpy() > plain["se"].to_numpy()).all()


@pytest.mark.shared_data
def test_dl_mia_p_values_quoted_in_the_clusters_guide_are_the_computed_ones(shared_data):
    import re
    from pathlib import Path

    import pairedframe as pf

    folder = shared_data / "dl_mia"
    runs = [str(folder / "runs" / "BM25 (intents as queries).res.gz"),
            str(folder / "runs" / "BM25 (intents with original queries).res.gz")]
    ev = pf.evaluate(runs, str(folder / "qrels.txt"), ["nDCG@10"])
    mapping = pl.read_csv(folder / "qid_iid_qrel.txt", separator=" ", has_header=False,
                          new_columns=["query", "intent", "doc", "rel"],
                          schema_overrides={"query": pl.String, "intent": pl.String})
    cmap = mapping.select(pl.col("intent").alias("qid"), pl.col("query").alias("cluster")).unique()
    base = "BM25 (intents with original queries).res"
    guide = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "clusters.md").read_text(encoding="utf-8")
    quoted = re.search(r"the plain nDCG@10 p-value is (0\.\d+) and the cluster one\s+(0\.\d+) \(both at the "
                       r"default seed", guide)
    assert quoted is not None
    plain = compare(ev, baseline=base)["pvalue"][0]
    clustered = compare_clustered(ev, baseline=base, clusters=cmap)["pvalue"][0]
    assert quoted.groups() == (f"{plain:.3f}", f"{clustered:.3f}")


def test_too_few_clusters_for_the_exact_test_give_an_infinite_mde_as_compare_does():
    # G = 4 clusters: the smallest two-sided exact p is 2/2^4 = 0.125 > 0.05, whatever the effect.
    df, cmap = make(seed=3, G=4, effect=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        row = compare_clustered(df, baseline="A", clusters=cmap, n_resamples=1000, seed=0).row(0, named=True)
        one_sided = compare_clustered(df, baseline="A", clusters=cmap, n_resamples=1000, seed=0,
                                      alternative="greater").row(0, named=True)
        wide = make(seed=3, G=6, effect=0.5)  # 2/2^6 = 0.031 < 0.05: the test can reject
        enough = compare_clustered(wide[0], baseline="A", clusters=wide[1], n_resamples=1000, seed=0).row(0, named=True)
    assert row["exact"] and row["pvalue"] >= 0.125 and row["mde"] == float("inf")
    assert row["verdict"] == "inconclusive"
    assert one_sided["exact"] and one_sided["mde"] == float("inf")  # 1/2^4 = 0.0625 > 0.05
    assert enough["exact"] and np.isfinite(enough["mde"])


def test_a_precise_null_within_the_margin_is_equivalent_not_inconclusive():
    """The statistician's repro: 30 singleton clusters, deltas N(0, 0.01), margin 0.05: TOST
    establishes equivalence (p ~ 1e-24), so the verdict says so (as analyze does)."""
    rng = np.random.default_rng(0)
    d = rng.normal(0, 0.01, 30)
    qids = [f"q{i:02d}" for i in range(30)]
    df = pl.DataFrame({"system": ["A"] * 30 + ["B"] * 30, "qid": qids * 2, "measure": "m",
                       "value": np.concatenate([np.full(30, 0.5), 0.5 + d])})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compare_clustered(df, baseline="A", clusters={q: q for q in qids}, margin=0.05).row(0, named=True)
        plain = compare_clustered(df, baseline="A", clusters={q: q for q in qids}).row(0, named=True)
    assert r["equivalent"] and r["pvalue_tost"] < 1e-10
    assert r["verdict"] == "equivalent" and "TOST" in r["verdict_note"]
    assert plain["verdict"] == "inconclusive"         # without a margin nothing says "no difference"


def test_unreachable_advice_for_clusters_names_no_missing_option():
    """compare_clustered has no test= argument: its advice must not offer test='t'."""
    qids = [f"q{i}" for i in range(8)]
    df = pl.DataFrame({"system": ["A"] * 8 + ["B"] * 8, "qid": qids * 2, "measure": "m",
                       "value": [0.1 * i for i in range(8)] + [0.1 * i + 0.05 + 0.01 * (i % 3) for i in range(8)]})
    with pytest.warns(UserWarning, match="no comparison can be significant") as caught:
        compare_clustered(df, baseline="A", clusters={q: f"c{int(q[1:]) // 2}" for q in qids})
    text = " ".join(str(w.message) for w in caught)
    assert "use more clusters" in text and "test='t'" not in text


def test_note_of_an_equivalent_row_names_the_final_verdict():
    """TOST turns a non-significant row 'equivalent'; the note must not still call it 'inconclusive'."""
    rows = [("A", f"q{i}", "m", 0.5) for i in range(6)] + [("B", f"q{i}", "m", 0.5 + 0.003 + 0.001 * i) for i in range(6)]
    df = pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compare_clustered(df, baseline="A", clusters={f"q{i}": f"c{i // 2}" for i in range(6)},
                              margin=0.05).row(0, named=True)
    assert r["verdict"] == "equivalent"
    assert "the verdict is 'inconclusive'" not in r["verdict_note"] and "the verdict is 'equivalent'" in r["verdict_note"]


def test_zero_spread_between_clusters_gives_no_certainty():
    """Equal cluster sums (or constant deltas) leave no spread: the interval is never a point (compare's
    range-based interval over G clusters; the whole line for a measure with no known range), and TOST's
    interval is the same at 90 %, its p the one that interval inverts (1 with no known range), never 0."""
    df = pl.DataFrame({"system": ["A"] * 4 + ["B"] * 4, "qid": ["a", "b", "c", "d"] * 2, "measure": "m",
                       "value": [0.0] * 4 + [0.30, 0.31, 0.29, 0.32]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compare_clustered(df, baseline="A", clusters={"a": 1, "b": 1, "c": 2, "d": 2}, margin=0.5).row(0, named=True)
    assert r["se"] == 0 and (r["ci_low"], r["ci_high"]) == (-np.inf, np.inf)       # G = 2: 2/4 >= 0.05
    assert r["pvalue_tost"] == 1.0 and not r["equivalent"]
    n = 12
    const = pl.DataFrame({"system": ["A"] * n + ["B"] * n, "qid": [f"q{i}" for i in range(n)] * 2, "measure": "m",
                          "value": [0.0] * n + [0.01] * n})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compare_clustered(const, baseline="A", clusters={f"q{i}": i // 2 for i in range(n)},
                              margin=0.05).row(0, named=True)
    assert (r["ci_low"], r["ci_high"]) == (-np.inf, np.inf) and r["pvalue_tost"] == 1.0 and not r["equivalent"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ap = compare_clustered(const.with_columns(pl.lit("AP").alias("measure")), baseline="A",
                               clusters={f"q{i}": i // 2 for i in range(n)}).row(0, named=True)
    share = 1 - 0.025 ** (1 / 6)                 # Clopper-Pearson's bound for 6 equal cluster deltas in [-1, 1]
    assert (ap["ci_low"], ap["ci_high"]) == pytest.approx((0.01 - share * 1.01, 0.01 + share * 0.99), rel=1e-12)


def test_equal_cluster_sums_up_to_float_noise_are_zero_spread():
    """Cluster sums 0.3 up to rounding gave se 1.8e-17 and TOST p 5e-47 (newcomer round 3)."""
    deltas = [0.1, 0.2, 0.3, 0.0, 0.2, 0.1, 0.05, 0.25]
    frame = pl.DataFrame({"system": ["A"] * 8 + ["B"] * 8, "qid": [f"q{i}" for i in range(8)] * 2, "measure": "m",
                          "value": [0.0] * 8 + deltas})
    cmap = {f"q{i}": i // 2 for i in range(8)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compare_clustered(frame, baseline="A", clusters=cmap, margin=0.2).row(0, named=True)
        duck = compare_clustered(__import__("duckdb").from_arrow(frame.to_arrow()), baseline="A", clusters=cmap,
                                 margin=0.2).row(0, named=True)
    for row in (r, duck):
        assert row["se"] == 0 and (row["ci_low"], row["ci_high"]) == (-np.inf, np.inf)
        assert row["pvalue_tost"] == 1.0 and row["verdict"] != "equivalent" and not math.isfinite(row["mde"])


def _three_near_equal_systems(n: int = 30) -> tuple[pl.DataFrame, float]:
    """Baseline A and systems B, C, D whose deltas are the same standardised noise (mean 0, sd 0.02),
    and the margin at which each row's TOST p-value is 0.03."""
    from scipy.special import stdtrit

    rng = np.random.default_rng(7)
    z = rng.normal(size=n)
    d = (z - z.mean()) / z.std(ddof=1) * 0.02
    qids = [f"q{i:02d}" for i in range(n)]
    frames = [pl.DataFrame({"system": "A", "qid": qids, "measure": "m", "value": np.full(n, 0.5)})]
    frames += [pl.DataFrame({"system": s, "qid": qids, "measure": "m", "value": 0.5 + d}) for s in "BCD"]
    return pl.concat(frames), float(stdtrit(n - 1, 0.97) * 0.02 / math.sqrt(n))


def test_equivalence_is_adjusted_in_the_family_as_the_difference_test_against_statsmodels():
    mt = pytest.importorskip("statsmodels.stats.multitest")
    df, margin = _three_near_equal_systems()
    clusters = {q: q for q in df["qid"].unique().to_list()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = {v: compare_clustered(df, baseline="A", clusters=clusters, margin=margin, correction=v)
               for v in ("none", "holm", "bh")}
    raw = out["holm"]["pvalue_tost"].to_numpy()
    assert raw == pytest.approx([0.03] * 3, rel=1e-9)
    np.testing.assert_allclose(out["holm"]["pvalue_tost_holm"].to_numpy(),
                               mt.multipletests(raw, method="holm")[1], rtol=1e-12)
    np.testing.assert_allclose(out["holm"]["pvalue_tost_bh"].to_numpy(),
                               mt.multipletests(raw, method="fdr_bh")[1], rtol=1e-12)
    # each 90 % interval lies inside the margin, but three claims at 0.03 each are not 5 % after Holm
    holm_rows = out["holm"]
    assert (holm_rows["tost_high"] < margin).all() and not holm_rows["equivalent"].any()
    assert holm_rows["verdict"].to_list() == ["inconclusive"] * 3
    assert all("pvalue_tost_holm" in note and "not equivalent" in note for note in holm_rows["verdict_note"])
    for v in ("none", "bh"):   # unadjusted, and BH (0.03 * 3 / 3): each claim passes
        assert out[v]["equivalent"].all() and out[v]["verdict"].to_list() == ["equivalent"] * 3
    assert "pvalue_tost_bh 0.03 < 0.05" in out["bh"]["verdict_note"][0]


def test_a_lone_comparison_is_equivalent_as_before_since_its_family_is_itself():
    df, margin = _three_near_equal_systems()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compare_clustered(df, baseline="A", systems="B", clusters={q: q for q in df["qid"].unique().to_list()},
                              margin=margin).row(0, named=True)
    assert r["pvalue_tost"] == r["pvalue_tost_holm"] == r["pvalue_tost_bh"] and r["equivalent"]


def test_cluster_ids_differing_by_leading_zeros_are_named_in_the_error():
    """A clusters mapping keyed 1..6 against queries 001..006: the error names the near misses, on polars
    and on a DuckDB relation."""
    import duckdb

    qids = [f"{i:03d}" for i in range(1, 7)]
    df = pl.DataFrame({"system": ["A"] * 6 + ["B"] * 6, "qid": qids * 2, "measure": "m",
                       "value": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.2, 0.2, 0.5, 0.3, 0.9, 0.7]})
    cmap = {str(i): str(i % 3) for i in range(1, 7)}
    for table in (df, duckdb.sql("SELECT * FROM df")):
        with pytest.raises(ValueError, match=r"has no cluster.*6 query id\(s\) of the per-query table match ids of "
                                             r"the clusters except for leading zeros.*'001' ~ '1'"):
            compare_clustered(table, baseline="A", clusters=cmap, n_resamples=99)


def test_cluster_near_miss_examples_are_the_smallest_ids_on_a_duckdb_relation():
    """The error names the first query without a cluster and the first near misses in id order, whatever
    order DuckDB's parallel scan returns the rows in (the segments' error quoted DISTINCT's hash order)."""
    import duckdb

    qids = [f"{i:05d}" for i in range(1, 3001)]
    df = pl.DataFrame({"system": ["A"] * 3000 + ["B"] * 3000, "qid": qids * 2, "measure": "m",
                       "value": [i % 7 / 10 for i in range(6000)]})
    cmap = {str(i): str(i % 3) for i in range(1, 3001)}
    with pytest.raises(ValueError, match=r"query '00001' \(system 'A', measure 'm'\) has no cluster.*"
                                         r"\('00001' ~ '1', '00002' ~ '2', '00003' ~ '3', \.\.\.\)"):
        compare_clustered(duckdb.from_arrow(df.to_arrow()), baseline="A", clusters=cmap, n_resamples=99)


@pytest.mark.filterwarnings("ignore")
def test_duckdb_clustered_rows_keep_the_datasets_order_of_appearance_like_polars(duckdb_relation):
    """With clusters= the DuckDB path joined the mapping before numbering the rows, and a hash join does not
    keep their order: two datasets came out y before x in about one call of twenty (the conformance case
    two_datasets). The rows now come in the polars path's order every time."""
    from tests.conformance.doors import CLUSTERS
    from tests.conformance.inputs import PER_QUERY

    frame = pl.concat([PER_QUERY.with_columns(pl.lit("x").alias("dataset")),
                       PER_QUERY.with_columns(pl.lit("y").alias("dataset"), pl.col("value") * 0.5)])
    want = compare_clustered(frame, baseline="a", clusters=CLUSTERS, n_resamples=200, seed=0)["dataset"].to_list()
    assert want[:2] == ["x", "y"]
    for _ in range(60):
        got = compare_clustered(duckdb_relation(frame), baseline="a", clusters=CLUSTERS,
                                n_resamples=200, seed=0)
        assert got["dataset"].to_list() == want


@pytest.mark.parametrize("margin", [0.02, 0.05])
def test_tost_of_equal_deltas_inverts_the_range_based_interval_against_constant_sample_interval(margin):
    """G equal cluster deltas (here two tied runs on 100 clusters of nDCG@10): TOST was p = 1 / 2**G with the
    point [0, 0], "equivalent" at any margin.  Now its interval is compare's range-based one at 90 %, and its
    p-value the level at which that interval's end reaches the margin (the interval inverts it)."""
    from pairedframe.stats.value_range import constant_sample_interval

    G = 100
    v = np.random.default_rng(3).uniform(size=G)
    df = pl.DataFrame({"system": ["A"] * G + ["B"] * G, "qid": [f"q{i}" for i in range(G)] * 2,
                       "measure": "nDCG@10", "value": np.concatenate([v, v])})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = compare_clustered(df, baseline="A", clusters={f"q{i}": i for i in range(G)}, margin=margin).row(0, named=True)
    low, high = constant_sample_interval([0.0], G, -1.0, 1.0, confidence_level=0.90)
    assert (r["tost_low"], r["tost_high"]) == pytest.approx((low[0], high[0]), rel=1e-12)
    assert r["equivalent"] == (high[0] < margin) == (r["pvalue_tost"] < 0.05) == (margin == 0.05)
    # at the level 1 - 2 p the interval ends on the margin
    _, at_p = constant_sample_interval([0.0], G, -1.0, 1.0, confidence_level=1 - 2 * r["pvalue_tost"])
    assert at_p[0] == pytest.approx(margin, rel=1e-9)
    assert r["verdict"] == "identical"


def _cancelling_clusters(G: int = 20, seed: int = 0) -> tuple[pl.DataFrame, dict[str, str]]:
    """Two runs with the values 0.1, 0.2, 0.7 in each cluster of 3 queries, in other query orders: every
    query of most clusters differs, every cluster's summed delta is 0 or float noise (+-2.8e-17)."""
    import itertools
    perms = list(itertools.permutations([0.1, 0.2, 0.7]))
    rng = np.random.default_rng(seed)
    rows, clusters = [], {}
    for g in range(G):
        a, b = perms[rng.integers(6)], perms[rng.integers(6)]
        for j in range(3):
            rows += [("A", f"q{g}-{j}", "AP", a[j]), ("B", f"q{g}-{j}", "AP", b[j])]
            clusters[f"q{g}-{j}"] = f"c{g}"
    return pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row"), clusters


@pytest.mark.parametrize("n_resamples", [10_000, 1 << 20])       # Monte Carlo and all 2**20 patterns
def test_cluster_sums_of_float_noise_get_p_1_against_compare_on_the_cluster_means(n_resamples, duckdb_relation):
    """Cluster sums that cancel to float noise (0.1 + 0.2 + 0.7 against 0.7 + 0.1 + 0.2) got the zero-spread
    interval but p = 0.76 (0.75 exact) from sign-flipping the noise.  Now p = 1, compare's answer for the
    same G cluster means (equal up to noise: all-zero deltas), and the interval is compare's range-based one;
    the public cluster_sign_flip_test and the DuckDB path agree."""
    pq, clusters = _cancelling_clusters()
    wide = pq.pivot(on="system", index="qid", values="value")
    d = (wide["B"] - wide["A"]).to_numpy()
    cl = np.array([clusters[q] for q in wide["qid"]])
    sums = np.array([d[cl == c].sum() for c in np.unique(cl)])
    assert np.count_nonzero(d) > 30 and np.any(sums != 0) and np.all(np.abs(sums) < 1e-15)   # noise, not 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = compare_clustered(pq, baseline="A", clusters=clusters, n_resamples=n_resamples).row(0, named=True)
        means = pq.join(pl.DataFrame({"qid": list(clusters), "cluster": list(clusters.values())}), on="qid").group_by(
            "system", "cluster", "measure").agg(pl.col("value").mean()).rename({"cluster": "qid"})
        want = compare(means, baseline="A", n_resamples=n_resamples).row(0, named=True)
        engine = compare_clustered(duckdb_relation(pq), baseline="A", clusters=clusters,
                                   n_resamples=n_resamples).row(0, named=True)
    assert got["se"] == 0.0 and got["pvalue"] == want["pvalue"] == 1.0
    assert (got["ci_low"], got["ci_high"]) == pytest.approx((want["ci_low"], want["ci_high"]), rel=1e-12)
    # compare calls the cluster means "identical" (all-zero deltas); the queries are not, and no sign pattern
    # of the sums can reach the level: "inconclusive", as compare says where its test cannot reach the level
    assert got["ci_low"] < 0 < got["ci_high"] and (got["verdict"], got["mde"]) == ("inconclusive", math.inf)
    assert engine["pvalue"] == 1.0 and engine["se"] == 0.0
    assert cluster_sign_flip_test(d, cl, n_resamples=n_resamples).pvalue == 1.0


def test_interval_none_is_the_default_edgeworth_interval_as_in_compare():
    df, cmap = make(seed=3, G=12)
    default = compare_clustered(df, baseline="A", clusters=cmap, n_resamples=99)
    none = compare_clustered(df, baseline="A", clusters=cmap, n_resamples=99, interval=None)
    assert none.equals(default)
    assert none["ci_low"].to_list() == compare_clustered(df, baseline="A", clusters=cmap, n_resamples=99,
                                                         interval="edgeworth")["ci_low"].to_list()


def _brief_cancelling_clusters(baseline, system):
    """30 queries in 10 clusters of 3 whose deltas cancel within each cluster: the table and the clusters."""
    q = [f"q{i:02d}" for i in range(30)]
    table = pl.DataFrame({"system": ["A"] * 30 + ["B"] * 30, "qid": q * 2, "measure": "nDCG@10",
                          "value": baseline * 10 + system * 10})
    return table, {x: f"c{i // 3}" for i, x in enumerate(q)}


_NOISE = ([0.1, 0.2, 0.7], [0.7, 0.1, 0.2])      # cluster sums 0 up to float noise (about 1e-17)
_EXACT = ([0.25, 0.5, 0.75], [0.75, 0.25, 0.5])  # cluster sums exactly 0


def test_cluster_sums_cancelling_to_float_noise_give_the_row_of_exactly_zero_sums():
    rows = []
    for pair in (_NOISE, _EXACT):
        table, clusters = _brief_cancelling_clusters(*pair)
        rows.append(compare_clustered(table, baseline="A", clusters=clusters, margin=0.02).row(0, named=True))
    noise, exact = rows
    assert noise["delta"] == 0.0
    same = ("delta", "ci_low", "ci_high", "se", "pvalue", "mde", "verdict", "pvalue_tost", "tost_low", "equivalent")
    assert {c: noise[c] for c in same} == {c: exact[c] for c in same}
    assert (noise["pvalue"], noise["mde"], noise["verdict"]) == (1.0, math.inf, "inconclusive")


def test_note_of_cancelling_cluster_sums_says_the_cluster_means_are_equal_and_the_queries_spread():
    table, clusters = _brief_cancelling_clusters(*_NOISE)
    row = compare_clustered(table, baseline="A", clusters=clusters).row(0, named=True)
    assert row["verdict_note"].startswith("every cluster's mean delta is 0 up to float noise (no spread between the "
                                          "10 clusters), though the per-query deltas range from -0.5 to +0.6: ")
    assert "every delta equals" not in row["verdict_note"]
    assert "all 10 clusters have a zero summed delta" in row["verdict_note"]
    assert "the exact sign-flip p is exactly 1" in row["verdict_note"]


def test_note_of_equal_deltas_in_clusters_still_says_every_delta_equals():
    df, cmap = make(seed=1, G=6)
    a = df.filter(pl.col("system") == "A")
    flat = pl.concat([a, a.with_columns(pl.lit("B").alias("system"), pl.col("value") + 0.125)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = compare_clustered(flat, baseline="A", clusters=cmap).row(0, named=True)
    assert row["verdict_note"].startswith("every delta equals +0.125 (no spread)")


def test_cancelling_cluster_sums_give_the_in_memory_row_on_duckdb():
    duckdb = pytest.importorskip("duckdb")
    table, clusters = _brief_cancelling_clusters(*_NOISE)
    with_cluster = table.with_columns(pl.col("qid").replace_strict(clusters).alias("cluster"))
    in_memory = compare_clustered(with_cluster, baseline="A").row(0, named=True)
    in_engine = compare_clustered(duckdb.connect().from_arrow(with_cluster.to_arrow()), baseline="A").row(0, named=True)
    said = ("delta", "pvalue", "mde", "verdict", "verdict_note")
    assert {c: in_engine[c] for c in said} == {c: in_memory[c] for c in said}
