"""The evaluation options of every command that evaluates run files against qrels (evaluate, compare,
table, segments, report), declared once so that their flags and help cannot drift apart between commands.

A command declares each as a parameter with the name and default of :data:`EVALUATION_DEFAULTS`
(typer takes an option's default from the parameter, not from ``typer.Option`` inside ``Annotated``)::

    depth: Depth = None

and passes them on with :func:`evaluation_options`.  ``tests/test_cli_eval_options.py`` checks that
every evaluating command offers all of them, with these names, help texts and defaults.
"""

from __future__ import annotations

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
