"""Doors whose inputs are neither runs and qrels nor per-query tables: each lists its cells.

An :class:`OtherDoor` maps a case name to a :class:`Cell`: ``call(tmp_path)`` and what it must do --
raise clearly (``Raises``), or return a value equal to ``reference(tmp_path)`` (an oracle, or the
same door on the plain input). The case names follow the input classes of ``cases.py`` (``clean``,
``empty``, ``one_row``, ``nan``, ``inf``, ``none``, ``float_ids``, ``bom``, ``crlf``, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import polars as pl
from scipy import stats

import pairedframe as pf
from pairedframe.errors import (EmptyResultError, InsufficientSampleError, PartlyEmptyWarning, PlanError, SchemaError,
                                UnknownMeasureError)
from tests.conformance.doors import OTHER_QRELS, PLAN, QRELS_B, EmptyCase, _write, run_cli
from tests.conformance.inputs import QRELS, RUN, trec_qrels_text, trec_run_text
from tests.conformance.expect import Expect, Raises, Value


@dataclass(frozen=True)
class Cell:
    call: Callable[[Path], Any]
    expect: Expect = field(default_factory=Value)
    reference: Callable[[Path], Any] | None = None  # a result of the door (its value is compared) ...
    oracle: bool = False                            # ... or, when True, the expected value itself


@dataclass(frozen=True)
class OtherDoor:
    public: str
    cells: dict[str, Cell]
    value: Callable[[Any], Any] = lambda result: result
    params: dict[str, tuple[tuple[Any, ...], str]] = field(default_factory=dict)
    call_with: Callable[..., Any] | None = None   # call(**params) on a clean input, for ``params``
    empty: EmptyCase | None = None
    xfail: dict[str, str] = field(default_factory=dict)


# ---- compare_pair: two aligned samples -------------------------------------------------------------

A = [0.20, 0.35, 0.10, 0.55, 0.40, 0.25, 0.60, 0.30, 0.45, 0.50]
B = [0.30, 0.40, 0.30, 0.57, 0.55, 0.20, 0.68, 0.42, 0.47, 0.61]


def _pair(a: Any, b: Any, **kw: Any) -> Any:
    return pf.compare_pair(a, b, **{"test": "t", **kw})


def _pair_value(result: Any) -> tuple[float, float, float, float]:
    ci = result.confidence_interval
    return (float(result.statistic), float(result.pvalue), float(ci.low), float(ci.high))


def _ttest(a: Any, b: Any) -> tuple[float, float, float, float]:
    """scipy's paired t-test and t interval of the mean of b - a."""
    res = stats.ttest_rel(np.asarray(b, float), np.asarray(a, float))
    ci = res.confidence_interval(0.95)
    return (float(np.mean(np.subtract(b, a))), float(res.pvalue), float(ci.low), float(ci.high))


def _with(values: list, i: int, v: Any) -> list:
    out = list(values)
    out[i] = v
    return out


COMPARE_PAIR = OtherDoor("pf.compare_pair", value=_pair_value, call_with=lambda **kw: _pair(A, B, **kw), cells={
    "clean": Cell(lambda t: _pair(A, B), reference=lambda t: _ttest(A, B), oracle=True),
    "numpy": Cell(lambda t: _pair(np.array(A), np.array(B)), reference=lambda t: _ttest(A, B), oracle=True),
    "pandas": Cell(lambda t: _pair(pd.Series(A), pd.Series(B)), reference=lambda t: _ttest(A, B), oracle=True),
    "polars": Cell(lambda t: _pair(pl.Series(A), pl.Series(B)), reference=lambda t: _ttest(A, B), oracle=True),
    "integers": Cell(lambda t: _pair([1, 2, 3, 5], [2, 2, 5, 9]), reference=lambda t: _ttest([1, 2, 3, 5], [2, 2, 5, 9]), oracle=True),
    "empty": Cell(lambda t: _pair([], []), Raises(r"at least 2", InsufficientSampleError)),
    "one_row": Cell(lambda t: _pair([0.1], [0.2]), Raises(r"at least 2", InsufficientSampleError)),
    "nan": Cell(lambda t: _pair(_with(A, 3, float("nan")), B), Raises(r"finite")),
    "inf": Cell(lambda t: _pair(A, _with(B, 3, float("inf"))), Raises(r"finite")),
    "none": Cell(lambda t: _pair(_with(A, 3, None), B), Raises(r"finite|number|None")),
    "lengths_differ": Cell(lambda t: _pair(A, B[:-1]), Raises(r"10.*9|9.*10|shape|length")),
    "duplicate_qids": Cell(lambda t: _pair(A[:3], B[:3], qids=["q1", "q1", "q2"]),
                           Raises(r"`qids` repeats an id, 'q1' at positions 0 and 1")),
    # 1.0 is not the id "1" (compare refuses a float qid column), None and True no id at all
    "float_qids": Cell(lambda t: _pair(A[:3], B[:3], qids=np.array([1, 2, 1.0], dtype=object)),
                       Raises(r"`qids` holds 1\.0 \(float\)")),
    "none_qid": Cell(lambda t: _pair(A[:3], B[:3], qids=[None, "q1", "q2"]), Raises(r"`qids` holds None")),
    # pandas' missing value and numpy's bool: no id either (they got through; the tester of round 15)
    "na_qid": Cell(lambda t: _pair(A[:3], B[:3], qids=pd.array(["q0", None, "q2"])), Raises(r"`qids` holds <NA>")),
    "numpy_bool_qid": Cell(lambda t: _pair(A[:3], B[:3], qids=[np.bool_(True), "q1", "q2"]),
                           Raises(r"`qids` holds np\.True_")),
    "qids_2d": Cell(lambda t: _pair(A[:3], B[:3], qids=np.array([["q0"], ["q1"], ["q2"]])),
                    Raises(r"`qids` must be a one-dimensional")),
    "qids_against_index": Cell(lambda t: _pair(pd.Series(A[:3], index=["q0", "q1", "q2"]),
                                               pd.Series(B[:3], index=["q0", "q1", "q2"]), qids=["q2", "q1", "q0"]),
                               Raises(r"`qids` differs from the index")),
    "qids_too_few": Cell(lambda t: _pair(A[:3], B[:3], qids=["q1", "q2"]), Raises(r"`qids`.*3 values, got 2")),
    # one index for both, a label twice: it was paired by position without a word
    "pandas_repeated_index": Cell(lambda t: _pair(pd.Series(A[:3], index=["q1", "q2", "q1"]),
                                                  pd.Series(B[:3], index=["q1", "q2", "q1"])),
                                  Raises(r"`a` is a pandas Series whose index repeats a label, 'q1'")),
    # 1 and 1.0 (an object index): '1' and '1.0' as strings, one query as Python compares them
    "pandas_equal_labels": Cell(lambda t: _pair(pd.Series(A[:3], index=pd.Index([1, 2, 1.0], dtype=object)),
                                                pd.Series(B[:3], index=pd.Index([1, 2, 1.0], dtype=object))),
                                Raises(r"`a\.index` holds 1\.0 \(float\)")),
}, params={"confidence_level": ((0, 1, 1.5), r"confidence_level"), "n_resamples": ((0, -1), r"n_resamples"),
           "alternative": (("bigger",), r"alternative")},
    empty=(lambda t: pf.compare_pair([], []), InsufficientSampleError, "at least 2"))


# ---- ppi_compare: proxy and gold values per query ------------------------------------------------------

_QIDS = [f"q{i}" for i in range(12)]
_PROXY_A = dict(zip(_QIDS, np.linspace(0.2, 0.6, 12).round(3)))
_PROXY_B = {q: round(v + 0.05 + 0.01 * (i % 3), 3) for i, (q, v) in enumerate(_PROXY_A.items())}
_GOLD = _QIDS[:8]
_GOLD_A = {q: round(_PROXY_A[q] + 0.02 * ((i % 2) - 0.5), 3) for i, q in enumerate(_GOLD)}
_GOLD_B = {q: round(_PROXY_B[q] + 0.03 * ((i % 3) - 1), 3) for i, q in enumerate(_GOLD)}


def _ppi(pa: Any = None, pb: Any = None, ga: Any = None, gb: Any = None, **kw: Any) -> Any:
    return pf.ppi_compare(_PROXY_A if pa is None else pa, _PROXY_B if pb is None else pb,
                          _GOLD_A if ga is None else ga, _GOLD_B if gb is None else gb, **kw)


def _ppi_value(result: Any) -> tuple[float, ...]:
    ci = result.confidence_interval
    return (float(result.statistic), float(ci.low), float(ci.high), float(result.lam))


def _put(d: dict, key: Any, value: Any) -> dict:
    return {**d, key: value}


PPI_COMPARE = OtherDoor("pf.ppi_compare", value=_ppi_value, call_with=lambda **kw: _ppi(**kw), cells={
    "clean": Cell(lambda t: _ppi()),
    "pandas": Cell(lambda t: _ppi(pd.Series(_PROXY_A), pd.Series(_PROXY_B), pd.Series(_GOLD_A), pd.Series(_GOLD_B)),
                   reference=lambda t: _ppi()),
    "empty": Cell(lambda t: _ppi({}, {}, {}, {}), Raises(r"at least 2", InsufficientSampleError)),
    "one_row": Cell(lambda t: _ppi(ga={"q0": 0.1}, gb={"q0": 0.2}), Raises(r"at least 2", InsufficientSampleError)),
    "nan": Cell(lambda t: _ppi(ga=_put(_GOLD_A, "q1", float("nan"))), Raises(r"finite")),
    "inf": Cell(lambda t: _ppi(pb=_put(_PROXY_B, "q9", float("inf"))), Raises(r"finite")),
    "none": Cell(lambda t: _ppi(ga=_put(_GOLD_A, "q1", None)), Raises(r"finite|number|None|null")),
    "nan_qid": Cell(lambda t: _ppi(ga=_put(_GOLD_A, float("nan"), 0.3), gb=_put(_GOLD_B, float("nan"), 0.3)),
                    Raises(r"nan|qid|proxy")),
    "gold_query_without_proxy": Cell(lambda t: _ppi(ga=_put(_GOLD_A, "x", 0.3), gb=_put(_GOLD_B, "x", 0.3)),
                                     Raises(r"'x'|proxy", SchemaError)),
    "unrelated_proxy_of_one_system": Cell(lambda t: _ppi(pa=_put(_PROXY_A, "z", 0.5)), Raises(r"'z'|different queries")),
}, params={"confidence_level": ((0, 1, 1.5), r"confidence_level"), "ddof": ((2, -1), r"ddof"), "lam": ((-0.5, 1.5), r"lam"),
           "method": (("exact",), r"method")},
    empty=(lambda t: pf.ppi_compare({}, {}, {}, {}), InsufficientSampleError, "at least 2"))


# ---- endpoints_from_ranks: first-hit ranks -----------------------------------------------------------

_RANKS = pl.DataFrame({"qid": ["1", "2", "3", "4"], "first_hit_rank": [1.0, 4.0, float("inf"), 12.0]})


def _ranks(frame: pl.DataFrame) -> pl.DataFrame:
    return pf.endpoints_from_ranks(frame, system="s")


def _ranks_reference(t: Path) -> pl.DataFrame:
    """hit@k = [rank <= k], RR = 1 / rank (0 for no hit), by hand."""
    rows = []
    for k in (1, 5, 10):
        rows += [("s", q, f"hit@{k}", float(r <= k)) for q, r in _RANKS.iter_rows()]
    rows += [("s", q, "RR", 0.0 if r == float("inf") else 1 / r) for q, r in _RANKS.iter_rows()]
    return pl.DataFrame(rows, schema=["system", "qid", "measure", "value"], orient="row")


ENDPOINTS_FROM_RANKS = OtherDoor("pf.endpoints_from_ranks", call_with=lambda **kw: pf.endpoints_from_ranks(_RANKS, system="s", **kw), cells={
    "clean": Cell(lambda t: _ranks(_RANKS), reference=_ranks_reference, oracle=True),
    "integer_ranks_and_words": Cell(lambda t: _ranks(pl.DataFrame({"qid": ["1", "2", "3", "4"],
                                                                   "first_hit_rank": ["1", "4", "none", "12"]})),
                                    reference=_ranks_reference, oracle=True),
    "empty": Cell(lambda t: _ranks(_RANKS.head(0)), Raises(r"empty", EmptyResultError)),
    "nan": Cell(lambda t: _ranks(_RANKS.with_columns(pl.Series("first_hit_rank", [1.0, float("nan"), 2.0, 3.0]))),
                Raises(r"row 2\b.*'2'")),
    "none": Cell(lambda t: _ranks(_RANKS.with_columns(pl.Series("first_hit_rank", [1.0, None, 2.0, 3.0]))),
                 Raises(r"row 2\b.*'2'")),
    "zero": Cell(lambda t: _ranks(_RANKS.with_columns(pl.Series("first_hit_rank", [1.0, 0.0, 2.0, 3.0]))),
                 Raises(r"row 2\b")),
    "fractional": Cell(lambda t: _ranks(_RANKS.with_columns(pl.Series("first_hit_rank", [1.0, 1.5, 2.0, 3.0]))),
                       Raises(r"row 2\b")),
    "float_ids": Cell(lambda t: _ranks(_RANKS.with_columns(pl.col("qid").cast(pl.Float64))),
                      Raises(r"\bqid\b.*float|float.*\bqid\b")),
    "none_qid": Cell(lambda t: _ranks(_RANKS.with_columns(pl.Series("qid", ["1", None, "3", "4"]))),
                     Raises(r"\bqid\b.*null|null.*\bqid\b")),
    "duplicate_qid": Cell(lambda t: _ranks(pl.concat([_RANKS, _RANKS.head(1)])), Raises(r"repeated.*'qid': '1'")),
}, params={"ks": (([0], [-1], [1.5]), r"\bks?\b")},
    empty=(lambda t: pf.endpoints_from_ranks(pl.DataFrame(schema={"qid": pl.String, "first_hit_rank": pl.Float64}),
                                             system="s"), EmptyResultError, "empty"))


# ---- measure names --------------------------------------------------------------------------------

def _names(measures: list) -> list[str]:
    return [m.name for m in measures]


PARSE_MEASURE = OtherDoor("pf.parse_measure", value=_names, cells={
    "clean": Cell(lambda t: pf.parse_measure("ndcg_cut.10"), reference=lambda t: pf.parse_measure("nDCG@10")),
    "empty": Cell(lambda t: pf.parse_measure(""), Raises(r"unknown measure", UnknownMeasureError)),
    **{f"cutoff_{k}": Cell(lambda t, k=k: pf.parse_measure(f"P@{k}"), Raises(rf"P@{k}|cutoff", UnknownMeasureError))
       for k in ("0", "-1", "1.5", "x")},
    "parameter_outside_its_range": Cell(lambda t: pf.parse_measure("RBP(p=1.5)"), Raises(r"\bp\b", UnknownMeasureError)),
    **{f"grade_given_twice_{i}": Cell(lambda t, n=n: pf.parse_measure(n), Raises(r"duplicate grade 1 in gains",
                                                                                 UnknownMeasureError))
       for i, n in enumerate(("ndcg.1=3,1=9", "nDCG(gains={1:3,1:9})"))},
    **{f"parameter_spelled_{v}": Cell(lambda t, v=v: pf.parse_measure(f"ndcg.1={v}"),
                                      Raises(rf"gain '{v}' of grade 1 is not a finite number", UnknownMeasureError))
       for v in ("inf", "NaN")},
    "cutoff_list_item_no_number": Cell(lambda t: pf.parse_measure("P.5,P.10"), Raises(r"'P\.10' is not a cutoff",
                                                                                      UnknownMeasureError)),
    "cutoff_parameter_no_number": Cell(lambda t: pf.parse_measure("relstring.x"),
                                       Raises(r"'relstring\.x': 'x' is not a cutoff", UnknownMeasureError)),
    **{f"parameter_no_number_{i}": Cell(lambda t, n=n: pf.parse_measure(n), Raises(rf"{w} is not a number", UnknownMeasureError))
       for i, (n, w) in enumerate((("ndcg.1=abc", "gain 'abc' of grade 1"), ("set_F.x", "parameter 'x'")))},
    **{f"number_followed_by_text_{i}": Cell(lambda t, n=n: pf.parse_measure(n), Value(warns=UserWarning),
                                            reference=lambda t, c=c: pf.parse_measure(c))
       for i, (n, c) in enumerate((("P.5x", "P.5"), ("ndcg_rel.1=2x", "ndcg_rel.1=2")))},
    "trec_eval_style_name_trec_eval_lacks": Cell(lambda t: pf.parse_measure("err_20"),
                                                 Raises(r"'err_20': trec_eval 10 has no measure 'err'.*ERR@20",
                                                        UnknownMeasureError)),
    "not_a_string": Cell(lambda t: pf.parse_measure(None), Raises(r"str|measure|None")),
}, empty=(lambda t: pf.parse_measure(""), UnknownMeasureError, "unknown measure"))

PARSE_MEASURES = OtherDoor("pf.parse_measures", value=_names, cells={
    "clean": Cell(lambda t: pf.parse_measures(["AP", "P.5,10"]), reference=lambda t: pf.parse_measures(["AP", "P@5", "P@10"])),
    "empty": Cell(lambda t: pf.parse_measures([]), Raises(r"no measures", UnknownMeasureError)),
    "one_bad_among_good": Cell(lambda t: pf.parse_measures(["AP", "nDCG@0"]), Raises(r"nDCG@0|cutoff", UnknownMeasureError)),
}, empty=(lambda t: pf.parse_measures([]), UnknownMeasureError, "no measures"))

#: Measure objects built directly (not parsed from a name): a cutoff or level that is a bool or out of range
#: is refused naming it (``Measure("P", cutoff=True)`` reached the SQL as P@True; cutoff=0 gave NaN).
MEASURE_OBJECTS = OtherDoor("pf.evaluate", value=lambda ev: ev.per_query, cells={
    "clean": Cell(lambda t: pf.evaluate(RUN, QRELS, [pf.Measure("P", cutoff=2)]),
                  reference=lambda t: pf.evaluate(RUN, QRELS, ["P@2"])),
    **{f"{key}_{value!r}": Cell(lambda t, key=key, value=value: pf.evaluate(RUN, QRELS, [pf.Measure("P", **{key: value})]),
                                Raises(rf"{key}={value!r}", UnknownMeasureError))
       for key, value in (("cutoff", True), ("cutoff", 0), ("cutoff", 1.5), ("rel", True), ("rel", -1))},
    "gains_grade_given_twice": Cell(lambda t: pf.evaluate(RUN, QRELS, [pf.Measure("nDCG", gains=((1, 3), (1, 5)))]),
                                    Raises(r"gains= gives grade 1 twice", UnknownMeasureError)),
})

def _written(t: Path, name: str, text: bytes) -> str:
    (t / name).write_bytes(text)
    return str(t / name)


def _run_file(t: Path) -> str:
    return _written(t, "a.run", trec_run_text(RUN.filter(pl.col("system") == "a")))


def _qrels_file(t: Path) -> str:
    return _written(t, "q.qrels", trec_qrels_text(QRELS))


#: Files that do not exist, given to pf.evaluate: a FileNotFoundError naming the argument (the outside tester got
#: a bare FileNotFoundError('x.run'), which says neither which argument nor that NAME=PATH is the CLI's form).
MISSING_FILES = OtherDoor("pf.evaluate", value=lambda ev: ev.per_query, cells={
    "clean": Cell(lambda t: pf.evaluate({"a": _run_file(t)}, _qrels_file(t), ["AP"]),
                  reference=lambda t: pf.evaluate(RUN.filter(pl.col("system") == "a"), QRELS, ["AP"])),
    "missing_run_file": Cell(lambda t: pf.evaluate([str(t / "nowhere.run")], _qrels_file(t), ["AP"]),
                             Raises(r"^run: no such file: \S+nowhere\.run$", FileNotFoundError)),
    "missing_qrels_file": Cell(lambda t: pf.evaluate(_run_file(t), str(t / "nowhere.qrels"), ["AP"]),
                               Raises(r"^qrels: no such file: \S+nowhere\.qrels$", FileNotFoundError)),
    "name_equals_path_string": Cell(lambda t: pf.evaluate(f"bm25={_run_file(t)}", _qrels_file(t), ["AP"]),
                                    Raises(r"^run: no such file: bm25=.*pass a mapping \{'bm25': .*command line",
                                           FileNotFoundError)),
})

# ---- plans --------------------------------------------------------------------------------------------

def _plan_file(t: Path, text: str, data: bytes | None = None) -> str:
    path = t / "plan.toml"
    path.write_bytes(text.encode() if data is None else data)
    return str(path)


def _plan_value(plan: Any) -> tuple:
    return (plan.baseline, plan.candidate, plan.confidence_level, plan.margin, plan.seed, plan.n_resamples,
            tuple(e.measure for e in plan.endpoints))


LOAD_PLAN = OtherDoor("pf.load_plan", value=_plan_value, cells={
    "clean": Cell(lambda t: pf.load_plan(_plan_file(t, PLAN)), reference=lambda t: pf.Plan.from_toml(PLAN)),
    "bom": Cell(lambda t: pf.load_plan(_plan_file(t, "", b"\xef\xbb\xbf" + PLAN.encode())),
                reference=lambda t: pf.Plan.from_toml(PLAN)),
    "crlf": Cell(lambda t: pf.load_plan(_plan_file(t, PLAN.replace("\n", "\r\n"))),
                 reference=lambda t: pf.Plan.from_toml(PLAN)),
    "empty": Cell(lambda t: pf.load_plan(_plan_file(t, "")), Raises(r"missing", PlanError)),
    "missing_file": Cell(lambda t: pf.load_plan(t / "nowhere.toml"), Raises(r"nowhere\.toml")),
    "directory": Cell(lambda t: pf.load_plan(t), Raises(r"is a directory, not a file: a plan is one TOML file", PlanError)),
    **{f"confidence_level_{v}": Cell(lambda t, v=v: pf.load_plan(_plan_file(t, PLAN.replace(
        "confidence_level = 0.95", f"confidence_level = {v}"))), Raises(r"confidence_level", PlanError))
       for v in ("0", "0.5", "1", "1.5", "-0.1", "nan")},
    "alpha_renamed": Cell(lambda t: pf.load_plan(_plan_file(t, PLAN.replace("confidence_level = 0.95", "alpha = 0.05"))),
                          Raises(r"alpha was renamed: write confidence_level", PlanError)),
    **{f"n_resamples_{v}": Cell(lambda t, v=v: pf.load_plan(_plan_file(t, PLAN.replace("n_resamples = 400",
                                                                                        f"n_resamples = {v}"))),
                                Raises(r"n_resamples", PlanError)) for v in ("0", "-1", "1.5")},
    "negative_margin": Cell(lambda t: pf.load_plan(_plan_file(t, PLAN.replace("margin = 0.02", "margin = -0.02"))),
                            Raises(r"margin", PlanError)),
}, empty=(lambda t: pf.load_plan(_write(t, "p.toml", "")), PlanError, "missing"))

PLAN_FROM_TOML = OtherDoor("pf.Plan.from_toml", value=_plan_value, cells={
    "clean": Cell(lambda t: pf.Plan.from_toml(PLAN.encode()), reference=lambda t: pf.Plan.from_toml(PLAN)),
    "bom": Cell(lambda t: pf.Plan.from_toml(b"\xef\xbb\xbf" + PLAN.encode()), reference=lambda t: pf.Plan.from_toml(PLAN)),
    "empty": Cell(lambda t: pf.Plan.from_toml(""), Raises(r"missing", PlanError)),
    "not_toml": Cell(lambda t: pf.Plan.from_toml("confidence_level = = 1"), Raises(r"TOML|line 1", PlanError)),
})


# ---- resample_index: query ids ------------------------------------------------------------------------

def _index_value(index: Any) -> pl.DataFrame:
    return pl.concat(list(index))


RESAMPLE_INDEX = OtherDoor("pf.resample_index", value=_index_value,
                           call_with=lambda **kw: pf.resample_index(["q1", "q2", "q3"], **{"n_resamples": 5, **kw}),
                           cells={
    "clean": Cell(lambda t: pf.resample_index(["q1", "q2", "q3"], n_resamples=5),
                  reference=lambda t: pf.resample_index(("q3", "q1", "q2"), n_resamples=5)),
    "empty": Cell(lambda t: pf.resample_index([], n_resamples=5), Raises(r"at least one query", EmptyResultError)),
    "none_qid": Cell(lambda t: pf.resample_index(["q1", None, "q3"], n_resamples=5), Raises(r"None|null|query id")),
    "nan_qid": Cell(lambda t: pf.resample_index(["q1", float("nan"), "q3"], n_resamples=5),
                    Raises(r"nan|NaN|float|query id")),
    "nan_cluster": Cell(lambda t: pf.resample_index(["q1", "q2", "q3"], n_resamples=5,
                                                    clusters=["c1", float("nan"), "c2"]), Raises(r"cluster")),
    "clusters_not_aligned": Cell(lambda t: pf.resample_index(["q1", "q2", "q3"], n_resamples=5, clusters=["c1"]),
                                 Raises(r"cluster")),
}, params={"n_resamples": ((0, -1, 1.5), r"n_resamples"), "kind": (("jackknife",), r"kind")},
    empty=(lambda t: pf.resample_index([], n_resamples=10), EmptyResultError, "needs at least one query"))


# ---- ppi_compare_segments: a table of two judgment sets -------------------------------------------------

def _judgment_sets_table() -> pl.DataFrame:
    rows = []
    for i, q in enumerate(_QIDS):
        rows += [("a", "proxy", q, "AP", _PROXY_A[q]), ("b", "proxy", q, "AP", _PROXY_B[q])]
        if q in _GOLD:
            rows += [("a", "gold", q, "AP", _GOLD_A[q]), ("b", "gold", q, "AP", _GOLD_B[q])]
    return pl.DataFrame(rows, schema=["system", "judgments", "qid", "measure", "value"], orient="row")


_JS = _judgment_sets_table()


def _ppi_segments(table: Any, **kw: Any) -> pl.DataFrame:
    return pf.ppi_compare_segments(table, baseline="a", systems=["b"], **kw)


def _set(table: pl.DataFrame, column: str, value: Any, row: int = 3) -> pl.DataFrame:
    col = table[column].to_list()
    col[row] = value
    return table.with_columns(pl.Series(column, col, strict=False))


PPI_COMPARE_SEGMENTS = OtherDoor("pf.ppi_compare_segments", call_with=lambda **kw: _ppi_segments(_JS, **kw), cells={
    "clean": Cell(lambda t: _ppi_segments(_JS), reference=lambda t: _ppi_segments(_JS.sample(fraction=1, shuffle=True,
                                                                                              seed=1))),
    "nan": Cell(lambda t: _ppi_segments(_set(_JS, "value", float("nan"))), Raises(r"finite")),
    "none_qid": Cell(lambda t: _ppi_segments(_set(_JS, "qid", None)), Raises(r"\bqid\b.*null|null.*\bqid\b")),
    "float_ids": Cell(lambda t: _ppi_segments(_JS.with_columns(pl.col("qid").str.slice(1).cast(pl.Float64))),
                      Raises(r"\bqid\b.*float|float.*\bqid\b")),
    "duplicate_key": Cell(lambda t: _ppi_segments(pl.concat([_JS, _JS.head(1)])), Raises(r"repeated|duplicate|twice")),
    "unrelated_system": Cell(lambda t: _ppi_segments(pl.concat([_JS, _JS.filter(pl.col("system") == "b")
                                                                 .with_columns(pl.lit("z").alias("system"))])),
                             reference=lambda t: _ppi_segments(_JS)),
}, params={"confidence_level": ((0, 1, 1.5), r"confidence_level")},
    empty=(lambda t: _ppi_segments(_JS, gold_qids=["99"]), EmptyResultError, "no gold value"))


# ---- compare_segments: its segment table --------------------------------------------------------------

def _segments(table: Any) -> pl.DataFrame:
    from tests.conformance.inputs import PER_QUERY

    return pf.compare_segments(PER_QUERY, table, baseline="a", systems=["b"], measures=["AP"], n_resamples=200)


def _segment_table() -> pl.DataFrame:
    from tests.conformance.inputs import SEGMENTS

    return SEGMENTS


COMPARE_SEGMENTS_TABLE = OtherDoor("pf.compare_segments", cells={
    "clean": Cell(lambda t: _segments(_segment_table()), reference=lambda t: _segments(_segment_table().reverse())),
    "float_ids": Cell(lambda t: _segments(_segment_table().with_columns(pl.col("qid").str.slice(1).cast(pl.Float64))),
                      Raises(r"\bqid\b.*float|float.*\bqid\b")),
    "none_qid": Cell(lambda t: _segments(_set(_segment_table(), "qid", None, row=2)), Raises(r"null")),
    "mapping_of_query_to_segment": Cell(lambda t: _segments(dict(_segment_table().select("qid", "segment").rows())),
                                        Raises(r"segments is a dict .* without the columns qid, segment_set, segment",
                                               SchemaError)),
    "dict_of_columns": Cell(lambda t: _segments(_segment_table().to_dict(as_series=False)),
                            reference=lambda t: _segments(_segment_table())),
    "duplicate_query_in_a_segment": Cell(lambda t: _segments(pl.concat([_segment_table(), _segment_table().head(1)])),
                                         Raises(r"q1|twice|repeated|duplicate")),
    "segment_of_unknown_queries": Cell(
        lambda t: _segments(pl.concat([_segment_table(), pl.DataFrame({"qid": ["x1"], "segment_set": ["length"],
                                                                       "segment": ["other"]})])),
        Value(warns=PartlyEmptyWarning), reference=lambda t: _segments(_segment_table())),
    # integer segment ids are read as text with the warning integer qids get ('007' became '7')
    "integer_segment_ids": Cell(lambda t: _segments(_integer_segments()), Value(warns=UserWarning),
                                reference=lambda t: _segments(_integer_segments().with_columns(
                                    pl.col("segment_set", "segment").cast(pl.String)))),
})


def _integer_segments() -> pl.DataFrame:
    return _segment_table().with_columns(pl.lit(1).alias("segment_set"),
                                         (pl.col("segment") == "long").cast(pl.Int64).alias("segment"))


# ---- label_agreement: a judgment in one set only, of a grade between the others ------------------------

_A = {"q": {"a": 0, "b": 1, "c": 3}}
_B = {"q": {"a": 0, "b": 3, "c": 3}}

LABEL_AGREEMENT_GRADES = OtherDoor("pf.label_agreement", value=lambda r: (r.kappa, r.kappa_linear, r.kappa_quadratic), cells={
    "judgment_in_one_set_only": Cell(lambda t: pf.label_agreement({"q": {**_A["q"], "x": 2}}, _B),
                                     reference=lambda t: pf.label_agreement(_A, _B)),
})

def _two_judgment_sets() -> Any:
    run = pl.DataFrame({"system": [s for s in "xyz" for _ in range(4)], "qid": ["1", "1", "2", "2"] * 3,
                        "docno": ["d1", "d2"] * 6, "score": [1.0, 2.0, 2.0, 1.0, 1.5, 1.0] * 2})
    nist = pl.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["d1", "d2", "d1", "d2"], "rel": [1, 0, 0, 1]})
    return pf.evaluate_judgment_sets(run, {"nist": nist, "llm": nist.with_columns(1 - pl.col("rel"))}, "P@1")


#: A judgment set against itself agrees perfectly whatever it holds: refused, naming the argument.
RANK_AGREEMENT_JUDGMENTS = OtherDoor("pf.rank_agreement", value=lambda r: r.table, cells={
    "same_set_twice": Cell(lambda t: pf.rank_agreement(_two_judgment_sets(), measure="P@1", judgments=("nist", "nist")),
                           Raises(r"`judgments` must name two different judgment sets")),
})

# ---- report: the other judgment sets (judgments= / --judgments) -----------------------------------------

def _agreement_cells(html: str) -> pl.DataFrame:
    """The cells of the agreement tables (labels and ranks) of the first other judgment set, in order."""
    tables = re.findall(r'<table id="[^"]*-(?:labels|ranks)-0"[^>]*>(.*?)</table>', html, flags=re.S)
    return pl.DataFrame({"cell": [c for t in tables for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", t)]})


def _report(judgments: dict[str, Any], qrels: Any = QRELS) -> str:
    return pf.report(RUN, qrels, "AP", baseline="a", n_resamples=99, judgments=judgments).fragment


def _cli_report(t: Path, judgments: dict[str, pl.DataFrame]) -> str:
    runs = [_write(t, f"input.{s}", trec_run_text(RUN.filter(pl.col("system") == s)).decode()) for s in ("a", "b")]
    sets = [f"{name}={_write(t, f'{name}.qrels', trec_qrels_text(q).decode())}" for name, q in judgments.items()]
    out = t / f"report-{len(sets)}.html"
    run_cli(["report", _write(t, "qrels.txt", trec_qrels_text(QRELS).decode()), *runs, "-m", "AP", "-B", "99",
             *[x for s in sets for x in ("--judgments", s)], "-o", str(out)])
    return out.read_text(encoding="utf-8")


#: A label set of other queries (e.g. another year's): left out with a warning naming it, the others unchanged.
REPORT_JUDGMENTS = OtherDoor("pf.report", value=_agreement_cells, cells={
    "clean": Cell(lambda t: _report({"second": QRELS_B})),
    "judgment_set_of_other_queries": Cell(lambda t: _report({"second": QRELS_B, "other": OTHER_QRELS}),
                                          Value(warns=PartlyEmptyWarning),
                                          reference=lambda t: _report({"second": QRELS_B})),
}, empty=(lambda t: _report({"second": QRELS_B}, OTHER_QRELS), EmptyResultError,
          r"judgment set 'qrels': .*no judged query in common"))
CLI_REPORT_JUDGMENTS = OtherDoor("cli report", value=_agreement_cells, cells={
    "clean": Cell(lambda t: _cli_report(t, {"second": QRELS_B})),
    "judgment_set_of_other_queries": Cell(lambda t: _cli_report(t, {"second": QRELS_B, "other": OTHER_QRELS}),
                                          Value(warns=UserWarning),  # run_cli's form of a printed warning
                                          reference=lambda t: _cli_report(t, {"second": QRELS_B})),
})

# ---- evaluate: trec_eval's command line (its flags, and its text format's names) ------------------------

def _cli_trec(t: Path, *args: str) -> str:
    """stdout of ``pairedframe evaluate QRELS RUN -f trec ARGS`` on the clean run's system a."""
    return run_cli(["evaluate", _write(t, "qrels.txt", trec_qrels_text(QRELS).decode()),
                    _write(t, "input.a", trec_run_text(RUN.filter(pl.col("system") == "a")).decode()), "-f", "trec",
                    *args])


def _without_summary(text: str) -> str:
    """trec_eval -q output without its summary lines: what trec_eval -q -n prints (m_runid.c, meas_print_final.c)."""
    return "".join(line for line in text.splitlines(keepends=True) if line.split("\t")[1] != "all")


#: trec_eval's flags: read as trec_eval reads them (-n, long names), or refused naming the flag and what to use.
CLI_EVALUATE_TREC_EVAL = OtherDoor("cli evaluate", cells={
    "clean": Cell(lambda t: _cli_trec(t, "-q", "-n", "-m", "map", "-m", "P.2"),
                  reference=lambda t: _without_summary(_cli_trec(t, "-q", "-m", "map", "-m", "P.2")), oracle=True),
    "long_option_names": Cell(lambda t: _cli_trec(t, "--query_eval_wanted", "--level_for_rel=2", "--nosummary"),
                              reference=lambda t: _cli_trec(t, "-q", "-l", "2", "-n")),
    "no_summary_without_per_query": Cell(lambda t: _cli_trec(t, "-n"), Raises(r"-n \(no summary\) without -q")),
    "trec_eval_8_all_flag": Cell(lambda t: _cli_trec(t, "-a"), Raises(r"-a is trec_eval 8's .*use -m all_trec")),
    "debug_flag": Cell(lambda t: _cli_trec(t, "-D", "1"), Raises(r"-D \(trec_eval's debug level\) is not supported")),
    "obsolete_flag": Cell(lambda t: _cli_trec(t, "-o"), Raises(r"-o is trec_eval's obsolete .*trec_eval 10 ignores")),
    "results_format_trec_eval_lacks": Cell(lambda t: _cli_trec(t, "-T", "trec_top"), Raises(r"-T/--results-format")),
    "measure_trec_eval_lacks": Cell(lambda t: _cli_trec(t, "-m", "ERR@20"),
                                    Raises(r"ERR@20 cannot be printed .*trec_eval 10 has no ERR measure")),
    "cutoff_trec_eval_lacks": Cell(lambda t: _cli_trec(t, "-m", "RR@10"),
                                   Raises(r"RR@10 cannot be printed .*'recip_rank' takes no cutoff")),
    "trec_eval_style_name_trec_eval_lacks": Cell(lambda t: _cli_trec(t, "-m", "recip_rank_cut.10"),
                                                 Raises(r"'recip_rank_cut.10': trec_eval 10 has no .*RR@10")),
})


#: A trec_eval family named bare and with parameters, or with two parameter lists: trec_eval evaluates the first
#: list only (warned), and compare compares what was evaluated (it asked for P@10 ... and failed).
CLI_COMPARE_TREC_FAMILIES = OtherDoor("cli compare", cells={
    f"{case}": Cell(lambda t, names=names: _cli_compare(t, *names), Value(warns=UserWarning),
                    reference=lambda t: _cli_compare(t, "P.2"))
    for case, names in (("family_bare_and_with_parameters", ("P", "P.2")), ("two_parameter_lists", ("P.2", "P.3")))})


def _cli_compare(t: Path, *names: str) -> str:
    """stdout of ``pairedframe compare QRELS A B -m NAME ... -f csv`` on the clean runs."""
    runs = [_write(t, f"input.{s}", trec_run_text(RUN.filter(pl.col("system") == s)).decode()) for s in ("a", "b")]
    return run_cli(["compare", _write(t, "qrels.txt", trec_qrels_text(QRELS).decode()), *runs,
                    *[x for n in names for x in ("-m", n)], "-B", "200", "-f", "csv"])


# ---- the file readers given something other than a path ----------------------------------------------
#: A table, dict or number where a file is read: a TypeError naming the reader's argument and the function
#: that takes it (a pandas frame iterated as its column names, a dict as its keys, were read as paths).

def _not_a_path(reader: Callable[[Any], Any], argument: str, door: str) -> dict[str, Cell]:
    frame = {"qid": ["7"], "docno": ["d1"], "score": [1.0], "rel": [1]}
    pattern = rf"`{argument}` is an? {{}}.*{re.escape(door)}"
    return {
        "pandas_table_instead_of_a_path": Cell(lambda t: reader(pd.DataFrame(frame)), Raises(pattern.format("pandas DataFrame"), TypeError)),
        "polars_table_instead_of_a_path": Cell(lambda t: reader(pl.DataFrame(frame)), Raises(pattern.format("polars DataFrame"), TypeError)),
        "dict_instead_of_a_path": Cell(lambda t: reader({"7": {"d1": 1}}), Raises(pattern.format("dict"), TypeError)),
        "number_instead_of_a_path": Cell(lambda t: reader(42), Raises(pattern.format("int"), TypeError)),
    }


READ_RUN_NOT_A_PATH = OtherDoor("pf.read_run", cells={
    **_not_a_path(pf.read_run, "paths", "pf.as_run"),
    "list_of_tables_instead_of_paths": Cell(lambda t: pf.read_run([RUN]), Raises(r"item 0 of `paths` is a polars DataFrame.*pf\.as_run", TypeError)),
})
READ_QRELS_NOT_A_PATH = OtherDoor("pf.read_qrels", cells={
    **_not_a_path(pf.read_qrels, "path", "pf.as_qrels"),
    "list_instead_of_a_path": Cell(lambda t: pf.read_qrels([_write(t, "q.txt", "1 0 d1 1\n")]),
                                   Raises(r"`path` is a list.*pf\.as_qrels", TypeError)),
})
READ_RESULTS_NOT_A_PATH = OtherDoor("pf.read_results", cells=_not_a_path(pf.read_results, "paths", "a per-query table is used as it is"))
READ_PREFS_NOT_A_PATH = OtherDoor("pf.read_prefs", cells=_not_a_path(pf.read_prefs, "path", "judgments_format='prefs'"))
READ_ZSCORES_NOT_A_PATH = OtherDoor("pf.read_zscores", cells=_not_a_path(pf.read_zscores, "path", "Evaluation.zscore"))

OTHER_DOORS: dict[str, OtherDoor] = {door.public.removeprefix("pf."): door for door in (
    COMPARE_PAIR, PPI_COMPARE, ENDPOINTS_FROM_RANKS, PARSE_MEASURE, PARSE_MEASURES, LOAD_PLAN, PLAN_FROM_TOML,
    RESAMPLE_INDEX, PPI_COMPARE_SEGMENTS)} | {"label_agreement[grades]": LABEL_AGREEMENT_GRADES,
                                              "rank_agreement[judgments]": RANK_AGREEMENT_JUDGMENTS,
                                              "compare_segments[segments]": COMPARE_SEGMENTS_TABLE,
                                              "report[judgments]": REPORT_JUDGMENTS,
                                              "cli report[judgments]": CLI_REPORT_JUDGMENTS,
                                              "cli evaluate[trec_eval]": CLI_EVALUATE_TREC_EVAL,
                                              "cli compare[trec_eval families]": CLI_COMPARE_TREC_FAMILIES,
                                              "evaluate[Measure objects]": MEASURE_OBJECTS,
                                              "evaluate[missing files]": MISSING_FILES,
                                              "read_run[not a path]": READ_RUN_NOT_A_PATH,
                                              "read_qrels[not a path]": READ_QRELS_NOT_A_PATH,
                                              "read_results[not a path]": READ_RESULTS_NOT_A_PATH,
                                              "read_prefs[not a path]": READ_PREFS_NOT_A_PATH,
                                              "read_zscores[not a path]": READ_ZSCORES_NOT_A_PATH}

# trec_eval's other judgment files and the DuckDB macros (imported last: they build on Cell and OtherDoor)
from tests.conformance.judgment_file_doors import DUCKDB_REGISTER, READ_PREFS, READ_ZSCORES  # noqa: E402

OTHER_DOORS |= {"read_prefs": READ_PREFS, "read_zscores": READ_ZSCORES, "duckdb.register": DUCKDB_REGISTER}
