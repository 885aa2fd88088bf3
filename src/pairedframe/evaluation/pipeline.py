"""``evaluate``: runs x qrels -> per-query measure values, exactly as trec_eval computes them."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import replace
from typing import Any, Literal

import polars as pl

from pairedframe.checks import (check_rel_level, check_system_name, near_miss_hint, near_miss_ids, near_miss_kind,
                                require_bool, require_each, sample, shown_pair)
from pairedframe.engines import EvalOptions, get_engine
from pairedframe.errors import PartlyEmptyWarning, SchemaError, user_stacklevel
from pairedframe.engines.base import Engine, check_kinds
from pairedframe.engines.ranking import JudgmentsByQuery
from pairedframe.evaluation.chunked import ChunkedEvaluation
from pairedframe.evaluation.docno_check import DocnoSample, warn_near_miss_docnos, warn_ranks_as_scores
from pairedframe.evaluation.judgments import (Reading, check_grades, clean_up_placeholders, num_rel_all,
                                              warn_levels_above_grades)
from pairedframe.evaluation.result import Evaluation, EvaluationSettings
from pairedframe.evaluation.run_blocks import RANK_THREADS, stream_run_file
from pairedframe.evaluation.trec_text import measures_argument, refuse_runid_alone, split_runid
from pairedframe.io.convert import as_run
from pairedframe.io.run_mappings import refuse_blank_run_names, run_mapping_layout, system_names_runs_error
from pairedframe.io.run_tag import RunTags
from pairedframe.io.detect import is_table_file
from pairedframe.io.grades import Grades, check_grades_option
from pairedframe.io.judgments import KIND, JudgmentsFormat, check_format, kind_of, plain_qrels
from pairedframe.io.stream import NotStreamable
from pairedframe.io.trec import read_run_tag, spooled, system_name_from_path
from pairedframe.measures import DEFAULT_REL_LEVEL, Measure, parse_measures
from pairedframe.measures.utility import warn_missing_collection_size

#: Judged ranks (plus ranking sizes) the engine evaluates at a time at most: the memory knob of the last step.
EVAL_RANK_ROWS = 2**19
#: Fewest judged ranks (plus ranking sizes) sent to the engine while it is idle: smaller chunks leave
#: less to evaluate after the reading, but each costs the engine's per-call work.
EVAL_MIN_ROWS = 2**15


def _retrieved_pairs(run: pl.DataFrame) -> pl.DataFrame:
    """Distinct (system, qid) of a run; categorical codes make this cheap on large runs."""
    return (run.select(pl.col("system").cast(pl.Categorical), pl.col("qid").cast(pl.Categorical))
            .unique().select(pl.col("system").cast(pl.String), pl.col("qid").cast(pl.String)))


#: Evaluation.excluded's reason for a query a run retrieved that the qrels do not judge (trec_eval's query-set rule).
UNJUDGED_REASON = "retrieved but not judged (no qrels)"


def _excluded(retrieved: pl.DataFrame, judged: pl.DataFrame, complete: bool) -> pl.DataFrame:
    """``Evaluation.excluded``: the (system, qid) pairs left out and why; ``judged`` is the qrels'
    distinct ``qid``."""
    unjudged = retrieved.join(judged, on="qid", how="anti").with_columns(pl.lit(UNJUDGED_REASON).alias("reason"))
    parts = [unjudged]
    if not complete:
        missing = (retrieved.select("system").unique().join(judged, how="cross")
                   .join(retrieved, on=["system", "qid"], how="anti")
                   .with_columns(pl.lit("judged but not retrieved (complete=True scores it 0)").alias("reason")))
        parts.append(missing)
    return pl.concat(parts).sort("system", "qid")


def _check_judged_overlap(retrieved: pl.DataFrame, judged_ids: pl.DataFrame, complete: bool) -> None:
    """Raise when no system retrieved a judged query (an empty result: e.g. a DL-2019 run against
    DL-2020 qrels), warn naming the systems that did not while others did. ``judged_ids``: the
    qrels' distinct ``qid`` (one row each)."""
    judged = judged_ids["qid"].sort()  # sorted: Spark's distinct ids come in no order, the message must not vary
    systems = retrieved["system"].unique().sort().to_list()
    judged_retrieved = retrieved.join(judged_ids, on="qid", how="semi")
    with_judged = judged_retrieved["system"].unique().to_list()
    if len(with_judged) == len(systems):
        if not complete:
            _warn_uneven_query_sets(judged_retrieved)
        return
    unjudged = retrieved.filter(~pl.col("system").is_in(with_judged))["qid"].unique().sort()
    # Ids spelled differently ('7' / '007') are the likelier cause than another collection: say so.
    near = near_miss_hint(unjudged.to_list(), judged.to_list(), of="the run", in_="the qrels")
    require_each(systems, with_judged, what="system", lacking="no judged query in common with the qrels",
                 consequence=("scored 0 on every judged query (complete=True)" if complete
                              else "left out of the result"),
                 hint=f"their queries {sample(unjudged.to_list(), 3)} are not in the qrels, whose queries "
                      f"are {sample(judged.to_list(), 3)}"
                      + (near or ": are run and qrels of the same collection and year?"))


def _warn_near_miss_ids(excluded: pl.DataFrame, judged: pl.DataFrame) -> None:
    """Warn when run queries that are not in the qrels equal qrels queries but for leading zeros, case,
    blanks or Unicode normalisation: ids are strings (``007`` is not ``7``), so they are left out as unjudged, which is rarely meant.
    ``excluded`` is :func:`_excluded`'s table (its unjudged rows are the anti-join, computed once);
    ``judged`` the qrels' distinct ``qid``."""
    unjudged = excluded.filter(pl.col("reason") == UNJUDGED_REASON)["qid"].unique().sort()
    if not unjudged.len():
        return
    near = near_miss_ids(unjudged.to_list(), judged["qid"].to_list())
    if near:
        pairs = ", ".join(shown_pair(a, b) for a, b in near[:3])
        warnings.warn(
            f"{len(near)} run query id(s) are not in the qrels but match qrels ids {near_miss_kind(near)} "
            f"({pairs}{', ...' if len(near) > 3 else ''}): ids are compared as strings, so those queries "
            "are left out as unjudged (Evaluation.excluded); rewrite the ids of one file to match the other",
            PartlyEmptyWarning, stacklevel=user_stacklevel())


def _warn_uneven_query_sets(judged_retrieved: pl.DataFrame) -> None:
    """Warn when some runs lack judged queries that other runs have: without ``complete`` their means
    are over fewer queries, so means side by side (a results table) are not over the same queries."""
    per_system = judged_retrieved.select("system", "qid").unique().group_by("system").agg(pl.col("qid"))
    union = judged_retrieved["qid"].unique()
    if per_system.height < 2:
        return
    short = [(s, sorted(set(union.to_list()) - set(q))) for s, q in per_system.sort("system").iter_rows()
             if len(q) < union.len()]
    if not short:
        return
    worst = max(short, key=lambda item: len(item[1]))
    warnings.warn(
        f"{len(short)} run(s) lack judged queries that other runs have, most {worst[0]!r}: no ranking for "
        f"{len(worst[1])} of {union.len()} ({sample(worst[1], 3)}); their means are over fewer queries than the "
        "others' (trec_eval's rule without -c), so means side by side are not over the same queries. "
        "complete=True (-c) scores a missing query 0; compare pairs only the queries both runs have",
        PartlyEmptyWarning, stacklevel=user_stacklevel())


def _run_paths(run: Any) -> list[str] | None:
    if isinstance(run, (str, os.PathLike)):
        return [os.fspath(run)]
    if isinstance(run, (list, tuple)) and run and all(isinstance(p, (str, os.PathLike)) for p in run):
        return [os.fspath(p) for p in run]
    if isinstance(run, Mapping) and run and all(isinstance(p, (str, os.PathLike)) for p in run.values()):
        return [os.fspath(p) for p in run.values()]  # {name: path}
    return None


def _check_system_names_one_run(run: Any, system: str | None) -> None:
    """``system=`` names a single run: several run files, or a mapping naming its runs, are an error (the name
    would otherwise be dropped without a word); so is a mapping's None or blank key (streamed files skip as_run)."""
    check_system_name(system)
    if run_mapping_layout(run) in ("named", "systems"):
        refuse_blank_run_names(run)
        if system is not None:
            raise SchemaError(system_names_runs_error(run, system))
    paths = _run_paths(run) or []
    if system is not None and len(paths) > 1:
        raise SchemaError(f"system={system!r} names a single run, but {len(paths)} run files were given; pass a "
                          "mapping {name: path} to name them (pf.evaluate({'bm25': path_a, 'dense': path_b}, qrels))")


def _run_names(run: Any, system: str | None, paths: list[str]) -> list[str]:
    """System names of run files: the keys of a {name: path} mapping, ``system`` for one file, or TREC's naming."""
    if isinstance(run, Mapping):
        return [str(name) for name in run]
    return [system] if system is not None and len(paths) == 1 else [system_name_from_path(p) for p in paths]


def evaluate_streaming(run: Any, system: str | None, qrels: list[Future], measures: list[Measure],
                       options: EvalOptions, engines: list[Engine], pool: ThreadPoolExecutor, stack: ExitStack
                       ) -> tuple[list[Future], pl.DataFrame, DocnoSample] | None:
    """Evaluate run files block by block of whole queries (bounded memory) under each judgment set of
    ``qrels`` (futures of the judgments read; each file is read once for all); None when a file
    cannot be streamed (the caller then reads it whole, and reports bad lines exactly).

    Each block is reduced to the ranks of its judged documents under each set and its ranking sizes,
    which are small, and the engine evaluates them in chunks (:data:`EVAL_RANK_ROWS`, shared by the
    sets) on one helper thread while the next blocks are read
    (:class:`~pairedframe.evaluation.chunked.ChunkedEvaluation`). ``pool``'s threads
    (:data:`~pairedframe.evaluation.run_blocks.RANK_THREADS`) check and rank blocks while the next ones
    are parsed (after reading the qrels). The values come as futures, one a set, evaluated by the
    engine of the same place of ``engines``: the engine's last chunk is still evaluated while the
    caller checks the inputs, and ``stack``, when it closes, waits for it. The third value is the
    first lines of each file, for :func:`warn_near_miss_docnos`."""
    paths = _run_paths(run)
    if paths is None or any(is_table_file(p, what="run") for p in paths):  # tables are read whole by as_run
        return None
    names = _run_names(run, system, paths)
    if len(set(names)) != len(names):
        return None  # read_run reports the clash
    sizes: list[pl.DataFrame] = []
    judgments = [pool.submit(lambda read=read: JudgmentsByQuery(read.result())) for read in qrels]
    # the engine's start-up (a DuckDB connection) overlaps the reading instead of following it
    warming: dict[int, Future] = {}
    for engine in engines:  # each engine once: a start-up is not thread-safe with another
        warming.setdefault(id(engine), pool.submit(getattr(engine, "warm_up", lambda: None)))
    warmed = [warming[id(engine)] for engine in engines]
    sample = DocnoSample()
    max_rows = max(EVAL_RANK_ROWS // len(qrels), 1)  # the sets share one chunk's memory
    with ExitStack() as evaluating:  # closed here when the file cannot stream, else handed to the caller
        helper = ThreadPoolExecutor(max_workers=1)  # one user of the engines at a time
        evaluating.callback(helper.shutdown, wait=True, cancel_futures=True)
        chunks = [evaluating.enter_context(ChunkedEvaluation(engine, measures, options, judged, ready, helper=helper,
                                                             max_rows=max_rows, min_rows=EVAL_MIN_ROWS))
                  for engine, judged, ready in zip(engines, judgments, warmed)]
        try:
            for path, name in zip(paths, names):
                sizes.extend(stream_run_file(path, name, sample, judgments, options, pool, chunks))
        except NotStreamable:
            return None
        retrieved = pl.concat(sizes)
        values = [chunk.finish(retrieved, read.result()) for chunk, read in zip(chunks, qrels)]
        stack.enter_context(evaluating.pop_all())
    return values, retrieved.select("system", "qid"), sample


def _run_tags(run: Any, system: str | None) -> Mapping[str, str]:
    """system -> tag of the last line, for runs given as file paths (trec_eval prints it as runid)."""
    paths = _run_paths(run)
    if not paths:
        return {}
    if any(is_table_file(p, what="run") for p in paths):  # a table has no tag column of trec_eval's kind
        return {}
    return RunTags(dict(zip(_run_names(run, system, paths), paths)), read_run_tag)  # read when printed


def evaluate(run: Any, qrels: Any, measures: str | Measure | Iterable[str | Measure] = "official", *,
             complete: bool = False, rel_level: int = DEFAULT_REL_LEVEL, depth: int | None = None,
             score_precision: Literal["float64", "float32"] = "float64",
             engine: Literal["polars", "duckdb", "spark"] | Engine = "polars", system: str | None = None,
             judgments_format: JudgmentsFormat = "qrels", judged_only: bool = False,
             grades: Grades = "strict") -> Evaluation:
    """Evaluate runs against qrels, per query, with trec_eval's semantics.

    Parameters
    ----------
    run : path, list of paths, mapping name -> path, table or dict
        One or more runs (see :func:`pairedframe.io.as_run`); a table may hold several systems.
        ``{"bm25": "a/run.txt", "rerank": "b/run.txt"}`` names run files (two files of the same
        name in different folders).
    qrels : path, table or dict
        Judgments (see :func:`pairedframe.io.as_qrels`). Negative grades mean "unjudged". With
        another ``judgments_format``: its file or table (:mod:`pairedframe.io.judgments`).
    measures : str, Measure or iterable
        Names in ir_measures style (``nDCG@10``, ``AP``, ``P@10``, ``R@100``, ``RR@10``,
        ``nDCG(dcg='exp-log2')@10``, ``Judged@10``, ``ERR@20``, ``RBP(p=0.8)``) or trec_eval style
        (``ndcg_cut_10``, ``map``, ``P.5,10``, ``utility.2,-1,0,0``); ``"official"`` (default) is
        trec_eval's default set, ``"all_trec"`` every trec_eval measure (see
        :func:`pairedframe.measures.parse_measure`). ``"runid"`` is trec_eval's ``-m runid``: it
        names no measure but makes :meth:`Evaluation.to_trec` print the ``runid`` line, as the
        default set and the other nicknames do (``["runid"]`` alone is refused: no measure).
    complete : bool, default False
        False: evaluate queries both retrieved and judged (trec_eval). True (trec_eval ``-c``):
        judged queries a system did not retrieve count with value 0 (num_rel keeps its count):
        trec_eval's placeholder ranking of one unjudged document, then its clean-up by name
        (``relstring_5`` is ``'-'``, ``utility_2,-1,0,0`` -1, as in trec_eval).
    rel_level : int, default 1
        Minimum grade counted as relevant (trec_eval ``-l``); a ``rel=`` in a measure name wins.
        nDCG uses the grades as gains and ignores the level, as trec_eval does.
    depth : int, optional
        Keep only the top ``depth`` documents of each ranking (trec_eval ``-M``).
    score_precision : {"float64", "float32"}
        "float64" compares scores as doubles (trec_eval 10); "float32" rounds them to 32-bit floats
        first, as trec_eval 9 and pytrec_eval did, so scores equal in float32 tie.
    engine : {"polars", "duckdb", "spark"} or engine instance
        All give the same values (within 1e-12). ``"polars"``, the default, evaluated a 7M-line run
        file in 0.9x the DuckDB engine's time and 0.85x its memory (``benchmarks/speed --section
        evaluate``, tools ``pairedframe`` and ``pairedframe-duckdb``). ``"spark"`` (``pip install "pairedframe[spark]"``)
        runs the same SQL on Spark: runs and qrels may then also be Spark DataFrames or table names,
        and paths are read by Spark; pass ``SparkEngine(spark)`` to use a given session
        (:mod:`pairedframe.engines.spark_engine`).
    system : str, optional
        Name of a single run given as a file, a table (a Spark DataFrame too: it names every row, replacing
        the table's own ``system`` column of one system -- several are refused; a table without one needs it),
        or a dict (pytrec_eval's ``{qid: {docno: score}}``; default for a dict: ``"run"``). With several run
        files, a ``{name: path or table}`` mapping or a ``{system: {qid: {docno: score}}}`` dict, it is
        a SchemaError (the mapping's keys name the runs; the message says which layout was read).
    judgments_format : {"qrels", "qrels_jg", "prefs", "qrels_prefs"}
        The layout of ``qrels`` (trec_eval ``-R``; :mod:`pairedframe.io.judgments`): qrels;
        qrels whose iteration column names a judgment group (for ``P_avgjg``, ``map_avgjg``,
        ``Rprec_mult_avgjg``: ``-m qrels_jg``); preference judgments, or qrels read as preferences
        (for the ``prefs_*`` measures: ``-m all_prefs``). num_q goes with any.
    judged_only : bool, default False
        trec_eval ``-J``: every measure whose value depends on the ranking drops the unjudged
        documents first (``judged_only=True`` in each measure name).
    grades : {"strict", "trec_eval"}
        How a qrels grade that is not an integer is read (see :func:`pairedframe.read_qrels`):
        refused, or as trec_eval reads it (``1.5`` -> 1), with one warning; a Spark DataFrame's
        grades are read so in Spark.

    Returns
    -------
    Evaluation
        ``per_query`` (``system, qid, measure, value``), ``summary()``, ``settings``, ``excluded``,
        ``text`` (string-valued measures such as relstring).

    Raises
    ------
    InputFormatError, DuplicateError, SchemaError
        Malformed input (see the readers).
    UnknownMeasureError
        A measure name that does not parse.
    EmptyResultError
        No run shares a judged query with the qrels (nothing to evaluate; also with ``complete=True``,
        where every value would be 0: a run and qrels of different collections or years).
    ValueError
        Bad option values, an empty ``measures``, or measures of another judgments format than
        ``judgments_format``.
    TypeError
        ``measures`` is None or not a name, Measure or iterable of them.

    Warns
    -----
    PartlyEmptyWarning
        Some runs share no judged query with the qrels (they are left out, or with ``complete=True``
        score 0 everywhere); or, without ``complete``, some runs lack judged queries that other runs
        have (their means are over fewer queries); or run query ids, or a run's docnos, are not in
        the qrels but match qrels ids / judged docnos except for case, blanks or leading zeros (a
        spelling mismatch that would otherwise score 0 silently); or a measure's relevance level is
        above every grade; or the qrels have no grade above 0 (no document is relevant, every measure
        of relevance is 0: the warning names the qrels file, dict or table).
    UserWarning
        Numeric id columns in a table, converted to strings (see :func:`pairedframe.io.as_run`); a
        utility measure with a nonzero fourth weight and no ``collection_size`` (its value is trec_eval's).

    Notes
    -----
    Ranking: score descending, then docno descending in byte order (trec_eval's rule); the rank
    column and the file order are ignored. A judged query without relevant documents scores 0
    on every ratio measure, never NaN.
    """
    resolved, trec_runid, eng, options, reading = _prepared(
        run, measures, complete=complete, rel_level=rel_level, depth=depth, score_precision=score_precision,
        engine=engine, system=system, judgments_format=judgments_format, judged_only=judged_only, grades=grades)
    if eng.name == "spark":  # files are read by Spark, where the data is: no local streaming
        # Spark DataFrames (and tables of the session) of qrels read grades="trec_eval" in Spark
        local = reading.local and not (reading.judgments_format == "qrels" and eng.in_spark(qrels))
        if local:  # judgments of another format: read by the local readers, a DataFrame collected for them
            qrels = reading.read(eng.collect(qrels, "qrels") if eng.in_spark(qrels) else qrels)
        ev = _evaluate_on_spark(run, qrels, resolved, options, eng, system=system, rel_level=rel_level,
                                reading=reading, judged_only=judged_only, local=local)
        return replace(ev, trec_runid=trec_runid)
    run_paths = _run_paths(run) or []
    qrels_paths = [qrels] if isinstance(qrels, (str, os.PathLike)) else []
    with spooled([*run_paths, *qrels_paths]) as readable:  # pipes are read once, into copies
        run = spooled_run(run, readable)
        if qrels_paths:
            qrels = readable[-1]
        ev = _evaluate(run, qrels, resolved, options, eng, system=system, rel_level=rel_level, reading=reading,
                       judged_only=judged_only)
    return replace(ev, trec_runid=trec_runid)


def spooled_run(run: Any, readable: list[str]) -> Any:
    """``run`` with its file paths replaced by their first ``len(paths)`` readable copies (:func:`spooled`)."""
    if not _run_paths(run):
        return run
    if isinstance(run, (str, os.PathLike)):
        return readable[0]
    return dict(zip(run, readable)) if isinstance(run, Mapping) else readable[:len(run)]


def _prepared(run: Any, measures: Any, *, complete: bool, rel_level: int, depth: int | None, score_precision: str,
              engine: Any, system: str | None, judgments_format: JudgmentsFormat, judged_only: bool, grades: Grades
              ) -> tuple[tuple[Measure, ...], bool, Engine, EvalOptions, Reading]:
    """:func:`evaluate`'s options checked: the resolved measures, whether ``runid`` was asked for, the
    engine, the options and how the judgments are read."""
    if score_precision not in ("float64", "float32"):
        raise ValueError(f"score_precision must be 'float64' or 'float32', got {score_precision!r}")
    if depth is not None and (not isinstance(depth, int) or isinstance(depth, bool) or depth < 1):
        raise ValueError(f"depth must be a positive integer or None, got {depth!r}")
    check_rel_level(rel_level)
    check_format(judgments_format)
    check_grades_option(grades)
    complete, judged_only = require_bool(complete, "complete"), require_bool(judged_only, "judged_only")
    _check_system_names_one_run(run, system)
    measures = measures_argument(measures)
    refuse_runid_alone(measures, f"`measures` {measures!r}", "add a measure, e.g. ['runid', 'map'] (to_trec() then "
                       "prints the runid line first)")
    names, trec_runid = split_runid(measures)
    resolved = tuple(dict.fromkeys(m.resolved(rel_level, judged_only) for m in parse_measures(names)))
    check_kinds(list(resolved), KIND[judgments_format])
    warn_missing_collection_size(resolved)
    eng = get_engine(engine)
    options = EvalOptions(complete=complete, depth=depth, score_precision=score_precision)
    return resolved, trec_runid, eng, options, Reading(judgments_format, grades)


def _evaluate(run: Any, qrels: Any, resolved: tuple[Measure, ...], options: EvalOptions, eng: Engine, *,
              system: str | None, rel_level: int, reading: Reading, judged_only: bool) -> Evaluation:
    with ExitStack() as stack:  # a streamed run's last chunk is evaluated while the inputs are checked
        return _evaluate_and_check(run, qrels, resolved, options, eng, system=system, rel_level=rel_level,
                                   reading=reading, judged_only=judged_only, stack=stack)


def _evaluate_and_check(run: Any, qrels: Any, resolved: tuple[Measure, ...], options: EvalOptions, eng: Engine, *,
                        system: str | None, rel_level: int, reading: Reading, judged_only: bool,
                        stack: ExitStack) -> Evaluation:
    with ThreadPoolExecutor(max_workers=RANK_THREADS) as pool:
        qrels_read, judged_ids = start_reading_qrels(qrels, reading, resolved, pool)
        streamed = evaluate_streaming(run, system, [qrels_read], list(resolved), options, [eng], pool, stack)
        judgments = qrels_read.result()
        judged = judged_ids.result()
    if streamed is not None:
        (evaluated,), retrieved, sample = streamed
    else:
        run_table = as_run(run, system=system)
        evaluated = Future()
        evaluated.set_result(eng.evaluate(run_table, judgments, list(resolved), options))
        retrieved = _retrieved_pairs(run_table)
        sample = DocnoSample.of_table(run_table)
    return checked_evaluation(run, system, judgments, judged, (evaluated, retrieved, sample), resolved, options,
                              eng, rel_level=rel_level, reading=reading, judged_only=judged_only, qrels_source=qrels)


def start_reading_qrels(qrels: Any, reading: Reading, resolved: tuple[Measure, ...], pool: ThreadPoolExecutor
                        ) -> tuple[Future, Future]:
    """The judgments read (a file on ``pool``, while a run file's first block is parsed) and their
    distinct ``qid``, as futures; measures that need a largest grade checked against them."""
    if isinstance(qrels, (str, os.PathLike)) and reading.grades == "strict":
        qrels_read = pool.submit(reading.read, qrels)
    else:  # tables (and grades read with a warning) convert here, so that warnings point at the caller
        qrels_read = Future()
        qrels_read.set_result(reading.read(qrels))
    if any(m.spec.max_grade is not None for m in resolved):
        check_grades(resolved, plain_qrels(qrels_read.result()))
    # the checks after the evaluation need the judged queries: a helper finds them during the reading
    judged_ids = pool.submit(lambda: plain_qrels(qrels_read.result()).select("qid").unique())
    return qrels_read, judged_ids


def checked_evaluation(run: Any, system: str | None, judgments: pl.DataFrame, judged: pl.DataFrame,
                       evaluated: tuple[Future, pl.DataFrame, DocnoSample], resolved: tuple[Measure, ...],
                       options: EvalOptions, eng: Engine, *, rel_level: int, reading: Reading,
                       judged_only: bool, qrels_source: Any = None) -> Evaluation:
    """The Evaluation of a run under one set of ``judgments`` (``judged``: their distinct ``qid``), from
    ``evaluated``: the values (a future), the retrieved (system, qid) and the docno sample; the inputs
    are checked (errors and warnings) before the values are waited for; ``qrels_source``, the qrels
    argument, is named in the warning for qrels without a relevant grade."""
    values_future, retrieved, sample = evaluated
    _check_judged_overlap(retrieved, judged, options.complete)
    excluded = _excluded(retrieved, judged, options.complete)
    _warn_near_miss_ids(excluded, judged)
    warn_near_miss_docnos(sample, plain_qrels(judgments))
    warn_ranks_as_scores(sample)
    if kind_of(judgments) != "prefs":
        warn_levels_above_grades(resolved, judgments, qrels_source)
    values = values_future.result()
    if options.complete:
        values = clean_up_placeholders(values, retrieved, resolved)
    per_query, text = _ordered_values(values, resolved)
    settings = EvaluationSettings(rel_level=rel_level, complete=options.complete, depth=options.depth,
                                  score_precision=options.score_precision, engine=eng.name,
                                  judged_only=judged_only, **reading.settings())
    return Evaluation(per_query=per_query, measures=resolved, settings=settings,
                      excluded=excluded, run_tags=_run_tags(run, system),
                      text=text, trec_num_rel_all=num_rel_all(judgments, options.complete))


def _evaluate_on_spark(run: Any, qrels: Any, resolved: tuple[Measure, ...], options: EvalOptions, eng: Any, *,
                       system: str | None, rel_level: int, reading: Reading, judged_only: bool,
                       local: bool) -> Evaluation:
    """evaluate() with engine="spark": inputs read or converted by Spark, the values and the facts the
    checks read collected in one evaluation (:meth:`~pairedframe.engines.spark_engine.SparkEngine.evaluate_inputs`);
    judgments read locally (``local``: ``qrels`` is their table) are sent to Spark as tables."""
    from pairedframe.evaluation.docno_check import SAMPLE_ROWS

    judgments = qrels if local else None
    if judgments is None and any(m.spec.max_grade is not None for m in resolved):  # refuse before the work
        check_grades(resolved, eng.top_grade(qrels, reading.grades))
    elif judgments is not None and "rel" in judgments.columns:
        check_grades(resolved, judgments)
    facts = eng.evaluate_inputs(run, qrels, list(resolved), options, system=system, sample_rows=SAMPLE_ROWS,
                                grades=reading.grades)
    graded = facts.top if judgments is None else judgments
    if "rel" in graded.columns:  # the checks read the largest grade (preferences have levels, not grades)
        check_grades(resolved, graded)
    # the checks and warnings of _evaluate, in its order: the same errors and warnings on every engine
    _check_judged_overlap(facts.retrieved, facts.judged, options.complete)
    values = facts.values
    if options.complete:
        values = clean_up_placeholders(values, facts.retrieved, resolved)
    excluded = _excluded(facts.retrieved, facts.judged, options.complete)
    _warn_near_miss_ids(excluded, facts.judged)
    sample = DocnoSample([facts.sample.sort("system", "qid", "docno")], partial=set(facts.partial))
    warn_near_miss_docnos(sample, facts.sample_qrels)
    if "rel" in graded.columns:
        warn_levels_above_grades(resolved, graded, qrels)
    per_query, text = _ordered_values(values, resolved)
    settings = EvaluationSettings(rel_level=rel_level, complete=options.complete, depth=options.depth,
                                  score_precision=options.score_precision, engine=eng.name,
                                  judged_only=judged_only, **reading.settings())
    paths = _run_paths(run) or []
    tags = _run_tags(run, system) if all(os.path.isfile(p) for p in paths) else {}
    positive = (facts.positive if judgments is None else num_rel_all(judgments, True)) if options.complete else None
    return Evaluation(per_query=per_query, measures=resolved, settings=settings,
                      excluded=excluded, run_tags=tags, text=text, trec_num_rel_all=positive)


def _ordered_values(values: pl.DataFrame, resolved: tuple[Measure, ...]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(per_query, text): an engine's values sorted by system, qid and the measures' order, split
    into numeric values and the string-valued measures' text."""
    order = {m.name: i for i, m in enumerate(resolved)}
    values = (values.with_columns(pl.col("measure").replace_strict(order, return_dtype=pl.Int64).alias("_o"))
              .sort("system", "qid", "_o").drop("_o"))
    textual = [m.name for m in resolved if m.spec.value_kind == "text"]
    return values.filter(~pl.col("measure").is_in(textual)).drop("text"), \
        values.filter(pl.col("measure").is_in(textual)).drop("value")
