"""``pairedframe segments QRELS RUN_A RUN_B [RUN ...] --segments FILE``: every segment compared in one pass."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import Annotated

import polars as pl
import typer

from pairedframe.cli.common import app, format_of_suffix, friendly_errors, named_runs, print_frame
from pairedframe.cli.eval_options import EVALUATION_DEFAULTS, EvaluationOptions, with_evaluation_options
from pairedframe.report.output import json_text, require_output_folder

FORMATS = ("table", "json", "csv", "markdown", "latex")
#: The format an ``-o`` file's suffix asks for when ``--format`` is not given (as ``analyze`` and ``table``).
_FORMAT_OF_SUFFIX = {".json": "json", ".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".tex": "latex"}
#: Columns of the human-readable formats; csv and json keep every column.
_SHORT = ["segment_set", "segment", "n_queries", "delta", "ci_low", "ci_high", "pvalue", "pvalue_bh", "pvalue_holm",
          "significant", "warning"]


def read_segments(path: Path) -> pl.DataFrame:
    """A ``qid, segment_set, segment`` table from CSV/TSV, Parquet or JSON (ids and names read as text)."""
    from pairedframe.io.results import read_one

    from pairedframe.checks import warn_numeric_ids
    from pairedframe.comparison.segment_tables import refuse_null_segments, refuse_repeated_segments

    table = read_one(path, argument="--segments")
    warn_numeric_ids([c for c in ("segment_set", "segment") if c in table.columns and table.schema[c].is_integer()],
                     f"the segment file {path}")      # as compare_segments does (as_segments)
    table = table.with_columns(pl.col(c).cast(pl.String) for c in ("qid", "segment_set", "segment") if c in table.columns)
    if {"qid", "segment_set", "segment"} <= set(table.columns):   # the other checks: compare_segments'
        refuse_null_segments(table, path)  # here, where the file is known: its line is named
        refuse_repeated_segments(table, path)
    return table


@app.command("segments")
@friendly_errors
@with_evaluation_options()
def segments_cmd(
    qrels: Annotated[Path, typer.Argument(help="qrels file (qid iter docno rel), plain, .gz or .zst, or a Parquet/Arrow/CSV/TSV table; never - (only a run is read from stdin)")],
    runs: Annotated[list[Path], typer.Argument(help="two or more run files (TREC text: plain, .gz or .zst; or tables; NAME=PATH names one); the first is the baseline unless --baseline")],
    segments: Annotated[Path | None, typer.Option("--segments", "-s", help="qid,segment_set,segment table (.csv, .tsv, .parquet, .json); required")] = None,
    measure: Annotated[list[str], typer.Option("-m", "--measure", help="measure, e.g. nDCG@10, AP; repeatable")] = [],  # noqa: B006
    baseline: Annotated[str | None, typer.Option("--baseline", "-b", help="baseline system name (default: the first run)")] = None,
    test: Annotated[str, typer.Option("--test", help="randomization (sign-flip) or t (screening thousands of segments)")] = "randomization",
    n_resamples: Annotated[int, typer.Option("--n-resamples", "-B", help="bootstrap resamples and sign-flip patterns per segment")] = 10_000,
    seed: Annotated[int, typer.Option("--seed", help="seed of the per-segment streams")] = 0,
    correction: Annotated[str, typer.Option("--correction", help="bh or holm: the adjustment behind 'significant'")] = "bh",
    family_by: Annotated[list[str], typer.Option("--family-by", help="column(s) defining a multiple-comparison family; repeatable (default: system, measure, segment_set)")] = [],  # noqa: B006
    confidence_level: Annotated[float, typer.Option("--confidence-level", help="of the intervals; the FDR / FWER level is 1 - level")] = 0.95,
    alternative: Annotated[str, typer.Option("--alternative", help="two-sided | greater | less")] = "two-sided",
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="table | json | csv | markdown | latex (default: table, or "
                                                                    "with -o the file's suffix: .json, .csv, .md, .tex)")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write to this file instead of stdout")] = None,
    plot: Annotated[Path | None, typer.Option("--plot", help='also write a forest plot (.png, .pdf, .svg; needs pip install "pairedframe\\[plot]")')] = None,
    *,
    evaluation: EvaluationOptions,
) -> None:
    """Compare runs with a baseline inside every segment of queries, in one pass: delta, CI, p, BH / Holm per family.

    -f json writes {"settings": ..., "rows": ...}; settings' n_resamples is always a list: the rows' distinct
    counts, first seen first (sign patterns on exact rows, null where nothing was drawn), [10000] when they agree.

    Exit codes: 0 = done, 2 = error (bad input, or nothing to compare), 3 = internal error.
    """
    # imported here, not at the top: `pairedframe evaluate` never pays for scipy and the comparison layer
    from pairedframe.cli.compare_cmd import comparable_names
    from pairedframe.comparison.segments import STREAM_POLICY, compare_segments
    from pairedframe.evaluation import evaluate

    if segments is None:
        raise ValueError("--segments FILE is required: a table with columns qid, segment_set, segment")
    if fmt is None:
        fmt = format_of_suffix(output, _FORMAT_OF_SUFFIX, "table")
    if fmt not in FORMATS:
        raise ValueError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if not measure:
        raise ValueError("name at least one measure with -m (e.g. -m nDCG@10)")
    if output is not None:                               # checked before the work, as --plot
        require_output_folder(output, "--output")
    if plot is not None:
        require_output_folder(plot, "--plot")            # before the work, not after it
        from pairedframe.report.plots import PLOT_FORMATS
        if plot.suffix.lower() not in PLOT_FORMATS:
            raise ValueError(f"--plot {plot.name!r}: a forest plot file must end in one of {', '.join(PLOT_FORMATS)}")
    named = named_runs(runs)
    if len(named) < 2:  # counted after a table file's own systems are known
        raise ValueError("segments needs at least two runs (the baseline and one system)")
    base = baseline if baseline is not None else next(iter(named))
    if base not in named:
        raise ValueError(f"--baseline {base!r} is not one of the runs {list(named)}")
    table = read_segments(segments)
    # a set leaves out RelString, NumQ, GMAP (warned)
    comparable = set(comparable_names(measure, evaluation["rel_level"], evaluation["judged_only"]))
    ev = evaluate(named, str(qrels), measure, **evaluation)
    compared = [m.name for m in ev.measures if m.name in comparable]
    result = compare_segments(ev, table, baseline=base, measures=compared, test=test,  # type: ignore[arg-type]
                              n_resamples=n_resamples, seed=seed, correction=correction,  # type: ignore[arg-type]
                              family_by=family_by or None, confidence_level=confidence_level,
                              alternative=alternative)  # type: ignore[arg-type]
    # the rows' distinct n_resamples, always a list (an int when the rows agreed made JSON readers test the
    # type): exact rows count the sign patterns enumerated, null where nothing was drawn
    counts = result["n_resamples"].unique(maintain_order=True).to_list()
    settings = {"baseline": base, "test": test, "interval": result["interval"][0], "n_resamples": counts,
                "seed": seed, "correction": correction, "level": round(1 - confidence_level, 12),
                "family_by": family_by or ["system", "measure", "segment_set"],
                "streams": STREAM_POLICY, "query_set": ev.settings.query_set}
    # the evaluation options given, stated only when they differ from the defaults (as compare's depth)
    settings |= {k: v for k, v in ev.settings.as_dict().items()
                 if k in EVALUATION_DEFAULTS and v != EVALUATION_DEFAULTS[k]}
    rule = {"holm": "Holm", "bh": "BH"}.get(correction, correction)
    family = ", ".join(family_by or ["system", "measure", "segment_set"])
    title = f"segments vs baseline {base} (delta = system - baseline; {rule} per family of {family})"
    buffer = io.StringIO()
    out = sys.stdout if output is None else buffer   # one destination, as analyze and table: the file
    if fmt == "json":
        out.write(json_text({"settings": settings, "rows": result.to_dicts()}))
    elif fmt == "csv":  # as the result holds them: null (not computed) an empty cell, NaN (sd of one delta) NaN
        print_frame(result, "csv", file=out)
    elif fmt == "latex":  # fits a page as compare's: keys, n, delta with its interval below, the p used, significant
        from pairedframe.cli.segments_latex import segments_latex

        out.write(segments_latex(result, correction=correction, confidence_level=confidence_level, title=title,
                                 settings=_readable(settings, result)))
    else:  # significant in words, as the LaTeX writes it (True / False read as code)
        from pairedframe.cli.segments_latex import significant_texts

        words = pl.Series("significant", significant_texts(result, correction), dtype=pl.String)
        print_frame(result.select("system", "measure", *_SHORT).with_columns(words), fmt, file=out, title=title)
        if fmt == "table":
            out.write("\n".join(f"{k}: {v}" for k, v in _readable(settings, result).items()) + "\n")
    if output is not None:
        try:
            output.write_text(buffer.getvalue(), encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"--output {str(output)!r}: cannot write it ({exc.strerror or exc})") from None
        typer.echo(f"wrote {output}", err=True)
    if plot is not None:
        from pairedframe.report.forest import forest_plot

        pairs = result.select("system", "measure").unique(maintain_order=True).rows()
        for system, name in pairs:  # one plot per (system, measure): several would mix their rows
            path = plot if len(pairs) == 1 else plot.with_name(f"{plot.stem}-{_safe(system)}-{_safe(name)}{plot.suffix}")
            forest_plot(result, path, system=system, measure=name, title=f"{name}: {system} - {base}")
            typer.echo(f"forest plot: {path}", err=True)


def _readable(settings: dict, result: pl.DataFrame) -> dict:
    """The settings as the table and LaTeX print them: n_resamples in words where the rows differ (as compare)."""
    from pairedframe.report.compare import n_resamples_text

    counts = settings["n_resamples"]     # one count is printed as compare prints it, not as a per-row list
    return {**settings, "n_resamples": n_resamples_text(counts[0] if len(counts) == 1 else counts, result)}


def _safe(text: str) -> str:
    """``text`` usable in a file name."""
    return "".join(c if c.isalnum() or c in "@._=+-" else "_" for c in text)
