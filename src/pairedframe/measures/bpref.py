"""Binary preference (trec_eval ``bpref``; m_bpref.c)."""

from __future__ import annotations

import polars as pl

from pairedframe.measures.polars_exprs import ordered_sum, per_query, quotient, ratio, with_row_columns
from pairedframe.measures.base import UNIT, Measure, PolarsContext, TrecForm, family


def bpref_terms() -> pl.Expr:
    """Per relevant retrieved document: 1 - min(n, R) / min(N, R), 1 when n = 0 (m_bpref.c); a
    row-wise expression (use it in ``with_columns``)."""
    n_above = pl.col("nonrel_cum")
    return pl.when(n_above > 0).then(
        1.0 - quotient(pl.min_horizontal(n_above, pl.col("num_rel")),
                       pl.min_horizontal(pl.col("num_nonrel"), pl.col("num_rel")))).otherwise(1.0)


@family(key="Bpref", value_range=UNIT, aliases=("bpref",), trec=TrecForm("bpref", "single", 80), sql_file="bpref.sql",
        cutoff="none", empty_value="0")
def bpref(ctx: PolarsContext, measure: Measure) -> pl.LazyFrame:
    """bpref (Buckley & Voorhees, SIGIR 2004) as trec_eval computes it.

    With R relevant and N judged non-relevant documents in the qrels (grade in [0, rel)),
    ``bpref = (1/R) * sum over retrieved relevant d of (1 - min(n_d, R) / min(N, R))`` where n_d is
    the number of judged non-relevant documents ranked above d (a term is 1 when n_d = 0).
    Unjudged documents and negative grades are skipped: they are neither relevant nor judged
    non-relevant. Range [0, 1]; 0 when R = 0. Source: trec_eval m_bpref.c.
    """
    ctx = with_row_columns(ctx, term=bpref_terms())
    total = ordered_sum(pl.col("term"), pl.col("is_rel"), presorted=True)
    return per_query(ctx, ratio(pl.col("total"), pl.col("num_rel")), total=total)
