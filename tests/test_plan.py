"""Pre-registered plans: parsing and errors, exact system names, Holm across endpoints, verdicts, hash, CLI."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from pairedframe.comparison.clustered import compare_clustered
from pairedframe.comparison.plan import ANALYSIS_VERDICTS, Plan, _verdict, analyze, load_plan
from pairedframe.errors import PlanError
from pairedframe.report.analysis import format_analysis
from pairedframe.stats.multiple import holm

pytestmark = pytest.mark.filterwarnings("ignore::pairedframe.errors.SmallSampleWarning")
REPO = Path(__file__).resolve().parents[1]

PLAN = """
title = "t"
confidence_level = 0.95
margin = 0.02
seed = 3
n_resamples = 2000
[systems]
baseline = "unfused"
candidate = "fused"
[[endpoints]]
measure = "nDCG@10"
direction = "higher is better"
role = "primary"
[[endpoints]]
measure = "hit@1"
direction = "higher is better"
role = "secondary"
margin = 0.1
[[endpoints]]
measure = "AP"
direction = "higher is better"
role = "secondary"
"""


def results(seed=0, G=30, shift=0.05, systems=("unfused", "fused", "fused-v2")):
    rng = np.random.default_rng(seed)
    rows = []
    for g in range(G):
        c = rng.normal(0, 0.05)
        for j in range(3):
            q = f"{g}.{j}"
            for m in ("nDCG@10", "AP", "hit@1", "P@5"):
                base = rng.uniform()
                for i, s in enumerate(systems):
                    v = base + (i == 1) * (shift + c) + (i == 2) * 0.3
                    rows.append((s, q, m, float(v > 0.5) if m == "hit@1" else v, f"g{g}"))
    return pl.DataFrame(rows, schema=["system", "qid", "measure", "value", "cluster"], orient="row")


def test_analyze_runs_exactly_the_plan_with_holm_and_hash(tmp_path):
    mt = pytest.importorskip("statsmodels.stats.multitest")
    path = tmp_path / "plan.toml"
    path.write_text(PLAN)
    res = analyze(path, results())
    t = res.table
    assert t["measure"].to_list() == ["nDCG@10", "hit@1", "AP"]           # P@5 is not in the plan
    assert res.plan_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    # Holm within each role: the primary alone, the two secondaries together
    assert t["family"].to_list() == ["confirmatory (primary endpoints)"] + ["secondary endpoints"] * 2
    assert t["pvalue_holm"][0] == t["pvalue"][0]
    np.testing.assert_allclose(t["pvalue_holm"].to_numpy()[1:],
                               mt.multipletests(t["pvalue"].to_numpy()[1:], method="holm")[1], rtol=1e-15)
    # equivalence claims adjusted alike: TOST p-values Holm-adjusted within the same role family
    assert t["pvalue_tost_holm"][0] == t["pvalue_tost"][0]
    np.testing.assert_allclose(t["pvalue_tost_holm"].to_numpy()[1:],
                               mt.multipletests(t["pvalue_tost"].to_numpy()[1:], method="holm")[1], rtol=1e-15)
    assert t["equivalent"].to_list() == (t["pvalue_tost_holm"] < 0.05).to_list()
    assert t["verdict"].to_list() == [_verdict(bool(ph < 0.05), bool(pt < 0.05)) for ph, pt in
                                      zip(t["pvalue_holm"], t["pvalue_tost_holm"])]
    # per endpoint = compare_clustered on that measure with the plan's seed and margin
    one = compare_clustered(results().filter(pl.col("system").is_in(["unfused", "fused"])), baseline="unfused",
                            measures="hit@1", n_resamples=2000, seed=3, margin=0.1).row(0, named=True)
    r = t.row(1, named=True)
    assert (r["delta"], r["pvalue"], r["pvalue_tost"], r["mcnemar_pvalue"]) == (
        one["delta"], one["pvalue"], one["pvalue_tost"], one["mcnemar_pvalue"])
    # the MDD is at Holm's first-step level of the endpoint's family: the 2 secondaries (t, Bell-McCaffrey df, CR2 SE)
    from pairedframe.stats.power import mde_at_level
    assert r["mdd"] == pytest.approx(mde_at_level(one["se"], one["df"], 0.05 / 2), rel=1e-12)
    assert r["margin"] == 0.1 and t["margin"][0] == 0.02 and r["mcnemar_b"] is not None
    assert t["mcnemar_pvalue"][0] is None                                  # not a 0/1 endpoint
    assert set(t["verdict"]) <= set(ANALYSIS_VERDICTS)
    assert t["resampling_unit"].to_list() == ["cluster"] * 3 and t["n_clusters"][0] == 30
    report = res.to_dict()
    assert report["plan"]["sha256"] == res.plan_sha256 and len(report["endpoints"]) == 3
    json.dumps(report)


def test_systems_are_matched_by_exact_name_only():
    # "fused" is a suffix of "unfused" and a prefix of "fused-v2": the candidate must be exactly "fused"
    res = analyze(Plan.from_toml(PLAN), results())
    fused = results().filter((pl.col("system") == "fused") & (pl.col("measure") == "nDCG@10"))["value"].mean()
    assert res.table["candidate_mean"][0] == pytest.approx(fused, rel=1e-12)
    only_unfused = results().filter(pl.col("system") != "fused")
    with pytest.raises(PlanError, match=r"systems.candidate = 'fused' is not a system.*exact names only"):
        analyze(Plan.from_toml(PLAN), only_unfused)


def test_a_plan_path_that_is_a_directory_is_named_a_directory_not_a_missing_file(tmp_path):
    """`analyze --plan DIR` (and pf.load_plan / pf.analyze of a directory) said "plan file not found: DIR"
    of a path that exists: it says it is a directory and what a plan file is."""
    from typer.testing import CliRunner

    from pairedframe.cli import app

    said = rf"plan file {tmp_path} is a directory, not a file: a plan is one TOML file .*see examples/plan\.toml"
    for call in (lambda: load_plan(tmp_path), lambda: analyze(str(tmp_path), results())):
        with pytest.raises(PlanError, match=said):
            call()
    data = tmp_path / "r.csv"
    results().write_csv(data)
    res = CliRunner().invoke(app, ["analyze", "--plan", str(tmp_path), str(data)])
    assert res.exit_code == 2 and "not found" not in res.stderr
    assert re.search("pairedframe: error: " + said, " ".join(res.stderr.split())), res.stderr


def test_refuses_without_plan_and_names_bad_keys(tmp_path):
    with pytest.raises(PlanError, match="no analysis plan"):
        analyze(None, results())
    with pytest.raises(PlanError, match="not found"):
        load_plan(tmp_path / "nope.toml")
    cases = {
        PLAN.replace("seed = 3", ""): "missing the key seed",
        PLAN.replace("seed = 3", "seed = 3\nseeds = 4"): r"unknown key\(s\) \['seeds'\]",
        PLAN.replace('role = "primary"', 'role = "main"'): r"endpoints\[0\].role",
        PLAN.replace('"AP"\ndirection = "higher is better"', '"AP"\ndirection = "down"'): r"endpoints\[2\].direction",
        PLAN.replace('candidate = "fused"', 'candidate = "unfused"'): "same system",
        PLAN.replace("confidence_level = 0.95", "confidence_level = 0.3"): "confidence_level",
        PLAN.replace("confidence_level = 0.95", "alpha = 0.05"): "plan key alpha was renamed: write confidence_level",
        PLAN.replace("margin = 0.02", "margin = -1"): "margin",
        PLAN.replace('baseline = "unfused"', ""): "systems.baseline",
        PLAN.replace('measure = "AP"', 'measure = "AP"\nmesure = 1'): r"endpoints\[2\].mesure",
        PLAN + "\n[[endpoints]]\nmeasure = \"AP\"\ndirection = \"higher\"\nrole = \"secondary\"\n": "repeated",
        "confidence_level = ": "not valid TOML",
    }
    for text, msg in cases.items():
        with pytest.raises(PlanError, match=msg):
            Plan.from_toml(text)
    with pytest.raises(PlanError, match=r"endpoints\[0\].measure = 'nDCG@10' is not a measure"):
        analyze(Plan.from_toml(PLAN), results().filter(pl.col("measure") != "nDCG@10"))


def test_datasets_and_resampling_unit():
    two = pl.concat([results(1).with_columns(pl.lit("d1").alias("dataset")),
                     results(2).with_columns(pl.lit("d2").alias("dataset"))])
    with pytest.raises(PlanError, match=r"endpoints\[0\].dataset is required"):
        analyze(Plan.from_toml(PLAN), two)
    with_ds = PLAN.replace('measure = "nDCG@10"', 'measure = "nDCG@10"\ndataset = "d2"')
    with pytest.raises(PlanError, match=r"endpoints\[0\].dataset = 'd2' but the results have no 'dataset'"):
        analyze(Plan.from_toml(with_ds), results())
    with_ds = with_ds.replace('measure = "hit@1"', 'measure = "hit@1"\ndataset = "d1"').replace(
        'measure = "AP"', 'measure = "AP"\ndataset = "d1"')
    res = analyze(Plan.from_toml(with_ds), two)
    alone = analyze(Plan.from_toml(PLAN), results(2))
    assert res.table["delta"][0] == alone.table["delta"][0] and res.table["dataset"].to_list() == ["d2", "d1", "d1"]
    q = analyze(Plan.from_toml('resampling_unit = "query"\n' + PLAN), results())
    assert q.table["n_clusters"].to_list() == q.table["n_queries"].to_list() == [90] * 3
    from pairedframe.comparison import compare

    plain = compare(results().drop("cluster"), baseline="unfused", systems="fused", measures="AP", seed=3,
                    n_resamples=2000, interval="signflip")
    assert q.table["pvalue"][2] == plain["pvalue"][0]                    # query unit = the plain paired test
    assert q.table["ci_low"][2] == pytest.approx(plain["ci_low"][0], rel=1e-12)
    with pytest.raises(PlanError, match="resampling_unit = 'cluster'"):
        analyze(Plan.from_toml('resampling_unit = "cluster"\n' + PLAN), results().drop("cluster"))


def test_verdict_rules_and_a_difference_and_an_equivalence():
    assert [_verdict(s, e) for s, e in [(True, False), (True, True), (False, True), (False, False)]] == list(
        ANALYSIS_VERDICTS)
    big = analyze(Plan.from_toml(PLAN), results(shift=0.2)).table.row(0, named=True)
    assert big["verdict"] == "difference" and big["favours"] == "fused" and big["pvalue_holm"] < 0.05
    none = analyze(Plan.from_toml(PLAN.replace("margin = 0.02", "margin = 0.5")), results(shift=0.0, G=60)).table
    assert none["verdict"][0] == "equivalent within ±margin" and none["tost_high"][0] < 0.5
    assert none["favours"][0] is None


def test_cli_analyze(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN)
    data = tmp_path / "results.parquet"
    results().write_parquet(data)
    cmd = [sys.executable, "-c", "from pairedframe.cli import main; main()", "analyze"]
    env = {"PYTHONPATH": str(REPO / "src"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(cmd + ["--plan", str(plan), str(data), "-f", "json", "-o", str(tmp_path / "r.json")],
                         capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""                       # -o: the file, not also stdout
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["plan"]["sha256"] == hashlib.sha256(plan.read_bytes()).hexdigest()
    table = subprocess.run(cmd + ["--plan", str(plan), str(data)], capture_output=True, text=True, env=env)
    assert table.returncode == 0 and rep["plan"]["sha256"] in table.stdout and "verdict" in table.stdout
    none = subprocess.run(cmd + [str(data)], capture_output=True, text=True, env=env)
    assert none.returncode == 2 and "--plan is required" in none.stderr
    bad = subprocess.run(cmd + ["--plan", str(plan), str(tmp_path / "missing.csv")], capture_output=True, text=True,
                         env=env)
    assert bad.returncode == 2 and "missing.csv" in bad.stderr


def test_example_plan_parses():
    plan = load_plan(REPO / "examples" / "plan.toml")
    assert plan.candidate == "BM25 (intents as queries).res" and [e.role for e in plan.endpoints][0] == "primary"
    assert plan.endpoints[2].measure == "Success@1" and plan.endpoints[2].margin == 0.05


@pytest.mark.shared_data
def test_example_plan_on_dl_mia_end_to_end(shared_data, tmp_path):
    import pairedframe as pf

    folder = shared_data / "dl_mia"
    runs = [str(folder / "runs" / "BM25 (intents as queries).res.gz"),
            str(folder / "runs" / "BM25 (intents with original queries).res.gz")]
    ev = pf.evaluate(runs, str(folder / "qrels.txt"), ["nDCG@10", "AP", "Success@1"])
    mapping = pl.read_csv(folder / "qid_iid_qrel.txt", separator=" ", has_header=False,
                          new_columns=["query", "intent", "doc", "rel"],
                          schema_overrides={"query": pl.String, "intent": pl.String})
    cmap = mapping.select(pl.col("intent").alias("qid"), pl.col("query").alias("cluster")).unique()
    # The README's recipe: the evaluation's own system names, a dataset column, clusters by a join.
    per_query = ev.per_query.with_columns(pl.lit("dl_mia").alias("dataset")).join(cmap, on="qid")
    path = tmp_path / "dl_mia.csv"
    per_query.write_csv(path)
    res = analyze(REPO / "examples" / "plan.toml", path)
    t = res.table
    assert t["endpoint"].to_list() == ["nDCG@10", "AP", "success@1"]
    assert t["n_queries"].to_list() == [69] * 3 and t["n_clusters"].to_list() == [24] * 3
    # README sanity values of the two runs (ndcg_cut_10 .1164 vs .0732 is on all 69 intents)
    assert t["candidate_mean"][0] == pytest.approx(0.1164, abs=5e-5)
    assert t["baseline_mean"][0] == pytest.approx(0.0732, abs=5e-5)
    assert t["mcnemar_pvalue"][2] is not None and t["mcnemar_pvalue"][0] is None
    # The only primary endpoint is its own Holm family: its p (0.041 in the issue) is not tripled by
    # the two secondaries, which form a family of their own (issue 12 item 5).
    assert t["pvalue"][0] == pytest.approx(0.041, abs=0.0015)
    guide = (REPO / "docs" / "guide" / "clusters.md").read_text(encoding="utf-8")
    quoted = re.search(r"on DL-MIA the primary nDCG@10 keeps p = (0\.\d+) under\s+`examples/plan\.toml`", guide)
    assert quoted is not None and quoted.group(1) == f"{t['pvalue'][0]:.3f}"     # the guide quotes this value
    assert t["pvalue_holm"][0] == t["pvalue"][0]
    assert t["pvalue_holm"][1:].to_list() == pytest.approx(holm(t["pvalue"][1:].to_numpy()).tolist(), rel=1e-15)
    assert t["family"].to_list() == ["confirmatory (primary endpoints)", "secondary endpoints", "secondary endpoints"]
    report = json.loads(format_analysis(res, "json"))
    assert [e["family"] for e in report["endpoints"]] == t["family"].to_list()
    assert report["settings"]["multiple_comparisons"] == ("Holm within the confirmatory (primary endpoints) (1); "
                                                          "Holm within the secondary endpoints (2)")
    assert "confirmatory (primary endpoints)" in format_analysis(res, "table")
    assert res.plan_sha256 == hashlib.sha256((REPO / "examples" / "plan.toml").read_bytes()).hexdigest()


def test_direction_contradicting_the_measure_is_refused_naming_endpoint_measure_and_direction():
    """direction states the measure's own direction (favours follows it): nDCG@10 "lower is better"
    is an error at parse time, not a silently identical analysis; hit@k is higher-is-better too."""
    wrong = PLAN.replace('measure = "nDCG@10"\ndirection = "higher is better"',
                         'name = "main"\nmeasure = "nDCG@10"\ndirection = "lower is better"')
    with pytest.raises(PlanError, match=r"endpoints\[0\]\.direction = 'lower is better' for endpoint 'main': "
                                        r"its measure 'nDCG@10' is higher is better"):
        Plan.from_toml(wrong)
    with pytest.raises(PlanError, match=r"endpoint 'hit@1': its measure 'hit@1' is higher is better"):
        Plan.from_toml(PLAN.replace('"hit@1"\ndirection = "higher is better"', '"hit@1"\ndirection = "lower"'))
    with pytest.raises(PlanError, match=r"'FirstRelRank' is lower is better"):
        Plan.from_toml(PLAN.replace('"AP"', '"FirstRelRank"'))


def test_direction_of_a_custom_measure_is_honoured_in_favours():
    """A measure pairedframe does not know (a results table's own column) takes the plan's direction:
    the same data favour the candidate when higher is better and the baseline when lower is."""
    data = results(shift=0.2).with_columns(pl.col("measure").replace("AP", "latency_ms"))
    plan = PLAN.replace('"AP"', '"latency_ms"')
    lower = analyze(Plan.from_toml(plan.replace('"latency_ms"\ndirection = "higher is better"',
                                                '"latency_ms"\ndirection = "lower is better"')), data).table
    higher = analyze(Plan.from_toml(plan), data).table
    assert lower["delta"][2] == higher["delta"][2] > 0 and lower["verdict"][2] == "difference"
    assert higher["favours"][2] == "fused" and lower["favours"][2] == "unfused"


def test_header_describes_the_test_in_the_resampling_unit():
    by_query = analyze(Plan.from_toml('resampling_unit = "query"\n' + PLAN), results())
    header = format_analysis(by_query).split("\nendpoint")[0]
    assert "resampling unit: query" in header and "cluster" not in header.replace("clusters", "")
    assert "test: paired sign-flip randomization test, two-sided (exact when 2^n <= n_resamples, n queries)" in header
    assert "t with n - 1 df on the paired SE" in header
    by_cluster = format_analysis(analyze(Plan.from_toml(PLAN), results()))
    assert "test: cluster sign-flip randomization test" in by_cluster and "CR2 cluster SE" in by_cluster
    assert "Bell-McCaffrey df (G - 1 for equal cluster sizes)" in by_cluster


def test_a_cluster_plans_settings_describe_the_interval_its_numbers_follow_against_compare_clustered(tmp_path):
    """analyze's interval inverts the cluster sign-flip test (its numbers equal compare_clustered's
    interval='signflip'); settings['cluster_policy'] says so instead of compare_clustered's default."""
    path = tmp_path / "plan.toml"
    path.write_text(PLAN)
    res = analyze(path, results())
    policy = res.settings["cluster_policy"]
    assert "does not reject" in policy and "Edgeworth" not in policy
    one = compare_clustered(results().filter(pl.col("system").is_in(["unfused", "fused"])), baseline="unfused",
                            measures="hit@1", n_resamples=2000, seed=3, interval="signflip").row(0, named=True)
    r = res.table.row(1, named=True)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((one["ci_low"], one["ci_high"]), rel=1e-12)


def test_settings_print_alpha_as_the_levels_complement_rounded_and_decisions_use_it():
    """settings["alpha"] (the JSON's and the table's) is 1 - level rounded to 12 decimals: 0.05, not
    0.050000000000000044; the verdicts compare p-values with that same alpha, strictly."""
    res = analyze(Plan.from_toml(PLAN), results())
    assert res.settings["alpha"] == 0.05 and 1.0 - 0.95 != 0.05
    assert '"alpha": 0.05,' in json.dumps(res.to_dict())
    t = res.table
    assert t["verdict"].to_list() == [_verdict(bool(ph < 0.05), bool(pt < 0.05)) for ph, pt in
                                      zip(t["pvalue_holm"], t["pvalue_tost_holm"])]


def test_markdown_report_keeps_a_plan_title_holding_a_comment_end_inside_its_comment(tmp_path):
    """A title 'a --> <b>x</b>' broke out of the markdown header's HTML comment and rendered."""
    path = tmp_path / "plan.toml"
    path.write_text(PLAN.replace('title = "t"', 'title = "a --> <b>x</b>"'))
    text = format_analysis(analyze(path, results()), "markdown")
    comments = [line for line in text.splitlines() if line.startswith("<!--")]
    assert all(line.count("-->") == 1 and line.endswith("-->") for line in comments), comments
    assert any("<b>x</b>" in line for line in comments)


_TIED_PLAN = """
title = "tied"
confidence_level = 0.95
margin = 0.02
seed = 1
n_resamples = 2000
{unit}
[systems]
baseline = "A"
candidate = "B"
[[endpoints]]
measure = "{measure}"
direction = "{direction}"
role = "primary"
"""


def _tied(n: int, measure: str, clusters: bool) -> pl.DataFrame:
    """A and B equal on every query (values in the measure's range)."""
    v = np.random.default_rng(0).uniform(size=n)
    v = (v > 0.5).astype(float) if measure == "Success@1" else v
    frame = pl.DataFrame({"system": ["A"] * n + ["B"] * n, "qid": [f"q{i}" for i in range(n)] * 2,
                          "measure": measure, "value": np.concatenate([v, v])})
    return frame.with_columns(pl.Series("cluster", [f"c{i // 2}" for i in range(n)] * 2)) if clusters else frame


@pytest.mark.parametrize("n, measure, unit", [(40, "nDCG@10", ""), (6, "Success@1", 'resampling_unit = "query"')])
def test_tied_runs_are_equivalent_only_when_the_reported_tost_interval_is_inside_the_margin(n, measure, unit):
    """A == B on every query (no spread): 20 tied clusters (or 6 tied queries) were called "equivalent
    within ±margin" at margin 0.02 by a TOST p of 1 / 2**G, while the 95 % interval was [-0.168, 0.168].
    The TOST interval is now the range-based one for equal deltas, and the verdict follows it, as
    compare_clustered's ``equivalent`` does on the same data."""
    table = _tied(n, measure, clusters=not unit)
    plan = Plan.from_toml(_TIED_PLAN.format(unit=unit, measure=measure, direction="higher is better"))
    r = analyze(plan, table).table.row(0, named=True)
    assert r["delta"] == 0 and r["ci_low"] < -0.02 and r["ci_high"] > 0.02
    assert r["tost_low"] < -0.02 and r["tost_high"] > 0.02 and r["pvalue_tost"] > 0.05
    assert not r["equivalent"] and r["verdict"] == "inconclusive"
    clusters = table["cluster"] if "cluster" in table.columns else table["qid"]
    same = compare_clustered(table.drop("cluster", strict=False).with_columns(clusters.alias("cluster")),
                             baseline="A", clusters="cluster", margin=0.02, n_resamples=2000, seed=1,
                             interval="signflip").row(0, named=True)
    assert (same["pvalue_tost"], same["tost_low"], same["tost_high"], same["equivalent"]) == (
        r["pvalue_tost"], r["tost_low"], r["tost_high"], r["equivalent"])
    # a margin wide enough to hold that interval is equivalence, as the interval says
    wide = analyze(Plan.from_toml(_TIED_PLAN.replace("margin = 0.02", "margin = 0.9").format(
        unit=unit, measure=measure, direction="higher is better")), table).table.row(0, named=True)
    assert wide["equivalent"] == (-0.9 < wide["tost_low"] and wide["tost_high"] < 0.9) == (wide["pvalue_tost"] < 0.05)


@pytest.mark.shared_data
def test_tied_dl19_runs_are_not_equivalent_within_a_margin_their_interval_exceeds(shared_data):
    """TUA1-1 and test1 (DL-2019) tie on all 43 queries for Success@1 and FirstRelRank: analyze called
    both "equivalent within ±margin" with intervals [-0.082, 0.082] and (-inf, inf)."""
    import pairedframe as pf

    runs = [shared_data / "llm_labels_dl" / "dl2019_runs" / f"input.{r}.gz" for r in ("TUA1-1", "test1")]
    if not all(r.exists() for r in runs):
        pytest.skip("DL-2019 runs not in the shared data")
    ev = pf.evaluate([str(r) for r in runs], str(shared_data / "anserini_tools" / "qrels.dl19-passage.txt"),
                     ["Success@1", "FirstRelRank"])
    plan = _TIED_PLAN.format(unit='resampling_unit = "query"', measure="Success@1", direction="higher is better")
    plan = plan.replace('baseline = "A"', 'baseline = "TUA1-1"').replace('candidate = "B"', 'candidate = "test1"')
    plan += '[[endpoints]]\nmeasure = "FirstRelRank"\ndirection = "lower is better"\nrole = "primary"\n'
    t = analyze(Plan.from_toml(plan), ev).table
    assert t["delta"].to_list() == [0, 0] and t["n_queries"].to_list() == [43, 43]
    assert t["verdict"].to_list() == ["inconclusive"] * 2 and not t["equivalent"].any()
    assert t["tost_low"][0] < -0.02 and t["tost_high"][0] > 0.02 and t["pvalue_tost"][1] == 1.0


def test_hit_endpoint_on_measure_values_is_refused_naming_the_rank_export_and_success_k():
    """hit@k comes only from a first-hit-rank export; on measure values the refusal says so and names Success@k."""
    values = results().with_columns(pl.col("measure").replace({"hit@1": "Success@1"}))
    with pytest.raises(PlanError, match=r"'hit@1' is not a measure of the results .*first-hit-rank export "
                                        r"\(columns qid, first_hit_rank.*the same endpoint is Success@1 \(in the results\)"):
        analyze(Plan.from_toml(PLAN), values)


def test_hit_endpoint_runs_on_a_first_hit_rank_export():
    ranks = pl.DataFrame({"system": ["unfused"] * 20 + ["fused"] * 20, "qid": [f"q{i}" for i in range(20)] * 2,
                          "first_hit_rank": [3.0, 1, 2, float("inf"), 5] * 4 + [1.0, 1, 2, 4, 1] * 4})
    plan = Plan.from_toml(PLAN.split("[[endpoints]]")[0] + '[[endpoints]]\nmeasure = "hit@1"\ndirection = "higher is better"\nrole = "primary"\n')
    row = analyze(plan, ranks).table.row(0, named=True)
    assert row["measure"] == "hit@1" and row["delta"] == pytest.approx(0.6 - 0.2)


def test_unreachable_warning_of_the_guides_hit_plan_names_its_endpoint_and_the_queries_it_resamples(
        tmp_path, monkeypatch):
    """docs/guide/clusters.md's hit@k example run verbatim warned "no comparison can be significant: 4 of 20
    clusters have a non-zero summed delta" of a plan resampling queries, whose hit@1 is significant: the
    warning names the endpoint (hit@5, reranker vs bm25) and the queries it resamples."""
    guide = (REPO / "docs" / "guide" / "clusters.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", guide, flags=re.S)
    setup, plan, hit = blocks[0], next(b for b in blocks if "plan.toml" in b), next(b for b in blocks if "hit_plan" in b)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(setup + plan, namespace)
    with pytest.warns(UserWarning) as caught:
        exec(hit.replace("pf.analyze(", "table = pf.analyze(", 1), namespace)
    said = [str(w.message) for w in caught if "significant" in str(w.message)]
    assert said == ["endpoint 'hit@5' (reranker vs bm25) cannot be significant: 4 of 20 queries have a non-zero "
                    "delta (a zero one flips to itself): the exact sign-flip p cannot go below 0.125; the verdict "
                    "needs p < 0.05; use more queries that differ"]
    assert namespace["table"]["verdict"].to_list() == ["inconclusive", "difference"]
