"""The evaluation options of every command that evaluates run files against qrels (evaluate, compare,
table, segments, report, leaderboard), declared once so that their flags and help cannot drift apart between
commands.

A command takes them as one keyword-only parameter, ``evaluation``, the :func:`pairedframe.evaluate` keywords
they ask for, and :func:`with_evaluation_options` puts the six options in its place on the command line::

    @app.command("table")
    @friendly_errors
    @with_evaluation_options()
    def table_cmd(..., *, evaluation: EvaluationOptions) -> None:
        ev = evaluate(runs, qrels, measures, **evaluation)

``tests/test_cli_eval_options.py`` checks that every evaluating command offers all of them, with these names,
help texts and defaults.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer

from pairedframe.checks import check_rel_level
from pairedframe.cli.common import check_depth

Complete = Annotated[bool, typer.Option(
    "-c", "--complete", help="judged queries missing from a run count as 0 (trec_eval -c)")]
RelLevel = Annotated[int, typer.Option(
    "-l", "--rel-level", help="minimum relevant grade (trec_eval -l)")]
Depth = Annotated[int | None, typer.Option(
    "-M", "--depth", help="keep the top N documents per query (trec_eval -M)")]
ScorePrecision = Annotated[str, typer.Option(
    "--score-precision", help="float64 (trec_eval 10) or float32 (trec_eval 9 / pytrec_eval)")]
JudgedOnly = Annotated[bool, typer.Option(
    "-J", "--judged-only", help="drop unjudged documents from every ranking first (trec_eval -J)")]
Grades = Annotated[str, typer.Option(
    "--grades", help="strict (integer grades only; 1. and 2.0 are integers) or trec_eval (read 1.5 as 1, as "
                     "trec_eval's atol does; warns)")]

#: {parameter name: default} of the evaluation options, as :func:`pairedframe.evaluate` has them.
EVALUATION_DEFAULTS: dict[str, Any] = {"complete": False, "rel_level": 1, "depth": None,
                                       "score_precision": "float64", "judged_only": False, "grades": "strict"}
#: {parameter name: its typer annotation}, in the order the options are listed.
_ANNOTATIONS: dict[str, Any] = {"complete": Complete, "rel_level": RelLevel, "depth": Depth,
                                "score_precision": ScorePrecision, "judged_only": JudgedOnly, "grades": Grades}

#: What a command's ``evaluation`` parameter receives: ``complete=..., rel_level=..., ...``.
EvaluationOptions = dict[str, Any]


def evaluation_options(*, complete: bool, rel_level: int, depth: int | None, score_precision: str,
                       judged_only: bool, grades: str) -> dict[str, Any]:
    """The keyword arguments of :func:`pairedframe.evaluate` the evaluation options ask for.

    Parameters
    ----------
    complete, rel_level, depth, score_precision, judged_only, grades
        The command's ``-c``, ``-l``, ``-M``, ``--score-precision``, ``-J`` and ``--grades``.

    Returns
    -------
    dict
        ``complete=..., rel_level=..., ...``, to pass as ``evaluate(..., **options)``.

    Raises
    ------
    ValueError
        ``-M/--depth`` below 1, in the command line's words, and ``-l`` below 0 (the other values are checked by
        :func:`pairedframe.evaluate`, whose messages the command rewrites to name the flags).
    """
    check_depth(depth)
    check_rel_level(rel_level)   # before a command resolves its measures at that level (compare's -m, --fail-if)
    return dict(complete=complete, rel_level=rel_level, depth=depth, score_precision=score_precision,
                judged_only=judged_only, grades=grades)


def with_evaluation_options(*, after: dict[str, str] | None = None) -> Callable[[Callable], Callable]:
    """Give a typer command the six evaluation options in place of its keyword parameter ``evaluation``.

    Parameters
    ----------
    after : dict, optional
        {option: the command's parameter it follows}, for an option listed elsewhere than with the others
        (``evaluate`` lists ``-J`` and ``--grades`` among trec_eval's options, as its ``--help`` always has).

    Returns
    -------
    callable
        A decorator.  The command it returns offers ``-c``, ``-l``, ``-M``, ``--score-precision``, ``-J`` and
        ``--grades`` (typer reads them from its signature, ``__signature__``, and its annotations) and calls the
        command with ``evaluation=`` :func:`evaluation_options` of their values, checked before the command's
        own checks.
    """
    after = after or {}

    def decorate(command: Callable) -> Callable:
        signature = inspect.signature(command, eval_str=True)   # typer reads Annotated[..., typer.Option] objects
        if "evaluation" not in signature.parameters:
            raise TypeError(f"{command.__name__} has no parameter 'evaluation' for the evaluation options")
        options = {name: inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                           annotation=_ANNOTATIONS[name])
                   for name, default in EVALUATION_DEFAULTS.items()}
        placed: list[inspect.Parameter] = []
        for param in signature.parameters.values():
            if param.name == "evaluation":
                placed += [p for name, p in options.items() if name not in after]
            else:
                placed.append(param)
            placed += [options[name] for name, follows in after.items() if follows == param.name]
        if len(placed) != len(signature.parameters) - 1 + len(options):
            raise TypeError(f"{command.__name__}: after= names a parameter it does not have: {after}")

        offered = signature.replace(parameters=placed)

        @functools.wraps(command)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            bound = offered.bind(*args, **kwargs)   # a direct call (``example`` calls evaluate) gets the defaults
            bound.apply_defaults()
            given = {name: bound.arguments.pop(name) for name in EVALUATION_DEFAULTS}
            return command(**bound.arguments, evaluation=evaluation_options(**given))

        wrapper.__signature__ = offered  # type: ignore[attr-defined]
        hints = {k: v for k, v in command.__annotations__.items() if k != "evaluation"}
        wrapper.__annotations__ = {**hints, **_ANNOTATIONS}
        return wrapper
    return decorate
