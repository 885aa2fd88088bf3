"""compare_segments' flags agree with each other and with ``significant`` for any segment sizes.

``resolution_limited`` claims that a row is not significant and could not be with its test's smallest
p-value (the family's other p-values as they are); the warning about exact tests with few queries
repeats that claim.  Neither may ever be said of a significant row.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from pairedframe.comparison.segments import compare_segments
from pairedframe.stats.multiple import benjamini_hochberg, holm
from tests.strategies import budget


def _frames(sizes: list[int], shift: float, seed: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Baseline A and system B on sum(sizes) queries; segment g holds sizes[g] queries."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    qids = [f"q{i:04d}" for i in range(n)]
    a = rng.uniform(0, 1, n)
    b = a + shift + rng.normal(0, 0.05, n)
    per_query = pl.DataFrame({"system": ["A"] * n + ["B"] * n, "qid": qids * 2, "measure": "m",
                              "value": np.concatenate([a, b])})
    segment = np.repeat([f"g{g:02d}" for g in range(len(sizes))], sizes)
    return per_query, pl.DataFrame({"qid": qids, "segment_set": "s", "segment": segment})


def _floor(row: dict, n_resamples: int, alternative: str) -> float:
    """2/2^k exact (k non-zero deltas); a Monte-Carlo p estimates it, so never below it nor 1/(B+1)."""
    sides = 2.0 if alternative == "two-sided" else 1.0
    exact = min(1.0, sides * 2.0 ** -(row["n_queries"] - row["ties"]))
    return exact if row["exact"] else max(exact, 1.0 / (n_resamples + 1))


@settings(max_examples=budget(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sizes=st.lists(st.integers(2, 12), min_size=1, max_size=8), shift=st.sampled_from([0.0, 0.05, 0.3]),
       n_resamples=st.sampled_from([63, 999, 4095]), correction=st.sampled_from(["bh", "holm"]),
       alternative=st.sampled_from(["two-sided", "greater"]), seed=st.integers(0, 2**16))
def test_segment_flags_never_contradict_significance_for_random_segment_sizes(sizes, shift, n_resamples,
                                                                              correction, alternative, seed):
    per_query, segments = _frames(sizes, shift, seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = compare_segments(per_query, segments, baseline="A", n_resamples=n_resamples, seed=seed,
                               correction=correction, alternative=alternative)
    assume(out.height > 0)
    level = 0.05
    adjust = benjamini_hochberg if correction == "bh" else holm
    p = out["pvalue"].to_numpy()
    floors = np.array([_floor(r, n_resamples, alternative) for r in out.iter_rows(named=True)])
    significant = out["significant"].to_numpy()
    limited = out["resolution_limited"].to_numpy()
    assert not np.any(significant & limited)
    np.testing.assert_array_equal(significant, adjust(p) < level)        # strictly, as compare
    for i in range(out.height):             # one family here: system, measure and segment set are fixed
        q = p.copy()
        q[i] = min(q[i], floors[i])
        assert limited[i] == (not adjust(q)[i] < level), (i, p, floors)
    said_impossible = [w for w in caught if "could not be" in str(w.message)]
    exact_bound = out["exact"].to_numpy() | (floors > 1.0 / (n_resamples + 1))
    assert bool(said_impossible) == bool(np.any(limited & exact_bound))


def test_six_query_segments_at_the_exact_floor_are_significant_and_not_flagged():
    # two segments of 6 queries, every delta positive: exact p = 2/64 = 0.03125 each; BH over 2 rejects
    # both (0.03125 <= 0.05 * 1/2 fails, 0.03125 <= 0.05 * 2/2 holds), so nothing may claim they cannot
    per_query, segments = _frames([6, 6], 0.3, 0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = compare_segments(per_query, segments, baseline="A", n_resamples=10_000)
    assert out["pvalue"].to_list() == [0.03125, 0.03125] and out["exact"].all()
    assert out["significant"].all() and not out["resolution_limited"].any()
    assert (out["min_discoveries"] == 2).all()     # the design: a lone segment at the floor would not pass
    assert not [w for w in caught if "could not be" in str(w.message)]
    # one such segment alone in its family cannot pass: flagged, and the warning says why
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        one = compare_segments(per_query, segments.filter(pl.col("segment") == "g00").vstack(
            pl.DataFrame({"qid": ["q0006", "q0007"], "segment_set": "s", "segment": "g01"})),
            baseline="A", n_resamples=10_000)
    small = one.filter(pl.col("segment") == "g01").row(0, named=True)
    assert small["n_queries"] == 2 and small["resolution_limited"] and not small["significant"]
    assert [w for w in caught if "could not be" in str(w.message)]
