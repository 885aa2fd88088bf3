"""Plots render to PNG, SVG and PDF with the expected number of marks (counted by their SVG ids),
titles naming what is compared, and errors for bad input."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import pairedframe as pf

pytest.importorskip("matplotlib")

from pairedframe.report.forest import forest_plot  # noqa: E402
from pairedframe.report.plots import agreement_scatter, delta_plot, means_plot  # noqa: E402

MAGIC = {".png": b"\x89PNG", ".pdf": b"%PDF", ".svg": b"<?xml"}


@pytest.fixture(scope="module")
def per_query():
    rng = np.random.default_rng(0)
    rows = []
    for s, m in {"bm25": 0.40, "rm3": 0.42, "bert": 0.55, "t5": 0.56, "dense": 0.5}.items():
        for q in range(25):
            v = 0.5 if q < 3 else float(np.clip(m + 0.15 * rng.standard_normal(), 0, 1))   # 3 tied queries
            rows.append((s, f"q{q:02d}", "nDCG@10", v))
    return pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")


def _svg_ids(path, prefix):
    return path.read_text().count(f'id="{prefix}')


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_delta_plot_renders(per_query, tmp_path, suffix):
    out = delta_plot(per_query, tmp_path / f"d{suffix}", baseline="bm25", system="bert", measure="nDCG@10")
    assert out.stat().st_size > 1000 and out.read_bytes()[:5].startswith(MAGIC[suffix])
    if suffix == ".svg":
        text = out.read_text()
        assert _svg_ids(out, "pf-bar-") == 25
        assert "nDCG@10: bert − bm25, per query" in text.replace("&#8722;", "−")   # matplotlib's text comments
        assert "tie (3)" in text


def test_means_plot_and_agreement_scatter(per_query, tmp_path):
    out = means_plot(per_query, tmp_path / "m.svg", measure="nDCG@10")
    assert _svg_ids(out, "pf-mean-") == 5
    other = per_query.with_columns(pl.col("value") * 0.9 + 0.05)
    agreement = pf.rank_agreement(per_query, other, measure="nDCG@10", n_resamples=200)
    out = agreement_scatter(agreement, tmp_path / "s.svg")
    text = out.read_text()
    assert _svg_ids(out, "pf-point-") == 5 and "Kendall" in text
    assert agreement_scatter(agreement, tmp_path / "s.png").stat().st_size > 1000


def test_forest_plot_labels_systems_and_names_baseline(tmp_path):
    rng = np.random.default_rng(1)
    rows = []
    for s in ("bert", "t5"):
        for q in range(40):
            rows.append((s, f"q{q:02d}", "AP", float(rng.uniform())))
    for q in range(40):
        rows.append(("bm25", f"q{q:02d}", "AP", float(rng.uniform())))
    pq = pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")
    segments = pl.DataFrame({"qid": [f"q{q:02d}" for q in range(40)], "segment_set": "length",
                             "segment": ["short" if q < 20 else "long" for q in range(40)]})
    res = pf.compare_segments(pq, segments, baseline="bm25", n_resamples=200)
    out = forest_plot(res, tmp_path / "f.svg")
    text = out.read_text()
    assert _svg_ids(out, "pf-segment-") == 4
    assert "bert | length: short" in text and "t5 | length: long" in text
    assert "AP: bert, t5 − bm25 per segment" in text.replace("&#8722;", "−")
    assert "not significant" in text


def test_plot_errors(per_query, tmp_path):
    with pytest.raises(ValueError, match="must end in one of"):
        delta_plot(per_query, tmp_path / "d.jpg", baseline="bm25", system="bert", measure="nDCG@10")
    with pytest.raises(ValueError, match="measure"):
        means_plot(per_query, tmp_path / "m.png", measure="AP")
