"""The report's figures written directly as SVG: forest plots and per-query delta bar charts.

matplotlib spent most of a 63-run report's time laying out tick labels (seconds per figure); these
figures need only lines, circles, rectangles and text at known places, so they are written here in
milliseconds.  Each mark carries an id and a ``<title>`` naming what it shows (``pf-segment-<i>``:
system, delta, interval, verdict; ``pf-bar-<i>``: query and delta), so a reader of the SVG -- or a
test -- can check every number against :func:`pairedframe.compare`.  Text widths are estimated (no
font metrics): label columns are sized generously rather than measured.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import polars as pl

from pairedframe.measures import higher_is_better
from pairedframe.report.forest import COLOURS, lower_is_better_note, row_styles, rows_to_show, why_dashed, x_limits
from pairedframe.report.html_page import esc
from pairedframe.report.plots import LOSS_COLOUR, TIE_COLOUR, WIN_COLOUR, short_names, shortened

__all__ = ["forest_svg", "delta_bars_svg", "nice_ticks", "FOREST_MAX_ROWS"]

#: Rows of a forest plot before :func:`pairedframe.report.forest.rows_to_show` leaves some out (as
#: :func:`pairedframe.forest_plot`'s default).
FOREST_MAX_ROWS = 60
_FONT = "font-family=\"Helvetica, Arial, sans-serif\""
#: Estimated width of one character, as a share of the font size (a wide average for sans-serif).
_CHAR = 0.6
_LEGEND_NAMES = {"better": "better (significant)", "worse": "worse (significant)",
                 "not significant": "not significant / inconclusive",
                 "interval disagrees": "dashed: the interval contradicts the decision",
                 "unbounded": "arrow: the interval is unbounded on that side"}


def nice_ticks(low: float, high: float, most: int = 6) -> list[float]:
    """Round tick values (steps of 1, 2 or 5 times a power of ten) inside ``[low, high]``: the widest
    such step giving at most ``most`` ticks, made finer when it leaves fewer than two inside (a step
    of 50 finds no tick in [1, 22]); ``[low]`` when the range is empty."""
    if not high > low:
        return [low]
    raw = (high - low) / max(most - 1, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    steps = [f * power for f in (10, 5, 2, 1, 0.5, 0.2, 0.1)]
    steps = [step for step in steps if step >= raw][-1:] + [step for step in steps if step < raw]
    for step in steps:
        first, last = math.ceil(low / step - 1e-9), math.floor(high / step + 1e-9)
        if last > first:
            break
    return [round(k * step, 12) for k in range(first, last + 1)]


def _tick_text(value: float, ticks: Sequence[float]) -> str:
    step = ticks[1] - ticks[0] if len(ticks) > 1 else abs(value) or 1.0
    digits = max(0, -math.floor(math.log10(step) + 1e-9))
    text = f"{value:.{digits}f}"
    return "0" if float(text) == 0 else text


def _text(x: float, y: float, content: str, *, size: int = 11, anchor: str = "start", extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{extra}>'
            f"{esc(content)}</text>")


def _svg(width: float, height: float, body: Sequence[str], label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" role="img" {_FONT}><title>{esc(label)}</title>'
            f'<rect width="100%" height="100%" fill="#ffffff"/>{"".join(body)}</svg>')


def _x_axis(scale, ticks: Sequence[float], left: float, right: float, y: float) -> list[str]:
    """A horizontal axis line at ``y`` with its ticks and labels."""
    out = [f'<line x1="{left:.1f}" y1="{y:.1f}" x2="{right:.1f}" y2="{y:.1f}" stroke="#333"/>']
    for t in ticks:
        x = scale(t)
        out.append(f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{x:.1f}" y2="{y + 4:.1f}" stroke="#333"/>')
        out.append(_text(x, y + 15, _tick_text(t, ticks), anchor="middle"))
    return out


def _wrap(text: str, width: int) -> list[str]:
    import textwrap

    return textwrap.wrap(text, width=width) or [""]


def _forest_rows(comparison: pl.DataFrame, measure: str) -> tuple[pl.DataFrame, pl.DataFrame, str | None]:
    """(the rows drawn, sorted by delta; every row with a delta; the note on rows left out)."""
    full = comparison.filter((pl.col("measure") == measure) & pl.col("delta").is_not_null()).sort("delta")
    decisions = [d for d, _ in row_styles(full)]
    shown, note = rows_to_show(full, decisions, FOREST_MAX_ROWS)
    return shown, full, note


def _in_comparison_order(comparison: pl.DataFrame, drawn: pl.DataFrame) -> list[str]:
    """The systems drawn, named in the comparison's order (the runs as given), not by delta as drawn."""
    drawn_systems = set(drawn["system"])
    return [s for s in comparison["system"].unique(maintain_order=True) if s in drawn_systems]


def forest_svg(comparison: pl.DataFrame, measure: str) -> str:
    """A forest plot of one measure of a :func:`pairedframe.compare` result, as an SVG document.

    One row per system (``system (n=queries)``), sorted by delta with the largest on top: the mean
    delta (a circle) and its interval (a line), coloured by the verdict -- blue "better", red
    "worse", grey otherwise -- dashed where the interval contradicts the verdict, an arrow where an
    end is unbounded (:func:`pairedframe.report.forest.row_styles`, ``x_limits``); with more than
    :data:`FOREST_MAX_ROWS` rows the undecided ones nearest the middle are left out and the axis
    label says so (``rows_to_show``), as in :func:`pairedframe.forest_plot`.  Circles have ids
    ``pf-segment-<i>`` (``i`` from the bottom row) and a ``<title>``: system, delta, interval, verdict.
    The axis label of a measure where lower is better says so (``delta FirstRelRank (lower is better)``).

    Raises
    ------
    ValueError
        No row of ``measure`` with a delta.
    """
    df, full, note = _forest_rows(comparison, measure)
    if df.height == 0:
        raise ValueError(f"no comparison of {measure!r} with a delta to plot")
    styles = row_styles(df)
    labels = [f"{s} (n={n})" for s, n in zip(short_names(df["system"].to_list()), df["n_queries"])]
    delta = df["delta"].to_list()
    low = [-math.inf if v is None else v for v in df["ci_low"]]
    high = [math.inf if v is None else v for v in df["ci_high"]]
    left, right = x_limits(delta, low, high)
    label_width = min(360.0, _CHAR * 11 * max(map(len, labels)) + 12)
    width = max(640.0, label_width + 430)
    x0, x1, row_h = label_width + 8, width - 20, 15.0
    systems = df["system"].n_unique()
    baseline = comparison["baseline"][0] if "baseline" in comparison.columns else "baseline"
    shown = f"{systems} of {full.height} systems" if full.height > df.height else \
        (", ".join(map(shortened, _in_comparison_order(comparison, df))) if systems <= 3 else f"{systems} systems")
    title_lines = _wrap(f"{measure}: {shown} − baseline {shortened(baseline)}", 80)
    top = 12 + 17 * len(title_lines)
    bottom = top + row_h * df.height + 6

    def scale(v: float) -> float:
        return x0 + (v - left) / (right - left) * (x1 - x0)

    body = [_text(width / 2, 18 + 17 * i, line, size=13, anchor="middle") for i, line in enumerate(title_lines)]
    ticks = nice_ticks(left, right)
    body += [f'<line x1="{scale(t):.1f}" y1="{top:.1f}" x2="{scale(t):.1f}" y2="{bottom:.1f}" stroke="#eeeeee"/>'
             for t in ticks]
    body.append(f'<line x1="{scale(0):.1f}" y1="{top:.1f}" x2="{scale(0):.1f}" y2="{bottom:.1f}" stroke="#000" '
                'stroke-width="0.8" stroke-dasharray="4 3"/>')
    seen: list[str] = []
    for i, (label, d, a, b, (decision, disagrees)) in enumerate(zip(labels, delta, low, high, styles)):
        y = bottom - 3 - row_h * (i + 0.5)
        colour = COLOURS[decision]
        dash = ' stroke-dasharray="5 3"' if disagrees else ""
        body.append(_text(x0 - 6, y + 4, label, anchor="end"))
        body.append(f'<line x1="{scale(max(a, left)):.1f}" y1="{y:.1f}" x2="{scale(min(b, right)):.1f}" '
                    f'y2="{y:.1f}" stroke="{colour}" stroke-width="1.6"{dash}/>')
        verdict = df["verdict"][i] if "verdict" in df.columns else decision
        tip = f"{df['system'][i]}: delta {d:+.4f}, interval [{a:.4f}, {b:.4f}], {verdict}"
        body.append(f'<circle id="pf-segment-{i}" cx="{scale(d):.1f}" cy="{y:.1f}" r="3.2" fill="{colour}">'
                    f"<title>{esc(tip)}</title></circle>")
        for end, edge, sign in ((a, left, -1), (b, right, 1)):
            if math.isinf(end):
                x = scale(edge)
                body.append(f'<path d="M{x:.1f},{y:.1f} l{-6 * sign},-4 v8 z" fill="{colour}"/>')
        for key in (decision, "interval disagrees" if disagrees else None,
                    "unbounded" if math.isinf(a) or math.isinf(b) else None):
            if key is not None and key not in seen:
                seen.append(key)
    body += _x_axis(scale, ticks, x0, x1, bottom)
    body.append(_text((x0 + x1) / 2, bottom + 31, f"delta {measure}{lower_is_better_note(measure)}", anchor="middle"))
    y = bottom + 31
    for line in _wrap(f"({note})", 110) if note else []:
        y += 14
        body.append(_text((x0 + x1) / 2, y, line, size=10, anchor="middle"))
    for key in sorted(seen, key=list(_LEGEND_NAMES).index):
        y += 16
        colour = COLOURS.get(key, "#555555")
        dash = ' stroke-dasharray="5 3"' if key == "interval disagrees" else ""
        if key == "unbounded":
            body.append(f'<path d="M{x0 + 20:.1f},{y - 4:.1f} l-6,-4 v8 z" fill="{colour}"/>')
        else:
            body.append(f'<line x1="{x0:.1f}" y1="{y - 4:.1f}" x2="{x0 + 20:.1f}" y2="{y - 4:.1f}" '
                        f'stroke="{colour}" stroke-width="1.6"{dash}/>')
            body.append(f'<circle cx="{x0 + 10:.1f}" cy="{y - 4:.1f}" r="3" fill="{colour}"/>')
        legend = _LEGEND_NAMES[key] + (why_dashed(df) if key == "interval disagrees" else "")
        body.append(_text(x0 + 28, y, legend, size=10))
    return _svg(width, y + 10, body, f"forest plot of {measure}")


def delta_bars_svg(pairs: pl.DataFrame, *, baseline: str, system: str, measure: str) -> str:
    """A bar chart of the per-query deltas ``system − baseline`` of one measure, as an SVG document.

    ``pairs`` is :func:`pairedframe.paired_per_query`'s result (other systems and measures are
    ignored).  One bar per paired query, sorted ascending by delta then qid (ids ``pf-bar-<i>``, each
    with a ``<title>`` ``qid: delta``): blue where ``system`` wins, red where ``baseline`` does, grey
    for a tie (delta 0 after the float-noise rule), in the measure's direction as in
    :func:`pairedframe.delta_plot`; the legend counts each.

    Raises
    ------
    ValueError
        No paired query of ``system`` and ``measure``.
    """
    pq = pairs.filter((pl.col("system") == system) & (pl.col("measure") == measure)).sort("delta", "qid")
    if pq.height == 0:
        raise ValueError(f"no paired query of {system!r} on {measure!r}")
    deltas, qids = pq["delta"].to_list(), pq["qid"].to_list()
    up = higher_is_better(measure)
    gains = deltas if up else [-d for d in deltas]
    colours = [WIN_COLOUR if g > 0 else LOSS_COLOUR if g < 0 else TIE_COLOUR for g in gains]
    wins, losses = sum(g > 0 for g in gains), sum(g < 0 for g in gains)
    n = len(deltas)
    width, height = max(480.0, min(1100.0, 10.0 * n + 160)), 300.0
    x0, x1, top, bottom = 64.0, width - 14, 58.0, height - 36
    lo, hi = min(0.0, *deltas), max(0.0, *deltas)
    pad = 0.05 * (hi - lo) if hi > lo else 0.05
    lo, hi = lo - pad, hi + pad

    def y_of(v: float) -> float:
        return bottom - (v - lo) / (hi - lo) * (bottom - top)

    body = [_text(width / 2, 18, f"{measure}: {shortened(system)} − {shortened(baseline)}, per query", size=13,
                  anchor="middle")]
    x = x0
    for colour, text in ((WIN_COLOUR, f"{shortened(system)} better ({wins})"),
                         (LOSS_COLOUR, f"{shortened(baseline)} better ({losses})"),
                         (TIE_COLOUR, f"tie ({n - wins - losses})")):
        body.append(f'<rect x="{x:.1f}" y="32" width="10" height="10" fill="{colour}"/>')
        body.append(_text(x + 14, 41, text, size=10))
        x += 14 + _CHAR * 10 * len(text) + 16
    ticks = nice_ticks(lo, hi, most=5)
    for t in ticks:
        body.append(f'<line x1="{x0:.1f}" y1="{y_of(t):.1f}" x2="{x1:.1f}" y2="{y_of(t):.1f}" stroke="#eeeeee"/>')
        body.append(_text(x0 - 6, y_of(t) + 4, _tick_text(t, ticks), size=10, anchor="end"))
    slot = (x1 - x0) / n
    zero = y_of(0.0)
    for i, (d, q, colour) in enumerate(zip(deltas, qids, colours)):
        y, h = (y_of(d), zero - y_of(d)) if d >= 0 else (zero, y_of(d) - zero)
        body.append(f'<rect id="pf-bar-{i}" x="{x0 + slot * (i + 0.075):.2f}" y="{y:.2f}" width="{slot * 0.85:.2f}" '
                    f'height="{h:.2f}" fill="{colour}"><title>{esc(f"{q}: {d:+.4f}")}</title></rect>')
    body.append(f'<line x1="{x0:.1f}" y1="{zero:.1f}" x2="{x1:.1f}" y2="{zero:.1f}" stroke="#000" stroke-width="0.8"/>')
    body.append(f'<line x1="{x0:.1f}" y1="{top:.1f}" x2="{x0:.1f}" y2="{bottom:.1f}" stroke="#333"/>')
    ylabel = f"delta {measure}" + ("" if up else " (lower is better)")
    body.append(_text(16, (top + bottom) / 2, ylabel, anchor="middle",
                      extra=f' transform="rotate(-90 16 {(top + bottom) / 2:.1f})"'))
    body.append(_text((x0 + x1) / 2, height - 12, f"queries, sorted by delta (n = {n})", anchor="middle"))
    return _svg(width, height, body, f"per-query {measure} deltas of {system} against {baseline}")
