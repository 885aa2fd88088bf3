"""The skew and tie warnings' advice fits the rows they count: a one-pass row that asked for the studentized
interval is told how to resample it (resampling='fixed'), not to ask for it again; a row whose default is Student's
t because it has too few queries is told so; where the rows counted have different intervals, the others are named."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl

import pairedframe as pf
from pairedframe.errors import SkewWarning, TiedQueriesWarning


def _table(deltas: dict[str, np.ndarray]) -> pl.DataFrame:
    parts = []
    for measure, d in deltas.items():
        qids = [f"{measure}-{i:06d}" for i in range(d.size)]
        parts += [pl.DataFrame({"system": "base", "qid": qids, "measure": measure, "value": np.full(d.size, 0.5)}),
                  pl.DataFrame({"system": "X", "qid": qids, "measure": measure, "value": 0.5 + d})]
    return pl.concat(parts)


def _warnings(table: pl.DataFrame, category, **kw) -> list[str]:
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        pf.compare(table, baseline="base", n_resamples=200, seed=0, **kw)
    return [str(w.message) for w in got if issubclass(w.category, category)]


def test_skew_warning_on_a_one_pass_row_points_at_resampling_fixed_not_the_interval_it_asked():
    skewed = np.full(14_000, 0.1)      # skewness about 37, n_eff near n: computed in one pass
    skewed[:10] = 0.4
    text, = _warnings(_table({"m": skewed}), SkewWarning, interval="studentized")
    assert "computed in one pass" in text and "resampling='fixed' with interval='studentized'" in text
    assert "(interval='studentized', the randomization test's default)" not in text
    assert "the interval here is t at 95 %" in text


def test_skew_warning_on_a_row_too_small_for_the_bootstrap_t_says_the_default_is_students_t():
    d = np.array([0.0] * 7 + [0.5, 0.6, 0.9])      # 10 queries, one-sided: Student's t bound
    text, = _warnings(_table({"m": d}), SkewWarning, alternative="greater")
    assert "but with 10 deltas the default is Student's t (the interval here is t at 95 %)" in text
    assert "(interval='studentized', the randomization test's default)" not in text


def test_tie_warning_names_the_other_intervals_of_the_rows_it_counts():
    """Two tied rows: 10 queries (one-sided default: t) and 30 (bootstrap-t); the worst is the 10-query one."""
    few = np.array([0.0] * 6 + [0.1, -0.05, 0.2, 0.1])
    many = np.array([0.0] * 10 + list(np.linspace(-0.1, 0.2, 20)))
    text, = _warnings(_table({"few": few, "many": many}), TiedQueriesWarning, alternative="greater")
    assert "most: 6 of 10" in text
    assert "the interval here is t at 95 % (on the other such rows: studentized)" in text
