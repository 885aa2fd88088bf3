"""Exact McNemar test: hand cases, statsmodels oracle, validation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairedframe.stats.mcnemar import mcnemar_exact


def _pairs(b, c, both=0, neither=0):
    a = [True] * b + [False] * c + [True] * both + [False] * neither
    bb = [False] * b + [True] * c + [True] * both + [False] * neither
    return np.array(a), np.array(bb)


def test_mcnemar_hand_computed():
    # b=1, c=5: P[X<=1] = (1 + 6) / 64; two-sided = 14/64
    res = mcnemar_exact(*_pairs(1, 5, both=3, neither=7))
    assert (res.b, res.c, res.n_discordant, res.n, res.statistic) == (1, 5, 6, 16, 1)
    assert res.pvalue == 14 / 64


def test_mcnemar_no_discordant_pairs_gives_one():
    assert mcnemar_exact(*_pairs(0, 0, both=4, neither=2)).pvalue == 1.0
    assert mcnemar_exact([], []).pvalue == 1.0


def test_mcnemar_balanced_is_capped_at_one():
    assert mcnemar_exact(*_pairs(3, 3)).pvalue == 1.0


def test_mcnemar_symmetric_in_systems():
    a, b = _pairs(2, 9, both=1)
    r1, r2 = mcnemar_exact(a, b), mcnemar_exact(b, a)
    assert r1.pvalue == r2.pvalue and (r1.b, r1.c) == (r2.c, r2.b)


def test_mcnemar_accepts_zero_one_numbers():
    a, b = _pairs(2, 7, both=3)
    assert mcnemar_exact(a.astype(int), b.astype(float)).pvalue == mcnemar_exact(a, b).pvalue


@pytest.mark.parametrize(
    "a,b,match",
    [
        ([1, 0, 2], [1, 0, 1], "hits_a"),
        ([1, 0, 1], [1, np.nan, 1], "hits_b"),
        ([1, 0], [1, 0, 1], "same length"),
        ([[1, 0]], [[1, 0]], "one-dimensional"),
        (["x"], ["y"], "hits_a"),
    ],
)
def test_mcnemar_validation(a, b, match):
    with pytest.raises(ValueError, match=match):
        mcnemar_exact(a, b)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 5), st.integers(0, 5))
def test_mcnemar_against_statsmodels(b, c, both, neither):
    sm = pytest.importorskip("statsmodels.stats.contingency_tables")
    res = mcnemar_exact(*_pairs(b, c, both, neither))
    table = np.array([[both, b], [c, neither]])
    ref = sm.mcnemar(table, exact=True)
    assert res.statistic == ref.statistic
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("b,c", [(2400, 2700), (3000, 3100), (6000, 6500), (9000, 9000), (100, 7000)])
def test_mcnemar_large_counts_against_scipy(b, c):
    stats = pytest.importorskip("scipy.stats")
    res = mcnemar_exact(*_pairs(b, c))
    ref = min(1.0, 2 * stats.binom.cdf(min(b, c), b + c, 0.5))
    assert res.pvalue == pytest.approx(ref, rel=1e-9, abs=1e-300)
