"""Runs evaluated under several judgment sets (e.g. LLM proxy and NIST gold): one result object."""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from pairedframe.errors import EmptyResultError, PairedFrameError, missing_file, recorded_warnings, reissue
from pairedframe.evaluation.each_set import evaluate_each
from pairedframe.evaluation.result import Evaluation, EvaluationSettings
from pairedframe.evaluation.trec_text import measures_argument
from pairedframe.io.path_args import source_label
from pairedframe.measures import Measure

__all__ = ["JudgmentSetsEvaluation", "evaluate_judgment_sets", "evaluate_judgment_sets_leaving_out",
           "split_judgment_sets"]


def split_judgment_sets(per_query: pl.DataFrame, names: Sequence[str]) -> list[pl.DataFrame]:
    """The rows of a per-query table with a ``judgments`` column (as :attr:`JudgmentSetsEvaluation.per_query`)
    under each named judgment set, in the order given, without that column.

    Parameters
    ----------
    per_query : polars.DataFrame
        Has a ``judgments`` column (compared as text, so a table read from a file with numeric set names
        matches their string names).
    names : sequence of str
        The judgment sets; names are not checked (a set not present gives an empty table).

    Returns
    -------
    list of polars.DataFrame
    """
    judgments = pl.col("judgments").cast(pl.String)
    return [per_query.filter(judgments == name).drop("judgments") for name in names]


@dataclass(frozen=True)
class JudgmentSetsEvaluation:
    """Result of :func:`evaluate_judgment_sets`: the same runs under several qrels.

    Attributes
    ----------
    per_query : polars.DataFrame
        ``system, judgments, qid, measure, value``: one row per (system, judgment set, evaluated
        query, measure); ``judgments`` holds the names given.  ``judgments`` is a key column for
        :func:`pairedframe.compare` (each set is compared separately).
    evaluations : dict
        judgment-set name -> its :class:`~pairedframe.evaluation.Evaluation` (per-query values,
        excluded queries, run tags), in the order given.
    measures : tuple of Measure
        The measures, resolved against the relevance level.
    settings : EvaluationSettings
        Shared by every set (tie rule, relevance level, query-set policy, depth, engine).
    """

    per_query: pl.DataFrame
    evaluations: dict[str, Evaluation] = field(repr=False)
    measures: tuple[Measure, ...]
    settings: EvaluationSettings

    @property
    def names(self) -> list[str]:
        """Judgment-set names, in the order given."""
        return list(self.evaluations)

    @property
    def systems(self) -> list[str]:
        """System names in order of appearance."""
        return self.per_query["system"].unique(maintain_order=True).to_list()

    def check_names(self, names: Sequence[str] | str, what: str = "judgments") -> list[str]:
        """The given judgment-set names as a list; ValueError naming those not present.

        Parameters
        ----------
        names : str or sequence of str
        what : str
            The argument's name, for the message.

        Returns
        -------
        list of str

        Raises
        ------
        ValueError
            A name is not one of :attr:`names`.
        """
        names = [names] if isinstance(names, str) else list(names)
        unknown = [n for n in names if n not in self.evaluations]
        if unknown:
            raise ValueError(f"`{what}` names judgment set(s) {unknown} that are not present; the sets are "
                             f"{self.names}")
        return names

    def evaluation(self, name: str) -> Evaluation:
        """The :class:`~pairedframe.evaluation.Evaluation` under judgment set ``name``.

        Raises
        ------
        ValueError
            ``name`` is not one of :attr:`names`.
        """
        return self.evaluations[self.check_names(name, "name")[0]]

    def values(self, system: str, judgments: str, measure: str) -> dict[str, float]:
        """Per-query values ``{qid: value}`` of one system under one judgment set, e.g. the arguments of
        :func:`pairedframe.ppi_compare` (``proxy_a = js.values("bm25", "llm", "nDCG@10")``).

        Raises
        ------
        ValueError
            Unknown judgment set, or no value for that system and measure.
        """
        rows = split_judgment_sets(self.per_query, self.check_names(judgments))[0]
        rows = rows.filter((pl.col("system") == system) & (pl.col("measure") == measure))
        if rows.height == 0:
            raise ValueError(f"no values for system {system!r}, measure {measure!r} under {judgments!r}; systems: "
                             f"{self.systems}, measures: {[m.name for m in self.measures]}")
        return dict(zip(rows["qid"].to_list(), rows["value"].to_list()))

    def summary(self) -> pl.DataFrame:
        """One row per (system, judgment set, measure), as trec_eval's ``all`` rows.

        Returns
        -------
        polars.DataFrame
            ``system, judgments, measure, value, n_queries``: the mean over the evaluated queries
            (the sum for counts), sorted by system, then judgment sets and measures in the given order.
        """
        parts = [ev.summary().with_columns(pl.lit(name).alias("judgments"), pl.lit(i).alias("_j"))
                 for i, (name, ev) in enumerate(self.evaluations.items())]
        out = pl.concat(parts).with_row_index("_r")
        return out.sort("system", "_j", "_r").select("system", "judgments", "measure", "value", "n_queries")


def _about_these_qrels(exc: BaseException | None) -> bool:
    """Whether ``exc`` is an input error about a set's qrels (``argument`` "qrels", as the readers and checks of
    judgments set it, :func:`pairedframe.errors.about_argument`; a run's error, raised while the first set is
    evaluated, is about all of them) that does not name its set yet (``judgment_set``)."""
    return (isinstance(exc, (PairedFrameError, FileNotFoundError)) and not isinstance(exc, EmptyResultError)
            and getattr(exc, "argument", None) == "qrels" and getattr(exc, "judgment_set", None) is None)


class _OneSet:
    """The work of judgment set ``name``: its warnings say which set they are about (at the caller's line:
    a class, as contextlib's frames are not the package's); its EmptyResultError names it when the set
    is ``required``, else the set is left out, saying why (``left_out``)."""

    def __init__(self, name: Any, qrels: Any, required: Sequence[Any], left_out: dict[str, str]) -> None:
        self._name, self._label = name, source_label(name, qrels)
        self._required, self._left_out = required, left_out

    def __enter__(self) -> None:
        self._recording = recorded_warnings()
        self._caught = self._recording.__enter__()

    def __exit__(self, kind: type | None, exc: BaseException | None, tb: Any) -> bool:
        self._recording.__exit__(None, None, None)
        for warning, origin in self._caught:
            reissue(warning, origin, f"judgment set {self._label}: {warning}")
        if _about_these_qrels(exc):      # which set's qrels: several may be tables
            named = copy.copy(exc)
            named.args = (f"judgment set {self._label}: {exc}",)
            named.judgment_set = self._label  # type: ignore[union-attr]
            raise named.with_traceback(tb) from None
        if not isinstance(exc, EmptyResultError):
            return False
        if self._name in self._required:
            raise EmptyResultError(f"judgment set {self._label}: {exc}") from None
        self._left_out[str(self._name)] = str(exc)
        return True


def evaluate_judgment_sets(run: Any, judgments: Mapping[str, Any], measures: Any = "official",
                           **kwargs: Any) -> JudgmentSetsEvaluation:
    """Evaluate runs under several qrels (e.g. proxy and gold) into one result.

    Parameters
    ----------
    run : path, list of paths, table or dict
        As :func:`pairedframe.evaluate`.
    judgments : mapping name -> qrels
        e.g. ``{"llm": "llm_qrels.txt", "nist": "nist_qrels.txt"}`` (paths, tables or dicts; with
        ``engine="spark"`` also names of tables of the Spark session, as :func:`pairedframe.evaluate` reads them).
    measures : str or sequence
        As :func:`pairedframe.evaluate`.
    **kwargs
        Passed to :func:`pairedframe.evaluate` (``complete``, ``rel_level``, ``depth``, ...).

    Returns
    -------
    JudgmentSetsEvaluation
        ``per_query`` (``system, judgments, qid, measure, value``), ``summary()`` (system x
        judgments x measure), ``settings``, ``evaluations`` (name -> Evaluation).  Accepted by
        :func:`pairedframe.rank_agreement`, :func:`pairedframe.ppi_compare_segments`,
        :func:`pairedframe.results_table` and :func:`pairedframe.compare`.

    Raises
    ------
    TypeError
        ``judgments`` is not a non-empty mapping; ``measures`` is None (as :func:`pairedframe.evaluate`).
    ValueError
        Two names that are equal as strings, or a name empty or all blank; ``measures`` is empty.
    InputFormatError, SchemaError, DuplicateError, UnknownMeasureError
        As :func:`pairedframe.evaluate`.
    EmptyResultError
        A judgment set shares no judged query with the runs (the message names the set).

    Warns
    -----
    PartlyEmptyWarning, UserWarning
        As :func:`pairedframe.evaluate`, for each judgment set.

    Notes
    -----
    Run files are read once for all the sets, in bounded memory as by :func:`pairedframe.evaluate`: each
    block of queries is ranked against every set, and the sets' ranks share one chunk's memory. The
    values equal :func:`pairedframe.evaluate` under each set alone.

    Examples
    --------
    >>> js = evaluate_judgment_sets(runs, {"llm": llm, "nist": nist}, "nDCG@10")  # doctest: +SKIP
    >>> js.summary()                                                              # doctest: +SKIP
    """
    every = list(judgments) if isinstance(judgments, Mapping) else []
    return evaluate_judgment_sets_leaving_out(run, judgments, measures, required=every, **kwargs)[0]


def evaluate_judgment_sets_leaving_out(run: Any, judgments: Mapping[str, Any], measures: Any = "official", *,
                                       required: Sequence[Any], **kwargs: Any
                                       ) -> tuple[JudgmentSetsEvaluation, dict[str, str]]:
    """:func:`evaluate_judgment_sets`, leaving out the sets not in ``required`` that share no judged query
    with the runs (e.g. labels of another year), instead of raising: the report evaluates its ``qrels``
    and says why another set has no results.

    Parameters
    ----------
    run, judgments, measures, **kwargs
        As :func:`evaluate_judgment_sets`.
    required : sequence
        The names (keys of ``judgments``; at least one) whose set must share a judged query with the
        runs.

    Returns
    -------
    (JudgmentSetsEvaluation, dict)
        The evaluation under the sets that have results, and ``{name: why}`` for those left out, in
        the order given (``why``: :func:`pairedframe.evaluate`'s EmptyResultError message).

    Raises
    ------
    EmptyResultError
        A required set shares no judged query with the runs (the message names the set).
    TypeError, ValueError
        As :func:`evaluate_judgment_sets`; ``required`` names no set, or one not in ``judgments``.
    """
    if not isinstance(judgments, Mapping) or not judgments:
        raise TypeError("`judgments` must be a non-empty mapping name -> qrels")
    names = [str(n) for n in judgments]
    if len(set(names)) != len(names):
        raise ValueError(f"judgment-set names must be distinct as strings, got {list(judgments)}")
    blank = [n for n in judgments if not str(n).strip()]
    if blank:
        raise ValueError(f"`judgments`: a judgment-set name is empty or all blank ({blank[0]!r} in {list(judgments)}): "
                         "results name each set in their 'judgments' column, and rank_agreement / results_table "
                         "select sets by name")
    if not required or any(n not in judgments for n in required):
        raise ValueError(f"`required` must name at least one of the judgment sets {list(judgments)}, got {required!r}")
    on_spark = getattr(kwargs.get("engine"), "name", kwargs.get("engine")) == "spark"
    for name, qrels in judgments.items():     # before any run is read: which set's file is missing
        # on Spark a name may be a table of the session: the engine's reader tells (naming the set, by _OneSet)
        if isinstance(qrels, (str, os.PathLike)) and not on_spark and not os.path.exists(qrels):
            raise missing_file(os.fspath(qrels), "qrels", argument="judgments",
                               prefix=f"judgment set {source_label(name, qrels)}: ")
    measures = measures_argument(measures)  # refused once, and an iterator read once for every set
    left_out: dict[str, str] = {}
    evaluated = evaluate_each(run, judgments, measures, lambda name: _OneSet(name, judgments[name], required, left_out),
                              **kwargs)  # each run file read once
    evaluations = {str(name): ev for name, ev in evaluated.items()}
    first = next(iter(evaluations.values()))
    per_query = pl.concat([ev.per_query.select("system", pl.lit(name).alias("judgments"), "qid", "measure", "value")
                           for name, ev in evaluations.items()])
    return JudgmentSetsEvaluation(per_query=per_query, evaluations=evaluations, measures=first.measures,
                                  settings=first.settings), left_out
