"""Per-query deltas of many systems against one baseline as an HTML heatmap (one cell per query).

Drawn as a table rather than an image: the system names stay text, each cell says its query and
delta on hover, and it costs nothing to draw however many systems there are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from pairedframe.comparison import paired_per_query
from pairedframe.measures import higher_is_better
from pairedframe.report.html_page import esc

__all__ = ["heatmap_html", "heatmap_from_pairs", "gain_colour"]

#: The two ends of the colour scale: the system better (blue) and the baseline better (red).
_BETTER, _WORSE, _MISSING = (33, 102, 172), (178, 24, 43), "#dddddd"


def gain_colour(gain: float | None, limit: float) -> str:
    """The cell colour of a delta in the measure's direction: white at 0, blue for a gain and red for a
    loss, full at ``limit`` (the largest absolute delta); grey without a value."""
    if gain is None or limit <= 0:
        return _MISSING if gain is None else "#ffffff"
    share = min(abs(gain) / limit, 1.0)
    end = _BETTER if gain > 0 else _WORSE
    r, g, b = (round(255 + (c - 255) * share) for c in end)
    return f"#{r:02x}{g:02x}{b:02x}"


def heatmap_html(data: Any, *, baseline: str, measure: str, systems: Sequence[str], table_id: str) -> str:
    """A ``<figure>`` with one table row per system (the largest mean gain on top) and one cell per query
    paired with the baseline (sorted by the mean gain over the systems), coloured by the delta in the
    measure's direction (:func:`gain_colour`; for ranks such as FirstRelRank a lower value is the gain);
    each cell's ``title`` names its query and delta; the last column is the system's mean delta.
    """
    pairs = paired_per_query(data, baseline=baseline, systems=list(systems), measures=measure)
    return heatmap_from_pairs(pairs, baseline=baseline, measure=measure, table_id=table_id)


def heatmap_from_pairs(pairs: pl.DataFrame, *, baseline: str, measure: str, table_id: str) -> str:
    """:func:`heatmap_html` of a :func:`pairedframe.paired_per_query` result already computed (every
    system in it except ``baseline``, rows of ``measure`` only): the report pairs each measure once
    for the heatmap and the bar charts."""
    pq = pairs.filter((pl.col("system") != baseline) & (pl.col("measure") == measure))
    sign = 1.0 if higher_is_better(measure) else -1.0
    pq = pq.with_columns((pl.col("delta") * sign).alias("gain"))
    rows = pq.group_by("system").agg(pl.col("gain").mean(), pl.col("delta").mean().alias("mean_delta")) \
        .sort(["gain", "system"], descending=[True, False])
    qids = pq.group_by("qid").agg(pl.col("gain").mean()).sort(["gain", "qid"])["qid"].to_list()
    cells = {(s, q): (d, g) for s, q, d, g in pq.select("system", "qid", "delta", "gain").iter_rows()}
    gains = [abs(g) for _, g in cells.values() if g is not None]
    limit = max(gains) if gains else 0.0
    body = []
    for system, mean_delta in rows.select("system", "mean_delta").iter_rows():
        tds = []
        for q in qids:
            delta, gain = cells.get((system, q), (None, None))
            tip = f"{q}: {delta:+.4f}" if delta is not None else f"{q}: no value"
            tds.append(f'<td style="background:{gain_colour(gain, limit)}" title="{esc(tip)}"></td>')
        mean = "" if mean_delta is None else f"{mean_delta:+.3f}"
        body.append(f'<tr><th scope="row" title="{esc(system)}">{esc(system)}</th>{"".join(tds)}<td class="pf-mean">{mean}</td></tr>')
    direction = "" if sign > 0 else " (lower is better: blue where the system's value is lower)"
    caption = (f"Per-query {measure} delta of every system − {baseline}{direction}: one row per system (largest "
               f"mean gain on top; mean delta at the right), one column per query ({len(qids)}, sorted by the mean "
               f"gain over the systems); blue: the system is better, red: {baseline} is, white: a tie, grey: no "
               f"value; full colour at |delta| = {limit:.3g}. Hover over a cell for its query and delta.")
    return (f'<figure class="pf-figure"><div class="pf-scroll"><table id="{table_id}" class="pf-heat">'
            f"<tbody>{''.join(body)}</tbody></table></div><figcaption>{esc(caption)}</figcaption></figure>")
