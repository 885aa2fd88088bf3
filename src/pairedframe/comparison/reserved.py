"""What a per-query table may not use as its own: trec_eval's summary rows (qid ``all``, not a query) and the
names of the columns a comparison's result adds (not a key column).

Beside :mod:`pairedframe.comparison.pairing`, which reads a table and drops the one and refuses the other.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import polars as pl

from pairedframe.errors import SchemaError, user_stacklevel
from pairedframe.io.results import SUMMARY_QID
from pairedframe.measures.parse import aggregate_of

__all__ = ["RESULT_COLUMNS", "cluster_key_message", "refuse_cluster_key", "trec_eval_aggregate", "warn_summary_rows"]

#: Columns a comparison's result adds beside its keys (compare, also with pairs=, compare_segments,
#: compare_clustered; checked by tests/test_reserved_key_columns.py): a key column of that name would collide with one.
RESULT_COLUMNS = frozenset((
    "alternative", "baseline", "baseline_mean", "ci_high", "ci_low", "confidence_level", "delta", "df", "equivalent",
    "exact", "family", "family_size", "interval", "losses", "margin", "mcnemar_b", "mcnemar_c", "mcnemar_pvalue", "mde",
    "method", "min_discoveries", "n_clusters", "n_queries", "n_resamples", "pvalue", "pvalue_bh", "pvalue_holm",
    "pvalue_max_tukey_raw", "pvalue_tost", "pvalue_tost_bh", "pvalue_tost_holm", "pvalue_tukey", "resolution_limited",
    "sd", "se", "seed", "significant", "skewness", "small_sample", "system_mean", "test", "ties", "tost_high",
    "tost_low", "verdict", "verdict_note", "verdict_on", "warning", "wins", "certified", "decision_error",
    "pvalue_high", "pvalue_low", "resamples_used", "resampling"))


def refuse_cluster_key(keys: Sequence[str]) -> None:
    """ValueError when a per-query table's key columns hold ``cluster``: a key makes one comparison per value,
    so clusters of two to four queries would each be compared alone, with no comparison across them --
    never what a table of clustered queries is for; or a name of the result's own columns (:data:`RESULT_COLUMNS`),
    which polars refused as a duplicate output name."""
    taken = sorted(set(keys) & RESULT_COLUMNS)
    if taken:
        raise SchemaError(f"the per-query table has a column {taken[0]!r}, which a comparison would keep as a key "
                          f"beside its own result column {taken[0]!r}; rename or drop it (key columns other than "
                          "system, qid, measure and value name groups compared apart, e.g. dataset)")
    if "cluster" in keys:
        raise ValueError(cluster_key_message())


def cluster_key_message(door: str = "this comparison", each: str = "comparison",
                        plain: str = "for a plain paired comparison, or rename it to compare cluster by cluster") -> str:
    """What a door says of a per-query table's ``cluster`` column, which it would read as a key: compare's words
    (:func:`refuse_cluster_key`), or another door's (``door``, one ``each`` per cluster, what dropping it gives)."""
    return (f"the per-query table has a 'cluster' column, which {door} would treat as a key (one {each} per cluster, "
            "each on its own few queries); for one comparison that resamples whole clusters use pf.compare_clustered "
            f"(or `pairedframe analyze`); drop the column {plain}")


def trec_eval_aggregate(measures: pl.Series) -> pl.Expr:
    """Per row, how trec_eval summarises its measure over queries (``"mean"``, ``"sum"``, ...: ``aggregate_of``)."""
    names = measures.unique().to_list()
    return pl.col("measure").replace_strict({m: aggregate_of(m) for m in names}, default="mean",
                                            return_dtype=pl.String)


def warn_summary_rows(count: int) -> None:
    """Warn once that ``count`` trec_eval summary rows (``qid == "all"``, ``unflagged_summary_rows``) were dropped."""
    warnings.warn(f"dropped {count} summary rows with qid == {SUMMARY_QID!r}: each is its system's only row for "
                  "its measure, or the mean or sum of its system's other values on it, as trec_eval's 'all' rows "
                  "are (not a query); to keep a query named 'all', pass the Evaluation, or a table with a boolean "
                  "'summary' column (False for queries) as `pairedframe evaluate -q -f csv|json` writes",
                  UserWarning, stacklevel=user_stacklevel())
