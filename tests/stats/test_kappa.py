"""Cohen's kappa against scikit-learn's cohen_kappa_score and a loop reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairedframe.stats.kappa import cohen_kappa, confusion_matrix
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
