"""``pairedframe table QRELS RUN [RUN ...]``: a paper's results table with significance marks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from pairedframe.cli.common import app, friendly_errors, held_warnings, named_runs
from pairedframe.cli.eval_options import EvaluationOptions, with_evaluation_options
from pairedframe.report.output import require_output_folder


#: The format a ``-o`` file's suffix asks for when ``--format`` is not given.
_FORMAT_OF_SUFFIX = {".tex": "latex", ".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html",
                     ".txt": "terminal", "": "terminal"}


def _format_of(output: Path | None) -> str:
    """The table format of an ``-o`` file by its suffix (terminal without -o); ValueError naming an unknown one."""
    if output is None:
        return "terminal"
    suffix = output.suffix.lower()
    if suffix not in _FORMAT_OF_SUFFIX:
        raise ValueError(f"--output {output.name!r}: the suffix {output.suffix!r} names no table format; use "
                         f"{', '.join(s for s in _FORMAT_OF_SUFFIX if s)}, or give --format")
    return _FORMAT_OF_SUFFIX[suffix]


@app.command("table")
@friendly_errors
@with_evaluation_options()
def table_cmd(
    qrels: Annotated[Path, typer.Argument(help="qrels: TREC text (plain/.gz/.zst) or a Parquet/Arrow/CSV/TSV table; never - (only a run is read from stdin)")],
    runs: Annotated[list[Path], typer.Argument(help="run files (TREC text or tables; NAME=PATH names one); the first is the baseline unless --baseline or --pairs")],
    measure: Annotated[list[str], typer.Option("-m", "--measure", help="measure (column), e.g. nDCG@10; repeatable; at least one (a paper table names its columns)")] = [],  # noqa: B006
    baseline: Annotated[list[str], typer.Option("--baseline", "-b", help="baseline system (default: the first run, as compare); repeat for several (letters)")] = [],  # noqa: B006
    pairs: Annotated[str | None, typer.Option("--pairs", help="'all': compare every pair of runs once (letters); 'ordered': each pair both ways")] = None,
    correction: Annotated[str, typer.Option("--correction", help="holm | bh | none | tukey (all pairs)")] = "holm",
    family_by: Annotated[list[str], typer.Option("--family-by", help="split the Holm/BH family: baseline, measure, system; repeatable")] = [],  # noqa: B006
    ci: Annotated[str | None, typer.Option("--ci", help="show each mean's t interval: halfwidth | range")] = None,
    ci_layout: Annotated[str, typer.Option("--ci-layout", help="LaTeX: stacked (each interval below its number) | inline")] = "stacked",
    digits: Annotated[int, typer.Option("--digits", help="decimals shown")] = 3,
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="terminal | latex | markdown | html (default: terminal, "
                                                                    "or with -o the file's suffix: .tex, .md, .html, .txt)")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write to this file instead of stdout")] = None,
    n_resamples: Annotated[int, typer.Option("--n-resamples", "-B", help="sign flips / permutations")] = 10_000,
    seed: Annotated[int, typer.Option("--seed", help="seed of the keyed resample streams")] = 0,
    test: Annotated[str, typer.Option("--test", help="randomization (sign-flip) or t (paired t-test)")] = "randomization",
    confidence_level: Annotated[float, typer.Option("--confidence-level", help="of the tests (alpha = 1 - level) and the --ci intervals")] = 0.95,
    *,
    evaluation: EvaluationOptions,
) -> None:
    """Systems x measures: means, significance marks vs the baseline(s) or all pairs, best bold, second underlined.

    One baseline (--baseline, or by default the first run, as compare) marks cells with a dagger
    (better) or double dagger (worse); several --baseline, or --pairs all, mark each cell with the
    letters of the systems it is significantly better than; against several --baseline, the letters
    after a double dagger name the baselines it is significantly worse than ("a‡b").  A single run
    gets means without marks.
    """
    # imported here, not at the top: `pairedframe evaluate` never pays for scipy and the comparison layer
    from pairedframe.comparison.table_data import CI_STYLES, CORRECTIONS
    from pairedframe.evaluation import evaluate
    from pairedframe.report.results_table import MAX_LETTERED, TABLE_FORMATS, results_table
    from pairedframe.report.table_latex import CI_LAYOUTS

    if not measure:
        raise ValueError("name at least one measure with -m (e.g. -m nDCG@10 -m AP)")
    if fmt is None:
        fmt = _format_of(output)
    if fmt not in TABLE_FORMATS:
        raise ValueError(f"--format must be one of {', '.join(TABLE_FORMATS)}, got {fmt!r}")
    if baseline and pairs:
        raise ValueError("give --baseline or --pairs, not both")
    if ci is not None and ci not in CI_STYLES:      # the library's list names None, which no one can type
        raise ValueError(f"--ci must be one of {', '.join(c for c in CI_STYLES if c)} (or left out: no interval), "
                         f"got {ci!r}")
    if ci_layout not in CI_LAYOUTS:
        raise ValueError(f"--ci-layout must be one of {', '.join(CI_LAYOUTS)}, got {ci_layout!r}")
    if correction not in CORRECTIONS:
        raise ValueError(f"--correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}")
    if correction == "tukey" and pairs != "all":
        raise ValueError("--correction tukey is the Tukey HSD test of all pairs: it needs --pairs all")
    if output is not None:
        require_output_folder(output, "--output")
    named = named_runs(runs)
    names = list(named)
    for b in baseline:
        if b not in names:
            raise ValueError(f"--baseline {b!r} is not one of the runs {names}")
    # Letters run a-z: refuse what cannot be rendered before evaluating and comparing (63 runs: minutes).
    lettered = len(names) if pairs else len(dict.fromkeys(baseline)) if len(baseline) > 1 else 0
    if lettered > MAX_LETTERED:
        flag, what = ((f"--pairs {pairs} letters every run", "runs") if pairs
                      else ("several --baseline are lettered", "baselines"))
        raise ValueError(f"{flag} (a-z), so at most {MAX_LETTERED} fit, got {lettered} {what}: give at most "
                         f"{MAX_LETTERED} {what}, or one --baseline (daggers, no letters)")
    if not baseline and not pairs and len(names) > 1:
        baseline = [names[0]]                          # as compare: the first run is the baseline
    with held_warnings():
        ev = evaluate(named, str(qrels), measure, **evaluation)
        options = {}
        if baseline or pairs:
            options = dict(baseline=(baseline[0] if len(baseline) == 1 else baseline) if baseline else None,
                           pairs=pairs, n_resamples=n_resamples, seed=seed, test=test, family_by=family_by or None)
        # Rows in the command line's order, the baselines first (the evaluation sorts systems by name and
        # leaves out a run without judged queries, with a warning).
        order = [s for s in dict.fromkeys([*baseline, *names]) if s in ev.systems]
        table = results_table(ev, systems=order, correction=correction, ci=ci, digits=digits,
                              confidence_level=confidence_level, **options)
    if fmt == "terminal":
        text = table.to_terminal(ansi=output is None and sys.stdout.isatty())
    elif fmt == "latex":
        text = table.to_latex(ci_layout=ci_layout)
    else:
        text = table.render(fmt)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)
