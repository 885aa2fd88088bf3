"""How evaluate() reads the judgments argument, the checks on grades it makes, and trec_eval's
clean-up of the placeholder ranking it scores under ``-c``."""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Mapping
from typing import Any

import polars as pl

from pairedframe.errors import PartlyEmptyWarning, about_argument, user_stacklevel
from pairedframe.io.judgments import as_judgments
from pairedframe.measures import Measure
from pairedframe.measures.gains import gain_of


@dataclasses.dataclass(frozen=True)
class Reading:
    """How the judgments argument is read: its format and how grades are read."""

    judgments_format: str
    grades: str

    @property
    def local(self) -> bool:
        """Read by pairedframe even for Spark: other formats than qrels, trec_eval's grades."""
        return self.judgments_format != "qrels" or self.grades != "strict"

    def settings(self) -> dict[str, str]:
        """The EvaluationSettings fields that say how the judgments were read."""
        return {"judgments_format": self.judgments_format, "grades": self.grades}

    def read(self, qrels: Any) -> pl.DataFrame:
        """The judgments table; an input error raised reading it has ``argument == "qrels"``."""
        with about_argument("qrels"):
            return as_judgments(qrels, self.judgments_format, grades=self.grades)  # type: ignore[arg-type]


def num_rel_all(judgments: pl.DataFrame, complete: bool) -> int | None:
    """trec_eval's ``num_rel all`` under ``-c``: the judgments with a grade > 0, whatever ``-l``
    (m_num_rel.c); None without ``complete`` or for preferences (trec_eval has no num_rel there)."""
    if not complete or "rel" not in judgments.columns:
        return None
    return int((judgments["rel"] > 0).sum())


def warn_levels_above_grades(measures: tuple[Measure, ...], qrels: pl.DataFrame, source: Any = None) -> None:
    """Warn when a measure's relevance level is above every grade of the qrels: nothing is relevant
    at that level, so every value is 0 (e.g. AP(rel=2) or -l 2 on binary qrels). Qrels without any
    grade above 0 get their own warning, naming them (``source``: the qrels argument): no document is
    relevant at all, so no level helps; most likely the wrong file or a wrong grade column. It names
    only the measures that are then 0 (not those whose gain map gives a grade of the qrels a gain)."""
    top = qrels["rel"].max() if qrels.height else None
    if top is None:
        return
    above = [m.name for m in measures if isinstance(m.rel, int) and m.rel > top]
    # grade-based measures (gains, ERR's stopping probabilities) are 0 too where no grade is above 0, unless
    # their gain map gives a grade of the qrels a gain (nDCG(gains={0:1}) is not 0: it is trec_eval's value)
    grades = qrels["rel"].unique().to_list()
    graded = [m.name for m in measures if m.rel is None and (m.spec.uses_gain or m.spec.max_grade is not None)
              and not _gives_gain(m, grades)]
    if top <= 0 and above + graded:
        warnings.warn(f"{qrels_source(source)}: no document is relevant (no grade above 0; the highest is {top}), "
                      f"so {', '.join(above + graded)} {'is' if len(above + graded) == 1 else 'are'} 0 on every query "
                      "(nothing relevant at their level; gains by grade are 0 unless gains= gives grade 0 a gain): "
                      "are these the qrels you meant?", PartlyEmptyWarning, stacklevel=user_stacklevel())
    elif above:
        warnings.warn(f"relevance level above every grade of the qrels (highest grade {top}) for {above}: no "
                      "document is relevant there, so these measures are 0 everywhere; lower rel= (or -l)",
                      PartlyEmptyWarning, stacklevel=user_stacklevel())


def _gives_gain(measure: Measure, grades: list[int]) -> bool:
    """Whether ``measure``'s gain map gives one of ``grades`` a non-zero gain (gain maps list grades >= 0
    only; a negative grade gains nothing), so that its values need not be 0 although no grade is above 0."""
    return measure.spec.uses_gain and any(gain_of(measure.gain_key, g) != 0 for g in grades if g is not None and g >= 0)


def qrels_source(qrels: Any) -> str:
    """How a warning names the qrels argument: ``qrels file x.txt``, ``qrels dict`` or ``qrels table``."""
    if isinstance(qrels, (str, os.PathLike)):
        return f"qrels file {os.fspath(qrels)}"
    return "qrels dict" if isinstance(qrels, Mapping) else "qrels table"


def check_grades(measures: tuple[Measure, ...], qrels: pl.DataFrame) -> None:
    """Refuse grades a measure cannot take (ERR's stopping probabilities stop at grade 4)."""
    top = qrels["rel"].max() if qrels.height else None
    for m in measures:
        limit = m.spec.max_grade
        if limit is not None and top is not None and top > limit:
            raise ValueError(f"{m.name} takes grades up to {limit} (as gdeval), but the qrels have grade {top}; "
                             f"map the grades first (e.g. pl.col('rel').clip(upper_bound={limit}))")


def complete_resets(measure: Measure) -> bool:
    """Whether trec_eval ``-c`` resets ``measure`` on a judged query a run lacks, by its family's
    ``complete_reset`` (the rule the DuckDB macros read too, as ``pf_measures``' ``placeholder_zero``):
    every measure of an ``"all"`` family (num_ret, unj_*), and of a ``"bare"`` family the one named
    exactly the family's trec_eval name (``utility``, ``rbp_resid``, ``relstring``)."""
    reset = measure.spec.complete_reset
    return reset == "all" or (reset == "bare" and measure.trec_name == measure.spec.trec_name)


def clean_up_placeholders(values: pl.DataFrame, retrieved: pl.DataFrame, measures: tuple[Measure, ...]) -> pl.DataFrame:
    """trec_eval ``-c`` scores a judged query a run lacks as a ranking of one unjudged placeholder
    document, then resets a few values by name (trec_eval.c; :func:`complete_resets`): num_ret and
    unj_* to 0, and the measures named exactly ``utility`` and ``rbp_resid`` to 0 and ``relstring``
    to ''. A parameterised name (``utility_2,-1,0,0``, ``rbp_resid_p=0.5``, ``relstring_5``) keeps the
    placeholder's value, as in trec_eval. ``values``: an engine's rows; ``retrieved``: the (system,
    qid) pairs the runs have."""
    reset = [m for m in measures if complete_resets(m)]
    zero = [m.name for m in reset if m.spec.value_kind == "number"]
    empty = [m.name for m in reset if m.spec.value_kind == "text"]
    if not zero and not empty:
        return values
    keys = ["system", "qid"]
    placeholders = values.select(keys).unique().join(retrieved.select(keys), on=keys, how="anti")
    if not placeholders.height:
        return values
    flagged = values.join(placeholders.with_columns(pl.lit(True).alias("_placeholder")), on=keys, how="left")
    hit = pl.col("_placeholder").fill_null(False)
    return flagged.with_columns(
        pl.when(hit & pl.col("measure").is_in(zero)).then(0.0).otherwise(pl.col("value")).alias("value"),
        pl.when(hit & pl.col("measure").is_in(empty)).then(pl.lit("")).otherwise(pl.col("text")).alias("text"),
    ).select(values.columns)
