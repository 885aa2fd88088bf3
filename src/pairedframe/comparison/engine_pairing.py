"""Pairing in the engine: a per-query table in DuckDB or Spark checked and paired with the baseline, as SQL
(the in-engine twin of :func:`pairedframe.comparison.pairing.pair_systems`; same rules and messages).

The result, :class:`Paired`, names the engine table ``pairs`` (``comp, qid, a, b, delta``) and describes
each comparison ``comp`` in polars (``rows``); :mod:`pairedframe.comparison.by_join` and its clustered and
segment siblings resample it as joins.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import polars as pl
import pyarrow as pa

from pairedframe.checks import require_rows
from pairedframe.comparison._validate import (MAX_ABS_VALUE, groups_outside_ranges, nonfinite_error, outside_sql,
                                              warn_outside_range)
from pairedframe.comparison.engine_tables import NUMERIC_TYPES, EngineTable, check_id_types, null_ids_error
from pairedframe.comparison.pairing import DELTA_TOLERANCE, choose_comparisons, describe_row, require_pairable
from pairedframe.comparison.reserved import refuse_cluster_key, trec_eval_aggregate, warn_summary_rows
from pairedframe.comparison.unpairable import MIN_PAIRED, NothingPairableError, unpairable_sink
from pairedframe.errors import (BLANK_ID, EMPTY_ID_RULE, DuplicateError, PartlyEmptyWarning, SchemaError,
                                user_stacklevel)
from pairedframe.io.not_per_query import lacking_columns_error
from pairedframe.io.results import (PER_QUERY_HINT, SUMMARY_QID, flagged_summary_sql, partly_null_key_error,
                                     summary_flags, summary_value)
from pairedframe.tables import refuse_aliases_beside

__all__ = ["BASE", "Paired", "pair_in_engine", "leave_out_in_engine", "warn_unpaired"]

BASE = ("system", "qid", "measure", "value")


@dataclass
class Paired:
    """The paired deltas of every comparison, as a table ``pairs`` (``comp, qid, a, b, delta``) in
    the engine, and ``rows`` (polars: ``_row, system, <keys>, measure``) describing each ``comp``."""

    table: EngineTable
    pairs: str
    rows: pl.DataFrame
    extras: list[str]
    source: str         # the validated user rows: system, qid, measure, <keys>, value, pf_row
    #: per comparison (``_row, system, <keys>, measure``) the queries with a value on its system's side (``n``)
    #: and on the baseline's (``n_base``), for :func:`warn_unpaired`; None once renumbered (leave_out_in_engine)
    measured: pl.DataFrame | None = None


def _frame(rows: list[tuple], names: Sequence[str]) -> pa.Table:
    return pl.DataFrame(rows, schema=list(names), orient="row").to_arrow()


def pair_in_engine(table: EngineTable, baseline: str, systems: Sequence[str] | str | None,
                   measures: Sequence[str] | str | None, *, extra_keys: Sequence[str] = (),
                   source: str | None = None, columns: Sequence[str] | None = None) -> Paired:
    """Validate the user's per-query table and pair every system with ``baseline``, in the engine.

    Same rules and messages as the polars path (:func:`pairedframe.comparison.pairing.pair_systems`): null
    values are 'not measured', trec_eval's summary rows (``qid == "all"``,
    :func:`~pairedframe.io.results.unflagged_summary_rows`) are dropped with a warning, non-finite values and
    repeated keys are errors, systems and measures default to their order of first appearance.
    ``extra_keys`` are columns carried into ``pairs`` but not comparison keys (the cluster); ``source``
    and ``columns`` name a table made from the user's (default: the user's table itself).
    """
    source = table.source if source is None else source
    columns = table.columns if columns is None else list(columns)
    flagged = "summary" in columns      # `pairedframe evaluate -q -f csv` flags its 'all' rows
    if flagged:                         # its spellings checked as the polars path checks them
        summary_flags(table.collect(f"SELECT DISTINCT CAST(summary AS STRING) AS summary FROM {source}")["summary"])
    extras = _key_columns(table, source, columns, extra_keys)
    keep = [*extras, *extra_keys]
    pq = _measured_rows(table, source, keep, flagged, partition_by=("measure", "qid", *keep))
    real = "TRUE" if flagged else _NOT_ALL    # a flagged table keeps a query named 'all'
    groups = _row_groups(table, pq, extras, real)
    if not flagged and int(groups["summary"].sum() or 0):   # rows named 'all': the summary's, or a query's
        real = _not_summary(table, pq, extras)
        groups = groups if real == _NOT_ALL else _row_groups(table, pq, extras, real)
    _check_rows(table, pq, groups, keep, flagged, real)
    rows = _comparison_rows(groups, extras, baseline, systems, measures)
    # only the rows compared, as the polars path: a system or measure left out (its values, its summary rows) is not
    # this comparison's concern
    compared = pl.col("system").is_in([baseline, *rows["system"].unique().to_list()])
    measured = pl.col("measure").is_in(rows["measure"].unique().implode())
    scoped = groups.filter(compared & measured)
    if not flagged and (summary := int(scoped["summary"].sum() or 0)):
        warn_summary_rows(summary)
    _warn_outside_ranges(table, pq, scoped, real)
    comps = table.name("comps")
    table.register(comps, rows.rename({"_row": "comp"}).with_columns(pl.col("comp").cast(pl.Int64))
                   .with_columns(pl.lit(baseline).alias("pf_baseline")).to_arrow())
    q = table.quote
    same = "".join(f" AND b.{q(c)} = c.{q(c)}" for c in extras)
    same_ab = "".join(f" AND a.{q(c)} = b.{q(c)}" for c in keep)
    pairs = table.name("pairs")
    raw = "b.value - a.value"
    # the baseline's rows picked by a join with the (small) baseline list first, so only they are sorted on
    # that side, and the join on qid has exactly the keys pq is partitioned by (no shuffle in Spark)
    table.create(pairs, f"SELECT c.comp, b.qid, {', '.join('b.' + q(c) + ', ' for c in extra_keys)}"
                        f"a.value AS a, b.value AS b, "
                        f"CASE WHEN abs({raw}) <= {DELTA_TOLERANCE!r} * greatest(1.0, abs(a.value), abs(b.value)) "
                        f"THEN 0.0 ELSE {raw} END AS delta "
                        f"FROM {pq} b JOIN {comps} c ON b.system = c.system AND b.measure = c.measure{same} "
                        f"JOIN (SELECT r.* FROM {pq} r JOIN (SELECT DISTINCT pf_baseline, measure FROM {comps}) k "
                        f"ON r.system = k.pf_baseline AND r.measure = k.measure) a "
                        f"ON a.measure = b.measure AND a.qid = b.qid{same_ab} "
                        f"WHERE {_on(real, 'b')} AND {_on(real, 'a')}")
    return Paired(table=table, pairs=pairs, rows=rows.select("_row", "system", *extras, "measure"), extras=extras,
                  source=pq, measured=_measured_queries(rows, groups, extras, baseline, flagged))


#: SQL: a row not named 'all' (the summary rows of a table without a summary column all are).
_NOT_ALL = f"qid <> '{SUMMARY_QID}'"


def _on(condition: str, alias: str) -> str:
    """``condition`` on the rows of ``alias`` (its qid and pf_row)."""
    return condition.replace("qid", f"{alias}.qid").replace("pf_row", f"{alias}.pf_row")


def _not_summary(table: EngineTable, pq: str, extras: list[str]) -> str:
    """SQL: the rows of ``pq`` (no ``summary`` column, rows named 'all') that are no trec_eval summary row, as the
    polars path tells them (:func:`~pairedframe.io.results.unflagged_summary_rows`): its 'all' rows and their
    groups' other values are few, so the rule runs in polars."""
    keys = ["system", *extras, "measure"]
    cols = ", ".join(table.quote(c) for c in keys)
    other = f"CASE WHEN {_NOT_ALL} THEN value END"
    stats = table.collect(f"SELECT {cols}, count({other}) AS n_other, avg({other}) AS mean_other, "
                          f"sum({other}) AS sum_other, max(abs(round(value * 10000) - value * 10000)) AS off4 "
                          f"FROM {pq} GROUP BY {cols} "
                          f"HAVING count(CASE WHEN NOT ({_NOT_ALL}) THEN 1 END) > 0")
    rows = table.collect(f"SELECT {cols}, value, pf_row FROM {pq} WHERE NOT ({_NOT_ALL})")
    rows = rows.join(stats, on=keys, how="left", nulls_equal=True)
    stats = (pl.col(c) for c in ("n_other", "mean_other", "sum_other", "off4"))
    summary = rows.filter(summary_value(pl.col("value"), *stats, trec_eval_aggregate(rows["measure"])))
    if summary.height == rows.height:
        return _NOT_ALL
    if not summary.height:
        return "TRUE"
    return f"({_NOT_ALL} OR pf_row NOT IN ({', '.join(str(int(r)) for r in summary['pf_row'])}))"


def _measured_queries(rows: pl.DataFrame, groups: pl.DataFrame, extras: list[str], baseline: str,
                      flagged: bool) -> pl.DataFrame:
    """:attr:`Paired.measured`, from the measured rows' counts (:func:`_row_groups`; no pass over the data)."""
    real = pl.col("n_rows") - (0 if flagged else pl.col("summary"))
    measured = groups.select("system", *extras, "measure", real.alias("n"))
    base = measured.filter(pl.col("system") == baseline).drop("system").rename({"n": "n_base"})
    return (rows.select("_row", "system", *extras, "measure")
            .join(measured, on=["system", *extras, "measure"], how="left")
            .join(base, on=[*extras, "measure"], how="left"))


def warn_unpaired(paired: Paired, baseline: str, counted: pl.DataFrame | None = None) -> None:
    """The polars path's warning (:func:`pairedframe.comparison.pairing.pair_systems`) when a comparison leaves
    out queries only one side has a value for: a comparison's queries with a value on either side number
    n_system + n_baseline - n_paired (:attr:`Paired.measured`). ``counted``: the paired queries per comparison
    (``comp, n_queries``) of a pass over ``pairs`` the caller makes anyway
    (:func:`~pairedframe.comparison.by_join.comparison_moments`); without it, one pass counts them here."""
    rows = paired.measured
    if rows is None:
        return
    if counted is None:
        counted = paired.table.collect(f"SELECT comp, count(*) AS n_queries FROM {paired.pairs} GROUP BY comp")
    n_paired = counted.select(pl.col("comp").cast(rows.schema["_row"]).alias("_row"),
                              pl.col("n_queries").alias("n_paired"))
    extras = paired.extras
    counts = (rows.join(n_paired, on="_row", how="left")
              .with_columns(pl.col("n_paired").fill_null(0))
              .with_columns((pl.col("n") + pl.col("n_base") - pl.col("n_paired")).alias("n_union"))
              .filter(pl.col("n_paired") < pl.col("n_union"))
              .sort(pl.col("n_union") - pl.col("n_paired"), "_row", descending=[True, False]))
    if not counts.height:
        return
    worst = counts.row(0, named=True)
    row = {k: worst[k] for k in ("system", *extras, "measure")}
    warnings.warn(
        f"{counts.height} comparison(s) leave out queries that only one side has a value for; most: "
        f"{worst['n_paired']} of {worst['n_union']} queries paired ({describe_row(row)}, baseline={baseline}): "
        f"{worst['n_union'] - worst['n_paired']} query(ies) without a value on one side (no row, or a null value); "
        "means, intervals and tests are over the paired queries only", PartlyEmptyWarning, stacklevel=user_stacklevel())


def _key_columns(table: EngineTable, source: str, columns: list[str], extra_keys: Sequence[str]) -> list[str]:
    """The key columns of the user's table (those some measured row fills), after the schema checks:
    the four base columns, a numeric value, string-like ids, rows, measured values, no null id."""
    q = table.quote
    types = table.column_types()
    missing = [c for c in BASE if c not in columns]
    if missing:
        raise lacking_columns_error(missing, columns)
    if not types["value"].lower().startswith(NUMERIC_TYPES):
        raise SchemaError(f"column 'value' must be numeric, got {types['value']}")
    check_id_types(types)
    refuse_aliases_beside(columns, "the per-query table")
    extras = [c for c in columns if c not in BASE and c not in extra_keys and c != "summary"]
    refuse_cluster_key(extras)
    filled = ", ".join(f"count(CASE WHEN value IS NOT NULL THEN {q(c)} END) AS pf_filled_{i}" for i, c in enumerate(extras))
    counts = table.collect(f"SELECT count(*) AS n_rows, count(value) AS measured, "
                           f"count(*) - count(system) AS null_system, count(*) - count(qid) AS null_qid, "
                           f"count(*) - count(measure) AS null_measure, {_blank_counts(table)}"
                           f"{', ' + filled if filled else ''} FROM {source}").row(0, named=True)
    require_rows(int(counts["n_rows"]), what="the per-query table", why="no (system, qid, measure, value) row; "
                 "an evaluation with no judged query in common gives one")
    require_rows(int(counts["measured"]), what="the per-query table", why="every value is null (not measured)")
    nulls = [c for c in ("system", "qid", "measure") if counts[f"null_{c}"]]
    if nulls:
        raise null_ids_error(table, source, nulls)
    _refuse_blank_ids(table, source, counts)
    # a column that no measured row fills (all null, or relstring's text) is no key: it would pair nothing
    keys = [c for i, c in enumerate(extras) if counts[f"pf_filled_{i}"]]
    for i, c in enumerate(extras):
        n_null = int(counts["measured"]) - int(counts[f"pf_filled_{i}"])
        if c in keys and n_null:          # a key some measured rows leave null: those rows would pair nothing
            example = table.collect(f"SELECT CAST(qid AS STRING) AS qid, CAST(system AS STRING) AS system, "
                                    f"CAST(measure AS STRING) AS measure FROM {source} "
                                    f"WHERE value IS NOT NULL AND {q(c)} IS NULL LIMIT 1").row(0, named=True)
            raise partly_null_key_error(c, n_null, int(counts["measured"]), example)
    return keys


def _measured_rows(table: EngineTable, source: str, keep: list[str], flagged: bool,
                   partition_by: Sequence[str]) -> str:
    """The engine table of the measured rows, ids as strings, values as doubles, with their row order
    (``partition_by``: the keys the repeated-key check and the pairing join share, see :meth:`EngineTable.create`)."""
    q = table.quote
    pq = table.name("pq")
    cols = ", ".join(q(c) for c in keep)
    # the flag as summary_flags reads it; its other values were refused in pair_in_engine
    unflagged = f" AND NOT {flagged_summary_sql()}" if flagged else ""
    table.create(pq, f"SELECT CAST(system AS STRING) AS system, CAST(qid AS STRING) AS qid, "
                     f"CAST(measure AS STRING) AS measure, {cols + ', ' if cols else ''}"
                     f"CAST(value AS DOUBLE) AS value, {table.row_order()} AS pf_row "
                     f"FROM {source} WHERE value IS NOT NULL{unflagged}", partition_by=partition_by)
    return pq


def _blank_counts(table: EngineTable) -> str:
    """SQL: per id column, how many rows hold an empty or all-blank id (``blank_<column>``)."""
    return ", ".join(f"count(CASE WHEN {_blank(table, c)} THEN 1 END) AS blank_{c}"
                     for c in ("system", "qid", "measure"))


def _blank(table: EngineTable, column: str) -> str:
    """SQL: whether ``column`` is empty or made of blanks only (:meth:`EngineTable.blank_id`)."""
    return table.blank_id(f"CAST({column} AS STRING)")


def refuse_blank_ids(table: EngineTable, source: str) -> None:
    """:func:`_refuse_blank_ids` of the engine table ``source`` (a door that looks at the ids before pairing)."""
    _refuse_blank_ids(table, source, table.collect(f"SELECT {_blank_counts(table)} FROM {source}").row(0, named=True))


def _refuse_blank_ids(table: EngineTable, source: str, counts: dict[str, Any]) -> None:
    """SchemaError naming the first id column with an empty or all-blank string and its first row, as the
    polars path (:func:`pairedframe.io.results.refuse_null_or_blank_ids`) words it."""
    for column in ("system", "qid", "measure"):
        n = int(counts[f"blank_{column}"] or 0)
        if n:
            row = table.collect(f"SELECT system, qid, measure, value FROM {source} WHERE {_blank(table, column)} "
                                "LIMIT 1").row(0, named=True)
            raise SchemaError(f"the per-query table: column {column!r} is {BLANK_ID} in {n} row(s), e.g. the row "
                              f"{row}; {EMPTY_ID_RULE}")


#: SQL: a value a comparison refuses, NaN / inf (value - value is then no number) or too large (MAX_ABS_VALUE).
_UNUSABLE = f"NOT (value - value = 0) OR abs(value) > {MAX_ABS_VALUE:.0e}"


def _row_groups(table: EngineTable, pq: str, extras: list[str], real: str) -> pl.DataFrame:
    """One pass over the measured rows: per ``system, <keys>, measure`` the row count, summary and
    non-finite rows, and the first row (``first``) and first non-summary row (``first_real``)."""
    group = ", ".join(table.quote(c) for c in ["system", *extras, "measure"])
    return table.collect(f"SELECT {group}, count(*) AS n_rows, "
                         f"CAST(sum(CASE WHEN NOT ({real}) THEN 1 ELSE 0 END) AS BIGINT) AS summary, "
                         f"CAST(sum(CASE WHEN {real} AND ({_UNUSABLE}) THEN 1 ELSE 0 END) AS BIGINT) "
                         f"AS nonfinite, min(pf_row) AS first, min(CASE WHEN {real} THEN pf_row END) AS first_real, "
                         f"min(CASE WHEN {real} THEN value END) AS low, max(CASE WHEN {real} THEN value END) AS high "
                         f"FROM {pq} GROUP BY {group}")


def _check_rows(table: EngineTable, pq: str, groups: pl.DataFrame, keep: list[str], flagged: bool, real: str) -> None:
    """A table of summary rows only refused; non-finite values and repeated keys refused (the first named)."""
    q = table.quote
    cols = ", ".join(q(c) for c in keep)
    if flagged:       # its flagged rows are left out of pq: none left, none measured per query
        require_rows(int(groups["n_rows"].sum() or 0), what="the per-query table",
                     why=f"it holds only summary rows (flagged in column 'summary'); {PER_QUERY_HINT}")
    summary = 0 if flagged else int(groups["summary"].sum() or 0)
    if summary:      # warned about by the caller, counted on the rows compared
        require_rows(int(groups["n_rows"].sum()) - summary, what="the per-query table",
                     why=f"it holds only summary rows (qid {SUMMARY_QID!r}); {PER_QUERY_HINT}")
    nonfinite = int(groups["nonfinite"].sum() or 0)
    if nonfinite:
        first = table.collect(f"SELECT system, {cols + ', ' if cols else ''}qid, measure, value FROM {pq} "
                              f"WHERE {real} AND ({_UNUSABLE}) ORDER BY pf_row LIMIT 1").row(0, named=True)
        raise nonfinite_error(nonfinite, first)
    keys = ["system", *keep, "measure", "qid"]
    key_sql = ", ".join(q(c) for c in keys)
    dup = table.collect(f"SELECT {key_sql}, count(*) AS n, min(pf_row) AS first FROM {pq} "
                        f"WHERE {real} GROUP BY {key_sql} HAVING count(*) > 1")
    if dup.height:
        example = dup.sort("first").row(0, named=True)
        raise DuplicateError(f"per-query table has {int(dup['n'].sum())} rows with a repeated key {keys}, "
                             f"e.g. { {k: example[k] for k in keys} }")


#: The columns of :func:`_row_groups` that are no key.
_GROUP_STATS = ("n_rows", "summary", "nonfinite", "first", "first_real", "low", "high", "median")


def _literal(value: Any) -> str:
    return "NULL" if value is None else "'" + str(value).replace("'", "''") + "'"


def _warn_outside_ranges(table: EngineTable, pq: str, groups: pl.DataFrame, real: str) -> None:
    """The polars path's :func:`~pairedframe.comparison._validate.warn_values_outside_ranges`, from the
    groups' min and max, then their medians (whether a group is on another scale), which cost a sort per group:
    only when a value lies outside its measure's range."""
    groups = groups.filter(pl.col("low").is_not_null())
    if not groups_outside_ranges(groups.with_columns(pl.lit(None, dtype=pl.Float64).alias("median"))):
        return
    keys = [c for c in groups.columns if c not in _GROUP_STATS]      # system, <extras>, measure
    group_by = ", ".join(table.quote(k) for k in keys)
    medians = table.collect(f"SELECT {group_by}, {table.quantile('value', 0.5)} AS median FROM {pq} "
                            f"WHERE {real} GROUP BY {group_by}")
    outside = groups_outside_ranges(groups.join(medians, on=keys, how="left", nulls_equal=True))
    if not outside:
        return
    group, lo, hi, scaled = outside[0]
    where = " AND ".join(f"{table.quote(k)} IS NOT DISTINCT FROM {_literal(group[k])}" for k in keys)
    rows = table.collect(f"SELECT {', '.join(table.quote(k) for k in keys)}, qid, value, count(*) OVER () AS n FROM {pq} "
                         f"WHERE {real} AND {where} AND {outside_sql(lo, hi, scaled)} ORDER BY pf_row LIMIT 1")
    first = rows.row(0, named=True)
    warn_outside_range(first, int(first["n"]), len(outside), lo, hi)


def _comparison_rows(groups: pl.DataFrame, extras: list[str], baseline: str, systems: Any,
                     measures: Any) -> pl.DataFrame:
    """One row per comparison (``_row, system, <keys>, measure``) from :func:`_row_groups`: systems and
    measures chosen and checked as the polars path does, in their order of first appearance."""
    order = (groups.filter(pl.col("first_real").is_not_null()).group_by("system", "measure")
             .agg(pl.col("first_real").min().alias("first")))

    def in_order(column: str) -> list[str]:
        return order.group_by(column).agg(pl.col("first").min()).sort("first")[column].to_list()

    systems, measures = choose_comparisons(in_order("system"), in_order("measure"), baseline, systems, measures)
    measured = set(order.filter(pl.col("system").is_in(systems)).select("system", "measure").iter_rows())
    base_measures = order.filter(pl.col("system") == baseline)["measure"].to_list()
    sink = unpairable_sink()
    if sink is None:                                # the report and table layers leave these out instead
        require_pairable(measured, base_measures, systems, measures, baseline)
    else:
        present = measured & {(s, m) for m in base_measures for s in systems}
        sink.extend({"system": s, "measure": m, "baseline": baseline, "n_queries": 0}
                    for s in systems for m in measures if (s, m) not in present)
    sys_order = {s: i for i, s in enumerate(systems)}
    meas_order = {m: i for i, m in enumerate(measures)}
    found = groups.filter(pl.col("system").is_in(systems) & pl.col("measure").is_in(measures))
    return (found.select("system", *extras, "measure", "first")
            .with_columns(pl.col("system").replace_strict(sys_order, return_dtype=pl.Int64).alias("_s"),
                          pl.col("measure").replace_strict(meas_order, return_dtype=pl.Int64).alias("_m"))
            .sort("_s", "_m", "first").drop("_s", "_m", "first").with_row_index("_row"))


def leave_out_in_engine(paired: Paired, counts: pl.DataFrame, baseline: str) -> Paired | None:
    """Inside :func:`~pairedframe.comparison.unpairable.collecting_unpairable`: ``paired`` without the
    comparisons of fewer than :data:`MIN_PAIRED` common queries (``counts``: ``_row, n_queries``, one row per
    comparison), its ``comp`` renumbered 0..k-1 in a new ``pairs`` table; those left out are recorded in the
    sink.  None when nothing is left out (or outside the context: :func:`pairedframe.compare` refuses them)."""
    sink = unpairable_sink()
    if sink is None:
        return None
    rows = paired.rows.join(counts.select("_row", "n_queries"), on="_row", how="left").with_columns(
        pl.col("n_queries").fill_null(0))
    small = rows.filter(pl.col("n_queries") < MIN_PAIRED)
    if not small.height:
        return None
    sink.extend({"system": r["system"], **{k: r[k] for k in paired.extras}, "measure": r["measure"],
                 "baseline": baseline, "n_queries": int(r["n_queries"])} for r in small.iter_rows(named=True))
    if small.height == rows.height:
        raise NothingPairableError(f"no comparison with the baseline {baseline!r} has {MIN_PAIRED} or more common "
                                   "queries")
    kept = rows.filter(pl.col("n_queries") >= MIN_PAIRED).sort("_row")
    t = paired.table
    renumber = t.name("renumber")
    t.register(renumber, pa.table({"old": pa.array(kept["_row"].cast(pl.Int64).to_numpy()),
                                   "new": pa.array(range(kept.height), pa.int64())}))
    columns = [c for c in t.collect(f"SELECT * FROM {paired.pairs} LIMIT 0").columns if c != "comp"]
    pairs = t.name("pairs")
    t.create(pairs, f"SELECT r.new AS comp, {', '.join('p.' + t.quote(c) for c in columns)} "
                    f"FROM {paired.pairs} p JOIN {renumber} r ON p.comp = r.old")
    t.drop(renumber)
    t.drop(paired.pairs)
    rows = kept.drop("n_queries", "_row").with_row_index("_row")
    return Paired(table=t, pairs=pairs, rows=rows, extras=paired.extras, source=paired.source)
