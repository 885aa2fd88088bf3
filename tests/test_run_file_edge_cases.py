"""Run files a newcomer fed to evaluate: broken gzip, pipes, trec_eval's notion of blanks, control
bytes inside docnos, zstd. Each either evaluates as trec_eval would or fails naming file and line."""

from __future__ import annotations

import gzip
import os
import threading

import pyarrow as pa
import pytest

import pairedframe as pf
from pairedframe.io import read_run_tag

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 e1 1\n"
RUN = "1 Q0 d1 1 3 tagA\n1 Q0 d2 2 2 tagA\n1 Q0 d3 3 1 tagA\n2 Q0 e1 1 5 tagA\n"
MEASURES = ["AP", "nDCG@10"]


@pytest.fixture()
def qrels(tmp_path):
    path = tmp_path / "qrels.txt"
    path.write_text(QRELS)
    return path


def _values(ev: pf.Evaluation) -> list[tuple]:
    return ev.per_query.select("qid", "measure", "value").rows()


@pytest.mark.parametrize("damage", ["truncated", "flipped byte", "junk after the stream"])
def test_a_broken_gzip_run_is_an_input_error_naming_the_file(tmp_path, qrels, damage):
    data = gzip.compress(RUN.encode() * 50)
    data = {"truncated": data[:-3], "flipped byte": data[:20] + bytes([data[20] ^ 0xFF]) + data[21:],
            "junk after the stream": data + b"junk"}[damage]
    good, bad = tmp_path / "input.good", tmp_path / "input.bad.gz"
    good.write_text(RUN)
    bad.write_bytes(data)
    with pytest.raises(pf.InputFormatError) as err:
        pf.evaluate([good, bad], qrels, MEASURES)
    assert str(bad) in str(err.value) and "gzip" in str(err.value)
    with pytest.raises(pf.InputFormatError, match="gzip"):
        pf.read_run(bad)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_is_read_once_and_errors_name_it(tmp_path, qrels):
    plain = tmp_path / "input.sys"
    plain.write_text(RUN)
    expected = _values(pf.evaluate(plain, qrels, MEASURES))

    def serve(fifo, text):
        with open(fifo, "w") as fh:
            fh.write(text)

    for text, ok in ((RUN, True), (RUN + "1 Q0 d9 4\n", False)):
        fifo = tmp_path / "input.pipe"
        if fifo.exists():
            fifo.unlink()
        os.mkfifo(fifo)
        writer = threading.Thread(target=serve, args=(fifo, text))
        writer.start()
        try:
            if ok:
                ev = pf.evaluate(fifo, qrels, MEASURES)
                assert _values(ev) == expected and ev.systems == ["pipe"] and ev.run_tags == {"pipe": "tagA"}
            else:
                with pytest.raises(pf.InputFormatError, match=f"{fifo}, line 5"):
                    pf.evaluate(fifo, qrels, MEASURES)
        finally:
            writer.join(timeout=10)


def test_blanks_are_what_trec_eval_splits_on(tmp_path, qrels):
    plain = tmp_path / "input.sys"
    plain.write_text(RUN)
    expected = _values(pf.evaluate(plain, qrels, MEASURES))
    for blank in ("\r", "\x0b", "\x0c"):  # C's isspace(): separators inside a line, as for trec_eval
        odd = tmp_path / "input.odd"
        odd.write_bytes(RUN.replace("d2 2", f"d2{blank}2").encode())
        assert _values(pf.evaluate(odd, qrels, MEASURES)) == expected, repr(blank)
    nbsp = tmp_path / "input.nbsp"  # not a blank for trec_eval: the line has 5 fields
    nbsp.write_text(RUN.replace("d2 2", "d2\u00a02"))
    with pytest.raises(pf.InputFormatError, match="line 2: expected at least 6 fields .*found 5"):
        pf.evaluate(nbsp, qrels, MEASURES)


def test_control_bytes_inside_a_docno_are_data_whatever_else_the_file_holds(tmp_path, qrels):
    results = []
    for prefix in ("", "# a comment line\n"):
        path = tmp_path / "input.ctl"
        path.write_text(prefix + RUN.replace("d2 2", "d\x1f2 2"))
        run = pf.read_run(path)
        assert "d\x1f2" in run["docno"].to_list()
        results.append(_values(pf.evaluate(path, qrels, MEASURES)))
    assert results[0] == results[1]


def test_a_zstd_run_is_read_and_its_tag_is_text(tmp_path, qrels):
    path = tmp_path / "input.sys.zst"
    path.write_bytes(pa.compress(RUN.encode(), codec="zstd", asbytes=True))
    plain = tmp_path / "input.sys"
    plain.write_text(RUN)
    assert read_run_tag(path) == "tagA"
    assert _values(pf.evaluate(path, qrels, MEASURES)) == _values(pf.evaluate(plain, qrels, MEASURES))


def test_the_numeric_id_warning_points_at_the_callers_line():
    import warnings

    import polars as pl
    run = pl.DataFrame({"qid": [1, 1], "docno": [7, 8], "score": [2.0, 1.0]})
    qrels = pl.DataFrame({"qid": [1], "docno": [7], "rel": [1]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.evaluate(run, qrels, ["AP"], system="s")
    assert caught and all(w.filename == __file__ for w in caught)


@pytest.mark.parametrize("name", ["r[1].txt", "x*.txt", "q?.txt", "runs [2024]/run.txt"])
def test_file_names_with_glob_characters_are_names(tmp_path, name):
    # Decoys that a glob would match instead: other numbers, or a duplicate error.
    for decoy in ("r1.txt", "xa.txt", "qa.txt"):
        (tmp_path / decoy).write_text("1 Q0 d9 1 9 other\n1 Q0 d9 2 8 other\n")
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(RUN + "1 Q0 d4 4 0.5 tagA extra\n")  # the extra field sends it to the whole-file reader
    qrels = tmp_path / name.replace(".txt", ".qrels")
    qrels.write_text(QRELS)
    (tmp_path / "r1.qrels").write_text("1 0 d9 1\n")
    plain = tmp_path / "plain.txt"
    plain.write_text(RUN + "1 Q0 d4 4 0.5 tagA extra\n")
    plain_qrels = tmp_path / "plain.qrels"
    plain_qrels.write_text(QRELS)
    assert _values(pf.evaluate(path, qrels, MEASURES)) == _values(pf.evaluate(plain, plain_qrels, MEASURES))
    assert pf.read_run(path)["docno"].to_list() == pf.read_run(plain)["docno"].to_list()
    ev = pf.evaluate(path, qrels, MEASURES)
    results = tmp_path / name.replace(".txt", ".jsonl")
    ev.per_query.write_ndjson(results)
    (tmp_path / "r1.jsonl").write_text('{"system": "decoy", "qid": "1", "measure": "AP", "value": 0.0}\n')
    assert pf.read_results(results)["system"].unique().to_list() == ev.per_query["system"].unique().to_list()


def test_a_broken_zstd_run_says_so(tmp_path, qrels):
    path = tmp_path / "input.sys.zst"
    path.write_bytes(pa.compress(RUN.encode() * 200, codec="zstd", asbytes=True)[:-20])
    with pytest.raises(pf.InputFormatError, match="corrupt or truncated zstd"):
        pf.evaluate(path, qrels, MEASURES)


def test_runid_of_a_compressed_run_is_read_only_when_trec_output_asks_for_it(tmp_path, monkeypatch):
    import gzip

    import pairedframe.evaluation.pipeline as pipeline

    run = tmp_path / "run.gz"
    with gzip.open(run, "wt") as f:
        f.write("1 Q0 d1 1 2.0 tagA\n1 Q0 d2 2 1.0 tagB\n")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    reads = []
    real = pipeline.read_run_tag
    monkeypatch.setattr(pipeline, "read_run_tag", lambda path: reads.append(path) or real(path))
    ev = pf.evaluate(str(run), str(qrels), ["AP", "runid"])
    assert reads == [], "an evaluation must not read a compressed run through again for its runid"
    assert "runid                 \tall\ttagB" in ev.to_trec() and len(reads) == 1   # trec_eval: the last line's tag
