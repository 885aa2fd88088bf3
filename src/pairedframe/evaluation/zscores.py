"""Z-scores (trec_eval ``-Z FILE``, convert_zscores.c): each query's value as standard deviations from
the mean of a reference set of runs, read from a file of per-(query, measure) means and deviations."""

from __future__ import annotations

import math
import warnings
from typing import Literal

import numpy as np
import polars as pl

from pairedframe.errors import DuplicateError, user_stacklevel
from pairedframe.measures import Measure, parse_measure

#: trec_eval's value for a query or measure missing from the file (MISSING_ZSCORE_VALUE).
MISSING = -1_000_000.0


def _other_spellings(reference: pl.DataFrame, measures: tuple[Measure, ...]) -> dict[str, str]:
    """The reference's names that spell an evaluated measure another way (``AP``, ``nDCG@10``, as
    pairedframe prints them) -> trec_eval's name of it (``map``, ``ndcg_cut_10``), when the reference
    lacks that trec_eval name: the names a comparison reads as one measure."""
    present = set(reference["measure"].unique().to_list())
    trec_names = {m.trec_name for m in measures}
    spelled: dict[str, str] = {}
    for name in sorted(present - trec_names):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                parsed = parse_measure(name)
            except (ValueError, TypeError):
                continue
        if len(parsed) == 1 and parsed[0].trec_name in trec_names - present:
            spelled[name] = parsed[0].trec_name
    return spelled


def _read_names(reference: pl.DataFrame, spelled: dict[str, str]) -> pl.DataFrame:
    """``reference`` under trec_eval's names; two spellings of one measure are its statistics twice."""
    by_trec: dict[str, list[str]] = {}
    for name, trec in spelled.items():
        by_trec.setdefault(trec, []).append(name)
    twice = next((names for names in by_trec.values() if len(names) > 1), None)
    if twice is not None:
        raise DuplicateError(f"the zscores reference spells the measure {spelled[twice[0]]} as "
                             f"{' and '.join(map(repr, twice))}: keep one of them")
    return reference.with_columns(pl.col("measure").replace(spelled))


def _warn_trec_spellings(spelled: dict[str, str]) -> None:
    """trec_eval -Z reads only its own names: a pairedframe spelling in the reference matches nothing."""
    names = ", ".join(f"{k!r} (spell it {v!r})" for k, v in list(spelled.items())[:5])
    warnings.warn(f"the zscores reference names {names}: pairedframe's spelling of a measure evaluated, which trec_eval "
                  "-Z does not read, so that measure's z-scores are trec_eval's -1000000 marker for a missing value",
                  UserWarning, stacklevel=user_stacklevel())


def standardize(per_query: pl.DataFrame, measures: tuple[Measure, ...], reference: pl.DataFrame,
                names: Literal["any", "trec_eval"] = "any") -> pl.DataFrame:
    """``per_query`` (system, qid, measure, value) with each value replaced by its z-score:
    (value - mean) / stddev from ``reference`` (qid, measure, mean, stddev; measure: trec_eval's
    name). A query or measure the reference lacks gets -1000000, as does a value different from its
    mean when stddev is 0 (equal: 0), as trec_eval does. The geometric-mean measures (gm_map,
    gm_bpref) are standardized as trec_eval stores them, on the log of the value. ``names="any"`` reads
    pairedframe's names of a measure too (``AP`` as ``map``); ``"trec_eval"`` only trec_eval's, as its -Z
    does. A reference matching no value warns (naming the names that would have matched)."""
    if names not in ("any", "trec_eval"):
        raise ValueError(f"names={names!r}: expected 'any' or 'trec_eval'")
    spelled = _other_spellings(reference, measures)
    if names == "any":
        reference = _read_names(reference, spelled)
    elif spelled:
        _warn_trec_spellings(spelled)
    evaluated = pl.DataFrame({"measure": [m.name for m in measures], "_trec": [m.trec_name for m in measures],
                          "_log": [m.spec.aggregate == "gmean" for m in measures]})
    stats = reference.rename({"measure": "_trec"})
    table = (per_query.with_row_index("_row").join(evaluated, on="measure", how="left")
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
    if missing.all() and len(missing) and not (spelled and names == "trec_eval"):
        warnings.warn("the zscores reference matches no (qid, measure) of the evaluation (its qids or measure "
                      "names differ), so every z-score is trec_eval's -1000000 marker for a missing value",
                      UserWarning, stacklevel=user_stacklevel())
    value = pl.Series("value", z, dtype=pl.Float64).set(table["value"].is_null(), None)
    return table.select("system", "qid", "measure").with_columns(value)
