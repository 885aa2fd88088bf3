"""ppi_compare / ppi_compare_segments / evaluate_judgment_sets: ppi_py oracle, lam = 0 property, errors."""

from __future__ import annotations

import warnings
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest

from pairedframe.comparison.ppi import ppi_compare, ppi_compare_segments
from pairedframe.evaluation import evaluate_judgment_sets
from pairedframe.errors import EmptyResultError, SchemaError, SmallSampleWarning


def _values(seed=0, n=200, n_gold=40):
    rng = np.random.default_rng(seed)
    qids = [f"q{i}" for i in range(n)]
    ga = rng.uniform(size=n)
    gb = np.clip(ga + rng.normal(0.03, 0.1, n), 0, 1)
    pa = np.clip(ga + rng.normal(0.1, 0.05, n), 0, 1)      # biased, correlated proxy
    pb = np.clip(gb + rng.normal(0.12, 0.05, n), 0, 1)
    gold_q = sorted(rng.choice(n, n_gold, replace=False))
    proxy_a = dict(zip(qids, pa))
    proxy_b = dict(zip(qids, pb))
    gold_a = {qids[i]: ga[i] for i in gold_q}
    gold_b = {qids[i]: gb[i] for i in gold_q}
    return proxy_a, proxy_b, gold_a, gold_b


@pytest.mark.parametrize("lam", [None, 0.0, 0.5, 1.0])
def test_against_ppi_py_on_differences(lam):
    ppi = pytest.importorskip("ppi_py")
    pa, pb, ga, gb = _values(seed=1)
    res = ppi_compare(pa, pb, ga, gb, lam=lam, confidence_level=0.9, ddof=0, method="z")
    gq = sorted(ga)
    uq = sorted(set(pa) - set(ga))
    y = np.array([gb[q] - ga[q] for q in gq])
    fy = np.array([pb[q] - pa[q] for q in gq])
    fu = np.array([pb[q] - pa[q] for q in uq])
    lo, hi = ppi.ppi_mean_ci(y, fy, fu, alpha=0.1, lam=lam)           # ppi_py: ddof 0
    est = ppi.ppi_mean_pointestimate(y, fy, fu, lam=lam)
    assert res.confidence_interval.low == pytest.approx(float(np.ravel(lo)[0]), rel=1e-10, abs=1e-12)
    assert res.confidence_interval.high == pytest.approx(float(np.ravel(hi)[0]), rel=1e-10, abs=1e-12)
    assert res.statistic == pytest.approx(float(np.ravel(est)[0]), rel=1e-10, abs=1e-12)
    assert (res.n_gold, res.n_proxy) == (40, 160)
    assert 0.0 <= res.lam <= 1.0


def test_lambda_zero_is_classical_paired_interval_on_gold():
    stats = pytest.importorskip("scipy.stats")
    pa, pb, ga, gb = _values(seed=2)
    d = np.array([gb[q] - ga[q] for q in ga])
    z = ppi_compare(pa, pb, ga, gb, lam=0, confidence_level=0.95, method="z")
    half = NormalDist().inv_cdf(0.975) * d.std(ddof=1) / np.sqrt(d.size)
    assert tuple(z.confidence_interval) == pytest.approx((d.mean() - half, d.mean() + half), rel=1e-12)
    res = ppi_compare(pa, pb, ga, gb, lam=0, confidence_level=0.95, method="jackknife-t")      # the paired t interval
    half = stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size)
    assert res.statistic == pytest.approx(d.mean(), rel=1e-12)
    assert res.confidence_interval.low == pytest.approx(d.mean() - half, rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(d.mean() + half, rel=1e-12)
    from tests.reference.stats_reference import edgeworth_t_quantile_loop

    default = ppi_compare(pa, pb, ga, gb, lam=0, confidence_level=0.95)    # default: its quantile skew-corrected
    q = edgeworth_t_quantile_loop(list(d), d.size - 1, 0.95)
    assert tuple(default.confidence_interval) == pytest.approx(
        (d.mean() - q * d.std(ddof=1) / np.sqrt(d.size), d.mean() + q * d.std(ddof=1) / np.sqrt(d.size)), rel=1e-12)
    tuned = ppi_compare(pa, pb, ga, gb)
    assert tuned.lam > 0.3                                            # correlated proxy is used
    width = lambda r: r.confidence_interval.high - r.confidence_interval.low  # noqa: E731
    assert width(tuned) < width(res)


def test_accepted_shapes_agree():
    pd = pytest.importorskip("pandas")
    pa, pb, ga, gb = _values(seed=3)
    ref = ppi_compare(pa, pb, ga, gb)
    as_frame = lambda m: pl.DataFrame({"qid": list(m), "value": list(m.values())})  # noqa: E731
    as_series = lambda m: pd.Series(m)  # noqa: E731
    r1 = ppi_compare(as_frame(pa), as_frame(pb), as_frame(ga), as_frame(gb))
    r2 = ppi_compare(as_series(pa), as_series(pb), as_series(ga), as_series(gb))
    assert r1 == ref and r2 == ref


def test_errors_and_degenerate_cases():
    pa, pb, ga, gb = _values(seed=4)
    q = next(iter(ga))
    with pytest.raises(SchemaError, match="no proxy"):
        ppi_compare({k: v for k, v in pa.items() if k != q}, {k: v for k, v in pb.items() if k != q}, ga, gb)
    with pytest.raises(SchemaError, match="different queries"):
        ppi_compare(pa, {k: v for k, v in pb.items() if k != q}, ga, gb)
    # only one proxy-only query: lam = 0 even when tuned
    keep = list(ga) + [next(k for k in pa if k not in ga)]
    sub = lambda m: {k: m[k] for k in keep}  # noqa: E731
    r = ppi_compare(sub(pa), sub(pb), ga, gb)
    assert r.lam == 0.0 and r.n_proxy == 1
    with pytest.warns(UserWarning, match="lam = 0"):
        assert ppi_compare(sub(pa), sub(pb), ga, gb, lam=1.0).lam == 0.0
    few = dict(list(ga.items())[:10])
    with pytest.warns(SmallSampleWarning, match="gold"):
        ppi_compare(pa, pb, few, {k: gb[k] for k in few}, method="z")


def _judgment_table(pa, pb, ga, gb) -> pl.DataFrame:
    """Systems A and B under the proxy and gold judgments, one row per (system, judgments, qid)."""
    rows = []
    for j, (a, b) in {"proxy": (pa, pb), "gold": (ga, gb)}.items():
        for s, m in (("A", a), ("B", b)):
            rows += [{"system": s, "judgments": j, "qid": q, "measure": "m", "value": v} for q, v in m.items()]
    return pl.DataFrame(rows)


def test_segments_table_and_gold_only_columns():
    pa, pb, ga, gb = _values(seed=5, n=300, n_gold=120)
    pq = _judgment_table(pa, pb, ga, gb)
    segs = pl.DataFrame({"qid": list(pa), "segment_set": "half", "segment": [str(int(q[1:]) % 2) for q in pa]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        res = ppi_compare_segments(pq, baseline="A", segments=segs)
        whole = ppi_compare_segments(pq, baseline="A")
    assert res.height == 2 and whole.height == 1
    for row in res.iter_rows(named=True):
        qs = [q for q in pa if str(int(q[1:]) % 2) == row["segment"]]
        direct = ppi_compare({q: pa[q] for q in qs}, {q: pb[q] for q in qs},
                             {q: ga[q] for q in qs if q in ga}, {q: gb[q] for q in qs if q in gb})
        assert row["delta"] == pytest.approx(direct.statistic, rel=1e-12)
        assert row["lam"] == pytest.approx(direct.lam, rel=1e-12)
        g0 = ppi_compare({q: pa[q] for q in qs}, {q: pb[q] for q in qs},
                         {q: ga[q] for q in qs if q in ga}, {q: gb[q] for q in qs if q in gb}, lam=0)
        assert row["gold_only_ci_low"] == pytest.approx(g0.confidence_interval.low, rel=1e-12)
    w = whole.row(0, named=True)
    direct = ppi_compare(pa, pb, ga, gb)
    assert w["ci_low"] == pytest.approx(direct.confidence_interval.low, rel=1e-12)
    assert w["n_gold"] == 120 and w["n_proxy"] == 180


def test_ppi_segments_refuse_geometric_means_and_counts_like_compare_not_ap_under_gmap_name():
    """GMAP's per-query values are AP's: a PPI mean delta of them would be AP's comparison printed as GMAP's.
    Named, GMAP and the counts are refused as pf.compare refuses them; every measure of a table asked for
    leaves them out with a warning naming them."""
    from pairedframe.errors import PartlyEmptyWarning
    pa, pb, ga, gb = _values(seed=5, n=60, n_gold=40)
    rows = []
    for j, (a, b) in {"proxy": (pa, pb), "gold": (ga, gb)}.items():
        for s, m in (("A", a), ("B", b)):
            for measure in ("AP", "GMAP", "NumRet"):
                rows += [{"system": s, "judgments": j, "qid": q, "measure": measure, "value": v} for q, v in m.items()]
    pq = pl.DataFrame(rows)
    for named, why in (("GMAP", "geometric mean"), ("NumRet", "describes what a run returned")):
        with pytest.raises(ValueError, match=rf"`measures`: {named} .*{why}"):
            ppi_compare_segments(pq, baseline="A", measures=[named, "AP"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        with pytest.warns(PartlyEmptyWarning, match="left out of the comparison: GMAP"):
            every = ppi_compare_segments(pq, baseline="A")
    assert every["measure"].to_list() == ["AP"]


def test_evaluate_judgment_sets_one_liner(tmp_path):
    run = pl.DataFrame({"system": "r", "qid": ["1", "1", "2", "2"], "docno": ["a", "b", "a", "c"],
                        "score": [2.0, 1.0, 2.0, 1.0]})
    proxy = pl.DataFrame({"qid": ["1", "1", "2"], "docno": ["a", "b", "c"], "rel": [1, 1, 1]})
    gold = pl.DataFrame({"qid": ["1", "2"], "docno": ["b", "a"], "rel": [1, 1]})
    js = evaluate_judgment_sets(run, {"proxy": proxy, "gold": gold}, "P@1")
    pq = js.per_query
    assert pq.columns == ["system", "judgments", "qid", "measure", "value"]
    got = {(r["judgments"], r["qid"]): r["value"] for r in pq.iter_rows(named=True)}
    assert got == {("proxy", "1"): 1.0, ("proxy", "2"): 0.0, ("gold", "1"): 0.0, ("gold", "2"): 1.0}
    assert js.summary().rows() == [("r", "proxy", "P@1", 0.5, 2), ("r", "gold", "P@1", 0.5, 2)]
    assert js.names == ["proxy", "gold"] and js.settings.rel_level == 1
    assert js.evaluation("gold").per_query["value"].to_list() == [0.0, 1.0]
    assert js.values("r", "gold", "P@1") == {"1": 0.0, "2": 1.0}
    with pytest.raises(ValueError, match="no values"):
        js.values("nobody", "gold", "P@1")


def test_judgment_set_names_must_match(tmp_path):
    run = pl.DataFrame({"system": ["a", "a", "b", "b"], "qid": ["1", "2", "1", "2"], "docno": ["x", "x", "x", "x"],
                        "score": [1.0, 1.0, 1.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["1", "2"], "docno": ["x", "x"], "rel": [1, 0]})
    js = evaluate_judgment_sets(run, {"llm": qrels, "nist": qrels}, "P@1")
    with pytest.raises(ValueError, match=r"proxy='proxy', gold='gold' not among the judgment sets \['llm', 'nist'\]"):
        ppi_compare_segments(js, baseline="a")
    with pytest.raises(ValueError, match="not present"):
        js.evaluation("gold")


def _equal_gold_deltas(n_gold=15, delta=0.1):
    rng = np.random.default_rng(0)
    qs = [f"q{i}" for i in range(40)]
    pa = {q: rng.uniform() for q in qs}
    pb = {q: pa[q] + rng.normal(0.05, 0.1) for q in qs}
    g = qs[:n_gold]
    return pa, pb, {q: 0.3 for q in g}, {q: 0.3 + delta for q in g}


@pytest.mark.parametrize("method", ["jackknife-edgeworth", "jackknife-t", "t", "z"])
@pytest.mark.parametrize("delta", [0.1, 0.0])
def test_ppi_equal_gold_deltas_pvalue_against_scipy_permutation_test(method, delta):
    """Equal gold deltas give no standard error: lam is exactly 0, p the exact sign-flip test's, no point."""
    stats = pytest.importorskip("scipy.stats")
    pa, pb, ga, gb = _equal_gold_deltas(delta=delta)
    with pytest.warns(SmallSampleWarning, match="no spread"):
        r = ppi_compare(pa, pb, ga, gb, method=method)
    d = np.array([gb[q] - ga[q] for q in ga])
    ref = stats.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=np.inf).pvalue
    assert r.lam == 0.0 and r.standard_error == 0.0
    assert r.pvalue == pytest.approx(ref, rel=1e-12)
    # plain dicts: no measure, so no range bounds the mean of equal deltas
    assert tuple(r.confidence_interval) == (-np.inf, np.inf)


def test_ppi_segments_equal_gold_deltas_interval_against_clopper_pearson():
    """A [0, 1] measure: n equal gold deltas c give compare's range interval, whose share of the range
    beyond c is the Clopper-Pearson bound of n equal outcomes -- the interval pf.compare gives."""
    stats = pytest.importorskip("scipy.stats")
    pa, pb, ga, gb = _equal_gold_deltas(delta=0.1)
    rows = []
    for j, (a, b) in {"proxy": (pa, pb), "gold": (ga, gb)}.items():
        for s, m in (("A", a), ("B", b)):
            rows += [{"system": s, "judgments": j, "qid": q, "measure": "nDCG@10", "value": v} for q, v in m.items()]
    with pytest.warns(SmallSampleWarning, match="without spread"):
        res = ppi_compare_segments(pl.DataFrame(rows), baseline="A").row(0, named=True)
    n = len(ga)
    share = stats.binomtest(0, n).proportion_ci(0.95, method="exact").high
    assert res["ci_low"] == pytest.approx(0.1 - share * 1.1, rel=1e-9)
    assert res["ci_high"] == pytest.approx(0.1 + share * 0.9, rel=1e-9)
    assert (res["gold_only_ci_low"], res["gold_only_ci_high"]) == (res["ci_low"], res["ci_high"])
    assert res["lam"] == 0.0 and "no spread" in res["warning"]
    gold = pl.DataFrame([r for r in rows if r["judgments"] == "gold"]).drop("judgments")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = __import__("pairedframe").compare(gold, baseline="A", test="t").row(0, named=True)
    assert (cmp["ci_low"], cmp["ci_high"]) == pytest.approx((res["ci_low"], res["ci_high"]), rel=1e-12)
    assert cmp["pvalue"] == pytest.approx(res["pvalue"], rel=1e-12)


def _three_systems_two_segment_sets(seed=11, n=240, n_gold=90):
    """A per-query table of systems A (baseline), B, C under proxy and gold, and two segment sets."""
    pa, pb, ga, gb = _values(seed=seed, n=n, n_gold=n_gold)
    _, pc, _, gc = _values(seed=seed + 1, n=n, n_gold=n_gold)
    gc = {q: pc[q] - 0.1 for q in gb}                  # C's gold sample on B's queries
    rows = []
    for j, by_system in {"proxy": {"A": pa, "B": pb, "C": pc}, "gold": {"A": ga, "B": gb, "C": gc}}.items():
        for s, m in by_system.items():
            rows += [{"system": s, "judgments": j, "qid": q, "measure": "m", "value": float(v)} for q, v in m.items()]
    i = {q: int(q[1:]) for q in pa}
    segs = pl.concat([pl.DataFrame({"qid": list(pa), "segment_set": "mod3", "segment": [str(i[q] % 3) for q in pa]}),
                      pl.DataFrame({"qid": list(pa), "segment_set": "half", "segment": [str(i[q] * 2 // n) for q in pa]})])
    return pl.DataFrame(rows), segs


def test_ppi_segments_adjusted_pvalues_and_family_against_statsmodels_multipletests():
    """BH / Holm within compare_segments' families (system, measure, segment_set by default; family_by=[]
    pools the call), checked against statsmodels on the raw p-values; `family` names what was adjusted together."""
    from statsmodels.stats.multitest import multipletests
    pq, segs = _three_systems_two_segment_sets()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        res = ppi_compare_segments(pq, baseline="A", segments=segs)
        pooled = ppi_compare_segments(pq, baseline="A", segments=segs, family_by=[], correction="holm")
    assert res.columns[res.columns.index("pvalue"):][:4] == ["pvalue", "pvalue_bh", "pvalue_holm", "significant"]
    assert res.height == 2 * (3 + 2)
    for (system, sset), fam in res.group_by(["system", "segment_set"]):
        raw = fam["pvalue"].to_numpy()
        assert fam["pvalue_bh"].to_numpy() == pytest.approx(multipletests(raw, method="fdr_bh")[1], rel=1e-12)
        assert fam["pvalue_holm"].to_numpy() == pytest.approx(multipletests(raw, method="holm")[1], rel=1e-12)
        assert (fam["family_size"] == fam.height).all()
        assert (fam["significant"] == (fam["pvalue_bh"] <= 0.05)).all()
    assert set(res["family"]) == {"per system, measure, segment_set, 2-3 comparisons"}
    raw = pooled["pvalue"].to_numpy()
    assert pooled["pvalue_holm"].to_numpy() == pytest.approx(multipletests(raw, method="holm")[1], rel=1e-12)
    assert pooled["pvalue_bh"].to_numpy() == pytest.approx(multipletests(raw, method="fdr_bh")[1], rel=1e-12)
    assert (pooled["significant"] == (pooled["pvalue_holm"] <= 0.05)).all()
    assert set(pooled["family"]) == {"all 10 comparisons of the call"} and (pooled["family_size"] == 10).all()
    with pytest.raises(ValueError, match="`correction`"):
        ppi_compare_segments(pq, baseline="A", segments=segs, correction="bonferroni")
    with pytest.raises(ValueError, match="`family_by`"):
        ppi_compare_segments(pq, baseline="A", segments=segs, family_by="judgments")
    # a unit without an estimate (one gold query) is left out of its family, as compare_segments leaves NaN out
    gold_q = sorted(pq.filter(pl.col("judgments") == "gold")["qid"].unique().to_list())
    few = pl.DataFrame({"qid": pq["qid"].unique().to_list()}).with_columns(
        pl.lit("few").alias("segment_set"), pl.when(pl.col("qid") == gold_q[0]).then(pl.lit("x")).otherwise(pl.lit("y"))
        .alias("segment"))
    from pairedframe.errors import PartlyEmptyWarning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        with pytest.warns(PartlyEmptyWarning, match="no estimate"):
            lone = ppi_compare_segments(pq, baseline="A", segments=few)
    assert lone.filter(pl.col("segment") == "x")["pvalue_bh"].null_count() == 2
    y = lone.filter(pl.col("segment") == "y")
    assert y["pvalue_bh"].to_list() == y["pvalue"].to_list() == y["pvalue_holm"].to_list()
    rule = "per system, measure, segment_set, 1 comparison each"
    assert (lone["family_size"] == 1).all() and set(y["family"]) == {rule}
    assert set(lone.filter(pl.col("segment") == "x")["family"]) == {
        "no test: one gold query (left out of its family: per system, measure, segment_set)"}


def test_integer_qids_warn_and_float_qids_are_refused_in_ppi_gold_qids_and_values():
    """Ids are strings: integer gold_qids (and ppi_compare's integer dict keys, Series index, qid column) are
    spelled out with the numeric-id warning an integer id column gets, pointing at the caller; None and
    floats are refused naming the argument; a lone string is one id."""
    import pandas as pd
    pa, pb, ga, gb = _values(seed=3, n=60, n_gold=30)
    num = {q: int(q[1:]) for q in pa}
    pa, pb, ga, gb = ({num[q]: v for q, v in d.items()} for d in (pa, pb, ga, gb))
    rows = []
    for j, (a, b) in {"proxy": (pa, pb), "gold": (ga, gb)}.items():
        for s, m in (("A", a), ("B", b)):
            rows += [{"system": s, "judgments": j, "qid": str(q), "measure": "m", "value": v} for q, v in m.items()]
    pq = pl.DataFrame(rows)
    sample = sorted(ga)[:20]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        with pytest.warns(UserWarning, match=r"numeric id column\(s\) \['qid'\] of `gold_qids`") as caught:
            by_int = ppi_compare_segments(pq, baseline="A", gold_qids=sample)
        assert {w.filename for w in caught if "numeric id" in str(w.message)} == {__file__}
        by_str = ppi_compare_segments(pq, baseline="A", gold_qids=[str(q) for q in sample])
        assert by_int.equals(by_str) and by_int["n_gold"].item() == 20
        lone = next(q for q in sorted(ga) if q >= 10 and len(set(str(q))) == 2 and all(int(c) in ga for c in str(q)))
        with pytest.raises(EmptyResultError, match="fewer than 2 gold"):   # one id, not the gold ids of its digits
            ppi_compare_segments(pq, baseline="A", gold_qids=str(lone))
        for bad in ([1.0, 2.0], [sample[0], None], np.array(sample, dtype=float)):
            with pytest.raises(SchemaError, match="`gold_qids` holds"):
                ppi_compare_segments(pq, baseline="A", gold_qids=bad)
    as_str = [{str(q): v for q, v in d.items()} for d in (pa, pb, ga, gb)]
    want = ppi_compare(*as_str)
    for what, shaped in (("dict", (pa, pb, ga, gb)), ("Series index", [pd.Series(d) for d in (pa, pb, ga, gb)]),
                         ("table", [pl.DataFrame({"qid": list(d), "value": list(d.values())}) for d in (pa, pb, ga, gb)])):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = ppi_compare(*shaped)
        assert sorted(str(w.message).split("`")[1] for w in caught if f"` {what} converted" in str(w.message)) == [
            "gold_a", "gold_b", "proxy_a", "proxy_b"]
        assert {w.filename for w in caught} == {__file__}
        assert (got.statistic, got.pvalue) == (want.statistic, want.pvalue)
    with pytest.raises(SchemaError, match="`gold_a` holds 0.0"):
        ppi_compare(pa, pb, {float(q): v for q, v in ga.items()}, gb)
    with pytest.raises(SchemaError, match="`gold_b` table.*floats"):
        ppi_compare(pa, pb, ga, pl.DataFrame({"qid": [float(q) for q in gb], "value": list(gb.values())}))


def test_gold_qids_as_a_table_read_its_qid_column():
    """ppi.md lists a qid column among the gold_qids forms; a polars table was read as one id (its column's
    repr) and a pandas one as its column names ('the query of gold_qids 'qid' has no gold value')."""
    import pandas as pd
    pa_, pb, ga, gb = _values(seed=3, n=60, n_gold=30)
    pq = _judgment_table(pa_, pb, ga, gb)
    sample = sorted(ga)[:20]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        want = ppi_compare_segments(pq, baseline="A", gold_qids=sample)
        for table in (pl.DataFrame({"qid": sample}), pd.DataFrame({"qid": sample}),
                      pl.DataFrame({"id": sample}), pl.DataFrame({"qid": sample, "note": ["x"] * 20})):
            assert ppi_compare_segments(pq, baseline="A", gold_qids=table).equals(want)
        with pytest.raises(SchemaError, match=r"`gold_qids` is a table with columns \['a', 'b'\]"):
            ppi_compare_segments(pq, baseline="A", gold_qids=pl.DataFrame({"a": sample, "b": sample}))


def test_ppi_segments_family_of_a_unit_without_a_test_says_no_test_and_why_as_compare_segments():
    pa, pb, ga, gb = _values(seed=6, n=120, n_gold=60)
    gold, proxy_only = sorted(ga), sorted(set(pa) - set(ga))
    segment = {q: "rest" for q in pa} | {gold[0]: "one", proxy_only[0]: "one", proxy_only[1]: "none"}
    segs = pl.DataFrame({"qid": list(segment), "segment_set": "s", "segment": list(segment.values())})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ppi_compare_segments(_judgment_table(pa, pb, ga, gb), baseline="A", segments=segs)
    family = dict(zip(res["segment"], res["family"]))
    rule = "per system, measure, segment_set, 1 comparison each"
    untested = "(left out of its family: per system, measure, segment_set)"
    assert family == {"rest": rule, "one": f"no test: one gold query {untested}", "none": f"no test: no gold query {untested}"}
    assert res.filter(pl.col("segment") != "rest")["pvalue"].null_count() == 2
