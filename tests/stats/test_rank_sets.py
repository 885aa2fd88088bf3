"""The rank-set kernel against a loop reference, and the properties a set of ranks must have."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pairedframe.stats.rank_agreement import tie_rounded
from pairedframe.stats.rank_sets import point_ranks, rank_sets
from pairedframe.stats.resample import bootstrap_index_chunks
from tests.reference.rank_sets_reference import rank_sets_loop


def _tied(a: float, b: float, means) -> bool:
    rounded = dict(zip(means, tie_rounded(np.asarray(means)[None, :])[0]))
    return rounded[a] == rounded[b]


def _exact_tie(X, index, B) -> bool:
    """A pair's |z| equal (to 1e-9) to a resample's |T*|: whether it exceeds a critical value is then
    rounding (the kernel's second moments against the reference's ``statistics.stdev``), as on a grid."""
    import pairedframe.stats.rank_sets as kernel

    se = kernel._pair_se(X)
    means = X.mean(axis=0)
    z = np.abs(means[:, None] - means[None, :])[se > 0] / se[se > 0]
    T = np.abs(np.concatenate(list(kernel._Draws(X, lambda: [index], se > 0, B).blocks(se > 0))))
    return bool(np.isclose(z[:, None], T[np.isfinite(T)][None, :], rtol=1e-9, atol=0).any())


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 9), p=st.integers(2, 5), seed=st.integers(0, 2**32 - 1), simultaneous=st.booleans(),
       level=st.sampled_from([0.5, 0.8, 0.9, 0.95]), design=st.sampled_from(["normal", "grid", "near"]))
def test_rank_sets_against_loop_reference(n, p, seed, simultaneous, level, design):
    rng = np.random.default_rng(seed)
    if design == "grid":
        X = rng.integers(0, 4, size=(n, p)) / 4
    elif design == "near":  # copies of one run differing on a few queries: the unpaired-SE floor binds
        X = rng.normal(size=(n, 1)) + (rng.random((n, p)) < 0.25) * rng.normal(size=(n, p))
    else:
        X = rng.normal(size=(n, p)) + np.arange(p) * 0.3
    B = 60
    index = next(bootstrap_index_chunks(n, B, seed=seed))
    assume(not _exact_tie(X, index, B))
    got = rank_sets(X, lambda: [index], n_resamples=B, confidence_level=level, simultaneous=simultaneous)
    means = list(X.mean(axis=0))
    ranks, lows, highs = rank_sets_loop([list(c) for c in X.T], [list(r) for r in index], level, simultaneous,
                                        tied=lambda a, b: _tied(a, b, means))
    assert got.statistic.tolist() == ranks
    assert got.confidence_interval.low.tolist() == lows
    assert got.confidence_interval.high.tolist() == highs


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 30), p=st.integers(2, 8), seed=st.integers(0, 2**32 - 1), simultaneous=st.booleans())
def test_rank_set_holds_its_point_rank(n, p, seed, simultaneous):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, p)) / 2 + rng.normal(scale=0.01, size=(n, p)) * rng.integers(0, 2)
    out = rank_sets(X, lambda: bootstrap_index_chunks(n, 99, seed=seed), n_resamples=99, simultaneous=simultaneous)
    low, high = out.confidence_interval
    assert (low <= out.statistic).all() and (out.statistic <= high).all()
    assert (low >= 1).all() and (high <= p).all()


def test_simultaneous_rank_sets_are_no_narrower_than_marginal_ones():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 6)) + np.linspace(0, 1.2, 6)
    joint = rank_sets(X, lambda: bootstrap_index_chunks(40, 999, seed=1), n_resamples=999)
    each = rank_sets(X, lambda: bootstrap_index_chunks(40, 999, seed=1), n_resamples=999, simultaneous=False)
    assert (joint.confidence_interval.low <= each.confidence_interval.low).all()
    assert (joint.confidence_interval.high >= each.confidence_interval.high).all()
    assert (joint.critical_value >= each.critical_value).all()


def test_rank_sets_do_not_depend_on_the_chunking():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(25, 4)) + np.arange(4) * 0.4
    whole = rank_sets(X, lambda: bootstrap_index_chunks(25, 500, seed=2), n_resamples=500)
    pieces = rank_sets(X, lambda: bootstrap_index_chunks(25, 500, seed=2, chunk_size=7), n_resamples=500)
    assert np.array_equal(whole.critical_value, pieces.critical_value)


@pytest.mark.parametrize("simultaneous", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rank_sets_under_tight_memory_bounds_against_loop_reference(seed, simultaneous, monkeypatch):
    """T* drawn again at every step and the products held by bands give the loop reference's sets and the
    default path's critical values (to 1e-12)."""
    import pairedframe.stats.rank_sets as kernel

    rng = np.random.default_rng(seed)
    n, p, B = 12, 6, 99
    X = rng.normal(size=(n, 1)) + (rng.random((n, p)) < 0.5) * rng.normal(size=(n, p)) + np.arange(p) * 0.2
    index = next(bootstrap_index_chunks(n, B, seed=seed))
    default = rank_sets(X, lambda: [index], n_resamples=B, simultaneous=simultaneous)
    monkeypatch.setattr(kernel, "_CACHED_ELEMENTS", 2 * n)
    monkeypatch.setattr(kernel, "_BLOCK_ELEMENTS", 4 * p * p)
    tight = rank_sets(X, lambda: [index], n_resamples=B, simultaneous=simultaneous)
    means = list(X.mean(axis=0))
    ranks, lows, highs = rank_sets_loop([list(c) for c in X.T], [list(r) for r in index], 0.95, simultaneous,
                                        tied=lambda a, b: _tied(a, b, means))
    assert tight.confidence_interval.low.tolist() == lows
    assert tight.confidence_interval.high.tolist() == highs
    np.testing.assert_allclose(tight.critical_value, default.critical_value, rtol=1e-12, atol=0)


def test_identical_systems_share_their_rank_and_are_never_ordered():
    x = np.array([0.1, 0.5, 0.3, 0.9, 0.2])
    X = np.column_stack([x, x, x + 10.0])
    out = rank_sets(X, lambda: bootstrap_index_chunks(5, 99, seed=0), n_resamples=99)
    assert out.statistic.tolist() == [2, 2, 1]
    # a constant shift of +10 has no spread: never ordered either, so every set is {1, 2, 3}
    assert out.confidence_interval.low.tolist() == [1, 1, 1]
    assert out.confidence_interval.high.tolist() == [3, 3, 3]


def test_too_few_resamples_give_every_rank():
    X = np.random.default_rng(5).normal(size=(10, 3)) + [0, 5, 10]
    out = rank_sets(X, lambda: bootstrap_index_chunks(10, 10, seed=0), n_resamples=10, confidence_level=0.95)
    assert np.isinf(out.critical_value).all()
    assert out.confidence_interval.low.tolist() == [1, 1, 1] and out.confidence_interval.high.tolist() == [3, 3, 3]


def test_well_separated_systems_get_single_ranks():
    X = np.random.default_rng(6).normal(scale=0.01, size=(50, 3)) + [0.2, 0.5, 0.8]
    out = rank_sets(X, lambda: bootstrap_index_chunks(50, 999, seed=0), n_resamples=999)
    assert out.confidence_interval.low.tolist() == [3, 2, 1] == out.confidence_interval.high.tolist()


def test_point_ranks_share_the_better_rank_on_ties():
    assert point_ranks(np.array([0.3, 0.5, 0.3, 0.1])).tolist() == [2, 1, 2, 4]


@pytest.mark.parametrize("X", [np.zeros((1, 3)), np.zeros((5, 1)), np.zeros(5), np.array([[0.0, np.nan], [1, 2]])])
def test_rank_sets_refuse_bad_shapes_and_values(X):
    with pytest.raises(ValueError, match="`X` must"):
        rank_sets(X, lambda: [], n_resamples=1)
