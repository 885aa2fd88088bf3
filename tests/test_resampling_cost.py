"""The up-front cost check of every resampling option, and the column slices that bound kept memory.

Every door that resamples refuses an absurd ``n_resamples`` before drawing anything, with a
:class:`~pairedframe.errors.ResamplingCostError` naming the argument (the CLI names its flag, a plan
its key), the estimated time and memory and the largest value that fits; ordinary values pass.
Comparisons of many columns resample them in slices from the same stream: same results, less memory.
"""

from __future__ import annotations

import tracemalloc
import warnings

import duckdb
import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.comparison import _cost
from pairedframe.comparison._cost import ELEMENTS_PER_SECOND, PER_DRAW_COLUMNS, WORK_BYTES, check_resampling_cost
from pairedframe.errors import ResamplingCostError

ABSURD = 10**13
QIDS = [f"q{i:02d}" for i in range(30)]


def _frame(k: int = 2, n: int = 30, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    qids = [f"q{i:03d}" for i in range(n)]
    base = rng.uniform(size=n)
    return pl.concat([pl.DataFrame({"system": f"s{j}", "qid": qids, "measure": "m",
                                    "value": np.clip(base + rng.normal(0.01 * j, 0.1, n), 0, 1)})
                      for j in range(k + 1)])


SEGMENTS = pl.DataFrame({"qid": [f"q{i:03d}" for i in range(30)], "segment_set": "s",
                         "segment": [f"g{i % 3}" for i in range(30)]})
PLAN = """confidence_level = 0.95
margin = 0.01
seed = 0
n_resamples = {B}
resampling_unit = "query"
[systems]
baseline = "s0"
candidate = "s1"
[[endpoints]]
measure = "m"
direction = "higher is better"
role = "primary"
"""

DOORS = {
    "compare": lambda B: pf.compare(_frame(), baseline="s0", n_resamples=B),
    "compare signflip interval": lambda B: pf.compare(_frame(), baseline="s0", n_resamples=B, interval="signflip"),
    "compare all pairs (Tukey)": lambda B: pf.compare(_frame(), pairs="all", n_resamples=B),
    "compare several baselines": lambda B: pf.compare(_frame(), baseline=["s0", "s1"], n_resamples=B),
    "compare_pair": lambda B: pf.compare_pair(np.arange(30.0), np.arange(30.0) ** 0.5, n_resamples=B),
    "compare_clustered": lambda B: pf.compare_clustered(_frame().with_columns(cluster=pl.col("qid")),
                                                        baseline="s0", n_resamples=B),
    "compare_clustered percentile": lambda B: pf.compare_clustered(
        _frame().with_columns(cluster=pl.col("qid").str.slice(0, 3)), baseline="s0", n_resamples=B,
        interval="percentile"),
    "compare_segments": lambda B: pf.compare_segments(_frame(), SEGMENTS, baseline="s0", n_resamples=B),
    "results_table": lambda B: pf.results_table(_frame(), baseline="s0", n_resamples=B),
    "rank_agreement": lambda B: pf.rank_agreement(_frame(5), _frame(5, seed=1), measure="m", n_resamples=B),
    "resample_index": lambda B: pf.resample_index(QIDS, n_resamples=B),
    "resample_index sign-flip clusters": lambda B: pf.resample_index(   # 2**70 patterns: never enumerated
        [f"q{i}" for i in range(70)], n_resamples=B, kind="sign-flip", clusters=[i // 2 for i in range(70)]),
    "compare in DuckDB": lambda B: pf.compare(duckdb.from_arrow(_frame().to_arrow()), baseline="s0", n_resamples=B),
    "compare_clustered in DuckDB": lambda B: pf.compare_clustered(
        duckdb.from_arrow(_frame().with_columns(cluster=pl.col("qid")).to_arrow()), baseline="s0", n_resamples=B),
    "compare_segments in DuckDB": lambda B: pf.compare_segments(duckdb.from_arrow(_frame().to_arrow()), SEGMENTS,
                                                                baseline="s0", n_resamples=B),
}


@pytest.mark.parametrize("door", sorted(DOORS))
def test_every_resampling_door_refuses_an_absurd_n_resamples_naming_it_and_accepts_a_small_one(door):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ResamplingCostError, match=r"^`n_resamples` = 10000000000000 is too large") as err:
            DOORS[door](ABSURD)
        assert err.value.argument == "n_resamples" and 0 < err.value.largest < ABSURD
        assert isinstance(err.value, ValueError) and isinstance(err.value, pf.PairedFrameError)
        for part in ("would take", "of memory", "at most about", "fits"):
            assert part in str(err.value)
        DOORS[door](99)                                       # an ordinary value passes the same check


def test_analyze_names_the_plan_key():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ResamplingCostError, match=r"^plan key n_resamples = 10000000000000 is too large"):
            pf.analyze(pf.Plan.from_toml(PLAN.format(B=ABSURD)), _frame())
        assert pf.analyze(pf.Plan.from_toml(PLAN.format(B=99)), _frame()).table.height == 1


def test_resample_index_collect_refuses_a_table_that_would_not_fit(monkeypatch):
    monkeypatch.setenv("PAIREDFRAME_MAX_RESAMPLING_BYTES", str(WORK_BYTES + 64 * 2**20))
    index = pf.resample_index(QIDS, n_resamples=2_000_000)      # made in chunks: fine to iterate
    with pytest.raises(ResamplingCostError, match="iterate over the chunks"):
        index.collect()
    assert pf.resample_index(QIDS, n_resamples=100).collect().height <= 100 * 30


def test_a_value_that_enumerates_every_sign_pattern_costs_only_the_patterns():
    # 2**10 patterns for 10 queries however large n_resamples is: the t interval needs no resamples
    d = _frame(n=10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = pf.compare(d, baseline="s0", n_resamples=ABSURD, interval="t")
    assert out["exact"].all()


@pytest.mark.parametrize("command, flag", [("compare", "--n-resamples"), ("segments", "--n-resamples"),
                                           ("table", "--n-resamples")])
def test_cli_names_the_flag(tmp_path, command, flag):
    qrels, runs = pf.example.example_paths()
    args = [command, str(qrels), *map(str, runs), "-m", "AP", "-B", str(ABSURD)]
    if command == "segments":
        ev = pf.evaluate(runs, qrels, ["AP"])
        qids = ev.per_query["qid"].unique().sort().to_list()
        path = tmp_path / "segments.csv"
        segments = pl.DataFrame({"qid": qids, "segment_set": "s", "segment": [str(i % 2) for i in range(len(qids))]})
        segments.write_csv(path)
        args += ["--segments", str(path)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert f"{flag} = {ABSURD} is too large" in result.stderr and "n_resamples" not in result.stderr
    assert "Traceback" not in result.stderr


def test_cost_estimate_and_largest_value_against_the_documented_formula(monkeypatch):
    monkeypatch.setenv("PAIREDFRAME_MAX_RESAMPLING_SECONDS", "10")
    monkeypatch.setenv("PAIREDFRAME_MAX_RESAMPLING_BYTES", str(WORK_BYTES + 8 * 10**6))
    # two blocks run in turn: time adds up, memory is the larger block's
    draws, units, columns, kept = np.array([10**6, 10**5]), np.array([50, 8]), np.array([3, 1]), np.array([2, 0])
    seconds = float(np.sum(draws * units * (columns + PER_DRAW_COLUMNS))) / ELEMENTS_PER_SECOND
    assert seconds < 10                                              # time fits, memory does not
    with pytest.raises(ResamplingCostError) as err:
        check_resampling_cost(10**6, argument="x", draws=draws, units=units, columns=columns, kept=kept)
    assert err.value.largest == int(10**6 * (8 * 10**6) / (10**6 * 2 * 8))      # = 500,000: memory-bound
    check_resampling_cost(500_000, argument="x", draws=draws // 2, units=units, columns=columns, kept=kept)
    monkeypatch.setenv("PAIREDFRAME_MAX_RESAMPLING_SECONDS", str(seconds / 4))
    monkeypatch.setenv("PAIREDFRAME_MAX_RESAMPLING_BYTES", str(10**12))
    with pytest.raises(ResamplingCostError, match=r"`x` = 1000000 is too large") as err:
        check_resampling_cost(10**6, argument="x", draws=draws, units=units, columns=columns, kept=kept)
    assert err.value.largest == int(10**6 / 4)                                   # time-bound
    check_resampling_cost(10**6, argument="x", draws=[], units=[])               # nothing to resample


@pytest.mark.parametrize("interval", ["studentized", "percentile", "signflip"])
def test_compare_in_column_slices_equals_one_block_and_keeps_less_memory(monkeypatch, interval):
    frame = _frame(k=40, n=25)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tracemalloc.start()
        whole = pf.compare(frame, baseline="s0", n_resamples=4000, interval=interval, family_by=[])
        peak_whole = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        monkeypatch.setattr(_cost, "KEPT_BYTES", 4000 * 8 * 5 * 3)          # slices of 3 to 5 columns
        tracemalloc.start()
        sliced = pf.compare(frame, baseline="s0", n_resamples=4000, interval=interval, family_by=[])
        peak_sliced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert sliced["pvalue"].to_list() == whole["pvalue"].to_list()           # the same sign patterns
    for column in ("ci_low", "ci_high", "se"):
        np.testing.assert_allclose(sliced[column].to_numpy(), whole[column].to_numpy(), rtol=1e-12, atol=1e-15)
    assert peak_sliced < 0.6 * peak_whole, (peak_sliced, peak_whole)


def test_compare_clustered_in_column_slices_equals_one_block(monkeypatch):
    frame = _frame(k=30, n=24).with_columns(cluster=pl.col("qid"))        # 24 singleton clusters
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = pf.compare_clustered(frame, baseline="s0", n_resamples=3000, interval="signflip")
        monkeypatch.setattr(_cost, "KEPT_BYTES", 3000 * 8 * 5 * 4)
        sliced = pf.compare_clustered(frame, baseline="s0", n_resamples=3000, interval="signflip")
    for column in ("pvalue", "ci_low", "ci_high", "se"):
        np.testing.assert_allclose(sliced[column].to_numpy(), whole[column].to_numpy(), rtol=1e-12, atol=1e-15)
