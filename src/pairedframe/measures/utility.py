"""Set utility (trec_eval ``utility``; m_utility.c)."""

from __future__ import annotations

import warnings
from collections.abc import Iterable

import polars as pl

from pairedframe.errors import user_stacklevel

from pairedframe.measures.polars_exprs import per_query
from pairedframe.measures._trec import doubles, number_text
from pairedframe.measures.base import Interval, Measure, Param, PolarsContext, TrecForm, family

WEIGHTS = (1.0, -1.0, 0.0, 0.0)


def _parse(text: str) -> dict:
    weights = tuple(doubles(text))
    if len(weights) != 4:
        raise ValueError(f"utility needs 4 coefficients (improper number of coefficients: {len(weights)})")
    return {"params": {"weights": weights}}


def _printable(measure: Measure) -> str:
    weights = measure.param("weights")
    return "" if weights == WEIGHTS else ",".join(number_text(w) for w in weights)


def warn_missing_collection_size(measures: Iterable[Measure]) -> None:
    """Warn for each utility measure with a nonzero fourth weight and no collection size.

    Its d (non-relevant not retrieved) is ``collection_size + a - retrieved - R``: with the default
    size 0 it is negative, and the value is trec_eval's without -N, silently meaningless. The value is
    kept (trec_eval's); the warning says how to give the size.

    Parameters
    ----------
    measures : iterable of Measure
    """
    for m in measures:
        if m.family == "Utility" and float(m.param("weights")[3]) != 0 and not m.param("collection_size"):
            warnings.warn(
                f"{m.name}: the fourth weight (non-relevant not retrieved, d = N + a - retrieved - R) needs the "
                "collection size N, which is not given (0), so d is negative, as in trec_eval without -N: give "
                "collection_size (Utility(weights=(...),collection_size=N); -N/--collection-size in the CLI)",
                UserWarning, stacklevel=user_stacklevel())


@family(key="Utility", aliases=("utility",), trec=TrecForm("utility", "params", 170, parse=_parse, printable=_printable),
        sql_file="utility.sql", cutoff="none", complete_reset="bare",
        params=(Param("weights", "floats", WEIGHTS, "coefficients of a, b, c, d", length=4),
                Param("collection_size", "int", 0, "documents in the collection (trec_eval -N)",
                      Interval(0.0))),
        empty_value="weights[2] * R + weights[3] * (N - R)",
        examples=("Utility(weights=(2,-1,0,0))", "Utility(weights=(1,-1,-0.5,0.1),collection_size=500)",
                  "utility.2,-1,0,0"))
def utility(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """Set utility ``w1*a + w2*b + w3*c + w4*d`` over the contingency table of the retrieved set:
    a relevant retrieved, b non-relevant retrieved, c relevant not retrieved, d non-relevant not
    retrieved (d = collection_size + a - retrieved - R, with ``collection_size`` trec_eval's -N, 0
    by default). Default weights (1, -1, 0, 0): relevant retrieved minus non-relevant retrieved.
    Aggregated as the mean over queries, as trec_eval does. An empty ranking (a query missing from
    a run with ``complete=True``) has a = b = 0. Source: trec_eval m_utility.c.
    """
    w1, w2, w3, w4 = (float(w) for w in measure.param("weights"))
    n = int(measure.param("collection_size"))
    a, ret, rel = pl.col("a"), pl.col("num_ret"), pl.col("num_rel")
    value = (pl.lit(w1) * a + pl.lit(w2) * (ret - a) + pl.lit(w3) * (rel - a)
             + pl.lit(w4) * (pl.lit(n) + a - ret - rel))
    return per_query(ctx, value, a=pl.col("is_rel").sum())
