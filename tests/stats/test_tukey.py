"""Randomised Tukey HSD: the numpy kernel against a loop reference on the same stream, chunk-size
invariance, and its family-wise error rate on data where every system is the same."""

from __future__ import annotations

import numpy as np
import pytest

from pairedframe.errors import InsufficientSampleError
from pairedframe.stats.tukey import randomised_tukey_hsd
from tests.reference.agreement_reference import tukey_hsd_loop


def test_tukey_hsd_against_loop_reference():
    X = np.random.default_rng(3).normal(size=(7, 4)) + np.array([0.0, 0.2, 0.5, 1.0])
    got = randomised_tukey_hsd(X, n_resamples=300, seed=np.random.default_rng(11))
    want = tukey_hsd_loop(X.tolist(), 300, np.random.default_rng(11))
    np.testing.assert_allclose(got.pvalue, np.array(want), rtol=0, atol=1e-15)
    assert np.allclose(got.statistic, -got.statistic.T)


def test_tukey_hsd_does_not_depend_on_chunk_size():
    X = np.random.default_rng(4).normal(size=(9, 5))
    a = randomised_tukey_hsd(X, n_resamples=257, seed=5, chunk_size=1)
    b = randomised_tukey_hsd(X, n_resamples=257, seed=5, chunk_size=100)
    np.testing.assert_array_equal(a.null_distribution, b.null_distribution)
    np.testing.assert_array_equal(a.pvalue, b.pvalue)


def test_tukey_hsd_pvalues_are_adjusted_and_never_zero():
    X = np.random.default_rng(5).normal(size=(30, 3)) + np.array([0.0, 0.0, 3.0])
    res = randomised_tukey_hsd(X, n_resamples=199, seed=0)
    assert res.pvalue.min() == pytest.approx(1 / 200)
    assert res.pvalue[0, 1] > 0.05 and res.pvalue[0, 2] < 0.01
    assert np.all(np.diag(res.pvalue) == 1.0)
    np.testing.assert_array_equal(res.pvalue, res.pvalue.T)


@pytest.mark.slow
def test_tukey_hsd_family_wise_error_under_the_null():
    # 10 exchangeable systems (45 pairs) on 25 queries, 400 replications: the share of replications
    # with any pair below 0.05 must stay at 5 % (its Monte-Carlo error is sqrt(.05 * .95 / 400) = 1.1 %).
    rng = np.random.default_rng(20240501)
    hits = 0
    reps = 400
    for r in range(reps):
        topic = rng.normal(size=(25, 1))
        X = topic + rng.normal(scale=0.5, size=(25, 10))
        hits += randomised_tukey_hsd(X, n_resamples=200, seed=r).pvalue.min() < 0.05
    rate = hits / reps
    assert rate <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / reps), rate


def test_tukey_hsd_bad_input():
    with pytest.raises(ValueError, match="at least 2 systems"):
        randomised_tukey_hsd(np.ones((5, 1)))
    with pytest.raises(InsufficientSampleError):
        randomised_tukey_hsd(np.ones((1, 3)))
