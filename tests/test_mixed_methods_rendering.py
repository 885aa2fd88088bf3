"""A comparison whose rows were computed differently (one-pass beside resampled rows) renders each row's
interval and method as columns in text, markdown and LaTeX, and its settings in words: no Python list or
``None`` shown, no phrase said twice."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.report.compare import format_comparison


def _per_query(n_large: int) -> pl.DataFrame:
    rng = np.random.default_rng(2)
    parts = []
    for measure, n in (("nDCG@10", n_large), ("AP", 40)):
        qids = [f"q{i}" for i in range(n)]
        a = rng.uniform(size=n)
        b = np.clip(a + rng.normal(0.003, 0.1, size=n), 0, 1)
        parts += [pl.DataFrame({"system": s, "qid": qids, "measure": measure, "value": v}) for s, v in (("a", a), ("b", b))]
    return pl.concat(parts)


@pytest.fixture(scope="module")
def mixed() -> pl.DataFrame:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pf.compare(_per_query(10_500), baseline="a", n_resamples=200, seed=0)


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex"])
def test_mixed_rows_show_interval_and_method_columns_and_readable_settings(mixed, fmt):
    assert sorted(mixed["method"].to_list()) == ["one-pass", "resampling"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # LaTeX's width warning
        text = format_comparison(mixed, fmt)
    for shown in ("one-pass", "resampling", "studentized"):
        assert shown in text
    assert ("per row: see the CI column and its legend below the table" if fmt == "latex"
            else "per row: see the interval and method columns") in text
    assert "200 on resampled rows (none on the others)" in text
    for wrong in ("['", "None", "one pass: one pass", "one-pass: one pass"):
        assert wrong not in text, wrong


def test_all_one_pass_settings_say_nothing_was_resampled_not_none():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one_pass = pf.compare(_per_query(10_500).filter(pl.col("measure") == "nDCG@10"), baseline="a", seed=0)
    text = format_comparison(one_pass, "latex")
    assert "% n_resamples: none (nothing resampled)" in text
    assert "None" not in text
    assert "method" not in format_comparison(one_pass, "markdown").splitlines()[0]   # one method: no column
