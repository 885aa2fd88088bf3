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
