"""Files whose lines end in a bare CR (old Mac OS) are refused naming the file and the line, by every local
reader (whole, streamed, each engine); CRLF files and a CR between fields (a blank to trec_eval) still read."""

from __future__ import annotations

from pathlib import Path

import pytest

import pairedframe as pf
import pairedframe.io.stream as stream

RUN = "301 Q0 d1 1 2 r\n301 Q0 d2 2 1 r\n302 Q0 d3 1 1 r\n"
QRELS = "301 0 d1 0\n301 0 d2 1\n302 0 d3 1\n"
BARE_CR = "line 1: the lines end in a bare carriage return"


def _write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_bytes(text.encode())
    return str(path)


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_a_run_with_bare_cr_line_ends_is_refused_naming_file_and_line_1_on_each_engine(tmp_path, engine):
    run = _write(tmp_path, "cr.run", RUN.replace("\n", "\r"))
    qrels = _write(tmp_path, "lf.qrels", QRELS)
    with pytest.raises(pf.InputFormatError, match=f"run file {run}, {BARE_CR}"):
        pf.evaluate(run, qrels, ["AP"], engine=engine)
    with pytest.raises(pf.InputFormatError, match=f"run file {run}, {BARE_CR}"):
        pf.read_run(run)


def test_qrels_with_bare_cr_line_ends_get_the_short_bare_cr_error_not_the_swapped_hint(tmp_path):
    qrels = _write(tmp_path, "cr.qrels", "".join(f"30{q} 0 d{i} 1\r" for q in range(3) for i in range(3000)))
    with pytest.raises(pf.InputFormatError, match=f"qrels file {qrels}, {BARE_CR}") as refused:
        pf.read_qrels(qrels)
    assert len(str(refused.value)) < 600 and "swapped" not in str(refused.value)
    with pytest.raises(pf.InputFormatError, match=BARE_CR):
        pf.evaluate(_write(tmp_path, "lf.run", RUN), qrels, ["AP"])


def test_a_bare_cr_line_end_after_lf_lines_names_its_line_streamed_or_read_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(stream, "CHUNK_BYTES", 64)  # several pieces: the bare CR is in a later one
    text = RUN + "303 Q0 d4 1 1 r\r303 Q0 d5 2 0.5 r\n"
    run = _write(tmp_path, "mixed.run", text)
    qrels = _write(tmp_path, "lf.qrels", QRELS)
    with pytest.raises(pf.InputFormatError, match="line 4: the lines end in a bare carriage return") as whole:
        pf.read_run(run)
    with pytest.raises(pf.InputFormatError) as streamed:
        pf.evaluate(run, qrels, ["AP"])
    assert str(streamed.value) == str(whole.value)


def test_crlf_files_and_a_cr_between_fields_still_read_as_lf_files(tmp_path):
    lf = pf.evaluate(_write(tmp_path, "lf.run", RUN), _write(tmp_path, "lf.qrels", QRELS), ["AP", "num_ret"])
    crlf = pf.evaluate(_write(tmp_path, "crlf.run", RUN.replace("\n", "\r\n")),
                       _write(tmp_path, "crlf.qrels", QRELS.replace("\n", "\r\n")), ["AP", "num_ret"])
    blank = pf.evaluate(_write(tmp_path, "blank.run", RUN.replace("d1 1", "d1\r1")),
                        _write(tmp_path, "blank.qrels", QRELS.replace("0 d1", "0\rd1")), ["AP", "num_ret"])
    assert crlf.per_query["value"].to_list() == lf.per_query["value"].to_list()
    assert blank.per_query["value"].to_list() == lf.per_query["value"].to_list()


@pytest.mark.spark
def test_a_run_with_bare_cr_line_ends_is_refused_naming_file_and_line_1_on_spark(spark, tmp_path):
    """Spark's text source takes a bare CR for a line end; the Spark readers check the file's first bytes
    and refuse it as the local readers do."""
    from pairedframe.engines import spark_files

    run = _write(tmp_path, "cr.run", RUN.replace("\n", "\r"))
    qrels = _write(tmp_path, "lf.qrels", QRELS)
    with pytest.raises(pf.InputFormatError, match=f"run file {run}, {BARE_CR}"):
        pf.evaluate(run, qrels, ["AP"], engine="spark")
    with pytest.raises(pf.InputFormatError, match=f"run file {run}, {BARE_CR}"):
        spark_files.read_run(spark, run)


@pytest.mark.spark
def test_qrels_with_bare_cr_line_ends_are_refused_naming_file_and_line_1_on_spark(spark, tmp_path):
    from pairedframe.engines import spark_files

    qrels = _write(tmp_path, "cr.qrels", QRELS.replace("\n", "\r"))
    with pytest.raises(pf.InputFormatError, match=f"qrels file {qrels}, {BARE_CR}"):
        pf.evaluate(_write(tmp_path, "lf.run", RUN), qrels, ["AP"], engine="spark")
    with pytest.raises(pf.InputFormatError, match=f"qrels file {qrels}, {BARE_CR}"):
        spark_files.read_qrels(spark, qrels)


@pytest.mark.spark
def test_crlf_files_still_read_on_spark_as_lf_files(spark, tmp_path):
    lf = pf.evaluate(_write(tmp_path, "lf.run", RUN), _write(tmp_path, "lf.qrels", QRELS), ["AP"])
    crlf = pf.evaluate(_write(tmp_path, "crlf.run", RUN.replace("\n", "\r\n")),
                       _write(tmp_path, "crlf.qrels", QRELS.replace("\n", "\r\n")), ["AP"], engine="spark")
    assert crlf.per_query.sort("qid")["value"].to_list() == lf.per_query.sort("qid")["value"].to_list()


def test_the_duckdb_macros_read_bare_cr_line_ends_as_the_lines_meant_as_documented(tmp_path):
    """The one reader that does not refuse them (docs/guide/duckdb_sql.md, inputs.md): DuckDB's CSV reader
    takes a bare CR for a line end and keeps no trace of it, so the macros read the LF file's rows."""
    import duckdb

    con = pf.duckdb.register(duckdb.connect())
    lf, cr = _write(tmp_path, "lf.run", RUN), _write(tmp_path, "cr.run", RUN.replace("\n", "\r"))
    qrels = _write(tmp_path, "cr.qrels", QRELS.replace("\n", "\r"))
    rows = "SELECT qid, docno, score FROM pf_read_run(?) ORDER BY ALL"
    assert con.execute(rows, [cr]).fetchall() == con.execute(rows, [lf]).fetchall()
    assert len(con.execute(rows, [cr]).fetchall()) == 3
    summary = "SELECT measure, value, n_queries FROM pf_summary(?, ?, 'AP')"
    assert con.execute(summary, [cr, qrels]).fetchall() == [("AP", 0.75, 2)]
    docs = (Path(__file__).parents[1] / "docs" / "guide" / "duckdb_sql.md").read_text()
    assert "bare carriage return" in " ".join(docs.split())
