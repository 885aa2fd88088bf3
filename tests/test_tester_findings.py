"""Regressions for a newcomer tester's findings: silent zeros from mis-spelled docnos, measure labels
under ``-l``, nameless non-finite rows in compare, and integer query ids in per-query tables."""

from __future__ import annotations

import re
import warnings

import duckdb
import polars as pl
import pytest

import pairedframe as pf


def _per_query(values: list[float]) -> pl.DataFrame:
    return pl.DataFrame({"system": ["a", "a", "a", "b", "b", "b"], "qid": ["1", "2", "3"] * 2,
                         "measure": "AP", "value": values})


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_compare_names_the_first_non_finite_row_on_polars_and_duckdb(bad):
    pq = _per_query([0.1, 0.2, 0.3, 0.4, bad, bad])
    with pytest.raises(ValueError) as on_polars:
        pf.compare(pq, baseline="a")
    message = str(on_polars.value)
    assert "2 row(s)" in message and "system='b'" in message and "qid='2'" in message and "measure='AP'" in message
    with pytest.raises(ValueError) as on_duckdb:
        pf.compare(duckdb.sql("SELECT * FROM pq"), baseline="a")
    assert str(on_duckdb.value) == message


def _integer_ids() -> pl.DataFrame:
    return pl.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "qid": [1, 2, 3, 4] * 2, "measure": "AP",
                         "value": [0.1, 0.2, 0.3, 0.4, 0.2, 0.2, 0.5, 0.3]})


@pytest.mark.parametrize("call", [
    lambda pq: pf.compare(pq, baseline="a", n_resamples=99),
    lambda pq: pf.compare(duckdb.sql("SELECT * FROM pq"), baseline="a", n_resamples=99),
    lambda pq: pf.compare_clustered(pq, clusters={"1": "x", "2": "x", "3": "y", "4": "y"}, baseline="a", n_resamples=99),
    lambda pq: pf.compare_segments(pq, {"qid": ["1", "2", "3", "4"], "segment_set": "s", "segment": "t"},
                                   baseline="a", n_resamples=99),
], ids=["compare", "compare-duckdb", "compare_clustered", "compare_segments"])
def test_integer_qids_of_a_per_query_table_warn_that_leading_zeros_may_be_lost(call):
    pq = _integer_ids()  # noqa: F841 (read by DuckDB's replacement scan)
    with pytest.warns(UserWarning, match=r"\['qid'\] of the per-query table converted to strings.*'007'") as got:
        call(pq)
    assert any(w.filename == __file__ for w in got if "numeric id" in str(w.message))  # points at the caller


@pytest.mark.parametrize("table, what", [
    ({"qid": [1, 2, 3, 4], "segment_set": "s", "segment": "t"}, "segment table"),
])
def test_integer_qids_of_a_segment_table_warn(table, what):
    pq = _integer_ids().with_columns(pl.col("qid").cast(pl.String))
    with pytest.warns(UserWarning, match=f"of the {what} converted to strings"):
        pf.compare_segments(pq, pl.DataFrame(table), baseline="a", n_resamples=99)


def test_integer_qids_of_a_cluster_table_warn():
    pq = _integer_ids().with_columns(pl.col("qid").cast(pl.String))
    with pytest.warns(UserWarning, match="of the cluster table converted to strings"):
        pf.compare_clustered(pq, clusters=pl.DataFrame({"qid": [1, 2, 3, 4], "cluster": ["x", "x", "y", "y"]}),
                             baseline="a", n_resamples=99)


def test_string_qids_give_no_id_warning():
    pq = _integer_ids().with_columns(pl.col("qid").cast(pl.String))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        warnings.filterwarnings("ignore", category=pf.SmallSampleWarning)
        try:
            pf.compare(pq, baseline="a", n_resamples=99)
        except UserWarning as w:
            assert "numeric id" not in str(w)


def _csv_measures(output: str) -> list[str]:
    return pl.read_csv(output.encode())["measure"].to_list()


def test_csv_and_json_labels_state_the_relevance_level_used_under_l2(shared_data):
    from typer.testing import CliRunner

    from pairedframe.cli import app
    folder = shared_data / "trec_eval"
    args = ["evaluate", str(folder / "qrels.rel_level"), str(folder / "results.test"), "-l", "2",
            "-m", "P(rel=1)@10", "-m", "P@10", "-m", "map"]
    out = CliRunner().invoke(app, [*args, "-f", "csv"])
    assert out.exit_code == 0, out.output
    assert _csv_measures(out.stdout) == ["P(rel=1)@10", "P(rel=2)@10", "AP(rel=2)"]
    json_out = CliRunner().invoke(app, [*args, "-f", "json"])
    assert [row["measure"] for row in __import__("json").loads(json_out.stdout)] == [
        "P(rel=1)@10", "P(rel=2)@10", "AP(rel=2)"]
    # Values: P(rel=1)@10 under -l 2 is P@10 under -l 1, and -m P@10 is P(rel=2)@10 under -l 1.
    level_1 = CliRunner().invoke(app, [*args[:3], "-m", "P@10", "-m", "P(rel=2)@10", "-f", "csv"])
    assert pl.read_csv(out.stdout.encode())["value"].to_list()[:2] == \
        pl.read_csv(level_1.stdout.encode())["value"].to_list()


def test_csv_names_are_canonical_and_trec_names_are_trec_evals(shared_data):
    from typer.testing import CliRunner

    from pairedframe.cli import app
    folder = shared_data / "trec_eval"
    args = ["evaluate", str(folder / "qrels.test"), str(folder / "results.test"), "-m", "map", "-m", "P.10"]
    assert _csv_measures(CliRunner().invoke(app, [*args, "-f", "csv"]).stdout) == ["AP", "P@10"]
    trec = CliRunner().invoke(app, [*args, "-f", "trec"]).stdout
    assert [line.split()[0] for line in trec.splitlines()] == ["map", "P_10"]
    assert "canonical name" in CliRunner().invoke(app, ["evaluate", "--help"]).stdout


def test_a_measure_resolved_under_another_level_round_trips_through_its_name():
    from pairedframe.measures import parse_measure
    for text in ["P(rel=1)@10", "P@10", "AP", "R(rel=3)@100"]:
        for level in (1, 2):
            resolved = parse_measure(text)[0].resolved(level)
            assert parse_measure(resolved.name)[0].resolved(level) == resolved


# -- docnos that match the qrels only after case folding / leading zeros -------------------------------

def _lowered_run(shared_data, tmp_path, *, shuffle: bool = False):
    lines = (shared_data / "trec_eval" / "results.test").read_text().splitlines()
    fields = [line.split() for line in lines]
    out = [" ".join([f[0], f[1], f[2].lower(), *f[3:]]) for f in fields]
    if shuffle:  # a query's lines scattered: the file is partitioned by query first
        out = out[::2] + out[1::2]
    path = tmp_path / "lower.run"
    path.write_text("\n".join(out) + "\n")
    return path


def _docno_warnings(caught) -> list[str]:
    return [str(w.message) for w in caught if "docno" in str(w.message) and "except for case" in str(w.message)]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("shuffle", [False, True], ids=["streamed", "partitioned"])
def test_lower_cased_docnos_warn_instead_of_silent_zeros(shared_data, tmp_path, engine, shuffle):
    run = _lowered_run(shared_data, tmp_path, shuffle=shuffle)
    with pytest.warns(pf.PartlyEmptyWarning, match="except for case") as caught:
        ev = pf.evaluate(run, shared_data / "trec_eval" / "qrels.test", ["AP", "P@10"], engine=engine)
    assert ev.summary()["value"].to_list() == [0.0, 0.0]  # the values stay trec_eval's
    (message,) = _docno_warnings(caught)
    assert "run 'lower.run'" in message and "only 0 of 1,500 retrieved documents" in message
    shown, judged = re.search(r"e\.g\. run '([^']+)' ~ qrels '([^']+)'", message).groups()
    assert shown != judged and shown.upper() == judged
    assert [w.filename for w in caught if "except for case" in str(w.message)] == [__file__]


def test_lower_cased_docnos_of_a_table_warn(shared_data, tmp_path):
    table = pf.io.as_run(_lowered_run(shared_data, tmp_path))
    qrels = pf.io.as_qrels(shared_data / "trec_eval" / "qrels.test")
    for engine in ("duckdb", "polars"):
        with pytest.warns(pf.PartlyEmptyWarning, match=r"run 'lower.run': only 0 of 1,500 .*except for case"):
            pf.evaluate(table, qrels, ["AP"], engine=engine)


def test_docnos_that_lost_leading_zeros_warn_naming_a_pair(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q1 0 {d:05d} 1\n" for d in range(1, 40)))
    run = tmp_path / "run"
    run.write_text("".join(f"q1 Q0 {d} {d} {100 - d} t\n" for d in range(1, 60)))
    with pytest.warns(pf.PartlyEmptyWarning, match=r"only 0 of 59 .*39 more match.*run '1' ~ qrels '00001'"):
        pf.evaluate(run, qrels, ["AP"])


def test_a_small_run_matching_only_after_case_folding_warns(tmp_path):
    """Three documents, none judged as spelled and all judged up to case: every measure would be 0."""
    qrels = tmp_path / "qrels"
    qrels.write_text("007 0 d1 1\n007 0 d2 0\n007 0 d3 2\n")
    run = tmp_path / "run"
    run.write_text("007 Q0 D1 1 3 t\n007 Q0 D2 2 2 t\n007 Q0 D3 3 1 t\n")
    with pytest.warns(pf.PartlyEmptyWarning, match=r"only 0 of 3 .*3 more match.*run 'D1' ~ qrels 'd1'"):
        pf.evaluate(run, qrels, ["AP"])
    run.write_text("007 Q0 d1 1 3 t\n007 Q0 D2 2 2 t\n007 Q0 d3 3 1 t\n")   # some match as spelled: 1 of 3 is below 5
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.evaluate(run, qrels, ["AP"])
    assert _docno_warnings(caught) == []


def test_a_big_run_is_checked_on_a_sample_and_says_so(shared_data, tmp_path, monkeypatch):
    from pairedframe.evaluation import docno_check
    monkeypatch.setattr(docno_check, "SAMPLE_ROWS", 400)
    run = _lowered_run(shared_data, tmp_path)
    with pytest.warns(pf.PartlyEmptyWarning, match=r"only 0 of a sample of 400 retrieved documents"):
        pf.evaluate(run, shared_data / "trec_eval" / "qrels.test", ["AP"])
    with pytest.warns(pf.PartlyEmptyWarning, match=r"only 0 of a sample of \d+ retrieved documents"):
        pf.evaluate(pf.io.as_run(run), shared_data / "trec_eval" / "qrels.test", ["AP"])


def test_a_run_of_mostly_unjudged_documents_gives_no_docno_warning(shared_data, tmp_path):
    folder = shared_data / "trec_eval"
    lines = (folder / "results.test").read_text().splitlines()
    # 1 judged-spelling document in 50, the rest unjudged documents of the collection's own spelling
    unjudged = [" ".join([f[0], f[1], f[2] if i % 50 == 0 else f"ZZ{i:07d}", *f[3:]])
                for i, f in enumerate(line.split() for line in lines)]
    run = tmp_path / "unjudged.run"
    run.write_text("\n".join(unjudged) + "\n")
    for given in (run, folder / "results.test"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pf.evaluate(given, folder / "qrels.test", ["AP"])
        assert _docno_warnings(caught) == []


def test_cli_prints_the_docno_warning_and_exits_0(shared_data, tmp_path):
    from typer.testing import CliRunner

    from pairedframe.cli import app
    run = _lowered_run(shared_data, tmp_path)
    out = CliRunner().invoke(app, ["evaluate", str(shared_data / "trec_eval" / "qrels.test"), str(run),
                                   "-m", "map", "-m", "P@10"])
    assert out.exit_code == 0 and "run 'lower.run': only 0 of 1,500" in out.stderr


def test_only_the_sampled_run_is_said_to_be_sampled(shared_data, tmp_path, monkeypatch):
    from pairedframe.evaluation import docno_check
    monkeypatch.setattr(docno_check, "SAMPLE_ROWS", 1000)
    whole = _lowered_run(shared_data, tmp_path)
    short = tmp_path / "short.run"
    short.write_text("".join(whole.read_text().splitlines(keepends=True)[:600]))
    with pytest.warns(pf.PartlyEmptyWarning) as caught:
        pf.evaluate({"whole": whole, "short": short}, shared_data / "trec_eval" / "qrels.test", ["AP"])
    messages = sorted(_docno_warnings(caught))
    assert len(messages) == 2
    assert "run 'short': only 0 of 600 retrieved" in messages[0]
    assert "run 'whole': only 0 of a sample of 1,000 retrieved" in messages[1]


def test_lower_cased_docnos_warn_on_spark_too(shared_data, tmp_path, spark):
    from pairedframe.engines.spark_engine import SparkEngine

    run = _lowered_run(shared_data, tmp_path)
    with pytest.warns(pf.PartlyEmptyWarning, match=r"run 'lower.run': only 0 of 1,500 .*except for case") as caught:
        ev = pf.evaluate(run, shared_data / "trec_eval" / "qrels.test", ["AP"], engine=SparkEngine(spark))
    assert ev.summary()["value"].to_list() == [0.0]
    assert [w.filename for w in caught if "except for case" in str(w.message)] == [__file__]


def test_partly_lower_cased_docnos_warn_too(shared_data, tmp_path):
    """Every second line lower-cased: half the judged documents are lost, mean AP 0.18 -> 0.03."""
    lines = (shared_data / "trec_eval" / "results.test").read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        f = line.split()
        out.append(" ".join([f[0], f[1], f[2].lower() if i % 2 else f[2], *f[3:]]))
    path = tmp_path / "half.run"
    path.write_text("\n".join(out) + "\n")
    with pytest.warns(pf.PartlyEmptyWarning, match=r"run 'half.run': only [1-9][\d,]* of 1,500 .*more match .*"
                                                    r"every measure is lower"):
        pf.evaluate(path, shared_data / "trec_eval" / "qrels.test", ["AP"])
