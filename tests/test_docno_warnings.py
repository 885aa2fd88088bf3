"""Docnos that match the qrels only after case folding or with leading zeros restored warn instead of
giving silent zeros (files, tables, the CLI, Spark; sampled on big runs)."""

from __future__ import annotations

import re
import unicodedata
import warnings

import polars as pl
import pytest

import pairedframe as pf

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


def _nothing_judged(caught) -> list[str]:
    return [str(w.message) for w in caught if "retrieved documents of" in str(w.message) and "is in the qrels" in str(w.message)]


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_a_run_scored_against_another_collections_qrels_warns_that_nothing_is_judged(shared_data, engine):
    """DL-2019 passage runs against the DL-2019 document qrels share topic ids but no docno: every measure
    is 0, so a warning names a run docno beside a judged one (from a file and from a table alike)."""
    run = shared_data / "llm_labels_dl" / "dl2019_runs" / "input.bm25base_p.gz"
    qrels = shared_data / "anserini_tools" / "qrels.dl19-doc.txt"
    for source in (run, pf.read_run(run)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ev = pf.evaluate(source, qrels, ["nDCG@10"], engine=engine)
        (message,) = _nothing_judged(caught)
        assert re.search(r"run 'bm25base_p': none of (a sample of )?[\d,]+ retrieved documents of \d+ judged queries "
                         r"is in the qrels \(e\.g\. query '\d+': run docno '\d+', a judged docno 'D\d+'\)", message)
        assert "qrels of this run's collection" in message
        assert ev.per_query["value"].max() == 0


def test_a_tiny_run_retrieving_no_judged_document_gives_no_warning():
    """Below NO_MATCH_MIN sampled rows a run that retrieves nothing judged is plausible (a toy run)."""
    from pairedframe.evaluation.docno_check import NO_MATCH_MIN

    docs = NO_MATCH_MIN // 2 - 1
    run = pl.DataFrame({"system": "r", "qid": ["1"] * docs + ["2"] * docs,
                        "docno": [f"x{i}" for i in range(2 * docs)], "score": [float(-i) for i in range(2 * docs)]})
    qrels = pl.DataFrame({"qid": ["1", "2"], "docno": ["D1", "D2"], "rel": [1, 1]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.evaluate(run, qrels, ["AP"])
    assert not _nothing_judged(caught)
    wide = pl.concat([run, run.with_columns(pl.concat_str(pl.lit("y"), "docno").alias("docno"))])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pf.evaluate(wide, qrels, ["AP"])
    assert len(_nothing_judged(caught)) == 1


# -- ids that are the same text in another Unicode normalisation form (NFD run, NFC qrels) -------------

_NFC_DOCNOS = [f"caf\u00e9-{i}" for i in range(3)]       # 'é' as one code point
_NFD = lambda s: unicodedata.normalize("NFD", s)         # noqa: E731  ('e' and a combining accent)


def _nfd_run_text() -> str:
    return "".join(f"q1 Q0 {_NFD(d)} {i + 1} {3 - i} t\n" for i, d in enumerate(_NFC_DOCNOS))


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_nfd_docnos_against_nfc_qrels_warn_naming_code_points_and_score_0_as_trec_eval(tmp_path, engine):
    """trec_eval compares bytes: an NFD docno is not the NFC one, so the values stay 0; the warning says
    why and escapes the code points, since printed the two spellings look the same."""
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(f"q1 0 {d} 1\n" for d in _NFC_DOCNOS), encoding="utf-8")
    run = tmp_path / "nfd.run"
    run.write_text(_nfd_run_text(), encoding="utf-8")
    for given in (run, pf.read_run(run)):  # the streamed file and a table
        with pytest.warns(pf.PartlyEmptyWarning, match=r"except for Unicode normalisation") as caught:
            ev = pf.evaluate(given, qrels, ["AP", "RR"], engine=engine)
        assert ev.summary()["value"].to_list() == [0.0, 0.0]
        (message,) = [str(w.message) for w in caught if "Unicode" in str(w.message)]
        assert "only 0 of 3 retrieved documents" in message
        assert r"run 'cafe\u0301-0' ~ qrels 'caf\xe9-0'" in message
        assert [w.filename for w in caught if "Unicode" in str(w.message)] == [__file__]


def test_one_nfd_docno_among_matching_ones_warns():
    """Case differences warn from NEAR_MISS_MIN near matches on, since two documents may differ only in
    case; the same text in another normalisation form is never another document, so one warns."""
    qrels = {"q1": {_NFC_DOCNOS[0]: 1, "d2": 0, "d3": 1}}
    run = {"q1": {_NFD(_NFC_DOCNOS[0]): 3.0, "d2": 2.0, "d3": 1.0}}
    with pytest.warns(pf.PartlyEmptyWarning, match=r"only 2 of 3 .*1 more match.*Unicode normalisation"):
        ev = pf.evaluate(run, qrels, ["RR"])
    assert ev.per_query["value"].to_list() == [1 / 3]


def test_nfd_query_ids_against_nfc_qrels_warn_as_near_miss_ids():
    qid = "requ\u00eate"
    qrels = {qid: {"d1": 1}, "2": {"d1": 1}}
    run = {_NFD(qid): {"d1": 1.0}, "2": {"d1": 1.0}}
    with pytest.warns(pf.PartlyEmptyWarning, match=r"1 run query id\(s\) are not in the qrels but match qrels ids "
                                                   r"except for Unicode normalisation.*\('reque\\u0302te' ~ "
                                                   r"'requ\\xeate'\)"):
        ev = pf.evaluate(run, qrels, ["RR"])
    assert ev.per_query["qid"].to_list() == ["2"]  # left out as unjudged, as trec_eval leaves it


def test_near_miss_ids_normalise_only_the_ids_that_do_not_match(monkeypatch):
    """The query-id check reads the unmatched ids only: ids that all match are never normalised."""
    from pairedframe import checks

    calls = []
    monkeypatch.setattr(checks, "_id_key", lambda qid: calls.append(qid) or qid)
    assert checks.near_miss_ids(["1", "2"], ["1", "2", "3"]) == []
    assert calls == []
