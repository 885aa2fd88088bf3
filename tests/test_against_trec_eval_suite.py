"""pairedframe against trec_eval 10's own test suite and its outputs on real runs.

* ``../shared/data/trec_eval``: the twelve expected outputs of trec_eval's Makefile (``quicktest``),
  reproduced byte for byte by ``pairedframe evaluate --format trec`` run with the same arguments:
  2,674 lines (preference judgments ``-R prefs`` / ``qrels_prefs``, judgment groups ``-R qrels_jg``
  and z-scores ``-Z`` included).
* ``../shared/data/trec_eval10_real``: trec_eval 10.0's ``-q -m all_trec`` output on 11 real
  run/option cases (DL-2019 with grades 0-3 and ``-l 2``, Robust03 with ``-c -M 50``, DL-2021),
  reproduced line by line.
* The ``all`` lines trec_eval sums in query order (SABIR03BASE, aplrob03a).
"""

from __future__ import annotations

import gzip
import math
import shlex
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.io import read_run_tag, system_name_from_path

pytestmark = pytest.mark.shared_data

# expected output, trec_eval's arguments (the Makefile's, see the data README), qrels, run
MAKEFILE = [
    ("out.test", [], "qrels.test", "results.test"),
    ("out.comment.test", [], "qrels.comment.test", "results.comment.test"),
    ("out.test.a", ["-m", "all_trec"], "qrels.test", "results.test"),
    ("out.test.aq", ["-m", "all_trec", "-q"], "qrels.test", "results.test"),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c"], "qrels.test", "results.trunc"),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100"], "qrels.test", "results.trunc"),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2"], "qrels.rel_level", "results.test"),
    ("out.test.meas_params", ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
                              "-m", "Rprec_mult.5.0,0.2,0.35", "-mutility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
                              "-mndcg.1=3,2=9,4=4.5", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20"],
     "qrels.test", "results.test"),
    ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs"], "prefs.test", "prefs.results.test"),
    ("out.test.qrels_prefs", ["-m", "all_prefs", "-q", "-R", "qrels_prefs"], "qrels.test", "results.test"),
    ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg"], "qrels.123", "results.test"),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file"], "qrels.test", "results.test"),
]
# The same outputs from judgments with '#' comment lines (trec_eval's Makefile checks this too).
WITH_COMMENTS = [("out.test", [], "qrels.test.with-comments", "results.test"),
                 ("out.test.aq", ["-m", "all_trec", "-q"], "qrels.test.with-comments", "results.test"),
                 ("out.test.prefs", ["-m", "all_prefs", "-q", "-R", "prefs"], "prefs.comment.test",
                  "prefs.results.test"),
                 ("out.test.qrels_jg", ["-m", "qrels_jg", "-q", "-R", "qrels_jg"], "qrels.comments.123", "results.test")]
EXPECTED_LINES = 2674


def _cli_args(args: list[str]) -> list[str]:
    """trec_eval's glued short options (``-mrelstring.20``, ``-l2``, ``-M100``) as typer reads them."""
    out = []
    for a in args:
        if len(a) > 2 and a[:2] in ("-m", "-l", "-M"):
            out += [a[:2], a[2:]]
        else:
            out.append(a)
    return out


def _run_cli(folder: Path, args: list[str], qrels: str, run: str, engine: str) -> list[str]:
    args = [str(folder / a) if a == "zscores_file" else a for a in args]  # -Z's file, in the data folder
    result = CliRunner().invoke(app, ["evaluate", "--format", "trec", "--engine", engine, *_cli_args(args),
                                      str(folder / qrels), str(folder / run)])
    assert result.exit_code == 0, result.output
    assert result.stderr == "".join(f"pairedframe: warning: {w}\n" for w in LOOSE.get(tuple(args), ()))
    return result.stdout.splitlines(keepends=True)


#: The Makefile's ``ndcg_cut.10,20,23.4`` reads 23.4 as trec_eval's atol does, 23, and says so (the only line on
#: stderr of the suite: the output itself is trec_eval's, byte for byte).
LOOSE = {tuple(MAKEFILE[7][1]): ("measure 'ndcg_cut.10,20,23.4': cutoff '23.4' is read as 23, as trec_eval reads it: "
                                 "what follows the leading number ('.4') is ignored",)}


@pytest.mark.parametrize("engine", ["duckdb", "polars"])
def test_every_makefile_output_against_trec_eval_suite(shared_data, engine):
    folder = shared_data / "trec_eval"
    total = reproduced = 0
    for expected, args, qrels, run in MAKEFILE:
        want = (folder / expected).read_text().splitlines(keepends=True)
        got = _run_cli(folder, args, qrels, run, engine)
        total += len(want)
        reproduced += sum(a == b for a, b in zip(got, want)) if len(got) == len(want) else 0
        bad = [(i + 1, a, b) for i, (a, b) in enumerate(zip(got, want)) if a != b]
        assert len(got) == len(want) and not bad, f"{expected}: {len(got)} vs {len(want)} lines; {bad[:3]}"
    assert (reproduced, total) == (EXPECTED_LINES, EXPECTED_LINES)


@pytest.mark.parametrize(("expected", "args", "qrels", "run"), WITH_COMMENTS, ids=[c[2] for c in WITH_COMMENTS])
def test_qrels_with_comments_against_trec_eval_suite(shared_data, expected, args, qrels, run):
    folder = shared_data / "trec_eval"
    assert _run_cli(folder, args, qrels, run, "duckdb") == (folder / expected).read_text().splitlines(keepends=True)


def _python_call(folder: Path, args: list[str]) -> tuple[list[str], dict, bool, Path | None]:
    """trec_eval's Makefile arguments as :func:`pairedframe.evaluate`'s: measures, keywords, -q, -Z's file."""
    measures, kwargs, per_query, zscores = [], {}, False, None
    words = iter(_cli_args(args))
    for w in words:
        if w == "-q":
            per_query = True
        elif w == "-c":
            kwargs["complete"] = True
        elif w == "-m":
            measures.append(next(words))
        elif w == "-l":
            kwargs["rel_level"] = int(next(words))
        elif w == "-M":
            kwargs["depth"] = int(next(words))
        elif w == "-R":
            kwargs["judgments_format"] = next(words)
        elif w == "-Z":
            zscores = folder / next(words)
        else:
            raise AssertionError(f"unexpected trec_eval option {w!r}")
    return measures or ["official"], kwargs, per_query, zscores


@pytest.mark.parametrize(("expected", "args", "qrels", "run"), MAKEFILE, ids=[c[0] for c in MAKEFILE])
def test_python_to_trec_of_every_makefile_output_against_trec_eval_suite(shared_data, expected, args, qrels, run):
    """pf.evaluate(...).to_trec() with the Makefile's measure names is byte for byte trec_eval's text,
    the runid line included exactly where trec_eval prints it (default set and nicknames, not -m lists:
    out.test.meas_params has none)."""
    folder = shared_data / "trec_eval"
    measures, kwargs, per_query, zscores = _python_call(folder, args)
    ev = pf.evaluate(str(folder / run), str(folder / qrels), measures, **kwargs)
    if zscores is not None:
        ev = ev.zscore(str(zscores))
    assert ev.to_trec(per_query=per_query) == (folder / expected).read_text()


def _lines_of(path: Path, name: str) -> str:
    return "".join(line for line in path.read_text().splitlines(keepends=True) if line.startswith(name + " "))


def test_relstring_alone_against_trec_eval_suite(shared_data):
    """-m relstring.20 alone prints its per-query lines (out.test.aql's, trec_eval -l2 on qrels.rel_level)."""
    folder = shared_data / "trec_eval"
    want = _lines_of(folder / "out.test.aql", "relstring_20")
    assert want.count("\n") == 3
    assert "".join(_run_cli(folder, ["-q", "-l2", "-m", "relstring.20"], "qrels.rel_level", "results.test",
                            "duckdb")) == want
    ev = pf.evaluate(str(folder / "results.test"), str(folder / "qrels.rel_level"), ["relstring.20"], rel_level=2)
    assert ev.to_trec() == want and ev.to_trec(per_query=False) == ""


@pytest.mark.parametrize("measures", [["relstring"], ["relstring", "map"]])
def test_relstring_without_q_prints_nothing_and_warns_against_trec_eval_suite(shared_data, measures):
    """trec_eval prints no summary line for relstring (out.test.a, -m all_trec without -q, has none): stdout
    stays its own, byte for byte, and stderr says why relstring is missing, in the words of -f markdown."""
    folder = shared_data / "trec_eval"
    want = "".join(_lines_of(folder / "out.test.a", name) for name in measures)
    assert want.count("\n") == len(measures) - 1       # map's line alone
    args = [a for m in measures for a in ("-m", m)]
    result = CliRunner().invoke(app, ["evaluate", "--format", "trec", *args, str(folder / "qrels.test"),
                                      str(folder / "results.test")])
    assert result.exit_code == 0, result.output
    assert result.stdout == want
    assert result.stderr == ("pairedframe: warning: RelString@10 has no summary value (one string per query), so the "
                             "summary leaves it out: add -q to print it\n")


def test_relstring_named_twice_is_warned_about_once_against_trec_eval_suite(shared_data):
    """-m relstring -m relstring warned 'RelString@10, RelString@10 have no summary value ... leaves it out'
    (the tester of round 15): one name, one verb; stdout stays trec_eval's (empty)."""
    folder = shared_data / "trec_eval"
    result = CliRunner().invoke(app, ["evaluate", "--format", "trec", "-m", "relstring", "-m", "relstring",
                                      str(folder / "qrels.test"), str(folder / "results.test")])
    assert result.exit_code == 0 and result.stdout == "", result.output
    assert result.stderr == ("pairedframe: warning: RelString@10 has no summary value (one string per query), so the "
                             "summary leaves it out: add -q to print it\n")

def test_runid_alone_against_trec_eval_suite(shared_data):
    """-m runid prints trec_eval's runid line only (out.test's) from the CLI; pf.evaluate refuses ["runid"]
    alone (its tables would be empty) and prints the line before the measures named with it."""
    folder = shared_data / "trec_eval"
    want = _lines_of(folder / "out.test", "runid")
    assert want == "runid                 \tall\tSTANDARD\n"
    assert "".join(_run_cli(folder, ["-m", "runid"], "qrels.test", "results.test", "duckdb")) == want
    with pytest.raises(ValueError, match="names no measure, only trec_eval's runid line"):
        pf.evaluate(str(folder / "results.test"), str(folder / "qrels.test"), ["runid"])
    with_map = pf.evaluate(str(folder / "results.test"), str(folder / "qrels.test"), ["runid", "map"]).to_trec(per_query=False)
    assert with_map == want + _lines_of(folder / "out.test", "map")


def _real_cases(shared_data: Path) -> list[tuple[str, list[str], Path, Path]]:
    cases = []
    for line in (shared_data / "trec_eval10_real" / "commands.txt").read_text().splitlines():
        name, command = line.split(":", 1)
        words = shlex.split(command)[1:]
        *options, qrels, run = words
        cases.append((name, options, shared_data / qrels, shared_data / run))
    return cases


def _options(words: list[str]) -> tuple[list[str], dict]:
    measures, kwargs, i = [], {}, 0
    while i < len(words):
        w = words[i]
        if w == "-m":
            measures.append(words[i + 1])
            i += 1
        elif w == "-l":
            kwargs["rel_level"] = int(words[i + 1])
            i += 1
        elif w == "-M":
            kwargs["depth"] = int(words[i + 1])
            i += 1
        elif w == "-c":
            kwargs["complete"] = True
        elif w != "-q":
            raise AssertionError(f"unexpected trec_eval option {w!r} in commands.txt")
        i += 1
    return measures, kwargs


def test_all_trec_on_real_runs_against_trec_eval_10(shared_data):
    cases = _real_cases(shared_data)
    assert len(cases) == 11
    total = 0
    for name, words, qrels, run in cases:
        measures, kwargs = _options(words)
        ev = pf.evaluate(run, qrels, measures, **kwargs)
        got = ev.to_trec(runids={system_name_from_path(run): read_run_tag(run)}).splitlines(keepends=True)
        with gzip.open(shared_data / "trec_eval10_real" / f"{name}.all_trec.gz", "rt") as fh:
            want = fh.read().splitlines(keepends=True)
        bad = [(i + 1, a, b) for i, (a, b) in enumerate(zip(got, want)) if a != b]
        assert len(got) == len(want) and not bad, f"{name}: {len(bad)} lines differ, e.g. {bad[:3]}"
        total += len(want)
    assert total == 65_793


@pytest.mark.parametrize("name", ["idst_bert_p1.dl19", "Sel50.r03.cM50"])
def test_all_trec_on_real_runs_polars_engine_against_trec_eval_10(shared_data, name):
    (case,) = [c for c in _real_cases(shared_data) if c[0] == name]
    _, words, qrels, run = case
    measures, kwargs = _options(words)
    ev = pf.evaluate(run, qrels, measures, engine="polars", **kwargs)
    got = ev.to_trec(runids={system_name_from_path(run): read_run_tag(run)})
    with gzip.open(shared_data / "trec_eval10_real" / f"{name}.all_trec.gz", "rt") as fh:
        assert got == fh.read()


@pytest.mark.parametrize(("run", "measure", "printed"), [
    ("SABIR03BASE", "P@1000", "0.0332"), ("SABIR03BASE", "P@200", None), ("aplrob03a", "P@200", "0.1264")])
def test_all_line_sums_in_query_order_against_trec_eval(shared_data, run, measure, printed):
    """trec_eval adds the per-query values one by one in its query order (qid byte order) and divides
    by num_q; an exact or pairwise mean rounds the other way at these 4-decimal boundaries (issue 10:
    SABIR03BASE P_1000 is 0.03324999999999998 summed in order, exactly 0.03325)."""
    folder = shared_data / "trectools_robust03"
    ev = pf.evaluate(folder / "runs" / f"input.{run}.gz", folder / "qrel" / "robust03_qrels.txt", [measure])
    (value,) = ev.summary()["value"].to_list()
    per_query = ev.per_query.sort(pl.col("qid").cast(pl.Binary))["value"].to_list()
    in_order = 0.0
    for v in per_query:
        in_order += v
    assert value == in_order / len(per_query)
    assert f"{math.fsum(per_query) / len(per_query):6.4f}" != f"{value:6.4f}"  # the exact mean rounds the other way
    if printed is not None:  # trec_eval 10's line, quoted in issue 10
        assert f"{value:6.4f}" == printed


def test_rbp_and_residual_against_trec_eval_10_lines(shared_data):
    """ir_measures-style RBP(p=0.9) and RBPResid(p=0.9) are trec_eval 10's rbp and rbp_resid (graded
    DL-2019 judgments: the grades 0-3 rescaled to [0, 1] per query)."""
    (case,) = [c for c in _real_cases(shared_data) if c[0] == "idst_bert_p1.dl19"]
    _, _, qrels, run = case
    ev = pf.evaluate(run, qrels, ["RBP(p=0.9)", "RBPResid(p=0.9)"])
    assert [m.trec_name for m in ev.measures] == ["rbp", "rbp_resid"]
    got = {({"RBP(p=0.9)": "rbp"}.get(m, "rbp_resid"), q): f"{v:6.4f}" for _, q, m, v in ev.per_query.iter_rows()}
    with gzip.open(shared_data / "trec_eval10_real" / "idst_bert_p1.dl19.all_trec.gz", "rt") as fh:
        want = {(name.strip(), q): v.strip() for name, q, v in (line.split("\t") for line in fh)
                if name.strip() in ("rbp", "rbp_resid") and q != "all"}
    assert len(want) == 2 * 43 and got == want


def test_num_rel_all_under_complete_and_level_2_against_trec_eval_10(shared_data):
    """trec_eval 10 prints ``num_rel all 4102`` for DL-2019 under ``-c -l 2`` (issue 23): under -c,
    m_num_rel.c counts the qrels lines with a grade > 0 whatever -l says. The per-query num_rel (grade
    >= 2) sum to 2501, which summary() keeps; --format trec prints trec_eval's line."""
    (case,) = [c for c in _real_cases(shared_data) if c[0] == "idst_bert_p1.dl19"]
    _, _, qrels, run = case
    result = CliRunner().invoke(app, ["evaluate", "--format", "trec", "-c", "-l", "2", "-m", "all_trec", str(qrels),
                                      str(run)])
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("num_rel ") and "\tall\t" in x]
    assert line == "num_rel               \tall\t4102"
    positive = sum(1 for x in Path(qrels).read_text().splitlines() if x.strip() and int(x.split()[3]) > 0)
    assert positive == 4102
    ev = pf.evaluate(run, qrels, ["num_rel"], complete=True, rel_level=2)
    assert ev.trec_num_rel_all == 4102
    assert ev.summary()["value"].to_list() == [2501.0] == [ev.per_query["value"].sum()]
