"""The result of :func:`pairedframe.evaluate`: per-query values, their ``all`` rows and the settings."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import polars as pl

from pairedframe.checks import require_bool, require_bool_fields
from pairedframe.evaluation.trec_text import format_trec
from pairedframe.measures import Measure
from pairedframe.measures.polars_exprs import quotient

TEXT_SCHEMA = {"system": pl.String, "qid": pl.String, "measure": pl.String, "text": pl.String}
TIE_RULE = "score descending, then docno descending (byte order), as trec_eval; rank column ignored"


@dataclass(frozen=True)
class EvaluationSettings:
    """Everything needed to reproduce an evaluation."""

    rel_level: int
    complete: bool
    depth: int | None
    score_precision: str
    engine: str
    tie_rule: str = TIE_RULE
    judgments_format: str = "qrels"
    zscores: bool = False
    judged_only: bool = False
    grades: str = "strict"  # "trec_eval": fractional grades read as trec_eval reads them (1.5 -> 1)

    def __post_init__(self) -> None:
        require_bool_fields(self)   # a bool field given "false" or 0 names the field

    @property
    def query_set(self) -> str:
        """Which queries are evaluated, in words (trec_eval's default, or every judged one with ``-c``)."""
        if self.complete:
            return "all judged queries; not retrieved = 0 (trec_eval -c)"
        return "queries both retrieved and judged (trec_eval default)"

    def options_text(self) -> list[str]:
        """The options that change values away from trec_eval's defaults, in words (empty at the defaults):
        what a table's caption must say for two tables made with and without them to read apart."""
        return [text for text, given in (
            ("every judged query, unretrieved ones scoring 0 (trec_eval -c)", self.complete),
            (f"the top {self.depth} documents of each ranking (-M {self.depth})", self.depth is not None),
            ("scores rounded to float32 (trec_eval 9)", self.score_precision == "float32"),
            ("judged documents only (-J)", self.judged_only)) if given]

    def as_dict(self) -> dict[str, Any]:
        """The settings as a plain dict (what reports and JSON outputs record)."""
        return {"rel_level": self.rel_level, "complete": self.complete, "depth": self.depth,
                "score_precision": self.score_precision, "engine": self.engine,
                "tie_rule": self.tie_rule, "query_set": self.query_set,
                "judgments_format": self.judgments_format, "zscores": self.zscores, "judged_only": self.judged_only,
                "grades": self.grades, "gain": "the grade unless a measure says dcg='exp-log2' or gains={...}"}


@dataclass(frozen=True)
class Evaluation:
    """Result of :func:`evaluate`.

    Attributes
    ----------
    per_query : polars.DataFrame
        ``system, qid, measure, value``: one row per (system, evaluated query, measure), sorted by
        system, qid and the order of ``measures``.
    measures : tuple of Measure
        The measures, resolved against the relevance level (their ``name`` is the ``measure`` column).
    settings : EvaluationSettings
        Tie rule, score precision, relevance level, query-set policy, depth, engine.
    excluded : polars.DataFrame
        ``system, qid, reason``: queries left out of the evaluation and why.
    run_tags : mapping
        system -> the tag of its run file's last line (trec_eval's ``runid``), when read from files; each
        read when first asked for (a compressed run is read through for it).
    text : polars.DataFrame
        ``system, qid, measure, text``: the values of string-valued measures (trec_eval's
        ``relstring``), which ``per_query`` (numeric) does not hold; one row per (system,
        evaluated query, measure).
    trec_num_rel_all : int or None
        With ``complete=True``, the number of judgments with a grade > 0 in the qrels: what
        trec_eval prints as ``num_rel all`` under ``-c`` whatever ``-l`` says (m_num_rel.c), and
        :meth:`to_trec` too. ``summary()`` keeps the sum of the per-query num_rel (at the relevance
        level used), which differs from it under ``-l 2``.
    trec_runid : bool
        Whether trec_eval, given the measure names of the call, prints the ``runid`` line: for its
        default set (``official``), another nickname (``all_trec``) or ``runid`` named; not for a
        list of measures (``trec_eval -m map -m P.5``). The default of :meth:`to_trec`'s ``runid``.
    system_names : tuple of str
        The runs evaluated, when no table holds them (``measures=["runid"]``: no measure).
    """

    per_query: pl.DataFrame
    measures: tuple[Measure, ...]
    settings: EvaluationSettings
    excluded: pl.DataFrame = field(repr=False)
    run_tags: Mapping[str, str] = field(default_factory=dict, repr=False)
    text: pl.DataFrame = field(default_factory=lambda: pl.DataFrame(schema=TEXT_SCHEMA), repr=False)
    trec_num_rel_all: int | None = field(default=None, repr=False)
    trec_runid: bool = field(default=False, repr=False)
    system_names: tuple[str, ...] = field(default=(), repr=False)

    def __post_init__(self) -> None:
        require_bool_fields(self)   # a bool field given "false" or 0 names the field

    @property
    def systems(self) -> list[str]:
        """System names in the order of ``per_query`` (then of ``text``, for string-valued measures
        alone, or ``system_names``)."""
        names = [*self.per_query["system"].unique(maintain_order=True).to_list(),
                 *self.text["system"].unique(maintain_order=True).to_list(), *self.system_names]
        return list(dict.fromkeys(names))

    def summary(self) -> pl.DataFrame:
        """One row per (system, measure), as trec_eval's ``all`` rows.

        Returns
        -------
        polars.DataFrame
            ``system, measure, value, n_queries``: for each numeric measure, the mean over the
            evaluated queries (the sum for counts such as num_ret, the geometric mean
            ``exp(mean(log(v)))`` for gm_map and gm_bpref), computed as trec_eval computes it: the
            per-query values (or their logs) added one by one in query-id byte order, then divided
            by the number of queries (with ``complete=True``, every judged query). Queries
            without a value (null, e.g. FirstRelRank when nothing relevant is retrieved) are left
            out, and ``n_queries`` counts the queries with a value; value is null when none has
            one. String-valued measures (relstring) have no summary, as in trec_eval.

            For z-scores (:meth:`zscore`), as trec_eval ``-Z``: the mean (the sum for counts) of the
            z-scores, ``exp`` of their mean for gm_map and gm_bpref, and num_q the number of queries.
        """
        return summarise(self.per_query, self.measures, zscored=self.settings.zscores)

    def zscore(self, reference: Any, *, names: Literal["any", "trec_eval"] = "any") -> "Evaluation":
        """The same evaluation with every value a z-score, as trec_eval ``-Z FILE`` prints it.

        Parameters
        ----------
        reference : path or table
            ``qid measure mean stddev`` lines (:func:`pairedframe.io.zscores.read_zscores`) or a
            table with those columns: each query's mean and standard deviation of each measure
            over a reference set of runs; ``measure`` is trec_eval's name (``P_5``, ``map``) or, by
            default, pairedframe's (``P@5``, ``AP``, as :meth:`summary` prints them).
        names : {"any", "trec_eval"}, default "any"
            How the reference's measure names are read: ``"any"`` as a comparison reads them (``AP`` and
            ``map`` are one measure); ``"trec_eval"`` only trec_eval's names, as ``trec_eval -Z`` reads
            its file (the CLI's ``-Z``): a pairedframe spelling matches nothing there.

        Returns
        -------
        Evaluation
            ``per_query`` values (value - mean) / stddev, ``settings.zscores`` True. A query or
            measure missing from the reference, and a value other than the mean when stddev is 0,
            give -1000000 (trec_eval's MISSING_ZSCORE_VALUE); a value equal to its mean with
            stddev 0 gives 0. gm_map and gm_bpref are standardized on the log of the value, as
            trec_eval stores them. Text measures (relstring) are unchanged. See :meth:`summary`.

        Raises
        ------
        InputFormatError, SchemaError, DuplicateError
            A malformed reference (see :func:`pairedframe.io.zscores.read_zscores`).
        ValueError
            The evaluation holds z-scores already; ``names`` is neither "any" nor "trec_eval".

        Warns
        -----
        UserWarning
            The reference matches no (qid, measure) of the evaluation (every value -1000000); with
            ``names="trec_eval"``, a reference naming an evaluated measure pairedframe's way (which name to use).
        """
        from pairedframe.evaluation.zscores import standardize
        from pairedframe.io.zscores import as_zscores

        if self.settings.zscores:
            raise ValueError("this evaluation holds z-scores already; call zscore() on the raw evaluation")
        values = standardize(self.per_query, self.measures, as_zscores(reference), names)
        return replace(self, per_query=values, settings=replace(self.settings, zscores=True))

    def to_trec(self, *, per_query: bool = True, runids: dict[str, str] | None = None,
                runid: bool | None = None, summary: bool = True) -> str:
        """trec_eval's text output (``trec_eval -q`` when ``per_query``; ``-Z`` names and numbers after
        :meth:`zscore`); see :func:`pairedframe.evaluation.trec_text.format_trec`.

        Parameters
        ----------
        per_query : bool, default True
            Print the per-query lines (trec_eval ``-q``) before the ``all`` block.
        runids : dict, optional
            system -> the text of its ``runid`` line; default: the run file's tag, else the system name.
        runid : bool, optional
            Print the ``runid`` line first in the ``all`` block. Default (None): as trec_eval does for
            the measure names given to :func:`pairedframe.evaluate` (:attr:`trec_runid`): yes for the
            default set, ``all_trec`` and the other nicknames, or with ``"runid"`` among the names; no
            for a list of measures (``["map", "P.5"]``, as ``trec_eval -m map -m P.5``).
        summary : bool, default True
            Print the ``all`` block (``runid`` included); False is trec_eval's ``-n``.

        Returns
        -------
        str
            The text, byte for byte what trec_eval prints for the same measure names and options.

        Raises
        ------
        ValueError
            A measure trec_eval cannot print under this evaluation's settings: a ``rel=`` other than
            ``rel_level`` (trec_eval ``-l``), a ``judged_only`` other than the call's (``-J``), or a
            parameter trec_eval has no name for (``nDCG(dcg='exp-log2')@10``, ``RR@10``), a measure
            trec_eval 10 does not have (``ERR@20``, ``Judged@10``, ``FirstRelRank``); or two measures
            sharing a trec_eval name; or neither ``per_query`` nor ``summary`` (nothing to print)."""
        per_query, summary = require_bool(per_query, "per_query"), require_bool(summary, "summary")
        runid = runid if runid is None else require_bool(runid, "runid")
        if not per_query and not summary:
            raise ValueError("to_trec with per_query=False and summary=False prints nothing (trec_eval -n without "
                             "-q): keep one of them")
        return format_trec(self.per_query, self.summary(), self.measures, systems=self.systems,
                           run_tags=self.run_tags, per_query=per_query, runids=runids,
                           runid=self.trec_runid if runid is None else runid, text=self.text,
                           zscores=self.settings.zscores, num_rel_all=self.trec_num_rel_all,
                           rel_level=self.settings.rel_level, judged_only=self.settings.judged_only,
                           summary_lines=summary)


def _c_math(fn) -> Any:
    """``fn`` (math.log, math.exp: C's libm, as trec_eval calls it) on every value of a float column
    (the column holds other measures' values too: out-of-domain values give NaN, never an error)."""
    def safe(v: float | None) -> float | None:
        if v is None:
            return None
        try:
            return fn(v)
        except (ValueError, OverflowError):
            return math.nan
    return lambda s: pl.Series([safe(v) for v in s.to_list()], dtype=pl.Float64)


def summarise(per_query: pl.DataFrame, measures: tuple[Measure, ...] | list[Measure], *,
              zscored: bool = False) -> pl.DataFrame:
    """The ``all`` rows of a per-query table (see :meth:`Evaluation.summary`); ``zscored``: the
    values are z-scores (gm_* take ``exp`` of their mean, num_q counts the queries)."""
    kinds = {m.name: m.spec.aggregate for m in measures if m.spec.aggregate != "none"}
    if zscored:
        kinds = {m.name: "count" if m.family == "NumQ" else "zgmean" if m.spec.aggregate == "gmean"
                 else m.spec.aggregate for m in measures if m.spec.aggregate != "none"}
    order = {name: i for i, name in enumerate(kinds)}
    kind = pl.col("measure").replace_strict(kinds, return_dtype=pl.String)
    rows = (per_query.filter(pl.col("measure").is_in(list(kinds)))
            .with_columns(kind.alias("_kind"))
            .with_columns(pl.when(pl.col("_kind") == "gmean")
                          .then(pl.col("value").map_batches(_c_math(math.log), return_dtype=pl.Float64))
                          .otherwise(pl.col("value")).alias("_x")))
    # trec_eval adds the values one by one in its query order (qid byte order): a sequential
    # cumulative sum, not a pairwise one, so that the last bit (and a 4-decimal rounding) agrees.
    sums = (rows.sort("system", "measure", "qid").filter(pl.col("_x").is_not_null())
            .group_by("system", "measure", maintain_order=True)
            .agg(pl.col("_x").cum_sum().last().alias("_total"), pl.len().alias("n_queries"),
                 pl.col("_kind").first()))
    everyone = rows.select("system", "measure").unique(maintain_order=True)
    table = everyone.join(sums, on=["system", "measure"], how="left").with_columns(pl.col("n_queries").fill_null(0))
    mean = quotient(pl.col("_total"), pl.col("n_queries"))  # divided as C does, however polars stores n
    value = (pl.when(pl.col("_kind") == "sum").then(pl.col("_total"))
             .when(pl.col("_kind").is_in(["gmean", "zgmean"])).then(mean.map_batches(_c_math(math.exp),
                                                                                    return_dtype=pl.Float64))
             .when(pl.col("_kind") == "count").then(pl.col("n_queries").cast(pl.Float64))
             .otherwise(mean))
    systems = {s: i for i, s in enumerate(per_query["system"].unique(maintain_order=True).to_list())}
    return (table.with_columns(value.alias("value"),
                               pl.col("system").replace_strict(systems, return_dtype=pl.Int64).alias("_s"),
                               pl.col("measure").replace_strict(order, return_dtype=pl.Int64).alias("_order"))
            .sort("_s", "_order").select("system", "measure", "value", pl.col("n_queries").cast(pl.Int64)))


def in_system_order(ev: Evaluation, names: Sequence[str]) -> Evaluation:
    """``ev`` with its systems in the order of ``names`` (the library sorts them by name), those not named
    after them in their order: every command shows runs in the order they were given."""
    rank = {name: i for i, name in enumerate(dict.fromkeys(names))}

    def ordered(frame: pl.DataFrame) -> pl.DataFrame:
        key = pl.col("system").replace_strict(rank, default=len(rank), return_dtype=pl.Int64)
        return frame.sort(key, maintain_order=True)
    return replace(ev, per_query=ordered(ev.per_query), text=ordered(ev.text),
                   system_names=tuple(sorted(ev.system_names, key=lambda s: rank.get(s, len(rank)))))
