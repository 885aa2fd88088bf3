"""``pairedframe report QRELS RUN [RUN ...] -o report.html``: one self-contained HTML report."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from pairedframe.cli.common import app, friendly_errors, named_runs
from pairedframe.cli.eval_options import EvaluationOptions, with_evaluation_options
from pairedframe.cli.stdin_run import STDIN_ARGUMENT
from pairedframe.report.output import require_output_folder


def _judgment_sets(items: list[str]) -> dict[str, str]:
    """``--judgments NAME=PATH`` arguments -> {name: path}. ``NAME=-`` is refused (unless a file is named
    ``-``): as for QRELS, only a run is read from standard input."""
    sets: dict[str, str] = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise ValueError(f"--judgments {item!r}: expected NAME=PATH, e.g. llm=llm_qrels.txt")
        if path == STDIN_ARGUMENT and not os.path.exists(STDIN_ARGUMENT):
            raise ValueError(f"--judgments {item!r}: a judgment set cannot be read from standard input (as "
                             "QRELS, only a run is); give its file's path (a shell's <(...) works)")
        if not Path(path).exists():
            raise FileNotFoundError(path)
        if name in sets:
            raise ValueError(f"--judgments names the set {name!r} twice")
        sets[name] = path
    return sets


@app.command("report")
@friendly_errors
@with_evaluation_options()
def report_cmd(
    qrels: Annotated[Path, typer.Argument(help="qrels: TREC text (plain/.gz/.zst) or a Parquet/Arrow/CSV/TSV table; never - (only a run is read from stdin)")],
    runs: Annotated[list[Path], typer.Argument(help="run files (TREC text or tables; NAME=PATH names one)")],
    output: Annotated[Path, typer.Option("--output", "-o", help="the HTML file to write")] = Path("report.html"),
    measure: Annotated[list[str], typer.Option("-m", "--measure", help="measure, e.g. nDCG@10; repeatable (default nDCG@10, AP)")] = [],  # noqa: B006
    baseline: Annotated[str | None, typer.Option("--baseline", "-b", help="the system every other is compared with (default: the first run)")] = None,
    judgments: Annotated[list[str], typer.Option("--judgments", help="another judgment set NAME=PATH (e.g. llm=llm.qrels): agreement with QRELS; repeatable")] = [],  # noqa: B006
    n_resamples: Annotated[int, typer.Option("--n-resamples", "-B", help="sign flips / bootstrap resamples")] = 10_000,
    seed: Annotated[int, typer.Option("--seed", help="seed of the keyed resample streams")] = 0,
    test: Annotated[str, typer.Option("--test", help="randomization (sign-flip) or t (paired t-test)")] = "randomization",
    confidence_level: Annotated[float, typer.Option("--confidence-level", help="of the tests (alpha = 1 - level) and intervals")] = 0.95,
    correction: Annotated[str, typer.Option("--correction", help="what decides the marks, verdicts and colours: holm | bh | none")] = "holm",
    delta_plots: Annotated[int, typer.Option("--delta-plots", help="bar charts of per-query deltas per measure (the decided systems first)")] = 3,
    title: Annotated[str | None, typer.Option("--title", help="the report's title")] = None,
    *,
    evaluation: EvaluationOptions,
) -> None:
    """One self-contained HTML file: results table, forest plots, per-query deltas, agreement, settings.

    CSS and figures are inside the file (no network, no script), so it opens anywhere and can be sent
    as it is.  The first run is the baseline unless --baseline names another.
    """
    if output.is_dir():  # first: a folder's name says nothing about the suffix the file needs
        raise ValueError(f"--output {str(output)!r} is a folder; name the file to write (an .html file, e.g. report.html)")
    if output.suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"--output must end in .html or .htm, got {output.name!r}")
    require_output_folder(output, "--output")
    sets = _judgment_sets(judgments)            # before a run '-' reads standard input
    named = named_runs(runs)
    names = list(named)
    if baseline is None:
        baseline = names[0] if len(names) > 1 else None
    elif baseline not in names:
        raise ValueError(f"--baseline {baseline!r} is not one of the runs {names}")
    from pairedframe.report.html_report import report

    command = shlex.join(["pairedframe", *sys.argv[1:]]) if sys.argv[1:2] == ["report"] else None
    rep = report(named, str(qrels), measure or None, baseline=baseline, judgments=sets or None,
                 n_resamples=n_resamples, seed=seed, test=test, confidence_level=confidence_level,
                 correction=correction, max_delta_plots=delta_plots, title=title, command=command, **evaluation)
    try:
        rep.save(output)
    except OSError as exc:
        raise ValueError(f"--output {str(output)!r}: cannot write it ({exc.strerror or exc})") from None
    size = output.stat().st_size
    typer.echo(f"wrote {output} ({size / 1e6:.1f} MB)" if size >= 1e5 else f"wrote {output} ({size / 1e3:.0f} kB)",
               err=True)
