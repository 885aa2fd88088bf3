"""The ideal ranking of a query's judged documents and the C log2 of ranks both engines read.

Kept apart from :mod:`pairedframe.measures.polars_exprs` because :class:`~pairedframe.measures.base.PolarsContext`
builds ideal rankings and ``polars_exprs`` imports ``base``: this module imports no other measures module.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

__all__ = ["ideal_ranking", "log2_of_ranks"]

_LOG2 = np.zeros(2, dtype=np.float64)


def log2_of_ranks(ranks: np.ndarray) -> np.ndarray:
    """log2(r) for integer ranks r >= 1 via C's log2 (``math.log2``), the function DuckDB and trec_eval
    call: polars' own logarithm differs in the last bit for about a third of integers, which would
    make the two engines disagree by 1e-16 and a comparison of a run with itself non-zero."""
    global _LOG2
    top = int(ranks.max(initial=1))
    if top >= len(_LOG2):
        _LOG2 = np.array([0.0] + [math.log2(i) for i in range(1, 2 * top + 2)])
    return _LOG2[ranks]


def ideal_ranking(judgments: pl.LazyFrame, explicit: dict[int, float] | None, *, exp: bool) -> pl.LazyFrame:
    """qid, irank, gain, log2_irank1: positive gains of the judged documents, descending (prep_ideal.sql)."""
    rel = pl.col("rel")
    gain = (pl.lit(2.0).pow(rel.cast(pl.Float64)) - 1.0) if exp else rel.cast(pl.Float64)
    if explicit:
        gain = rel.replace_strict(list(explicit), list(explicit.values()), default=gain, return_dtype=pl.Float64)
    gains = judgments.select("qid", gain.alias("gain")).filter(pl.col("gain") > 0).collect()
    ideal = _sorted_within_queries(gains)
    if ideal is None:
        ideal = (gains.sort(["qid", "gain"], descending=[False, True])
                 .select("qid", pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("qid").alias("irank"), "gain"))
    return ideal.with_columns(pl.Series("log2_irank1", log2_of_ranks(ideal["irank"].to_numpy() + 1),
                                        dtype=pl.Float64)).lazy()


def _sorted_within_queries(gains: pl.DataFrame) -> pl.DataFrame | None:
    """``qid, irank, gain``: each query's gains descending, when each query's rows are adjacent (as a
    streamed chunk's judgments are), by a sort on numbers instead of the qid strings (a third of the
    time); queries stay in their order, irank ascending within each. None when a query's rows are apart."""
    n = gains.height
    qid = gains["qid"]
    starts_query = np.ones(n, dtype=bool)
    if n > 1:
        starts_query[1:] = qid.slice(1).ne_missing(qid.slice(0, n - 1)).to_numpy()
    starts = np.flatnonzero(starts_query)
    if qid.gather(starts).n_unique() != len(starts):
        return None
    query = np.cumsum(starts_query) - 1
    order = np.lexsort((-gains["gain"].to_numpy(), query))  # by query, then gain descending
    irank = np.arange(n, dtype=np.int64) - starts[query] + 1
    return gains[order].select("qid", pl.Series("irank", irank, dtype=pl.Int64), "gain")
