"""trec_eval's text format, byte for byte: ``%-22s\\t%s\\t%.4f`` lines, counts as integers."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from pairedframe.evaluate import Evaluation


def _line(name: str, qid: str, value: str) -> str:
    return f"{name:<22}\t{qid}\t{value}\n"


def format_trec(evaluation: "Evaluation", *, per_query: bool = True, runids: dict[str, str] | None = None) -> str:
    """Render like ``trec_eval [-q]``: per system, the per-query blocks (queries in byte order,
    measures in trec_eval's order) and then the ``all`` block starting with ``runid`` and ``num_q``.

    ``runids`` maps system -> the run's tag (trec_eval prints the tag); default: the system name.
    ``num_q`` is printed in the ``all`` block only, as trec_eval does.
    """
    measures = sorted(evaluation.measures, key=lambda m: m.trec_sort_key)
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
        out.append(_line("runid", "all", (runids or {}).get(system, system)))
        for m in measures:
            v = summary[(system, m.name)]
            out.append(_line(m.trec_name, "all", str(int(round(v))) if m.name in counts else f"{v:.4f}"))
    return "".join(out)
