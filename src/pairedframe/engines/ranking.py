"""trec_eval's ranking, computed only where a measure can see it: at the judged documents.

Every measure depends on a ranking only through the ranks of the documents with a grade >= 0 and
the number retrieved per query. So instead of sorting all documents by (score, docno) — a string
sort — :func:`rank_judged` orders them by score alone (no sort at all when a file already lists
each query's scores in non-increasing order, as TREC runs do) and breaks ties by docno only for
the judged documents that sit in a tie. The result equals ``sql/prep_ranked.sql``'s window:

    rank = 1 + #(score > s) + #(score == s and docno > d)     within the (system, qid)
"""

from __future__ import annotations

import numpy as np
import polars as pl

from pairedframe.engines.base import ScorePrecision

RANKS_SCHEMA = {"system": pl.String, "qid": pl.String, "docno": pl.String, "rank": pl.Int64}
RETRIEVED_SCHEMA = {"system": pl.String, "qid": pl.String, "n": pl.Int64}


def comparable_scores(scores: np.ndarray, score_precision: ScorePrecision) -> np.ndarray:
    """Scores as trec_eval compares them: doubles, or rounded to 32-bit floats (trec_eval 9),
    where values beyond the float32 range become +-inf as IEEE rounding makes them."""
    if score_precision == "float32":
        with np.errstate(over="ignore"):
            return scores.astype(np.float32).astype(np.float64)
    return scores


def _group_codes(run: pl.DataFrame) -> np.ndarray:
    """One integer per (system, qid), equal codes for equal pairs (categorical codes, no string sort)."""
    codes = run.select(pl.col("system").cast(pl.Categorical).to_physical().cast(pl.Int64).alias("s"),
                       pl.col("qid").cast(pl.Categorical).to_physical().cast(pl.Int64).alias("q"))
    q = codes["q"].to_numpy()
    return codes["s"].to_numpy() * (int(q.max(initial=0)) + 1) + q


def _codes_from_starts(group_starts: np.ndarray, n: int) -> np.ndarray:
    """Group codes 0, 1, ... for rows whose groups begin at ``group_starts`` (ascending, from 0)."""
    marks = np.zeros(n, dtype=np.int64)
    marks[group_starts[1:]] = 1
    return np.cumsum(marks)


def _score_order(groups: np.ndarray, keys: np.ndarray, sorted_groups: bool) -> np.ndarray | None:
    """Row order by (group, score descending); None when the rows are already in it."""
    n = len(groups)
    in_order = n < 2 or ((sorted_groups or bool(np.all(groups[1:] >= groups[:-1])))
                         and bool(np.all((groups[1:] != groups[:-1]) | (keys[1:] <= keys[:-1]))))
    if in_order:
        return None
    frame = pl.DataFrame({"g": groups, "k": keys})
    return frame.select(pl.arg_sort_by(["g", "k"], descending=[False, True], maintain_order=True)).to_series().to_numpy()


def rank_judged(run: pl.DataFrame, qrels: pl.DataFrame, *, score_precision: ScorePrecision = "float64",
                group_starts: np.ndarray | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """trec_eval's rank of every retrieved document that has a grade >= 0, and the ranking sizes.

    Parameters
    ----------
    run : polars.DataFrame
        ``system, qid, docno, score``; one row per retrieved (system, qid, docno), finite scores.
    qrels : polars.DataFrame
        ``qid, docno, rel``; one row per judged (qid, docno).
    score_precision : {"float64", "float32"}
        How scores compare (see :func:`comparable_scores`).
    group_starts : numpy.ndarray, optional
        When each (system, qid)'s rows are adjacent (a streamed block of a run file): the row where
        each begins, ascending from 0. It spares hashing the ids; wrong starts give wrong ranks.

    Returns
    -------
    ranks : polars.DataFrame
        ``system, qid, docno, rank``: one row per retrieved document with a grade >= 0; rank is
        1-based among all retrieved documents of the (system, qid), by score descending then docno
        descending in byte order (trec_eval's tie rule). Not cut at any depth.
    retrieved : polars.DataFrame
        ``system, qid, n``: one row per (system, qid) in ``run``, n = documents retrieved.
    """
    n = run.height
    if n == 0:
        return pl.DataFrame(schema=RANKS_SCHEMA), pl.DataFrame(schema=RETRIEVED_SCHEMA)
    if group_starts is None:
        groups = _group_codes(run)
    else:
        groups = _codes_from_starts(np.asarray(group_starts, dtype=np.int64), n)
    keys = comparable_scores(run["score"].to_numpy(), score_precision)
    order = _score_order(groups, keys, sorted_groups=group_starts is not None)
    if order is not None:
        groups, keys = groups[order], keys[order]
    new_group = np.empty(n, dtype=bool)
    new_group[0] = True
    np.not_equal(groups[1:], groups[:-1], out=new_group[1:])
    new_tie = new_group.copy()
    new_tie[1:] |= keys[1:] != keys[:-1]
    group_start, tie_start = np.flatnonzero(new_group), np.flatnonzero(new_tie)
    group_of, tie_of = np.cumsum(new_group) - 1, np.cumsum(new_tie) - 1
    tie_size = np.diff(np.append(tie_start, n))

    first_rows = group_start if order is None else order[group_start]
    retrieved = (run.select("system", "qid")[first_rows]
                 .with_columns(pl.Series("n", np.diff(np.append(group_start, n)), dtype=pl.Int64)))

    judged = qrels.filter((pl.col("rel") >= 0) & pl.col("qid").is_in(retrieved["qid"].unique().implode()))
    hits = (run.select("system", "qid", "docno").with_row_index("_row")
            .join(judged.select("qid", "docno"), on=["qid", "docno"], how="inner"))
    rows = hits["_row"].to_numpy().astype(np.int64)
    if order is None:
        pos = rows
    else:
        inverse = np.empty(n, dtype=np.int64)
        inverse[order] = np.arange(n, dtype=np.int64)
        pos = inverse[rows]
    tie = tie_of[pos]
    rank = tie_start[tie] - group_start[group_of[pos]] + 1
    tied = tie_size[tie] > 1
    if tied.any():
        rank += _docno_tie_offsets(run["docno"], order, tie_start, tie_size, tie, tied, hits["docno"])
    ranks = hits.select("system", "qid", "docno").with_columns(pl.Series("rank", rank, dtype=pl.Int64))
    return ranks, retrieved


def _docno_tie_offsets(docnos: pl.Series, order: np.ndarray | None, tie_start: np.ndarray,
                       tie_size: np.ndarray, tie: np.ndarray, tied: np.ndarray,
                       hit_docnos: pl.Series) -> np.ndarray:
    """For each judged document in a tie of scores: how many documents of that tie have a greater
    docno (byte order), i.e. rank before it under trec_eval's rule. 0 for untied documents."""
    ties = np.unique(tie[tied])
    sizes = tie_size[ties]
    offsets = np.repeat(np.cumsum(sizes) - sizes, sizes)
    member_pos = np.repeat(tie_start[ties], sizes) + np.arange(int(sizes.sum())) - offsets
    member_rows = member_pos if order is None else order[member_pos]
    members = pl.DataFrame({"_tie": np.repeat(ties, sizes), "_other": docnos.gather(member_rows)})
    judged = pl.DataFrame({"_hit": np.flatnonzero(tied), "_tie": tie[tied], "_docno": hit_docnos.filter(tied)})
    before = (judged.join(members, on="_tie").filter(pl.col("_other") > pl.col("_docno"))
              .group_by("_hit").len())
    result = np.zeros(len(tie), dtype=np.int64)
    result[before["_hit"].to_numpy()] = before["len"].to_numpy()
    return result
