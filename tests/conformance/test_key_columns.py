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
