"""Per-query parity with pytrec_eval (trec_eval 9's C code) on real TREC runs.

Collections: TREC DL 2021 passage (63 runs), TREC DL 2019 passage (3 syndl + 17 llm_labels_dl runs),
TREC 2003 Robust (17 runs). Every measure both libraries have, every evaluated query, |diff| <= 1e-12
with ``score_precision="float32"`` (pytrec_eval stores scores as C floats).

Where trec_eval 10 changed a definition, pytrec_eval keeps trec_eval 9's: ``iprec_at_recall`` and
``11pt_avg`` take the c-th relevant document with c = lround(x * R) in trec_eval 10 and
(long)(x * R + 0.9) in trec_eval 9; a test states the rule on a hand-computed case. pytrec_eval
reports gm_map and gm_bpref per query as the log trec_eval accumulates; pairedframe keeps the
floored value per query (its log is compared). relstring and rbp are not numbers / not in trec_eval 9.

The oracle's inputs are parsed here with plain Python (not with pairedframe's readers), and
pytrec_eval evaluates the queries present in both run and qrels: the same query set as ours.
"""

from __future__ import annotations

import gzip
import math
from pathlib import Path

import pytest

import pairedframe as pf
from pairedframe.io import system_name_from_path

pytrec_eval = pytest.importorskip("pytrec_eval")

pytestmark = [pytest.mark.oracle, pytest.mark.shared_data]

TOL = 1e-12
# Every pytrec_eval measure but iprec_at_recall / 11pt_avg (trec_eval 10 changed them), relstring (a
# string), runid and num_q (not per-query values). The cut families expand to trec_eval's default
# cutoffs (P/recall/map_cut/ndcg_cut/relative_P: 5..1000, success: 1, 5, 10, Rprec_mult: 0.2..2.0).
PLAIN = ("map", "gm_map", "Rprec", "bpref", "recip_rank", "infAP", "gm_bpref", "utility", "binG", "G", "ndcg",
         "ndcg_rel", "Rndcg", "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret",
         "num_ret", "num_rel", "num_rel_ret")
CUT = ("P", "recall", "ndcg_cut", "map_cut", "relative_P")
MEASURES = PLAIN + CUT + ("Rprec_mult", "success")
N_VALUES_PER_QUERY = len(PLAIN) + 9 * len(CUT) + 10 + 3
LOGGED = ("gm_map", "gm_bpref")  # pytrec_eval's per-query value is log(max(v, 0.00001))

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
    return {(s, q, trec[m]): (math.log(v) if trec[m] in LOGGED else v)
            for s, q, m, v in result.per_query.iter_rows()}


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
    bad = [(k, got[k], want[k]) for k in want if not abs(got[k] - want[k]) <= TOL]
    assert not bad, f"{len(bad)} of {len(want)} values differ, e.g. {bad[:5]}"


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


def test_iprec_at_recall_rounds_the_cutoff_as_trec_eval_10_against_pytrec_eval():
    """trec_eval 10 (m_iprec_at_recall.c, commit 2a9e214): the interpolated precision at recall x is
    taken from the c-th relevant document on, c = lround(x * R); trec_eval 9 and pytrec_eval used
    (long)(x * R + 0.9). Hand case: R = 4, relevant documents at ranks 1 and 4, x = 0.3, so
    x * R = 1.2: trec_eval 10 takes c = 1, max(P@1, P@4) = max(1, 0.5) = 1.0; trec_eval 9 c = 2, 0.5."""
    qrels = {"q": {"a": 1, "b": 0, "c": 0, "d": 1, "e": 1, "f": 1}}
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    ours = pf.evaluate(run, qrels, ["IPrec@0.3", "iprec_at_recall.0.3"]).per_query["value"].to_list()
    assert ours == [1.0]  # both names are the same measure
    nine = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)["q"]["iprec_at_recall_0.30"]
    assert nine == 0.5
