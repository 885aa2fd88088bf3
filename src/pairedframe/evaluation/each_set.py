"""Runs evaluated under several judgment sets, each run file read once for all of them (see
:func:`pairedframe.evaluate_judgment_sets`)."""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, ExitStack
from dataclasses import replace
from typing import Any

from pairedframe.evaluation.pipeline import (_prepared, _run_names, _run_paths, checked_evaluation, evaluate,
                                             evaluate_streaming, spooled_run, start_reading_qrels)
from pairedframe.evaluation.result import Evaluation
from pairedframe.evaluation.run_blocks import RANK_THREADS
from pairedframe.io.detect import is_table_file
from pairedframe.io.trec import spooled

#: A context for the work of one judgment set, by its name (its warnings, and errors, are about that set).
OnSet = Callable[[Any], AbstractContextManager]


def evaluate_each(run: Any, judgments: Mapping[Any, Any], measures: Any, on_set: OnSet,
                  **kwargs: Any) -> dict[Any, Evaluation]:
    """:func:`pairedframe.evaluate` of ``run`` under each judgment set, by name, in the order given.

    Run files are streamed once: each block is ranked against every set and each set's ranks are
    evaluated in chunks that share one chunk's memory, so the cost of the reading does not grow with
    the number of sets. Tables, dicts, Spark and files that cannot stream are evaluated set by set.
    The work of a set happens inside ``on_set(name)``; a set whose context swallows its error (e.g.
    an EmptyResultError) has no entry in the result.
    """
    bound = inspect.signature(evaluate).bind(run, None, measures, **kwargs)
    bound.apply_defaults()
    options = {k: v for k, v in bound.arguments.items() if k not in ("run", "qrels", "measures")}
    if _streamable(run, options["system"], options["engine"]):
        with ExitStack() as stack:  # the last chunks are evaluated while each set's inputs are checked
            shared = _evaluate_streamed(run, judgments, measures, on_set, options, stack)
            if shared is not None:
                return shared
    results = {}
    for name, qrels in judgments.items():
        with on_set(name):
            results[name] = evaluate(run, qrels, measures, **kwargs)
    return results


def _streamable(run: Any, system: str | None, engine: Any) -> bool:
    """Whether ``run`` is run files that may stream on a local engine (else each set reads it whole)."""
    paths = _run_paths(run)
    if getattr(engine, "name", engine) == "spark" or paths is None:
        return False
    if any(is_table_file(p, what="run") for p in paths):
        return False
    names = _run_names(run, system, paths)
    return len(set(names)) == len(names)  # else read_run names the clash


def _evaluate_streamed(run: Any, judgments: Mapping[Any, Any], measures: Any, on_set: OnSet,
                       options: dict[str, Any], stack: ExitStack) -> dict[Any, Evaluation] | None:
    """The evaluations of :func:`evaluate_each` from one reading of the run files; None when a file
    does not stream (the caller evaluates set by set, reading it whole, which names what is wrong)."""
    system = options["system"]
    prepared = {}
    for name in judgments:  # each set's option warnings (as evaluate's) are about that set
        with on_set(name):
            prepared[name] = _prepared(run, measures, **options)
    if len(prepared) < len(judgments):
        return None
    resolved, trec_runid, engine, eval_options, reading = next(iter(prepared.values()))
    qrels_paths = [q for q in judgments.values() if isinstance(q, (str, os.PathLike))]
    readable = stack.enter_context(spooled([*_run_paths(run), *qrels_paths]))  # pipes are read once
    run = spooled_run(run, readable)
    copies = iter(readable[len(readable) - len(qrels_paths):])
    qrels = {name: next(copies) if isinstance(q, (str, os.PathLike)) else q for name, q in judgments.items()}
    started = {}
    with ThreadPoolExecutor(max_workers=RANK_THREADS) as pool:
        for name, judged in qrels.items():
            with on_set(name):
                started[name] = start_reading_qrels(judged, reading, resolved, pool)
        streamed = evaluate_streaming(run, system, [read for read, _ in started.values()], list(resolved),
                                      eval_options, [engine] * len(started), pool, stack)
        read = {name: (table.result(), ids.result()) for name, (table, ids) in started.items()}
    if streamed is None:
        return None
    values, retrieved, sample = streamed
    results = {}
    for (name, (table, ids)), evaluated in zip(read.items(), values):
        with on_set(name):
            ev = checked_evaluation(run, system, table, ids, (evaluated, retrieved, sample), resolved, eval_options,
                                    engine, rel_level=options["rel_level"], reading=reading,
                                    judged_only=options["judged_only"], qrels_source=judgments[name])
            results[name] = replace(ev, trec_runid=trec_runid)
    return results
