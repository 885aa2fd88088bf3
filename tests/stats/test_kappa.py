"""Cohen's kappa against scikit-learn's cohen_kappa_score and a loop reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairedframe.stats.jackknife import jackknife_se, jackknife_t_interval
from pairedframe.stats.kappa import cohen_kappa, cohen_kappa_many, confusion_matrix
from tests.reference.agreement_reference import cohen_kappa_loop

labels = st.lists(st.tuples(st.integers(-1, 3), st.integers(-1, 3)), min_size=1, max_size=60)


def _kappa(pairs, weights):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    cats = sorted(set(a) | set(b))
    return cohen_kappa(confusion_matrix(a, b, cats), weights=weights)


@settings(max_examples=200, deadline=None)
@given(labels, st.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_against_loop_reference(pairs, weights):
    got = _kappa(pairs, weights)
    want = cohen_kappa_loop([x for x, _ in pairs], [y for _, y in pairs], weights)
    assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12)


@pytest.mark.oracle
@settings(max_examples=200, deadline=None)
@given(labels, st.sampled_from([None, "linear", "quadratic"]))
def test_cohen_kappa_against_sklearn(pairs, weights):
    metrics = pytest.importorskip("sklearn.metrics")
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    got = _kappa(pairs, weights)
    with np.errstate(invalid="ignore", divide="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = metrics.cohen_kappa_score(a, b, weights=weights)
    assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12)


def test_confusion_matrix_and_errors():
    cm = confusion_matrix([0, 1, 1, 2], [0, 1, 2, 2], [0, 1, 2])
    assert cm.tolist() == [[1, 0, 0], [0, 1, 1], [0, 0, 1]]
    with pytest.raises(ValueError, match="not among the categories"):
        confusion_matrix([0, 5], [0, 1], [0, 1])
    with pytest.raises(ValueError, match="square"):
        cohen_kappa([[1, 2, 3]])
    with pytest.raises(ValueError, match="weights"):
        cohen_kappa([[1]], weights="cubic")
    assert np.isnan(cohen_kappa([[0, 0], [0, 0]]))
    assert np.isnan(cohen_kappa([[5, 0], [0, 0]]))   # one category used by both: no chance model
    assert cohen_kappa([[5, 0], [0, 5]]) == 1.0


def _kappa_by_value(pairs, weights):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    cats = sorted(set(a) | set(b))
    return cohen_kappa(confusion_matrix(a, b, cats), weights=weights, values=cats)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([-1, 0, 2, 3, 7]), st.sampled_from([-1, 0, 2, 3, 7])), min_size=1,
                max_size=60), st.sampled_from([None, "linear", "quadratic"]))
def test_weighted_kappa_by_value_against_loop_reference(pairs, weights):
    got = _kappa_by_value(pairs, weights)
    want = cohen_kappa_loop([x for x, _ in pairs], [y for _, y in pairs], weights, by_value=True)
    assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12)


@pytest.mark.oracle
@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([-1, 0, 2, 3, 7]), st.sampled_from([-1, 0, 2, 3, 7])), min_size=1,
                max_size=60), st.sampled_from([None, "linear", "quadratic"]))
def test_weighted_kappa_by_value_against_sklearn(pairs, weights):
    """scikit-learn weighs by position in ``labels``: with every integer from the lowest to the highest
    grade as labels, positions differ exactly as values do."""
    metrics = pytest.importorskip("sklearn.metrics")
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    labels = list(range(min(a + b), max(a + b) + 1))
    import warnings
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = metrics.cohen_kappa_score(a, b, labels=labels, weights=weights)
    got = _kappa_by_value(pairs, weights)
    assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12)


@pytest.mark.oracle
@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_weighted_kappa_by_value_against_statsmodels(weights):
    """statsmodels' cohens_kappa(table, weights=scores, wt=...) weighs by the scores' differences."""
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(3)
    values = np.array([-1, 0, 1, 3, 4])
    a = rng.choice(values, 300)
    b = np.where(rng.random(300) < 0.6, a, rng.choice(values, 300))
    table = confusion_matrix(a, b, values)
    want = inter_rater.cohens_kappa(table, weights=values, wt=weights).kappa
    assert cohen_kappa(table, weights=weights, values=values) == pytest.approx(want, abs=1e-12)
    assert cohen_kappa(table, weights=weights) != pytest.approx(want, abs=1e-3)     # positions differ from values


def test_cohen_kappa_many_equals_one_by_one_and_checks_values():
    rng = np.random.default_rng(0)
    tables = rng.integers(0, 9, (40, 4, 4)).astype(float)
    tables[3] = 0.0                                                   # no items: NaN
    values = [0, 1, 2, 4]
    for weights in (None, "linear", "quadratic"):
        got = cohen_kappa_many(tables, weights=weights, values=values)
        want = [cohen_kappa(t, weights=weights, values=values) for t in tables]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-14)
    assert np.isnan(got[3])
    with pytest.raises(ValueError, match="distinct"):
        cohen_kappa(np.eye(2), values=[1, 1])
    with pytest.raises(ValueError, match="2 finite category values"):
        cohen_kappa(np.eye(2), values=[0, 1, 2])
    with pytest.raises(ValueError, match="shape"):
        cohen_kappa_many(np.eye(2))


def test_jackknife_t_interval_against_scipy_t():
    scipy_stats = pytest.importorskip("scipy.stats")
    loo = np.array([0.31, 0.35, 0.29, 0.4, 0.33])
    n = loo.size
    se = np.sqrt((n - 1) / n * np.sum((loo - loo.mean()) ** 2))
    assert jackknife_se(loo) == pytest.approx(se, rel=1e-14)
    half = scipy_stats.t.ppf(0.975, n - 1) * se
    low, high = jackknife_t_interval(0.33, loo)
    assert (low, high) == (pytest.approx(0.33 - half, rel=1e-14), pytest.approx(0.33 + half, rel=1e-14))
    assert jackknife_t_interval(0.98, loo, bounds=(-1.0, 1.0)).high == 1.0
    assert np.isnan(jackknife_t_interval(0.3, [0.3]).low)                  # one unit: no spread
    assert np.isnan(jackknife_t_interval(0.3, [0.3, np.nan]).high)
    # equal leave-one-out values: a standard error of 0 is no spread seen, not certainty -- NaN, never a point
    flat = jackknife_t_interval(0.5, [0.5, 0.5, 0.5])
    assert np.isnan(flat.low) and np.isnan(flat.high)


def test_jackknife_interval_is_nan_when_leave_one_out_values_differ_only_by_float_noise():
    """A kappa (or any statistic) whose leave-one-out values differ by 1e-16 has no spread: NaN, not a point;
    a real spread of 1e-9 still gets an interval."""
    noisy = 0.49013422529607875 + np.array([0.0, 1.1e-16, 0.0, -1.1e-16, 0.0])
    assert jackknife_se(noisy) == 0.0
    assert all(np.isnan(jackknife_t_interval(0.49013422529607875, noisy)))
    spread = 0.49 + np.array([0.0, 1e-9, 0.0, -1e-9, 0.0])
    low, high = jackknife_t_interval(0.49, spread)
    assert low < 0.49 < high
