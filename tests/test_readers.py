"""TREC run and qrels readers: one test per bad-input class (error type + file/line/column in the
message) and the formats that must be accepted. Every file is written by the test itself.

Both parsing paths of io/trec.py are exercised: the polars CSV fast path (one space or one tab
between fields) and the line-by-line fallback (any run of blanks, comments, bad input).
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pairedframe as pf
from pairedframe.errors import DuplicateError, InputFormatError, UnknownMeasureError
from pairedframe.io import trec
from tests.strategies import Case, cases

RUN = "1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 1.5 tag\n2 Q0 d1 1 0.5 tag\n"
QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d1 2\n"


def write(tmp_path: Path, name: str, text: str, *, gz: bool = False, newline: str = "\n") -> Path:
    path = tmp_path / name
    data = text.replace("\n", newline).encode("utf-8")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


@pytest.fixture
def fast_path_spy(monkeypatch):
    """Records, per call of the fast parser, whether it accepted the file (True) or fell back."""
    calls: list[bool] = []
    original = trec._fast_fields

    def spy(*args, **kwargs):
        frame = original(*args, **kwargs)
        calls.append(frame is not None)
        return frame

    monkeypatch.setattr(trec, "_fast_fields", spy)
    return calls


def assert_located(exc: pytest.ExceptionInfo, path: Path, line: int, column: int | None = None) -> None:
    message = str(exc.value)
    assert str(path) in message, message
    assert f"line {line}" in message, message
    assert exc.value.line == line
    if column is not None:
        assert f"column {column}" in message, message
        assert exc.value.column == column


# --- bad input ---------------------------------------------------------------------------------

def test_errors_are_value_errors():
    assert issubclass(InputFormatError, ValueError)
    assert issubclass(DuplicateError, InputFormatError)
    assert issubclass(UnknownMeasureError, ValueError)


def test_run_with_too_few_fields(tmp_path):
    path = write(tmp_path, "run", RUN + "3 Q0 d1 1 0.5\n")
    with pytest.raises(InputFormatError, match="at least 6 fields") as exc:
        pf.read_run(path)
    assert_located(exc, path, 4)


def test_qrels_with_too_few_fields(tmp_path):
    path = write(tmp_path, "qrels", "1 0 d1 1\n1 0 d2\n")
    with pytest.raises(InputFormatError, match="exactly 4 fields") as exc:
        pf.read_qrels(path)
    assert_located(exc, path, 2)


def test_qrels_with_too_many_fields(tmp_path):
    path = write(tmp_path, "qrels", "1 0 d1 1\n1 0 d2 0\n1 0 d3 1 extra\n")
    with pytest.raises(InputFormatError, match="exactly 4 fields") as exc:
        pf.read_qrels(path)
    assert_located(exc, path, 3)


@pytest.mark.parametrize("score", ["abc", "1,5", "0x1p3x"])
def test_run_with_non_numeric_score(tmp_path, score):
    path = write(tmp_path, "run", RUN + f"2 Q0 d2 2 {score} tag\n")
    with pytest.raises(InputFormatError, match="not a number") as exc:
        pf.read_run(path)
    assert_located(exc, path, 4, column=5)


@pytest.mark.parametrize("score", ["nan", "NaN", "-nan"])
def test_run_with_nan_score_names_the_line(tmp_path, score):
    path = write(tmp_path, "run", RUN + f"2 Q0 d2 2 {score} tag\n")
    with pytest.raises(InputFormatError, match="is NaN") as exc:
        pf.read_run(path)
    assert_located(exc, path, 4, column=5)


@pytest.mark.parametrize("spelling, value", [("inf", float("inf")), ("-inf", float("-inf")), ("Infinity", float("inf")),
                                             ("-INF", float("-inf")), ("+inf", float("inf")), ("1e400", float("inf"))])
def test_infinite_scores_are_read_as_c_atof_reads_them(tmp_path, spelling, value):
    path = write(tmp_path, "run", RUN + f"2 Q0 d2 2 {spelling} tag\n")
    run = pf.read_run(path)
    assert run.filter(pl.col("qid") == "2", pl.col("docno") == "d2")["score"].to_list() == [value]


@pytest.mark.parametrize("grade", ["1.5", "x", "0.1", "1e0", "--1", "1.0.0"])
def test_qrels_with_bad_grade(tmp_path, grade):
    path = write(tmp_path, "qrels", QRELS + f"2 0 d2 {grade}\n")
    with pytest.raises(InputFormatError, match="not an integer") as exc:
        pf.read_qrels(path)
    assert_located(exc, path, 4, column=4)


@pytest.mark.parametrize("grade", ["1.", "1.0", "1.00", "+1"])
def test_float_written_integer_grades_read_as_integers(tmp_path, grade):
    path = write(tmp_path, "qrels", f"1 0 d1 {grade}\n1 0 d2 0\n1 0 d3 -1.0\n")
    qrels = pf.read_qrels(path)
    assert qrels["rel"].to_list() == [1, 0, -1]
    assert qrels.schema["rel"] == pl.Int64


@pytest.mark.parametrize("reader", [pf.read_run, pf.read_qrels])
@pytest.mark.parametrize("text", ["", "\n\n  \n", "# only a comment\n#another\n", "  # indented comment\n"])
def test_empty_or_comment_only_file(tmp_path, reader, text):
    path = write(tmp_path, "file", text)
    with pytest.raises(InputFormatError, match="empty file") as exc:
        reader(path)
    assert str(path) in str(exc.value)


def test_duplicate_docno_in_run(tmp_path):
    path = write(tmp_path, "run", RUN + "1 Q0 d1 3 0.1 tag\n")
    with pytest.raises(DuplicateError, match=r"\(1, d1\)") as exc:
        pf.read_run(path)
    assert_located(exc, path, 1)
    assert "[4]" in str(exc.value)  # the twin line


def test_duplicate_judgment_in_qrels(tmp_path):
    path = write(tmp_path, "qrels", QRELS + "2 0 d1 0\n")
    with pytest.raises(DuplicateError, match=r"\(2, d1\)") as exc:
        pf.read_qrels(path)
    assert_located(exc, path, 3)


def test_same_docno_in_two_queries_is_not_a_duplicate(tmp_path):
    assert pf.read_run(write(tmp_path, "run", RUN)).height == 3


def test_unknown_measure_suggests_close_names(tmp_path):
    with pytest.raises(UnknownMeasureError, match="ndcg_cut_10") as exc:
        pf.evaluate(write(tmp_path, "run", RUN), write(tmp_path, "qrels", QRELS), ["ndgc_cut_10"])
    assert "did you mean" in str(exc.value)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError):
        pf.read_run(tmp_path / "nope")


# --- accepted formats ----------------------------------------------------------------------------

EXPECTED_RUN = pl.DataFrame({"system": ["run"] * 3, "qid": ["1", "1", "2"], "docno": ["d1", "d2", "d1"],
                             "score": [2.5, 1.5, 0.5]})
EXPECTED_QRELS = pl.DataFrame({"qid": ["1", "1", "2"], "docno": ["d1", "d2", "d1"], "rel": [1, 0, 2]})


@pytest.mark.parametrize("variant, fast", [
    ("single spaces", True),
    ("tabs", True),
    ("runs of spaces", False),
    ("mixed tabs and spaces", False),
    ("CRLF", True),
    ("blank lines", False),
    ("comment lines", False),
    ("leading whitespace", False),
    ("trailing fields", False),  # wider than 6 columns: the fast path declines
    ("gzip", True),
])
def test_run_formats_accepted(tmp_path, fast_path_spy, variant, fast):
    text, gz, newline = RUN, False, "\n"
    if variant == "tabs":
        text = text.replace(" ", "\t")
    elif variant == "runs of spaces":
        text = text.replace(" ", "   ")
    elif variant == "mixed tabs and spaces":
        text = text.replace(" Q0 ", "\tQ0  \t ")
    elif variant == "CRLF":
        newline = "\r\n"
    elif variant == "blank lines":
        text = "\n" + text.replace("\n", "\n\n", 1) + "  \n"
    elif variant == "comment lines":
        text = "# a comment\n" + text + "#tail comment with 6 fields x x x x\n"
    elif variant == "leading whitespace":
        text = "  " + text.replace("\n2 ", "\n\t2 ")
    elif variant == "trailing fields":
        text = text.replace("tag\n", "tag junk 7 more\n")
    elif variant == "gzip":
        gz = True
    run = pf.read_run(write(tmp_path, "run.gz" if gz else "run", text, gz=gz, newline=newline), system="run")
    assert run.equals(EXPECTED_RUN)
    assert fast_path_spy == [fast]


@pytest.mark.parametrize("variant, fast", [
    ("single spaces", True), ("tabs", True), ("runs of spaces", False), ("CRLF", True),
    ("comment lines", False), ("leading whitespace", False), ("gzip", True),
])
def test_qrels_formats_accepted(tmp_path, fast_path_spy, variant, fast):
    text, gz, newline = QRELS, False, "\n"
    if variant == "tabs":
        text = text.replace(" ", "\t")
    elif variant == "runs of spaces":
        text = text.replace(" ", " \t  ")
    elif variant == "CRLF":
        newline = "\r\n"
    elif variant == "comment lines":
        text = "# header\n" + text + "\n# trailing\n"
    elif variant == "leading whitespace":
        text = " " + text
    elif variant == "gzip":
        gz = True
    qrels = pf.read_qrels(write(tmp_path, "qrels.gz" if gz else "qrels", text, gz=gz, newline=newline))
    assert qrels.equals(EXPECTED_QRELS)
    assert fast_path_spy == [fast]



@pytest.mark.parametrize("codec, suffix", [("gzip", ".gz"), ("zstd", ".zst")])
def test_readers_docstrings_name_every_compression_they_read(tmp_path, codec, suffix):
    """Each codec the readers open (by magic number) is named in their docstrings."""
    import pyarrow as pa

    for name, text, reader, want in [("run", RUN, pf.read_run, EXPECTED_RUN),
                                     ("qrels", QRELS, pf.read_qrels, EXPECTED_QRELS)]:
        path = tmp_path / (name + suffix)
        path.write_bytes(pa.compress(text.encode(), codec=codec, asbytes=True) if codec == "zstd"
                         else gzip.compress(text.encode()))
        assert reader(path).equals(want)
        summary = reader.__doc__.split("\n")[0]
        assert codec in summary and suffix in summary, summary

SPECIAL_RUN = ("007 Q0 MSMARCO#12_a 1 1e-05 t\n007 Q0 msmarco#12_A 2 -3 t\n7 Q0 01 1 42 t\n"
               "7 Q0 1 2 -2.5E+3 t\n01 Q0 #x 1 0 t\n")


@pytest.mark.parametrize("blank", [" ", "\t", "  "])
def test_fast_and_fallback_paths_give_identical_tables(tmp_path, fast_path_spy, blank):
    """Ids like 007/7/01/1 stay distinct strings, '#' inside a docno is data, scores parse alike."""
    run = pf.read_run(write(tmp_path, "run", SPECIAL_RUN.replace(" ", blank)), system="s")
    assert fast_path_spy == [blank != "  "]
    assert run.schema == {"system": pl.String, "qid": pl.String, "docno": pl.String, "score": pl.Float64}
    assert run["qid"].to_list() == ["007", "007", "7", "7", "01"]
    assert run["docno"].to_list() == ["MSMARCO#12_a", "msmarco#12_A", "01", "1", "#x"]
    assert run["score"].to_list() == [1e-05, -3.0, 42.0, -2500.0, 0.0]


@pytest.mark.parametrize("blank", [" ", "  "])
def test_qrels_fast_and_fallback_paths_identical(tmp_path, fast_path_spy, blank):
    text = "007 0 D#1 1\n7 0 d#1 -1\n01 0 1 3\n1 0 01 0\n"
    qrels = pf.read_qrels(write(tmp_path, "qrels", text.replace(" ", blank)))
    assert fast_path_spy == [blank == " "]
    assert qrels.rows() == [("007", "D#1", 1), ("7", "d#1", -1), ("01", "1", 3), ("1", "01", 0)]


@pytest.mark.parametrize("blank", [" ", "  "])
@pytest.mark.parametrize("score, value", [("1e-05", 1e-05), ("-7", -7.0), ("3", 3.0), (".5", 0.5),
                                          ("+1", 1.0), ("5.", 5.0), ("1E5", 1e5), ("-0", 0.0)])
def test_score_forms_accepted(tmp_path, blank, score, value):
    run = pf.read_run(write(tmp_path, "run", f"1 Q0 d 1 {score} t\n".replace(" ", blank)))
    assert run["score"].to_list() == [value]


def test_bad_file_that_looks_simple_falls_back_and_reports_the_line(tmp_path, fast_path_spy):
    path = write(tmp_path, "run", RUN + "2 Q0 d2 2 nan tag\n")
    with pytest.raises(InputFormatError) as exc:
        pf.read_run(path)
    assert_located(exc, path, 4, column=5)


@pytest.mark.parametrize("files, names", [
    (["input.runA.gz", "runB", "input.runC", "runD.gz"], ["runA", "runB", "runC", "runD"]),
    (["input.", "input.x.y.gz"], ["input.", "x.y"]),
])
def test_system_names_from_file_names(tmp_path, files, names):
    paths = [write(tmp_path, f, RUN, gz=f.endswith(".gz")) for f in files]
    run = pf.read_run(paths)
    assert run["system"].unique(maintain_order=True).to_list() == names


def test_duplicate_system_names_error(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    paths = [write(tmp_path / "a", "input.x", RUN), write(tmp_path / "b", "x.gz", RUN, gz=True)]
    with pytest.raises(ValueError, match="duplicate system name 'x'"):
        pf.read_run(paths)
    assert pf.read_run(paths, system=["x1", "x2"])["system"].unique().sort().to_list() == ["x1", "x2"]


def test_evaluate_on_files_written_both_ways_is_identical(tmp_path):
    fast = write(tmp_path, "fast", SPECIAL_RUN)
    slow = write(tmp_path, "slow", SPECIAL_RUN.replace(" ", " \t"))
    qrels = write(tmp_path, "qrels", "007 0 msmarco#12_A 1\n7 0 1 2\n01 0 #x 1\n")
    result = pf.evaluate([fast, slow], qrels, ["AP", "nDCG@3", "P@1"])
    pq = result.per_query
    a = pq.filter(pl.col("system") == "fast").drop("system")
    b = pq.filter(pl.col("system") == "slow").drop("system")
    assert a.equals(b)
    p1 = dict(a.filter(pl.col("measure") == "P@1").select("qid", "value").iter_rows())
    # 007: MSMARCO#12_a (1e-05) outranks the relevant msmarco#12_A (-3): case matters.
    assert p1 == {"007": 0.0, "01": 1.0, "7": 0.0}


# --- round trip on random inputs -------------------------------------------------------------------

@settings(max_examples=30, deadline=None)
@given(case=cases(max_systems=1), blanks=st.sampled_from([" ", "\t", "  ", " \t"]))
def test_written_files_read_back_against_tables(tmp_path_factory, case: Case, blanks: str):
    """Random ids (007/7/01/1, '#', mixed case) and scores (repr of any double) survive a write and
    a read through either parsing path, bit for bit."""
    d = tmp_path_factory.mktemp("rt")
    run_text = "".join(f"{q}{blanks}Q0{blanks}{doc}{blanks}{i}{blanks}{s!r}{blanks}tag\n"
                       for by_q in case.runs.values() for q, docs in by_q.items()
                       for i, (doc, s) in enumerate(docs))
    qrels_text = "".join(f"{q}{blanks}0{blanks}{doc}{blanks}{g}\n" for q, docs in case.qrels.items()
                         for doc, g in docs.items())
    (d / "sys0").write_text(run_text)
    (d / "qrels").write_text(qrels_text)
    run = pf.read_run(d / "sys0")
    assert run.equals(case.run_frame())
    assert pf.read_qrels(d / "qrels").equals(case.qrels_frame())


def _assert_score_refused_at_line_4(tmp_path, engine, score):
    """A run whose line 4 has ``score``: read_run and evaluate (``engine``) refuse it, naming line 4, column 5."""
    path = write(tmp_path, "run", RUN + f"2 Q0 d2 2 {score} tag\n")
    qrels = write(tmp_path, "qrels", "1 0 d1 1\n2 0 d2 1\n")
    for read in (lambda: pf.read_run(path), lambda: pf.evaluate(path, qrels, ["RR"], engine=engine)):
        with pytest.raises(InputFormatError, match=f"score '{re.escape(score)}' is not a number") as exc:
            read()
        assert_located(exc, path, 4, column=5)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("score", ["0x10", "0x1p3", "-0x1.8p1"])
def test_hex_float_scores_are_refused_by_every_reader(tmp_path, engine, score):
    """docs/guide/inputs.md: C99 hex floats (which glibc's atof reads) are an error naming the line in every
    reader, never another value."""
    _assert_score_refused_at_line_4(tmp_path, engine, score)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("score", ["1,5", "2abc", "3.5e"])
def test_score_with_trailing_text_is_refused_as_the_trec_eval_guide_says(tmp_path, engine, score):
    """docs/guide/trec_eval.md lists a score with text after its number (which trec_eval's atof reads as the
    number before it) among the departures, quoting the refusal: every reader gives it, naming the line."""
    guide = (Path(__file__).parents[1] / "docs" / "guide" / "trec_eval.md").read_text()
    departures = guide[guide.index("## Where pairedframe departs"):]
    if score != "3.5e":
        assert f"`score '{score}' is not a number`" in departures
    assert f"`{score}`" in departures
    _assert_score_refused_at_line_4(tmp_path, engine, score)
