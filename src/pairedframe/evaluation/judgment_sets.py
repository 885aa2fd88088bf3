"""Runs evaluated under several judgment sets (e.g. LLM proxy and NIST gold), one table with a key column."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import polars as pl

from pairedframe.errors import EmptyResultError
from pairedframe.evaluation.pipeline import evaluate

def evaluate_judgment_sets(run: Any, judgments: Mapping[str, Any], measures: Any = "official",
                           **kwargs: Any) -> pl.DataFrame:
    """Evaluate runs under several qrels (e.g. proxy and gold), one per-query table with a key column.

    Parameters
    ----------
    run : path, list of paths, table or dict
        As :func:`pairedframe.evaluate`.
    judgments : mapping name -> qrels
        e.g. ``{"proxy": "llm_qrels.txt", "gold": "nist_qrels.txt"}``.
    measures : str or sequence
        As :func:`pairedframe.evaluate`.
    **kwargs
        Passed to :func:`pairedframe.evaluate` (``complete``, ``rel_level``, ``depth``, ...).

    Returns
    -------
    polars.DataFrame
        ``system, judgments, qid, measure, value``: one row per (system, judgment set, evaluated query,
        measure).  ``judgments`` holds the mapping's keys.  The ``judgments`` column is a key for
        :func:`pairedframe.compare` too (each judgment set is compared separately).

    Raises
    ------
    EmptyResultError
        A judgment set shares no judged query with the runs (the message names the set).

    Warns
    -----
    PartlyEmptyWarning, UserWarning
        As :func:`pairedframe.evaluate`, for each judgment set.

    Examples
    --------
    >>> pq = evaluate_judgment_sets(runs, {"proxy": llm, "gold": nist}, "nDCG@10")  # doctest: +SKIP
    """
    if not isinstance(judgments, Mapping) or not judgments:
        raise TypeError("`judgments` must be a non-empty mapping name -> qrels")
    parts = []
    for name, qrels in judgments.items():
        try:
            ev = evaluate(run, qrels, measures, **kwargs)
        except EmptyResultError as exc:  # say which judgment set is empty
            raise EmptyResultError(f"judgment set {name!r}: {exc}") from None
        parts.append(ev.per_query.select("system", pl.lit(str(name)).alias("judgments"), "qid", "measure",
                                         "value"))
    return pl.concat(parts)
