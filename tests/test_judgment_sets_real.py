"""evaluate_judgment_sets on TREC DL-2019 (17 runs, NIST qrels and LLM label sets): each run file is read
once for every set, and the result equals evaluating each set alone with pf.evaluate."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import pairedframe as pf

pytestmark = [pytest.mark.shared_data, pytest.mark.slow]

MEASURES = ["nDCG@10", "AP", "R@100", "RR@10", "P@5"]
LLM_LABELS = ["dl2019_test_4prompts_llama70b.txt", "4_prompts_dl2019.txt", "dl2019_test_4prompts_flant5large.txt"]


@pytest.fixture(scope="module")
def dl19_sets(shared_data):
    runs = sorted((shared_data / "llm_labels_dl" / "dl2019_runs").glob("input.*.gz"))
    sets = {"nist": shared_data / "anserini_tools" / "qrels.dl19-passage.txt"}
    sets.update({f.split(".")[0]: shared_data / "llm_labels_dl" / "results" / f for f in LLM_LABELS})
    if len(runs) != 17 or not all(p.exists() for p in sets.values()):
        pytest.skip("DL-2019 runs, NIST qrels or LLM label files missing from the shared data")
    return [str(r) for r in runs], {name: str(path) for name, path in sets.items()}


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


@pytest.mark.parametrize("options", [{}, {"complete": True, "depth": 50}])
def test_judgment_sets_on_dl19_against_evaluate_on_each_set_alone(dl19_sets, options):
    runs, sets = dl19_sets
    js = _quiet(lambda: pf.evaluate_judgment_sets(runs, sets, MEASURES, **options))
    assert js.names == list(sets)
    for name, qrels in sets.items():
        alone = _quiet(lambda: pf.evaluate(runs, qrels, MEASURES, **options))
        together = js.evaluation(name)
        assert_frame_equal(together.per_query, alone.per_query)
        assert_frame_equal(together.excluded, alone.excluded)
        assert together.run_tags == alone.run_tags and together.settings == alone.settings
        assert together.trec_num_rel_all == alone.trec_num_rel_all
        rows = js.per_query.filter(pl.col("judgments") == name).drop("judgments")
        assert_frame_equal(rows, alone.per_query.select("system", "qid", "measure", "value"))


def test_judgment_sets_on_dl19_read_each_run_file_once(dl19_sets, monkeypatch):
    from pairedframe.evaluation import run_blocks

    runs, sets = dl19_sets
    read = []
    stream_run_file = run_blocks.stream_run_file

    def counted(path, *args, **kwargs):
        read.append(path)
        return stream_run_file(path, *args, **kwargs)

    monkeypatch.setattr("pairedframe.evaluation.pipeline.stream_run_file", counted)
    _quiet(lambda: pf.evaluate_judgment_sets(runs, sets, ["nDCG@10"]))
    assert len(read) == len(runs) and len(set(read)) == len(runs)
