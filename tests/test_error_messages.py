"""Messages that point the right way (issue 12 item 4): a file that is not TREC text names the
argument it was given as and says what it looks like; a run given as qrels suggests swapped arguments."""

from __future__ import annotations

import gzip
import re

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.errors import DUPLICATE_RULE, InputFormatError

runner = CliRunner()
RUN_TEXT = "1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n"
QRELS_TEXT = "1 0 d1 1\n1 0 d2 0\n"


@pytest.fixture
def files(tmp_path):
    run, qrels = tmp_path / "r.run", tmp_path / "q.txt"
    run.write_text(RUN_TEXT)
    qrels.write_text(QRELS_TEXT)
    return run, qrels


def test_run_given_as_qrels_suggests_swapped_arguments(files):
    run, qrels = files
    swap = (r"are the arguments swapped\? On the command line QRELS comes first, then RUN \(as in trec_eval\); "
            r"in Python pf.evaluate\(run, qrels\) takes the run first")
    with pytest.raises(InputFormatError, match=rf"^qrels file .*r\.run, line 1: expected exactly 4 fields .* found 6; "
                                               rf"it looks like a run line .*{swap}"):
        pf.evaluate(qrels, run, "AP")        # run and qrels swapped in Python
    with pytest.raises(InputFormatError, match=rf"^run file .*q\.txt, line 1: .* found 4; it looks like a qrels line .*{swap}"):
        pf.read_run(qrels)
    result = runner.invoke(app, ["evaluate", str(run), str(qrels), "-m", "AP"])   # trec_eval order swapped
    assert result.exit_code == 2
    assert "qrels file" in result.stderr and "QRELS comes first" in result.stderr


@pytest.mark.parametrize("text, looks", [
    ("qid,docno,score\n1,d1,2.0\n", "it looks like a table's header, not TREC text: pass the table file"),
    ("1,d1,2.0\n1,d2,1.0\n", "it looks like CSV .*: pass a .csv file to pf.evaluate"),
    ('[{"qid": "1", "docno": "d1"}]\n', "it looks like JSON"),
    ("<html><body>404</body></html>\n", "it looks like XML or HTML"),
    ("qid\tdocno\tscore\n1\td1\t2.0\n", "it looks like a table's header, not TREC text: pass the table file"),
    ("system qid docno rel\n", "it looks like the header line of a space-separated table"),
])
@pytest.mark.parametrize("what", ["run", "qrels"])
def test_text_that_is_not_trec_names_the_argument_and_what_it_looks_like(tmp_path, text, looks, what):
    path = tmp_path / "input.txt"
    path.write_text(text)
    reader = pf.read_run if what == "run" else pf.read_qrels
    with pytest.raises(InputFormatError, match=rf"^{what} file .*input\.txt, line 1[:,] .*{looks}") as exc:
        reader(path)
    assert exc.value.argument == what


@pytest.mark.parametrize("what, columns, lacks", [("qrels", "qid, docno, rel", r"\['qid', 'rel'\]"),
                                                   ("run", "qid, docno, score", r"\['qid', 'score'\]")])
@pytest.mark.parametrize("name, sep", [("input.csv", ","), ("input.tsv", "\t"), ("input.txt", ",")])
def test_table_file_whose_header_names_no_known_column_says_which_columns_it_needs(tmp_path, what, columns, lacks,
                                                                                   name, sep):
    """A .csv whose header is topic,doc,grade is read as TREC text (no qid column to tell it a table): the error
    said "it looks like CSV ... pass a .csv file", though it was one; it names the header's columns, the
    columns needed and their other names."""
    path = tmp_path / name
    path.write_text(sep.join(["topic", "doc", "grade"]) + "\n" + sep.join(["1", "a", "1"]) + "\n")
    reader = pf.read_run if what == "run" else pf.read_qrels
    with pytest.raises(InputFormatError) as exc:
        reader(path)
    message = str(exc.value)
    assert "pass a .csv file" not in message
    assert re.search(rf"naming the columns \['topic', 'doc', 'grade'\], but a {what} table needs the columns "
                     rf"{columns} \(also read under other names: qid: query_id; docno: doc_id, doc.*\) and it "
                     rf"lacks {lacks}", message), message
    headless = tmp_path / name.replace("input", "headless")
    headless.write_text(sep.join(["1", "a", "1"]) + "\n")
    if name.endswith((".csv", ".tsv")):
        with pytest.raises(InputFormatError, match=rf"table needs a header row naming its columns {columns}"):
            reader(headless)


SPACE_HEADER = (r"it looks like the header line of a space-separated table \(as pandas' to_csv\(sep=' '\) writes\), "
                r"but TREC run files have no header and \.csv / \.tsv tables are read comma- / tab-separated: remove "
                r"the header line to read the rest as TREC text, or write the table with commas \(\.csv\) or tabs "
                r"\(\.tsv\)")


@pytest.mark.parametrize("name", ["run.tsv", "run.csv", "run.txt"])
def test_space_separated_run_table_with_a_header_says_to_drop_the_header_or_use_commas_or_tabs(tmp_path, name):
    """df.to_csv("run.tsv", sep=" ") writes a header and blanks: read as TREC text (no tab, no comma), whose
    hint must not tell the user to pass the table file they just passed."""
    run = tmp_path / name
    run.write_text("qid Q0 docno rank score tag\n1 Q0 d1 1 2.0 mine\n1 Q0 d2 2 1.0 mine\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    with pytest.raises(InputFormatError, match=rf"^run file .*{re.escape(name)}, line 1, column 5: .*{SPACE_HEADER}") as exc:
        pf.evaluate(str(run), str(qrels), ["nDCG@10"])
    assert "pass the table file" not in str(exc.value)
    result = runner.invoke(app, ["evaluate", str(qrels), str(run), "-m", "nDCG@10"])
    assert result.exit_code == 2
    said = " ".join(result.stderr.split())          # rich wraps the message: compare its words
    assert re.search(SPACE_HEADER, said) and "pass the table file" not in said


@pytest.mark.parametrize("what", ["run", "qrels"])
def test_binary_and_empty_files_name_the_argument(tmp_path, what):
    reader = pf.read_run if what == "run" else pf.read_qrels
    binary = tmp_path / "data.bin"
    binary.write_bytes(b"\xff\xfe\xfa garbage \x81\x82\n")
    with pytest.raises(InputFormatError, match=rf"{what} file .*data\.bin.*not UTF-8 text, so not a TREC {what} file"):
        reader(binary)
    empty = tmp_path / "empty.gz"
    with gzip.open(empty, "wt") as fh:
        fh.write("# only a comment\n")
    with pytest.raises(InputFormatError, match=rf"^{what} file .*empty\.gz: empty file"):
        reader(empty)


@pytest.mark.parametrize("encoding, sign", [("utf-16", "byte order mark FF FE"),      # Python's: LE with a BOM
                                            ("utf-16-be-bom", "byte order mark FE FF"),
                                            ("utf-16-le", "every other byte is NUL")])
@pytest.mark.parametrize("what", ["run", "qrels"])
def test_a_utf16_file_is_named_utf16_not_binary_in_python_and_on_the_cli(tmp_path, files, encoding, sign, what):
    """Such a file was called binary (CLI) or got a line's mojibake (Python); it is text to save as UTF-8."""
    text = RUN_TEXT if what == "run" else QRELS_TEXT
    path = tmp_path / f"{what}.txt"
    path.write_bytes(b"\xfe\xff" + text.encode("utf-16-be") if encoding == "utf-16-be-bom" else text.encode(encoding))
    with pytest.raises(InputFormatError) as exc:
        (pf.read_run if what == "run" else pf.read_qrels)(path)
    run, qrels = files
    args = [str(qrels), str(path)] if what == "run" else [str(path), str(run)]
    cli = runner.invoke(app, ["evaluate", *args, "-m", "AP"])
    assert cli.exit_code == 2
    for message in (str(exc.value), cli.stderr):
        assert "looks like UTF-16 text (" in message and sign in message and "save it as UTF-8" in message, message
        assert "binary" not in message and str(path) in message and what in message, message

def test_duplicate_and_bad_value_messages_name_the_argument(tmp_path):
    run = tmp_path / "dup.run"
    run.write_text("1 Q0 d1 1 2.0 a\n1 Q0 d1 2 1.0 a\n")
    with pytest.raises(InputFormatError, match=r"^run file .*dup\.run, line 1: duplicate"):
        pf.read_run(run)
    qrels = tmp_path / "bad.qrels"
    qrels.write_text("1 0 d1 1.5\n")
    with pytest.raises(InputFormatError, match=r"^qrels file .*bad\.qrels, line 1, column 4: relevance grade '1\.5'"):
        pf.read_qrels(qrels)


def test_unknown_name_suggests_names_that_contain_it_first():
    import polars as pl

    import pairedframe as pf

    df = pl.DataFrame({"system": ["UNH_bm25", "bm25base_p", "x"] * 2, "qid": ["1"] * 3 + ["2"] * 3,
                       "measure": ["m"] * 6, "value": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]})
    with pytest.raises(pf.EmptyResultError, match=r"'bm25': did you mean \['bm25base_p', 'UNH_bm25'\]"):
        pf.compare(df, baseline="bm25")
    with pytest.raises(pf.EmptyResultError, match=r"did you mean \['bm25base_p'\]"):
        pf.compare(df, baseline="BM25BASE_P")


def test_a_fractional_grade_error_names_the_grades_option_once_in_python_and_on_the_cli(tmp_path):
    from typer.testing import CliRunner

    from pairedframe.cli import app

    (tmp_path / "qrels").write_text("q1 0 d1 1.5\n")
    (tmp_path / "run").write_text("q1 Q0 d1 1 1 t\n")
    with pytest.raises(ValueError) as info:
        pf.evaluate(tmp_path / "run", tmp_path / "qrels", ["AP"])
    assert str(info.value).count("grades") == 1 and "grades='trec_eval' reads a number" in str(info.value)
    out = CliRunner().invoke(app, ["evaluate", str(tmp_path / "qrels"), str(tmp_path / "run")]).output
    assert out.count("--grades") == 1 and "grades=" not in out


def test_list_of_runs_given_as_qrels_suggests_swapped_arguments(files, tmp_path):
    run, qrels = files
    other = tmp_path / "s.run"
    other.write_text(RUN_TEXT.replace(" a\n", " b\n"))
    swap = r"are the arguments swapped\? On the command line QRELS comes first"
    with pytest.raises(InputFormatError, match=rf"the qrels is a list of 2 paths .*r\.run.*s\.run.*{swap}") as exc:
        pf.evaluate(qrels, [run, other], "AP")
    assert exc.value.argument == "qrels"
    with pytest.raises(InputFormatError, match=rf"the qrels is a list of 2 tables.*{swap}"):
        pf.evaluate(qrels, [pf.read_run(run), pf.read_run(other)], "AP")


@pytest.mark.parametrize("what", ["run", "qrels"])
def test_topics_file_is_described_as_two_columns_not_as_swapped_arguments(tmp_path, what):
    """qid<TAB>query text: a topics file has 2 columns whatever its number of words (never 'a run line')."""
    topics = tmp_path / "topics.tsv"
    topics.write_text("156493\tdo goldfish grow\n1110199\twhat is wifi vs bluetooth\n")
    reader = pf.read_run if what == "run" else pf.read_qrels
    with pytest.raises(InputFormatError, match=rf"^{what} file .*topics\.tsv, line \d+.*it has 2 tab-separated columns "
                                               rf"\(qid, text\), like a topics / queries file, not a TREC {what} file") as exc:
        reader(topics)
    assert "swapped" not in str(exc.value)
    topics.write_text("101 goldfish\n")
    with pytest.raises(InputFormatError, match=r"it has 2 fields, like a topics / queries file"):
        reader(topics)


@pytest.mark.parametrize("run_ids, qrels_ids, pairs", [
    (("7", "8"), ("007", "008"), r"'7' ~ '007', '8' ~ '008'"),
    (("Q7", "Q8"), ("q7", "q8"), r"'Q7' ~ 'q7', 'Q8' ~ 'q8'"),
], ids=["leading_zeros", "case"])
def test_no_judged_query_in_common_names_the_ids_that_differ_only_in_spelling(tmp_path, run_ids, qrels_ids, pairs):
    """Every run query spelled otherwise than in the qrels: the error says so (as the warning does when
    some queries match), in Python and on the command line."""
    run, qrels = tmp_path / "r.txt", tmp_path / "q.txt"
    run.write_text("".join(f"{q} Q0 d1 1 {2.0 + i} r\n" for i, q in enumerate(run_ids)))
    qrels.write_text("".join(f"{q} 0 d1 {1 + i}\n" for i, q in enumerate(qrels_ids)))
    hint = rf"2 query id\(s\) of the run match ids of the qrels except for leading zeros, case or blanks \({pairs}\)"
    with pytest.raises(pf.EmptyResultError, match=rf"no judged query in common with the qrels.*{hint}"):
        pf.evaluate(run, qrels, "RR")
    result = runner.invoke(app, ["evaluate", "-m", "RR", str(qrels), str(run)])
    assert result.exit_code == 2 and "pairedframe: error:" in result.stderr
    assert re.search(hint, " ".join(result.stderr.split())), result.stderr


def test_no_judged_query_in_common_without_near_ids_asks_about_the_collection(tmp_path):
    run, qrels = tmp_path / "r.txt", tmp_path / "q.txt"
    run.write_text("7 Q0 d1 1 2.0 r\n8 Q0 d1 1 3.0 r\n")
    qrels.write_text("301 0 d1 1\n302 0 d1 2\n")
    with pytest.raises(pf.EmptyResultError, match=r"same collection and year\?$") as info:
        pf.evaluate(run, qrels, "RR")
    assert "except for leading zeros" not in str(info.value)


def _tagged_run(path, tags, *, grouped):
    """A run file holding one system per tag, each retrieving d1 and d2 for queries 1 and 2: by query
    (``grouped``, a query's lines together) or system after system (a query's lines scattered)."""
    lines = [(q, t, f"{q} Q0 d{k} {k} {3.0 - k} {t}") for t in tags for q in ("1", "2") for k in (1, 2)]
    lines = sorted(lines, key=lambda x: x[0]) if grouped else lines
    path.write_text("".join(text + "\n" for _, _, text in lines))
    return path


@pytest.mark.parametrize("grouped", [True, False], ids=["lines-by-query", "lines-by-system"])
def test_a_run_file_with_several_tags_is_named_so_on_the_cli_and_in_python(tmp_path, grouped):
    """NAME=PATH on a file of two systems said only 'duplicate (qid, docno)', as if one run repeated a document."""
    run = _tagged_run(tmp_path / "both.run", ["bm25", "reranker"], grouped=grouped)
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n2 0 d2 1\n")
    # a file read in pieces (lines by system) names every tag of the file too, as the exact reader does
    says = r"the file holds several run tags \('bm25', 'reranker'\): several systems in one file"
    how = r"give each system its own file .* or a table with a system column"
    for args in ([f"x={run}"], [str(run)]):
        result = runner.invoke(app, ["evaluate", str(qrels), *args, "-m", "AP"])
        assert result.exit_code == 2, result.output
        assert re.search(says, result.stderr) and re.search(how, result.stderr), result.stderr
        assert "NAME=PATH" in result.stderr and "trec_eval refuses duplicates" not in result.stderr
    for call in (lambda: pf.evaluate({"x": run}, qrels, "AP"), lambda: pf.read_run(run, system="x")):
        with pytest.raises(pf.DuplicateError, match=f"{says}.*duplicate \\(qid, docno\\) = \\([12], d1\\).*{how}"):
            call()


def test_a_run_file_with_many_tags_names_a_few_and_counts_the_rest(tmp_path):
    run = _tagged_run(tmp_path / "six.run", ["a", "b", "c", "d", "e", "f"], grouped=True)
    with pytest.raises(pf.DuplicateError, match=r"several run tags \('a', 'b', 'c', 'd' and 2 more\)"):
        pf.read_run(run)
    one = tmp_path / "one.run"                # one tag: a document repeated inside one run, as before
    one.write_text("1 Q0 d1 1 2.0 a\n1 Q0 d1 2 1.0 a\n2 Q0 d1 1 1.0 b\n")
    with pytest.raises(pf.DuplicateError, match=r"in run, also on line\(s\) \[2\]; trec_eval refuses duplicates"):
        pf.read_run(one)


@pytest.mark.parametrize("grade, says", [
    ("２", r"relevance grade '２' is not (an integer|a number)"),  # full-width digit: polars' \d took it
    ("9223372036854775808", r"relevance grade '9223372036854775808' does not fit in a 64-bit integer"),
    ("-9223372036854775809", r"relevance grade '-9223372036854775809' does not fit in a 64-bit integer"),
], ids=["full-width-digit", "above-int64", "below-int64"])
@pytest.mark.parametrize("grades", ["strict", "trec_eval"])
def test_a_grade_polars_cannot_cast_is_refused_naming_file_line_and_column(tmp_path, grade, says, grades):
    qrels, run = tmp_path / "q.txt", tmp_path / "r.run"
    qrels.write_text(f"1 0 b 1\n1 0 a {grade}\n", encoding="utf-8")
    run.write_text(RUN_TEXT)
    where = r"^qrels file .*q\.txt, line 2, column 4: "
    for call in (lambda: pf.read_qrels(qrels, grades=grades), lambda: pf.evaluate(run, qrels, "AP", grades=grades)):
        with pytest.raises(InputFormatError, match=where + says):
            call()
    result = runner.invoke(app, ["evaluate", "--grades", grades, "-m", "AP", str(qrels), str(run)])
    assert result.exit_code == 2, result.output
    assert re.search(says.replace("^", ""), result.stderr) and "line 2, column 4" in result.stderr, result.stderr


@pytest.mark.parametrize("rel, says", [
    (pl.Series([1.0, 1e20]), r"row 2: relevance grade '1e\+20' does not fit in a 64-bit integer"),
    (pl.Series([1, 2**63], dtype=pl.UInt64), r"row 2: relevance grade '9223372036854775808' does not fit"),
    (pl.Series(["1", "9223372036854775808"]), r"row 2: relevance grade '9223372036854775808' does not fit"),
], ids=["float-1e20", "uint64", "text-above-int64"])
@pytest.mark.parametrize("grades", ["strict", "trec_eval"])
def test_a_table_grade_polars_cannot_cast_is_refused_naming_column_and_row(rel, says, grades, tmp_path):
    table = pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": rel})
    if rel.dtype == pl.String:  # a table's text grades are refused as text (a full-width digit with them); a file's are parsed
        table.write_csv(tmp_path / "qrels.csv")
        table = str(tmp_path / "qrels.csv")
    with pytest.raises(pf.SchemaError, match=r"qrels column 'rel'.*" + says):
        pf.as_qrels(table, grades=grades)
    with pytest.raises(pf.SchemaError, match=says):
        pf.evaluate({"s": pl.DataFrame({"qid": ["1"], "docno": ["a"], "score": [1.0]})}, table, "AP", grades=grades)


def test_a_directory_given_as_qrels_or_to_a_reader_names_the_argument_not_errno_21(tmp_path, files):
    """The run argument said "is a directory, not a file"; the qrels argument, the readers and the segments
    file raised Python's bare IsADirectoryError ([Errno 21]) or named another argument."""
    run, qrels = files
    folder = tmp_path / "folder"
    folder.mkdir()
    said = re.escape(f"{folder}: ")
    for judgments_format, measure in (("qrels", "AP"), ("qrels_jg", "map_avgjg"), ("prefs", "prefs_pair"),
                                      ("qrels_prefs", "prefs_pair")):
        with pytest.raises(InputFormatError, match=rf"^{said}the qrels argument is a directory, not a file$"):
            pf.evaluate(run, folder, [measure], judgments_format=judgments_format)
    result = runner.invoke(app, ["evaluate", str(folder), str(run), "-m", "AP"])
    assert result.exit_code == 2 and result.stderr == \
        f"pairedframe: error: {folder}: the qrels argument is a directory, not a file\n", result.stderr
    for reader, argument in ((pf.read_qrels, "path"), (pf.read_prefs, "path"), (pf.read_zscores, "path"),
                             (pf.read_run, "paths")):
        with pytest.raises(InputFormatError,
                           match=rf"^{said}{reader.__name__}: the {argument} argument is a directory, not a file$"):
            reader(folder)
    with pytest.raises(InputFormatError, match=rf"^{said}read_run: item 1 of the paths argument is a directory"):
        pf.read_run([run, folder])
    with pytest.raises(InputFormatError, match=rf"^{said}the results argument is a directory, not a file$"):
        pf.read_results(folder)                # as analyze's RESULTS says it
    ev = pf.evaluate({"a": run, "b": run}, qrels, ["AP"])
    with pytest.raises(InputFormatError, match=rf"^{said}the segments argument is a directory, not a file$"):
        pf.compare_segments(ev, folder, baseline="a")
    result = runner.invoke(app, ["segments", str(qrels), f"a={run}", f"b={run}", "-m", "AP", "-s", str(folder)])
    assert result.exit_code == 2 and "the --segments argument is a directory, not a file" in result.stderr, \
        result.stderr


def test_qrels_duplicate_in_a_query_the_run_lacks_is_refused_saying_trec_eval_checks_only_evaluated_queries(tmp_path):
    """trec_eval 10 checks a query's qrels for duplicates only when it evaluates the query (form_res_rels.c);
    pairedframe refuses them in every query and must not claim that trec_eval would refuse this file."""
    qrels = tmp_path / "q"
    qrels.write_text("1 0 d1 1\n1 0 d2 1\n2 0 x 1\n2 0 x 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 d1 1 2.0 t\n1 Q0 d2 2 1.0 t\n")
    with pytest.raises(pf.DuplicateError, match=r"\(2, x\).*trec_eval refuses duplicates in the queries it "
                                                 r"evaluates.*\(pairedframe in any query, at any rank\)"):
        pf.evaluate(str(run), str(qrels), ["AP"])


def test_run_duplicate_below_the_depth_is_refused_saying_trec_eval_checks_only_the_top_depth(tmp_path):
    """trec_eval 10 sorts a query's run lines and cuts them to -M before its duplicate check (form_res_rels.c),
    so with -M 2 it scores this run (map 1.0000); pairedframe refuses it, and its message must say that
    trec_eval checks only the top -M ranks rather than claim trec_eval refuses the file."""
    run, qrels = tmp_path / "rDup", tmp_path / "qJ"
    run.write_text("1 Q0 x 1 3 t\n1 Q0 x 2 0.1 t\n1 Q0 a 3 5 t\n")
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    result = runner.invoke(app, ["evaluate", "-f", "trec", "-M", "2", "-m", "map", str(qrels), str(run)])
    assert result.exit_code == 2, result.output
    assert "duplicate (qid, docno) = (1, x)" in result.stderr
    assert "in a run only among the top -M ranks (pairedframe in any query, at any rank)" in result.stderr


@pytest.mark.parametrize("what", ["run", "qrels"])
def test_a_missing_local_file_names_its_argument_in_the_argument_attribute(files, tmp_path, what):
    """errors.missing_file: a missing run had no ``argument`` (a missing qrels had), so a caller could not
    tell which input it was about but by the message's words."""
    run, qrels = files
    missing = str(tmp_path / "nope.txt")
    with pytest.raises(FileNotFoundError, match=rf"^{what}: no such file: ") as evaluated:
        pf.evaluate(missing if what == "run" else run, missing if what == "qrels" else qrels, "AP")
    with pytest.raises(FileNotFoundError) as read:
        (pf.read_run if what == "run" else pf.read_qrels)(missing)
    assert evaluated.value.argument == read.value.argument == what


def test_a_missing_results_file_and_judgment_set_name_their_argument(files, tmp_path):
    run, _ = files
    with pytest.raises(FileNotFoundError) as results:
        pf.read_results(tmp_path / "nope.csv")
    with pytest.raises(FileNotFoundError, match=r"judgment set 'gold'") as judgments:
        pf.evaluate_judgment_sets(run, {"gold": str(tmp_path / "nope.qrels")}, "AP")
    assert (results.value.argument, judgments.value.argument) == ("results", "judgments")


@pytest.mark.parametrize("shifted_first", [False, True])
def test_duplicate_from_a_qid_with_a_blank_names_the_shifted_line_against_the_usual_field_count(tmp_path,
                                                                                              shifted_first):
    """'q 7' as a qid shifts the fields: its lines read as (q, Q0), with run tags '2.0' and '1.0'. The message
    named several systems in one file; the likely cause is the line with one more field than most lines, also
    when it is the file's first line (whose count was taken as the usual one)."""
    run, qrels = tmp_path / "r7", tmp_path / "q7"
    lines = ["1 Q0 d1 1 2.0 run\n", "1 Q0 d2 2 1.0 run\n", "q 7 Q0 d1 1 2.0 run\n", "q 7 Q0 d2 2 1.0 run\n"]
    if shifted_first:
        lines.insert(0, lines.pop(2))
    run.write_text("".join(lines))
    qrels.write_text("1 0 d1 1\n")
    result = runner.invoke(app, ["evaluate", "-m", "map", str(qrels), str(run)])
    assert result.exit_code == 2, result.output
    line = 1 if shifted_first else 3
    assert (f"likely a blank inside the qid of line {line} (7 fields where most lines have 6, 'Q0' its field 3): "
            "duplicate (qid, docno) = (q, Q0)") in result.stderr
    assert "several run tags" not in result.stderr and "awk" not in result.stderr


@pytest.mark.parametrize("streamed", [True, False])
def test_duplicate_from_a_docno_with_a_blank_names_the_line_not_several_run_tags(tmp_path, streamed):
    """'d 5' as a docno shifts the rank, score and tag: the line reads as docno 'd' with the score as its run
    tag, so two such lines repeat (301, d) with "run tags" '2' and '1'. The message named several systems in
    one file; the likely cause is the line with more fields than most whose last field is the true tag."""
    run, qrels = tmp_path / "blank_docno.run", tmp_path / "q"
    run.write_text("301 Q0 d1 1 5 t\n301 Q0 d3 2 4 t\n301 Q0 d4 3 3 t\n301 Q0 d 5 4 2 t\n301 Q0 d 6 5 1 t\n")
    qrels.write_text("301 0 d1 1\n")
    if streamed:
        result = runner.invoke(app, ["evaluate", "-m", "map", str(qrels), str(run)])
        assert result.exit_code == 2, result.output
        said = result.stderr
    else:
        with pytest.raises(pf.DuplicateError) as raised:
            pf.read_run(run)
        said = str(raised.value)
    assert ("line 4: likely a blank inside the docno of line 4 (7 fields where most lines have 6; fields are split "
            "on blanks, so its run tag reads as '2'): duplicate (qid, docno) = (301, d) in run, also on line(s) [5]; "
            "remove the blank") in said
    assert "several run tags" not in said and "awk" not in said


def test_duplicate_across_run_tags_with_an_extra_column_still_names_the_several_systems(tmp_path):
    """The docno rule needs the repeated lines' last fields to agree: two systems in one file whose lines
    carry a trailing column each (different tags, different last fields) stay "several run tags"."""
    run, qrels = tmp_path / "two_systems.run", tmp_path / "q"
    run.write_text("301 Q0 d1 1 5 a\n301 Q0 d2 2 4 a\n301 Q0 d3 3 3 a\n301 Q0 d1 1 5 b x\n")
    qrels.write_text("301 0 d1 1\n")
    with pytest.raises(pf.DuplicateError, match="several run tags"):
        pf.read_run(run)


def test_duplicate_in_a_run_with_an_extra_trailing_column_is_the_plain_duplicate_with_trec_evals_rule(tmp_path):
    """trec_eval accepts columns after the 6th; they shift nothing, so a repeated (qid, docno) there is a
    duplicate, not a field-count problem of another line."""
    run, qrels = tmp_path / "extra.run", tmp_path / "q"
    run.write_text("301 Q0 d1 1 5 t extra\n301 Q0 d2 2 4 t\n301 Q0 d1 3 3 t\n")
    qrels.write_text("301 0 d1 1\n")
    result = runner.invoke(app, ["evaluate", "-m", "map", str(qrels), str(run)])
    assert result.exit_code == 2, result.output
    assert "duplicate (qid, docno) = (301, d1) in run, also on line(s) [3]" in result.stderr
    assert DUPLICATE_RULE in result.stderr and "field" not in result.stderr


def test_qrels_error_met_after_a_run_duplicate_is_not_chained_to_the_internal_duplicate(tmp_path):
    """The streamed run's internal DuplicatePair is control flow: the qrels' own error, which comes first,
    must not show it as its context ("During handling of the above exception")."""
    run, qrels = tmp_path / "r7", tmp_path / "q5"
    run.write_text("1 Q0 d1 1 2.0 run\n1 Q0 d2 2 1.0 run\nq 7 Q0 d1 1 2.0 run\nq 7 Q0 d2 2 1.0 run\n")
    qrels.write_text("1 0 d1 1\nq 7 0 d1 1\n")
    with pytest.raises(InputFormatError, match="expected exactly 4 fields") as raised:
        pf.evaluate(str(run), str(qrels))
    assert raised.value.__context__ is None and raised.value.__cause__ is None


def test_qrels_error_met_after_a_scattered_run_query_is_not_chained_to_the_internal_interleaved(tmp_path):
    """A run whose query lines are apart is re-read partitioned; that retry ran inside the handler of the
    internal Interleaved, which then showed as the qrels' error's context ("During handling of ...")."""
    run, qrels = tmp_path / "inter.run", tmp_path / "badq"
    run.write_text("301 Q0 d1 1 5 t\n302 Q0 d2 2 4 t\n301 Q0 d5 2 3 t\n")
    qrels.write_text("301 0 d1 1\n301 0 d2 x\n")
    with pytest.raises(InputFormatError, match="relevance grade 'x' is not an integer") as raised:
        pf.evaluate(str(run), str(qrels), ["map"])
    assert raised.value.__context__ is None and raised.value.__cause__ is None


@pytest.mark.parametrize("output", ["out.test", "out.test.aq"])
def test_trec_eval_output_given_as_the_run_is_named_as_trec_eval_output(shared_data, output):
    """trec_eval's output as RUN read "looks like the header row of a TSV table" (out.test's first line is
    'runid<blanks>TAB all TAB STANDARD'); -q output (out.test.aq) got no hint at all."""
    folder = shared_data / "trec_eval"
    result = runner.invoke(app, ["evaluate", str(folder / "qrels.test"), str(folder / output), "-m", "map"])
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    assert f"run file {folder / output}, line 1" in said
    assert "this looks like trec_eval's output, not a run file" in said and "header row" not in said
    with pytest.raises(InputFormatError, match="looks like trec_eval's output, not a run file"):
        pf.read_run(str(folder / output))


def test_three_tab_separated_ids_are_not_taken_for_trec_eval_output(tmp_path):
    """trec_eval pads the measure to 22 characters; a qrels without its iter column ('1 TAB d1 TAB 1') does not."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("1\td1\t1\n")
    with pytest.raises(InputFormatError) as caught:
        pf.read_qrels(str(qrels))
    assert "trec_eval" not in str(caught.value)
