"""CLI parity (issue 12 item 10): ``pairedframe segments`` (one-pass segment comparison with
--family-by, --correction and the forest plot) and ``--family-by`` on ``pairedframe compare``."""

from __future__ import annotations

import csv
import io
import json
import math
import re
import warnings

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.errors import SmallSampleWarning
from pairedframe.example import example_paths

runner = CliRunner()
MEASURES = ["AP", "nDCG@10"]


@pytest.fixture(scope="module")
def example():
    qrels, runs = example_paths()
    ev = pf.evaluate(runs, qrels, MEASURES)
    qids = ev.per_query["qid"].unique().sort().to_list()
    segments = pl.DataFrame({"qid": qids * 2, "segment_set": ["parity"] * len(qids) + ["third"] * len(qids),
                             "segment": [str(int(q) % 2) for q in qids] + [str(int(q) % 3) for q in qids]})
    return qrels, runs, ev, segments


def _args(tmp_path, example, *extra):
    qrels, runs, _, segments = example
    path = tmp_path / "segments.csv"
    segments.write_csv(path)
    return ["segments", str(qrels), *map(str, runs), "--segments", str(path), "-m", "AP", "-m", "nDCG@10", *extra]


@pytest.mark.parametrize("options, kwargs", [
    ([], {}),
    (["--correction", "holm", "--family-by", "measure"], {"correction": "holm", "family_by": ["measure"]}),
    (["--test", "t", "--family-by", "measure", "--family-by", "segment_set"],
     {"test": "t", "family_by": ["measure", "segment_set"]}),
])
def test_segments_cli_equals_compare_segments(tmp_path, example, options, kwargs):
    result = runner.invoke(app, _args(tmp_path, example, "-B", "500", "--seed", "3", "-f", "json", *options))
    assert result.exit_code == 0, result.output
    got = pl.DataFrame(json.loads(result.stdout)["rows"])
    _, _, ev, segments = example
    want = pf.compare_segments(ev, segments, baseline="bm25", n_resamples=500, seed=3, **kwargs)
    for column in ("segment_set", "segment", "n_queries", "delta", "ci_low", "ci_high", "pvalue", "pvalue_bh",
                   "pvalue_holm", "significant"):
        assert got[column].to_list() == want[column].to_list(), column
    settings = json.loads(result.stdout)["settings"]
    assert settings["correction"] == kwargs.get("correction", "bh") and settings["seed"] == 3


def test_segments_cli_writes_one_forest_plot_per_system_and_measure(tmp_path, example):
    pytest.importorskip("matplotlib")
    plot = tmp_path / "forest.png"
    result = runner.invoke(app, _args(tmp_path, example, "-B", "200", "--plot", str(plot)))
    assert result.exit_code == 0, result.output
    for name in MEASURES:
        assert (tmp_path / f"forest-reranker-{name}.png").stat().st_size > 1000
    assert "segments vs baseline bm25" in result.stdout and "correction: bh" in result.stdout


@pytest.mark.parametrize("extra, fragment", [
    (["--family-by", "qid"], "--family-by column(s) ['qid'] not among"),
    (["--correction", "bonferroni"], "--correction must be one of"),
    (["--baseline", "nope"], "--baseline 'nope' is not one of the runs"),
    (["-f", "xml"], "--format must be one of"),
])
def test_segments_cli_bad_input_exits_2(tmp_path, example, extra, fragment):
    result = runner.invoke(app, _args(tmp_path, example, "-B", "100", *extra))
    assert result.exit_code == 2, result.output
    assert fragment in result.stderr and "Traceback" not in result.stderr


def test_segments_cli_needs_a_segment_table_and_matching_queries(tmp_path, example):
    qrels, runs, _, _ = example
    missing = runner.invoke(app, ["segments", str(qrels), *map(str, runs), "-m", "AP"])
    assert missing.exit_code == 2 and "--segments FILE is required" in missing.stderr
    other = tmp_path / "other.csv"
    pl.DataFrame({"qid": ["x1", "x2"], "segment_set": "s", "segment": "g"}).write_csv(other)
    empty = runner.invoke(app, ["segments", str(qrels), *map(str, runs), "-m", "AP", "--segments", str(other)])
    assert empty.exit_code == 2 and "no paired query" in empty.stderr


def test_segments_cli_missing_segment_file_says_no_such_file_once_naming_the_option(tmp_path, example):
    qrels, runs, _, _ = example
    missing = tmp_path / "nonexist.csv"
    result = runner.invoke(app, ["segments", str(qrels), *map(str, runs), "-m", "AP", "--segments", str(missing)])
    assert result.exit_code == 2, result.output
    assert f"error: --segments: no such file: {missing}" in result.stderr and result.stderr.count("no such file") == 1


def test_compare_cli_family_by(example):
    qrels, runs, ev, _ = example
    result = runner.invoke(app, ["compare", str(qrels), *map(str, runs), "-m", "AP", "-m", "nDCG@10", "-B", "500",
                                 "--family-by", "measure", "-f", "json"])
    assert result.exit_code == 0, result.output
    got = pl.DataFrame(json.loads(result.stdout)["rows"])
    want = pf.compare(ev, baseline="bm25", n_resamples=500, family_by="measure")
    assert got["pvalue_holm"].to_list() == want["pvalue_holm"].to_list()
    assert got["pvalue_holm"].to_list() == got["pvalue"].to_list()   # one comparison per family
    bad = runner.invoke(app, ["compare", str(qrels), *map(str, runs), "-m", "AP", "--family-by", "qid"])
    assert bad.exit_code == 2 and "--family-by column(s)" in bad.stderr


def test_segments_cli_checks_the_plot_folder_before_the_work(tmp_path, example):
    plot = tmp_path / "out" / "forest.svg"
    result = runner.invoke(app, _args(tmp_path, example, "-B", "100", "--plot", str(plot)))
    assert result.exit_code == 2 and f"--plot '{plot}': the folder '{plot.parent}' does not exist" in result.stderr
    assert "segments vs baseline" not in result.stdout              # nothing was computed or printed


def test_segments_output_has_one_number_format_per_column(shared_data, tmp_path):
    """p-values below 1e-4 were written 3.03e-05 while their column neighbours read 0.0002."""
    import re

    runs = shared_data / "llm_labels_dl" / "dl2019_runs"
    qrels = shared_data / "anserini_tools" / "qrels.dl19-passage.txt"
    if not qrels.exists() or not (runs / "input.p_bert.gz").exists():
        pytest.skip("DL-2019 runs or NIST qrels missing from the shared data")
    ev = pf.evaluate([str(runs / "input.bm25base_p.gz")], str(qrels), ["AP"])
    qids = ev.per_query["qid"].unique().sort().to_list()
    segments = tmp_path / "segments.csv"
    pl.DataFrame({"qid": qids, "segment_set": "parity", "segment": [str(int(q) % 2) for q in qids]}).write_csv(segments)
    args = ["segments", str(qrels), str(runs / "input.bm25base_p.gz"), str(runs / "input.p_bert.gz"),
            "--segments", str(segments), "-m", "AP", "-m", "nDCG@10", "-m", "RR", "--test", "t"]
    for fmt in ("markdown", "latex", "table"):
        result = runner.invoke(app, [*args, "-f", fmt])
        assert result.exit_code == 0, result.output
        sep = {"markdown": "|", "latex": "&", "table": "│"}[fmt]
        rows = [[c.strip().rstrip("\\").strip() for c in line.split(sep)] for line in result.stdout.splitlines()
                if line.count(sep) > (4 if fmt == "latex" else 5) and "measure" not in line and "---" not in line]
        styles = {}
        for row in rows:
            for i, cell in enumerate(row):
                if re.fullmatch(r"-?\d+\.\d+(e[-+]\d+)?", cell):
                    styles.setdefault(i, set()).add("e" in cell)
        assert styles and all(len(s) == 1 for s in styles.values()), (fmt, styles, result.stdout)
        if fmt == "latex":     # a paper's p-values: 4 decimals, the tiny ones <0.0001 (as compare -f latex)
            assert "\\textless{}0.0001 & " in result.stdout and "e-0" not in result.stdout, result.stdout
        else:
            assert any(s == {True} for s in styles.values())      # the tiny p-values keep their precision


def test_segments_help_names_the_plot_extra():
    result = runner.invoke(app, ["segments", "--help"], env={"COLUMNS": "300"})
    assert 'pip install "pairedframe[plot]"' in result.output


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_segments_help_says_qrels_may_be_a_table_as_a_table_works(tmp_path, example, suffix):
    """The QRELS help said TREC text only, though a qrels table gives the same rows as the text file."""
    import typer.main

    # the argument's own help; typer 0.16 (the lowest supported) keeps no argument help at all
    command = typer.main.get_command(app).commands["segments"]
    qrels_help = next(p.help for p in command.params if p.name == "qrels")
    assert qrels_help is None or "plain, .gz or .zst, or a Parquet/Arrow/CSV/TSV table" in qrels_help
    qrels_text = example[0]
    table = tmp_path / f"qrels{suffix}"
    qrels = pf.read_qrels(qrels_text)
    if suffix == ".csv":
        qrels.write_csv(table)
    else:
        qrels.write_parquet(table)
    args = _args(tmp_path, example, "-B", "200", "-f", "csv")
    from_text = runner.invoke(app, args)
    from_table = runner.invoke(app, [args[0], str(table), *args[2:]])
    assert from_text.exit_code == 0 and from_table.exit_code == 0, from_table.output
    assert from_table.stdout == from_text.stdout

def test_segments_cli_output_writes_the_file_instead_of_stdout(tmp_path, example):
    printed = runner.invoke(app, _args(tmp_path, example, "-B", "200", "-f", "json"))
    assert printed.exit_code == 0, printed.output
    out = tmp_path / "segments.json"                 # the suffix names the format when -f is not given
    written = runner.invoke(app, _args(tmp_path, example, "-B", "200", "-o", str(out)))
    assert written.exit_code == 0, written.output
    assert written.stdout == "" and f"wrote {out}" in written.stderr
    assert json.loads(out.read_text(encoding="utf-8")) == json.loads(printed.stdout)
    table = tmp_path / "segments.txt"
    written = runner.invoke(app, _args(tmp_path, example, "-B", "200", "--output", str(table)))
    assert written.exit_code == 0 and written.stdout == ""
    text = table.read_text(encoding="utf-8")
    assert "segments vs baseline bm25" in text and "correction: bh" in text and "\x1b[" not in text


@pytest.mark.parametrize("where, fragment, option", [
    ("missing/segments.csv", "--output '{path}': the folder '{parent}' does not exist", "-o"),
    ("folder.csv", "--output '{path}' is a folder", "-o"),
    ("s.xlsx", "--output 's.xlsx': the suffix '.xlsx' names no format; use .txt, .json, .csv", "-o"),  # wrote a
    ("f.jpg", "--plot 'f.jpg': a forest plot file must end in one of .png, .svg, .pdf", "--plot"),   # box table
])
def test_segments_cli_refuses_an_unwritable_output_before_the_work(tmp_path, example, where, fragment, option):
    path = tmp_path / where
    if where == "folder.csv":
        path.mkdir()
    result = runner.invoke(app, _args(tmp_path, example, "-B", "100", option, str(path)))
    assert result.exit_code == 2, result.output
    assert fragment.format(path=path, parent=path.parent) in result.stderr and "Traceback" not in result.stderr
    assert "segments vs baseline" not in result.stdout              # nothing was computed or printed


def test_segments_csv_writes_null_as_an_empty_cell_and_nan_as_nan_as_the_result_holds_them(tmp_path, example):
    """A one-query segment's CSV row wrote NaN in ci_low, ci_high, se and the p-values, which the result (and
    docs/guide/segments.md) hold as null, while `significant` beside them was empty: null is now an empty cell
    in every float column, and a NaN the result holds (sd, skewness of one delta) stays NaN, as compare's CSV."""
    qrels, runs, ev, _ = example
    qids = ev.per_query["qid"].unique().sort().to_list()
    segments = pl.DataFrame({"qid": qids, "segment_set": "tiny",
                             "segment": ["one" if q == qids[0] else "rest" for q in qids]})
    path = tmp_path / "segments.csv"
    segments.write_csv(path)
    res = runner.invoke(app, ["segments", str(qrels), *map(str, runs), "--segments", str(path), "-m", "AP",
                              "-B", "200", "-f", "csv"])
    assert res.exit_code == 0, res.output
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    one = next(r for r in rows if r["segment"] == "one")
    with pytest.warns(SmallSampleWarning, match="only one"):
        want = pf.compare_segments(ev, segments, baseline="bm25", measures=["AP"], n_resamples=200)
    want = want.filter(pl.col("segment") == "one")
    assert want.height == 1 and len([r for r in rows if r["segment"] == "one"]) == 1
    floats = [c for c, t in want.schema.items() if t.is_float()]
    nulls = [c for c in floats if want[c][0] is None]
    nans = [c for c in floats if want[c][0] is not None and math.isnan(want[c][0])]
    assert {"ci_low", "pvalue"} <= set(nulls) and nans
    assert {c: one[c] for c in nulls} == dict.fromkeys(nulls, "")
    assert {c: one[c] for c in nans} == dict.fromkeys(nans, "NaN")
    assert one["significant"] == ""
    identical = runner.invoke(app, ["compare", str(qrels), str(runs[0]), f"same={runs[0]}", "-m", "AP", "-B", "200",
                                    "-f", "csv"])
    assert identical.exit_code == 0, identical.output
    cells = next(csv.DictReader(io.StringIO(identical.stdout)))
    assert cells["skewness"] == "NaN"          # compare's own word for a number it cannot give (no spread)


def test_segments_markdown_and_latex_keep_the_title_that_says_what_delta_and_the_correction_are(tmp_path, example):
    """-f markdown and -f latex dropped the terminal table's title (delta = system - baseline; BH per family):
    markdown gets it as pandoc's caption line, LaTeX as a comment above the tabular, which pdflatex compiles in
    a table float."""
    import shutil
    import subprocess

    title = ("segments vs baseline bm25 (delta = system - baseline; Holm per family of system, measure, "
             "segment_set)")
    markdown = runner.invoke(app, _args(tmp_path, example, "-B", "199", "--correction", "holm", "-f", "markdown"))
    assert markdown.exit_code == 0, markdown.output
    assert markdown.stdout.rstrip("\n").endswith(f"\n\nTable: {title}")
    latex = runner.invoke(app, _args(tmp_path, example, "-B", "199", "--correction", "holm", "-f", "latex"))
    assert latex.exit_code == 0, latex.output
    assert latex.stdout.startswith(f"% {title}\n\\begingroup")
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed (apt-get install texlive-latex-recommended to run this test)")
    doc = tmp_path / "segments.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n\\begin{table}\n"
                   + latex.stdout + "\\end{table}\n\\end{document}\n", encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]


def _cells(table: str, name: str) -> list[str]:
    """The cells of column ``name`` in a markdown pipe table or a rich terminal table (header row first)."""
    rows = [[cell.strip() for cell in re.split(r"[|│┃]", line.strip())[1:-1]] for line in table.splitlines()
            if line.strip()[:1] in ("|", "│", "┃")]
    at = rows[0].index(name)
    return [row[at] for row in rows[1:] if not set(row[at]) <= set("-: ")]   # markdown's delimiter row left out


@pytest.mark.parametrize("correction", ["bh", "holm"])
def test_segments_markdown_and_terminal_print_significant_as_yes_or_no_as_the_latex_does(tmp_path, example,
                                                                                          correction):
    """markdown and the terminal table printed Python's True / False for `significant` while the LaTeX says
    yes / no: every human-readable format now says yes / no, row for row as json's true / false (a run of the
    qrels' relevant documents makes some segments significant)."""
    qrels = pl.read_csv(example[0], separator=" ", has_header=False, new_columns=["qid", "it", "docno", "rel"],
                        schema_overrides={"qid": pl.String, "docno": pl.String})
    oracle = tmp_path / "oracle.run"
    oracle.write_text("".join(f"{q} Q0 {d} 1 {r}.0 oracle\n" for q, d, r in qrels.filter(pl.col("rel") > 0)
                              .select("qid", "docno", "rel").iter_rows()))
    args = [*_args(tmp_path, example, "-B", "499", "--seed", "1", "--correction", correction), str(oracle)]
    rows = json.loads(runner.invoke(app, [*args, "-f", "json"]).stdout)["rows"]
    want = [{True: "yes", False: "no"}[row["significant"]] for row in rows]
    assert "yes" in want and "no" in want                  # both words to tell apart
    for fmt in ("markdown", "table"):
        result = runner.invoke(app, [*args, "-f", fmt])
        assert result.exit_code == 0, result.output
        assert _cells(result.stdout, "significant") == want, fmt
        assert not {"True", "False"} & set(re.split(r"[\s|│]+", result.stdout)), fmt


def test_segments_title_names_the_correction_as_written_and_the_family_given(tmp_path, example):
    """The caption said 'HOLM per family' (the option upper-cased) and never what a family was."""
    got = runner.invoke(app, _args(tmp_path, example, "-B", "199", "--correction", "holm", "--family-by", "system",
                                   "-f", "markdown"))
    assert got.exit_code == 0, got.output
    assert got.stdout.rstrip("\n").endswith("(delta = system - baseline; Holm per family of system)")


@pytest.mark.parametrize("tiny", [False, True], ids=["rows-agree", "rows-differ"])
def test_segments_json_settings_n_resamples_is_one_list_whatever_the_rows_against_the_rows(tmp_path, example, tiny):
    """settings' n_resamples was an int when every row drew the same count and a list when rows differed (an
    exact segment counts its sign patterns, a one-query segment has null): now always the rows' distinct
    counts, first seen first."""
    qrels, runs, ev, segments = example
    if tiny:      # 3 queries: 2**3 <= 500 patterns enumerated; 1 query: not tested
        qids = segments["qid"].unique().sort().to_list()
        segments = pl.concat([segments, pl.DataFrame({"qid": qids[:4], "segment_set": ["tiny"] * 4,
                                                      "segment": ["few"] * 3 + ["one"]})])
    result = runner.invoke(app, _args(tmp_path, (qrels, runs, ev, segments), "-B", "500", "-f", "json"))
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    counts = list(dict.fromkeys(row["n_resamples"] for row in out["rows"]))
    assert out["settings"]["n_resamples"] == counts
    assert counts == ([500, 8, None] if tiny else [500])
    table = runner.invoke(app, _args(tmp_path, (qrels, runs, ev, segments), "-B", "500"))
    assert ("n_resamples: 500\n" in table.stdout) is not tiny     # one count printed as compare prints it


@pytest.mark.parametrize("suffix", ["json", "ndjson"])
def test_segments_json_with_a_number_among_string_qids_warns_as_all_integer_qids(tmp_path, example, suffix):
    """A JSON segment file with {"qid": 7} beside {"qid": "1"} read 7 as "7" without a word, while a file of
    integer qids only warns that they became strings: both warn now, naming the numeric id column, from the CLI and
    from compare_segments."""
    qrels, runs, ev, segments = example
    rows = segments.to_dicts()
    rows[0]["qid"] = int(rows[0]["qid"])                       # one number among the strings
    path = tmp_path / f"segments.{suffix}"
    path.write_text(json.dumps(rows) if suffix == "json" else "".join(json.dumps(r) + "\n" for r in rows))
    said = "numeric id column(s) ['qid'] of "
    result = runner.invoke(app, ["segments", str(qrels), *map(str, runs), "--segments", str(path), "-m", "AP",
                                 "-B", "200"])
    assert result.exit_code == 0, result.output
    assert said in result.stderr and f"the number {rows[0]['qid']} beside the text" in result.stderr
    with warnings.catch_warnings(record=True) as caught:   # also: '1' (was 001) is in no paired query
        warnings.simplefilter("always")
        pf.compare_segments(ev.per_query, str(path), baseline=ev.systems[0], n_resamples=200)
    assert any(said in str(w.message) and w.filename == __file__ for w in caught), [str(w.message) for w in caught]


def test_integer_segment_ids_warn_as_integer_qids_from_the_cli_and_compare_segments(tmp_path, example):
    """A Parquet segment file written with integer segment_set / segment columns, or segment=[0, 1, ...] in
    Python, became text without a word while integer qids warn: the same warning now names the segment
    columns, from the CLI and at the caller's line of compare_segments; the result is the text ids' one."""
    qrels, runs, ev, segments = example
    numbers = segments.with_columns(pl.col("segment").cast(pl.Int64),
                                    segment_set=pl.when(pl.col("segment_set") == "parity").then(2).otherwise(3))
    path = tmp_path / "segments.parquet"
    numbers.write_parquet(path)
    said = "numeric id column(s) ['segment_set', 'segment'] of "
    result = runner.invoke(app, ["segments", str(qrels), *map(str, runs), "--segments", str(path), "-m", "AP",
                                 "-B", "200"])
    assert result.exit_code == 0, result.output
    assert said + f"the segment file {path} converted to strings" in result.stderr
    for table in (str(path), numbers, numbers.to_dict(as_series=False)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = pf.compare_segments(ev.per_query, table, baseline=ev.systems[0], n_resamples=200, seed=0)
        assert [w.filename for w in caught if said in str(w.message)] == [__file__], [str(w.message) for w in caught]
    as_text = numbers.with_columns(pl.col("segment_set", "segment").cast(pl.String))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert got.equals(pf.compare_segments(ev.per_query, as_text, baseline=ev.systems[0], n_resamples=200, seed=0))
    assert not any("numeric id" in str(w.message) for w in caught)
