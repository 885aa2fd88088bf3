"""No extra may downgrade a core package, and the tests ran on the newest core packages.

Resolves (``pip install --dry-run --report``, nothing is installed) the package alone and with all
its extras, and fails when the extras make pip pick an older version of a core dependency (as ``rbo``'s
``numpy<2`` once pulled numpy 2.4 down to 1.26 and pyarrow 26 down to 21). It then checks that the
environment running it (.ci/run's main venv, where the whole suite ran) holds the newest versions of
the core packages that the package alone resolves to.

Usage: python .ci/check_extras.py   (from the repository root, in the venv to check)
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def resolve(spec: str) -> dict[str, str]:
    """name -> version that pip would install for ``spec`` into an empty environment."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                               "--report", str(report), spec], cwd=ROOT, capture_output=True, text=True)
        if done.returncode:
            sys.exit(f"check_extras: pip cannot resolve {spec}:\n{done.stderr[-3000:]}")
        installs = json.loads(report.read_text())["install"]
    return {_name(i["metadata"]["name"]): i["metadata"]["version"] for i in installs}


def main() -> int:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = [_name(r) for r in project["dependencies"]]
    extras = sorted(project.get("optional-dependencies", {}))
    alone = resolve(".")
    problems = []
    everything = f".[{','.join(extras)}]"
    with_all = resolve(everything)
    problems += [f"{everything} downgrades {n} {alone[n]} -> {with_all[n]}" for n in core
                 if Version(with_all[n]) < Version(alone[n])]
    installed = {n: metadata.version(n) for n in core}
    problems += [f"this environment has {n} {installed[n]}, the newest resolution {alone[n]}" for n in core
                 if Version(installed[n]) != Version(alone[n])]
    print("newest core:", ", ".join(f"{n} {alone[n]}" for n in core))
    for p in problems:
        print(f"check_extras: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
