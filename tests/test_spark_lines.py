"""engine="spark" on files: the workers split whole lines as the exact readers split the files.

split_lines runs without Spark (plain polars); the key test needs Spark: a query's lines must meet
in one partition however their blanks are written, so Spark's key must be the worker's qid.
"""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pairedframe as pf
from pairedframe.engines.spark_lines import QRELS_FILE, split_lines
from pairedframe.example import example_paths

_ID = st.text(alphabet="abcXYZ0789-_.:", min_size=1, max_size=6)
_GAP = st.text(alphabet=" \t\x0b\x0c", min_size=1, max_size=3)
_EDGE = st.text(alphabet=" \t\x0b\x0c", max_size=2)


def _line(fields: list[str], gaps: list[str], lead: str, trail: str) -> str:
    return lead + "".join(f + g for f, g in zip(fields, gaps)) + fields[-1] + trail


@st.composite
def _run_file(draw):
    """Lines of one run with blanks of every kind between and around the fields, blank and # lines."""
    lines, seen = [], set()
    for _ in range(draw(st.integers(1, 12))):
        qid, docno = draw(_ID), draw(_ID)
        if (qid, docno) in seen:
            continue
        seen.add((qid, docno))
        score = draw(st.sampled_from(["1", "-2.5", "3e2", "0.125", "inf", "-inf", "+7"]))
        fields = [qid, "Q0", docno, "1", score, "tag"]
        lines.append(_line(fields, draw(st.lists(_GAP, min_size=5, max_size=5)), draw(_EDGE), draw(_EDGE)))
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "  ", "# a comment", "\t# indented comment"])))
    return lines


def _split(lines: list[str], file: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    frame = pl.DataFrame({"file": [file] * len(lines), "value": lines}, schema={"file": pl.Int32, "value": pl.String})
    return split_lines(frame, ["sys"])


@settings(max_examples=60, deadline=None)
@given(lines=_run_file())
def test_split_run_lines_against_read_run(lines, tmp_path_factory):
    path = tmp_path_factory.mktemp("run") / "r.txt"
    path.write_text("\n".join(lines) + "\n")
    assume(any(line.strip() and not line.strip().startswith("#") for line in lines))
    want = pf.read_run(path, system="sys").sort("qid", "docno")
    run, qrels = _split(lines, 0)
    assert qrels.height == 0 and not run["bad"].any()
    assert run.drop("bad").sort("qid", "docno").equals(want)


def _as_spark_reads(lines: list[str]) -> list[str]:
    """The lines as Spark's text reader hands them over: a byte order mark dropped at the file's start only."""
    return [lines[0].removeprefix("\ufeff"), *lines[1:]]


def test_split_qrels_lines_against_read_qrels(tmp_path):
    lines = ["\ufeff1 0 d1 2", "1\t0  d2\t0", "  2 0 d1 1.0  ", "# judged by hand", "", "\ufeff3 0 d2 1", "2 0 d3 -1"]
    path = tmp_path / "q.txt"
    path.write_text("\n".join(lines) + "\n")
    run, qrels = _split(_as_spark_reads(lines), QRELS_FILE)
    assert "\ufeff3" in qrels["qid"].to_list()      # a mark on a later line is part of the qid, as read_qrels keeps it
    assert run.height == 0 and not qrels["bad"].any()
    assert qrels.drop("bad").sort("qid", "docno").equals(pf.read_qrels(path).sort("qid", "docno"))


@pytest.mark.parametrize("line", ["1 Q0 d1 1 2.0", "1 Q0 d1 1 high tag", "1 Q0 d1 1 nan tag"])
def test_split_run_lines_flag_what_read_run_refuses(line, tmp_path):
    path = tmp_path / "r.txt"
    path.write_text(line + "\n")
    with pytest.raises(pf.errors.InputFormatError):
        pf.read_run(path)
    run, _ = _split([line], 0)
    assert run["bad"].to_list() == [True]


@pytest.mark.parametrize("line", ["1 0 d1", "1 0 d1 high", "1 0 d1 2.5", "1 0 d1 2 extra"])
def test_split_qrels_lines_flag_what_read_qrels_refuses(line, tmp_path):
    path = tmp_path / "q.txt"
    path.write_text(line + "\n")
    with pytest.raises(pf.errors.InputFormatError):
        pf.read_qrels(path)
    _, qrels = _split([line], QRELS_FILE)
    assert qrels["bad"].to_list() == [True]


def test_split_lines_name_each_file_by_its_system():
    frame = pl.DataFrame({"file": [0, 1, 1], "value": ["1 Q0 a 1 2 t", "1 Q0 a 1 3 t", "2 Q0 b 1 1 t"]},
                         schema={"file": pl.Int32, "value": pl.String})
    run, _ = split_lines(frame, ["bm25", "dense"])
    assert run["system"].to_list() == ["bm25", "dense", "dense"]


_ODD_LINES = ["1 Q0 a 1 2 t", "\ufeff1 Q0 b 1 2 t", " 1 Q0 c 1 2 t", "1\tQ0 d 1 2 t", "\t1  Q0 e 1 2 t",
              "1\x0bQ0 f 1 2 t", "1\x0c Q0 g 1 2 t", "1 0 a 1", "\t 1\t0 b 1 ", "10 Q0 a 1 2 t"]


def test_spark_partition_key_is_the_qid_the_workers_split(spark):
    from pairedframe.engines.spark_lines import qid_key

    frame = spark.createDataFrame([(line,) for line in _ODD_LINES], "value string")
    keys = [row[0] for row in frame.select(qid_key()).collect()]
    run, qrels = _split(_ODD_LINES, 0)
    assert keys == [line.lstrip(" \t\x0b\x0c").replace("\t", " ").replace("\x0b", " ").replace("\x0c", " ")
                    .split(" ")[0] for line in _ODD_LINES]
    assert set(keys) == set(run["qid"]) | set(qrels["qid"])


def test_spark_files_with_odd_blanks_against_polars(spark, tmp_path):
    """Lines of one query written with other blanks land in one partition: the values equal polars'."""
    from pairedframe.engines.spark_engine import SparkEngine

    run = ["\ufeff1 Q0 a 1 3 t", "\t1 Q0 b 2 2 t", "1\tQ0\tc 3 1 t", "2 Q0 a 1 2 t", "2  Q0 b 2 1 t", "# note", ""]
    qrels = ["1 0 a 1", " 1\t0 c 2", "2 0 b 1", "\t2 0 a 0 "]
    (tmp_path / "r.txt").write_text("\n".join(run) + "\n")
    (tmp_path / "q.txt").write_text("\n".join(qrels) + "\n")
    measures = ["AP", "nDCG@10", "P@2", "num_rel"]
    keys = ["system", "qid", "measure"]
    want = pf.evaluate(tmp_path / "r.txt", tmp_path / "q.txt", measures).per_query.sort(keys)
    got = pf.evaluate(tmp_path / "r.txt", tmp_path / "q.txt", measures,
                      engine=SparkEngine(spark, method="partitions")).per_query.sort(keys)
    assert got.select(keys).equals(want.select(keys))
    assert (got["value"] - want["value"]).abs().max() < 1e-12


@pytest.mark.parametrize("bad_line, which", [("001 Q0 Dxx 21", "run"), ("001 0 Dxx 1 2 tag", "qrels"),
                                             ("qid Q0 docno rank score tag", "run")])
def test_spark_bad_line_error_equals_the_local_readers_hint_and_all(spark, tmp_path, bad_line, which):
    """A bad line is named by file and line with the local reader's whole message, hint included
    ("are the arguments swapped?", "looks like a table's header"): Spark's message lacked the hint."""
    from pairedframe.engines.spark_engine import SparkEngine

    qrels, runs = example_paths()
    source = qrels if which == "qrels" else runs[0]
    lines = open(source).read().splitlines()
    lines.insert(5, bad_line)
    bad = tmp_path / f"bad.{which}"
    bad.write_text("\n".join(lines) + "\n")
    run, judged = (runs[0], bad) if which == "qrels" else (bad, qrels)
    with pytest.raises(pf.errors.InputFormatError) as local:
        pf.evaluate(run, judged, ["AP"])
    with pytest.raises(pf.errors.InputFormatError) as remote:
        pf.evaluate(run, judged, ["AP"], engine=SparkEngine(spark, method="partitions"))
    assert str(remote.value) == str(local.value)


def test_spark_files_with_a_byte_order_mark_on_a_later_line_against_evaluate(spark, tmp_path):
    """A mark on line 1 is dropped, one on a later line is part of its qid, as pf.read_run / read_qrels read
    them (Spark stripped both), on the whole-line path (qrels a file) and the split-rows path (qrels a table)."""
    from pairedframe.engines.spark_engine import SparkEngine

    run = ["\ufeff1 Q0 a 1 3 t", "1 Q0 b 2 2 t", "\ufeff2 Q0 a 1 2 t", "\ufeff2 Q0 b 2 1 t", "2 Q0 c 3 0 t"]
    qrels = ["\ufeff1 0 a 1", "\ufeff2 0 b 1", "2 0 a 1", "2 0 c 1"]
    (tmp_path / "r.txt").write_text("\n".join(run) + "\n", encoding="utf-8")
    (tmp_path / "q.txt").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    keys = ["system", "qid", "measure"]
    want = pf.evaluate(tmp_path / "r.txt", tmp_path / "q.txt", ["AP", "num_rel"]).per_query.sort(keys)
    assert set(want["qid"]) == {"1", "2", "\ufeff2"}
    engine = SparkEngine(spark, method="partitions")
    for judged in (tmp_path / "q.txt", pf.read_qrels(tmp_path / "q.txt")):
        got = pf.evaluate(tmp_path / "r.txt", judged, ["AP", "num_rel"], engine=engine).per_query.sort(keys)
        assert got.select(keys).equals(want.select(keys))
        assert (got["value"] - want["value"]).abs().max() < 1e-12
