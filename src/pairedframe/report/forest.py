"""Forest plot of per-segment deltas and intervals (optional extra: ``pip install pairedframe[plot]``)."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from pairedframe.measures import higher_is_better
from pairedframe.report.output import require_output_folder
from pairedframe.report.plots import pyplot

__all__ = ["forest_plot", "row_styles", "COLOURS"]

#: Colour of a row by its decision: the verdict of compare / compare_clustered, or for compare_segments
#: ``significant`` with the sign of the delta.  The colour never comes from the interval.
COLOURS = {"better": "#1f4e9c", "worse": "#b2182b", "not significant": "#8a8a8a"}


def row_styles(df: pl.DataFrame, *, verdict_column: str = "verdict",
               significant_column: str = "significant") -> list[tuple[str, bool]]:
    """(decision, disagrees) per row: the decision colours the row; ``disagrees`` marks an interval that
    contradicts it (excludes 0 although not significant, or includes 0 although significant), drawn dashed.

    The decision is the ``verdict`` column when present ("better"/"worse", anything else "not
    significant"), else ``significant`` with the sign of ``delta`` in the measure's direction (a
    lower FirstRelRank is better), else "not significant".
    """
    out = []
    has_verdict = verdict_column in df.columns
    has_sig = significant_column in df.columns
    for row in df.iter_rows(named=True):
        if has_verdict:
            v = row[verdict_column]
            decision = v if v in ("better", "worse") else "not significant"
        elif has_sig and row[significant_column]:
            up = (row["delta"] or 0) > 0                 # a lower rank (FirstRelRank) is the better one
            decision = "better" if up == higher_is_better(str(row.get("measure", ""))) else "worse"
        else:
            decision = "not significant"
        lo = -math.inf if row["ci_low"] is None else row["ci_low"]
        hi = math.inf if row["ci_high"] is None else row["ci_high"]
        excludes = lo > 0 or hi < 0
        out.append((decision, excludes != (decision != "not significant")))
    return out


def _unique(df: pl.DataFrame, col: str) -> list:
    return df[col].unique(maintain_order=True).to_list() if col in df.columns else []


def _default_title(df: pl.DataFrame) -> str:
    """Names the measure(s), the system(s) and the baseline(s) of the rows drawn."""
    measures, systems, baselines = _unique(df, "measure"), _unique(df, "system"), _unique(df, "baseline")
    what = ", ".join(map(str, measures)) or "delta"
    who = ", ".join(map(str, systems[:4])) + (" ..." if len(systems) > 4 else "")
    vs = ", ".join(map(str, baselines))
    return f"{what}: {who or 'system'} − {vs or 'baseline'} per segment"


def forest_plot(result: pl.DataFrame, path: str | Path, *, system: str | None = None,
                measure: str | None = None, segment_set: str | None = None, sort_by: str = "delta",
                max_rows: int = 60, title: str | None = None, significant_column: str = "significant",
                verdict_column: str = "verdict") -> Path:
    """Write a forest plot (delta and interval per segment, sorted) of a :func:`compare_segments` result.

    Parameters
    ----------
    result : polars.DataFrame
        Output of :func:`pairedframe.comparison.segments.compare_segments` (or any frame with ``segment``,
        ``delta``, ``ci_low``, ``ci_high``; ``segment_set``, ``system``, ``measure`` optional), or of
        :func:`pairedframe.compare` / :func:`pairedframe.compare_clustered` (rows labelled by system
        and measure when there is no ``segment`` column).
    path : str or Path
        Output file; the format follows the suffix (``.png``, ``.pdf``, ``.svg``).
    system, measure, segment_set : str, optional
        Filters.  When several systems (or measures) remain, each row's label starts with its system
        (measure), so rows of different systems can be told apart.
    sort_by : str, default "delta"
        Column to sort segments by (ascending, drawn bottom to top).
    max_rows : int, default 60
        Keep the ``max_rows // 2`` lowest and highest rows when there are more (a note says so).
    title : str, optional
        Default: the measure(s), system(s) and baseline(s) drawn.
    significant_column : str, default "significant"
        Boolean column of the decision when there is no verdict column (compare_segments).
    verdict_column : str, default "verdict"
        The verdict of compare / compare_clustered.  Colours follow the decision, never the interval:
        blue "better", red "worse", grey otherwise (:func:`row_styles`); an interval that contradicts
        the decision (an unadjusted interval excluding 0 for a row not significant after Holm/BH, or
        an interval that does not invert the test) is drawn dashed, and the legend says why.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ImportError
        matplotlib is not installed (``pip install 'pairedframe[plot]'``).
    ValueError
        No row left after filtering, missing columns, or a missing output folder.
    """
    out = require_output_folder(path, "path")
    need = ["delta", "ci_low", "ci_high"]
    missing = [c for c in need if c not in result.columns]
    if "segment" not in result.columns and not {"system", "measure"} <= set(result.columns):
        missing.append("segment (or system and measure)")
    if missing:
        raise ValueError(f"result lacks column(s) {missing}")
    df = result
    if "segment" not in df.columns:
        df = df.with_columns(pl.concat_str([pl.col("system"), pl.col("measure")], separator=" / ").alias("segment"))
    for col, val in (("system", system), ("measure", measure), ("segment_set", segment_set)):
        if val is not None:
            df = df.filter(pl.col(col) == val)
    df = df.filter(pl.col("delta").is_not_null()).sort(sort_by)
    if df.height == 0:
        raise ValueError("no segment with a delta left to plot")
    note = None
    if df.height > max_rows:
        half = max_rows // 2
        note = f"{df.height - 2 * half} middle segments omitted"
        df = pl.concat([df.head(half), df.tail(half)])
    plt = pyplot()
    labels = [f"{s}: {g}" if "segment_set" in df.columns and segment_set is None else str(g)
              for s, g in zip(df["segment_set"] if "segment_set" in df.columns else df["segment"], df["segment"])]
    # With several systems or measures left, each row says which (else rows repeat, indistinguishable).
    for col in ("measure", "system"):
        if col in df.columns and df[col].n_unique() > 1:
            labels = [f"{v} | {lab}" for v, lab in zip(df[col], labels)]
    if "n_queries" in df.columns:
        labels = [f"{lab} (n={n})" for lab, n in zip(labels, df["n_queries"])]
    styles = row_styles(df, verdict_column=verdict_column, significant_column=significant_column)
    fig, ax = plt.subplots(figsize=(7, max(2.5, 0.28 * df.height + 1.2)))
    y = list(range(df.height))
    lo = [(-math.inf if v is None else v) for v in df["ci_low"]]
    hi = [(math.inf if v is None else v) for v in df["ci_high"]]
    seen: list[str] = []
    for yi, d, a, b, (decision, disagrees) in zip(y, df["delta"], lo, hi, styles):
        colour = COLOURS[decision]
        ax.plot([max(a, -1e9), min(b, 1e9)], [yi, yi], color=colour, lw=1.6, ls="--" if disagrees else "-")
        ax.plot([d], [yi], "o", color=colour, ms=4)[0].set_gid(f"pf-segment-{yi}")  # countable in an SVG
        for key in (decision, "interval disagrees" if disagrees else None):
            if key is not None and key not in seen:
                seen.append(key)
    ax.axvline(0.0, color="black", lw=0.8, ls="--")
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    xlabel = "delta (system - baseline)"
    if "measure" in df.columns and df["measure"].n_unique() == 1:
        xlabel = f"delta {df['measure'][0]}"
        if "system" in df.columns and "baseline" in df.columns and df["system"].n_unique() == 1:
            xlabel += f": {df['system'][0]} - {df['baseline'][0]}"
    ax.set_xlabel(xlabel)
    from matplotlib.lines import Line2D

    names = {"better": "better (significant)", "worse": "worse (significant)",
             "not significant": "not significant / inconclusive",
             "interval disagrees": "dashed: the interval contradicts the decision (see verdict_note)"}
    ax.legend(handles=[Line2D([], [], color=COLOURS.get(k, "#8a8a8a"), marker="o" if k in COLOURS else None,
                              ls="--" if k == "interval disagrees" else "-", ms=4, label=names[k]) for k in seen],
              fontsize=7, loc="lower right", frameon=False)
    ax.set_title(title or _default_title(df))
    if note:
        ax.text(0.99, 0.01, note, transform=ax.transAxes, ha="right", va="bottom", fontsize=7)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
    return out
