"""``pairedframe analyze --plan PLAN RESULTS...``: run a pre-registered analysis plan on per-query results."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from pairedframe.cli.common import app, format_of_suffix, friendly_errors
from pairedframe.errors import PlanError
from pairedframe.report.output import require_output_folder


@app.command("analyze")
@friendly_errors
def analyze_cmd(
    results: Annotated[list[Path], typer.Argument(help="per-query result files (.parquet, .csv, .tsv, .json, .jsonl): "
                                                       "system,qid,measure,value[,dataset,cluster] or first-hit-rank "
                                                       "exports qid,first_hit_rank[,cluster,dataset,ap]")],
    plan: Annotated[Path | None, typer.Option("--plan", "-p", help="the pre-registered plan (TOML); required")] = None,
    clusters: Annotated[Path | None, typer.Option("--clusters", help="optional qid,cluster[,dataset] table (CSV/Parquet/JSON) "
                                                                     "when the results have no cluster column")] = None,
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="table | json | csv | markdown (default: table, or with -o "
                                                                    "the file's suffix: .json, .csv, .md)")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write the report to this file instead of stdout")] = None,
) -> None:
    """Run exactly the endpoints of a pre-registered plan: delta, CI, cluster p, Holm p, TOST p, MDD, McNemar, verdict.

    Refuses to run without --plan. Systems are matched by exact name. The report records the SHA-256 of
    the plan file. Exit codes: 0 = done, 2 = error (bad plan, missing system/endpoint, bad input), 3 = internal error.
    """
    # imported here, not at the top: `pairedframe evaluate` never pays for scipy and the comparison layer
    from pairedframe.comparison.plan import analyze, load_plan
    from pairedframe.report.analysis import ANALYSIS_FORMATS, format_analysis

    if plan is None:
        raise PlanError("--plan is required: analyze runs only a pre-registered plan (see examples/plan.toml)")
    if fmt is None:
        fmt = format_of_suffix(output, {".json": "json", ".csv": "csv", ".md": "markdown", ".markdown": "markdown"},
                               "table")
    if fmt not in ANALYSIS_FORMATS:
        raise ValueError(f"--format must be one of {', '.join(ANALYSIS_FORMATS)}, got {fmt!r}")
    if output is not None:
        require_output_folder(output, "--output")
    the_plan = load_plan(plan)
    cmap = None
    if clusters is not None:
        from pairedframe.io.results import read_one

        cmap = read_one(clusters, argument="--clusters")
    result = analyze(the_plan, [str(r) for r in results], clusters=cmap)
    text = format_analysis(result, fmt)
    if output is None:
        sys.stdout.write(text)
    else:                                  # one destination, as the table command: the file, not also stdout
        output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)
