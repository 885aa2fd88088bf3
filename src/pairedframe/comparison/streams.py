"""Every seed derivation of the comparisons: one place for the random streams (issue 21).

A comparison's draws depend only on the user's ``seed`` and the identity of what is resampled, never
on the other comparisons of the call, the order of the rows or the backend:

- a query set (:func:`resample_generators`): numpy PCG64 streams keyed by ``(seed, query_set_key(qids))``
  (:func:`pairedframe.stats.resample.keyed_seed_sequence`), one for the bootstrap index and one for
  sign flips;
- a clustered query set (:func:`cluster_streams`): the same, keyed by the partition into clusters too
  (:func:`cluster_layout` numbers clusters canonically); singleton clusters give the query-set streams;
- a segment (:func:`segment_keys`; the words drawn from its keys, :func:`row_seeds` and
  :func:`mix32_inplace`, live in :mod:`pairedframe.stats.segment_resample`): counter-based SplitMix
  streams (:mod:`pairedframe.comparison.segments` describes them), so thousands of segments resample
  in one vectorised pass.

:mod:`pairedframe.comparison.resample_index` rebuilds any comparison's resample index from these
functions alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from pairedframe.stats.resample import keyed_seed_sequence, query_set_key
# the counter-based words of a segment's resamples (pure numpy, beside the kernel that draws them)
from pairedframe.stats.segment_resample import mix32_inplace, row_seeds

__all__ = ["resample_generators", "cluster_layout", "cluster_streams", "partition_key", "segment_keys", "row_seeds",
           "mix32_inplace"]



# ----------------------------------------------------------------------------------------------
# a query set, a clustered query set
# ----------------------------------------------------------------------------------------------

def resample_generators(seed: int, qids: Iterable[Any]) -> tuple[np.random.Generator, np.random.Generator]:
    """The (bootstrap, sign-flip) generators :func:`~pairedframe.compare` uses for a query set.

    Parameters
    ----------
    seed : int
        Non-negative user seed.
    qids : iterable
        The query ids of the comparison (order and duplicates ignored; converted with ``str``).

    Returns
    -------
    (numpy.random.Generator, numpy.random.Generator)
        ``default_rng(keyed_seed_sequence(seed, query_set_key(qids)))`` for the bootstrap index, and
        ``default_rng(keyed_seed_sequence(seed, ("sign-flip", query_set_key(qids))))`` for sign flips.
        With the deltas in code-point order of ``qid``, ``scipy.stats.bootstrap((d,), np.mean,
        rng=<first generator>, method="percentile")`` reproduces the interval of :func:`~pairedframe.compare`.
    """
    key = query_set_key([str(q) for q in qids])
    return (np.random.default_rng(keyed_seed_sequence(seed, key)),
            np.random.default_rng(keyed_seed_sequence(seed, ("sign-flip", key))))


def cluster_layout(qids: Sequence[str], clusters: Sequence[Any]) -> tuple[np.ndarray, list[list[str]]]:
    """Canonical cluster order of a query set.

    Parameters
    ----------
    qids : sequence of str, shape (n,)
        Distinct query ids.
    clusters : sequence, shape (n,)
        Cluster id of each query (any hashable; only equality is used).

    Returns
    -------
    codes : ndarray of intp, shape (n,)
        Canonical cluster number ``0..G-1`` of each query: clusters are numbered in code-point order
        of their smallest qid, so the numbering depends only on the partition, not on the labels.
    members : list of G lists of str
        The qids of each cluster, sorted, in canonical order.
    """
    groups: dict[Any, list[str]] = {}
    for q, c in zip(qids, clusters):
        groups.setdefault(c, []).append(str(q))
    members = sorted((sorted(m) for m in groups.values()), key=lambda m: m[0])
    where = {q: g for g, m in enumerate(members) for q in m}
    codes = np.fromiter((where[str(q)] for q in qids), dtype=np.intp, count=len(qids))
    return codes, members


def partition_key(members: list[list[str]]) -> bytes:
    """A 32-byte key of a partition into clusters (their sorted members, in canonical order)."""
    h = hashlib.blake2b(digest_size=32, person=b"pf-partition")
    for m in members:
        h.update(query_set_key(m))
    return h.digest()


def cluster_streams(seed: int, qids: Sequence[Any], clusters: Sequence[Any]
                    ) -> tuple[np.random.Generator, np.random.Generator]:
    """The (cluster bootstrap, cluster sign-flip) generators :func:`~pairedframe.compare_clustered` uses.

    Parameters
    ----------
    seed : int
        Non-negative user seed.
    qids, clusters : sequences of shape (n,)
        The paired queries of a comparison and their cluster ids.

    Returns
    -------
    (numpy.random.Generator, numpy.random.Generator)
        Keyed by the seed, the query set and the partition into clusters (module docstring).  With
        singleton clusters these are exactly :func:`pairedframe.comparison.resample_generators`.
    """
    qids = [str(q) for q in qids]
    _, members = cluster_layout(qids, clusters)
    qkey = query_set_key(qids)
    key: Any = qkey if len(members) == len(qids) else ("cluster", qkey, partition_key(members))
    return (np.random.default_rng(keyed_seed_sequence(seed, key)),
            np.random.default_rng(keyed_seed_sequence(seed, ("sign-flip", key))))


# ----------------------------------------------------------------------------------------------
# a segment: counter-based streams
# ----------------------------------------------------------------------------------------------

def segment_keys(seed: int, segment_set: str, segment: str) -> tuple[int, int]:
    """The (bootstrap, sign-flip) 64-bit stream keys of a segment.

    Parameters
    ----------
    seed : int
        Non-negative user seed.
    segment_set, segment : str
        The segment's identity.

    Returns
    -------
    (int, int)
        ``keyed_seed_sequence(seed, ("segment", segment_set, segment)).generate_state(2, np.uint64)``.
    """
    k = keyed_seed_sequence(seed, ("segment", str(segment_set), str(segment))).generate_state(2, np.uint64)
    return int(k[0]), int(k[1])
