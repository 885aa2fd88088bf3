import math

import pytest

from pairedframe.stats.power import MIN_QUERIES, minimum_detectable_effect, required_queries


@pytest.mark.parametrize("alpha,power,alt", [(0.05, 0.8, "two-sided"), (0.01, 0.9, "two-sided"),
                                             (0.05, 0.8, "greater"), (0.1, 0.5, "less")])
def test_mde_and_required_queries_against_scipy_norm(alpha, power, alt):
    stats = pytest.importorskip("scipy.stats")
    a = alpha / 2 if alt == "two-sided" else alpha
    z = stats.norm.ppf(1 - a) + stats.norm.ppf(power)
    assert minimum_detectable_effect(0.2, 50, alpha=alpha, power=power, alternative=alt) == \
        pytest.approx(z * 0.2 / math.sqrt(50), rel=1e-12)
    n = required_queries(0.05, 0.2, alpha=alpha, power=power, alternative=alt)
    assert n == max(2, math.ceil((z * 0.2 / 0.05) ** 2))
    # consistency: with n queries the MDE is at most the target effect
    assert minimum_detectable_effect(0.2, n, alpha=alpha, power=power,
                                     alternative=alt) <= 0.05 * (1 + 1e-9)


def test_required_queries_against_textbook_values():
    # (1.959964 + 0.841621)^2 = 7.8489 -> d = 1 sd needs 8 queries, d = 0.5 sd needs 32
    assert required_queries(1.0, 1.0) == 8
    assert required_queries(-0.5, 1.0) == 32
    assert required_queries(100.0, 1.0) == 2
    assert MIN_QUERIES == 20
    with pytest.raises(ValueError, match="delta"):
        required_queries(0.0, 1.0)
    with pytest.raises(ValueError, match="sd"):
        minimum_detectable_effect(-1.0, 10)
    with pytest.raises(ValueError, match="alpha"):
        minimum_detectable_effect(1.0, 10, alpha=0)
    with pytest.raises(ValueError, match="n"):
        minimum_detectable_effect(1.0, 1)
