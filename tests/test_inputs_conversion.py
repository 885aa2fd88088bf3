"""Every accepted input form (polars, pandas, pyarrow, DuckDB relation, pytrec_eval-style
dict-of-dicts, paths) gives the same evaluation as the TREC files."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import duckdb
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import DuplicateError, SchemaError

MEASURES = ["AP", "nDCG@3", "P@2", "RR", "Rprec", "Bpref", "R@3", "Success@1", "NumRet", "NumRel",
            "NumRelRet", "NumQ", "AP(rel=2)"]

# Ties (q 007: b and c at 2.0), ids that look numeric, '#' in a docno, a judged query without
# relevant documents (q 1), a retrieved-but-unjudged query (q 9), a negative grade.
RUN_LINES = [
    ("007", "a", 3.0), ("007", "b", 2.0), ("007", "c", 2.0), ("007", "D#1", -1.5),
    ("7", "01", 0.25), ("7", "1", 0.5),
    ("1", "a", 1.0), ("9", "a", 1.0),
]
QRELS_LINES = [("007", "c", 2), ("007", "D#1", 1), ("007", "a", -1), ("007", "z", 3),
               ("7", "01", 1), ("7", "1", 0), ("1", "a", 0)]


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> tuple[Path, Path]:
    d = tmp_path_factory.mktemp("conv")
    run = d / "sysA"
    run.write_text("".join(f"{q} Q0 {doc} {i} {s!r} tag\n" for i, (q, doc, s) in enumerate(RUN_LINES)))
    qrels = d / "qrels"
    qrels.write_text("".join(f"{q} 0 {doc} {g}\n" for q, doc, g in QRELS_LINES))
    return run, qrels


@pytest.fixture(scope="module")
def expected(files) -> pl.DataFrame:
    run, qrels = files
    return pf.evaluate(run, qrels, MEASURES).per_query


def polars_run() -> pl.DataFrame:
    return pl.DataFrame(RUN_LINES, schema={"qid": pl.String, "docno": pl.String, "score": pl.Float64},
                        orient="row").with_columns(pl.lit("sysA").alias("system"))


def polars_qrels() -> pl.DataFrame:
    return pl.DataFrame(QRELS_LINES, schema={"qid": pl.String, "docno": pl.String, "rel": pl.Int64}, orient="row")


def nested_run() -> dict:
    out: dict = {}
    for q, doc, s in RUN_LINES:
        out.setdefault(q, {})[doc] = s
    return out


def nested_qrels() -> dict:
    out: dict = {}
    for q, doc, g in QRELS_LINES:
        out.setdefault(q, {})[doc] = g
    return out


def _pandas(frame):
    pytest.importorskip("pandas")
    return frame.to_pandas()


def _arrow(frame):
    pytest.importorskip("pyarrow")
    return frame.to_arrow()


def _duckdb(frame):
    con = duckdb.connect()
    return con.sql("SELECT * FROM frame")


CONVERTERS = {
    "polars": lambda f: f,
    "polars-lazy": lambda f: f.lazy(),
    "pandas": _pandas,
    "pyarrow": _arrow,
    "duckdb": _duckdb,
}


@pytest.mark.parametrize("kind", sorted(CONVERTERS))
def test_table_inputs_against_files(expected, kind):
    convert = CONVERTERS[kind]
    got = pf.evaluate(convert(polars_run()), convert(polars_qrels()), MEASURES).per_query
    assert got.equals(expected)


@pytest.mark.parametrize("kind", sorted(CONVERTERS))
def test_ir_measures_column_names_against_files(expected, kind):
    run = polars_run().rename({"qid": "query_id", "docno": "doc_id"})
    qrels = polars_qrels().rename({"qid": "query_id", "docno": "doc_id", "rel": "relevance"})
    convert = CONVERTERS[kind]
    assert pf.evaluate(convert(run), convert(qrels), MEASURES).per_query.equals(expected)


def test_pytrec_eval_dicts_against_files(expected):
    run = pf.as_run(nested_run(), system="sysA")
    got = pf.evaluate(run, nested_qrels(), MEASURES).per_query
    assert got.equals(expected)


def test_pytrec_eval_dicts_against_pytrec_eval(expected):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    evaluator = pytrec_eval.RelevanceEvaluator(nested_qrels(), {"map", "ndcg_cut", "recip_rank", "bpref"})
    oracle = evaluator.evaluate(nested_run())
    ours = {(q, m): v for _, q, m, v in expected.iter_rows()}
    assert set(oracle) == {q for q, _ in ours}
    for q, values in oracle.items():
        assert ours[(q, "AP")] == pytest.approx(values["map"], abs=1e-12)
        assert ours[(q, "RR")] == pytest.approx(values["recip_rank"], abs=1e-12)
        assert ours[(q, "Bpref")] == pytest.approx(values["bpref"], abs=1e-12)


def test_dict_with_integer_ids_and_float_grades_against_files(expected, files):
    """pytrec_eval users often have int keys or float grades: ids become strings, 1.0 becomes 1."""
    run = {"7": {"01": 0.25, "1": 0.5}}
    qrels = {7: {"01": 1.0, 1: 0.0}}
    got = pf.evaluate(pf.as_run(run, system="sysA"), qrels, MEASURES).per_query
    assert got.equals(expected.filter(pl.col("qid") == "7"))


@pytest.mark.parametrize("read, obj, columns", [
    (pf.as_run, {"1": {7: 1.0}}, "['docno'] of the run dict"),
    (pf.as_qrels, {7: {"d1": 1}}, "['qid'] of the qrels dict"),
    (pf.as_qrels, {7: {7: 1}}, "['qid', 'docno'] of the qrels dict"),
])
def test_integer_dict_keys_warn_as_integer_id_columns_do(read, obj, columns):
    """A pytrec_eval dict keyed by integers has lost leading zeros as an integer id column has."""
    with pytest.warns(UserWarning, match=re.escape(f"numeric id column(s) {columns} converted to strings") + ".*'007'") as got:
        read(obj)
    assert [w.filename for w in got if "numeric id" in str(w.message)] == [__file__]  # once, at the caller


def test_string_dict_keys_give_no_id_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pf.as_run({"1": {"7": 1.0}})
        pf.as_qrels({"1": {"7": 1}})


def test_system_argument_for_a_single_table(expected):
    run = polars_run().drop("system")
    with pytest.raises(SchemaError, match="system"):
        pf.as_run(run)
    got = pf.evaluate(pf.as_run(run, system="sysA"), polars_qrels(), MEASURES).per_query
    assert got.equals(expected)


def test_integer_ids_from_tables_become_strings():
    run = pl.DataFrame({"system": ["s"], "qid": [7], "docno": [1], "score": [1]})
    qrels = pl.DataFrame({"qid": [7], "docno": [1], "rel": [1]})
    table = pf.as_run(run)
    assert table.schema == {"system": pl.String, "qid": pl.String, "docno": pl.String, "score": pl.Float64}
    assert pf.evaluate(run, qrels, ["RR"]).per_query.rows() == [("s", "7", "RR", 1.0)]


def test_several_systems_in_one_table_against_files(files, expected):
    run, qrels = files
    two = pl.concat([polars_run(), polars_run().with_columns(pl.lit("sysB").alias("system"))])
    got = pf.evaluate(two, qrels, MEASURES).per_query
    assert got.filter(pl.col("system") == "sysA").equals(expected)
    assert got.filter(pl.col("system") == "sysB").drop("system").equals(expected.drop("system"))


@pytest.mark.parametrize("bad, error, match", [
    (pl.DataFrame({"system": ["s"], "qid": ["1"], "docno": ["a"], "score": [float("nan")]}), SchemaError, "'score' is NaN"),
    (pl.DataFrame({"system": ["s"], "qid": ["1"], "docno": ["a"], "score": ["x"]}), SchemaError, "numbers"),
    (pl.DataFrame({"system": ["s"], "qid": ["1"], "docno": ["a"]}), SchemaError, "score"),
    (pl.DataFrame({"system": ["s"], "qid": [None], "docno": ["a"], "score": [1.0]},
                  schema_overrides={"qid": pl.String}), SchemaError, r"null values in column\(s\) \['qid'\]"),
    (pl.DataFrame({"system": ["s", "s"], "qid": ["1", "1"], "docno": ["a", "a"], "score": [1.0, 2.0]}),
     DuplicateError, "duplicate"),
])
def test_bad_run_tables(bad, error, match):
    with pytest.raises(error, match=match):
        pf.as_run(bad)


@pytest.mark.parametrize("bad, error, match", [
    ({"1": {"a": 1.5}}, SchemaError, "'rel' must hold integer grades"),
    ({"1": {"a": "x"}}, SchemaError, "'rel' must hold integer grades"),
    (pl.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [1.5]}), SchemaError, "'rel' must hold integer grades"),
    (pl.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "rel": [1, 0]}), DuplicateError, "duplicate"),
    (pl.DataFrame({"qid": ["1"], "docno": ["a"]}), SchemaError, "rel"),
])
def test_bad_qrels_tables(bad, error, match):
    with pytest.raises(error, match=match):
        pf.as_qrels(bad)


def test_unsupported_input_type():
    with pytest.raises(TypeError, match="cannot read"):
        pf.as_run(42)


# ---- per-query tables given as the path of a results file ------------------------------------------

_PER_QUERY = pl.DataFrame(
    [(s, f"q{q}", m, round((q * 7 + i * 3 + len(m)) % 11 / 11, 4))
     for i, s in enumerate("abc") for q in range(1, 9) for m in ("AP", "nDCG@10")],
    schema=["system", "qid", "measure", "value"], orient="row")
_SEGMENTS = pl.DataFrame({"qid": [f"q{q}" for q in range(1, 9)], "segment_set": "s", "segment": ["x", "y"] * 4})
_CLUSTERS = pl.DataFrame({"qid": [f"q{q}" for q in range(1, 9)], "cluster": ["x", "y"] * 4})
_PER_QUERY_DOORS = {
    "compare": lambda d: pf.compare(d, baseline="a", n_resamples=200),
    "compare_all_pairs": lambda d: pf.compare(d, pairs="all", n_resamples=200),
    "compare_clustered": lambda d: pf.compare_clustered(d, baseline="a", clusters=_CLUSTERS, n_resamples=200),
    "compare_segments": lambda d: pf.compare_segments(d, _SEGMENTS, baseline="a", n_resamples=200),
    "results_table": lambda d: pf.results_table(d, baseline="a", n_resamples=200).table,
    "rank_agreement_a": lambda d: pf.rank_agreement(d, _PER_QUERY, measure="AP", n_resamples=200).table,
    "rank_agreement_b": lambda d: pf.rank_agreement(_PER_QUERY, d, measure="AP", n_resamples=200).table,
    "paired_per_query": lambda d: pf.paired_per_query(d, baseline="a"),
    "worst_queries": lambda d: pf.worst_queries(d, baseline="a"),
}


@pytest.mark.parametrize("door", sorted(_PER_QUERY_DOORS))
@pytest.mark.parametrize("as_path", [str, Path], ids=["str", "Path"])
def test_per_query_doors_read_a_results_path_as_read_results_does(door, as_path, tmp_path):
    """A path is the file pf.read_results reads, never a one-column table of the path's text."""
    path = tmp_path / "results.csv"
    _PER_QUERY.write_csv(path)
    call = _PER_QUERY_DOORS[door]
    assert call(as_path(path)).equals(call(pf.read_results(path)))


def test_per_query_door_given_a_missing_path_names_the_path(tmp_path):
    missing = tmp_path / "no-such-results.csv"
    with pytest.raises(FileNotFoundError, match="no-such-results.csv"):
        pf.compare(str(missing), baseline="a")


def test_a_segment_table_given_as_a_path_is_read_as_the_cli_reads_it_not_taken_for_a_column(tmp_path):
    """A segment table's path is read as a file (as the CLI's --segments reads it), never as a one-column
    table of the path; it used to be refused, while the CLI took it."""
    path = tmp_path / "segments.csv"
    _SEGMENTS.write_csv(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from_path = pf.compare_segments(_PER_QUERY, str(path), baseline="a", n_resamples=200)
        from_table = pf.compare_segments(_PER_QUERY, _SEGMENTS, baseline="a", n_resamples=200)
    assert from_path.equals(from_table)


@pytest.mark.parametrize("rel, dtype", [(["1", "0"], "String"), ([True, False], "Boolean")])
def test_text_or_boolean_grades_of_a_qrels_jg_table_are_refused_naming_the_column(rel, dtype):
    """As for plain qrels tables: a table's grades are numbers, never parsed ('1' -> 1) or cast (True -> 1)."""
    table = pl.DataFrame({"qid": ["1", "1"], "jg": ["0", "0"], "docno": ["a", "b"], "rel": rel})
    run = {"s": {"1": {"a": 1.0, "b": 0.5}}}
    with pytest.raises(SchemaError, match=rf"qrels_jg table: column 'rel' holds {dtype} values"):
        pf.evaluate(run, table, ["map_avgjg"], judgments_format="qrels_jg")


def test_numpy_integer_and_decimal_grades_in_a_qrels_dict_or_object_column_are_integer_grades():
    """np.int64(1) was refused as 'not integer' (np.float64(1.0) and numpy scores were accepted); a whole
    Decimal is an integer grade and 1.5 is refused, as floats are."""
    import decimal

    import numpy as np
    import pandas as pd

    qrels = pf.as_qrels({"1": {"d": np.int64(1), "e": np.uint8(0), "f": np.int32(2)}})
    assert dict(zip(qrels["docno"], qrels["rel"])) == {"d": 1, "e": 0, "f": 2}
    table = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "rel": [decimal.Decimal("2.0"), decimal.Decimal("1")]})
    assert pf.as_qrels(table)["rel"].to_list() == [2, 1]
    with pytest.raises(pf.SchemaError, match=r"must hold integer grades, got (Decimal\(')?1\.5"):
        pf.as_qrels(table.assign(rel=[decimal.Decimal("1.5"), decimal.Decimal("1")]))
