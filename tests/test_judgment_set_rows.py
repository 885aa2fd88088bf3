"""A saved judgment-sets table (a per-query table with a ``judgments`` column) given to results_table with
judgments= is checked as compare's input once, whole, and the set filtered out of it: the chosen set was framed
(pairing.as_frame) a second time."""

from __future__ import annotations

import polars as pl
import pytest

import pairedframe as pf
from pairedframe.comparison import judgment_set_rows, pairing, table_data


def _saved_sets() -> pl.DataFrame:
    rows = [dict(system=s, qid=f"q{i}", measure="AP", value=0.1 * i + (0.05 if s == "b" else 0.0) + shift,
                 judgments=name) for name, shift in (("nist", 0.0), ("llm", 0.2)) for s in ("a", "b")
            for i in range(5)]
    return pl.DataFrame(rows)


def test_results_table_frames_a_saved_judgment_sets_table_once(monkeypatch):
    framed: list[int] = []
    real = pairing.as_frame

    def spy(data, *args, **kwargs):
        framed.append(len(data))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(judgment_set_rows, "as_frame", spy)
    monkeypatch.setattr(table_data, "per_query_frame", spy)
    saved = _saved_sets()
    table = pf.results_table(saved, judgments="llm")
    assert framed == [saved.height]
    assert table.table["mean"].to_list() == pytest.approx([0.4, 0.45])    # the llm set's means


def test_judgment_set_names_are_in_order_of_appearance():
    assert judgment_set_rows.judgment_set_names(_saved_sets()) == ["nist", "llm"]
    assert judgment_set_rows.one_set_of_table(_saved_sets(), "nist")["judgments"].unique().to_list() == ["nist"]
