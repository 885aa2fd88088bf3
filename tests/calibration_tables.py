"""Reading the pipe tables of docs/results/calibration_*.md, which the docs' quoted figures are checked
against (tests/test_calibration_*.py, tests/test_one_sided_small_n.py, tests/test_percentile_small_n.py):
one reader, so every quote test splits a row the same way."""

from __future__ import annotations

from pathlib import Path

#: The folder of the printed calibration tables.
RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"


def cells(line: str) -> list[str]:
    """The stripped cells of one table line, ``| a | b |`` -> ``['a', 'b']``."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def first_number(cell: str) -> float:
    """The number a cell starts with: ``'0.948 (0.005)'`` -> 0.948 (a rate and its Monte Carlo error)."""
    return float(cell.split()[0])


def table(path: Path) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of the page's table: its lines starting with ``|``, the second being the ``---`` line."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    return cells(lines[0]), [cells(line) for line in lines[2:]]


def rows(path: Path) -> list[dict[str, str]]:
    """The page's table, one {column: cell} per row."""
    header, body = table(path)
    return [dict(zip(header, row)) for row in body]


def columns(path: Path, first: int) -> dict[str, list[float]]:
    """{column: the number each row's cell starts with} for the columns from index ``first`` on (the ones
    before name the cell: collection, measure, n)."""
    header, body = table(path)
    return {name: [first_number(row[i]) for row in body] for i, name in enumerate(header) if i >= first}
