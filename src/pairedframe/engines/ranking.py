"""trec_eval's ranking, computed only where a measure can see it: at the documents in the qrels.

Every measure depends on a ranking only through the ranks of the documents that have a qrels line
(any grade: negative grades are "in the pool but unjudged", which infAP and relstring tell apart
from documents outside the qrels) and the number retrieved per query. So instead of sorting all documents by (score, docno) — a string
sort — :func:`rank_judged` orders them by score alone (no sort at all when a file already lists
each query's scores in non-increasing order, as TREC runs do) and breaks ties by docno only for
the judged documents that sit in a tie. The result equals ``sql/prep_ranks.sql``'s window:

    rank = 1 + #(score > s) + #(score == s and docno > d)     within the (system, qid)
"""

from __future__ import annotations

import numpy as np
import polars as pl

from pairedframe.engines.base import ScorePrecision
from pairedframe.io.stream import query_starts
from pairedframe.io.trec import pair_hash

RANKS_SCHEMA = {"system": pl.String, "qid": pl.String, "docno": pl.String, "rank": pl.Int64, "rel": pl.Int64}
RETRIEVED_SCHEMA = {"system": pl.String, "qid": pl.String, "n": pl.Int64}


class JudgmentsByQuery:
    """The qrels rows, grouped by qid once, so that each block of a streamed run gets its own
    queries' judgments without scanning all the qrels again.

    Qrels files list each query's lines together, so usually no copy is made: the spans index the
    table as given. Otherwise a permutation that groups the rows is kept (8 bytes a row, not a
    sorted copy of the strings)."""

    def __init__(self, qrels: pl.DataFrame) -> None:
        qrels = qrels.rechunk()  # one chunk: each of() gathers from it (from 6 chunks it cost 4x the CPU)
        self._judged = qrels
        self._order: np.ndarray | None = None
        starts = query_starts(qrels)
        heads = qrels["qid"].gather(starts)
        if heads.n_unique() != heads.len():  # a query's lines are not together
            codes = qrels.select(pl.col("qid").cast(pl.Categorical).to_physical()).to_series().to_numpy()
            self._order = np.argsort(codes, kind="stable")
            starts = _boundaries(codes[self._order])
            heads = qrels["qid"].gather(self._order[starts])
        ends = np.append(starts[1:], qrels.height)
        self._span = dict(zip(heads.to_list(), zip(starts.tolist(), ends.tolist())))

    def of(self, qids: list[str]) -> pl.DataFrame:
        """``qid, docno, rel`` of the qrels lines of ``qids`` (unjudged queries have none)."""
        spans = np.array([self._span[q] for q in qids if q in self._span], dtype=np.int64).reshape(-1, 2)
        sizes = spans[:, 1] - spans[:, 0]
        rows = np.repeat(spans[:, 0] - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))
        return self._judged[rows if self._order is None else self._order[rows]]


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


def _boundaries(values: np.ndarray) -> np.ndarray:
    """Positions where a run of equal values begins (0 included)."""
    changed = np.empty(len(values), dtype=bool)
    changed[0] = True
    np.not_equal(values[1:], values[:-1], out=changed[1:])
    return np.flatnonzero(changed)


def _in_score_order(keys: np.ndarray, group_starts: np.ndarray) -> bool:
    """Whether scores never increase inside a group of adjacent rows."""
    ok = keys[1:] <= keys[:-1]
    ok[group_starts[1:] - 1] = True
    return bool(ok.all())


def _judged_rows(run: pl.DataFrame, judged: pl.DataFrame, pairs: pl.Series | None) -> tuple[np.ndarray, pl.Series]:
    """Rows of ``run`` whose (qid, docno) is in ``judged``, and their grades: joined on a 64-bit hash
    of the pair (one integer key instead of two strings), then checked on the strings themselves."""
    pairs = pair_hash(run) if pairs is None else pairs
    candidates = (pl.DataFrame({"_pair": pairs}).with_row_index("_row")
                  .join(judged.with_columns(pair_hash(judged).alias("_pair")), on="_pair", how="inner"))
    rows = candidates["_row"]
    same = ((run["qid"].gather(rows) == candidates["qid"]) & (run["docno"].gather(rows) == candidates["docno"]))
    return rows.filter(same).to_numpy().astype(np.int64), candidates["rel"].filter(same).cast(pl.Int64)


def _score_order(run: pl.DataFrame, keys: np.ndarray, group_starts: np.ndarray | None
                 ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """Rows ordered by (group, score descending): the permutation (None: rows already in it), the
    sorted scores, and where each group begins in that order."""
    if group_starts is not None and _in_score_order(keys, group_starts):
        return None, keys, group_starts
    if group_starts is None:
        groups = _group_codes(run)
    else:
        groups = np.zeros(len(keys), dtype=np.int64)
        groups[group_starts[1:]] = 1
        groups = np.cumsum(groups)
    order = (pl.DataFrame({"g": groups, "k": keys})
             .select(pl.arg_sort_by(["g", "k"], descending=[False, True], maintain_order=True))
             .to_series().to_numpy())
    return order, keys[order], _boundaries(groups[order])


def rank_judged(run: pl.DataFrame, qrels: pl.DataFrame, *, score_precision: ScorePrecision = "float64",
                group_starts: np.ndarray | None = None, pairs: pl.Series | None = None,
                docno_descending: bool = True) -> tuple[pl.DataFrame, pl.DataFrame]:
    """trec_eval's rank of every retrieved document that is in the qrels, and the ranking sizes.

    Parameters
    ----------
    run : polars.DataFrame
        ``system, qid, docno, score``; one row per retrieved (system, qid, docno); scores not NaN
        (``inf`` / ``-inf`` rank first / last, ties among them broken by docno, as in trec_eval).
    qrels : polars.DataFrame
        ``qid, docno, rel``; one row per judged (qid, docno).
    score_precision : {"float64", "float32"}
        How scores compare (see :func:`comparable_scores`).
    group_starts : numpy.ndarray, optional
        When each (system, qid)'s rows are adjacent (a streamed block of a run file): the row where
        each begins, ascending from 0. It spares hashing the ids; wrong starts give wrong ranks.
    pairs : polars.Series, optional
        :func:`pairedframe.io.trec.pair_hash` of ``run``, when the caller already has it.
    docno_descending : bool
        Break score ties by docno descending (form_res_rels.c, every measure but the preference
        ones), else ascending (form_prefs_counts.c).

    Returns
    -------
    ranks : polars.DataFrame
        ``system, qid, docno, rank, rel``: one row per retrieved document in the qrels; rank is
        1-based among all retrieved documents of the (system, qid), by score descending then docno
        descending in byte order (trec_eval's tie rule). Not cut at any depth. Each (system, qid)'s
        rows are adjacent and by rank ascending (what :func:`running_counts` reads).
    retrieved : polars.DataFrame
        ``system, qid, n``: one row per (system, qid) in ``run``, n = documents retrieved.
    """
    n = run.height
    if n == 0:
        return pl.DataFrame(schema=RANKS_SCHEMA), pl.DataFrame(schema=RETRIEVED_SCHEMA)
    keys = comparable_scores(run["score"].to_numpy(), score_precision)
    starts = None if group_starts is None else np.asarray(group_starts, dtype=np.int64)
    order, keys, group_start = _score_order(run, keys, starts)
    new_tie = np.empty(n, dtype=bool)
    new_tie[0] = True
    np.not_equal(keys[1:], keys[:-1], out=new_tie[1:])
    new_tie[group_start] = True
    tie_start = np.flatnonzero(new_tie)
    tie_size = np.diff(np.append(tie_start, n))

    first_rows = group_start if order is None else order[group_start]
    retrieved = (run.select("system", "qid")[first_rows]
                 .with_columns(pl.Series("n", np.diff(np.append(group_start, n)), dtype=pl.Int64)))

    if qrels.height > n:  # only a smaller build side for the join: other queries' lines never match
        qrels = qrels.filter(pl.col("qid").is_in(retrieved["qid"].unique().implode()))
    rows, rel = _judged_rows(run, qrels, pairs)
    if order is None:
        pos = rows
    else:
        inverse = np.empty(n, dtype=np.int64)
        inverse[order] = np.arange(n, dtype=np.int64)
        pos = inverse[rows]
    tie = np.searchsorted(tie_start, pos, side="right") - 1
    group = np.searchsorted(group_start, pos, side="right") - 1
    rank = tie_start[tie] - group_start[group] + 1
    tied = tie_size[tie] > 1
    if tied.any():
        greater = _docno_tie_offsets(run["docno"], order, tie_start, tie_size, tie, tied, pos)
        # ascending: the tie's members with a smaller docno come first (docnos of a ranking are distinct)
        rank += greater if docno_descending else np.where(tied, tie_size[tie] - 1 - greater, 0)
    # each ranking's rows by rank (the join leaves them near that order; ties may swap): the engine's
    # running counts then need no sort (see running_counts)
    place = group_start[group] + rank
    if not bool((place[1:] > place[:-1]).all()):
        by_rank = np.argsort(place, kind="stable")
        rows, rank, rel = rows[by_rank], rank[by_rank], rel.gather(by_rank)
    ranks = run.select("system", "qid", "docno")[rows].with_columns(pl.Series("rank", rank, dtype=pl.Int64), rel)
    return ranks, retrieved


def running_counts(ranks: pl.DataFrame, rel_level: int) -> pl.DataFrame | None:
    """``ranks`` with ``rel_cum``, ``nonrel_cum`` and ``unjudged_cum``: the documents of the row's
    (system, qid) at ranks <= its rank with a grade >= ``rel_level``, in ``[0, rel_level)``, and < 0
    (``sql/prep_ranked.sql``'s window sums), as running sums over rows already in rank order.

    Parameters
    ----------
    ranks : polars.DataFrame
        ``system, qid, docno, rank, rel``, as :func:`rank_judged` gives them (also several of its
        results concatenated).
    rel_level : int
        Minimum grade that counts as relevant.

    Returns
    -------
    polars.DataFrame or None
        None unless each (system, qid)'s rows are adjacent and by rank strictly ascending (then a
        running sum is no count: the caller falls back to the window sums).
    """
    n = ranks.height
    starts = _run_starts(ranks.select("system", "qid"))
    if starts is None:
        return None
    changed = np.zeros(n, dtype=bool)
    changed[starts] = True
    rank = ranks["rank"].to_numpy()
    if not bool((changed[1:] | (rank[1:] > rank[:-1])).all()):
        return None
    rel = ranks["rel"].to_numpy()
    sizes = np.diff(np.append(starts, n))

    def running(flag: np.ndarray) -> np.ndarray:
        total = np.cumsum(flag, dtype=np.int64)
        before = total[starts] - flag[starts]
        return total - np.repeat(before, sizes)

    return ranks.with_columns(pl.Series("rel_cum", running(rel >= rel_level)),
                              pl.Series("nonrel_cum", running((rel >= 0) & (rel < rel_level))),
                              pl.Series("unjudged_cum", running(rel < 0)))


IDEAL_SCHEMA = {"qid": pl.String, "gain_map": pl.String, "irank": pl.Int64, "gain": pl.Float64}


def ideal_gains(qrels: pl.DataFrame, gains: pl.DataFrame) -> pl.DataFrame | None:
    """``sql/prep_ideal.sql``'s ideal rankings without a sort: each query's gains > 0 under each gain
    map, descending, as ``qid, gain_map, irank, gain``, for every query of ``qrels``.

    Parameters
    ----------
    qrels : polars.DataFrame
        ``qid, docno, rel``; each judged (qid, docno) once.
    gains : polars.DataFrame
        ``gain_map, rel, gain``: the gain of each grade under each map
        (:func:`pairedframe.measures.gains.gain_table`); a grade it lacks has no gain.

    Returns
    -------
    polars.DataFrame or None
        None unless each query's rows are adjacent (as :meth:`JudgmentsByQuery.of` gives them). A
        ranking lists only gains, so it is built from each query's count of each gain: which
        document of a tie gets which ideal rank cannot change a value.
    """
    starts = _run_starts(qrels.select("qid"))
    if starts is None:
        return None
    sizes = np.diff(np.append(starts, qrels.height))
    query = np.repeat(np.arange(len(starts), dtype=np.int64), sizes)
    grade = qrels["rel"].to_numpy()
    heads = qrels["qid"].gather(starts)
    parts = [pl.DataFrame(schema=IDEAL_SCHEMA)]
    for (key,), table in gains.group_by("gain_map", maintain_order=True):
        table = table.filter(pl.col("rel") >= 0).sort("rel")
        levels, gain = table["rel"].to_numpy(), table["gain"].to_numpy()
        values = np.unique(gain[gain > 0])[::-1]  # the map's gains, descending
        if not len(values):
            continue
        # the table lists some grades only (a grade may be in the billions): look each one up
        slot = np.full(len(levels), -1)
        slot[gain > 0] = np.searchsorted(-values, -gain[gain > 0])
        at = np.minimum(np.searchsorted(levels, grade), len(levels) - 1)
        kept = (levels[at] == grade) & (grade >= 0)
        kept[kept] = slot[at[kept]] >= 0
        width = len(values)
        counts = np.bincount(query[kept] * width + slot[at[kept]], minlength=len(starts) * width)
        totals = counts.reshape(-1, width).sum(axis=1)
        first = np.cumsum(totals) - totals
        parts.append(pl.DataFrame({
            "qid": heads.gather(np.repeat(np.arange(len(starts)), totals)),
            "gain_map": pl.repeat(key, int(totals.sum()), dtype=pl.String, eager=True),
            "irank": np.arange(int(totals.sum()), dtype=np.int64) - np.repeat(first, totals) + 1,
            "gain": np.repeat(np.tile(values, len(starts)), counts)}, schema=IDEAL_SCHEMA))
    return pl.concat(parts)


def _run_starts(keys: pl.DataFrame) -> np.ndarray | None:
    """Where each run of equal rows of ``keys`` begins, or None when a key has two runs (its rows
    are not adjacent)."""
    n = keys.height
    changed = np.ones(n, dtype=bool)
    if n > 1:
        head, tail = keys.slice(0, n - 1), keys.slice(1)
        differs = np.zeros(n - 1, dtype=bool)
        for name in keys.columns:
            differs |= tail[name].ne_missing(head[name]).to_numpy()
        changed[1:] = differs
    starts = np.flatnonzero(changed)
    return starts if keys[starts].n_unique() == len(starts) else None


# Above this many (judged document, tie member) pairs the tie fix-up sorts the ties instead.
MAX_TIE_PAIRS = 2_000_000


def _docno_tie_offsets(docnos: pl.Series, order: np.ndarray | None, tie_start: np.ndarray,
                       tie_size: np.ndarray, tie: np.ndarray, tied: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """For each judged document (at sorted position ``pos``, in tie ``tie``) that shares its score
    with others: how many documents of that tie have a greater docno (byte order), i.e. rank before
    it under trec_eval's rule. 0 for untied documents. Only ties holding a judged document are read:
    each such document is compared with its tie's members, or, when that makes too many pairs
    (huge ties), the ties are sorted by docno."""
    as_rows = (lambda p: p) if order is None else (lambda p: order[p])
    hit = np.flatnonzero(tied)
    sizes = tie_size[tie[hit]]
    if int(sizes.sum()) > MAX_TIE_PAIRS:
        return _docno_tie_offsets_by_sorting(docnos, as_rows, tie_start, tie_size, tie, tied, pos)
    first = np.repeat(np.cumsum(sizes) - sizes, sizes)
    member_pos = np.repeat(tie_start[tie[hit]], sizes) + np.arange(len(first)) - first
    own = docnos.gather(as_rows(np.repeat(pos[hit], sizes)))
    greater = (docnos.gather(as_rows(member_pos)) > own).to_numpy()
    result = np.zeros(len(tie), dtype=np.int64)
    result[hit] = np.add.reduceat(greater, np.cumsum(sizes) - sizes, dtype=np.int64)
    return result


def _docno_tie_offsets_by_sorting(docnos: pl.Series, as_rows, tie_start: np.ndarray, tie_size: np.ndarray,
                                  tie: np.ndarray, tied: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Same as :func:`_docno_tie_offsets`: each tie holding a judged document is sorted by docno
    descending; a member's index in its sorted tie counts the greater docnos."""
    ties = np.unique(tie[tied])
    sizes = tie_size[ties]
    first = np.repeat(np.cumsum(sizes) - sizes, sizes)
    member_pos = np.repeat(tie_start[ties], sizes) + np.arange(len(first)) - first  # ascending
    by_docno = (pl.DataFrame({"_tie": np.repeat(ties, sizes), "_pos": member_pos,
                              "_docno": docnos.gather(as_rows(member_pos))})
                .sort(["_tie", "_docno"], descending=[False, True]))
    before = np.empty(len(first), dtype=np.int64)  # per member, in member_pos order
    before[np.searchsorted(member_pos, by_docno["_pos"].to_numpy())] = np.arange(len(first)) - first
    result = np.zeros(len(tie), dtype=np.int64)
    result[tied] = before[np.searchsorted(member_pos, pos[tied])]
    return result
