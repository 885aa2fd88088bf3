"""With no spread in the deltas the t-test falls back to the exact sign-flip p, so the note and warning that
say no comparison can be significant must not offer test='t' as a way out (they do when there is spread)."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf


def _table(step: np.ndarray) -> pl.DataFrame:
    a = np.array([0.2, 0.3, 0.4, 0.5, 0.6])
    qids = [f"q{i}" for i in range(5)]
    return pl.DataFrame({"system": ["A"] * 5 + ["B"] * 5, "qid": qids + qids, "measure": "AP",
                         "value": np.r_[a, a + step]})


@pytest.mark.parametrize("step, offers_t", [(np.full(5, 0.1), False), (np.array([0.1, 0.2, 0.1, 0.3, 0.1]), True)],
                         ids=["equal deltas", "deltas with spread"])
def test_unreachable_significance_advice_offers_the_t_test_only_where_it_helps(step, offers_t):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        row = pf.compare(_table(step), baseline="A")
    note = row["verdict_note"][0]
    warned = [str(w.message) for w in caught if "no comparison can be significant" in str(w.message)]
    assert "cannot go below 0.0625" in note and len(warned) == 1
    assert ("test='t'" in note) == offers_t and ("test='t'" in warned[0]) == offers_t
    if not offers_t:  # the t-test indeed gives the same p there
        assert pf.compare(_table(step), baseline="A", test="t")["pvalue"][0] == row["pvalue"][0] == 0.0625
