"""Paired comparisons on per-query frames (the frame layer over :mod:`pairedframe.stats`).

Layout (imports point down this list; ``tests/test_layers.py`` refuses an import circle):

- shared steps: :mod:`~pairedframe.comparison.options` (the checked options record),
  :mod:`~pairedframe.comparison.pairing` (any table form -> per-query frame -> pairs with ``b - a``, once),
  :mod:`~pairedframe.comparison.streams` (every seed derivation), :mod:`~pairedframe.comparison.assemble`
  (statistics -> adjusted p-values, verdicts, notes), :mod:`~pairedframe.comparison.verdicts`,
  :mod:`~pairedframe.comparison.segment_tables`, :mod:`~pairedframe.comparison.cluster_tables`;
- backends: the in-engine ones (:mod:`~pairedframe.comparison.by_join`, ``by_join_clustered``,
  ``by_join_segments``: DuckDB / Spark, resampled as joins) use only the shared steps, the engine helpers
  of ``by_join`` and ``resample_index`` -- never an entry-point module;
- entry points: :func:`pairedframe.compare` (:mod:`~pairedframe.comparison.paired` and ``multi``),
  :func:`pairedframe.compare_clustered`, :func:`pairedframe.compare_segments`; each checks its options,
  hands an engine table to its in-engine backend, and runs its numpy kernel otherwise.

Adding a comparison type (rank intervals across many systems and LLM-judge budgets are next): write one
module with its entry point and kernel; read the input with ``pairing.as_frame`` / ``pairing.pair_systems``,
draw from a new keyed stream added to ``streams.py`` (a key naming the type, so no other type's draws
move), hand the per-comparison statistics to ``assemble.finish_table`` (or a sibling in the shared
layer), and touch ``options.py`` only for a new option.  The vocabulary is scipy's: ``confidence_level``,
``alternative``, ``n_resamples``, ``seed``; the multiple-testing correction is ``correction=`` within the
families of ``family_by=``; an old spelling raises :class:`pairedframe.errors.RenamedKeywordError`.
"""

from pairedframe.comparison.paired import (
    PVALUE_TIE_RULE,
    QUERY_SET_POLICY,
    VERDICTS,
    WIN_RULE,
    PairedComparison,
    compare_pair,
    paired_per_query,
    resample_generators,
    worst_queries,
)
from pairedframe.comparison.multi import compare  # one baseline, several, or all pairs

__all__ = ["PVALUE_TIE_RULE", "QUERY_SET_POLICY", "VERDICTS", "WIN_RULE", "PairedComparison", "compare",
           "compare_pair", "paired_per_query", "resample_generators", "worst_queries"]
