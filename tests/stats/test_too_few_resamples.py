"""The one rule for "B Monte-Carlo resamples are too few for the level" (smallest p 1 / (B + 1) >= alpha):
too_few_resamples and least_resamples against the loop reference, least_count, the exact boundary
(B + 1) * alpha == 1 and B = 10**13 (closed form, no array of B + 1 counts)."""

from __future__ import annotations

import tracemalloc
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pairedframe.stats.signflip_interval import least_count, least_resamples, too_few_resamples
from tests.reference import stats_reference as ref

LEVELS = [0.5, 0.8, 0.9, 0.95, 0.97, 0.99, 0.995, 0.999]
alphas = st.one_of(st.sampled_from([1.0 - level for level in LEVELS]),                # as compare computes it
                   st.integers(1, 2000).map(lambda m: 1.0 / m),                      # (B + 1) alpha == 1 at B = m - 1
                   st.integers(1, 2000).map(lambda m: 2.0 / m if m > 1 else 1.0),
                   st.floats(5e-4, 1.0, allow_nan=False, allow_subnormal=False))


@settings(max_examples=300, deadline=None)
@given(alpha=alphas, B=st.integers(0, 3000))
def test_too_few_resamples_against_the_loop_reference_and_least_count(alpha, B):
    want = ref.too_few_resamples_loop(alpha, B)
    assert too_few_resamples(alpha, B) == want
    assert (least_count(alpha, B, False) == 0) == want


@settings(max_examples=200, deadline=None)
@given(alpha=alphas)
def test_least_resamples_against_the_loop_reference(alpha):
    assert least_resamples(alpha) == ref.least_resamples_loop(alpha)


@pytest.mark.parametrize("alpha", [0.5, 0.25, 0.2, 0.1, 0.05, 0.01, 0.001, 2.0 ** -10, 1e-4])
def test_the_boundary_where_b_plus_one_times_alpha_is_one_is_too_few(alpha):
    """(B + 1) * alpha == 1 (exactly, or 1 / (B + 1) rounds to alpha): p can equal alpha but not go below."""
    B = round(1 / alpha) - 1
    assert 1.0 / (B + 1) == alpha
    assert too_few_resamples(alpha, B) and not too_few_resamples(alpha, B + 1)
    assert least_resamples(alpha) == B + 1 == ref.least_resamples_loop(alpha)


def test_one_minus_the_level_carries_rounding_that_one_fewer_resample_meets():
    """1 - 0.95 is 0.05000000000000004 in floats: 1 / 20 is below it, so B = 19 is enough there."""
    for level, B in [(0.95, 19), (0.99, 99), (0.999, 999)]:
        alpha = 1.0 - level
        assert Fraction(alpha) * (B + 1) > 1
        assert not too_few_resamples(alpha, B) and too_few_resamples(alpha, B - 1)
        assert least_resamples(alpha) == B == ref.least_resamples_loop(alpha)
    assert least_resamples(0.03) == 33      # 1 / 0.03 = 33.3: B + 1 = 34 > 33.3; not ceil(1 / alpha) = 34


@pytest.mark.parametrize("alpha", [1e-13, 1.0 / 10**13, 1.0 / (10**13 + 1), 2.0 ** -43, 1.0 - (1.0 - 2.0 ** -40)])
def test_huge_b_without_memory_against_exact_fractions(alpha):
    """B near 10**13 (least_count would allocate 80 TB): both functions stay in a few float operations, and
    agree with exact rational arithmetic on 1 / (B + 1) (exactly rounded below 2**53, as the float test)."""
    tracemalloc.start()
    try:
        B = least_resamples(alpha)
        flags = [too_few_resamples(alpha, b) for b in (B - 1, B, 10**13)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024
    assert 10**12 < B < 2**53
    assert flags[:2] == [True, False]
    exact = Fraction(alpha)
    for b in (B - 1, B, 10**13):
        assert too_few_resamples(alpha, b) == (float(Fraction(1, b + 1)) >= exact)
    assert ref.too_few_resamples_loop(alpha, 10**13) == too_few_resamples(alpha, 10**13)


def test_least_resamples_rejects_levels_outside_zero_one():
    for bad in (0.0, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="alpha"):
            least_resamples(bad)
