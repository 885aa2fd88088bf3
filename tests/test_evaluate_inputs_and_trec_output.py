"""Evaluating what users feed in: trec output fidelity (run tag, names), files that cannot be read, summary
rows fed back as per-query results, relevance levels, table inputs, and the analyze example."""

from __future__ import annotations

import gzip
import re
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


RUNS_OF_SEVERAL_TAGS = {
    "two tags": "1 Q0 d1 1 2 tagA\n1 Q0 d2 2 1 tagB\n",
    "reversed": "1 Q0 d2 2 1 tagB\n1 Q0 d1 1 2 tagA\n",
    "split across queries": "1 Q0 d1 1 2 tagA\n2 Q0 d4 1 1 tagC\n1 Q0 d2 2 1 tagB\n",
    "last line of an unjudged query": "1 Q0 d1 1 2 tagA\n9 Q0 d9 1 1 tagZ\n",
    "comment and blank line after": "1 Q0 d1 1 2 tagA\n1 Q0 d2 2 1 tagB\n# note\n\n",
    "no newline at the end": "1 Q0 d1 1 2 tagA\n1 Q0 d2 2 1 tagB",
}
LAST_TAGS = {"two tags": "tagB", "reversed": "tagA", "split across queries": "tagB",
             "last line of an unjudged query": "tagZ", "comment and blank line after": "tagB",
             "no newline at the end": "tagB"}


@pytest.mark.parametrize("case", list(RUNS_OF_SEVERAL_TAGS))
def test_runid_is_the_last_lines_tag_as_trec_eval_prints_it(tiny, tmp_path, case):
    """trec_eval's runid is the tag of the run file's last line (pairedframe printed the first's); the
    system's name stays the file's, whatever its tags. Both engines, a gzip file and stdin."""
    qrels, _ = tiny
    run = tmp_path / "tags.run"
    run.write_text(RUNS_OF_SEVERAL_TAGS[case])
    (tmp_path / "tags.run.gz").write_bytes(gzip.compress(run.read_bytes()))
    want = f"runid                 \tall\t{LAST_TAGS[case]}\n"
    assert pf.io.read_run_tag(run) == LAST_TAGS[case]
    for path in (run, tmp_path / "tags.run.gz"):
        for engine in ("polars", "duckdb"):
            ev = pf.evaluate(path, qrels, ["runid", "AP"], engine=engine)
            assert ev.systems == ["tags.run"] and ev.to_trec(per_query=False).startswith(want)
    res = runner.invoke(app, ["evaluate", "-f", "trec", "-m", "runid", "-m", "map", str(qrels), "-"],
                        input=RUNS_OF_SEVERAL_TAGS[case])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith(want)


def test_runid_of_a_run_longer_than_the_tail_read_against_trec_eval(tiny, tmp_path):
    """A plain file is read backwards from its end: a last line far longer than the first block read,
    and a trailing comment block, still give the last data line's tag; the binary agrees when present."""
    import subprocess

    from tests.test_trec_eval_flags import _trec_eval_binary

    qrels, _ = tiny
    run = tmp_path / "long.run"
    lines = [f"1 Q0 d{i} {i} {-i} tag{i % 7}" for i in range(1, 5000)]
    run.write_text("\n".join(lines) + "\n1 Q0 dlast 5000 -5000 " + "t" * 40000 + "\n" + "# c\n" * 9000)
    assert pf.io.read_run_tag(run) == "t" * 40000
    binary = _trec_eval_binary()
    if binary is None:
        pytest.skip("no trec_eval binary: set PAIREDFRAME_TREC_EVAL")
    short = tmp_path / "short.run"
    short.write_text("\n".join(lines) + "\n2 Q0 d4 1 1 tagEnd\n")   # this binary wants every qrels query
    want = subprocess.run([binary, "-m", "runid", "-m", "map", str(qrels), str(short)], capture_output=True,
                          text=True, check=True).stdout
    res = runner.invoke(app, ["evaluate", "-f", "trec", "-m", "runid", "-m", "map", str(qrels), str(short)])
    assert res.exit_code == 0, res.output
    assert res.stdout == want and "\ttagEnd\n" in want


def test_python_to_trec_prints_runid_where_trec_eval_does(tiny):
    """runid (the run's tag) with the default set or "runid" named, as trec_eval; not for a measure list."""
    qrels, run = tiny
    assert "runid                 \tall\tmytag\n" in pf.evaluate(run, qrels, ["runid", "AP"]).to_trec()
    assert "runid                 \tall\tmytag\n" in pf.evaluate(run, qrels).to_trec()
    assert "runid" not in pf.evaluate(run, qrels, ["AP"]).to_trec()
    assert "\tall\tmytag\n" in pf.evaluate(run, qrels, ["AP"]).to_trec(runid=True)


def test_ambiguous_trec_names_are_refused(tiny):
    qrels, run = tiny
    ev = pf.evaluate(run, qrels, ["AP", "AP(rel=2)"])
    with pytest.raises(ValueError, match=r"AP\(rel=2\) cannot be printed.*'map' is AP at the evaluation's relevance "
                                         r"level.*here 1.*rel_level=2"):
        ev.to_trec()


def test_trec_format_prints_parameters_equal_to_the_calls_against_trec_eval_suite(shared_data):
    """AP(rel=2) is trec_eval's map only under -l 2: there it prints trec_eval's line (out.test.aql is
    trec_eval -l2 on these files); under -l 1 it is refused, as are a judged_only and a gain trec_eval
    cannot name, instead of printing another quantity under map / ndcg_cut_10."""
    base = shared_data / "trec_eval"
    qrels, run = str(base / "qrels.rel_level"), str(base / "results.test")
    want = [line for line in (base / "out.test.aql").read_text().splitlines(keepends=True)
            if line.split("\t")[1] == "all" and line.split()[0] in ("map", "P_10")]
    got = pf.evaluate(run, qrels, ["AP(rel=2)", "P(rel=2)@10"], rel_level=2).to_trec(per_query=False, runid=False)
    assert got.splitlines(keepends=True) == want
    refused = {("AP(rel=2)", 1, False): r"rel=2.*rel_level=2 \(trec_eval -l 2\)",
               ("P(rel=1)@10", 2, False): r"here 2.*uses rel=1.*rel_level=1",
               ("nDCG(judged_only=True)@10", 1, False): r"judged documents only.*trec_eval -J",
               ("nDCG(judged_only=False)@10", 1, True): r"every document.*without -J",
               ("nDCG(dcg='exp-log2')@10", 1, False): "no name for its parameters",
               ("RBP(rel=2)", 1, False): "weighs every grade"}
    for (name, level, judged), why in refused.items():
        ev = pf.evaluate(run, qrels, [name], rel_level=level, judged_only=judged)
        with pytest.raises(ValueError, match=rf"{re.escape(ev.measures[0].name)} cannot be printed.*{why}"):
            ev.to_trec()
    # judged_only under -J is trec_eval's ndcg_cut_10 under -J: the same line as -J -m ndcg_cut.10
    lines = [pf.evaluate(run, qrels, [name], judged_only=True).to_trec(per_query=False, runid=False)
             for name in ("nDCG(judged_only=True)@10", "ndcg_cut.10")]
    assert lines[0] == lines[1] and lines[0].startswith("ndcg_cut_10 ")


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


def test_system_names_one_run_and_is_refused_with_several():
    """system= names a single run: with several run files or a {name: path} mapping it would be
    dropped silently; it is an error naming system= and the mapping to use."""
    qrels, (bm25, reranker) = example_paths()
    for run in ([bm25, reranker], {"a": bm25, "b": reranker}):
        with pytest.raises(pf.errors.SchemaError, match=r"system='x' names a single run.*mapping"):
            pf.evaluate(run, qrels, ["RR"], system="x")
    assert pf.evaluate([bm25], qrels, ["RR"], system="x").systems == ["x"]


def test_system_names_drop_every_compression_suffix(tmp_path):
    """A run read from input.bm25.zst is bm25, as from input.bm25.gz (both are decompressed), and the
    help texts say that QRELS and RUN may be .zst."""
    from pairedframe.io.trec import system_name_from_path

    assert [system_name_from_path(p) for p in ("d/input.bm25.gz", "d/input.bm25.zst", "run.txt", "x.zst")] \
        == ["bm25", "bm25", "run.txt", "x"]
    import pyarrow as pa  # the readers' zstd codec

    qrels, (bm25, _) = example_paths()
    path = tmp_path / "input.bm25.zst"
    with pa.output_stream(str(path), compression="zstd") as out:
        out.write(bm25.read_bytes())
    assert pf.evaluate(path, qrels, ["AP"]).systems == ["bm25"]
    for command in ("evaluate", "compare"):
        help_text = runner.invoke(app, [command, "--help"], env={"COLUMNS": "400"}).stdout
        assert "plain, .gz or .zst" in help_text and "plain or .gz" not in help_text


def test_a_query_named_all_prints_as_trec_eval_prints_it_and_warns(tmp_path):
    """trec_eval prints a query 'all' under its id, so its lines read like the summary's: the trec format
    keeps trec_eval's bytes and warns at the caller's line; csv keeps the two apart (the summary column)."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("all 0 d1 1\n2 0 d1 0\n2 0 d2 1\n")
    run.write_text("all Q0 d1 1 2.0 t\n2 Q0 d1 1 2.0 t\n2 Q0 d2 2 1.0 t\n")
    ev = pf.evaluate(run, qrels, ["RR"])
    with pytest.warns(UserWarning, match=r"a query is named 'all': in trec_eval's format its per-query lines read "
                                         r"like the summary lines") as caught:
        text = ev.to_trec()
    assert [w.filename for w in caught] == [__file__]
    assert text == ("recip_rank            \t2\t0.5000\n"
                    "recip_rank            \tall\t1.0000\n"
                    "recip_rank            \tall\t0.7500\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev.to_trec(per_query=False)          # no per-query line: nothing to confuse
    out = runner.invoke(app, ["evaluate", str(qrels), str(run), "-m", "recip_rank", "-q", "-f", "trec"])
    assert out.exit_code == 0 and "a query is named 'all'" in out.stderr
    assert out.stdout.count("\tall\t") == 2
