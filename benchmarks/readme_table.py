"""README's speed table, regenerated from the tables the speed benchmarks printed (``docs/results/``).

Usage: ``python benchmarks/readme_table.py`` rewrites the block between the two markers in README.md;
``--check`` exits 1 when README's block differs from what the results files say (tests/test_readme_speed_table.py
runs it).  Each row quotes a ratio as the benchmark printed it and names the file and the command.

Sources: ``evaluate.md`` (``benchmarks/speed --section evaluate``), ``compare_large.md``
(``--section compare --large``) and ``spark.md`` (``--section spark --jobs evaluate`` and ``--jobs spark-compare``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
README = ROOT / "README.md"
START = "<!-- speed table: written by benchmarks/readme_table.py from docs/results/ -->"
END = "<!-- end of speed table -->"


def _find(pattern: str, text: str, source: str) -> re.Match:
    match = re.search(pattern, text, re.MULTILINE)
    if match is None:
        raise ValueError(f"{source}: no line matches {pattern!r}; re-run the benchmark that writes it")
    return match


def _load(name: str) -> str:
    path = RESULTS / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing; run the command in its header (docs/how/benchmarks.md)")
    return path.read_text(encoding="utf-8")


def _printed_on(text: str) -> str:
    match = re.search(r"\((\d{4}-\d\d-\d\d)\) -->", text)
    return match.group(1) if match else "?"


def evaluate_rows() -> list[list[str]]:
    text = _load("evaluate.md")
    peer = _find(r"pytrec_eval / pairedframe\s+([\d.]+)", text, "evaluate.md").group(1)
    floor = _find(r"pairedframe / floor .*?\s([\d.]+)\s+target", text, "evaluate.md").group(1)
    peak = _find(r"\(peak (\d+) MB", text, "evaluate.md").group(1)
    shape = _find(r"data: (\d+) queries x (\d+) docs", text, "evaluate.md")
    lines = int(shape.group(1)) * int(shape.group(2))
    probe = re.search(r"fresh memory: 512 MB touched in ([\d.]+) s", text)
    faults = (f" (fresh memory slow that day: 512 MB touched in {probe.group(1)} s, which costs pytrec_eval's "
              "1.2 GB most)" if probe and float(probe.group(1)) > 0.5 else "")
    return [[f"`pairedframe evaluate`, {lines / 1e6:.0f}M-line run, 4 measures (whole process)",
             f"{peer}× faster than pytrec_eval; {floor}× the floor (imports + pyarrow parse); peak {peak} MB{faults}",
             f"evaluate.md ({_printed_on(text)})"]]


def compare_rows() -> list[list[str]]:
    text = _load("compare_large.md")
    head = _find(r"--large: ([\d,]+) queries x (\d+) systems", text, "compare_large.md")
    out = []
    for case, label in (("defaults", "defaults"), ("t", '`test="t"`'), ("duckdb_defaults", "defaults, by join in DuckDB")):
        row = _find(rf"^{case}\s+([\d.]+)\s+[\d.]+\s+\d+\s+([\d.]+)\s+([\d.]+)", text, "compare_large.md")
        out.append([f"`pf.compare`, {head.group(1)} queries × {head.group(2)} systems, {label}",
                    f"{row.group(1)} s: {row.group(2)}× the one-pass polars floor, peak {row.group(3)}× its memory",
                    f"compare_large.md ({_printed_on(text)})"])
    return out


def _span(values: list[float], unit: str = "×") -> str:
    low, high = min(values), max(values)
    return f"{low:.2f}{unit}" if low == high else f"{low:.2f}–{high:.2f}{unit}"


def _spark_run(block: str) -> dict:
    rows = re.findall(r"^(\d+x\d+)\s+partitions\s+[\d.]+\s+([\d.]+)\s+[\d.]+\s+([\d.]+)\s+([\d.]+)",
                      block, re.MULTILINE)
    growth = _find(r"10x the lines, partitions: ([\d.]+)x the time on local\[2\]", block, "spark.md").group(1)
    load = _find(r"load average ([\d.]+)", block, "spark.md").group(1)
    return {"files": [r[0].replace("x", " × ") for r in rows], "floor": [float(r[1]) for r in rows],
            "scaling": [float(r[2]) for r in rows], "duck": [float(r[3]) for r in rows],
            "growth": float(growth), "load": float(load)}


def spark_rows() -> list[list[str]]:
    """The run spark.md holds on the quietest machine (its load average when it started), and the range of
    each ratio over every run it holds (each block under its own "printed by" line)."""
    text = _load("spark.md")
    runs = [_spark_run(b) for b in text.split("<!-- printed by:")[1:] if "partitions" in b]
    if not runs:
        raise ValueError("spark.md: no 'partitions' row; re-run the benchmark that writes it")
    quiet = min(runs, key=lambda r: r["load"])
    each = lambda key: " / ".join(f"{v:.2f}×" for v in quiet[key])  # noqa: E731
    every = lambda key: _span([v for r in runs for v in r[key]])     # noqa: E731
    return [[f"`engine=\"spark\"`, run files of {' and '.join(quiet['files'])} (queries × docs), quietest run "
             f"(load {quiet['load']:.1f})",
             f"{each('floor')} Spark's own floor on `local[2]`; local[1] → local[2] {each('scaling')}; 10× the lines "
             f"{quiet['growth']:.2f}× the time; {each('duck')} the DuckDB engine's time",
             f"spark.md ({_printed_on(text)})"],
            [f"`engine=\"spark\"`, all {len(runs)} runs in spark.md (loads up to "
             f"{max(r['load'] for r in runs):.1f})",
             f"{every('floor')} the floor; local[1] → local[2] {every('scaling')}; 10× the lines "
             f"{_span([r['growth'] for r in runs])} the time", f"spark.md ({_printed_on(text)})"]]


def spark_compare_rows() -> list[list[str]]:
    """The last ``--jobs spark-compare`` run in spark.md: compare on a Spark table against one Spark pass."""
    text = _load("spark.md")
    blocks = [b for b in text.split("<!-- printed by:")[1:] if "3. compare on Spark" in b]
    if not blocks:
        return []
    block = blocks[-1]
    size = _find(r"compare on Spark \((local\[\d\])\): ([\d,]+) queries x (\d+) systems", block, "spark.md")
    cells = []
    for label, name in (("pf.compare, defaults", "defaults"), ("pf.compare, test='t'", '`test="t"`')):
        row = _find(rf"^{re.escape(label)}\s+([\d.]+)\s+([\d.]+)\s+(\S+)", block, "spark.md")
        cells.append(f"{name} {row.group(1)} s = {row.group(2)}× it (method {row.group(3)})")
    floor = _find(r"^one pass \(join, mean, sd\)\s+([\d.]+)", block, "spark.md").group(1)
    return [[f"`pf.compare` of a Spark table, {size.group(2)} queries × {size.group(3)} systems, `{size.group(1)}`",
             f"one Spark pass over the file (join, mean, sd) {floor} s; {'; '.join(cells)}",
             f"spark.md ({_printed_on(block)})"]]


def render() -> str:
    rows = evaluate_rows() + compare_rows() + spark_rows() + spark_compare_rows()
    lines = [START, "", "| job | measured (ratios in the same run) | printed in docs/results/ |", "| --- | --- | --- |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines + ["", END])


def readme_block(text: str) -> str:
    if START not in text or END not in text:
        raise ValueError(f"README.md lacks the markers {START!r} ... {END!r}")
    return text[text.index(START):text.index(END) + len(END)]


def main(argv: list[str]) -> int:
    text = README.read_text(encoding="utf-8")
    block, fresh = readme_block(text), render()
    if "--check" in argv:
        if block != fresh:
            print("README.md's speed table differs from docs/results/; run python benchmarks/readme_table.py",
                  file=sys.stderr)
            return 1
        return 0
    README.write_text(text.replace(block, fresh), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
