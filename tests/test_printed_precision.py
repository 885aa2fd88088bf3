"""compare warns when one side's values are trec_eval's 4-decimal print and the other's full precision:
the rounding alone made a run compared with itself 22 wins, 20 losses, 1 tie (verdict inconclusive)."""

from __future__ import annotations

import subprocess
import warnings

import numpy as np
import polars as pl
import pytest

import pairedframe as pf


def _table(values: dict[str, np.ndarray]) -> pl.DataFrame:
    return pl.concat([pl.DataFrame({"system": name, "qid": [str(i) for i in range(len(v))], "measure": "AP",
                                    "value": v}) for name, v in values.items()])


def _printed_precision_warnings(table: pl.DataFrame, baseline: str, engine: str = "polars", relation=None) -> list[str]:
    if engine == "duckdb":
        table = relation(table)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.compare(table, baseline=baseline, n_resamples=99)
    return [str(w.message) for w in caught if "printed to 4 decimals" in str(w.message)]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_compare_warns_when_4_decimal_values_are_paired_with_full_precision_ones_naming_both_systems(engine,
                                                                                                     duckdb_relation):
    full = np.random.default_rng(5).uniform(0, 1, 30)
    said = _printed_precision_warnings(_table({"printed": np.round(full, 4), "exact": full}), "printed", engine,
                                       duckdb_relation)
    assert len(said) == 1 and "'printed' lies on the 4-decimal grid" in said[0] and "'exact' do not" in said[0], said
    said = _printed_precision_warnings(_table({"printed": np.round(full, 4), "exact": full}), "exact", engine,
                                       duckdb_relation)
    assert len(said) == 1 and "'printed' lies on the 4-decimal grid" in said[0], said


def test_printed_precision_warning_of_a_duckdb_relation_reads_as_the_polars_one(duckdb_relation):
    full = np.random.default_rng(7).uniform(0, 1, 40)
    table = _table({"printed": np.round(full, 4), "exact": full, "other": np.round(full[::-1], 4)})
    said = {engine: _printed_precision_warnings(table, "printed", engine, duckdb_relation)
            for engine in ("polars", "duckdb")}
    assert len(said["polars"]) == 1 and said["duckdb"] == said["polars"], said


def test_printed_precision_warning_of_a_keyed_duckdb_relation_names_the_key_as_the_polars_one(duckdb_relation):
    """The warning names the first row's key columns (a dataset, a judgment set; with several baselines the
    row's baseline), in memory and in DuckDB alike."""
    full = np.random.default_rng(7).uniform(0, 1, 40)
    table = _table({"printed": np.round(full, 4), "exact": full}).with_columns(dataset=pl.lit("robust04"))
    said = {engine: _printed_precision_warnings(table, "printed", engine, duckdb_relation)
            for engine in ("polars", "duckdb")}
    assert len(said["polars"]) == 1 and said["duckdb"] == said["polars"], said
    assert "(first: AP, dataset=robust04, where every value of 'printed'" in said["polars"][0], said


def test_printed_precision_warning_of_a_spark_frame_reads_as_the_polars_one(spark):
    full = np.random.default_rng(8).uniform(0, 1, 30)
    table = _table({"printed": np.round(full, 4), "exact": full})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.compare(spark.createDataFrame(table.to_arrow()), baseline="printed", n_resamples=99)
    said = [str(w.message) for w in caught if "printed to 4 decimals" in str(w.message)]
    assert said == _printed_precision_warnings(table, "printed") and len(said) == 1, said


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_compare_does_not_warn_about_printed_precision_when_both_sides_are_alike(engine, duckdb_relation):
    rng = np.random.default_rng(6)
    a, b = rng.uniform(0, 1, 30), rng.uniform(0, 1, 30)
    assert _printed_precision_warnings(_table({"x": a, "y": b}), "x", engine, duckdb_relation) == []                      # both full
    assert _printed_precision_warnings(_table({"x": np.round(a, 4), "y": np.round(b, 4)}), "x", engine, duckdb_relation) == []
    assert _printed_precision_warnings(_table({"x": np.round(a, 4), "y": b + 0.01}), "x", engine, duckdb_relation) == []  # no small delta


@pytest.mark.shared_data
def test_compare_of_trec_eval_q_output_with_pf_evaluate_of_the_same_run_warns(shared_data, tmp_path):
    import os
    binary = os.environ.get("PAIREDFRAME_TREC_EVAL") or next(
        (p for p in ("/tmp/breakit5/te/trec_eval",) if os.access(p, os.X_OK)), None)
    if binary is None:
        pytest.skip("no trec_eval binary: set PAIREDFRAME_TREC_EVAL")
    folder = shared_data / "trec_eval"
    out = subprocess.run([binary, "-q", "-m", "map", str(folder / "qrels.test"), str(folder / "results.test")],
                         capture_output=True, text=True, check=True).stdout
    (tmp_path / "te.q").write_text(out)
    printed = pf.read_results(tmp_path / "te.q").with_columns(system=pl.lit("trec_eval"))
    exact = pf.evaluate(folder / "results.test", folder / "qrels.test", ["AP"]).per_query.with_columns(
        system=pl.lit("pairedframe"))
    said = _printed_precision_warnings(pl.concat([printed.select(exact.columns), exact]), "trec_eval")
    assert len(said) == 1 and "'trec_eval' lies on the 4-decimal grid" in said[0], said


def test_printed_precision_screen_keeps_a_comparison_whose_sample_looks_alike(monkeypatch):
    """The strided screen (printed_precision.SCREEN_ROWS) clears only comparisons whose sampled sides both
    leave the grid: here every sampled value of both sides lies on it, and only unsampled ones do not."""
    from pairedframe.comparison import printed_precision

    monkeypatch.setattr(printed_precision, "SCREEN_ROWS", 5)     # 30 paired rows: every 6th is sampled
    printed = np.round(np.random.default_rng(7).uniform(0, 1, 30), 4)
    exact = printed.copy()
    exact[1::6] += 3e-5                                           # off the grid, never sampled, within rounding
    said = _printed_precision_warnings(_table({"printed": printed, "exact": exact}), "printed")
    assert len(said) == 1 and "'exact' do not" in said[0], said


def _clustered_printed_precision_warnings(table: pl.DataFrame, baseline: str, engine: str,
                                          relation) -> list[tuple[str, str]]:
    """(file, message) of compare_clustered's printed-precision warnings, 6 clusters (qid modulo 6)."""
    table = table.with_columns(cluster=(pl.col("qid").cast(pl.Int64) % 6).cast(pl.String))
    if engine == "duckdb":
        table = relation(table)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.compare_clustered(table, baseline=baseline, n_resamples=99)
    return [(w.filename, str(w.message)) for w in caught if "printed to 4 decimals" in str(w.message)]


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_compare_clustered_warns_about_printed_precision_at_the_callers_line(engine, duckdb_relation):
    full = np.random.default_rng(9).uniform(0, 1, 30)
    table = _table({"printed": np.round(full, 4), "exact": full})
    said = _clustered_printed_precision_warnings(table, "printed", engine, duckdb_relation)
    assert [message for _, message in said] == _printed_precision_warnings(table, "printed"), said
    assert len(said) == 1 and said[0][0] == __file__, said
    rng = np.random.default_rng(10)
    assert _clustered_printed_precision_warnings(_table({"x": rng.uniform(0, 1, 30), "y": rng.uniform(0, 1, 30)}),
                                                 "x", engine, duckdb_relation) == []


@pytest.mark.parametrize("engine", ["polars", "duckdb"])
def test_compare_clustered_printed_precision_warning_names_the_key_as_compare(engine, duckdb_relation):
    """compare named the first row's dataset, compare_clustered did not (the tester of round 14)."""
    full = np.random.default_rng(7).uniform(0, 1, 40)
    table = _table({"printed": np.round(full, 4), "exact": full}).with_columns(dataset=pl.lit("robust04"))
    said = _clustered_printed_precision_warnings(table, "printed", engine, duckdb_relation)
    assert [message for _, message in said] == _printed_precision_warnings(table, "printed"), said
    assert "(first: AP, dataset=robust04," in said[0][1], said
