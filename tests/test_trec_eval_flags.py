"""trec_eval 10's command-line flags on ``pairedframe evaluate`` (trec_eval.c's getopt_long): -n, -N, -T,
-h and the long option names read as trec_eval reads them; -a, -D, -o and -v refused naming the flag
and what to use; and trec format refusing, before any file is read, the measures trec_eval lacks."""

from __future__ import annotations

import warnings

import polars as pl
import pytest
from typer.testing import CliRunner

import pairedframe as pf
from pairedframe.cli import app
from pairedframe.example import example_paths

runner = CliRunner()


def _evaluate(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["evaluate", *args])
    return result.exit_code, result.stdout, result.stderr


def _example(*args: str) -> tuple[int, str, str]:
    qrels, runs = example_paths()
    return _evaluate(*args, str(qrels), str(runs[0]))


@pytest.mark.shared_data
def test_no_summary_against_trec_eval_q_output_without_its_summary_lines(shared_data):
    """trec_eval -n drops every line that meas_print_final.c and m_runid.c print, i.e. the 'all' lines."""
    folder = shared_data / "trec_eval"
    code, out, err = _evaluate("--format", "trec", "-q", "-n", "-m", "all_trec", str(folder / "qrels.test"),
                               str(folder / "results.test"))
    assert code == 0, err
    lines = (folder / "out.test.aq").read_text().splitlines(keepends=True)
    want = [line for line in lines if line.split("\t")[1] != "all"]
    assert len(want) < len(lines) and out.splitlines(keepends=True) == want


def test_no_summary_in_csv_keeps_exactly_the_per_query_rows():
    code, with_summary, err = _example("-q", "-f", "csv", "-m", "map", "-m", "P.5")
    assert code == 0, err
    code, without, err = _example("-q", "-n", "-f", "csv", "-m", "map", "-m", "P.5")
    assert code == 0, err
    ids = {"qid": pl.String}
    full, got = pl.read_csv(with_summary.encode(), schema_overrides=ids), pl.read_csv(without.encode(), schema_overrides=ids)
    assert got.height > 0 and not got["summary"].any()
    assert got.equals(full.filter(~pl.col("summary")))


def test_no_summary_without_per_query_is_refused_naming_both_flags():
    code, out, err = _example("-n", "-m", "map", "-f", "trec")
    assert code == 2 and out == ""
    assert "pairedframe: error: -n (no summary) without -q leaves nothing to print: add -q" in err


def test_collection_size_against_utility_formula():
    """m_utility.c: d = N + a - ret - R, so -N moves each query's utility by w4 * N and nothing else."""
    code, plain, err = _example("-q", "-f", "csv", "-m", "utility.1,-1,0,0.5")
    assert code == 0, err
    code, sized, err = _example("-q", "-f", "csv", "-m", "utility.1,-1,0,0.5", "-N", "1000")
    assert code == 0, err
    # qid is text (001 ... all): polars 1.37 infers an integer column from the first rows, then fails at "all"
    before, after = (pl.read_csv(out.encode(), schema_overrides={"qid": pl.String})["value"] for out in (plain, sized))
    assert before.len() > 1 and ((after - before) == 500.0).all()
    code, text, err = _example("-f", "trec", "-m", "utility.1,-1,0,0.5", "-N", "1000")
    assert code == 0, err
    assert text.startswith("utility_1,-1,0,0.5    \tall\t")


@pytest.mark.parametrize("size", [10, 0])
def test_collection_size_leaves_a_utility_that_states_its_own(size):
    """collection_size=0 is the default, which parsing drops: -N overrode it as if unstated."""
    qrels, runs = example_paths()
    name = f"Utility(weights=(1,-1,0,0.5),collection_size={size})"
    code, out, err = _example("-f", "csv", "-m", name, "-N", "1000")
    assert code == 0, err
    want = pf.evaluate(runs[0], qrels, [name]).summary()["value"].to_list()
    assert pl.read_csv(out.encode())["value"].to_list() == want


def test_utility_fourth_weight_without_collection_size_warns_at_the_caller_keeping_trec_eval_value():
    """d = N + a - ret - R is negative without N: the value stays trec_eval's (N = 0), with a warning."""
    qrels, runs = example_paths()
    with pytest.warns(UserWarning, match=r"fourth weight .* collection size") as record:
        got = pf.evaluate(runs[0], qrels, ["utility.2,-1,0,1"]).summary()["value"].to_list()
    assert [w.filename for w in record if "fourth weight" in str(w.message)] == [__file__]
    sized = pf.evaluate(runs[0], qrels, ["Utility(weights=(2,-1,0,1),collection_size=1000)"])
    # per query the size adds w4 * N = 1000, so the mean moves by exactly that
    assert sized.summary()["value"].to_list() == pytest.approx([got[0] + 1000])
    with warnings.catch_warnings(record=True) as caught:    # w4 = 0: nothing about the collection size
        warnings.simplefilter("always")
        pf.evaluate(runs[0], qrels, ["utility.2,-1,0,0", "utility"])
    assert not [w for w in caught if "fourth weight" in str(w.message)]
    # bare 'utility' with parameters: trec_eval evaluates it once, with them, and that warning says so
    assert [str(w.message) for w in caught if "is not computed" in str(w.message)] != []


def test_utility_fourth_weight_without_minus_n_warns_in_the_cli():
    code, out, err = _example("-f", "csv", "-m", "utility.2,-1,0,1")
    assert code == 0 and out, err
    assert "warning:" in err and "fourth weight" in err and "-N/--collection-size" in err
    code, out, err = _example("-f", "csv", "-m", "utility.2,-1,0,1", "-N", "1000")
    assert code == 0 and "fourth weight" not in err


@pytest.mark.parametrize("long, short", [
    (["--query_eval_wanted"], ["-q"]), (["--complete_rel_info_wanted"], ["-c"]), (["--level_for_rel=2"], ["-l", "2"]),
    (["--level_for_rel", "2"], ["-l", "2"]), (["--Max_retrieved_per_topic=5"], ["-M", "5"]),
    (["--Judged_docs_only"], ["-J"]), (["--Rel_info_format", "qrels"], ["-R", "qrels"]),
    (["--Results_format=trec_results"], []), (["-q", "--nosummary"], ["-q", "-n"]),
    (["--Number_docs_in_coll=100", "-m", "utility.1,-1,0,1"], ["-N", "100", "-m", "utility.1,-1,0,1"]),
])
def test_trec_eval_long_option_names_against_the_short_ones(long, short):
    got, want = _example("-f", "trec", "-m", "map", *long), _example("-f", "trec", "-m", "map", *short)
    assert got[0] == 0 and got == want


@pytest.mark.parametrize("args, message", [
    (["-a"], "-a is trec_eval 8's 'all measures' flag, not trec_eval 10's; use -m all_trec"),
    (["-D", "1"], "-D (trec_eval's debug level) is not supported"),
    (["-D2"], "-D (trec_eval's debug level) is not supported"),
    (["--Debug_level=2"], "--Debug_level (trec_eval -D) is not supported"),
    (["-o"], "-o is trec_eval's obsolete old-output-format flag, which trec_eval 10 ignores"),
    (["-v"], "-v (trec_eval's version) is not an evaluate option"),
    (["-T", "trec_top"], "-T/--results-format must be trec_results (trec_eval 10's only results format), got 'trec_top'"),
])
def test_trec_eval_flags_evaluate_lacks_are_refused_naming_the_flag_and_what_to_use(args, message):
    code, out, err = _example("-m", "map", *args)
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith(f"pairedframe: error: {message}")


@pytest.mark.parametrize("bundled, separate", [
    (["-qc"], ["-q", "-c"]), (["-qcM5"], ["-q", "-c", "-M", "5"]), (["-qM", "5"], ["-q", "-M", "5"]),
    (["-ql2"], ["-q", "-l", "2"]), (["--nosum", "-q"], ["-n", "-q"]), (["--Judged"], ["-J"]),
    (["--level=2"], ["-l", "2"]), (["--no", "-q"], ["-n", "-q"]),   # --no begins two names of one option
])
def test_bundled_flags_and_long_prefixes_read_as_trec_eval_getopt_long_reads_them(bundled, separate):
    """trec_eval parses its command line with getopt_long: short flags bundle (-qc) and a long option may be
    cut to an unambiguous prefix (--nosum); evaluate read neither (typer's 'No such option')."""
    got, want = _example("-f", "trec", "-m", "map", *bundled), _example("-f", "trec", "-m", "map", *separate)
    assert want[0] == 0 and got == want


@pytest.mark.parametrize("args, message", [
    (["-qa"], "-a is trec_eval 8's 'all measures' flag, not trec_eval 10's; use -m all_trec"),
    (["-qD2"], "-D (trec_eval's debug level) is not supported"),
    (["--R", "qrels"], "--R is ambiguous: it begins --Rel_info_format, --Results_format"),
    (["--Deb=2"], "--Debug_level (trec_eval -D) is not supported"),
])
def test_a_refused_flag_in_a_bundle_or_an_ambiguous_prefix_is_named(args, message):
    code, out, err = _example("-m", "map", *args)
    assert code == 2 and out == "" and "Traceback" not in err
    assert err.startswith(f"pairedframe: error: {message}"), err


def test_an_option_value_that_looks_like_a_refused_flag_is_read_as_the_value():
    code, _, err = _example("-m", "-a")
    assert code == 2 and "unknown measure '-a'" in err and "trec_eval 8" not in err


def test_short_help_flag_against_long_help():
    short, long = _evaluate("-h"), _evaluate("--help")
    assert short[0] == 0 and short == long and "--no-summary" in short[1]


@pytest.mark.parametrize("measure, why", [
    ("ERR@20", "trec_eval 10 has no ERR measure"), ("Judged@10", "trec_eval 10 has no Judged measure"),
    ("FirstRelRank", "trec_eval 10 has no FirstRelRank measure"), ("RR@10", "trec_eval's 'recip_rank' takes no cutoff"),
])
def test_trec_format_refuses_measures_trec_eval_lacks_before_reading_any_file(tmp_path, measure, why):
    missing = tmp_path / "no such run"
    code, out, err = _evaluate("-f", "trec", "-m", "map", "-m", measure, str(tmp_path / "no qrels"), str(missing))
    assert code == 2 and out == ""
    assert err.startswith(f"pairedframe: error: {measure} cannot be printed in trec_eval's format: {why}. Other "
                          "formats (table, csv, json, markdown) print it under its own name")


def test_trec_format_names_every_measure_it_refuses_at_once(tmp_path):
    code, out, err = _evaluate("-f", "trec", "-m", "RR@10", "-m", "map", "-m", "ERR@20", "-m", "Judged@10",
                               str(tmp_path / "no qrels"), str(tmp_path / "no run"))
    assert code == 2 and out == ""
    assert err.startswith("pairedframe: error: 3 measures cannot be printed in trec_eval's format: RR@10 (trec_eval's "
                          "'recip_rank' takes no cutoff); ERR@20 (trec_eval 10 has no ERR measure); Judged@10 "
                          "(trec_eval 10 has no Judged measure). Other formats")


# one family named bare and with parameters, or with two parameter lists, across -m flags
MERGED_ACROSS_FLAGS = [("P", "P.7"), ("P.5", "P.10"), ("all_trec", "rbp.p=0.5"), ("set", "utility.1,-1,0,2"),
                       ("utility.1,-1,0,0", "utility.2,-1,0,0"), ("ndcg_cut", "ndcg_cut.7"), ("set_F", "set_F.0.5"),
                       ("success", "success.3"), ("Rprec_mult", "Rprec_mult.0.5"),
                       ("iprec_at_recall", "iprec_at_recall.0.5")]


def _measure_flags(names: tuple[str, ...]) -> list[str]:
    return [arg for name in names for arg in ("-m", name)]


@pytest.mark.parametrize("names", MERGED_ACROSS_FLAGS, ids=" ".join)
def test_collection_size_keeps_the_merge_of_measure_lists_across_flags(names):
    """-N set the collection size on each -m name parsed alone, so P then P.7 printed P_5 ... P_1000."""
    code, plain, plain_err = _example("-f", "trec", *_measure_flags(names))
    assert code == 0, plain_err
    code, sized, err = _example("-f", "trec", *_measure_flags(names), "-N", "5000")
    assert code == 0, err
    measures = lambda text: [line.split("\t")[0].strip() for line in text.splitlines()]  # noqa: E731
    assert measures(sized) == measures(plain)
    merge_warnings = lambda text: [line for line in text.splitlines() if "is ignored" in line or "named bare" in line]  # noqa: E731
    assert merge_warnings(err) == merge_warnings(plain_err)


def _trec_eval_binary() -> str | None:
    import os
    import shutil
    return os.environ.get("PAIREDFRAME_TREC_EVAL") or shutil.which("trec_eval") or next(
        (p for p in ("/tmp/breakit5/te/trec_eval",) if os.access(p, os.X_OK)), None)


@pytest.mark.shared_data
@pytest.mark.parametrize("names", MERGED_ACROSS_FLAGS, ids=" ".join)
def test_collection_size_with_merged_measure_lists_against_trec_eval(names, shared_data):
    import subprocess
    binary = _trec_eval_binary()
    if binary is None:
        pytest.skip("no trec_eval binary: set PAIREDFRAME_TREC_EVAL or put trec_eval on PATH")
    folder = shared_data / "trec_eval"
    files = [str(folder / "qrels.test"), str(folder / "results.test")]
    args = [*_measure_flags(names), "-N", "5000"]
    want = subprocess.run([binary, *args, *files], capture_output=True, text=True, check=True).stdout
    code, got, err = _evaluate("-f", "trec", *args, *files)
    assert code == 0, err
    assert got == want
