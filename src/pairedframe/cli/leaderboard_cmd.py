"""``pairedframe leaderboard QRELS RUN [RUN ...] -m MEASURE``: systems ranked, with confidence sets for the ranks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any, TextIO

import typer

from pairedframe.cli.common import app, format_of_suffix, friendly_errors, held_warnings, named_runs, print_frame
from pairedframe.cli.eval_options import EvaluationOptions, with_evaluation_options
from pairedframe.report.output import json_text, require_output_folder

FORMATS = ("table", "csv", "json", "markdown", "latex")
_SUFFIXES = {".csv": "csv", ".json": "json", ".md": "markdown", ".tex": "latex"}


@app.command("leaderboard")
@friendly_errors
@with_evaluation_options()
def leaderboard_cmd(
    qrels: Annotated[Path, typer.Argument(help="qrels: TREC text (plain/.gz/.zst) or a Parquet/Arrow/CSV/TSV table; never - (only a run is read from stdin)")],
    runs: Annotated[list[Path], typer.Argument(help="run files (TREC text or tables; NAME=PATH names one); at least two")],
    measure: Annotated[list[str], typer.Option("-m", "--measure", help="the one measure to rank by, e.g. nDCG@10")],
    marginal: Annotated[bool, typer.Option("--marginal", help="each system's set on its own (narrower), not all at once")] = False,
    confidence_level: Annotated[float, typer.Option("--confidence-level", help="of the rank sets")] = 0.95,
    n_resamples: Annotated[int, typer.Option("--n-resamples", "-B", help="bootstrap resamples of the queries")] = 10_000,
    seed: Annotated[int, typer.Option("--seed", help="seed of the keyed resample stream")] = 0,
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="table | csv | json | markdown | latex (default: "
                                                                    "table, or with -o the file's suffix); json: "
                                                                    "{settings, rows}, csv: the rows alone")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write to this file instead of stdout")] = None,
    *,
    evaluation: EvaluationOptions,
) -> None:
    """Rank the runs by one measure, each with the set of ranks it may hold (pf.leaderboard).

    By default the sets hold every run's true rank at once with probability --confidence-level
    (Mogstad et al. 2024); --marginal gives each run's set on its own. Rows best first: system, mean,
    rank, rank_low, rank_high. -f json writes {"settings": ..., "rows": [...]} as compare does.
    """
    # here: `evaluate` never loads the comparison layer
    from pairedframe.comparison.leaderboard import leaderboard, refuse_several_measures
    from pairedframe.comparison.pairing import is_text_measure
    from pairedframe.evaluation import evaluate

    if len(measure) > 1:
        raise ValueError(f"leaderboard ranks by one measure; got {' '.join('-m ' + m for m in measure)}: "
                         "run it once per measure")
    refuse_several_measures(measure[0], "-m", "-m {}")   # before evaluating; the library said `measure` is required
    if is_text_measure(measure[0]):      # before evaluating; the library's message names `per_query`
        raise ValueError(f"-m {measure[0]}: a string-valued measure (one string of grades per query, no number), "
                         "so there is nothing to rank the runs by; give a numeric measure, e.g. -m nDCG@10")
    fmt = format_of_suffix(output, _SUFFIXES, "table") if fmt is None else fmt
    if fmt not in FORMATS:
        raise ValueError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if output is not None:
        require_output_folder(output, "--output")
    with held_warnings():
        ev = evaluate(named_runs(runs), str(qrels), measure, **evaluation)
        board = leaderboard(ev, confidence_level=confidence_level, simultaneous=not marginal,
                            n_resamples=n_resamples, seed=seed)
    kind = "each run's own" if marginal else "simultaneous"
    title = (f"{board.measure}: {board.n_systems} runs over {board.n_queries} queries; {kind} "
             f"{board.settings['confidence_level']:.0%} rank sets [rank_low, rank_high]")
    if output is None:
        _write(board, ev, fmt, title, None)
        return
    with output.open("w", encoding="utf-8") as file:
        _write(board, ev, fmt, title, file)
    typer.echo(f"wrote {output}", err=True)


def _write(board: Any, ev: Any, fmt: str, title: str, file: TextIO | None) -> None:
    """The board in ``fmt``; json with its settings beside the rows, as compare -f json."""
    if fmt != "json":
        print_frame(board.table, fmt, title=title, file=file)
        return
    (sys.stdout if file is None else file).write(json_text({"settings": leaderboard_settings(board, ev),
                                                            "rows": board.table.to_dicts()}))


def leaderboard_settings(board: Any, ev: Any) -> dict[str, Any]:
    """Everything needed to reproduce ``board`` (a :class:`~pairedframe.comparison.leaderboard.Leaderboard` of
    the evaluation ``ev``): its measure, sizes, critical value (one per system for marginal sets) and settings,
    and the evaluation's (as compare's json)."""
    from pairedframe.report.compare import evaluation_settings_dict   # here: it loads the comparison layer

    critical = board.critical_value
    return {"measure": board.measure, "n_queries": board.n_queries, "n_systems": board.n_systems, **board.settings,
            "critical_value": critical.tolist() if hasattr(critical, "tolist") else critical,
            **evaluation_settings_dict(ev.settings)}
