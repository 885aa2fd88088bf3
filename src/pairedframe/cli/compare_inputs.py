"""What ``pairedframe compare`` compares: runs evaluated against qrels, or per-query results files
(``trec_eval -q`` output, ``pairedframe evaluate -q`` tables) read as ``pf.compare`` reads a results path."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import polars as pl

from pairedframe.cli.eval_options import EVALUATION_DEFAULTS

#: The evaluation options as the command line spells them.
_FLAGS = {"complete": "-c", "rel_level": "-l", "depth": "-M", "score_precision": "--score-precision",
          "judged_only": "-J", "grades": "--grades"}
#: {option: (flag, default)}, the defaults taken from EVALUATION_DEFAULTS so the two cannot drift apart (an
#: option added there without a flag here fails at import).
_EVALUATION_FLAGS = {key: (_FLAGS[key], default) for key, default in EVALUATION_DEFAULTS.items()}
#: Kinds of results_file_kind that read_results refuses, naming the file and what to write instead.
_REFUSED = ("a markdown table", "a terminal table", "a comparison's output")


def per_query_results(paths: list[Path], options: dict[str, Any]) -> pl.DataFrame | None:
    """The per-query table of ``paths`` (QRELS and RUN arguments) when every one is a per-query results file
    (:func:`~pairedframe.io.results.results_file_kind`), read with :func:`pairedframe.read_results`; None when
    none is.

    Raises
    ------
    InputFormatError, SchemaError
        An argument is a display table (``evaluate -q -f markdown|table``) or a comparison's output.
    ValueError
        Some arguments are results files and others not (naming each kind), or an evaluation option
        (``options``, the command's -c, -l, -M, -J, --score-precision, --grades) is given with results files:
        their values are already measured.
    """
    from pairedframe.io.results import read_results, results_file_kind

    kinds = {str(p): results_file_kind(p) for p in paths if "=" not in str(p) or Path(p).exists()}
    for p, kind in kinds.items():   # a display table or a comparison: the reader's error says what it is
        if kind in _REFUSED:
            read_results(p)
    found = {p: k for p, k in kinds.items() if k is not None}
    if not found:
        return None
    if len(found) < len(paths):
        others = [str(p) for p in paths if str(p) not in found]
        raise ValueError(f"{_described(found)}, but {', '.join(others)} {'is' if len(others) == 1 else 'are'} not: "
                         "compare takes QRELS and run files (it evaluates the runs), or only per-query results "
                         "files (pairedframe compare A.q B.q -m AP: their values are compared as they are)")
    given = [flag for key, (flag, default) in _EVALUATION_FLAGS.items() if options[key] != default]
    if given:
        raise ValueError(f"{' '.join(given)}: an evaluation option, but {_described(found)}, whose values are "
                         "already measured; give the option when evaluating them, or compare QRELS and run files")
    return read_results(list(found))


def too_few_runs(names: list[str], from_results: bool, alone: Path | None = None, qrels: Path | None = None) -> str:
    """The error for fewer than two systems to compare, saying which were found; ``alone``: the only
    argument, when it is no results file (``ev.md``): its format is unknown, or it is QRELS without runs;
    ``qrels``: the first argument, taken as QRELS when the others are runs."""
    if alone is not None and not from_results:
        from pairedframe.io.results import RESULT_FORMATS

        return (f"{alone}: not a per-query results file (unknown results format; use one of "
                f"{', '.join(sorted(RESULT_FORMATS))}, an Arrow IPC file or trec_eval -q output), and as QRELS it "
                "needs at least two runs: pairedframe compare QRELS RUN_A RUN_B")
    if from_results:
        return (f"compare needs at least two systems (the baseline and one system); the per-query results files "
                f"hold {len(names)}: {', '.join(map(repr, names))} (a file without a system column or `# run:` lines "
                "is one system, named after the file)")
    taken = f" ({qrels} was taken as QRELS and {', '.join(names) or 'nothing'} as the runs)" if qrels else ""
    return (f"compare needs at least two runs (the baseline and one system) besides QRELS{taken}: pairedframe "
            "compare QRELS RUN_A RUN_B, or per-query results files alone: pairedframe compare A.q B.q")


def rows_of_measure(result: pl.DataFrame, name: str) -> pl.DataFrame:
    """The rows of ``result`` that compare measure ``name`` (as -m and --fail-if resolve it, ``AP``) under
    whichever spelling the compared table used (a trec_eval -q file's ``map``)."""
    from pairedframe.measures import parse_measure

    def spells(measure: str) -> bool:
        if measure == name:
            return True
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                parsed = parse_measure(measure)
            except ValueError:
                return False
        return len(parsed) == 1 and parsed[0].name == name
    return result.filter(pl.col("measure").is_in([m for m in result["measure"].unique().to_list() if spells(m)]))


def _described(found: dict[str, str]) -> str:
    """``'a.q is trec_eval -q output'``, or several of them: what each results file is."""
    return "; ".join(f"{path} is {kind}" for path, kind in found.items())
