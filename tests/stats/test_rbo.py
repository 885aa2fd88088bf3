"""RBO: hand-computed cases, exact eq. 32, brute-force bounds, properties."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from pairedframe.stats.rbo import RBOResult, rbo
from tests.reference.rbo_reference import (
    ref_rbo_bounds_bruteforce,
    ref_rbo_ext_exact,
    ref_rbo_prefix_sum,
)


def _rankings(max_len=25, universe=40):
    ids = st.integers(0, universe)
    return st.tuples(st.lists(ids, max_size=max_len, unique=True),
                     st.lists(ids, max_size=max_len, unique=True))


# ------------------------------------------------------------------ hand-computed

def test_rbo_swapped_pair_hand_computed():
    # p = 1/2: X = (0, 2); ext = 1*(2/2 * 1/4) + 1 * 1/4 = 1/2
    # min = 1/4 + 2 * (ln 2 - 1/2 - 1/8); max = 1 - (1-p) * 1 = 1/2 (only depth 1 disagrees)
    res = rbo([1, 2], [2, 1], p=0.5)
    assert res.rbo_ext == 0.5
    assert res.rbo_min == pytest.approx(0.25 + 2 * (math.log(2) - 0.625), abs=1e-15)
    assert res.rbo_max == pytest.approx(0.5, abs=1e-15)


def test_rbo_prefix_of_longer_list_hand_computed():
    # S = [1] is a prefix of L: eq. 32 extrapolates S's perfect agreement -> exactly 1;
    # min = (1-p)/p * ln(1/(1-p)); max = 1 (dlukes/rbo issue #4 case, p = 0.4)
    res = rbo([1, 2, 3], [1], p=0.4)
    assert res.rbo_ext == 1.0
    assert res.rbo_min == pytest.approx(0.6 / 0.4 * math.log(1 / 0.6), abs=1e-15)
    assert res.rbo_max == pytest.approx(1.0, abs=1e-15)


def test_rbo_identical_is_exactly_one():
    for n in (1, 2, 10, 100, 1000):
        ids = [f"doc{i}" for i in range(n)]
        for p in (0.5, 0.9, 0.98, 0.999):
            res = rbo(ids, list(ids), p=p)
            assert res.rbo_ext == 1.0
            assert res.rbo_min + res.rbo_res == pytest.approx(1.0, abs=1e-13)


def test_rbo_disjoint_is_exactly_zero():
    res = rbo(list("abcdefg"), list("hijk"), p=0.9)
    assert res.rbo_ext == 0.0 and res.rbo_min == 0.0
    assert 0.0 < res.rbo_res < 1.0


def test_rbo_empty_rankings():
    assert rbo([], []) == RBOResult(1.0, 0.0, 1.0)
    assert rbo([], ["a"]) == RBOResult(0.0, 0.0, 1.0)
    assert rbo(["a", "b"], []) == RBOResult(0.0, 0.0, 1.0)


def test_rbo_uneven_case_from_corsi_urbano_issue():
    # dlukes/rbo#5 "uneven without ties" example; eq. 32 evaluated exactly
    a, b = ["N", "H", "M", "A", "C", "F", "L"], ["C", "G", "N", "A"]
    exact = ref_rbo_ext_exact(a, b, Fraction(9, 10))
    assert rbo(a, b, p=0.9).rbo_ext == pytest.approx(float(exact), abs=1e-15)


# ------------------------------------------------------------------ references

@settings(max_examples=80, deadline=None)
@given(_rankings(), st.sampled_from([Fraction(1, 2), Fraction(9, 10), Fraction(98, 100)]))
def test_rbo_ext_against_exact_eq32(ab, p):
    a, b = ab
    assume(a and b)
    assert rbo(a, b, p=float(p)).rbo_ext == pytest.approx(float(ref_rbo_ext_exact(a, b, p)), abs=1e-14)


@settings(max_examples=40, deadline=None)
@given(_rankings(max_len=12, universe=20), st.sampled_from([0.5, 0.8, 0.9]))
def test_rbo_bounds_against_bruteforce_continuations(ab, p):
    a, b = ab
    assume(a and b)
    lo, hi = ref_rbo_bounds_bruteforce(a, b, p)
    res = rbo(a, b, p=p)
    assert res.rbo_min == pytest.approx(lo, abs=1e-13)
    assert res.rbo_min + res.rbo_res == pytest.approx(hi, abs=1e-13)


@pytest.mark.parametrize("p", [0.5, 0.9, 0.98])
def test_rbo_min_equal_lengths_against_prefix_sum_plus_tail(p):
    # (The `rbo` package served as the prefix-sum oracle here; it pins numpy<2.)
    rng = np.random.default_rng(1)
    a = rng.permutation(50)[:20].tolist()
    b = rng.permutation(50)[:20].tolist()
    prefix = ref_rbo_prefix_sum(a, b, p, 20)  # (1-p)/p sum_{d<=k} X_d/d p^d, eq. 7 at depth k
    x_k = len(set(a) & set(b))
    tail = math.fsum(p**d / d for d in range(21, 5000))
    assert rbo(a, b, p=p).rbo_min == pytest.approx(prefix + (1 - p) / p * x_k * tail, abs=1e-13)


def test_rbo_min_against_truncated_sum_of_fresh_continuations():
    a, b = list("abcdef"), list("bzadqx")
    lo_direct = ref_rbo_prefix_sum(a + [f"A{i}" for i in range(600)], b + [f"B{i}" for i in range(600)], 0.9, 600)
    assert rbo(a, b, p=0.9).rbo_min == pytest.approx(lo_direct, abs=1e-14)


# ------------------------------------------------------------------ properties

@settings(max_examples=150, deadline=None)
@given(_rankings(), st.floats(0.05, 0.99))
def test_rbo_properties_range_bounds_symmetry(ab, p):
    a, b = ab
    res = rbo(a, b, p=p)
    for v in res:
        assert 0.0 <= v <= 1.0
    assert res.rbo_min <= res.rbo_ext + 1e-12
    assert res.rbo_ext <= res.rbo_min + res.rbo_res + 1e-12
    sym = rbo(b, a, p=p)
    assert sym.rbo_ext == pytest.approx(res.rbo_ext, abs=1e-15)
    assert sym.rbo_min == pytest.approx(res.rbo_min, abs=1e-15)
    assert sym.rbo_res == pytest.approx(res.rbo_res, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 100), min_size=1, max_size=30, unique=True), st.integers(0, 30))
def test_rbo_prefix_extension_is_exactly_one(a, cut):
    assert rbo(a, a[: max(1, cut)], p=0.9).rbo_ext == 1.0


@settings(max_examples=60, deadline=None)
@given(_rankings(), st.integers(1, 30))
def test_rbo_depth_truncates_both(ab, depth):
    a, b = ab
    assert rbo(a, b, p=0.8, depth=depth) == rbo(a[:depth], b[:depth], p=0.8)


def test_rbo_accepts_numpy_and_tuples():
    a = np.array(["d1", "d2", "d3"])
    assert rbo(a, ("d2", "d1", "d3"), p=0.9) == rbo(list(a), ["d2", "d1", "d3"], p=0.9)


# ------------------------------------------------------------------ validation

@pytest.mark.parametrize(
    "args,kwargs,exc,match",
    [
        ((["a", "b", "a"], ["a"]), {}, ValueError, "ranking_a.*rank 3"),
        ((["a"], ["b", "b"]), {}, ValueError, "ranking_b"),
        (("abc", ["a"]), {}, TypeError, "ranking_a"),
        ((["a"], [["x"]]), {}, TypeError, "ranking_b"),
        ((["a"], ["a"]), {"p": 1.0}, ValueError, "`p`"),
        ((["a"], ["a"]), {"p": 0.0}, ValueError, "`p`"),
        ((["a"], ["a"]), {"p": "0.9"}, TypeError, "`p`"),
        ((["a"], ["a"]), {"depth": 0}, ValueError, "depth"),
        ((["a"], ["a"]), {"depth": 2.5}, TypeError, "depth"),
        ((np.array([["a"]]), ["a"]), {}, ValueError, "ranking_a"),
    ],
)
def test_rbo_validation(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        rbo(*args, **kwargs)


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 1200), st.integers(1, 1200), st.integers(0, 300),
       st.sampled_from([0.5, 0.8, 0.9, 0.98, 0.999]), st.booleans())
@example(seed=0, len_a=21, len_b=7, spare=0, p=0.8, prefix=True)
def test_rbo_bounds_hold_exactly_in_floating_point(seed, len_a, len_b, spare, p, prefix):
    """On lists of 1,000 the separate sums rounded apart (rbo_min above rbo_ext by ~1e-14 where rbo_res is ~0);
    a list against its own prefix (rbo_ext exactly 1) had rbo_min + rbo_res = 1.0000000000000002 (21 against
    their first 7, p = 0.8). The ordering and the bound 1 must hold without tolerance."""
    rng = np.random.default_rng(seed)
    pool = np.arange(max(len_a, len_b) + spare)
    a = rng.choice(pool, len_a, replace=False)
    b = a[:len_b] if prefix else rng.choice(pool, len_b, replace=False)
    res = rbo(a, b, p=p)
    assert 0.0 <= res.rbo_min <= res.rbo_ext <= res.rbo_min + res.rbo_res <= 1.0, res
    assert res.rbo_res >= 0.0 and res.rbo_max >= res.rbo_ext
