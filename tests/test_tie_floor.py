"""A sign-flip test cannot tell a tie's two signs apart: with k non-zero deltas (cluster sums) its p is
never below 2 / 2**k two-sided, whatever n and the resamples, so the MDE is infinite (and the note says
why) when that floor is not below the level -- as it is for k = n = 2."""

import itertools
import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.comparison.verdicts import smallest_pvalue, tie_floors

N = 16                                   # 2**16 > 10,000 resamples: the Monte-Carlo path
QIDS = [f"q{i:02d}" for i in range(N)]
A = np.zeros(N)
B = np.r_[np.zeros(N - 2), 0.5, 0.4]     # 2 non-zero deltas among 16
FRAME = pl.DataFrame({"system": ["a"] * N + ["b"] * N, "qid": QIDS * 2, "measure": "nDCG@10",
                      "value": np.r_[A, B]})


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def test_exact_sign_flip_pvalue_of_tied_deltas_against_scipy_permutation_test():
    """The oracle: scipy's exact paired permutation test (every one of the 2**16 sign patterns) gives
    p = 0.5 for these deltas, the floor 2 / 2**2 of their 2 non-zero ones -- not 2 / 2**16."""
    stats = pytest.importorskip("scipy.stats")
    d = B - A
    res = stats.permutation_test((d,), np.mean, permutation_type="samples", n_resamples=np.inf,
                                 vectorized=True, axis=-1, batch=4096)
    assert res.pvalue == pytest.approx(0.5, abs=1e-12)
    assert smallest_pvalue("randomization", True, N, "two-sided", 10_000, nonzero=2) == 0.5
    assert smallest_pvalue("randomization", False, N, "two-sided", 10_000, nonzero=2) == 0.5
    assert smallest_pvalue("randomization", False, N, "greater", 10_000, nonzero=2) == 0.25
    # no ties: as before, the Monte-Carlo floor 1 / (B + 1) once 2 / 2**n is below it
    assert smallest_pvalue("randomization", False, 40, "two-sided", 10_000, nonzero=40) == 1 / 10_001
    assert smallest_pvalue("t", False, N, "two-sided", 10_000, nonzero=2) == 0.0
    np.testing.assert_array_equal(tie_floors(np.array([1 / 10_001, 0.0]), np.array([2, 2]), "t", "two-sided"),
                                  [1 / 10_001, 0.0])


def test_mde_is_infinite_when_the_nonzero_deltas_cannot_reach_alpha_in_compare_pair():
    """The reviewer's reproducer (20 queries, 2 non-zero): mde was 0.092, finite."""
    a, b = np.zeros(20), np.r_[np.zeros(18), 0.5, 0.4]
    r = _quiet(pf.compare_pair, a, b, measure="nDCG@10")
    assert r.exact and r.pvalue == 0.5          # the 2**2 patterns of the non-zero deltas, enumerated
    assert r.mde == np.inf and r.verdict == "inconclusive"
    assert "2 of 20 queries have a non-zero delta" in r.verdict_note
    assert "cannot go below 0.5" in r.verdict_note
    two = _quiet(pf.compare_pair, np.zeros(2), np.array([0.5, 0.4]), measure="nDCG@10")
    assert two.mde == np.inf and "cannot go below 0.5" in two.verdict_note


def test_mde_is_infinite_when_the_nonzero_deltas_cannot_reach_alpha_in_compare():
    """In memory, in an engine (DuckDB) and adaptively: the same infinite MDE and note."""
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.register("t", FRAME.to_arrow())
    for out in (_quiet(pf.compare, FRAME, baseline="a"), _quiet(pf.compare, con.sql("SELECT * FROM t"), baseline="a"),
                _quiet(pf.compare, FRAME, baseline="a", resampling="adaptive")):
        row = out.row(0, named=True)
        assert row["mde"] == np.inf and row["verdict"] == "inconclusive"
        assert "2 of 16 queries have a non-zero delta" in row["verdict_note"]
        assert "cannot go below 0.5" in row["verdict_note"]


def test_compare_warns_that_no_comparison_can_be_significant_with_two_nonzero_deltas():
    with pytest.warns(UserWarning, match=r"no comparison can be significant: 2 of 16 queries have a non-zero delta"):
        pf.compare(FRAME, baseline="a")


def test_more_nonzero_deltas_keep_a_finite_mde():
    """Ten non-zero deltas of 16 (floor 2 / 2**10): the MDE stays finite and the note says nothing of it."""
    b = np.r_[np.zeros(6), np.linspace(0.05, 0.3, 10)]
    r = _quiet(pf.compare_pair, A, b, measure="nDCG@10")
    assert np.isfinite(r.mde) and "non-zero delta" not in (r.verdict_note or "")


def test_segment_with_two_nonzero_deltas_is_resolution_limited():
    seg = pl.DataFrame({"qid": QIDS, "segment_set": "all", "segment": "s"})
    with pytest.warns(UserWarning, match="could not be with their few queries"):
        out = pf.compare_segments(FRAME, seg, baseline="a")
    row = out.row(0, named=True)
    assert row["exact"] and row["pvalue"] == 0.5 and not row["significant"]   # the 2**2 patterns, enumerated
    assert row["resolution_limited"] and row["min_discoveries"] is None


def _two_nonzero_deltas(n: int) -> tuple[list[str], np.ndarray, np.ndarray, pl.DataFrame]:
    """Queries q00.., baseline values a = 0.3 and b = a but for queries 0 and 5 (+0.5, +0.4), and their
    per-query table (systems a, b; nDCG@10)."""
    q = [f"q{i:02d}" for i in range(n)]
    a = np.full(n, 0.3)
    b = a.copy()
    b[0] += 0.5
    b[5] += 0.4
    return q, a, b, pl.DataFrame({"system": ["a"] * n + ["b"] * n, "qid": q * 2, "measure": "nDCG@10",
                                  "value": np.r_[a, b]})


def test_clusters_count_their_nonzero_sums():
    """12 clusters of 2 queries, 2 with a non-zero sum: exact floor 0.5, in memory and in DuckDB."""
    duckdb = pytest.importorskip("duckdb")
    n = 24
    q, a, b, df = _two_nonzero_deltas(n)
    clusters = {x: i // 2 for i, x in enumerate(q)}
    con = duckdb.connect()
    con.register("t", df.to_arrow())
    for source in (df, con.sql("SELECT * FROM t")):
        row = _quiet(pf.compare_clustered, source, baseline="a", clusters=clusters).row(0, named=True)
        assert row["pvalue"] == 0.5 and row["mde"] == np.inf
        assert "2 of 12 clusters have a non-zero summed delta" in row["verdict_note"]
        assert "cannot go below 0.5" in row["verdict_note"]


def _brute_force_pvalue(d: np.ndarray, alternative: str = "two-sided") -> float:
    """Every one of the 2**k sign patterns of the k non-zero deltas (itertools, no shared code): the
    exact sign-flip p of d, zeros included (a zero flips to itself)."""
    nonzero = d[d != 0]
    observed = d.sum() / d.size
    extreme = 0
    for signs in itertools.product((1.0, -1.0), repeat=nonzero.size):
        null = float(np.dot(signs, nonzero)) / d.size
        tol = 1e-9 * max(abs(observed), 1e-12)
        extreme += {"two-sided": abs(null) >= abs(observed) - tol, "greater": null >= observed - tol,
                    "less": null <= observed + tol}[alternative]
    return extreme / 2 ** nonzero.size


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 9])
def test_sign_flip_pvalue_of_few_nonzero_deltas_against_brute_force_enumeration(k, alternative):
    """30 queries (2**30 patterns: Monte Carlo before), k of them non-zero: 2**k <= n_resamples, so the
    p is the exact one of those 2**k patterns; 2 non-zero deltas gave p = 0.4958 under a note saying
    the p cannot go below 0.5."""
    rng = np.random.default_rng(k)
    a = rng.uniform(0.2, 0.6, 30)
    b = a.copy()
    b[rng.choice(30, k, replace=False)] += rng.choice([-1, 1], k) * rng.uniform(0.01, 0.3, k)
    d = b - a
    want = _brute_force_pvalue(d, alternative)
    r = _quiet(pf.compare_pair, a, b, alternative=alternative)
    assert r.exact and r.n_resamples == 10_000
    assert r.pvalue == pytest.approx(want, abs=1e-12)
    assert pf.stats.randomization.sign_flip_test(d, alternative=alternative, seed=1).pvalue == pytest.approx(want)
    assert r.pvalue >= (2.0 if alternative == "two-sided" else 1.0) / 2 ** k


def test_compare_pvalue_of_two_nonzero_deltas_is_exact_in_memory_in_duckdb_and_adaptive():
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.register("t", FRAME.to_arrow())
    want = _brute_force_pvalue(B - A)
    assert want == 0.5
    for kwargs in ({}, {"interval": "signflip"}):
        for out in (_quiet(pf.compare, FRAME, baseline="a", **kwargs),
                    _quiet(pf.compare, con.sql("SELECT * FROM t"), baseline="a", **kwargs),
                    _quiet(pf.compare, FRAME, baseline="a", resampling="adaptive", **kwargs)):
            row = out.row(0, named=True)
            assert row["pvalue"] == want and row["exact"]
            assert "exact sign-flip p cannot go below 0.5" in row["verdict_note"]


def test_monte_carlo_pvalue_never_below_the_exact_floor_of_its_nonzero_deltas():
    """14 non-zero deltas of 30, all positive: 2**14 > 10,000 patterns, so Monte Carlo.  With these seeds
    its draws miss the two extreme patterns (identity, all flipped; 1.2 hits expected) and gave
    1 / 10,001, below the exact p 2 / 2**14; other seeds hit them and stay above."""
    a = np.full(30, 0.3)
    b = a.copy()
    b[:14] += np.linspace(0.01, 0.14, 14)
    floor = 2 / 2**14
    assert _brute_force_pvalue(b - a) == floor
    r = _quiet(pf.compare_pair, a, b, seed=8)
    assert not r.exact and r.pvalue == floor
    assert pf.stats.randomization.sign_flip_test(b - a, seed=2).pvalue == floor
    for seed in range(6):
        assert _quiet(pf.compare_pair, a, b, seed=seed).pvalue >= floor
    frame = pl.DataFrame({"system": ["a"] * 30 + ["b"] * 30, "qid": [f"q{i:02d}" for i in range(30)] * 2,
                          "measure": "nDCG@10", "value": np.r_[a, b]})
    for kwargs in ({}, {"interval": "signflip"}, {"resampling": "adaptive"}):
        assert _quiet(pf.compare, frame, baseline="a", **kwargs)["pvalue"].item() >= floor


def test_signflip_interval_moved_at_zero_to_agree_with_a_settled_pvalue():
    from pairedframe.stats.signflip_interval import agree_with_settled_p

    low, high = np.array([0.01, -0.02, 0.01, -0.02]), np.array([0.05, 0.04, 0.05, 0.04])
    p = np.array([0.5, 0.01, 0.5, 0.01])
    settled = np.array([True, True, False, False])
    lo, hi = agree_with_settled_p(low, high, p, settled, np.array([0.03, 0.01, 0.03, 0.01]), 0.95)
    assert lo[0] == 0.0 and hi[0] == 0.05                     # exact p accepts 0: extended to it
    assert 0.0 < lo[1] < 1e-300 and hi[1] == 0.04              # exact p rejects 0: cut just past it
    np.testing.assert_array_equal(lo[2:], low[2:])
    np.testing.assert_array_equal(hi[2:], high[2:])


def test_clustered_and_segment_pvalues_never_below_the_exact_floor():
    """2 non-zero deltas among 40 queries (20 clusters of 2; one segment): both tests were Monte Carlo
    (2**20 and 2**40 patterns) and gave p = 0.4952 and 0.4990 under notes saying p cannot go below 0.5;
    each is now the exact p of its 2 non-zero cluster sums / deltas."""
    n = 40
    q, a, b, df = _two_nonzero_deltas(n)
    assert _brute_force_pvalue(b - a) == 0.5
    clustered = _quiet(pf.compare_clustered, df, baseline="a", clusters={x: i // 2 for i, x in enumerate(q)})
    segments = _quiet(pf.compare_segments, df, pl.DataFrame({"qid": q, "segment_set": "all", "segment": "s"}),
                      baseline="a")
    for out in (clustered, segments):
        row = out.row(0, named=True)
        assert row["exact"] and row["pvalue"] == 0.5


def _tied_deltas_frame(negate: bool) -> tuple[list[str], pl.DataFrame]:
    """30 queries, 8 with a non-zero delta (all of one sign: gains, or losses when ``negate``), 22 ties."""
    q = [f"q{i:02d}" for i in range(30)]
    base = np.random.default_rng(0).uniform(0.2, 0.6, 30)
    d = np.zeros(30)
    d[:8] = [0.05, 0.1, 0.15, 0.2, 0.08, 0.12, 0.3, 0.07]
    d = -d if negate else d
    return q, pl.DataFrame({"system": ["a"] * 30 + ["b"] * 30, "qid": q * 2, "measure": "nDCG@10",
                            "value": np.r_[base, base + d]})


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_compare_clustered_with_one_query_per_cluster_equals_compare_signflip_on_tied_deltas(alternative, engine,
                                                                                            duckdb_relation):
    """The outside statistician's reproducer: 2**30 patterns > 999, so compare_clustered drew Monte-Carlo
    patterns (p 0.009-0.012, exact False, verdict at 99 % flipping with the seed) where compare enumerates
    the 2**8 patterns of the non-zero deltas (p = 2 / 2**8 exactly); docs/guide/clusters.md promises equality."""
    q, frame = _tied_deltas_frame(negate=alternative == "less")
    source = frame if engine == "polars" else duckdb_relation(frame)
    options = dict(baseline="a", interval="signflip", n_resamples=999, confidence_level=0.99, alternative=alternative)
    for seed in range(4):
        want = _quiet(pf.compare, frame, seed=seed, **options).row(0, named=True)
        got = _quiet(pf.compare_clustered, source, clusters={x: x for x in q}, seed=seed, **options).row(0, named=True)
        assert want["exact"] and want["pvalue"] == (2.0 if alternative == "two-sided" else 1.0) / 2 ** 8
        assert (got["pvalue"], got["exact"], got["verdict"]) == (want["pvalue"], want["exact"], want["verdict"])
        assert got["n_resamples"] == want["n_resamples"] == 999
        np.testing.assert_allclose([got["ci_low"], got["ci_high"]], [want["ci_low"], want["ci_high"]],
                                   rtol=1e-12, atol=1e-15)


def _zero_sum_clusters_frame() -> tuple[dict[str, str], np.ndarray, np.ndarray, pl.DataFrame]:
    """12 clusters of 3 queries: 7 with a non-zero summed delta, 5 summing to 0 -- all ties, gains and losses
    that cancel exactly, or up to float noise (0.3 - 0.1 - 0.2).  Returns clusters, per-query cluster index,
    deltas (b - a as computed) and the frame."""
    rng = np.random.default_rng(4)
    zero = [[0.0, 0.0, 0.0], [0.1, -0.1, 0.0], [0.3, -0.1, -0.2], [0.0, 0.0, 0.0], [0.25, -0.25, 0.0]]
    nonzero = [list(np.round(rng.normal(0.04, 0.08, 3), 2)) for _ in range(7)]
    order = rng.permutation(12)
    deltas = np.array(zero + nonzero, dtype=np.float64)[order].ravel()
    q = [f"q{i:02d}" for i in range(36)]
    a = np.round(rng.uniform(0.3, 0.6, 36), 3)
    b = a + deltas
    frame = pl.DataFrame({"system": ["a"] * 36 + ["b"] * 36, "qid": q * 2, "measure": "nDCG@10", "value": np.r_[a, b]})
    return {x: f"c{i // 3}" for i, x in enumerate(q)}, np.arange(36) // 3, b - a, frame


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_compare_clustered_pvalue_with_zero_cluster_sums_against_brute_force_enumeration(alternative, engine,
                                                                                        duckdb_relation):
    """2**12 cluster patterns > 1000 resamples (Monte Carlo before); the 7 non-zero cluster sums have 2**7:
    the p is their exact one, from every sign pattern of them (a zero sum flips to itself)."""
    clusters, index, d, frame = _zero_sum_clusters_frame()
    sums = np.bincount(index, weights=d)
    sums[np.abs(sums) <= 1e-9 * np.max(np.abs(d))] = 0.0        # float noise of cancelling deltas is 0
    assert np.count_nonzero(sums) == 7
    want = _brute_force_pvalue(sums, alternative)
    source = frame if engine == "polars" else duckdb_relation(frame)
    for interval in ("signflip", "edgeworth"):
        row = _quiet(pf.compare_clustered, source, baseline="a", clusters=clusters, n_resamples=1000, seed=5,
                     alternative=alternative, interval=interval, confidence_level=0.9).row(0, named=True)
        assert row["exact"] and row["pvalue"] == pytest.approx(want, abs=1e-12)
        if interval == "signflip":                           # the interval agrees with the settled p at 0
            assert (row["ci_low"] <= 0.0 <= row["ci_high"]) == (row["pvalue"] >= 0.1 - 1e-12)


def _tied_segment_frame(n: int, gains: list[float], seed: int) -> tuple[list[str], pl.DataFrame]:
    """Queries q00.. with baseline values in [0.2, 0.6] and system b = a but for the first len(gains) queries."""
    q = [f"q{i:02d}" for i in range(n)]
    a = np.random.default_rng(seed).uniform(0.2, 0.6, n)
    b = a.copy()
    b[:len(gains)] += gains
    return q, pl.DataFrame({"system": ["a"] * n + ["b"] * n, "qid": q * 2, "measure": "nDCG@10",
                            "value": np.r_[a, b]})


@pytest.mark.parametrize("alternative", ["two-sided", "greater"])
def test_segment_holding_every_query_equals_compare_on_many_tied_deltas(alternative):
    """8 non-zero deltas of 30 (2**8 <= 999 < 2**30): compare's p is the exact one of the 2**8 patterns; the
    segment's was Monte Carlo (0.009-0.011 two-sided, exact false), so at 99 % its significance hung on the
    seed.  In memory, in DuckDB and adaptive, with the sign-flip interval agreeing with the p at 0."""
    duckdb = pytest.importorskip("duckdb")
    gains = [0.05, 0.1, 0.15, 0.2, 0.08, 0.12, 0.3, 0.07]
    q, df = _tied_segment_frame(30, gains, 0)
    seg = pl.DataFrame({"qid": q, "segment_set": "all", "segment": "all"})
    want = _brute_force_pvalue(np.r_[gains, np.zeros(22)], alternative)
    con = duckdb.connect()
    con.register("t", df.to_arrow())
    options = dict(baseline="a", n_resamples=999, confidence_level=0.99, alternative=alternative,
                   interval="signflip")
    for seed in range(4):
        for resampling in ("fixed", "adaptive"):
            c = _quiet(pf.compare, df, seed=seed, resampling=resampling, **options).row(0, named=True)
            tables = (df, con.sql("SELECT * FROM t")) if resampling == "fixed" else (df,)
            for table in tables:
                s = _quiet(pf.compare_segments, table, seg, seed=seed, resampling=resampling,
                           **options).row(0, named=True)
                assert s["pvalue"] == c["pvalue"] == want and s["exact"] and c["exact"]
                assert s["significant"] == (c["pvalue"] < 0.01) == (want < 0.01)
                assert (s["ci_low"] > 0) == s["significant"]          # the interval agrees with the p at 0


@pytest.mark.parametrize("alternative", ["two-sided", "less"])
def test_segment_pvalues_of_few_nonzero_deltas_against_brute_force_enumeration(alternative):
    """Segments of 20 queries (2**20 > 999 patterns) with 1, 3, 6 and 9 non-zero deltas get the exact p
    of those 2**k patterns, in memory and in DuckDB; a segment with no zero delta stays Monte Carlo."""
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(7)
    n_nonzero = {"k1": 1, "k3": 3, "k6": 6, "k9": 9, "none_zero": 20}
    q, a, b, segment = [], [], [], []
    for name, k in n_nonzero.items():
        base = rng.uniform(0.2, 0.6, 20)
        step = np.zeros(20)
        step[:k] = -rng.uniform(0.01, 0.3, k)             # all losses: k = 6 and 9 reach p < 0.05
        q += [f"{name}_{i:02d}" for i in range(20)]
        a.append(base)
        b.append(base + step)
        segment += [name] * 20
    a, b = np.concatenate(a), np.concatenate(b)
    df = pl.DataFrame({"system": ["a"] * len(q) + ["b"] * len(q), "qid": q * 2, "measure": "nDCG@10",
                       "value": np.r_[a, b]})
    seg = pl.DataFrame({"qid": q, "segment_set": "nonzero", "segment": segment})
    con = duckdb.connect()
    con.register("t", df.to_arrow())
    for table in (df, con.sql("SELECT * FROM t")):
        out = _quiet(pf.compare_segments, table, seg, baseline="a", n_resamples=999, seed=3, alternative=alternative)
        for row in out.iter_rows(named=True):
            d = (b - a)[np.array(segment) == row["segment"]]
            if row["segment"] == "none_zero":
                assert not row["exact"]
                continue
            assert row["exact"] and row["pvalue"] == pytest.approx(_brute_force_pvalue(d, alternative), abs=1e-12)
            excludes_zero = row["ci_low"] > 0 or row["ci_high"] < 0
            assert excludes_zero == (row["pvalue"] < 0.05) == (row["segment"] in ("k6", "k9"))


def test_compare_clustered_in_duckdb_fetches_every_comparisons_nonzero_cluster_sums_in_one_query(duckdb_relation):
    """Three comparisons settled on their few non-zero cluster sums: one query fetches them all, and each
    p is the one it gets compared alone."""
    from unittest import mock

    from pairedframe.comparison.engine_tables import DuckDBTable

    clusters, _, d, frame = _zero_sum_clusters_frame()
    a = frame.filter(pl.col("system") == "a")
    frame = pl.concat([frame] + [a.with_columns(pl.lit(name).alias("system"), pl.col("value") + scale * d)
                                 for name, scale in [("c", 2.0), ("d", -1.0)]])
    queries, real = [], DuckDBTable.collect

    def spy(self, sql, *args, **kwargs):
        queries.append(sql)
        return real(self, sql, *args, **kwargs)

    def run(systems):
        source = duckdb_relation(frame.filter(pl.col("system").is_in(systems)))
        return _quiet(pf.compare_clustered, source, baseline="a", clusters=clusters, n_resamples=1000, seed=5,
                      interval="signflip").sort("system")

    with mock.patch.object(DuckDBTable, "collect", spy):
        together = run(["a", "b", "c", "d"])
    assert together["exact"].to_list() == [True] * 3
    assert sum(" s <> 0" in q for q in queries) == 1
    alone = pl.concat([run(["a", s]) for s in ("b", "c", "d")]).sort("system")
    assert together["pvalue"].to_list() == alone["pvalue"].to_list()


@pytest.mark.parametrize("test", ["randomization", "t"])
def test_all_zero_deltas_warning_says_the_pvalue_is_exactly_1(test, tmp_path):
    """k = 0 non-zero deltas: every flip gives the same statistic, so p = 1, not the 2 / 2**n of n deltas
    (0.25 for n = 3, which the warning said); the CLI prints the same warning."""
    from typer.testing import CliRunner

    from pairedframe.cli import app

    frame = pl.DataFrame({"system": ["a"] * 3 + ["b"] * 3, "qid": ["0", "1", "2"] * 2, "measure": "AP",
                          "value": [0.5] * 6})
    with pytest.warns(UserWarning, match=r"no comparison can be significant") as caught:
        got = pf.compare(frame, baseline="a", test=test)
    assert got["pvalue"].to_list() == [1.0]
    text = " ".join(str(w.message) for w in caught)
    assert "all 3 queries have a zero delta" in text and "exactly 1" in text and "0.25" not in text
    frame.write_csv(tmp_path / "pq.csv")
    res = CliRunner().invoke(app, ["compare", str(tmp_path / "pq.csv"), "-b", "a", "-m", "AP", "--test", test])
    assert res.exit_code == 0, res.output
    assert "all 3 queries have a zero delta" in res.stderr and "cannot go below 0.25" not in res.stderr
