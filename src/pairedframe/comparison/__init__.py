"""Paired comparisons on per-query frames (the frame layer over :mod:`pairedframe.stats`)."""

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
