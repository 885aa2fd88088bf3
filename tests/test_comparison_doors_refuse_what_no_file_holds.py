"""Doors of the comparison layer against inputs no TREC file holds, or that rank no run (an outside tester's
findings): blank ids in per-query tables, unpaired queries in the engines, missing files, judgment sets named in
their errors, measures that rank no run in rank agreement, blank titles."""

from __future__ import annotations

import importlib.util
import warnings

import duckdb
import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import PartlyEmptyWarning, SchemaError
from pairedframe.example import example_paths


@pytest.fixture(scope="module")
def per_query() -> pl.DataFrame:
    qrels, runs = example_paths()
    return pf.evaluate(runs, qrels, ["nDCG@10"]).per_query


def _with(table: pl.DataFrame, column: str, value: str, row: int = 5) -> pl.DataFrame:
    return table.with_columns(pl.when(pl.int_range(pl.len()) == row).then(pl.lit(value)).otherwise(pl.col(column))
                              .alias(column))


@pytest.mark.parametrize("column, value", [("qid", "  "), ("qid", "\t"), ("qid", ""), ("system", " "), ("measure", "")])
def test_blank_ids_in_a_per_query_table_are_refused_naming_the_column(per_query, column, value, duckdb_relation):
    """A qid of blanks was its own query (a PartlyEmptyWarning at most) and a blank system or measure gave an
    error naming neither; in memory and in DuckDB alike, compare and results_table refuse it by column."""
    table = _with(per_query, column, value)
    pandas = [table.to_pandas()] if importlib.util.find_spec("pandas") else []     # an optional dependency
    for data in (table, *pandas, duckdb_relation(table)):
        with pytest.raises(SchemaError, match=rf"column '{column}' is an empty or all-blank string in 1 row"):
            pf.compare(data, baseline="bm25", n_resamples=99)
        with pytest.raises(SchemaError, match=rf"column '{column}' is an empty or all-blank string"):
            pf.results_table(data)


def test_a_duckdb_relation_warns_of_unpaired_queries_as_a_polars_table_does(per_query, duckdb_relation):
    """A query one system lacks is left out of its comparison: the polars path warned, DuckDB said nothing."""
    table = per_query.filter(~((pl.col("system") == "reranker") & (pl.col("qid") == "005")))
    for data in (table, duckdb_relation(table)):
        with pytest.warns(PartlyEmptyWarning, match=r"1 comparison\(s\) leave out queries that only one side has a "
                                                    r"value for; most: 59 of 60 queries paired \(system=reranker"):
            got = pf.compare(data, baseline="bm25", n_resamples=99, seed=0)
        assert got["n_queries"].to_list() == [59]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PartlyEmptyWarning)  # nothing left out: no warning
        pf.compare(duckdb_relation(per_query), baseline="bm25", n_resamples=99, seed=0)


@pytest.mark.parametrize("door", ["compare_clustered", "compare_segments"])
def test_duckdb_clustered_and_segment_comparisons_warn_of_unpaired_queries_as_compare_does(per_query, door):
    """compare counts the paired queries in its moments pass; these doors warn all the same, at the caller's line."""
    table = per_query.filter(~((pl.col("system") == "reranker") & (pl.col("qid") == "005")))
    qids = table["qid"].unique().sort()
    groups = pl.DataFrame({"qid": qids, "cluster": [f"c{i % 12}" for i in range(qids.len())],
                           "segment_set": "s", "segment": [f"g{i % 2}" for i in range(qids.len())]})
    con = duckdb.connect()
    data = con.from_arrow(table.to_arrow())
    call = (lambda: pf.compare_clustered(data, baseline="bm25", clusters=groups.select("qid", "cluster"),
                                         n_resamples=99, seed=0)) if door == "compare_clustered" else \
        (lambda: pf.compare_segments(data, groups.select("qid", "segment_set", "segment"), baseline="bm25",
                                     n_resamples=99, seed=0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    unpaired = [w for w in caught if issubclass(w.category, PartlyEmptyWarning) and "only one side" in str(w.message)]
    assert [str(w.message).split(" (")[0] for w in unpaired] == [
        "1 comparison(s) leave out queries that only one side has a value for; most: 59 of 60 queries paired"]
    assert unpaired[0].filename == __file__


def test_a_missing_results_file_is_named_with_its_argument(tmp_path):
    for call in (lambda p: pf.read_results(p), lambda p: pf.compare(p, baseline="bm25"),
                 lambda p: pf.results_table(p)):
        with pytest.raises(FileNotFoundError, match=r"^results: no such file: \S+nope\.csv$"):
            call(str(tmp_path / "nope.csv"))


def test_rank_agreement_refuses_measures_that_rank_no_run_and_the_report_leaves_them_out(tmp_path):
    """Judged@10, NumRet, ... order systems by how much they returned or how much is judged: the tester's report
    printed an RBO of 0.903 for Unjudged@10 between two sets, and rank_agreement accepted them."""
    qrels, runs = example_paths()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sets = pf.evaluate_judgment_sets(runs, {"a": qrels, "b": qrels}, ["P@10", "Judged@10", "NumRet", "unj_10"])
    for measure in ("Judged@10", "NumRet", "Unjudged@10"):
        with pytest.raises(ValueError, match=rf"`measure`: {measure} ranks no run"):
            pf.rank_agreement(sets, measure=measure, judgments=("a", "b"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pf.rank_agreement(sets, measure="P@10", judgments=("a", "b"))  # a measure of the rankings is taken
        rep = pf.report(runs, qrels, ["P@10", "unj_10"], baseline="bm25", judgments={"same": str(qrels)},
                        n_resamples=99)
    agreement = rep.fragment[rep.fragment.index("agreement"):]
    assert "P@10" in agreement and "Unjudged@10" not in agreement.split("</table>")[1]


@pytest.mark.parametrize("title, shown", [("Is it? ", "Is it?"), ("  Main results\n", "Main results"), (" ", None),
                                          (None, None)])
def test_a_results_table_title_is_stripped_and_a_blank_one_is_no_title(per_query, title, shown):
    """``**Is it? **`` is no bold in CommonMark and ``\\textbf{ .}`` an empty one."""
    table = pf.results_table(per_query, title=title)
    assert table.title == shown
    markdown = table.to_markdown()
    assert (f"**{shown}**" in markdown) if shown else ("**" not in markdown.split("|")[0])


def test_a_run_error_whose_words_say_qrels_is_not_named_as_a_judgment_sets_error():
    """Whether an error is about a set's qrels was read from its words: a run table error naming a system
    'qrels-tuned' was put on judgment set 'a'. It is the error's ``argument`` now, which the judgments'
    readers set."""
    from pairedframe.io import read_qrels, read_run

    qrels, runs = example_paths()
    run = read_run(runs[0]).with_columns(pl.lit("qrels-tuned").alias("system"))
    blank = run.with_columns(pl.when(pl.int_range(pl.len()) == 0).then(pl.lit(" ")).otherwise(pl.col("docno"))
                             .alias("docno"))
    with pytest.raises(SchemaError, match=r"^run table: column 'docno' is an empty or all-blank string"):
        pf.evaluate_judgment_sets(blank, {"a": qrels, "b": read_qrels(qrels)}, ["AP"])


def test_judgment_set_errors_about_its_qrels_name_the_set(tmp_path):
    """With several table sets a duplicate said only 'in the qrels table', and a missing file only 'qrels: no such
    file': now each names its set; a set name that is empty or blank is refused (results select sets by name)."""
    from pairedframe.errors import DuplicateError
    from pairedframe.io import read_qrels

    qrels, runs = example_paths()
    table = read_qrels(qrels)
    with pytest.raises(DuplicateError, match=r"^judgment set 'dupset': duplicate \('qid', 'docno'\)"):
        pf.evaluate_judgment_sets(runs, {"a": qrels, "dupset": pl.concat([table, table.head(1)])}, ["AP"])
    with pytest.raises(SchemaError, match=r"^judgment set 'text': qrels table: column 'rel'"):
        pf.evaluate_judgment_sets(runs, {"a": table, "text": table.with_columns(pl.col("rel").cast(pl.String))},
                                  ["AP"])
    missing = tmp_path / "nope.txt"
    with pytest.raises(FileNotFoundError, match=rf"^judgment set 'b' \(file {missing}\): qrels: no such file"):
        pf.evaluate_judgment_sets(runs, {"a": qrels, "b": str(missing)}, ["AP"])
    for name in ("", "  "):
        with pytest.raises(ValueError, match=r"`judgments`: a judgment-set name is empty or all blank"):
            pf.evaluate_judgment_sets(runs, {name: qrels, "x": qrels}, ["AP"])
