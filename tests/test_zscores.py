"""Z-scores (trec_eval ``-Z FILE``): Evaluation.zscore against a scalar reference of convert_zscores.c
and of trec_eval's summary of z-scores (trec_eval.c accumulates them; num_q counts the queries;
gm_map takes exp of the mean), on random reference statistics; the reader's bad-input cases. The
file form: tests/test_against_trec_eval_suite.py (out.test.aqZ)."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import cache

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pairedframe as pf
from pairedframe.errors import DuplicateError, InputFormatError, SchemaError
from pairedframe.example import example_paths
from pairedframe.io.zscores import read_zscores
from tests.strategies import budget

MISSING = -1_000_000.0


@cache
def evaluation() -> pf.Evaluation:
    """Two runs of the example data on its first 4 queries: counts, means, gm_map and relstring."""
    qrels, runs = example_paths()
    ev = pf.evaluate(runs, qrels, ["num_q", "num_ret", "map", "gm_map", "P.3", "relstring.5"])
    first = ev.per_query["qid"].unique().sort().head(4).implode()
    return replace(ev, per_query=ev.per_query.filter(pl.col("qid").is_in(first)),
                   text=ev.text.filter(pl.col("qid").is_in(first)))


def z_reference(value: float, trec_name: str, gmean: bool, stats: dict) -> float:
    """convert_zscores.c for one value (gm_map / gm_bpref hold the log of the value in trec_eval)."""
    raw = math.log(value) if gmean else value
    if trec_name not in stats:
        return MISSING
    mean, sd = stats[trec_name]
    if sd:
        return (raw - mean) / sd
    return 0.0 if raw == mean else MISSING


@st.composite
def references(draw) -> pl.DataFrame:
    """Per (qid, measure) statistics for some of the evaluation's queries and measures: means near the
    values, standard deviations 0 (with the mean equal to the value or not) or positive."""
    ev = evaluation()
    rows = []
    for (qid, name), value in draw(st.sampled_from([ev])).per_query.group_by("qid", "measure").agg(
            pl.col("value").first()).rows_by_key(["qid", "measure"], unique=True).items():
        if not draw(st.booleans()) and draw(st.booleans()):
            continue  # a measure or query missing from the file
        m = next(m for m in ev.measures if m.name == name)
        raw = math.log(value[0]) if m.spec.aggregate == "gmean" else value[0]
        kind = draw(st.sampled_from(["equal", "other", "spread"]))
        mean = raw if kind == "equal" else raw + draw(st.floats(-2, 2, allow_nan=False))
        sd = 0.0 if kind != "spread" else draw(st.floats(0.01, 3))
        rows.append((qid, m.trec_name, mean, sd))
    return pl.DataFrame(rows, schema={"qid": pl.String, "measure": pl.String, "mean": pl.Float64,
                                      "stddev": pl.Float64}, orient="row")


@settings(max_examples=budget(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])
@given(reference=references())
def test_zscore_values_and_summary_against_reference(reference):
    ev = evaluation()
    z = ev.zscore(reference)
    by_qid: dict[str, dict] = {}
    for qid, name, mean, sd in reference.iter_rows():
        by_qid.setdefault(qid, {})[name] = (mean, sd)
    spec = {m.name: m for m in ev.measures}
    want = {(s, q, name): z_reference(v, spec[name].trec_name, spec[name].spec.aggregate == "gmean", by_qid.get(q, {}))
            for s, q, name, v in ev.per_query.iter_rows()}
    got = {(s, q, m): v for s, q, m, v in z.per_query.iter_rows()}
    assert got == pytest.approx(want, rel=1e-12, abs=1e-12)
    assert z.text.equals(ev.text)  # relstring stays text
    summary = {(s, m): v for s, m, v, _ in z.summary().iter_rows()}
    for (system, name), value in summary.items():
        zs = [got[(system, q, name)] for q in sorted({q for s, q, _ in got if s == system}, key=str.encode)]
        total = 0.0
        for x in zs:  # trec_eval adds the z-scores in query order
            total += x
        m = spec[name]
        expected = (len(zs) if m.family == "NumQ" else math.exp(total / len(zs)) if m.spec.aggregate == "gmean"
                    else total if m.spec.aggregate == "sum" else total / len(zs))
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-12), name


def test_zscore_trec_text_prefixes_z_and_prints_counts_as_reals():
    with pytest.warns(UserWarning, match="matches no"):   # q1 is no query of the example
        ev = evaluation().zscore(pl.DataFrame({"qid": ["q1"], "measure": ["num_ret"], "mean": [0.0], "stddev": [1.0]},
                                              schema={"qid": pl.String, "measure": pl.String, "mean": pl.Float64,
                                                      "stddev": pl.Float64}))
    lines = ev.to_trec(runids={s: "tag" for s in ev.systems}).splitlines()
    assert any(line.startswith("Znum_q                 \tall\t") and line.endswith(".0000") for line in lines)
    assert all(line.startswith(("Z", "# run", "relstring", "runid")) for line in lines)
    assert any(line.endswith("\t-1000000.0000") for line in lines)  # measures missing from the file
    with pytest.raises(ValueError, match="z-scores already"):
        ev.zscore(pl.DataFrame({"qid": [], "measure": [], "mean": [], "stddev": []}))


@pytest.mark.parametrize(("text", "error", "match"), [
    ("301 map 0.1\n", InputFormatError, r"line 1: expected exactly 4 fields \(qid measure mean stddev\), found 3"),
    ("301 map 0.1 0.2 9\n", InputFormatError, r"line 1: expected exactly 4 fields"),
    ("301 map x 0.2\n", InputFormatError, r"line 1, column 3: mean 'x' is not a finite number"),
    ("301 map 0.1 nan\n", InputFormatError, r"line 1, column 4: stddev 'nan' is not a finite number"),
    ("301 map 0.1 0.2\n# note\n301 map 0.3 0.2\n", DuplicateError, r"duplicate \(qid, measure\) = \(301, map\).*\[3\]"),
    ("# only a comment\n", InputFormatError, r"empty file"),
])
def test_zscores_file_errors_name_the_line(tmp_path, text, error, match):
    path = tmp_path / "zscores"
    path.write_text(text)
    with pytest.raises(error, match=match) as exc:
        read_zscores(path)
    assert "zscores file" in str(exc.value)


def test_zscores_table_errors():
    with pytest.raises(SchemaError, match=r"lacks column\(s\) \['stddev'\]"):
        evaluation().zscore(pl.DataFrame({"qid": ["1"], "measure": ["map"], "mean": [0.1]}))
    with pytest.raises(DuplicateError, match="duplicate"):
        evaluation().zscore(pl.DataFrame({"qid": ["1", "1"], "measure": ["map", "map"], "mean": [0.1, 0.2],
                                          "stddev": [1.0, 1.0]}))


@pytest.mark.parametrize("fmt", ["csv", "json", "trec"])
def test_cli_zscores_warn_that_minus_1000000_is_a_marker_outside_trec_format(tmp_path, fmt):
    """-Z with csv / json: trec_eval's -1000000 reads as a number there, so the CLI says which values are the
    marker; -f trec prints trec_eval's text unchanged and quietly."""
    from typer.testing import CliRunner

    from pairedframe.cli import app

    qrels, runs = example_paths()
    first = evaluation().per_query["qid"].unique().sort()[0]
    zfile = tmp_path / "z.txt"
    zfile.write_text(f"{first} map 0.5 0.25\n")           # every other query and measure: missing
    result = CliRunner().invoke(app, ["evaluate", "-f", fmt, "-q", "-m", "map", "-Z", str(zfile), str(qrels), str(runs[0])])
    assert result.exit_code == 0, result.output
    assert "-1000000" in result.stdout or "-1e+06" in result.stdout or "-1000000.0" in result.stdout
    warned = "trec_eval's -1000000" in result.stderr and "a marker, not a z-score" in result.stderr
    assert warned == (fmt != "trec")


def _reference_of(ev: pf.Evaluation) -> pl.DataFrame:
    """Per-(qid, measure) statistics under pairedframe's names (as ev.summary() prints them)."""
    return (ev.per_query.group_by("qid", "measure").agg((pl.col("value").mean() - 0.1).alias("mean"),
                                                       pl.lit(0.5).alias("stddev")))


def test_zscore_reads_pairedframe_measure_names_as_trec_eval_names():
    """A reference spelling AP / nDCG@10 gives the z-scores of one spelling map / ndcg_cut_10 (it gave
    -1000000 everywhere, silently)."""
    qrels, runs = example_paths()
    ev = pf.evaluate(runs, qrels, ["AP", "nDCG@10", "P@5"])
    ours = _reference_of(ev)
    trecs = ours.with_columns(pl.col("measure").replace({"AP": "map", "nDCG@10": "ndcg_cut_10", "P@5": "P_5"}))
    got, want = ev.zscore(ours).per_query, ev.zscore(trecs).per_query
    assert got.equals(want)
    assert (want["value"] == MISSING).sum() == 0 and want["value"].abs().max() > 0
    twice = pl.concat([ours, trecs.filter(pl.col("measure") == "map").with_columns(pl.lit("MAP").alias("measure"))])
    with pytest.raises(DuplicateError, match=r"spells the measure map as 'AP' and 'MAP'"):
        ev.zscore(twice)


def test_zscore_trec_eval_names_warn_naming_the_name_to_use():
    qrels, runs = example_paths()
    ev = pf.evaluate(runs[0], qrels, ["AP", "P@5"])
    ours = _reference_of(ev).with_columns(pl.col("measure").replace({"P@5": "P_5"}))
    with pytest.warns(UserWarning, match=r"names 'AP' \(spell it 'map'\).*trec_eval -Z does not read"):
        z = ev.zscore(ours, names="trec_eval")
    assert set(z.per_query.filter(pl.col("measure") == "AP")["value"]) == {MISSING}
    with pytest.raises(ValueError, match=r"names='trec': expected 'any' or 'trec_eval'"):
        ev.zscore(ours, names="trec")


def test_zscore_reference_matching_no_value_warns():
    qrels, runs = example_paths()
    ev = pf.evaluate(runs[0], qrels, ["AP"])
    elsewhere = _reference_of(ev).with_columns(("x" + pl.col("qid")).alias("qid"))
    with pytest.warns(UserWarning, match=r"matches no \(qid, measure\) of the evaluation"):
        assert set(ev.zscore(elsewhere).per_query["value"]) == {MISSING}


def test_cli_zscores_file_in_pairedframe_names_is_read_as_trec_eval_reads_it_and_warns(tmp_path):
    """-Z reads trec_eval's names only (its output stays trec_eval's: -1000000 for AP), and says to spell it map."""
    from typer.testing import CliRunner

    from pairedframe.cli import app

    qrels, runs = example_paths()
    first = evaluation().per_query["qid"].unique().sort()[0]
    zfile = tmp_path / "z.txt"
    zfile.write_text(f"{first} AP 0.5 0.25\n")
    result = CliRunner().invoke(app, ["evaluate", "-f", "trec", "-q", "-m", "map", "-Z", str(zfile), str(qrels),
                                      str(runs[0])])
    assert result.exit_code == 0, result.output
    assert f"Zmap                   \t{first}\t-1000000.0000" in result.stdout
    assert "names 'AP' (spell it 'map')" in result.stderr
