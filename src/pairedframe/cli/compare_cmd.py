"""``pairedframe compare QRELS RUN_A RUN_B [RUN ...]`` (or ``RESULTS [RESULTS ...]``, per-query results files): paired comparison against a baseline, with a CI gate."""

from __future__ import annotations

import re
import sys
import warnings
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated

import polars as pl
import typer

from pairedframe.cli.common import app, format_of_suffix, friendly_errors, held_warnings, named_runs
from pairedframe.cli.compare_inputs import per_query_results, rows_of_measure, too_few_runs
from pairedframe.cli.eval_options import EvaluationOptions, with_evaluation_options
from pairedframe.errors import PartlyEmptyWarning, user_stacklevel
from pairedframe.measures import parse_measure, parse_measures
from pairedframe.report.output import require_output_folder

EXIT_GATE = 1
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_OPS = {"<": lambda x, t: x < t, "<=": lambda x, t: x <= t, ">": lambda x, t: x > t, ">=": lambda x, t: x >= t}
_GATE_COLUMN = {"delta": "delta", "ci-low": "ci_low", "ci-high": "ci_high"}
#: The format an ``-o`` file's suffix asks for when ``--format`` is not given (as ``segments`` and ``analyze``).
_FORMAT_OF_SUFFIX = {".json": "json", ".csv": "csv", ".md": "markdown", ".markdown": "markdown", ".tex": "latex"}

#: Resampling work (queries x resamples x comparisons) above which a progress bar is shown in a terminal.
PROGRESS_MIN_WORK = 20_000_000


#: Measures the diff of a failing gate shows for each worst query (rank of the first relevant and of
#: the best-graded document, baseline -> system).
DIFF_RANKS = ("FirstRelRank", "TopGradeRank")


def _ranks(ev, baseline: str, system: str, qids: list[str], rel_level: int, judged_only: bool) -> dict[str, str]:
    """qid -> 'first relevant document moves from rank 1 to rank 7; best-graded document was at rank 2,
    now not retrieved' (from the baseline to the system)."""
    first, best = (m.resolved(rel_level, judged_only).name for m in parse_measures(DIFF_RANKS))
    table = ev.per_query.filter(pl.col("qid").is_in(qids) & pl.col("measure").is_in([first, best]))
    value = {(s, q, m): v for s, q, m, v in table.iter_rows()}

    def moved(q: str, m: str) -> str:
        a, b = (value.get((s, q, m)) for s in (baseline, system))
        a, b = (None if v is None else int(v) for v in (a, b))
        if a is None or b is None:
            return ("is not retrieved by either run" if a == b else
                    f"was not retrieved, now at rank {b}" if a is None else f"was at rank {a}, now not retrieved")
        return f"stays at rank {a}" if a == b else f"moves from rank {a} to rank {b}"
    return {q: f"first relevant document {moved(q, first)}; best-graded document {moved(q, best)}" for q in qids}


def _last_operator(text: str) -> tuple[int, str] | None:
    """(position, operator) of the last ``<``, ``<=``, ``>`` or ``>=`` outside parentheses, braces and
    quotes (a measure name's parameters, ``nDCG(dcg='exp-log2')@10``, may hold anything)."""
    depth, quote, found = 0, "", None
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch in "<>" and depth == 0:
            found = (i, ch + "=" if text[i + 1:i + 2] == "=" else ch)
    return found


def comparable_names(measure: list[str], rel_level: int, judged_only: bool = False) -> list[str]:
    """The names -m asks compare / segments to compare; a set (official, all_trec) drops what they cannot test --
    measures of the judgments alone (NumQ, NumRel), what describes a run's output (NumRet, Judged@k, ...),
    geometric means (GMAP) and string-valued measures (RelString, also from a bare ``relstring``) -- with a warning, as pf.compare
    does when every measure is compared and ``table`` / ``report`` do for RelString; named one by one they are
    refused by the comparison itself.  The names are those the evaluation of ``measure`` computes
    (:func:`~pairedframe.measures.parse_measures`): a trec_eval family named bare and with parameters (``-m P
    -m P.5``) or with two parameter lists gives the first list only (warned), so compare asks for P@5 alone."""
    from pairedframe.measures.parse import aggregate_of, ranks_runs

    evaluated = set(parse_measures(measure)) if measure else set()
    names, left, text = [], [], []
    for token in measure:
        named = parse_measure(token)
        parsed = [m.resolved(rel_level, judged_only) for m in named if m in evaluated]
        for m in parsed:
            if m.spec.value_kind == "text" and (len(named) > 1 or token.strip() in {f.name for f in m.spec.trec}):
                text.append(m.name)
                continue
            untestable = len(named) > 1 and (not ranks_runs(m.name) or aggregate_of(m.name) == "gmean")
            (left if untestable else names).append(m.name)
    if left:
        warnings.warn(f"left out of the comparison: {', '.join(dict.fromkeys(left))} (of a measure set: measures of "
                      "the judgments alone, what describes a run's output (its counts, how much of it is judged) and "
                      "geometric means are no paired "
                      "hypothesis)", PartlyEmptyWarning,
                      stacklevel=user_stacklevel())
    if text:
        warnings.warn(f"left out of the comparison: {', '.join(dict.fromkeys(text))} (string-valued: the grades of "
                      "the top documents, in Evaluation.text, have no mean)", PartlyEmptyWarning,
                      stacklevel=user_stacklevel())
    return list(dict.fromkeys(names))


def parse_gate(text: str, rel_level: int, judged_only: bool = False) -> tuple[str, str, float]:
    """``'nDCG@10 < -0.01'``, ``"nDCG(dcg='exp-log2')@10 >= 0"`` -> (resolved measure name, operator,
    threshold): MEASURE is everything before the last operator, read as -m reads a name."""
    found = _last_operator(text)
    value = text[found[0] + len(found[1]):].strip() if found else ""
    measure = text[:found[0]].strip() if found else ""
    if not found or not measure or _last_operator(measure) or not _NUMBER.fullmatch(value):
        raise ValueError(f"--fail-if {text!r}: expected 'MEASURE OP NUMBER' with OP one of <, <=, >, >= "
                         "(e.g. 'nDCG@10 < -0.01', 'P(rel=2)@10 < 0')")
    try:
        measures = parse_measure(measure)
    except ValueError as exc:
        raise ValueError(f"--fail-if {text!r}: {exc}") from None
    if len(measures) != 1:
        raise ValueError(f"--fail-if {text!r}: {measure!r} names {len(measures)} measures; name one")
    return measures[0].resolved(rel_level, judged_only).name, found[1], float(value)


def _progress_context(total_work: int):
    """A rich progress bar on stderr, only in a terminal and for long resampling."""
    if total_work < PROGRESS_MIN_WORK or not (sys.stderr.isatty() and sys.stdout.isatty()):
        return nullcontext(None)
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("resampling"), BarColumn(), TextColumn("{task.completed}/{task.total} comparisons"),
                    TimeElapsedColumn(), transient=True, console=Console(stderr=True))


@app.command("compare")
@friendly_errors
@with_evaluation_options()
def compare_cmd(
    qrels: Annotated[Path, typer.Argument(help="qrels file (qid iter docno rel), plain, .gz or .zst, or a Parquet/Arrow/CSV/TSV table; never - (only a run is read from stdin); "
                                               "or, without qrels, the first per-query results file")],
    runs: Annotated[list[Path] | None, typer.Argument(help="two or more run files (TREC text: plain, .gz or .zst; or tables; NAME=PATH names one); the first is the baseline unless --baseline; "
                                                           "or the other per-query results files (trec_eval -q output, pairedframe evaluate -q tables), compared without evaluating")] = None,
    measure: Annotated[list[str], typer.Option("-m", "--measure", help="measure, e.g. nDCG@10, AP, P.10; repeatable (per-query results files: every measure they hold when none is given)")] = [],  # noqa: B006
    baseline: Annotated[list[str], typer.Option("--baseline", "-b", help="baseline system name (default: the first run); repeat for several")] = [],  # noqa: B006
    pairs: Annotated[str | None, typer.Option("--pairs", help="'all' (every unordered pair once) or 'ordered' instead of a baseline")] = None,
    family_by: Annotated[list[str], typer.Option("--family-by", help="split the Holm/BH family: baseline, system, measure; repeatable")] = [],  # noqa: B006
    correction: Annotated[str, typer.Option("--correction", help="holm | bh | none: the adjusted p-value the verdict follows")] = "holm",
    n_resamples: Annotated[int, typer.Option("--n-resamples", "-B", help="bootstrap resamples and sign-flip patterns")] = 10_000,
    seed: Annotated[int, typer.Option("--seed", help="seed of the keyed resample streams")] = 0,
    test: Annotated[str, typer.Option("--test", help="randomization (sign-flip) or t (paired t-test)")] = "randomization",
    interval: Annotated[str | None, typer.Option("--interval", help="studentized | signflip | t | percentile | bca (default: studentized bootstrap for the randomization test, t for the t-test; signflip inverts the randomization test)")] = None,
    confidence_level: Annotated[float, typer.Option("--confidence-level", help="of the interval; alpha = 1 - level")] = 0.95,
    alternative: Annotated[str, typer.Option("--alternative", help="two-sided | greater | less")] = "two-sided",
    fmt: Annotated[str | None, typer.Option("--format", "-f", help="table | json | csv | markdown | latex (default: table, or "
                                                                    "with -o the file's suffix: .json, .csv, .md, .tex)")] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="write the comparison to this file instead of stdout "
                                                                        "(the gate's lines stay on stderr)")] = None,
    fail_if: Annotated[list[str], typer.Option("--fail-if", help="gate, e.g. 'nDCG@10 < -0.01': exit 1 if it holds for any system; repeatable")] = [],  # noqa: B006
    gate_on: Annotated[str, typer.Option("--gate-on", help="quantity the gate tests: delta | ci-low | ci-high")] = "delta",
    worst: Annotated[int, typer.Option("--worst", help="worst queries printed when a gate fails")] = 5,
    *,
    evaluation: EvaluationOptions,
) -> None:
    """Compare runs with a baseline query by query: delta, studentized bootstrap CI, p-values (raw, Holm, BH), MDE, verdict.

    Exit codes: 0 = done (no gate violated), 1 = a --fail-if gate holds, 2 = error, 3 = internal error (a bug).
    """
    # imported here, not at the top: `pairedframe evaluate` never pays for scipy and the comparison layer
    from pairedframe.comparison import compare, worst_queries
    from pairedframe.evaluation import evaluate
    from pairedframe.report.compare import FORMATS, format_comparison

    if fmt is None:
        fmt = format_of_suffix(output, _FORMAT_OF_SUFFIX, "table")
    if fmt not in FORMATS:
        raise ValueError(f"--format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if output is not None:                       # checked before the work, as segments, table and analyze
        require_output_folder(output, "--output")
    if gate_on not in _GATE_COLUMN:
        raise ValueError(f"--gate-on must be delta, ci-low or ci-high, got {gate_on!r}")
    if worst < 1:   # refused before any work, gate or not (worst_queries would fail after the evaluation)
        raise ValueError(f"--worst must be a positive integer (the worst queries a failing gate prints), got {worst}")
    unbounded = {"ci-low": "less", "ci-high": "greater"}.get(gate_on)
    if fail_if and alternative == unbounded:
        raise ValueError(f"--gate-on {gate_on} with --alternative {alternative}: that end of a one-sided interval is "
                         "infinite, so the gate would test -inf/inf; gate on the other end or on the delta")
    rel_level, judged_only = evaluation["rel_level"], evaluation["judged_only"]   # measure names and gates at that level
    gates = [parse_gate(g, rel_level, judged_only) for g in fail_if]
    results = per_query_results([qrels, *(runs or [])], evaluation)
    if not measure and results is None:   # per-query results files without -m: every measure, as pf.compare
        raise ValueError(f"name at least one measure with -m (e.g. -m nDCG@10 -m AP): the runs are evaluated against "
                         f"{qrels}, taken as QRELS; -m may be left out only when every argument is a per-query "
                         "results file (evaluate -q -f csv, json or trec), whose measures are all compared")
    named = named_runs(runs or []) if results is None else {}
    names = list(named) if results is None else results["system"].unique(maintain_order=True).to_list()
    if len(names) < 2:  # counted after a table file's own systems are known
        raise ValueError(too_few_runs(names, results is not None, None if runs else qrels, qrels))
    if baseline and pairs:
        raise ValueError("give --baseline or --pairs, not both")
    bases = list(baseline) if baseline else [] if pairs else [names[0]]
    for b in bases:
        if b not in names:
            raise ValueError(f"--baseline {b!r} is not one of the runs {names}")
    if gates and len(bases) != 1:
        raise ValueError("--fail-if needs a single baseline")
    base = bases[0] if len(bases) == 1 else None
    measure_names = comparable_names(measure, rel_level, judged_only) if measure else None
    # A failing gate shows where each worst query's first relevant and best document went.
    context = [m.resolved(rel_level, judged_only).name for m in parse_measures(DIFF_RANKS)]
    context = [name for name in context if name not in (measure_names or [])]
    ev = evaluate(named, str(qrels), [*measure, *(context if gates else [])], **evaluation) if results is None else None
    data = results if ev is None else ev
    for name, _, _ in gates:   # without -m (results files), checked once compare has kept what it can test
        if measure_names is not None and name not in measure_names:
            raise ValueError(f"--fail-if measure {name!r} is not among the compared measures {measure_names}")
    # runs without a judged query were left out by evaluate (with a warning): compare the others
    present = set(names) if ev is None else (set(ev.per_query["system"].unique().to_list())
                                             | set(ev.text["system"].unique().to_list()))
    for b in bases:
        if b not in present:
            which = "--baseline" if baseline else "the baseline (the first run, no --baseline given)"
            raise ValueError(f"{which} {b!r} has no judged query in common with the qrels (see the warning "
                             "above): nothing to compare against")
    names = [n for n in names if n in present]
    systems = [n for n in names if n != base] if base is not None else names
    n_q = (results if ev is None else ev.per_query)["qid"].n_unique()
    k = len(dict.fromkeys(bases))      # several baselines: each with every other run, two baselines once (pf.compare)
    n_pairs = (len(systems) if base is not None else k * (len(names) - 1) - k * (k - 1) // 2) if not pairs \
        else len(names) * (len(names) - 1) // (2 if pairs == "all" else 1)
    work = n_q * n_resamples * n_pairs * (len(measure_names) if measure_names is not None else data["measure"].n_unique())
    with held_warnings(), _progress_context(work) as bar:    # the bar closes before the warnings print
        callback = None
        if bar is not None:
            task = bar.add_task("resampling", total=n_pairs * len(measure_names))
            callback = lambda done, total: bar.update(task, completed=done)  # noqa: E731
        result = compare(data, baseline=base if base is not None else (bases or None), pairs=pairs, systems=systems,
                         measures=measure_names, n_resamples=n_resamples, family_by=family_by or None,
                         confidence_level=confidence_level, alternative=alternative, test=test,  # type: ignore[arg-type]
                         seed=seed, interval=interval, correction=correction, progress=callback)  # type: ignore[arg-type]
    for name, _, _ in gates if measure_names is None else []:
        if rows_of_measure(result, name).is_empty():
            raise ValueError(f"--fail-if measure {name!r} is not among the compared measures "
                             f"{result['measure'].unique(maintain_order=True).to_list()}")
    text = format_comparison(result, fmt, evaluation_settings=None if ev is None else ev.settings)
    if output is None:
        sys.stdout.write(text)
    else:                                  # one destination, as segments, table and analyze: the file
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"--output {str(output)!r}: cannot write it ({exc.strerror or exc})") from None
        typer.echo(f"wrote {output}", err=True)
    if not gates:
        return
    column = _GATE_COLUMN[gate_on]
    violated = []
    for name, op, threshold in gates:
        rows = rows_of_measure(result, name)
        for row in rows.iter_rows(named=True):
            if _OPS[op](row[column], threshold):
                violated.append((row, name, op, threshold))
    if not violated:
        typer.echo(f"gate passed: {len(gates)} condition(s) on {column}", err=True)
        return
    for row, name, op, threshold in violated:
        typer.echo(f"GATE FAILED: {row['system']} {name}: {column} = {row[column]:+.4f} {op} {threshold:g} "
                   f"(mean {row['system_mean']:.4f} vs baseline {base} {row['baseline_mean']:.4f}, "
                   f"delta {row['delta']:+.4f}, CI [{row['ci_low']:+.4f}, {row['ci_high']:+.4f}], "
                   f"n = {row['n_queries']})", err=True)
        w = worst_queries(data, baseline=base, systems=[row["system"]], measures=[name], k=worst)
        # per-query results files hold no ranks of documents: the worst queries' values only
        ranks = {} if ev is None else _ranks(ev, base, row["system"], w["qid"].to_list(), rel_level, judged_only)
        for q in w.iter_rows(named=True):
            moved = f"; {ranks[q['qid']]}" if q["qid"] in ranks else ""
            typer.echo(f"  worst #{q['rank']}: qid {q['qid']}: {q['a']:.4f} -> {q['b']:.4f} ({q['delta']:+.4f})"
                       f"{moved}", err=True)
    raise typer.Exit(EXIT_GATE)
