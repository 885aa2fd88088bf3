"""Binary and rank endpoints from another harness's per-query export of first-hit ranks.

Some evaluation harnesses (text-to-audio retrieval, QA) export one row per query with the rank of the
first relevant item instead of a run file.  :func:`endpoints_from_ranks` turns such an export into the
per-query table every comparison of pairedframe reads (``system, qid, measure, value`` plus the key
columns ``dataset`` and ``cluster``):

- ``hit@k`` (= R@k for one relevant item, "success at k"): 1 if ``first_hit_rank <= k`` else 0;
- ``RR``: reciprocal rank ``1 / first_hit_rank`` (0 when nothing relevant was retrieved);
- ``AP``: the ``ap`` column as given, when the export has one.

Ranks are 1-based.  "Nothing relevant retrieved" must be said explicitly with ``+inf`` (or the
strings ``inf`` / ``none`` in text files); a rank of 0, a negative or fractional rank, or a missing
rank is an error naming the row -- never a silent division by zero.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import polars as pl

from pairedframe.checks import require_rows, string_ids
from pairedframe.errors import SchemaError
from pairedframe.io.convert import to_polars

__all__ = ["RANK_COLUMNS", "check_ks", "endpoints_from_ranks", "parse_hit_measure", "is_rank_export"]

#: Columns of a first-hit-rank export (``system`` may instead come from the file name).
RANK_COLUMNS = ("qid", "first_hit_rank")
_HIT = re.compile(r"^(?:hit|success)@(\d+)$", re.IGNORECASE)
_NO_HIT_WORDS = ("inf", "+inf", "infinity", "none", "no_hit", "nohit")


def parse_hit_measure(name: str) -> int | None:
    """``"hit@10"`` (also ``success@10``) -> 10; None if ``name`` is not a hit@k name."""
    m = _HIT.match(name.strip())
    return int(m.group(1)) if m else None


def is_rank_export(frame: pl.DataFrame) -> bool:
    """True if the table looks like a first-hit-rank export (has ``first_hit_rank``, no ``value``)."""
    return "first_hit_rank" in frame.columns and "value" not in frame.columns


def _ranks(frame: pl.DataFrame, source: str) -> np.ndarray:
    col = frame["first_hit_rank"]
    where = f" in {source}" if source else ""

    def bad(i: int, why: str) -> SchemaError:
        row = frame.row(int(i), named=True)
        who = ", ".join(f"{k} {row[k]!r}" for k in ("system", "dataset", "qid") if k in row)
        return SchemaError(f"row {int(i) + 1}{where} ({who}): first_hit_rank {row['first_hit_rank']!r} {why}; "
                           "ranks are 1-based integers, use inf for 'no relevant item retrieved'")

    if col.dtype == pl.String:
        low = col.str.strip_chars().str.to_lowercase()
        words = low.is_in(list(_NO_HIT_WORDS))
        nums = low.cast(pl.Float64, strict=False)
        vals = pl.select(pl.when(words).then(float("inf")).otherwise(nums)).to_series()
    elif col.dtype.is_numeric():
        vals = col.cast(pl.Float64)
    else:
        raise SchemaError(f"column first_hit_rank{where} must be numeric (or text), got {col.dtype}")
    arr = vals.to_numpy().astype(np.float64, copy=True) if vals.null_count() == 0 else None
    if arr is None:
        raise bad(vals.is_null().arg_max(), "is missing")
    nan = np.isnan(arr)
    if nan.any():
        raise bad(np.argmax(nan), "is missing (NaN)")
    le0 = arr <= 0
    if le0.any():   # the reason fits the value: only 0 would divide by zero
        i = np.argmax(le0)
        raise bad(i, "is 0, not a rank (1/rank would divide by zero)" if arr[i] == 0 else "is negative, not a rank")
    frac = np.isfinite(arr) & (arr != np.floor(arr))
    if frac.any():
        raise bad(np.argmax(frac), "is not an integer")
    return arr


def check_ks(ks: Iterable[int]) -> list[int]:
    """The ``hit@k`` cutoffs, sorted and distinct; ValueError naming ``ks`` unless all are integers >= 1."""
    given = list(ks)
    if not given or any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1 for k in given):
        raise ValueError(f"`ks` must hold positive integer cutoffs, got {given}")
    return sorted({int(k) for k in given})


def _check_keys(df: pl.DataFrame, keys: list[str], where: str) -> None:
    """SchemaError naming a null id column or a repeated (system, keys, qid) of a first-hit-rank export."""
    nulls = [c for c in keys if df[c].null_count()]
    if nulls:
        raise SchemaError(f"first-hit-rank export{where} has null values in column(s) {nulls}")
    repeated = df.filter(pl.struct(keys).is_duplicated())
    if repeated.height:
        row = {k: repeated.row(0, named=True)[k] for k in keys}
        raise SchemaError(f"first-hit-rank export{where} has {repeated.height} rows with a repeated {tuple(keys)}, "
                          f"e.g. {row}: one first-hit rank per query")


def endpoints_from_ranks(frame: Any, *, ks: Iterable[int] = (1, 5, 10), system: str | None = None,
                         source: str = "") -> pl.DataFrame:
    """Per-query hit@k, reciprocal rank and AP from a first-hit-rank export.

    Parameters
    ----------
    frame : table
        One row per (system, query): ``qid, first_hit_rank`` and optionally ``system``, ``cluster``,
        ``dataset`` (key columns, carried through) and ``ap``.  Ranks are 1-based; ``inf`` means no
        relevant item retrieved.
    ks : iterable of int, default (1, 5, 10)
        Cutoffs for ``hit@k``.
    system : str, optional
        System name when the export has no ``system`` column (e.g. from the file name).
    source : str, optional
        File name used in error messages.

    Returns
    -------
    polars.DataFrame
        ``system, [dataset], [cluster], qid, measure, value``: one row per (system, query, measure)
        with measures ``hit@k`` for each k (0/1), ``RR`` (``1/rank``, 0 for inf) and ``AP`` (if the
        export has ``ap``), in that order.

    Raises
    ------
    SchemaError
        Missing ``qid``/``first_hit_rank``, no system name, or a rank that is missing, 0, negative or
        fractional (the message names the 1-based row and its qid), or an AP outside [0, 1] / missing,
        or an AP > 0 where ``first_hit_rank`` is inf (no relevant item retrieved). SchemaError is a ValueError.
    EmptyResultError
        The export has no rows.
    """
    df = to_polars(frame, "first-hit-rank export")
    where = f" in {source}" if source else ""
    require_rows(df, what=f"the first-hit-rank export{where}", why="no (qid, first_hit_rank) rows")
    missing = [c for c in RANK_COLUMNS if c not in df.columns]
    if missing:
        raise SchemaError(f"first-hit-rank export{where} lacks column(s) {missing}; needs qid, first_hit_rank "
                          f"[, system, cluster, dataset, ap] (has {df.columns})")
    if "system" not in df.columns:
        if system is None:
            raise SchemaError(f"first-hit-rank export{where} has no 'system' column; give the system name")
        df = df.with_columns(pl.lit(system).alias("system"))
    ks = check_ks(ks)
    keys = [c for c in ("dataset", "cluster") if c in df.columns]
    df = string_ids(df, ["system", *keys, "qid"], f"the first-hit-rank export{where}")
    _check_keys(df, ["system", *keys, "qid"], where)
    ranks = _ranks(df, source)
    base = df.select(pl.col("system").cast(pl.String), *(pl.col(c).cast(pl.String) for c in keys),
                     pl.col("qid").cast(pl.String))
    parts = []
    for k in ks:
        parts.append(base.with_columns(pl.lit(f"hit@{k}").alias("measure"),
                                       pl.Series("value", (ranks <= k).astype(np.float64))))
    rr = np.where(np.isfinite(ranks), 1.0 / np.where(np.isfinite(ranks), ranks, 1.0), 0.0)
    parts.append(base.with_columns(pl.lit("RR").alias("measure"), pl.Series("value", rr)))
    if "ap" in df.columns:
        ap = df["ap"].cast(pl.Float64, strict=False)
        bad = ap.is_null() | ap.is_nan() | (ap < 0) | (ap > 1)
        if bad.any():
            i = int(bad.arg_max())
            raise SchemaError(f"row {i + 1}{where} (qid {df['qid'][i]!r}): ap {df['ap'][i]!r} is missing or "
                              "outside [0, 1]")
        # AP > 0 needs a relevant item retrieved, which a first hit at inf says there is not
        hitless = (ap > 0).to_numpy() & ~np.isfinite(ranks)
        if hitless.any():
            i = int(np.argmax(hitless))
            raise SchemaError(f"row {i + 1}{where} (qid {df['qid'][i]!r}): ap {df['ap'][i]!r} > 0 with first_hit_rank "
                              f"{df['first_hit_rank'][i]!r} (no relevant item retrieved): AP is then 0; one of the two "
                              "columns is wrong")
        parts.append(base.with_columns(pl.lit("AP").alias("measure"), ap.alias("value")))
    return pl.concat(parts).select("system", *keys, "qid", "measure", "value")
