"""Agreement between two sets of relevance labels (e.g. NIST and an LLM) on their common (qid, docno)."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from pairedframe.comparison.options import check_level
from pairedframe.errors import USE_CONFIDENCE_LEVEL, renamed_attribute, renamed_keywords
from pairedframe.checks import sample
from pairedframe.errors import (InputFormatError, InsufficientSampleError, SchemaError, SmallSampleWarning, naming_input,
                               user_stacklevel)
from pairedframe.io.convert import as_qrels
from pairedframe.io.grades import Grades
from pairedframe.io.path_args import source_label
from pairedframe.stats.results import ConfidenceInterval
from pairedframe.stats.kappa import cohen_kappa_many, confusion_matrix
from pairedframe.stats.jackknife import NO_SPREAD, jackknife_t_interval

__all__ = ["LabelAgreement", "label_agreement", "KAPPA_INTERVAL"]

KAPPA_INTERVAL = ("jackknife over queries: kappa +- t(n_queries - 1) x the delete-one-query jackknife "
                  "standard error (Fleiss & Davies 1982), clipped to [-1, 1]")
_KAPPAS = (("kappa", None), ("kappa_linear", "linear"), ("kappa_quadratic", "quadratic"))


@dataclass(frozen=True)
class LabelAgreement:
    """Result of :func:`label_agreement`.

    Attributes
    ----------
    kappa, kappa_linear, kappa_quadratic : float
        Cohen's kappa on the grades: unweighted, and with linear / quadratic disagreement weights
        by grade *value* (``|g - h|``, ``(g - h)^2``); in [-1, 1], NaN when undefined (both sets
        gave every common pair one and the same grade).
    kappa_binary : float or None
        Unweighted kappa of ``grade >= binary_at`` when ``binary_at`` was given, else None.
    confidence_intervals : dict of str to ConfidenceInterval
        ``"kappa"``, ``"kappa_linear"``, ``"kappa_quadratic"`` (and ``"kappa_binary"``): the
        interval of each (:data:`KAPPA_INTERVAL`); NaN ends with fewer than 2 queries.
    exact_agreement : float
        Share of common pairs with the same grade, in [0, 1].
    n_common : int
        (qid, docno) pairs judged in both.
    n_queries : int
        Queries with at least one common pair (the units of the interval).
    missing_from_b, missing_from_a : float
        Share of ``a``'s pairs absent from ``b``, and of ``b``'s absent from ``a``, in [0, 1].
    confusion : polars.DataFrame
        ``grade_a, grade_b, count``: one row per pair of grades of ``grades`` (zeros included), over
        the common pairs.
    grade_counts : polars.DataFrame
        ``grade, a_common, b_common, a_all, b_all``: pairs per grade among the common pairs and in
        each whole set; one row per grade of ``grades`` or seen in either set, ascending.
    grades : tuple of int
        The grade set the kappas and ``confusion`` use.
    names : tuple of str
    binary_at : int or None
    settings : dict
        ``confidence_level, interval``.
    """

    kappa: float
    kappa_linear: float
    kappa_quadratic: float
    kappa_binary: float | None
    exact_agreement: float
    n_common: int
    missing_from_b: float
    missing_from_a: float
    confusion: pl.DataFrame = field(repr=False)
    grade_counts: pl.DataFrame = field(repr=False)
    names: tuple[str, str] = ("a", "b")
    binary_at: int | None = None
    confidence_intervals: dict[str, ConfidenceInterval] = field(default_factory=dict, repr=False)
    n_queries: int = 0
    grades: tuple[int, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict, repr=False)

    def confusion_matrix(self) -> pl.DataFrame:
        """The confusion table wide: ``grade_a`` then one column per grade of ``b`` (counts)."""
        return (self.confusion.with_columns(pl.col("grade_b").cast(pl.String))
                .pivot(on="grade_b", index="grade_a", values="count", sort_columns=False))

    def to_frame(self) -> pl.DataFrame:
        """Renamed: an answer's rows are ``.table`` (one rule for every result object)."""
        raise AttributeError(renamed_attribute("LabelAgreement.to_frame()", "LabelAgreement.table"))

    @property
    def table(self) -> pl.DataFrame:
        """``coefficient, statistic, ci_low, ci_high``: one row per kappa (binary only when computed)."""
        rows = [(name, getattr(self, name), ci.low, ci.high) for name, ci in self.confidence_intervals.items()]
        return pl.DataFrame(rows, schema={"coefficient": pl.String, "statistic": pl.Float64, "ci_low": pl.Float64,
                                          "ci_high": pl.Float64}, orient="row")


def _grade_set(grades: Any, ga: np.ndarray, gb: np.ndarray, names: tuple[str, str]) -> np.ndarray:
    """The sorted grade set: given, or every integer from min(0, lowest) to the highest common grade."""
    if grades is None:
        low = min(0, int(min(ga.min(), gb.min())))
        return np.arange(low, int(max(ga.max(), gb.max())) + 1, dtype=np.int64)
    if isinstance(grades, (str, bytes)) or not hasattr(grades, "__iter__"):
        raise TypeError(f"`grades` must be a sequence of integer grades, got {grades!r}")
    values = list(grades)
    if not values or any(isinstance(g, bool) or not isinstance(g, (int, np.integer)) for g in values):
        raise TypeError(f"`grades` must be a non-empty sequence of integer grades, got {grades!r}")
    if len(set(values)) != len(values):
        raise ValueError(f"`grades` must be distinct, got {values}")
    out = np.array(sorted(int(g) for g in values), dtype=np.int64)
    for name, g in zip(names, (ga, gb)):
        outside = np.setdiff1d(np.unique(g), out)
        if outside.size:
            raise ValueError(f"{name} grades a common pair {int(outside[0])}, which is not in `grades` "
                             f"{out.tolist()}")
    return out


def _check_binary_at(binary_at: int | None, scale: np.ndarray, given: bool) -> None:
    """Refuse a ``binary_at`` that cannot split ``scale`` (``grades=``, else every grade of either set) in
    two: ``grade >= binary_at`` would put every pair on one side, and kappa_binary would be 0 / 0."""
    if binary_at is None or scale[0] < binary_at <= scale[-1]:
        return
    where = f"above the highest grade {scale[-1]}" if binary_at > scale[-1] else f"at or below the lowest grade {scale[0]}"
    of = "`grades`" if given else "the grades of the two sets"
    raise ValueError(f"`binary_at={binary_at}` is {where} of {of} {scale.tolist()}: grade >= {binary_at} puts every "
                     f"judgment on one side; give a grade above {scale[0]} and at most {scale[-1]} (e.g. 2 for TREC DL "
                     "passages graded 0-3)")


def per_query_confusions(qids: np.ndarray, ia: np.ndarray, ib: np.ndarray, c: int) -> np.ndarray:
    """(n_queries, c, c) confusion counts, one matrix per query (queries in sorted order).

    ``qids``: each pair's query; ``ia``, ``ib``: each pair's category index (0 .. c - 1) under a and b.
    """
    _, iq = np.unique(qids, return_inverse=True)
    nq = int(iq.max()) + 1
    return np.bincount((iq * c + ia) * c + ib, minlength=nq * c * c).reshape(nq, c, c).astype(np.float64)


def kappa_intervals(per_query: np.ndarray, values: np.ndarray, binary: np.ndarray | None,
                           confidence_level: float) -> dict[str, tuple[float, ConfidenceInterval]]:
    """Each kappa and its jackknife interval over queries (the kernel of :func:`label_agreement`, also run
    by ``benchmarks/calibration/agreement.py``).

    ``per_query``: (n_queries, c, c) confusions (:func:`per_query_confusions`); ``values``: the c grade
    values; ``binary``: the per-query 2 x 2 tables of ``grade >= binary_at`` or None.  Returns
    ``{"kappa" | "kappa_linear" | "kappa_quadratic" | "kappa_binary": (statistic, interval)}``.
    """
    tables = [(name, per_query, w, values) for name, w in _KAPPAS]
    if binary is not None:
        tables.append(("kappa_binary", binary, None, None))
    out = {}
    for name, pq, weights, vals in tables:
        total = pq.sum(axis=0)
        statistic = float(cohen_kappa_many(total[None], weights=weights, values=vals)[0])
        leave_one_out = cohen_kappa_many(total[None] - pq, weights=weights, values=vals)
        ci = jackknife_t_interval(statistic, leave_one_out, confidence_level=confidence_level, bounds=(-1.0, 1.0))
        out[name] = (statistic, ci)
    return out


def _read_labels(qrels: Any, read_grades: Grades) -> pl.DataFrame:
    """``as_qrels``; its hint for a fractional grade names ``read_grades=``, since ``grades=`` here is the
    grade set of the weighted kappas."""
    try:
        with warnings.catch_warnings(record=True) as caught:   # its "read as" warning names the keyword too
            warnings.simplefilter("always")
            labels = as_qrels(qrels, grades=read_grades)
    except (InputFormatError, SchemaError) as exc:
        if "grades='trec_eval'" not in str(exc):
            raise
        named = copy.copy(exc)
        named.args = (str(exc).replace("grades='trec_eval'", "read_grades='trec_eval'"),)
        raise named.with_traceback(exc.__traceback__) from None
    for said in caught:
        warnings.warn(str(said.message).replace("grades='trec_eval'", "read_grades='trec_eval'"), said.category,
                      stacklevel=user_stacklevel())
    return labels


def _one_label_sets(ga: np.ndarray, gb: np.ndarray, binary_at: int | None, said: tuple[str, str]) -> dict[str, str]:
    """kappa name -> the set (described) that gives every common pair one label while the other set does not:
    its agreement is exactly chance, so that kappa is 0 by construction, without any one query too."""
    out = {}
    for name, (xa, xb) in {"kappa": (ga, gb),
                           **({} if binary_at is None else {"kappa_binary": (ga >= binary_at, gb >= binary_at)})}.items():
        one = [who for who, x in zip(said, (xa, xb)) if np.unique(x).size == 1]
        if len(one) == 1:
            for kappa in (("kappa", "kappa_linear", "kappa_quadratic") if name == "kappa" else (name,)):
                out[kappa] = one[0]
    return out


def _warn_one_label(one_label: dict[str, str], names: list[str]) -> None:
    """Say that these kappas' NaN intervals come from a set with one label, not from too few queries."""
    for who in dict.fromkeys(one_label[n] for n in names):
        which = [n for n in names if one_label[n] == who]
        warnings.warn(f"{', '.join(which)}: {who} gives every common pair the same label, so its agreement with "
                      "the other set is exactly chance and the kappa is 0 by construction (without any one query "
                      "too); more queries would not change that, so the interval is NaN, not a point",
                      SmallSampleWarning, stacklevel=user_stacklevel())


def _warn_undefined_intervals(per_query: np.ndarray, values: np.ndarray, binary: np.ndarray | None,
                              undefined: list[str], names: tuple[str, str]) -> None:
    """Say why each finite kappa got a NaN interval: a leave-one-query-out kappa is undefined (the rest have one
    grade in both sets), or every leave-one-query-out kappa is the same (the jackknife sees no spread)."""
    n = per_query.shape[0]
    between = f"label agreement between {names[0]!r} and {names[1]!r}"  # a report computes one per judgment set
    weights = dict(_KAPPAS)
    nan_loo, flat = [], []
    for name in undefined:
        pq = binary if name == "kappa_binary" else per_query
        loo = cohen_kappa_many(pq.sum(axis=0)[None] - pq, weights=weights.get(name),
                               values=None if name == "kappa_binary" else values)
        (flat if np.isfinite(loo).all() else nan_loo).append(name)
    if nan_loo:
        warnings.warn(f"{between}: {', '.join(nan_loo)}: without one of the {n} queries the kappa is undefined (the rest have "
                      "one grade in both sets), so its interval is NaN", SmallSampleWarning, stacklevel=user_stacklevel())
    if flat:
        warnings.warn(f"{between}: {', '.join(flat)}: the kappa is the same without any one of the {n} queries (common "
                      f"with few queries or few judgments each), so {NO_SPREAD}", SmallSampleWarning, stacklevel=user_stacklevel())


@renamed_keywords(alpha=USE_CONFIDENCE_LEVEL)
def label_agreement(a: Any, b: Any, *, names: tuple[str, str] = ("a", "b"), binary_at: int | None = None,
                    grades: Any = None, confidence_level: float = 0.95,
                    read_grades: Grades = "strict") -> LabelAgreement:
    """Cohen's kappa with intervals, confusion matrix and coverage of two qrels on their common (qid, docno).

    Parameters
    ----------
    a, b : path, table or dict
        Qrels (``qid, docno, rel``; see :func:`pairedframe.io.as_qrels`), e.g. NIST and an LLM.
    names : (str, str), default ("a", "b")
        Labels of the two sets, carried into the result and messages.
    binary_at : int, optional
        Also compute kappa on binary labels ``grade >= binary_at`` (e.g. 2 for TREC DL passages).  It
        must split the scale (``grades``, else every grade of either set) in two: above its lowest
        grade and at most its highest.
    grades : sequence of int, optional
        The grade set (the categories): every grade of a common pair must be in it.  Default: every
        integer from ``min(0, lowest grade)`` to the highest grade of the common pairs, so 0-3 for
        TREC DL.  It sets the rows and columns of ``confusion``; the kappas do not depend on it (a
        grade nobody used adds an empty row and column, and weights use grade values).
    confidence_level : float in (0, 1), default 0.95
    read_grades : {"strict", "trec_eval"}, default "strict"
        How a file's or table's grades such as ``1.5`` are read: refused (``"strict"``), or as trec_eval
        reads them (``"trec_eval"``: the integer prefix, 1.5 -> 1, with one warning per set naming the
        first such grade), as ``grades=`` of :func:`pairedframe.read_qrels` and
        :func:`pairedframe.evaluate` (here ``grades`` is the grade set).

    Returns
    -------
    LabelAgreement
        ``kappa``, ``kappa_linear``, ``kappa_quadratic``, ``kappa_binary`` with
        ``confidence_intervals``, ``exact_agreement``, ``n_common``, ``n_queries``,
        ``missing_from_b``, ``missing_from_a``, ``confusion``, ``grade_counts``, ``grades``;
        ``table`` has one row per kappa.

    Raises
    ------
    InsufficientSampleError
        No (qid, docno) is judged in both.
    ValueError, TypeError
        Bad ``grades`` (not integers, repeated, or missing a grade of a common pair), ``binary_at`` (not
        an integer, or not splitting the scale in two: above its highest grade or at / below its lowest),
        ``confidence_level``, ``read_grades``, or ``names`` other than two labels.
    InputFormatError, SchemaError, DuplicateError
        Malformed qrels (see the readers).

    Warns
    -----
    UserWarning
        Grades read as trec_eval reads them (``read_grades="trec_eval"``): once per set, naming the first.
    SmallSampleWarning
        The common pairs come from fewer than 2 queries, leaving one query out leaves a single grade
        in both sets (kappa undefined), or the kappa is the same without any one query (a jackknife
        standard error of 0, as with two queries that agree alike: no spread seen, which is no
        certainty): those intervals are NaN, never a point.  When one set gives every common pair the
        same label (the other does not), the warning says so instead: that kappa is 0 by construction.

    Notes
    -----
    Only the common pairs enter the kappas: a judgment in one set alone changes ``missing_from_*``
    and ``grade_counts``, never a kappa.  Weighted kappa weighs a disagreement by the grades'
    values, ``|g - h|`` (linear) or ``(g - h)^2`` (quadratic), as scikit-learn's
    ``cohen_kappa_score(a, b, labels=grades, weights=...)`` with the default grade set and
    statsmodels' ``cohens_kappa(table, weights=grades, wt=...)``.  Negative grades are values
    too: -1 and 2 differ by 3.  Pairs of one query share its documents and the judge's reading of
    it, so they are not independent: the interval resamples *queries* (the delete-one-query
    jackknife), not pairs.  Coverage of the 43-query kappa on DL-2019 (NIST vs 7 LLM label sets, 20
    and 30 queries drawn from the 43, 4 kappas: 56 cells; ``benchmarks/calibration --section
    agreement``, docs/guide/agreement.md): median 0.948, range 0.874-0.976 (lowest: quadratic kappa);
    the percentile bootstrap over queries 0.926 (0.854-0.950), the i.i.d. Fleiss-Cohen-Everitt
    interval 0.335 (0.236-0.484).

    References
    ----------
    Cohen (1960, 1968); Fleiss & Davies (1982), Jackknifing functions of multinomial frequencies, with
    an application to a measure of concordance, Am. J. Epidemiol. 115(6); Faggioli et al. (2023),
    Perspectives on LLMs for relevance judgment, ICTIR.
    """
    if binary_at is not None and (isinstance(binary_at, bool) or not isinstance(binary_at, (int, np.integer))):
        raise TypeError(f"`binary_at` must be an integer grade, got {binary_at!r}")
    confidence_level = check_level(confidence_level)
    if not isinstance(read_grades, str) or read_grades not in ("strict", "trec_eval"):
        raise ValueError(f"`read_grades` must be 'strict' (integers only) or 'trec_eval' (C's atol: 1.5 -> 1), "
                         f"got {read_grades!r}")
    if isinstance(names, (str, bytes)) or not isinstance(names, Sequence) or len(names) != 2:
        raise ValueError(f"`names` must be two labels, one for a and one for b, e.g. ('nist', 'llm'); got {names!r}")
    if str(names[0]) == str(names[1]):
        raise ValueError(f"`names` must be two different labels (the table's columns and notes tell the sets apart "
                         f"by them); got {names!r}")
    said = (source_label(names[0], a), source_label(names[1], b))
    with naming_input(said[0]):
        qa = _read_labels(a, read_grades)
    with naming_input(said[1]):
        qb = _read_labels(b, read_grades)
    common = qa.join(qb, on=["qid", "docno"], how="inner", suffix="_b")
    if common.height == 0:
        raise InsufficientSampleError(f"no (qid, docno) pair is judged in both {said[0]} ({qa.height} pairs) "
                                      f"and {said[1]} ({qb.height} pairs)")
    ga, gb = common["rel"].to_numpy(), common["rel_b"].to_numpy()
    grade_set = _grade_set(grades, ga, gb, said)
    _check_binary_at(binary_at, grade_set if grades is not None else
                     np.union1d(grade_set, np.union1d(qa["rel"].to_numpy(), qb["rel"].to_numpy())), grades is not None)
    cm = confusion_matrix(ga, gb, grade_set)
    c = grade_set.size
    qids = common["qid"].to_numpy()
    used = np.union1d(ga, gb)                         # unused grades change no kappa: leave them out of the stacks
    per_query = per_query_confusions(qids, np.searchsorted(used, ga), np.searchsorted(used, gb), used.size)
    binary = None if binary_at is None else per_query_confusions(
        qids, (ga >= binary_at).astype(np.int64), (gb >= binary_at).astype(np.int64), 2)
    n_queries = per_query.shape[0]
    if n_queries < 2:
        warnings.warn(f"the {common.height} common pairs all belong to query {sample(np.unique(qids).tolist(), 1)}: "
                      "an interval over queries needs at least 2, so the intervals are NaN",
                      SmallSampleWarning, stacklevel=user_stacklevel())
    results = kappa_intervals(per_query, used.astype(np.float64), binary, confidence_level)
    nan_kappas = [name for name, (stat, _) in results.items() if not np.isfinite(stat)]
    if nan_kappas:
        why = (f"`binary_at={binary_at}` puts every common pair on one side in both sets"
               if nan_kappas == ["kappa_binary"] else "every common pair has one label in both sets")
        warnings.warn(f"{', '.join(nan_kappas)} undefined (NaN): {why}, so chance agreement is 1 and kappa "
                      "0 / 0", SmallSampleWarning, stacklevel=user_stacklevel())
    undefined = [name for name, (stat, ci) in results.items() if np.isfinite(stat) and not np.isfinite(ci.low)]
    one_label = _one_label_sets(ga, gb, binary_at, said)
    _warn_one_label(one_label, [name for name in undefined if name in one_label])
    undefined = [name for name in undefined if name not in one_label]
    if n_queries >= 2 and undefined:
        _warn_undefined_intervals(per_query, used.astype(np.float64), binary, undefined,
                                  (str(names[0]), str(names[1])))
    confusion = pl.DataFrame({"grade_a": np.repeat(grade_set, c), "grade_b": np.tile(grade_set, c),
                              "count": cm.ravel()}, schema={"grade_a": pl.Int64, "grade_b": pl.Int64, "count": pl.Int64})
    listed = np.union1d(grade_set, np.union1d(qa["rel"].to_numpy(), qb["rel"].to_numpy()))

    def per_grade(values: np.ndarray) -> np.ndarray:
        return np.array([(values == g).sum() for g in listed], dtype=np.int64)

    grade_counts = pl.DataFrame({"grade": listed, "a_common": per_grade(ga), "b_common": per_grade(gb),
                                 "a_all": per_grade(qa["rel"].to_numpy()), "b_all": per_grade(qb["rel"].to_numpy())},
                                schema={"grade": pl.Int64, "a_common": pl.Int64, "b_common": pl.Int64,
                                        "a_all": pl.Int64, "b_all": pl.Int64})
    n = common.height
    return LabelAgreement(
        kappa=results["kappa"][0], kappa_linear=results["kappa_linear"][0],
        kappa_quadratic=results["kappa_quadratic"][0],
        kappa_binary=None if binary is None else results["kappa_binary"][0],
        exact_agreement=float(np.trace(cm) / n), n_common=n, missing_from_b=1.0 - n / qa.height,
        missing_from_a=1.0 - n / qb.height, confusion=confusion, grade_counts=grade_counts,
        names=(str(names[0]), str(names[1])), binary_at=binary_at,
        confidence_intervals={name: ci for name, (_, ci) in results.items()}, n_queries=n_queries,
        grades=tuple(int(g) for g in grade_set),
        settings={"confidence_level": float(confidence_level), "interval": KAPPA_INTERVAL})
