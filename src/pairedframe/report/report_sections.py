"""The sections of the HTML report (:func:`pairedframe.report.html_report.report`), each a piece of HTML.

Every element id starts with the report's own id, every figure is a data URI, every text escaped.
"""

from __future__ import annotations

import datetime
import functools
import platform
import shlex
import warnings
from functools import partial
from importlib import metadata
from typing import Any

import polars as pl

from pairedframe.comparison import paired_per_query
from pairedframe.evaluation.pipeline import UNJUDGED_REASON
from pairedframe.report.html_heatmap import heatmap_from_pairs
from pairedframe.report.html_page import esc, figure_html, plain_table, render_figure, report_css
from pairedframe.report.html_svg import delta_bars_svg, forest_svg
from pairedframe.stats.levels import percent

__all__ = ["render_report", "how_compared", "delta_plot_systems", "versions", "reproduce_command", "left_out_of_evaluation",
           "unjudged_note"]

#: Packages whose versions the report records (those that shape its numbers or its pictures).
_PACKAGES = ("pairedframe", "polars", "duckdb", "numpy", "scipy", "pyarrow", "matplotlib", "great-tables")
#: Columns of the comparison section, in order.
_COMPARISON_COLUMNS = ("system", "measure", "n_queries", "baseline_mean", "system_mean", "delta", "ci_low", "ci_high",
                       "pvalue", "pvalue_holm", "pvalue_bh", "wins", "losses", "ties", "verdict", "verdict_note")


@functools.cache
def _installed_versions() -> tuple[tuple[str, str], ...]:
    out = [("python", platform.python_version())]
    for name in _PACKAGES:
        try:
            out.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            out.append((name, "not installed"))
    return tuple(out)


def versions() -> dict[str, str]:
    """{package: installed version} of Python and the packages behind the numbers and figures (read
    once per process: the report asks twice)."""
    return dict(_installed_versions())


def delta_plot_systems(comparison: pl.DataFrame, measure: str, most: int) -> list[str]:
    """The systems whose per-query deltas get a bar chart: the decided ones (better / worse) first,
    then the largest absolute deltas; at most ``most``."""
    rows = comparison.filter(pl.col("measure") == measure).with_columns(
        pl.col("verdict").is_in(["better", "worse"]).alias("_decided"), pl.col("delta").abs().alias("_size"))
    rows = rows.sort(["_decided", "_size", "system"], descending=[True, True, False], nulls_last=True)
    return rows["system"].head(most).to_list()


def reproduce_command(settings: dict[str, Any]) -> str | None:
    """The ``pairedframe report`` command that makes the same report, when the inputs were files: every
    option of :func:`pairedframe.report` that has a flag and differs from the command's default
    (``title`` too), and the resampling options always."""
    inputs = settings["inputs"]
    runs, qrels = inputs.get("runs"), inputs.get("qrels")
    if not isinstance(qrels, dict):
        return None
    if isinstance(runs, dict) and all(isinstance(v, dict) for v in runs.values()):
        run_args = [f"{k}={v['path']}" for k, v in runs.items()]
    elif isinstance(runs, list) and runs and all(isinstance(v, dict) for v in runs):
        run_args = [v["path"] for v in runs]
    elif isinstance(runs, dict) and "path" in runs:
        run_args = [runs["path"]]
    else:
        return None
    args = ["pairedframe", "report", qrels["path"], *run_args]
    if settings["baseline"]:
        args += ["--baseline", settings["baseline"]]
    for m in settings["measures"]:
        args += ["-m", m]
    for name, q in (inputs.get("judgments") or {}).items():
        if not isinstance(q, dict):
            return None
        args += ["--judgments", f"{name}={q['path']}"]
    ev = settings["evaluation"]
    args += ["-B", str(settings["n_resamples"]), "--seed", str(settings["seed"]), "--test", settings["test"],
             "--confidence-level", str(settings["confidence_level"]), "--correction", settings["correction"],
             "--delta-plots", str(settings["max_delta_plots"])]
    args += ["-c"] if ev["complete"] else []
    args += ["-l", str(ev["rel_level"])] if ev["rel_level"] != 1 else []
    args += ["-M", str(ev["depth"])] if ev["depth"] is not None else []
    args += ["--score-precision", ev["score_precision"]] if ev["score_precision"] != "float64" else []
    args += ["-J"] if ev["judged_only"] else []
    args += ["--grades", ev["grades"]] if ev.get("grades", "strict") != "strict" else []
    args += ["--title", settings["title"]] if settings.get("title") else []
    return shlex.join(args) + " -o report.html"


def _section(root: str, key: str, heading: str, body: str) -> str:
    return f'<section id="{root}-{key}"><h2>{esc(heading)}</h2>{body}</section>'


def left_out_of_evaluation(excluded: pl.DataFrame) -> tuple[str, ...]:
    """The report's warning about the (system, query) pairs ``Evaluation.excluded`` holds other than the
    retrieved-but-unjudged ones (none when there are none): one of :attr:`Report.warnings
    <pairedframe.report.html_report.Report.warnings>`, as the others.  A query the qrels do not judge is
    left out by trec_eval's own rule, on every evaluation: :func:`unjudged_note` states it in the settings."""
    other = excluded.filter(pl.col("reason") != UNJUDGED_REASON)
    if not other.height:
        return ()
    reasons = other.group_by("reason").len().sort("len", "reason", descending=[True, False])
    text = "; ".join(f"{n} {_REASON_WORDS.get(r, r)}" if reasons.height > 1 else _REASON_WORDS.get(r, r)
                     for r, n in reasons.iter_rows())
    return (f"{other.height} (system, query) pairs were left out of the evaluation: {text}.",)


#: Evaluation.excluded's reasons in the words of the report (no parentheses inside the count's).
_REASON_WORDS = {"judged but not retrieved (complete=True scores it 0)":
                 "judged by the qrels but not retrieved by the run, so that run's mean is over fewer queries; "
                 "complete=True, -c on the command line, scores such a query 0"}


def unjudged_note(excluded: pl.DataFrame) -> str | None:
    """The settings' line on the queries runs retrieved that the qrels do not judge (None when there are
    none): trec_eval's query-set rule, not a warning."""
    n = excluded.filter(pl.col("reason") == UNJUDGED_REASON).height
    if not n:
        return None
    return (f"{n:,} (system, query) pair{'s' if n != 1 else ''} retrieved but not judged by the qrels, not "
            "evaluated: a run is evaluated on the queries it retrieved that the qrels judge, trec_eval's rule")


def _warnings(root: str, messages: tuple[str, ...]) -> str:
    items = [f"<li>{esc(m)}</li>" for m in messages]
    if not items:
        return ""
    return _section(root, "warnings", "Warnings", f'<ul class="pf-warnings">{"".join(items)}</ul>')


def _forests(root: str, comparison: pl.DataFrame, measures: list[str]) -> str:
    parts = []
    for i, m in enumerate(measures):
        svg = forest_svg(comparison, m).encode()
        parts.append(figure_html(svg, alt=f"forest plot of {m}", figure_id=f"{root}-forest-{i}",
                                 caption=f"{m}: each system's mean delta against the baseline with its interval; "
                                         "blue better, red worse (significant after the correction), grey "
                                         "otherwise; dashed where the interval and the verdict disagree."))
    note = '<p class="pf-note">The verdict follows the test (after the correction); see the comparisons below.</p>'
    return _section(root, "forest", "Forest plots", note + "".join(parts))


def _deltas(root: str, evaluation: Any, comparison: pl.DataFrame, measures: list[str], baseline: str,
            most: int) -> str:
    parts = []
    for i, m in enumerate(measures):
        parts.append(f"<h3>{esc(m)}</h3>")
        compared = comparison.filter(pl.col("measure") == m)["system"].unique(maintain_order=True).to_list()
        with warnings.catch_warnings():      # the comparison already warned about these pairs
            warnings.simplefilter("ignore")
            pairs = paired_per_query(evaluation, baseline=baseline, systems=compared, measures=m)  # once per measure
        if len(compared) > 1:
            parts.append(heatmap_from_pairs(pairs, baseline=baseline, measure=m, table_id=f"{root}-heatmap-{i}"))
        chosen = delta_plot_systems(comparison, m, most)
        for j, system in enumerate(chosen):
            svg = delta_bars_svg(pairs, baseline=baseline, system=system, measure=m).encode()
            parts.append(figure_html(svg, alt=f"per-query {m} deltas of {system}", figure_id=f"{root}-delta-{i}-{j}",
                                     caption=f"{system} − {baseline} per query, sorted; blue: {system} better, "
                                             f"red: {baseline} better, grey: tie."))
        if len(compared) > len(chosen):
            parts.append(f'<p class="pf-note">Bar charts for {len(chosen)} of {len(compared)} systems (the '
                         "significant ones first, then the largest deltas; max_delta_plots / --delta-plots "
                         "draws more); every system is in the heatmap.</p>")
    return _section(root, "deltas", f"Per-query deltas against {baseline}", "".join(parts))


def _labels_table(root: str, k: int, name: str, labels: Any) -> str:
    """The label agreement of ``qrels`` and ``name`` as a table, or why it could not be computed."""
    if isinstance(labels, str):
        return f'<p class="pf-note">Cohen\'s kappa cannot be computed for {esc(name)}: {esc(labels)}</p>'
    ci = labels.confidence_intervals
    kappa = [(title, getattr(labels, key), *(ci[key] if key in ci else (None, None)))
             for title, key in (("Cohen's kappa (grades)", "kappa"), ("kappa, linear weights", "kappa_linear"),
                                ("kappa, quadratic weights", "kappa_quadratic"),
                                (f"kappa, relevant = grade >= {labels.binary_at}", "kappa_binary"))
             if key != "kappa_binary" or labels.binary_at is not None]
    kappa += [("exact agreement", labels.exact_agreement, None, None),
              ("pairs judged in both", labels.n_common, None, None),
              (f"share of qrels missing from {name}", labels.missing_from_b, None, None),
              (f"share of {name} missing from qrels", labels.missing_from_a, None, None)]
    return plain_table(["labels", "value", "ci_low", "ci_high"], kappa, table_id=f"{root}-labels-{k}", digits=3)


def _agreement(root: str, agreement: list[tuple[str, Any, dict[str, Any] | str]]) -> str:
    from pairedframe.report.plots import agreement_scatter

    parts = []
    for k, (name, labels, ranks) in enumerate(agreement):
        parts.append(f"<h3>qrels vs {esc(name)}</h3>")
        parts.append(_labels_table(root, k, name, labels))
        if isinstance(ranks, str):                     # why nothing was evaluated under this set
            parts.append(f'<p class="pf-note" id="{root}-no-results-{k}">{esc(ranks)}</p>')
            continue
        rows = []
        for m, r in ranks.items():
            if isinstance(r, str):                     # why this rank agreement could not be computed
                parts.append(f'<p class="pf-note">Rank agreement on {esc(m)} cannot be computed: {esc(r)}</p>')
                continue
            for coef in ("kendall_tau_b", "tau_ap", "spearman_rho", "rbo"):
                c = getattr(r, coef)
                rows.append((m, coef, c.statistic, c.confidence_interval.low, c.confidence_interval.high,
                             r.n_systems, r.n_queries, r.n_swapped))
        if rows:
            parts.append(plain_table(["measure", "coefficient", "statistic", "ci_low", "ci_high", "systems",
                                      "queries", "swapped pairs"], rows, table_id=f"{root}-ranks-{k}", digits=3,
                                     whole=("measure", "coefficient")))
            first = next(r for r in ranks.values() if not isinstance(r, str))
            data = render_figure(partial(agreement_scatter, first))
            parts.append(figure_html(data, alt=f"system means under qrels and {name}", figure_id=f"{root}-scatter-{k}",
                                     caption=f"Mean {first.measure} of each system under qrels (x) and {name} (y); "
                                             f"intervals: approximate, {first.settings['method']} over queries; "
                                             "kappa intervals: jackknife over queries."))
    return _section(root, "agreement", "Agreement between judgment sets", "".join(parts))


def _comparisons(root: str, comparison: pl.DataFrame) -> str:
    cols = [c for c in (*_COMPARISON_COLUMNS[:-1], "verdict_on") if c in comparison.columns]
    rows = comparison.select(cols).rows()
    notes = [f"<li><b>{esc(r['system'])}, {esc(r['measure'])}</b>: {esc(r['verdict_note'])}</li>"
             for r in comparison.iter_rows(named=True) if r.get("verdict_note")]
    classes = [f"pf-{v}" if v in ("better", "worse") else "" for v in comparison["verdict"]]
    if len(_row_groups(comparison)) > 1:      # rows computed differently: each row's own interval and method
        cols = [*cols[:cols.index("ci_high") + 1], "interval", "method", *cols[cols.index("ci_high") + 1:]]
        rows = comparison.select(cols).rows()
    intro = (f'<p class="pf-note">delta = system − baseline over the queries measured for both '
             f"({esc(how_compared(comparison))}). The verdict follows the p-value named in verdict_on, adjusted over "
             "every row below; verdict_note says why a verdict reads as it does.</p>")
    body = intro + plain_table(cols, rows, table_id=f"{root}-comparisons-table", digits=4, row_classes=classes,
                               whole=("measure",))
    if notes:
        body += f'<h3>Verdict notes</h3><ul class="pf-note">{"".join(notes)}</ul>'
    return _section(root, "comparisons", "Every comparison", body)


def _row_groups(comparison: pl.DataFrame) -> list[tuple[tuple[Any, ...], int]]:
    """(interval, n_resamples, method) of the comparison's rows and how many rows have each, first seen first."""
    keys = [c for c in ("interval", "n_resamples", "method") if c in comparison.columns]
    counts: dict[tuple[Any, ...], int] = {}
    for key in comparison.select(keys).iter_rows():
        counts[key] = counts.get(key, 0) + 1
    return list(counts.items())


def how_compared(comparison: pl.DataFrame) -> str:
    """How a :func:`pairedframe.compare` table's rows were computed, for the report's comparisons section:
    test, level, alternative and seed (one per call), and the interval and resamples of each group of rows
    where rows differ (one-pass rows have the t interval and draw nothing; ``method`` says why)."""
    first = comparison.row(0, named=True)
    common = f"{percent(first['confidence_level'])}%, {first['alternative']}"
    groups = _row_groups(comparison)
    if len(groups) == 1:
        drawn = "no resamples" if first.get("n_resamples") is None else f"n_resamples {first['n_resamples']}"
        how = f" (method {first['method']})" if first.get("method") not in (None, "resampling") else ""
        return f"{first['test']} test, {first['interval']} interval, {common}, {drawn}{how}, seed {first['seed']}"
    parts = []
    for (interval, n_resamples, method), k in groups:
        drawn = "no resamples" if n_resamples is None else f"n_resamples {n_resamples}"
        parts.append(f"{interval} interval, {drawn}, method {method} on {k} row{'' if k == 1 else 's'}")
    return (f"{first['test']} test, {common}, seed {first['seed']}; per row, see the interval and method columns: "
            + "; ".join(parts))


def _none_resampled(comparison: pl.DataFrame | None) -> bool:
    """Whether a comparison table has rows and none of them resampled anything (n_resamples null on every row)."""
    return (comparison is not None and comparison.height > 0 and "n_resamples" in comparison.columns
            and comparison["n_resamples"].null_count() == comparison.height)


def _input_text(value: Any) -> str:
    """An input as the settings table shows it: ``path (N bytes)``, several joined by ``; ``."""
    if isinstance(value, dict) and "path" in value:
        size = value.get("bytes")
        return value["path"] + (f" ({size:,} bytes)" if isinstance(size, int) else "")
    if isinstance(value, dict):
        return "; ".join(f"{name}: {_input_text(v)}" for name, v in value.items())
    if isinstance(value, list):
        return "; ".join(_input_text(v) for v in value)
    return str(value)


def _settings(root: str, settings: dict[str, Any], comparison: pl.DataFrame | None = None) -> str:
    ev = settings["evaluation"]
    rows = [(k, settings[k]) for k in ("measures", "baseline", "test", "n_resamples", "seed", "confidence_level",
                                        "correction", "max_delta_plots")]
    rows = [(k, ", ".join(v) if isinstance(v, list) else v) for k, v in rows]
    # baseline None: one run (two or more need one), compared with nothing
    rows = [(k, "none: one run, nothing to compare with" if k == "baseline" and v is None else v) for k, v in rows]
    if settings["baseline"] is None:                  # one run: the comparison's own settings were never used
        # (confidence_level sets the means' intervals; n_resamples and seed any judgment sets' agreement)
        unused = ("test", "correction", "max_delta_plots")
        rows = [(k, f"not used: nothing compared ({v} asked)" if k in unused else v) for k, v in rows]
    elif settings["test"] == "t":                      # as "Every comparison" shows: nothing was resampled
        rows = [(k, f"none: the t test and its t interval draw no resamples ({v} asked)" if k == "n_resamples"
                 else v) for k, v in rows]
    elif _none_resampled(comparison):                  # every row one pass (above 10,000 queries): none drawn
        rows = [(k, f"none: every comparison went one pass (see the method column), nothing was resampled ({v} "
                 "asked)" if k == "n_resamples" else v) for k, v in rows]
    rows += [(f"evaluation: {k}", v) for k, v in ev.items()]
    if settings.get("unjudged"):                      # the query-set rule at work, not a warning
        rows.append(("evaluation: queries not judged", settings["unjudged"]))
    inputs = settings["inputs"]
    rows += [("inputs: qrels", _input_text(inputs.get("qrels"))), ("inputs: runs", _input_text(inputs.get("runs")))]
    if inputs.get("judgments"):
        rows.append(("inputs: other judgment sets", _input_text(inputs["judgments"])))
    body = plain_table(["setting", "value"], [(k, str(v)) for k, v in rows], table_id=f"{root}-settings-table")
    body += "<h3>Versions</h3>" + plain_table(["package", "version"], list(versions().items()),
                                              table_id=f"{root}-versions")
    command = settings.get("command") or reproduce_command(settings)
    body += "<h3>Reproduce</h3>"
    body += (f"<pre>{esc(command)}</pre>" if command else
             '<p class="pf-note">The inputs were tables, not files: call pf.report with the same tables and '
             "the settings above.</p>")
    return _section(root, "settings", "Settings and versions", body)


def render_report(root: str, *, title: str, evaluation: Any, comparison: pl.DataFrame, table: Any,
                  agreement: list[tuple[str, Any, dict[str, Any] | str]], warnings: tuple[str, ...],
                  settings: dict[str, Any], baseline: str | None) -> str:
    """The report's ``<div id=root>``: header, warnings, results table, forest plots, per-query deltas,
    agreement, comparisons, settings."""
    measures = settings["measures"]
    n = evaluation.per_query.group_by("system").agg(pl.col("qid").n_unique())["qid"]
    fewest, most = n.min(), n.max()
    queries = (f"{fewest} {'query' if fewest == 1 else 'queries'}" if fewest == most
               else f"{fewest}–{most} queries per system")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    k = len(evaluation.systems)
    against = (f"; baseline {baseline}" if k > 1 else
               "; one run, so nothing to compare it with: no baseline, comparisons or plots (give two or more runs)")
    lead = (f"{k} system{'' if k == 1 else 's'}, {queries}, measures {', '.join(measures)}{against}"
            f". Made by pairedframe {versions()['pairedframe']} on {stamp}.")
    sections = [("table", "Results table", True), ("forest", "Forest plots", comparison.height > 0),
                ("deltas", "Per-query deltas", comparison.height > 0), ("agreement", "Agreement", bool(agreement)),
                ("comparisons", "Every comparison", comparison.height > 0), ("settings", "Settings and versions", True)]
    nav = " ".join(f'<a href="#{root}-{key}">{esc(label)}</a>' for key, label, shown in sections if shown)
    parts = [report_css(root), f"<h1>{esc(title)}</h1>", f'<p class="pf-lead">{esc(lead)}</p>',
             f'<nav class="pf-nav">{nav}</nav>', _warnings(root, warnings),
             _section(root, "table", "Results table", table.to_html(table_id=f"{root}-results"))]
    if comparison.height:
        compared = [m for m in measures if m in set(comparison["measure"])]     # compare leaves out counts, GMAP
        parts += [_forests(root, comparison, compared),
                  _deltas(root, evaluation, comparison, compared, baseline, settings["max_delta_plots"])]
    if agreement:
        parts.append(_agreement(root, agreement))
    if comparison.height:
        parts.append(_comparisons(root, comparison))
    parts.append(_settings(root, settings, comparison))
    return f'<div id="{root}" class="pf-report">{"".join(parts)}</div>'
