"""CSV / TSV tables: the number columns are typed from every row, never from polars' first 100 (a score 1.5
after 100 whole ones was refused as 'String values'); a bad value names the file, line, column and text."""

from __future__ import annotations

import polars as pl
import pytest

import pairedframe as pf

QRELS = "1 0 x1 1\n2 0 d3 1\n"


def _qrels(tmp_path) -> str:
    path = tmp_path / "q.qrels"
    path.write_text(QRELS)
    return str(path)


@pytest.mark.parametrize("rows", [99, 100, 5000])
def test_a_fractional_score_after_many_whole_ones_is_read_as_a_number(tmp_path, rows):
    path = tmp_path / "t.csv"
    path.write_text("qid,docno,score\n" + "".join(f"1,x{i},{i}\n" for i in range(rows)) + "2,d3,1.5\n")
    run = pf.as_run(str(path))
    assert run.schema["score"] == pl.Float64 and run.filter(pl.col("docno") == "d3")["score"].to_list() == [1.5]
    ev = pf.evaluate(str(path), _qrels(tmp_path), ["P.1"])
    assert ev.per_query.filter(pl.col("qid") == "2")["value"].to_list() == [1.0]


def test_a_fractional_grade_after_many_whole_ones_is_read_as_trec_eval_reads_it(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("qid,docno,rel\n" + "".join(f"1,x{i},{i % 3}\n" for i in range(150)) + "2,d3,1.0\n")
    assert pf.as_qrels(str(path)).filter(pl.col("docno") == "d3")["rel"].to_list() == [1]


def test_a_results_csv_sorted_by_measure_whole_values_first_reads_every_value(tmp_path):
    whole = "".join(f"s,{q},NumRet,{q}\n" for q in range(150))
    path = tmp_path / "r.csv"
    path.write_text("system,qid,measure,value\n" + whole + "s,1,AP,0.25\n")
    table = pf.read_results(str(path))
    assert table.schema["value"] == pl.Float64 and table.filter(pl.col("measure") == "AP")["value"].to_list() == [0.25]
