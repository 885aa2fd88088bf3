"""compare_segments on segments whose sign-flip p-value was enumerated: each row's ``method`` and
``n_resamples`` are pf.compare's for the same deltas ("exact" with the sign patterns counted, not the
``n_resamples`` asked), and the settings of segments and compare say which counts are patterns enumerated
and which are resamples drawn."""

from __future__ import annotations

import json
import warnings

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.report.compare import format_comparison, n_resamples_text

B = 100
#: segment -> (queries, tied queries): x has 2**5 <= B patterns in all; y has 2**12 > B in all but 2**4 <= B
#: over its non-zero deltas; z has 2**12 > B over its non-zero deltas, so it is drawn.
SEGMENTS = {"x": (5, 0), "y": (12, 8), "z": (12, 0)}


def _per_query() -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(3)
    rows, segments = [], []
    for segment, (n, tied) in SEGMENTS.items():
        for i in range(n):
            qid = f"{segment}{i}"
            a = float(rng.uniform(0.2, 0.6))
            b = a if i < tied else a + float(rng.normal(0.03, 0.05))
            rows += [("a", qid, "AP", a), ("b", qid, "AP", b)]
            segments.append((qid, "s", segment))
    return (pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row"),
            pl.DataFrame(segments, schema=["qid", "segment_set", "segment"], orient="row"))


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


@pytest.mark.parametrize(("test", "interval"), [("randomization", "signflip"), ("randomization", "t"),
                                                ("t", "t"), ("randomization", "percentile")])
def test_segment_method_and_n_resamples_against_compare_on_the_segments_queries(test, interval):
    per_query, segments = _per_query()
    got = _quiet(lambda: pf.compare_segments(per_query, segments, baseline="a", test=test, interval=interval,
                                             n_resamples=B))
    for row in got.iter_rows(named=True):
        qids = segments.filter(pl.col("segment") == row["segment"])["qid"]
        want = _quiet(lambda: pf.compare(per_query.filter(pl.col("qid").is_in(qids)), baseline="a", test=test,
                                         interval=interval, n_resamples=B)).row(0, named=True)
        assert (row["method"], row["n_resamples"], row["exact"]) == (want["method"], want["n_resamples"],
                                                                      want["exact"]), row["segment"]


def test_exactly_enumerated_segments_report_method_exact_and_their_sign_patterns():
    per_query, segments = _per_query()
    got = _quiet(lambda: pf.compare_segments(per_query, segments, baseline="a", interval="t", n_resamples=B))
    by_segment = {r["segment"]: (r["method"], r["n_resamples"]) for r in got.iter_rows(named=True)}
    # x: all 2**5 patterns; y: the 2**4 of its 4 non-zero deltas (a zero delta flips to itself); z: drawn
    assert by_segment == {"x": ("exact", 2 ** 5), "y": ("exact", 2 ** 4), "z": ("resampling", B)}


def test_one_query_segment_has_no_method_and_no_n_resamples():
    per_query, segments = _per_query()
    segments = segments.with_columns(pl.when(pl.col("qid") == "x0").then(pl.lit("w")).otherwise("segment")
                                     .alias("segment"))
    got = _quiet(lambda: pf.compare_segments(per_query, segments, baseline="a", n_resamples=B))
    row = got.filter(pl.col("segment") == "w").row(0, named=True)
    assert (row["method"], row["n_resamples"]) == (None, None)


def test_n_resamples_text_names_sign_patterns_of_exact_rows_apart_from_resamples():
    per_query, segments = _per_query()
    got = _quiet(lambda: pf.compare_segments(per_query, segments, baseline="a", interval="t", n_resamples=B))
    n = got["n_resamples"].unique(maintain_order=True).to_list()
    assert n_resamples_text(n, got) == f"{B} on resampled rows; 32, 16 sign patterns enumerated on exact rows (per row)"
    assert n_resamples_text(n) == f"32, 16, {B} on resampled rows (per row)"     # without the rows' methods


def test_compare_settings_line_counts_exact_rows_as_sign_patterns_not_resamples():
    per_query, _ = _per_query()
    tied_b = per_query.filter(pl.col("qid").str.starts_with("y"))
    drawn_c = per_query.filter(pl.col("qid").str.starts_with("z") & (pl.col("system") == "b")).with_columns(
        pl.lit("c").alias("system"), pl.col("qid").str.replace("z", "y"))
    result = _quiet(lambda: pf.compare(pl.concat([tied_b, drawn_c]), baseline="a", interval="t", n_resamples=B))
    assert sorted(result["method"].to_list()) == ["exact", "resampling"]
    text = format_comparison(result, "table")
    assert f"n_resamples: {B} on resampled rows; 16 sign patterns enumerated on exact rows (per row)" in text


def test_segments_cli_settings_state_exact_rows_patterns_in_table_and_each_count_in_json(tmp_path):
    """Segment x (5 queries, 2**5 <= B) is enumerated beside drawn ones: the settings line said
    "on resampled rows" of the first row's count alone."""
    per_query, segments = _per_query()
    qrels = tmp_path / "qrels.txt"
    qids = per_query["qid"].unique(maintain_order=True).to_list()
    qrels.write_text("".join(f"{q} 0 d1 1\n{q} 0 d2 1\n" for q in qids))
    runs = []
    for system in ("a", "b"):       # d2 lower where the value is lower: equal values, equal AP (the ties)
        path = tmp_path / f"{system}.run"
        lines = []
        for q, v in per_query.filter(pl.col("system") == system).select("qid", "value").iter_rows():
            depth = 1 + int(round(1 / max(min(v, 0.99), 0.01)))
            lines += [f"{q} Q0 d1 1 100 {system}", *(f"{q} Q0 n{k} {k + 1} {99 - k} {system}" for k in range(1, depth)),
                      f"{q} Q0 d2 {depth + 1} 1 {system}"]
        path.write_text("\n".join(lines) + "\n")
        runs.append(f"{system}={path}")
    seg = tmp_path / "segments.csv"
    segments.write_csv(seg)
    args = ["segments", str(qrels), *runs, "-m", "AP", "--segments", str(seg), "-B", str(B)]
    table = CliRunner().invoke(app, args)
    assert table.exit_code == 0, table.output
    settings = json.loads(CliRunner().invoke(app, [*args, "-f", "json"]).stdout)["settings"]
    rows = json.loads(CliRunner().invoke(app, [*args, "-f", "json"]).stdout)["rows"]
    exact = sorted({r["n_resamples"] for r in rows if r["method"] == "exact"})
    assert exact and any(r["method"] == "resampling" for r in rows)
    assert sorted(settings["n_resamples"]) == sorted({r["n_resamples"] for r in rows})
    assert f"{B} on resampled rows; " in table.stdout and " sign patterns enumerated on exact rows" in table.stdout


def test_n_resamples_text_of_every_row_exact_says_sign_patterns_not_resamples():
    # "n_resamples: 8" read as if -B 8 had been asked (outside tester): one count of patterns says so
    per_query, segments = _per_query()
    only_x = segments.filter(pl.col("segment") == "x")
    got = _quiet(lambda: pf.compare_segments(per_query, only_x, baseline="a", interval="t", n_resamples=B))
    assert got["method"].to_list() == ["exact"]
    assert n_resamples_text(32, got) == "32 sign patterns enumerated (every row exact)"
    assert n_resamples_text(B, got.with_columns(pl.lit("resampling").alias("method"))) == B
