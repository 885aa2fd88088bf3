"""Rank-agreement kernels: tau_AP against a loop reference and ircor's published values; tau_b and rho
against scipy; RBO of orderings against pairedframe.stats.rbo."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as sps
from hypothesis import given, settings
from hypothesis import strategies as st

from pairedframe.stats.rank_agreement import (
    kendall_tau_b_many,
    orderings,
    rbo_orderings_many,
    spearman_rho_many,
    tau_ap_many,
)
from pairedframe.stats.rbo import rbo
from tests.reference.agreement_reference import (
    kendall_tau_b_loop,
    rbo_ties_loop,
    tau_ap_a_loop,
    tau_ap_b_half_loop,
    tau_ap_tie_breaking_mean,
)

# Test vectors of ircor (Urbano's R package, tests/testthat/helper_data.R) and its expected values
# (test_tauAP.R, 4 decimals): tauAP(x, y), tauAP_a(x, y.ties) for the accuracy form (tau_ap), and
# tauAP_b for the symmetric, tie-aware form.
IRCOR = {
    "set1": dict(x=[0.897, 0.372, 0.908, 0.898, 0.661, 0.062, 0.177, 0.384, 0.498, 0.992],
                 y=[0.82, 0.406, 0.817, 0.953, 0.673, 0.073, 0.364, 0.547, 0.589, 0.988],
                 x_ties=[0.9, 0.4, 0.9, 0.9, 0.7, 0.1, 0.2, 0.4, 0.5, 1],
                 y_ties=[0.8, 0.4, 0.8, 1, 0.7, 0.1, 0.4, 0.5, 0.6, 1],
                 tau_ap=0.8519, tau_ap_a_ties=0.7454, tau_ap_b=0.8333, tau_ap_b_ties=0.7321),
    "set2": dict(x=[0.266, 0.573, 0.202, 0.945, 0.629, 0.206, 0.687, 0.77, 0.718, 0.38],
                 y=[0.263, 0.843, 0.728, 0.928, 0.08, 0.114, 0.467, 0.641, 0.973, 0.644],
                 x_ties=[0.3, 0.6, 0.2, 0.9, 0.6, 0.2, 0.7, 0.8, 0.7, 0.4],
                 y_ties=[0.3, 0.8, 0.7, 0.9, 0.1, 0.1, 0.5, 0.6, 1, 0.6],
                 tau_ap=0.2504, tau_ap_a_ties=0.2692, tau_ap_b=0.2880, tau_ap_b_ties=0.297),
    "set3": dict(x=[0.185, 0.573, 0.944, 0.129, 0.468, 0.553, 0.761, 0.405, 0.976, 0.445],
                 y=[0.845, 0.272, 0.275, 0.924, 0.605, 0.334, 0.162, 0.872, 0.018, 0.25],
                 x_ties=[0.2, 0.6, 0.9, 0.1, 0.5, 0.6, 0.8, 0.4, 1, 0.4],
                 y_ties=[0.8, 0.3, 0.3, 0.9, 0.6, 0.3, 0.2, 0.9, 0, 0.2],
                 tau_ap=-0.6971, tau_ap_a_ties=-0.5558, tau_ap_b=-0.668, tau_ap_b_ties=-0.7047),
}


@pytest.mark.parametrize("name", sorted(IRCOR))
def test_tau_ap_against_ircor_published_values(name):
    s = IRCOR[name]
    assert tau_ap_many([s["x"]], [s["y"]])[0] == pytest.approx(s["tau_ap"], abs=5e-5)
    assert tau_ap_many([s["x"]], [s["y_ties"]])[0] == pytest.approx(s["tau_ap_a_ties"], abs=5e-5)
    assert tau_ap_many([s["x"]], [s["y"]], symmetric=True)[0] == pytest.approx(s["tau_ap_b"], abs=5e-5)
    both = tau_ap_many([s["x_ties"]], [s["y_ties"]], symmetric=True)[0]
    assert both == pytest.approx(s["tau_ap_b_ties"], abs=5e-5)
    assert tau_ap_many([s["y_ties"]], [s["x_ties"]], symmetric=True)[0] == both


# ircor's README and its manual's examples (x, y; then y rounded, then x too), with their printed values
IRCOR_EXAMPLES = [
    ([0.06, 0.2, 0.27, 0.37, 0.57, 0.63, 0.66, 0.9, 0.91, 0.94],
     [0.37, 0.06, 0.2, 0.27, 0.57, 0.66, 0.63, 0.91, 0.9, 0.94], lambda y: np.round(np.asarray(y) * 5) / 5,
     lambda x: np.round(np.asarray(x) * 5) / 5, 0.7491182, 0.6074515, 0.6269841),
    ([0.67, 0.45, 0.29, 0.12, 0.57, 0.24, 0.94, 0.75, 0.08, 0.54],
     [0.48, 0.68, 0.32, 0.09, 0.06, 0.61, 0.87, 0.22, 0.44, 0.84], lambda y: np.round(y, 1),
     lambda x: np.round(x, 1), 0.3928571, 0.39903, 0.339418),
]


@pytest.mark.parametrize("x,y,tie_y,tie_x,tau_ap,tau_ap_a,tau_ap_b", IRCOR_EXAMPLES)
def test_tau_ap_against_ircor_readme_and_manual_examples(x, y, tie_y, tie_x, tau_ap, tau_ap_a, tau_ap_b):
    assert tau_ap_many([x], [y])[0] == pytest.approx(tau_ap, abs=5e-7)
    assert tau_ap_many([x], [tie_y(y)])[0] == pytest.approx(tau_ap_a, abs=5e-7)
    assert tau_ap_many([tie_x(x)], [tie_y(y)], symmetric=True)[0] == pytest.approx(tau_ap_b, abs=5e-7)


def test_tau_ap_charges_estimate_ties_the_reference_breaks_against_hand_computation():
    # the outside report's cases: an estimate tying two systems the reference orders is not perfect.
    # [.5 .. .1] vs a tie at the bottom: items 2-3 have 1 and 2 items above, both right (1 + 1); the tied
    # pair sits at positions 4-5 in random order: each has its 3 items above right, weight
    # (1/3 + 1/4) / 2, and the pair itself is right half the time at position 5: 2/4 (2 + 7/4 + 1/8) - 1
    assert tau_ap_many([[.5, .4, .3, .2, .1]], [[.5, .4, .3, .2, .2]])[0] == pytest.approx(0.9375, abs=1e-15)
    assert tau_ap_many([[.9, .8, .7, .6, .5, .4]], [[.8, .8, .7, .75, .5, .5]])[0] == pytest.approx(0.627, abs=5e-4)
    # the old tie-blind value was 1.0: the directional half of tauAP_b skips the pairs the estimate ties
    assert tau_ap_b_half_loop([.5, .4, .3, .2, .1], [.5, .4, .3, .2, .2]) == 1.0


def test_tau_ap_hand_computed():
    # reference a > b > c; estimate b > a > c: item a has 1 earlier (b), wrong -> 0; c has 2, both right -> 1
    # tau_AP = 2/2 * (0 + 1) - 1 = 0, while Kendall's tau = 1/3: the swap at the top costs more.
    assert tau_ap_many([[3.0, 2.0, 1.0]], [[2.0, 3.0, 1.0]])[0] == 0.0
    assert tau_ap_many([[3.0, 2.0, 1.0]], [[3.0, 1.0, 2.0]])[0] == pytest.approx(2 / 2 * (1 + 0.5) - 1)
    assert tau_ap_many([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]])[0] == 1.0
    assert tau_ap_many([[1.0, 2.0, 3.0]], [[3.0, 2.0, 1.0]])[0] == -1.0
    # an estimate that ties everything is a random ordering's expected 0; a reference that does orders nothing
    assert tau_ap_many([[1.0, 2.0, 3.0]], [[5.0, 5.0, 5.0]])[0] == pytest.approx(0.0, abs=1e-15)
    assert np.isnan(tau_ap_many([[5.0, 5.0, 5.0]], [[1.0, 2.0, 3.0]])[0])
    assert np.isnan(tau_ap_many([[1.0, 2.0, 3.0]], [[5.0, 5.0, 5.0]], symmetric=True)[0])
    # identical orderings with a tie agree perfectly: a pair tied in both counts as concordant
    assert tau_ap_many([[1.0, 1.0, 0.0]], [[1.0, 1.0, 0.0]])[0] == 1.0


scores = st.lists(st.integers(0, 6).map(float), min_size=2, max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_tau_ap_against_loop_reference(data):
    """tau_ap: tau_AP_a by the paper's two terms; symmetric: tau_AP_b, the mean of its directional halves."""
    x = data.draw(scores)
    y = data.draw(st.lists(st.integers(0, 6).map(float), min_size=len(x), max_size=len(x)))
    got = tau_ap_many([x], [y])[0]
    want = tau_ap_a_loop(x, y)
    assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12)
    if len(set(y)) == len(y):           # no ties in the estimate: the directional half of tau_AP_b
        assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(tau_ap_b_half_loop(x, y), abs=1e-12)
    sym = tau_ap_many([x], [y], symmetric=True)[0]
    both = (tau_ap_b_half_loop(x, y) + tau_ap_b_half_loop(y, x)) / 2
    assert (np.isnan(sym) and np.isnan(both)) or sym == pytest.approx(both, abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_tau_ap_against_mean_over_tie_breakings_of_plain_tau_ap(data):
    """tau_AP_a is the expected tau_AP when the estimate's ties are broken at random: enumerate them all
    (reference without ties, as the paper's; and with ties, pairedframe's extension)."""
    k = data.draw(st.integers(2, 6))
    x = data.draw(st.one_of(st.lists(st.integers(0, 60).map(float), min_size=k, max_size=k, unique=True),
                            st.lists(st.integers(0, 3).map(float), min_size=k, max_size=k)))
    y = data.draw(st.lists(st.integers(0, 3).map(float), min_size=k, max_size=k))
    got = tau_ap_many([x], [y])[0]
    want = tau_ap_tie_breaking_mean(x, y)
    assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_kendall_tau_b_against_scipy_and_loop(data):
    x = data.draw(scores)
    y = data.draw(st.lists(st.integers(0, 6).map(float), min_size=len(x), max_size=len(x)))
    got = kendall_tau_b_many([x], [y])[0]
    want = kendall_tau_b_loop(x, y)
    assert (np.isnan(got) and np.isnan(want)) or got == pytest.approx(want, abs=1e-12)
    if not np.isnan(want):
        assert got == pytest.approx(sps.kendalltau(x, y).statistic, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_spearman_rho_against_scipy(data):
    x = data.draw(scores)
    y = data.draw(st.lists(st.integers(0, 6).map(float), min_size=len(x), max_size=len(x)))
    got = spearman_rho_many([x], [y])[0]
    if len(set(x)) < 2 or len(set(y)) < 2:
        assert np.isnan(got)
    else:
        assert got == pytest.approx(sps.spearmanr(x, y).statistic, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.data(), st.sampled_from([0.5, 0.8, 0.9, 0.98]))
def test_rbo_of_orderings_against_rbo(data, p):
    """Scores without ties: the plain rbo_ext of the two orderings."""
    x = data.draw(st.lists(st.integers(0, 60).map(float), min_size=2, max_size=12, unique=True))
    y = data.draw(st.permutations(x))
    ox, oy = orderings([x])[0].tolist(), orderings([y])[0].tolist()
    assert rbo_orderings_many([x], [y], p=p)[0] == pytest.approx(rbo(ox, oy, p=p).rbo_ext, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from([0.5, 0.9]))
def test_rbo_of_tied_scores_against_mean_over_tie_breakings(data, p):
    """With ties: the mean rbo_ext over every way of breaking them (the loop reference enumerates them)."""
    x = data.draw(st.lists(st.integers(0, 3).map(float), min_size=2, max_size=5))
    y = data.draw(st.lists(st.integers(0, 3).map(float), min_size=len(x), max_size=len(x)))
    assert rbo_orderings_many([x], [y], p=p)[0] == pytest.approx(rbo_ties_loop(x, y, p), abs=1e-12)


def test_rbo_of_tied_scores_does_not_depend_on_item_order():
    """Permuting the items (the systems' names decide their order) leaves RBO unchanged with ties."""
    x, y = np.array([0.5, 0.4, 0.4, 0.3]), np.array([0.5, 0.45, 0.35, 0.3])
    swap = [0, 2, 1, 3]
    assert rbo_orderings_many([x], [y])[0] == rbo_orderings_many([x[swap]], [y[swap]])[0]
    assert 0.955 < rbo_orderings_many([x], [y])[0] < 1.0       # between the two tie-breakings' values


def test_orderings_break_ties_by_position():
    assert orderings([[1.0, 3.0, 3.0, 0.0]])[0].tolist() == [1, 2, 0, 3]


def test_many_rows_equal_row_by_row():
    rng = np.random.default_rng(1)
    X, Y = rng.integers(0, 5, (50, 9)).astype(float), rng.integers(0, 5, (50, 9)).astype(float)
    for fn in (kendall_tau_b_many, spearman_rho_many, tau_ap_many, rbo_orderings_many):
        rows = np.array([fn(X[r:r + 1], Y[r:r + 1])[0] for r in range(50)])
        np.testing.assert_allclose(fn(X, Y), rows, rtol=0, atol=1e-14)   # BLAS may sum in another order


def test_bad_shapes_are_errors():
    with pytest.raises(ValueError, match="same shape"):
        tau_ap_many([[1.0, 2.0]], [[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="at least 2 items"):
        kendall_tau_b_many([[1.0]], [[1.0]])
    with pytest.raises(ValueError, match="open interval"):
        rbo_orderings_many([[1.0, 2.0]], [[1.0, 2.0]], p=1.0)
