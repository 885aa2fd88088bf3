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
from pairedframe.stats.bootstrap import bootstrap_mean
from pairedframe.stats.cluster import cluster_sign_flip_test
from pairedframe.stats.equivalence import minimum_detectable_difference, tost
from pairedframe.stats.power import minimum_detectable_effect, noncentral_t_mde, required_queries
from pairedframe.stats.ppi import ppi_mean
from pairedframe.stats.randomization import sign_flip_test
from pairedframe.stats.resample import bootstrap_index_chunks
from pairedframe.stats.tukey import randomised_tukey_hsd


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
    "bootstrap_mean": lambda **kw: bootstrap_mean([0.1, 0.2, 0.4], **kw),
    "sign_flip_test": lambda **kw: sign_flip_test([0.1, 0.2, 0.4], **kw),
    "cluster_sign_flip_test": lambda **kw: cluster_sign_flip_test([0.1, 0.2, 0.4], ["a", "b", "c"], **kw),
    "bootstrap_index_chunks": lambda **kw: next(bootstrap_index_chunks(3, 10, **kw)),
    "randomised_tukey_hsd": lambda **kw: randomised_tukey_hsd(np.eye(3), **kw),
    "tost": lambda **kw: tost(0.01, 0.02, margin=0.05, **kw),
    "minimum_detectable_difference": lambda **kw: minimum_detectable_difference(0.02, **kw),
    "minimum_detectable_effect": lambda **kw: minimum_detectable_effect(0.1, 20, **kw),
    "noncentral_t_mde": lambda **kw: noncentral_t_mde(0.02, 19, **kw),
    "required_queries": lambda **kw: required_queries(0.05, 0.1, **kw),
    "compare": lambda **kw: pf.compare(_per_query(), baseline="A", **kw),
    "compare_clustered": lambda **kw: pf.compare_clustered(_per_query(), baseline="A", clusters={}, **kw),
    "compare_segments": lambda **kw: pf.compare_segments(_per_query(), {"qid": ["q1"], "segment_set": ["s"],
                                                                        "segment": ["x"]}, baseline="A", **kw),
}

CASES = [
    ("ppi_compare", "alpha", 0.05, "confidence_level="),
    ("ppi_compare_segments", "alpha", 0.05, "confidence_level="),
    ("ppi_mean", "alpha", 0.05, "confidence_level="),
    ("results_table", "alpha", 0.05, "confidence_level="),
    ("bootstrap_mean", "rng", 0, "seed="),
    ("sign_flip_test", "rng", 0, "seed="),
    ("cluster_sign_flip_test", "rng", 0, "seed="),
    ("bootstrap_index_chunks", "rng", 0, "seed="),
    ("randomised_tukey_hsd", "rng", 0, "seed="),
    ("tost", "alpha", 0.05, "confidence_level="),
    ("minimum_detectable_difference", "alpha", 0.05, "confidence_level="),
    ("minimum_detectable_effect", "alpha", 0.05, "confidence_level="),
    ("noncentral_t_mde", "alpha", 0.05, "confidence_level="),
    ("required_queries", "alpha", 0.05, "confidence_level="),
    ("compare", "verdict_on", "pvalue", 'correction= ("none", "holm" or "bh"'),
    ("compare_clustered", "verdict_on", "pvalue_bh", 'correction= ("none", "holm" or "bh"'),
    ("compare_segments", "fdr_level", 0.05, "confidence_level="),
    ("compare", "fdr_level", 0.05, "confidence_level="),          # it gave a plain TypeError (newcomer round 7)
    ("results_table", "fdr_level", 0.05, "confidence_level="),
    ("compare", "rng", 0, "seed= (a non-negative integer"),       # it offered a Generator, which compare refuses
]


@pytest.mark.parametrize(("function", "old", "value", "new"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_old_keyword_raises_a_type_error_naming_the_new_one(function, old, value, new):
    with pytest.raises(TypeError, match=rf"{function}\(\) takes no {old}= any more; use {re.escape(new)}") as info:
        CALLS[function](**{old: value})
    assert isinstance(info.value, RenamedKeywordError) and isinstance(info.value, PairedFrameError)


def test_seed_accepts_an_int_or_a_generator_with_the_same_stream():
    x = [0.1, 0.25, 0.4, -0.05, 0.3]
    by_int = bootstrap_mean(x, n_resamples=200, seed=5)
    by_generator = bootstrap_mean(x, n_resamples=200, seed=np.random.default_rng(5))
    assert by_int.confidence_interval == by_generator.confidence_interval


def test_renamed_keywords_keeps_the_signature_and_passes_the_call_through():
    @renamed_keywords(alpha="confidence_level=")
    def level(x, *, confidence_level=0.95):
        """Doc."""
        return x, confidence_level

    assert level(1, confidence_level=0.9) == (1, 0.9)
    assert level.__doc__ == "Doc." and list(inspect.signature(level).parameters) == ["x", "confidence_level"]


@pytest.mark.parametrize(("correction", "column"), [("none", "pvalue"), ("holm", "pvalue_holm"), ("bh", "pvalue_bh")])
def test_correction_names_the_verdict_column(correction, column):
    res = pf.compare(_per_query(), baseline="A", test="t", correction=correction)
    assert res["verdict_on"].to_list() == [column]


def test_unknown_correction_is_refused_naming_the_argument():
    with pytest.raises(ValueError, match=r"`correction` must be one of \('none', 'holm', 'bh'\), got 'pvalue_holm'"):
        pf.compare(_per_query(), baseline="A", correction="pvalue_holm")


def test_power_functions_at_confidence_level_equal_the_level_path():
    """confidence_level = 1 - alpha gives the MDE of a test of size alpha (to rounding of 1 - level)."""
    from pairedframe.stats.power import mde_at_level

    assert noncentral_t_mde(0.02, 19, confidence_level=0.99) == pytest.approx(mde_at_level(0.02, 19, 0.01),
                                                                             rel=1e-12)
    assert tost(0.01, 0.02, margin=0.05, confidence_level=0.9).confidence_level == 0.9


PUBLIC_WITH_A_LEVEL = ["compare", "compare_pair", "compare_clustered", "compare_segments", "ppi_compare",
                       "ppi_compare_segments", "results_table", "rank_agreement", "label_agreement", "report"]
PUBLIC_WITH_A_SEED = ["compare", "compare_pair", "compare_clustered", "compare_segments", "results_table",
                      "rank_agreement", "report"]


@pytest.mark.parametrize("old, names", [("alpha", PUBLIC_WITH_A_LEVEL), ("rng", PUBLIC_WITH_A_SEED)])
def test_every_public_function_refuses_an_old_keyword_by_name(old, names):
    """The old spelling is refused before any input is read, naming the keyword to use."""
    for name in names:
        with pytest.raises(RenamedKeywordError, match=rf"{name}\(\) takes no {old}= any more; use "
                                                      rf"{'confidence_level' if old == 'alpha' else 'seed'}="):
            getattr(pf, name)(None, None, **{old: 0.05})


def test_result_rows_are_table_and_the_old_spellings_name_it():
    """One rule for result objects: their rows are ``.table``; ``to_frame()`` / ``.frame`` raise an error
    naming ``.table`` (0.x keeps no silent aliases)."""
    import polars as pl

    import pairedframe as pf

    rows = [(s, f"q{i}", m, v) for s, base in (("a", 0.2), ("b", 0.4), ("c", 0.5))
            for i in range(6) for m, v in (("AP", base + i / 20),)]
    per_query = pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")
    table = pf.results_table(per_query, baseline="a", n_resamples=200)
    agreement = pf.rank_agreement(per_query, per_query.with_columns(pl.col("value") * 0.9), measure="AP",
                                  n_resamples=200)
    labels = pf.label_agreement({"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 2, "d3": 0}},
                                {"q1": {"d1": 1, "d2": 1}, "q2": {"d1": 2, "d3": 0}})
    for result, old in ((table, "frame"), (agreement, "to_frame"), (labels, "to_frame")):
        assert isinstance(result.table, pl.DataFrame) and result.table.height > 0
        with pytest.raises(AttributeError, match=r"is renamed \w+\.table"):
            attribute = getattr(result, old)
            attribute()
