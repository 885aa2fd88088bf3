"""The CLI's ``--format table`` above :data:`~pairedframe.cli.text_table.RICH_ROWS` rows: the body is written
line by line, and the text is the very text rich prints for the whole table."""

from __future__ import annotations

import io
import math

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.cli import text_table
from pairedframe.cli.text_table import write_box_table


def _rich_tables(monkeypatch) -> list[int]:
    """The rows of each rich table made from now on (1: the stand-in row of a body written line by line)."""
    made: list[int] = []
    build = text_table.rich_table

    def counting(names, right, rows, title):
        rows = list(rows)
        made.append(len(rows))
        return build(names, right, rows, title)
    monkeypatch.setattr(text_table, "rich_table", counting)
    return made


def _both(monkeypatch, frame: pl.DataFrame, **kwargs) -> tuple[str, str, list[int]]:
    """(the text written line by line, rich's text, the rows each rich table got)."""
    made = _rich_tables(monkeypatch)
    fast, rich = io.StringIO(), io.StringIO()
    write_box_table(frame, fast, rich_rows=0, **kwargs)
    write_box_table(frame, rich, rich_rows=10**9, **kwargs)
    return fast.getvalue(), rich.getvalue(), made


SHAPES = {
    "numbers and names": (pl.DataFrame({
        "system": ["bm25", "ünïcödé", "系统", "e\u0301", "🙂run", None, "a-very-long-system-name-" * 3],
        "qid": ["1", "all", "007", "x y", "", "42", "9"],
        "n": [1, -2, None, 400, 5, -60000, 7],
        "value": [0.5, -0.25, None, math.inf, -math.inf, math.nan, 1234.56789],
        "tiny": [1e-6, 0.0, -3e-7, 2.0, None, math.inf, 0.5],
        "flag": [True, False, None, True, False, True, False],
    }), {"title": "per-query values (negative, None, ∞, ünïcödé)"}),
    "format by measure, counts integers": (pl.DataFrame({
        "system": ["r1", "r2"] * 150,
        "measure": ["AP", "num_ret", "P@10"] * 100,
        "value": [(i % 97) / 97 - 0.3 if i % 3 != 1 else float(i) for i in range(300)],
    }), {"format_by": "measure", "integers": ["num_ret"]}),
    "title wider than the table, wrapped by rich": (pl.DataFrame({"a": [1.0, -2.0], "b": ["x", "y"]}),
                                                   {"title": "a title much wider than this small table " * 3}),
    "one column, no title": (pl.DataFrame({"only": ["", "z"]}), {}),
    "a header wider than its cells": (pl.DataFrame({"a rather long column name": [1], "ü": [None]},
                                                   schema={"a rather long column name": pl.Int64, "ü": pl.String}),
                                      {"title": "t"}),
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_large_table_text_against_rich(monkeypatch, shape):
    frame, kwargs = SHAPES[shape]
    fast, rich, made = _both(monkeypatch, frame, **kwargs)
    assert made[0] == 1, "rich rendered the whole table: the body was not written line by line"
    assert made[1] == frame.height
    assert fast == rich


@pytest.mark.parametrize("cells", [["a\nb", "c"], ["tab\there", "c"], ["系统" * 40, "c"]])
def test_large_table_left_to_rich_when_a_row_is_not_one_plain_line_against_rich(monkeypatch, cells):
    """A line break or control character in a cell, or a table rich squeezes (double-width text that
    the console was not widened for): rich prints the table, the text is rich's."""
    fast, rich, made = _both(monkeypatch, pl.DataFrame({"system": cells, "value": [1.0, 2.0]}), title="t")
    assert fast == rich
    assert made[-2] == 2


def test_large_table_on_a_terminal_keeps_rich_styles_against_rich(monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    frame = pl.DataFrame({"system": ["a", "bb", "ccc"], "value": [0.1, -0.2, None]})
    fast, rich, made = _both(monkeypatch, frame, title="styled")
    assert "\x1b[" in rich and made[0] == 1
    assert fast == rich


def test_evaluate_table_above_the_threshold_equals_rich_against_rich(monkeypatch):
    """evaluate's per-query table (numbers, counts as integers, the text column of RelString, the summary
    rows) above the threshold -- lowered, so that rich renders the same rows quickly -- is rich's text."""
    qrels, runs = pf.example.example_paths()
    args = ["evaluate", "-q", "-m", "AP", "-m", "num_ret", "-m", "relstring@5", str(qrels), *map(str, runs[:2])]
    made = _rich_tables(monkeypatch)
    monkeypatch.setattr(text_table, "RICH_ROWS", 50)
    fast = CliRunner().invoke(app, args)
    assert fast.exit_code == 0, fast.output
    assert made == [1], "rich rendered the whole table: the body was not written line by line"
    assert fast.stdout.count("\n") > 50 and "│ bm25     │ 001 │ NumRet      │    100 │ False   │       │" in fast.stdout
    monkeypatch.setattr(text_table, "RICH_ROWS", 10**9)
    rich = CliRunner().invoke(app, args)
    assert rich.exit_code == 0, rich.output
    assert fast.stdout == rich.stdout
