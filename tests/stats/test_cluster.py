"""Cluster bootstrap and cluster sign-flip test: scipy oracles, loop reference, invariances."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pairedframe.errors import InsufficientSampleError, SmallSampleWarning
from pairedframe.stats.cluster import (
    cluster_bootstrap,
    cluster_bootstrap_many,
    cluster_sign_flip_test,
    cluster_sign_flip_test_many,
    cluster_summaries,
)
from tests.reference.cluster_reference import (
    ref_cluster_bootstrap,
    ref_cluster_sign_flip,
    ref_summaries,
)

pytestmark = pytest.mark.filterwarnings("ignore::pairedframe.errors.SmallSampleWarning")


def _clustered(seed, G=25, max_size=6, grid=None, labels="str"):
    """Deltas with unequal cluster sizes and a cluster effect; labels of the requested kind."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, max_size + 1, G)
    effect = rng.normal(0.02, 0.05, G)
    x = np.concatenate([e + rng.normal(0, 0.1, s) for e, s in zip(effect, sizes)])
    if grid is not None:
        x = np.round(x / grid) * grid
    ids = rng.permutation(10 * G)[:G]  # sparse ids: G != max id + 1
    lab = np.repeat(ids, sizes)
    if labels == "str":
        lab = np.array([f"topic-{i}" for i in lab])
    order = rng.permutation(x.size)
    return x[order], lab[order]


def _stat(s, m, axis=-1):
    return s.sum(axis=axis) / m.sum(axis=axis)


# ---------------------------------------------------------------- summaries

def test_cluster_summaries_against_dict_grouping():
    x, lab = _clustered(0)
    sums, sizes = cluster_summaries(x, lab)
    rsums, rsizes = ref_summaries(x, lab)
    assert sizes.shape == (25,)
    np.testing.assert_array_equal(sizes, rsizes)
    np.testing.assert_allclose(sums, rsums, rtol=0, atol=1e-14)


def test_cluster_count_is_number_of_distinct_labels_not_max_plus_one():
    sums, sizes = cluster_summaries([1.0, 2.0, 3.0, 4.0], [0, 100, 100, 7])
    assert list(sizes) == [1.0, 1.0, 2.0]
    assert sorted(sums.tolist()) == [1.0, 4.0, 5.0]


def test_cluster_summaries_mixed_object_labels():
    sums, sizes = cluster_summaries([1.0, 2.0, 3.0], np.array([1, "1", 1], dtype=object))
    assert list(sizes) == [1.0, 2.0] and list(sums) == [2.0, 4.0]


# ---------------------------------------------------------------- bootstrap vs scipy

@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("confidence_level", [0.95, 0.9])
def test_cluster_bootstrap_against_scipy_bootstrap(seed, confidence_level):
    stats = pytest.importorskip("scipy.stats")
    x, lab = _clustered(seed, G=30 + seed)
    sums, sizes = cluster_summaries(x, lab)
    ref = stats.bootstrap((sums, sizes), _stat, paired=True, vectorized=True, method="percentile",
                          n_resamples=3000, confidence_level=confidence_level,
                          rng=np.random.default_rng(seed))
    res = cluster_bootstrap(x, lab, n_resamples=3000, confidence_level=confidence_level,
                            seed=np.random.default_rng(seed), chunk_size=700)
    assert res.statistic == pytest.approx(x.mean(), rel=1e-13)
    # same index stream, same per-row summation (gather kernel): bit for bit
    assert res.confidence_interval.low == ref.confidence_interval.low
    assert res.confidence_interval.high == ref.confidence_interval.high
    assert res.standard_error == ref.standard_error
    assert res.method == "percentile" and res.n_resamples == 3000


@pytest.mark.parametrize("alternative", ["less", "greater"])
def test_cluster_bootstrap_one_sided_against_scipy_bootstrap(alternative):
    stats = pytest.importorskip("scipy.stats")
    x, lab = _clustered(7, G=40)
    sums, sizes = cluster_summaries(x, lab)
    ref = stats.bootstrap((sums, sizes), _stat, paired=True, vectorized=True, method="percentile",
                          n_resamples=2000, alternative=alternative, rng=np.random.default_rng(7))
    res = cluster_bootstrap(x, lab, n_resamples=2000, alternative=alternative, seed=np.random.default_rng(7))
    assert tuple(res.confidence_interval) == tuple(ref.confidence_interval)


def test_cluster_bootstrap_against_loop_reference():
    x, lab = _clustered(3, G=12, max_size=4)
    sums, sizes = cluster_summaries(x, lab)
    stat, low, high, se, _ = ref_cluster_bootstrap(sums, sizes, n_resamples=1000, seed=11)
    res = cluster_bootstrap(x, lab, n_resamples=1000, seed=11)
    assert res.statistic == pytest.approx(stat, rel=1e-13)
    assert res.confidence_interval.low == pytest.approx(low, rel=1e-12)
    assert res.confidence_interval.high == pytest.approx(high, rel=1e-12)
    assert res.standard_error == pytest.approx(se, rel=1e-12)


def test_cluster_bootstrap_many_against_loop_reference_shared_stream():
    x, lab = _clustered(4, G=15)
    rng = np.random.default_rng(0)
    X = np.column_stack([x, 2 * x + rng.normal(0, 0.01, x.size), rng.normal(0, 1, x.size)])
    sums, sizes = cluster_summaries(X, lab)
    res = cluster_bootstrap_many(X, lab, n_resamples=800, seed=5)
    for c in range(3):
        stat, low, high, se, _ = ref_cluster_bootstrap(sums[:, c], sizes, n_resamples=800, seed=5)
        assert res.statistic[c] == pytest.approx(stat, rel=1e-12)
        assert res.confidence_interval.low[c] == pytest.approx(low, rel=1e-12)
        assert res.confidence_interval.high[c] == pytest.approx(high, rel=1e-12)
        assert res.standard_error[c] == pytest.approx(se, rel=1e-12)


def test_cluster_bootstrap_many_single_column_equals_single():
    x, lab = _clustered(5)
    one = cluster_bootstrap(x, lab, n_resamples=500, seed=2)
    many = cluster_bootstrap_many(x[:, None], lab, n_resamples=500, seed=2)
    assert many.confidence_interval.low[0] == one.confidence_interval.low
    assert many.confidence_interval.high[0] == one.confidence_interval.high
    assert many.standard_error[0] == one.standard_error


def test_cluster_bootstrap_independent_of_chunk_size():
    x, lab = _clustered(6)
    a = cluster_bootstrap(x, lab, n_resamples=1000, seed=3, chunk_size=1)
    b = cluster_bootstrap(x, lab, n_resamples=1000, seed=3, chunk_size=333)
    c = cluster_bootstrap(x, lab, n_resamples=1000, seed=3)
    assert a == b == c  # bit for bit (gather kernel)


def test_cluster_bootstrap_constant_values():
    res = cluster_bootstrap(np.full(40, 0.1), np.repeat(np.arange(20), 2), n_resamples=200, seed=0)
    assert res.standard_error == 0.0
    assert res.confidence_interval.low == res.confidence_interval.high == res.statistic


def test_cluster_bootstrap_is_wider_than_naive_under_cluster_correlation():
    rng = np.random.default_rng(9)
    effect = rng.normal(0, 0.1, 60)
    x = np.repeat(effect, 8) + rng.normal(0, 0.01, 480)
    lab = np.repeat(np.arange(60), 8)
    clustered = cluster_bootstrap(x, lab, n_resamples=2000, seed=1)
    naive = cluster_bootstrap(x, np.arange(480), n_resamples=2000, seed=1)
    assert clustered.standard_error > 2 * naive.standard_error


# ---------------------------------------------------------------- sign flip vs scipy

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 10), st.integers(0, 2**32 - 1), st.sampled_from(["two-sided", "greater", "less"]))
def test_cluster_sign_flip_exact_against_scipy_permutation_test(G, seed, alternative):
    stats = pytest.importorskip("scipy.stats")
    x, lab = _clustered(seed, G=G, max_size=4, grid=0.125, labels="int")
    sums, sizes = cluster_summaries(x, lab)
    N = sizes.sum()
    res = cluster_sign_flip_test(x, lab, alternative=alternative, n_resamples=10_000)
    assert res.exact and res.n_resamples == 2**G
    ref = stats.permutation_test((sums,), lambda s, axis=-1: s.sum(axis=axis) / N,
                                 permutation_type="samples", vectorized=True,
                                 n_resamples=np.inf, alternative=alternative)
    null, obs = ref.null_distribution, ref.statistic
    assert null.size == 2**G
    assert res.statistic == pytest.approx(obs, abs=1e-15)
    if np.all(sums == 0):
        assert res.pvalue == 1.0
    elif alternative == "two-sided":  # scipy doubles the smaller one-sided p; we count |T*| >= |T|
        expected = np.count_nonzero(np.abs(null) >= np.abs(obs) - 1e-12) / null.size
        assert res.pvalue == pytest.approx(expected, abs=1e-15)
    else:  # one-sided definitions coincide with scipy's
        assert res.pvalue == pytest.approx(ref.pvalue, abs=1e-15)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_cluster_sign_flip_exact_against_loop_reference(alternative):
    x, lab = _clustered(8, G=9, grid=0.1)
    sums, sizes = cluster_summaries(x, lab)
    obs, p, exact = ref_cluster_sign_flip(sums, sizes, n_resamples=1000, alternative=alternative)
    res = cluster_sign_flip_test(x, lab, n_resamples=1000, alternative=alternative)
    assert exact and res.exact and res.n_resamples == 512
    assert res.pvalue == pytest.approx(p, abs=1e-15)


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_cluster_sign_flip_monte_carlo_against_loop_reference(alternative):
    x, lab = _clustered(10, G=70, grid=0.05)  # 70 clusters: two uint64 words per pattern
    sums, sizes = cluster_summaries(x, lab)
    obs, p, exact = ref_cluster_sign_flip(sums, sizes, n_resamples=1500, alternative=alternative, seed=4)
    res = cluster_sign_flip_test(x, lab, n_resamples=1500, alternative=alternative, seed=4, chunk_size=100)
    assert not exact and not res.exact and res.n_resamples == 1500
    assert res.statistic == pytest.approx(obs, rel=1e-13)
    assert res.pvalue == pytest.approx(p, abs=1e-15)


def test_cluster_sign_flip_all_zero_gives_one_and_never_zero():
    lab = np.repeat(np.arange(30), 2)
    assert cluster_sign_flip_test(np.zeros(60), lab, seed=0).pvalue == 1.0
    assert cluster_sign_flip_test(np.zeros(6), lab[:6], seed=0).pvalue == 1.0  # exact branch
    strong = cluster_sign_flip_test(np.full(60, 0.3), lab, n_resamples=999, seed=0)
    assert strong.pvalue == 1 / 1000  # (0 + 1) / (999 + 1)


def _zero_sum_clusters():
    """14 clusters of 3 deltas: 8 summing to non-zero values (mixed signs, on a 0.01 grid, so patterns tie),
    6 to 0 -- all ties, gains and losses cancelling exactly, or up to float noise (0.3 - 0.1 - 0.2)."""
    rng = np.random.default_rng(21)
    zero = [[0.0, 0.0, 0.0], [0.1, -0.1, 0.0], [0.3, -0.1, -0.2], [0.0, 0.0, 0.0], [0.2, 0.0, -0.2], [0.0] * 3]
    nonzero = [list(np.round(rng.normal(0.03, 0.08, 3), 2)) for _ in range(8)]
    order = rng.permutation(14)
    x = np.array(zero + nonzero, dtype=np.float64)[order].ravel()
    return x, np.array([f"topic-{g}" for g in np.repeat(rng.permutation(100)[:14], 3)])


def _brute_force_cluster_pvalue(x, labels, alternative):
    """(p, k): every sign pattern of the k clusters whose summed delta is not 0 (a sum within 1e-9 of the
    largest |delta| of 0 counts as 0), enumerated with itertools: the exact cluster sign-flip p."""
    sums = np.array([x[labels == g].sum() for g in sorted(set(labels))])
    nonzero = sums[np.abs(sums) > 1e-9 * np.max(np.abs(x))]
    observed = sums.sum()
    tol = 1e-9 * max(abs(observed), 1e-12)
    extreme = 0
    for signs in itertools.product((1.0, -1.0), repeat=nonzero.size):
        null = float(np.dot(signs, nonzero))
        extreme += {"two-sided": abs(null) >= abs(observed) - tol, "greater": null >= observed - tol,
                    "less": null <= observed + tol}[alternative]
    return extreme / 2 ** nonzero.size, nonzero.size


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_cluster_sign_flip_with_zero_cluster_sums_against_brute_force_enumeration(alternative):
    """2**14 cluster patterns > 1000 resamples: Monte Carlo before; the 8 non-zero sums' 2**8 patterns are
    enumerated (a zero sum flips to itself), in the test, its many-column form and the inverted interval."""
    from pairedframe.stats.cluster_interval import cluster_sign_flip_interval_many
    from pairedframe.stats.levels import decision_alpha

    x, lab = _zero_sum_clusters()
    want, k = _brute_force_cluster_pvalue(x, lab, alternative)
    mirrored, _ = _brute_force_cluster_pvalue(-x, lab, alternative)
    assert k == 8 and 2 ** 14 > 1000
    res = cluster_sign_flip_test(x, lab, n_resamples=1000, alternative=alternative, seed=3)
    assert res.exact and res.n_resamples == 2 ** 8
    assert res.pvalue == pytest.approx(want, abs=1e-12)
    X = np.column_stack([x, -x, x + 0.01])                 # the last: no zero sum, Monte Carlo as before
    many = cluster_sign_flip_test_many(X, lab, n_resamples=1000, alternative=alternative, seed=3)
    assert many.exact.tolist() == [True, True, False] and many.n_resamples == 1000
    assert many.pvalue[0] == res.pvalue and many.pvalue[1] == pytest.approx(mirrored, abs=1e-12)
    for level in (0.8, 0.9, 0.95, 0.99):
        flip = cluster_sign_flip_interval_many(X, lab, n_resamples=1000, alternative=alternative, seed=3,
                                               confidence_level=level)
        np.testing.assert_array_equal(flip.pvalue, many.pvalue)
        np.testing.assert_array_equal(flip.exact, many.exact)
        low, high = flip.confidence_interval
        np.testing.assert_array_equal((low <= 0) & (0 <= high), flip.pvalue >= decision_alpha(level))


def test_cluster_sign_flip_monte_carlo_pvalue_held_at_the_exact_floor_of_nonzero_sums():
    """7 positive cluster sums among 12 (5 zero), 100 resamples < 2**7: Monte Carlo, whose draws miss both
    extreme patterns with chance (126/128)**100 = 0.21 and then gave 1 / 101, below the exact p 2 / 2**7."""
    from pairedframe.stats.cluster_interval import cluster_sign_flip_interval_many

    x = np.r_[np.zeros(15), np.repeat([0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35], 3)]
    lab = np.repeat(np.arange(12), 3)
    floor = 2 / 2 ** 7
    p = []
    for seed in range(12):
        res = cluster_sign_flip_test(x, lab, n_resamples=100, seed=seed)
        flip = cluster_sign_flip_interval_many(x[:, None], lab, n_resamples=100, seed=seed)
        assert res.pvalue >= floor and flip.pvalue[0] == res.pvalue
        assert not res.exact and res.n_resamples == 100 and not np.any(flip.exact)
        p.append(res.pvalue)
    assert floor in p


def test_cluster_sign_flip_many_columns_share_stream():
    x, lab = _clustered(12, G=40)
    X = np.column_stack([x, -x, x + 0.01])
    many = cluster_sign_flip_test_many(X, lab, n_resamples=2000, seed=1)
    for c in range(3):
        sums, sizes = cluster_summaries(X, lab)
        _, p, _ = ref_cluster_sign_flip(sums[:, c], sizes, n_resamples=2000, seed=1)
        assert many.pvalue[c] == pytest.approx(p, abs=1e-15)
    assert many.pvalue[0] == many.pvalue[1]  # two-sided is symmetric in the sign of the deltas


# ---------------------------------------------------------------- properties

@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-20, 20), min_size=3, max_size=40), st.integers(0, 2**32 - 1))
def test_cluster_singletons_against_plain_bootstrap_mean(ints, seed):
    from pairedframe.stats.bootstrap import bootstrap_mean

    x = np.asarray(ints, dtype=float) / 10
    labels = np.random.default_rng(seed).permutation(x.size) * 3  # one query per cluster
    res = cluster_bootstrap(x, labels, n_resamples=400, seed=seed)
    plain = bootstrap_mean(np.sort(x), n_resamples=400, seed=seed)  # canonical order = ascending
    assert res.statistic == pytest.approx(plain.statistic, abs=1e-14)
    assert res.confidence_interval.low == pytest.approx(plain.confidence_interval.low, abs=1e-13)
    assert res.confidence_interval.high == pytest.approx(plain.confidence_interval.high, abs=1e-13)
    assert res.standard_error == pytest.approx(plain.standard_error, abs=1e-13)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-20, 20), min_size=1, max_size=40), st.integers(0, 2**32 - 1),
       st.sampled_from(["two-sided", "greater", "less"]), st.sampled_from([200, 5000]))
def test_cluster_singletons_against_plain_sign_flip_test(ints, seed, alternative, n_resamples):
    randomization = pytest.importorskip("pairedframe.stats.randomization")
    x = np.asarray(ints, dtype=float) / 10
    labels = [f"q{i}" for i in np.random.default_rng(seed).permutation(x.size)]
    res = cluster_sign_flip_test(x, labels, n_resamples=n_resamples, alternative=alternative, seed=seed)
    plain = randomization.sign_flip_test(np.sort(x), n_resamples=n_resamples,
                                         alternative=alternative, seed=seed)
    assert res.exact == plain.exact and res.n_resamples == plain.n_resamples
    assert res.statistic == pytest.approx(plain.statistic, abs=1e-14)
    assert res.pvalue == pytest.approx(plain.pvalue, abs=1e-15)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40))
def test_cluster_results_invariant_to_relabelling_and_row_order(seed, G):
    x, lab = _clustered(seed, G=G, labels="int")
    rng = np.random.default_rng(seed + 1)
    uniq = np.unique(lab)
    new_names = {u: f"c{v:05d}" for u, v in zip(uniq, rng.permutation(uniq.size))}  # new sort order, new dtype
    lab2 = np.array([new_names[v] for v in lab])
    perm = rng.permutation(x.size)
    x2, lab2 = x[perm], lab2[perm]
    for f, kw in ((cluster_bootstrap, dict(n_resamples=300)),
                  (cluster_sign_flip_test, dict(n_resamples=300)),
                  (cluster_sign_flip_test, dict(n_resamples=2**min(G, 10)))):  # exact when G <= 10
        assert f(x, lab, seed=seed, **kw) == f(x2, lab2, seed=seed, **kw)
    s1, n1 = cluster_summaries(x, lab)
    s2, n2 = cluster_summaries(x2, lab2)
    np.testing.assert_array_equal(s1, s2)
    np.testing.assert_array_equal(n1, n2)


# ---------------------------------------------------------------- validation

@pytest.mark.parametrize("f", [cluster_bootstrap, cluster_sign_flip_test])
@pytest.mark.parametrize(
    "values,clusters,exc,match",
    [
        ([1.0, 2.0], [0], ValueError, "clusters"),
        ([1.0, 2.0], [0.0, np.nan], ValueError, "NaN"),
        ([1.0, 2.0], np.array(["a", None], dtype=object), ValueError, "missing"),
        ([1.0, np.inf], [0, 1], ValueError, "values"),
        ([[1.0, 2.0]], [0], ValueError, "values"),
        ([], [], InsufficientSampleError, "values"),
    ],
)
def test_cluster_validation(f, values, clusters, exc, match):
    with pytest.raises(exc, match=match):
        f(values, clusters)


def test_cluster_bootstrap_needs_two_clusters_and_warns_below_twenty():
    with pytest.raises(InsufficientSampleError, match="clusters"):
        cluster_bootstrap([1.0, 2.0, 3.0], ["a", "a", "a"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        with pytest.raises(SmallSampleWarning, match="5 clusters"):
            cluster_bootstrap(np.arange(10.0), np.repeat(np.arange(5), 2), n_resamples=10, seed=0)


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        (dict(n_resamples=1), ValueError, "n_resamples"),
        (dict(n_resamples=2.5), TypeError, "n_resamples"),
        (dict(confidence_level=1.0), ValueError, "confidence_level"),
        (dict(alternative="both"), ValueError, "alternative"),
        (dict(chunk_size=0), ValueError, "chunk_size"),
        (dict(seed="seed"), TypeError, "seed"),
        (dict(rng=0), TypeError, "no rng= any more; use seed="),
    ],
)
def test_cluster_bootstrap_option_validation(kwargs, exc, match):
    x, lab = _clustered(0)
    with pytest.raises(exc, match=match):
        cluster_bootstrap(x, lab, **kwargs)


@pytest.mark.parametrize(
    "kwargs,exc,match",
    [
        (dict(n_resamples=0), ValueError, "n_resamples"),
        (dict(alternative="two_sided"), ValueError, "alternative"),
        (dict(chunk_size=-3), ValueError, "chunk_size"),
    ],
)
def test_cluster_sign_flip_option_validation(kwargs, exc, match):
    x, lab = _clustered(0)
    with pytest.raises(exc, match=match):
        cluster_sign_flip_test(x, lab, **kwargs)
