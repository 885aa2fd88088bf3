"""trec_eval's text format, byte for byte: ``%-22s\\t%s\\t%6.4f`` lines, counts as integers,
string-valued measures quoted; several runs each under a ``# run: NAME`` line."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import polars as pl

from pairedframe.errors import user_stacklevel
from pairedframe.measures import RUNID_NICKNAMES, Measure


def _is_ir_measures_measure(obj: Any) -> bool:
    """An ir_measures measure (``nDCG@10``); ir_measures is not imported for the check (an object of it
    means it already was)."""
    ir_base = sys.modules.get("ir_measures.measures.base")
    return ir_base is not None and isinstance(obj, ir_base.Measure)


def measures_argument(measures: Any) -> Any:
    """``measures`` as :func:`pairedframe.evaluate` takes it, an iterable read once into a list; None,
    another type or an empty iterable refused naming the argument (``[]`` once gave an empty evaluation
    silently; so did ``["runid"]`` alone: :func:`refuse_runid_alone`)."""
    example = "e.g. ['nDCG@10', 'AP'], or 'official' (the default: trec_eval's set)"
    if measures is None:
        raise TypeError(f"`measures` is None: pass measure names, {example}")
    if isinstance(measures, (str, Measure)):
        return measures                      # one name or Measure
    if _is_ir_measures_measure(measures):
        return [measures]                    # parse_measures takes it by name in a list
    if not isinstance(measures, Iterable) or isinstance(measures, Mapping):
        raise TypeError(f"`measures` must be a measure name or a list of them, {example}; "
                        f"got {type(measures).__name__}")
    items = list(measures)
    if not items:
        raise ValueError(f"`measures` is empty: name at least one measure, {example}")
    return items


def split_runid(measures: Any) -> tuple[Any, bool]:
    """``measures`` (as :func:`pairedframe.evaluate` takes them) without the name ``runid``, and whether
    trec_eval, given these names, prints the ``runid`` line: for its default set (``official``),
    another nickname (``all_trec``) or ``-m runid`` itself. ``[]`` left means runid alone."""
    if isinstance(measures, str):
        measures = [measures]
    if not isinstance(measures, Iterable):
        return measures, False
    items = list(measures)
    wanted = any(isinstance(m, str) and m.strip() in RUNID_NICKNAMES for m in items)
    return [m for m in items if not (isinstance(m, str) and m.strip() == "runid")], wanted


def refuse_runid_alone(measures: Any, said: str, fix: str) -> None:
    """ValueError when ``measures`` name ``runid`` and nothing else: trec_eval's runid line, no measure
    (pf.evaluate's tables were empty; the CLI's ``-m runid`` says it too, unless --format trec prints the line)."""
    items = [measures] if isinstance(measures, str) else measures
    if isinstance(items, list) and items and all(isinstance(m, str) and m.strip() == "runid" for m in items):
        raise ValueError(f"{said} names no measure, only trec_eval's runid line: {fix}")


def runid_only(ev: Any) -> Any:
    """An evaluation of ``-m runid`` alone (``--format trec``): its runs and tags, no measure; its
    ``to_trec()`` is trec_eval's runid lines."""
    return replace(ev, per_query=ev.per_query.clear(), measures=(), system_names=tuple(ev.systems),
                   trec_runid=True)


#: The line that starts each run's block when a text holds several runs (trec_eval prints one run).
RUN_HEADER = "# run: {system}\n"


def _line(name: str, qid: str, value: str) -> str:
    return f"{name:<22}\t{qid}\t{value}\n"


def _number(value: float, count: bool) -> str:
    """C's ``%ld`` of a count, ``%6.4f`` of a value."""
    return str(int(round(value))) if count else f"{value:6.4f}"


def format_trec(values: pl.DataFrame, summary: pl.DataFrame, measures: Sequence["Measure"], *,
                systems: Sequence[str], run_tags: Mapping[str, str] | None = None, per_query: bool = True,
                runids: Mapping[str, str] | None = None, runid: bool = True, text: pl.DataFrame | None = None,
                zscores: bool = False, num_rel_all: int | None = None, rel_level: int | None = None,
                judged_only: bool = False, summary_lines: bool = True) -> str:
    """Render like ``trec_eval [-q]``: per system, the per-query blocks (queries in byte order,
    measures in trec_eval's order) and then the ``all`` block (``runid`` first when ``runid``).

    ``values`` is the per-query table (``system, qid, measure, value``), ``summary`` its ``all``
    rows (``system, measure, value``) and ``text`` the string-valued measures (``system, qid,
    measure, text``), as :class:`pairedframe.evaluation.Evaluation` holds them.

    As trec_eval: ``num_q``, ``gm_map`` and ``gm_bpref`` are printed in the ``all`` block only,
    ``relstring`` per query only, quoted (``'0010-.'``). ``runids`` maps system -> the run's tag (trec_eval prints the tag); default: the tags
    read from the run files, else the system name. trec_eval prints ``runid`` with its default
    measure set, not with ``-m`` lists.

    Several runs: trec_eval evaluates one run per call, so each run's block is preceded by one line
    ``# run: NAME`` (the system name); the lines between two headers are byte for byte what
    ``trec_eval`` prints for that run, and ``grep -v '^# run: '`` gives the concatenation of the
    runs' trec_eval outputs. A single run has no header.

    ``zscores`` (values are z-scores): as ``trec_eval -Z``, every measure's name gets a ``Z`` in
    front and every value, counts included, prints as ``%6.4f`` (relstring and runid unchanged).
    ``num_rel_all``: the value of num_rel's ``all`` line (trec_eval under ``-c``: the judgments with a
    grade > 0, whatever ``-l``; see :attr:`pairedframe.Evaluation.trec_num_rel_all`).

    ``summary_lines=False`` leaves out the ``all`` block, ``runid`` included (trec_eval ``-n``).

    ``rel_level`` and ``judged_only`` are the evaluation's (trec_eval ``-l``, ``-J``): trec_eval's
    names carry neither, so a measure is printed under its trec_eval name only when its own level
    and judged_only are the evaluation's (``AP(rel=2)`` is ``map`` under ``-l 2`` only).

    Warns
    -----
    UserWarning
        A query named ``all`` (its lines read like the summary's; trec_eval prints them alike).

    Raises
    ------
    ValueError
        A measure trec_eval cannot print under these settings: its ``rel`` is not ``rel_level``, its
        ``judged_only`` not the call's, trec_eval has no name for a parameter
        (``nDCG(dcg='exp-log2')@10``, ``RBP(rel=2)``, ``RR@10``) or no such measure at all (``ERR@20``,
        ``Judged@10``, ``FirstRelRank``); or two measures share a trec_eval name.
    """
    measures = sorted(measures, key=lambda m: m.trec_sort_key)
    require_printable(measures, rel_level, judged_only)
    if per_query and values.height and (values["qid"] == "all").any():
        _warn_query_named_all()
    runids = {**(run_tags or {}), **(runids or {})}
    counts = set() if zscores else {m.name for m in measures if m.spec.aggregate == "sum"}
    z = "Z" if zscores else ""
    all_values = {(r["system"], r["measure"]): r["value"] for r in summary.iter_rows(named=True)}
    strings = {} if text is None else {(s, q, m): t for s, q, m, t in text.select(
        "system", "qid", "measure", "text").iter_rows()}
    out: list[str] = []
    for system in systems:
        if len(systems) > 1:
            out.append(RUN_HEADER.format(system=system))
        if per_query:
            rows = values.filter(pl.col("system") == system)
            cells = {(q, m): v for q, m, v in rows.select("qid", "measure", "value").iter_rows()}
            qids = set(rows["qid"].unique().to_list()) | {q for s, q, _ in strings if s == system}
            printed = [(m.name, m.trec_name, m.spec.value_kind == "text", m.name in counts) for m in measures
                       if m.spec.per_query_printed]
            for qid in sorted(qids, key=lambda q: q.encode()):
                for name, trec_name, is_text, count in printed:
                    if is_text:
                        out.append(_line(trec_name, qid, f"'{strings[(system, qid, name)]}'"))
                    else:
                        out.append(z + _line(trec_name, qid, _number(cells[(qid, name)], count)))
        if not summary_lines:
            continue
        if runid:
            out.append(_line("runid", "all", runids.get(system, system)))
        for m in measures:
            if m.spec.aggregate == "none":
                continue
            value = all_values[(system, m.name)]
            if num_rel_all is not None and m.family == "NumRel":
                value = float(num_rel_all)
            out.append(z + _line(m.trec_name, "all", _number(value, m.name in counts)))
    return "".join(out)


def _warn_query_named_all() -> None:
    """A query whose id is ``all`` prints per-query lines that read like the summary lines: trec_eval
    prints them the same way (this format is its bytes), so it is a warning, not an error."""
    warnings.warn("a query is named 'all': in trec_eval's format its per-query lines read like the summary lines "
                  "('all'), as trec_eval prints them too; the csv / json formats and Evaluation.per_query keep the "
                  "two apart (the summary column), or rename the query", UserWarning, stacklevel=user_stacklevel())


def require_printable(measures: Sequence["Measure"], rel_level: int | None, judged_only: bool) -> None:
    """Raise ValueError naming every measure trec_eval's format cannot print under ``rel_level`` and
    ``judged_only`` (:func:`unprintable`) and why, or two measures it would print under one name."""
    refused = [(m.name, why) for m in measures if (why := unprintable(m, rel_level, judged_only)) is not None]
    if len(refused) == 1:
        raise ValueError(f"{refused[0][0]} cannot be printed in trec_eval's format: {refused[0][1]}. Other formats "
                         "(table, csv, json, markdown) print it under its own name")
    if refused:
        raise ValueError(f"{len(refused)} measures cannot be printed in trec_eval's format: "
                         + "; ".join(f"{name} ({why})" for name, why in refused)
                         + ". Other formats (table, csv, json, markdown) print them under their own names")
    names: dict[str, str] = {}
    for m in measures:
        if m.trec_name in names:
            raise ValueError(f"{names[m.trec_name]} and {m.name} are both {m.trec_name!r} in trec_eval's "
                             f"format; evaluate them separately or use another format")
        names[m.trec_name] = m.name


def unprintable(m: "Measure", rel_level: int | None, judged_only: bool) -> str | None:
    """Why trec_eval's name of ``m`` would name another quantity under an evaluation at ``rel_level``
    (None: not checked) and ``judged_only`` (trec_eval ``-l``, ``-J``), or None when it names ``m``."""
    spec = m.spec
    if not spec.trec:
        return f"trec_eval 10 has no {m.family} measure"
    if not m.has_trec_name and m.cutoff is not None and not any(f.kind == "long_cutoffs" for f in spec.trec):
        return f"trec_eval's {spec.trec_name!r} takes no cutoff"
    if not m.has_trec_name:
        return "trec_eval has no name for its parameters"
    if spec.rel_rule == "optional" and m.rel is not None:
        return (f"trec_eval's {spec.trec_name!r} weighs every grade and has no name for rel={m.rel}; evaluate "
                f"{m.family} without rel=")
    if spec.rel_rule == "level" and rel_level is not None and m.rel is not None and m.rel != rel_level:
        return (f"trec_eval's {m.trec_name!r} is {m.family} at the evaluation's relevance level (trec_eval -l), "
                f"here {rel_level}, and {m.name} uses rel={m.rel}; evaluate it with rel_level={m.rel} "
                f"(trec_eval -l {m.rel})")
    if spec.ranking_based and m.judged_only != judged_only:
        if m.judged_only:
            return (f"it ranks judged documents only, which trec_eval names by -J, not in {m.trec_name!r}; "
                    "evaluate with `judged_only` set (trec_eval -J)")
        return (f"it ranks every document, and trec_eval under -J ranks judged ones only under {m.trec_name!r}; "
                "evaluate it without `judged_only` (trec_eval without -J)")
    return None
