"""Make the README's figure: DL-2019 system means under NIST vs Llama-3.3-70B labels (nDCG@10).

Usage::

    python examples/readme_figure.py [--data ../shared/data] [--out docs/figures/dl19_nist_vs_llama70b.png]

The 17 DL-2019 runs of ``llm_labels_dl`` plus the 3 ICT runs of ``syndl``, NIST qrels
(``anserini_tools/qrels.dl19-passage.txt``) and ``llm_labels_dl/results/dl2019_test_4prompts_llama70b.txt``;
prints the agreement it draws.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pairedframe as pf
from pairedframe.report.plots import agreement_scatter

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(REPO.parent / "shared" / "data"))
    ap.add_argument("--out", default=str(REPO / "docs" / "figures" / "dl19_nist_vs_llama70b.png"))
    args = ap.parse_args()
    root = Path(args.data)
    runs = sorted(str(p) for p in (root / "llm_labels_dl" / "dl2019_runs").glob("input.*.gz"))
    ict = root / "syndl" / "TREC-DLs-files" / "TREC-DL-2019" / "passages-runs"
    runs += [str(ict / r) for r in ("ICT-BERT2", "ICT-CKNRM_B", "ICT-CKNRM_B50")]
    judgments = {"NIST": root / "anserini_tools" / "qrels.dl19-passage.txt",
                 "Llama-3.3-70B": root / "llm_labels_dl" / "results" / "dl2019_test_4prompts_llama70b.txt"}
    js = pf.evaluate_judgment_sets(runs, judgments, "nDCG@10")
    agreement = pf.rank_agreement(js, measure="nDCG@10", seed=0)
    print(agreement.to_frame())
    out = agreement_scatter(agreement, args.out)
    print(f"wrote {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main()
