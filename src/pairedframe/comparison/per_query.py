"""Per-query views of paired comparisons: every query's delta (:func:`paired_per_query`) and the queries a
system loses most on (:func:`worst_queries`), with the pairing of :func:`pairedframe.compare`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from pairedframe.comparison.pairing import pair_systems
from pairedframe.measures import higher_is_better

__all__ = ["gain_expr", "paired_per_query", "worst_queries"]


def gain_expr(paired: pl.DataFrame) -> pl.Expr:
    """``delta`` signed so that positive is an improvement: negated for measures where lower values
    are better (ranks such as FirstRelRank; :func:`pairedframe.measures.higher_is_better`)."""
    lower = [m for m in paired["measure"].unique().to_list() if not higher_is_better(m)]
    return pl.when(pl.col("measure").is_in(lower)).then(-pl.col("delta")).otherwise(pl.col("delta"))


def paired_per_query(data: Any, *, baseline: str, systems: Sequence[str] | str | None = None,
                     measures: Sequence[str] | str | None = None) -> pl.DataFrame:
    """Per-query view of paired comparisons against a baseline.

    Parameters
    ----------
    data : Evaluation, table or path
        An :class:`~pairedframe.evaluation.Evaluation` or a per-query table with columns
        ``system, qid, measure, value`` (polars, pandas, arrow or a DuckDB relation); any other
        column is a key carried through (e.g. ``dataset``).  Null values mean "not measured".
        A path (or list of paths) is read with :func:`pairedframe.read_results`.
    baseline : str
        The system ``a`` of every pair.
    systems : str or sequence of str, optional
        Systems ``b`` (default: every system except the baseline, in order of appearance).
    measures : str or sequence of str, optional
        Measures to keep (default: all, in order of appearance).

    Returns
    -------
    polars.DataFrame
        ``system, <extra keys>, measure, qid, a, b, delta``: one row per (system, keys, measure, query
        measured for both the system and the baseline), ``delta = b - a``; sorted by system (given
        order), keys, measure (given order) and qid (code-point order).

    Raises
    ------
    SchemaError
        If a required column is missing, ``value`` is not numeric, or an id is null or a float
        (names the column). A column no measured row fills (all null, or relstring's ``text``) is
        not a key and is dropped.
    DuplicateError
        If a (system, keys, measure, qid) appears twice.
    EmptyResultError
        Names that match nothing, an empty table, or a comparison with no common query.
    ValueError
        Non-finite values.

    Warns
    -----
    UserWarning
        trec_eval's summary rows are dropped: rows flagged in a ``summary`` column, or, in a table without
        one, rows with ``qid == "all"`` that look like a summary (docs/guide/inputs.md; an Evaluation's
        query ``all`` stays).
    """
    p = pair_systems(data, baseline, systems, measures)
    return p.paired.drop("_row")


def worst_queries(data: Any, *, baseline: str, k: int = 5, systems: Sequence[str] | str | None = None,
                  measures: Sequence[str] | str | None = None) -> pl.DataFrame:
    """The ``k`` queries on which each system lost most against the baseline.

    Parameters
    ----------
    data, baseline, systems, measures
        As :func:`paired_per_query`.
    k : int, default 5
        Queries per (system, keys, measure); only losses are listed (``delta < 0``; ``delta > 0`` for
        measures where lower is better, such as FirstRelRank).

    Returns
    -------
    polars.DataFrame
        ``system, <extra keys>, measure, rank, qid, a, b, delta``: at most ``k`` rows per comparison,
        ``rank`` 1 = largest loss; ties in delta are ordered by qid.  A comparison without losses
        has no row (an empty table when no system lost anywhere).

    Raises
    ------
    EmptyResultError, SchemaError, DuplicateError, ValueError
        As :func:`paired_per_query`.

    Warns
    -----
    UserWarning
        As :func:`paired_per_query`.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"`k` must be a positive integer, got {k!r}")
    p = pair_systems(data, baseline, systems, measures)
    return (p.paired.with_columns(gain_expr(p.paired).alias("_gain")).filter(pl.col("_gain") < 0)
            .sort("_row", "_gain", "qid")
            .with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("_row").alias("rank"))
            .filter(pl.col("rank") <= k)
            .select("system", *p.extras, "measure", "rank", "qid", "a", "b", "delta"))
