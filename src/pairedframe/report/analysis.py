"""Renderings of :func:`pairedframe.comparison.plan.analyze` results: JSON and a text table, both with the plan hash.

No computation here.  Every rendering names the plan file and its SHA-256, confidence level, seed, n_resamples and
the methods, so the analysis can be checked against the pre-registered plan.
"""

from __future__ import annotations

import io
import math
from typing import Any

import polars as pl

from pairedframe.report.output import json_text

__all__ = ["ANALYSIS_FORMATS", "format_analysis"]

ANALYSIS_FORMATS = ("table", "json", "csv", "markdown")

_SHORT = ["endpoint", "role", "family", "n_queries", "n_clusters", "delta", "ci_low", "ci_high", "pvalue", "pvalue_holm",
          "pvalue_tost", "pvalue_tost_holm", "mdd", "mcnemar_pvalue", "verdict"]


def _num(v: Any, digits: int = 4) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        if not math.isfinite(v):
            return str(v)
        if v != 0 and abs(v) < 10 ** -digits:
            return f"{v:.2e}"
        return f"{v:.{digits}f}"
    return str(v)


def _header(result: Any) -> list[str]:
    s, plan = result.settings, result.plan
    lines = [f"plan: {plan.source}  sha256: {plan.sha256}"]
    if plan.title:
        lines.append(f"title: {plan.title}")
    lines += [f"candidate: {plan.candidate}  baseline: {plan.baseline}  (exact names)",
              f"confidence_level: {s['confidence_level']}  seed: {s['seed']}  n_resamples: {s['n_resamples']}  "
              f"resampling unit: {s['resampling_unit']}",
              f"interval: {s['interval']}", f"test: {s['test']}", f"multiple comparisons: {s['multiple_comparisons']}",
              f"equivalence: {s['equivalence']}", f"mdd: {s['mdd']}", f"mcnemar: {s['mcnemar']}"]
    return lines


def format_analysis(result: Any, fmt: str = "table", *, digits: int = 4) -> str:
    """Render an :class:`~pairedframe.comparison.plan.AnalysisResult`.

    Parameters
    ----------
    result : AnalysisResult
    fmt : {"table", "json", "csv", "markdown"}
        ``json``: ``{"plan": {..., "sha256"}, "settings": {...}, "endpoints": [one record per endpoint]}``;
        ``csv``: every column, one row per endpoint, with the plan hash in a ``plan_sha256`` column;
        ``table`` / ``markdown``: the main columns under a header naming the plan, its hash and methods.
    digits : int, default 4

    Returns
    -------
    str
        Text ending in a newline.

    Raises
    ------
    ValueError
        Unknown ``fmt``.
    """
    table: pl.DataFrame = result.table
    if fmt == "json":
        return json_text(result.to_dict(), ensure_ascii=False)
    if fmt == "csv":
        buf = io.StringIO()
        table.with_columns(pl.lit(result.plan.sha256).alias("plan_sha256")).write_csv(buf)
        return buf.getvalue()
    cols = [c for c in _SHORT if c in table.columns]
    if fmt == "markdown":
        from pairedframe.report.table_markdown import markdown_escape

        # names are shown in a table of their own (escaped), not in the comments, where "-->" would end one
        header = [h for h in _header(result) if not h.startswith("candidate: ")]
        plan = result.plan
        # other header lines may hold the plan's own text (its title): "--" never reaches a comment's end
        lines = ["\n".join(f"<!-- {h.replace('--', '- -')} -->" for h in header), "",
                 "| candidate | baseline |", "| --- | --- |",
                 f"| {markdown_escape(str(plan.candidate))} | {markdown_escape(str(plan.baseline))} |", "",
                 "| " + " | ".join(cols) + " |",
                 "| " + " | ".join("---:" if table.schema[c].is_numeric() else "---" for c in cols) + " |"]
        lines += ["| " + " | ".join(markdown_escape(_num(r[c], digits)) for c in cols) + " |"
                  for r in table.iter_rows(named=True)]
        return "\n".join(lines) + "\n"
    if fmt == "table":
        from rich.console import Console
        from rich.table import Table

        t = Table(show_lines=False)
        for c in cols:
            t.add_column(c, justify="right" if table.schema[c].is_numeric() else "left")
        for r in table.iter_rows(named=True):
            t.add_row(*(_num(r[c], digits) for c in cols))
        buf = io.StringIO()
        console = Console(file=buf, width=max(100, 14 * len(cols)), soft_wrap=False, highlight=False,
                          force_terminal=False, color_system=None)
        console.print(t)
        return "\n".join(_header(result)) + "\n" + buf.getvalue()
    raise ValueError(f"format must be one of {ANALYSIS_FORMATS}, got {fmt!r}")
