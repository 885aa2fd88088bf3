"""rank_agreement's intervals: the jackknife over queries (default) against a loop over scipy, its estimate always
inside, the percentile bootstrap's note when it excludes its estimate (real DL-2019 data), bad options."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
import scipy.stats as sps
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pairedframe as pf
from pairedframe.comparison.rank_intervals import NO_SPREAD_NOTE
from pairedframe.errors import SmallSampleWarning
from pairedframe.stats.rank_agreement import agreement_coefficients_many, leave_one_out_means
from pairedframe.stats.rbo import rbo
from tests.reference.agreement_reference import tau_ap_a_loop, tau_ap_b_half_loop


def _frame(values: np.ndarray, measure: str = "AP") -> pl.DataFrame:
    n, k = values.shape
    return pl.DataFrame({"system": np.repeat([f"s{j}" for j in range(k)], n).tolist(),
                         "qid": [f"q{i:03d}" for i in range(n)] * k, "measure": measure,
                         "value": values.T.ravel()})


def _coefficients_loop(ma, mb, rbo_p=0.9):
    """Every coefficient of two mean vectors from scipy and the loop references (systems named s0, s1, ...)."""
    names = [f"s{j}" for j in range(len(ma))]
    order = lambda m: [names[i] for i in np.argsort(-np.asarray(m), kind="stable")]  # noqa: E731
    return {"kendall_tau_b": sps.kendalltau(ma, mb).statistic, "spearman_rho": sps.spearmanr(ma, mb).statistic,
            "tau_ap": tau_ap_a_loop(ma, mb),
            "tau_ap_symmetric": (tau_ap_b_half_loop(ma, mb) + tau_ap_b_half_loop(mb, ma)) / 2,
            "rbo": rbo(order(ma), order(mb), p=rbo_p).rbo_ext}


def test_rank_jackknife_interval_against_scipy_loop():
    rng = np.random.default_rng(11)
    n, k = 15, 6
    A = np.linspace(0.2, 0.6, k) + rng.normal(0, 0.15, (n, k))
    B = A + rng.normal(0, 0.1, (n, k))
    r = pf.rank_agreement(_frame(A), _frame(B), measure="AP")
    assert r.settings["method"] == "jackknife" and "n_resamples" not in r.settings
    # s0..s5 sort by name as s0 < s1 < ...: the library's column order is the loop's
    full = _coefficients_loop(A.mean(0), B.mean(0))
    loo = [_coefficients_loop(np.delete(A, i, 0).mean(0), np.delete(B, i, 0).mean(0)) for i in range(n)]
    t = sps.t.ppf(0.975, n - 1)
    for name, bounds in (("kendall_tau_b", (-1, 1)), ("spearman_rho", (-1, 1)), ("tau_ap", (-1, 1)),
                         ("tau_ap_symmetric", (-1, 1)), ("rbo", (0, 1))):
        c = getattr(r, name)
        assert c.statistic == pytest.approx(full[name], abs=1e-12)
        v = np.array([x[name] for x in loo])
        half = t * np.sqrt((n - 1) / n * np.sum((v - v.mean()) ** 2))
        assert c.confidence_interval.low == pytest.approx(max(bounds[0], c.statistic - half), abs=1e-12)
        assert c.confidence_interval.high == pytest.approx(min(bounds[1], c.statistic + half), abs=1e-12)
        assert c.note == "approximate"
    assert r.table["note"].to_list() == ["approximate"] * 5


def test_agreement_coefficients_many_and_leave_one_out_means_against_loops():
    rng = np.random.default_rng(2)
    X = rng.random((9, 7))
    loo = leave_one_out_means(X)
    np.testing.assert_allclose(loo, [np.delete(X, i, 0).mean(0) for i in range(9)], rtol=0, atol=1e-15)
    A, B = rng.random((5, 7)), rng.random((5, 7))
    got = agreement_coefficients_many(A, B)
    for row in range(5):
        want = _coefficients_loop(A[row], B[row])
        for name in want:
            assert got[name][row] == pytest.approx(want[name], abs=1e-12)
    lower = agreement_coefficients_many(A, B, higher_is_better=False)   # best first = lowest first
    assert lower["tau_ap"][0] == pytest.approx(tau_ap_a_loop(-A[0], -B[0]), abs=1e-12)
    assert lower["kendall_tau_b"][0] == pytest.approx(got["kendall_tau_b"][0], abs=1e-15)
    with pytest.raises(ValueError, match="at least 2 rows"):
        leave_one_out_means(X[:1])


@settings(max_examples=40, deadline=None)
@given(st.integers(3, 6), st.integers(3, 12), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.02, 0.3]))
def test_rank_interval_contains_its_estimate(k, n, seed, spread):
    """Whatever the data -- near ties (spread 0.02), exact ties (0), clear orders -- the default interval
    holds its own coefficient, or is NaN (with its note) when no query changes the coefficient."""
    rng = np.random.default_rng(seed)
    A = spread * np.arange(k) + rng.normal(0, 0.1, (n, k)).round(2)
    B = A + rng.normal(0, 0.1, (n, k)).round(2)
    assume(np.ptp(A.mean(0)) > 0 and np.ptp(B.mean(0)) > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        r = pf.rank_agreement(_frame(A), _frame(B), measure="AP")
    for name in ("kendall_tau_b", "spearman_rho", "tau_ap", "tau_ap_symmetric", "rbo"):
        c = getattr(r, name)
        low, high = c.confidence_interval
        if c.note == NO_SPREAD_NOTE:
            assert np.isnan(low) and np.isnan(high)
            continue
        assert low <= c.statistic <= high
        assert (-1.0 if name != "rbo" else 0.0) <= low and high <= 1.0


def test_rank_jackknife_interval_is_nan_not_a_point_when_no_query_changes_the_coefficient():
    """Three well separated systems ordered alike under both label sets: every leave-one-query-out tau_b is 1,
    a jackknife standard error of 0 -- no spread seen, not certainty (the exact p-value is 1/3) -- so the
    interval is NaN with a note and a SmallSampleWarning, as for kappa; it was the point [1, 1]."""
    rng = np.random.default_rng(3)
    A = np.array([0.2, 0.5, 0.8]) + rng.normal(0, 0.02, (12, 3))
    B = A + rng.normal(0, 0.02, (12, 3))
    with pytest.warns(SmallSampleWarning, match=r"kendall_tau_b.*same without any one of the 12 queries.*NaN, not a point"
                      ) as caught:
        r = pf.rank_agreement(_frame(A), _frame(B), measure="AP")
    said = " ".join(str(w.message) for w in caught)
    assert "few systems" in said and "few queries" not in said  # the cause is the systems, not the queries
    tau = r.kendall_tau_b
    assert tau.statistic == 1.0 and tau.pvalue == pytest.approx(1 / 3)
    assert np.isnan(tau.confidence_interval.low) and np.isnan(tau.confidence_interval.high)
    assert tau.note == NO_SPREAD_NOTE and "no interval (NaN)" in tau.note
    row = r.table.filter(pl.col("coefficient") == "kendall_tau_b").row(0, named=True)
    assert np.isnan(row["ci_low"]) and np.isnan(row["ci_high"])
    # s0 above s1 under `a` only by query 0: without it they tie, tau_b drops; the jackknife sees spread
    A[:, 0], B[:, 0] = A[:, 1], B[:, 1] + 0.1
    A[0, 0] += 0.1
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        r = pf.rank_agreement(_frame(A), _frame(B), measure="AP")
    low, high = r.kendall_tau_b.confidence_interval
    assert low < r.kendall_tau_b.statistic <= high and r.kendall_tau_b.note == "approximate"


def test_rank_no_spread_warning_names_the_measure_and_the_two_judgment_sets():
    """A report computes one rank agreement per measure and judgment set: its NaN-interval warning named only
    the coefficients, so which measure and sets it was about was lost. Three systems put the one relevant
    document 1st, 2nd and 3rd on each of 12 queries under both sets: no query changes any coefficient."""
    order = {"s1": ("d1", "d2", "d3"), "s2": ("d2", "d1", "d3"), "s3": ("d2", "d3", "d1")}
    run = pl.DataFrame([(s, str(q), d, 3.0 - r) for s, docs in order.items() for q in range(12)
                        for r, d in enumerate(docs)], schema=["system", "qid", "docno", "score"], orient="row")
    nist = pl.DataFrame({"qid": [str(q) for q in range(12)], "docno": "d1", "rel": 1})
    js = pf.evaluate_judgment_sets(run, {"nist": nist, "llm": nist}, ["RR"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.rank_agreement(js, measure="RR", judgments=("nist", "llm"))
    said = [str(w.message) for w in caught if "same without any one of the 12 queries" in str(w.message)]
    assert len(said) == 1 and said[0].startswith("rank agreement on RR between 'nist' and 'llm': kendall_tau_b"), said
    assert js.per_query.filter(pl.col("judgments") == "nist").group_by("system").agg(pl.col("value").mean()).sort(
        "system")["value"].to_list() == pytest.approx([1.0, 0.5, 1 / 3])


@pytest.mark.shared_data
@pytest.mark.slow
def test_rank_interval_contains_its_estimate_on_dl19_where_the_percentile_one_does_not(shared_data):
    """20 DL-2019 runs, NIST vs the sun-then-decomposed Flan-T5-large labels, nDCG@10: resampled queries pull
    tau_AP below its value of 0.947, so the percentile interval excludes it -- and says so."""
    from tests.test_paper_real import dl19_paths

    runs, nist = dl19_paths(shared_data)
    llm = shared_data / "llm_labels_dl" / "results" / "dl2019_test_sun_then_decomposed_flant5large.txt"
    if not llm.exists():
        pytest.skip("the Flan-T5-large label set is missing from the shared data")
    js = pf.evaluate_judgment_sets(runs, {"nist": str(nist), "llm": str(llm)}, "nDCG@10")
    default = pf.rank_agreement(js, measure="nDCG@10")
    percentile = pf.rank_agreement(js, measure="nDCG@10", interval="percentile", n_resamples=2000)
    assert default.tau_ap.statistic == pytest.approx(0.947, abs=5e-4)
    for name in ("kendall_tau_b", "spearman_rho", "tau_ap", "tau_ap_symmetric", "rbo"):
        c = getattr(default, name)
        assert c.confidence_interval.low <= c.statistic <= c.confidence_interval.high and c.note == "approximate"
    ci = percentile.tau_ap.confidence_interval
    assert ci.high < percentile.tau_ap.statistic
    assert percentile.tau_ap.note.startswith("approximate; excludes the estimate")
    assert percentile.settings["n_resamples"] == 2000 and percentile.settings["seed"] == 0


def test_rank_percentile_interval_note_only_when_it_excludes_the_estimate():
    rng = np.random.default_rng(5)
    # near systems (means 0.1 apart, sd 0.5 at 30 queries): resamples reorder them, so the intervals have width
    A = np.linspace(0.1, 0.5, 5) + rng.normal(0, 0.5, (30, 5))
    r = pf.rank_agreement(_frame(A), _frame(A + rng.normal(0, 0.05, (30, 5))), measure="AP", interval="percentile",
                          n_resamples=500)
    for name in ("kendall_tau_b", "rbo"):
        c = getattr(r, name)
        assert c.confidence_interval.low < c.confidence_interval.high, name
        inside = c.confidence_interval.low <= c.statistic <= c.confidence_interval.high
        assert c.note == ("approximate" if inside else c.note) and (inside or "excludes" in c.note)


def test_rank_agreement_rejects_bad_interval_options():
    A = np.random.default_rng(0).random((5, 3))
    a, b = _frame(A), _frame(A[::-1])
    with pytest.raises(ValueError, match=r"`interval` must be one of \['jackknife', 'percentile'\], got 'bca'"):
        pf.rank_agreement(a, b, measure="AP", interval="bca")
    for bad in (0, 1, -5, 2.5, True):
        with pytest.raises(ValueError, match="`n_resamples`"):
            pf.rank_agreement(a, b, measure="AP", n_resamples=bad)
    for level in (0.0, 1.0, 95, True):
        with pytest.raises(ValueError, match="`confidence_level`"):
            pf.rank_agreement(a, b, measure="AP", confidence_level=level)
    for p in (0, 1, 1.5, True):
        with pytest.raises(ValueError, match="`rbo_p`"):
            pf.rank_agreement(a, b, measure="AP", rbo_p=p)
    with pytest.raises(ValueError, match="`seed`"):
        pf.rank_agreement(a, b, measure="AP", seed=-1)


def test_rank_agreement_refuses_a_table_mixing_two_judgment_sets():
    """A per-query table with a judgments (or dataset) column holding two values is two orderings, not one."""
    import pairedframe as pf
    import polars as pl

    rows = [(s, j, f"q{i}", "AP", float((i * 7 + k * 3 + len(j)) % 10) / 10)
            for k, s in enumerate(["a", "b", "c"]) for j in ("nist", "llm") for i in range(6)]
    mixed = pl.DataFrame(rows, schema=["system", "judgments", "qid", "measure", "value"], orient="row")
    with pytest.raises(ValueError, match=r"several values of its key column 'judgments' \(\['nist', 'llm'\]\)"):
        pf.rank_agreement(mixed, mixed.filter(pl.col("judgments") == "llm"), measure="AP")
    one = pf.rank_agreement(mixed.filter(pl.col("judgments") == "nist"), mixed.filter(pl.col("judgments") == "llm"),
                            measure="AP")
    plain = pf.rank_agreement(mixed.filter(pl.col("judgments") == "nist").drop("judgments"),
                              mixed.filter(pl.col("judgments") == "llm").drop("judgments"), measure="AP")
    assert one.kendall_tau_b.statistic == plain.kendall_tau_b.statistic and one.rbo.statistic == plain.rbo.statistic


def test_rank_agreement_on_gmap_ranks_systems_by_their_geometric_means_against_scipy_kendalltau():
    """GMAP ranks systems by the geometric mean of AP (trec_eval's gm_map), not by MAP: tau_b equals
    scipy's on the two judgment sets' geometric means, and mean_a / mean_b are those geometric means."""
    rng = np.random.default_rng(3)
    rows = []
    for s in range(8):
        ap = rng.uniform(0.0, 0.6, 20) ** (1 + s / 4)       # skewed: GMAP and MAP orderings differ
        for judged, scale in (("nist", 1.0), ("llm", 0.9)):
            noisy = np.clip(ap * scale + rng.normal(0, 0.02, 20), 0, 1)
            rows += [(judged, f"s{s}", f"q{i}", "GMAP", float(v)) for i, v in enumerate(noisy)]
    table = pl.DataFrame(rows, schema=["judgments", "system", "qid", "measure", "value"], orient="row")
    res = pf.rank_agreement(table.filter(pl.col("judgments") == "nist").drop("judgments"),
                            table.filter(pl.col("judgments") == "llm").drop("judgments"), measure="GMAP")
    geo = (table.group_by("judgments", "system").agg(pl.col("value").clip(lower_bound=1e-5).log().mean().exp())
           .pivot(on="judgments", index="system", values="value").sort("system"))
    assert res.kendall_tau_b.statistic == pytest.approx(sps.kendalltau(geo["nist"], geo["llm"]).statistic, abs=1e-12)
    frame = res.means.sort("system")
    np.testing.assert_allclose(frame["mean_a"].to_numpy(), geo["nist"].to_numpy(), rtol=1e-12)


def test_agreement_page_names_exactly_the_coefficients_whose_pvalue_is_nan():
    """docs/guide/agreement.md says which coefficients have no test (p = NaN): the ones rank_agreement gives none."""
    import re
    from pathlib import Path

    rng = np.random.default_rng(3)
    A = np.linspace(0.2, 0.6, 6) + rng.normal(0, 0.15, (15, 6))
    table = pf.rank_agreement(_frame(A), _frame(A + rng.normal(0, 0.1, A.shape)), measure="AP").table
    untested = set(table.filter(pl.col("pvalue").is_nan())["coefficient"])
    assert untested and untested != set(table["coefficient"])
    page = (Path(__file__).parent.parent / "docs" / "guide" / "agreement.md").read_text(encoding="utf-8")
    marker = "<!-- pvalue-nan: checked by tests/test_rank_agreement_intervals.py -->"
    assert marker in page, "agreement.md should say which coefficients report p = NaN"
    paragraph = page.split(marker, 1)[1].strip().split("\n\n", 1)[0]
    said_nan = paragraph.split("report `pvalue` = NaN", 1)[0].split("only.", 1)[1]
    assert set(re.findall(r"`(\w+)`", said_nan)) == untested
    assert "no test" in paragraph


def _one_set_ties_every_system() -> tuple[pl.DataFrame, pl.DataFrame]:
    """37 systems over 43 queries under `a`, and a `b` that scores every one 0 (an LLM label set of all 0s):
    without some queries RBO differs from its value by 1e-16, float noise, not spread."""
    A = np.random.default_rng(37).uniform(0, 1, (43, 37))
    return _frame(A), _frame(np.zeros_like(A))


@pytest.mark.parametrize("interval", ["jackknife", "percentile"])
def test_rank_interval_is_nan_not_a_point_when_only_float_noise_changes_the_coefficient(interval):
    a, b = _one_set_ties_every_system()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = pf.rank_agreement(a, b, measure="AP", interval=interval, n_resamples=200)
    low, high = r.rbo.confidence_interval
    assert np.isfinite(r.rbo.statistic) and np.isnan(low) and np.isnan(high), (low, high)
    assert r.rbo.note.startswith("approximate; no interval (NaN)")
    said = [str(w.message) for w in caught if issubclass(w.category, SmallSampleWarning)]
    # tau_AP_a of a 'b' tying every system is 0 whatever the queries, so the jackknife names it beside RBO
    assert any(" rbo:" in s and "NaN, not a point" in s for s in said), said
    if interval == "jackknife":  # the reason is the tied set, not 'few systems, well separated'
        rbo = [s for s in said if ": tau_ap, rbo:" in s]
        assert "'b' ties every system" in rbo[0] and "well separated" not in rbo[0], rbo


def test_rank_coefficients_nan_because_one_set_ties_every_system_say_so():
    a, b = _one_set_ties_every_system()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = pf.rank_agreement(a, b, measure="AP")
    undefined = ["kendall_tau_b", "spearman_rho", "tau_ap_symmetric"]
    for name in undefined:
        c = getattr(r, name)
        assert np.isnan(c.statistic) and "ties every system" in c.note and "'b'" in c.note, (name, c.note)
    # tau_AP_a scores the estimate 'b' against the reference 'a': tying every system is a random ordering's 0
    assert r.tau_ap.statistic == pytest.approx(0.0, abs=1e-12) and "NaN" not in r.tau_ap.note.split(";")[0]
    flipped = pf.rank_agreement(b, a, measure="AP")            # a reference that orders nothing: NaN
    assert np.isnan(flipped.tau_ap.statistic) and "'a' ties every system" in flipped.tau_ap.note
    said = [str(w.message) for w in caught if issubclass(w.category, SmallSampleWarning) and "are NaN" in str(w.message)]
    assert len(said) == 1 and ", ".join(undefined) in said[0] and "'b' ties every system" in said[0], said
