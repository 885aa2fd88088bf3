"""Holm / BH families of a judgment-set evaluation on TREC DL-2019: one family per judgment set, in
``pf.compare``, in ``pf.results_table`` and in their captions alike."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.stats.multiple import holm

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]


@pytest.fixture(scope="module")
def dl19_nist_and_llama(shared_data):
    runs = {n: shared_data / "llm_labels_dl" / "dl2019_runs" / f"input.{n}.gz"
            for n in ("TUA1-1", "bm25base_p", "UNH_bm25", "p_bert")}
    runs["ICT-BERT2"] = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2019" / "passages-runs" / "ICT-BERT2"
    sets = {"nist": shared_data / "anserini_tools" / "qrels.dl19-passage.txt",
            "llama70b": shared_data / "llm_labels_dl" / "results" / "dl2019_test_4prompts_llama70b.txt"}
    if not all(p.exists() for p in [*runs.values(), *sets.values()]):
        pytest.skip("DL-2019 runs or qrels missing from the shared data")
    return pf.evaluate_judgment_sets({k: str(v) for k, v in runs.items()}, sets, "nDCG@10")


def test_judgment_sets_are_separate_holm_families_against_holm_on_each_set_alone(dl19_nist_and_llama):
    js = dl19_nist_and_llama
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both = pf.compare(js, baseline="TUA1-1")
        alone = pf.compare(js.evaluation("nist"), baseline="TUA1-1")
        pooled = pf.compare(js, baseline="TUA1-1", family_by=[])
    nist = both.filter(pl.col("judgments") == "nist")
    assert nist["system"].to_list() == alone["system"].to_list()
    np.testing.assert_array_equal(nist["pvalue"].to_numpy(), alone["pvalue"].to_numpy())
    np.testing.assert_allclose(nist["pvalue_holm"].to_numpy(), holm(alone["pvalue"].to_numpy()), rtol=1e-15)
    assert nist["pvalue_holm"].to_list() == alone["pvalue_holm"].to_list()
    assert nist["verdict"].to_list() == alone["verdict"].to_list()
    assert both["family"].unique().to_list() == ["per judgments, 4 comparisons each"]
    assert alone["family"].unique().to_list() == ["all 4 comparisons of the call"]
    # ICT-BERT2 vs TUA1-1 under NIST: p = 0.017; Holm over its own 4 rows 0.034 ("worse"), over both
    # sets' 8 rows (family_by=[]) 0.068 -- the second rule is still available, and says so
    ict = nist.filter(pl.col("system") == "ICT-BERT2").row(0, named=True)
    assert ict["pvalue"] < 0.02 and ict["pvalue_holm"] < 0.05 and ict["verdict"] == "worse"
    ict_pooled = pooled.filter((pl.col("system") == "ICT-BERT2") & (pl.col("judgments") == "nist")).row(0, named=True)
    assert ict_pooled["pvalue_holm"] > 0.05 and ict_pooled["family"] == "all 8 comparisons of the call"


def test_results_table_of_one_judgment_set_marks_and_captions_as_compare_on_every_set(dl19_nist_and_llama):
    js = dl19_nist_and_llama
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        direct = pf.results_table(js, judgments="nist", baseline="TUA1-1")
        both = pf.compare(js, baseline="TUA1-1")
        from_compare = pf.results_table(js, both.filter(pl.col("judgments") == "nist"), judgments="nist")
    assert direct.table["marks"].to_list() == from_compare.table["marks"].to_list()
    marks = dict(zip(direct.table["system"].to_list(), direct.table["marks"].to_list()))
    assert marks["ICT-BERT2"] == "‡" and marks["p_bert"] == ""
    assert "family: per judgments, 4 comparisons each" in direct.caption
    assert direct.caption == from_compare.caption
