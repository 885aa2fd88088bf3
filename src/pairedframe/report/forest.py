"""Forest plot of per-segment deltas and intervals (optional extra: ``pip install pairedframe[plot]``)."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from pairedframe.report.plots import pyplot

__all__ = ["forest_plot"]


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
                max_rows: int = 60, title: str | None = None, significant_column: str = "significant") -> Path:
    """Write a forest plot (delta and interval per segment, sorted) of a :func:`compare_segments` result.

    Parameters
    ----------
    result : polars.DataFrame
        Output of :func:`pairedframe.comparison.segments.compare_segments` (or any frame with ``segment``,
        ``delta``, ``ci_low``, ``ci_high``; ``segment_set``, ``system``, ``measure`` optional).
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
        Boolean column drawing significant segments in a darker colour (ignored if absent); the legend
        names the two colours after it.

    Returns
    -------
    Path
        The file written.

    Raises
    ------
    ImportError
        matplotlib is not installed (``pip install 'pairedframe[plot]'``).
    ValueError
        No row left after filtering, or missing columns.
    """
    need = ["segment", "delta", "ci_low", "ci_high"]
    missing = [c for c in need if c not in result.columns]
    if missing:
        raise ValueError(f"result lacks column(s) {missing}")
    df = result
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
    sig = df[significant_column].to_list() if significant_column in df.columns else [False] * df.height
    fig, ax = plt.subplots(figsize=(7, max(2.5, 0.28 * df.height + 1.2)))
    y = list(range(df.height))
    lo = [(-math.inf if v is None else v) for v in df["ci_low"]]
    hi = [(math.inf if v is None else v) for v in df["ci_high"]]
    for yi, d, a, b, s in zip(y, df["delta"], lo, hi, sig):
        colour = "#1f4e9c" if s else "#8a8a8a"
        ax.plot([max(a, -1e9), min(b, 1e9)], [yi, yi], color=colour, lw=1.6)
        ax.plot([d], [yi], "o", color=colour, ms=4)[0].set_gid(f"pf-segment-{yi}")  # countable in an SVG
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

    ax.legend(handles=[Line2D([], [], color="#1f4e9c", marker="o", ms=4, label=f"{significant_column}"),
                       Line2D([], [], color="#8a8a8a", marker="o", ms=4, label=f"not {significant_column}")],
              fontsize=7, loc="lower right", frameon=False)
    ax.set_title(title or _default_title(df))
    if note:
        ax.text(0.99, 0.01, note, transform=ax.transAxes, ha="right", va="bottom", fontsize=7)
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out)
    plt.close(fig)
    return out
