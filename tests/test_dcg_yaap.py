"""trec_eval 10's measures outside ``all_trec``: dcg, ideal_dcg (m_ndcg.c) and yaap (m_yaap.c).

Both engines against the scalar references (tests/reference/dcg_yaap_reference.py) on random cases,
bit for bit; and against values trec_eval 10 printed on its own test files (pinned below with the
command that printed them: the binary is not part of this repository)."""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.errors import PartlyEmptyWarning, UnknownMeasureError
from pairedframe.measures import parse_measure
from tests.reference.trec_reference import evaluate_reference
from tests.strategies import Case, budget, cases

#: Names of each family worth checking: default gains, trec_eval gain maps (negative and fractional
#: gains, a gain for grade 0), exponential gains, judged-only.
NAMES = {
    "dcg": ["dcg", "dcg.1=3,2=9", "dcg.0=-1,2=0.5", "dcg(gains={1:-2,3:1})", "dcg(dcg='exp-log2')",
            "dcg(judged_only=True)"],
    "ideal_dcg": ["ideal_dcg", "ideal_dcg.1=3,2=9", "ideal_dcg.0=2,1=0", "ideal_dcg(gains={1:-1,2:4})",
                  "ideal_dcg(dcg='exp-log2')"],
    "yaap": ["yaap", "yaap(rel=2)", "yaap(judged_only=True)"],
}

options = st.fixed_dictionaries({
    "complete": st.booleans(),
    "depth": st.sampled_from([None, None, 1, 3]),
    "rel_level": st.sampled_from([1, 2]),
    "judged_only": st.booleans(),
})


def _engines_against_reference(case: Case, names: list[str], opts: dict) -> None:
    """Both engines give the reference's values exactly (same additions in the same order, C's log2 and log)."""
    if not any(set(by_q) & set(case.qrels) for by_q in case.runs.values()):
        return  # no judged query in common: tests/test_measures_properties.py checks the error
    measures = [m for name in names for m in parse_measure(name)]
    resolved = list(dict.fromkeys(m.resolved(opts["rel_level"], opts["judged_only"]) for m in measures))
    want = evaluate_reference(case.runs, case.qrels, resolved, complete=opts["complete"], depth=opts["depth"])
    for engine in ("duckdb", "polars"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PartlyEmptyWarning)
            result = pf.evaluate(case.run_frame(), case.qrels_frame(), measures, engine=engine, **opts)
        got = {(s, q, m): v for s, q, m, v in result.per_query.select("system", "qid", "measure", "value").iter_rows()}
        assert got == want, engine


@settings(max_examples=budget(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), opts=options)
def test_dcg_against_reference(case: Case, opts: dict):
    _engines_against_reference(case, NAMES["dcg"], opts)


@settings(max_examples=budget(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), opts=options)
def test_ideal_dcg_against_reference(case: Case, opts: dict):
    _engines_against_reference(case, NAMES["ideal_dcg"], opts)


@settings(max_examples=budget(30), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(), opts=options)
def test_yaap_against_reference(case: Case, opts: dict):
    _engines_against_reference(case, NAMES["yaap"], opts)


def test_yaap_of_a_query_without_a_relevant_document_retrieved_against_reference():
    """log(1 / (1 + R)) with nothing relevant retrieved, 0 without relevant documents, log(1 + R) at best."""
    case = Case(runs={"s": {"a": [("x", 1.0)], "b": [("x", 1.0)], "c": [("r1", 2.0), ("r2", 1.0)]}},
                qrels={"a": {"r1": 1, "r2": 1, "x": 0}, "b": {"x": 0}, "c": {"r1": 1, "r2": 1}})
    got = pf.evaluate(case.run_frame(), case.qrels_frame(), ["yaap"]).per_query
    values = dict(zip(got["qid"], got["value"]))
    assert values == pytest.approx({"a": -1.0986122886681098, "b": 0.0, "c": 1.0986122886681098}, abs=1e-15)


# --- names --------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, family, name, trec_name", [
    ("dcg", "dcg", "dcg", "dcg"), ("ideal_dcg", "ideal_dcg", "ideal_dcg", "ideal_dcg"), ("yaap", "yaap", "yaap", "yaap"),
    ("dcg.1=3,2=9", "dcg", "dcg(gains={1:3.0,2:9.0})", "dcg_1=3,2=9"),
    ("dcg_1=3,2=9", "dcg", "dcg(gains={1:3.0,2:9.0})", "dcg_1=3,2=9"),
    ("ideal_dcg.1=3,2=9", "ideal_dcg", "ideal_dcg(gains={1:3.0,2:9.0})", "ideal_dcg_1=3,2=9"),
    ("dcg(gains={1:3,2:9})", "dcg", "dcg(gains={1:3.0,2:9.0})", "dcg_1=3.0,2=9.0"),
])
def test_trec_eval_names_outside_all_trec_parse(text, family, name, trec_name):
    """trec_eval's names (ir_measures has none), a gain map named as nDCG's and G's are; trec format prints
    the name as typed."""
    [measure] = parse_measure(text)
    assert (measure.family, measure.name, measure.trec_name) == (family, name, trec_name)
    assert parse_measure(measure.name) == [measure]


def test_dcg_gain_map_is_trec_evals():
    [measure] = parse_measure("dcg.1=3,2=9")
    assert measure.gains == ((1, 3.0), (2, 9.0))
    assert parse_measure("dcg(gains={1:3,2:9})") == [measure] != parse_measure("dcg")


@pytest.mark.parametrize("text", ["yaap.5", "yaap_5", "dcg@10", "ideal_dcg.1=abc"])
def test_parameters_these_measures_lack_are_refused(text):
    with pytest.raises(UnknownMeasureError, match="measure"):
        parse_measure(text)


def test_all_trec_leaves_them_out_as_trec_eval_does():
    families = {m.family for m in parse_measure("all_trec")}
    assert not families & {"dcg", "ideal_dcg", "yaap"}


# --- trec_eval 10's own numbers -------------------------------------------------------------------

#: (trec_eval options, qrels, run) -> {(trec_eval measure name, qid): value}, printed by trec_eval 10
#: built from the data's commit with "%.17g" (instead of "%.4f") in meas_print_*.c, e.g.
#: ``trec_eval -q -m dcg -m ideal_dcg -m yaap qrels.test results.test`` in ``../shared/data/trec_eval``.
TREC_EVAL_10 = {
    # trec_eval -q -m dcg -m ideal_dcg -m yaap qrels.test results.test
    ((), "qrels.test", "results.test"): {
        ("dcg", "301"): 10.714645155308903, ("ideal_dcg", "301"): 67.645914045611192,
        ("yaap", "301"): -3.3349958820347063, ("dcg", "302"): 11.50849300935848,
        ("ideal_dcg", "302"): 17.392657129894989, ("yaap", "302"): -0.3246455693439021,
        ("dcg", "303"): 1.7549455795357689, ("ideal_dcg", "303"): 4.5435593380883459,
        ("yaap", "303"): -1.6974673726849423, ("dcg", "all"): 7.9926945814010502,
        ("ideal_dcg", "all"): 29.860710171198175, ("yaap", "all"): -1.7857029413545169},
    # trec_eval -q -m dcg -m ideal_dcg -m yaap qrels.rel_level results.test
    ((), "qrels.rel_level", "results.test"): {
        ("dcg", "301"): 11.07754311877172, ("ideal_dcg", "301"): 79.347987095752842,
        ("yaap", "301"): -3.3349958820347063, ("dcg", "302"): 34.525479028075438,
        ("ideal_dcg", "302"): 52.177971389684984, ("yaap", "302"): -0.3246455693439021,
        ("dcg", "303"): 2.9007827194990292, ("ideal_dcg", "303"): 7.906929032212954,
        ("yaap", "303"): -1.6156420327890835, ("dcg", "all"): 16.167934955448729,
        ("ideal_dcg", "all"): 46.477629172550259, ("yaap", "all"): -1.7584278280558971},
    # trec_eval -q -m dcg.1=3,2=9 qrels.rel_level results.test
    (("dcg.1=3,2=9",), "qrels.rel_level", "results.test"): {
        ("dcg_1=3,2=9", "301"): 32.264901453747669, ("dcg_1=3,2=9", "302"): 34.525479028075438,
        ("dcg_1=3,2=9", "303"): 13.053522237745632, ("dcg_1=3,2=9", "all"): 26.614634239856247},
    # trec_eval -q -m ideal_dcg.1=3,2=9 qrels.rel_level results.test
    (("ideal_dcg.1=3,2=9",), "qrels.rel_level", "results.test"): {
        ("ideal_dcg_1=3,2=9", "301"): 224.55381410493717, ("ideal_dcg_1=3,2=9", "302"): 52.177971389684984,
        ("ideal_dcg_1=3,2=9", "303"): 35.58118064495828, ("ideal_dcg_1=3,2=9", "all"): 104.10432204652682},
    # trec_eval -q -c -M100 -J -l2 -m dcg -m ideal_dcg -m yaap qrels.rel_level results.trunc
    (("-c", "-M100", "-J", "-l2"), "qrels.rel_level", "results.trunc"): {
        ("dcg", "301"): 4.6906681542947091, ("ideal_dcg", "301"): 79.347987095752842,
        ("yaap", "301"): -2.5649493574615367, ("dcg", "302"): 0.0, ("ideal_dcg", "302"): 52.177971389684984,
        ("yaap", "302"): -4.3567088266895917, ("dcg", "303"): 5.1232126232897013,
        ("ideal_dcg", "303"): 7.906929032212954, ("yaap", "303"): 0.0, ("dcg", "all"): 3.2712935925281368,
        ("ideal_dcg", "all"): 46.477629172550259, ("yaap", "all"): -2.307219394717043},
}


def _options(args: tuple[str, ...]) -> tuple[list[str], dict]:
    """(measure names, pf.evaluate options) of trec_eval arguments (gain-map names, -c, -M, -J, -l)."""
    names = [a for a in args if not a.startswith("-")] or ["dcg", "ideal_dcg", "yaap"]
    flags = [a for a in args if a.startswith("-")]
    opts = {"complete": "-c" in flags, "judged_only": "-J" in flags}
    for flag in flags:
        if flag.startswith("-M"):
            opts["depth"] = int(flag[2:])
        if flag.startswith("-l"):
            opts["rel_level"] = int(flag[2:])
    return names, opts


@pytest.mark.shared_data
@pytest.mark.parametrize("engine", ["duckdb", "polars"])
@pytest.mark.parametrize("case", list(TREC_EVAL_10), ids=lambda c: " ".join((*c[0], c[1], c[2])))
def test_values_against_trec_eval_10_on_its_test_files(shared_data, case, engine):
    args, qrels, run = case
    names, opts = _options(args)
    folder = shared_data / "trec_eval"
    ev = pf.evaluate(str(folder / run), str(folder / qrels), names, engine=engine, **opts)
    trec = {m.name: m.trec_name for m in ev.measures}
    got = {(trec[m], q): v for m, q, v in ev.per_query.select("measure", "qid", "value").iter_rows()}
    got.update({(trec[m], "all"): v for m, v in ev.summary().select("measure", "value").iter_rows()})
    assert got == TREC_EVAL_10[case]


@pytest.mark.shared_data
def test_trec_format_against_trec_eval_10_output(shared_data):
    """The outside tester's command, byte for byte (``trec_eval -q -m dcg -m ideal_dcg -m yaap
    qrels.rel_level results.test`` printed these lines)."""
    expected = ("dcg                   \t301\t11.0775\nideal_dcg             \t301\t79.3480\n"
                "yaap                  \t301\t-3.3350\ndcg                   \t302\t34.5255\n"
                "ideal_dcg             \t302\t52.1780\nyaap                  \t302\t-0.3246\n"
                "dcg                   \t303\t2.9008\nideal_dcg             \t303\t7.9069\n"
                "yaap                  \t303\t-1.6156\ndcg                   \tall\t16.1679\n"
                "ideal_dcg             \tall\t46.4776\nyaap                  \tall\t-1.7584\n")
    folder = shared_data / "trec_eval"
    result = CliRunner().invoke(app, ["evaluate", "-f", "trec", "-q", "-m", "dcg", "-m", "ideal_dcg", "-m", "yaap",
                                      str(folder / "qrels.rel_level"), str(folder / "results.test")])
    assert result.exit_code == 0, result.output
    assert result.stdout == expected
