"""trec_eval's text format, byte for byte: ``%-22s\\t%s\\t%.4f`` lines, counts as integers."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from pairedframe.evaluate import Evaluation


def _line(name: str, qid: str, value: str) -> str:
    return f"{name:<22}\t{qid}\t{value}\n"


def format_trec(evaluation: "Evaluation", *, per_query: bool = True, runids: dict[str, str] | None = None,
                runid: bool = True) -> str:
    """Render like ``trec_eval [-q]``: per system, the per-query blocks (queries in byte order,
    measures in trec_eval's order) and then the ``all`` block (``runid`` first when ``runid``).

    ``runids`` maps system -> the run's tag (trec_eval prints the tag); default: the tags read from
    the run files, else the system name. ``num_q`` is printed in the ``all`` block only, as trec_eval
    does. trec_eval prints ``runid`` with its default measure set, not with ``-m`` lists.

    Raises
    ------
    ValueError
        Two measures share a trec_eval name (e.g. ``AP`` and ``AP(rel=2)``, both ``map``): the text
        would be ambiguous.
    """
    measures = sorted(evaluation.measures, key=lambda m: m.trec_sort_key)
    names: dict[str, str] = {}
    for m in measures:
        if m.trec_name in names:
            raise ValueError(f"{names[m.trec_name]} and {m.name} are both {m.trec_name!r} in trec_eval's "
                             f"format; evaluate them separately or use another format")
        names[m.trec_name] = m.name
    runids = {**evaluation.run_tags, **(runids or {})}
    counts = {m.name for m in measures if m.spec.aggregate == "sum"}
    summary = {(r["system"], r["measure"]): r["value"] for r in evaluation.summary().iter_rows(named=True)}
    out: list[str] = []
    for system in evaluation.systems:
        rows = evaluation.per_query.filter(pl.col("system") == system)
        if per_query:
            values = {(r["qid"], r["measure"]): r["value"] for r in rows.iter_rows(named=True)}
            for qid in sorted(rows["qid"].unique().to_list(), key=lambda q: q.encode()):
                for m in measures:
                    if m.family == "NumQ":
                        continue
                    v = values[(qid, m.name)]
                    out.append(_line(m.trec_name, qid, str(int(v)) if m.name in counts else f"{v:.4f}"))
        if runid:
            out.append(_line("runid", "all", runids.get(system, system)))
        for m in measures:
            v = summary[(system, m.name)]
            out.append(_line(m.trec_name, "all", str(int(round(v))) if m.name in counts else f"{v:.4f}"))
    return "".join(out)
