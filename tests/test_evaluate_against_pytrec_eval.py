"""Per-query parity with pytrec_eval (trec_eval 9's C code) on real TREC runs.

Collections: TREC DL 2021 passage (63 runs), TREC DL 2019 passage (3 syndl + 17 llm_labels_dl runs),
TREC 2003 Robust (17 runs). Every measure both libraries have, every evaluated query, |diff| <= 1e-12
with ``score_precision="float32"`` (pytrec_eval stores scores as C floats).

The oracle's inputs are parsed here with plain Python (not with pairedframe's readers), and
pytrec_eval evaluates the queries present in both run and qrels: the same query set as ours.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import pairedframe as pf
from pairedframe.io import system_name_from_path

pytrec_eval = pytest.importorskip("pytrec_eval")

pytestmark = [pytest.mark.oracle, pytest.mark.shared_data]

TOL = 1e-12
# pytrec_eval measure families; the cut ones expand to trec_eval's default cutoffs
# (P/recall/map_cut/ndcg_cut: 5..1000, success: 1, 5, 10), as pairedframe's bare trec names do.
MEASURES = ("map", "map_cut", "ndcg", "ndcg_cut", "P", "recall", "recip_rank", "Rprec", "success",
            "bpref", "num_ret", "num_rel", "num_rel_ret")
# 8 plain measures + 4 cut families x 9 cutoffs + success x 3 = 47 values per (system, query)
N_VALUES_PER_QUERY = 8 + 4 * 9 + 3

COLLECTIONS = {
    # name: (qrels, run globs, expected number of runs)
    "dl2021": ("syndl/TREC-DLs-files/TREC-DL-2021/qrels-pass.txt",
               ["syndl/TREC-DLs-files/TREC-DL-2021/passages-runs/*"], 63),
    "dl2019": ("syndl/TREC-DLs-files/TREC-DL-2019/qrels-pass.txt",
               ["syndl/TREC-DLs-files/TREC-DL-2019/passages-runs/*", "llm_labels_dl/dl2019_runs/input.*"], 20),
    "robust03": ("trectools_robust03/qrel/robust03_qrels.txt", ["trectools_robust03/runs/input.*.gz"], 17),
}


def _open(path: Path):
    with open(path, "rb") as fh:
        gz = fh.read(2) == b"\x1f\x8b"
    return gzip.open(path, "rt") if gz else open(path)


def parse_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with _open(path) as fh:
        for line in fh:
            f = line.split()
            if f and not f[0].startswith("#"):
                qrels.setdefault(f[0], {})[f[2]] = int(f[3])
    return qrels


def parse_run(path: Path, keep: dict) -> dict[str, dict[str, float]]:
    """The run's judged queries only (pytrec_eval ignores the others anyway)."""
    run: dict[str, dict[str, float]] = {}
    with _open(path) as fh:
        for line in fh:
            f = line.split()
            if f and f[0] in keep:
                docs = run.setdefault(f[0], {})
                assert f[2] not in docs, f"duplicate docno in {path}: pytrec_eval would keep one"
                docs[f[2]] = float(f[4])
    return run


def collection(shared_data: Path, name: str) -> tuple[Path, list[Path]]:
    qrels, globs, n_runs = COLLECTIONS[name]
    runs = sorted(p for g in globs for p in shared_data.glob(g))
    assert len(runs) == n_runs, f"{name}: expected {n_runs} runs, found {len(runs)}"
    return shared_data / qrels, runs


def oracle_values(qrels_path: Path, runs: list[Path], measures=MEASURES) -> dict[tuple[str, str, str], float]:
    qrels = parse_qrels(qrels_path)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures))
    out = {}
    for path in runs:
        system = system_name_from_path(path)
        for qid, values in evaluator.evaluate(parse_run(path, qrels)).items():
            for trec_name, v in values.items():
                out[(system, qid, trec_name)] = v
    return out


def our_values(qrels_path: Path, runs: list[Path], precision: str, measures=MEASURES) -> dict:
    result = pf.evaluate([str(p) for p in runs], str(qrels_path), list(measures), score_precision=precision)
    trec = {m.name: m.trec_name for m in result.measures}
    return {(s, q, trec[m]): v for s, q, m, v in result.per_query.iter_rows()}


@pytest.mark.parametrize("name", sorted(COLLECTIONS))
def test_per_query_values_against_pytrec_eval(shared_data: Path, name: str):
    qrels_path, runs = collection(shared_data, name)
    want = oracle_values(qrels_path, runs)
    got = our_values(qrels_path, runs, "float32")
    # Same (system, query, measure) keys: same query set and the same measure names/cutoffs.
    assert set(got) == set(want), (f"only ours: {sorted(set(got) - set(want))[:5]}; "
                                   f"only pytrec_eval: {sorted(set(want) - set(got))[:5]}")
    systems = {k[0] for k in want}
    names = {k[2] for k in want}
    assert len(systems) == len(runs)
    assert len(names) == N_VALUES_PER_QUERY
    diffs = [abs(got[k] - want[k]) for k in want]
    worst = max(diffs)
    assert worst <= TOL, f"{sum(d > TOL for d in diffs)} of {len(diffs)} values differ, max {worst}"


def test_float64_scores_differ_from_pytrec_eval_on_real_runs(shared_data: Path):
    """Why score_precision exists: DL-2021 run Fast_ForwardP_2 has scores that are distinct as
    doubles but equal as floats, so pytrec_eval (float) breaks those ties by docno and ranks
    differently from trec_eval 10 (double). With "float32" we match pytrec_eval exactly."""
    qrels_path, runs = collection(shared_data, "dl2021")
    run = [p for p in runs if system_name_from_path(p) == "Fast_ForwardP_2"]
    measures = ("ndcg_cut", "map")
    want = oracle_values(qrels_path, run, measures)
    as_double = our_values(qrels_path, run, "float64", measures)
    as_float = our_values(qrels_path, run, "float32", measures)
    assert set(as_double) == set(want) == set(as_float)
    assert max(abs(as_float[k] - want[k]) for k in want) <= TOL
    differing = {k[1] for k in want if abs(as_double[k] - want[k]) > 1e-6}
    assert differing, "expected float64 ranking to differ from pytrec_eval on some query"
