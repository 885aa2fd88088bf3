"""``pairedframe leaderboard QRELS RUN [RUN ...] -m MEASURE``: systems ranked, with confidence sets for the ranks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from pairedframe.cli.common import app, format_of_suffix, friendly_errors, held_warnings, named_runs, print_frame
from pairedframe.cli.eval_options import (Complete, Depth, Grades, JudgedOnly, RelLevel, ScorePrecision,
                                          evaluation_options)
from pairedframe.report.output import require_output_folder

FORMATS = ("table", "csv", "json", "markdown", "latex")
_SUFFIXES = {".csv": "csv", ".json": "json", ".md": "markdown", ".tex": "latex"}


@app.command("leaderboard")
@friendly_errors
def leaderboard_cmd(
    qrels: Annotated[Path, typer.Argument(help="qrels: TREC text (plain/.gz/.zst) or a Parquet/Arrow/CSV/TSV table; never - (only a run is read from stdin)")],
    runs: Annotated[list[Path], typer.Argument(help="run files (TREC text or tables; NAME=PATH names one); at least two")],
    measure: Annotated[str, typer.Option("-m", "--measure", help="the measure to rank by, e.g. nDCG@10")],
    marginal: Annotated[bool, typer.Option("--marginal", help="each system's set on its own (narrower), not all at once")] = False,
    confidence_level: Annotated[float, typer.Option("--confidence-level", help="of the rank sets")] = 0.95,
    n_resamples: Annotated[int, typer.Option("--n-resamples", "-B", help="bootstrap resamples of the queries")] = 10_000,
    seed: Annotated[int, typer.Option("--seed", help="seed of the keyed resample stream")] = 0,
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="table | csv | json | markdown | latex (default: "
                                                                    "table, or with -o the file's suffix)")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write to this file instead of stdout")] = None,
    complete: Complete = False,
    rel_level: RelLevel = 1,
    depth: Depth = None,
    score_precision: ScorePrecision = "float64",
    judged_only: JudgedOnly = False,
    grades: Grades = "strict",
) -> None:
    """Rank the runs by one measure, each with the set of ranks it may hold (pf.leaderboard).

    By default the sets hold every run's true rank at once with probability --confidence-level
    (Mogstad et al. 2024); --marginal gives each run's set on its own. Rows best first: system, mean,
    rank, rank_low, rank_high.
    """
    from pairedframe.comparison.leaderboard import leaderboard  # here: `evaluate` never loads the comparison layer
    from pairedframe.evaluation import evaluate

    fmt = format_of_suffix(output, _SUFFIXES, "table") if fmt is None else fmt
    if fmt not in FORMATS:
        raise ValueError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if output is not None:
        require_output_folder(output, "--output")
    evaluation = evaluation_options(complete=complete, rel_level=rel_level, depth=depth, score_precision=score_precision,
                                    judged_only=judged_only, grades=grades)
    with held_warnings():
        ev = evaluate(named_runs(runs), str(qrels), [measure], **evaluation)
        board = leaderboard(ev, confidence_level=confidence_level, simultaneous=not marginal,
                            n_resamples=n_resamples, seed=seed)
    kind = "each run's own" if marginal else "simultaneous"
    title = (f"{board.measure}: {board.n_systems} runs over {board.n_queries} queries; {kind} "
             f"{board.settings['confidence_level']:.0%} rank sets [rank_low, rank_high]")
    if output is None:
        print_frame(board.table, fmt, title=title)
        return
    with output.open("w", encoding="utf-8") as file:
        print_frame(board.table, fmt, title=title, file=file)
    typer.echo(f"wrote {output}", err=True)
