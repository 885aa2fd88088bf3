"""One run file streamed into a chunked evaluation: its blocks of whole queries checked and ranked by
helper threads (see :func:`pairedframe.evaluation.pipeline.evaluate`), a scattered file partitioned by
query first, and a repeated (qid, docno) named in the exact reader's words without reading the file whole."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import polars as pl

from pairedframe.engines import EvalOptions
from pairedframe.engines.ranking import rank_judged
from pairedframe.evaluation.chunked import ChunkedEvaluation
from pairedframe.evaluation.docno_check import DocnoSample
from pairedframe.io.judgments import kind_of, plain_qrels
from pairedframe.io.partition import (bad_line_error, duplicate_error, first_duplicate, iter_partitioned_blocks,
                                      not_utf8_error)
from pairedframe.io.stream import (DuplicatePair, Interleaved, NotStreamable, NotUTF8, QueryBlock, Unreadable,
                                   checked_pairs, iter_query_blocks)

#: Helper threads that check and rank blocks (and read the qrels first); as many blocks wait for them at most.
#: Two keep both cores busy while a parse thread or the other helper waits.
RANK_THREADS = 2


def stream_run_file(path: str, name: str, sample: DocnoSample, judgments: list[Future], options: EvalOptions,
                    pool: ThreadPoolExecutor, chunks: list[ChunkedEvaluation]) -> list[pl.DataFrame]:
    """Rank run file ``path`` (system ``name``) block by block into ``chunks``; its ranking sizes.

    Each block is parsed and checked once and ranked against each judgment set of ``judgments`` into
    the ``chunks`` of the same place (several qrels: one reading of the file).

    A file whose queries' lines are scattered is partitioned by query first. A line the exact reader
    refuses, or a repeated (qid, docno), raises that reader's error, found in bounded memory
    (:func:`pairedframe.io.partition.bad_line_error`, :func:`~pairedframe.io.partition.duplicate_error`;
    a refused line comes first, as there), once the qrels are read: their error comes first, as when a
    run file is read whole (the qrels are read meanwhile, the run's error waits for them).

    Raises
    ------
    InputFormatError, DuplicateError
        A line the exact reader refuses; a (qid, docno) that repeats.
    NotStreamable
        A corrupt compressed file, a zstd file that is not UTF-8 text, an empty file: the caller reads it
        whole, which says so.
    """
    try:
        return _stream_run_file(path, name, sample, judgments, options, pool, chunks)
    except NotUTF8 as exc:  # the exact reader refuses the whole text before any line, naming the first bad one
        error = not_utf8_error(path, exc)
        if error is None:
            raise
    except Unreadable:
        raise
    except NotStreamable:
        error = bad_line_error(path)
        if error is None:
            raise
    _wait_for(judgments)
    raise error from None


def _wait_for(judgments: list[Future]) -> None:
    """Let the qrels' own errors come first, in the order given."""
    for read in judgments:
        read.result()


def _stream_run_file(path: str, name: str, sample: DocnoSample, judgments: list[Future], options: EvalOptions,
                     pool: ThreadPoolExecutor, chunks: list[ChunkedEvaluation]) -> list[pl.DataFrame]:
    sampled = len(sample.parts)
    blocks = sample.first_rows(iter_query_blocks(path, name))
    # DuplicatePair and Interleaved are control flow: the errors raised after them (the qrels' first) run
    # outside their handlers, so are not chained to them
    try:
        try:
            return ranked_blocks(blocks, name, judgments, options, pool, chunks)
        except DuplicatePair as dup:
            pair = dup.qid, dup.docno
        for _ in blocks:  # the rest is parsed, not ranked: a bad line or scattered query there decides
            pass
        interleaved = False
    except Interleaved:  # a query's lines are scattered: partition the file by query first
        interleaved = True
    if not interleaved:
        # blocks hold whole queries in file order: the first repeat met is on the first repeated line
        error = duplicate_error(path, *pair)
    else:
        del sample.parts[sampled:]
        for chunk in chunks:
            chunk.drop(name)
        try:
            return ranked_blocks(sample.first_rows(iter_partitioned_blocks(path, name)), name, judgments, options,
                                 pool, chunks)
        except DuplicatePair as dup:  # partitions come in no line order: the first repeated line is looked for
            pair = dup.qid, dup.docno
        error = duplicate_error(path, *(first_duplicate(path) or pair))
    _wait_for(judgments)
    raise error


def ranked_blocks(blocks: Iterator[QueryBlock], name: str, judgments: list[Future], options: EvalOptions,
                  pool: ThreadPoolExecutor, chunks: list[ChunkedEvaluation]) -> list[pl.DataFrame]:
    """Rank every block of run ``name`` and hand the ranks to ``chunks``; the ranking sizes, in block
    order. The helpers rank blocks while the next ones are read."""
    sizes = []
    pending: deque[Future] = deque()  # at most RANK_THREADS blocks wait for the helpers: bounded memory

    def take() -> None:
        ranks_per_set, block_sizes = pending.popleft().result()
        for chunk, ranks in zip(chunks, ranks_per_set):
            chunk.add(name, ranks, block_sizes)
        sizes.append(block_sizes)

    try:
        for block in blocks:
            pending.append(pool.submit(rank_block, block, judgments, options.score_precision))
            while len(pending) > RANK_THREADS:
                take()
        while pending:
            take()
    finally:
        for future in pending:
            future.cancel()
    return sizes


def rank_block(block: QueryBlock, judgments: list[Future], score_precision: str
               ) -> tuple[list[pl.DataFrame], pl.DataFrame]:
    """The ranks of a block's judged documents under each judgment set and its ranking sizes, after
    checking that no pair repeats."""
    pairs = checked_pairs(block)
    qids = block.run["qid"].gather(block.starts).to_list()
    ranks, sizes = [], None
    for read in judgments:
        qrels = read.result().of(qids)
        judged, sizes = rank_judged(block.run, plain_qrels(qrels), score_precision=score_precision,
                                    group_starts=block.starts, pairs=pairs, docno_descending=kind_of(qrels) != "prefs")
        ranks.append(judged)
    return ranks, sizes
