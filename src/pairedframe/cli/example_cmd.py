"""``pairedframe example``: evaluate (and compare) the two bundled example runs."""

from __future__ import annotations

from typing import Annotated

import typer

from pairedframe.cli.common import app, friendly_errors
from pairedframe.example import example_paths

EXAMPLE_MEASURES = ["nDCG@10", "AP", "P@10", "R@100", "RR"]


@app.command("example")
@friendly_errors
def example_cmd(
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | csv | json | trec")] = "table",
) -> None:
    """Evaluate the bundled example (60 queries, graded qrels, runs bm25 and reranker), then compare reranker with bm25."""
    from pairedframe.cli.evaluate_cmd import evaluate_cmd

    qrels, runs = example_paths()
    typer.echo(f"qrels: {qrels}\nruns:  {', '.join(str(r) for r in runs)}\n")
    evaluate_cmd(qrels, runs, measure=EXAMPLE_MEASURES, per_query=False, complete=False, rel_level=1,
                 depth=None, score_precision="float64", fmt=fmt, engine="duckdb")
    if fmt == "trec":
        return
    import sys

    from pairedframe.comparison import compare
    from pairedframe.evaluation import evaluate
    from pairedframe.report.compare import format_comparison

    ev = evaluate([str(r) for r in runs], str(qrels), EXAMPLE_MEASURES)
    result = compare(ev, baseline="bm25", systems=["reranker"])
    typer.echo("")
    sys.stdout.write(format_comparison(result, fmt if fmt in ("table", "csv", "json") else "table",
                                       evaluation_settings=ev.settings,
                                       title="reranker vs bm25 (delta = reranker - bm25)"))
