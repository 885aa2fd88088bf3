"""``pairedframe evaluate QRELS RUN [RUN ...]``: trec_eval's arguments and output, plus tables."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import polars as pl
import typer

from pairedframe.cli.common import app, friendly_errors, named_runs, print_frame
from pairedframe.cli.eval_options import EvaluationOptions, with_evaluation_options
from pairedframe.cli.trec_eval_args import TrecEvalCommand
from pairedframe.evaluation import evaluate
from pairedframe.errors import user_stacklevel
from pairedframe.evaluation.result import in_system_order
from pairedframe.evaluation.trec_text import refuse_runid_alone, require_printable, runid_only, split_runid
from pairedframe.evaluation.zscores import MISSING as MISSING_ZSCORE
from pairedframe.measures import Measure, parse_measures
from pairedframe.report.output import json_text


@app.command("evaluate", cls=TrecEvalCommand, context_settings={"help_option_names": ["-h", "--help"]})
@friendly_errors
@with_evaluation_options(after={"judged_only": "judgments_format", "grades": "results_format"})   # as its help always listed them
def evaluate_cmd(
    qrels: Annotated[Path, typer.Argument(help="qrels file (qid iter docno rel), plain, .gz or .zst, or a Parquet/Arrow/CSV/TSV table; never - (only a run is read from stdin)")],
    runs: Annotated[list[Path], typer.Argument(help="run files (qid Q0 docno rank score tag), plain, .gz or .zst, or tables; NAME=PATH names one")],
    measure: Annotated[list[str], typer.Option("-m", "--measure", help="measure, e.g. nDCG@10, AP, ndcg_cut.10,20, P.5,10, all_trec; repeatable; default: trec_eval's official set")] = [],  # noqa: B006
    per_query: Annotated[bool, typer.Option("-q", "--per-query", help="also print per-query values")] = False,
    no_summary: Annotated[bool, typer.Option("-n", "--no-summary", help="print no summary ('all') lines, runid included (trec_eval -n); needs -q")] = False,
    *,
    evaluation: EvaluationOptions,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | csv | json | markdown | trec (byte-identical to trec_eval [-q])")] = "table",
    engine: Annotated[str, typer.Option("--engine", help="polars (the default), duckdb or spark: the same values (spark: pip install 'pairedframe\\[spark]', Java 17+; evaluates the files in a local Spark session)")] = "polars",
    judgments_format: Annotated[str, typer.Option("-R", "--judgments-format", help="layout of QRELS (trec_eval -R): qrels, qrels_jg (iter column = judgment group; -m qrels_jg), prefs or qrels_prefs (preference judgments; -m all_prefs)")] = "qrels",
    zscores: Annotated[Path | None, typer.Option("-Z", "--zscores", help="print z-scores against the per-query means and standard deviations in this file: lines qid measure mean stddev (trec_eval -Z)")] = None,
    collection_size: Annotated[int | None, typer.Option("-N", "--collection-size", help="documents in the collection, for utility's fourth weight (trec_eval -N); sets collection_size of every utility measure that does not state one")] = None,
    results_format: Annotated[str, typer.Option("-T", "--results-format", help="layout of RUN (trec_eval -T): trec_results, trec_eval 10's only one")] = "trec_results",
) -> None:
    """Evaluate runs against qrels, with trec_eval's argument order, measure syntax and numbers.

    Without -m, trec_eval's default set (official); -m all_trec is trec_eval's all_trec set (every measure but dcg, ideal_dcg and yaap, as in trec_eval).
    --format trec prints what trec_eval prints; several runs each start with a "# run: NAME" line.
    --format markdown prints the table of means as a GFM pipe table, names escaped as in compare's
    markdown, then the table's title as a "Table: ..." caption line (which rows are means, sums or
    geometric means; per-query rows with -q, no caption); csv and json hold data rows only. Every format lists the runs in the order given. String-valued measures (relstring) appear in
    csv/json/table output in a text column (with -q: without it they have no summary value, so the other
    formats refuse them alone, and --format trec prints nothing for them, as trec_eval, with a warning).

    trec_eval 10's options: -q -m -c -l -n -M -N -J -R -T -Z -h, and its long names (--nosummary,
    --level_for_rel=2, ...). -n drops the summary lines (with -q); -N sets the collection size of
    utility measures. -D, -o, -v and trec_eval 8's -a are refused, naming what to use instead.

    -R reads QRELS in another of trec_eval's layouts: qrels_jg (assessors in the iteration column;
    -m qrels_jg), prefs and qrels_prefs (preference judgments; -m all_prefs). -Z FILE prints
    z-scores (Z-prefixed names). -J evaluates judged documents only.

    Measure names: --format trec prints trec_eval's names (map, P_10); table, csv and json print each
    measure's canonical name, whatever spelling -m used (-m map and -m AP both give AP), so that files
    from different commands join on one name. Under -l N with N other than 1 the canonical name
    states the level used: -l 2 -m P@10 gives P(rel=2)@10, and -l 2 -m "P(rel=1)@10" gives P(rel=1)@10.
    """
    if fmt not in ("table", "csv", "json", "markdown", "trec"):
        raise ValueError(f"--format must be table, csv, json, markdown or trec, got {fmt!r}")
    if results_format != "trec_results":
        raise ValueError(f"-T/--results-format must be trec_results (trec_eval 10's only results format), got "
                         f"{results_format!r}")
    if no_summary and not per_query:
        raise ValueError("-n (no summary) without -q leaves nothing to print: add -q for the per-query values")
    rel_level, judged_only = evaluation["rel_level"], evaluation["judged_only"]
    if collection_size is not None and collection_size < 0:
        raise ValueError(f"-N/--collection-size must be an integer >= 0, got {collection_size}")
    if fmt != "trec":
        refuse_runid_alone(measure, "-m runid", "use it with --format trec, or add a measure, e.g. -m map")
    runid_alone = bool(measure) and all(m.strip() == "runid" for m in measure)  # trec: the runid lines only
    measures = _with_collection_size(measure or ["official"], collection_size)
    if fmt == "trec" or not per_query:     # checked before reading any file, on one parse of the names
        names, _ = split_runid(measures)
        parsed = parse_measures(names or ["num_q"])
        if fmt == "trec":   # a measure trec_eval cannot print is refused now
            require_printable([m.resolved(rel_level, judged_only) for m in parsed], rel_level, judged_only)
            if not per_query:   # trec_eval prints nothing for relstring without -q: so do we, with a warning
                _check_summarised(_named_text(names, parsed), refuse=False)
        else:
            _check_summarised(parsed)
    named = named_runs(runs)
    ev = evaluate(named, str(qrels), [*measures, "num_q"] if runid_alone else measures, engine=engine,
                  judgments_format=judgments_format, **evaluation)  # type: ignore[arg-type]
    if runid_alone:
        ev = runid_only(ev)
    if zscores is not None:
        ev = ev.zscore(str(zscores), names="trec_eval")   # as trec_eval -Z reads the file: its names only
        if fmt != "trec":
            _warn_missing_zscores(ev.per_query, zscores)
    ev = in_system_order(ev, list(named))   # the runs in the order given, as compare, table and report
    if fmt == "trec":
        sys.stdout.write(ev.to_trec(per_query=per_query, summary=not no_summary))
        return
    summary = _z_named(ev.summary(), ev.settings.zscores)
    if fmt in ("table", "markdown") and not per_query:
        wide = summary.pivot(on="measure", index="system", values="value")
        counts = [] if ev.settings.zscores else [m.name for m in ev.measures if m.spec.aggregate == "sum"]
        wide = wide.with_columns([pl.col(c).round(0).cast(pl.Int64) for c in counts])
        # the queries evaluated (each has a row per measure, null where a measure has no value), not the
        # most any measure has a value for
        n = summary.select("system").unique(maintain_order=True).join(
            ev.per_query.group_by("system").agg(pl.col("qid").n_unique().alias("n_queries")), on="system", how="left")
        title = _summary_title(ev.measures, ev.settings.zscores)
        print_frame(n.join(wide, on="system", how="left"), fmt, title=title)  # markdown: a "Table:" caption
        if fmt == "markdown":
            typer.echo("")  # ends the caption's paragraph: the notes below are text
        fewer = (summary.join(n.rename({"n_queries": "_all"}), on="system")
                 .filter(pl.col("n_queries") < pl.col("_all")))
        for row in fewer.iter_rows(named=True):     # n_queries: the queries evaluated
            typer.echo(f"{row['system']} {row['measure']}: mean over {row['n_queries']} of {row['_all']} queries "
                       "(the others have no value for it)")
        typer.echo(f"query set: {ev.settings.query_set}\nties: {ev.settings.tie_rule}\n"
                   f"relevance level: {ev.settings.rel_level}; scores as {ev.settings.score_precision}"
                   + (f"\ndepth: the top {ev.settings.depth} documents of each ranking (-M {ev.settings.depth})"
                      if ev.settings.depth is not None else "")
                   + ("\njudged only: unjudged documents dropped from each ranking (-J)" if ev.settings.judged_only else ""))
        return
    # trec_eval's "all" rows; the summary column tells them from a query whose id is "all"
    rows = summary.select("system", pl.lit("all").alias("qid"), "measure", "value", pl.lit(True).alias("summary"))
    if no_summary:          # -n: the per-query rows alone (-q is required)
        rows = rows.clear()
    if per_query:
        rows = pl.concat([_z_named(ev.per_query, ev.settings.zscores).with_columns(pl.lit(False).alias("summary")), rows])
        if ev.text.height:  # string-valued measures (relstring): a text column, value null
            rows = pl.concat([rows.with_columns(pl.lit(None, dtype=pl.String).alias("text")),
                              ev.text.select("system", "qid", "measure", pl.lit(None, dtype=pl.Float64).alias("value"),
                                             pl.lit(False).alias("summary"), "text")])
    counts = [] if ev.settings.zscores else [m.name for m in ev.measures if m.spec.aggregate == "sum"]
    if fmt == "csv":  # full precision, for machines; counts (num_ret, ...) as integers, not 2.0
        rows = rows.with_columns(pl.when(pl.col("measure").is_in(counts))
                                 .then(pl.col("value").round(0).cast(pl.Int64).cast(pl.String))
                                 .otherwise(pl.col("value").cast(pl.String)).alias("value"))
    elif fmt == "json":
        records = [{**r, "value": int(round(r["value"])) if r["measure"] in counts and r["value"] is not None
                    else r["value"]} for r in rows.to_dicts()]
        sys.stdout.write(json_text(records))
        return
    # one value column holds every measure: each measure gets its own number format, counts integers
    print_frame(rows, fmt, format_by="measure", integers=counts)


def _check_summarised(parsed: list[Measure], *, refuse: bool = True) -> None:
    """Without -q only summaries print, and a text measure (relstring) has none, as in trec_eval: refuse a
    list of nothing else, which printed an empty table with exit 0; warn where others are left to print
    (``refuse=False``, --format trec: always warn, as trec_eval's empty output stays byte for byte)."""
    text = list(dict.fromkeys(m.name for m in parsed if m.spec.value_kind == "text"))   # -m relstring twice: once
    if not text:
        return
    said = ", ".join(text) + (" has" if len(text) == 1 else " have")
    if refuse and len(text) == len(parsed):
        raise ValueError(f"{said} no summary value (one string per query, as trec_eval's relstring), so "
                         "without -q there is nothing to print: add -q for the per-query values")
    warnings.warn(f"{said} no summary value (one string per query), so the summary leaves "
                  f"{'it' if len(text) == 1 else 'them'} out: add -q to print {'it' if len(text) == 1 else 'them'}",
                  UserWarning, stacklevel=user_stacklevel())


def _named_text(names: list[str], parsed: list[Measure]) -> list[Measure]:
    """The text measures (relstring) named on their own by -m, not those a set brings (-m all_trec prints
    trec_eval's output without a word on stderr)."""
    if not any(m.spec.value_kind == "text" for m in parsed):
        return []
    with warnings.catch_warnings():     # the names were parsed (and warned of) once already
        warnings.simplefilter("ignore")
        alone = [parse_measures([name]) for name in names]
    return [ms[0] for ms in alone if len(ms) == 1 and ms[0].spec.value_kind == "text"]


def _with_collection_size(measures: list[str], collection_size: int | None) -> list:
    """The -m names, with trec_eval's -N set as the collection size of every utility measure that states
    none (and ``runid`` kept when the names asked for trec_eval's runid line)."""
    names, runid = split_runid(measures)
    if collection_size is None or not names:
        return measures
    # parsed together, so trec_eval's merge of one family's lists (P then P.7: P_7 only) and its warning hold
    parsed = parse_measures(names)
    # a stated collection_size=0 is the default, which parsing drops: the text says whether one was stated
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # the merge warnings were given once, above
        stated = {m for name in names if "collection_size" in name for m in parse_measures([name])}
    sized = [replace(m, params=(*m.params, ("collection_size", collection_size)))
             if m.family == "Utility" and m not in stated else m for m in parsed]
    return [*sized, "runid"] if runid else sized


def _warn_missing_zscores(per_query: pl.DataFrame, path: Path) -> None:
    """In csv / json / table output trec_eval's -1000000 "no z-score" value reads as a number: say where."""
    missing = per_query.filter(pl.col("value") == MISSING_ZSCORE)
    if missing.height:
        names = ", ".join(f"Z{m}" for m in missing["measure"].unique(maintain_order=True).to_list()[:5])
        warnings.warn(f"{missing.height} per-query value(s) ({names}) are trec_eval's -1000000 for a query or "
                      f"measure missing from {path} (or a value other than its mean where its stddev is 0): a "
                      "marker, not a z-score; leave them out before averaging or comparing (the summary rows "
                      "include them, as trec_eval's do)", UserWarning, stacklevel=user_stacklevel())


def _summary_title(measures: Sequence[Measure], zscores: bool) -> str:
    """What the summary table's numbers are, as :func:`pairedframe.evaluation.result.summarise` computes
    them: the mean over queries, except trec_eval's sums (NumRet, NumRel, NumRelRet, NumQ) and geometric
    means (GMAP, GMBpref); under -Z the counts' z-scores are summed, ZNumQ counts queries and gm_* take
    exp of the mean z-score."""
    kinds: dict[str, list[str]] = {}
    for m in measures:
        if m.spec.aggregate == "none":
            continue
        if zscores:
            kind = ("number of queries" if m.family == "NumQ" else "exp of the mean" if m.spec.aggregate == "gmean"
                    else "sum" if m.spec.aggregate == "sum" else "mean")
        else:
            kind = {"sum": "sum", "gmean": "geometric mean"}.get(m.spec.aggregate, "mean")
        kinds.setdefault(kind, []).append(("Z" if zscores else "") + m.name)
    if set(kinds) <= {"mean"}:
        return "mean over queries"
    if len(kinds) == 1:
        return f"{next(iter(kinds))} over queries"
    others = "; ".join(f"{', '.join(names)}: {kind}" for kind, names in kinds.items() if kind != "mean")
    return f"mean over queries, except {others}" if "mean" in kinds else f"{others} (over queries)"


def _z_named(frame: pl.DataFrame, zscores: bool) -> pl.DataFrame:
    """z-scores (-Z) carry a ``Z`` before each measure name, as trec_eval prints them."""
    return frame.with_columns(("Z" + pl.col("measure")).alias("measure")) if zscores else frame
