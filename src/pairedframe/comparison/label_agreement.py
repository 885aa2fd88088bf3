"""Agreement between two sets of relevance labels (e.g. NIST and an LLM) on their common (qid, docno)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from pairedframe.errors import InsufficientSampleError
from pairedframe.io.convert import as_qrels
from pairedframe.stats.kappa import cohen_kappa, confusion_matrix

__all__ = ["LabelAgreement", "label_agreement"]


@dataclass(frozen=True)
class LabelAgreement:
    """Result of :func:`label_agreement`.

    Attributes
    ----------
    kappa, kappa_linear, kappa_quadratic : float
        Cohen's kappa on the grades: unweighted, linear and quadratic weights (category positions in
        sorted order, as scikit-learn); in [-1, 1], NaN when undefined.
    kappa_binary : float or None
        Unweighted kappa of ``grade >= binary_at`` when ``binary_at`` was given, else None.
    exact_agreement : float
        Share of common pairs with the same grade, in [0, 1].
    n_common : int
        (qid, docno) pairs judged in both.
    missing_from_b, missing_from_a : float
        Share of ``a``'s pairs absent from ``b``, and of ``b``'s absent from ``a``, in [0, 1].
    confusion : polars.DataFrame
        ``grade_a, grade_b, count``: one row per pair of grades seen in either set (zeros included),
        over the common pairs.
    grade_counts : polars.DataFrame
        ``grade, a_common, b_common, a_all, b_all``: pairs per grade among the common pairs and in
        each whole set; one row per grade seen in either set, ascending.
    names : tuple of str
    binary_at : int or None
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

    def confusion_matrix(self) -> pl.DataFrame:
        """The confusion table wide: ``grade_a`` then one column per grade of ``b`` (counts)."""
        return (self.confusion.with_columns(pl.col("grade_b").cast(pl.String))
                .pivot(on="grade_b", index="grade_a", values="count", sort_columns=False))


def label_agreement(a: Any, b: Any, *, names: tuple[str, str] = ("a", "b"),
                    binary_at: int | None = None) -> LabelAgreement:
    """Cohen's kappa, confusion matrix and coverage of two qrels on their common (qid, docno).

    Parameters
    ----------
    a, b : path, table or dict
        Qrels (``qid, docno, rel``; see :func:`pairedframe.io.as_qrels`), e.g. NIST and an LLM.
        Negative grades are categories like any other here.
    names : (str, str), default ("a", "b")
        Labels of the two sets, carried into the result.
    binary_at : int, optional
        Also compute kappa on binary labels ``grade >= binary_at`` (e.g. 2 for TREC DL passages).

    Returns
    -------
    LabelAgreement
        ``kappa``, ``kappa_linear``, ``kappa_quadratic``, ``kappa_binary``, ``exact_agreement``,
        ``n_common``, ``missing_from_b``, ``missing_from_a``, ``confusion``, ``grade_counts``.

    Raises
    ------
    InsufficientSampleError
        No (qid, docno) is judged in both.
    InputFormatError, SchemaError, DuplicateError
        Malformed qrels (see the readers).

    References
    ----------
    Cohen (1960, 1968); Faggioli et al. (2023), Perspectives on LLMs for relevance judgment, ICTIR.
    """
    qa, qb = as_qrels(a), as_qrels(b)
    if binary_at is not None and (isinstance(binary_at, bool) or not isinstance(binary_at, int)):
        raise TypeError(f"`binary_at` must be an integer grade, got {binary_at!r}")
    common = qa.join(qb, on=["qid", "docno"], how="inner", suffix="_b")
    if common.height == 0:
        raise InsufficientSampleError(f"no (qid, docno) pair is judged in both {names[0]!r} ({qa.height} pairs) "
                                      f"and {names[1]!r} ({qb.height} pairs)")
    ga, gb = common["rel"].to_numpy(), common["rel_b"].to_numpy()
    grades = np.union1d(np.unique(qa["rel"].to_numpy()), np.unique(qb["rel"].to_numpy()))
    cm = confusion_matrix(ga, gb, grades)
    kappa_binary = None
    if binary_at is not None:
        kappa_binary = cohen_kappa(confusion_matrix(ga >= binary_at, gb >= binary_at, [False, True]))
    confusion = pl.DataFrame({"grade_a": np.repeat(grades, len(grades)), "grade_b": np.tile(grades, len(grades)),
                              "count": cm.ravel()}, schema={"grade_a": pl.Int64, "grade_b": pl.Int64, "count": pl.Int64})

    def per_grade(values: np.ndarray) -> np.ndarray:
        return np.array([(values == g).sum() for g in grades], dtype=np.int64)

    grade_counts = pl.DataFrame({"grade": grades, "a_common": per_grade(ga), "b_common": per_grade(gb),
                                 "a_all": per_grade(qa["rel"].to_numpy()), "b_all": per_grade(qb["rel"].to_numpy())},
                                schema={"grade": pl.Int64, "a_common": pl.Int64, "b_common": pl.Int64,
                                        "a_all": pl.Int64, "b_all": pl.Int64})
    n = common.height
    return LabelAgreement(
        kappa=cohen_kappa(cm), kappa_linear=cohen_kappa(cm, weights="linear"),
        kappa_quadratic=cohen_kappa(cm, weights="quadratic"), kappa_binary=kappa_binary,
        exact_agreement=float(np.trace(cm) / n), n_common=n, missing_from_b=1.0 - n / qa.height,
        missing_from_a=1.0 - n / qb.height, confusion=confusion, grade_counts=grade_counts,
        names=(str(names[0]), str(names[1])), binary_at=binary_at)
