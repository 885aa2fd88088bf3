"""The numbers behind a paper's results table: means, intervals, significance marks, best and second.

:func:`results_table_data` computes one row per (system, measure) -- everything a rendering needs --
so that :mod:`pairedframe.report.results_table` only formats.

Marks
-----
``p`` is the comparison's p-value column chosen by ``correction`` (``pvalue``, ``pvalue_holm``,
``pvalue_bh``, or for ``"tukey"`` ``pvalue_max_tukey_raw``: the randomised Tukey HSD p-value or the
pair's own p-value, whichever is larger, so a mark needs both tests to reject -- the Tukey HSD alone
let the family-wise error reach 0.113-0.184 on real values whose pairs differ in spread, the larger
of the two held 0.035-0.053, ``benchmarks/calibration --section tukey``); a pair is significant when
``p < alpha``, and the winner is the system with the better mean: the higher one, or the lower one for ranks
such as FirstRelRank (:func:`pairedframe.measures.higher_is_better`).

- One baseline (``mode = "dagger"``): a system's cell gets ``†`` when it is significantly better
  than the baseline and ``‡`` when significantly worse; the baseline's own cells get no mark.
- Several baselines or all pairs (``mode = "letters"``, as ranx): the baselines in the order of
  the comparison (or, for all pairs, every system in row order) get letters ``a, b, ...``, and a
  cell lists the letters of the lettered systems it is significantly better than.  Against several
  baselines the cell then lists, after ``‡``, the letters of the baselines it is significantly worse
  than (``"a‡b"``: better than a, worse than b), as ``‡`` marks a loss against one baseline; a
  system without a letter has no cell where its losses could show otherwise.  All pairs letter every
  system, so a loss shows as the winner's letter in the winner's cell and is not repeated.

Best and second
---------------
Per measure, the means *as shown* (rounded to ``digits``) are ranked best first (descending, or
ascending where lower is better): rank 1 is bold, rank 2 underlined (of two systems only the best is
marked; a table of one system marks nothing, as nothing is compared); systems equal at the shown precision share a rank (dense ranking), unless a mark says one is
significantly better than the other (``digits=0``: ``0`` † beside the baseline's ``0``): then the
significantly worse one ranks below it, never tied for best with a system that beats it, and the caption
says so (``settings["ties_split_by_marks"]``); within such a tie a system also ranks no higher than any
tie-mate with a better unrounded mean. A measure whose means are
over different numbers of queries (a system without a value for some queries: a run missing queries, a
rank measure where nothing relevant was retrieved) gets no best or second: such means are not
comparable (``settings["unranked_measures"]``, and the caption says so); nor do counts that rank no run,
NumQ, NumRel and NumRet, nor the measures of how much of a run is judged, Judged@k, Unjudged@k and RBPResid
(``settings["unranked_counts"]``). A key column (``dataset``) with several
values is refused: one table shows one slice.
"""

from __future__ import annotations

import string
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from pairedframe.checks import require_names, require_rows
from pairedframe.comparison.pairing import (as_frame as per_query_frame, is_comparable, is_text_measure,
                                           table_measure_names)
from pairedframe.comparison.judgment_set_rows import one_set_of_table
from pairedframe.comparison.unpairable import meant_pairs, not_compared
from pairedframe.comparison.table_means import table_means
from pairedframe.comparison.table_ties import beaten_depth
from pairedframe.comparison.options import check_level
from pairedframe.comparison._validate import require_one_slice
from pairedframe.errors import USE_CONFIDENCE_LEVEL, renamed_keywords, user_stacklevel
from pairedframe.io.convert import is_table
from pairedframe.io.results import evaluation_rows, read_if_paths
from pairedframe.measures import higher_is_better
from pairedframe.measures.parse import ranks_runs
from pairedframe.stats.levels import decision_alpha

__all__ = ["CORRECTIONS", "CI_STYLES", "TableData", "baseline_names", "reject_text_measures", "results_table_data"]

#: correction -> the p-value column that decides a mark; "tukey" takes max(pvalue_tukey, pvalue) (module docstring).
CORRECTIONS = {"holm": "pvalue_holm", "bh": "pvalue_bh", "none": "pvalue", "tukey": "pvalue_max_tukey_raw"}
CI_STYLES = (None, "halfwidth", "range")
DAGGER, DOUBLE_DAGGER = "†", "‡"


@dataclass(frozen=True)
class TableData:
    """What :func:`results_table_data` computes.

    Attributes
    ----------
    frame : polars.DataFrame
        ``system, letter, measure, mean, ci_low, ci_high, n_queries, place, marks, better_than, halfwidth``:
        one row per (system, measure) in row and column order.  ``ci_low, ci_high`` is the t interval of the
        mean inside the measure's range (clipped; values without spread get the range-based interval of n
        equal values); ``halfwidth`` is t's half-width where the interval is ``mean -/+ halfwidth``, else null.  ``place`` is 1 (best), 2 (second) or
        null; ``marks`` the string to print after the number (``"†"``, ``"‡"``, ``"ab"``, ``"a‡b"`` or ``""``);
        ``better_than`` the systems this one is significantly better than.
    systems, measures : list of str
        Row and column order.
    letters : dict
        system -> letter (letter mode only).
    mode : {"none", "dagger", "letters"}
    settings : dict
        For the caption: test, interval, correction, family, alpha, n_resamples, seed, alternative,
        n_queries (min, max), ci (style, confidence level), digits, baselines, tie rule, the
        smallest p-value deciding the marks and the smallest raw one (``smallest_p``,
        ``smallest_raw_p``), and the judgment set (``judgments``) when the data held several.
    """

    frame: pl.DataFrame
    systems: list[str]
    measures: list[str]
    letters: dict[str, str]
    mode: str
    settings: dict[str, Any] = field(default_factory=dict)


_TEXT_WHY = "it is string-valued (the grades of the top documents, in Evaluation.text) and has no mean"


def baseline_names(baseline: Any) -> list[str]:
    """``baseline`` given as several names (an iterable of str), as a list; TypeError in compare's words else."""
    names = list(baseline) if isinstance(baseline, Iterable) and not isinstance(baseline, (str, bytes)) else [None]
    if not names or not all(isinstance(b, str) for b in names):
        raise TypeError(f"`baseline` must be a system name or a list of names, got {baseline!r}")
    return names


def reject_text_measures(measures: Any) -> None:
    """Raise ValueError when ``measures`` (str or sequence, or None) names a string-valued measure
    (``RelString``): a table or comparison of means cannot show it."""
    requested = [measures] if isinstance(measures, str) else list(measures or [])
    text = [m for m in requested if isinstance(m, str) and is_text_measure(m)]
    if text:
        raise ValueError(f"measure(s) {text} cannot be tabulated: {_TEXT_WHY}")


def _per_query_and_settings(data: Any, judgments: str | None) -> tuple[pl.DataFrame | None, Any, list[str] | None,
                                                                       str | None]:
    if data is None:
        return None, None, None, None
    judgment_sets = callable(getattr(data, "check_names", None))     # JudgmentSetsEvaluation
    if judgment_sets:
        if judgments is None:
            if len(data.names) != 1:
                raise ValueError(f"name the judgment set to tabulate with judgments=; the sets are {data.names}")
            judgments = data.names[0]
        data = data.evaluation(judgments)
    per_query = read_if_paths(evaluation_rows(data))
    if judgments is not None and not judgment_sets:                  # a saved evaluate_judgment_sets(...).per_query
        per_query = one_set_of_table(per_query, judgments)           # checked as compare's input, whole table
    elif not isinstance(per_query, pl.DataFrame) and not is_table(per_query):
        raise TypeError(f"`data` must be an Evaluation, judgment sets, a per-query table or its path, got {type(data).__name__}")
    else:
        per_query = per_query_frame(per_query, keep_nulls=True)  # the checks of compare's input
    missing = [c for c in ("system", "qid", "measure", "value") if c not in per_query.columns]
    if missing:
        raise ValueError(f"per-query table lacks column(s) {missing}")
    extras = [c for c in per_query.columns if c not in ("system", "qid", "measure", "value")]
    require_one_slice(per_query, extras, "data")
    measures = None
    if hasattr(data, "measures"):
        text = [m.name for m in data.measures if m.spec.value_kind == "text"]
        if text:
            warnings.warn(f"measure(s) {text} left out of the table: {_TEXT_WHY}", UserWarning,
                          stacklevel=user_stacklevel())
        measures = [m.name for m in data.measures if m.name not in text]
    return per_query.drop(extras), getattr(data, "settings", None), measures, judgments


def _choose(requested: Any, available: list[str], what: str) -> list[str]:
    if what == "measure":
        requested = table_measure_names(requested, available)
    return require_names(requested, available, what=what, parameter=f"{what}s", source="the table")


def _comparison_settings(cmp: pl.DataFrame, column: str, measures: list[str]) -> dict[str, Any]:
    """What the caption states of the comparison: its settings, the measures it did not test and the
    smallest p-values (why a table has no mark)."""
    settings: dict[str, Any] = {}
    for key in ("test", "interval", "alternative", "n_resamples", "seed", "family", "exact", "method"):
        if key in cmp.columns and cmp.height:
            vals = cmp[key].unique(maintain_order=True).to_list()
            settings[key] = vals[0] if len(vals) == 1 else vals
    settings["untested_measures"] = [m for m in measures if m not in set(cmp["measure"].to_list())]
    for key, col in (("smallest_p", column), ("smallest_raw_p", "pvalue")):
        values = cmp[col].drop_nulls().drop_nans()
        settings[key] = float(values.min()) if values.len() else None
    return settings


def _check_same_queries(per_query: pl.DataFrame | None, cmp: pl.DataFrame) -> None:
    """Refuse a comparison computed on other queries than the per-query table's: its marks would
    test one sample while the cells show the means of another."""
    if per_query is None or "n_queries" not in cmp.columns or not cmp.height:
        return
    if set(per_query.columns) - {"system", "qid", "measure", "value"}:
        return          # extra key columns (dataset, judgments): the caller has chosen one slice
    values = per_query.filter(pl.col("value").is_not_null()).select("system", "qid", "measure")
    pairs = cmp.select("system", "baseline", "measure", "n_queries").unique()
    common = (pairs.join(values, on=["system", "measure"])
              .join(values.rename({"system": "baseline"}), on=["baseline", "measure", "qid"])
              .group_by("system", "baseline", "measure").agg(pl.len().alias("_common")))
    bad = (pairs.join(common, on=["system", "baseline", "measure"], how="left")
           .with_columns(pl.col("_common").fill_null(0))
           .filter(pl.col("_common") != pl.col("n_queries")))
    if bad.height:
        r = bad.row(0, named=True)
        raise ValueError(f"`comparison` does not match `data`: {r['system']} vs {r['baseline']} on {r['measure']} was "
                         f"compared over {r['n_queries']} queries, but the per-query table has {r['_common']} queries "
                         f"both systems measured ({bad.height} such row(s)); pass the per-query table the comparison "
                         "was computed from, or only the comparison")


def _significant_wins(comparison: pl.DataFrame, column: str, alpha: float) -> list[tuple[str, str, str]]:
    """(winner, loser, measure) of every significant row, in the measure's direction; a pair compared both ways
    (pairs="ordered": a vs b and b vs a) is one win, not two, so its letter is not repeated."""
    sig = comparison.filter(pl.col(column).is_not_null() & (pl.col(column) < alpha) & (pl.col("delta") != 0))
    return list(dict.fromkeys((s, b, m) if (d > 0) == higher_is_better(m) else (b, s, m)
                              for s, b, m, d in sig.select("system", "baseline", "measure", "delta").iter_rows()))


@renamed_keywords(alpha=USE_CONFIDENCE_LEVEL)
def results_table_data(data: Any = None, comparison: pl.DataFrame | None = None, *, measures: Any = None,
                       systems: Any = None, judgments: str | None = None, correction: str | None = None,
                       ci: str | None = None, confidence_level: float | None = None,
                       digits: int = 3, all_pairs: bool | None = None,
                       baselines: Sequence[str] | None = None) -> TableData:
    """Means, intervals, marks and places of a results table (see the module docstring).

    Parameters
    ----------
    data : Evaluation, JudgmentSetsEvaluation, per-query table or path, optional
        Source of the means (over each system's evaluated queries, as trec_eval) and intervals.
        A path (or list of paths) is read with :func:`pairedframe.read_results`.
    comparison : polars.DataFrame, optional
        A :func:`pairedframe.compare` result (one or several baselines, or all pairs); source of the
        marks (and of the means when ``data`` is None).
    measures, systems : str or sequence, optional
        Columns and rows, in order (default: all, in order of appearance).
    judgments : str, optional
        The judgment set to tabulate when ``data`` holds several (the caption names it).
    correction : {"holm", "bh", "none", "tukey"}, optional
        Which p-value column decides significance (``"tukey"``: ``pvalue_max_tukey_raw`` of an
        all-pairs comparison, the randomised Tukey HSD and the pair's own test both rejecting).
        Default: the comparison's own correction (its ``verdict_on`` column: a ``correction="bh"``
        comparison marks by ``pvalue_bh``), as its level sets ``alpha``; ``"holm"`` for a comparison
        without ``verdict_on``.  One given explicitly wins: it reads that column of the comparison
        (every correction of the same family is there; the caption names the one used).
    ci : {None, "halfwidth", "range"}
        Show the t interval of each mean over its queries as ``± half-width`` or ``[low, high]``
        (needs ``data``).  Intervals stay inside the measure's range (:attr:`pairedframe.measures.Measure.
        value_range`; the RR@10 mean 0.953 reads [0.898, 1.000], not [0.898, 1.008]); a clipped interval is
        not a half-width, so ``"halfwidth"`` prints it as ``[low, high]``.
    confidence_level : float, optional
        Of that interval; default the comparison's confidence level, or 0.95 without a comparison.
        The marks' significance level is ``alpha = 1 - level`` of the comparison.
    digits : int, default 3
        Decimals shown; best/second are decided on the shown values (a tie there that a mark
        separates is split: the significantly worse system ranks below).
    all_pairs : bool, optional
        Letter every system (all pairs); default: true when the comparison compares every system
        with every other.
    baselines : sequence of str, optional
        The baselines the comparison was computed for, in order; default: its ``baseline`` column, which
        names only the first of two baselines of two runs (compared once), so both are passed here.

    Returns
    -------
    TableData

    Warns
    -----
    UserWarning
        ``data`` evaluated string-valued measures (RelString) and ``measures`` is not given: they
        are left out, and the warning names them.

    Raises
    ------
    ValueError
        Neither input given; unknown systems, measures or correction; ``measures`` naming a
        string-valued measure; ``correction="tukey"`` without a comparison; a correction column
        missing from the comparison; ``ci`` without ``data``. A key column of ``data`` or
        ``comparison`` (``dataset``, ``judgments``) with several values is a SchemaError (a
        ValueError) naming the argument, the column and its values.
    """
    _check_table_options(data, comparison, measures, correction, ci, confidence_level, digits)
    per_query, eval_settings, measure_order, judgment_set = _per_query_and_settings(data, judgments)
    if comparison is not None:
        judgment_set, confidence_level = _comparison_defaults(comparison, judgment_set, confidence_level)
        correction = _comparison_correction(comparison) if correction is None else correction
    correction = "holm" if correction is None else correction
    confidence_level = 0.95 if confidence_level is None else confidence_level
    if per_query is not None:
        require_rows(per_query, what="the per-query table", why="no (system, qid, measure, value) row")
    means = table_means(per_query, comparison, confidence_level)
    available_systems = means["system"].unique(maintain_order=True).to_list()
    available_measures = measure_order or means["measure"].unique(maintain_order=True).to_list()
    systems = _choose(systems, available_systems, "system")
    measures = _choose(measures, [m for m in available_measures if m in set(means["measure"].to_list())], "measure")

    settings: dict[str, Any] = {"digits": digits, "ci": ci, "ci_confidence_level": confidence_level,
                                "correction": correction}
    if judgment_set is not None:
        settings["judgments"] = judgment_set
    if eval_settings is not None:
        settings["ranking_tie_rule"] = eval_settings.tie_rule
        settings["evaluation_options"] = eval_settings.options_text()
    marking = _Marking()
    if comparison is not None:
        marking = _marking(comparison, per_query, systems, measures, correction, all_pairs, baselines)
        settings.update(marking.settings)
    # the comparisons meant but not tested (fewer than 2 common queries): shown without a mark, the caption says so
    meant = meant_pairs(systems, marking.baselines if comparison is not None else list(baselines or []),
                        bool(all_pairs if all_pairs is not None else marking.mode == "letters" and not marking.losses))
    settings["not_compared"] = not_compared(per_query, comparison, meant, [m for m in measures if is_comparable(m)])
    frame = _rows(means, systems, measures, digits, marking)
    n = frame["n_queries"].drop_nulls()
    settings["n_queries"] = (int(n.min()), int(n.max())) if n.len() else (0, 0)
    spread = frame.group_by("measure", maintain_order=True).agg(pl.col("n_queries").drop_nulls().n_unique())
    settings["unranked_measures"] = spread.filter(pl.col("n_queries") > 1)["measure"].to_list()
    settings["unranked_counts"] = [m for m in measures if not ranks_runs(m)
                                   and m not in settings["unranked_measures"]]
    # equal shown means with different places: a tie _rows split because a mark separates them
    split = (frame.filter(pl.col("mean").is_not_null()).group_by("measure", pl.col("mean").round(digits))
             .agg(pl.col("place").fill_null(0).n_unique() > 1).filter(pl.col("place"))["measure"].to_list())
    settings["ties_split_by_marks"] = [m for m in measures if m in split]
    return TableData(frame=frame, systems=systems, measures=measures, letters=marking.letters, mode=marking.mode,
                     settings=settings)


def _check_table_options(data: Any, comparison: Any, measures: Any, correction: Any, ci: Any,
                         confidence_level: Any, digits: Any) -> None:
    """results_table's options checked once, before any table is read (errors name the argument)."""
    if data is None and comparison is None:
        raise ValueError("results_table needs an evaluation, a comparison, or both")
    if correction is not None and correction not in CORRECTIONS:
        raise ValueError(f"`correction` must be one of {sorted(CORRECTIONS)}, got {correction!r}")
    if correction == "tukey" and comparison is None:
        raise ValueError("correction='tukey' is the Tukey HSD test of all pairs: compare with pairs='all' "
                         "(CLI: --pairs all); without a comparison the table would carry no marks")
    reject_text_measures(measures)
    if ci not in CI_STYLES:
        raise ValueError(f"`ci` must be one of {CI_STYLES}, got {ci!r}")
    if ci is not None and data is None:
        raise ValueError("`ci` needs the per-query values: pass the evaluation as `data`")
    if confidence_level is not None:
        check_level(confidence_level)
    if isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= 10:
        raise ValueError(f"`digits` must be an integer in [0, 10], got {digits!r}")


def _comparison_defaults(comparison: pl.DataFrame, judgment_set: str | None, confidence_level: float | None
                         ) -> tuple[str | None, float | None]:
    """The comparison checked (a compare result of one dataset and judgment set), and the judgment set and
    level it supplies where the caller gave none."""
    missing = [c for c in ("system", "baseline", "measure", "delta", "pvalue") if c not in comparison.columns]
    if missing:
        raise ValueError(f"`comparison` lacks column(s) {missing}; pass a pairedframe.compare result")
    require_one_slice(comparison, [c for c in ("dataset", "judgments") if c in comparison.columns], "comparison")
    if judgment_set is None and "judgments" in comparison.columns and comparison.height:
        judgment_set = comparison["judgments"][0]
    if confidence_level is None and "confidence_level" in comparison.columns and comparison.height:
        confidence_level = float(comparison["confidence_level"][0])
    return judgment_set, confidence_level


def _comparison_correction(comparison: pl.DataFrame) -> str:
    """The correction behind the comparison's verdicts (its ``verdict_on`` column), ``"holm"`` without one."""
    if "verdict_on" not in comparison.columns or not comparison.height:
        return "holm"
    by_column = {column: name for name, column in CORRECTIONS.items()}
    used = comparison["verdict_on"].drop_nulls().unique().to_list()
    if len(used) > 1:
        raise ValueError(f"`comparison` mixes corrections (verdict_on: {sorted(used)}); pass `correction=` "
                         f"to choose the one that marks the table, one of {sorted(CORRECTIONS)}")
    return by_column.get(used[0], "holm") if used else "holm"


@dataclass
class _Marking:
    """How the table marks significant wins: ``mode`` (none, dagger, letters), the letters, the wins
    ``(winner, loser, measure)``, the baselines and the comparison's settings."""

    mode: str = "none"
    letters: dict[str, str] = field(default_factory=dict)
    wins: list[tuple[str, str, str]] = field(default_factory=list)
    baselines: list[str] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    losses: bool = False      # letters: also mark losses (several baselines; all pairs shows them as wins)


def _marking(comparison: pl.DataFrame, per_query: pl.DataFrame | None, systems: list[str], measures: list[str],
             correction: str, all_pairs: bool | None, asked: Sequence[str] | None = None) -> _Marking:
    """The marks of the comparison's rows among ``systems`` and ``measures``: daggers against one baseline,
    letters for several baselines or all pairs."""
    cmp = comparison.filter(pl.col("measure").is_in(measures) & pl.col("system").is_in(systems)
                            & pl.col("baseline").is_in(systems))
    column = CORRECTIONS[correction]
    if column not in cmp.columns:
        raise ValueError(f"correction={correction!r} needs a {column!r} column in the comparison"
                         + ("; compare with pairs='all' for the Tukey HSD test" if correction == "tukey" else ""))
    if comparison.height and not set(comparison["baseline"].to_list()) & set(systems):
        raise ValueError(f"systems={systems} leaves out every baseline of the comparison's rows "
                         f"({comparison['baseline'].unique(maintain_order=True).to_list()}): no cell could be marked; "
                         "include the baseline(s) in systems=")
    levels = cmp["confidence_level"].unique().to_list() if "confidence_level" in cmp.columns else [0.95]
    alpha = decision_alpha(float(levels[0]))
    _check_same_queries(per_query, cmp)
    wins = _significant_wins(cmp, column, alpha)
    named = cmp["baseline"].unique(maintain_order=True).to_list() if asked is None else list(dict.fromkeys(asked))
    baselines = [b for b in named if b in systems]
    rows = set(cmp.select("system", "baseline").iter_rows())
    pairs = {frozenset(p) for p in rows}
    every_pair = len(systems) > 2 and len(pairs) == len(systems) * (len(systems) - 1) // 2
    letter_all = all_pairs if all_pairs is not None else every_pair
    lettered = systems if letter_all else baselines
    mode, letters, losses = "none", {}, False
    if len(baselines) == 1 and lettered == baselines:
        mode = "dagger"
    elif lettered:
        mode = "letters"
        if len(lettered) > 26:
            raise ValueError(f"letter marks need at most 26 lettered systems, got {len(lettered)}")
        letters = dict(zip(lettered, string.ascii_lowercase))
        # an unlettered row's loss would show nowhere: only every system lettered shows it in the winner's cell
        # (pairs="ordered" names every system a baseline: still all pairs, losses shown as the winner's letter)
        losses = lettered == baselines and not letter_all
    settings = {**_comparison_settings(cmp, column, measures), "alpha": alpha, "baselines": baselines,
                "n_comparisons": cmp.height, "mode": mode, "losses_marked": losses,
                "both_ways": any((b, s) in rows for s, b in rows)}
    return _Marking(mode, letters, wins, baselines, settings, losses)


def _rows(means: pl.DataFrame, systems: list[str], measures: list[str], digits: int, marking: _Marking
          ) -> pl.DataFrame:
    """One row per (system, measure): mean, interval, queries, place (best / second on the shown values)
    and marks."""
    shown = means.filter(pl.col("system").is_in(systems) & pl.col("measure").is_in(measures)).with_columns(
        pl.col("mean").round(digits).alias("_shown"))
    lower = [m for m in measures if not higher_is_better(m)]
    best_first = pl.when(pl.col("measure").is_in(lower)).then(-pl.col("_shown")).otherwise(pl.col("_shown"))
    shown = shown.with_columns(best_first.rank("dense", descending=True).over("measure").alias("_rank"))
    # a shown tie that a mark separates is no tie: the significantly worse one drops below the other
    depth = beaten_depth(shown, marking.wins, lower)
    shown = shown.with_columns(pl.Series("_depth", [depth.get((s, m), 0) for s, m in zip(shown["system"],
                                                                                        shown["measure"])]))
    shown = shown.with_columns((pl.col("_rank") * (len(systems) + 1) + pl.col("_depth"))
                               .rank("dense").over("measure").alias("_rank"))
    # means over different query sets are not comparable, counts and judged shares rank no run: no best there
    counts = [m for m in measures if not ranks_runs(m)]
    shown = shown.with_columns(pl.when((pl.col("n_queries").n_unique().over("measure") > 1)
                                       | pl.col("measure").is_in(counts)).then(None)
                               .otherwise(pl.col("_rank")).alias("_rank"))
    better_than: dict[tuple[str, str], list[str]] = {}
    worse_than: dict[tuple[str, str], list[str]] = {}
    for winner, loser, measure in marking.wins:
        better_than.setdefault((winner, measure), []).append(loser)
        worse_than.setdefault((loser, measure), []).append(winner)
    letters = marking.letters
    # of two systems the second is merely the other one; a lone system is best of nothing
    last_place = 2 if len(systems) >= 3 else 1 if len(systems) == 2 else 0
    rows = []
    index = {(s, m): r for s, m, r in zip(shown["system"], shown["measure"], shown.iter_rows(named=True))}
    for s in systems:
        for m in measures:
            r = index.get((s, m))
            if r is None:
                rows.append((s, letters.get(s), m, None, None, None, None, None, "", [], None))
                continue
            beaten = [x for x in systems if x in better_than.get((s, m), [])]
            if marking.mode == "dagger":      # against the one baseline only; the baseline's own row has no mark
                base = marking.baselines[0]
                marks = ("" if s == base else DAGGER if base in better_than.get((s, m), [])
                         else DOUBLE_DAGGER if base in worse_than.get((s, m), []) else "")
            elif marking.mode == "letters":
                marks = "".join(sorted(letters[x] for x in beaten if x in letters))
                lost_to = sorted(letters[x] for x in worse_than.get((s, m), []) if x in letters)
                if marking.losses and lost_to:
                    marks += DOUBLE_DAGGER + "".join(lost_to)
            else:
                marks = ""
            place = int(r["_rank"]) if r["_rank"] is not None and r["_rank"] <= last_place else None
            rows.append((s, letters.get(s), m, r["mean"], r["ci_low"], r["ci_high"], r["n_queries"], place, marks,
                         beaten, r["halfwidth"]))
    return pl.DataFrame(rows, orient="row", schema={
        "system": pl.String, "letter": pl.String, "measure": pl.String, "mean": pl.Float64, "ci_low": pl.Float64,
        "ci_high": pl.Float64, "n_queries": pl.Int64, "place": pl.Int64, "marks": pl.String,
        "better_than": pl.List(pl.String), "halfwidth": pl.Float64})
