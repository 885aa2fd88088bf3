"""Output formats and run-file reading: integer counts in CSV/JSON, a query named
``all`` told from the summary rows, ``NAME=PATH`` runs on the command line, ``.zst`` runs streamed,
a ``.gz`` with trailing zero padding read as ``zcat`` reads it, standard JSON (null for an unbounded end),
``analyze -o`` writing only the file, help texts without raw markup, and one set of verdict words."""

from __future__ import annotations

import gzip
import io
import json
import warnings

import polars as pl
import pyarrow as pa
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.example import example_paths
from pairedframe.io import stream

runner = CliRunner()
QRELS = "all 0 d1 1\nall 0 d2 0\n7 0 d1 0\n7 0 d2 1\n"
RUN_A = "all Q0 d1 1 2.0 a\nall Q0 d2 2 1.0 a\n7 Q0 d1 1 2.0 a\n7 Q0 d2 2 1.0 a\n"
RUN_B = "all Q0 d1 1 1.0 b\nall Q0 d2 2 2.0 b\n7 Q0 d1 1 1.0 b\n7 Q0 d2 2 2.0 b\n"


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    run_a, run_b = tmp_path / "a" / "run.txt", tmp_path / "b" / "run.txt"
    run_a.write_text(RUN_A)
    run_b.write_text(RUN_B)
    return qrels, run_a, run_b


def test_csv_and_json_print_counts_as_integers():
    qrels, runs = example_paths()
    args = ["evaluate", "-q", "-m", "NumRet", "-m", "NumRelRet", "-m", "AP", str(qrels), *map(str, runs)]
    csv = runner.invoke(app, [*args, "-f", "csv"])
    assert csv.exit_code == 0, csv.output
    rows = pl.read_csv(io.StringIO(csv.stdout), schema_overrides={"qid": pl.String, "value": pl.String})
    counts = rows.filter(pl.col("measure").is_in(["NumRet", "NumRelRet"]))
    assert counts["value"].str.contains(r"^\d+$").all(), counts   # NumRet 100, not 100.0
    assert rows.filter(pl.col("measure") == "AP")["value"].str.contains(r"\.").all()
    records = json.loads(runner.invoke(app, [*args, "-f", "json"]).stdout)
    assert all(isinstance(r["value"], int) for r in records if r["measure"] == "NumRet")
    assert all(isinstance(r["value"], float) for r in records if r["measure"] == "AP")


def test_a_query_named_all_is_told_from_the_summary_rows(files, tmp_path):
    qrels, run_a, run_b = files
    result = runner.invoke(app, ["evaluate", "-q", "-m", "RR", "-f", "csv", str(qrels), f"a={run_a}", f"b={run_b}"])
    assert result.exit_code == 0, result.output
    out = tmp_path / "per_query.csv"
    out.write_text(result.stdout)
    rows = pl.read_csv(out, schema_overrides={"qid": pl.String})
    query_all = rows.filter((pl.col("qid") == "all") & ~pl.col("summary"))
    assert query_all.sort("system")["value"].to_list() == [1.0, 0.5]   # the query: a ranks d1 first, b d2
    assert rows.filter(pl.col("summary"))["value"].to_list() == [0.75, 0.75]   # the means over 2 queries
    back = pf.read_results(out)                       # the summary rows go, the query 'all' stays
    assert sorted(back.filter(pl.col("system") == "a")["qid"].to_list()) == ["7", "all"]
    json_rows = json.loads(runner.invoke(app, ["evaluate", "-q", "-m", "RR", "-f", "json", str(qrels),
                                               f"a={run_a}", f"b={run_b}"]).stdout)
    assert sorted((r["qid"], r["summary"]) for r in json_rows if r["system"] == "a") == [
        ("7", False), ("all", False), ("all", True)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cmp = pf.compare(pf.evaluate({"a": run_a, "b": run_b}, qrels, "RR"), baseline="a", test="t")
    assert cmp["n_queries"].to_list() == [2]           # the query 'all' of an Evaluation is a query
    assert not [w for w in caught if "summary rows" in str(w.message)]


def test_name_equals_path_tells_apart_runs_with_the_same_file_name(files):
    qrels, run_a, run_b = files
    clash = runner.invoke(app, ["evaluate", "-m", "RR", str(qrels), str(run_a), str(run_b)])
    assert clash.exit_code == 2
    assert "both named 'run.txt'" in clash.stderr and "NAME=PATH" in clash.stderr
    named = runner.invoke(app, ["evaluate", "-m", "RR", "-f", "csv", str(qrels), f"bm25={run_a}", f"rerank={run_b}"])
    assert named.exit_code == 0, named.output
    assert pl.read_csv(io.StringIO(named.stdout))["system"].to_list() == ["bm25", "rerank"]
    cmp = runner.invoke(app, ["compare", "-m", "RR", "-f", "json", "--baseline", "rerank", "--test", "t",
                              str(qrels), f"bm25={run_a}", f"rerank={run_b}"])
    assert cmp.exit_code == 0, cmp.output
    assert '"baseline": "rerank"' in cmp.stdout and '"system": "bm25"' in cmp.stdout
    bad = runner.invoke(app, ["evaluate", "-m", "RR", str(qrels), f"x={run_a}.missing"])
    assert bad.exit_code == 2 and "no such file" in bad.stderr


def test_python_api_names_run_files_with_a_mapping(files):
    qrels, run_a, run_b = files
    ev = pf.evaluate({"bm25": run_a, "rerank": run_b}, qrels, "RR")
    assert ev.systems == ["bm25", "rerank"] and ev.run_tags == {"bm25": "a", "rerank": "b"}
    assert pf.as_run({"bm25": run_a, "rerank": run_b})["system"].unique(maintain_order=True).to_list() == [
        "bm25", "rerank"]


def _zstd(text: str) -> bytes:
    return pa.compress(text.encode(), codec="zstd", asbytes=True)


def test_zstd_runs_stream_like_plain_and_gzip(tmp_path):
    qrels, runs = example_paths()
    text = runs[0].read_text()
    plain, zst, gz = tmp_path / "bm25", tmp_path / "bm25.zst", tmp_path / "bm25.gz"
    plain.write_text(text)
    zst.write_bytes(_zstd(text))
    gz.write_bytes(gzip.compress(text.encode()))
    blocks = {p.name: [b.run for b in stream.iter_query_blocks(p, "s", chunk_bytes=4096)] for p in (plain, zst, gz)}
    for name in ("bm25", "bm25.zst", "bm25.gz"):
        assert len(blocks[name]) > 3                      # several blocks: streamed, not read whole
        assert pl.concat(blocks[name]).equals(pl.concat(blocks["bm25"]))
    want = pf.evaluate(plain, qrels, ["AP", "nDCG@10"]).per_query
    assert pf.evaluate({"bm25": zst}, qrels, ["AP", "nDCG@10"]).per_query.equals(want)


def test_gzip_with_trailing_zero_padding_is_read_as_zcat_reads_it(tmp_path):
    qrels, runs = example_paths()
    padded_run, padded_qrels = tmp_path / "input.bm25.gz", tmp_path / "qrels.gz"
    padded_run.write_bytes(gzip.compress(runs[0].read_bytes()) + b"\0" * 1024)   # e.g. tape/block padding
    padded_qrels.write_bytes(gzip.compress(qrels.read_bytes()) + b"\0" * 512)
    assert pf.read_run(padded_run).sort("qid", "docno").equals(pf.read_run(runs[0]).sort("qid", "docno"))
    assert pf.read_qrels(padded_qrels).sort("qid", "docno").equals(pf.read_qrels(qrels).sort("qid", "docno"))
    assert sum(b.run.height for b in stream.iter_query_blocks(padded_run, "bm25")) == pf.read_run(runs[0]).height
    want = pf.evaluate(runs[0], qrels, "AP").per_query
    assert pf.evaluate(padded_run, padded_qrels, "AP").per_query.equals(want)
    assert pf.io.read_run_tag(padded_run) == pf.io.read_run_tag(runs[0])


def test_json_outputs_are_standard_json_with_null_for_unbounded_ends():
    """JSON has no Infinity / NaN: a one-sided interval's open end (and an unbounded studentized
    interval) is written as null, so json.loads with strict constants and other readers accept it."""
    import json

    import numpy as np
    import polars as pl

    import pairedframe as pf
    from pairedframe.report.compare import format_comparison

    rng = np.random.default_rng(0)
    a = rng.uniform(size=25)
    # deltas 0.05 up to float noise (zero spread): a [0, 1] measure bounds the lower end (a name without a
    # known range would leave both ends open)
    rows = [{"system": s, "qid": f"q{i:02d}", "measure": "nDCG@10", "value": float(v)}
            for s, arr in (("A", a), ("B", np.clip(a + 0.05, 0, 1))) for i, v in enumerate(arr)]
    res = pf.compare(pl.DataFrame(rows), baseline="A", alternative="greater", n_resamples=199)
    assert res["ci_high"][0] == float("inf")

    def refuse(constant):
        raise ValueError(constant)

    parsed = json.loads(format_comparison(res, "json"), parse_constant=refuse)
    assert parsed["rows"][0]["ci_high"] is None and parsed["rows"][0]["ci_low"] == res["ci_low"][0]


def test_analyze_writes_its_report_to_the_output_file_only(tmp_path):
    """-o FILE takes the report instead of stdout (as table -o); the format is -f's, else the suffix's."""
    from pathlib import Path

    qrels, runs = example_paths()
    results = tmp_path / "results.csv"
    pf.evaluate(runs, qrels, ["nDCG@10", "Success@1"]).per_query.write_csv(results)
    plan = Path(__file__).parents[1] / "examples" / "bundled_example_plan.toml"
    base = ["analyze", "--plan", str(plan), str(results)]
    to_stdout = runner.invoke(app, [*base, "-f", "json"])
    assert to_stdout.exit_code == 0, to_stdout.output
    report = json.loads(to_stdout.stdout)
    for args, name in ((["-f", "json"], "r.out"), ([], "r.json")):
        res = runner.invoke(app, [*base, *args, "-o", str(tmp_path / name)])
        assert res.exit_code == 0, res.output
        assert res.stdout == "" and f"wrote {tmp_path / name}" in res.stderr
        assert json.loads((tmp_path / name).read_text()) == report
    for name, fmt in (("r.md", "markdown"), ("r.csv", "csv"), ("r.txt", "table")):
        res = runner.invoke(app, [*base, "-o", str(tmp_path / name)])
        assert res.stdout == "" and (tmp_path / name).read_text() == runner.invoke(app, [*base, "-f", fmt]).stdout
    refused = runner.invoke(app, [*base, "-o", str(tmp_path / "a.tex")])      # wrote the terminal table into it
    assert refused.exit_code == 2 and "the suffix '.tex' names no format" in refused.stderr
    assert not (tmp_path / "a.tex").exists()


def test_help_texts_show_no_raw_markup():
    """--help of every command reads as plain text: no reST ``literal`` or :role:, no rich escape."""
    import re

    commands = [c.name for c in app.registered_commands]
    assert {"evaluate", "compare", "table", "analyze"} <= set(commands)
    for command in [None, *commands]:
        res = runner.invoke(app, [command, "--help"] if command else ["--help"], env={"COLUMNS": "300"})
        assert res.exit_code == 0, (command, res.output)
        raw = re.findall(r"``|`\w|:(?:func|class|meth|mod|data):|\\\[|\[/?(?:bold|italic|dim)\]", res.output)
        assert not raw, (command, raw)
    text = runner.invoke(app, ["evaluate", "--help"], env={"COLUMNS": "300"}).output
    assert 'several runs each start with a "# run: NAME" line' in text and "-m map and -m AP both give AP" in text


def test_verdict_words_are_the_same_for_one_and_two_sided_tests():
    """A small delta the test cannot detect is "inconclusive" whichever side the alternative looks at;
    a one-sided test facing the other way says so in verdict_note, not with another word."""
    import numpy as np

    rng = np.random.default_rng(5)
    a = rng.uniform(0.2, 0.8, 30)
    frame = pl.DataFrame({"system": ["A"] * 30 + ["B"] * 30, "qid": [f"q{i}" for i in range(30)] * 2,
                          "measure": "AP", "value": np.r_[a, a - 0.01 + rng.normal(0, 0.1, 30)]})
    rows = {alt: pf.compare(frame, baseline="A", alternative=alt, n_resamples=999).row(0, named=True)
            for alt in ("two-sided", "greater", "less")}
    assert all(r["pvalue"] >= 0.05 and r["mde"] > abs(r["delta"]) for r in rows.values())   # underpowered, all three
    assert {alt: r["verdict"] for alt, r in rows.items()} == dict.fromkeys(rows, "inconclusive")
    assert "points away from alternative='greater'" in rows["greater"]["verdict_note"]
    big = frame.with_columns(pl.when(pl.col("system") == "B").then(pl.col("value") - 0.3).otherwise(pl.col("value")))
    far = pf.compare(big, baseline="A", alternative="greater", n_resamples=999).row(0, named=True)
    assert far["mde"] < abs(far["delta"]) and far["verdict"] == "not significant"   # detectable, but the other way


def test_evaluate_markdown_escapes_names_as_compare_markdown():
    """evaluate -f markdown: a GFM table of the means whose system and measure names carry the escapes of
    compare's markdown (report.table_markdown.markdown_escape), so ``a|b`` does not split a cell."""
    from pairedframe.report.table_markdown import markdown_escape

    qrels, (bm25, reranker) = example_paths()
    names = ["a|b_<c>", "*x*"]
    runs = [f"{names[0]}={bm25}", f"{names[1]}={reranker}"]
    res = runner.invoke(app, ["evaluate", "-f", "markdown", "-m", "P@5", "-m", "NumRet", str(qrels), *runs])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0] == "| system | n_queries | P@5 | NumRet |" and lines[1] == "| --- | ---: | ---: | ---: |"
    assert [line.split(" | ")[0][2:] for line in lines[2:4]] == [markdown_escape(n) for n in names]
    assert lines[2].endswith(" | 6000 |")        # a count prints as an integer
    compared = runner.invoke(app, ["compare", "-f", "markdown", "-m", "P@5", "-B", "50", str(qrels), *runs])
    assert compared.exit_code == 0 and markdown_escape(names[1]) in compared.stdout


def test_evaluate_markdown_captions_the_means_table_as_the_terminal_title():
    """evaluate -f markdown (no -q) said nothing of which columns are means: NumRet's 6000 is a sum and GMAP a
    geometric mean, which the terminal table's title says.  Markdown now has the same words as a "Table:"
    caption line after the table; csv and json stay data rows only."""
    from pairedframe.report.table_markdown import markdown_escape

    qrels, runs = example_paths()
    args = ["-m", "P@5", "-m", "NumRet", "-m", "gm_map", str(qrels), *map(str, runs)]
    title = "mean over queries, except NumRet: sum; GMAP: geometric mean"
    terminal = runner.invoke(app, ["evaluate", *args])
    assert terminal.exit_code == 0, terminal.output
    assert title in " ".join(terminal.stdout.split())          # the rich title, however it wrapped
    md = runner.invoke(app, ["evaluate", "-f", "markdown", *args])
    assert md.exit_code == 0, md.output
    lines = md.stdout.splitlines()
    assert lines[0].startswith("| system | n_queries |") and lines[4:7] == ["", f"Table: {markdown_escape(title)}", ""]
    means = runner.invoke(app, ["evaluate", "-f", "markdown", "-m", "P@5", str(qrels), *map(str, runs)])
    assert "\nTable: mean over queries\n" in means.stdout
    csv = runner.invoke(app, ["evaluate", "-f", "csv", *args])
    assert pl.read_csv(csv.stdout.encode())["qid"].to_list() == ["all"] * 6 and "mean over" not in csv.stdout
    rows = json.loads(runner.invoke(app, ["evaluate", "-f", "json", *args]).stdout)
    assert len(rows) == 6 and "mean over" not in json.dumps(rows)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_read_results_reads_the_cli_output_whose_text_measure_comes_after_polars_inference_rows(shared_data, tmp_path,
                                                                                              fmt):
    """all_trec per query puts relstring's first text after about 400 rows of numbers: JSON read with
    polars' default 100-row inference failed ('error deserializing ... as null')."""
    suite = shared_data / "trec_eval"
    result = runner.invoke(app, ["evaluate", "-q", "-m", "all_trec", "-f", fmt, str(suite / "qrels.test"),
                                 str(suite / "results.test")])
    assert result.exit_code == 0, result.output
    out = tmp_path / f"all.{fmt}"
    out.write_text(result.stdout)
    keys = ["system", "qid", "measure"]
    read = pf.read_results(out).sort(keys)
    evaluation = pf.evaluate(suite / "results.test", suite / "qrels.test", "all_trec")
    numbers, texts = read.filter(pl.col("text").is_null()), read.filter(pl.col("text").is_not_null())
    expected = evaluation.per_query.sort(keys)
    assert numbers.select(keys).equals(expected.select(keys))
    assert (numbers["value"] - expected["value"]).abs().max() < 1e-12
    assert texts.height == evaluation.text.height > 0 and texts["value"].is_null().all()


def test_evaluate_per_query_markdown_formats_values_as_the_terminal_table():
    """-q -f markdown printed every value at full precision (0.03242534480374725) while the means table and the
    terminal -q table print 4 decimals; counts stay integers."""
    qrels, runs = example_paths()
    args = ["evaluate", "-q", "-m", "AP", "-m", "num_ret", str(qrels), str(runs[0])]
    markdown = runner.invoke(app, [*args, "-f", "markdown"])
    table = runner.invoke(app, [*args, "-f", "table"])
    assert markdown.exit_code == 0 and table.exit_code == 0, markdown.output + table.output
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in markdown.stdout.splitlines()[2:]
            if line.startswith("|")]
    values = {(r[1], r[2]): r[3] for r in rows}
    assert all(len(v.split(".")[1]) == 4 for (q, m), v in values.items() if m == "AP"), values
    assert all(v.isdigit() for (q, m), v in values.items() if m == "NumRet"), values
    shown = {v for line in table.stdout.splitlines() for v in line.replace("│", " ").split()}
    assert {v for (q, m), v in values.items()} <= shown   # the very texts the terminal table prints


def test_compare_pairs_all_text_formats_show_every_numeric_column_after_the_keys():
    """With pairs="all" the table and markdown formats showed pvalue_max_tukey_raw, a p-value, among the key
    columns (before n_queries, left-aligned in markdown): it goes after pvalue_tukey, with the other p-values,
    and every column before n_queries is a key (text)."""
    import numpy as np

    from pairedframe.report.compare import format_comparison

    rng = np.random.default_rng(0)
    pq = pl.concat([pl.DataFrame({"system": s, "qid": [f"q{k}" for k in range(25)], "measure": "AP",
                                  "value": rng.uniform(0, 1, 25)}) for s in ("a", "b", "c")])
    cmp = pf.compare(pq, pairs="all", test="t", seed=0)
    assert "pvalue_max_tukey_raw" in cmp.columns
    lines = format_comparison(cmp, "markdown").splitlines()
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    align = [c.strip() for c in lines[1].strip("|").split("|")]
    keys = header[:header.index("n_queries")]
    assert set(keys) == {"baseline", "system", "measure"} and all(a == "---" for a in align[:len(keys)])
    assert header.index("pvalue_max_tukey_raw") == header.index("pvalue_tukey") + 1
    assert align[header.index("pvalue_max_tukey_raw")] == "---:"
    table = format_comparison(cmp, "table").splitlines()[2]
    names = [c.strip() for c in table.strip("┃").split("┃")]
    assert names.index("pvalue_max_tukey_raw") == names.index("pvalue_tukey") + 1 > names.index("n_queries")
    tex = format_comparison(cmp, "latex")
    assert "pvalue_max_tukey_raw" in tex.split("% columns left out here (in -f csv / json): ")[1].splitlines()[0]
