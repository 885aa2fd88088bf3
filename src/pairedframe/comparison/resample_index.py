"""The resamples of :func:`~pairedframe.compare` (and of the cluster and segment comparisons) as a table.

A bootstrap resample is a multiset of the queries; :func:`resample_index` writes it as rows
``resample, qid, count`` (only ``count > 0``), a sign-flip pattern as rows ``resample, qid, sign``.
Any statistic that is a weighted sum over queries is then a join and a ``GROUP BY resample`` in SQL
(the mean of resample ``r`` is ``sum(count * delta) / sum(count)``), which is how
:mod:`pairedframe.comparison.by_join` bootstraps per-query tables that live in DuckDB or Spark.

The draws are the numpy path's, from the same keyed streams, so with the same seed a table
reproduces :func:`~pairedframe.compare`'s resamples exactly:

- queries are put in code-point order of ``qid`` and numbered ``0..n-1`` (position);
- bootstrap: ``bootstrap_index_chunks(n, B, seed=resample_generators(seed, qids)[0])`` (the stream
  ``scipy.stats.bootstrap`` draws from), counted per resample;
- sign flips: the ``sign_flip_chunks`` words of ``resample_generators(seed, qids)[1]``, or, when
  ``2**n <= n_resamples``, all ``2**n`` patterns (pattern ``r`` flips query ``i`` iff bit ``i`` of ``r``
  is set; then there are ``2**n`` resamples, as in the exact test);
- with ``clusters``: the streams of :func:`~pairedframe.comparison.clustered.cluster_streams`, drawn
  over clusters in canonical order (by smallest qid), and every query gets its cluster's count or sign;
- with ``segment=(segment_set, segment)``: the counter-based stream of
  :func:`~pairedframe.compare_segments` for that segment and ``n`` queries.

numpy's bounded-integer sampler consumes a data-dependent number of bits (rejection sampling), so
resample ``r`` cannot be computed without drawing resamples ``0..r-1``: the table is produced on one
machine, in chunks of whole resamples, and never held whole unless asked (:meth:`ResampleIndex.collect`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import polars as pl

from pairedframe.checks import require_bool_fields, require_rows, scalar_ids
from pairedframe.comparison._cost import check_resampling_cost
from pairedframe.comparison.streams import (cluster_layout, cluster_streams, mix32_inplace, resample_generators,
                                            row_seeds, segment_keys)
from pairedframe.stats.resample import (
    DEFAULT_CHUNK_ELEMENTS,
    check_int,
    bootstrap_index_chunks,
    sign_flip_chunks,
    sign_pattern_chunks,
)

__all__ = ["ResampleIndex", "resample_index"]

_KINDS = ("bootstrap", "sign-flip")


@dataclass(frozen=True)
class ResampleIndex:
    """Resamples of one query set, produced in chunks of whole resamples (see :func:`resample_index`).

    Attributes
    ----------
    qids : tuple of str
        The distinct query ids in code-point order; ``position`` ``i`` is ``qids[i]``.
    kind : {"bootstrap", "sign-flip"}
    n_resamples : int
        Resamples in the table (``2**n`` for an exact sign-flip enumeration).
    exact : bool
        Whether the sign patterns are all ``2**n`` of them (sign-flip only).
    seed : int
    """

    qids: tuple[str, ...]
    kind: str
    n_resamples: int
    exact: bool
    seed: int
    _weights: Any = field(repr=False, compare=False)
    _chunk_elements: int = field(default=DEFAULT_CHUNK_ELEMENTS, repr=False, compare=False)

    def __post_init__(self) -> None:
        require_bool_fields(self)   # a bool field given "false" or 0 names the field

    @property
    def weight(self) -> str:
        """Name of the weight column: ``count`` (bootstrap) or ``sign`` (sign-flip)."""
        return "count" if self.kind == "bootstrap" else "sign"

    def weights(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``(resample, position, weight)`` int64 arrays per chunk, ordered by resample then position."""
        return self._weights(self._chunk_elements)

    def __iter__(self) -> Iterator[pl.DataFrame]:
        """Chunks ``resample, qid, count`` (or ``sign``) as polars frames (Int64, String, Int64)."""
        qids = pl.Series("qid", self.qids, dtype=pl.String)
        for resample, position, weight in self.weights():
            yield pl.DataFrame({"resample": resample, "qid": qids.gather(position), self.weight: weight})

    def collect(self) -> pl.DataFrame:
        """The whole table in one frame (``B * n`` rows or fewer: mind the size).

        Raises
        ------
        ResamplingCostError
            The table would not fit in memory (about 48 bytes a row; :mod:`pairedframe.comparison._cost`).
        """
        n = len(self.qids)
        check_resampling_cost(self.n_resamples, argument="n_resamples", draws=self.n_resamples, units=n,
                              kept=6 * n, advice=" or iterate over the chunks instead of collecting them")
        chunks = list(self)
        if not chunks:
            return pl.DataFrame(schema={"resample": pl.Int64, "qid": pl.String, self.weight: pl.Int64})
        return pl.concat(chunks)


def _counted(index_chunks: Iterator[np.ndarray], first: int = 0):
    """(rows, n) index chunks -> (resample, position, count) of the drawn positions."""
    r0 = first
    for idx in index_chunks:
        rows, n = idx.shape
        flat = (idx + (np.arange(rows, dtype=np.int64) * n)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rows * n)
        cell = np.flatnonzero(counts)
        yield r0 + cell // n, cell % n, counts[cell].astype(np.int64)
        r0 += rows


def _signed(sign_chunks: Iterator[np.ndarray]):
    """(rows, n) +-1 chunks -> (resample, position, sign) of every cell."""
    r0 = 0
    for signs in sign_chunks:
        rows, n = signs.shape
        yield (np.repeat(np.arange(r0, r0 + rows, dtype=np.int64), n), np.tile(np.arange(n, dtype=np.int64), rows),
               signs.astype(np.int64).ravel())
        r0 += rows


def _expanded(chunks, codes: np.ndarray, G: int):
    """Cluster-level (resample, cluster, weight) -> query-level rows: every query of a cluster gets
    the cluster's weight (queries in position order inside a resample)."""
    members = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=G)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    for resample, cluster, weight in chunks:
        reps = sizes[cluster]
        first = np.repeat(starts[cluster] - (np.cumsum(reps) - reps), reps) + np.arange(int(reps.sum()))
        pos = members[first]
        res = np.repeat(resample, reps)
        order = np.lexsort((pos, res))
        yield res[order], pos[order], np.repeat(weight, reps)[order]


def segment_index_chunks(key: int, n: int, n_resamples: int, chunk_rows: int, *,
                         kind: str) -> Iterator[np.ndarray]:
    """The counter-based draws of :mod:`pairedframe.comparison.segments` for one unit of ``n``
    queries: bootstrap positions ``floor(u * n / 2**32)`` or sign bits ``u >> 31`` (1 = flipped),
    as (rows, n) int64 chunks."""
    base = (((np.arange(n, dtype=np.uint64) + np.uint64(1)) * np.uint64(0x9E3779B9)) & np.uint64(0xFFFFFFFF)
            ).astype(np.uint32)
    keys = np.array([key], dtype=np.uint64)
    for b0 in range(0, n_resamples, chunk_rows):
        rows = np.arange(b0, min(n_resamples, b0 + chunk_rows))
        x = row_seeds(keys, rows)[:, :1] + base[None, :]
        mix32_inplace(x, np.empty_like(x))
        if kind == "bootstrap":
            yield ((x.astype(np.float64) * (n * 2.0**-32)).astype(np.int64))
        else:
            yield (x >> np.uint32(31)).astype(np.int64)


def resample_index(query_ids: Sequence[Any], *, n_resamples: int, seed: int = 0,
                   kind: Literal["bootstrap", "sign-flip"] = "bootstrap", clusters: Sequence[Any] | None = None,
                   segment: tuple[str, str] | None = None, chunk_elements: int | None = None) -> ResampleIndex:
    """The resamples :func:`~pairedframe.compare` draws for a query set, as a table built in chunks.

    Parameters
    ----------
    query_ids : sequence
        The queries of the comparison (converted with ``str``; order and duplicates ignored, except
        that ``clusters`` is aligned with it).
    n_resamples : int
        ``B`` (>= 1), as passed to ``compare``.
    seed : int, default 0
        The comparison's seed.
    kind : {"bootstrap", "sign-flip"}
        Bootstrap multisets (``count``) or sign-flip patterns (``sign`` = +1 or -1).
    clusters : sequence, optional
        Cluster id of each query (aligned with ``query_ids``): the resamples of
        :func:`~pairedframe.compare_clustered`, whole clusters at a time.
    segment : (str, str), optional
        ``(segment_set, segment)``: the counter-based resamples of
        :func:`~pairedframe.compare_segments` for a unit of that segment with these queries.
    chunk_elements : int, optional
        About how many draws (resamples x queries) make one chunk (default 2**22; memory knob only).

    Returns
    -------
    ResampleIndex
        Iterating it yields polars frames ``resample, qid, count`` -- one row per (resample, query
        drawn at least once), ``resample`` in ``0..B-1``, counts summing to ``n`` per resample (with
        clusters: every query of a drawn cluster, with the cluster's count) -- or ``resample, qid,
        sign``, one row per (resample, query). Rows come ordered by resample, then qid; a chunk holds
        whole resamples. ``.weights()`` gives the same as int64 arrays with positions for qids.

    Raises
    ------
    ResamplingCostError
        ``n_resamples`` would take absurd time or memory for this data, estimated before any
        resampling (:mod:`pairedframe.comparison._cost`; the message gives the largest value that fits).
    EmptyResultError
        No query id.
    ValueError, TypeError
        Bad options, clusters not aligned with the queries, a query id twice
        together with clusters, or clusters and segment together.

    Examples
    --------
    The bootstrap mean of resample ``r`` is ``sum(count * d) / sum(count)`` over its rows, which with
    the deltas in code-point order of qid reproduces the interval of ``compare`` (to ~1e-15).
    """
    n_resamples = check_int(n_resamples, "n_resamples", minimum=1)
    seed = check_int(seed, "seed", minimum=0)
    if kind not in _KINDS:
        raise ValueError(f"`kind` must be one of {_KINDS}, got {kind!r}")
    if clusters is not None and segment is not None:
        raise ValueError("pass `clusters` or `segment`, not both")
    elements = DEFAULT_CHUNK_ELEMENTS if chunk_elements is None else check_int(chunk_elements, "chunk_elements",
                                                                                minimum=1)
    ids = scalar_ids(list(query_ids), "query_ids")
    if clusters is not None:
        clusters = scalar_ids(list(clusters), "clusters")
        if len(clusters) != len(ids):
            raise ValueError(f"`clusters` must have one id per query ({len(ids)}), got {len(clusters)}")
        if len(set(ids)) != len(ids):
            raise ValueError("with `clusters`, every query id must appear once")
        order = sorted(range(len(ids)), key=ids.__getitem__)
        qids = [ids[i] for i in order]
        cl = [clusters[i] for i in order]
    else:
        qids = sorted(set(ids))
    n = len(qids)
    require_rows(n, what="`query_ids`", why="a resample index needs at least one query")
    exact = kind == "sign-flip" and n < 63 and (1 << n) <= n_resamples
    # made in chunks, never held whole: the time to produce every row is what can be absurd
    check_resampling_cost(n_resamples, argument="n_resamples", draws=(1 << n) if exact else n_resamples, units=n)

    if segment is not None:
        k_boot, k_flip = segment_keys(seed, *segment)
        key = k_boot if kind == "bootstrap" else k_flip
        count = (1 << n) if exact else n_resamples

        def weights(chunk_elements: int):
            rows = max(1, chunk_elements // n)
            if kind == "bootstrap":
                return _counted(segment_index_chunks(key, n, n_resamples, rows, kind=kind))
            if exact:
                return _signed(sign_pattern_chunks(n, chunk_size=rows))
            return _signed(1 - 2 * c for c in segment_index_chunks(key, n, n_resamples, rows, kind=kind))
    elif clusters is not None:
        codes, members = cluster_layout(qids, cl)
        G = len(members)
        exact = kind == "sign-flip" and G < 63 and (1 << G) <= n_resamples
        count = (1 << G) if exact else n_resamples

        def weights(chunk_elements: int):
            boot_rng, flip_rng = cluster_streams(seed, qids, cl)
            rows = max(1, chunk_elements // max(n, G))
            if kind == "bootstrap":
                level = _counted(bootstrap_index_chunks(G, n_resamples, seed=boot_rng, chunk_size=rows))
            elif exact:
                level = _signed(sign_pattern_chunks(G, chunk_size=rows))
            else:
                level = _signed(sign_flip_chunks(G, n_resamples, seed=flip_rng, chunk_size=rows))
            return _expanded(level, codes, G)
    else:
        count = (1 << n) if exact else n_resamples

        def weights(chunk_elements: int):
            boot_rng, flip_rng = resample_generators(seed, qids)
            rows = max(1, chunk_elements // n)
            if kind == "bootstrap":
                return _counted(bootstrap_index_chunks(n, n_resamples, seed=boot_rng, chunk_size=rows))
            if exact:
                return _signed(sign_pattern_chunks(n, chunk_size=rows))
            return _signed(sign_flip_chunks(n, n_resamples, seed=flip_rng, chunk_size=rows))
    return ResampleIndex(qids=tuple(qids), kind=kind, n_resamples=count, exact=exact, seed=seed,
                         _weights=weights, _chunk_elements=elements)
