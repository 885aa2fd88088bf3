"""Generate the bundled example: graded qrels and two runs over 60 synthetic queries.

``python -m pairedframe.example.generate [DIR]`` rewrites the files (deterministic, seed 20261129).
System ``bm25`` ranks by a noisy view of the hidden grades; ``reranker`` sees them a little more
clearly, so it wins on average but loses on some queries. Scores are rounded to 2 decimals, so
ties occur and trec_eval's tie rule (docno descending) matters. Query ids keep leading zeros.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

N_QUERIES = 60
DOCS_PER_QUERY = 100
SEED = 20261129


def generate(folder: Path) -> None:
    rng = np.random.default_rng(SEED)
    folder.mkdir(parents=True, exist_ok=True)
    qrels_lines, runs = [], {"bm25": [], "reranker": []}
    for q in range(1, N_QUERIES + 1):
        qid = f"{q:03d}"
        docs = [f"D{q:03d}-{d:04d}" for d in range(DOCS_PER_QUERY + 40)]
        # Hidden grades: most documents are non-relevant; a few are graded 1-3.
        grades = rng.choice([0, 1, 2, 3], size=len(docs), p=[0.86, 0.08, 0.04, 0.02])
        judged = rng.random(len(docs)) < 0.6
        for doc, g, j in zip(docs, grades, judged):
            if j or g > 0:
                qrels_lines.append(f"{qid} 0 {doc} {g}")
        difficulty = rng.normal(0, 0.6)
        for system, noise in (("bm25", 1.35), ("reranker", 1.2)):
            signal = grades + rng.normal(difficulty, noise, size=len(docs))
            top = np.argsort(-signal)[:DOCS_PER_QUERY]
            for rank, i in enumerate(top, start=1):
                runs[system].append(f"{qid} Q0 {docs[i]} {rank} {np.round(signal[i], 2):.2f} {system}")
    (folder / "qrels.txt").write_text("\n".join(qrels_lines) + "\n")
    for system, lines in runs.items():
        (folder / f"input.{system}").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    generate(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
