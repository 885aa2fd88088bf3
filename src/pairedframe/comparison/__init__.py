"""Paired comparisons on per-query frames (the frame layer over :mod:`pairedframe.stats`).

Layout (imports point down this list; ``tests/test_layers.py`` refuses an import circle):

- shared steps: :mod:`~pairedframe.comparison.options` (the checked options record),
  :mod:`~pairedframe.comparison.pairing` (any table form -> per-query frame -> pairs with ``b - a``, once),
  :mod:`~pairedframe.comparison.streams` (every seed derivation), :mod:`~pairedframe.comparison.assemble`
  (statistics -> adjusted p-values, verdicts, notes), :mod:`~pairedframe.comparison.verdicts`,
  :mod:`~pairedframe.comparison.segment_tables`, :mod:`~pairedframe.comparison.cluster_tables`, and the
  per-comparison statistics records :mod:`~pairedframe.comparison.comparison_stats` and ``segment_stats``;
- backends: the in-engine ones (:mod:`~pairedframe.comparison.by_join`, ``by_join_clustered``,
  ``by_join_segments``: DuckDB / Spark, resampled as joins) use only the shared steps, the engine helpers
  of ``by_join`` and ``resample_index`` -- never an entry-point module;
- entry points: :func:`pairedframe.compare` (:mod:`~pairedframe.comparison.paired` and ``multi``),
  :func:`pairedframe.compare_clustered`, :func:`pairedframe.compare_segments`; each checks its options,
  hands an engine table to its in-engine backend, and runs its numpy kernel otherwise.

Options: every entry point takes explicit keywords (scipy's vocabulary: ``confidence_level``,
``alternative``, ``n_resamples``, ``seed``; the multiple-testing correction is ``correction=`` within the
families of ``family_by=``; an old spelling raises :class:`pairedframe.errors.RenamedKeywordError`) and
checks them once, before any table is read, into a frozen record of :mod:`~pairedframe.comparison.options`:
``Options`` (:func:`pairedframe.compare`, ``compare_clustered``, the in-engine ``compare``),
``SegmentOptions`` (``compare_segments``), ``RankOptions`` (``rank_agreement``) -- each built on the shared
``Resampling`` base (``check_resampling``) -- ``PPIOptions`` (``ppi_compare*``, closed form) and
``check_level`` (``label_agreement``, ``results_table``); :func:`pairedframe.analyze` reads its options from
the plan file, checked once into the frozen :class:`~pairedframe.comparison.plan_file.Plan` (errors name
the plan key).  Every option error quotes the parameter in backquotes (```confidence_level` must be
...``), which is what lets the CLI name the flag the user typed instead (``--confidence-level must be
...``; :func:`pairedframe.cli.common.name_flags` maps every option of the command, so a new command
needs nothing more).

Adding a comparison type (rank intervals across many systems and LLM-judge budgets are next): write one
module with its entry point and kernel; check its options with the records above -- only an option no
record has touches ``options.py``: append a frozen record subclassing ``Resampling`` and a
``check_<type>_options`` that calls ``check_resampling`` for the shared part (append; never reorder a
record's fields); read the input with ``pairing.as_frame`` / ``pairing.pair_systems``, draw from a new
keyed stream added to ``streams.py`` (a key naming the type, so no other type's draws move), put pure
numpy kernels in :mod:`pairedframe.stats`, and hand the per-comparison statistics to
``assemble.finish_table`` as a ``comparison_stats.ComparisonStats`` record -- or, when its statistics do
not fit those fields, to a sibling table step in the shared layer as its own frozen record of arrays, as
the segment comparison hands a ``segment_stats.SegmentStats`` to ``segment_tables.segments_table``
(never a dict keyed by strings; a changed interval is a ``dataclasses.replace`` copy); register its door
in ``tests/conformance``.

Return types, one rule: an answer that is rows -- one per comparison, pair, unit or segment -- is a polars
``DataFrame`` (``compare``, ``compare_clustered``, ``compare_segments``, ``ppi_compare_segments``,
``paired_per_query``, ``worst_queries``, ``rbo``); an answer that is one comparison, or has several parts,
is a frozen dataclass with scipy's field names (``statistic``, ``pvalue``, ``confidence_interval``) whose
rows, if it has any, are a polars frame in ``.table`` (``analyze`` -> ``AnalysisResult.table``,
``rank_agreement`` -> ``RankAgreement.table``, ``label_agreement`` -> ``LabelAgreement.table``,
``results_table`` -> ``ResultsTable.table``; the old ``to_frame()`` / ``.frame`` raise an error naming
``.table``); ``compare_pair`` / ``ppi_compare`` answer one comparison and have no rows
(``PairedComparison``, ``PPIResult``).  A new comparison type follows it.
"""

from pairedframe.comparison.paired import PVALUE_TIE_RULE, QUERY_SET_POLICY, VERDICTS, WIN_RULE, resample_generators
from pairedframe.comparison.pair import PairedComparison, compare_pair
from pairedframe.comparison.per_query import paired_per_query, worst_queries
from pairedframe.comparison.multi import compare  # one baseline, several, or all pairs

__all__ = ["PVALUE_TIE_RULE", "QUERY_SET_POLICY", "VERDICTS", "WIN_RULE", "PairedComparison", "compare",
           "compare_pair", "paired_per_query", "resample_generators", "worst_queries"]
