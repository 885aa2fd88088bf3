"""Comparisons with fewer than 2 common queries, left out instead of refused -- for the report and table layers.

:func:`pairedframe.compare` is the statistical door and stays strict: a comparison with fewer than 2
queries both systems have a value for cannot be tested, so it raises
:class:`~pairedframe.errors.InsufficientSampleError`.  A results table or a report, though, shows many
comparisons, and one run with too few queries should not cost the others.  Inside
:func:`collecting_unpairable` the pairing step (:func:`pairedframe.comparison.pairing.pair_systems`)
leaves such comparisons out of the call -- so out of its Holm / BH family, which holds exactly the
comparisons tested -- and records them (``system``, key columns, ``measure``, ``baseline``,
``n_queries``) in the list the context manager yields; the caller says which were left out and why.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import polars as pl

from pairedframe.errors import InsufficientSampleError

__all__ = ["MIN_PAIRED", "NothingPairableError", "collecting_unpairable", "unpairable_sink", "leave_out_unpairable"]

#: The fewest common queries a paired test needs.
MIN_PAIRED = 2

_SINK: ContextVar[list[dict[str, Any]] | None] = ContextVar("pairedframe_unpairable", default=None)


class NothingPairableError(InsufficientSampleError):
    """Inside :func:`collecting_unpairable`: every comparison of the call had fewer than 2 common queries."""


@contextmanager
def collecting_unpairable() -> Iterator[list[dict[str, Any]]]:
    """Within the block, comparisons with fewer than :data:`MIN_PAIRED` common queries are left out of
    a :func:`pairedframe.compare` call and appended to the yielded list instead of raising; when none
    is left, the call raises :class:`NothingPairableError`."""
    sink: list[dict[str, Any]] = []
    token = _SINK.set(sink)
    try:
        yield sink
    finally:
        _SINK.reset(token)


def unpairable_sink() -> list[dict[str, Any]] | None:
    """The list of :func:`collecting_unpairable` when inside one, else None (compare refuses, as documented)."""
    return _SINK.get()


def leave_out_unpairable(rows: pl.DataFrame, paired: pl.DataFrame, keys: list[str], baseline: str,
                         absent: list[tuple[str, str]], sink: list[dict[str, Any]]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """``rows`` and ``paired`` (``pair_systems``' frames, ``_row`` numbered 0..k-1) without the comparisons
    pairing fewer than :data:`MIN_PAIRED` queries, renumbered; those and the ``absent`` (system, measure)
    with no values on one side are appended to ``sink``.  ``keys``: the key columns (``judgments``, ...)."""
    counts = rows.join(paired.group_by("_row").agg(pl.len().alias("_n")), on="_row", how="left").with_columns(
        pl.col("_n").fill_null(0))
    small = counts.filter(pl.col("_n") < MIN_PAIRED)
    for r in small.iter_rows(named=True):
        sink.append({"system": r["system"], **{k: r[k] for k in keys}, "measure": r["measure"],
                     "baseline": baseline, "n_queries": int(r["_n"])})
    sink.extend({"system": s, "measure": m, "baseline": baseline, "n_queries": 0} for s, m in absent)
    if small.height == rows.height and (small.height or absent):
        raise NothingPairableError(f"no comparison with the baseline {baseline!r} has {MIN_PAIRED} or more common "
                                   "queries")
    if not small.height:
        return rows, paired
    renumber = counts.filter(pl.col("_n") >= MIN_PAIRED).select("_row").with_row_index("_new")
    rows = rows.join(renumber, on="_row").sort("_row").with_columns(pl.col("_new").alias("_row")).drop("_new")
    paired = paired.join(renumber, on="_row").sort("_row", "qid").with_columns(pl.col("_new").alias("_row")).drop("_new")
    return rows, paired


def not_compared(per_query: pl.DataFrame | None, comparison: pl.DataFrame | None, pairs: list[tuple[str, str]],
                 measures: list[str]) -> list[dict[str, Any]]:
    """The (system, baseline, measure) of ``pairs`` x ``measures`` that ``comparison`` has no row for
    (either way round) and that have fewer than :data:`MIN_PAIRED` queries with a value for both systems
    in ``per_query`` (``system, qid, measure, value``): the comparisons a table shows without a mark
    because they could not be tested, each with its ``n_queries`` in common.  A pair left out of the
    comparison for another reason (the caller chose its systems) is not one of them."""
    if per_query is None or not pairs or not measures:
        return []
    done = set()
    if comparison is not None and comparison.height:
        for s, b, m in comparison.select("system", "baseline", "measure").iter_rows():
            done |= {(s, b, m), (b, s, m)}
    missing = [(s, b, m) for s, b in pairs for m in measures if (s, b, m) not in done]
    if not missing:                                  # the usual case: every meant comparison was made
        return []
    involved = {x for s, b, _ in missing for x in (s, b)}
    values = per_query.filter(pl.col("value").is_not_null() & pl.col("measure").is_in(measures)
                              & pl.col("system").is_in(list(involved)))
    qids = {key: set(group["qid"].to_list()) for key, group in values.group_by("system", "measure")}
    out = []
    for s, b, m in missing:
        n = len(qids.get((s, m), set()) & qids.get((b, m), set()))
        if n < MIN_PAIRED:
            out.append({"system": s, "baseline": b, "measure": m, "n_queries": n})
    return out


def describe_not_compared(left_out: list[dict[str, Any]], most: int = 5) -> str:
    """``one.txt vs bm25 on nDCG@10 (1 common query), ...``: the first ``most`` of them, and how many more."""
    def one(r: dict[str, Any]) -> str:
        n = r["n_queries"]
        common = "no common query" if n == 0 else f"{n} common quer{'y' if n == 1 else 'ies'}"
        keys = "".join(f", {k}={v}" for k, v in r.items() if k not in ("system", "baseline", "measure", "n_queries"))
        return f"{r['system']} vs {r['baseline']} on {r['measure']}{keys} ({common})"

    text = "; ".join(one(r) for r in left_out[:most])
    return text + (f"; and {len(left_out) - most} more" if len(left_out) > most else "")


def meant_pairs(systems: list[str], baselines: list[str], all_pairs: bool) -> list[tuple[str, str]]:
    """(system, baseline) of every comparison a table of ``systems`` means: every unordered pair once
    (``all_pairs``), else each system with each of ``baselines``, two baselines once (as compare)."""
    if all_pairs:
        return [(s, b) for i, b in enumerate(systems) for s in systems[i + 1:]]
    chosen = [b for b in baselines if b in systems]
    return [(s, b) for i, b in enumerate(chosen) for s in systems if s != b and s not in chosen[:i]]
