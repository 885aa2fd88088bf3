"""A bad value in a CSV / TSV run, qrels or per-query table names the file, the line (the header is line 1;
comment lines count), the column and the text, as docs/guide/inputs.md promises and the TREC readers do."""

from __future__ import annotations

import re

import pytest

import pairedframe as pf

RUN = "qid,docno,score\n1,d1,1\n1,d2,2\n2,d3,{}\n"
QRELS = "qid,docno,rel\n1,d1,1\n1,d2,{}\n"


def _write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("score", ["abc", "NA", "-"])
def test_a_score_that_is_no_number_names_file_line_column_and_text(tmp_path, score):
    path = _write(tmp_path, "run.csv", RUN.format(score))
    with pytest.raises(pf.InputFormatError, match=re.escape(f"run file {path}, line 4: column 'score' holds {score!r}")):
        pf.as_run(path)


def test_an_empty_score_names_file_line_and_column(tmp_path):
    path = _write(tmp_path, "run.tsv", RUN.format("").replace(",", "\t"))
    with pytest.raises(pf.InputFormatError, match=re.escape(f"run file {path}, line 4: column 'score' is empty")):
        pf.as_run(path)


def test_comment_lines_count_in_the_line_named(tmp_path):
    path = _write(tmp_path, "run.csv", RUN.format("x").replace("1,d2", "# a comment\n1,d2"))
    with pytest.raises(pf.InputFormatError, match=re.escape(f"run file {path}, line 5: column 'score'")):
        pf.as_run(path)


def test_a_line_with_more_fields_than_the_header_names_file_line_and_text(tmp_path):
    path = _write(tmp_path, "run.csv", RUN.format("1,5"))
    with pytest.raises(pf.InputFormatError, match=re.escape(f"run file {path}, line 4: 4 fields, more than the "
                                                            "header's 3 (qid, docno, score): '2,d3,1,5'")):
        pf.as_run(path)
    results = _write(tmp_path, "results.csv", "system,qid,measure,value\na,1,AP,0.5\na,2,AP,1,2\n")
    with pytest.raises(pf.InputFormatError, match=r"line 3: 5 fields, more than the header's 4"):
        pf.read_results(results)


@pytest.mark.parametrize("grade, problem", [("1.5", "not an integer grade; grades='trec_eval' reads it"),
                                            ("abc", "not an integer grade"), ("", "is empty")])
def test_a_bad_grade_names_file_line_column_and_text(tmp_path, grade, problem):
    path = _write(tmp_path, "qrels.csv", QRELS.format(grade))
    with pytest.raises(pf.InputFormatError, match=re.escape(f"qrels file {path}, line 3: column 'rel'") + ".*"
                       + re.escape(problem)):
        pf.as_qrels(path)


def test_a_per_query_value_that_is_no_number_names_file_and_line(tmp_path):
    path = _write(tmp_path, "results.csv", "system,qid,measure,value\na,1,AP,0.5\na,2,AP,x\n")
    with pytest.raises(pf.InputFormatError, match=re.escape(f"results file {path}, line 3: column 'value' holds 'x'")):
        pf.read_results(path)
