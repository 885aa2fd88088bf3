"""Paired comparisons on per-query frames (the frame layer over :mod:`pairedframe.stats`)."""

from pairedframe.comparison.paired import (
    PVALUE_TIE_RULE,
    QUERY_SET_POLICY,
    VERDICTS,
    WIN_RULE,
    PairedComparison,
    compare,
    compare_pair,
    paired_per_query,
    resample_generators,
    worst_queries,
)

__all__ = ["PVALUE_TIE_RULE", "QUERY_SET_POLICY", "VERDICTS", "WIN_RULE", "PairedComparison", "compare",
           "compare_pair", "paired_per_query", "resample_generators", "worst_queries"]
