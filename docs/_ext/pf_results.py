"""``docs/results/*.md`` are the tables the benchmark scripts printed (``--output``); at the start of each
build they are copied to ``_generated/`` for the "how we know" pages to include, and a table that was
never generated becomes a note naming the command that makes it (so a page never shows a typed figure
as if a script had printed it)."""

from __future__ import annotations

from pathlib import Path

#: results file -> the command that writes it.
COMMANDS = {
    "parity.md": "PYTHONPATH=src python benchmarks/parity.py --output docs/results/parity.md",
    "report_dl2021.md": "python benchmarks/speed --section report_dl2021 --output docs/results/report_dl2021.md",
    "calibration_paired.md": ("PYTHONPATH=src python benchmarks/calibration --section paired "
                              "--output docs/results/calibration_paired.md"),
    "calibration_agreement.md": ("PYTHONPATH=src python benchmarks/calibration --section agreement "
                                 "--output docs/results/calibration_agreement.md"),
    "calibration_large_n.md": ("PYTHONPATH=src python benchmarks/calibration --section large_n "
                               "--output docs/results/calibration_large_n.md"),
    "calibration_small_n.md": ("PYTHONPATH=src python benchmarks/calibration --section small_n "
                               "--output docs/results/calibration_small_n.md"),
    "calibration_too_few.md": ("PYTHONPATH=src python benchmarks/calibration --section too_few "
                               "--output docs/results/calibration_too_few.md"),
    "calibration_one_sided.md": ("PYTHONPATH=src python benchmarks/calibration --section one_sided "
                                 "--output docs/results/calibration_one_sided.md"),
    "calibration_one_sided_small_n.md": ("PYTHONPATH=src python benchmarks/calibration --section one_sided_small_n "
                                         "--output docs/results/calibration_one_sided_small_n.md"),
    "calibration_clustered_one_sided.md": ("PYTHONPATH=src python benchmarks/calibration --section clustered_one_sided "
                                           "--output docs/results/calibration_clustered_one_sided.md"),
    "calibration_clustered_skewed.md": ("PYTHONPATH=src python benchmarks/calibration --section clustered_skewed "
                                        "--output docs/results/calibration_clustered_skewed.md"),
    "calibration_ppi.md": ("PYTHONPATH=src python benchmarks/calibration --section ppi --reps 40000 --seed 7 "
                           "--output docs/results/calibration_ppi.md"),
    "calibration_ppi_dl19.md": ("PYTHONPATH=src python benchmarks/calibration --section ppi_dl19 "
                                "--output docs/results/calibration_ppi_dl19.md"),
    "calibration_segments.md": ("PYTHONPATH=src python benchmarks/calibration --section segments "
                                "--output docs/results/calibration_segments.md"),
    "calibration_rank_sets.md": ("PYTHONPATH=src python benchmarks/calibration --section rank_sets "
                                 "--output docs/results/calibration_rank_sets.md"),
    "calibration_means.md": ("PYTHONPATH=src python benchmarks/calibration --section means "
                             "--output docs/results/calibration_means.md"),
    "evaluate.md": "PYTHONPATH=src python benchmarks/speed --section evaluate --output docs/results/evaluate.md",
    "compare_large.md": ("PYTHONPATH=src python benchmarks/speed --section compare --large --repeat 2 "
                         "--output docs/results/compare_large.md"),
    "spark.md": "PYTHONPATH=src python benchmarks/speed --section spark --jobs evaluate --output docs/results/spark.md",
}


def _nest(text: str) -> str:
    """The file's headings under the including page's ``##`` section: a ``#`` title becomes a bold line,
    every other heading a ``###``."""
    out = []
    for line in text.splitlines():
        level = len(line) - len(line.lstrip("#"))
        if level and line[level:level + 1] == " ":
            title = line[level + 1:].strip()
            line = f"**{title}**" if level == 1 else f"### {title}"
        out.append(line)
    return "\n".join(out) + "\n"


def _copy(app) -> None:
    src = Path(app.srcdir)
    out = src / "_generated"
    out.mkdir(exist_ok=True)
    for name, command in COMMANDS.items():
        result = src / "results" / name
        text = _nest(result.read_text(encoding="utf-8")) if result.exists() else (
            f"*Not generated in this checkout: run* `{command}` *to print this table.*\n")
        target = out / name
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8")


def setup(app):
    app.connect("builder-inited", _copy)
    return {"parallel_read_safe": True, "version": "1"}
