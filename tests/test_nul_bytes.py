"""A NUL byte in a TREC run or qrels file: trec_eval reads its input as C strings and would stop there,
ignoring the rest of the file, so every reader refuses it naming the file and the line (pf.read_run read
the file, pf.evaluate called it binary data); a binary file that is no text at all keeps its own error."""

from __future__ import annotations

import pytest

import pairedframe as pf
import pairedframe.io.stream as stream

NUL_LINE = "line 2: a NUL byte"
RUN = "1 Q0 d1 1 2 r\n1 Q0 d\x002 2 1 r\n2 Q0 d3 1 1 r\n"
QRELS = "1 0 d1 1\n1 0 d2 1\n2 0 d3 1\n"


def _write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_bytes(text.encode())
    return str(path)


@pytest.mark.parametrize("where", ["docno", "tag", "score"])
def test_a_nul_byte_in_a_run_is_refused_naming_file_and_line_by_read_run_and_evaluate(tmp_path, where):
    text = {"docno": RUN, "tag": RUN.replace("1 r\n2", "1 r\x00\n2"), "score": RUN.replace("\x00", "").replace(
        "2 1 r", "2 1\x005 r")}[where]
    run = _write(tmp_path, "nul.run", text)
    qrels = _write(tmp_path, "lf.qrels", QRELS)
    with pytest.raises(pf.InputFormatError, match=f"run file {run}, {NUL_LINE}") as read:
        pf.read_run(run)
    with pytest.raises(pf.InputFormatError, match=f"run file {run}, {NUL_LINE}"):
        pf.evaluate(run, qrels, ["AP"])
    assert "C strings" in str(read.value)


def test_a_nul_byte_in_qrels_is_refused_naming_file_and_line(tmp_path):
    qrels = _write(tmp_path, "nul.qrels", QRELS.replace("d2", "d\x002"))
    with pytest.raises(pf.InputFormatError, match=f"qrels file {qrels}, {NUL_LINE}"):
        pf.read_qrels(qrels)
    with pytest.raises(pf.InputFormatError, match=f"qrels file {qrels}, {NUL_LINE}"):
        pf.evaluate(_write(tmp_path, "lf.run", RUN.replace("\x00", "")), qrels, ["AP"])


def test_a_nul_byte_far_into_a_large_run_is_refused_naming_its_line_streamed_or_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "CHUNK_BYTES", 4096)  # several pieces: the NUL is in a later one
    lines = [f"{q} Q0 d{i} {i} {1000 - i} r\n" for q in range(1, 30) for i in range(1, 400)]
    lines[9000] = lines[9000].replace(" r\n", " r\x00\n")
    run = _write(tmp_path, "big.run", "".join(lines))
    qrels = _write(tmp_path, "lf.qrels", QRELS)
    with pytest.raises(pf.InputFormatError, match=f"run file {run}, line 9001: a NUL byte"):
        pf.read_run(run)
    with pytest.raises(pf.InputFormatError, match=f"run file {run}, line 9001: a NUL byte"):
        pf.evaluate(run, qrels, ["AP"])


def test_a_binary_file_keeps_the_binary_data_error(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"\x00\x01\x02\x03" * 100)
    with pytest.raises(pf.InputFormatError, match="it holds binary data"):
        pf.evaluate(str(path), _write(tmp_path, "lf.qrels", QRELS), ["AP"])


def test_a_nul_byte_alone_on_the_last_line_of_a_large_run_is_named_by_evaluate_as_by_read_run(tmp_path):
    """A file cut off while written: its last line is a NUL beyond the first 64 KiB. evaluate found the bad
    line by the field count ('found 1') and said nothing of the NUL, which read_run names."""
    lines = [f"{q} Q0 d{i} {i} {1000 - i} r\n" for q in range(1, 30) for i in range(1, 400)]  # 250 KB
    run = _write(tmp_path, "cut.run", "".join(lines) + "\x00")
    qrels = _write(tmp_path, "lf.qrels", QRELS)
    last = len(lines) + 1
    with pytest.raises(pf.InputFormatError, match=f"run file {run}, line {last}: a NUL byte"):
        pf.read_run(run)
    with pytest.raises(pf.InputFormatError, match=f"run file {run}, line {last}: a NUL byte"):
        pf.evaluate(run, qrels, ["AP"])
