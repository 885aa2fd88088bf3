"""Measures of the retrieved set as a whole, ranks ignored: set_P, set_relative_P, set_recall,
set_map, set_F (trec_eval m_set_P.c, m_set_rel_P.c, m_set_recall.c, m_set_map.c, m_set_F.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import per_query, quotient, ratio
from pairedframe.measures._trec import doubles, number_text
from pairedframe.measures.base import UNIT, Interval, Measure, Param, PolarsContext, TrecForm, family

A = pl.col("a")  # relevant retrieved
RET, REL = pl.col("num_ret"), pl.col("num_rel")


def _set(ctx: PolarsContext, value: pl.Expr) -> pl.LazyFrame:
    return per_query(ctx, value, a=pl.col("is_rel").sum())


@family(key="SetP", value_range=UNIT, aliases=("set_p",), trec=TrecForm("set_P", "single", 300), sql_file="set_p.sql",
        cutoff="none", empty_value="0")
def set_p(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Set precision: relevant retrieved / retrieved (after the depth cut). ``trec_eval -M 50 -m
    set_P`` differs from P@50 when fewer than 50 are retrieved. 0 for an empty ranking.
    Source: trec_eval m_set_P.c.
    """
    return _set(ctx, ratio(A, RET))


@family(key="SetRelP", value_range=UNIT, aliases=("set_relative_p",), trec=TrecForm("set_relative_P", "single", 310),
        sql_file="set_rel_p.sql", cutoff="none", empty_value="0")
def set_rel_p(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Relative set precision: relevant retrieved / min(retrieved, R), the precision relative to the
    best possible for a set of that size. 0 when R = 0 or nothing is retrieved.
    Source: trec_eval m_set_rel_P.c.
    """
    return _set(ctx, pl.when((RET > 0) & (REL > 0)).then(quotient(A, pl.min_horizontal(RET, REL))).otherwise(0.0))


@family(key="SetR", value_range=UNIT,
        aliases=("set_recall",), trec=TrecForm("set_recall", "single", 320), sql_file="set_recall.sql",
        cutoff="none", empty_value="0")
def set_recall(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Set recall: relevant retrieved / R. 0 when R = 0. Source: trec_eval m_set_recall.c."""
    return _set(ctx, ratio(A, REL))


@family(key="SetAP", value_range=UNIT,
        aliases=("set_map",), trec=TrecForm("set_map", "single", 330), sql_file="set_map.sql",
        cutoff="none", empty_value="0")
def set_map(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Unranked set AP: a^2 / (retrieved * R) = set precision x set recall (a relevant retrieved).
    0 when R = 0 or nothing is retrieved. Source: trec_eval m_set_map.c.
    """
    value = quotient(A.cast(pl.Float64) * A.cast(pl.Float64), RET.cast(pl.Float64) * REL.cast(pl.Float64))
    return _set(ctx, pl.when((RET > 0) & (REL > 0)).then(value).otherwise(0.0))


def _parse_beta(text: str) -> dict:
    return {"params": {"beta": doubles(text)[0]}}


def _printable_beta(measure: Measure) -> str:
    beta = measure.param("beta")
    return "" if beta == 1.0 else number_text(beta)


@family(key="SetF", value_range=UNIT, aliases=("set_f",), trec=TrecForm("set_F", "params", 340, parse=_parse_beta,
                                                       printable=_printable_beta),
        sql_file="set_f.sql", cutoff="none", params=(Param("beta", "float", 1.0, "weight of recall", Interval(0.0)),),
        empty_value="0", examples=("SetF(beta=0.5)", "set_F.2"))
def set_f(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Set F: ``(beta + 1) * P * R / (beta * P + R)`` with P, R the set precision and recall
    (van Rijsbergen's F with beta the relative weight of recall; trec_eval's parameterisation,
    beta = 1 gives F1). 0 when no relevant document is retrieved. Source: trec_eval m_set_F.c.
    """
    beta = float(measure.param("beta"))
    p, r = quotient(A, RET), quotient(A, REL)
    return _set(ctx, pl.when(A > 0).then(quotient((pl.lit(beta) + 1.0) * p * r, pl.lit(beta) * p + r)).otherwise(0.0))
