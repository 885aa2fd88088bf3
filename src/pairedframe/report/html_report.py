"""One HTML file to open or send: :func:`report` evaluates, compares and draws; :class:`Report` holds it.

The file is self-contained (CSS and figures inside, no script, no network) and its CSS is scoped to
the report's element id, so the same HTML also shows inside a notebook (``_repr_html_``) or another
page without restyling it.  The sections are written by :mod:`pairedframe.report.report_sections`.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from pairedframe.checks import require_bool
from pairedframe.errors import OLD_LEVEL_AND_SEED, renamed_keywords, USE_CORRECTION
from pairedframe.comparison.pairing import is_comparable
from pairedframe.measures.parse import ranks_runs
from pairedframe.report.comparable import compare_what_can_be
from pairedframe.errors import InsufficientSampleError, PartlyEmptyWarning, recorded_warnings, reissue, user_stacklevel
from pairedframe.evaluation import Evaluation, evaluate
from pairedframe.evaluation.judgment_sets import evaluate_judgment_sets_leaving_out
from pairedframe.evaluation.result import in_system_order
from pairedframe.io.detect import run_name
from pairedframe.io.grades import READ_AS_TREC_EVAL
from pairedframe.report.html_page import new_report_id, page
from pairedframe.report.output import require_output_folder
from pairedframe.report.results_table import ResultsTable, results_table

__all__ = ["Report", "report", "DEFAULT_MEASURES", "PRIMARY_JUDGMENTS"]

#: Measures of a report when none are named.
DEFAULT_MEASURES = ("nDCG@10", "AP")
#: The name of ``qrels`` among the judgment sets when ``judgments=`` adds others.
PRIMARY_JUDGMENTS = "qrels"


@dataclass(frozen=True)
class Report:
    """A self-contained HTML report (from :func:`report`).

    Attributes
    ----------
    fragment : str
        The report as one ``<div>`` with its own element id (``pf-report-<12 hex digits>``) and a
        ``<style>`` whose every selector starts with that id: embeddable in any page.  A notebook
        shows the report (``_repr_html_``) under a fresh id at each display, so the report shown
        twice on one page never repeats an element id and each copy's links lead to its own sections.
    title : str
    evaluation : Evaluation
        The evaluation under ``qrels``.
    comparison : polars.DataFrame
        The :func:`pairedframe.compare` result behind the marks, forest plots and verdicts (empty
        for a single system).
    table : ResultsTable
        The results table shown first.
    warnings : tuple of str
        Every warning raised while the report was computed, in words, and one line for the judged
        (system, query) pairs a run has no ranking for (in ``evaluation.excluded``, which no Python warning
        announces): exactly the report's Warnings section, in its order.  Queries a run retrieved that
        the qrels do not judge are left out by trec_eval's rule on every evaluation: the settings state
        how many (``settings["unjudged"]``), not the warnings.
    settings : dict
        What reproduces the report: the options, the inputs, the package versions.
    """

    fragment: str = field(repr=False)
    title: str
    evaluation: Evaluation = field(repr=False)
    comparison: pl.DataFrame = field(repr=False)
    table: ResultsTable = field(repr=False)
    warnings: tuple[str, ...]
    settings: dict[str, Any] = field(repr=False)

    @property
    def html(self) -> str:
        """The whole HTML document: ``<!DOCTYPE html>`` and the fragment as its body."""
        return page(self.fragment, title=self.title)

    def save(self, path: str | Path) -> Path:
        """Write :attr:`html` to ``path`` (UTF-8); ValueError when its folder does not exist."""
        out = require_output_folder(path, "path")
        out.write_text(self.html, encoding="utf-8")
        return out

    def _repr_html_(self) -> str:
        # The root is "pf-report-" and 12 random hex digits: it occurs only as the ids, links and CSS
        # selectors it prefixes (base64 figures hold no "-"), so replacing it renames exactly those.
        root = self.fragment[len('<div id="'):].partition('"')[0]
        return self.fragment.replace(root, new_report_id())


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _check_options(measures: Any, baseline: Any, judgments: Any, max_delta_plots: Any) -> list[str]:
    """The measures as a list, after the checks that need no data."""
    if measures is None:
        measures = list(DEFAULT_MEASURES)
    elif isinstance(measures, str):
        measures = [measures]
    else:
        measures = list(measures)
    if not measures:
        raise ValueError("`measures` is empty: name at least one measure, e.g. ['nDCG@10', 'AP']")
    if baseline is not None and not _is_text(baseline):
        raise TypeError(f"`baseline` must be one system name (a non-empty string), got {baseline!r}")
    if judgments is not None:
        if not isinstance(judgments, Mapping) or not judgments:
            raise TypeError("`judgments` must be a non-empty mapping name -> qrels of the other judgment sets")
        if PRIMARY_JUDGMENTS in map(str, judgments):
            raise ValueError(f"`judgments` names a set {PRIMARY_JUDGMENTS!r}, the name of `qrels` in the "
                             "report: name it otherwise")
    if isinstance(max_delta_plots, bool) or not isinstance(max_delta_plots, int) or max_delta_plots < 0:
        raise ValueError(f"`max_delta_plots` must be an integer >= 0, got {max_delta_plots!r}")
    return measures


def _input_names(runs: Any, qrels: Any) -> dict[str, Any]:
    """The inputs as the settings record them: paths (with their size) or the kind of table."""
    def describe(obj: Any) -> Any:
        if isinstance(obj, (str, Path)):
            p = Path(obj)
            return {"path": str(p), "bytes": p.stat().st_size if p.is_file() else None}
        return type(obj).__name__

    if isinstance(runs, Mapping):
        run_info = {str(k): describe(v) for k, v in runs.items()}
    elif isinstance(runs, (list, tuple)):
        run_info = [describe(r) for r in runs]
    else:
        run_info = describe(runs)
    return {"runs": run_info, "qrels": describe(qrels)}


def _comparison(ev: Any, names: list[str], baseline: str, options: dict[str, Any]) -> pl.DataFrame:
    """compare's result for the measures it can compare (it warns naming those it leaves out), without
    the comparisons that have fewer than 2 common queries (warned; the table shows them unmarked); none
    of them comparable (e.g. only GMAP or NumRet): no comparison, with a warning, and the report keeps
    its results table."""
    if any(is_comparable(m) for m in names):    # one run with too few queries costs its own comparisons only
        return compare_what_can_be(ev, baseline=baseline, **options)
    warnings.warn(f"no comparison in the report: none of {', '.join(names)} is a paired hypothesis (counts and "
                  "geometric means are not); the results table shows them", PartlyEmptyWarning,
                  stacklevel=user_stacklevel())
    return pl.DataFrame()


def _agreements(sets: Any, qrels: Any, judgments: Mapping[str, Any] | None, left_out: dict[str, str],
                measures: list[str], rel_level: int, n_resamples: int, confidence_level: float,
                seed: int, grades: str = "strict") -> list[tuple[str, Any, dict[str, Any] | str]]:
    """Per other judgment set: (name, its label agreement with ``qrels``, {measure: rank agreement}).

    An agreement that cannot be computed (e.g. no (qid, docno) judged in both sets) is the reason in
    words instead, with a PartlyEmptyWarning: one label set that misses the qrels should not cost the
    rest of the report.  A set in ``left_out`` (it judges none of the runs' queries) has the reason
    instead of the rank agreements.  The labels are read with the evaluation's ``grades``.
    """
    if sets is None or not judgments:
        return []
    from pairedframe.comparison.rank_agreement import rank_agreement

    def attempt(what: str, name: str, compute: Any) -> Any:
        try:
            return compute()
        except InsufficientSampleError as exc:
            warnings.warn(f"the {what} of {PRIMARY_JUDGMENTS} and {name!r} cannot be computed, so the report "
                          f"leaves it out: {exc}", PartlyEmptyWarning, stacklevel=user_stacklevel())
            return str(exc)

    out = []
    for name, other in map(lambda kv: (str(kv[0]), kv[1]), judgments.items()):
        labels = attempt("label agreement (kappa)", name, lambda: _labels(qrels, other, name, max(rel_level, 1), grades))
        if name in left_out:                           # nothing evaluated under it: say why instead
            ranks: dict[str, Any] | str = left_out[name]
        else:
            ranks = {m: attempt(f"rank agreement on {m}", name, lambda m=m: rank_agreement(
                         sets, measure=m, judgments=(PRIMARY_JUDGMENTS, name), n_resamples=n_resamples,
                         confidence_level=confidence_level, seed=seed))
                     for m in measures if ranks_runs(m)} if len(sets.systems) > 1 else {}
        out.append((name, labels, ranks))
    return out


def _labels(qrels: Any, other: Any, name: str, binary_at: int, grades: str) -> Any:
    """The label agreement with kappa_binary at the report's relevance level; without it (warning why) when
    that level cannot split the two sets' grades (both graded below it, say), rather than no report.

    The sets are read with the evaluation's ``grades``; its warning for a grade such as 1.5 was given once,
    naming the set, when the evaluation read the same file, so this second reading does not repeat it."""
    from pairedframe.comparison.label_agreement import label_agreement   # lazily, as the other agreements

    def agreement(**binary: int) -> Any:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=f".*{re.escape(READ_AS_TREC_EVAL)}")
            return label_agreement(qrels, other, names=(PRIMARY_JUDGMENTS, name), read_grades=grades, **binary)

    try:
        return agreement(binary_at=binary_at)
    except ValueError as exc:
        if not str(exc).startswith("`binary_at="):
            raise
        warnings.warn(f"the report leaves out the binary kappa of {PRIMARY_JUDGMENTS} and {name!r} at the relevance "
                      f"level: {exc}", PartlyEmptyWarning, stacklevel=user_stacklevel())
        return agreement()


def _evaluation(runs: Any, qrels: Any, measures: list[str], judgments: Mapping[str, Any] | None,
                options: dict[str, Any]) -> tuple[Evaluation, Any, dict[str, Any], dict[str, str]]:
    """(the evaluation under ``qrels``, the judgment sets or None, the inputs as the settings record them,
    {name: why} of the other sets that judge none of the runs' queries).

    Such a set (e.g. labels of another year) is left out with a PartlyEmptyWarning naming it and its
    file, as an agreement that cannot be computed is: it should not cost the rest of the report.
    """
    if isinstance(runs, Evaluation):
        if qrels is not None or judgments is not None:
            raise ValueError("give an Evaluation alone: `qrels` and `judgments` need the runs, not an Evaluation")
        return runs, None, {"runs": "Evaluation", "qrels": None}, {}
    if qrels is None:
        raise ValueError("`qrels` is missing: the judgments to evaluate the runs against")
    inputs = _input_names(runs, qrels)
    if not judgments:
        return in_system_order(evaluate(runs, qrels, measures, **options), _given_order(runs)), None, inputs, {}
    sets, empty = evaluate_judgment_sets_leaving_out(runs, {PRIMARY_JUDGMENTS: qrels, **judgments}, measures,
                                                     required=[PRIMARY_JUDGMENTS], **options)
    inputs["judgments"] = {str(k): _input_names([], v)["qrels"] for k, v in judgments.items()}
    left_out = {}
    for name, why in empty.items():
        source = inputs["judgments"][name]
        where = f" ({source['path']})" if isinstance(source, dict) else ""
        left_out[name] = (f"judgment set {name!r}{where} judges none of the runs' queries, so the report has no "
                          f"results under it. Evaluated against this set as the qrels, pairedframe says: {why}")
        warnings.warn(left_out[name], PartlyEmptyWarning, stacklevel=user_stacklevel())
    return in_system_order(sets.evaluation(PRIMARY_JUDGMENTS), _given_order(runs)), sets, inputs, left_out


def _given_order(runs: Any) -> list[str]:
    """The systems in the order the runs were given, as far as the argument says: a mapping's names, a
    run file's name as :func:`pairedframe.evaluate` gives it, a table's systems as they first occur.
    Systems it does not name (a table file holding several) follow in the evaluation's order."""
    if isinstance(runs, Mapping):
        return [str(name) for name in runs]
    names: list[str] = []
    for run in runs if isinstance(runs, (list, tuple)) else [runs]:
        if isinstance(run, (str, os.PathLike)):
            names.append(run_name(run))
        elif isinstance(run, pl.DataFrame) and "system" in run.columns:
            names += [str(s) for s in run["system"].unique(maintain_order=True).to_list()]
    return names


def _warn_few_queries_of_one_run(ev: Evaluation) -> None:
    """compare's SmallSampleWarning for a report of one run: no comparison warns there, yet the results
    table's intervals rest on as few queries."""
    from pairedframe.errors import SmallSampleWarning
    from pairedframe.stats.power import MIN_QUERIES

    counts = ev.per_query.group_by("system", "measure").agg(pl.col("qid").n_unique().alias("n")).sort("n", "measure")
    small = counts.filter(pl.col("n") < MIN_QUERIES)
    if small.height:
        first = small.row(0, named=True)
        warnings.warn(f"{small.height} mean(s) are over fewer than {MIN_QUERIES} queries, the fewest for trusted "
                      f"statistics (smallest: n = {first['n']}, system={first['system']}, measure={first['measure']}); "
                      "their intervals are unreliable. See pairedframe.stats.power.required_queries for the queries "
                      "needed.", SmallSampleWarning, stacklevel=user_stacklevel())


@renamed_keywords(verdict_on=USE_CORRECTION, **OLD_LEVEL_AND_SEED)
def report(runs: Any, qrels: Any = None, measures: str | Sequence[str] | None = None, *, baseline: str | None = None,
           judgments: Mapping[str, Any] | None = None, n_resamples: int = 10_000, seed: int = 0,
           test: str = "randomization", confidence_level: float = 0.95, correction: str = "holm",
           max_delta_plots: int = 3, title: str | None = None, complete: bool = False, rel_level: int = 1,
           depth: int | None = None, score_precision: str = "float64", judged_only: bool = False,
           grades: str = "strict", command: str | None = None) -> Report:
    """Evaluate runs, compare them with a baseline and write it all into one self-contained HTML report.

    Parameters
    ----------
    runs : paths, mapping name -> path, table, or Evaluation
        As :func:`pairedframe.evaluate`; an :class:`~pairedframe.Evaluation` is used as it is (then
        ``qrels`` and ``judgments`` must be None).  The report lists the systems in the order given (a
        mapping's names, a list's files), not by name.
    qrels : path, table or dict
        The judgments the report is about (named ``"qrels"`` when ``judgments`` adds others).
    measures : str or sequence of str, optional
        Default ``("nDCG@10", "AP")``.  String-valued measures (RelString) are refused.
    baseline : str, optional
        The system every other is compared with (needed with two or more systems).  One run is compared
        with nothing: the report says so, shows its results table, and warns as :func:`pairedframe.compare`
        does when its means are over fewer than 20 queries.
    judgments : mapping name -> qrels, optional
        Other judgment sets (e.g. ``{"llm": "llm_qrels.txt"}``): the report adds how far they agree
        with ``qrels`` on the ranking of the systems (:func:`pairedframe.rank_agreement`) and on the
        labels (:func:`pairedframe.label_agreement`).
    n_resamples, seed, test, confidence_level : optional
        Of :func:`pairedframe.compare` (sign flips, key of the resample streams, ``"randomization"``
        or ``"t"``, level of the intervals; alpha = 1 - level).
    correction : {"holm", "bh", "none"}, default "holm"
        The p-values that decide everything the report marks: the table's marks
        (:func:`pairedframe.results_table`), the verdicts and the forest plots' colours.
    max_delta_plots : int, default 3
        Per measure, the systems that get a bar chart of their per-query deltas: the decided ones
        first, then the largest absolute deltas.  Every system is in the heatmap above them.
    title : str, optional
        Default: "pairedframe report: <n> systems vs <baseline>".
    complete, rel_level, depth, score_precision, judged_only, grades : optional
        Of :func:`pairedframe.evaluate` (trec_eval's ``-c``, ``-l``, ``-M``, float32 scores as trec_eval 9,
        ``-J``, and how grades such as ``1.5`` are read); every judgment set is evaluated with them, and
        ``grades`` also reads the sets for the label agreement.
    command : str, optional
        The command line that made the report, recorded under "Reproduce" (the CLI passes it).

    Returns
    -------
    Report
        ``save(path)`` writes the HTML file; ``fragment`` is the embeddable ``<div>``; a notebook
        shows the report itself.  Sections: warnings (when any), the results table (marks,
        intervals, caption), forest plots, per-query deltas against the baseline (a heatmap of every
        system, bar charts of a few), agreement between judgment sets (with ``judgments``), every
        comparison row with its verdict, and the settings and package versions that reproduce it.

    Raises
    ------
    ValueError
        ``baseline`` missing with several systems or not one of them; ``measures`` empty;
        ``max_delta_plots`` below 0; ``judgments`` naming a set ``"qrels"``; an Evaluation given
        with ``qrels`` or ``judgments``; and what :func:`pairedframe.evaluate` and
        :func:`pairedframe.compare` raise (but not its refusal of a comparison with fewer than 2
        common queries: see Warns).
    TypeError
        ``baseline`` not a string, ``judgments`` not a mapping.
    EmptyResultError
        The runs share no judged query with ``qrels`` (another judgment set that shares none is left
        out instead, see Warns).
    ImportError
        great_tables missing, or matplotlib with ``judgments`` (it draws the agreement scatter; the
        other figures are SVG written directly) (``pip install "pairedframe[report]"``).

    Warns
    -----
    Every warning of the evaluation and the comparison (also listed in the report).
    PartlyEmptyWarning
        An agreement with a judgment set that cannot be computed (e.g. no (qid, docno) judged in
        both), or a judgment set that judges none of the runs' queries (e.g. labels of another
        year; the warning names the set and its file): the agreement section says why instead of
        the report failing.  A comparison with fewer than 2 common queries (a run with too few
        queries): left out of the comparisons and their family, its cells unmarked, the warning and
        the table's caption name it, instead of the report failing.

    Examples
    --------
    >>> rep = pf.report(["input.bm25", "input.reranker"], "qrels.txt", baseline="bm25")  # doctest: +SKIP
    >>> rep.save("report.html")                                                          # doctest: +SKIP
    """
    complete, judged_only = require_bool(complete, "complete"), require_bool(judged_only, "judged_only")
    measures = _check_options(measures, baseline, judgments, max_delta_plots)
    if judgments:                                      # only the agreement scatter draws with matplotlib:
        from pairedframe.report.plots import pyplot    # an ImportError naming the extra before any work

        pyplot()
    caught: list[tuple[Warning, str]] = []
    try:
        with recorded_warnings() as caught:
            ev, sets, inputs, left_out = _evaluation(runs, qrels, measures, judgments,
                                                     dict(complete=complete, rel_level=rel_level, depth=depth,
                                                          score_precision=score_precision, judged_only=judged_only,
                                                          grades=grades))
            systems = ev.systems
            if baseline is None and len(systems) > 1:
                raise ValueError(f"name the `baseline` to compare with: one of {systems}")
            if baseline is not None and baseline not in systems:
                raise ValueError(f"`baseline` {baseline!r} is not one of the systems {systems}")
            names = [m.name for m in ev.measures]
            # one correction decides the marks, verdicts and colours alike
            cmp_options = dict(n_resamples=n_resamples, seed=seed, test=test, confidence_level=confidence_level,
                               correction=correction)
            comparison = _comparison(ev, names, baseline, cmp_options) if len(systems) > 1 else pl.DataFrame()
            if len(systems) == 1:
                _warn_few_queries_of_one_run(ev)
            order = [baseline, *[s for s in systems if s != baseline]] if baseline else systems
            if len(systems) > 1 and not comparison.height and any(map(is_comparable, names)):
                # no comparison had 2 common queries: the table's caption names them (it knows the baseline)
                table = results_table(ev, baseline=baseline, systems=order, ci="range", **cmp_options)
            else:
                table = results_table(ev, comparison if comparison.height else None, systems=order, ci="range",
                                      correction=correction, confidence_level=confidence_level)
            agreement = _agreements(sets, qrels, judgments, left_out, names, rel_level, n_resamples, confidence_level,
                                    seed, grades)
    finally:                                           # the caller sees them too (also when a step fails)
        unique = {str(warning): (warning, origin) for warning, origin in caught}
        for warning, origin in unique.values():
            reissue(warning, origin)
    given_title = title                                # the command that makes the same report states it
    title = title or (f"pairedframe report: {len(systems) - 1} system{'s' if len(systems) != 2 else ''} "
                      f"vs {baseline}" if baseline and len(systems) > 1 else "pairedframe report")
    settings = {"measures": names, "baseline": baseline, "n_resamples": n_resamples, "seed": seed, "test": test,
                "confidence_level": confidence_level, "correction": correction, "max_delta_plots": max_delta_plots,
                "evaluation": ev.settings.as_dict(),  # with grades, how the judgments were read
                "title": given_title, "inputs": inputs, "command": command}
    from pairedframe.report.report_sections import left_out_of_evaluation, render_report, unjudged_note

    settings["unjudged"] = unjudged_note(ev.excluded)
    messages = tuple(unique) + left_out_of_evaluation(ev.excluded)   # the file lists exactly these
    root = new_report_id()
    fragment = render_report(root, title=title, evaluation=ev, comparison=comparison, table=table,
                             agreement=agreement, warnings=messages, settings=settings, baseline=baseline)
    return Report(fragment=fragment, title=title, evaluation=ev, comparison=comparison, table=table,
                  warnings=messages, settings=settings)
