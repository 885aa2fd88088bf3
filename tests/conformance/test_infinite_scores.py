"""Scores ``inf`` / ``-inf`` (log-probabilities of a generative ranker) are ranked as trec_eval ranks
them -- its reader is C's ``atof``, its order ``sim`` descending then docno descending (``>`` on
doubles: +inf first, -inf last, equal infinities tied) -- on every engine and reader; NaN stays an
error naming the line. Checked against pytrec_eval, which runs trec_eval's C code."""

from __future__ import annotations

import pytest

import pairedframe as pf
from pairedframe.errors import InputFormatError
from tests.conformance.inputs import trec_qrels_text, trec_run_text

INF = float("inf")
# grades distinct enough that the order of the top documents shows in AP, nDCG and P@1..5
QRELS = {"q1": {"d1": 1, "d2": 2, "d3": 0, "d4": 3, "d5": 1, "d6": 2},
         "q2": {"a": 1, "b": 0, "c": 2, "d": 1}}
RUN = {"q1": {"d1": INF, "d2": 5.0, "d3": -INF, "d4": INF, "d5": -INF, "d6": 3e38, "d7": -3e38},
       "q2": {"a": -INF, "b": -INF, "c": -INF, "d": -1.0}}
PYTREC = ("map", "ndcg", "recip_rank", "P.1,2,3,4,5")
OURS = ["AP", "nDCG", "RR", "P@1", "P@2", "P@3", "P@4", "P@5"]
NAMES = {"AP": "map", "nDCG": "ndcg", "RR": "recip_rank", **{f"P@{k}": f"P_{k}" for k in range(1, 6)}}


def _frames():
    import polars as pl

    run = pl.DataFrame([("s", q, d, v) for q, docs in RUN.items() for d, v in docs.items()],
                       schema=["system", "qid", "docno", "score"], orient="row")
    qrels = pl.DataFrame([(q, d, g) for q, docs in QRELS.items() for d, g in docs.items()],
                         schema=["qid", "docno", "rel"], orient="row")
    return run, qrels


def _files(tmp_path):
    run, qrels = _frames()
    (tmp_path / "input.s").write_bytes(trec_run_text(run).replace(b" inf ", b" Infinity "))
    (tmp_path / "qrels").write_bytes(trec_qrels_text(qrels))
    return str(tmp_path / "input.s"), str(tmp_path / "qrels")


def _oracle() -> dict[tuple[str, str], float]:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    values = pytrec_eval.RelevanceEvaluator(QRELS, set(PYTREC)).evaluate(RUN)
    return {(m, q): values[q][NAMES[m]] for q in QRELS for m in OURS}


@pytest.mark.oracle
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("form", ["dict", "table", "trec"])
def test_infinite_scores_rank_against_pytrec_eval(tmp_path, engine, form):
    want = _oracle()
    run, qrels = {"dict": lambda: ({"s": RUN}, QRELS), "table": _frames, "trec": lambda: _files(tmp_path)}[form]()
    # pytrec_eval keeps scores as C floats: float32 here; +-3e38 stay finite in both precisions
    for precision in ("float32", "float64"):
        ev = pf.evaluate(run, qrels, OURS, engine=engine, score_precision=precision)
        got = {(m, q): v for _, q, m, v in ev.per_query.iter_rows()}
        assert got == pytest.approx(want, abs=1e-12), precision


@pytest.mark.oracle
@pytest.mark.spark
def test_infinite_scores_rank_on_spark_against_pytrec_eval(tmp_path, spark):
    want = _oracle()
    ev = pf.evaluate(*_files(tmp_path), OURS, engine="spark")
    assert {(m, q): v for _, q, m, v in ev.per_query.iter_rows()} == pytest.approx(want, abs=1e-12)


@pytest.mark.parametrize("engine", ["duckdb", "polars", pytest.param("spark", marks=pytest.mark.spark)])
def test_a_nan_score_is_an_error_naming_the_line_on_every_engine(tmp_path, request, engine):
    if engine == "spark":
        request.getfixturevalue("spark")
    run, qrels = _files(tmp_path)
    text = open(run).read().splitlines()
    text[2] = text[2].replace("-inf", "nan")
    open(run, "w").write("\n".join(text) + "\n")
    with pytest.raises(InputFormatError, match=r"input\.s, line 3, column 5: score 'nan' is NaN"):
        pf.evaluate(run, qrels, ["AP"], engine=engine)
