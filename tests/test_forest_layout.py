"""The forest plot on compare, compare_clustered, compare_segments and several-baseline results on
DL-2019: a title naming measure and baseline that fits the figure, one label per row, the legend
below the axes (never over a row), and "per segment" only when the rows are segments."""

from __future__ import annotations

import re

import polars as pl
import pytest

import pairedframe as pf

pytest.importorskip("matplotlib")

from pairedframe.report import forest  # noqa: E402


@pytest.fixture(scope="module")
def dl19_ndcg(shared_data):
    runs = sorted((shared_data / "llm_labels_dl" / "dl2019_runs").glob("input.*.gz"))
    qrels = shared_data / "anserini_tools" / "qrels.dl19-passage.txt"
    if len(runs) < 17 or not qrels.exists():
        pytest.skip("DL-2019 runs or qrels not in the shared data")
    return pf.evaluate([str(r) for r in runs], str(qrels), ["nDCG@10"]).per_query


def _draw(monkeypatch, result, path, **kwargs):
    """forest_plot's figure, kept open: (title, row labels, and the layout boxes in pixels)."""
    kept = []
    plt = forest.pyplot()
    monkeypatch.setattr(plt, "close", kept.append)
    forest.forest_plot(result, path, **kwargs)
    fig = kept[0]
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    boxes = {"figure": fig.bbox, "axes": ax.get_tightbbox(renderer), "legend": fig.legends[0].get_window_extent(renderer),
             "title": fig._suptitle.get_window_extent(renderer)}
    labels = [t.get_text() for t in ax.get_yticklabels()]
    title = fig.get_suptitle()
    plt.close(fig)
    return title, labels, boxes


def _assert_layout(boxes):
    fig, axes, legend, title = boxes["figure"], boxes["axes"], boxes["legend"], boxes["title"]
    assert legend.y1 <= axes.y0 + 1, "the legend overlaps the axes"          # below the x label
    assert fig.x0 - 1 <= title.x0 and title.x1 <= fig.x1 + 1, "the title is cut off"
    assert fig.x0 - 1 <= axes.x0 and axes.x1 <= fig.x1 + 1 and legend.y0 >= fig.y0 - 1
    assert fig.x0 - 1 <= legend.x0 and legend.x1 <= fig.x1 + 1, "the legend is cut off at a side"
    assert axes.width > 0.4 * fig.width, "the row labels squeeze the axes"


def test_forest_plot_with_200_character_names_keeps_labels_axes_and_legend_inside(tmp_path, monkeypatch):
    """A 200-character segment or system name pushed the row labels off the figure's left edge and
    squeezed the axes to a sliver; a 4-entry legend in 3 columns ran off both sides."""
    import numpy as np

    rng = np.random.default_rng(1)
    a = rng.uniform(size=40)
    long = "run_" + "bert_rerank_with_a_long_configuration_name_" * 5
    rows = [{"system": s, "qid": f"q{i:02d}", "measure": "m", "value": float(v)}
            for s, arr in (("A", a), (long, np.clip(a + 0.05, 0, 1)), ("B", np.clip(a - 0.02, 0, 1)))
            for i, v in enumerate(arr)]
    per_query = pl.DataFrame(rows)
    result = pf.compare(per_query, baseline="A", n_resamples=999, seed=0)
    title, labels, boxes = _draw(monkeypatch, result, tmp_path / "long.png")
    assert f"{long[:20]}…{long[-19:]} (n=40)" in labels and "B (n=40)" in labels
    _assert_layout(boxes)
    segments = pl.DataFrame({"qid": [f"q{i:02d}" for i in range(40)], "segment_set": "topic",
                             "segment": ["topic " + "x" * 200 if i % 2 else "short" for i in range(40)]})
    per_segment = pf.compare_segments(per_query.filter(pl.col("system") != long), segments, baseline="A",
                                      seed=0, n_resamples=999)
    title, labels, boxes = _draw(monkeypatch, per_segment, tmp_path / "segments.png")
    assert max(map(len, labels)) < 60
    _assert_layout(boxes)
    other = long.replace("with_a_long", "with_one_long")      # the same head and tail: cut alike
    twin = per_query.filter(pl.col("system") == long).with_columns(system=pl.lit(other))
    title, labels, boxes = _draw(monkeypatch, pf.compare(pl.concat([per_query, twin]), baseline="A", n_resamples=999,
                                                         seed=0), tmp_path / "m.png")
    assert sorted(labels) == sorted(f"{s} (n=40)" for s in ("B", long, other))   # drawn whole, not one label twice


def test_forest_plot_of_compare_names_the_baseline_and_labels_each_row_once(dl19_ndcg, tmp_path, monkeypatch):
    result = pf.compare(dl19_ndcg, baseline="bm25base_p", seed=0)
    title, labels, boxes = _draw(monkeypatch, result, tmp_path / "f.png")
    assert title == "nDCG@10: 16 systems − baseline bm25base_p"
    assert sorted(labels) == sorted(f"{s} (n=43)" for s in result["system"])      # no system twice, no "/ measure"
    _assert_layout(boxes)
    title, labels, boxes = _draw(monkeypatch, result, tmp_path / "one.png", system="idst_bert_p1")
    assert title == "nDCG@10: idst_bert_p1 − baseline bm25base_p"                # not "per segment"
    assert labels == ["idst_bert_p1 (n=43)"]
    _assert_layout(boxes)


def test_forest_plot_of_several_baselines_clusters_and_segments_keeps_its_layout(dl19_ndcg, tmp_path, monkeypatch):
    several = pf.compare(dl19_ndcg, baseline=["bm25base_p", "UNH_bm25"], seed=0)
    title, labels, boxes = _draw(monkeypatch, several, tmp_path / "b.png")
    assert title == "nDCG@10: 16 systems − baselines bm25base_p, UNH_bm25"     # UNH_bm25 vs bm25base_p once
    assert "idst_bert_p1 − UNH_bm25 (n=43)" in labels and len(set(labels)) == several.height
    _assert_layout(boxes)

    clusters = dl19_ndcg.with_columns((pl.col("qid").cast(pl.Int64) % 9).cast(pl.Utf8).alias("cluster"))
    clustered = pf.compare_clustered(clusters, baseline="bm25base_p", clusters="cluster", seed=0)
    title, labels, boxes = _draw(monkeypatch, clustered, tmp_path / "c.png")
    assert title == "nDCG@10: 16 systems − baseline bm25base_p" and len(set(labels)) == clustered.height
    _assert_layout(boxes)

    qids = dl19_ndcg["qid"].unique().sort().to_list()
    segments = pl.DataFrame({"qid": qids, "segment_set": "half",
                             "segment": ["odd" if i % 2 else "even" for i in range(len(qids))]})
    per_segment = pf.compare_segments(dl19_ndcg, segments, baseline="bm25base_p", seed=0, n_resamples=1000)
    title, labels, boxes = _draw(monkeypatch, per_segment, tmp_path / "s.png")
    assert title == "nDCG@10: 16 systems − baseline bm25base_p per segment"
    assert "idst_bert_p1 | half: odd (n=21)" in labels and len(set(labels)) == 32
    _assert_layout(boxes)
    title, labels, boxes = _draw(monkeypatch, per_segment, tmp_path / "s1.png", system="idst_bert_p1",
                                 title="a hand-written title " * 8)
    assert sorted(labels) == ["half: even (n=22)", "half: odd (n=21)"] and "\n" in title   # long titles wrap
    _assert_layout(boxes)


def test_unbounded_interval_ends_become_arrows_not_the_axis_range(tmp_path):
    """A one-sided interval or an unbounded studentized one used to stretch the x axis to +-1e9."""
    import numpy as np
    import polars as pl

    import pairedframe as pf
    from pairedframe.report.forest import forest_plot, x_limits

    assert x_limits([0.1, -0.05], [0.02, float("-inf")], [float("inf"), 0.01]) == pytest.approx((-0.062, 0.112))
    assert x_limits([0.0], [float("-inf")], [float("inf")]) == pytest.approx((-0.05, 0.05))
    rng = np.random.default_rng(3)
    a = rng.uniform(size=30)
    rows = [{"system": s, "qid": f"q{i:02d}", "measure": "m", "value": float(v)}
            for s, arr in (("A", a), ("B", np.clip(a + 0.05, 0, 1))) for i, v in enumerate(arr)]
    res = pf.compare(pl.DataFrame(rows), baseline="A", alternative="greater", n_resamples=199)
    out = forest_plot(res, tmp_path / "one_sided.svg")
    texts = re.findall(r"<!-- (.*?) -->", out.read_text())    # matplotlib writes each text's string as a comment
    ticks = [float(t.replace("−", "-")) for t in texts if re.fullmatch(r"[-−]?[0-9.]+", t)]
    assert "arrow: the interval is unbounded on that side" in texts
    assert ticks and max(abs(t) for t in ticks) < 1     # not the old axis stretched to +-1e9 (nor an offset text)
    assert not any("10^" in t or "1e" in t for t in texts)


def test_forest_plot_of_62_systems_shows_every_significant_row_and_counts_what_it_shows(shared_data, tmp_path,
                                                                                       monkeypatch):
    """DL-2021, 63 runs against its BM25 run: 62 rows, max_rows=60.  The old rule kept the 30 lowest and
    30 highest deltas, dropping the two middle rows (both significant here) and titling it "60 systems"."""
    folder = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    runs = sorted((folder / "passages-runs").glob("*.gz"))
    if len(runs) != 63:
        pytest.skip("the 63 DL-2021 runs are not in the shared data")
    ev = pf.evaluate([str(r) for r in runs], str(folder / "qrels-pass.txt"), ["nDCG@10"])
    result = pf.compare(ev, baseline="p_bm25", n_resamples=2000, seed=0)
    by_delta = result.sort("delta")
    decided = set(result.filter(pl.col("verdict").is_in(["better", "worse"]))["system"])
    assert result.height == 62 and set(by_delta["system"][30:32]) <= decided        # the middle two are decided
    kept = []
    plt = forest.pyplot()
    monkeypatch.setattr(plt, "close", kept.append)
    forest.forest_plot(result, tmp_path / "f.png")
    ax = kept[0].axes[0]
    shown = [t.get_text().rsplit(" (n=", 1)[0] for t in ax.get_yticklabels()]
    left_out = set(result["system"]) - set(shown)
    assert len(shown) == 60 and decided <= set(shown) and len(left_out) == 2
    assert shown == [s for s in by_delta["system"] if s in set(shown)]              # still sorted by delta
    assert kept[0].get_suptitle() == "nDCG@10: 60 of 62 systems − baseline p_bm25"
    assert "2 of 62 rows not shown: not significant, nearest the middle; max_rows=60" in " ".join(ax.get_xlabel().split())
    plt.close(kept[0])


def test_forest_plot_wraps_a_long_x_label_note_inside_the_figure(tmp_path, monkeypatch):
    """186 segment rows, max_rows=60: the note "(126 of 186 rows not shown: ..., nearest the middle; max_rows=60)"
    under axes pushed right by long row labels ran off the figure's right edge, cut at "nearest the middl".
    The oracle is matplotlib's renderer: the laid-out label's extent lies inside the figure, and the wrapped
    label reads as the note."""
    import numpy as np

    rng = np.random.default_rng(0)
    n = 186
    delta = rng.normal(0, 0.05, n)
    rows = pl.DataFrame({"segment_set": "topic", "system": "x", "measure": "nDCG@10", "baseline": "b",
                         "segment": [f"segment {i:03d}" + "_with_a_long_name" * (i % 3) for i in range(n)],
                         "delta": delta, "ci_low": delta - 0.1, "ci_high": delta + 0.1,
                         "significant": [i % 3 == 0 for i in range(n)]})
    kept = []
    plt = forest.pyplot()
    monkeypatch.setattr(plt, "close", kept.append)
    forest.forest_plot(rows, tmp_path / "f.png")
    fig = kept[0]
    label = fig.axes[0].xaxis.label
    box = label.get_window_extent(fig.canvas.get_renderer())
    text = label.get_text()
    plt.close(fig)
    assert "\n" in text.split("\n(", 1)[1]                               # the note itself is wrapped
    note = " ".join(text.split("\n", 1)[1].split())
    assert note.startswith("(126 of 186 rows not shown: ") and note.endswith(", nearest the middle; max_rows=60)")
    assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1, (box, fig.bbox)
    assert fig.bbox.y0 <= box.y0


def test_rows_to_show_prefers_decided_rows_then_the_extremes():
    frame = pl.DataFrame({"delta": [float(i) for i in range(10)]})
    decisions = ["not significant"] * 10
    decisions[4] = decisions[5] = "better"
    shown, note = forest.rows_to_show(frame, decisions, 6)
    assert shown["delta"].to_list() == [0.0, 1.0, 4.0, 5.0, 8.0, 9.0]
    assert note == "4 of 10 rows not shown: not significant, nearest the middle; max_rows=6"
    every = ["worse"] * 10
    shown, note = forest.rows_to_show(frame, every, 4)                    # more decided rows than room
    assert shown["delta"].to_list() == [0.0, 1.0, 8.0, 9.0]
    assert note == "6 of 10 rows not shown: 6 of them significant, nearest the middle; max_rows=4"
    assert forest.rows_to_show(frame, decisions, 10) == (frame, None)
    with pytest.raises(ValueError, match="max_rows"):
        forest.rows_to_show(frame, decisions, 0)


def test_forest_plot_refuses_a_path_without_a_format_suffix(tmp_path):
    """matplotlib would write 'forest.png' while the function returned 'forest', a path that does not exist."""
    import polars as pl

    from pairedframe.report.forest import forest_plot

    rows = pl.DataFrame({"system": ["b"], "baseline": ["a"], "measure": ["AP"], "delta": [0.1], "ci_low": [0.0],
                         "ci_high": [0.2], "verdict": ["better"]})
    with pytest.raises(ValueError, match=r"`path` must end in .png, .pdf or .svg, got 'forest'"):
        forest_plot(rows, tmp_path / "forest")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("folder", ["plots", "plots.png"])
def test_forest_plot_to_a_folder_gets_the_shared_is_a_folder_message(tmp_path, folder):
    """A folder, with a suffix or without, is named as one with the wording every command uses (it was told
    "`path` must end in .png, .pdf or .svg" first)."""
    import polars as pl

    from pairedframe.report.forest import forest_plot

    rows = pl.DataFrame({"system": ["b"], "baseline": ["a"], "measure": ["AP"], "delta": [0.1], "ci_low": [0.0],
                         "ci_high": [0.2], "verdict": ["better"]})
    (tmp_path / folder).mkdir()
    with pytest.raises(ValueError, match=f"path {str(tmp_path / folder)!r} is a folder; name the file to write"):
        forest_plot(rows, tmp_path / folder)


def test_forest_row_labels_never_name_two_systems_alike_when_their_rows_differ_by_segment():
    """Two 60-character systems differing only in the middle, on rows that their segments already tell
    apart: the labels were cut as whole labels, so both systems read the same; each kind of name is now
    cut by plots.short_names, so the systems are whole while the segment names still are cut."""
    stem, segment = "x" * 30, "s" * 50
    df = pl.DataFrame({"system": [f"{stem}_a_{stem}", f"{stem}_b_{stem}"], "segment_set": "half",
                       "segment": [f"{segment}1", f"{segment}2"], "n_queries": [5, 6]})
    labels = forest._row_labels(df, per_segment=True, show_segment_set=False)
    assert labels == [f"{stem}_a_{stem} | {segment[:20]}…{segment[-18:]}1 (n=5)",
                      f"{stem}_b_{stem} | {segment[:20]}…{segment[-18:]}2 (n=6)"]


def test_forest_plot_mixing_first_rel_rank_with_ap_labels_the_lower_is_better_rows(tmp_path, monkeypatch):
    """On one delta axis a FirstRelRank row's gain is a negative delta, an AP row's a positive one: the
    FirstRelRank rows (and the x label of a FirstRelRank-only plot, and the report's forest) say so."""
    import numpy as np

    from pairedframe.report.html_svg import forest_svg

    rng = np.random.default_rng(3)
    rows = [{"system": s, "qid": f"q{i:02d}", "measure": m, "value": float(v)}
            for s, shift in (("base", 0), ("new", 1)) for m, values in
            (("AP", np.clip(rng.uniform(size=30) + 0.05 * shift, 0, 1)), ("FirstRelRank", rng.integers(1, 20, 30) - shift))
            for i, v in enumerate(values)]
    result = pf.compare(pl.DataFrame(rows), baseline="base", n_resamples=999, seed=0)
    _, labels, _ = _draw(monkeypatch, result, tmp_path / "mixed.png")
    assert sorted(labels) == ["new | AP (n=30)", "new | FirstRelRank (lower is better) (n=30)"]
    kept = []
    monkeypatch.setattr(forest.pyplot(), "close", kept.append)
    forest.forest_plot(result, tmp_path / "rank.png", measure="FirstRelRank")
    forest.forest_plot(result, tmp_path / "ap.png", measure="AP")
    assert [fig.axes[0].get_xlabel() for fig in kept] == ["delta FirstRelRank (lower is better): new − base",
                                                          "delta AP: new − base"]
    assert "delta FirstRelRank (lower is better)" in forest_svg(result, "FirstRelRank")
    assert "lower is better" not in forest_svg(result, "AP")
