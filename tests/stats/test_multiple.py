import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from pairedframe.stats.multiple import benjamini_hochberg, holm
from tests.reference import stats_reference as ref

pvals = arrays(np.float64, st.integers(1, 30),
               elements=st.one_of(st.floats(0, 1), st.sampled_from([0.01, 0.05, 0.5, 1.0])))


@settings(max_examples=25, deadline=None)
@given(p=pvals)
def test_holm_and_bh_against_statsmodels(p):
    mt = pytest.importorskip("statsmodels.stats.multitest")
    np.testing.assert_allclose(holm(p), mt.multipletests(p, method="holm")[1], rtol=1e-12,
                               atol=1e-15)
    np.testing.assert_allclose(benjamini_hochberg(p), mt.multipletests(p, method="fdr_bh")[1],
                               rtol=1e-12, atol=1e-15)


@settings(max_examples=50, deadline=None)
@given(p=pvals)
def test_bh_against_scipy_false_discovery_control(p):
    stats = pytest.importorskip("scipy.stats")
    np.testing.assert_allclose(benjamini_hochberg(p), stats.false_discovery_control(p),
                               rtol=1e-12, atol=1e-15)


@settings(max_examples=50, deadline=None)
@given(p=pvals)
def test_holm_and_bh_against_loop_reference(p):
    np.testing.assert_allclose(holm(p), ref.holm_loop(p.tolist()), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(benjamini_hochberg(p), ref.bh_loop(p.tolist()), rtol=1e-12,
                               atol=1e-15)
    assert np.all(holm(p) >= p) and np.all(benjamini_hochberg(p) >= p)
    assert np.all(holm(p) >= benjamini_hochberg(p) - 1e-15)


def test_nan_rule_against_family_without_nans():
    p = np.array([0.01, np.nan, 0.04, 0.03, np.nan])
    finite = p[~np.isnan(p)]
    for f in (holm, benjamini_hochberg):
        out = f(p)
        assert np.isnan(out[[1, 4]]).all()
        np.testing.assert_array_equal(out[~np.isnan(p)], f(finite))
        assert f(np.array([np.nan, np.nan])).tolist() != [0, 0]
        assert np.isnan(f(np.array([np.nan]))).all()
        assert f(np.array([])).shape == (0,)
    np.testing.assert_allclose(holm(p)[[0, 2, 3]], [0.03, 0.06, 0.06])
    with pytest.raises(ValueError, match="p"):
        holm([0.5, 1.5])
    with pytest.raises(ValueError, match="p"):
        benjamini_hochberg([[0.5]])


floors = st.sampled_from([0.0, 1 / 10_001, 1 / 100, 2 / 2**5, 2 / 2**3, 0.5])


@settings(max_examples=300, deadline=None)
@given(p=pvals, data=st.data(), level=st.sampled_from([0.01, 0.05, 0.1, 0.2]),
       method=st.sampled_from(["bh", "holm"]))
def test_rejected_at_floor_against_the_corrections_recomputed_with_each_p_at_its_floor(p, data, level, method):
    from pairedframe.stats.multiple import rejected_at_floor

    floor = np.array(data.draw(st.lists(floors, min_size=p.size, max_size=p.size)))
    adjust = benjamini_hochberg if method == "bh" else holm
    expected = []
    for i in range(p.size):
        q = p.copy()
        q[i] = min(q[i], floor[i])
        expected.append(bool(adjust(q)[i] <= level))
    got = rejected_at_floor(p, floor, level, method)
    assert got.tolist() == expected
    assert not np.any((adjust(p) <= level) & ~got)          # monotone: rejected stays rejected


@settings(max_examples=300, deadline=None)
@given(data=st.data(), level=st.sampled_from([0.01, 0.05, 0.1]), method=st.sampled_from(["bh", "holm"]))
def test_rejected_at_floor_strict_rejects_only_below_the_level_recomputed(data, level, method):
    """strict=True: adjusted p < level, so a p or floor whose adjusted value equals the level (a grid of
    multiples of the level makes such ties common) is not rejected."""
    from pairedframe.stats.multiple import rejected_at_floor

    grid = [level / 2, level, 2 * level, level / 3, 1.0, 0.0]
    p = np.array(data.draw(st.lists(st.sampled_from(grid), min_size=1, max_size=6)))
    floor = np.array(data.draw(st.lists(st.sampled_from(grid), min_size=p.size, max_size=p.size)))
    adjust = benjamini_hochberg if method == "bh" else holm
    expected = []
    for i in range(p.size):
        q = p.copy()
        q[i] = min(q[i], floor[i])
        expected.append(bool(adjust(q)[i] < level))
    assert rejected_at_floor(p, floor, level, method, strict=True).tolist() == expected


def test_rejected_at_floor_strict_at_a_floor_equal_to_the_level():
    """One test whose floor is the level (1 / (19 + 1) = 0.05): rejected with <=, not with <."""
    from pairedframe.stats.multiple import rejected_at_floor

    assert rejected_at_floor([0.5], [0.05], 0.05, "holm").tolist() == [True]
    assert rejected_at_floor([0.5], [0.05], 0.05, "holm", strict=True).tolist() == [False]
    assert rejected_at_floor([0.5], [0.05], 0.05, "bh", strict=True).tolist() == [False]
    with pytest.raises(TypeError, match="`strict`"):
        rejected_at_floor([0.5], [0.05], 0.05, "bh", strict="yes")


@settings(max_examples=15, deadline=None)       # multipletests is slow: ~0.1 s a call
@given(p=arrays(np.float64, st.integers(1, 10), elements=st.floats(0, 1)), data=st.data(),
       method=st.sampled_from(["bh", "holm"]))
def test_rejected_at_floor_against_statsmodels_multipletests(p, data, method):
    mt = pytest.importorskip("statsmodels.stats.multitest")
    from pairedframe.stats.multiple import rejected_at_floor

    floor = np.array(data.draw(st.lists(st.floats(0, 1), min_size=p.size, max_size=p.size)))
    name = {"bh": "fdr_bh", "holm": "holm"}[method]
    expected = []
    for i in range(p.size):
        q = p.copy()
        q[i] = min(q[i], floor[i])
        expected.append(bool(mt.multipletests(q, alpha=0.05, method=name)[0][i]))
    got = rejected_at_floor(p, floor, 0.05, method)
    # statsmodels compares p with alpha * j / m where we compare the adjusted p with alpha: equal but
    # at float ties on the boundary, which continuous draws make improbable
    assert got.tolist() == expected


def test_rejected_at_floor_leaves_nan_out_and_checks_its_arguments():
    from pairedframe.stats.multiple import rejected_at_floor

    p = np.array([0.02, np.nan, 0.9])
    got = rejected_at_floor(p, np.array([0.001, 0.0, 0.001]), 0.05, "bh")
    assert got.tolist() == [True, False, True]        # m = 2: 0.001 <= 0.05 * 1 / 2 for either row
    with pytest.raises(ValueError, match="floor"):
        rejected_at_floor(p, np.zeros(2), 0.05, "bh")
    with pytest.raises(ValueError, match="method"):
        rejected_at_floor(p, np.zeros(3), 0.05, "by")
