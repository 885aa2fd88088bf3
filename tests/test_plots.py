"""Plots render to PNG, SVG and PDF with the expected number of marks (counted by their SVG ids),
titles naming what is compared, and errors for bad input."""

from __future__ import annotations

import re
import warnings

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
    noisy = other.with_columns(pl.col("value") + pl.Series(np.random.default_rng(2).normal(0, 0.1, other.height)))
    agreement = pf.rank_agreement(per_query, noisy, measure="nDCG@10", n_resamples=200)
    out = agreement_scatter(agreement, tmp_path / "s.svg")
    text = out.read_text()
    assert _svg_ids(out, "pf-point-") == 5 and "Kendall" in text and "(approx.)" in text
    assert agreement_scatter(agreement, tmp_path / "s.png").stat().st_size > 1000
    # the same orderings without any one query: a NaN interval, which the title says instead of "[nan, nan]"
    with pytest.warns(pf.SmallSampleWarning, match="NaN, not a point"):
        flat = pf.rank_agreement(per_query, other, measure="nDCG@10")
    text = agreement_scatter(flat, tmp_path / "flat.svg").read_text()
    assert "(no interval)" in text and "[nan" not in text


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
    assert "AP: bert, t5 − baseline bm25 per segment" in text.replace("&#8722;", "−")
    assert "not significant" in text


def test_forest_plot_names_the_segment_of_one_query_it_cannot_draw(tmp_path):
    """A segment of one query has a delta but no interval: it is not drawn, and the x label says so."""
    rng = np.random.default_rng(2)
    qids = [f"q{q:02d}" for q in range(30)]
    pq = pl.DataFrame({"system": ["bm25"] * 30 + ["t5"] * 30, "qid": qids * 2, "measure": "AP",
                       "value": rng.uniform(size=60)})
    segments = pl.DataFrame({"qid": qids, "segment_set": "s", "segment": ["one"] + ["rest"] * 29})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")             # a segment of one query: warned, the point here
        res = pf.compare_segments(pq, segments, baseline="bm25", n_resamples=200)
    assert res.filter(pl.col("segment") == "one")["delta"].is_not_null().all()
    out = forest_plot(res, tmp_path / "f.svg")
    assert _svg_ids(out, "pf-segment-") == 1 and "unbounded" not in out.read_text()
    text = " ".join(out.read_text().split())
    assert "not drawn, no interval (fewer than 2 paired queries): s: one (n=1)" in text
    from pairedframe.errors import EmptyResultError

    with pytest.raises(EmptyResultError, match="has no interval"):
        forest_plot(res.filter(pl.col("segment") == "one"), tmp_path / "g.svg")


def test_plot_errors(per_query, tmp_path):
    with pytest.raises(ValueError, match="must end in one of"):
        delta_plot(per_query, tmp_path / "d.jpg", baseline="bm25", system="bert", measure="nDCG@10")
    with pytest.raises(ValueError, match="measure"):
        means_plot(per_query, tmp_path / "m.png", measure="AP")


def test_plot_path_that_is_a_folder_is_called_a_folder(per_query, tmp_path):
    with pytest.raises(ValueError, match=r"`path` .* is a folder; name the plot file"):
        delta_plot(per_query, tmp_path, baseline="bm25", system="bert", measure="nDCG@10")


def test_plot_errors_name_the_argument_the_caller_passed(per_query, tmp_path):
    """delta_plot takes one system= and measure=, means_plot one measure=: an unknown name is reported under
    that argument, not under the systems= / measures= of the functions they call (the outside tester)."""
    with pytest.raises(pf.EmptyResultError, match=r"^`system`: system\(s\) \['nope'\]"):
        delta_plot(per_query, tmp_path / "d.png", baseline="bm25", system="nope", measure="nDCG@10")
    with pytest.raises(pf.EmptyResultError, match=r"^`measure`: measure\(s\) \['AP'\]"):
        delta_plot(per_query, tmp_path / "d.png", baseline="bm25", system="bert", measure="AP")
    with pytest.raises(pf.EmptyResultError, match=r"^`measure`: measure\(s\) \['AP'\]"):
        means_plot(per_query, tmp_path / "m.png", measure="AP")
    with pytest.raises(pf.EmptyResultError, match=r"^`systems`: system\(s\) \['nope'\]"):
        means_plot(per_query, tmp_path / "m.png", measure="nDCG@10", systems=["nope"])


@pytest.fixture(scope="module")
def first_rel_rank():
    """FirstRelRank (lower is better): 'better' finds the first relevant document earlier on most queries."""
    rng = np.random.default_rng(5)
    rows = []
    for q in range(30):
        base = int(rng.integers(2, 40))
        rows.append(("base", f"q{q:02d}", "FirstRelRank", float(base)))
        rows.append(("better", f"q{q:02d}", "FirstRelRank", float(max(1, base - int(rng.integers(-3, 12))))))
        rows.append(("worse", f"q{q:02d}", "FirstRelRank", float(base + int(rng.integers(0, 20)))))
    return pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")


def test_delta_plot_wins_follow_the_measure_direction_against_compare(first_rel_rank, tmp_path):
    row = pf.compare(first_rel_rank, baseline="base", systems="better", n_resamples=200).row(0, named=True)
    assert row["wins"] > row["losses"] > 0                       # the oracle counts a lower rank as a win
    out = delta_plot(first_rel_rank, tmp_path / "d.svg", baseline="base", system="better", measure="FirstRelRank")
    text = out.read_text()
    assert f"better better ({row['wins']})" in text and f"base better ({row['losses']})" in text
    assert f"tie ({row['ties']})" in text and "lower is better" in text


def _tick_order(path, names):
    """System names in the order their tick labels appear in the SVG (matplotlib writes them bottom to top)."""
    text = path.read_text()
    return sorted(names, key=lambda n: text.index(f"<!-- {n} -->"))


def test_means_plot_puts_the_best_on_top_against_results_table(first_rel_rank, tmp_path):
    out = means_plot(first_rel_rank, tmp_path / "m.svg", measure="FirstRelRank")
    bottom_to_top = _tick_order(out, ["base", "better", "worse"])
    places = pf.results_table(first_rel_rank).table                  # place 1 = bold = best (the oracle)
    best = places.filter(pl.col("place") == 1)["system"].to_list()
    assert best == ["better"] and bottom_to_top == ["worse", "base", "better"]
    higher = first_rel_rank.with_columns(pl.lit("nDCG@10").alias("measure"), (1 / pl.col("value")).alias("value"))
    out = means_plot(higher, tmp_path / "h.svg", measure="nDCG@10")
    assert _tick_order(out, ["base", "better", "worse"])[-1] == "better"


def test_missing_output_folder_is_refused_before_the_work(per_query, tmp_path):
    missing = tmp_path / "missing" / "d.png"
    with pytest.raises(ValueError, match=r"path .*: the folder .*missing' does not exist"):
        delta_plot(None, missing, baseline="bm25", system="bert", measure="nDCG@10")     # no data needed to fail
    with pytest.raises(ValueError, match="does not exist"):
        means_plot(per_query, missing, measure="nDCG@10")
    with pytest.raises(ValueError, match="does not exist"):
        forest_plot(pl.DataFrame({"segment": ["s"], "delta": [0.1], "ci_low": [0.0], "ci_high": [0.2]}), missing)


def _kept_figure(monkeypatch, draw):
    """The figure ``draw()`` saves, kept open."""
    from pairedframe.report.plots import pyplot

    kept = []
    plt = pyplot()
    monkeypatch.setattr(plt, "close", kept.append)
    draw()
    return kept[0]


def test_agreement_scatter_names_points_readably_without_overlap(monkeypatch, tmp_path):
    """Fifteen systems, twelve of them crowded into a corner: every name written is at least 8 pt, inside
    the axes and clear of every other name and point; the names left out are counted below the axis."""
    from pairedframe.report.plots import LABEL_FONTSIZE

    rng = np.random.default_rng(4)
    centres = [0.5 + 0.002 * i for i in range(12)] + [0.2, 0.35, 0.8]
    rows = [(f"system_{i:02d}", f"q{q:02d}", "AP", float(np.clip(c + 0.05 * rng.standard_normal(), 0, 1)))
            for i, c in enumerate(centres) for q in range(30)]
    a = pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")
    agreement = pf.rank_agreement(a, a.with_columns(pl.col("value") * 0.8 + 0.1), measure="AP", n_resamples=50)
    fig = _kept_figure(monkeypatch, lambda: agreement_scatter(agreement, tmp_path / "s.png"))
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    names = [t for t in ax.texts if (t.get_gid() or "").startswith("pf-label-")]
    boxes = [t.get_window_extent(renderer) for t in names]
    points = ax.transData.transform(list(zip(agreement.means["mean_a"], agreement.means["mean_b"])))
    frame = ax.get_window_extent(renderer)
    assert 3 <= len(names) < 15 and LABEL_FONTSIZE >= 8
    for i, (text, box) in enumerate(zip(names, boxes)):
        assert text.get_fontsize() >= 8 and text.get_text() in set(agreement.means["system"])
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
        assert not any(box.overlaps(other) for other in boxes[i + 1:])
        assert not any(box.contains(x, y) for x, y in points)
        own = points[agreement.means["system"].to_list().index(text.get_text())]
        nearest = min(range(len(points)), key=lambda j: np.hypot(max(box.x0 - points[j][0], 0, points[j][0] - box.x1),
                                                                 max(box.y0 - points[j][1], 0, points[j][1] - box.y1)))
        assert tuple(points[nearest]) == tuple(own), text.get_text()      # a name sits nearest its own point
    for far in ("system_12", "system_13", "system_14"):                    # the outlying points are named
        assert far in {t.get_text() for t in names}
    assert ax.get_xlabel().endswith(f"({len(names)} of 15 systems named; the others' names would overlap)")
    assert _svg_ids(agreement_scatter(agreement, tmp_path / "s.svg"), "pf-label-") == len(names)
    few = pf.rank_agreement(a.filter(pl.col("system").is_in(["system_00", "system_12", "system_14"])),
                            a.filter(pl.col("system").is_in(["system_00", "system_12", "system_14"])),
                            measure="AP", n_resamples=50)
    fig = _kept_figure(monkeypatch, lambda: agreement_scatter(few, tmp_path / "few.png"))
    assert fig.axes[0].get_xlabel().endswith("(all systems named)") and len(fig.axes[0].texts) == 3


def test_forest_plot_with_nothing_to_plot_names_what_it_got(per_query, tmp_path):
    """An empty compare result is 'no comparison rows', filters that match nothing are named."""
    from pairedframe.errors import EmptyResultError

    res = pf.compare(per_query, baseline="bm25", n_resamples=200)
    with pytest.raises(EmptyResultError, match="the result has no comparison rows"):
        forest_plot(res.head(0), tmp_path / "f0.svg")
    with pytest.raises(EmptyResultError, match=r"no comparison row of the 4 matches system='nope'"):
        forest_plot(res, tmp_path / "f0.svg", system="nope")
    segs = pl.DataFrame({"qid": [f"q{q:02d}" for q in range(25)], "segment_set": "s", "segment": "all"})
    with pytest.raises(EmptyResultError, match="the result has no segment rows"):
        forest_plot(pf.compare_segments(per_query, segs, baseline="bm25", n_resamples=200).head(0), tmp_path / "f.svg")
    assert not (tmp_path / "f0.svg").exists()


def test_names_with_dollar_signs_are_drawn_as_themselves_not_as_mathtext(tmp_path):
    """matplotlib reads text between two ``$`` as mathtext: ``$x$`` became an italic x and
    ``run $^$ v2`` raised a ParseSyntaxException.  With text kept as text in the SVG, every figure
    holds the names (systems, measure, segments) literally."""
    import matplotlib

    rng = np.random.default_rng(0)
    systems = ["base", "$x$", "run $^$ v2"]
    pq = pl.concat([pl.DataFrame({"system": s, "qid": [f"q{k:02d}" for k in range(40)], "measure": "P$1$",
                                  "value": np.clip(0.4 + 0.05 * i + rng.normal(0, 0.1, 40), 0, 1)})
                    for i, s in enumerate(systems)])
    segments = pl.DataFrame({"qid": [f"q{k:02d}" for k in range(40)], "segment_set": "$len$",
                             "segment": ["$short$" if k < 20 else "long" for k in range(40)]})
    agreement = pf.rank_agreement(pq, pq.with_columns(pl.col("value") * 0.9), measure="P$1$", n_resamples=50)
    with matplotlib.rc_context({"svg.fonttype": "none"}):
        figures = {
            "forest": forest_plot(pf.compare(pq, baseline="base", n_resamples=200, seed=0), tmp_path / "f.svg"),
            "segments": forest_plot(pf.compare_segments(pq, segments, baseline="base", n_resamples=200),
                                    tmp_path / "s.svg"),
            "delta": delta_plot(pq, tmp_path / "d.svg", baseline="base", system="run $^$ v2", measure="P$1$"),
            "means": means_plot(pq, tmp_path / "m.svg", measure="P$1$"),
            "scatter": agreement_scatter(agreement, tmp_path / "a.svg"),
            "title": means_plot(pq, tmp_path / "t.svg", measure="P$1$", title="cost in $ and $$"),
        }
    texts = {name: path.read_text() for name, path in figures.items()}
    for name, text in texts.items():
        assert "\\$" not in text, name                        # the escape never shows
    for name in ("forest", "means", "scatter"):
        assert "$x$" in texts[name] and "run $^$ v2" in texts[name], name
    assert "run $^$ v2 better" in texts["delta"] and "delta P$1$" in texts["delta"]
    assert "$len$: $short$" in texts["segments"] and "run $^$ v2" in texts["segments"]
    assert "cost in $ and $$" in texts["title"]


def test_forest_plot_legend_names_the_column_that_explains_a_dashed_interval(tmp_path):
    # 6 equal deltas: significant (exact p = 2/64) while the range-based interval holds 0, so dashed
    import matplotlib

    a = [0.3, 0.4, 0.2, 0.5, 0.3, 0.6]
    pq = pl.DataFrame({"system": ["a"] * 6 + ["b"] * 6, "qid": [f"q{i}" for i in range(6)] * 2, "measure": "P@10",
                       "value": a + [round(v + 0.1, 10) for v in a]})
    seg = pl.DataFrame({"qid": [f"q{i}" for i in range(6)], "segment_set": "s", "segment": "short"})
    with matplotlib.rc_context({"svg.fonttype": "none"}), pytest.warns(UserWarning):
        segments = forest_plot(pf.compare_segments(pq, seg, baseline="a", n_resamples=1000), tmp_path / "s.svg")
        compared = forest_plot(pf.compare(pq, baseline="a", n_resamples=1000), tmp_path / "c.svg")
    segments, compared = segments.read_text(), compared.read_text()
    assert "dashed: the interval contradicts the decision" in segments and "see warning" in segments
    assert "verdict_note" not in segments
    assert "(see verdict_note)" in compared


def test_report_forest_svg_legend_names_the_column_that_explains_a_dashed_interval():
    """The HTML report's SVG forest plot says where the table explains a dashed interval, as forest_plot does."""
    from pairedframe.report.html_svg import forest_svg

    a = [0.3, 0.4, 0.2, 0.5, 0.3, 0.6]
    pq = pl.DataFrame({"system": ["a"] * 6 + ["b"] * 6, "qid": [f"q{i}" for i in range(6)] * 2, "measure": "P@10",
                       "value": a + [round(v + 0.1, 10) for v in a]})
    with pytest.warns(UserWarning):
        svg = forest_svg(pf.compare(pq, baseline="a", n_resamples=1000), "P@10")
    assert "dashed: the interval contradicts the decision (see verdict_note)" in svg


def test_report_svg_figures_cut_long_run_names_so_rows_stay_apart_and_inside_the_label_column():
    """The report's own SVG forest plot drew 70-character names right-aligned at x=362: their starts fell
    off the image and rows read alike; its bar chart's title and legend ran off both sides."""
    import re

    from pairedframe.report.html_svg import delta_bars_svg, forest_svg

    rng = np.random.default_rng(2)
    base = rng.uniform(size=25)
    stem = "idst_bert_p1_with_a_really_quite_long_descriptive_system_name"
    names = [f"{stem}_v{k}" for k in range(3)] + [f"{stem[:20]}_middle_{k}_{stem[20:]}_v9" for k in range(2)]
    frames = [pl.DataFrame({"system": "base", "qid": [f"q{i}" for i in range(25)], "measure": "AP", "value": base})]
    frames += [pl.DataFrame({"system": n, "qid": [f"q{i}" for i in range(25)], "measure": "AP",
                             "value": np.clip(base + rng.normal(0.02 * k, 0.05, 25), 0, 1)}) for k, n in enumerate(names)]
    pq = pl.concat(frames)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        svg = forest_svg(pf.compare(pq.filter(~pl.col("system").str.contains("middle")), baseline="base",
                                    n_resamples=999), "AP")
        labels = re.findall(r'text-anchor="end">([^<]*\(n=25\))</text>', svg)
        assert len(labels) == 3 == len(set(labels)) and max(map(len, labels)) <= 48, labels
        alike = forest_svg(pf.compare(pq, baseline="base", n_resamples=999), "AP")   # two cut alike: whole names
        assert len(set(re.findall(r'text-anchor="end">([^<]*\(n=25\))</text>', alike))) == 5
        bars = delta_bars_svg(pf.paired_per_query(pq, baseline="base"), baseline="base", system=names[0],
                              measure="AP")
    title = re.findall(r'font-size="13" text-anchor="middle">([^<]*)</text>', bars)[0]
    assert len(title) < 80 and "…" in title


def test_names_with_control_characters_give_well_formed_svg_and_visible_escapes(tmp_path):
    """A system named 'bert\\x1b[31m' made every SVG figure malformed XML (broken images in the report) and
    printed raw control bytes into the HTML table; they are now written as their escapes."""
    import xml.dom.minidom

    from pairedframe.report.html_svg import forest_svg
    from pairedframe.report.plots import means_plot

    rng = np.random.default_rng(0)
    names = ["base", "tab\x0bvt", "bert\x1b[31m"]
    pq = pl.DataFrame({"system": [s for s in names for _ in range(20)], "qid": [f"q{i}" for i in range(20)] * 3,
                       "measure": "AP", "value": rng.random(60) * 0.5})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compared = pf.compare(pq, baseline="base", n_resamples=200)
        files = [forest_plot(compared, tmp_path / "f.svg"), delta_plot(pq, tmp_path / "d.svg", baseline="base",
                                                                       system=names[2], measure="AP"),
                 means_plot(pq, tmp_path / "m.svg", measure="AP")]
        html = pf.results_table(pq, baseline="base", n_resamples=200).to_html()
    texts = [forest_svg(compared, "AP")] + [f.read_text() for f in files]
    for text in texts:
        xml.dom.minidom.parseString(text.encode())          # raised on the raw control characters
    assert "bert\\x1b[31m" in texts[0] and "\x1b" not in html and "bert\\x1b[31m" in html


def test_agreement_scatter_title_counts_swapped_pairs_in_english(per_query, tmp_path):
    """The outside researcher's title read "1 swapped pairs"."""
    means = per_query.group_by("system").agg(pl.col("value").mean()).sort("value")
    second, (low, high) = means["system"][-2], means["value"][-2:]
    one_swap = per_query.with_columns(pl.when(pl.col("system") == second).then(pl.col("value") + (high - low) + 0.01)
                                      .otherwise(pl.col("value")).alias("value"))
    for other, count in ((per_query, 0), (one_swap, 1)):
        agreement = pf.rank_agreement(per_query, other, measure="nDCG@10", n_resamples=200)
        text = agreement_scatter(agreement, tmp_path / "t.svg").read_text()
        assert agreement.n_swapped == count
        assert re.search(rf"\b{count} swapped pair{'' if count == 1 else 's'}\b", text), count
