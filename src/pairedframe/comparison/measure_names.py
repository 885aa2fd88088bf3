"""The measures a comparison's ``measures=`` names in a per-query table: each name as the table spells it.

A name the table lacks is read as :func:`pairedframe.evaluate` reads it: one that spells a measure of the
table another way (trec_eval's ``map``, ``P.5``, ``ndcg_cut_10``; an alias) is that measure, and one that names
several (a trec_eval family named bare, ``P``; several cutoffs, ``P.5,10``; a set, ``official``) stands for those
of them the evaluation of every name together computes -- trec_eval's rule (:func:`~pairedframe.measures.
parse_measures`): ``["P", "P.5"]`` is P@5 alone, as ``pairedframe compare -m P -m P.5`` compares it.  A name
of one measure stays that measure, whatever the rule: ``["P.5", "P.10"]`` compares both when the table holds
both (the CLI evaluates P@5 alone there, so its compare has no P@10).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import polars as pl

from pairedframe.errors import DuplicateError, PartlyEmptyWarning, user_stacklevel
from pairedframe.measures import parse_measure, parse_measures
from pairedframe.measures.parse import aggregate_of, ranks_runs, run_independent

__all__ = ["is_comparable", "one_name_per_measure", "table_measure_names"]


def is_comparable(measure: str) -> bool:
    """Whether :func:`~pairedframe.comparison.pairing.comparable_measures` keeps ``measure`` (a measure of the
    rankings summarised by its mean)."""
    return ranks_runs(measure) and not run_independent(measure) and aggregate_of(measure) != "gmean"


def _quietly(parse: Any, names: Any) -> list:
    """``parse(names)``, [] for a name that is no measure; the parsers' notes belong to evaluate, not here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return parse(names)
        except (ValueError, TypeError):
            return []


def _measure_of(name: Any) -> str | None:
    """The name :func:`~pairedframe.measures.parse_measure` gives the one measure ``name`` spells (``map`` ->
    ``AP``, ``P_10`` -> ``P@10``); None for a name of no measure or of several (``P``)."""
    parsed = _quietly(parse_measure, name) if isinstance(name, str) else []
    return parsed[0].name if len(parsed) == 1 else None


def one_name_per_measure(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` (``system, qid, measure, value``) with each measure under one name, so that its rows pair:
    when one measure is spelled two ways in the table (``map`` from a trec_eval -q file beside ``AP`` from
    pairedframe), its rows take pairedframe's name (``AP``); a measure spelled one way keeps that spelling.

    Raises
    ------
    DuplicateError
        One system (under the same key columns, e.g. ``dataset``) holds a measure under two spellings (its
        values twice), naming both."""
    spellings: dict[str, list[str]] = {}
    for name in frame["measure"].unique(maintain_order=True).to_list():
        measure = _measure_of(name)
        if measure is not None:
            spellings.setdefault(measure, []).append(name)
    renamed = {name: measure for measure, names in spellings.items() if len(names) > 1 for name in names}
    if not renamed:
        return frame
    keys = [c for c in frame.columns if c not in ("system", "qid", "measure", "value")]  # dataset, ...
    twice = (frame.filter(pl.col("measure").is_in(list(renamed)))
             .group_by("system", *keys, pl.col("measure").replace(renamed).alias("one"))
             .agg(pl.col("measure").unique().sort()).filter(pl.col("measure").list.len() > 1))
    if twice.height:
        system, one, names = twice.sort("system", "one").select("system", "one", "measure").row(0)
        raise DuplicateError(f"system {system!r} holds the measure {one} under two spellings, {' and '.join(map(repr, names))} "
                             "(trec_eval's and pairedframe's names of one measure, so its values twice): keep one of them")
    return frame.with_columns(pl.col("measure").replace(renamed))


def table_measure_names(requested: str | Sequence[str] | None, available: Sequence[str]) -> list[str] | None:
    """``requested`` with each name the table lacks read as :func:`pairedframe.evaluate` reads it (module
    docstring): the table's name of the measure it spells, or the table's names of the measures it stands for.
    Those of a family or set that a paired comparison cannot test (NumQ, NumRet, GMAP) are left out with a
    warning, as the CLI's ``compare -m official`` does; those trec_eval's rule drops (``P`` beside ``P.5``)
    with a warning naming them.  Names matching nothing are returned as given, for the caller's error."""
    if requested is None:
        return None
    names = [requested] if isinstance(requested, str) else list(requested)
    present = set(available)
    spelled = {_measure_of(name): name for name in available}   # the table's spelling of each measure
    in_table = {**spelled, **{name: name for name in available}}
    evaluated = set(_quietly(parse_measures, names))
    out: list[Any] = []
    untestable: list[str] = []
    dropped: dict[str, list[str]] = {}
    for name in names:
        parsed = _quietly(parse_measure, name) if isinstance(name, str) and name not in present else []
        members = [in_table[m.name] for m in parsed if m.name in in_table]
        if len(parsed) == 1 and members:
            out.extend(members)
        elif len(parsed) > 1 and members:
            kept = [in_table[m.name] for m in parsed if m in evaluated and m.name in in_table]
            dropped[name] = [m for m in members if m not in kept]
            testable = [m for m in kept if is_comparable(m)]
            untestable += [m for m in kept if m not in testable]
            out.extend(testable or kept)      # none testable: comparable_measures refuses them by name
        else:
            out.append(name)
    _warn_left_out(untestable, {k: v for k, v in dropped.items() if v})
    return list(dict.fromkeys(out))


def _warn_left_out(untestable: list[str], dropped: dict[str, list[str]]) -> None:
    if untestable:
        warnings.warn(f"`measures`: left out of the comparison: {', '.join(dict.fromkeys(untestable))} (of a measure "
                      "set: measures of the judgments alone, what describes a run's output (its counts, how much "
                      "of it is judged) and geometric means are "
                      "no paired hypothesis)", PartlyEmptyWarning, stacklevel=user_stacklevel())
    for name, left in dropped.items():
        warnings.warn(f"`measures`: {name!r} stands for what trec_eval evaluates of it beside the other names (a "
                      f"family named bare and with parameters, or twice, is evaluated once, with the first "
                      f"parameters), so {', '.join(left)} of the table are not compared; name them one by one "
                      f"(e.g. {left[0]!r}) to compare them", PartlyEmptyWarning, stacklevel=user_stacklevel())
