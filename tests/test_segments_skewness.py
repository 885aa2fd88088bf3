"""compare_segments' skewness column and its SkewWarning (issue 9 item 6): against compare() on the same
queries, against a plain per-segment loop over scipy.stats.skew(bias=False), in every path."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from scipy.stats import skew

import pairedframe as pf
from pairedframe.comparison.segments import compare_segments
from pairedframe.errors import SkewWarning

ZERO_SPREAD_RTOL = 1e-12


def _quiet(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*a, **k)


def _frame(a: np.ndarray, bs: dict[str, np.ndarray], measure: str = "m") -> pl.DataFrame:
    qids = [f"q{i:03d}" for i in range(len(a))]
    rows = [pl.DataFrame({"system": "A", "qid": qids, "measure": measure, "value": np.asarray(a, dtype=float)})]
    rows += [pl.DataFrame({"system": s, "qid": qids, "measure": measure, "value": np.asarray(b, dtype=float)})
             for s, b in bs.items()]
    return pl.concat(rows)


def _skew_reference(d: np.ndarray) -> float:
    """Plain reference: scipy's adjusted skewness; NaN below 3 values or at zero spread (ptp <= 1e-12 max|d|)."""
    if d.size < 3 or np.ptp(d) <= ZERO_SPREAD_RTOL * np.max(np.abs(d)):
        return math.nan
    return float(skew(d, bias=False))


def _same(x: float, y: float, rel: float = 1e-9) -> bool:
    return (math.isnan(x) and math.isnan(y)) or abs(x - y) <= rel * max(1.0, abs(y))


def _skew_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, SkewWarning)]


def test_segment_skewness_against_compare_on_the_same_queries():
    """One segment holding every query: the skewness of compare() on that query set, per system and measure."""
    rng = np.random.default_rng(11)
    n = 40
    a = rng.uniform(size=n)
    pq = pl.concat([_frame(a, {"B": a + rng.exponential(0.05, n), "C": a + rng.normal(0, 0.1, n)}, "m1"),
                    _frame(a, {"B": a - rng.exponential(0.02, n) ** 2, "C": np.round(a + 0.1, 1)}, "m2")])
    seg = pl.DataFrame({"qid": [f"q{i:03d}" for i in range(n)], "segment_set": "all", "segment": "all"})
    want = _quiet(pf.compare, pq, baseline="A", test="t").select("system", "measure", "skewness")
    for options in ({}, {"test": "t"}, {"resampling": "adaptive"}):
        got = _quiet(compare_segments, pq, seg, baseline="A", n_resamples=199, **options)
        joined = got.select("system", "measure", "skewness").join(want, on=["system", "measure"], suffix="_compare")
        assert joined.height == 4
        for x, y in joined.select("skewness", "skewness_compare").iter_rows():
            assert _same(x, y, 1e-12), (options, x, y)
        assert joined["skewness"].is_nan().sum() < 4      # the column is not NaN throughout


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_q=st.integers(1, 40), n_seg=st.integers(1, 6), seed=st.integers(0, 2**32 - 1),
       grid=st.sampled_from([0, 4, 100]))
def test_segment_skewness_and_warning_against_scipy_loop(n_q, n_seg, seed, grid):
    """Every unit's skewness against a loop over scipy.stats.skew(bias=False); the warning fires exactly
    when some unit has n < 25 * skewness**2, counting them, naming the most skewed."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(size=n_q)
    b = a + rng.exponential(0.1, n_q) * rng.choice([-1.0, 1.0, 1.0, 1.0], n_q)
    if grid:             # values on a grid: exact ties and equal deltas up to float noise (zero spread)
        a, b = np.round(a * grid) / grid, np.round(np.clip(b, 0, 1) * grid) / grid
    pq = _frame(a, {"B": b})
    qids = [f"q{i:03d}" for i in range(n_q)]
    seg_of = rng.integers(0, n_seg, n_q)
    seg = pl.DataFrame({"qid": qids, "segment_set": "s", "segment": [f"g{j}" for j in seg_of]})
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        try:
            got = compare_segments(pq, seg, baseline="A", test="t")
        except pf.EmptyResultError:      # every segment holds a single query
            got = None
    if got is None:
        assert np.bincount(seg_of).max() == 1
    else:
        _check_skewness_and_warning(got, b - a, seg_of, record)


def _check_skewness_and_warning(got, deltas, seg_of, record):
    ref = {}
    for g in np.unique(seg_of):
        ref[f"g{g}"] = (_skew_reference(deltas[seg_of == g]), int(np.count_nonzero(seg_of == g)))
    assert got.height == len(ref)
    for segment, x in got.select("segment", "skewness").iter_rows():
        assert _same(x, ref[segment][0]), (segment, x, ref[segment])
    failing = {s: (g, n) for s, (g, n) in ref.items() if not math.isnan(g) and n < 25 * g * g}
    messages = _skew_warnings(record)
    if not failing:
        assert messages == []
        return
    assert len(messages) == 1
    assert messages[0].startswith(f"{len(failing)} of {got.height} segment comparisons")
    worst = max(failing, key=lambda s: abs(failing[s][0]))
    named = re.search(r"skewness ([+-]\d+\.\d\d) with n = (\d+) \(system 'B', measure 'm', segment_set 's', "
                      r"segment '(g\d)'\)", messages[0])
    assert named is not None, messages[0]
    assert abs(abs(failing[named.group(3)][0]) - abs(failing[worst][0])) <= 1e-9   # the most skewed (ties aside)
    assert float(named.group(1)) == pytest.approx(failing[named.group(3)][0], abs=0.005)
    assert int(named.group(2)) == failing[named.group(3)][1]


def test_skew_warning_names_the_consequence_and_points_at_the_caller():
    rng = np.random.default_rng(3)
    n = 60
    a = rng.uniform(size=n)
    d = np.where(rng.uniform(size=n) < 0.15, rng.uniform(0.3, 0.6, n), 0.0) + rng.normal(0, 0.01, n)
    pq = _frame(a, {"B": a + d})
    seg = pl.DataFrame({"qid": [f"q{i:03d}" for i in range(n)], "segment_set": "third",
                        "segment": [f"s{i % 3}" for i in range(n)]})
    with pytest.warns(SkewWarning) as record:
        got = compare_segments(pq, seg, baseline="A", n_resamples=199)
    (message,) = _skew_warnings(record)
    assert record[0].filename == __file__
    worst = got.filter(pl.col("skewness").abs() == pl.col("skewness").abs().max()).row(0, named=True)
    assert f"with n = {worst['n_queries']} (system 'B', measure 'm', segment_set 'third', " \
           f"segment '{worst['segment']}')" in message
    assert f"skewness {worst['skewness']:+.2f}" in message
    assert "0.054-0.079" in message and "0.025-0.039" in message


def test_skew_warning_points_at_the_docs_page_and_section_that_hold_the_segment_calibration():
    """The warning's source used to be 'README Calibration', a section the README does not have: the page it
    names now exists and quotes the FDRs, and the command it gives is a section the calibration script runs."""
    import re
    from pathlib import Path

    rng = np.random.default_rng(3)
    a = rng.uniform(size=60)
    d = np.where(rng.uniform(size=60) < 0.15, rng.uniform(0.3, 0.6, 60), 0.0) + rng.normal(0, 0.01, 60)
    seg = pl.DataFrame({"qid": [f"q{i:03d}" for i in range(60)], "segment_set": "third",
                        "segment": [f"s{i % 3}" for i in range(60)]})
    with pytest.warns(SkewWarning) as record:
        compare_segments(_frame(a, {"B": a + d}), seg, baseline="A", n_resamples=199)
    (message,) = _skew_warnings(record)
    root = Path(__file__).resolve().parents[1]
    page, heading = re.search(r"\((docs/[\w/]+\.md), '([^']+)'", message).groups()
    text = (root / page).read_text(encoding="utf-8")
    assert f"## {heading}" in text and "compare_segments" in text and "0.054" in text and "0.079" in text
    section = re.search(r"python benchmarks/calibration --section (\w+)\)", message).group(1)
    runner = (root / "benchmarks" / "calibration" / "runner.py").read_text(encoding="utf-8")
    assert section == "segments" and f'"{section}"' in runner and "README" not in message


def test_no_skew_warning_for_symmetric_deltas_or_segments_below_three_queries():
    rng = np.random.default_rng(5)
    half = rng.exponential(0.1, 15)
    d = np.concatenate([half, -half])                    # exactly symmetric: skewness 0 (to float noise)
    a = rng.uniform(size=d.size) * 0.5 + 0.25
    # two queries with a huge delta in their own segments of 1 and 2 queries: NaN skewness, no warning
    a = np.concatenate([a, [0.1, 0.1, 0.1]])
    d = np.concatenate([d, [0.8, 0.8, 0.0]])
    pq = _frame(a, {"B": a + d})
    qids = [f"q{i:03d}" for i in range(d.size)]
    seg = pl.DataFrame({"qid": qids, "segment_set": "s", "segment": ["sym"] * 30 + ["one", "two", "two"]})
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        got = compare_segments(pq, seg, baseline="A", test="t")
    assert _skew_warnings(record) == []
    skewness = dict(got.select("segment", "skewness").iter_rows())
    assert abs(skewness["sym"]) < 1e-12 and math.isnan(skewness["one"]) and math.isnan(skewness["two"])
    # from three queries on it may fire: deltas 0.8, 0.8, 0 have skewness -sqrt(3), 3 < 25 * 3
    seg3 = pl.DataFrame({"qid": qids, "segment_set": "s", "segment": ["sym"] * 30 + ["three"] * 3})
    with pytest.warns(SkewWarning, match=r"1 of 2 segment comparisons.*skewness -1\.73 with n = 3 .*segment 'three'"):
        compare_segments(pq, seg3, baseline="A", test="t")


def test_segment_skewness_and_warning_on_duckdb_against_polars():
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(8)
    n = 45
    a = rng.uniform(size=n)
    pq = pl.concat([_frame(a + 1000.0, {"B": a + 1000.0 + rng.exponential(0.05, n) ** 2,   # level >> spread
                                        "C": a + 1000.0 - rng.exponential(0.05, n)}, "big"),
                    _frame(a, {"B": a + rng.normal(0, 0.1, n), "C": np.round(a, 1)}, "m")])
    qids = [f"q{i:03d}" for i in range(n)]
    seg = pl.concat([pl.DataFrame({"qid": qids, "segment_set": "mod4", "segment": [str(i % 4) for i in range(n)]}),
                     pl.DataFrame({"qid": qids[:3], "segment_set": "few", "segment": ["a", "a", "b"]})])
    for options in ({}, {"test": "t"}, {"interval": "percentile"}):
        with warnings.catch_warnings(record=True) as on_polars:
            warnings.simplefilter("always")
            want = compare_segments(pq, seg, baseline="A", n_resamples=199, seed=1, **options)
        with warnings.catch_warnings(record=True) as on_duckdb:
            warnings.simplefilter("always")
            got = compare_segments(duckdb.sql("SELECT * FROM pq"), seg, baseline="A", n_resamples=199, seed=1,
                                   **options)
        assert want["skewness"].is_not_nan().sum() >= 12
        for x, y in zip(got["skewness"].to_list(), want["skewness"].to_list()):
            assert _same(x, y, 1e-12), (x, y)
        assert _skew_warnings(on_duckdb) == _skew_warnings(on_polars) != []


def test_skew_warning_names_a_run_file_s_system_as_written(tmp_path):
    """A run file input.<i>x<\\i>|y `z`.gz (system <i>x<\\i>|y `z`) was named '<i>x<\\\\i>|y `z`' (its repr,
    the backslash doubled); the segment warning names it, and every key, between quotes as written, as the
    clustered comparison's messages do (checks.quoted)."""
    import gzip

    from typer.testing import CliRunner

    from pairedframe.checks import quoted
    from pairedframe.cli import app

    name = "<i>x<\\i>|y `z`"
    rng = np.random.default_rng(3)
    n = 60
    a = rng.uniform(size=n)
    d = np.where(rng.uniform(size=n) < 0.15, rng.uniform(0.3, 0.6, n), 0.0) + rng.normal(0, 0.01, n)
    qids = [f"q{i:03d}" for i in range(n)]
    ranks = {"A": a, name: np.clip(a + d, 0, 1)}
    # one judged relevant document per query; a system's score for it is its value's rank signal (AP = 1/rank)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 rel 1\n" for q in qids))
    for system, values in ranks.items():
        lines = []
        for q, v in zip(qids, values):
            above = int(round((1 - v) * 5))                   # documents ranked above the relevant one
            lines += [f"{q} Q0 d{k} {k + 1} {10 - k} run\n" for k in range(above)]
            lines.append(f"{q} Q0 rel {above + 1} {10 - above - 0.5} run\n")
        path = tmp_path / ("input.b.gz" if system == "A" else f"input.{system}.gz")
        path.write_bytes(gzip.compress("".join(lines).encode()))
    segments = tmp_path / "seg.csv"
    segments.write_text("qid,segment_set,segment\n" + "".join(f"{q},third,s{i % 3}\n" for i, q in enumerate(qids)))
    res = CliRunner().invoke(app, ["segments", str(qrels), str(tmp_path / "input.b.gz"),
                                   str(tmp_path / f"input.{name}.gz"), "-m", "AP", "--segments", str(segments),
                                   "-B", "99", "-f", "csv"])
    assert res.exit_code == 0, res.output
    assert f"(system '{name}', measure 'AP', segment_set 'third', segment 's" in res.stderr, res.stderr
    assert "\\\\" not in res.stderr
    assert quoted(name) == "'" + name + "'" and quoted(True) == "'True'"
