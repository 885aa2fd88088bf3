"""Geometric-mean measures: gm_map and gm_bpref (trec_eval m_gm_map.c, m_gm_bpref.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import ordered_sum, per_query, quotient, ratio, with_row_columns
from pairedframe.measures.base import UNIT, MIN_GEO_MEAN, Measure, PolarsContext, TrecForm, family
from pairedframe.measures.bpref import bpref_terms


def _floored(value: pl.Expr) -> pl.Expr:
    return pl.max_horizontal(value, pl.lit(MIN_GEO_MEAN))


@family(key="GMAP", value_range=UNIT,
        aliases=("gm_map",), trec=TrecForm("gm_map", "single", 60), sql_file="gm_map.sql",
        cutoff="none", aggregate="gmean", per_query_printed=False, empty_value="0.00001")
def gm_map(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Geometric mean average precision: per query ``max(AP, 0.00001)`` (AP as trec_eval's ``map``),
    and over queries the geometric mean ``exp(sum(log(value)) / n)``, the logs added in query order.

    Rewards systems that are consistent over queries (Robertson, 2006). trec_eval prints it in the
    summary only; the per-query table carries the floored AP. Value 0.00001 for a query without a
    relevant retrieved document. Source: trec_eval m_gm_map.c, meas_avg.c (te_calc_avg_meas_s_gm).
    """
    ctx = with_row_columns(ctx, precision=quotient(pl.col("rel_cum"), pl.col("rank")))
    total = ordered_sum(pl.col("precision"), pl.col("is_rel"), presorted=True)
    return per_query(ctx, _floored(ratio(pl.col("total"), pl.col("num_rel"))), total=total)


@family(key="GMBpref", value_range=UNIT,
        aliases=("gm_bpref",), trec=TrecForm("gm_bpref", "single", 150), sql_file="gm_bpref.sql",
        cutoff="none", aggregate="gmean", per_query_printed=False, empty_value="0.00001")
def gm_bpref(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """bpref, geometric mean over queries: per query ``max(bpref, 0.00001)`` (bpref as trec_eval's),
    summarised as ``exp(sum(log(value)) / n)``. Printed in the summary only, as trec_eval does.
    Source: trec_eval m_gm_bpref.c.
    """
    ctx = with_row_columns(ctx, term=bpref_terms())
    total = ordered_sum(pl.col("term"), pl.col("is_rel"), presorted=True)
    return per_query(ctx, _floored(ratio(pl.col("total"), pl.col("num_rel"))), total=total)
