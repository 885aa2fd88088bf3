"""Every warning pairedframe gives points at the caller's line, not at a line inside pairedframe
(issue 12 item 4: ``ppi_compare``'s SmallSampleWarning pointed at comparison/ppi.py).

``WARN_CASES`` holds, for every public function that warns (its docstring has a ``Warns`` section),
a call that triggers each of its warnings; ``test_every_warning_site_uses_user_stacklevel`` checks
the source so that a new ``warnings.warn`` cannot point inside the package either.
"""

from __future__ import annotations

import ast
import inspect
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import PartlyEmptyWarning, SmallSampleWarning
from tests.conformance.doors import PLAN as DOOR_PLAN

HERE = str(Path(__file__).resolve())
PACKAGE = Path(pf.__file__).parent


def _per_query(n: int, systems=("a", "b"), measure: str = "AP", shift: float = 0.05) -> pl.DataFrame:
    rng = np.random.default_rng(n)
    base = rng.uniform(size=n)
    rows = []
    for i, s in enumerate(systems):
        rows.append(pl.DataFrame({"system": s, "qid": [f"q{j:03d}" for j in range(n)], "measure": measure,
                                  "value": np.clip(base + i * shift + rng.normal(0, 0.05, n), 0, 1)}))
    return pl.concat(rows)


def _graded_qrels() -> str:
    """A qrels file whose grades trec_eval would read by their integer prefix (1.5 -> 1)."""
    import tempfile

    path = Path(tempfile.mkdtemp()) / "qrels.txt"
    path.write_text("1 0 d1 1.5\n1 0 d2 0\n")
    return str(path)


def _mostly_tied(n: int) -> pl.DataFrame:
    """Two systems equal on all but n // 3 queries (a near-duplicate pair)."""
    a = _per_query(n, systems="a")
    b = a.with_columns(system=pl.lit("b"), value=pl.when(pl.col("qid") < f"q{n // 3:03d}")
                       .then(pl.col("value") * 0.5).otherwise(pl.col("value")))
    return pl.concat([a, b])


RUN = pl.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "qid": ["1", "1", "2", "2"] * 2,
                    "docno": ["d1", "d2"] * 4, "score": [2.0, 1.0, 2.0, 1.0, 1.0, 2.0, 1.0, 2.0]})
QRELS = pl.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["d1", "d2", "d1", "d2"], "rel": [1, 0, 0, 1]})
# the plan of the empty-input cases, resampling queries (no cluster column here)
PLAN = DOOR_PLAN.replace("n_resamples = 400\n", "n_resamples = 200\n")


def _ppi_small_gold():
    qids = [f"q{i}" for i in range(40)]
    rng = np.random.default_rng(0)
    pa = dict(zip(qids, rng.uniform(size=40)))
    pb = {q: v + 0.05 for q, v in pa.items()}
    gold = qids[:10]
    return pf.ppi_compare(pa, pb, {q: pa[q] for q in gold}, {q: pb[q] + rng.normal(0, .01) for q in gold},
                          method="z")  # the normal interval warns below 30 gold queries


def _judgment_sets():
    return pf.evaluate_judgment_sets(RUN, {"proxy": QRELS, "gold": QRELS}, "AP")


# name -> list of (call, warning category): every warning of every public function that warns.
WARN_CASES = {
    "compare": [(lambda: pf.compare(_per_query(10), baseline="a", n_resamples=200), SmallSampleWarning),
                (lambda: pf.compare(_per_query(30, systems="abcd"), baseline="a", n_resamples=20), UserWarning),
                (lambda: pf.compare(pl.concat([_per_query(30), _per_query(30).head(1).with_columns(qid=pl.lit("all"))]),
                                    baseline="a", n_resamples=200), UserWarning),
                (lambda: pf.compare(_mostly_tied(30), baseline="a", n_resamples=200), pf.TiedQueriesWarning),
                # all pairs: the range warning is taken again from the table before its copies per baseline
                (lambda: pf.compare(_per_query(30, systems="abc").with_columns(value=pl.when(pl.col("qid") == "q003")
                                    .then(1.5).otherwise(pl.col("value"))), pairs="all", n_resamples=200),
                 pf.ValueRangeWarning)],
    "compare_pair": [(lambda: pf.compare_pair(np.arange(5.0), np.arange(5.0) + 1, n_resamples=100),
                      SmallSampleWarning),
                     (lambda: pf.compare_pair(np.zeros(30), np.r_[np.zeros(20), np.linspace(.1, .3, 10)],
                                              n_resamples=100), pf.TiedQueriesWarning)],
    "compare_clustered": [(lambda: pf.compare_clustered(_per_query(30).with_columns(cluster=pl.col("qid").str.slice(0, 3)),
                                                        baseline="a", n_resamples=200), SmallSampleWarning)],
    "compare_segments": [(lambda: pf.compare_segments(
        _per_query(10), {"qid": [f"q{j:03d}" for j in range(10)], "segment_set": "s", "segment": "g"},
        baseline="a", n_resamples=200), SmallSampleWarning),
        (lambda: pf.compare_segments(
            _per_query(60), {"qid": [f"q{j:03d}" for j in range(60)], "segment_set": "s",
                             "segment": [str(j % 3) for j in range(60)]}, baseline="a", n_resamples=20,
            correction="holm"), UserWarning),     # Holm over 3 at the floor 1/21: nothing can pass
        (lambda: pf.compare_segments(      # integer segment ids become text, as integer qids do
            _per_query(60), {"qid": [f"q{j:03d}" for j in range(60)], "segment_set": "s",
                             "segment": [j % 2 for j in range(60)]}, baseline="a", n_resamples=200), UserWarning)],
    "analyze": [(lambda: pf.analyze(pf.Plan.from_toml(PLAN), _per_query(10)), SmallSampleWarning)],
    "ppi_compare": [(_ppi_small_gold, SmallSampleWarning)],
    "ppi_compare_segments": [(lambda: pf.ppi_compare_segments(_judgment_sets(), baseline="a", method="z"), SmallSampleWarning)],
    "evaluate": [(lambda: pf.evaluate(pl.concat([RUN, RUN.head(2).with_columns(system=pl.lit("c"), qid=pl.lit("9"))]),
                                      QRELS, "AP"), PartlyEmptyWarning),
                 (lambda: pf.evaluate(RUN.with_columns(pl.col("qid").cast(pl.Int64)), QRELS, "AP"), UserWarning)],
    "as_run": [(lambda: pf.as_run(RUN.with_columns(pl.col("qid").cast(pl.Int64))), UserWarning)],
    "as_qrels": [(lambda: pf.as_qrels(QRELS.with_columns(pl.col("qid").cast(pl.Int64))), UserWarning),
                 (lambda: pf.as_qrels(QRELS.with_columns(pl.col("rel") + 0.5), grades="trec_eval"), UserWarning)],
    "read_qrels": [(lambda: pf.read_qrels(_graded_qrels(), grades="trec_eval"), UserWarning)],
    "rbo": [(lambda: pf.rbo(RUN.filter(pl.col("system") == "a"), RUN.filter(pl.col("system") == "b").head(2)),
             PartlyEmptyWarning)],
    "paired_per_query": [(lambda: pf.paired_per_query(pl.concat([_per_query(5), _per_query(5).head(1).with_columns(
        qid=pl.lit("all"))]), baseline="a"), UserWarning)],
    "worst_queries": [(lambda: pf.worst_queries(pl.concat([_per_query(5), _per_query(5).head(1).with_columns(
        qid=pl.lit("all"))]), baseline="a"), UserWarning)],
    "results_table": [(lambda: pf.results_table(pf.evaluate(RUN, QRELS, ["RelString@2", "AP"])), UserWarning)],
    "leaderboard": [(lambda: pf.leaderboard(_per_query(10, systems="abc"), measure="AP", n_resamples=50),
                     SmallSampleWarning),
                    (lambda: pf.leaderboard(_per_query(30, systems="abc").filter(~((pl.col("system") == "a")
                                                                                  & (pl.col("qid") == "q001"))),
                                            measure="AP", n_resamples=50), PartlyEmptyWarning),
                    (lambda: pf.leaderboard(_per_query(30, systems="abc"), measure="AP", n_resamples=10),
                     UserWarning)],
    "rank_agreement": [(lambda: pf.rank_agreement(_per_query(30, systems="abc").filter(pl.col("qid") < "q020"),
                                                  _per_query(30, systems="abc").filter(pl.col("qid") >= "q010"),
                                                  measure="AP", n_resamples=50), PartlyEmptyWarning),
                       (lambda: pf.rank_agreement(_per_query(30, systems="abc"), _per_query(30, systems="abd"),
                                                  measure="AP", n_resamples=50), UserWarning)],
    "label_agreement": [(lambda: pf.label_agreement(QRELS.filter(pl.col("qid") == "1"), QRELS), SmallSampleWarning)],
    "evaluate_judgment_sets": [(lambda: pf.evaluate_judgment_sets(
        pl.concat([RUN, RUN.head(2).with_columns(system=pl.lit("c"), qid=pl.lit("9"))]), {"gold": QRELS}, "AP"),
        PartlyEmptyWarning)],
}


def _documented_warners() -> set[str]:
    return {name for name in pf.__all__
            if inspect.isfunction(getattr(pf, name)) and "Warns\n    -----" in (getattr(pf, name).__doc__ or "")}


def test_every_public_function_that_warns_has_a_case():
    missing = _documented_warners() - WARN_CASES.keys()
    assert not missing, f"add the warnings of {sorted(missing)} to WARN_CASES"
    undocumented = WARN_CASES.keys() - _documented_warners()
    assert not undocumented, f"document the warnings of {sorted(undocumented)} in a 'Warns' section"


@pytest.mark.parametrize("name, i", [(n, i) for n, cases in sorted(WARN_CASES.items()) for i in range(len(cases))])
def test_warning_points_at_the_callers_line(name, i):
    call, category = WARN_CASES[name][i]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    ours = [w for w in caught if issubclass(w.category, category)]
    assert ours, f"{name} case {i} gave no {category.__name__}: {[str(w.message) for w in caught]}"
    for w in ours:
        assert w.filename == HERE, f"{name}: {w.category.__name__} points at {w.filename}:{w.lineno}: {w.message}"


def test_ppi_compare_small_sample_warning_points_here():
    # The example: the SmallSampleWarning of ppi_compare pointed at compare/ppi.py.
    with pytest.warns(SmallSampleWarning) as record:
        _ppi_small_gold()
    assert record[0].filename == HERE


def _warn_calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "warn" \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "warnings":
            yield node


def test_every_warning_site_uses_user_stacklevel():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for call in _warn_calls(ast.parse(path.read_text())):
            level = next((k.value for k in call.keywords if k.arg == "stacklevel"), None)
            ok = isinstance(level, ast.Call) and getattr(level.func, "id", "") == "user_stacklevel"
            if not ok:
                bad.append(f"{path.relative_to(PACKAGE)}:{call.lineno}")
    assert not bad, f"warnings.warn without stacklevel=user_stacklevel(): {bad}"
