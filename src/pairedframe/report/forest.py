"""Forest plot of per-segment deltas and intervals (optional extra: ``pip install pairedframe[plot]``)."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path

import polars as pl

from pairedframe.errors import EmptyResultError
from pairedframe.measures import higher_is_better
from pairedframe.report.output import require_output_folder
from pairedframe.report.plots import literal, pyplot, short_names, shortened

__all__ = ["forest_plot", "lower_is_better_note", "row_styles", "rows_to_show", "x_limits", "COLOURS"]

#: Colour of a row by its decision: the verdict of compare / compare_clustered, or for compare_segments
#: ``significant`` with the sign of the delta.  The colour never comes from the interval.
COLOURS = {"better": "#1f4e9c", "worse": "#b2182b", "not significant": "#8a8a8a"}
#: The forest plot's width (inches) and the legend's: an entry is about 0.8 in of line and gap plus
#: 0.055 in per character at its font size (7 pt), so the entries are set in as many columns as fit.
FIGURE_INCHES = 7.0
LEGEND_INCHES, ENTRY_INCHES, CHARACTER_INCHES = 6.6, 0.8, 0.055


def lower_is_better_note(measure: str) -> str:
    """`` (lower is better)`` for a measure the registry marks so (FirstRelRank), else ``""``: on an axis
    shared with higher-is-better measures, its row says which way is a gain."""
    return "" if higher_is_better(measure) else " (lower is better)"


def legend_columns(labels: list[str]) -> int:
    """How many columns of ``labels`` fit across the figure (at most 3, at least 1): each column is as
    wide as its widest entry; matplotlib fills the columns in turn, the first ``len % columns`` one longer."""
    for columns in range(min(3, len(labels)), 1, -1):
        size, extra = divmod(len(labels), columns)
        ends = [sum(size + (c < extra) for c in range(k + 1)) for k in range(columns)]
        widths = [max(map(len, labels[end - size - (k < extra):end])) for k, end in enumerate(ends)]
        if sum(ENTRY_INCHES + CHARACTER_INCHES * w for w in widths) <= LEGEND_INCHES:
            return columns
    return 1


def why_dashed(df: pl.DataFrame) -> str:
    """Where the table says why an interval contradicts the decision: compare's ``verdict_note``; in
    compare_segments' table, which has none, BH/Holm beside unadjusted intervals and ``warning`` for equal deltas."""
    if "verdict_note" in df.columns:
        return " (see verdict_note)"
    if "warning" in df.columns:
        return " (unadjusted interval beside BH/Holm; equal deltas: see warning)"
    return ""


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


def _names(values: list, noun: str, most: int = 3, of: int | None = None) -> str:
    """Up to ``most`` names, else their count ("16 systems"; "60 of 62 systems" when ``of`` more exist):
    a title that always fits and never counts rows it does not show."""
    if len(values) <= most and (of is None or of == len(values)):
        return ", ".join(map(shortened, values))
    return f"{len(values)} of {of} {noun}" if of is not None and of > len(values) else f"{len(values)} {noun}"


def _default_title(df: pl.DataFrame, *, per_segment: bool, full: pl.DataFrame | None = None) -> str:
    """Names the measure(s) and the baseline(s), and the system(s) when few: "nDCG@10: 16 systems −
    baseline bm25base_p"; "60 of 62 systems" when ``full`` (the rows before :func:`rows_to_show`) has
    more; "per segment" only for a compare_segments result."""
    full = df if full is None else full
    measures, systems, baselines = _unique(df, "measure"), _unique(df, "system"), _unique(df, "baseline")
    what = _names(measures, "measures", of=len(_unique(full, "measure"))) or "delta"
    who = _names(systems, "systems", of=len(_unique(full, "system"))) or "system"
    if len(baselines) > 2:
        vs = f"{len(baselines)} baselines"
    else:
        vs = ("baseline " if len(baselines) < 2 else "baselines ") + ", ".join(map(shortened, baselines))
    return f"{what}: {who} − {vs.rstrip()}" + (" per segment" if per_segment else "")


def _row_labels(df: pl.DataFrame, *, per_segment: bool, show_segment_set: bool) -> list[str]:
    """One label per row, each piece once: the system (``system − baseline`` when baselines differ)
    and the measure when they vary between rows, then the segment; a compare row without segments is
    always named by its system (or its measure when that is all there is).  Long names are cut by
    :func:`short_names`, per kind of name (systems with the baselines shown), so two names never share a label."""
    def varies(col: str) -> bool:
        return col in df.columns and df[col].n_unique() > 1

    def names(*cols: str) -> dict:
        values = list(dict.fromkeys(v for c in cols if c in df.columns for v in df[c].to_list()))
        return dict(zip(values, short_names(values)))

    name_system = varies("system") or varies("baseline") or (not per_segment and "system" in df.columns)
    name_measure = varies("measure") or (not per_segment and not name_system)
    systems = names("system", "baseline") if varies("baseline") else names("system")
    measures, segments, segment_sets = names("measure"), names("segment"), names("segment_set")
    labels = []
    for row in df.iter_rows(named=True):
        parts = []
        if name_system:
            system = systems[row["system"]]
            parts.append(f"{system} − {systems[row['baseline']]}" if varies("baseline") else system)
        if name_measure:
            parts.append(measures[row["measure"]] + lower_is_better_note(row["measure"]))
        if per_segment:
            seg = segments[row["segment"]]
            parts.append(f"{segment_sets[row['segment_set']]}: {seg}" if show_segment_set else seg)
        label = " | ".join(parts)
        if row.get("n_queries") is not None:
            label += f" (n={row['n_queries']})"
        labels.append(label)
    return labels


def rows_to_show(df: pl.DataFrame, decisions: list[str], max_rows: int) -> tuple[pl.DataFrame, str | None]:
    """At most ``max_rows`` rows of ``df`` (sorted), chosen so that no decided row is hidden for an
    undecided one: every "better" / "worse" row first, then the undecided rows farthest from the middle
    of the sort order; the rows keep their order.  Also the note naming what was left out (None when
    nothing was).

    Raises
    ------
    ValueError
        ``max_rows`` below 1.
    """
    if isinstance(max_rows, bool) or not isinstance(max_rows, int) or max_rows < 1:
        raise ValueError(f"`max_rows` must be an integer >= 1, got {max_rows!r}")
    n = df.height
    if n <= max_rows:
        return df, None
    middle = (n - 1) / 2
    priority = sorted(range(n), key=lambda i: (decisions[i] == "not significant", -abs(i - middle), i))
    keep = sorted(priority[:max_rows])
    left_out = [i for i in range(n) if i not in set(keep)]
    decided = sum(decisions[i] != "not significant" for i in left_out)
    detail = ("not significant" if not decided else
              f"{decided} of them significant" + (", the others not" if decided < len(left_out) else ""))
    return df[keep], f"{len(left_out)} of {n} rows not shown: {detail}, nearest the middle; max_rows={max_rows}"


def x_limits(delta: list[float], low: list[float], high: list[float]) -> tuple[float, float]:
    """The x range of a forest plot: every delta, every finite interval end and 0, padded by 8 %;
    infinite ends are drawn as arrows at its edge instead of stretching it."""
    finite = [float(v) for v in (*delta, *low, *high, 0.0) if v is not None and math.isfinite(v)]
    lo, hi = min(finite), max(finite)
    pad = 0.08 * (hi - lo) if hi > lo else 0.05 * max(1.0, abs(hi))
    return lo - pad, hi + pad


def _nothing_to_plot(n_rows: int, kept: int, filters: dict[str, str], per_segment: bool) -> str:
    """Why no row is left to plot: the input was empty, the filters matched nothing, or no interval."""
    what = "segment" if per_segment else "comparison"
    if n_rows == 0:
        return f"nothing to plot: the result has no {what} rows"
    if kept == 0:
        chosen = ", ".join(f"{k}={v!r}" for k, v in filters.items())
        return f"nothing to plot: no {what} row of the {n_rows} matches {chosen}"
    return f"nothing to plot: every one of the {kept} {what} rows left has no interval (too few paired queries)"


def _no_interval_note(df: pl.DataFrame, drawable: pl.Expr, *, per_segment: bool, show_segment_set: bool) -> str | None:
    """The rows not drawn for want of an interval (a segment of one paired query), named as their
    rows would be (at most five), or None."""
    missing = df.filter(~drawable)
    if missing.height == 0:
        return None
    labels = _row_labels(missing, per_segment=per_segment, show_segment_set=show_segment_set)
    named = ", ".join(labels[:5]) + (f" and {len(labels) - 5} more" if len(labels) > 5 else "")
    return f"not drawn, no interval (fewer than 2 paired queries): {named}"


def _fit_xlabel(fig, ax, text: str, width: int = 90) -> None:
    """``text`` as the x label, each line wrapped (textwrap, at blanks) to at most ``width`` characters, then
    narrower until the laid-out label lies inside the figure: it is centred under the axes, which long row
    labels push to the right, so a long note ("126 of 186 rows not shown: ...; max_rows=60") ran off the
    right edge."""
    for _ in range(6):
        ax.set_xlabel(literal("\n".join(textwrap.fill(line, width) or line for line in text.split("\n"))))
        fig.draw_without_rendering()                    # the constrained layout, with this label
        box, frame = ax.xaxis.label.get_window_extent(), fig.bbox
        if box.x0 >= frame.x0 and box.x1 <= frame.x1:
            return
        room = 2 * min(box.x0 + box.width / 2 - frame.x0, frame.x1 - box.x0 - box.width / 2)
        longest = max(map(len, ax.get_xlabel().split("\n")))
        width = max(20, min(width, longest) * int(room) // int(box.width + 1) - 1)


def forest_plot(result: pl.DataFrame, path: str | Path, *, system: str | None = None,
                measure: str | None = None, segment_set: str | None = None, sort_by: str = "delta",
                max_rows: int = 60, title: str | None = None, significant_column: str = "significant",
                verdict_column: str = "verdict") -> Path:
    """Write a forest plot (delta and interval per segment, sorted) of a :func:`compare_segments` result;
    a row without an interval (a segment of one paired query) is not drawn, and the x label names it.

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
        Filters.  Each row has one label: its system (``system − baseline`` when the baselines
        differ) and its measure when they vary between rows, then its segment; a compare row is
        named by its system, followed by ``(n=...)`` queries.  A measure where lower is better
        (FirstRelRank, :func:`pairedframe.measures.higher_is_better`) says so in its label, or in the
        x label when it is the only measure: ``FirstRelRank (lower is better)``.
    sort_by : str, default "delta"
        Column to sort segments by (ascending, drawn bottom to top).
    max_rows : int, default 60
        With more rows, show ``max_rows`` of them: every significant row ("better" / "worse") first,
        then the undecided rows farthest from the middle of the sort order (:func:`rows_to_show`); the
        x label says how many were left out and which, the default title counts what is shown
        ("60 of 62 systems").
    title : str, optional
        Default: the measure(s) and baseline(s), and the systems (their count when more than three),
        e.g. ``nDCG@10: 16 systems − baseline bm25`` ("per segment" appended for compare_segments
        rows).  Long titles wrap; the legend sits below the axes, never over a row.  Titles and row
        labels are drawn as written (a ``$`` never starts mathtext); a name longer than 40 characters
        is cut in the middle (``head…tail``) so that it cannot push the axes out of the figure.
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
        No row left after filtering, missing columns, ``max_rows`` below 1, a path without a .png / .pdf /
        .svg suffix, or a missing output folder.
    """
    out = require_output_folder(path, "path")   # first: a folder is named as one, whatever its name
    if out.suffix.lower() not in (".png", ".pdf", ".svg"):   # matplotlib would add .png to another name
        raise ValueError(f"`path` must end in .png, .pdf or .svg, got {out.name!r}")
    need = ["delta", "ci_low", "ci_high"]
    missing = [c for c in need if c not in result.columns]
    if "segment" not in result.columns and not {"system", "measure"} <= set(result.columns):
        missing.append("segment (or system and measure)")
    if missing:
        raise ValueError(f"result lacks column(s) {missing}")
    df = result
    per_segment = "segment" in df.columns
    if not per_segment:   # a compare / compare_clustered result: the rows are (system, measure) pairs
        df = df.with_columns(pl.concat_str([pl.col("system"), pl.col("measure")], separator=" / ").alias("segment"))
    filters = {col: val for col, val in (("system", system), ("measure", measure), ("segment_set", segment_set))
               if val is not None}
    for col, val in filters.items():
        df = df.filter(pl.col(col) == val)
    kept = df.height
    # a segment of one query has its delta but no interval: nothing to draw it with, so the x label names it
    drawable = pl.col("delta").is_not_null() & (pl.col("ci_low").is_not_null() | pl.col("ci_high").is_not_null())
    no_interval = _no_interval_note(df, drawable, per_segment=per_segment, show_segment_set="segment_set" in
                                    df.columns and segment_set is None)
    df = df.filter(drawable).sort(sort_by)
    if df.height == 0:
        raise EmptyResultError(_nothing_to_plot(result.height, kept, filters, per_segment))
    full = df
    decisions = [decision for decision, _ in row_styles(df, verdict_column=verdict_column,
                                                        significant_column=significant_column)]
    df, note = rows_to_show(df, decisions, max_rows)
    note = "; ".join(n for n in (note, no_interval) if n) or None
    plt = pyplot()
    labels = _row_labels(df, per_segment=per_segment,
                         show_segment_set="segment_set" in df.columns and segment_set is None)
    styles = row_styles(df, verdict_column=verdict_column, significant_column=significant_column)
    # constrained layout keeps the long row labels, the wrapped title and the legend below the axes
    # inside the figure; the legend never covers a row.
    fig, ax = plt.subplots(figsize=(FIGURE_INCHES, max(2.5, 0.28 * df.height + 1.8)), layout="constrained")
    y = list(range(df.height))
    lo = [(-math.inf if v is None else v) for v in df["ci_low"]]
    hi = [(math.inf if v is None else v) for v in df["ci_high"]]
    seen: list[str] = []
    left, right = x_limits(list(df["delta"]), lo, hi)
    for yi, d, a, b, (decision, disagrees) in zip(y, df["delta"], lo, hi, styles):
        colour = COLOURS[decision]
        ax.plot([max(a, left), min(b, right)], [yi, yi], color=colour, lw=1.6, ls="--" if disagrees else "-")
        ax.plot([d], [yi], "o", color=colour, ms=4)[0].set_gid(f"pf-segment-{yi}")  # countable in an SVG
        for end, edge, marker in ((a, left, "<"), (b, right, ">")):
            if math.isinf(end):       # unbounded (one-sided, or no spread and no known range)
                ax.plot([edge], [yi], marker, color=colour, ms=6)
        unbounded = "unbounded" if math.isinf(a) or math.isinf(b) else None
        for key in (decision, "interval disagrees" if disagrees else None, unbounded):
            if key is not None and key not in seen:
                seen.append(key)
    ax.set_xlim(left, right)
    ax.axvline(0.0, color="black", lw=0.8, ls="--")
    ax.set_yticks(y)
    ax.set_yticklabels([literal(label) for label in labels], fontsize=8)
    ax.set_ylim(-0.6, df.height - 0.4)
    xlabel = "delta (system − baseline)"
    if "measure" in df.columns and df["measure"].n_unique() == 1:
        xlabel = f"delta {df['measure'][0]}{lower_is_better_note(df['measure'][0])}"
        if {"system", "baseline"} <= set(df.columns) and df["system"].n_unique() == df["baseline"].n_unique() == 1:
            xlabel += f": {shortened(df['system'][0])} − {shortened(df['baseline'][0])}"
    _fit_xlabel(fig, ax, xlabel + (f"\n({note})" if note else ""))
    from matplotlib.lines import Line2D

    names = {"better": "better (significant)", "worse": "worse (significant)",
             "not significant": "not significant / inconclusive",
             "interval disagrees": "dashed: the interval contradicts the decision" + why_dashed(df),
             "unbounded": "arrow: the interval is unbounded on that side"}
    handles = [Line2D([], [], color=COLOURS.get(k, "#8a8a8a"), marker="o" if k in COLOURS else None,
                      ls="--" if k == "interval disagrees" else "-", ms=4, label=names[k])
               if k != "unbounded" else Line2D([], [], color="#555555", marker=">", ls="", ms=6, label=names[k])
               for k in sorted(seen, key=list(names).index)]
    fig.legend(handles=handles, fontsize=7, loc="outside lower center",
               ncols=legend_columns([h.get_label() for h in handles]), frameon=False)
    fig.suptitle(literal(textwrap.fill(title or _default_title(df, per_segment=per_segment, full=full), width=70)),
                 fontsize=11)
    fig.savefig(out)
    plt.close(fig)
    return out
