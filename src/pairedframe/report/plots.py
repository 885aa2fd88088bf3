"""Figures for a paper (optional extra: ``pip install "pairedframe[plot]"``).

- :func:`delta_plot`: per-query deltas of one system against a baseline, sorted, wins / losses /
  ties coloured, with a zero line;
- :func:`means_plot`: system means with their t intervals, sorted;
- :func:`agreement_scatter`: system means under two judgment sets (e.g. NIST vs an LLM), with
  Kendall's tau and tau_AP in the title.

Each writes the file named by ``path`` (the format follows the suffix: ``.png``, ``.svg``, ``.pdf``)
and returns its path.  Names, labels and titles are drawn as written (:func:`literal`: a ``$`` never
starts mathtext).  Every mark carries an SVG id (``pf-bar-<i>``, ``pf-mean-<i>``,
``pf-point-<i>``), so a test -- or a reader of the SVG -- can count what was drawn.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from pairedframe.comparison import paired_per_query
from pairedframe.comparison.table_data import results_table_data
from pairedframe.errors import named_as
from pairedframe.measures import higher_is_better
from pairedframe.report.output import require_output_folder, visible_controls
from pairedframe.stats.levels import percent

__all__ = ["PLOT_FORMATS", "WIN_COLOUR", "LOSS_COLOUR", "TIE_COLOUR", "agreement_scatter", "delta_plot", "literal",
           "means_plot"]

WIN_COLOUR, LOSS_COLOUR, TIE_COLOUR = "#1f6fb4", "#d1495b", "#9a9a9a"
#: The file suffixes a plot can be written as.
PLOT_FORMATS = (".png", ".svg", ".pdf")


def pyplot():
    """matplotlib's pyplot on the non-interactive Agg backend; ImportError naming the extra when absent."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ImportError("plots need matplotlib: pip install 'pairedframe[plot]'") from exc
    return plt


def literal(text: Any) -> str:
    """``text`` as matplotlib should draw it: as itself, never as mathtext.

    matplotlib reads a string with two ``$`` as mathtext, so a system named ``$x$`` would be drawn
    as an italic x and one named ``run $^$ v2`` would fail to draw; every ``$`` is escaped.

    Parameters
    ----------
    text : object
        A name, label or title (converted with ``str``).

    Returns
    -------
    str
        The text with each ``$`` written ``\\$``, which matplotlib draws as ``$``, and control
        characters as their escapes (``\\x1b``; in an SVG file they made it malformed XML).
    """
    return visible_controls(str(text)).replace("$", r"\$")


#: Characters of a name drawn as a row label or in a legend; longer names keep their head and tail.
NAME_CHARACTERS = 40


def shortened(name: Any, most: int = NAME_CHARACTERS) -> str:
    """``name`` cut in the middle to ``most`` characters (``head…tail``), so that a long run name
    cannot squeeze the axes out of a figure; shorter names are returned unchanged (as ``str``)."""
    text = str(name)
    if len(text) <= most:
        return text
    head = most // 2
    return text[:head] + "…" + text[len(text) - (most - 1 - head):]


def short_names(names: Sequence[Any]) -> list[str]:
    """Each name :func:`shortened`, or all of them whole when two different names would cut alike
    (they differ only in the middle): never one label for two rows."""
    short = [shortened(n) for n in names]
    return short if len(set(short)) == len({str(n) for n in names}) else [str(n) for n in names]


def _output(path: str | Path) -> Path:
    """The plot's path, checked before any work: a known suffix and an existing folder."""
    out = Path(path)
    if out.is_dir():
        raise ValueError(f"`path` {str(out)!r} is a folder; name the plot file to write")
    if out.suffix.lower() not in PLOT_FORMATS:
        raise ValueError(f"plot file must end in one of {PLOT_FORMATS}, got {out.name!r}")
    return require_output_folder(out, "path")


def _save(fig, path: Path, *, relayout: bool = True) -> Path:
    plt = pyplot()
    if relayout:
        fig.tight_layout()
    fig.savefig(path, metadata={"Date": None} if path.suffix.lower() == ".svg" else None)
    plt.close(fig)
    return path


def delta_plot(data: Any, path: str | Path, *, baseline: str, system: str, measure: str,
               title: str | None = None) -> Path:
    """Bar chart of the per-query deltas ``system - baseline``, sorted ascending.

    Parameters
    ----------
    data : Evaluation or per-query table
        As :func:`pairedframe.paired_per_query` (one key combination: filter extra keys first).
    path : str or Path
        ``.png``, ``.svg`` or ``.pdf``.
    baseline, system, measure : str
    title : str, optional
        Default: measure, system, baseline and the counts of wins, losses and ties.

    Returns
    -------
    Path
        The file written; one bar per paired query (SVG ids ``pf-bar-0`` ...), blue = win of
        ``system``, red = loss, grey = tie (delta exactly 0 after the float-noise rule of
        :data:`pairedframe.comparison.WIN_RULE`).  Wins follow the measure's direction, as in
        :func:`pairedframe.compare`: for ranks such as FirstRelRank
        (:func:`pairedframe.measures.higher_is_better` false) a negative delta is a win.

    Raises
    ------
    ImportError
        matplotlib missing.
    ValueError
        Unknown systems or measure, several key combinations, a bad suffix, or a missing output folder.
    """
    out = _output(path)
    with named_as(systems="system", measures="measure"):
        pq = paired_per_query(data, baseline=baseline, systems=system, measures=measure)
    keys = [c for c in pq.columns if c not in ("system", "measure", "qid", "a", "b", "delta")]
    if keys and pq.select(keys).n_unique() > 1:
        raise ValueError(f"the table has several values of {keys}; filter it to one first")
    pq = pq.sort("delta", "qid")
    deltas = pq["delta"].to_list()
    gains = deltas if higher_is_better(measure) else [-d for d in deltas]   # > 0: system better
    colours = [WIN_COLOUR if g > 0 else LOSS_COLOUR if g < 0 else TIE_COLOUR for g in gains]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(max(5.0, min(14.0, 0.12 * len(deltas) + 3)), 3.6))
    bars = ax.bar(range(len(deltas)), deltas, color=colours, width=0.85)
    for i, bar in enumerate(bars):
        bar.set_gid(f"pf-bar-{i}")
    ax.axhline(0.0, color="black", lw=0.8)
    wins, losses = sum(g > 0 for g in gains), sum(g < 0 for g in gains)
    ties = len(deltas) - wins - losses
    from matplotlib.patches import Patch

    ax.legend(handles=[Patch(color=WIN_COLOUR, label=literal(f"{shortened(system)} better ({wins})")),
                       Patch(color=LOSS_COLOUR, label=literal(f"{shortened(baseline)} better ({losses})")),
                       Patch(color=TIE_COLOUR, label=f"tie ({ties})")], fontsize=8, loc="upper left", frameon=False)
    ax.set_xticks([])
    ax.set_xlabel(f"queries, sorted by delta (n = {len(deltas)})")
    ax.set_ylabel(literal(f"delta {measure}" + ("" if higher_is_better(measure) else " (lower is better)")))
    ax.set_title(literal(title or f"{measure}: {shortened(system)} − {shortened(baseline)}, per query"))
    return _save(fig, out)


def means_plot(data: Any, path: str | Path, *, measure: str, systems: Any = None, confidence_level: float = 0.95,
               judgments: str | None = None, title: str | None = None) -> Path:
    """System means of one measure with their t intervals over queries, sorted best on top (the lowest
    mean on top for ranks such as FirstRelRank, :func:`pairedframe.measures.higher_is_better`).

    Parameters
    ----------
    data : Evaluation, JudgmentSetsEvaluation or per-query table
    path : str or Path
        ``.png``, ``.svg`` or ``.pdf``.
    measure : str
    systems : sequence of str, optional
        Default: all.
    confidence_level : float, default 0.95
        Of the t interval ``mean ± t(n-1) sd / sqrt(n)``.
    judgments : str, optional
        The judgment set, when ``data`` holds several.
    title : str, optional

    Returns
    -------
    Path
        One point and interval per system (SVG ids ``pf-mean-0`` ... from the top).

    Raises
    ------
    ImportError
        matplotlib missing.
    ValueError
        Unknown measure or systems, a bad suffix, or a missing output folder.
    """
    out = _output(path)
    with named_as(measures="measure"):
        table = results_table_data(data, measures=[measure], systems=systems, judgments=judgments, ci="range",
                                   confidence_level=confidence_level)
    up = higher_is_better(table.measures[0])          # drawn bottom to top: the best system comes last
    df = table.frame.filter(pl.col("mean").is_not_null()).sort("mean", "system", descending=[not up, True])
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.0, max(2.5, 0.3 * df.height + 1.2)))
    for i, r in enumerate(df.iter_rows(named=True)):
        low = r["mean"] - r["ci_low"] if r["ci_low"] is not None else 0.0
        high = r["ci_high"] - r["mean"] if r["ci_high"] is not None else 0.0
        container = ax.errorbar([r["mean"]], [i], xerr=[[low], [high]], fmt="o", color=WIN_COLOUR, ms=4, capsize=2)
        container.lines[0].set_gid(f"pf-mean-{df.height - 1 - i}")
    ax.set_yticks(range(df.height))
    ax.set_yticklabels([literal(s) for s in short_names(df["system"].to_list())], fontsize=8)
    lo, hi = table.settings["n_queries"]
    queries = f"{lo} {'query' if lo == 1 else 'queries'}" if lo == hi else f"{lo}-{hi} queries"
    direction = "" if up else ", lower is better"
    # wrapped: long system labels leave the axes (and so its label) narrow
    ax.set_xlabel(literal(textwrap.fill(f"mean {measure} ({percent(confidence_level)}% t interval over {queries}{direction})",
                                        width=50)))
    ax.set_title(literal(title or f"{measure} by system"))
    return _save(fig, out)


#: Font size of the point labels (points): readable in print at the figure's size.
LABEL_FONTSIZE = 8
#: Where a label may sit relative to its point (offset in points, alignment), tried in this order.
_LABEL_SPOTS = ((4, 3, "left", "bottom"), (-4, 3, "right", "bottom"), (4, -3, "left", "top"),
                (-4, -3, "right", "top"))


def _label_order(means: pl.DataFrame) -> list[int]:
    """Row indices of ``means``, the most telling first: the systems whose rank moves most between the
    two evaluations, then the best under ``a``."""
    shift = [abs(a - b) for a, b in zip(means["rank_a"], means["rank_b"])]
    return sorted(range(means.height), key=lambda i: (-shift[i], means["rank_a"][i], i))


def _distance(box, x: float, y: float) -> float:
    """Distance (pixels) from the point (x, y) to the box, 0 inside it."""
    return math.hypot(max(box.x0 - x, 0.0, x - box.x1), max(box.y0 - y, 0.0, y - box.y1))


def _place_labels(fig, ax, means: pl.DataFrame) -> int:
    """Label points with their system names where a label stays inside the axes, overlaps no other
    label or point, and lies nearer its own point than any other (so it names one point only), trying
    four spots around each point, the most telling systems first; returns how many were labelled."""
    renderer = fig.canvas.get_renderer()
    axes_box = ax.get_window_extent(renderer)
    xy = ax.transData.transform(list(zip(means["mean_a"], means["mean_b"])))
    pad = 3.0                                          # pixels around a point marker kept free
    taken = [(x - pad, y - pad, x + pad, y + pad) for x, y in xy]
    placed = 0
    for i in _label_order(means):
        for dx, dy, ha, va in _LABEL_SPOTS:
            note = ax.annotate(literal(means["system"][i]), (means["mean_a"][i], means["mean_b"][i]), xytext=(dx, dy),
                               textcoords="offset points", ha=ha, va=va, fontsize=LABEL_FONTSIZE)
            box = note.get_window_extent(renderer).padded(1.5)   # a hair of space between names
            inside = axes_box.x0 <= box.x0 and box.x1 <= axes_box.x1 and axes_box.y0 <= box.y0 and box.y1 <= axes_box.y1
            clear = all(box.x1 < x0 or x1 < box.x0 or box.y1 < y0 or y1 < box.y0 for x0, y0, x1, y1 in taken)
            own = _distance(box, *xy[i])
            unambiguous = all(_distance(box, x, y) > own + pad for j, (x, y) in enumerate(xy) if j != i)
            if inside and clear and unambiguous:
                note.set_gid(f"pf-label-{i}")
                taken.append((box.x0, box.y0, box.x1, box.y1))
                placed += 1
                break
            note.remove()
    return placed


def agreement_scatter(agreement: Any, path: str | Path, *, label_points: bool = True, title: str | None = None) -> Path:
    """Scatter of system means under two evaluations, Kendall's tau and tau_AP in the title.

    Parameters
    ----------
    agreement : RankAgreement
        From :func:`pairedframe.rank_agreement`.
    path : str or Path
        ``.png``, ``.svg`` or ``.pdf``.
    label_points : bool, default True
        Write system names next to their points, in a readable size (:data:`LABEL_FONTSIZE`), where a
        name overlaps no other name or point: the systems whose rank moves most between the two
        evaluations first, then the best.  A note in the corner says how many systems are named when
        not all could be.
    title : str, optional
        Default: measure, tau_b with its (approximate) interval, tau_AP, numbers of systems, queries and swaps.

    Returns
    -------
    Path
        One point per system (SVG ids ``pf-point-0`` ... in the order of ``agreement.means``) and one
        ``pf-label-<i>`` per name written.

    Raises
    ------
    ImportError
        matplotlib missing.
    ValueError
        A bad suffix, or a missing output folder.
    """
    out = _output(path)
    means = agreement.means
    name_a, name_b = agreement.names
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 5.6))
    for i, r in enumerate(means.iter_rows(named=True)):
        (point,) = ax.plot([r["mean_a"]], [r["mean_b"]], "o", color=WIN_COLOUR, ms=5)
        point.set_gid(f"pf-point-{i}")
    tau = agreement.kendall_tau_b
    low, high = tau.confidence_interval
    xlabel = f"mean {agreement.measure} under {name_a}"
    ax.set_xlabel(literal(xlabel + ("\n(names: ... )" if label_points and means.height else "")))  # 2 lines: the layout
    ax.set_ylabel(literal(f"mean {agreement.measure} under {name_b}"))
    interval = f"[{low:.2f}, {high:.2f}] (approx.)" if math.isfinite(low) else "(no interval)"
    swapped = f"{agreement.n_swapped} swapped pair{'' if agreement.n_swapped == 1 else 's'}"
    ax.set_title(literal(title or (f"{agreement.measure}: Kendall τ_b = {tau.statistic:.3f} {interval}, "
                           f"τ_AP = {agreement.tau_ap.statistic:.3f}\n{agreement.n_systems} systems, "
                           f"{agreement.n_queries} queries, {swapped}")), fontsize=9)
    if not (label_points and means.height):
        return _save(fig, out)
    ax.margins(0.08)
    fig.tight_layout()                                 # the final layout first: label boxes are measured in it
    ax.set_xlim(ax.get_xlim())
    ax.set_ylim(ax.get_ylim())
    placed = _place_labels(fig, ax, means)
    named = "all systems named" if placed == means.height else \
        f"{placed} of {means.height} systems named; the others' names would overlap"
    ax.set_xlabel(literal(f"{xlabel}\n({named})"))
    return _save(fig, out, relayout=False)
