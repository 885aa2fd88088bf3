"""The Edgeworth-corrected t quantile (stats.edgeworth) against a scalar loop and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairedframe.stats.edgeworth import edgeworth_t_pvalue, edgeworth_t_quantile, edgeworth_t_quantile_from_moments
from tests.reference.stats_reference import edgeworth_t_quantile_loop


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 40), seed=st.integers(0, 10_000), level=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
       shape=st.sampled_from(["normal", "exponential", "ties", "heavy"]))
def test_edgeworth_quantile_against_a_plain_loop(n, seed, level, shape):
    rng = np.random.default_rng(seed)
    x = {"normal": lambda: rng.normal(size=(n, 3)), "exponential": lambda: rng.exponential(size=(n, 3)),
         "ties": lambda: rng.choice([0.0, 0.0, 0.0, 0.1, 0.7], size=(n, 3)),
         "heavy": lambda: rng.standard_t(2, size=(n, 3))}[shape]()
    got = edgeworth_t_quantile(x, n - 1, confidence_level=level)
    want = [edgeworth_t_quantile_loop(list(x[:, j]), n - 1, level) for j in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert edgeworth_t_quantile(x[:, 0], n - 1, confidence_level=level) == pytest.approx(want[0], rel=1e-12)
    c = x - x.mean(axis=0)
    moments = [np.mean(c ** k, axis=0) for k in (2, 3, 4)]
    np.testing.assert_allclose(edgeworth_t_quantile_from_moments(*moments, n, n - 1, confidence_level=level),
                               got, rtol=1e-9)


def test_edgeworth_quantile_of_constant_scores_is_scipys_t_quantile():
    stats = pytest.importorskip("scipy.stats")
    assert edgeworth_t_quantile(np.full(7, 0.3), 6) == pytest.approx(stats.t.ppf(0.975, 6), rel=1e-14)
    # affine rescaling leaves the shape, hence q, unchanged
    x = np.random.default_rng(3).exponential(size=12)
    assert edgeworth_t_quantile(5 * x - 2, 11) == pytest.approx(edgeworth_t_quantile(x, 11), rel=1e-12)


def test_edgeworth_widens_for_skewed_and_stays_at_t_on_average_for_normal_samples():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    t = stats.t.ppf(0.975, 19)
    skewed = edgeworth_t_quantile(rng.lognormal(0, 1, size=(20, 2000)), 19)
    normal = edgeworth_t_quantile(rng.normal(size=(20, 2000)), 19)
    assert np.all(skewed >= stats.norm.ppf(0.975)) and np.mean(skewed) > 1.05 * t
    assert abs(np.mean(normal) / t - 1) < 0.01          # the moments are centred at their normal expectations


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 30), seed=st.integers(0, 10_000), z=st.floats(0.05, 8.0))
def test_edgeworth_pvalue_is_dual_to_the_interval(n, seed, z):
    x = np.random.default_rng(seed).exponential(size=n)
    p = edgeworth_t_pvalue(z, x, n - 1)
    assert 0.0 < p <= 1.0
    if 1e-9 < p < 1 - 1e-9:
        assert edgeworth_t_quantile(x, n - 1, confidence_level=1 - p) == pytest.approx(z, rel=1e-6)
    for alpha in (0.01, 0.05, 0.1):
        q = edgeworth_t_quantile(x, n - 1, confidence_level=1 - alpha)
        assert (z > q) == (p < alpha) or abs(z - q) < 1e-9
    assert edgeworth_t_pvalue(0.0, x, n - 1) == 1.0 and edgeworth_t_pvalue(np.inf, x, n - 1) == 0.0


def test_edgeworth_bad_input_raises():
    with pytest.raises(ValueError, match="at least 2 rows"):
        edgeworth_t_quantile([1.0], 1)
    with pytest.raises(ValueError, match="finite"):
        edgeworth_t_quantile([1.0, np.nan], 1)
    with pytest.raises(ValueError, match="df"):
        edgeworth_t_quantile([1.0, 2.0], 0)
    with pytest.raises(ValueError, match="confidence_level"):
        edgeworth_t_quantile([1.0, 2.0], 1, confidence_level=1.5)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 30))
def test_edgeworth_quantile_never_narrows_as_the_level_rises(seed, n):
    """Rare large values (strong skew) bent the one-step quantile back in the far tail (newcomer round 3)."""
    rng = np.random.default_rng(seed)
    x = np.where(rng.uniform(size=(n, 4)) < 0.15, rng.exponential(size=(n, 4)), 0.0) + rng.normal(0, 0.02, (n, 4))
    levels = [0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 0.9999]
    q = np.array([edgeworth_t_quantile(x, n - 1, confidence_level=L) for L in levels])
    assert np.all(np.diff(q, axis=0) >= -1e-4 * q[1:])       # non-decreasing up to the grid's resolution
