"""Make the agreement guide's figure (docs/guide/agreement.md): DL-2019 system means under NIST vs Llama-3.3-70B labels (nDCG@10).

Usage::

    python examples/readme_figure.py [--data DIR] [--out docs/figures/dl19_nist_vs_llama70b.png]

``--data`` defaults to the folder named by the environment variable PAIREDFRAME_DATA (as the tests),
else ``../shared/data`` next to the repository.  Missing data or output folder: a message, exit 2.

The 17 DL-2019 runs of ``llm_labels_dl`` plus the 3 ICT runs of ``syndl``, NIST qrels
(``anserini_tools/qrels.dl19-passage.txt``) and ``llm_labels_dl/results/dl2019_test_4prompts_llama70b.txt``;
prints the agreement it draws.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import pairedframe as pf
from pairedframe.report.output import require_output_folder
from pairedframe.report.plots import agreement_scatter

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = os.environ.get("PAIREDFRAME_DATA") or str(REPO.parent / "shared" / "data")


def _inputs(root: Path) -> tuple[list[str], dict[str, Path]]:
    """The run files and the two qrels under ``root``; exits with a message naming what is missing."""
    runs = sorted(str(p) for p in (root / "llm_labels_dl" / "dl2019_runs").glob("input.*.gz"))
    ict = root / "syndl" / "TREC-DLs-files" / "TREC-DL-2019" / "passages-runs"
    runs += [str(ict / r) for r in ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50")]
    judgments = {"NIST": root / "anserini_tools" / "qrels.dl19-passage.txt",
                 "Llama-3.3-70B": root / "llm_labels_dl" / "results" / "dl2019_test_4prompts_llama70b.txt"}
    missing = [p for p in [*runs, *map(str, judgments.values())] if not Path(p).is_file()]
    if len(runs) <= 3 or missing:
        what = f"no input.*.gz in {root / 'llm_labels_dl' / 'dl2019_runs'}" if len(runs) <= 3 else f"no {missing[0]}"
        _fail(f"the DL-2019 data is not under {root} ({what}); pass --data DIR or set PAIREDFRAME_DATA "
              "to the shared data folder (see its README.md)")
    return runs, judgments


def _fail(message: str) -> None:
    print(f"readme_figure.py: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=DEFAULT_DATA, help="the shared data folder (default: $PAIREDFRAME_DATA, "
                                                         "else ../shared/data next to the repository)")
    ap.add_argument("--out", default=str(REPO / "docs" / "figures" / "dl19_nist_vs_llama70b.png"))
    args = ap.parse_args()
    try:
        require_output_folder(args.out, "--out")
    except ValueError as exc:
        _fail(str(exc))
    runs, judgments = _inputs(Path(args.data))
    js = pf.evaluate_judgment_sets(runs, judgments, "nDCG@10")
    agreement = pf.rank_agreement(js, measure="nDCG@10", seed=0)
    print(agreement.table)
    out = agreement_scatter(agreement, args.out)
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
