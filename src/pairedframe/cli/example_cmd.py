"""``pairedframe example``: evaluate (and compare) the two bundled example runs."""

from __future__ import annotations

from pathlib import Path
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
    copy_to: Annotated[Path | None, typer.Option(
        "--copy-to", help="copy the example's files (qrels.txt, input.bm25, input.reranker) into this existing "
                          "folder and stop, so that other commands can name them; an existing file of the same "
                          "name is refused, never overwritten")] = None,
) -> None:
    """Evaluate the bundled example (60 queries, graded qrels, runs bm25 and reranker), then compare reranker with bm25."""
    from pairedframe.cli.common import fail
    from pairedframe.cli.evaluate_cmd import evaluate_cmd

    if copy_to is not None:
        _copy_example(copy_to, fail)
        return

    if fmt not in ("table", "json", "trec"):
        fail(f"-f/--format must be table, json or trec, got {fmt!r}: the example prints two tables (the evaluation "
             "and the comparison), which one CSV or markdown table cannot hold; run pairedframe evaluate / compare "
             "on the paths `pairedframe example` prints for those formats")
    qrels, runs = example_paths()
    evaluate_args = dict(measure=EXAMPLE_MEASURES, per_query=False, complete=False, rel_level=1, depth=None,
                         score_precision="float64", fmt=fmt, engine="polars")
    if fmt != "json":
        # on stderr under -f trec, as other commands' "wrote ..." lines: stdout is then trec_eval's text alone
        typer.echo(f"qrels: {qrels}\nruns:  {', '.join(str(r) for r in runs)}\n", err=fmt == "trec")
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


def _copy_example(folder: Path, fail) -> None:
    """Copy the example's three files into ``folder`` (existing), refusing to overwrite any file."""
    import shutil

    qrels, runs = example_paths()
    if not folder.is_dir():
        fail(f"--copy-to: {folder} is not an existing folder" + (" (it is a file)" if folder.exists() else ""))
    sources = [qrels, *runs]
    clashes = [str(folder / src.name) for src in sources if (folder / src.name).exists()]
    if clashes:
        fail(f"--copy-to: {', '.join(clashes)} already exist{'s' if len(clashes) == 1 else ''}; nothing was copied "
             "(move them or choose another folder)")
    for src in sources:
        shutil.copyfile(src, folder / src.name)
    typer.echo(f"copied {', '.join(src.name for src in sources)} into {folder}")
