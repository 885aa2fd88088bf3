"""Measure names: ir_measures and trec_eval spellings parse to the same measures, canonical names
round-trip, ``rel=`` and ``gain=`` parameters, trec_eval list forms, and helpful errors."""

from __future__ import annotations

import re
import warnings

import polars as pl
import pytest

import pairedframe as pf
from pairedframe.errors import UnknownMeasureError
from pairedframe.measures import REGISTRY, Measure, parse_measure, parse_measures
from tests.measure_grid import every_measure

# (ir_measures name, trec_eval name, expected canonical name)
PAIRS = [
    ("AP", "map", "AP"),
    ("AP@100", "map_cut_100", "AP@100"),
    ("nDCG", "ndcg", "nDCG"),
    ("nDCG@10", "ndcg_cut_10", "nDCG@10"),
    ("P@5", "P_5", "P@5"),
    ("R@1000", "recall_1000", "R@1000"),
    ("RR", "recip_rank", "RR"),
    ("Rprec", "Rprec", "Rprec"),
    ("Success@5", "success_5", "Success@5"),
    ("Bpref", "bpref", "Bpref"),
    ("NumRet", "num_ret", "NumRet"),
    ("NumRel", "num_rel", "NumRel"),
    ("NumRelRet", "num_rel_ret", "NumRelRet"),
    ("NumQ", "num_q", "NumQ"),
]


@pytest.mark.parametrize("ir_name, trec_name, canonical", PAIRS)
def test_ir_measures_and_trec_eval_names_parse_alike(ir_name, trec_name, canonical):
    a, b = parse_measure(ir_name), parse_measure(trec_name)
    assert a == b and len(a) == 1
    assert a[0].name == canonical
    assert a[0].trec_name == trec_name


@pytest.mark.parametrize("key", sorted(REGISTRY))
def test_every_trec_eval_name_of_a_family_parses_to_it(key):
    for form in REGISTRY[key].trec:
        text = form.name if form.kind != "long_cutoffs" else f"{form.name}_7"
        parsed = parse_measure(text)
        assert parsed and {m.family for m in parsed} == {key}, (text, parsed)


#: The ``name`` of every ``TREC_MEAS`` in trec_eval 10.0's m_*.c files (usnistgov/trec_eval, measures.c's table).
TREC_EVAL_10_MEASURES = frozenset("""
    runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P relstring recall
    infAP gm_bpref Rprec_mult utility 11pt_avg binG G dcg ideal_dcg ndcg ndcg_p ndcg_rel Rndcg ndcg_cut map_cut
    relative_P success set_P set_relative_P set_recall set_map set_F num_nonrel_judged_ret prefs_num_prefs_poss
    prefs_num_prefs_ful prefs_num_prefs_ful_ret prefs_simp prefs_pair prefs_avgjg prefs_avgjg_Rnonrel prefs_simp_ret
    prefs_pair_ret prefs_avgjg_ret prefs_avgjg_Rnonrel_ret prefs_simp_imp prefs_pair_imp prefs_avgjg_imp map_avgjg
    P_avgjg Rprec_mult_avgjg yaap rbp rbp_resid unj""".split())


@pytest.mark.parametrize("key", sorted(REGISTRY))
def test_every_trec_name_of_a_family_against_trec_eval_10_measure_table(key):
    assert {form.name for form in REGISTRY[key].trec} <= TREC_EVAL_10_MEASURES


@pytest.mark.parametrize("text, written", [
    ("recip_rank_cut.10", "RR@10"), ("recip_rank_cut_10", "RR@10"), ("recip_rank_cut", "RR@k"), ("err_20", "ERR@20"),
    ("err.5,10", "ERR@5, ERR@10"), ("judged_10", "Judged@10"), ("first_rel_rank_100", "FirstRelRank@100"),
    ("top_grade_rank.5", "TopGradeRank@5"),
])
def test_trec_eval_style_names_of_measures_trec_eval_lacks_are_refused_naming_what_to_write(text, written):
    with pytest.raises(UnknownMeasureError) as exc:
        parse_measure(text)
    assert f"measure {text!r}: trec_eval 10 has no measure" in str(exc.value)
    assert f"pairedframe's is {written} " in str(exc.value)


@pytest.mark.parametrize("text, family", [("judged", "Judged"), ("err", "ERR"), ("first_rel_rank", "FirstRelRank"),
                                          ("top_grade_rank", "TopGradeRank")])
def test_bare_lower_case_names_of_pairedframe_families_stay_ir_measures_aliases(text, family):
    assert [m.name for m in parse_measure(text)] == [family]


@pytest.mark.parametrize("name", ["RR@10", "ERR@20", "Judged@10", "Judged", "FirstRelRank", "TopGradeRank@5"])
def test_measures_trec_eval_lacks_have_no_trec_name_and_trec_format_refuses_them(name):
    measure = parse_measure(name)[0]
    assert not measure.has_trec_name and measure.trec_name == name
    ev = pf.evaluate({"r": {"1": {"a": 2.0, "b": 1.0}}}, {"1": {"a": 1, "b": 0}}, [name, "map"])
    with pytest.raises(ValueError, match=rf"^{re.escape(name)} cannot be printed in trec_eval's format: .*Other "
                                         r"formats \(table, csv, json, markdown\) print it"):
        ev.to_trec()


@pytest.mark.parametrize("alias, canonical", [
    ("ndcg@10", "nDCG@10"), ("NDCG@10", "nDCG@10"), ("map@10", "AP@10"), ("ap", "AP"),
    ("MRR@10", "RR@10"), ("precision@10", "P@10"), ("recall@20", "R@20"), ("success@1", "Success@1"),
    ("bpref", "Bpref"), ("  nDCG@10 ", "nDCG@10"),
])
def test_aliases_and_case(alias, canonical):
    assert [m.name for m in parse_measure(alias)] == [canonical]


def _every_measure() -> list[Measure]:
    return every_measure() + [Measure(key, 7) for key, spec in REGISTRY.items() if spec.cutoff != "none"
                              and spec.at == "cutoff"] + [Measure("AP", 7, 0)]


@pytest.mark.parametrize("measure", _every_measure(), ids=str)
def test_canonical_name_round_trips(measure):
    assert parse_measure(measure.name) == [measure]


@pytest.mark.parametrize("measure", [m for m in _every_measure()
                                     if m.rel is None and m.gain == "linear" and not m.judged_only], ids=str)
def test_trec_name_round_trips(measure):
    assert parse_measure(measure.trec_name) == [measure]


def test_rel_in_names():
    (m,) = parse_measure("AP(rel=2)@100")
    assert (m.family, m.cutoff, m.rel) == ("AP", 100, 2)
    assert m.name == "AP(rel=2)@100" and m.trec_name == "map_cut_100"
    assert parse_measure("P(rel=2)@5")[0].rel == 2
    # rel=1 is the default level: its canonical name has no parameter once resolved.
    assert parse_measure("AP(rel=1)")[0].resolved(1).name == "AP"
    # A name's rel wins over the call's rel_level; a name without rel takes the level.
    assert parse_measure("AP(rel=2)")[0].resolved(1).rel == 2
    assert parse_measure("AP")[0].resolved(3).name == "AP(rel=3)"
    assert parse_measure("nDCG@10")[0].resolved(3).name == "nDCG@10"  # nDCG ignores the level


def test_gain_in_names():
    (m,) = parse_measure("nDCG(gain=exp)@10")
    assert (m.family, m.cutoff, m.gain) == ("nDCG", 10, "exp")
    assert parse_measure("nDCG(gain=linear)@10") == parse_measure("nDCG@10")


@pytest.mark.parametrize("text, names", [
    ("ndcg_cut.10,20", ["nDCG@10", "nDCG@20"]),
    ("P.5,10", ["P@5", "P@10"]),
    ("recall.20,2000", ["R@20", "R@2000"]),
    ("success.2,5,20", ["Success@2", "Success@5", "Success@20"]),
    ("map_cut.7", ["AP@7"]),
    ("P", [f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]),
    ("ndcg_cut", [f"nDCG@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]),
    ("success", ["Success@1", "Success@5", "Success@10"]),
])
def test_trec_eval_list_forms(text, names):
    assert [m.name for m in parse_measure(text)] == names


def test_official_set_is_trec_eval_default():
    names = [m.trec_name for m in parse_measure("official")]
    assert names[:9] == ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                         "recip_rank"]
    assert names[9:20] == [f"iprec_at_recall_{x / 10:.2f}" for x in range(11)]
    assert names[20:] == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]


def test_parse_measures_drops_repeats_and_keeps_order():
    ms = parse_measures(["ndcg_cut_10", "nDCG@10", "map", "P.5,10", "P_5"])
    assert [m.name for m in ms] == ["nDCG@10", "AP", "P@5", "P@10"]
    assert parse_measures(Measure("AP")) == [Measure("AP")]


@pytest.mark.parametrize("text, suggestion", [
    ("ndgc_cut_10", "ndcg_cut_10"),
    ("nDGC@10", "nDCG@10"),
    ("recal_100", "recall_10"),
    ("recip_rnk", "recip_rank"),
    ("bperf", "bpref"),
])
def test_unknown_names_suggest_close_matches(text, suggestion):
    with pytest.raises(UnknownMeasureError, match="did you mean") as exc:
        parse_measure(text)
    assert suggestion in str(exc.value)
    assert repr(text) in str(exc.value)


@pytest.mark.parametrize("text, why", [
    ("P", None), ("P@0", "positive"), ("P_0", "positive"), ("Rprec@10", "no cutoff"),
    ("recip_rank_10", "no cutoff"), ("bpref_5", "no cutoff"), ("AP(rel=x)", "bad parameter"),
    ("AP(foo=1)", "bad parameter"), ("nDCG(gain=log)@10", "bad parameter"), ("P@5@5", None),
    ("ERR(rel=2)@10", "relevance level"), ("", None), ("recip_rank_cut", "no measure 'recip_rank_cut'"),
    ("nDCG(rel=2)@10", "relevance level"), ("NumQ(rel=2)", "relevance level"),
    ("AP(gain=exp)", "gain"), ("IPrec", "needs its recall"), ("IPrec@5(rel=x)", "bad parameter"),
    ("utility.1,2", "4 coefficients"), ("ndcg.1", "malformed pair"), ("P.5,5", "duplicate"),
    ("nDCG(dcg='exp-log2',gains={1:2})", "not both"), ("RBP(p='x')", "bad parameter"),
    ("nDCG(gains={-1:2})", "bad gains"), ("SetF(beta=0.5", None), ("nDCG(judged_only=1)", "True or False"),
])
def test_invalid_names_raise(text, why):
    if text == "P":
        assert len(parse_measure(text)) == 9  # a bare trec family expands; not an error
        with pytest.raises(UnknownMeasureError, match="needs a cutoff"):
            parse_measure("P()")
        return
    with pytest.raises(UnknownMeasureError) as exc:
        parse_measure(text)
    if why:
        assert why in str(exc.value)


def test_no_measures_is_an_error():
    with pytest.raises(UnknownMeasureError, match="no measures"):
        parse_measures([])


def test_suggestions_have_no_repeats():
    with pytest.raises(UnknownMeasureError) as exc:
        parse_measure("Rprek")
    hint = str(exc.value).split("did you mean ", 1)[1].rstrip("?")
    names = [n.strip() for n in hint.split(",")]
    assert len(names) == len(set(names)), names


def test_evaluate_reports_resolved_names(tmp_path):
    run = tmp_path / "run"
    run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 1\n1 0 b 2\n")
    result = pf.evaluate(run, qrels, ["map", "AP(rel=1)", "P_1", "ndcg_cut_2"], rel_level=2)
    assert [m.name for m in result.measures] == ["AP(rel=2)", "AP(rel=1)", "P(rel=2)@1", "nDCG@2"]
    values = dict(result.per_query.select("measure", "value").iter_rows())
    assert values == {"AP(rel=2)": 0.5, "AP(rel=1)": 1.0, "P(rel=2)@1": 0.0, "nDCG@2": pytest.approx(
        (1 + 2 / 1.5849625007211563) / (2 + 1 / 1.5849625007211563), abs=1e-15)}


def test_a_second_parameter_list_for_a_family_warns_at_the_caller():
    """trec_eval evaluates a family once, with its first parameter list (meas_init.c): P.5 then P.10
    gives P_5 only. That stays (CLI parity) but is never silent."""
    with pytest.warns(UserWarning, match=r"'P.10' is ignored.*P\.5,10") as caught:
        got = parse_measures(["P.5", "ndcg_cut.10", "P.10", "AP"])
    assert caught[0].filename == __file__
    assert [m.name for m in got] == ["P@5", "nDCG@10", "AP"]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [m.name for m in parse_measures(["P.5,10", "P@20", "P.5"])] == ["P@5", "P@10", "P@20"]


def test_ir_measures_objects_are_taken_by_name():
    ir_measures = pytest.importorskip("ir_measures")
    got = parse_measures([ir_measures.nDCG @ 10, ir_measures.AP(rel=2), ir_measures.R @ 1000, "RR@10"])
    assert [m.name for m in got] == ["nDCG@10", "AP(rel=2)", "R@1000", "RR@10"]


def test_one_ir_measures_object_as_measures_is_evaluated_as_its_name():
    """measures_argument passed a lone ir_measures object on as it was, which parse_measures refused
    ("`names` must be a measure name or an iterable of them, got _nDCG")."""
    ir_measures = pytest.importorskip("ir_measures")
    run, qrels = {"q1": {"d1": 1.0, "d2": 0.5}, "q2": {"d3": 1.0}}, {"q1": {"d2": 1}, "q2": {"d3": 2}}
    got = pf.evaluate(run, qrels, ir_measures.nDCG @ 10).per_query
    assert got.equals(pf.evaluate(run, qrels, "nDCG@10").per_query) and got.height == 2


def test_a_pairedframe_object_that_is_no_measure_as_measures_is_refused_naming_measures():
    """A measure object is told by its class, no longer by its module: a Family (or an Evaluation) given
    as ``measures`` once reached parse_measures, whose error named its own argument `names`."""
    run, qrels = {"q1": {"d1": 1.0}}, {"q1": {"d1": 1}}
    for wrong in (REGISTRY["P"], pf.evaluate(run, qrels, "P@1")):
        with pytest.raises(TypeError, match=rf"^`measures` must be a measure name or a list of them.*got "
                                            rf"{type(wrong).__name__}$"):
            pf.evaluate(run, qrels, wrong)


def test_judged_only_in_a_name_overrides_the_calls_judged_only():
    """``judged_only=False`` in a name wins over ``judged_only=True`` of the call, as ``rel=`` wins over
    rel_level: both measures are computed, named apart, each equal to its own evaluation alone."""
    from pairedframe.example import example_paths

    qrels, runs = example_paths()
    names = ["nDCG(judged_only=False)@10", "nDCG@10", "P(judged_only=False)@5"]
    got = pf.evaluate(runs, qrels, names, judged_only=True, rel_level=2).summary()
    plain = pf.evaluate(runs, qrels, ["nDCG@10", "P(rel=2)@5"], rel_level=2).summary()
    judged = pf.evaluate(runs, qrels, ["nDCG(judged_only=True)@10"]).summary()
    assert got["measure"].unique(maintain_order=True).to_list() == [
        "nDCG(judged_only=False)@10", "nDCG(judged_only=True)@10", "P(rel=2,judged_only=False)@5"]
    value = {(s, m): v for s, m, v, _ in got.iter_rows()}
    for s, m, v, _ in plain.iter_rows():
        want = {"nDCG@10": "nDCG(judged_only=False)@10", "P(rel=2)@5": "P(rel=2,judged_only=False)@5"}[m]
        assert value[(s, want)] == v
    for s, m, v, _ in judged.iter_rows():
        assert value[(s, m)] == v
    assert value[("bm25", "nDCG(judged_only=False)@10")] != value[("bm25", "nDCG(judged_only=True)@10")]
    # without a judged-only call the explicit False is the default: one measure, the plain name
    assert [m.name for m in pf.evaluate(runs, qrels, names[:2]).measures] == ["nDCG@10"]
    (m,) = parse_measure("nDCG(judged_only=False)@10")
    assert parse_measure(m.name) == [m] and m != parse_measure("nDCG@10")[0]


def test_bare_family_with_parameters_keeps_trec_eval_rule_and_warns_at_the_caller():
    """trec_eval (trec_eval.c mark_measure, meas_init.c) evaluates a family named bare and with a
    parameter list with the parameters only: -m P -m P.5 prints P_5 alone, -m official -m P.7 drops
    P's nine default cutoffs. pairedframe keeps that (CLI parity) and warns which cutoffs are lost."""
    with pytest.warns(UserWarning, match=r"'P' was named bare, .*P@10, P@15.*P@1000 are not computed.*"
                                         r"P\.5,10,15,20,30,100,200,500,1000") as caught:
        got = parse_measures(["P", "P.5"])
    assert caught[0].filename == __file__ and [m.name for m in got] == ["P@5"]
    with pytest.warns(UserWarning, match=r"'P' was named bare \(through 'official'\).*P@5, P@10") as caught:
        got = parse_measures(["official", "P.7"])
    assert [m.name for m in got if m.family == "P"] == ["P@7"] and "AP" in [m.name for m in got]
    import warnings
    with warnings.catch_warnings():      # nothing lost, or ir_measures names: no warning
        warnings.simplefilter("error")
        assert len(parse_measures(["P", "P.5,10,15,20,30,100,200,500,1000"])) == 9
        assert [m.name for m in parse_measures(["P", "P@7"])][-1] == "P@7"
        assert parse_measures(["all_trec", "relstring.20"])


@pytest.mark.parametrize("text,dup", [("ndcg_cut.10,10", "10"), ("P.5,10,5", "5"), ("iprec_at_recall.0.5,0.5", "0.5")])
def test_duplicate_cutoffs_are_named_not_called_an_unknown_measure(text, dup):
    with pytest.raises(UnknownMeasureError) as exc:
        parse_measure(text)
    assert str(exc.value) == f"measure {text!r}: duplicate cutoff {dup}"


@pytest.mark.parametrize("text, grade", [("ndcg.1=3,1=9", 1), ("nDCG(gains={1:3,1:9})", 1), ("ndcg.1=3,01=9", 1),
                                         ("G.2=1,1=3,2=9", 2), ("nDCG(gains={2:1,1:3,2:9,1:4})@10", 2),
                                         ("rbp.p=0.8,1=3,1=4", 1), ("RBP(gains={0:1,0:2})", 0)])
def test_a_grade_given_twice_in_gains_is_refused_naming_the_grade_and_the_text(text, grade):
    """Which gain was meant is unknown: the later one won silently (trec_eval style and ir_measures' dict alike)."""
    with pytest.raises(UnknownMeasureError) as exc:
        parse_measure(text)
    assert str(exc.value) == f"measure {text!r}: duplicate grade {grade} in gains"


#: trec_eval-style parameters C's atof reads as inf or nan (read as 0 silently: ndcg.1=inf gave gain 0,
#: iprec_at_recall.inf IPrec@0.0), with what the refusal quotes.
NONFINITE = [("ndcg.1=inf", "gain 'inf' of grade 1"), ("ndcg.1=nan", "gain 'nan' of grade 1"),
             ("ndcg.01=-INFINITY", "gain '-INFINITY' of grade 1"), ("ndcg.1=1e999", "gain '1e999' of grade 1"),
             ("iprec_at_recall.inf", "parameter 'inf'"), ("iprec_at_recall_NaN", "parameter 'NaN'"),
             ("utility.inf,-1,0,0", "parameter 'inf'"), ("set_F.nan", "parameter 'nan'"),
             ("rbp.p=inf", "parameter 'p=inf'"), ("rbp_resid.p=Infinity", "parameter 'p=Infinity'"),
             ("Rprec_mult.0.5,inf", "parameter 'inf'"), ("11pt_avg.+nan", "parameter '+nan'"),
             ("relstring.inf", "parameter 'inf'"), ("G.1=3,2=-inf", "gain '-inf' of grade 2")]


@pytest.mark.parametrize("text, what", NONFINITE)
def test_a_parameter_spelled_inf_or_nan_is_refused_quoting_the_text(text, what):
    with pytest.raises(UnknownMeasureError) as exc:
        parse_measure(text)
    assert str(exc.value) == f"measure {text!r}: {what} is not a finite number"


#: Cutoff lists with an item that is no number (C's atol reads 0 there), and what the refusal names.
NOT_CUTOFFS = [("P.5,P.10", "'P.10' is not a cutoff", "P"), ("P.", "the cutoff list is empty", "P"),
               ("ndcg_cut.10,,20", "a cutoff is missing", "ndcg_cut"), ("map_cut.inf", "'inf' is not a cutoff", "map_cut"),
               ("recall.10,R@5", "'R@5' is not a cutoff", "recall"), ("success.x", "'x' is not a cutoff", "success")]


@pytest.mark.parametrize("text, what, form", NOT_CUTOFFS)
def test_a_cutoff_list_item_that_is_no_number_is_named_not_called_cutoff_0(text, what, form):
    """P.5,P.10 and P. were refused as "cutoff=0 is out of range", a number the user never wrote."""
    with pytest.raises(UnknownMeasureError) as exc:
        parse_measures([text])
    assert str(exc.value) == (f"measure {text!r}: {what} (a cutoff list is positive integers separated by commas, "
                              f"e.g. {form}.5,10)")


#: trec_eval-style parameters with no leading number, which C's atol / atof read as 0 (relstring.x was refused as
#: "cutoff=0", a number never written; ndcg.1=abc gave grade 1 the gain 0 silently), and what the refusal says; a
#: hexadecimal float, which glibc's atof reads (16 for 0x10) and pairedframe read as 0, is refused as the readers do.
NOT_NUMBERS = [("relstring.x", "'x' is not a cutoff (relstring takes the number of documents it shows, a positive "
                               "integer, e.g. relstring.20)"),
               ("ndcg.1=abc", "gain 'abc' of grade 1 is not a number (trec_eval would read it as 0)"),
               ("ndcg_rel.1=3,2=", "gain '' of grade 2 is not a number (trec_eval would read it as 0)"),
               ("G.1=x", "gain 'x' of grade 1 is not a number (trec_eval would read it as 0)"),
               ("rbp.p=abc", "parameter 'p=abc' is not a number (trec_eval would read it as 0)"),
               ("utility.1,x,0,0", "parameter 'x' is not a number (trec_eval would read it as 0)"),
               ("set_F.x", "parameter 'x' is not a number (trec_eval would read it as 0)"),
               ("iprec_at_recall.x", "parameter 'x' is not a number (trec_eval would read it as 0)"),
               ("11pt_avg..25,y", "parameter 'y' is not a number (trec_eval would read it as 0)"),
               ("Rprec_mult.x", "parameter 'x' is not a number (trec_eval would read it as 0)"),
               ("ndcg.1=0x10", "gain '0x10' of grade 1 is not a number (a C99 hexadecimal float, which glibc's atof "
                               "reads: write it in decimal)"),
               ("set_F.0x1p3", "parameter '0x1p3' is not a number (a C99 hexadecimal float, which glibc's atof reads: "
                               "write it in decimal)")]


@pytest.mark.parametrize("text, what", NOT_NUMBERS)
def test_a_parameter_that_is_no_number_is_refused_naming_what_was_written_not_read_as_0(text, what):
    with pytest.raises(UnknownMeasureError) as exc:
        parse_measure(text)
    assert str(exc.value) == f"measure {text!r}: {what}"


#: A number followed by other text (C reads the leading number: trec_eval's value, kept), the name written
#: cleanly, and what the warning says was read.
LOOSE_NUMBERS = [("P.5x", "P.5", "cutoff '5x' is read as 5"), ("P.5,10.5", "P.5,10", "cutoff '10.5' is read as 10"),
                 ("ndcg_cut.5x", "ndcg_cut.5", "cutoff '5x' is read as 5"),
                 ("relstring.5x", "relstring.5", "parameter '5x' is read as 5"),
                 ("relstring.2.5", "relstring.2", "cutoff '2.5' is read as 2"),
                 ("ndcg_rel.1=2x", "ndcg_rel.1=2", "gain '2x' of grade 1 is read as 2"),
                 ("ndcg.1=3,2=1.5e", "ndcg.1=3,2=1.5", "gain '1.5e' of grade 2 is read as 1.5"),
                 ("rbp.p=0.5x", "rbp.p=0.5", "parameter 'p=0.5x' is read as 0.5"),
                 ("set_F.2x", "set_F.2", "parameter '2x' is read as 2"),
                 ("iprec_at_recall.0.5x", "iprec_at_recall.0.5", "parameter '0.5x' is read as 0.5")]


@pytest.mark.parametrize("text, clean, what", LOOSE_NUMBERS)
def test_a_number_followed_by_text_keeps_trec_eval_reading_with_a_warning_naming_what_was_read(text, clean, what):
    with pytest.warns(UserWarning) as caught:
        got = parse_measure(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        want = parse_measure(clean)
    assert got == want
    messages = [str(w.message) for w in caught]
    assert any(m.startswith(f"measure {text!r}: {what}, as trec_eval reads it") for m in messages), messages


@pytest.mark.parametrize("text", ["P.5,10", "ndcg_cut.10", "relstring.20", "ndcg.1=3,2=9.5", "rbp.p=0.95,1=2",
                                  "utility.2,-1,0,0", "set_F.0.5", "iprec_at_recall..25,.5", "11pt_avg..25,.5",
                                  "Rprec_mult.0.5,1e0", "P. 5, 10"])
def test_parameters_that_are_numbers_give_no_warning(text):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parse_measure(text)


@pytest.mark.parametrize("gains, grade", [(((1, 3), (1, 5)), 1), (((0, 1), (2, 4), (2, 4)), 2), (((1, 3), (1.0, 5)), 1)])
def test_measure_gains_with_a_grade_given_twice_is_refused_naming_gains_and_the_grade(gains, grade):
    """Measure(gains=((1, 3), (1, 5))) kept one of them silently; ndcg.1=3,1=5 is refused."""
    with pytest.raises(UnknownMeasureError, match=rf"^measure nDCG: gains= gives grade {grade} twice \(gains "):
        Measure("nDCG", gains=gains)


# ---- one measure under trec_eval's and pairedframe's names in one per-query table ----------------------

def _trec_eval_and_pairedframe_files(tmp_path):
    """System a's per-query values as trec_eval -q prints them (map, P_2), system b's as pairedframe's csv
    (AP, P@2), and the evaluation both come from."""
    from tests.conformance.inputs import QRELS, RUN

    ev = pf.evaluate(RUN, QRELS, ["map", "P.2"])
    trec = tmp_path / "a.treceval"
    trec.write_text(pf.evaluate(RUN.filter(pl.col("system") == "a"), QRELS, ["map", "P.2"]).to_trec(summary=False))
    csv = tmp_path / "b.csv"
    ev.per_query.filter(pl.col("system") == "b").write_csv(csv)
    return pf.read_results([str(trec), str(csv)]), ev.per_query.with_columns(
        pl.col("system").replace({"a": "a.treceval"}))


@pytest.mark.parametrize("asked", [["map"], ["AP"], ["P@2"], ["P_2"], ["P.2"], None])
def test_trec_eval_and_pairedframe_spellings_of_one_measure_pair(tmp_path, asked):
    """`map` / `P_2` of a trec_eval -q file and `AP` / `P@2` of pairedframe's csv are one measure each: they pair
    (and measures= selects them by either spelling), under pairedframe's name."""
    mixed, same = _trec_eval_and_pairedframe_files(tmp_path)
    assert set(mixed["measure"]) == {"map", "P_2", "AP", "P@2"}   # read as each file spells them
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # three queries: small-sample warnings
        got = pf.compare(mixed, baseline="a.treceval", measures=asked, test="t")
        want = pf.compare(same, baseline="a.treceval", measures=asked if asked is None else
                          [{"map": "AP", "P_2": "P@2", "P.2": "P@2"}.get(m, m) for m in asked], test="t")
    assert got.select("system", "measure", "n_queries").rows() == want.select("system", "measure", "n_queries").rows()
    assert got["delta"].to_list() == pytest.approx(want["delta"].to_list(), abs=1e-4)  # trec_eval prints 4 decimals
    assert set(got["measure"]) <= {"AP", "P@2"} and got.height == (2 if asked is None else 1)


def test_a_measure_spelled_one_way_keeps_its_spelling_and_is_selected_by_the_other(tmp_path):
    """A table of trec_eval's names only: measures=['P@2'] selects P_2, shown as the table spells it."""
    mixed, _ = _trec_eval_and_pairedframe_files(tmp_path)
    both = pl.concat([mixed.filter(pl.col("measure") == "P_2"),
                      mixed.filter(pl.col("measure") == "P_2").with_columns(pl.lit("c").alias("system"),
                                                                         pl.col("value") * 0.5)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pf.compare(both, baseline="a.treceval", measures=["P@2"], test="t")
    assert got["measure"].to_list() == ["P_2"]


def test_one_system_with_each_spelling_under_another_key_pairs(tmp_path):
    """map for dataset dl19 and AP for dl20 of one system are no duplicate: each key's rows are one measure."""
    mixed, _ = _trec_eval_and_pairedframe_files(tmp_path)
    ap = mixed.filter(pl.col("measure").is_in(["map", "AP"]))
    keyed = pl.concat([ap.with_columns(pl.lit("dl19").alias("dataset")),
                       ap.with_columns(pl.lit("dl20").alias("dataset"),
                                       pl.col("measure").replace({"map": "AP", "AP": "map"}))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = pf.compare(keyed, baseline="a.treceval", test="t")
    assert got.select("dataset", "measure").rows() == [("dl19", "AP"), ("dl20", "AP")]


def test_one_system_with_a_measure_under_two_spellings_is_refused_naming_both(tmp_path):
    mixed, _ = _trec_eval_and_pairedframe_files(tmp_path)
    twice = pl.concat([mixed, mixed.filter(pl.col("measure") == "map").with_columns(pl.lit("AP").alias("measure"))])
    with pytest.raises(pf.DuplicateError, match=r"system 'a\.treceval' holds the measure AP under two spellings, "
                                                 r"'AP' and 'map' \(trec_eval's and pairedframe's names of one measure"):
        pf.compare(twice, baseline="a.treceval", test="t")


@pytest.mark.parametrize("bare, with_parameters, lost", [
    ("rbp", "rbp.p=0.8", "RBP(p=0.9)"), ("rbp_resid", "rbp_resid.p=0.5", "RBPResid(p=0.9)"),
    ("ndcg", "ndcg.1=0,2=1", "nDCG"), ("Rndcg", "Rndcg.1=0,2=1", "RnDCG"), ("relstring", "relstring.20", "RelString@10"),
    ("success", "success.3", "Success@1"), ("recall", "recall.5", "R@10"), ("ndcg_cut", "ndcg_cut.10", "nDCG@5")])
def test_parameter_family_named_bare_and_with_parameters_warns_what_is_not_computed(bare, with_parameters, lost):
    """As P and P.5: trec_eval evaluates a family named bare and with parameters once, with the parameters,
    so what bare names is not computed -- said at the caller's line (pf.evaluate, parse_measures)."""
    run, qrels = {"q1": {"d1": 1.0, "d2": 0.5}}, {"q1": {"d1": 1, "d2": 2}}
    with pytest.warns(UserWarning, match=rf"'{bare}' was named bare.* {re.escape(lost)}.* not computed") as caught:
        got = pf.evaluate(run, qrels, [bare, with_parameters])
    assert caught[0].filename == __file__
    assert [m.name for m in got.measures] == [m.name for m in parse_measure(with_parameters)]
    with warnings.catch_warnings():      # the advice's names, one per measure, give both without a warning
        warnings.simplefilter("error")
        assert lost in [m.name for m in parse_measures([lost, with_parameters])]


@pytest.mark.parametrize("name, integer", [("P@1e3", "P@1000"), ("nDCG@10.0", "nDCG@10"), ("P(cutoff=1e3)", "P@1000")])
def test_whole_cutoff_written_as_a_float_is_not_called_out_of_range(name, integer):
    """P@1e3 said "cutoff=1000.0 is out of range" although 1000 is in range (the outside tester): it names the
    float spelling and the integer one to write instead, which parses."""
    with pytest.raises(UnknownMeasureError, match=rf"written as a float: .* \(e\.g\. {re.escape(integer)}\)") as info:
        parse_measure(name)
    assert "out of range" not in str(info.value)
    assert parse_measure(integer)[0].cutoff == int(integer.split("@")[1])


@pytest.mark.parametrize("name", ["P@1.5", "P@0.0", "P@1e400"])
def test_fractional_or_non_positive_float_cutoff_is_out_of_range(name):
    with pytest.raises(UnknownMeasureError, match=r"is out of range: a cutoff must be a positive integer"):
        parse_measure(name)
