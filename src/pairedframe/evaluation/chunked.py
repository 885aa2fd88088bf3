"""The engine's values of a streamed run's ranked blocks, evaluated in chunks on a helper thread
while the next blocks are read (see :func:`pairedframe.evaluation.pipeline.evaluate`)."""

from __future__ import annotations

import contextlib
import dataclasses
from concurrent.futures import Future, ThreadPoolExecutor

import polars as pl

from pairedframe.engines import EvalOptions
from pairedframe.engines.base import RESULT_SCHEMA, Engine
from pairedframe.engines.ranking import RANKS_SCHEMA, JudgmentsByQuery
from pairedframe.measures import Measure


@dataclasses.dataclass
class _Sent:
    """A chunk handed to the helper, and the systems whose rows in it are void (a file read again)."""

    values: Future
    void: set[str] = dataclasses.field(default_factory=set)


class ChunkedEvaluation:
    """Evaluate ranked blocks on one helper thread, in chunks, while the caller reads on.

    An engine's temporary tables grow with its input (DuckDB's by ~400 bytes a rank) and a query's
    value depends on its own rows only, so chunks bound the memory and give the same values; one
    helper keeps one user of the engine's connection at a time. Use as a context manager: leaving
    waits for the helper.

    Parameters
    ----------
    engine : Engine
        Evaluates each chunk (:meth:`~pairedframe.engines.base.Engine.evaluate_ranked`); one that
        has ``one_thread()`` evaluates inside it (the reading keeps the other cores busy), but for
        the chunk :meth:`finish` sends.
    measures : list of Measure
        Resolved measures.
    options : EvalOptions
        With ``complete``, :meth:`finish` adds the placeholder rankings trec_eval -c scores.
    judgments, warmed : concurrent.futures.Future
        The qrels grouped by query (:class:`~pairedframe.engines.ranking.JudgmentsByQuery`) and the
        engine's start-up: the helper waits for them.
    max_rows : int
        Judged ranks plus ranking sizes of a chunk, at most (about: whole blocks).
    min_rows : int
        A chunk this large goes as soon as the helper is idle, so that little is left to evaluate
        when the reading ends.
    helper : ThreadPoolExecutor, optional
        A one-thread executor shared by the evaluations of several judgment sets (one user of the
        engine at a time); its owner shuts it down. By default each has its own.
    """

    def __init__(self, engine: Engine, measures: list[Measure], options: EvalOptions, judgments: Future,
                 warmed: Future, *, max_rows: int, min_rows: int, helper: ThreadPoolExecutor | None = None) -> None:
        # complete=True is handled by finish()'s placeholder rankings, so each chunk is evaluated without it
        self._engine, self._measures = engine, measures
        self._complete = options.complete
        self._options = dataclasses.replace(options, complete=False)
        self._judgments, self._warmed = judgments, warmed
        self._max_rows, self._min_rows = max_rows, min_rows
        self._own_pool = helper is None
        self._pool = ThreadPoolExecutor(max_workers=1) if helper is None else helper
        self._chunk: list[tuple[str, pl.DataFrame, pl.DataFrame]] = []
        self._rows = 0
        self._sent: list[_Sent] = []
        self._empty_ranks: pl.DataFrame | None = None

    def __enter__(self) -> ChunkedEvaluation:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._own_pool:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def add(self, system: str, ranks: pl.DataFrame, sizes: pl.DataFrame) -> None:
        """One ranked block of ``system``'s run."""
        if self._empty_ranks is None:
            self._empty_ranks = ranks.clear()
        self._chunk.append((system, ranks, sizes))
        self._rows += ranks.height + sizes.height
        if self._rows >= self._max_rows or (self._rows >= self._min_rows and self._idle()):
            self._send()

    def drop(self, system: str) -> None:
        """Forget the blocks of ``system`` added so far (its file is read again another way)."""
        self._chunk = [item for item in self._chunk if item[0] != system]
        self._rows = sum(r.height + s.height for _, r, s in self._chunk)
        for sent in self._sent:
            sent.void.add(system)

    def finish(self, retrieved: pl.DataFrame, qrels: pl.DataFrame) -> Future:
        """All values, as a future: the helper evaluates the last chunk while the caller goes on (with
        checks that need no values); leaving the context waits for it. ``retrieved`` (``system, qid,
        n``) is every ranking added. With ``complete`` the pairs no run retrieved are added as rankings
        of one unjudged document (the placeholder trec_eval -c scores), so that no chunk needs the
        cross join of systems and judged queries."""
        if self._complete:
            missing = (retrieved.select("system").unique().join(qrels.select("qid").unique(), how="cross")
                       .join(retrieved, on=["system", "qid"], how="anti")
                       .select("system", "qid", pl.lit(1, dtype=retrieved.schema["n"]).alias("n")))
            empty = self._empty_ranks if self._empty_ranks is not None else pl.DataFrame(schema=RANKS_SCHEMA)
            for i in range(0, missing.height, self._max_rows):
                self.add("", empty, missing.slice(i, self._max_rows))
        self._send(last=True)
        return self._pool.submit(_collect, list(self._sent))  # one helper: runs after the last chunk

    def _idle(self) -> bool:
        return not self._sent or self._sent[-1].values.done()

    def _send(self, last: bool = False) -> None:
        if not self._chunk:
            return
        chunk, self._chunk, self._rows = self._chunk, [], 0
        if not last:  # memory stays bounded: one chunk evaluated, at most one waiting (the last one queued)
            for sent in self._sent:
                sent.values.result()
        self._sent.append(_Sent(self._pool.submit(self._evaluate, [r for _, r, _ in chunk],
                                                  [s for _, _, s in chunk], last)))

    def _evaluate(self, ranks: list[pl.DataFrame], sizes: list[pl.DataFrame], last: bool) -> pl.DataFrame:
        self._warmed.result()
        sizes_all = pl.concat(sizes)
        judgments: JudgmentsByQuery = self._judgments.result()
        own = judgments.of(sizes_all["qid"].unique().to_list())
        # while the file is read the reading keeps the cores busy: an engine that can evaluates on one
        # thread meanwhile; the last chunk, after the reading, has the cores to itself
        one_thread = contextlib.nullcontext if last else getattr(self._engine, "one_thread", contextlib.nullcontext)
        with one_thread():
            return self._engine.evaluate_ranked(pl.concat(ranks), sizes_all, own, self._measures, self._options)


def _collect(sent: list[_Sent]) -> pl.DataFrame:
    """The values of every chunk, without the rows of systems voided after it was sent."""
    parts = []
    for chunk in sent:
        values = chunk.values.result()
        parts.append(values.filter(~pl.col("system").is_in(list(chunk.void))) if chunk.void else values)
    return pl.concat(parts) if parts else pl.DataFrame(schema=RESULT_SCHEMA)
