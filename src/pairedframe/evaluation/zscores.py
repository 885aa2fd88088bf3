"""Z-scores (trec_eval ``-Z FILE``, convert_zscores.c): each query's value as standard deviations from
the mean of a reference set of runs, read from a file of per-(query, measure) means and deviations."""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from pairedframe.measures import Measure

#: trec_eval's value for a query or measure missing from the file (MISSING_ZSCORE_VALUE).
MISSING = -1_000_000.0


def standardize(per_query: pl.DataFrame, measures: tuple[Measure, ...], reference: pl.DataFrame) -> pl.DataFrame:
    """``per_query`` (system, qid, measure, value) with each value replaced by its z-score:
    (value - mean) / stddev from ``reference`` (qid, measure, mean, stddev; measure: trec_eval's
    name). A query or measure the reference lacks gets -1000000, as does a value different from its
    mean when stddev is 0 (equal: 0), as trec_eval does. The geometric-mean measures (gm_map,
    gm_bpref) are standardized as trec_eval stores them, on the log of the value."""
    names = pl.DataFrame({"measure": [m.name for m in measures], "_trec": [m.trec_name for m in measures],
                          "_log": [m.spec.aggregate == "gmean" for m in measures]})
    stats = reference.rename({"measure": "_trec"})
    table = (per_query.with_row_index("_row").join(names, on="measure", how="left")
             .join(stats, on=["qid", "_trec"], how="left").sort("_row"))
    raw = table["value"].to_numpy().astype(np.float64)
    logged = table["_log"].fill_null(False).to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = np.where(logged, np.array([math.log(v) if v is not None and v > 0 else math.nan for v in
                                         table["value"].to_list()]), raw)
    mean, stddev = table["mean"].to_numpy().astype(np.float64), table["stddev"].to_numpy().astype(np.float64)
    missing = table["mean"].is_null().to_numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(stddev != 0, (raw - mean) / stddev, np.where(raw == mean, 0.0, MISSING))
    z = np.where(missing, MISSING, z)
    value = pl.Series("value", z, dtype=pl.Float64).set(table["value"].is_null(), None)
    return table.select("system", "qid", "measure").with_columns(value)
