"""No silent empties (issue 12 item 1): a result that would be empty, or all-null for what was asked,
raises saying why; one that is partly empty warns naming the part.

Each public function's and CLI command's empty case lives with its door in the conformance suite
(``tests/conformance/doors.py``, run by ``tests/conformance/test_empty.py``; a door without one fails
``tests/conformance/test_registry.py``). Here: names that match nothing, all-null results, partly
empty results, and the shared checks.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.checks import require_each, require_names, require_rows
from pairedframe.cli import app
from pairedframe.errors import EmptyResultError, PartlyEmptyWarning
from tests.conformance.doors import DISJOINT  # per-query values whose systems share no query

runner = CliRunner()
HERE = Path(__file__).resolve()

RUN = pl.DataFrame({"system": ["a"] * 4 + ["b"] * 4, "qid": ["1", "1", "2", "2"] * 2,
                    "docno": ["d1", "d2"] * 4, "score": [2.0, 1.0, 2.0, 1.0, 1.0, 2.0, 1.0, 2.0]})
QRELS = pl.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["d1", "d2", "d1", "d2"], "rel": [1, 0, 0, 1]})


def _judgment_sets() -> pl.DataFrame:
    return pf.evaluate_judgment_sets(RUN, {"proxy": QRELS, "gold": QRELS}, "AP")


def _write(tmp: Path, name: str, text: str) -> str:
    path = tmp / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("call, fragment", [
    (lambda: pf.compare(pf.evaluate(RUN, QRELS, "AP"), baseline="a", measures=["nDCG@10"]), "match nothing"),
    (lambda: pf.compare(pf.evaluate(RUN, QRELS, "AP"), baseline="a", measures=[]), "`measures` is empty"),
    (lambda: pf.compare(pf.evaluate(RUN, QRELS, "AP"), baseline="a", systems=[]), "`systems` is empty"),
    (lambda: pf.compare(pf.evaluate(RUN, QRELS, "AP"), baseline="A"), "did you mean"),
    (lambda: pf.compare(DISJOINT.head(0), baseline="a"), "per-query table is empty"),
    (lambda: pf.results_table(DISJOINT, measures=["nDCG@10"]), "match nothing"),
    (lambda: pf.compare(DISJOINT.with_columns(value=pl.lit(None, dtype=pl.Float64)), baseline="a"), "every value is null"),
    (lambda: pf.ppi_compare_segments(_judgment_sets(), baseline="a", proxy="llm"), "proxy=.llm. not among"),
    (lambda: pf.ppi_compare_segments(_judgment_sets(), baseline="a", measures="nDCG@10"), "`measures`"),
    (lambda: pf.compare_segments(pf.evaluate(RUN, QRELS, "AP"), {"qid": ["1", "2"], "segment_set": ["s", "s"],
                                                                  "segment": ["g", "h"]}, baseline="a"),
     "single paired query"),
])
def test_names_that_match_nothing_and_all_null_results_raise(call, fragment):
    with pytest.raises(EmptyResultError, match=fragment):
        call()


def _run_with_unjudged_system() -> pl.DataFrame:
    extra = RUN.filter(pl.col("system") == "a").with_columns(system=pl.lit("c"), qid="55" + pl.col("qid"))
    return pl.concat([RUN, extra])


@pytest.mark.parametrize("call, fragment", [
    (lambda: pf.evaluate(_run_with_unjudged_system(), QRELS, "AP"), r"1 of 3 systems have no judged query.*\['c'\]"),
    (lambda: pf.evaluate(_run_with_unjudged_system(), QRELS, "AP", complete=True), "scored 0 on every judged query"),
    (lambda: pf.rbo(RUN.filter(pl.col("system") == "a"),
                    RUN.filter(pl.col("system") == "b").with_columns(pl.col("qid").replace("2", "3"))),
     r"2 of 3 queries have a ranking in only one of the runs"),
    (lambda: pf.compare_segments(pf.evaluate(RUN, QRELS, "AP"), {"qid": ["1", "2", "x"], "segment_set": ["s"] * 3,
                                                                  "segment": ["g", "g", "h"]},
                                 baseline="a", n_resamples=100), r"1 of 2 segments have no paired query.*'h'"),
    (lambda: pf.ppi_compare_segments(_judgment_sets(), baseline="a", gold_qids=["1", "2", "99"]),
     r"1 of 3 queries of gold_qids have no gold value.*'99'"),
])
def test_partly_empty_results_warn_at_the_callers_line(call, fragment):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    partial = [w for w in caught if issubclass(w.category, PartlyEmptyWarning)]
    assert partial and all(w.filename == str(HERE) for w in partial), [str(w.message) for w in caught]
    assert sum(bool(re.search(fragment, str(w.message))) for w in partial) == 1, [str(w.message) for w in partial]


def test_partly_empty_evaluation_keeps_the_other_systems():
    with pytest.warns(PartlyEmptyWarning):
        ev = pf.evaluate(_run_with_unjudged_system(), QRELS, "AP")
    assert ev.systems == ["a", "b"]


# ---- the shared helpers other modules use ---------------------------------------------------

def test_require_names_keeps_order_drops_repeats_and_names_the_parameter():
    assert require_names(["b", "a", "b"], ["a", "b"], what="system", parameter="systems") == ["b", "a"]
    assert require_names(None, ["a", "b"], what="system", parameter="systems") == ["a", "b"]
    assert require_names("a", ["a"], what="system", parameter="baseline") == ["a"]
    with pytest.raises(EmptyResultError, match=r"`systems`: system\(s\) \['x'\] match nothing in the table"):
        require_names(["a", "x"], ["a", "b"], what="system", parameter="systems")
    with pytest.raises(EmptyResultError, match="has no system"):
        require_names(None, [], what="system", parameter="systems")


def test_require_each_raises_when_none_and_warns_when_some():
    with pytest.raises(EmptyResultError, match=r"the system 'a' has no rows"):
        require_each(["a"], set(), what="system", lacking="no rows")
    with pytest.raises(EmptyResultError, match=r"every system \['a', 'b'\] has no rows; check x"):
        require_each(["a", "b"], set(), what="system", lacking="no rows", hint="check x")
    with pytest.raises(EmptyResultError, match="no system at all"):
        require_each([], set(), what="system", lacking="no rows")
    with pytest.warns(PartlyEmptyWarning, match=r"1 of 2 systems have no rows, left out of the result: \['b'\]") as w:
        assert require_each(["a", "b"], {"a"}, what="system", lacking="no rows") == ["a"]
    assert w[0].filename == str(HERE)
    assert require_each(["a", "b"], {"a", "b", "c"}, what="system", lacking="no rows") == ["a", "b"]


def test_require_rows():
    require_rows(pl.DataFrame({"x": [1]}), what="t", why="w")
    with pytest.raises(EmptyResultError, match="t is empty: w"):
        require_rows(0, what="t", why="w")
    with pytest.raises(EmptyResultError):
        require_rows([], what="t", why="w")


# ---- the command line ------------------------------------------------------------------------

def test_cli_partly_empty_warns_on_stderr_and_exits_0(tmp_path):
    a = _write(tmp_path, "a.run", "1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n")
    b = _write(tmp_path, "b.run", "7 Q0 d1 1 1.0 b\n")
    result = runner.invoke(app, ["evaluate", _write(tmp_path, "qrels", "1 0 d1 1\n"), a, b, "-m", "AP"])
    assert result.exit_code == 0, result.output
    assert "pairedframe: warning: 1 of 2 systems have no judged query in common" in result.stderr


def test_runs_lacking_judged_queries_others_have_warn():
    """Without complete=True a run's means are over the judged queries it retrieved: two runs side by
    side whose query sets differ must say so (a results table would mix query sets silently)."""
    qrels = {"q1": {"d1": 1}, "q2": {"d1": 1}, "q3": {"d2": 1}}
    full = {"q1": {"d1": 2.0}, "q2": {"d1": 1.0}, "q3": {"d2": 1.0}}
    partial = {"q1": {"d1": 2.0}, "q3": {"d9": 1.0}}
    with pytest.warns(pf.PartlyEmptyWarning, match=r"'partial': no ranking for 1 of 3 \(\['q2'\]\)") as caught:
        ev = pf.evaluate({"full": full, "partial": partial}, qrels, ["AP"])
    assert caught[0].filename == __file__
    assert dict(ev.summary().select("system", "n_queries").iter_rows()) == {"full": 3, "partial": 2}
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pf.evaluate({"full": full, "partial": partial}, qrels, ["AP"], complete=True)
        pf.evaluate({"full": full, "copy": full}, qrels, ["AP"])


def test_a_relevance_level_above_every_grade_warns():
    qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d1": 1}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d1": 1.0}}
    with pytest.warns(pf.PartlyEmptyWarning, match=r"highest grade 1\) for \['AP\(rel=2\)'\]") as caught:
        ev = pf.evaluate(run, qrels, ["AP(rel=2)", "P@1"])
    assert caught[0].filename == __file__
    assert ev.per_query.filter(pl.col("measure") == "AP(rel=2)")["value"].to_list() == [0.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pf.evaluate(run, qrels, ["AP", "P@1"])


@pytest.mark.parametrize("form, named", [("table", r"qrels table"), ("dict", r"qrels dict"),
                                         ("file", r"qrels file \S*zero\.qrels")])
@pytest.mark.parametrize("engine", ["duckdb", "polars", "spark"])
def test_qrels_without_a_relevant_document_warn_once_naming_them_at_the_callers_line(tmp_path, request, form, named,
                                                                                     engine):
    """Every grade 0 (or below): no document is relevant, so AP, P@k, nDCG ... are 0 on every query. One warning
    names the qrels and points at the caller's line (it said 'relevance level above every grade ... lower rel=',
    which no level helps, and did not say which qrels)."""
    rows = [("q1", "d1", 0), ("q1", "d2", 0), ("q2", "d1", -1)]
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d1": 1.0}}
    qrels = {"table": pl.DataFrame(rows, schema=["qid", "docno", "rel"], orient="row"),
             "dict": {q: {d: r for qq, d, r in rows if qq == q} for q in ("q1", "q2")}}.get(form)
    if qrels is None:
        qrels = tmp_path / "zero.qrels"
        qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in rows))
    if engine == "spark":
        if form != "file":
            pytest.skip("the Spark path reads files here")
        request.getfixturevalue("spark")
        run_file = tmp_path / "r.run"
        run_file.write_text("q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\nq2 Q0 d1 1 1.0 r\n")
        run, qrels = str(run_file), str(qrels)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ev = pf.evaluate(run, qrels, ["AP", "P@5", "nDCG@10", "RR"], engine=engine)
    said = [w for w in caught if issubclass(w.category, pf.PartlyEmptyWarning)]
    assert len(said) == 1, [str(w.message) for w in caught]
    assert re.match(rf"{named}: no document is relevant \(no grade above 0; the highest is 0\), so AP, P@5, RR, "
                    r"nDCG@10 are 0 on every query", str(said[0].message))
    assert said[0].filename == __file__
    assert set(ev.per_query["value"].to_list()) == {0.0}


def test_qrels_without_a_relevant_document_do_not_warn_when_grade_0_is_relevant():
    """rel_level=0 makes every judged document relevant: the values are not 0, so no warning; nor for measures
    that count no relevant document (NumRet, Judged@10). A grade-based measure beside them is still 0 and named
    alone (the second outside tester: the warning fired on NumRet alone, and not on nDCG@10 beside AP(rel=0))."""
    qrels = {"q1": {"d1": 0, "d2": 0}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ev = pf.evaluate(run, qrels, ["AP"], rel_level=0)
        pf.evaluate(run, qrels, ["NumRet", "Judged@10"])
    assert ev.per_query["value"].to_list() == [1.0]
    with pytest.warns(pf.PartlyEmptyWarning, match=r"no document is relevant .*, so nDCG@10 is 0 on every query"):
        pf.evaluate(run, qrels, ["AP", "nDCG@10"], rel_level=0)


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_no_relevant_document_warning_names_only_the_measures_that_are_0(engine):
    """A gain map giving a grade of the qrels a gain makes a graded measure non-zero although no grade is above 0
    (trec_eval's ndcg.0=1): the warning must not call it 0 (the outside tester: it said nDCG(gains={0:1.0}) 'is 0
    on every query' beside the value 0.57); every measure it names is 0 on every query, the others are not."""
    qrels = {"q1": {"d1": 0, "d2": 0}, "q2": {"d1": -1, "d3": 0}}
    run = {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d1": 1.0, "d3": 0.5}}
    measures = ["nDCG@10", "nDCG(gains={0:1})@10", "nDCG(gains={1:5})@10", "G(gains={0:2})", "G", "AP"]
    with pytest.warns(pf.PartlyEmptyWarning, match=r"no document is relevant") as caught:
        ev = pf.evaluate(run, qrels, measures, engine=engine)
    named = re.search(r", so (.*) (?:is|are) 0 on every query", str(caught[0].message)).group(1).split(", ")
    values = {m: set(ev.per_query.filter(pl.col("measure") == m)["value"].to_list())
              for m in ev.per_query["measure"].unique().to_list()}
    assert sorted(named) == sorted(m for m, v in values.items() if v == {0.0})
    assert sorted(named) == sorted(["AP", "G", "nDCG@10", "nDCG(gains={1:5.0})@10"])


def test_comparing_a_string_valued_measure_says_so():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    runs = {"a": {"q1": {"d1": 1.0}, "q2": {"d1": 1.0}}, "b": {"q1": {"d2": 1.0}, "q2": {"d2": 1.0}}}
    ev = pf.evaluate(runs, qrels, ["relstring.5"])
    with pytest.raises(pf.EmptyResultError, match=r"\['RelString@5'\] are string-valued"):
        pf.compare(ev, baseline="a")


@pytest.mark.parametrize("engine", ["duckdb", "polars", "spark"])
@pytest.mark.parametrize("read", ["streamed", "table"])
def test_run_ids_that_differ_from_qrels_ids_by_leading_zeros_warn(tmp_path, request, engine, read):
    import pairedframe as pf

    if engine == "spark":
        if read == "table":
            pytest.skip("the Spark path reads run files only here")
        request.getfixturevalue("spark")
    qrels = tmp_path / "qrels"
    qrels.write_text("301 0 d1 1\n301 0 d2 0\n302 0 d3 1\n")
    run = tmp_path / "run"
    run.write_text("0301 Q0 d1 1 2.0 r\n0301 Q0 d2 2 1.0 r\n302 Q0 d3 1 1.0 r\n")
    source = str(run) if read == "streamed" else {"run": {"0301": {"d1": 2.0, "d2": 1.0}, "302": {"d3": 1.0}}}
    with pytest.warns(pf.PartlyEmptyWarning, match=r"1 run query id\(s\) .* \('0301' ~ '301'\)") as record:
        ev = pf.evaluate(source, str(qrels), ["P@1"], engine=engine)
    assert {Path(w.filename).name for w in record if "0301" in str(w.message)} == {"test_no_silent_empties.py"}
    assert ev.per_query["qid"].to_list() == ["302"]
    assert ev.excluded.filter(pl.col("qid") == "0301")["reason"].to_list() == ["retrieved but not judged (no qrels)"]


def _summary_only_csv(tmp_path: Path) -> Path:
    """What ``pairedframe evaluate -f csv`` writes without -q: one flagged 'all' row per system and measure."""
    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    written = runner.invoke(app, ["evaluate", str(qrels), *map(str, runs), "-m", "AP", "-f", "csv"])
    assert written.exit_code == 0, written.output
    path = tmp_path / "summary.csv"
    path.write_text(written.stdout)
    assert set(pl.read_csv(path)["qid"]) == {"all"}
    return path


@pytest.mark.parametrize("form", ["path", "polars", "polars without the flag", "duckdb"])
def test_a_summary_only_table_given_to_compare_says_per_query_values_are_needed(tmp_path, form):
    """The error said only "the per-query table is empty"; it now names the summary rows and the -q that writes
    per-query values, whatever form the table comes in."""
    import duckdb

    path = _summary_only_csv(tmp_path)
    data = {"path": lambda: str(path), "polars": lambda: pl.read_csv(path),
            "polars without the flag": lambda: pl.read_csv(path).drop("summary"),
            "duckdb": lambda: duckdb.sql(f"SELECT * FROM read_csv('{path}')")}[form]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # the unflagged 'all' rows are warned about first
        with pytest.raises(EmptyResultError, match="only summary rows") as exc:
            pf.compare(data, baseline="bm25")
    assert "per-query values are needed" in str(exc.value) and "pairedframe evaluate -q" in str(exc.value)


def test_analyze_on_a_summary_only_csv_says_per_query_values_are_needed(tmp_path):
    from tests.conftest import REPO_ROOT

    res = runner.invoke(app, ["analyze", "--plan", str(REPO_ROOT / "examples" / "bundled_example_plan.toml"),
                              str(_summary_only_csv(tmp_path))])
    assert res.exit_code == 2, res.output
    assert "only summary rows" in res.stderr and "pairedframe evaluate -q" in res.stderr, res.stderr


@pytest.mark.parametrize("call, error, fragment", [
    (lambda: pf.evaluate(RUN, QRELS, []), ValueError, "`measures` is empty"),
    (lambda: pf.evaluate(RUN, QRELS, iter([])), ValueError, "`measures` is empty"),
    (lambda: pf.evaluate(RUN, QRELS, None), TypeError, "`measures` is None"),
    (lambda: pf.evaluate_judgment_sets(RUN, {"proxy": QRELS, "gold": QRELS}, []), ValueError, "`measures` is empty"),
    (lambda: pf.evaluate_judgment_sets(RUN, {"proxy": QRELS}, None), TypeError, "`measures` is None"),
    (lambda: pf.parse_measures(None), TypeError, "`names` must be"),
])
def test_evaluate_refuses_empty_or_none_measures_naming_the_argument(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


@pytest.mark.parametrize("measures", [["runid"], "runid", [" runid", "runid"]])
def test_runid_alone_is_refused_naming_the_argument_as_the_cli_refuses_it(measures):
    """pf.evaluate(run, qrels, ['runid']) returned empty per_query and summary tables; the CLI refuses -m runid."""
    with pytest.raises(ValueError, match=r"^`measures` .*runid.* names no measure, only trec_eval's runid line: add a "
                                         r"measure, e.g. \['runid', 'map'\]"):
        pf.evaluate(RUN, QRELS, measures)
    ev = pf.evaluate(RUN, QRELS, ["runid", "AP"])
    assert ev.trec_runid and [m.name for m in ev.measures] == ["AP"]


def test_an_iterator_of_measures_is_read_once_for_every_judgment_set():
    js = pf.evaluate_judgment_sets(RUN, {"proxy": QRELS, "gold": QRELS}, iter(["AP"]))
    assert js.per_query.group_by("judgments").len().sort("judgments")["len"].to_list() == [4, 4]
