"""A column that no measured row fills -- all null, or the ``text`` of string-valued measures
(relstring), which ``pairedframe evaluate -q -f csv`` writes and Spark's per-query tables carry --
is never a pairing key: comparing such a table gives the comparison of the evaluation itself."""

from __future__ import annotations

import polars as pl
import pytest

import pairedframe as pf
from pairedframe.engines import EvalOptions
from pairedframe.measures import parse_measures
from tests.conformance.doors import run_cli
from tests.conformance.inputs import MEASURES, QRELS, RUN, EvalContent, deliver_eval

OPTIONS = {"n_resamples": 200}
pytestmark = pytest.mark.filterwarnings("ignore")  # tiny inputs: the small-sample warnings are expected


def _reference() -> pl.DataFrame:
    return pf.compare(pf.evaluate(RUN, QRELS, list(MEASURES), engine="polars"), baseline="a", **OPTIONS)


def test_cli_per_query_csv_with_relstring_read_back_compares_like_the_evaluation(tmp_path):
    runs, qrels = deliver_eval(EvalContent(), "trec", tmp_path)
    flags = [x for m in (*MEASURES, "relstring.5") for x in ("-m", m)]
    out = tmp_path / "per_query.csv"
    out.write_text(run_cli(["evaluate", qrels, *runs, *flags, "-q", "-f", "csv"]))
    table = pf.read_results(out)
    assert table["text"].drop_nulls().len() > 0  # the relstring rows are there, with their text
    got = pf.compare(table, baseline="a", measures=list(pf.evaluate(RUN, QRELS, list(MEASURES)).per_query["measure"]
                                                         .unique(maintain_order=True)), **OPTIONS)
    assert got.equals(_reference())


@pytest.mark.spark
def test_spark_per_query_with_its_null_text_column_compares_like_the_evaluation(spark):
    from pairedframe.engines.spark_engine import SparkEngine

    engine = SparkEngine(spark)
    measures = [m.resolved(1) for m in parse_measures(list(MEASURES))]
    per_query = engine.per_query(engine.run_frame(RUN), engine.qrels_frame(QRELS), measures, EvalOptions())
    assert "text" in per_query.columns
    got = pf.compare(per_query, baseline="a", **OPTIONS)
    want = _reference()
    assert got.select("system", "measure", "n_queries", "delta", "pvalue").sort("system", "measure").equals(
        want.select("system", "measure", "n_queries", "delta", "pvalue").sort("system", "measure"))


@pytest.mark.parametrize("door", ["compare", "compare_segments", "paired_per_query", "compare_duckdb"])
def test_a_cluster_column_is_refused_as_a_key_naming_compare_clustered(door):
    """The clusters guide's table shape (system, qid, measure, value, cluster) handed to a plain comparison:
    it made one comparison per cluster of 2-4 queries, with no correction across them. Every such door
    refuses naming compare_clustered; compare_clustered itself takes the table."""
    per_query = pf.evaluate(RUN, QRELS, list(MEASURES)).per_query
    clusters = per_query.with_columns(pl.col("qid").str.slice(0, 1).alias("cluster"))
    segments = pl.DataFrame({"qid": per_query["qid"].unique(), "segment_set": "s", "segment": "all"})
    call = {"compare": lambda t: pf.compare(t, baseline="a", **OPTIONS),
            "compare_segments": lambda t: pf.compare_segments(t, segments, baseline="a", **OPTIONS),
            "paired_per_query": lambda t: pf.paired_per_query(t, baseline="a"),
            "compare_duckdb": lambda t: pf.compare(__import__("duckdb").from_arrow(t.to_arrow()), baseline="a",
                                                   **OPTIONS)}[door]
    with pytest.raises(ValueError, match=r"'cluster' column.*pf\.compare_clustered"):
        call(clusters)
    assert pf.compare_clustered(clusters, baseline="a", **OPTIONS).height > 0
