"""trec_eval's text format, byte for byte: ``%-22s\\t%s\\t%.4f`` lines, counts as integers."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from pairedframe.measures import Measure


def _line(name: str, qid: str, value: str) -> str:
    return f"{name:<22}\t{qid}\t{value}\n"


def format_trec(values: pl.DataFrame, summary: pl.DataFrame, measures: Sequence["Measure"], *,
                systems: Sequence[str], run_tags: Mapping[str, str] | None = None, per_query: bool = True,
                runids: Mapping[str, str] | None = None, runid: bool = True) -> str:
    """Render like ``trec_eval [-q]``: per system, the per-query blocks (queries in byte order,
    measures in trec_eval's order) and then the ``all`` block (``runid`` first when ``runid``).

    ``values`` is the per-query table (``system, qid, measure, value``) and ``summary`` its ``all``
    rows (``system, measure, value``), as :class:`pairedframe.evaluation.Evaluation` holds them.

    ``runids`` maps system -> the run's tag (trec_eval prints the tag); default: the tags read from
    the run files, else the system name. ``num_q`` is printed in the ``all`` block only, as trec_eval
    does. trec_eval prints ``runid`` with its default measure set, not with ``-m`` lists.

    Raises
    ------
    ValueError
        Two measures share a trec_eval name (e.g. ``AP`` and ``AP(rel=2)``, both ``map``): the text
        would be ambiguous.
    """
    measures = sorted(measures, key=lambda m: m.trec_sort_key)
    names: dict[str, str] = {}
    for m in measures:
        if m.trec_name in names:
            raise ValueError(f"{names[m.trec_name]} and {m.name} are both {m.trec_name!r} in trec_eval's "
                             f"format; evaluate them separately or use another format")
        names[m.trec_name] = m.name
    runids = {**(run_tags or {}), **(runids or {})}
    counts = {m.name for m in measures if m.spec.aggregate == "sum"}
    all_values = {(r["system"], r["measure"]): r["value"] for r in summary.iter_rows(named=True)}
    out: list[str] = []
    for system in systems:
        rows = values.filter(pl.col("system") == system)
        if per_query:
            cells = {(r["qid"], r["measure"]): r["value"] for r in rows.iter_rows(named=True)}
            for qid in sorted(rows["qid"].unique().to_list(), key=lambda q: q.encode()):
                for m in measures:
                    if m.family == "NumQ":
                        continue
                    v = cells[(qid, m.name)]
                    out.append(_line(m.trec_name, qid, str(int(v)) if m.name in counts else f"{v:.4f}"))
        if runid:
            out.append(_line("runid", "all", runids.get(system, system)))
        for m in measures:
            v = all_values[(system, m.name)]
            out.append(_line(m.trec_name, "all", str(int(round(v))) if m.name in counts else f"{v:.4f}"))
    return "".join(out)
