"""pf_compare keeps its interval inside the range of a mean delta, as pf.compare(test="t") does
(pairedframe.comparison.interval_range): [-1, 1] for a measure in [0, 1], nothing clipped for a measure without
a known range or for values outside it.  tests/test_duckdb_macros_*.py have the macros' other tests."""

from __future__ import annotations

import itertools
import math
import sys
import warnings
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.comparison.interval_range import delta_ranges
from pairedframe.errors import PairedFrameError
from pairedframe.measures.parse import value_range

sys.path.insert(0, str(Path(__file__).parent))
from measure_grid import every_measure  # noqa: E402
from real_runs import run_paths  # noqa: E402

#: Measures with the range [0, 1] (RR, nDCG, AP, P), without a known range (NumRelRet, a gain map with a
#: negative gain) and with another known range (RBP keeps [0, 1] under a negative gain).
MEASURES = ["RR", "nDCG@10", "AP", "P@1", "P@10", "bpref", "NumRelRet", "nDCG(gains={0:-1,1:1})",
            "RBP(gains={0:-1,1:1})", "ERR@20", "Rprec"]
COLUMNS = ["system", "measure", "n", "delta", "pvalue", "ci_low", "ci_high"]


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    try:
        pf.duckdb.check_duckdb()
    except PairedFrameError as exc:
        pytest.skip(str(exc))
    return pf.duckdb.register(duckdb.connect())


def _macro_and_compare(con, runs: list[str], qrels: str, measures: list[str]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """pf_compare's rows and pf.compare(test="t")'s, the first system (by name) the baseline."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")    # few queries: small-sample warnings; the intervals are the point
        ev = pf.evaluate(runs, qrels, measures)
        baseline = min(ev.per_query["system"].unique().to_list())
        want = pf.compare(ev, baseline=baseline, test="t").rename({"n_queries": "n"})
    got = con.sql("SELECT * FROM pf_compare(?, ?, ?, baseline := ?)", params=[runs, qrels, measures, baseline]).pl()
    key = ["system", "measure"]
    return got.select(COLUMNS).sort(key), want.select(COLUMNS).sort(key)


def _assert_same_intervals(got: pl.DataFrame, want: pl.DataFrame) -> None:
    assert got.height == want.height and got["measure"].to_list() == want["measure"].to_list()
    for row, ref in zip(got.iter_rows(named=True), want.iter_rows(named=True)):
        assert (row["system"], row["n"]) == (ref["system"], ref["n"]), row["measure"]
        assert row["delta"] == pytest.approx(ref["delta"], rel=1e-12, abs=1e-15), row["measure"]
        assert row["pvalue"] == pytest.approx(ref["pvalue"], rel=1e-9), row["measure"]
        ends, ref_ends = (row["ci_low"], row["ci_high"]), (ref["ci_low"], ref["ci_high"])
        assert ends == pytest.approx(ref_ends, rel=1e-10, abs=1e-14), (row["system"], row["measure"])


def test_compare_interval_of_two_opposite_deltas_through_the_macros_against_compare_test_t(con, tmp_path):
    """The fault's repro: queries '007' and '010' whose RR deltas are +0.5 and -0.5; t's interval is
    [-6.35, 6.35] (P@1: [-12.7, 12.7]), the macro now gives compare's [-1, 1]; NumRelRet (no known range)
    and nDCG with a negative gain (no range either) keep t's interval, as in compare."""
    (tmp_path / "qrels").write_text("007 0 d1 1\n007 0 d2 0\n010 0 d1 1\n010 0 d2 0\n")
    (tmp_path / "run.a").write_text("007 Q0 d2 1 2 t\n007 Q0 d1 2 1 t\n010 Q0 d1 1 2 t\n010 Q0 d2 2 1 t\n")
    (tmp_path / "run.b").write_text("007 Q0 d1 1 2 t\n007 Q0 d2 2 1 t\n010 Q0 d2 1 2 t\n010 Q0 d1 2 1 t\n")
    runs = [str(tmp_path / "run.a"), str(tmp_path / "run.b")]
    got, want = _macro_and_compare(con, runs, str(tmp_path / "qrels"), MEASURES)
    _assert_same_intervals(got, want)
    ends = {m: (lo, hi) for m, lo, hi in got.select("measure", "ci_low", "ci_high").iter_rows()}
    assert ends["RR"] == ends["AP"] == ends["P@1"] == ends["nDCG@10"] == ends["Rprec"] == (-1.0, 1.0)
    unbounded = ends["nDCG(gains={0:-1.0})"]
    assert unbounded[1] > 1 and unbounded == pytest.approx((-unbounded[1], unbounded[1]))


@pytest.mark.shared_data
@pytest.mark.parametrize(("qrels", "globs", "clipped"), [
    # three topics, results.trunc has two of them: t's interval at df = 1 reaches beyond [-1, 1]
    ("trec_eval/qrels.test", ["trec_eval/results.test", "trec_eval/results.trunc"], True),
    # 43 queries: nothing to clip, the same t interval
    ("syndl/TREC-DLs-files/TREC-DL-2019/qrels-pass.txt", ["llm_labels_dl/dl2019_runs/input.*"], False),
])
def test_compare_interval_through_the_macros_against_compare_test_t_on_real_runs(con, shared_data, qrels, globs,
                                                                                  clipped):
    runs = [str(p) for p in run_paths(shared_data, globs)][:3]
    assert len(runs) >= 2
    got, want = _macro_and_compare(con, runs, str(shared_data / qrels), MEASURES)
    _assert_same_intervals(got, want)
    at_bound = got.filter(pl.col("ci_low").abs().eq(1.0) | pl.col("ci_high").abs().eq(1.0))
    assert (at_bound.height > 0) == clipped
    assert got.filter(pl.col("measure").is_in(["RR", "nDCG@10", "AP", "P@10"])
                      & ((pl.col("ci_low") < -1) | (pl.col("ci_high") > 1))).height == 0


def test_measure_ranges_of_the_macros_against_value_range(con):
    """pf__range_sql (the range the macro clips by) is Measure.value_range on every measure of the grid."""
    names = [m.name for m in every_measure() if m.spec.value_kind == "number"]
    names += ["nDCG(gains={0:-1,1:1})", "RBP(gains={0:-1,1:1})", "G(gains={0:-2})", "NumRelRet"]
    pairs = con.sql("SELECT [(m['name'], pf__range_sql(m)) FOR m IN pf_measures(?)]", params=[names]).fetchall()[0][0]
    bounds = con.sql("SELECT " + ", ".join(text for _, text in pairs)).fetchall()[0]    # lo, hi of each in turn
    assert len(pairs) > 100 and len(bounds) == 2 * len(pairs)
    for (measure, _), lo, hi in zip(pairs, bounds[0::2], bounds[1::2]):
        assert (-math.inf if lo is None else lo, math.inf if hi is None else hi) == value_range(measure), measure
    assert {value_range(m) for m, _ in pairs} >= {(0.0, 1.0), (0.0, math.inf), (-math.inf, math.inf)}


def test_delta_width_of_the_macros_against_delta_ranges(con):
    """pf__delta_width_sql drops the range where pf.compare's delta_ranges does: a mean or the delta outside
    the measure's range (1e-9 of the bound tolerated), on [0, 1] and [0, inf) measures."""
    values = [-0.5, -1e-12, 0.0, 0.3, 1.0, 1.0 + 1e-10, 1.0 + 1e-8, 1.5, 82.0]
    rows = [(b, s, s - b) for b, s in itertools.product(values, repeat=2)]
    rows += [(0.2, 0.4, 1.0 + 1e-8), (0.2, 0.4, -1.0 - 1e-10)]     # a delta beyond its means' difference
    for measure in ("AP", "NumRelRet", "my_score"):
        lo, hi = value_range(measure)
        sql_lo, sql_hi = ("CAST(NULL AS DOUBLE)" if math.isinf(x) else repr(float(x)) for x in (lo, hi))
        width = con.sql("SELECT pf__delta_width_sql('b', 's', 'd', ?, ?)", params=[sql_lo, sql_hi]).fetchall()[0][0]
        got = [w for (w,) in con.sql(f"SELECT {width} FROM (VALUES {', '.join(map(str, rows))}) v(b, s, d)").fetchall()]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")    # the rows outside the range warn in delta_ranges
            _, want_hi = delta_ranges([measure] * len(rows), np.array([r[2] for r in rows]),
                                      means=(np.array([r[0] for r in rows]), np.array([r[1] for r in rows])))
        assert [math.inf if w is None else w for w in got] == want_hi.tolist(), measure
        if measure == "AP":      # both sides of the rule are met
            assert 1.0 in want_hi.tolist() and math.inf in want_hi.tolist()
