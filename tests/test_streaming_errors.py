"""A run file that streams but holds a line the exact reader refuses, or a repeated (qid, docno), is refused in
the exact reader's words (the file, the line(s), DUPLICATE_RULE) without reading the file whole; the
refused line comes before a duplicate, as it does there."""

from __future__ import annotations

import gzip
import random

import pytest

import pairedframe as pf
import pairedframe.evaluation.pipeline as pipeline
import pairedframe.io.partition as partition
import pairedframe.io.stream as stream
from pairedframe.errors import DUPLICATE_RULE
from pairedframe.example import example_paths


@pytest.fixture(params=[20_000, 70_000])
def small_chunks(request, monkeypatch):
    monkeypatch.setattr(stream, "CHUNK_BYTES", request.param)
    monkeypatch.setattr(partition, "CHUNK_BYTES", request.param)
    monkeypatch.setattr(partition, "PARTITION_BYTES", 50_000)
    monkeypatch.setattr(pipeline, "EVAL_RANK_ROWS", 50)
    return request.param


def _not_read_whole(*args, **kwargs):
    raise AssertionError("the run file was read whole instead of streamed")


def _lines() -> tuple[str, list[str]]:
    qrels, runs = example_paths()
    return qrels, runs[0].read_text().splitlines(keepends=True)


def _refusals(path, qrels, monkeypatch, *, streamed: bool) -> tuple[str, str]:
    """The exact reader's error and evaluate's on the path (which, when ``streamed``, may not read it whole)."""
    with pytest.raises(pf.InputFormatError) as exact:
        pf.read_run(path)
    if streamed:
        monkeypatch.setattr(pipeline, "as_run", _not_read_whole)
    with pytest.raises(pf.InputFormatError) as evaluated:
        pf.evaluate(path, qrels, ["AP", "nDCG@10"])
    return str(evaluated.value), str(exact.value)


def _with_tag(line: str, tag: str) -> str:
    return " ".join([*line.split()[:5], tag]) + "\n"


@pytest.mark.parametrize("layout", ["last line repeated", "repeated inside its query", "two pairs, later one first",
                                    "blank lines and a comment before", "repeated with another run tag",
                                    "first line, after a byte order mark", "two lines with a blank in the qid",
                                    "the first line with a blank in the qid", "an extra trailing column"])
def test_a_duplicate_in_a_grouped_file_is_named_as_the_exact_reader_names_it_without_reading_it_whole(
        tmp_path, small_chunks, layout, monkeypatch):
    qrels, lines = _lines()
    if layout == "last line repeated":
        lines.append(lines[-1])
    elif layout == "repeated inside its query":
        lines.insert(12, lines[10])
    elif layout == "two pairs, later one first":      # the pair of the earlier line is named, in both readers
        lines.insert(len(lines) // 2, lines[len(lines) // 2 - 3])
        lines.insert(8, lines[4])
    elif layout == "blank lines and a comment before":  # line numbers count every line
        lines[3:3] = ["\n", "# a comment\n", "\n"]
        lines.insert(40, lines[38])
    elif layout == "repeated with another run tag":   # the message names the file's run tags
        lines.insert(30, _with_tag(lines[29], "other"))
    elif layout == "first line, after a byte order mark":   # the mark is not part of the first qid
        lines.insert(2, lines[0])
        lines[0] = "\ufeff" + lines[0]
    elif layout == "two lines with a blank in the qid":   # both read as (q, <qid>): the field counts are named
        lines[50:50] = ["q " + lines[49], "q " + lines[48]]
    elif layout == "the first line with a blank in the qid":  # the usual count is the file's, not line 1's
        lines[0] = "q " + lines[0]
        lines[5] = "q " + lines[5]
    elif layout == "an extra trailing column":   # trec_eval accepts it; it shifts nothing: a plain duplicate
        lines.insert(2, lines[0])
        lines[0] = lines[0].rstrip("\n") + " extra\n"
    path = tmp_path / "input.sys"
    path.write_text("".join(lines))
    evaluated, exact = _refusals(path, qrels, monkeypatch, streamed=True)
    assert evaluated == exact
    assert "duplicate (qid, docno)" in exact
    shifted = {"two lines with a blank in the qid": 51, "the first line with a blank in the qid": 1}
    assert (DUPLICATE_RULE in exact) == (layout not in ("repeated with another run tag", *shifted))
    assert ("likely a blank inside the qid" in exact) == (layout in shifted)
    if layout in shifted:
        assert (f"likely a blank inside the qid of line {shifted[layout]} (7 fields where most lines have 6, 'Q0' "
                "its field 3): duplicate (qid, docno) = (q, Q0)") in exact


@pytest.mark.parametrize("later", ["a score that is not a number", "five fields"])
def test_a_bad_line_after_a_duplicate_is_named_first_as_by_the_exact_reader(tmp_path, small_chunks, later,
                                                                            monkeypatch):
    qrels, lines = _lines()
    lines.insert(5, lines[4])
    fields = lines[-20].split()
    lines[-20] = " ".join([*fields[:4], "high", fields[5]] if later.startswith("a score") else fields[:5]) + "\n"
    path = tmp_path / "input.sys"
    path.write_text("".join(lines))
    evaluated, exact = _refusals(path, qrels, monkeypatch, streamed=True)
    assert evaluated == exact and f"line {len(lines) - 19}" in exact


def _score(line: str, score: str) -> str:
    fields = line.split()
    return " ".join([*fields[:4], score, fields[5]]) + "\n"


@pytest.mark.parametrize("faults", ["a score that is not a number", "NaN score, then a score that is not a number",
                                    "a score that is not a number, then four fields", "two NaN scores",
                                    "a comment and blank lines before, gzip", "a byte order mark, a comment line"])
def test_a_line_the_exact_reader_refuses_is_named_in_its_words_without_reading_the_file_whole(
        tmp_path, small_chunks, faults, monkeypatch):
    """The exact reader names the first line with too few fields, else the first score that is not a number,
    else the first NaN, wherever they are: the pass over the file in pieces names the same line."""
    qrels, lines = _lines()
    if faults == "a score that is not a number":
        lines[3000] = _score(lines[3000], "high")
    elif faults == "NaN score, then a score that is not a number":
        lines[100] = _score(lines[100], "nan")
        lines[5000] = _score(lines[5000], "1.0x")
    elif faults == "a score that is not a number, then four fields":
        lines[100] = _score(lines[100], "high")
        lines[5000] = " ".join(lines[5000].split()[:4]) + "\n"
    elif faults == "two NaN scores":
        lines[2000] = _score(lines[2000], "NaN")
        lines[4000] = _score(lines[4000], "nan")
    elif faults == "a comment and blank lines before, gzip":
        lines[10:10] = ["\n", "# a comment\n", "   \n"]
        lines[4321] = _score(lines[4321], "x")
    else:
        lines.insert(0, "\ufeff# Q0 a comment of six fields\n")
        lines[2500] = " ".join(lines[2500].split()[:5]) + "\n"
    path = tmp_path / ("input.sys.gz" if "gzip" in faults else "input.sys")
    data = "".join(lines).encode()
    path.write_bytes(gzip.compress(data) if "gzip" in faults else data)
    evaluated, exact = _refusals(path, qrels, monkeypatch, streamed=True)
    assert evaluated == exact and "line " in exact


@pytest.mark.parametrize("gz", [False, True])
def test_text_that_is_not_utf8_after_a_bad_line_is_named_first_as_by_the_exact_reader(tmp_path, small_chunks, gz,
                                                                                      monkeypatch):
    """The exact reader refuses the whole file's text before looking at its lines; the stream names the first
    line that is not UTF-8 as it does, without reading the file whole."""
    qrels, lines = _lines()
    lines[30] = " ".join(lines[30].split()[:4]) + "\n"
    lines[-3] = lines[-3].replace(" Q0 ", " Q0\udcff ")
    path = tmp_path / ("input.sys.gz" if gz else "input.sys")
    data = "".join(lines).encode("utf-8", "surrogateescape")
    path.write_bytes(gzip.compress(data) if gz else data)
    evaluated, exact = _refusals(path, qrels, monkeypatch, streamed=True)
    assert evaluated == exact and f"line {len(lines) - 2}: not UTF-8" in exact


def test_a_duplicate_then_scattered_lines_are_named_as_by_the_exact_reader(tmp_path, small_chunks, monkeypatch):
    """The duplicate is met first, then a query whose lines come back: the file is partitioned, and the
    first repeated line in the file is still the one named."""
    qrels, lines = _lines()
    lines.insert(7, lines[3])
    lines.append(lines[200].replace(" Q0 ", " Q0 extra-", 1))   # query of line 201 again, at the end
    path = tmp_path / "input.sys"
    path.write_text("".join(lines))
    evaluated, exact = _refusals(path, qrels, monkeypatch, streamed=True)
    assert evaluated == exact and "line 4:" in exact


def test_duplicates_in_a_scattered_file_name_the_first_repeated_line_of_the_file(tmp_path, small_chunks,
                                                                                monkeypatch):
    """Partitions come in hash order, not line order: the pair the exact reader names (of the first line whose
    pair repeats) is looked for over all of them."""
    qrels, lines = _lines()
    random.Random(5).shuffle(lines)
    lines.extend(reversed(lines[100:140]))   # forty pairs of many queries repeat; line 101's pair is the first
    path = tmp_path / "input.sys"
    path.write_text("".join(lines))
    with pytest.raises(stream.Interleaved):
        list(stream.iter_query_blocks(path, "sys"))
    evaluated, exact = _refusals(path, qrels, monkeypatch, streamed=True)
    assert evaluated == exact and "line 101:" in exact


def test_first_duplicate_is_none_without_a_repeated_pair(tmp_path, small_chunks):
    _, lines = _lines()
    random.Random(5).shuffle(lines)
    path = tmp_path / "input.sys"
    path.write_text("".join(lines))
    assert partition.first_duplicate(path) is None
    path.write_text("".join([*lines, lines[9]]))
    assert partition.first_duplicate(path) == tuple(lines[9].split()[i] for i in (0, 2))
