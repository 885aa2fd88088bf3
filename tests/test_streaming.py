"""Streaming evaluation of run files (blocks of whole queries) equals evaluating the whole table."""

from __future__ import annotations

import gzip

import polars as pl
import pytest

import pairedframe as pf
import pairedframe.evaluation.pipeline as pipeline
import pairedframe.io.stream as stream
from pairedframe.example import example_paths

MEASURES = ["official", "nDCG@10", "nDCG", "AP@100", "R@50", "RR@10", "Success@5"]


@pytest.fixture(params=[20_000, 70_000])
def small_chunks(request, monkeypatch):
    monkeypatch.setattr(stream, "CHUNK_BYTES", request.param)
    monkeypatch.setattr(pipeline, "EVAL_RANK_ROWS", 50)  # the engine evaluates the ranks in several chunks
    return request.param


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("options", [{}, {"complete": True, "depth": 3, "score_precision": "float32"}])
def test_streamed_files_against_whole_tables(small_chunks, engine, options):
    qrels, runs = example_paths()
    streamed = pf.evaluate(runs, qrels, MEASURES, engine=engine, **options)
    whole = pf.evaluate(pf.read_run(runs), pf.read_qrels(qrels), MEASURES, engine=engine, **options)
    _assert_same(streamed.per_query, whole.per_query)
    assert streamed.excluded.equals(whole.excluded)


def _assert_same(a: pl.DataFrame, b: pl.DataFrame) -> None:
    """Same rows; values equal up to summation order inside a query (engines agree within 1e-12)."""
    keys = ["system", "qid", "measure"]
    assert a.select(keys).equals(b.select(keys))
    assert (a["value"] - b["value"]).abs().max() <= 1e-12


def test_blocks_hold_whole_queries_and_every_line(tmp_path, small_chunks):
    _, runs = example_paths()
    blocks = [block.run for block in stream.iter_query_blocks(runs[0], "bm25")]
    assert len(blocks) > 1
    assert all(b.n_chunks() == 1 for b in blocks)  # the ranking gathers from them: one chunk each
    qids = [b["qid"].unique().to_list() for b in blocks]
    assert sum(len(q) for q in qids) == len({q for qs in qids for q in qs})  # no query split
    assert pl.concat(blocks).sort("qid", "docno").equals(pf.read_run(runs[0], system="bm25").sort("qid", "docno"))


def test_pieces_of_a_plain_file_end_where_a_query_ends(small_chunks):
    _, runs = example_paths()
    pieces = [bytes(piece.text) for piece in stream._line_chunks(str(runs[0]), small_chunks, " ") if piece.plain]
    assert len(pieces) > 1 and b"".join(pieces) == runs[0].read_bytes()
    for before, after in zip(pieces, pieces[1:]):  # so that no block waits to be joined with the next
        assert before.splitlines()[-1].split()[0] != after.split(maxsplit=1)[0]


@pytest.mark.parametrize("compressed", [False, True])
def test_a_query_longer_than_a_piece_streams_in_one_block(tmp_path, compressed):
    _, runs = example_paths()
    lines = runs[0].read_text().splitlines(keepends=True)
    long = [f"long Q0 doc{i} {i + 1} {-i / 7:.3f} tag\n" for i in range(1500)]  # ~50 kB, pieces of 4 kB
    text = "".join(lines[:200] + long + lines[200:])  # between queries 002 and 003
    path = tmp_path / ("input.sys.gz" if compressed else "input.sys")
    path.write_bytes(gzip.compress(text.encode()) if compressed else text.encode())
    blocks = [block.run for block in stream.iter_query_blocks(path, "sys", chunk_bytes=4096)]
    assert [b["qid"].to_list().count("long") for b in blocks if "long" in b["qid"]] == [1500]
    assert all(b.n_chunks() == 1 for b in blocks)
    qids = [b["qid"].unique().to_list() for b in blocks]
    assert sum(len(q) for q in qids) == len({q for qs in qids for q in qs})  # no query split
    assert pl.concat(blocks).sort("qid", "docno").equals(pf.read_run(path, system="sys").sort("qid", "docno"))


@pytest.mark.parametrize("layout", ["interleaved", "gzip", "double-space", "comment", "duplicate"])
def test_files_of_other_layouts_against_the_exact_reader(tmp_path, small_chunks, layout):
    qrels, runs = example_paths()
    lines = runs[0].read_text().splitlines(keepends=True)
    path = tmp_path / "input.sys"
    if layout == "interleaved":
        lines = lines[::2] + lines[1::2]  # each query's lines appear in two places
    elif layout == "double-space":
        lines[5] = lines[5].replace(" ", "  ", 1)
    elif layout == "comment":
        lines.insert(3, "# a comment line\n")
    elif layout == "duplicate":
        lines.append(lines[0])
    if layout == "gzip":
        path = tmp_path / "input.sys.gz"
        path.write_bytes(gzip.compress("".join(lines).encode()))
    else:
        path.write_text("".join(lines))
    if layout == "duplicate":
        with pytest.raises(pf.DuplicateError, match="line"):
            pf.evaluate(path, qrels, ["AP"])
        return
    ev = pf.evaluate(path, qrels, ["AP", "nDCG@10"])
    whole = pf.evaluate(pf.read_run(runs[0], system="sys"), qrels, ["AP", "nDCG@10"])
    _assert_same(ev.per_query, whole.per_query)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_streamed_complete_scores_missed_judged_queries(tmp_path, small_chunks, engine):
    qrels, runs = example_paths()
    lines = [ln for ln in runs[0].read_text().splitlines(keepends=True) if not ln.startswith(("001 ", "017 "))]
    path = tmp_path / "input.partial"
    path.write_text("".join(lines))
    streamed = pf.evaluate(path, qrels, MEASURES, complete=True, engine=engine)
    whole = pf.evaluate(pf.read_run(path), qrels, MEASURES, complete=True, engine=engine)
    _assert_same(streamed.per_query, whole.per_query)
    missed = streamed.per_query.filter(pl.col("qid") == "001")
    assert missed.filter(pl.col("measure") == "NumRel")["value"].item() > 0
    assert missed.filter(pl.col("measure") == "AP")["value"].item() == 0


def _lines(tmp_path):
    qrels, runs = example_paths()
    return qrels, runs[0].read_text().splitlines(keepends=True)


@pytest.mark.parametrize("layout", ["crlf", "no final newline", "blank lines", "tabs", "ids spelled like CSV nulls",
                                    "long and non-ASCII ids"])
def test_simple_variants_stream_and_equal_the_exact_reader(tmp_path, small_chunks, layout):
    qrels, lines = _lines(tmp_path)
    if layout == "crlf":
        lines = [ln.replace("\n", "\r\n") for ln in lines]
    elif layout == "no final newline":
        lines[-1] = lines[-1].rstrip("\n")
    elif layout == "blank lines":
        lines.insert(7, "\n")
        lines.append("\n")
    elif layout == "tabs":
        lines = [ln.replace(" ", "\t") for ln in lines]
    elif layout == "ids spelled like CSV nulls":  # text to trec_eval, null to a CSV reader's defaults
        for i, text in zip((3, 4, 5), ("NA", "null", "N/A")):
            qid, q0, _, rank, score, tag = lines[i].split()
            lines[i] = f"{qid} {text} {text} {rank} {score} {text}\n"
    elif layout == "long and non-ASCII ids":  # string views: ids over 12 bytes live outside the view
        for i in range(0, len(lines), 3):
            qid, q0, docno, rank, score, tag = lines[i].split()
            lines[i] = f"{qid} {q0} {docno}-clueweb12-0000tw-00-0000-é {rank} {score} {tag}\n"
    path = tmp_path / "input.sys"
    path.write_bytes("".join(lines).encode())
    blocks = [block.run for block in stream.iter_query_blocks(path, "sys")]  # no NotStreamable
    exact = pf.read_run(path)
    assert pl.concat(blocks).sort("qid", "docno").equals(exact.sort("qid", "docno"))


def _change_line_10(lines: list[str], change: str) -> None:
    qid, q0, docno, rank, score, tag = lines[9].split()
    lines[9] = {
        "tab inside a field": f"{qid} {q0} {docno}\tx {rank} {score} {tag}\n",
        "empty rank field": f"{qid} {q0} {docno}  {score} {tag}\n",
        "trailing blank, five fields": f"{qid} {q0} {docno} {rank} {score} \n",
        "extra trailing field": f"{qid} {q0} {docno} {rank} {score} {tag} extra\n",
        "NaN score": f"{qid} {q0} {docno} {rank} nan {tag}\n",
        "not UTF-8": f"{qid} {q0} {docno}\udcff {rank} {score} {tag}\n",
        "leading blank": f" {qid} {q0} {docno} {rank} {score} {tag}\n",
        "empty Q0 field": f"{qid}  {docno} {rank} {score} {tag}\n",
        "empty tag field, CRLF": f"{qid} {q0} {docno} {rank} {score} \r\n",
        "vertical tab and form feed": f"{qid}\x0b{q0} {docno}\x0c{rank} {score} {tag}\n",
        "lone CR inside the line": f"{qid} {q0} {docno}\r{rank} {score} {tag}\n",
        "bare CR after the sixth field": f"{qid} {q0} {docno} {rank} {score} {tag}\r{qid} Q0 other 1 9.5 {tag}\n",
        "comment line": f"# {qid} {q0} {docno} {rank} {score} {tag}\n",
    }[change]


@pytest.mark.parametrize("change", ["empty rank field", "trailing blank, five fields", "NaN score", "not UTF-8",
                                    "empty Q0 field", "empty tag field, CRLF", "bare CR after the sixth field"])
def test_lines_the_exact_reader_refuses_stop_the_stream_and_evaluate_names_them(tmp_path, small_chunks, change):
    qrels, lines = _lines(tmp_path)
    _change_line_10(lines, change)
    path = tmp_path / "input.sys"
    path.write_bytes("".join(lines).encode("utf-8", "surrogateescape"))
    with pytest.raises(stream.NotStreamable):
        for block in stream.iter_query_blocks(path, "sys"):
            stream.checked_pairs(block)
    with pytest.raises(pf.InputFormatError, match="line 10") as exact:
        pf.read_run(path)
    with pytest.raises(pf.InputFormatError) as evaluated:
        pf.evaluate(path, qrels, ["AP"])
    assert str(evaluated.value) == str(exact.value)


@pytest.mark.parametrize("change", ["tab inside a field", "extra trailing field", "leading blank",
                                    "vertical tab and form feed", "lone CR inside the line", "comment line"])
def test_lines_valid_for_trec_eval_but_not_simple_stream_and_equal_the_exact_reader(tmp_path, small_chunks,
                                                                                     change, monkeypatch):
    """Only their piece is parsed by the exact reader's rules: the file streams (never read whole) and gives
    the exact reader's rows (a lone \\r between fields is a blank to it, a line end to a CSV reader)."""
    qrels, lines = _lines(tmp_path)
    _change_line_10(lines, change)
    path = tmp_path / "input.sys"
    path.write_bytes("".join(lines).encode())
    exact = pf.read_run(path, system="sys")
    blocks = [block.run for block in stream.iter_query_blocks(path, "sys")]
    assert pl.concat(blocks).equals(exact)                       # every row, in file order
    whole = pf.evaluate(exact, qrels, MEASURES)
    monkeypatch.setattr(pipeline, "as_run", _not_read_whole)
    _assert_same(pf.evaluate(path, qrels, MEASURES, system="sys").per_query, whole.per_query)


def _not_read_whole(*args, **kwargs):
    raise AssertionError("the run file was read whole instead of streamed")


@pytest.mark.parametrize("where", ["first line", "inside a query", "after \\n", "after \\r\\n"])
def test_a_comment_line_anywhere_streams_as_the_exact_reader_reads_it(tmp_path, small_chunks, where):
    """A line starting with # is skipped by the exact reader after a \\n (after a bare \\r it would be the
    end of the line before, and the file is refused: test_bare_return_line_ends)."""
    _, lines = _lines(tmp_path)
    at = {"first line": 0, "inside a query": 5}.get(where) or next(
        i for i in range(1, len(lines)) if lines[i].split()[0] != lines[i - 1].split()[0])
    if where.startswith("after"):
        ending = {"after \\n": "\n", "after \\r\\n": "\r\n"}[where]
        lines[at - 1] = lines[at - 1].rstrip("\n") + ending
    lines.insert(at, "#" + lines[at])
    path = tmp_path / "input.sys"
    path.write_bytes("".join(lines).encode())
    blocks = [block.run for block in stream.iter_query_blocks(path, "sys")]
    assert pl.concat(blocks).equals(pf.read_run(path, system="sys"))


@pytest.mark.parametrize("chunk_bytes", [4096, 2**22])
def test_a_byte_order_mark_is_skipped_at_the_file_start_only_as_by_the_exact_reader(tmp_path, chunk_bytes):
    """Every query's first line starts with a byte order mark, so pieces start with one: part of the qid to the
    exact reader (and to trec_eval) except at the start of the file, where a comment line may follow it."""
    _, lines = _lines(tmp_path)
    firsts = [i for i in range(len(lines)) if i == 0 or lines[i].split()[0] != lines[i - 1].split()[0]]
    for i in firsts:
        lines[i] = "\ufeff" + lines[i]
    lines.insert(0, "\ufeff# Q0 a comment line of six fields\n")
    path = tmp_path / "input.sys"
    path.write_bytes("".join(lines).encode())
    exact = pf.read_run(path, system="sys")
    assert exact["qid"].str.starts_with("\ufeff").sum() == len(firsts) and not exact["qid"].str.starts_with("#").any()
    blocks = [block.run for block in stream.iter_query_blocks(path, "sys", chunk_bytes=chunk_bytes)]
    assert pl.concat(blocks).equals(exact)


def test_the_separator_is_read_from_the_first_data_line_not_a_comment(tmp_path):
    """A comment line with spaces first in a tab-separated file: the pieces after the comment's are still simple
    (parsed by the fast reader)."""
    _, lines = _lines(tmp_path)
    path = tmp_path / "input.sys"
    path.write_text("# made by a script, version 2\n" + "".join(ln.replace(" ", "\t") for ln in lines))
    sep = stream._separator(str(path))
    assert sep == "\t"
    plain = [piece.plain for piece in stream._line_chunks(str(path), 4096, sep)]
    assert len(plain) > 2 and all(plain[1:])


@pytest.mark.parametrize("chunk_bytes", [16, 4096])
def test_pieces_smaller_than_a_line_still_end_at_line_ends(tmp_path, chunk_bytes):
    qrels, runs = example_paths()
    blocks = [block.run for block in stream.iter_query_blocks(runs[0], "bm25", chunk_bytes=chunk_bytes)]
    exact = pf.read_run(runs[0], system="bm25")
    assert pl.concat(blocks).sort("qid", "docno").equals(exact.sort("qid", "docno"))


def test_a_blank_ending_the_file_stops_the_stream(tmp_path):
    """The last line without its newline, ending in a blank: an empty sixth field, five to trec_eval."""
    _, lines = _lines(tmp_path)
    path = tmp_path / "input.sys"
    path.write_text("".join(lines[:-1]) + " ".join(lines[-1].split()[:5]) + " ")
    with pytest.raises(stream.NotStreamable):
        list(stream.iter_query_blocks(path, "sys"))


def test_an_empty_or_blank_file_does_not_stream(tmp_path):
    for text in ("", "\n\n"):
        path = tmp_path / "input.empty"
        path.write_text(text)
        with pytest.raises(stream.NotStreamable, match="empty"):
            list(stream.iter_query_blocks(path, "empty"))


def test_streamed_chunks_run_on_one_duckdb_thread_and_leave_a_given_connection_as_it_was(small_chunks, monkeypatch):
    import duckdb

    from pairedframe.engines.duckdb_engine import DuckDBEngine

    con = duckdb.connect()
    con.sql("SET threads = 3")
    engine = DuckDBEngine(con)
    seen = []
    evaluate_ranked = engine.evaluate_ranked

    def spy(*args, **kwargs):
        seen.append(con.sql("SELECT current_setting('threads')").fetchall()[0][0])
        return evaluate_ranked(*args, **kwargs)

    monkeypatch.setattr(engine, "evaluate_ranked", spy)
    qrels, runs = example_paths()
    pf.evaluate(runs, qrels, ["nDCG@10"], engine=engine)
    assert len(seen) > 1 and set(seen) == {1}
    assert con.sql("SELECT current_setting('threads')").fetchall()[0][0] == 3


def test_chunked_evaluation_holds_at_most_two_chunks_when_the_engine_is_slower_than_the_reading():
    """A slow engine (all_trec on a big file) must not let chunks pile up in the helper's queue: memory stays
    bounded by one chunk evaluated and one being filled, whatever the file's size."""
    import threading
    import time
    from concurrent.futures import Future

    from pairedframe.engines.base import RESULT_SCHEMA, EvalOptions
    from pairedframe.engines.ranking import RANKS_SCHEMA
    from pairedframe.evaluation.chunked import ChunkedEvaluation

    class SlowEngine:
        def __init__(self):
            self.lock, self.alive, self.most_alive = threading.Lock(), 0, 0

        def evaluate_ranked(self, ranks, sizes, judgments, measures, options):
            time.sleep(0.02)
            with self.lock:
                self.alive -= 1
            return pl.DataFrame({"system": ["s"], "qid": [sizes["qid"][0]], "measure": ["m"], "value": [1.0],
                                 "text": [None]},
                                schema=RESULT_SCHEMA)

    class Judgments:
        def of(self, qids):
            return None

    done_judgments, warmed = Future(), Future()
    done_judgments.set_result(Judgments())
    warmed.set_result(None)
    engine = SlowEngine()
    ranks = pl.DataFrame(schema=RANKS_SCHEMA)
    with ChunkedEvaluation(engine, [], EvalOptions(), done_judgments, warmed, max_rows=1, min_rows=1) as chunks:
        for i in range(30):                         # every block is a full chunk: the reading outruns the engine
            chunks.add("s", ranks, pl.DataFrame({"qid": [f"q{i}"], "n": [1]}))
            with engine.lock:
                engine.alive += 1
                engine.most_alive = max(engine.most_alive, engine.alive)
        values = chunks.finish(pl.DataFrame({"system": ["s"], "qid": ["q0"], "n": [1]}), pl.DataFrame()).result()
    assert values.height == 30
    assert engine.most_alive <= 2


def test_checked_pairs_confirms_equal_hashes_on_the_strings(monkeypatch):
    """Equal pair hashes are a duplicate only when the strings are equal too: a collision is no repeat."""
    import numpy as np

    run = pl.DataFrame({"system": "s", "qid": ["1", "1", "2", "2"], "docno": ["a", "b", "a", "c"],
                        "score": [2.0, 1.0, 2.0, 1.0]})
    block = stream.QueryBlock(run, np.array([0, 2]))
    assert stream.checked_pairs(block).len() == 4
    monkeypatch.setattr(stream, "pair_hash", lambda frame: pl.Series(np.zeros(frame.height, np.uint64)))
    assert stream.checked_pairs(block).len() == 4  # every hash collides, no pair repeats
    repeated = stream.QueryBlock(run.with_columns(pl.Series("docno", ["a", "b", "c", "c"])), np.array([0, 2]))
    with pytest.raises(stream.DuplicatePair, match=r"\(2, c\)"):
        stream.checked_pairs(repeated)


def test_distinct_in_each_query_sorts_queries_of_one_size_and_leaves_the_rest_to_the_whole_hashes():
    import numpy as np

    starts = np.array([0, 2])
    assert stream._distinct_in_each_query(np.array([5, 9, 5, 7], np.uint64), starts)  # repeats across queries only
    assert not stream._distinct_in_each_query(np.array([5, 9, 7, 7], np.uint64), starts)
    assert not stream._distinct_in_each_query(np.array([5, 9, 7, 7 + 2**32], np.uint64), starts)  # low bits repeat
    assert not stream._distinct_in_each_query(np.array([5, 9, 7], np.uint64), starts)  # sizes 2 and 1
    assert not stream._distinct_in_each_query(np.array([5, 9, 7, 8], np.uint64), np.array([0, 1]))  # sizes 1 and 3


def test_checked_pairs_finds_a_repeat_in_queries_of_different_sizes():
    import numpy as np

    run = pl.DataFrame({"system": "s", "qid": ["1", "1", "1", "2"], "docno": ["a", "b", "a", "a"],
                        "score": [3.0, 2.0, 1.0, 1.0]})
    with pytest.raises(stream.DuplicatePair, match=r"\(1, a\)"):
        stream.checked_pairs(stream.QueryBlock(run, np.array([0, 3])))
    assert stream.checked_pairs(stream.QueryBlock(run.slice(1), np.array([0, 2]))).len() == 3
