"""Old keyword spellings raise a TypeError that names the keyword to use (0.x: no silent aliases).

One vocabulary, scipy's: ``confidence_level`` (never ``alpha``), ``seed`` (never ``rng``), and
``correction=`` ("none" | "holm" | "bh") with ``family_by=`` for the multiple-testing correction.
"""

from __future__ import annotations

import inspect
import re

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import PairedFrameError, RenamedKeywordError, renamed_keywords
from pairedframe.stats.ppi import ppi_mean


def _per_query() -> pl.DataFrame:
    rng = np.random.default_rng(0)
    a = rng.uniform(size=12)
    return pl.DataFrame({"system": ["A"] * 12 + ["B"] * 12, "qid": [f"q{i}" for i in range(12)] * 2,
                         "measure": "m", "value": np.r_[a, a + 0.1]})


GOLD = {"q1": 0.1, "q2": 0.4, "q3": 0.2}
PROXY = {"q1": 0.2, "q2": 0.3, "q3": 0.2, "q4": 0.5}

CALLS = {
    "ppi_compare": lambda **kw: pf.ppi_compare(PROXY, PROXY, GOLD, GOLD, **kw),
    "ppi_compare_segments": lambda **kw: pf.ppi_compare_segments(_per_query(), baseline="A", **kw),
    "ppi_mean": lambda **kw: ppi_mean([0.1, 0.2], [0.1, 0.2], [0.3], **kw),
    "results_table": lambda **kw: pf.results_table(_per_query(), **kw),
}

CASES = [
    ("ppi_compare", "alpha", 0.05, "confidence_level="),
    ("ppi_compare_segments", "alpha", 0.05, "confidence_level="),
    ("ppi_mean", "alpha", 0.05, "confidence_level="),
    ("results_table", "alpha", 0.05, "confidence_level="),
]


@pytest.mark.parametrize(("function", "old", "value", "new"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_old_keyword_raises_a_type_error_naming_the_new_one(function, old, value, new):
    with pytest.raises(TypeError, match=rf"{function}\(\) takes no {old}= any more; use {re.escape(new)}") as info:
        CALLS[function](**{old: value})
    assert isinstance(info.value, RenamedKeywordError) and isinstance(info.value, PairedFrameError)


def test_renamed_keywords_keeps_the_signature_and_passes_the_call_through():
    @renamed_keywords(alpha="confidence_level=")
    def level(x, *, confidence_level=0.95):
        """Doc."""
        return x, confidence_level

    assert level(1, confidence_level=0.9) == (1, 0.9)
    assert level.__doc__ == "Doc." and list(inspect.signature(level).parameters) == ["x", "confidence_level"]
