"""Rank-biased overlap (RBO) of two runs, per query, vectorised over queries.

Rankings use the evaluation's tie rule: score descending, then docno descending (byte order), as
trec_eval; the rank column and file order are ignored.  With ``depth`` both rankings are cut to their
top ``depth`` documents first.

Definitions (Webber, Moffat & Zobel 2010, "A similarity measure for indefinite rankings", TOIS 28(4)),
for a short list ``S`` (length ``s``) and a long list ``L`` (length ``l >= s``), ``X_d`` the overlap of
``S[:min(d, s)]`` and ``L[:d]``:

- ``rbo_ext`` (eq. 32): ``(1-p)/p * (sum_{d<=l} X_d/d p^d + sum_{s<d<=l} X_s (d-s)/(s d) p^d)
  + ((X_l - X_s)/l + X_s/s) p^l``;
- ``rbo_min``: no further agreement beyond what is seen, ``(1-p)/p * (sum_{d<=l} (X_d - X_l)/d p^d
  - X_l ln(1-p))``;
- ``rbo_res = rbo_max - rbo_min`` with ``rbo_max`` letting every unseen item agree:
  ``X^max_d = X_d`` (d <= s), ``min(d, X_d + d - s)`` (s < d <= l), ``min(d, X_l + 2d - s - l)``
  (d > l), which reaches ``d`` at ``f = l + s - X_l``: ``rbo_max = (1-p)/p sum_{d<=f} X^max_d/d p^d
  + p^f``.

Identical rankings get exactly 1 (``rbo_ext``, ``rbo_min + rbo_res``); values are clipped to [0, 1]
against rounding, and the bounds widened to ``rbo_ext`` where rounding would leave it outside them, so
``0 <= rbo_min <= rbo_ext <= rbo_min + rbo_res <= 1`` holds exactly.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import polars as pl

from pairedframe.checks import require_each, sample
from pairedframe.errors import SchemaError, naming_input
from pairedframe.io.convert import as_run
from pairedframe.stats.rbo import exact_bounds

__all__ = ["rbo"]


def _ranked(run: Any, depth: int | None, score_precision: str) -> pl.DataFrame:
    t = as_run(run, default_system="run")  # a table's own system column is kept, so two systems are caught
    if t["system"].n_unique() > 1:
        raise SchemaError(f"a run must hold one system, got {t['system'].unique().to_list()}")
    score = pl.col("score").cast(pl.Float64)
    if score_precision == "float32":
        score = score.cast(pl.Float32).cast(pl.Float64)
    t = (t.select(pl.col("qid").cast(pl.String), pl.col("docno").cast(pl.String), score.alias("_key"))
         .sort(["qid", "_key", "docno"], descending=[False, True, True])
         .with_columns(pl.int_range(1, pl.len() + 1, dtype=pl.Int64).over("qid").alias("rank")))
    if depth is not None:
        t = t.filter(pl.col("rank") <= depth)
    return t.select("qid", "docno", "rank")


def _segment_cumsum(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    c = np.cumsum(values)
    before = np.concatenate([[0], c[:-1]])[starts]
    lengths = np.diff(np.concatenate([starts, [values.shape[0]]]))
    return c - np.repeat(before, lengths)


def rbo(run_a: Any, run_b: Any, *, p: float = 0.9, depth: int | None = None,
        score_precision: Literal["float64", "float32"] = "float64") -> pl.DataFrame:
    """Rank-biased overlap of two runs, per query.

    Parameters
    ----------
    run_a, run_b : path, table or dict
        One run each (anything :func:`pairedframe.io.as_run` reads; ``system, qid, docno, score`` or
        ``qid, docno, score``).
    p : float in (0, 1), default 0.9
        Persistence: the top ``d`` ranks carry weight ``1 - p^d`` (+ a tail term); 0.9 puts about 86%
        of the weight on the top 10.
    depth : int, optional
        Cut both rankings to their top ``depth`` documents first.
    score_precision : {"float64", "float32"}
        As :func:`pairedframe.evaluate` (float32: scores equal in float32 tie).

    Returns
    -------
    polars.DataFrame
        ``qid, rbo_ext, rbo_min, rbo_res, len_a, len_b, overlap``: one row per query retrieved by both
        runs, sorted by qid; ``overlap`` is ``X_l``, the number of documents in both lists.

    Raises
    ------
    ValueError
        ``p`` outside (0, 1), bad ``depth``, or a run table with several systems.
    EmptyResultError
        No query is retrieved by both runs.

    Warns
    -----
    PartlyEmptyWarning
        Queries retrieved by only one run (they get no row).

    References
    ----------
    Webber, W., Moffat, A. & Zobel, J. (2010). A similarity measure for indefinite rankings.
    ACM TOIS 28(4), article 20 (eq. 32 for rbo_ext on uneven lists).
    """
    if not (isinstance(p, (int, float)) and 0 < p < 1):
        raise ValueError(f"`p` must be in (0, 1), got {p!r}")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
        raise ValueError(f"`depth` must be a positive integer or None, got {depth!r}")
    if score_precision not in ("float64", "float32"):
        raise ValueError(f"score_precision must be 'float64' or 'float32', got {score_precision!r}")
    with naming_input("run_a"):
        a = _ranked(run_a, depth, score_precision)
    with naming_input("run_b"):
        b = _ranked(run_b, depth, score_precision)
    lens = (a.group_by("qid").agg(pl.len().alias("len_a"))
            .join(b.group_by("qid").agg(pl.len().alias("len_b")), on="qid", how="inner").sort("qid"))
    schema = {"qid": pl.String, "rbo_ext": pl.Float64, "rbo_min": pl.Float64, "rbo_res": pl.Float64,
              "len_a": pl.Int64, "len_b": pl.Int64, "overlap": pl.Int64}
    queries = pl.concat([a["qid"], b["qid"]]).unique().sort().to_list()
    require_each(queries, set(lens["qid"].to_list()), what="query", plural="queries",
                 lacking="a ranking in only one of the runs",
                 hint=f"run_a's queries {sample(a['qid'].unique().sort().to_list(), 3)}, run_b's "
                      f"{sample(b['qid'].unique().sort().to_list(), 3)}")
    la = lens["len_a"].to_numpy().astype(np.int64)
    lb = lens["len_b"].to_numpy().astype(np.int64)
    s = np.minimum(la, lb)
    long_ = np.maximum(la, lb)
    nq = lens.height
    qindex = lens.select("qid").with_row_index("_q")
    # a document shared by both lists enters the overlap at depth max(rank_a, rank_b)
    both = (a.join(b, on=["qid", "docno"], how="inner", suffix="_b")
            .join(qindex, on="qid", how="inner")
            .select("_q", pl.max_horizontal("rank", "rank_b").alias("m")))
    q_of = both["_q"].to_numpy().astype(np.int64)
    m = both["m"].to_numpy().astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(long_)[:-1]]).astype(np.int64)
    hist = np.zeros(int(long_.sum()))
    np.add.at(hist, starts[q_of] + m - 1, 1.0)
    X = _segment_cumsum(hist, starts)                     # X_d for d = 1..l per query
    q_e = np.repeat(np.arange(nq), long_)
    d = (np.arange(X.shape[0]) - starts[q_e] + 1).astype(np.float64)
    logp = math.log(p)
    w = np.exp(d * logp) / d                              # p^d / d
    X_l = X[starts + long_ - 1]
    X_s = X[starts + s - 1]
    c = (1 - p) / p
    s_e = s[q_e].astype(np.float64)
    beyond = d > s_e
    ext_sum = np.add.reduceat(X * w, starts) + np.add.reduceat(
        np.where(beyond, X_s[q_e] * (d - s_e) / s_e, 0.0) * w, starts)
    pl_ = np.exp(long_ * logp)
    rbo_ext = c * ext_sum + ((X_l - X_s) / long_ + X_s / s) * pl_
    rbo_min = c * (np.add.reduceat((X - X_l[q_e]) * w, starts) - X_l * math.log1p(-p))
    # maximum: grid d = 1..f per query
    f = (long_ + s - X_l).astype(np.int64)
    fstarts = np.concatenate([[0], np.cumsum(f)[:-1]]).astype(np.int64)
    qf = np.repeat(np.arange(nq), f)
    df_ = np.arange(int(f.sum())) - fstarts[qf] + 1
    lq, sq = long_[qf], s[qf]
    within = df_ <= lq
    x_seen = np.where(within, X[starts[qf] + np.minimum(df_, lq) - 1], X_l[qf])
    xmax = np.where(df_ <= sq, x_seen,
                    np.where(within, np.minimum(df_, x_seen + df_ - sq), np.minimum(df_, X_l[qf] + 2 * df_ - sq - lq)))
    dff = df_.astype(np.float64)
    rbo_max = c * np.add.reduceat(xmax * np.exp(dff * logp) / dff, fstarts) + np.exp(f * logp)
    rbo_res = rbo_max - rbo_min
    # identical lists: every prefix agrees (X_d = d for all d)
    full_agree = np.add.reduceat((X == d).astype(np.int64), starts) == long_
    identical = full_agree & (la == lb)
    rbo_ext = np.where(identical, 1.0, np.clip(rbo_ext, 0.0, 1.0))
    rbo_min = np.clip(rbo_min, 0.0, 1.0)
    rbo_res = np.where(identical, 1.0 - rbo_min, np.clip(rbo_res, 0.0, 1.0 - rbo_min))
    rbo_min, rbo_res = exact_bounds(rbo_ext, rbo_min, rbo_res)   # the sums round apart: the bounds hold exactly
    return pl.DataFrame({"qid": lens["qid"], "rbo_ext": rbo_ext, "rbo_min": rbo_min, "rbo_res": rbo_res,
                         "len_a": la, "len_b": lb, "overlap": X_l.astype(np.int64)}, schema=schema)
