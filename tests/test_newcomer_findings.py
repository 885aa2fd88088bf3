"""Regressions for what a first-time user broke: trec output fidelity, crashes on unreadable files,
summary rows fed back into statistics, relevance levels, and table inputs."""

from __future__ import annotations

import gzip
import warnings

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.example import example_paths

runner = CliRunner()


@pytest.fixture()
def tiny(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n1 0 d3 -1\n2 0 d4 2\n")
    run = tmp_path / "part.run"
    run.write_text("1 Q0 d1 1 2.0 mytag\n1 Q0 d2 2 1.0 mytag\n2 Q0 d4 1 1e39 mytag\n2 Q0 d5 2 2e39 mytag\n")
    return qrels, run


def test_trec_runid_only_with_default_set_against_trec_eval_rule(tiny):
    qrels, run = tiny
    with_m = runner.invoke(app, ["evaluate", "-m", "map", "-f", "trec", str(qrels), str(run)])
    assert with_m.exit_code == 0 and "runid" not in with_m.stdout
    default = runner.invoke(app, ["evaluate", "-f", "trec", str(qrels), str(run)])
    assert default.exit_code == 0 and "runid                 \tall\tmytag\n" in default.stdout
    # The default set is trec_eval's whole default set now: nothing is missing, nothing to say.
    assert "gm_map                \tall\t" in default.stdout and "iprec_at_recall_0.10  \tall\t" in default.stdout
    assert default.stderr == ""


def test_python_to_trec_prints_the_run_tag(tiny):
    qrels, run = tiny
    assert "\tall\tmytag\n" in pf.evaluate(run, qrels, ["AP"]).to_trec()


def test_ambiguous_trec_names_are_refused(tiny):
    qrels, run = tiny
    ev = pf.evaluate(run, qrels, ["AP", "AP(rel=2)"])
    with pytest.raises(ValueError, match="both 'map'"):
        ev.to_trec()


def test_float32_overflow_engines_agree(tiny):
    qrels, run = tiny
    values = [pf.evaluate(run, qrels, ["AP", "RR"], score_precision="float32", engine=e).per_query
              for e in ("duckdb", "polars")]
    assert values[0].equals(values[1])


def test_negative_relevance_levels_are_refused(tiny):
    qrels, run = tiny
    with pytest.raises(ValueError, match="rel_level"):
        pf.evaluate(run, qrels, ["AP"], rel_level=-1)
    with pytest.raises(pf.UnknownMeasureError):
        pf.parse_measure("AP(rel=-1)")


@pytest.mark.parametrize(("content", "message"), [
    (b"1 Q0 d\xff 1 2.0 r\n", "line 1: not UTF-8"),
    (gzip.compress(b"1 Q0 d1 1 3.0 r\n")[:20], "truncated gzip"),
])
def test_unreadable_files_exit_2_naming_the_file(tmp_path, content, message):
    qrels, _ = example_paths()
    bad = tmp_path / ("bad.gz" if content[:2] == b"\x1f\x8b" else "bad.run")
    bad.write_bytes(content)
    result = runner.invoke(app, ["evaluate", str(qrels), str(bad)])
    assert result.exit_code == 2
    assert message in result.stderr and str(bad.name) in result.stderr
    assert "Traceback" not in result.stderr


def test_summary_rows_are_not_counted_as_queries():
    qrels, runs = example_paths()
    ev = pf.evaluate(runs, qrels, ["nDCG@10"])
    summary = ev.summary().select("system", pl.lit("all").alias("qid"), "measure", "value")
    with pytest.warns(UserWarning, match="summary rows"):
        out = pf.compare(pl.concat([ev.per_query, summary]), baseline="bm25", n_resamples=200)
    assert out["n_queries"].to_list() == [60]
    assert out["verdict_on"].to_list() == ["pvalue_holm"]


def test_table_inputs_several_systems_nan_grades_empty_runs_numeric_ids():
    run = {"q1": {"d1": 2.0, "d2": 1.0}}
    ev = pf.evaluate({"a": run, "b": run}, {"q1": {"d1": 1}}, ["AP"])
    assert ev.systems == ["a", "b"]
    with pytest.raises(pf.SchemaError, match="NaN"):
        pf.as_qrels(pl.DataFrame({"qid": ["1"], "docno": ["d"], "rel": [float("nan")]}))
    with pytest.raises(pf.SchemaError, match="empty"):
        pf.evaluate({}, {"q1": {"d1": 1}}, ["AP"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.as_run(pl.DataFrame({"qid": [7], "docno": ["d"], "score": [1.0]}), system="s")
    assert any("converted to strings" in str(w.message) for w in caught)


def test_readme_analyze_example_runs(tmp_path):
    from tests.conftest import REPO_ROOT

    qrels, runs = example_paths()
    results = tmp_path / "results.csv"
    pf.evaluate(runs, qrels, ["nDCG@10", "Success@1"]).per_query.write_csv(results)
    out = runner.invoke(app, ["analyze", "--plan", str(REPO_ROOT / "examples" / "bundled_example_plan.toml"),
                              str(results), "-f", "json"])
    assert out.exit_code == 0, out.output
    assert "nDCG@10" in out.stdout and "sha256" in out.stdout.lower()


# --- second round (statistics) -------------------------------------------------------------------

@pytest.mark.shared_data
def test_engines_bit_identical_on_real_runs(shared_data):
    folder = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    runs = sorted((folder / "passages-runs").glob("*.gz"))[:8]
    measures = ["all_trec", "nDCG", "nDCG@10", "nDCG(gain=exp)@10", "AP@100", "R@100", "RR@10", "Success@5",
                "Judged@10", "ERR@20", "nDCG(judged_only=True)@10", "RBP(p=0.8)", "FirstRelRank", "TopGradeRank",
                "G(gains={1:0.3,2:0.7,3:0.1})", "nDCGRel(gains={1:3,2:9})", "RnDCG(dcg='exp-log2')"]
    a = pf.evaluate(runs, folder / "qrels-pass.txt", measures, engine="duckdb")
    b = pf.evaluate(runs, folder / "qrels-pass.txt", measures, engine="polars")
    assert a.per_query.equals(b.per_query) and a.text.equals(b.text)


def test_float_noise_is_a_tie_not_a_difference():
    import numpy as np

    res = pf.compare_pair(np.full(25, 0.1 + 0.2), np.full(25, 0.3), n_resamples=500)
    assert res.statistic == 0.0 and res.pvalue == 1.0 and res.verdict == "identical"
    qids = [f"q{i}" for i in range(25)]
    table = pl.DataFrame({"system": ["A"] * 25 + ["B"] * 25, "qid": qids * 2, "measure": "m",
                          "value": [0.1 + 0.2] * 25 + [0.3] * 25})
    row = pf.compare(table, baseline="A", n_resamples=500).row(0, named=True)
    assert (row["wins"], row["losses"], row["ties"], row["verdict"]) == (0, 0, 25, "identical")


def test_a_measure_missing_for_a_system_is_an_error():
    qids = [f"q{i}" for i in range(25)]
    table = pl.DataFrame({"system": ["A"] * 50 + ["B"] * 25, "qid": qids * 3,
                          "measure": ["m"] * 25 + ["m2"] * 25 + ["m"] * 25, "value": [0.5] * 75})
    with pytest.raises(pf.InsufficientSampleError, match="m2"):
        pf.compare(table, baseline="A", measures=["m", "m2"], n_resamples=200)


def test_too_few_queries_for_an_exact_test_are_flagged():
    import numpy as np

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = pf.compare_pair(np.zeros(5), np.full(5, 0.1), n_resamples=1000)
    assert res.pvalue == 2 / 2**5 and res.mde == float("inf") and res.verdict == "inconclusive"
    qrels, runs = example_paths()
    pq = pf.evaluate(runs, qrels, ["nDCG@10"]).per_query
    qids = sorted(pq["qid"].unique().to_list())[:3]
    seg = pl.DataFrame({"qid": qids, "segment_set": "s", "segment": "x"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = pf.compare_segments(pq, seg, baseline="bm25", n_resamples=2000)
    assert out["exact"].item() and out["resolution_limited"].item()
