"""Run files whose queries' lines are scattered are partitioned by query on disk, then streamed:
the values equal the exact reader's, memory stays bounded, and bad lines are still named."""

from __future__ import annotations

import gzip
import os
import random

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
import pairedframe.evaluation.pipeline as pipeline
import pairedframe.io.partition as partition
import pairedframe.io.stream as stream
from pairedframe.example import example_paths

MEASURES = ["official", "nDCG@10", "AP@100", "RR@10", "Success@5"]


@pytest.fixture
def small_pieces(monkeypatch):
    """Small pieces, partitions and write buffers, so that a small file exercises every path."""
    monkeypatch.setattr(stream, "CHUNK_BYTES", 20_000)
    monkeypatch.setattr(partition, "PARTITION_BYTES", 50_000)
    monkeypatch.setattr(partition, "FLUSH_ROWS", 700)
    monkeypatch.setattr(pipeline, "EVAL_RANK_ROWS", 50)


def _shuffled(tmp_path, *, gz: bool = False, seed: int = 3) -> tuple[str, list[str], os.PathLike]:
    qrels, runs = example_paths()
    lines = runs[0].read_text().splitlines(keepends=True)
    random.Random(seed).shuffle(lines)
    path = tmp_path / ("input.sys.gz" if gz else "input.sys")
    data = "".join(lines).encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return qrels, lines, path


def _assert_same(a: pl.DataFrame, b: pl.DataFrame) -> None:
    keys = ["system", "qid", "measure"]
    assert a.select(keys).equals(b.select(keys))
    assert (a["value"] - b["value"]).abs().max() <= 1e-12


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_shuffled_file_against_the_exact_reader(tmp_path, small_pieces, gz, engine):
    qrels, _, path = _shuffled(tmp_path, gz=gz)
    with pytest.raises(stream.Interleaved):
        list(stream.iter_query_blocks(path, "sys"))
    ev = pf.evaluate(path, qrels, MEASURES, engine=engine)
    whole = pf.evaluate(pf.read_run(path), pf.read_qrels(qrels), MEASURES, engine=engine)
    _assert_same(ev.per_query, whole.per_query)
    assert ev.excluded.equals(whole.excluded)


def test_partitions_hold_whole_queries_by_descending_score(tmp_path, small_pieces):
    _, _, path = _shuffled(tmp_path)
    blocks = list(partition.iter_partitioned_blocks(path, "sys"))
    assert len(blocks) > 2
    seen: set[str] = set()
    for block in blocks:
        qids = block.run["qid"]
        heads = qids.gather(block.starts).to_list()
        assert len(set(heads)) == len(heads) and seen.isdisjoint(heads)  # each query once, together
        assert (qids.gather(block.starts[1:] - 1) != qids.gather(block.starts[1:])).all()
        group = block.run.with_columns(pl.Series("_q", np.repeat(np.arange(len(heads)), np.diff(
            np.append(block.starts, block.run.height)))))
        assert group.select((pl.col("score").diff().over("_q").fill_null(0) <= 0).all()).item()  # rank order
        seen.update(heads)
    got = pl.concat([b.run for b in blocks])
    exact = pf.read_run(path, system="sys")
    assert got.sort("qid", "docno").equals(exact.sort("qid", "docno"))


def test_temporary_partitions_are_removed(tmp_path, small_pieces):
    _, _, path = _shuffled(tmp_path)
    spill = tmp_path / "spill"
    spill.mkdir()
    blocks = partition.iter_partitioned_blocks(path, "sys", tmp_dir=str(spill))
    next(blocks)
    assert len(list(spill.iterdir())) == 1  # one folder of partitions while reading
    blocks.close()
    assert not list(spill.iterdir())


def test_a_duplicate_in_a_shuffled_file_names_its_lines(tmp_path, small_pieces):
    qrels, lines, path = _shuffled(tmp_path)
    lines.append(lines[10])
    path.write_text("".join(lines))
    with pytest.raises(pf.DuplicateError, match=f"line 11.*also on line.*{len(lines)}|line {len(lines)}"):
        pf.evaluate(path, qrels, ["AP"])


def test_a_bad_line_in_a_shuffled_file_is_named(tmp_path, small_pieces):
    qrels, lines, path = _shuffled(tmp_path)
    fields = lines[1234].split()
    lines[1234] = " ".join([*fields[:4], "high", fields[5]]) + "\n"
    path.write_text("".join(lines))
    with pytest.raises(pf.InputFormatError, match="line 1235, column 5: score 'high' is not a number"):
        pf.evaluate(path, qrels, ["AP"])


@pytest.mark.parametrize("tags", [["t"], ["t", "u", "v"]], ids=["one-tag", "three-tags"])
def test_a_duplicate_in_a_scattered_file_is_refused_in_the_exact_readers_words(tmp_path, small_pieces, tags):
    """The file read in pieces said "scatdup.txt, line 1: duplicate ..." where the exact reader says "run file
    scatdup.txt, line 1: ...", and named the run tags of the colliding lines only ("at least 't', 'u'")."""
    qrels, lines, _ = _shuffled(tmp_path)
    lines = [" ".join([*line.split()[:5], tags[i % len(tags)]]) + "\n" for i, line in enumerate(lines)]
    twin = lines[3].split()
    lines.append(" ".join([*twin[:5], tags[-1] if len(tags) > 1 else twin[5]]) + "\n")   # its query's lines scattered
    path = tmp_path / "scatdup.txt"
    path.write_text("".join(lines))
    with pytest.raises(stream.Interleaved):
        list(stream.iter_query_blocks(path, "sys"))
    with pytest.raises(pf.DuplicateError) as streamed:
        pf.evaluate(path, qrels, ["AP"])
    with pytest.raises(pf.DuplicateError) as whole:
        pf.read_run(path)
    assert str(streamed.value) == str(whole.value)
    assert str(whole.value).startswith(f"run file {path}, line 4: ")
    assert ("several run tags ('t', 'u', 'v')" in str(whole.value)) == (len(tags) > 1), whole.value
