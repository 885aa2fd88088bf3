"""results_table: marks, places and intervals against the comparison they come from; snapshots of the
LaTeX, markdown, HTML and terminal renderings; the LaTeX compiles in a plain article (where TeX exists);
the `pairedframe table` command."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import scipy.stats as sps
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("PAIREDFRAME_UPDATE_SNAPSHOTS") == "1"


@pytest.fixture(scope="module")
def per_query(four_systems_per_query):
    return four_systems_per_query


def _check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if UPDATE or not path.exists():
        if not UPDATE:
            pytest.fail(f"missing snapshot {path}; run with PAIREDFRAME_UPDATE_SNAPSHOTS=1 to write it")
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} changed (PAIREDFRAME_UPDATE_SNAPSHOTS=1 to accept)"


def test_dagger_marks_follow_the_holm_pvalues(per_query):
    cmp = pf.compare(per_query, baseline="bm25", n_resamples=999, seed=0)
    t = pf.results_table(per_query, cmp)
    for row in cmp.iter_rows(named=True):
        cell = t.table.filter((pl.col("system") == row["system"]) & (pl.col("measure") == row["measure"])).row(0, named=True)
        significant = row["pvalue_holm"] < 0.05
        want = ("†" if row["delta"] > 0 else "‡") if significant else ""
        assert cell["marks"] == want
    base = t.table.filter(pl.col("system") == "bm25")
    assert set(base["marks"]) == {""}        # "better / worse than bm25" never marks bm25 itself
    assert cmp.filter(pl.col("pvalue_holm") < 0.05).height > 0


def test_marks_and_places_follow_the_measure_direction():
    """A lower rank is better: bold goes to the lowest FirstRelRank and the system that lowers it
    significantly gets the dagger (never the baseline, never the reverse)."""
    rng = np.random.default_rng(3)
    qids = [f"q{i:02d}" for i in range(40)]
    ranks = {"base": rng.integers(5, 15, 40), "good": rng.integers(1, 3, 40), "same": rng.integers(5, 15, 40)}
    table = pl.concat([pl.DataFrame({"system": s, "qid": qids, "measure": "FirstRelRank", "value": v.astype(float)})
                       for s, v in ranks.items()])
    cmp = pf.compare(table, baseline="base", n_resamples=999, seed=0)
    assert cmp.filter(pl.col("system") == "good")["verdict"].item() == "better"
    t = pf.results_table(table, cmp)
    marks = dict(zip(t.table["system"], t.table["marks"]))
    places = dict(zip(t.table["system"], t.table["place"]))
    assert marks["good"] == "†" and marks["base"] == ""
    assert places["good"] == 1
    letters = pf.results_table(table, pf.compare(table, pairs="all", n_resamples=999, seed=0))
    beaten = dict(zip(letters.table["system"], letters.table["better_than"]))
    assert set(beaten["good"].to_list()) == {"base", "same"}
    assert beaten["base"].to_list() == [] and beaten["same"].to_list() == []


def test_counts_that_rank_no_run_get_no_best_or_second_and_the_caption_says_why():
    """NumRet (what a run returned), NumQ and NumRel (the judgments') say nothing about which run is
    better: the bundled example's two systems get no place in them, AP's best is bold, and the
    caption names the counts (the tester's table bolded NumRet/NumRel for every system)."""
    qrels, runs = pf.example.example_paths()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = pf.evaluate([str(r) for r in runs], str(qrels), ["NumQ", "NumRet", "NumRel", "NumRelRet", "AP"])
        t = pf.results_table(ev)
    places = {(s, m): p for s, m, p in t.table.select("system", "measure", "place").iter_rows()}
    for m in ("NumQ", "NumRet", "NumRel"):
        assert all(p is None for (s, mm), p in places.items() if mm == m)
    assert sorted(places[(s, m)] or 0 for s, m in places if m == "AP") == [0, 1]  # of two systems, the best only
    assert sorted(p for (s, m), p in places.items() if m == "NumRelRet" and p is not None)[0] == 1
    assert "No best or second for NumQ, NumRet, NumRel: counts that rank no run." in t.caption
    assert not pf.measures.parse.ranks_runs("NumRet") and pf.measures.parse.ranks_runs("nDCG@10")


def test_caption_says_marks_of_a_measure_with_missing_values_compare_only_common_queries():
    """FirstRelRank is undefined where nothing relevant is found: "sys" finds rank 1 on 20 queries and nothing
    on 10, and is marked better over the 20 it shares with the baseline; the caption says the mark compares
    only those queries (the tester read the dagger as "better" outright)."""
    qrels = {f"q{i:02d}": {"rel": 1} for i in range(30)}
    base = {q: {"x": 2.0, "rel": 1.0} for q in qrels}
    sysb = {q: ({"rel": 2.0, "x": 1.0} if i < 20 else {"x": 2.0, "y": 1.0}) for i, q in enumerate(qrels)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = pf.evaluate({"base": base, "sys": sysb}, qrels, ["FirstRelRank", "Success@10"])
        t = pf.results_table(ev, baseline="base", seed=0)
    marks = {(s, m): k for s, m, k in t.table.select("system", "measure", "marks").iter_rows()}
    assert marks[("sys", "FirstRelRank")] == "†" and marks[("sys", "Success@10")] == "‡"
    assert ("Marks in FirstRelRank compare only the queries both systems have a value for" in
            " ".join(t.caption.split()))
    assert "Marks in Success@10" not in t.caption


def test_places_means_and_intervals(per_query):
    t = pf.results_table(per_query, ci="halfwidth", digits=3)
    nd = t.table.filter(pl.col("measure") == "nDCG@10")
    means = per_query.filter(pl.col("measure") == "nDCG@10").group_by("system").agg(pl.col("value").mean())
    want = dict(means.iter_rows())
    for r in nd.iter_rows(named=True):
        assert r["mean"] == pytest.approx(want[r["system"]])
        values = per_query.filter((pl.col("system") == r["system"]) & (pl.col("measure") == "nDCG@10"))["value"]
        ci = sps.t.interval(0.95, 29, loc=values.mean(), scale=values.std() / np.sqrt(30))
        assert (r["ci_low"], r["ci_high"]) == pytest.approx(ci)
    ranked = sorted(want, key=lambda s: -round(want[s], 3))
    assert dict(zip(nd["system"], nd["place"])) == {ranked[0]: 1, ranked[1]: 2, ranked[2]: None, ranked[3]: None}
    assert t.data.mode == "none" and "significantly" not in t.caption


def test_letters_for_several_baselines_and_all_pairs(per_query):
    t = pf.results_table(per_query, baseline=["bm25", "rm3"], n_resamples=999)
    assert t.data.letters == {"bm25": "a", "rm3": "b"}
    cmp = pf.compare(per_query, baseline=["bm25", "rm3"], n_resamples=999)
    for r in t.table.iter_rows(named=True):
        sig = cmp.filter((pl.col("measure") == r["measure"]) & (pl.col("pvalue_holm") < 0.05))
        beaten = [*sig.filter((pl.col("system") == r["system"]) & (pl.col("delta") > 0))["baseline"],
                  *sig.filter((pl.col("baseline") == r["system"]) & (pl.col("delta") < 0))["system"]]  # rm3 vs bm25 once
        assert r["marks"] == "".join(sorted({"bm25": "a", "rm3": "b"}[b] for b in beaten if b in ("bm25", "rm3")))
    tk = pf.results_table(per_query, pairs="all", correction="tukey", n_resamples=999)
    assert tk.data.letters == {"bm25": "a", "rm3": "b", "bert_base": "c", "t5": "d"}
    assert "randomised Tukey HSD with 999 permutations" in tk.caption


def test_caption_names_test_interval_correction_alpha_queries_seed_and_tie_rule(per_query, tmp_path):
    qrels, runs = pf.example.example_paths()
    ev = pf.evaluate(runs, qrels, ["nDCG@10", "AP"])
    t = pf.results_table(ev, baseline=ev.systems[0], n_resamples=999, seed=7, ci="range")
    c = t.caption
    for part in ("paired randomization test with 999 sign flips", "Holm-adjusted", "α = 0.05", "seed 7",
                 "95% t interval", f"over {ev.per_query['qid'].n_unique()} queries", "docno descending",
                 "delta intervals: studentized bootstrap (symmetric bootstrap-t)"):
        assert part in c, part


def test_caption_of_a_one_sided_or_t_test_says_which_side_and_names_no_seed_it_did_not_use(per_query):
    """A one-sided caption read "greater paired randomization test" and listed † / ‡ though one of them
    could not occur; a t-test with t intervals (nothing drawn) was captioned with a seed."""
    one_sided = pf.results_table(per_query, baseline="bm25", alternative="greater", n_resamples=999, seed=3).caption
    assert "one-sided (system − baseline > 0) paired randomization test with 999 sign flips" in one_sided
    assert "greater paired" not in one_sided and "One-sided: only a delta above 0 can be marked." in one_sided
    assert "seed 3" in one_sided
    less = pf.results_table(per_query, baseline="bm25", alternative="less", test="t", interval="t").caption
    assert "one-sided (system − baseline < 0) paired t-test" in less and "only a delta below 0" in less
    assert "seed" not in less
    two = pf.results_table(per_query, baseline="bm25", test="t", interval="studentized", n_resamples=999,
                           seed=5).caption
    assert "two-sided paired t-test" in two and "seed 5" in two          # its studentized intervals resample
    assert "One-sided" not in two


def _render_all(per_query):
    cmp = pf.compare(per_query, baseline=["bm25", "rm3"], n_resamples=999, seed=0)
    return pf.results_table(per_query, cmp, ci="halfwidth", title="Synthetic runs")


def test_latex_snapshot(per_query):
    _check_snapshot("results_table.tex", _render_all(per_query).to_latex(label="tab:results"))


def test_markdown_snapshot(per_query):
    _check_snapshot("results_table.md", _render_all(per_query).to_markdown())


def test_terminal_snapshot(per_query):
    _check_snapshot("results_table.txt", _render_all(per_query).to_terminal(width=100))


def test_html_snapshot(per_query):
    pytest.importorskip("great_tables")
    html = _render_all(per_query).to_html(table_id="pf-snapshot")
    body = html[html.index("<tbody"):html.index("</tbody>") + len("</tbody>")]   # the cells, not great_tables' CSS
    _check_snapshot("results_table.html", body + "\n")
    assert "Letters: significantly better" in html and 'id="pf-snapshot"' in html


def test_latex_compiles_in_a_plain_article(per_query, tmp_path):
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex not installed (apt-get install texlive-latex-recommended to run this test)")
    tables = [_render_all(per_query).to_latex(),
              pf.results_table(per_query, pairs="all", correction="tukey", n_resamples=299, ci="range").to_latex(),
              pf.results_table(per_query, baseline="bm25", n_resamples=299).to_latex()]
    doc = tmp_path / "table.tex"
    doc.write_text("\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n"
                   + "\n".join(tables) + "\\end{document}\n", encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", doc.name], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert (tmp_path / "table.pdf").stat().st_size > 1000
    assert not re.search(r"^! ", proc.stdout, flags=re.M)


def test_results_table_errors(per_query):
    with pytest.raises(ValueError, match="needs an evaluation, a comparison"):
        pf.results_table()
    with pytest.raises(ValueError, match="correction"):
        pf.results_table(per_query, baseline="bm25", correction="bonferroni")
    with pytest.raises(ValueError, match="pvalue_max_tukey_raw"):
        pf.results_table(per_query, baseline="bm25", correction="tukey", n_resamples=299)
    with pytest.raises(ValueError, match="not both"):
        pf.results_table(per_query, pf.compare(per_query, baseline="bm25", n_resamples=299), baseline="bm25")
    with pytest.raises(TypeError, match="unexpected keyword"):
        pf.results_table(per_query, n_resamples=10)
    with pytest.raises(ValueError, match=r"system\(s\) \['x'\]"):
        pf.results_table(per_query, systems=["x"])


def test_table_command(tmp_path):
    pytest.importorskip("great_tables")
    qrels, runs = pf.example.example_paths()
    base = pf.io.system_name_from_path(runs[0])
    out = tmp_path / "t.tex"
    qrels, runs = str(qrels), [str(r) for r in runs]
    res = CliRunner().invoke(app, ["table", qrels, *runs, "-m", "nDCG@10", "-m", "AP", "--baseline", base,
                                   "-B", "999", "--format", "latex", "-o", str(out)])
    assert res.exit_code == 0, res.output
    tex = out.read_text()
    assert "\\toprule" in tex and "\\caption{" in tex and "nDCG@10" in tex
    res = CliRunner().invoke(app, ["table", qrels, *runs, "-m", "AP", "--format", "markdown"])
    assert res.exit_code == 0 and res.output.startswith("| System")
    res = CliRunner().invoke(app, ["table", qrels, *runs, "-m", "AP", "--baseline", "nope"])
    assert res.exit_code == 2 and "--baseline 'nope' is not one of the runs" in res.output


def test_results_table_of_one_judgment_set():
    run = pl.DataFrame({"system": ["x", "x", "y", "y", "z", "z"], "qid": ["1", "2"] * 3,
                        "docno": ["d1", "d2", "d2", "d1", "d1", "d1"], "score": [1.0] * 6})
    q1 = pl.DataFrame({"qid": ["1", "2", "2"], "docno": ["d1", "d2", "d1"], "rel": [1, 1, 0]})
    q2 = pl.DataFrame({"qid": ["1", "2", "2"], "docno": ["d1", "d2", "d1"], "rel": [0, 0, 1]})
    js = pf.evaluate_judgment_sets(run, {"nist": q1, "llm": q2}, "P@1")
    with pytest.raises(ValueError, match="judgments="):
        pf.results_table(js)
    t = pf.results_table(js, judgments="llm")
    assert dict(zip(t.table["system"], t.table["mean"])) == {"x": 0.0, "y": 0.5, "z": 0.5}
    with pytest.raises(ValueError, match="not present"):
        pf.results_table(js, judgments="gold")


def test_table_alpha_follows_the_confidence_level_against_compare(per_query):
    """alpha = 1 - confidence_level, as compare decides its verdicts; the caption states the same level."""
    cmp = pf.compare(per_query, baseline="bm25", n_resamples=999, seed=0, confidence_level=0.5)
    t = pf.results_table(per_query, baseline="bm25", confidence_level=0.5, ci="halfwidth", n_resamples=999, seed=0)
    marks = {(s, m): x for s, m, x in t.table.select("system", "measure", "marks").iter_rows()}
    for row in cmp.iter_rows(named=True):                 # the oracle: compare's verdict at the same level
        assert marks[(row["system"], row["measure"])] == {"better": "†", "worse": "‡"}.get(row["verdict"], "")
    assert cmp.filter((pl.col("pvalue_holm") >= 0.05) & (pl.col("verdict") == "better")).height > 0
    assert t.data.settings["alpha"] == 0.5
    assert "50% t interval" in t.caption and "< α = 0.5;" in t.caption
    given = pf.results_table(per_query, pf.compare(per_query, baseline="bm25", n_resamples=999, confidence_level=0.9),
                             ci="range")
    assert "90% t interval" in given.caption and "α = 0.1;" in given.caption   # the comparison's level, both


def _bh_apart_from_holm() -> pl.DataFrame:
    """A baseline and four systems over 30 queries where one system is significant at alpha 0.1 after BH
    but not after Holm (asserted by the test that uses it)."""
    rng = np.random.default_rng(0)
    rows = []
    for q in range(30):
        base = rng.uniform(0, 1)
        rows.append(("UNH_bm25", str(q), "AP", base))
        rows += [(s, str(q), "AP", base + effect + rng.normal(0, 0.12))
                 for s, effect in [("a", 0.05), ("b", 0.06), ("c", 0.07), ("d", 0.0)]]
    return pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")


def test_table_marks_follow_the_correction_of_a_given_comparison_against_its_verdicts():
    """A BH comparison marks by BH (as its level sets alpha), the caption names BH; an explicit correction wins."""
    data = _bh_apart_from_holm()
    cmp = pf.compare(data, baseline="UNH_bm25", correction="bh", confidence_level=0.9, n_resamples=999, seed=0)
    assert cmp.filter((pl.col("pvalue_bh") < 0.1) & (pl.col("pvalue_holm") >= 0.1)).height > 0
    t = pf.results_table(data, comparison=cmp)
    marks = {(s, m): x for s, m, x in t.table.select("system", "measure", "marks").iter_rows()}
    for row in cmp.iter_rows(named=True):                 # the oracle: the comparison's own verdicts
        assert marks[(row["system"], row["measure"])] == {"better": "†", "worse": "‡"}.get(row["verdict"], "")
    assert "Benjamini-Hochberg" in t.caption and "Holm" not in t.caption and "α = 0.1;" in t.caption
    holm = pf.results_table(data, comparison=cmp, correction="holm")
    for row in cmp.iter_rows(named=True):
        want = ("†" if row["delta"] > 0 else "‡") if row["pvalue_holm"] < 0.1 else ""
        assert holm.table.filter(pl.col("system") == row["system"])["marks"][0] == want
    assert "Holm-adjusted" in holm.caption and holm.table["marks"].to_list() != t.table["marks"].to_list()
    computed = pf.results_table(data, baseline="UNH_bm25", correction="bh", confidence_level=0.9, n_resamples=999, seed=0)
    assert computed.table["marks"].to_list() == t.table["marks"].to_list()


def test_table_command_confidence_level_sets_alpha_and_interval():
    qrels, runs = pf.example.example_paths()
    base = pf.io.system_name_from_path(runs[0])
    res = CliRunner().invoke(app, ["table", str(qrels), *map(str, runs), "-m", "AP", "--baseline", base, "-B", "199",
                                   "--confidence-level", "0.5", "--ci", "halfwidth", "--format", "markdown"])
    assert res.exit_code == 0, res.output
    assert "50% t interval" in res.output and "α = 0.5;" in res.output and "α = 0.05" not in res.output


def test_caption_names_the_judgment_set():
    run = pl.DataFrame({"system": ["x", "x", "y", "y"], "qid": ["1", "2"] * 2,
                        "docno": ["d1", "d2", "d2", "d1"], "score": [1.0] * 4})
    q1 = pl.DataFrame({"qid": ["1", "2", "2"], "docno": ["d1", "d2", "d1"], "rel": [1, 1, 0]})
    q2 = pl.DataFrame({"qid": ["1", "2", "2"], "docno": ["d1", "d2", "d1"], "rel": [0, 0, 1]})
    js = pf.evaluate_judgment_sets(run, {"nist": q1, "llm": q2}, "P@1")
    llm, nist = pf.results_table(js, judgments="llm").caption, pf.results_table(js, judgments="nist").caption
    assert llm.startswith("Mean P@1 under the llm judgments over 2 queries.")
    assert nist.startswith("Mean P@1 under the nist judgments over 2 queries.")
    assert "under the" not in pf.results_table(js.evaluation("llm")).caption      # one evaluation: no set to name


def test_tukey_without_all_pairs_is_an_error(per_query):
    with pytest.raises(ValueError, match="pairs='all'"):
        pf.results_table(per_query, correction="tukey")
    qrels, runs = pf.example.example_paths()
    res = CliRunner().invoke(app, ["table", str(qrels), *map(str, runs), "-m", "AP", "--correction", "tukey"])
    assert res.exit_code == 2 and "--correction tukey" in res.output and "--pairs all" in res.output


def test_string_measures_are_named_not_dropped_silently():
    qrels, runs = pf.example.example_paths()
    ev = pf.evaluate([str(r) for r in runs], str(qrels), ["RelString@5", "AP"])
    with pytest.warns(UserWarning, match=r"\['RelString@5'\] left out of the table: it is string-valued"):
        t = pf.results_table(ev)
    assert t.data.measures == ["AP"]
    with pytest.raises(ValueError, match=r"\['RelString@5'\] cannot be tabulated"):
        pf.results_table(ev, measures=["RelString@5", "AP"])
    res = CliRunner().invoke(app, ["table", str(qrels), *map(str, runs), "-m", "RelString@5", "-m", "AP"])
    assert res.exit_code == 0 and "warning" in res.output and "RelString@5" in res.output


def test_missing_output_folder_is_refused_before_the_work(per_query, tmp_path):
    missing = tmp_path / "missing" / "dir" / "table.tex"
    qrels, runs = pf.example.example_paths()
    res = CliRunner().invoke(app, ["table", str(qrels), *map(str, runs), "-m", "AP", "-o", str(missing)])
    assert res.exit_code == 2 and "--output" in res.output and "does not exist" in res.output
    with pytest.raises(ValueError, match="the folder .* does not exist"):
        pf.results_table(per_query).save(missing)


def test_table_command_lists_and_marks_the_baseline_first_in_every_format(shared_data, tmp_path):
    """DL-2019, --baseline bm25base_p: alphabetically the baseline would sit 8th of 17 rows; a paper
    table puts it on top, named "(baseline)", in every format.  Several baselines keep their letters
    and are marked too; all pairs has no baseline row; the caller's systems= order is kept."""
    runs = sorted((shared_data / "llm_labels_dl" / "dl2019_runs").glob("input.*.gz"))
    qrels = shared_data / "anserini_tools" / "qrels.dl19-passage.txt"
    if len(runs) != 17 or not qrels.exists():
        pytest.skip("DL-2019 runs or NIST qrels missing from the shared data")
    pytest.importorskip("great_tables")
    args = ["table", str(qrels), *map(str, runs), "-m", "nDCG@10", "-B", "199"]
    first_row = {"terminal": r"^│ (\S[^│]*?)\s*│", "markdown": r"^\| (?!System|-)(\S[^|]*?)\s*\|",
                 "latex": r"^([^\\&\s][^&\n]*?) & ", "html": r'gt_stub">([^<]*)</th>'}
    for fmt, pattern in first_row.items():
        res = CliRunner().invoke(app, [*args, "--baseline", "bm25base_p", "--format", fmt])
        assert res.exit_code == 0, res.output
        rows = [r.replace("\\_", "_") for r in re.findall(pattern, res.output, flags=re.M)]
        assert len(rows) == 17 and rows[0] == "bm25base_p (baseline)", (fmt, rows[:3])
        assert "(baseline)" not in "".join(rows[1:]) and rows[1:] == sorted(rows[1:])   # the others keep their order
    res = CliRunner().invoke(app, [*args, "-b", "UNH_bm25", "-b", "bm25base_p", "--format", "markdown"])
    rows = re.findall(first_row["markdown"], res.output, flags=re.M)
    assert rows[:2] == ["(a) UNH_bm25 (baseline)", "(b) bm25base_p (baseline)"] and len(rows) == 17
    res = CliRunner().invoke(app, [*args, "--pairs", "all", "--format", "markdown"])
    assert res.exit_code == 0 and "(baseline)" not in res.output
    ev = pf.evaluate([str(r) for r in runs], str(qrels), ["nDCG@10"])
    kept = pf.results_table(ev, baseline="bm25base_p", systems=["p_bert", "bm25base_p"], n_resamples=199)
    assert kept.data.systems == ["p_bert", "bm25base_p"] and "| bm25base_p (baseline) |" in kept.to_markdown()


def test_means_and_t_intervals_count_only_defined_values():
    """A null per-query value (undefined measure) is not a query of the mean: n and the t interval
    use the defined values only, and the caption says the range of n."""
    import math

    from scipy import stats

    frame = pl.DataFrame({"system": ["A"] * 6 + ["B"] * 6, "qid": [f"q{i}" for i in range(6)] * 2,
                          "measure": ["m"] * 12,
                          "value": [0.1, 0.4, 0.3, 0.9, 0.5, 0.2, 0.2, None, 0.6, 0.8, 0.7, 0.1]})
    table = pf.results_table(frame, baseline="A", n_resamples=99, seed=0, ci="range")
    b = table.data.frame.filter(pl.col("system") == "B").row(0, named=True)
    vals = [0.2, 0.6, 0.8, 0.7, 0.1]
    assert b["n_queries"] == 5 and b["mean"] == pytest.approx(sum(vals) / 5, rel=1e-12)
    half = stats.t.ppf(0.975, 4) * stats.tstd(vals) / math.sqrt(5)
    assert b["ci_high"] - b["mean"] == pytest.approx(half, rel=1e-9)
    assert "5-6 queries per system" in table.caption


def _wide_several_baselines_table(per_query):
    """Four long-named systems x five measures with [low, high] intervals and two lettered baselines:
    far wider than 100 columns, with letters in many cells."""
    names = {"bm25": "bm25_default_parameters", "rm3": "rm3_expansion_k1_0.9", "bert_base": "bert_base_reranker",
             "t5": "monot5_3b_reranker"}
    copies = [per_query.filter(pl.col("measure") == "nDCG@10").with_columns(pl.lit(m).alias("measure"), pl.col("value") * (1 - i / 20))
              for i, m in enumerate(["nDCG@10", "nDCG@20", "P@10", "RR", "Rprec"])]
    frame = pl.concat(copies).with_columns(pl.col("system").replace_strict(names))
    return pf.results_table(frame, baseline=[names["bm25"], names["rm3"]], ci="range", test="t")


def test_terminal_table_keeps_every_mark_the_markdown_shows(per_query, tmp_path):
    """rich shrank a table wider than 100 columns by cutting cells (``*0.764 [0.707, 0…``): the letters
    vanished while the caption still explained them.  Every cell, mark included, must be whole."""
    t = _wide_several_baselines_table(per_query)
    md_marks = re.findall(r"<sup>(\w+)</sup>", t.to_markdown())
    assert len(md_marks) >= 5                          # the table has marks to lose
    text = t.to_terminal()
    assert "…" not in text
    rows = {line.split("│")[1].strip(): line for line in text.splitlines() if line.startswith("│")}
    digits = t.data.settings["digits"]
    for r in t.table.iter_rows(named=True):
        row = rows[t._label(r["system"])]
        cell = f"[{r['ci_low']:.{digits}f}, {r['ci_high']:.{digits}f}]"
        assert cell in row, (r["system"], r["measure"], row)
        if r["marks"]:
            assert f"{cell}{'*' if r['place'] == 1 else '_' if r['place'] == 2 else ' '} {r['marks']}" in row
    assert sorted(re.findall(r"\] ?[*_]? (\w+) +│", text)) == sorted(md_marks)


def test_table_command_text_output_keeps_every_mark(shared_data, tmp_path):
    """The same through the command, to stdout with COLUMNS=250 and to a file."""
    runs = shared_data / "llm_labels_dl" / "dl2019_runs"
    qrels = shared_data / "anserini_tools" / "qrels.dl19-passage.txt"
    picked = {"bm25": "bm25base_p", "bert": "p_bert", "unh": "UNH_bm25", "tua": "TUA1-1"}
    if not qrels.exists() or not all((runs / f"input.{r}.gz").exists() for r in picked.values()):
        pytest.skip("DL-2019 runs or NIST qrels missing from the shared data")
    args = ["table", str(qrels), *(f"{k}=input.{v}.gz" for k, v in picked.items()),
            "-m", "nDCG@10", "-m", "AP", "-m", "RR", "-m", "P@10", "--ci", "range", "-b", "bm25", "-b", "unh",
            "-B", "999"]
    args = [a if not a.startswith(tuple(picked)) or "=" not in a else a.replace("=", f"={runs}/", 1) for a in args]
    md = CliRunner().invoke(app, [*args, "--format", "markdown"])
    assert md.exit_code == 0, md.output
    md_marks = sorted(re.findall(r"<sup>(\w+)</sup>", md.stdout))
    assert md_marks
    out = tmp_path / "table.txt"
    to_file = CliRunner().invoke(app, [*args, "-o", str(out)])
    assert to_file.exit_code == 0, to_file.output
    to_stdout = CliRunner().invoke(app, args, env={"COLUMNS": "250"})
    for text in (out.read_text(encoding="utf-8"), to_stdout.stdout):
        assert "…" not in text
        assert sorted(re.findall(r"\] ?[*_]? (\w+) +│", text)) == md_marks


def test_table_command_takes_the_first_run_as_baseline_as_compare_does(tmp_path):
    """Without --baseline, compare compares with the first run while table drew no marks at all."""
    qrels, runs = pf.example.example_paths()
    qrels, runs = str(qrels), [str(r) for r in runs]
    first = pf.io.system_name_from_path(runs[0])
    res = CliRunner().invoke(app, ["table", qrels, *runs, "-m", "AP", "-B", "999", "--format", "markdown"])
    assert res.exit_code == 0, res.output
    explicit = CliRunner().invoke(app, ["table", qrels, *runs, "-m", "AP", "-B", "999", "--format", "markdown",
                                        "-b", first])
    assert res.stdout == explicit.stdout and f"| {first} (baseline) |" in res.stdout
    assert "significantly better / worse than" in res.stdout
    helped = CliRunner().invoke(app, ["table", "--help"], env={"COLUMNS": "300"})
    assert "the first is the baseline unless --baseline or --pairs" in helped.output
    single = CliRunner().invoke(app, ["table", qrels, runs[0], "-m", "AP", "--format", "markdown"])
    assert single.exit_code == 0 and "(baseline)" not in single.stdout and "significantly" not in single.stdout


def test_table_command_keeps_the_command_line_order_of_the_runs(tmp_path):
    """--pairs all listed (and lettered) the rows in byte order of the names, not as given."""
    qrels, runs = pf.example.example_paths()
    named = [f"zeta={runs[0]}", f"Alpha={runs[1]}", f"mid={runs[0]}"]
    for extra, rows in ((["--pairs", "all"], ["(a) zeta", "(b) Alpha", "(c) mid"]),
                        (["-b", "mid"], ["mid (baseline)", "zeta", "Alpha"]),
                        ([], ["zeta (baseline)", "Alpha", "mid"])):
        res = CliRunner().invoke(app, ["table", str(qrels), *named, "-m", "AP", "-B", "99", "--format", "markdown",
                                       *extra])
        assert res.exit_code == 0, res.output
        assert re.findall(r"^\| (?!System|-)(\S[^|]*?)\s*\|", res.stdout, flags=re.M) == rows, extra


def test_two_baselines_among_three_systems_are_the_baselines(per_query):
    """Two baselines among three systems compare every pair, so the table took it for all pairs: every
    row lettered and no "(baseline)" row, while the caption's letters meant the two baselines."""
    three = per_query.filter(pl.col("system") != "t5")
    t = pf.results_table(three, baseline=["bm25", "rm3"], n_resamples=999)
    assert t.data.letters == {"bm25": "a", "rm3": "b"}
    assert t.data.systems[:2] == ["bm25", "rm3"]
    rows = re.findall(r"^\| (?!System|-)(\S[^|]*?)\s*\|", t.to_markdown(), flags=re.M)
    assert rows == ["(a) bm25 (baseline)", "(b) rm3 (baseline)", "bert_base"]
    every = pf.results_table(three, pairs="all", n_resamples=999)
    assert every.data.letters == {"bm25": "a", "rm3": "b", "bert_base": "c"} and "(baseline)" not in every.to_markdown()


def test_results_table_refuses_a_comparison_over_other_queries(per_query):
    """Marks from a comparison on a subset of the queries would sit on means over all of them."""
    systems = per_query["system"].unique(maintain_order=True).to_list()
    first = per_query["qid"].unique(maintain_order=True).to_list()[:10]
    subset = pf.compare(per_query.filter(pl.col("qid").is_in(first)), baseline=systems[0], n_resamples=200, seed=0)
    with pytest.raises(ValueError, match=r"`comparison` does not match `data`: .* compared over 10 queries"):
        pf.results_table(per_query, subset)
    pf.results_table(per_query.filter(pl.col("qid").is_in(first)), subset)    # the same queries: accepted


def test_results_table_caption_names_measures_the_comparison_did_not_test(per_query):
    systems = per_query["system"].unique(maintain_order=True).to_list()
    measures = per_query["measure"].unique(maintain_order=True).to_list()
    assert len(measures) >= 2
    one = pf.compare(per_query.filter(pl.col("measure") == measures[0]), baseline=systems[0], n_resamples=200, seed=0)
    caption = pf.results_table(per_query, one).caption
    assert f"{measures[1]}: not tested" in caption
    assert f"{measures[0]}: not tested" not in caption


def test_no_best_or_second_is_marked_among_means_over_different_query_sets():
    """A system lacking values on some queries has a mean over other queries (a truncated run's
    FirstRelRank over the queries it still found something for): bold / underline would compare
    incomparable means, so that measure gets no place and the caption says why; a measure over the same
    queries keeps its places."""
    qids = [f"q{i}" for i in range(6)]
    rows = []
    for system, ap, rank in [("full", 0.5, 4.0), ("cut", 0.4, 1.0)]:
        for i, q in enumerate(qids):
            rows.append((system, q, "AP", ap + 0.01 * i))
            if system == "full" or i < 3:        # the cut run found nothing relevant on q3..q5
                rows.append((system, q, "FirstRelRank", rank + i))
    per_query = pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = pf.results_table(per_query)
    frame = table.table
    assert frame.filter(pl.col("measure") == "FirstRelRank")["place"].is_null().all()
    assert frame.filter(pl.col("measure") == "AP").sort("system")["place"].to_list() == [None, 1]  # two: best only
    assert "No best or second for FirstRelRank: its means are over different numbers of queries" in table.caption
    assert "Bold: best" in table.caption
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        only = pf.results_table(per_query.filter(pl.col("measure") == "FirstRelRank"))
    assert only.table["place"].is_null().all()
    assert "Bold: best" not in only.caption and "No best or second for FirstRelRank" in only.caption


def test_geometric_mean_measures_show_trec_evals_all_value_against_trec_eval_output(shared_data):
    """GMAP and GMBpref are summarised by a geometric mean: the table shows trec_eval's `all` value
    (out.test.a: gm_map 0.1051, gm_bpref 0.0083), not the arithmetic mean of per-query AP / bpref, with an
    interval for the geometric mean inside [0, 1], and the caption says so."""
    root = shared_data / "trec_eval"
    ev = pf.evaluate(root / "results.test", root / "qrels.test", ["map", "gm_map", "gm_bpref"])
    table = pf.results_table(ev, ci="range")
    means = dict(zip(table.table["measure"], table.table["mean"]))
    summary = dict(ev.summary().select("measure", "value").iter_rows())
    expected = {line.split()[0]: float(line.split()[2]) for line in (root / "out.test.a").read_text().splitlines()
                if line.split()[0] in ("gm_map", "gm_bpref")}
    assert round(means["GMAP"], 4) == expected["gm_map"] and round(means["GMBpref"], 4) == expected["gm_bpref"]
    assert means["GMAP"] == pytest.approx(summary["GMAP"], rel=1e-12)
    row = table.table.filter(pl.col("measure") == "GMAP").row(0, named=True)
    assert 0 <= row["ci_low"] < row["mean"] < row["ci_high"] <= 1 and row["halfwidth"] is None
    assert "GMAP, GMBpref: geometric mean" in table.caption


def test_geometric_mean_caption_names_its_interval_only_when_intervals_are_shown():
    qrels, runs = pf.example.example_paths()
    ev = pf.evaluate(runs, qrels, ["GMAP"])
    shown, hidden = pf.results_table(ev, ci="range").caption, pf.results_table(ev).caption
    assert "GMAP: geometric mean" in hidden and "interval of the mean log" not in hidden
    assert "its interval is the t interval of the mean log" in shown


@pytest.mark.shared_data
def test_count_measures_show_trec_evals_summed_all_value_against_trec_eval_output(shared_data):
    """Counts (num_ret, num_rel_ret) are summed over queries by trec_eval: the table shows that `all`
    value as a whole number (out.test.a), without an interval, and the
    caption says so instead of calling it a mean."""
    root = shared_data / "trec_eval"
    ev = pf.evaluate(root / "results.test", root / "qrels.test", ["num_ret", "num_rel_ret", "map"])
    table = pf.results_table(ev, ci="halfwidth")
    means = dict(zip(table.table["measure"], table.table["mean"]))
    expected = {line.split()[0]: float(line.split()[2]) for line in (root / "out.test.a").read_text().splitlines()
                if line.split()[0] in ("num_ret", "num_rel_ret")}
    assert means["NumRet"] == expected["num_ret"] and means["NumRelRet"] == expected["num_rel_ret"]
    row = table.table.filter(pl.col("measure") == "NumRet").row(0, named=True)
    assert row["ci_low"] is None and row["ci_high"] is None and row["halfwidth"] is None
    assert f"| {expected['num_ret']:.0f} " in table.to_markdown().replace("**", "")
    assert "NumRet, NumRelRet: summed over queries, as trec_eval; no interval." in table.caption
    assert table.caption.startswith("Mean AP over")


@pytest.mark.parametrize("name, starts", [("t.tex", "\\begin{table}"), ("t.md", "|"), ("t.html", "<")])
def test_table_command_output_suffix_picks_the_format(tmp_path, name, starts):
    """-o t.tex without --format writes LaTeX (not the terminal box table), as analyze -o does."""
    qrels, runs = pf.example.example_paths()
    out = tmp_path / name
    res = CliRunner().invoke(app, ["table", str(qrels), *map(str, runs), "-m", "AP", "-B", "99", "-o", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text(encoding="utf-8")
    assert text.lstrip().startswith(starts) and "│" not in text and "┃" not in text


def test_table_command_refuses_an_output_suffix_of_no_table_format(tmp_path):
    qrels, runs = pf.example.example_paths()
    res = CliRunner().invoke(app, ["table", str(qrels), *map(str, runs), "-m", "AP", "-o", str(tmp_path / "t.csv")])
    assert res.exit_code == 2 and "'.csv'" in res.output and "--format" in res.output
    assert not (tmp_path / "t.csv").exists()


def test_several_datasets_are_refused_naming_argument_column_and_values(per_query):
    """A per-query table or comparison holding two datasets is one table per dataset: refused with
    pairedframe's SchemaError naming the argument, the column and its values (was a bare ValueError)."""
    two = pl.concat([per_query.with_columns(pl.lit("dl19").alias("dataset")),
                     per_query.with_columns(pl.lit("dl20").alias("dataset"))])
    with pytest.raises(pf.SchemaError, match=r"`data` has several values of its key column 'dataset' "
                                             r"\(\['dl19', 'dl20'\]\).*filter `data` to one"):
        pf.results_table(two)
    cmp = pf.compare(two, baseline=two["system"][0], n_resamples=200, seed=0)
    assert set(cmp["dataset"]) == {"dl19", "dl20"}    # compare gives rows per dataset
    with pytest.raises(pf.SchemaError, match=r"`comparison` has several values of its key column 'dataset'"):
        pf.results_table(comparison=cmp)
    one = pf.results_table(two.filter(pl.col("dataset") == "dl19"))
    assert one.table.equals(pf.results_table(per_query).table)


def test_two_systems_mark_only_the_best_and_the_caption_says_so(per_query):
    """Of two systems the other is not 'second best': only the best is bold, nothing is underlined, and
    the caption describes only bold; from three systems on, rank 2 is underlined and the caption says it."""
    systems = per_query["system"].unique(maintain_order=True).to_list()
    two = pf.results_table(per_query.filter(pl.col("system").is_in(systems[:2])), baseline=systems[0],
                           n_resamples=200, seed=0)
    assert set(two.table["place"].drop_nulls()) == {1} and two.table["place"].null_count() > 0
    assert "Bold: best (systems equal" in two.caption and "underlined" not in two.caption
    assert "\\underline" not in two.to_latex()
    three = pf.results_table(per_query.filter(pl.col("system").is_in(systems[:3])))
    assert 2 in set(three.table["place"]) and "underlined: second best" in three.caption


def test_results_table_names_the_method_a_rendering_option_belongs_to(per_query):
    """ci_layout= reached compare as an unknown keyword ('compare() got an unexpected keyword')."""
    with pytest.raises(TypeError, match=r"`ci_layout`: it belongs to the table's to_latex\(\)"):
        pf.results_table(per_query, baseline="bm25", ci_layout="inline")
    with pytest.raises(TypeError, match=r"`table_id`: it belongs to the table's to_html\(\)"):
        pf.results_table(per_query, baseline="bm25", table_id="t1")


def test_results_table_without_baseline_names_the_method_a_rendering_option_belongs_to(per_query):
    """Without baseline= the message was 'compare options need baseline= or pairs=', though ci_layout
    is no compare option and a baseline would not have helped."""
    with pytest.raises(TypeError, match=r"`ci_layout`: it belongs to the table's to_latex\(\), e\.g\. "
                                        r"pf\.results_table\(\.\.\.\)\.to_latex\(ci_layout=\.\.\.\)"):
        pf.results_table(per_query, ci_layout="stacked")
    with pytest.raises(TypeError, match=r"`label`: it belongs to the table's to_latex\(\)"):
        pf.results_table(per_query, pf.compare(per_query, baseline="bm25", n_resamples=99), label="tab:x")


def test_results_table_compare_option_without_baseline_says_which_arguments_to_pass(per_query):
    with pytest.raises(TypeError, match=r"\['n_resamples'\]: results_table passes them on to pf\.compare, which it "
                                        r"runs only with baseline= or pairs=; pass baseline= .* or pairs='all'"):
        pf.results_table(per_query, n_resamples=10)
    with pytest.raises(TypeError, match=r"with comparison= given, set them in the pf\.compare\(\.\.\.\) call"):
        pf.results_table(per_query, pf.compare(per_query, baseline="bm25", n_resamples=99), n_resamples=10)
    with pytest.raises(TypeError, match=r"\['basline'\]: an argument neither of results_table nor of pf\.compare"):
        pf.results_table(per_query, basline="bm25")


def test_table_command_help_says_a_measure_is_required():
    """report defaults to nDCG@10 and AP, table needs -m: its help says so before the error does."""
    helped = CliRunner().invoke(app, ["table", "--help"], env={"COLUMNS": "300"})
    assert "at least one (a paper table names its columns)" in " ".join(helped.output.split())
    qrels, runs = pf.example.example_paths()
    missing = CliRunner().invoke(app, ["table", str(qrels), str(runs[0])])
    assert missing.exit_code == 2 and "name at least one measure with -m" in missing.stderr


def test_a_dagger_system_is_never_tied_for_best_with_the_baseline_it_beats_at_digits_0():
    """--digits 0 showed AP 0.42 † and the baseline's 0.31 both as a bold 0 (equal at the shown precision share
    the mark): the table called new both significantly better than base and tied with it. The mark splits the
    tie; other (0.34, not significantly different) keeps the shared best; the caption says what happened."""
    rng = np.random.default_rng(0)
    base = rng.uniform(0.1, 0.5, 40)
    values = {"base": base, "new": base + 0.1 + rng.normal(0, 0.02, 40), "other": base + 0.02 + rng.normal(0, 0.2, 40)}
    pq = pl.DataFrame([{"system": s, "qid": f"q{i}", "measure": "AP", "value": float(v)}
                       for s, arr in values.items() for i, v in enumerate(arr)])
    t = pf.results_table(pq, baseline="base", digits=0, n_resamples=999, seed=0)
    cells = {s: (p, m) for s, p, m in t.table.select("system", "place", "marks").iter_rows()}
    assert cells == {"base": (2, ""), "new": (1, "†"), "other": (1, "")}
    assert "In AP, a system significantly better than one it equals at the shown precision ranks above it" in t.caption
    wide = pf.results_table(pq, baseline="base", digits=3, n_resamples=999, seed=0)   # no tie: the rule as before
    assert dict(zip(wide.table["system"], wide.table["place"])) == {"base": None, "new": 1, "other": 2}
    assert "In AP" not in wide.caption


def test_several_baselines_mark_significant_losses_against_compare(shared_data):
    """Against several baselines a cell listed only the baselines it beats: Fast_ForwardP_5, worse than
    Fast_ForwardP_2 (Holm p 0.036), and TUW_DR_Base, worse than NLE_P_v1, read as "no difference".  Every
    significant row of pf.compare is now a mark: the baseline's letter before ``‡`` for a win, after it
    for a loss, in every rendering, and the caption says what ``‡`` means."""
    folder = shared_data / "syndl" / "TREC-DLs-files" / "TREC-DL-2021"
    runs = sorted((folder / "passages-runs").glob("*.gz"))[:8]
    ev = pf.evaluate(runs, folder / "qrels-pass.txt", ["nDCG@10", "AP"])
    bases = ["Fast_ForwardP_2", "NLE_P_v1"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")              # Cochran's skewness warning, not the point here
        cmp = pf.compare(ev, baseline=bases, seed=0)
        t = pf.results_table(ev, baseline=bases, seed=0)
    letter = {"Fast_ForwardP_2": "a", "NLE_P_v1": "b"}
    want: dict[tuple[str, str], tuple[set, set]] = {}
    significant = cmp.filter(pl.col("pvalue_holm") < 0.05)
    for r in significant.iter_rows(named=True):
        winner, loser = (r["system"], r["baseline"]) if r["delta"] > 0 else (r["baseline"], r["system"])
        if loser in letter:
            want.setdefault((winner, r["measure"]), (set(), set()))[0].add(letter[loser])
        if winner in letter:
            want.setdefault((loser, r["measure"]), (set(), set()))[1].add(letter[winner])
    for r in t.table.iter_rows(named=True):
        better, worse = want.get((r["system"], r["measure"]), (set(), set()))
        assert r["marks"] == "".join(sorted(better)) + ("‡" + "".join(sorted(worse)) if worse else ""), r
    assert significant.height == 18 and significant.filter(pl.col("delta") < 0).height > 0
    cell = t.table.filter((pl.col("system") == "Fast_ForwardP_5") & (pl.col("measure") == "nDCG@10"))
    assert cell["marks"].item() == "‡ab"
    assert "0.514<sup>‡ab</sup>" in t.to_markdown()
    assert r"0.514\rlap{$^{\ddagger\mathrm{ab}}$}" in t.to_latex()
    assert "0.514  ‡ab" in t.to_terminal() and "0.514<sup>‡ab</sup>" in t.to_html()
    assert "letters after ‡: significantly worse than those baselines" in t.caption


def test_plain_terminal_caption_names_the_emphasis_its_cells_show():
    """Two systems: the cells read ``*0.963 [0.925, 1.000]*`` while the caption said "Bold: best" (only
    the three-system wording was rewritten for plain text).  The caption now names ``*x*`` for every
    system count, and bold where the ANSI rendering really is bold."""
    qrels, runs = pf.example.example_paths()
    ev = pf.evaluate(runs, qrels, ["nDCG@10", "AP"])
    assert len(ev.systems) == 2
    t = pf.results_table(ev, baseline=ev.systems[0], n_resamples=999, seed=0, ci="range")
    plain = t.to_terminal(width=1000)               # the caption on one line
    assert re.search(r"\*\d\.\d{3} \[", plain) and "*x*: best (systems equal" in plain and "Bold" not in plain
    assert "Bold: best" in t.to_terminal(width=1000, ansi=True) and "Bold: best" in t.caption
    three = pf.results_table(_three_systems())
    assert "*x*: best, _x_: second best" in three.to_terminal(width=1000) and "Bold" not in three.to_terminal()


def _three_systems() -> pl.DataFrame:
    rng = np.random.default_rng(5)
    return pl.concat([pl.DataFrame({"system": s, "qid": [f"q{k}" for k in range(20)], "measure": "AP",
                                    "value": rng.uniform(0.1 * i, 0.1 * i + 0.5, 20)}) for i, s in enumerate("xyz")])


@pytest.mark.parametrize("level, shown", [(0.999, "99.9%"), (0.975, "97.5%"), (0.95, "95%")])
def test_caption_prints_the_confidence_level_with_its_digits(per_query, level, shown):
    """A whole-percent format printed 0.999 as '100% t interval' and 0.975 as '98%'."""
    t = pf.results_table(per_query, baseline="bm25", confidence_level=level, ci="range", n_resamples=999, seed=0)
    assert f"{shown} t interval of the mean over queries" in t.caption
    assert "100%" not in t.caption


def test_systems_without_the_baseline_keep_the_baseline_row_as_compare_does(per_query):
    """systems= without the baseline crashed (IndexError) with one baseline and silently became a one-baseline
    table with two; compare adds the baseline itself, and so does the table now."""
    one = pf.results_table(per_query, baseline="bm25", systems=["t5", "bert_base"], n_resamples=999, seed=0)
    assert one.table["system"].unique(maintain_order=True).to_list()[0] == "bm25"
    assert one.data.settings["mode"] == "dagger"
    two = pf.results_table(per_query, baseline=["bm25", "rm3"], systems=["bm25", "t5"], n_resamples=999, seed=0)
    assert set(two.table["system"]) == {"bm25", "rm3", "t5"} and two.data.settings["mode"] == "letters"
    cmp = pf.compare(per_query, baseline="bm25", n_resamples=999, seed=0)
    with pytest.raises(ValueError, match=r"systems=\['t5'\] leaves out every baseline"):
        pf.results_table(per_query, cmp, systems=["t5"])


def test_two_baselines_of_two_systems_are_both_lettered_baselines(per_query):
    """Two baselines of two systems are compared once, so the comparison's rows name one baseline and the
    table fell back to daggers: only the first row read "(baseline)" and the second got ‡ as if it were
    not one. Both are now lettered baselines, as two baselines among three systems are."""
    two = per_query.filter(pl.col("system").is_in(["bm25", "bert_base"]))
    t = pf.results_table(two, baseline=["bm25", "bert_base"], n_resamples=999, seed=0)
    assert t.data.mode == "letters" and t.data.letters == {"bm25": "a", "bert_base": "b"}
    rows = re.findall(r"^\| (?!System|-)(\S[^|]*?)\s*\|", t.to_markdown(), flags=re.M)
    assert rows == ["(a) bm25 (baseline)", "(b) bert_base (baseline)"]
    cmp = pf.compare(two, baseline=["bm25", "bert_base"], n_resamples=999, seed=0)
    significant = set(cmp.filter(pl.col("pvalue_holm") < 0.05)["measure"])
    assert significant and all(cmp["delta"] > 0)                 # bert_base beats bm25 where it is significant
    marks = {(r["system"], r["measure"]): r["marks"] for r in t.table.iter_rows(named=True)}
    for m in ("nDCG@10", "AP"):
        assert (marks[("bert_base", m)], marks[("bm25", m)]) == (("a", "‡b") if m in significant else ("", ""))
    assert "baseline with that letter" in t.caption
    folder = Path(pf.example.example_paths()[0]).parent
    res = CliRunner().invoke(app, ["table", str(folder / "qrels.txt"), str(folder / "input.bm25"),
                                   str(folder / "input.reranker"), "-m", "AP", "-b", "reranker", "-b", "bm25",
                                   "-f", "markdown", "-B", "200"])
    assert res.exit_code == 0, res.output
    rows = re.findall(r"^\| (?!System|-)(\S[^|]*?)\s*\|", res.stdout, flags=re.M)
    assert rows == ["(a) reranker (baseline)", "(b) bm25 (baseline)"] and "†" not in res.stdout, res.stdout


def _with_one_query_system(per_query: pl.DataFrame, name: str = "tiny") -> pl.DataFrame:
    """``per_query`` and a system ``name`` measured on the first query only."""
    first = per_query["qid"].min()
    tiny = per_query.filter((pl.col("system") == "t5") & (pl.col("qid") == first)).with_columns(pl.lit(name).alias("system"))
    return pl.concat([per_query, tiny])


def test_a_one_query_system_is_shown_unmarked_and_flagged_while_the_others_are_marked_as_without_it(per_query):
    """A run with one query used to stop the whole table (InsufficientSampleError from compare); now the
    other rows carry the marks they have without that run -- the same Holm family, since an untested
    comparison is no member -- and its cells are unmarked, named in a warning and in the caption."""
    data = _with_one_query_system(per_query)
    with pytest.warns(pf.errors.PartlyEmptyWarning, match=r"tiny vs bm25 on nDCG@10 \(1 common query\)"):
        t = pf.results_table(data, baseline="bm25", n_resamples=999, seed=0)
    without = pf.results_table(per_query, baseline="bm25", n_resamples=999, seed=0)
    shared = t.table.filter(pl.col("system") != "tiny").select("system", "measure", "marks", "mean")
    assert shared.equals(without.table.select("system", "measure", "marks", "mean"))
    assert set(shared["marks"]) - {""}            # the others are still marked
    tiny = t.table.filter(pl.col("system") == "tiny")
    assert tiny["marks"].to_list() == ["", ""] and tiny["mean"].null_count() == 0
    caption = " ".join(t.caption.split())
    assert "Not compared, so not marked" in caption and "tiny vs bm25 on AP (1 common query)" in caption
    assert "(3 comparisons)" in caption or "all 6 comparisons" in caption
    with pytest.raises(pf.errors.InsufficientSampleError, match="fewer than 2 common queries"):
        pf.compare(data, baseline="bm25", n_resamples=99)     # the statistical door stays strict


@pytest.mark.parametrize("pairs", ["baseline", "all"])
def test_a_one_query_system_in_a_duckdb_relation_is_left_out_as_in_a_polars_table(per_query, pairs, duckdb_relation):
    """The table of a DuckDB relation raised InsufficientSampleError where the same polars table is shown
    with the one-query run unmarked and flagged: the in-engine pairing leaves it out of the call too."""
    data = _with_one_query_system(per_query)
    options = dict(n_resamples=999, seed=0, measures="AP", **({"baseline": "bm25"} if pairs == "baseline" else
                                                               {"pairs": "all"}))
    with pytest.warns(pf.errors.PartlyEmptyWarning, match=r"tiny vs"):
        from_polars = pf.results_table(data, **options)
    with pytest.warns(pf.errors.PartlyEmptyWarning, match=r"tiny vs"):
        from_duckdb = pf.results_table(duckdb_relation(data), **options)
    _same_table(from_duckdb, from_polars)


def _same_table(got, want) -> None:
    key = ["system", "measure"]
    assert got.table.sort(key).select(*key, "marks", "mean").equals(want.table.sort(key).select(*key, "marks", "mean"))
    assert got.caption == want.caption


def test_all_pairs_leave_out_only_the_pairs_of_the_one_query_system(per_query):
    data = _with_one_query_system(per_query)
    with pytest.warns(pf.errors.PartlyEmptyWarning, match="tiny vs"):
        t = pf.results_table(data, pairs="all", n_resamples=999, seed=0, measures="AP")
    without = pf.results_table(per_query, pairs="all", n_resamples=999, seed=0, measures="AP",
                               systems=["bm25", "rm3", "bert_base", "t5"])
    ours = dict(zip(t.table["system"], t.table["marks"]))
    assert ours.pop("tiny") == ""
    assert ours == dict(zip(without.table["system"], without.table["marks"])) and any(ours.values())
    assert t.caption.count(" vs ") >= 4             # tiny against each of the four others


def test_two_one_query_systems_give_their_means_and_say_no_comparison_is_possible(tmp_path):
    """Two runs sharing one query: `table` refused; now it prints the means, marks nothing and says why."""
    qrels, runs = pf.example.example_paths()
    first = Path(runs[0]).read_text().splitlines()[0].split()[0]
    cut = []
    for i, run in enumerate(runs):
        path = tmp_path / f"input.r{i}"
        path.write_text("".join(line + "\n" for line in Path(run).read_text().splitlines() if line.split()[0] == first))
        cut.append(str(path))
    res = CliRunner().invoke(app, ["table", str(qrels), *cut, "-m", "AP", "-m", "nDCG@10", "-B", "99",
                                   "--format", "markdown"])
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("| System") and "†" not in res.stdout and "‡" not in res.stdout
    out = " ".join(res.stdout.split())
    assert "No comparison is possible, so no cell is marked" in out and "r1 vs r0 on AP (1 common query)" in out
    assert "pairedframe: warning: no comparison is possible" in res.stderr
    ev = pf.evaluate(cut, str(qrels), ["AP"])
    means = ev.summary().filter(pl.col("measure") == "AP")
    for system, value in means.select("system", "value").iter_rows():
        assert f"{value:.3f}" in res.stdout.split(system)[1].split("\n")[0]


def test_caption_gives_the_reason_a_query_is_left_out_that_the_measure_allows():
    """A run lacking queries: for nDCG@10 only "lacks the query" can leave a query out; "found nothing
    relevant" is said only of a measure undefined then (FirstRelRank)."""
    qrels = {f"q{i:02d}": {"rel": 1} for i in range(30)}
    base = {q: {"x": 2.0, "rel": 1.0} for q in qrels}
    sysb = {q: {"rel": 2.0, "x": 1.0} if i < 20 else base[q] for i, q in enumerate(qrels) if i != 0}   # lacks q00
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = pf.evaluate({"base": base, "sys": sysb}, qrels, ["FirstRelRank", "nDCG@10"])
        t = pf.results_table(ev, baseline="base", seed=0)
    caption = " ".join(t.caption.split())
    assert "Marks in nDCG@10 compare only the queries both systems have a value for: a query a system lacks" in caption
    assert "Marks in FirstRelRank compare only the queries both systems have a value for: a query where one has none " \
           "(it found nothing relevant, or lacks the query)" in caption
    assert caption.count("found nothing relevant") == 1
    assert t.table.filter(pl.col("system") == "sys")["marks"].to_list() == ["†", "†"]


def test_measures_of_how_much_is_judged_get_no_best_and_no_verdict():
    """Judged@10, Unjudged@10 (trec_eval's unj), RBPResid and NumNonRelJudgedRet describe the judgments'
    coverage of a run, not its quality: the outside tester's table bolded the run with the most unjudged
    documents and the largest residual, and compare called a rise in Unjudged@10 'better'. No best or
    second in them, the caption says why, and compare leaves them out (warned) or refuses them by name."""
    from pairedframe.errors import PartlyEmptyWarning

    qrels, runs = pf.example.example_paths()
    diagnostics = ["Judged@10", "Unjudged@10", "RBPResid", "NumNonRelJudgedRet"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = pf.evaluate([str(r) for r in runs], str(qrels), diagnostics + ["nDCG@10"])
        t = pf.results_table(ev, baseline="bm25", n_resamples=999, seed=0)
    places = {(s, m): p for s, m, p in t.table.select("system", "measure", "place").iter_rows()}
    for m in diagnostics:
        assert all(places[(s, m)] is None for s in ("bm25", "reranker")), m
    assert sorted(places[(s, "nDCG@10")] or 0 for s in ("bm25", "reranker")) == [0, 1]
    assert ("No best or second for Judged@10, Unjudged@10, RBPResid: how much of a run is judged ranks no run."
            in t.caption)
    assert "No best or second for NumNonRelJudgedRet: a count that ranks no run." in t.caption
    with pytest.warns(PartlyEmptyWarning, match="Judged@10, Unjudged@10, RBPResid, NumNonRelJudgedRet describe"):
        cmp = pf.compare(ev, baseline="bm25", n_resamples=999, seed=0)
    assert cmp["measure"].to_list() == ["nDCG@10"]
    for name in ("unj_10", "RBPResid", "Judged@10", "num_nonrel_judged_ret"):
        with pytest.raises(ValueError, match=r"`measures`: .* describes what a run returned .*judged"):
            pf.compare(ev, baseline="bm25", measures=[name], n_resamples=999)


@pytest.mark.parametrize("ci", ["range", "halfwidth"])
def test_caption_names_the_bound_of_values_without_spread_not_a_t_interval(ci):
    """Judged@10 = 1 on every query showed [0.918, 1.000] under a caption calling it a '95% t interval'; the
    t interval of n equal values is the point, so the caption must name the equal-values bound it shows."""
    n = 43
    flat = pl.concat([pl.DataFrame({"system": s, "qid": [f"q{k}" for k in range(n)], "measure": "P@10",
                                    "value": v}) for s, v in (("a", [1.0] * n), ("b", [0.9, 1.0] * 21 + [1.0]))])
    t = pf.results_table(flat, baseline="a", ci=ci, n_resamples=999, seed=0)
    low = t.data.frame.filter(pl.col("system") == "a")["ci_low"][0]
    assert low == pytest.approx(0.025 ** (1 / n))             # the bound, not t's point [1, 1]
    assert "the exact bound n equal values allow inside the measure's range" in t.caption


@pytest.mark.parametrize("saved_as", ["frame", "parquet"])
def test_results_table_of_a_saved_judgment_sets_table_equals_that_of_the_judgment_sets(saved_as, tmp_path):
    """A saved evaluate_judgment_sets(...).per_query with judgments= was refused with a bare TypeError, while
    rank_agreement took it; its table and marks are those of the judgment sets themselves."""
    qrels, runs = pf.example.example_paths()
    nist = pf.read_qrels(qrels)
    llm = nist.with_columns(pl.when(pl.col("rel") > 0).then(0).otherwise(1).alias("rel"))  # another set of labels
    js = pf.evaluate_judgment_sets(runs, {"nist": nist, "llm": llm}, ["AP", "P@10"])
    saved = js.per_query
    if saved_as == "parquet":
        saved = tmp_path / "js.parquet"
        js.per_query.write_parquet(saved)
    base = pf.io.system_name_from_path(runs[0])
    want = pf.results_table(js, baseline=base, judgments="llm", seed=1)
    got = pf.results_table(saved, baseline=base, judgments="llm", seed=1)
    assert got.table.equals(want.table) and got.table.height == 2 * len(runs)   # (system, measure) rows
    assert pf.results_table(saved, judgments="nist").table.equals(pf.results_table(js, judgments="nist").table)
    with pytest.raises(ValueError, match=r"`judgments` must name one judgment set.*\['nist', 'llm'\], got 'gold'"):
        pf.results_table(saved, judgments="gold")
    with pytest.raises(TypeError, match="`judgments` picks one judgment set: pass evaluate_judgment_sets' result or a "
                                        "per-query table with a `judgments` column"):
        pf.results_table(js.per_query.drop("judgments"), judgments="llm")


def test_caption_says_query_for_one_query():
    """"Mean P@5 over 1 queries." read wrong: one query is a query."""
    run = pl.DataFrame({"system": ["x", "x", "y", "y"], "qid": ["1"] * 4, "docno": ["d1", "d2", "d2", "d1"],
                        "score": [2.0, 1.0, 2.0, 1.0]})
    qrels = pl.DataFrame({"qid": ["1"], "docno": ["d1"], "rel": [1]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        one = pf.results_table(pf.evaluate(run, qrels, ["P@5"])).caption
    assert "Mean P@5 over 1 query." in one and "1 queries" not in one
    two = pf.results_table(pf.evaluate(run.with_columns(pl.lit("2").alias("qid")).vstack(run),
                                       qrels.vstack(qrels.with_columns(pl.lit("2").alias("qid"))), ["P@5"])).caption
    assert "Mean P@5 over 2 queries." in two


def test_an_unmarked_system_in_a_split_tie_never_ranks_above_a_better_mean_against_the_unrounded_means():
    """The outside researcher's DL-2019 P@5 at --digits 0: UNH_bm25 (0.619) stayed bold, tied with the runs
    that beat the baseline (0.693), which dropped to second: the table put a run above a baseline whose mean
    is higher, with no mark saying so. An unmarked system of a split tie now ranks no higher than a system
    of that tie with a better unrounded mean; one above the beaten baseline keeps the shared best. The same
    with ranks, where lower is better."""
    rng = np.random.default_rng(0)
    base = rng.uniform(0.1, 0.4, 40)

    def centred(sd: float) -> np.ndarray:
        noise = rng.normal(0, sd, 40)
        return noise - noise.mean()

    values = {"base": base, "new": base + 0.1 + centred(0.02), "below": base - 0.03 + centred(0.3),
              "above": base + 0.02 + centred(0.3)}
    expected = {"base": (2, ""), "new": (1, "†"), "below": (2, ""), "above": (1, "")}
    for measure, shift, sign in (("mine", 0, 1), ("FirstRelRank", 2, -1)):
        pq = pl.DataFrame([{"system": s, "qid": f"q{i}", "measure": measure, "value": shift + sign * float(v)}
                           for s, arr in values.items() for i, v in enumerate(arr)])
        t = pf.results_table(pq, baseline="base", digits=0, n_resamples=999, seed=0)
        cells = {s: (p, m) for s, p, m in t.table.select("system", "place", "marks").iter_rows()}
        assert cells == expected, measure


def test_a_split_tie_follows_the_unrounded_means_where_chains_of_marks_cross_against_the_means():
    """The third outside tester: A beats B and C beats D, all five 0.7 at digits=1; C (0.680, a mark against
    D) was bold above B (0.690) and X (0.685). Within a tie a system now ranks no higher than any tie-mate
    with a better mean, and below each that beats it, whether marks name it or not."""
    rng = np.random.default_rng(0)
    n = 40
    base = rng.uniform(0.4, 0.8, n)

    def noisy(mean: float) -> np.ndarray:
        x = np.clip(base + rng.normal(0, 0.1, n), 0.2, 0.8)
        return x - x.mean() + mean

    b, d, x = noisy(0.690), noisy(0.670), noisy(0.685)
    values = {"A": b + 0.010 + rng.normal(0, 0.001, n), "B": b, "C": d + 0.010 + rng.normal(0, 0.001, n),
              "D": d, "X": x}
    pq = pl.DataFrame([{"system": s, "qid": f"q{i}", "measure": "AP", "value": float(v)}
                       for s, arr in values.items() for i, v in enumerate(arr)])
    for kw in ({"baseline": ["B", "D"]}, {"pairs": "all"}):
        t = pf.results_table(pq, digits=1, n_resamples=999, seed=0, **kw)
        places = dict(zip(t.table["system"], t.table["place"]))
        assert places == {"A": 1, "B": 2, "X": 2, "C": 2, "D": None}, kw
        ordered = t.table.sort("mean", descending=True)["place"].fill_null(3).to_list()
        assert ordered == sorted(ordered), kw


def test_a_run_without_any_value_of_a_lower_is_better_measure_gets_no_place_not_a_crash():
    """The third outside tester: a run that retrieved nothing relevant has no FirstRelRank at all; 01058c7's
    split-tie rule negated its null mean and results_table and `pairedframe table` crashed."""
    rows = [{"system": s, "qid": f"q{i}", "measure": m, "value": v}
            for i in range(8) for s, m, v in (("a", "FirstRelRank", 1.0 + i % 3), ("b", "FirstRelRank", None),
                                              ("a", "nDCG@10", 0.5 + i / 100), ("b", "nDCG@10", 0.2 + i / 100))]
    pq = pl.DataFrame(rows, schema={"system": pl.String, "qid": pl.String, "measure": pl.String, "value": pl.Float64})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kw in ({}, {"baseline": "a", "n_resamples": 99, "seed": 0}):
            t = pf.results_table(pq, digits=0, **kw)
            assert t.table.filter(pl.col("measure") == "FirstRelRank")["place"].null_count() == 2, kw


def test_cli_table_ci_error_names_the_values_one_can_type_and_python_names_its_own(per_query):
    """`table --ci foo` answered "must be one of (None, 'halfwidth', 'range')": None cannot be typed."""
    qrels, runs = pf.example.example_paths()
    res = CliRunner().invoke(app, ["table", str(qrels), *map(str, runs), "-m", "AP", "--ci", "foo"])
    assert res.exit_code == 2, res.output
    said = " ".join(res.stderr.split())
    assert "--ci must be one of halfwidth, range (or left out: no interval), got 'foo'" in said and "None" not in said
    with pytest.raises(ValueError, match=r"`ci` must be one of \(None, 'halfwidth', 'range'\), got 'foo'"):
        pf.results_table(per_query, ci="foo")


@pytest.mark.parametrize("baseline", [1, [1, 2], [None], []])
def test_results_table_refuses_a_baseline_that_is_no_name_in_compares_words(per_query, baseline):
    """The tester: results_table(ev, baseline=1) raised "TypeError: 'int' object is not iterable"; pf.compare
    says what a baseline must be, and so does the table now."""
    with pytest.raises(TypeError, match=r"`baseline` must be a system name or a list of names, got"):
        pf.results_table(per_query, baseline=baseline)
