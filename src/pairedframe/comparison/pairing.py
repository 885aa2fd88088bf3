"""Inputs to oriented per-query deltas, once: the pairing step every comparison shares (issue 21).

:func:`as_frame` reads any table form into a polars per-query frame; :func:`pair_systems` checks it
(ids as strings, summary rows, non-finite values, repeated keys) and pairs every system with the baseline
on common queries, with the delta oriented as ``b - a``; :func:`oriented` turns it into an improvement
for measures where lower is better.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl

from pairedframe.comparison._validate import MAX_ABS_VALUE, nonfinite_error, warn_values_outside_ranges
from pairedframe.comparison.measure_names import (is_comparable, one_name_per_measure,  # noqa: F401 (re-exported)
                                                  table_measure_names)
from pairedframe.comparison.reserved import refuse_cluster_key, trec_eval_aggregate, warn_summary_rows
from pairedframe.comparison.unpairable import leave_out_unpairable, unpairable_sink
from pairedframe.checks import require_names, require_rows, sample
from pairedframe.errors import (DuplicateError, EmptyResultError, InsufficientSampleError, PartlyEmptyWarning,
                                SchemaError, SmallSampleWarning, user_stacklevel)
from pairedframe.io.convert import TABLE_FORMS, to_polars
from pairedframe.io.not_per_query import lacking_columns_error
from pairedframe.io.results import (PER_QUERY_HINT, SUMMARY_QID, drop_flagged_summary_rows, drop_unused_keys,
                                    ids_as_strings, read_if_paths, refuse_null_or_blank_ids, refuse_partly_null_keys,
                                    unflagged_summary_rows)
from pairedframe.measures import higher_is_better, parse_measure
from pairedframe.measures.parse import aggregate_of, ranks_runs, run_independent
from pairedframe.stats.power import MIN_QUERIES
from pairedframe.tables import per_query_renames

__all__ = ["BASE_COLUMNS", "DELTA_TOLERANCE", "PER_QUERY_FORMS", "oriented", "as_frame", "PairedRows",
           "choose_comparisons", "comparable_measures", "is_text_measure", "string_valued_error", "is_comparable",
           "require_pairable", "pair_systems", "no_common_query", "describe_row",
           "check_sizes", "small_sample_text", "by_system"]

BASE_COLUMNS = ("system", "qid", "measure", "value")
#: What a per-query table may be, as the TypeError for anything else names it.
PER_QUERY_FORMS = (f"an Evaluation, a per-query table with columns system, qid, measure, value ({TABLE_FORMS}) "
                   "or the path of a per-query results file (as pf.read_results reads)")
#: Relative size below which b - a is float noise (e.g. 0.1 + 0.2 vs 0.3) and counts as exactly 0.
DELTA_TOLERANCE = 1e-12


def _delta_expr() -> pl.Expr:
    """b - a with float noise (|b - a| <= DELTA_TOLERANCE * max(1, |a|, |b|)) turned into an exact 0."""
    raw = pl.col("b") - pl.col("a")
    scale = pl.max_horizontal(pl.lit(1.0), pl.col("a").abs(), pl.col("b").abs())
    return pl.when(raw.abs() <= DELTA_TOLERANCE * scale).then(0.0).otherwise(raw)


def oriented(verdict: str, higher_is_better_: bool) -> str:
    """The verdict in the measure's direction: for measures where lower is better (ranks such as
    FirstRelRank) a significantly positive delta is "worse"."""
    return verdict if higher_is_better_ else {"better": "worse", "worse": "better"}.get(verdict, verdict)


def wins_in_measure_direction(rows: pl.DataFrame) -> pl.DataFrame:
    """``rows`` (``measure, wins, losses``) with wins and losses swapped for measures where lower is better
    (ranks such as FirstRelRank): a win is an improvement in the measure's direction, in every comparison."""
    lower = [m for m in rows["measure"].unique().to_list() if not higher_is_better(m)]
    if not lower:
        return rows
    flip = pl.col("measure").is_in(lower)
    return rows.with_columns(pl.when(flip).then(pl.col("losses")).otherwise(pl.col("wins")).alias("wins"),
                             pl.when(flip).then(pl.col("wins")).otherwise(pl.col("losses")).alias("losses"))


def as_frame(data: Any, keep_nulls: bool = False, keep_columns: tuple[str, ...] = (),
             warn_ranges: bool = True, dropped_summary: list[pl.DataFrame] | None = None) -> pl.DataFrame:
    """Any per-query table form (Evaluation, polars, pandas, arrow, DuckDB, dicts, a results file's path read
    by :func:`pairedframe.read_results`) as a polars frame ``system, qid, measure, value`` (+ key columns), ids
    as strings; null values dropped unless ``keep_nulls``. ``warn_ranges=False``: the caller warns about values
    outside their measure's range itself, on the rows it compares; given a list ``dropped_summary``, the
    trec_eval summary rows dropped are appended to it (``system, measure``) instead of warned about, so that the
    caller counts those of the rows it compares."""
    per_query = getattr(data, "per_query", None)
    from_evaluation = isinstance(per_query, pl.DataFrame)  # never holds summary rows: "all" is a query
    if from_evaluation:
        text = getattr(data, "text", None)
        if isinstance(text, pl.DataFrame) and text.height and per_query.height == 0:
            raise string_valued_error(text["measure"].unique(maintain_order=True).to_list(), "evaluate")
        data = per_query
    data = to_polars(read_if_paths(data), "per-query table", expected=PER_QUERY_FORMS)
    data = data.rename(per_query_renames(data.columns, "the per-query table"))  # query_id: qid, as in runs
    missing = [c for c in BASE_COLUMNS if c not in data.columns]
    if missing:
        raise lacking_columns_error(missing, data.columns)
    if not data.schema["value"].is_numeric():
        raise SchemaError(f"column 'value' must be numeric, got {data.schema['value']}")
    data = ids_as_strings(data, "the per-query table")
    data = data.with_columns(pl.col("measure").cast(pl.String), pl.col("value").cast(pl.Float64))
    refuse_null_or_blank_ids(data)
    data = drop_unused_keys(data, keep_columns)  # an all-null column (or relstring's text) is no key
    data = one_name_per_measure(data)  # map and AP, P_10 and P@10 pair
    refuse_partly_null_keys(data, keep_columns)
    require_rows(data, what="the per-query table", why="no (system, qid, measure, value) row; an evaluation "
                 "with no judged query in common gives one")
    require_rows(data.filter(pl.col("value").is_not_null()), what="the per-query table",
                 why="every value is null (not measured)")
    if not keep_nulls:
        data = data.filter(pl.col("value").is_not_null())
    flagged = "summary" in data.columns
    data = drop_flagged_summary_rows(data)
    require_rows(data, what="the per-query table",
                 why=f"it holds only summary rows (flagged in column 'summary'); {PER_QUERY_HINT}")
    # grouped by the slicing keys, not by a cluster (keep_columns): a cluster groups queries
    summary = unflagged_summary_rows([c for c in data.columns if c not in (*BASE_COLUMNS, *keep_columns)],
                                     trec_eval_aggregate(data["measure"]))
    summary_rows = 0 if from_evaluation or flagged else data.select(summary.sum()).item()
    if summary_rows:
        # trec_eval's reserved id, its rows means (or sums) of the others': not a query named 'all'
        if dropped_summary is None:
            warn_summary_rows(summary_rows)
        else:
            dropped_summary.append(data.filter(summary).select("system", "measure"))
        data = data.filter(~summary)
        require_rows(data, what="the per-query table", why=f"it holds only summary rows (qid {SUMMARY_QID!r}); "
                     f"{PER_QUERY_HINT}")
    usable = pl.col("value").is_finite() & (pl.col("value").abs() <= MAX_ABS_VALUE)
    if not data.select(usable.or_(pl.col("value").is_null()).all()).item():
        bad = data.filter(~usable)
        raise nonfinite_error(bad.height, bad.drop("summary", strict=False).row(0, named=True))
    if warn_ranges:
        warn_values_outside_ranges(data)
    return data


def is_text_measure(name: str) -> bool:
    """Whether ``name`` names string-valued measures only (``RelString@10``, ``relstring.5``: Evaluation.text);
    False for a name pairedframe does not know (a measure column of a table: numeric)."""
    try:
        parsed = parse_measure(name)
    except Exception:
        return False
    return bool(parsed) and all(m.spec.value_kind == "text" for m in parsed)


def string_valued_error(names: list[str], verb: str, parameter: str = "") -> EmptyResultError:
    """The refusal of string-valued measures in a comparison of numbers (``verb`` a numeric measure instead)."""
    return EmptyResultError(f"{parameter}measure(s) {names} are string-valued (Evaluation.text): there are no "
                            f"numeric per-query values to compare; {verb} a numeric measure")


def by_system(frame: pl.DataFrame) -> tuple[pl.DataFrame, str]:
    """``frame``'s ``value`` wide, one column per system, and the name of its query column: ``qid``, or
    (when a system is called ``qid``) ``_qid``, ``__qid``, ...  System names are data, so no name -- ``qid``,
    ``value``, ``system`` -- may clash with the table's own columns."""
    names = set(frame["system"].unique().to_list())
    key = "qid"
    while key in names:
        key = "_" + key
    wide = frame.select(pl.col("qid").alias(key), "system", "value").pivot(on="system", index=key, values="value")
    return wide, key


@dataclass(frozen=True)
class PairedRows:
    """The paired rows of a call: every comparison (``rows``) and its per-query deltas (``paired``)."""

    paired: pl.DataFrame          # _row, system, *extras, measure, qid, a, b, delta (sorted by _row, qid)
    rows: pl.DataFrame            # _row, system, *extras, measure
    extras: list[str]


def choose_comparisons(all_systems: list[str], all_measures: list[str], baseline: Any,
                        systems: Sequence[str] | str | None, measures: Sequence[str] | str | None
                        ) -> tuple[list[str], list[str]]:
    """The systems compared with ``baseline`` and the measures, checked against those of the table
    (given in order of appearance); errors name the unknown ones (:func:`pairedframe.checks.require_names`)."""
    if not isinstance(baseline, str):
        raise TypeError(f"`baseline` must be a system name (str), got {baseline!r}")
    require_names(baseline, all_systems, what="system", parameter="baseline", source="the per-query table")
    others = [s for s in all_systems if s != baseline]
    systems = [s for s in require_names(systems if systems is not None else others or [baseline], all_systems,
                                        what="system", parameter="systems", source="the per-query table")
               if s != baseline]
    if not systems:
        raise ValueError("nothing to compare: no system other than the baseline "
                         f"{baseline!r} (systems in the table: {all_systems})")
    requested = [measures] if isinstance(measures, str) else list(measures or [])
    text = [m for m in requested if isinstance(m, str) and m not in all_measures and is_text_measure(m)]
    if text:  # relstring.10 beside numeric measures matched "nothing in the per-query table"
        raise string_valued_error(text, "compare", "`measures`: ")
    chosen = require_names(table_measure_names(measures, all_measures), all_measures, what="measure",
                           parameter="measures", source="the per-query table")
    return systems, comparable_measures(chosen, everything=measures is None)


def comparable_measures(measures: list[str], *, everything: bool) -> list[str]:
    """``measures`` a paired comparison of mean deltas can test: not counts of the judgments (NumQ, NumRel), nor
    of what a run returned (NumRet), nor geometric means (GMAP, GMBpref).  ``everything`` (no measure was
    named): those are left out with a warning naming them; otherwise naming one is a ValueError saying why."""
    chosen = _without_run_independent(measures, everything=everything)
    chosen = _without_run_counts(chosen, everything=everything)
    return _without_geometric_means(chosen, everything=everything)


def _without_run_independent(measures: list[str], *, everything: bool) -> list[str]:
    """The measures two runs can differ in: not NumQ, NumRel (:func:`~pairedframe.measures.parse.run_independent`),
    whose per-query values come from the judgments alone -- no hypothesis to test, yet they would enlarge
    every Holm / BH family.  Left out with a warning when every measure was asked for; refused when named."""
    fixed = [m for m in measures if run_independent(m)]
    if not fixed:
        return measures
    why = (f"{', '.join(fixed)} depend{'s' if len(fixed) == 1 else ''} on the judgments only, not on the run: "
           "systems on the same queries cannot differ in them, so they are no hypothesis (and would only "
           "enlarge the Holm / BH family)")
    return _leave_out(measures, fixed, why, everything=everything, refusal=f"{why}; compare measures of the rankings")


def _without_run_counts(measures: list[str], *, everything: bool) -> list[str]:
    """The measures whose larger mean means a better run: not NumRet (:func:`~pairedframe.measures.parse.ranks_runs`),
    a count of what a run returned, which says nothing of how well it ranks -- a 'better' verdict on it would
    be meaningless, and in a family it would make every other measure's Holm / BH threshold stricter.  Left out
    with a warning when every measure was asked for; refused when named."""
    counts = [m for m in measures if not ranks_runs(m)]
    if not counts:
        return measures
    why = (f"{', '.join(counts)} describe{'s' if len(counts) == 1 else ''} what a run returned (how much, or how "
           "much of it is judged), not how well it ranks: no run is better for a larger value (and it would only "
           "enlarge the Holm / BH family)")
    return _leave_out(measures, counts, why, everything=everything,
                      refusal=f"{why}; to test the counts anyway, rename the measure in the per-query table")


def _without_geometric_means(measures: list[str], *, everything: bool) -> list[str]:
    """The measures a paired comparison of mean deltas can compare: not GMAP / GMBpref, whose summary is a
    geometric mean (a mean delta of their per-query values would be AP's or Bpref's).  Left out with a
    warning when every measure of the table was asked for; refused by name when asked for."""
    geometric = [m for m in measures if aggregate_of(m) == "gmean"]
    if not geometric:
        return measures
    verb = "summarises" if len(geometric) == 1 else "summarise"
    why = (f"{', '.join(geometric)} {verb} by a geometric mean, which a mean delta of per-query values "
           "does not compare (it would be the arithmetic mean's: AP's for GMAP); compare AP / Bpref, or the "
           "logs of the values as a measure of their own")
    return _leave_out(measures, geometric, why, everything=everything, refusal=why)


def _leave_out(measures: list[str], untestable: list[str], why: str, *, everything: bool, refusal: str) -> list[str]:
    """``measures`` without ``untestable``: warned when every measure was asked for (and some remain),
    refused otherwise (the error says ``refusal``)."""
    rest = [m for m in measures if m not in untestable]
    if not everything or not rest:
        raise ValueError(f"`measures`: {refusal}")
    warnings.warn(f"left out of the comparison: {why}", PartlyEmptyWarning, stacklevel=user_stacklevel())
    return rest


def require_pairable(measured: set[tuple[str, str]], baseline_measures: list[str], systems: list[str],
                      measures: list[str], baseline: str) -> None:
    """InsufficientSampleError naming the (system, measure) comparisons with no values on one side:
    a comparison asked for (or implied by the table) must not vanish from the family silently."""
    present = measured & {(s, m) for m in baseline_measures for s in systems}
    absent = [(s, m) for s in systems for m in measures if (s, m) not in present]
    if absent:
        raise InsufficientSampleError(
            f"no values to pair for (system, measure) {absent[:5]}{' ...' if len(absent) > 5 else ''}: the "
            f"system or the baseline {baseline!r} has no rows of that measure; pass measures=/systems= to "
            f"choose what to compare")


def pair_systems(data: Any, baseline: str, systems: Sequence[str] | str | None,
                 measures: Sequence[str] | str | None) -> PairedRows:
    """Pair every chosen system with the baseline on their common queries: one row per comparison
    (``rows``) and its per-query ``a, b, delta`` (``paired``), with every input check of
    :func:`pairedframe.compare`."""
    dropped: list[pl.DataFrame] = []
    df = as_frame(data, keep_nulls=True, warn_ranges=False, dropped_summary=dropped)
    extras = [c for c in df.columns if c not in BASE_COLUMNS]
    refuse_cluster_key(extras)
    keys = ["system", *extras, "measure", "qid"]
    present = df.select(keys)                       # null values count as present but not measured
    nulls = df.filter(pl.col("value").is_null()).select(keys)
    df = df.filter(pl.col("value").is_not_null())
    # A hashed screen first (equal keys hash equal), then the grouped check; the row mask only for a duplicate.
    if (df.select(pl.struct(keys).hash(7).n_unique()).item() < df.height
            and df.select(pl.col("qid").is_duplicated().over(keys[:-1]).any()).item()):
        dup = df.select(keys).is_duplicated()
        example = df.filter(dup).row(0, named=True)
        raise DuplicateError(f"per-query table has {int(dup.sum())} rows with a repeated key {keys}, "
                             f"e.g. { {k: example[k] for k in keys} }")
    systems, measures = choose_comparisons(df["system"].unique(maintain_order=True).to_list(),
                                            df["measure"].unique(maintain_order=True).to_list(),
                                            baseline, systems, measures)
    df = df.filter(pl.col("measure").is_in(measures))
    # only the rows compared: a value or summary row of a system or measure left out is not this comparison's concern
    compared = pl.col("system").is_in([baseline, *systems]) & pl.col("measure").is_in(measures)
    if dropped and (count := dropped[0].filter(compared).height):
        warn_summary_rows(count)
    warn_values_outside_ranges(df.filter(compared))
    a = df.filter(pl.col("system") == baseline).select(*extras, "measure", "qid", pl.col("value").alias("a"))
    b = df.filter(pl.col("system").is_in(systems)).select("system", *extras, "measure", "qid",
                                                           pl.col("value").alias("b"))
    found = b.select("system", *extras, "measure").unique(maintain_order=True)
    measured, sink = set(found.select("system", "measure").iter_rows()), unpairable_sink()
    if sink is None:                                # the report and table layers leave these out instead
        require_pairable(measured, a["measure"].unique().to_list(), systems, measures, baseline)
    sys_order = {s: i for i, s in enumerate(systems)}
    meas_order = {m: i for i, m in enumerate(measures)}
    rows = (found
            .with_columns(pl.col("system").replace_strict(sys_order, return_dtype=pl.Int64).alias("_s"),
                          pl.col("measure").replace_strict(meas_order, return_dtype=pl.Int64).alias("_m"))
            .with_row_index("_first")
            .sort("_s", "_m", "_first").drop("_s", "_m", "_first").with_row_index("_row"))
    paired = (b.join(a, on=[*extras, "measure", "qid"], how="inner")
              .join(rows, on=["system", *extras, "measure"], how="left")
              .with_columns(_delta_expr().alias("delta"))
              .select("_row", "system", *extras, "measure", "qid", "a", "b", "delta")
              .sort("_row", "qid"))
    if sink is not None:
        absent = [(s, m) for s in systems for m in measures if (s, m) not in measured]
        rows, paired = leave_out_unpairable(rows, paired, extras, baseline, absent, sink)
    _require_common_queries(rows, paired, a, b, baseline, extras)
    _warn_unpaired(rows, paired, present, nulls, baseline, extras)
    left_out = _one_sided_nulls(nulls, rows, a, b, baseline, extras)
    rows = rows.join(left_out, on="_row", how="left").with_columns(pl.col("_left_out").fill_null(0))
    return PairedRows(paired=paired, rows=rows, extras=extras)


def null_is_a_miss(name: str) -> bool:
    """Whether the measure called ``name`` is null where a system found nothing (FirstRelRank,
    TopGradeRank: ``empty_value`` "null (not retrieved)"), rather than undefined for the query."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            parsed = parse_measure(name)
        except ValueError:
            return False
    return len(parsed) == 1 and parsed[0].spec.empty_value.startswith("null (not retrieved)")


def _one_sided_nulls(nulls: pl.DataFrame, rows: pl.DataFrame, a: pl.DataFrame, b: pl.DataFrame, baseline: str,
                     extras: list[str]) -> pl.DataFrame:
    """``_row, _left_out``: per comparison of a measure that is null where a system found nothing
    (FirstRelRank), the queries one system has a null for while the other has a value: that system
    failed there.  A null of another measure, or no row at all, is missing data, not counted."""
    none = pl.DataFrame(schema={"_row": pl.UInt32, "_left_out": pl.UInt32})
    nulls = nulls.filter(pl.col("measure").is_in([m for m in nulls["measure"].unique().to_list() if null_is_a_miss(m)]))
    if not nulls.height:
        return none
    keys = [*extras, "measure"]
    b_null = (nulls.filter(pl.col("system") != baseline).join(rows, on=["system", *keys], how="inner")
              .join(a, on=[*keys, "qid"], how="semi").select("_row", "qid"))
    a_null = (nulls.filter(pl.col("system") == baseline).drop("system").join(rows, on=keys, how="inner")
              .join(b.select("system", *keys, "qid"), on=["system", *keys, "qid"], how="semi").select("_row", "qid"))
    both = pl.concat([b_null, a_null])
    if not both.height:
        return none
    return both.group_by("_row").agg(pl.len().cast(pl.UInt32).alias("_left_out"))


def _warn_unpaired(rows: pl.DataFrame, paired: pl.DataFrame, present: pl.DataFrame, nulls: pl.DataFrame,
                   baseline: str, extras: list[str]) -> None:
    """One PartlyEmptyWarning when some comparison pairs fewer queries than its two systems have rows
    for between them: a query with no value (null: undefined, e.g. FirstRelRank when nothing relevant is
    retrieved) or no row on one side is left out, and the means and tests condition on it. The warning
    names the cause its worst comparison has (:func:`_left_out_causes`)."""
    keys = [*extras, "measure"]
    # cheap first: row counts per side equal to the paired count mean both sides hold exactly the paired queries
    sizes = present.group_by("system", *keys).agg(pl.len().alias("n"))
    sides = (rows.join(paired.group_by("_row").agg(pl.len().alias("n_paired")), on="_row", how="left")
             .join(sizes, on=["system", *keys], how="left")
             .join(sizes.filter(pl.col("system") == baseline).drop("system"), on=keys, how="left", suffix="_base"))
    if sides.select(((pl.col("n") == pl.col("n_paired")) & (pl.col("n_base") == pl.col("n_paired"))).all()).item():
        return
    base = present.filter(pl.col("system") == baseline).select(*keys, "qid")
    own = present.join(rows.select("_row", "system", *keys), on=["system", *keys], how="inner").select("_row", *keys, "qid")
    union = pl.concat([own, rows.select("_row", *keys).join(base, on=keys, how="inner").select(own.columns)]).unique()
    counts = (union.group_by("_row").agg(pl.len().alias("n_union"))
              .join(paired.group_by("_row").agg(pl.len().alias("n_paired")), on="_row", how="left")
              .with_columns(pl.col("n_paired").fill_null(0))
              .filter(pl.col("n_paired") < pl.col("n_union"))
              .with_columns((pl.col("n_union") - pl.col("n_paired")).alias("left_out"))
              .sort("left_out", "_row", descending=[True, False]))
    if not counts.height:
        return
    worst = counts.row(0, named=True)
    row = rows.filter(pl.col("_row") == worst["_row"]).drop("_row").row(0, named=True)
    left = (union.filter(pl.col("_row") == worst["_row"]).select("qid")
            .join(paired.filter(pl.col("_row") == worst["_row"]).select("qid"), on="qid", how="anti"))
    null_qids = nulls.filter(pl.col("system").is_in([row["system"], baseline])).join(
        pl.DataFrame([{k: row[k] for k in keys}]), on=keys, how="semi").select("qid")
    n_null = left.join(null_qids, on="qid", how="semi").height
    warnings.warn(
        f"{counts.height} comparison(s) leave out queries that only one side has a value for; most: "
        f"{worst['n_paired']} of {worst['n_union']} queries paired ({describe_row(row)}, baseline={baseline}): "
        f"{_left_out_causes(left.height - n_null, n_null)}; means, intervals and tests are over the paired "
        "queries only", PartlyEmptyWarning, stacklevel=user_stacklevel())


def _left_out_causes(n_absent: int, n_null: int) -> str:
    """Why queries are left out, as the warning says: no row on one side (a run without a ranking for
    the query), or a null value (a measure undefined there, e.g. FirstRelRank)."""
    causes = []
    if n_absent:
        causes.append(f"{n_absent} have no row on one side (that system or the baseline has no value for the "
                      "query, e.g. a run with no ranking for it; complete=True (-c) scores such a query 0)")
    if n_null:
        causes.append(f"{n_null} have a null value on one side: the measure is undefined for that query (e.g. "
                      "FirstRelRank when no relevant document is retrieved), so for such measures the queries "
                      "one system failed on are left out")
    return "; ".join(causes)


def _require_common_queries(rows: pl.DataFrame, paired: pl.DataFrame, a: pl.DataFrame, b: pl.DataFrame,
                            baseline: str, extras: list[str]) -> None:
    """Every comparison must pair at least one query: one with none would be an empty result."""
    empty = rows.join(paired.select("_row").unique(), on="_row", how="anti").sort("_row")
    if not empty.height:
        return
    first = empty.row(0, named=True)
    keys = ["system", *extras, "measure"]
    own = b.join(empty.head(1).select(keys), on=keys, how="semi")["qid"].unique(maintain_order=True).to_list()
    base = a.join(empty.head(1).select(keys[1:]), on=keys[1:], how="semi")["qid"].unique(maintain_order=True).to_list()
    raise no_common_query(empty.height, rows.height, baseline, describe_row({k: first[k] for k in keys}), own, base)


def no_common_query(n_empty: int, n_rows: int, baseline: str, first: str, own: list[str],
                    base: list[str]) -> EmptyResultError:
    """The error for comparisons without a query in common with the baseline (names the first)."""
    return EmptyResultError(
        f"{n_empty} of {n_rows} comparison(s) have no common query with the baseline {baseline!r}; first: "
        f"{first}: its queries {sample(own, 3)}, the baseline's {sample(base, 3)}; were they evaluated "
        "against the same qrels?")


def describe_row(row: dict[str, Any]) -> str:
    """``key=value, ...`` of a comparison row, for messages."""
    return ", ".join(f"{k}={v}" for k, v in row.items() if k != "_row")


def check_sizes(rows: pl.DataFrame, baseline: str, extras: list[str], *, warn_small: bool = True) -> None:
    """InsufficientSampleError for a comparison with fewer than 2 queries; SmallSampleWarning below
    MIN_QUERIES (``warn_small=False``: left to the caller, who says it with another warning, as
    :func:`small_sample_text`). ``rows``: one row per comparison with ``n_queries``."""
    bad = rows.filter(pl.col("n_queries") < 2)
    if bad.height:
        first = bad.row(0, named=True)
        what = "no common query" if first["n_queries"] == 0 else "only one common query"
        raise InsufficientSampleError(
            f"{bad.height} comparison(s) with the baseline {baseline!r} have fewer than 2 common queries; "
            f"first: {describe_row({k: first[k] for k in ['system', *extras, 'measure']})} ({what})")
    text = small_sample_text(rows, extras) if warn_small else None
    if text:
        warnings.warn(text, SmallSampleWarning, stacklevel=user_stacklevel())


def small_sample_text(rows: pl.DataFrame, extras: list[str]) -> str | None:
    """The SmallSampleWarning's words for comparisons under MIN_QUERIES common queries (None: none is)."""
    small = rows.filter(pl.col("n_queries") < MIN_QUERIES)
    if not small.height:
        return None
    first = small.sort("n_queries").row(0, named=True)
    return (f"{small.height} comparison(s) have fewer than {MIN_QUERIES} common queries, the fewest for trusted "
            f"paired statistics (smallest: n = {first['n_queries']}, "
            f"{describe_row({k: first[k] for k in ['system', *extras, 'measure']})}); "
            "intervals and p-values are unreliable. See the mde column and "
            "pairedframe.stats.power.required_queries / minimum_detectable_effect for the queries needed.")
