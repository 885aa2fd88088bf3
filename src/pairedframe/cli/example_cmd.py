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
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | json | trec (json: one document holding the "
                                                            "paths, the evaluation and the comparison)")] = "table",
) -> None:
    """Evaluate the bundled example (60 queries, graded qrels, runs bm25 and reranker), then compare reranker with bm25."""
    from pairedframe.cli.common import fail
    from pairedframe.cli.evaluate_cmd import evaluate_cmd

    if fmt not in ("table", "json", "trec"):
        fail(f"-f/--format must be table, json or trec, got {fmt!r}: the example prints two tables (the evaluation "
             "and the comparison), which one CSV or markdown table cannot hold; run pairedframe evaluate / compare "
             "on the paths `pairedframe example` prints for those formats")
    qrels, runs = example_paths()
    evaluate_args = dict(measure=EXAMPLE_MEASURES, per_query=False, complete=False, rel_level=1, depth=None,
                         score_precision="float64", fmt=fmt, engine="polars")
    if fmt != "json":
        typer.echo(f"qrels: {qrels}\nruns:  {', '.join(str(r) for r in runs)}\n")
        evaluate_cmd(qrels, runs, **evaluate_args)
        if fmt == "trec":
            return
    import contextlib
    import io
    import json
    import sys

    from pairedframe.comparison import compare
    from pairedframe.evaluation import evaluate
    from pairedframe.report.compare import format_comparison
    from pairedframe.report.output import json_text

    ev = evaluate([str(r) for r in runs], str(qrels), EXAMPLE_MEASURES)
    result = compare(ev, baseline="bm25", systems=["reranker"])
    if fmt == "json":       # one document: evaluate's records and the comparison's
        evaluated = io.StringIO()
        with contextlib.redirect_stdout(evaluated):
            evaluate_cmd(qrels, runs, **evaluate_args)
        sys.stdout.write(json_text({"qrels": str(qrels), "runs": [str(r) for r in runs],
                                    "evaluation": json.loads(evaluated.getvalue()),
                                    "comparison": json.loads(format_comparison(result, "json",
                                                                               evaluation_settings=ev.settings))}))
        return
    typer.echo("")
    sys.stdout.write(format_comparison(result, "table", evaluation_settings=ev.settings,
                                       title="reranker vs bm25 (delta = reranker - bm25)"))
