"""The grades of the top documents as a string (trec_eval ``relstring``; m_relstring.c)."""

from __future__ import annotations

import warnings

import polars as pl

from pairedframe.errors import user_stacklevel
from pairedframe.measures.polars_exprs import KEYS
from pairedframe.measures._trec import LooseNumberWarning, doubles, has_number
from pairedframe.measures.base import Measure, PolarsContext, TrecForm, family


def _parse(text: str) -> dict:
    """trec_eval's (long) cast of the first double; 0 or less is refused (by the cutoff's check), and so is
    text with no number (C's atof reads 0: ``relstring.x`` was refused as "cutoff=0", never written)."""
    first = text.split(",")[0]
    if not has_number(first):
        raise ValueError(f"{first!r} is not a cutoff (relstring takes the number of documents it shows, a "
                         "positive integer, e.g. relstring.20)")
    value = doubles(text)[0]
    if value != int(value):
        warnings.warn(f"cutoff {first!r} is read as {int(value)}, as trec_eval reads it (a cast to long drops the "
                      "fraction)", LooseNumberWarning, stacklevel=user_stacklevel())
    return {"cutoff": int(value)}


def _printable(measure: Measure) -> str:
    return "" if measure.cutoff == 10 else str(measure.cutoff)


@family(key="RelString", aliases=("relstring",),
        trec=TrecForm("relstring", "params", 120, parse=_parse, printable=_printable, bare={"cutoff": 10}),
        sql_file="relstring.sql", cutoff="required", rel="none", aggregate="none", value_kind="text",
        empty_value="''", examples=("relstring", "relstring.3"), complete_reset="bare")
def relstring(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """The grades of the top k documents (trec_eval default k = 10) as a string, one character per
    rank: the grade 0-9, ``>`` above 9, ``-`` for a document not in the qrels, ``.`` for a negative
    grade (in the pool but unjudged); as long as the ranking when it is shorter than k.

    A string, so it is not part of the numeric per-query table: :attr:`Evaluation.text` holds it
    (``system, qid, measure, text``) and the trec_eval format prints it per query as
    ``relstring_20  301  '0000011000000--10101'``; it has no summary line. '' for an empty ranking.
    Source: trec_eval m_relstring.c.
    """
    k = measure.cutoff
    length = pl.min_horizontal(pl.col("num_ret"), pl.lit(k))
    rel = pl.col("rel")
    char = (pl.when(rel > 9).then(pl.lit(">")).when(rel >= 0).then(rel.cast(pl.String)).otherwise(pl.lit(".")))
    rows = (ctx.ranked.filter(pl.col("rank") <= k).sort([*KEYS, "rank"])
            .with_columns(pl.col("rank").shift(1).over(KEYS).fill_null(0).alias("previous"))
            .select(*KEYS, "rank", char.str.pad_start(pl.col("rank") - pl.col("previous"), "-").alias("piece"))
            .group_by(KEYS).agg(pl.col("piece").sort_by("rank").str.join("").alias("body")))
    # The pieces fill ranks 1..last; '-' pads the ranks after the last document in the qrels.
    return (ctx.queries.select(*KEYS, length.alias("length")).join(rows, on=KEYS, how="left")
            .select(*KEYS, pl.col("body").fill_null("").str.pad_end(pl.col("length"), "-").alias("text")))
