"""Real per-query delta populations for the calibration sections (``benchmarks/calibration``).

Collections (under ``../shared/data``, see its README.md):

- ``DL-2019``: 17 TREC DL-2019 passage runs (``llm_labels_dl/dl2019_runs``), NIST qrels
  (``anserini_tools/qrels.dl19-passage.txt``), 43 judged queries; also the Llama-3.3-70B labels
  (``llm_labels_dl/results/dl2019_test_4prompts_llama70b.txt``) as the PPI proxy;
- ``DL-2021``: 63 TREC DL-2021 passage runs (``syndl``), 53 judged queries;
- ``Robust03``: 17 TREC 2003 Robust runs (``trectools_robust03``), 100 topics.

A *population* is the vector of per-query deltas ``b - a`` of one run pair on one measure (nDCG@10,
AP) over the judged queries.  Every pair is used (for DL-2021, a seeded sample of 200 of its 1,953
pairs); pairs whose deltas are all 0 are dropped (nothing to estimate).  Deltas within 1e-12 of 0 are
0 (as :func:`pairedframe.compare`).
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
MEASURES = ("nDCG@10", "AP")
COLLECTIONS = ("DL-2019", "DL-2021", "Robust03")
MAX_PAIRS = 200


@dataclass(frozen=True)
class Population:
    collection: str
    measure: str
    pair: tuple[str, str]
    deltas: np.ndarray            # gold deltas over the judged queries
    proxy: np.ndarray | None = None   # proxy (LLM-judged) deltas on the same queries (DL-2019 only)


def _paths(data: Path, collection: str) -> tuple[list[Path], Path]:
    if collection == "DL-2019":
        return sorted((data / "llm_labels_dl" / "dl2019_runs").glob("input.*.gz")), \
            data / "anserini_tools" / "qrels.dl19-passage.txt"
    if collection == "DL-2021":
        folder = data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
        return sorted((folder / "passages-runs").glob("*.gz")), folder / "qrels-pass.txt"
    if collection == "Robust03":
        folder = data / "trectools_robust03"
        return sorted((folder / "runs").glob("input.*.gz")), folder / "qrel" / "robust03_qrels.txt"
    raise ValueError(collection)


def _wide(per_query, measure: str):
    import polars as pl

    sub = per_query.filter(pl.col("measure") == measure)
    wide = sub.pivot(on="system", index="qid", values="value").sort("qid")
    systems = [c for c in wide.columns if c != "qid"]
    return wide, systems


def _pairs(systems: list[str], seed: int) -> list[tuple[str, str]]:
    pairs = list(itertools.combinations(systems, 2))
    if len(pairs) > MAX_PAIRS:
        keep = np.sort(np.random.default_rng([seed, 2021]).choice(len(pairs), MAX_PAIRS, replace=False))
        pairs = [pairs[i] for i in keep]
    return pairs


def _delta(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d = b - a
    d[np.abs(d) <= 1e-12 * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))] = 0.0
    return d


def load(data: Path = DATA, collections=COLLECTIONS, measures=MEASURES, seed: int = 0,
         max_runs: int | None = None) -> dict[tuple[str, str], list[Population]]:
    """Populations per (collection, measure).  ``max_runs`` keeps the first runs only (smoke runs)."""
    import pairedframe as pf

    out: dict[tuple[str, str], list[Population]] = {}
    for collection in collections:
        runs, qrels = _paths(data, collection)
        if not runs or not qrels.exists():
            raise FileNotFoundError(f"{collection}: runs or qrels missing under {data}")
        runs = runs[:max_runs] if max_runs else runs
        ev = pf.evaluate([str(r) for r in runs], str(qrels), list(measures))
        for measure in measures:
            wide, systems = _wide(ev.per_query, measure)
            wide = wide.fill_null(0.0)       # a run that misses a judged query scores 0 there
            pops = []
            for a, b in _pairs(systems, seed):
                d = _delta(wide[a].to_numpy(), wide[b].to_numpy())
                if np.any(d != 0):
                    pops.append(Population(collection, measure, (a, b), d))
            out[(collection, measure)] = pops
    return out


def load_ppi(data: Path = DATA, measures=MEASURES, max_runs: int | None = None) -> dict[str, list[Population]]:
    """DL-2019 populations with NIST gold and Llama-3.3-70B proxy deltas on the 43 judged queries."""
    import polars as pl

    import pairedframe as pf

    runs, qrels = _paths(data, "DL-2019")
    runs = runs[:max_runs] if max_runs else runs
    llm = data / "llm_labels_dl" / "results" / "dl2019_test_4prompts_llama70b.txt"
    pq = pf.evaluate_judgment_sets([str(r) for r in runs], {"proxy": str(llm), "gold": str(qrels)}, list(measures)).per_query
    out: dict[str, list[Population]] = {}
    for measure in measures:
        gold, systems = _wide(pq.filter(pl.col("judgments") == "gold"), measure)
        proxy, _ = _wide(pq.filter(pl.col("judgments") == "proxy"), measure)
        proxy = gold.select("qid").join(proxy, on="qid", how="left").fill_null(0.0)
        gold = gold.fill_null(0.0)
        pops = []
        for a, b in itertools.combinations(systems, 2):
            d = _delta(gold[a].to_numpy(), gold[b].to_numpy())
            if np.any(d != 0):
                pops.append(Population("DL-2019", measure, (a, b), d,
                                       _delta(proxy[a].to_numpy(), proxy[b].to_numpy())))
        out[measure] = pops
    return out
