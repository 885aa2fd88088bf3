"""label_agreement: weighted kappa by grade value (scikit-learn, statsmodels), the grade set, judgments that
are not common pairs, the jackknife interval over queries, and bad input."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pairedframe as pf
from pairedframe.errors import SmallSampleWarning


def _qrels(pairs):
    return pl.DataFrame(pairs, schema={"qid": pl.String, "docno": pl.String, "rel": pl.Int64}, orient="row")


def _sklearn(a, b, **kw):
    metrics = pytest.importorskip("sklearn.metrics")
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return metrics.cohen_kappa_score(a, b, **kw)


def test_weighted_kappa_weighs_by_grade_value():
    """Linear kappa of a = (0, 1, 3), b = (0, 3, 3) counts the 1-vs-3 disagreement as 2 grades apart,
    not as neighbours among the grades seen."""
    a = _qrels([("q", "a", 0), ("q", "b", 1), ("q", "c", 3)])
    b = _qrels([("q", "a", 0), ("q", "b", 3), ("q", "c", 3)])
    with pytest.warns(SmallSampleWarning, match="intervals are NaN"):        # one query: no interval
        got = pf.label_agreement(a, b)
    assert got.kappa_linear == pytest.approx(4 / 7)
    assert got.grades == (0, 1, 2, 3)
    # the position weighting of the grades seen (0, 1, 3) gave 2/3
    assert got.kappa_linear != pytest.approx(2 / 3)


@pytest.mark.oracle
def test_weighted_kappa_against_sklearn():
    rng = np.random.default_rng(0)
    pairs = [(str(q), f"d{d}") for q in range(20) for d in range(15)]
    ga = rng.choice([0, 1, 3, 4], len(pairs))                       # grade 2 unused by both
    gb = np.clip(ga + rng.integers(-1, 2, len(pairs)), 0, 4)
    gb[gb == 2] = 3
    a = _qrels([(q, d, int(g)) for (q, d), g in zip(pairs, ga)])
    b = _qrels([(q, d, int(g)) for (q, d), g in zip(pairs, gb)]).sample(fraction=1.0, shuffle=True, seed=1)
    la = pf.label_agreement(a, b, binary_at=3)
    labels = list(range(5))
    assert la.grades == tuple(labels)
    assert la.kappa == pytest.approx(_sklearn(ga, gb, labels=labels), abs=1e-12)
    assert la.kappa_linear == pytest.approx(_sklearn(ga, gb, labels=labels, weights="linear"), abs=1e-12)
    assert la.kappa_quadratic == pytest.approx(_sklearn(ga, gb, labels=labels, weights="quadratic"), abs=1e-12)
    assert la.kappa_binary == pytest.approx(_sklearn(ga >= 3, gb >= 3), abs=1e-12)
    # positions among the grades seen would be scikit-learn without labels: a different number
    assert la.kappa_linear != pytest.approx(_sklearn(ga, gb, weights="linear"), abs=1e-6)


@pytest.mark.oracle
def test_weighted_kappa_with_negative_grades_against_statsmodels():
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(4)
    ga = rng.choice([-1, 0, 1, 2], 200)
    gb = np.where(rng.random(200) < 0.5, ga, rng.choice([-1, 0, 1, 2], 200))
    a = _qrels([(str(i % 10), f"d{i}", int(g)) for i, g in enumerate(ga)])
    b = _qrels([(str(i % 10), f"d{i}", int(g)) for i, g in enumerate(gb)])
    la = pf.label_agreement(a, b)
    assert la.grades == (-1, 0, 1, 2)
    table = la.confusion_matrix().drop("grade_a").to_numpy()
    for weights, got in (("linear", la.kappa_linear), ("quadratic", la.kappa_quadratic)):
        assert got == pytest.approx(inter_rater.cohens_kappa(table, weights=[-1, 0, 1, 2], wt=weights).kappa, abs=1e-12)
        assert got == pytest.approx(_sklearn(ga, gb, labels=[-1, 0, 1, 2], weights=weights), abs=1e-12)


def test_weighted_kappa_ignores_unpaired_judgments():
    a = _qrels([("q", "a", 0), ("q", "b", 1), ("q", "c", 3), ("r", "a", 2), ("r", "b", 0)])
    b = _qrels([("q", "a", 0), ("q", "b", 3), ("q", "c", 3), ("r", "a", 2), ("r", "b", 1)])
    base = pf.label_agreement(a, b)
    extra_a = pl.concat([a, _qrels([("q", "x", 2), ("s", "y", 4)])])        # grades no common pair has
    extra_b = pl.concat([b, _qrels([("q", "z", -1)])])
    got = pf.label_agreement(extra_a, extra_b)
    assert got.table.equals(base.table)
    assert got.grades == base.grades == (0, 1, 2, 3) and got.confusion.equals(base.confusion)
    assert got.grade_counts["grade"].to_list() == [-1, 0, 1, 2, 3, 4]   # the whole sets are still counted


judgment = st.tuples(st.sampled_from(["1", "2", "3", "4"]), st.sampled_from([f"d{i}" for i in range(8)]),
                     st.integers(-1, 4))


@settings(max_examples=60, deadline=None)
@given(st.lists(judgment, min_size=4, max_size=30, unique_by=lambda j: j[:2]),
       st.lists(st.integers(-1, 4), min_size=30, max_size=30),
       st.lists(judgment, min_size=1, max_size=5, unique_by=lambda j: j[:2]))
def test_any_unpaired_judgment_leaves_every_kappa_and_interval_unchanged(common, grades_b, unpaired):
    a = _qrels(common)
    b = _qrels([(q, d, g) for (q, d, _), g in zip(common, grades_b)])
    keys = {(q, d) for q, d, _ in common}
    extra = _qrels([(q, "u" + d, g) for q, d, g in unpaired if (q, "u" + d) not in keys])
    assume(len({q for q, _, _ in common}) >= 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallSampleWarning)
        base = pf.label_agreement(a, b, binary_at=2)
        got = pf.label_agreement(pl.concat([a, extra]), b, binary_at=2)
    assert got.table.equals(base.table)


def test_kappa_interval_is_the_query_jackknife_against_sklearn():
    """The interval is kappa +- t(n - 1) * jackknife SE, each leave-one-query-out kappa from scikit-learn."""
    scipy_stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(7)
    rows_a, rows_b = [], []
    for q in range(12):
        bias = rng.integers(-1, 2)                                   # one judge's reading of the query
        for d in range(int(rng.integers(5, 30))):
            g = int(rng.integers(0, 4))
            rows_a.append((f"q{q:02d}", f"d{d}", g))
            rows_b.append((f"q{q:02d}", f"d{d}", int(np.clip(g + bias + rng.integers(-1, 2), 0, 3))))
    la = pf.label_agreement(_qrels(rows_a), _qrels(rows_b))
    assert la.n_queries == 12 and la.settings["interval"].startswith("jackknife over queries")
    ga, gb = np.array([r[2] for r in rows_a]), np.array([r[2] for r in rows_b])
    qs = np.array([r[0] for r in rows_a])
    for name, weights in (("kappa", None), ("kappa_linear", "linear"), ("kappa_quadratic", "quadratic")):
        loo = np.array([_sklearn(ga[qs != q], gb[qs != q], labels=range(4), weights=weights) for q in np.unique(qs)])
        se = np.sqrt(11 / 12 * np.sum((loo - loo.mean()) ** 2))
        half = scipy_stats.t.ppf(0.975, 11) * se
        low, high = la.confidence_intervals[name]
        assert low == pytest.approx(max(-1.0, getattr(la, name) - half), abs=1e-12)
        assert high == pytest.approx(min(1.0, getattr(la, name) + half), abs=1e-12)
    # pairs as the units (every pair its own query) would give a narrower interval: queries are the units
    per_pair = pf.label_agreement(_qrels([(f"{q}-{d}", d, g) for q, d, g in rows_a]),
                                  _qrels([(f"{q}-{d}", d, g) for q, d, g in rows_b]))
    width = lambda ci: ci.high - ci.low  # noqa: E731
    assert width(per_pair.confidence_intervals["kappa"]) < width(la.confidence_intervals["kappa"])


def test_label_agreement_grades_option():
    a = _qrels([("1", "a", 0), ("1", "b", 1), ("2", "a", 2), ("2", "b", 1)])
    b = _qrels([("1", "a", 0), ("1", "b", 2), ("2", "a", 2), ("2", "b", 0)])
    default = pf.label_agreement(a, b)
    wide = pf.label_agreement(a, b, grades=range(5))
    assert default.grades == (0, 1, 2) and wide.grades == (0, 1, 2, 3, 4)
    assert wide.confusion.height == 25 and wide.confusion_matrix().columns == ["grade_a", "0", "1", "2", "3", "4"]
    assert wide.table.equals(default.table)                   # unused grades change no kappa
    with pytest.raises(ValueError, match=r"'a' grades a common pair 2, which is not in `grades` \[0, 1\]"):
        pf.label_agreement(a, b, grades=[0, 1])
    with pytest.raises(ValueError, match="distinct"):
        pf.label_agreement(a, b, grades=[0, 1, 1, 2])
    with pytest.raises(TypeError, match="`grades`"):
        pf.label_agreement(a, b, grades=[0, 1.5, 2])
    with pytest.raises(TypeError, match="`grades`"):
        pf.label_agreement(a, b, grades="0123")
    with pytest.raises(TypeError, match="`grades`"):
        pf.label_agreement(a, b, grades=[])


def test_label_agreement_rejects_bad_options():
    a = _qrels([("1", "a", 0), ("2", "b", 1)])
    for level in (0.0, 1.0, 1.5, -0.1, True, "0.95"):
        with pytest.raises(ValueError, match="`confidence_level`"):
            pf.label_agreement(a, a, confidence_level=level)
    with pytest.raises(TypeError, match="`binary_at`"):
        pf.label_agreement(a, a, binary_at=1.5)


def test_binary_at_outside_the_grade_scale_is_refused_naming_it():
    """binary_at above the highest grade (or at / below the lowest) puts every judgment on one side:
    refused before any kappa, naming binary_at and the scale (the sets' grades, or ``grades=``)."""
    a = _qrels([("1", "a", 0), ("1", "b", 3), ("2", "a", 1), ("2", "b", 2)])
    b = _qrels([("1", "a", 1), ("1", "b", 3), ("2", "a", 0), ("2", "b", 2)])
    with pytest.raises(ValueError, match=r"`binary_at=5` is above the highest grade 3 of the grades of the two "
                                         r"sets \[0, 1, 2, 3\]"):
        pf.label_agreement(a, b, binary_at=5)
    with pytest.raises(ValueError, match=r"`binary_at=0` is at or below the lowest grade 0"):
        pf.label_agreement(a, b, binary_at=0)
    with pytest.raises(ValueError, match=r"`binary_at=4` is above the highest grade 3 of `grades` \[0, 1, 2, 3\]"):
        pf.label_agreement(a, b, binary_at=4, grades=[0, 1, 2, 3])
    assert pf.label_agreement(a, b, binary_at=4, grades=[0, 1, 2, 3, 4]).kappa_binary is not None
    assert pf.label_agreement(a, b, binary_at=3).kappa_binary == pytest.approx(1.0)


def test_label_agreement_names_must_be_exactly_two_labels():
    a = _qrels([("1", "a", 0), ("2", "b", 1)])
    for names in (("a", "b", "c"), ("a",), "ab", None):
        with pytest.raises(ValueError, match="`names` must be two labels"):
            pf.label_agreement(a, a, names=names)
    assert pf.label_agreement(a, a, names=["nist", "llm"]).kappa == 1.0


def test_label_agreement_of_one_query_warns_and_has_no_interval():
    a = _qrels([("1", "a", 0), ("1", "b", 1), ("1", "c", 2)])
    b = _qrels([("1", "a", 0), ("1", "b", 2), ("1", "c", 2)])
    with pytest.warns(SmallSampleWarning, match="all belong to query") as record:
        la = pf.label_agreement(a, b)
    assert {w.filename for w in record} == {__file__}
    assert np.isfinite(la.kappa) and la.n_queries == 1
    assert la.table["ci_low"].is_nan().all()


def test_kappa_interval_is_nan_with_a_warning_when_a_query_holds_every_disagreement():
    """Without query 2 both sets give every pair grade 0: kappa is undefined there, so is the jackknife."""
    a = _qrels([("1", "a", 0), ("1", "b", 0), ("2", "a", 1), ("2", "b", 0)])
    b = _qrels([("1", "a", 0), ("1", "b", 0), ("2", "a", 1), ("2", "b", 1)])
    with pytest.warns(SmallSampleWarning, match="without one of the 2 queries the kappa is undefined"):
        la = pf.label_agreement(a, b)
    assert la.kappa == pytest.approx(_sklearn([0, 0, 1, 0], [0, 0, 1, 1]))
    assert np.isnan(la.confidence_intervals["kappa"].low)


def test_label_agreement_of_a_wide_grade_scale_stays_small():
    """Grades 0 and 1000: the kappas use the grades present, the confusion lists the whole default set."""
    a = _qrels([("1", "a", 0), ("1", "b", 1000), ("2", "a", 0), ("2", "b", 1000), ("3", "c", 1000)])
    b = _qrels([("1", "a", 0), ("1", "b", 1000), ("2", "a", 1000), ("2", "b", 1000), ("3", "c", 0)])
    la = pf.label_agreement(a, b)
    assert la.grades == tuple(range(1001)) and la.confusion["count"].sum() == 5
    assert la.kappa_linear == pytest.approx(_sklearn([0, 1, 0, 1, 1], [0, 1, 1, 1, 0], weights="linear"))


def test_label_agreement_fractional_grade_hint_names_read_grades(tmp_path):
    """label_agreement's grades= is the kappa grade set: the hint points at its own reading option,
    read_grades=, for a file and for a table alike."""
    path = tmp_path / "q"
    path.write_text("q1 0 d1 0.5\nq1 0 d2 1\n")
    with pytest.raises(pf.InputFormatError, match=r"read_grades='trec_eval' reads a number"):
        pf.label_agreement(path, path)
    table = pl.DataFrame({"qid": ["q1", "q1"], "docno": ["d1", "d2"], "rel": [0.5, 1.0]})
    with pytest.raises(pf.SchemaError, match=r"^'b': .*\(read_grades='trec_eval' reads it"):
        pf.label_agreement(_qrels([("q1", "d1", 0), ("q1", "d2", 1)]), table)


def test_label_agreement_read_grades_trec_eval_reads_as_read_qrels_does(tmp_path):
    """read_grades='trec_eval' reads each set as pf.read_qrels(path, grades='trec_eval') does (1.5 -> 1,
    0.5 -> 0), warning once per set: the kappas are those of the tables read_qrels returns."""
    pa, pb = tmp_path / "a.txt", tmp_path / "b.txt"
    pa.write_text("q1 0 d1 0.5\nq1 0 d2 1.5\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d2 0\nq2 0 d3 2.9\n")
    pb.write_text("q1 0 d1 0\nq1 0 d2 2\nq1 0 d3 2\nq2 0 d1 1\nq2 0 d2 1\nq2 0 d3 2\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = pf.label_agreement(pa, pb, read_grades="trec_eval")
        want = pf.label_agreement(pf.read_qrels(pa, grades="trec_eval"), pb)
    said = [(w.filename, str(w.message)) for w in caught if "read as" in str(w.message)]
    assert len(said) == 2 and "grade '0.5' read as 0 (3 grades in all)" in said[0][1]
    # in label_agreement the keyword is read_grades= (grades= is the kappas' grade set; the tester of round 15)
    assert "read_grades='trec_eval' keeps the integer prefix" in said[0][1] and said[0][0] == __file__, said[0]
    assert got.table.equals(want.table) and got.confusion.equals(want.confusion)
    with pytest.raises(ValueError, match="`read_grades` must be 'strict'"):
        pf.label_agreement(pa, pb, read_grades="atol")


def test_an_undefined_kappa_warns_why_instead_of_a_silent_nan():
    """binary_at=1 on a 0-2 scale whose common pairs are all graded 1 or 2 puts them in one class in both
    sets: chance agreement 1, kappa 0 / 0 = NaN, as sklearn gives; a warning names the coefficient and the cause."""
    a = pl.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["x", "y", "x", "y"], "rel": [1, 1, 2, 1]})
    b = a.with_columns(pl.Series("rel", [1, 2, 2, 1]))
    with pytest.warns(SmallSampleWarning, match=r"kappa_binary undefined \(NaN\): `binary_at=1` puts every common pair"):
        res = pf.label_agreement(a, b, binary_at=1)
    frame = res.table
    assert math.isnan(frame.filter(pl.col(frame.columns[0]) == "kappa_binary")["statistic"][0])
    same = a.with_columns(pl.lit(1).alias("rel"))
    with pytest.warns(SmallSampleWarning, match=r"kappa.*undefined \(NaN\): every common pair has one label"):
        pf.label_agreement(same, same)


def test_kappa_no_spread_warning_names_the_two_judgment_sets():
    """A report computes one label agreement per judgment set: the no-spread warning says between which two."""
    a = {"q1": {"a": -1, "b": 2}, "q2": {"a": 0, "b": 1}}
    b = {"q1": {"a": 2, "b": 2}, "q2": {"a": 0, "b": 0}}
    with pytest.warns(SmallSampleWarning, match=r"^label agreement between 'nist' and 'gpt-4o': kappa.*the same without"):
        pf.label_agreement(a, b, names=("nist", "gpt-4o"))


def test_kappa_interval_is_nan_when_every_leave_one_query_out_kappa_is_equal_against_sklearn():
    """Two queries whose leave-one-out kappas (scikit-learn) are both 0: the jackknife SE is 0, which is no
    certainty about a kappa of 1/3, so the interval is NaN with a warning saying why, never a point."""
    a = {"q1": {"a": -1, "b": 2}, "q2": {"a": 0, "b": 1}}
    b = {"q1": {"a": 2, "b": 2}, "q2": {"a": 0, "b": 0}}
    with pytest.warns(SmallSampleWarning, match="the kappa is the same without any one of the 2 queries"):
        la = pf.label_agreement(a, b)
    assert la.kappa == pytest.approx(_sklearn([-1, 2, 0, 1], [2, 2, 0, 0]), abs=1e-12)
    assert [_sklearn([0, 1], [0, 0]), _sklearn([-1, 2], [2, 2])] == [0.0, 0.0]        # the leave-one-out kappas
    assert la.kappa != 0.0 and all(math.isnan(v) for v in la.confidence_intervals["kappa"])
    # a third query that changes the leave-one-out kappas gives an interval again
    c, d = {**a, "q3": {"a": 1, "b": 1, "c": 0}}, {**b, "q3": {"a": 1, "b": 0, "c": 0}}
    with warnings.catch_warnings():
        warnings.simplefilter("error", SmallSampleWarning)
        low, high = pf.label_agreement(c, d).confidence_intervals["kappa"]
    assert low < high


def test_a_set_with_one_label_warns_that_its_kappa_is_zero_by_construction_against_sklearn():
    """The LLM set grades every common pair 0 (a newcomer's real case): kappa is 0 (scikit-learn agrees) whatever
    the queries, and the warning names that set and that cause, not the number of queries."""
    a = {f"q{i}": {"d1": i % 3, "d2": (i + 1) % 4, "d3": 1} for i in range(25)}
    b = {q: {d: 0 for d in docs} for q, docs in a.items()}
    with pytest.warns(SmallSampleWarning) as caught:
        la = pf.label_agreement(a, b, names=("nist", "llm"), binary_at=2)
    texts = [str(w.message) for w in caught]
    assert any("'llm' gives every common pair the same label" in t and "0 by construction" in t for t in texts)
    assert not any("with few queries" in t for t in texts)
    flat_a = [g for docs in a.values() for g in docs.values()]
    assert la.kappa == _sklearn(flat_a, [0] * len(flat_a)) == 0.0
    assert all(math.isnan(v) for v in la.confidence_intervals["kappa_binary"])


def test_label_agreement_errors_name_the_files_given_as_paths(tmp_path):
    pa, pb = tmp_path / "nist.txt", tmp_path / "llm.txt"
    pa.write_text("1 0 d1 1\n1 0 d2 0\n")
    pb.write_text("2 0 d1 1\n")
    with pytest.raises(pf.errors.InsufficientSampleError, match=r"'a' \(file .*nist\.txt\).*'b' \(file .*llm\.txt\)"):
        pf.label_agreement(str(pa), pb)
    pb.write_text("1 0 d1 3\n")
    with pytest.raises(ValueError, match=r"'b' \(file .*llm\.txt\) grades a common pair 3"):
        pf.label_agreement(pa, pb, grades=[0, 1])


def test_label_agreement_names_the_label_set_holding_a_duplicate_or_a_nan_grade(tmp_path):
    """Both inputs are qrels, whose readers say only "the qrels table": the error names the set as the
    door's other messages do (its label, and its file when given as a path)."""
    good = pl.DataFrame({"qid": ["1", "1"], "docno": ["d1", "d2"], "rel": [1, 0]})
    duplicated = pl.concat([good, good.head(1)])
    with pytest.raises(pf.errors.DuplicateError, match=r"^'llm': duplicate .* in the qrels table"):
        pf.label_agreement(good, duplicated, names=("nist", "llm"))
    with pytest.raises(pf.errors.DuplicateError, match=r"^'a': duplicate"):
        pf.label_agreement(duplicated, good)
    nan = good.with_columns(pl.Series("rel", [1.0, float("nan")]))
    with pytest.raises(pf.SchemaError, match=r"^'b': qrels column 'rel' must hold integer grades, got NaN"):
        pf.label_agreement(good, nan)
    path = tmp_path / "llm.txt"
    path.write_text("1 0 d1 1\n1 0 d1 0\n")
    with pytest.raises(pf.errors.DuplicateError, match=r"^'b' \(file .*llm\.txt\): qrels file .*llm\.txt, line 1: duplicate"):
        pf.label_agreement(good, path)
