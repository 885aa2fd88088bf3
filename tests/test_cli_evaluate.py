"""The evaluate and example subcommands: formats, exit codes, error messages."""

from __future__ import annotations

import gzip
import json

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.example import example_paths

runner = CliRunner()


def test_example_prints_both_systems():
    result = runner.invoke(app, ["example"])
    assert result.exit_code == 0, result.output
    assert "bm25" in result.stdout and "reranker" in result.stdout and "nDCG@10" in result.stdout


def test_example_json_is_one_document_and_csv_is_refused_naming_the_formats():
    """example -f json printed the paths, then two JSON documents (json.loads failed at char 0); -f csv two CSVs,
    and -f markdown was taken although the help does not list it."""
    result = runner.invoke(app, ["example", "-f", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc) == {"qrels", "runs", "evaluation", "comparison"} and len(doc["runs"]) == 2
    for fmt in ("csv", "markdown"):
        refused = runner.invoke(app, ["example", "-f", fmt])
        assert refused.exit_code == 2 and "must be table, json or trec" in refused.stderr


def test_json_format_matches_python_api():
    qrels, runs = example_paths()
    result = runner.invoke(app, ["evaluate", "-q", "-m", "nDCG@10", "--format", "json", str(qrels), *map(str, runs)])
    assert result.exit_code == 0, result.output
    rows = pl.DataFrame(json.loads(result.stdout))
    ev = pf.evaluate(runs, qrels, ["nDCG@10"])
    got = rows.filter(pl.col("qid") != "all").sort("system", "qid")
    assert got["value"].to_list() == ev.per_query.sort("system", "qid")["value"].to_list()
    assert got["qid"][0] == "001"  # ids keep their leading zeros


def test_bad_input_exits_2_with_message_and_no_traceback(tmp_path):
    qrels, runs = example_paths()
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 d1 1 0.5 tag\n1 Q0 d2 1 abc tag\n")
    result = runner.invoke(app, ["evaluate", str(qrels), str(bad)])
    assert result.exit_code == 2
    assert "line 2" in result.stderr and "abc" in result.stderr and "Traceback" not in result.stderr


def test_unknown_measure_exits_2_and_suggests():
    qrels, runs = example_paths()
    result = runner.invoke(app, ["evaluate", "-m", "nDGC@10", str(qrels), str(runs[0])])
    assert result.exit_code == 2
    assert "nDCG@10" in result.stderr


def test_several_runs_in_trec_format_each_start_with_their_name():
    """trec_eval prints one run; with several, each block starts with '# run: NAME' and is byte for
    byte the single-run output, so removing the header lines gives the runs' outputs one after the
    other (issue 12 item 2)."""
    qrels, runs = example_paths()
    both = runner.invoke(app, ["evaluate", "-q", "-m", "AP", "-m", "P.5", "-f", "trec", str(qrels), *map(str, runs)])
    assert both.exit_code == 0, both.output
    singles = []
    for run in runs:
        one = runner.invoke(app, ["evaluate", "-q", "-m", "AP", "-m", "P.5", "-f", "trec", str(qrels), str(run)])
        assert one.exit_code == 0 and not one.stdout.startswith("#")
        singles.append(one.stdout)
    assert both.stdout == "".join(f"# run: {name}\n{text}" for name, text in zip(["bm25", "reranker"], singles))


def test_string_valued_measure_has_a_text_column_in_csv():
    """relstring is a string: csv/json rows carry it in a text column (value empty), the numeric
    measures keep value; the Python API keeps it in Evaluation.text."""
    qrels, runs = example_paths()
    result = runner.invoke(app, ["evaluate", "-q", "-m", "relstring.5", "-m", "P.5", "-f", "csv", str(qrels), str(runs[0])])
    assert result.exit_code == 0, result.output
    rows = pl.read_csv(result.stdout.encode(), schema_overrides={"qid": pl.String, "text": pl.String})
    strings = rows.filter(pl.col("measure") == "RelString@5")
    assert strings.height > 0 and strings["value"].null_count() == strings.height
    assert set(strings["text"].str.len_chars().to_list()) <= set(range(6))
    ev = pf.evaluate(runs[0], qrels, ["relstring.5"])
    assert ev.per_query.height == 0 and ev.text["text"].to_list() == strings.sort("qid")["text"].to_list()


def test_every_evaluate_format_lists_runs_in_argument_order():
    """One rule for every command: the runs in the order given (the library sorts them by name)."""
    import io
    import re

    qrels, runs = example_paths()
    args = ["evaluate", str(qrels), f"zeta={runs[0]}", f"alpha={runs[1]}", f"mid={runs[0]}", "-m", "AP", "-m", "P@5"]
    order = ["zeta", "alpha", "mid"]
    trec = runner.invoke(app, [*args, "-f", "trec", "-q"])
    assert trec.exit_code == 0, trec.output
    assert re.findall(r"^# run: (\S+)", trec.stdout, flags=re.M) == order
    blocks = trec.stdout.split("# run: ")[1:]
    single = runner.invoke(app, ["evaluate", str(qrels), str(runs[1]), "-m", "AP", "-m", "P@5", "-f", "trec", "-q"])
    assert blocks[1].split("\n", 1)[1] == single.stdout             # alpha's block is trec_eval's text for it
    table = runner.invoke(app, args)
    assert re.findall(r"^│ (\w+) ", table.stdout, flags=re.M) == order
    for fmt, read in (("csv", lambda t: pl.read_csv(io.StringIO(t), infer_schema=False)), ("json", lambda t: pl.DataFrame(json.loads(t)))):
        for extra in ([], ["-q"]):
            out = runner.invoke(app, [*args, "-f", fmt, *extra])
            assert out.exit_code == 0, out.output
            assert read(out.stdout)["system"].unique(maintain_order=True).to_list() == order, (fmt, extra)
    compared = runner.invoke(app, ["compare", *args[1:], "-B", "99", "-f", "csv"])
    assert pl.read_csv(io.StringIO(compared.stdout))["system"].unique(maintain_order=True).to_list() == order[1:]


def test_evaluate_table_says_which_means_are_over_fewer_queries_against_the_summary(tmp_path):
    """A run truncated to its top document has no FirstRelRank on the queries it finds nothing relevant
    for: the table's n_queries column is the row's largest count, so a line names the measure's own."""
    qrels, runs = example_paths()
    top1 = tmp_path / "input.bm25top1"
    top1.write_text("".join(line for line in open(runs[0]) if line.split()[3] == "1"))
    result = runner.invoke(app, ["evaluate", "-m", "FirstRelRank", "-m", "RR", str(qrels), str(top1), str(runs[1])])
    assert result.exit_code == 0, result.output
    summary = pf.evaluate({"bm25top1": top1}, qrels, ["FirstRelRank", "RR"]).summary()
    n = summary.filter(pl.col("measure") == "FirstRelRank")["n_queries"][0]
    total = summary["n_queries"].max()
    assert n < total
    assert f"bm25top1 FirstRelRank: mean over {n} of {total} queries" in result.stdout
    assert "reranker FirstRelRank" not in result.stdout


@pytest.mark.shared_data
def test_evaluate_table_n_queries_is_the_queries_evaluated_when_no_measure_has_them_all(shared_data, tmp_path):
    """DL-2019: TopGradeRank has a value on 40 of the 43 evaluated queries, FirstRelRank(rel=3) on 33: the
    n_queries column said 40 (the most any measure had) and the footnote "33 of 40"; it is 43, each
    measure over fewer with its footnote, and the same alone or together."""
    run = tmp_path / "run"
    first = sorted((shared_data / "llm_labels_dl" / "dl2019_runs").glob("*.gz"))[0]
    run.write_bytes(gzip.decompress(first.read_bytes()))
    qrels = shared_data / "anserini_tools" / "qrels.dl19-passage.txt"
    evaluated = pf.evaluate(run, qrels, ["AP"]).per_query["qid"].n_unique()
    counts = pf.evaluate(run, qrels, ["TopGradeRank", "FirstRelRank(rel=3)"]).summary()
    for names in (["TopGradeRank", "FirstRelRank(rel=3)"], ["FirstRelRank(rel=3)"]):
        result = runner.invoke(app, ["evaluate", "-f", "markdown", *[a for m in names for a in ("-m", m)],
                                     str(qrels), str(run)])
        assert result.exit_code == 0, result.output
        row = next(line for line in result.stdout.splitlines() if line.startswith("| run "))
        assert row.split("|")[2].strip() == str(evaluated)
        for name in names:
            n = counts.filter(pl.col("measure") == name)["n_queries"][0]
            assert n < evaluated and f"run {name}: mean over {n} of {evaluated} queries" in result.stdout


def test_engine_help_lists_every_engine_evaluate_accepts():
    """--engine's help names each engine get_engine accepts (spark included: it runs from the CLI too)."""
    from pairedframe.engines import ENGINES

    text = CliRunner().invoke(app, ["evaluate", "--help"], env={"COLUMNS": "400"}).stdout
    line = next(line for line in text.splitlines() if "--engine" in line)
    assert all(name in line for name in ENGINES) and "duckdb or polars" not in line


def test_closed_stdout_ends_quietly_with_sigpipe_status():
    """`pairedframe evaluate ... | head -1`: a reader that closes the pipe ends the command with 141
    (128 + SIGPIPE, as cat or grep) and nothing on stderr (it printed '[Errno 32] Broken pipe', exit 2),
    whatever the format (rich's table included, whose own handler exited with 1)."""
    import subprocess
    import sys

    qrels, runs = example_paths()
    for fmt in ("table", "trec", "csv"):
        child = subprocess.Popen([sys.executable, "-m", "pairedframe", "evaluate", "-q", "-m", "P@2", "-f", fmt,
                                  str(qrels), *map(str, runs)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        child.stdout.close()        # before the child has written anything: every write fails
        stderr = child.stderr.read()
        assert (child.wait(), stderr) == (141, b""), fmt


def test_stdout_cut_after_a_partial_read_ends_with_sigpipe_status_also_unbuffered():
    """`PYTHONUNBUFFERED=1 pairedframe evaluate ... | head -1` exited 0: unbuffered, the output went in one
    write() straight to the pipe, which the kernel cut short when the reader left, and Python dropped the
    short count without an error, so the cut was never seen.  The output (~400 KB) outgrows the pipe."""
    import os
    import subprocess
    import sys

    qrels, runs = example_paths()
    for unbuffered in ("", "1"):
        env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
        env |= {"PYTHONUNBUFFERED": unbuffered} if unbuffered else {}
        for fmt in ("trec", "csv"):
            child = subprocess.Popen([sys.executable, "-m", "pairedframe", "evaluate", "-q", "-m", "all_trec",
                                      "-f", fmt, str(qrels), *map(str, runs)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
            assert child.stdout.readline()      # the child has begun writing, and is blocked on the full pipe
            child.stdout.close()
            stderr = child.stderr.read()
            assert (child.wait(), stderr) == (141, b""), (unbuffered, fmt)


def test_a_text_measure_alone_without_per_query_exits_2_naming_it_and_suggesting_q():
    """`evaluate -m relstring.10` without -q printed an empty table (csv: a header, json: []) and exited 0:
    relstring has no summary value.  -f trec still prints nothing, as trec_eval prints no relstring "all"
    line (out.test.aql); beside another measure the summary prints, with a warning for the one left out."""
    qrels, runs = example_paths()
    for fmt in ("table", "csv", "json", "markdown"):
        result = runner.invoke(app, ["evaluate", "-m", "relstring.10", "-f", fmt, str(qrels), str(runs[0])])
        assert result.exit_code == 2, (fmt, result.output)
        assert "RelString@10 has no summary value" in result.stderr and "add -q" in result.stderr, fmt
        assert result.stdout == "", fmt
    result = runner.invoke(app, ["evaluate", "-m", "relstring.10", "-f", "trec", str(qrels), str(runs[0])])
    assert (result.exit_code, result.stdout) == (0, "")
    result = runner.invoke(app, ["evaluate", "-m", "relstring.10", "-m", "AP", "-f", "csv", str(qrels), str(runs[0])])
    assert result.exit_code == 0, result.output
    assert pl.read_csv(result.stdout.encode())["measure"].to_list() == ["AP"]
    assert "warning: RelString@10 has no summary value" in result.stderr and "add -q" in result.stderr


def test_a_run_name_holding_an_equals_sign_splits_where_the_rest_is_a_file():
    """The report's reproducing command writes a system named 'k=1' as k=1=PATH, which failed with 'no such
    file: 1=PATH' (NAME=PATH split at the first '=')."""
    qrels, runs = example_paths()
    result = runner.invoke(app, ["evaluate", "-m", "AP", "-f", "csv", str(qrels), f"k=1={runs[0]}", f"b={runs[1]}"])
    assert result.exit_code == 0, result.output
    assert pl.read_csv(result.stdout.encode())["system"].to_list() == ["k=1", "b"]


def test_per_query_table_formats_each_measure_by_row_counts_as_integers(tmp_path):
    """-q's table holds every measure in one value column: an AP of 5e-05 (one of 20 relevant at rank 1000)
    turned the whole column scientific, NumRet 1003 into 1.00e+03; counts print as in the summary table."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"q1 0 r{i} 1\n" for i in range(20)) + "q2 0 d0 1\n")
    run.write_text("".join(f"q1 Q0 n{i} {i + 1} {2000 - i} s\n" for i in range(999)) + "q1 Q0 r0 1000 1 s\n"
                   + "".join(f"q2 Q0 d{i} {i + 1} {10 - i} s\n" for i in range(3)))
    result = runner.invoke(app, ["evaluate", "-q", "-m", "num_ret", "-m", "map", "-m", "P.5", str(qrels), str(run)])
    assert result.exit_code == 0, result.output
    cells = {tuple(line.split("│")[2:4]): line.split("│")[4].strip() for line in result.stdout.splitlines()
             if line.count("│") == 6}
    cells = {(q.strip(), m.strip()): v for (q, m), v in cells.items()}
    assert [cells[q, "NumRet"] for q in ("q1", "q2", "all")] == ["1000", "3", "1003"]
    assert cells["q1", "AP"] == "5.00e-05" and cells["q2", "P@5"] == "0.2000"  # P@5 keeps its own format


def test_summary_table_title_names_sums_and_geometric_means_against_summary(shared_data):
    """``evaluate -m num_ret -m map`` titled its table "mean over queries" while NumRet (1500) is the sum
    over the 3 queries.  The title names each measure's summary as Evaluation.summary computes it."""
    folder = shared_data / "trec_eval"
    qrels, run = str(folder / "qrels.test"), str(folder / "results.test")
    res = runner.invoke(app, ["evaluate", "-m", "num_ret", "-m", "map", "-m", "num_rel", "-m", "gm_map", qrels, run])
    assert res.exit_code == 0, res.output
    title = " ".join(res.output.split("┏")[0].split())
    assert title == "mean over queries, except NumRet, NumRel: sum; GMAP: geometric mean"
    ev = pf.evaluate([run], qrels, ["num_ret", "map", "num_rel", "gm_map"])
    summary = dict(zip(ev.summary()["measure"], ev.summary()["value"]))
    per_query = ev.per_query.group_by("measure").agg(pl.col("value").sum(), pl.col("value").mean().alias("m"))
    sums = dict(zip(per_query["measure"], per_query["value"]))
    assert summary["NumRet"] == sums["NumRet"] == 1500 and summary["NumRel"] == sums["NumRel"]
    assert summary["AP"] != sums["AP"] and summary["GMAP"] != sums["GMAP"]
    only = runner.invoke(app, ["evaluate", "-m", "map", qrels, run])
    assert only.output.split("┏")[0].strip() == "mean over queries"
    counts = runner.invoke(app, ["evaluate", "-m", "num_ret", "-m", "num_q", qrels, run])
    assert counts.output.split("┏")[0].strip() == "sum over queries"


def test_evaluate_means_table_footer_names_depth_and_judged_only():
    """-M and -J change every value but the footer named neither: two tables made with and without them could
    not be told apart (the footer names the query set, ties, relevance level and score precision)."""
    qrels, runs = example_paths()
    plain = runner.invoke(app, ["evaluate", "-m", "AP", str(qrels), str(runs[0])])
    cut = runner.invoke(app, ["evaluate", "-m", "AP", "-M", "5", "-J", str(qrels), str(runs[0])])
    assert plain.exit_code == 0 and cut.exit_code == 0, plain.output + cut.output
    assert "depth:" not in plain.stdout and "judged only" not in plain.stdout
    assert "depth: the top 5 documents of each ranking (-M 5)" in cut.stdout
    assert "judged only: unjudged documents dropped from each ranking (-J)" in cut.stdout


def test_dash_run_is_read_from_standard_input_as_trec_eval_reads_it():
    """``cat run | pairedframe evaluate QRELS -`` said "no such file: -"; trec_eval reads a results file ``-``
    from stdin. The output equals the file's, the runid line is the tag, and tables name the system ``stdin``."""
    qrels, runs = example_paths()
    piped = runner.invoke(app, ["evaluate", "-f", "trec", "-m", "runid", "-m", "map", str(qrels), "-"],
                          input=runs[0].read_text())
    direct = runner.invoke(app, ["evaluate", "-f", "trec", "-m", "runid", "-m", "map", str(qrels), str(runs[0])])
    assert piped.exit_code == 0, piped.output
    assert piped.stdout == direct.stdout
    both = runner.invoke(app, ["compare", str(qrels), "-", str(runs[1]), "-m", "AP", "-B", "99", "-f", "csv"],
                         input=runs[0].read_text())
    assert both.exit_code == 0, both.output
    assert pl.read_csv(both.stdout.encode())["baseline"].to_list() == ["stdin"]


def test_dash_given_twice_is_refused_naming_both_run_arguments():
    qrels, runs = example_paths()
    result = runner.invoke(app, ["evaluate", str(qrels), "-", "other=-"], input=runs[0].read_text())
    assert result.exit_code == 2
    assert "run argument 2 is '-' (standard input), and so is run argument 1" in result.stderr


def test_error_in_a_run_from_standard_input_names_it_not_its_temporary_copy():
    qrels, _ = example_paths()
    result = runner.invoke(app, ["evaluate", str(qrels), "-"], input="1 Q0 d1 1 abc tag\n")
    assert result.exit_code == 2
    assert "run file - (standard input), line 1, column 5" in result.stderr
    assert "pairedframe-stdin-" not in result.stderr


@pytest.mark.parametrize("command", ["evaluate", "compare", "table", "segments", "report"])
def test_dash_qrels_is_refused_naming_the_qrels_argument(command, tmp_path, monkeypatch):
    """trec_eval reads only the results file from stdin; a QRELS ``-`` said "no such file: -"."""
    qrels, runs = example_paths()
    monkeypatch.chdir(tmp_path)                     # no file named '-' here
    args = [command, "-", str(runs[0])] + (["--segments", "x.csv"] if command == "segments" else [])
    result = runner.invoke(app, args, input=qrels.read_text())
    assert result.exit_code == 2, result.output
    assert "QRELS is '-': qrels cannot be read from standard input" in result.stderr


def test_example_trec_stdout_is_trec_eval_text_read_back_by_the_results_readers(tmp_path):
    """example -f trec printed "qrels: ..." and "runs: ..." before the "# run:" blocks, so its stdout was no
    trec_eval text (read_results: "unknown results format"); they go to stderr, and stdout is evaluate -f trec's."""
    from pairedframe.io.trec_eval_output import read_trec_eval_output

    result = runner.invoke(app, ["example", "-f", "trec"])
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("qrels: ") and "runs: " in result.stderr
    qrels, runs = example_paths()
    evaluated = runner.invoke(app, ["evaluate", "-f", "trec", "-m", "nDCG@10", "-m", "AP", "-m", "P@10", "-m", "R@100",
                                    "-m", "RR", str(qrels), *map(str, runs)])
    assert result.stdout == evaluated.stdout
    out = tmp_path / "example.trec"
    out.write_text(result.stdout, encoding="utf-8")
    read = read_trec_eval_output(out, "example")
    assert read["system"].unique(maintain_order=True).to_list() == ["bm25", "reranker"] and read["summary"].all()
    # recognised as trec_eval output: refused only for holding no per-query values (no -q)
    with pytest.raises(pf.EmptyResultError, match="holds only summary rows"):
        pf.read_results(out)
