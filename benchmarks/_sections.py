"""The one entry of each benchmark folder: ``python benchmarks/<folder> --section NAME [options]`` runs the
section's module with the options that follow (``benchmarks/speed``, ``benchmarks/calibration``)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path


def run_section(folder: Path, sections: dict[str, str], argv: list[str], *, default: str | None = None) -> None:
    """Run the module of the section named by ``--section`` in ``argv`` (``default`` when none is named)
    with the rest of ``argv`` as its options; ``sections`` maps each name to a one-line description."""
    width = max(map(len, sections), default=0) + 2  # every name, however long, then its description
    listing = "\n".join(f"  {name:<{width}}{text}" for name, text in sections.items())
    usage = f"usage: python benchmarks/{folder.name} --section NAME [options of the section]\n\nsections:\n{listing}\n"
    if argv[:1] in (["-h"], ["--help"]) or ("--section" not in argv and default is None):
        print(usage)
        raise SystemExit(0 if argv[:1] in (["-h"], ["--help"]) else 2)
    if "--section" not in argv:
        name, rest = default, argv
    else:
        at = argv.index("--section")
        name, rest = (argv[at + 1] if at + 1 < len(argv) else ""), argv[:at] + argv[at + 2:]
    if name not in sections:
        print(f"unknown section {name!r}\n\n{usage}", file=sys.stderr)
        raise SystemExit(2)
    sys.path[:0] = [str(folder), str(folder.parent)]
    sys.argv = [str(folder / f"{name}.py"), *rest]
    importlib.import_module(name).main()
